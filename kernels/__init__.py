"""Benchmark kernels with C reference programs (kernels/README.md); the harness is kernels/suite.py."""
