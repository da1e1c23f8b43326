/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_shim.h - the little of the kernel that kmod/twheel_wheel.[ch] use,
 * for building the wheel as ordinary userspace C (tests, fuzzer, bench).
 *
 * Written for twheel; only what the wheel and the tests need: fixed-width
 * types, a circular doubly linked list with the kernel's semantics, and the
 * bit helpers. Included by twheel_wheel.h when __KERNEL__ is not defined.
 */
#ifndef _TWHEEL_SHIM_H
#define _TWHEEL_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* As in the kernel, u64 is unsigned long long everywhere (so %llu fits). */
typedef unsigned long long u64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t u8;

#ifndef U64_MAX
#define U64_MAX		(~0ULL)
#endif

#define EXPORT_SYMBOL_IF_KUNIT(sym)

/* A state no input may cause: the tests stop there. */
#ifndef WARN_ON_ONCE
#define WARN_ON_ONCE(cond)	({ bool __c = !!(cond);			\
				   if (__c)				\
					__builtin_trap();		\
				   __c; })
#endif

#ifndef __maybe_unused
#define __maybe_unused	__attribute__((__unused__))
#endif
#ifndef __printf
#define __printf(a, b)	__attribute__((__format__(printf, a, b)))
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))
#endif

/* Bit helpers. fls64(0) = 0, fls64(1) = 1, fls64(1 << 63) = 64. */
static inline unsigned int fls64(u64 x)
{
	return x ? 64U - (unsigned int)__builtin_clzll(x) : 0U;
}

/* Index of the lowest set bit; undefined for 0, as in the kernel. */
static inline unsigned int __ffs64(u64 x)
{
	return (unsigned int)__builtin_ctzll(x);
}

/* Circular doubly linked list, head and node share one type. */
struct list_head {
	struct list_head *next, *prev;
};

static inline void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

static inline void shim_list_link(struct list_head *n, struct list_head *prev,
				  struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	shim_list_link(n, h->prev, h);
}

static inline void __list_del(struct list_head *prev, struct list_head *next)
{
	next->prev = prev;
	prev->next = next;
}

static inline void shim_list_unlink(struct list_head *n)
{
	__list_del(n->prev, n->next);
}

/* Unlink @n; like the kernel's, the node is left unusable until re-added. */
static inline void list_del(struct list_head *n)
{
	shim_list_unlink(n);
	n->next = NULL;
	n->prev = NULL;
}

static inline void list_del_init(struct list_head *n)
{
	shim_list_unlink(n);
	INIT_LIST_HEAD(n);
}

static inline void list_move_tail(struct list_head *n, struct list_head *h)
{
	shim_list_unlink(n);
	list_add_tail(n, h);
}


/*
 * Move the nodes of @head up to and including @entry (one of them) to
 * @list, which is overwritten.
 */
static inline void list_cut_position(struct list_head *list,
				     struct list_head *head,
				     struct list_head *entry)
{
	struct list_head *new_first = entry->next;

	if (list_empty(head) || entry == head) {
		INIT_LIST_HEAD(list);
		return;
	}
	list->next = head->next;
	list->next->prev = list;
	list->prev = entry;
	entry->next = list;
	head->next = new_first;
	new_first->prev = head;
}

/* Move every node of @from to the tail of @to; @from is left as it was. */
static inline void list_splice_tail(struct list_head *from,
				    struct list_head *to)
{
	struct list_head *first, *last;

	if (list_empty(from))
		return;
	first = from->next;
	last = from->prev;
	first->prev = to->prev;
	to->prev->next = first;
	last->next = to;
	to->prev = last;
}

/* Move every node of @from to the tail of @to; @from is left empty. */
static inline void list_splice_tail_init(struct list_head *from,
					 struct list_head *to)
{
	list_splice_tail(from, to);
	INIT_LIST_HEAD(from);
}

/* Move every node of @from to the head of @to; @from is left empty. */
static inline void list_splice_init(struct list_head *from,
				    struct list_head *to)
{
	struct list_head *first, *last;

	if (list_empty(from))
		return;
	first = from->next;
	last = from->prev;
	last->next = to->next;
	to->next->prev = last;
	to->next = first;
	first->prev = to;
	INIT_LIST_HEAD(from);
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(h, type, member) \
	list_entry((h)->next, type, member)
#define list_next_entry(pos, member) \
	list_entry((pos)->member.next, __typeof__(*(pos)), member)

#define list_for_each(pos, h) \
	for ((pos) = (h)->next; (pos) != (h); (pos) = (pos)->next)

#define list_for_each_entry(pos, h, member)				\
	for ((pos) = list_first_entry(h, __typeof__(*(pos)), member);	\
	     &(pos)->member != (h);					\
	     (pos) = list_next_entry(pos, member))

#define list_for_each_entry_safe(pos, n, h, member)			\
	for ((pos) = list_first_entry(h, __typeof__(*(pos)), member),	\
	     (n) = list_next_entry(pos, member);			\
	     &(pos)->member != (h);					\
	     (pos) = (n), (n) = list_next_entry(n, member))

#endif /* _TWHEEL_SHIM_H */
