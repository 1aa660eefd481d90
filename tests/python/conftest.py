# The package's tests: pytest's own pytester (to run a sample user suite under samebits' plugin),
# and that sample suite left out of this run: it fails on purpose, inside test_pytest_plugin.py.
pytest_plugins = ["pytester"]
collect_ignore = ["sample_suite"]
