# SPDX-License-Identifier: GPL-2.0
#
# userspace/examples/examples.mk - the example programs and the demo's
# program. Included at the end of the top-level Makefile; make runs at the
# repository root, every output goes under build/.
#
#   make examples       native builds into build/examples/
#   make vm-userspace   also builds them static into build/vm-bin/, where
#                       the test VM finds them (tests/integration/examples.c
#                       runs them, tests/integration/delayq.c runs
#                       twheel-delayq; make demo runs twheel-orders)
#
# Each program is compiled together with libtwheel's sources ($(LIB_SRC)).
# twheel-uv-timers needs libuv (Debian: libuv1-dev); it is left out, with
# a warning, where libuv's static library is not found.

EX_CFLAGS	:= -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iuapi -Iuserspace/lib \
		   -pthread
EX_DEPS		:= $(LIB_SRC) userspace/lib/libtwheel.h \
		   uapi/linux/twheel.h userspace/examples/examples.mk
EX_OUT		:= $(BUILD)/examples
UV_STATIC	?= $(firstword $(wildcard /usr/lib/$(shell $(CC) -dumpmachine)/libuv_a.a \
		   /usr/lib/libuv_a.a /usr/local/lib/libuv_a.a /usr/lib64/libuv_a.a))
UV_INCLUDE	:= $(wildcard /usr/include/uv.h /usr/local/include/uv.h)

# twheel-orders (make demo) is built from several files.
ORDERS_SRC	:= userspace/demo/orders.c userspace/demo/orders_manual.c \
		   userspace/demo/orders_main.c
ORDERS_DEPS	:= $(ORDERS_SRC) userspace/demo/orders.h

EX_PLAIN	:= twheel-echo-server twheel-orders twheel-sessions twheel-delayq
EX_UV		:= $(if $(and $(UV_STATIC),$(UV_INCLUDE)),twheel-uv-timers)
ifeq ($(EX_UV),)
$(warning libuv not found (Debian: apt-get install libuv1-dev): twheel-uv-timers is not built)
endif
# twheel-uring-timers needs liburing (Debian: liburing-dev).
URING_STATIC	?= $(firstword $(wildcard /usr/lib/$(shell $(CC) -dumpmachine)/liburing.a \
		   /usr/lib/liburing.a /usr/local/lib/liburing.a /usr/lib64/liburing.a))
EX_URING	:= $(if $(and $(URING_STATIC),$(wildcard /usr/include/liburing.h)),twheel-uring-timers)
ifeq ($(EX_URING),)
$(warning liburing not found (Debian: apt-get install liburing-dev): twheel-uring-timers is not built)
endif

# README.md's complete C programs (its ```c blocks with a main function),
# extracted into build/readme/readme-N.c and built as readme-N (native)
# and twheel-readme-N (VM); tests/integration/examples.c runs them.
README_EX_DIR	:= $(BUILD)/readme
README_EX_N	:= $(shell awk '/^```c$$/ { b = 1; next } b && /^```$$/ { b = 0; next } \
		   b && /^int main[^a-zA-Z0-9_]/ { n++ } END { print n + 0 }' README.md)
README_EX	:= $(addprefix readme-,$(shell seq 1 $(README_EX_N)))

.PHONY: examples

examples: $(addprefix $(EX_OUT)/,$(EX_PLAIN) $(EX_UV) $(EX_URING) $(README_EX))

vm-userspace: $(addprefix $(VM_BIN)/,$(EX_PLAIN) $(EX_UV) $(EX_URING) \
		$(addprefix twheel-,$(README_EX)))

$(README_EX_DIR)/stamp: README.md userspace/examples/readme-examples.sh
	userspace/examples/readme-examples.sh README.md $(README_EX_DIR) > /dev/null
	@touch $@

$(EX_OUT)/readme-%: $(README_EX_DIR)/stamp $(EX_DEPS)
	@mkdir -p $(@D)
	$(CC) $(EX_CFLAGS) -o $@ $(README_EX_DIR)/readme-$*.c $(LIB_SRC)

