// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_table.c - the shared timer table of a set: its pages, backed as
 * the set's id slots grow into them, and found by page number for the
 * application's mapping.
 *
 * A utility of the timers layer; it calls nothing of twheel's but the
 * memory policy of twheel_user.h (TWHEEL_GFP). twheel_table_page_mkwrite()
 * is for the mapping's vm_operations_struct (twheel_dev.c). Every page is zeroed when
 * allocated (no kernel data reaches user space) and charged to the
 * caller's memory cgroup.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/math.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "twheel_ids.h"
#include "twheel_table.h"
#include "twheel_user.h"

/**
 * twheel_table_set_size() - give a set a table, or none
 * @tab: the table, with no page backed
 * @entries: the most timers the set may hold; 0 for no table
 *
 * Return: 0, or -EINVAL when the table would have more entries than id
 * slots can exist.
 */
int twheel_table_set_size(struct twheel_table *tab, u64 entries)
{
	/* An entry's tag is the id's generation; its cancel bit is 0 in ids. */
	BUILD_BUG_ON(TWHEEL_IDS_GEN_SHIFT < 33);
	BUILD_BUG_ON(!(TWHEEL_TABLE_CANCEL & TWHEEL_IDS_FREE_BITS));
	BUILD_BUG_ON(TWHEEL_TABLE_CANCEL & TWHEEL_TABLE_TAG_MASK);
	BUILD_BUG_ON(TWHEEL_TABLE_PER_PAGE != TWHEEL_IDS_PER_PAGE);
	if (entries > TWHEEL_IDS_MAX_SLOTS)
		return -EINVAL;
	tab->size_pages = DIV_ROUND_UP(entries, TWHEEL_TABLE_PER_PAGE);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_table_set_size);

/* Back one more page: the first one not backed. */
static int twheel_table_back_one(struct twheel_table *tab)
{
	u64 **pages, **old;
	u64 *page;
	u32 max;

	page = (u64 *)get_zeroed_page(TWHEEL_GFP);
	if (!page)
		return -ENOMEM;
	if (tab->nr_pages == tab->max_pages) {
		max = min(tab->max_pages ? 2 * tab->max_pages : 1,
			  tab->size_pages);
		pages = kvmalloc_array(max, sizeof(*pages), TWHEEL_GFP);
		if (!pages) {
			free_page((unsigned long)page);
			return -ENOMEM;
		}
		old = tab->pages;
		if (tab->nr_pages)
			memcpy(pages, old, tab->nr_pages * sizeof(*pages));
		/*
		 * The hrtimer callback reads entries through the array
		 * without the set's lock (twheel_table_read_irq()): publish
		 * the copy, then free the old one after every reader that
		 * may have loaded it (an interrupt, or an RCU read side on
		 * PREEMPT_RT). A grace period per doubling: a few per set.
		 */
		smp_store_release(&tab->pages, pages);
		tab->max_pages = max;
		if (old) {
			synchronize_rcu();
			kvfree(old);
		}
	}
	tab->pages[tab->nr_pages++] = page;
	return 0;
}

/**
 * __twheel_table_back() - back the pages up to a slot's entry
 * @tab: a set's table
 * @slot: a slot beyond the backed pages: usually in the first page not
 *        backed (slots are taken in order), further when the table came
 *        after slots were taken (a configuration after failed adds)
 *
 * Each page's allocations come before the table changes: a failure leaves
 * the pages backed before it, and no more.
 *
 * Return: 0; -ENOMEM; -ENOSPC when @slot is beyond the table's size (a
 * set whose slots were retired: see twheel_ids.h).
 */
int __twheel_table_back(struct twheel_table *tab, u32 slot)
{
	u32 nr = slot / TWHEEL_TABLE_PER_PAGE;
	int ret;

	if (nr >= tab->size_pages)
		return -ENOSPC;
	while (tab->nr_pages <= nr) {
		ret = twheel_table_back_one(tab);
		if (ret)
			return ret;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(__twheel_table_back);

/**
 * twheel_table_page() - a backed page of the table, for a mapping
 * @tab: a set's table
 * @pgoff: the page's number in the table
 *
 * Return: the page, with a reference taken for the caller; NULL when it
 * is not backed (or beyond the table).
 */
struct page *twheel_table_page(const struct twheel_table *tab, u64 pgoff)
{
	struct page *page;

	if (pgoff >= tab->nr_pages)
		return NULL;
	page = virt_to_page(tab->pages[pgoff]);
	get_page(page);
	return page;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_table_page);

/**
 * twheel_table_page_mkwrite() - a page of the table about to be written
 * @vmf: the write fault, on a page twheel_table_page() gave the mapping
 *
 * The table's mappings have this vm_operations_struct.page_mkwrite so
 * that the fault does not stamp the device's inode: without one, the
 * first write to a page through each of its mappings (do_shared_fault(),
 * wp_page_shared()) calls file_update_time() on /dev/twheel, and every
 * user could see when another one first stored into a table (the
 * /dev/ptmx leak, CVE-2013-0160). The page is the table's own, never
 * truncated nor written back: nothing to do but hand it back locked, as
 * the caller expects (it takes an unlocked page without a mapping for a
 * truncated one and retries the fault forever).
 *
 * Return: VM_FAULT_LOCKED, with the page locked.
 */
vm_fault_t twheel_table_page_mkwrite(struct vm_fault *vmf)
{
	lock_page(vmf->page);
	return VM_FAULT_LOCKED;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_table_page_mkwrite);

/**
 * twheel_table_free() - give the table's pages back
 * @tab: the table; afterwards it has no page and no size
 *
 * A page still mapped somewhere stays until it is unmapped (the mapping
 * holds a reference); nobody can map the set's table by then.
 */
void twheel_table_free(struct twheel_table *tab)
{
	u32 i;

	for (i = 0; i < tab->nr_pages; i++)
		free_page((unsigned long)tab->pages[i]);
	kvfree(tab->pages);
	memset(tab, 0, sizeof(*tab));
}
EXPORT_SYMBOL_IF_KUNIT(twheel_table_free);
