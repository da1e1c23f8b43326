// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_kunit.ko - KUnit tests for twheel.ko.
 *
 * Each suite lives in its own file of this directory; this file holds the
 * module boilerplate and the smoke suite, which checks that twheel.ko is
 * loaded and that /dev/twheel opens and closes through the VFS.
 */
#include <kunit/test.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/module.h>

static void twheel_smoke_open_close(struct kunit *test)
{
	struct file *f;

	f = filp_open("/dev/twheel", O_RDWR, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "open /dev/twheel: %ld",
			       PTR_ERR(f));
	KUNIT_EXPECT_NOT_NULL(test, f->private_data);
	KUNIT_EXPECT_EQ(test, filp_close(f, NULL), 0);
}

static void twheel_smoke_independent_opens(struct kunit *test)
{
	struct file *a, *b;

	a = filp_open("/dev/twheel", O_RDWR, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(a));
	b = filp_open("/dev/twheel", O_RDWR, 0);
	if (IS_ERR(b))
		filp_close(a, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(b));
	/* Each open is its own timer set. */
	KUNIT_EXPECT_PTR_NE(test, a->private_data, b->private_data);
	filp_close(b, NULL);
	filp_close(a, NULL);
}

static struct kunit_case twheel_smoke_cases[] = {
	KUNIT_CASE(twheel_smoke_independent_opens),
	KUNIT_CASE(twheel_smoke_open_close),
	{}
};

static struct kunit_suite twheel_smoke_suite = {
	.name = "twheel_smoke",
	.test_cases = twheel_smoke_cases,
};

kunit_test_suite(twheel_smoke_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for twheel");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
