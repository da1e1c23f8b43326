# SPDX-License-Identifier: GPL-2.0
#
# kmod/install.mk - install, uninstall, DKMS and the Debian packages.
# Included by the top-level Makefile (after userspace/userspace.mk, whose
# PREFIX, LIBDIR, INCLUDEDIR, BINDIR, MANDIR, PKGCONFIGDIR it shares); make
# runs at the repo root and every path here is relative to it.
#
#   make install [DESTDIR=] [PREFIX=/usr/local] [KDIR=...]
#       the module, for the kernel KDIR names, as
#         $(DESTDIR)/lib/modules/<kver>/updates/twheel.ko
#       (<kver>: KDIR's UTS_RELEASE, see tw_kver), then depmod;
#       libtwheel, twheelctl, the headers and man pages under PREFIX (the
#       userspace-install target of userspace/userspace.mk); the udev
#       rule as $(DESTDIR)$(UDEVRULESDIR)/60-twheel.rules; the
#       modules-load.d example under $(DESTDIR)$(DOCDIR)/examples/.
#   make uninstall [same DESTDIR, PREFIX, KDIR]
#       removes exactly those files, then the directories only twheel
#       uses if they are empty; runs depmod again where install did.
#   make modules_install [DESTDIR=] [KDIR=...]   the module part alone
#   Without a kernel to build for (no KDIR, no KERNEL=, and no headers
#   for the running kernel: the top Makefile's HAVE_KDIR), install puts
#   everything but the module, then warns on stderr that the module was
#   not installed, why and what to run next, and exits 0, as `make` does
#   without headers: a packaging script running `make install` gets the
#   whole userspace install and a success, never a part of one and a
#   failure. modules_install, which asks for the module alone, prints
#   the same and exits 2, installing nothing. uninstall works as ever:
#   the running kernel's release, all it needs, is `uname -r`.
#   make dkms-install [DESTDIR=]
#       the DKMS source tree in $(DESTDIR)/usr/src/twheel-<version>/;
#       without DESTDIR also dkms add, build and install (for the running
#       kernel; DKMS_FLAGS='-k <kver>' for another)
#   make dkms-uninstall [DESTDIR=]   dkms remove --all, and the tree
#   make deb    Debian packages in build/deb/ (userspace/debian/)
#
# Where things go, and why:
# - The module is never built in kmod/ for an install: a plain `make`
#   builds there with M=$(CURDIR) for whatever KDIR it had then (and the
#   KUnit module beside it). The sources are mirrored into
#   build/modules/<kver>-<KDIR's hash>/ and built there with M=.../kmod,
#   so only kmod/Kbuild is read and only twheel.ko exists to install.
# - depmod: with DESTDIR, only when $(DESTDIR)/lib/modules/<kver> is a
#   complete module tree (it has modules.builtin, as in a staged root file
#   system); into a bare staging directory it would only add index files
#   that belong to the kernel's package, so it is skipped with a message.
#   Without DESTDIR, likewise only when that kernel is installed.
# - The udev rule goes to /lib/udev/rules.d whatever PREFIX is: udev reads
#   rules only from /etc, /run, /usr/local/lib, /usr/lib and /lib
#   (udev/rules.d), so a PREFIX-relative rule would usually never be read.
#   /lib/udev/rules.d is where Debian 12's packages put theirs (so does
#   dh_installudev, and the twheel-dkms package), as v4l2loopback's does;
#   on a merged-/usr system it is /usr/lib/udev/rules.d. UDEVRULESDIR
#   overrides it.
# - modules-load.d/twheel.conf is an example, not a setting: installed into
#   /usr/lib/modules-load.d it would load the module at every boot on any
#   machine that merely installed twheel. It goes to
#   $(PREFIX)/share/doc/twheel/examples/modules-load.d/, to be copied to
#   /etc/modules-load.d/ by whoever wants that.

