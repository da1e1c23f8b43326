# SPDX-License-Identifier: GPL-2.0
#
# tests/stress/stress.mk - module unload cycles, load tests and a soak in
# the test VMs. Included by the top-level Makefile (paths are relative to
# the repo root; CC, USER_CFLAGS, INTEG_DEPS and KERNEL come from it).
#
#   make stress-build                     static programs into build/stress/
#   make stress [KERNEL=debug|stock]      unload cycles + load cases, TAP,
#                                         "RESULT p f s" last
#   make soak [SOAK_SECONDS=600] [KERNEL=debug]
#                                         the mixed load for SOAK_SECONDS

STRESS_DIR	:= tests/stress
STRESS_OUT	:= build/stress
STRESS_PROGS	:= twstress-load twstress-hold
STRESS_SCRIPTS	:= twstress-unload twstress-guest
STRESS_BIN	:= $(addprefix $(STRESS_OUT)/,$(STRESS_PROGS) $(STRESS_SCRIPTS))
STRESS_LOAD_SRC	:= $(addprefix $(STRESS_DIR)/, load.c load_oracle.c load_cases.c \
		   load_threads.c load_memcg.c)
SOAK_SECONDS	?= 600

.PHONY: stress-build stress soak

stress-build: $(STRESS_BIN)

# twstress-load: several files (load.h says what they share).
$(STRESS_OUT)/twstress-load: $(STRESS_LOAD_SRC) $(STRESS_DIR)/load.h $(INTEG_DEPS)
	@mkdir -p $(STRESS_OUT)
	$(CC) $(USER_CFLAGS) -Itests/integration -static -o $@ $(STRESS_LOAD_SRC)

$(STRESS_OUT)/twstress-%: $(STRESS_DIR)/%.c $(INTEG_DEPS)
	@mkdir -p $(STRESS_OUT)
	$(CC) $(USER_CFLAGS) -Itests/integration -static -o $@ $<

$(STRESS_OUT)/twstress-%: $(STRESS_DIR)/%.sh
	@mkdir -p $(STRESS_OUT)
	install -m 0755 $< $@

stress: stress-build
	@tests/deps.sh --check >/dev/null 2>&1 || tests/deps.sh
	$(STRESS_DIR)/run.sh $(KERNEL)

soak: stress-build
	@tests/deps.sh --check >/dev/null 2>&1 || tests/deps.sh
	$(STRESS_DIR)/soak.sh $(KERNEL) $(SOAK_SECONDS)
