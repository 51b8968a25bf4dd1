"""Runs pytest for CTest and fails when it collected nothing.

pytest exits 5 when no test was collected (a wrong path, an import error
hidden by a conftest, a renamed file); CTest would see a plain failure code
only if we pass it through, and a wrapper that maps 5 to success would hide
a broken suite. Here 0 tests collected is always a failure, whatever the
exit code. Without pytest installed, fallback/pytest.py runs the tests.
"""

import os
import sys

_FALLBACK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fallback")
if os.environ.get("UFJIT_PYTEST_FALLBACK") == "1":  # CTest keeps the stand-in working
    sys.path.insert(0, _FALLBACK)
try:
    import pytest
except ImportError:  # a host without pytest: the stand-in of fallback/
    sys.path.insert(0, _FALLBACK)
    import pytest


class _Count:
    def __init__(self):
        self.collected = 0

    def pytest_collection_finish(self, session):
        self.collected = len(session.items)


def main():
    count = _Count()
    rc = int(pytest.main(sys.argv[1:], plugins=[count]))
    if rc == 5 or count.collected == 0:
        print(f"run_pytest: pytest collected no tests (exit {rc}): failing", file=sys.stderr)
        return 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
