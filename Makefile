# SPDX-License-Identifier: GPL-2.0
#
# twheel: make            build the module and the userspace programs
#         make check      every test (installs what is missing first)
#         make demo       a live demonstration in a VM on Debian's kernel
#         make help       all targets
#
# Out-of-tree module build: KDIR is the kernel tree or headers to build
# against. Default: the running kernel's build directory when it exists,
# else the project's debug test kernel (built and cached on first use).

ifneq ($(KERNELRELEASE),)
# Invoked by kbuild: everything is in ./Kbuild.
include $(src)/Kbuild
else

KERNEL_RUNNING_BUILD := /lib/modules/$(shell uname -r)/build
KDIR ?= $(if $(wildcard $(KERNEL_RUNNING_BUILD)/Makefile),$(KERNEL_RUNNING_BUILD),$(shell tests/vm/kernel.sh debug | sed -n 's/^KDIR=//p'))
KERNEL ?= debug
CMD ?= true
VM_FILES ?=

CC ?= cc
USER_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iuapi -pthread
BUILD := build
VM_BIN := $(BUILD)/vm-bin
INTEG_SRC := $(wildcard tests/integration/*.c)
INTEG_BIN := $(patsubst tests/integration/%.c,$(VM_BIN)/twt-%,$(INTEG_SRC))
INTEG_DEPS := tests/integration/twtest.h uapi/linux/twheel.h
LIB_SRC := userspace/lib/libtwheel.c
LIB_DEPS := $(LIB_SRC) userspace/lib/libtwheel.h uapi/linux/twheel.h
TOOLS := twheelctl

.PHONY: all module userspace vm-userspace deps check demo vm-run vm-shell \
	kunit integration style sparse uapi-check install modules_install \
	clean help

all: module userspace

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# libtwheel and the tools, for this machine.
# (rules in userspace/userspace.mk: libtwheel, twheelctl, man pages)
userspace:

# Static programs for the test VMs (their initramfs has no libc).
vm-userspace: $(INTEG_BIN) $(VM_BIN)/twheel-run-tests \
	$(addprefix $(VM_BIN)/,$(TOOLS))

$(VM_BIN)/%: userspace/tools/%.c $(LIB_DEPS)
	@mkdir -p $(VM_BIN)
	$(CC) $(USER_CFLAGS) -Iuserspace/lib -static -o $@ $< $(LIB_SRC)

$(VM_BIN)/twt-%: tests/integration/%.c $(INTEG_DEPS) $(LIB_DEPS)
	@mkdir -p $(VM_BIN)
	$(CC) $(USER_CFLAGS) -Iuserspace/lib -static -o $@ $< $(LIB_SRC)

$(VM_BIN)/twheel-run-tests: tests/integration/run-tests.sh
	@mkdir -p $(VM_BIN)
	install -m 0755 $< $@

deps:
	tests/deps.sh

check:
	tests/check.sh

demo:
	@tests/deps.sh --check >/dev/null 2>&1 || tests/deps.sh
	@$(MAKE) --no-print-directory vm-userspace
	tests/vm/run.sh stock "$$(cat userspace/demo.sh)"

vm-run: vm-userspace
	tests/vm/run.sh $(KERNEL) '$(CMD)'

vm-shell: vm-userspace
	tests/vm/run.sh --shell $(KERNEL)

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

install: modules_install
	install -D -m 0644 uapi/linux/twheel.h $(DESTDIR)/usr/include/linux/twheel.h

modules_install:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install

clean:
	rm -rf $(BUILD)
	find kmod tests/kunit \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name 'modules.order' \) -delete
	rm -f Module.symvers modules.order

help:
	@sed -n 's/^# \{0,1\}//; 2,7p' Makefile
	@echo "  make KDIR=/path/to/kernel   build against another kernel tree"
	@echo "  make deps                   install the Debian packages needed"
	@echo "  make kunit                  KUnit suites in the debug VM"
	@echo "  make integration KERNEL=debug|stock   integration tests in a VM"
	@echo "  make vm-run KERNEL=debug|stock CMD='...' [VM_FILES='a b']"
	@echo "  make vm-shell KERNEL=debug|stock"
	@echo "  make style | sparse | uapi-check   static checks"
	@echo "  make fuzz [FUZZ_SECONDS=60] | bench-core | wheel-test"
	@echo "  make libtwheel | userspace-tools | man-check | examples"
	@echo "  make userspace-install [PREFIX=/usr/local] [DESTDIR=...]"
	@echo "  make bench [BENCH_REPS=5 BENCH_NMAX=1000000 BENCH_QUICK=1]   twheel vs timerfd vs heap, stock VM"
	@echo "  make bench-report | kbench   report again; in-kernel wheel vs timer_list/hrtimer"

-include tests/wheel/wheel.mk
-include userspace/userspace.mk
-include userspace/examples/examples.mk
-include tests/bench/bench.mk

endif
