# SPDX-License-Identifier: GPL-2.0
#
# userspace/python/python.mk - the Python binding's tests. Included at the
# end of the top-level Makefile; make runs at the repository root.
#
#   make python-test         host tests, then the device tests and the
#                            example's selftest in the stock VM
#                            [PYTHON_KERNEL=stock|debug|rt]
#   make python-host-test    the host tests alone (no VM, no module)
#   make vm-python SCRIPT=my.py [ARGS='...'] [KERNEL=stock|debug|rt]
#                            your own script in the test VM (stock unless
#                            KERNEL= says otherwise), twheel importable,
#                            the module loaded; exits with its status
#
# Both print "ok"/"not ok" lines and "RESULT passed failed skipped"
# (tests/python/run.sh); the binding itself (the package
# userspace/python/twheel/) needs no build.

PYTHON_KERNEL ?= stock

.PHONY: python-test python-host-test vm-python

python-test:
	tests/python/run.sh $(PYTHON_KERNEL)

python-host-test:
	tests/python/run.sh host

# Debian's interpreter and what SCRIPT imports from the standard library
# go into the guest (tests/python/overlay.py); SCRIPT runs as
# /opt/twheel/run/NAME with PYTHONPATH at the twheel package.
vm-python: vm-userspace
	@test -n '$(SCRIPT)' || { echo "usage: make vm-python SCRIPT=path/to/script.py [ARGS='...'] [KERNEL=stock|debug|rt]" >&2; exit 2; }
	/usr/bin/python3 -B tests/python/overlay.py $(BUILD)/python-vm/run '$(SCRIPT)'
	VM_OVERLAY=$(CURDIR)/$(BUILD)/python-vm/run tests/vm/run.sh $(VM_KERNEL) \
		"insmod /lib/twheel/twheel.ko && PYTHONPATH=/opt/twheel/userspace/python python3 /opt/twheel/run/$(notdir $(SCRIPT)) $(ARGS)"
