# SPDX-License-Identifier: GPL-2.0
"""A user's own script, as `make vm-python SCRIPT=...` runs it in the test
VM (tests/python/run.sh runs it so): twheel and the standard library
modules it imports (json here, which the binding's tests do not need) are
there, the module is loaded. Prints one JSON line; exits 1 on a wrong
record."""
import json
import sys

import twheel

with twheel.Wheel() as w:
    t = w.add(20 * twheel.MSEC, cookie=4242)
    ev = w.read()
    ok = len(ev) == 1 and ev[0].id == t and ev[0].cookie == 4242
    print(json.dumps({"own_script": "ran", "cookie": ev[0].cookie}))
sys.exit(0 if ok else 1)
