"""Benchmarks of predigest (not part of the test suite): `python -m benchmarks` or `make bench`."""