TW_VERSION	:= $(shell sed -n 's/^\#define TWHEEL_VERSION[[:space:]]*"\(.*\)"/\1/p' uapi/linux/twheel.h)
UDEVRULESDIR	?= /lib/udev/rules.d
DOCDIR		?= $(PREFIX)/share/doc/twheel
DKMS		?= dkms
DKMS_FLAGS	?=

# What the module needs, and nothing else (kbuild's generated *.mod.c
# files, written into kmod/ by a plain `make`, are not sources).
TW_KMOD_FILES	:= kmod/Kbuild $(filter-out %.mod.c,$(wildcard kmod/*.c)) \
		   $(wildcard kmod/*.h)
TW_DKMS_DIR	= $(DESTDIR)/usr/src/twheel-$(TW_VERSION)
TW_DEB_DIR	:= $(BUILD)/deb
TW_DEB_SRC	:= $(TW_DEB_DIR)/twheel-$(TW_VERSION)

# Userspace files userspace-install puts (userspace/userspace.mk); keep in
# step with it: tests/packaging/install.sh fails on anything left behind.
TW_USER_FILES	= $(LIBDIR)/libtwheel.a $(LIBDIR)/$(LIBTW_SONAME) \
		  $(LIBDIR)/libtwheel.so $(PKGCONFIGDIR)/libtwheel.pc \
		  $(INCLUDEDIR)/libtwheel.h $(INCLUDEDIR)/linux/twheel.h \
		  $(BINDIR)/twheelctl $(MANDIR)/man1/twheelctl.1 \
		  $(MANDIR)/man3/libtwheel.3 $(MANDIR)/man4/twheel.4
TW_OTHER_FILES	= $(UDEVRULESDIR)/60-twheel.rules \
		  $(DOCDIR)/examples/modules-load.d/twheel.conf

# Shell snippet: kdir and kver for $(KDIR), read once (KDIR's default may
# be costly to compute), or fail with a message. kver is the release the
# module's vermagic carries and `uname -r` prints: UTS_RELEASE. It is not
# always include/config/kernel.release: Debian's headers packages have the
# upstream version there (6.1.192 for 6.1.0-56-amd64), so that file is
# only the fallback for a tree without the generated header. The recipes
# run it under set -e: a read that fails (no such file) must not end the
# shell before the message, hence the `|| :`.
define tw_kver
kdir='$(KDIR)'; \
if [ -z "$$kdir" ]; then \
	echo "install: no kernel tree: KDIR is empty" >&2; exit 1; \
elif [ ! -d "$$kdir" ]; then \
	echo "install: KDIR $$kdir: no such directory" >&2; exit 1; \
fi; \
kver=$$(sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
	"$$kdir/include/generated/utsrelease.h" 2>/dev/null || :); \
[ -n "$$kver" ] || \
kver=$$(cat "$$kdir/include/config/kernel.release" 2>/dev/null || :); \
[ -n "$$kver" ] || { \
	echo "install: no kernel release in $$kdir/include/:" \
		"KDIR must be a configured kernel tree or headers" >&2; \
	exit 1; }
endef

# No kernel to build for (the top Makefile's NO_KDIR_MSG case): what
# install (then exiting 0) and modules_install (exiting 2) print on
# stderr. TW_LEAD
# and TW_NEXT are theirs (target-specific); the commands it suggests carry
# this run's DESTDIR (PREFIX does not concern the module).
TW_AGAIN	= $(if $(DESTDIR), DESTDIR=$(DESTDIR))
define TW_NO_KDIR_INSTALL_MSG
twheel: $(TW_LEAD): the running kernel $(KERNEL_RUNNING)
  has no headers ($(KERNEL_RUNNING_BUILD) is missing):
  no twheel.ko could be built. Install them (Debian: apt-get install
  linux-headers-$(KERNEL_RUNNING); Fedora: dnf install kernel-devel-$(KERNEL_RUNNING)),
  then the module alone, or under DKMS (rebuilt for every new kernel):
    make modules_install$(TW_AGAIN)
    make dkms-install$(TW_AGAIN)
  or install it for another kernel, from its build tree or headers:
    make $(TW_NEXT) KDIR=/path/to/its/build/tree$(TW_AGAIN)
endef
export TW_NO_KDIR_INSTALL_MSG

# Shell snippet: depmod for $kver where install.mk's rule above allows it.
define tw_depmod
PATH=$$PATH:/sbin:/usr/sbin; \
root='$(DESTDIR)'; \
if [ ! -f "$${root:-}/lib/modules/$$kver/modules.builtin" ]; then \
	echo "install: depmod skipped: $${root:-}/lib/modules/$$kver has no" \
		"modules.builtin (not an installed kernel); run depmod $$kver" \
		"where the module is used"; \
elif ! command -v depmod >/dev/null; then \
	echo "install: depmod skipped: no depmod (install kmod)"; \
else \
	echo "  DEPMOD  $$kver"; \
	depmod $(if $(DESTDIR),-b "$$root") "$$kver"; \
fi
endef

.PHONY: install uninstall modules_install modules_uninstall \
	tw-install-data tw-uninstall-data dkms-install dkms-uninstall deb

ifdef HAVE_KDIR
install: modules_install userspace-install tw-install-data

modules_install:
	@set -e; $(tw_kver); \
	src='$(CURDIR)/$(BUILD)/modules/'"$$kver-$$(printf %s "$$kdir" | cksum | cut -d' ' -f1)"; \
	mkdir -p "$$src/kmod" "$$src/uapi/linux"; \
	cp -p $(TW_KMOD_FILES) "$$src/kmod/"; \
	cp -p uapi/linux/twheel.h "$$src/uapi/linux/"; \
	$(MAKE) -C "$$kdir" M="$$src/kmod" modules; \
	install -D -m 0644 "$$src/kmod/twheel.ko" \
		'$(DESTDIR)'/lib/modules/"$$kver"/updates/twheel.ko; \
	echo "  INSTALL $(DESTDIR)/lib/modules/$$kver/updates/twheel.ko"; \
	$(tw_depmod)
else
# Everything that does not need the kernel, then the warning: success.
install: TW_LEAD = warning: installed all but the module
install: TW_NEXT = install
install: userspace-install tw-install-data
	@echo "$$TW_NO_KDIR_INSTALL_MSG" >&2

modules_install: TW_LEAD = module not installed
modules_install: TW_NEXT = modules_install
modules_install:
	@echo "$$TW_NO_KDIR_INSTALL_MSG" >&2; exit 2
endif

tw-install-data:
	install -D -m 0644 userspace/udev/60-twheel.rules \
		$(DESTDIR)$(UDEVRULESDIR)/60-twheel.rules
	install -D -m 0644 userspace/modules-load.d/twheel.conf \
		$(DESTDIR)$(DOCDIR)/examples/modules-load.d/twheel.conf

uninstall: modules_uninstall tw-uninstall-data

# Without a kernel tree, the module that install put there for the running
# kernel (when its headers were installed) is still found and removed: its
# release, all this needs, is `uname -r`.
ifdef HAVE_KDIR
tw_uninstall_kver = $(tw_kver)
else
tw_uninstall_kver = kver='$(KERNEL_RUNNING)'
endif

modules_uninstall:
	@set -e; $(tw_uninstall_kver); \
	ko='$(DESTDIR)'/lib/modules/"$$kver"/updates/twheel.ko; \
	if [ -e "$$ko" ]; then \
		rm -f "$$ko"; echo "  RM      $$ko"; \
		$(tw_depmod); \
	fi

tw-uninstall-data:
	rm -f $(addprefix $(DESTDIR),$(TW_USER_FILES) $(TW_OTHER_FILES))
	@# Only directories no other software shares, and only if empty.
	@for d in $(DOCDIR)/examples/modules-load.d $(DOCDIR)/examples \
		$(DOCDIR); do \
		[ ! -d "$(DESTDIR)$$d" ] || rmdir --ignore-fail-on-non-empty \
			"$(DESTDIR)$$d"; \
	done

# The DKMS source tree: dkms.conf (its version substituted), kmod/, the
# uapi header. Without DESTDIR, an older registration of the same version
# is removed first, so that the tree can be re-installed after a change.
dkms-install:
	@if [ -z '$(DESTDIR)' ] && [ -n "$$($(DKMS) status twheel/$(TW_VERSION) 2>/dev/null)" ]; then \
		echo "  DKMS    remove twheel/$(TW_VERSION) (re-install)"; \
		$(DKMS) remove twheel/$(TW_VERSION) --all; \
	fi
	rm -rf $(TW_DKMS_DIR)
	install -d $(TW_DKMS_DIR)/kmod $(TW_DKMS_DIR)/uapi/linux
	install -m 0644 $(TW_KMOD_FILES) $(TW_DKMS_DIR)/kmod/
	install -m 0644 uapi/linux/twheel.h $(TW_DKMS_DIR)/uapi/linux/
	sed 's/#MODULE_VERSION#/$(TW_VERSION)/' kmod/dkms.conf \
		> $(TW_DKMS_DIR)/dkms.conf
	chmod 0644 $(TW_DKMS_DIR)/dkms.conf
	grep -q '^PACKAGE_VERSION="$(TW_VERSION)"$$' $(TW_DKMS_DIR)/dkms.conf
ifeq ($(DESTDIR),)
	$(DKMS) add twheel/$(TW_VERSION)
	$(DKMS) build twheel/$(TW_VERSION) $(DKMS_FLAGS)
	$(DKMS) install twheel/$(TW_VERSION) $(DKMS_FLAGS)
endif

dkms-uninstall:
	@if [ -z '$(DESTDIR)' ] && [ -n "$$($(DKMS) status twheel/$(TW_VERSION) 2>/dev/null)" ]; then \
		echo "  DKMS    remove twheel/$(TW_VERSION)"; \
		$(DKMS) remove twheel/$(TW_VERSION) --all; \
	fi
	rm -rf $(TW_DKMS_DIR)

# The Debian packages, built by Debian's tooling from a staged copy of what
# they need (the module's and userspace's sources, the build files, and
# userspace/debian/ as debian/). The changelog's upstream version must be
# TWHEEL_VERSION: when userspace/debian/changelog is behind, the staged
# copy gets an entry for it on top (keeping the top entry's maintainer and
# distribution), so the version still comes from uapi/linux/twheel.h alone.
deb:
	rm -rf $(TW_DEB_DIR)
	mkdir -p $(TW_DEB_SRC)
	{ echo Makefile; echo Kbuild; echo README.md; \
	  echo docs/guide.md; echo docs/limits.md; echo docs/production.md; \
	  echo uapi/linux/twheel.h; echo kmod/install.mk; \
	  echo kmod/dkms.conf; for f in $(TW_KMOD_FILES); do echo $$f; done; \
	  find userspace -type f ! -path 'userspace/debian/*'; } | \
		cpio -pdm --quiet $(TW_DEB_SRC)
	cp -R userspace/debian $(TW_DEB_SRC)/debian
	@set -e; cl=$(TW_DEB_SRC)/debian/changelog; \
	ver=$$(dpkg-parsechangelog -l "$$cl" -S Version); \
	if [ "$${ver%-*}" != '$(TW_VERSION)' ]; then \
		echo "  DEB     changelog: $$ver -> $(TW_VERSION)-1 (staged copy only)"; \
		{ printf 'twheel (%s-1) %s; urgency=medium\n\n' '$(TW_VERSION)' \
			"$$(dpkg-parsechangelog -l "$$cl" -S Distribution)"; \
		  printf '  * Version %s, from the source tree.\n\n' '$(TW_VERSION)'; \
		  printf ' -- %s  %s\n\n' \
			"$$(dpkg-parsechangelog -l "$$cl" -S Maintainer)" \
			"$$(date -R)"; \
		  cat "$$cl"; } > "$$cl.new"; \
		mv "$$cl.new" "$$cl"; \
	fi
	cd $(TW_DEB_SRC) && dpkg-buildpackage -us -uc -b
	@ls -1 $(TW_DEB_DIR)/*.deb $(TW_DEB_DIR)/*.changes
