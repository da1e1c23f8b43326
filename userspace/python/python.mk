# SPDX-License-Identifier: GPL-2.0
#
# userspace/python/python.mk - the Python binding's tests. Included at the
# end of the top-level Makefile; make runs at the repository root.
#
#   make python-test         host tests, then the device tests and the
#                            example's selftest in the stock VM
#                            [PYTHON_KERNEL=stock|debug|rt]
#   make python-host-test    the host tests alone (no VM, no module)
#
# Both print "ok"/"not ok" lines and "RESULT passed failed skipped"
# (tests/python/run.sh); the binding itself (userspace/python/twheel.py)
# needs no build.

PYTHON_KERNEL ?= stock

.PHONY: python-test python-host-test

python-test:
	tests/python/run.sh $(PYTHON_KERNEL)

python-host-test:
	tests/python/run.sh host
