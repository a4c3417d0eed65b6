"""Functional coverage (cocotb-coverage): the cover points, the pyuvm collector, the merged report."""
