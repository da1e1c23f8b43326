# SPDX-License-Identifier: GPL-2.0
#
# userspace/userspace.mk - libtwheel (static, shared, pkg-config file) and
# twheelctl for this machine, their man pages' check, and their install.
# Included at the end of the top-level Makefile; make runs at the repo
# root, every path here is relative to it, every output goes under build/.
#
#   make libtwheel          build/lib/libtwheel.a, libtwheel.so.0 (soname
#                           libtwheel.so.0, symbols versioned by
#                           userspace/lib/libtwheel.map) + libtwheel.so,
#                           and build/lib/pkgconfig/libtwheel.pc
#   make userspace-tools    build/bin/twheelctl (linked with libtwheel.a)
#   make man-check          render every man page, fail on any warning
#   make userspace-install  install all of it: PREFIX=/usr/local DESTDIR=
#
# The test VM's static twheelctl (build/vm-bin/twheelctl) is built here
# too, from userspace/tools/twheelctl*.c and libtwheel's sources
# alone.

PREFIX		?= /usr/local
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
BINDIR		?= $(PREFIX)/bin
MANDIR		?= $(PREFIX)/share/man
PKGCONFIGDIR	?= $(LIBDIR)/pkgconfig

LIBTW_SRC	:= userspace/lib/libtwheel.c userspace/lib/libtwheel_idle.c
LIBTW_OBJS	:= libtwheel.o libtwheel_idle.o
LIBTW_HDRS	:= userspace/lib/libtwheel.h uapi/linux/twheel.h
LIBTW_OUT	:= $(BUILD)/lib
LIBTW_SONAME	:= libtwheel.so.0
LIBTW_MAP	:= userspace/lib/libtwheel.map
LIBTW_VERSION	:= $(shell sed -n 's/^\#define TWHEEL_VERSION[[:space:]]*"\(.*\)"/\1/p' uapi/linux/twheel.h)
LIBTW_CFLAGS	:= -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iuapi -Iuserspace/lib
LIBTW_MAN	:= userspace/man/twheel.4 userspace/man/libtwheel.3 \
		   userspace/man/twheelctl.1

.PHONY: libtwheel userspace-tools man-check userspace-install

# The top-level "userspace" target builds all of it.
userspace: libtwheel userspace-tools

libtwheel: $(LIBTW_OUT)/libtwheel.a $(LIBTW_OUT)/$(LIBTW_SONAME) \
	$(LIBTW_OUT)/libtwheel.so $(LIBTW_OUT)/pkgconfig/libtwheel.pc

userspace-tools: $(BUILD)/bin/twheelctl

$(LIBTW_OUT)/static/%.o: userspace/lib/%.c $(LIBTW_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIBTW_CFLAGS) -c -o $@ $<

$(LIBTW_OUT)/pic/%.o: userspace/lib/%.c $(LIBTW_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIBTW_CFLAGS) -fPIC -c -o $@ $<

$(LIBTW_OUT)/libtwheel.a: $(addprefix $(LIBTW_OUT)/static/,$(LIBTW_OBJS))
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

# Exports exactly libtwheel.h's functions, versioned (the map file).
$(LIBTW_OUT)/$(LIBTW_SONAME): $(addprefix $(LIBTW_OUT)/pic/,$(LIBTW_OBJS)) \
	$(LIBTW_MAP)
	$(CC) -shared -Wl,-soname,$(LIBTW_SONAME) -Wl,-z,defs \
		-Wl,--version-script=$(LIBTW_MAP) -o $@ \
		$(addprefix $(LIBTW_OUT)/pic/,$(LIBTW_OBJS))

$(LIBTW_OUT)/libtwheel.so: $(LIBTW_OUT)/$(LIBTW_SONAME)
	ln -sf $(LIBTW_SONAME) $@

# Regenerated on every make, replaced only when it changes (PREFIX may).
$(LIBTW_OUT)/pkgconfig/libtwheel.pc: userspace/lib/libtwheel.pc.in FORCE
	@mkdir -p $(@D)
	@sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
		-e 's|@VERSION@|$(LIBTW_VERSION)|g' $< > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else \
		mv -f $@.tmp $@; echo "  GEN     $@"; fi

# Explicit: takes precedence over the top-level Makefile's $(BUILD)/bin/%.
TWHEELCTL_SRC	:= userspace/tools/twheelctl.c userspace/tools/twheelctl_cmd.c \
		   userspace/tools/twheelctl_io.c
TWHEELCTL_DEPS	:= $(TWHEELCTL_SRC) userspace/tools/twheelctl.h

$(BUILD)/bin/twheelctl: $(TWHEELCTL_DEPS) $(LIBTW_OUT)/libtwheel.a \
	$(LIBTW_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIBTW_CFLAGS) -o $@ $(TWHEELCTL_SRC) $(LIBTW_OUT)/libtwheel.a

# For the test VM: static, with libtwheel's source (USER_CFLAGS: the
# top-level Makefile's).
$(VM_BIN)/twheelctl: $(TWHEELCTL_DEPS) $(LIB_DEPS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Iuserspace/lib -static -o $@ $(TWHEELCTL_SRC) \
		$(LIB_SRC)

man-check:
	tests/man.sh

userspace-install: libtwheel userspace-tools
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(INCLUDEDIR)/linux $(DESTDIR)$(BINDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(MANDIR)/man4
	install -m 0644 $(LIBTW_OUT)/libtwheel.a $(DESTDIR)$(LIBDIR)/
	install -m 0755 $(LIBTW_OUT)/$(LIBTW_SONAME) $(DESTDIR)$(LIBDIR)/
	ln -sf $(LIBTW_SONAME) $(DESTDIR)$(LIBDIR)/libtwheel.so
	install -m 0644 $(LIBTW_OUT)/pkgconfig/libtwheel.pc $(DESTDIR)$(PKGCONFIGDIR)/
	install -m 0644 userspace/lib/libtwheel.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 0644 uapi/linux/twheel.h $(DESTDIR)$(INCLUDEDIR)/linux/
	install -m 0755 $(BUILD)/bin/twheelctl $(DESTDIR)$(BINDIR)/
	install -m 0644 userspace/man/twheelctl.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 userspace/man/libtwheel.3 $(DESTDIR)$(MANDIR)/man3/
	install -m 0644 userspace/man/twheel.4 $(DESTDIR)$(MANDIR)/man4/

.PHONY: FORCE
FORCE:
