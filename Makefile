# SPDX-License-Identifier: GPL-2.0
#
# twheel: make            build the userspace programs, and the module for
#                         the running kernel when its headers are installed
#         make check      every test (installs what is missing first)
#         make demo       a live demonstration in a VM on Debian's kernel
#         make help       all targets
#
# Out-of-tree module build: KDIR is the kernel tree or headers to build
# against. Default: the running kernel's build directory
# (/lib/modules/$(uname -r)/build); with KERNEL=stock|debug|rt on the
# command line, that test kernel's (fetched or built, and cached, on first
# use). Without either, `make` builds no module and says why; `make
# module` fails.

ifneq ($(KERNELRELEASE),)
# Invoked by kbuild: everything is in ./Kbuild.
include $(src)/Kbuild
else

KERNEL_RUNNING := $(shell uname -r)
KERNEL_RUNNING_BUILD := /lib/modules/$(KERNEL_RUNNING)/build
# HAVE_KDIR: a kernel to build for is known (KDIR itself is only worked
# out when used: resolving a test kernel may mean fetching or building it).
ifeq ($(origin KDIR),undefined)
ifeq ($(origin KERNEL),command line)
KDIR = $(shell tests/vm/kernel.sh $(KERNEL) | sed -n 's/^KDIR=//p')
HAVE_KDIR := 1
else ifneq ($(wildcard $(KERNEL_RUNNING_BUILD)/Makefile),)
KDIR := $(KERNEL_RUNNING_BUILD)
HAVE_KDIR := 1
endif
else
HAVE_KDIR := 1
endif
# vm-run and vm-shell boot Debian's stock kernel unless KERNEL= says
# otherwise (the debug kernel is a long first build); the test targets
# (integration, fuzz-kernel, stress, soak) default to the debug kernel.
ifeq ($(origin KERNEL),undefined)
VM_KERNEL := stock
else
VM_KERNEL = $(KERNEL)
endif
KERNEL ?= debug
CMD ?= true
VM_FILES ?=

CC ?= cc
USER_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iuapi -pthread
BUILD := build
VM_BIN := $(BUILD)/vm-bin
INTEG_SRC := $(wildcard tests/integration/*.c)
INTEG_BIN := $(patsubst tests/integration/%.c,$(VM_BIN)/twt-%,$(INTEG_SRC))
INTEG_DEPS := $(wildcard tests/integration/*.h) uapi/linux/twheel.h
LIB_SRC := userspace/lib/libtwheel.c userspace/lib/libtwheel_idle.c
LIB_DEPS := $(LIB_SRC) userspace/lib/libtwheel.h uapi/linux/twheel.h
TOOLS := twheelctl

.PHONY: all module no-module userspace vm-userspace deps check demo vm-run \
	vm-shell kunit integration style sparse uapi-check clean help

define NO_KDIR_MSG
twheel: no module built: the running kernel $(KERNEL_RUNNING) has no headers
  ($(KERNEL_RUNNING_BUILD) is missing). Either install them
  (Debian: apt-get install linux-headers-$(KERNEL_RUNNING); Fedora:
  dnf install kernel-devel-$(KERNEL_RUNNING)), or build for another kernel:
    make module KDIR=/path/to/its/build/tree
    make module KERNEL=stock|debug|rt   (the test kernels: Debian's, the
                                         debug one, Debian's PREEMPT_RT)
endef
export NO_KDIR_MSG

# The userspace programs first: they do not need kernel headers.
ifdef HAVE_KDIR
all: userspace module
else
all: userspace no-module
endif

module:
ifndef HAVE_KDIR
	@echo "$$NO_KDIR_MSG" >&2; exit 2
else
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules
endif

# `make` on a machine without headers: say so plainly, build nothing
# against a kernel that is not the one running.
no-module:
	@echo "$$NO_KDIR_MSG" >&2

# libtwheel and the tools, for this machine.
# (rules in userspace/userspace.mk: libtwheel, twheelctl, man pages)
userspace:

# Static programs for the test VMs (their initramfs has no libc).
vm-userspace: $(INTEG_BIN) $(VM_BIN)/twheel-run-tests \
	$(addprefix $(VM_BIN)/,$(TOOLS))

$(VM_BIN)/twt-%: tests/integration/%.c $(INTEG_DEPS) $(LIB_DEPS)
	@mkdir -p $(VM_BIN)
	$(CC) $(USER_CFLAGS) -Iuserspace/lib -static -o $@ $< $(LIB_SRC) \
		$(INTEG_LIBS)

# Tests of io_uring link Debian's liburing (liburing-dev's liburing.a).
$(VM_BIN)/twt-uring: INTEG_LIBS := -luring

$(VM_BIN)/twheel-run-tests: tests/integration/run-tests.sh
	@mkdir -p $(VM_BIN)
	install -m 0755 $< $@

deps:
	tests/deps.sh

check:
	tests/check.sh

# Progress lines, then the demo's output; build and boot logs in build/logs/.
demo:
	@userspace/demo/run.sh

# CMD reaches the guest's sh untouched: through the environment, not
# the recipe's quoting, and unexpanded by make ($(value CMD): $HOME stays
# $HOME, for the guest's shell to expand).
vm-run: export TWHEEL_VM_CMD = $(value CMD)
vm-run: vm-userspace
	tests/vm/run.sh $(VM_KERNEL) "$$TWHEEL_VM_CMD"

vm-shell: vm-userspace
	tests/vm/run.sh --shell $(VM_KERNEL)

kunit:
	tests/kunit/run.sh

integration: vm-userspace
	tests/integration/run.sh $(KERNEL)

style:
	tests/static.sh checkpatch

sparse:
	tests/static.sh sparse

uapi-check:
	tests/static.sh uapi

clean:
	rm -rf $(BUILD)
	find kmod tests/kunit \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name 'modules.order' \) -delete
	rm -f Module.symvers modules.order

help:
	@echo "twheel targets (variables in [brackets]; KERNEL=stock|debug|rt names a test VM kernel)"
	@echo ""
	@echo "Build"
	@echo "  make | make all      libtwheel and twheelctl; the module for the running kernel if its headers exist"
	@echo "  make module [KDIR=/path | KERNEL=...]   the module (fails without kernel headers)"
	@echo "  make userspace | libtwheel | userspace-tools | examples | vm-userspace"
	@echo "  make clean | wheel-clean"
	@echo ""
	@echo "Install (DESTDIR= PREFIX=/usr/local KDIR= UDEVRULESDIR=/lib/udev/rules.d)"
	@echo "  make install | uninstall          module, library, headers, twheelctl, man pages, udev rule"
	@echo "  make modules_install | modules_uninstall | userspace-install"
	@echo "  make dkms-install | dkms-uninstall [DKMS_FLAGS=...]"
	@echo "  make deb                          Debian packages in build/deb/"
	@echo ""
	@echo "Test"
	@echo "  make check                        every test below that CI runs (about 20 min)"
	@echo "  make deps                         install the Debian packages needed"
	@echo "  make kunit                        KUnit suites in the debug VM"
	@echo "  make integration [KERNEL=debug]   integration tests in a VM"
	@echo "  make style | sparse | uapi-check | man-check | wheel-test   static and native checks"
	@echo "  make fuzz [FUZZ_SECONDS=60]       libFuzzer on the wheel core (native)"
	@echo "  make fuzz-kernel [FUZZ_SECONDS=60 KERNEL=debug FUZZ_SEED=]   random ioctls in a VM, with an oracle"
	@echo "  make fuzz-kernel-bin              its static binary only"
	@echo "  make syz-check                    the syzkaller description against the header"
	@echo "  make stress [KERNEL=debug] | stress-build   unload cycles and load cases in a VM"
	@echo "  make soak [SOAK_SECONDS=600 KERNEL=debug]   the mixed load for a long time"
	@echo "  make rust                         the Rust binding (userspace/rust/, crate twheel) and its example"
	@echo "  make rust-test                    Rust binding: host tests, then its device tests in the stock VM (tests/rust/run.sh host|stock|debug)"
	@echo "  make python-test | python-host-test   Python binding: host tests, then its device tests in the stock VM (tests/python/run.sh)"
	@echo ""
	@echo "Benchmarks"
	@echo "  make bench [BENCH_CLOCK=icount|wall BENCH_REPS=5 BENCH_NMAX=1000000 BENCH_QUICK=1]   twheel vs timerfd vs heap, stock VM: a wall-clock boot and an -icount boot (~22 min; quick ~2 min)"
	@echo "  make bench-report | bench-bin | bench-publish | bench-page-check   the report again; the binary; docs/benchmarks.md from a full run; its commands checked"
	@echo "  make kbench | kbench-module       in-kernel wheel vs timer_list/hrtimer"
	@echo "  make bench-prof [PROF_MODES='b64 expiry' PROF_CLOCK=icount]   kernel functions ranked by samples (under icount: by instructions), per workload, stock VM"
	@echo "  make bench-core | bench-core-callgrind   the wheel core natively vs a heap, a hashed wheel (~3 min)"
	@echo ""
	@echo "VM"
	@echo "  make demo                         the live demonstration (stock kernel)"
	@echo "  make vm-run CMD='...' [KERNEL=stock VM_FILES='a b' VM_TIMEOUT=900 VM_MEM=1024]"
	@echo "                                    run CMD (any shell text, several lines) in the guest's sh;"
	@echo "                                    exits with CMD's status (the last command's, as sh does);"
	@echo "                                    VM_FILES (static programs, sh scripts) go to its PATH"
	@echo "  make vm-shell [KERNEL=stock]      an interactive shell in the guest"
	@echo "  make vm-python SCRIPT=my.py [ARGS='...' KERNEL=stock]   your Python script in the guest, twheel importable"
	@echo "  make help                         this text"

-include tests/wheel/wheel.mk
-include userspace/userspace.mk
-include kmod/install.mk
-include userspace/examples/examples.mk
-include tests/bench/bench.mk
-include tests/fuzz-kernel/fuzz.mk
-include tests/stress/stress.mk
-include userspace/rust/rust.mk
-include userspace/python/python.mk

endif
