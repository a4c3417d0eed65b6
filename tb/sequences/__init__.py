"""Stimulus: launch sequences (library.py) and the constrained-random kernel generator (random_kernel.py)."""
