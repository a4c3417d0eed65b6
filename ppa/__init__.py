"""Power, performance and area of simt-gpgpu (issue 17, docs/ppa.md).

config   the configurations and sweeps          flow     Yosys scripts and parsing of their output
liberty  the sky130 area-only Liberty library   memory   memory inventory and its per-bit cost
synth    cached synthesis per configuration     tables   numbers per unit and per configuration
report   markdown tables and plots              trend    Lies 2019 (seed 000) Table 5.3 lane-doubling arithmetic
ye       Ye's equal-area model (Ye 2009 (seed 003))       energy   per-event energy fitting (NNLS)
yosys    finding and running Yosys
"""
