// SPDX-License-Identifier: GPL-2.0
/*
 * abi_cmd: the command word and the fields every command shares. The
 * wrong direction bits or an unknown number (ENOTTY), also other ioctl
 * types with our numbers; unknown flags and non-zero reserved fields
 * (EINVAL), for each of the nine ioctls (abi_table.h) that has them.
 */
#include <termios.h>

#include "abi_table.h"

/* A command number with another direction: same type, number, size. */
#define CMD_DIR(cmd, dir)						\
	_IOC((dir), _IOC_TYPE(cmd), _IOC_NR(cmd), _IOC_SIZE(cmd))

/* Every flag bit a command does not take: EINVAL, nothing changed. */
static void bad_flags(void)
{
	struct ictx x = { 0 };
	unsigned int k, b;

	for (k = 0; k < NDESCS; k++) {
		const struct idesc *d = &descs[k];
		size_t size = _IOC_SIZE(d->cmd);

		if (d->flags_off == NONE)
			continue;
		for (b = 0; b <= 32; b++) {
			uint32_t bad = b < 32 ? 1U << b : ~d->flags_ok;
			unsigned char *p;

			if (bad & d->flags_ok)
				continue;
			begin(d, &x);
			p = place(size);
			*(uint32_t *)(p + d->flags_off) |= bad;
			call(d, &x, d->cmd, p, size, EINVAL, "bad flags");
			end(&x);
		}
	}
}

/* Any non-zero __reserved: EINVAL, nothing changed. */
static void bad_reserved(void)
{
	uint32_t bad[] = { 1, 2, 0x80000000U, 0xFFFFFFFFU };
	struct ictx x = { 0 };
	unsigned int k, b;

	for (k = 0; k < NDESCS; k++) {
		const struct idesc *d = &descs[k];
		size_t size = _IOC_SIZE(d->cmd);

		if (d->rsv_off == NONE)
			continue;
		for (b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
			unsigned char *p;

			begin(d, &x);
			p = place(size);
			*(uint32_t *)(p + d->rsv_off) = bad[b];
			call(d, &x, d->cmd, p, size, EINVAL, "bad reserved");
			end(&x);
		}
	}
}

/*
 * Our numbers and sizes with the other direction bits are other,
 * unknown commands: ENOTTY, nothing changed.
 */
static void wrong_direction(void)
{
	unsigned int dirs[] = { _IOC_NONE, _IOC_READ, _IOC_WRITE,
				_IOC_READ | _IOC_WRITE };
	struct ictx x = { 0 };
	unsigned int k, i;

	for (k = 0; k < NDESCS; k++) {
		const struct idesc *d = &descs[k];
		size_t size = _IOC_SIZE(d->cmd);

		for (i = 0; i < 4; i++) {
			if (dirs[i] == _IOC_DIR(d->cmd))
				continue;
			begin(d, &x);
			call(d, &x, CMD_DIR(d->cmd, dirs[i]), place(size), size,
			     ENOTTY, "wrong direction");
			/* ... and with no size at all. */
			call(d, &x, _IOC(dirs[i], TWHEEL_IOC_TYPE,
					 _IOC_NR(d->cmd), 0),
			     place(size), size, ENOTTY, "wrong direction");
			end(&x);
		}
	}
}

/*
 * Numbers 0x09..0xff of our type, in every direction and many sizes, and
 * other types with our numbers: ENOTTY, nothing happens.
 */
static void unknown_ioctl(void)
{
	int fd = twt_open(O_NONBLOCK);
	/* Room for any size below; valid as an add that is due at once. */
	union {
		struct twheel_add a;
		unsigned char pad[256];
	} u;
	unsigned long foreign[] = {
		_IOWR(0xBB, 0x01, struct twheel_add),
		_IOWR(0x00, 0x01, struct twheel_add),
		_IOR(0xB9, 0x00, struct twheel_info),
		_IOR(0xBB, 0x00, struct twheel_info),
		_IOW(0xBB, 0x07, struct twheel_config),
		TCGETS,
		0,
	};
	unsigned int dirs[] = { _IOC_NONE, _IOC_READ, _IOC_WRITE,
				_IOC_READ | _IOC_WRITE };
	size_t sizes[] = { 0, 8, 16, 24, 32, 40, 72, 96, 256 };
	const unsigned int nsizes = sizeof(sizes) / sizeof(sizes[0]);
	unsigned int nr, k;

	for (nr = 0x09; nr <= 0xff; nr++)
		for (k = 0; k < 4 * nsizes; k++) {
			unsigned long cmd = _IOC(dirs[k % 4], TWHEEL_IOC_TYPE,
						 nr, sizes[k / 4]);

			memset(&u, 0, sizeof(u));
			u.a.cookie = 1;
			u.a.flags = TWHEEL_ABSTIME;
			u.a.clock = CLOCK_MONOTONIC;
			errno = 0;
			if (ioctl(fd, cmd, &u) != -1 || errno != ENOTTY)
				twt_fail(__FILE__, __LINE__,
					 "cmd %#lx: want ENOTTY, got %s", cmd,
					 strerror(errno));
		}
	for (k = 0; k < sizeof(foreign) / sizeof(foreign[0]); k++) {
		memset(&u, 0, sizeof(u));
		u.a.cookie = 1;
		u.a.flags = TWHEEL_ABSTIME;
		u.a.clock = CLOCK_MONOTONIC;
		printf("# cmd %#lx\n", foreign[k]);
		CHECK_ERR(ioctl(fd, foreign[k], &u), ENOTTY);
	}
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

TWT_MAIN("abi_cmd",
	 TWT_CASE(unknown_ioctl),
	 TWT_CASE(wrong_direction),
	 TWT_CASE(bad_flags),
	 TWT_CASE(bad_reserved))
