# SPDX-License-Identifier: GPL-2.0
"""Run unittest modules and report each case as a TAP-like line.

    python3 tests/python/tap.py PREFIX MODULE...

Prints "ok PREFIX/MODULE/CASE", "not ok PREFIX/MODULE/CASE" (after its
traceback as "# " lines) or "ok PREFIX/MODULE/CASE # SKIP reason", the way
tests/integration's programs do, for tests/vm/tap-result.sh to count.
The modules are imported from this file's directory; userspace/python
(or $TWHEEL_PYTHON_PATH) is put first on sys.path for twheel itself.
Exits with 1 if any case failed or a module could not be loaded.
"""

import os
import sys
import time
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.environ.get("TWHEEL_PYTHON_PATH") or
                os.path.join(here, "..", "..", "userspace", "python"))


class TapResult(unittest.TestResult):
    def __init__(self, prefix):
        super().__init__()
        self.prefix = prefix
        self.t0 = 0.0

    def name(self, test):
        mod = test.__class__.__module__
        return f"{self.prefix}/{mod}/{test._testMethodName}"

    def line(self, s):
        sys.stdout.write(s + "\n")
        sys.stdout.flush()

    def startTest(self, test):
        super().startTest(test)
        self.t0 = time.monotonic()
        self.subtest_failed = False

    def addSubTest(self, test, subtest, err):
        # A failed subTest fails its test; the test then reports neither
        # success nor failure itself: stopTest says "not ok".
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.diag(f"{subtest}: " + self._exc_info_to_string(err, test))
            self.subtest_failed = True

    def stopTest(self, test):
        if self.subtest_failed:
            self.line(f"not ok {self.name(test)}")
        super().stopTest(test)

    def diag(self, text):
        for ln in text.rstrip("\n").split("\n"):
            self.line("# " + ln)

    def addSuccess(self, test):
        super().addSuccess(test)
        self.line(f"ok {self.name(test)}")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.diag(self.failures[-1][1])
        self.line(f"not ok {self.name(test)}")

    def addError(self, test, err):
        super().addError(test, err)
        self.diag(self.errors[-1][1])
        self.line(f"not ok {self.name(test)}")

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.line(f"ok {self.name(test)} # SKIP {reason}")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.line(f"ok {self.name(test)}")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.line(f"not ok {self.name(test)} (unexpected success)")


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    prefix = argv[1]
    result = TapResult(prefix)
    loader = unittest.TestLoader()
    bad = 0
    for mod in argv[2:]:
        try:
            suite = loader.loadTestsFromName(mod)
        except Exception as e:  # an import error fails the module, loudly
            result.diag(f"{mod}: {type(e).__name__}: {e}")
            result.line(f"not ok {prefix}/{mod}/import")
            bad += 1
            continue
        t0 = time.monotonic()
        suite.run(result)
        result.line(f"# {mod}: {result.testsRun} cases so far, "
                    f"{time.monotonic() - t0:.1f} s")
    return 1 if bad or not result.wasSuccessful() else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