$(VM_BIN)/twheel-readme-%: $(README_EX_DIR)/stamp $(EX_DEPS)
	@mkdir -p $(@D)
	$(CC) $(EX_CFLAGS) -static -o $@ $(README_EX_DIR)/readme-$*.c \
		$(LIB_SRC)

# The test knows how many programs the page has.
$(VM_BIN)/twt-examples: README.md
$(VM_BIN)/twt-examples: USER_CFLAGS += -DREADME_EXAMPLES=$(README_EX_N)

# Native: dynamically linked (libuv's shared library).
$(EX_OUT)/twheel-echo-server: userspace/examples/echo-server.c $(EX_DEPS)
	@mkdir -p $(@D)
	$(CC) $(EX_CFLAGS) -o $@ $< $(LIB_SRC)

$(EX_OUT)/twheel-uv-timers: userspace/examples/uv-timers.c $(EX_DEPS)
	@mkdir -p $(@D)
	$(CC) $(EX_CFLAGS) -o $@ $< $(LIB_SRC) -luv

$(EX_OUT)/twheel-uring-timers: userspace/examples/uring-timers.c $(EX_DEPS)
	@mkdir -p $(@D)
	$(CC) $(EX_CFLAGS) -o $@ $< $(LIB_SRC) -luring

$(EX_OUT)/twheel-orders: $(ORDERS_DEPS) $(EX_DEPS)
	@mkdir -p $(@D)
	$(CC) $(EX_CFLAGS) -o $@ $(ORDERS_SRC) $(LIB_SRC)

$(EX_OUT)/twheel-sessions: userspace/demo/sessions.c $(EX_DEPS)
	@mkdir -p $(@D)
	$(CC) $(EX_CFLAGS) -o $@ $< $(LIB_SRC)

$(EX_OUT)/twheel-delayq: userspace/examples/delayq.c $(EX_DEPS)
	@mkdir -p $(@D)
	$(CC) $(EX_CFLAGS) -o $@ $< $(LIB_SRC)

# For the VM: static (its initramfs has no libc). glibc warns, at link
# time, about the name-service functions libuv contains; none is called.
$(VM_BIN)/twheel-echo-server: userspace/examples/echo-server.c $(EX_DEPS)
	@mkdir -p $(@D)
	$(CC) $(EX_CFLAGS) -static -o $@ $< $(LIB_SRC)

$(VM_BIN)/twheel-uv-timers: userspace/examples/uv-timers.c $(EX_DEPS)
	@mkdir -p $(@D)
	@rm -f $@
	$(CC) $(EX_CFLAGS) -static -o $@ $< $(LIB_SRC) \
		$(UV_STATIC) -lpthread -ldl 2>&1 | \
		{ grep -v -e 'in statically linked applications requires' \
			-e 'in function .uv__' || true; }
	@test -x $@

$(VM_BIN)/twheel-uring-timers: userspace/examples/uring-timers.c $(EX_DEPS)
	@mkdir -p $(@D)
	$(CC) $(EX_CFLAGS) -static -o $@ $< $(LIB_SRC) \
		$(URING_STATIC)

$(VM_BIN)/twheel-orders: $(ORDERS_DEPS) $(EX_DEPS)
	@mkdir -p $(@D)
	$(CC) $(EX_CFLAGS) -static -o $@ $(ORDERS_SRC) $(LIB_SRC)

$(VM_BIN)/twheel-sessions: userspace/demo/sessions.c $(EX_DEPS)
	@mkdir -p $(@D)
	$(CC) $(EX_CFLAGS) -static -o $@ $< $(LIB_SRC)

$(VM_BIN)/twheel-delayq: userspace/examples/delayq.c $(EX_DEPS)
	@mkdir -p $(@D)
	$(CC) $(EX_CFLAGS) -static -o $@ $< $(LIB_SRC)
