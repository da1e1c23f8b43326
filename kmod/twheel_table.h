/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_table.h - the shared timer table of one timer set: one u64 entry
 * per id slot, in pages the kernel allocates and the application maps
 * (see "The shared timer table" in uapi/linux/twheel.h).
 *
 * A utility of the timers layer, which writes an entry when an operation
 * sets a timer's deadline and reads it when the timer's deadline tick
 * comes due. The pages are allocated as the id slots grow into them,
 * charged to the caller's memory cgroup: a page holds the entries of
 * TWHEEL_TABLE_PER_PAGE slots, 8 bytes per slot, part of what a slot may
 * hold (TWHEEL_TIMER_MAX_BYTES). The kernel's accesses are plain loads
 * and stores to its own mapping of the pages: nothing here touches user
 * memory or can fault.
 *
 * The table does not lock; the caller serialises every call but
 * twheel_table_read_irq(), the hrtimer callback's (twheel_irq.c), which
 * runs under RCU against the page array's growth.
 */
#ifndef _TWHEEL_TABLE_H
#define _TWHEEL_TABLE_H

#include <linux/compiler.h>
#include <linux/mm_types.h>
#include <linux/types.h>
#include <asm/page.h>

#include <linux/twheel.h>

/* Entries per page of the table. */
#define TWHEEL_TABLE_PER_PAGE	(PAGE_SIZE / sizeof(u64))

/*
 * The bits of an entry that must equal the timer's id for the entry to
 * be meant for it (bits 33 to 63: the id's generation).
 */
#define TWHEEL_TABLE_TAG_MASK	(~0ULL << 33)

/**
 * struct twheel_table - a set's shared timer table
 * @pages: the kernel addresses of the backed pages, by page number
 * @nr_pages: pages backed: the first @nr_pages of the table
 * @max_pages: room in @pages
 * @size_pages: the table's size in pages; 0 when the set has none
 * @mapped: the table was mapped: the set's configuration is fixed
 */
struct twheel_table {
	u64 **pages;
	u32 nr_pages;
	u32 max_pages;
	u32 size_pages;
	bool mapped;
};

int twheel_table_set_size(struct twheel_table *tab, u64 entries);
int __twheel_table_back(struct twheel_table *tab, u32 slot);
struct page *twheel_table_page(const struct twheel_table *tab, u64 pgoff);
struct vm_fault;
vm_fault_t twheel_table_page_mkwrite(struct vm_fault *vmf);
void twheel_table_free(struct twheel_table *tab);

/* Does the set have a table? */
static inline bool twheel_table_on(const struct twheel_table *tab)
{
	return tab->size_pages;
}

/**
 * twheel_table_back() - make sure a slot's entry is backed by a page
 * @tab: a set's table (twheel_table_on())
 * @slot: the id slot, from 0
 *
 * Inline: only a slot in a page not yet backed allocates.
 *
 * Return: 0; -ENOMEM; -ENOSPC when @slot is beyond the table's size.
 */
static inline int twheel_table_back(struct twheel_table *tab, u32 slot)
{
	if (likely(slot / TWHEEL_TABLE_PER_PAGE < tab->nr_pages))
		return 0;
	return __twheel_table_back(tab, slot);
}

/* The entry of a backed slot. */
static inline u64 *twheel_table_entry(const struct twheel_table *tab,
				      u32 slot)
{
	return &tab->pages[slot / TWHEEL_TABLE_PER_PAGE]
			  [slot % TWHEEL_TABLE_PER_PAGE];
}

/* The slot of a live id, whose entry is backed. */
static inline u32 twheel_table_slot(u64 id)
{
	return (u32)id - 1;
}

/**
 * twheel_table_write() - the kernel's store into a live timer's entry
 * @tab: a set's table (twheel_table_on())
 * @id: the timer's id
 * @v: the value
 */
static inline void twheel_table_write(const struct twheel_table *tab, u64 id,
				      u64 v)
{
	WRITE_ONCE(*twheel_table_entry(tab, twheel_table_slot(id)), v);
}

/**
 * twheel_table_read() - what a live timer's entry says for it
 * @tab: a set's table (twheel_table_on())
 * @id: the timer's id
 * @v: set to the entry, read once
 *
 * Return: true when the entry is meant for this timer (its tag is the
 * id's): only then may @v change anything.
 */
static inline bool twheel_table_read(const struct twheel_table *tab, u64 id,
				     u64 *v)
{
	*v = READ_ONCE(*twheel_table_entry(tab, twheel_table_slot(id)));
	return !((*v ^ id) & TWHEEL_TABLE_TAG_MASK);
}

/**
 * twheel_table_tick() - the tick a deadline entry names
 * @v: a TWHEEL_TABLE_DEADLINE() entry
 * @ref: the present tick it is read against (in the opener's time)
 *
 * Return: the tick whose low 32 bits @v holds, from @ref - 2^31 to
 * @ref + 2^31 - 1.
 */
static inline s64 twheel_table_tick(u64 v, s64 ref)
{
	return ref + (s32)((u32)v - (u32)ref);
}

/**
 * twheel_table_read_irq() - twheel_table_read() without the set's lock
 * @tab: a set's table (twheel_table_on())
 * @id: a timer's id, live while the caller reads (it holds the timer's
 *      clock base's lock, and the timer is in its wheel)
 * @v: set to the entry, read once
 *
 * For the hrtimer callback, inside an RCU read-side section: the page
 * array may be replaced by a larger one meanwhile (see
 * twheel_table_back_one()), but the slot's page is backed and stays.
 *
 * Return: true when the entry is meant for this timer.
 */
static inline bool twheel_table_read_irq(const struct twheel_table *tab,
					 u64 id, u64 *v)
{
	u64 **pages = READ_ONCE(tab->pages);
	u32 slot = twheel_table_slot(id);

	*v = READ_ONCE(pages[slot / TWHEEL_TABLE_PER_PAGE]
			    [slot % TWHEEL_TABLE_PER_PAGE]);
	return !((*v ^ id) & TWHEEL_TABLE_TAG_MASK);
}

#endif /* _TWHEEL_TABLE_H */
