# Runs pytest over the Python package's tests for CTest (python.package): exit 77, skipped, where
# this Python has no pytest (scripts/test installs it), else pytest's own exit status.
import importlib.util
import sys

if importlib.util.find_spec("pytest") is None:
    print(f"python.package: no pytest for {sys.executable}; scripts/test installs it", flush=True)
    sys.exit(77)

import pytest  # noqa: E402 (after the check above)

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", *sys.argv[1:]]))
