"""Published sky130_fd_sc_hd figures our characterized cells are compared with (issue 28).

Source: the SkyWater foundry's Liberty data of sky130_fd_sc_hd, corner tt_025C_1v80, as published per cell
in google/skywater-pdk-libs-sky130_fd_sc_hd (``cells/<kind>/sky130_fd_sc_hd__<cell>__tt_025C_1v80.lib.json``:
inv_1 at commit 7343e0e05fa00c3e763ae7b6837b1b59bc4b2de6, nand2_1 at 8fbd4642cf717e487c090332bea9cca28c4182bf).
Kind: published (foundry characterization, its own thresholds and input waveforms). Values are copied
from those files at table points (input slew ns, load pF) of their own axes; pin A only.
"""

from __future__ import annotations

SOURCE = "google/skywater-pdk-libs-sky130_fd_sc_hd, cells/*/sky130_fd_sc_hd__*__tt_025C_1v80.lib.json"

# cell -> {"cap_A": pF, "points": [(slew ns, load pF, cell_rise ns, cell_fall ns), ...]}
FOUNDRY_TT: dict[str, dict] = {
    "inv_1": {
        "cap_A": 0.002302,
        "points": [
            (0.0531329, 0.00356533, 0.0566328, 0.0410519),
            (0.122474, 0.00952062, 0.1211221, 0.087258),
            (0.282311, 0.0254232, 0.2799442, 0.2024078),
        ],
    },
    "nand2_1": {
        "cap_A": 0.002315,
        "points": [
            (0.0531329, 0.00346659, 0.0612167, 0.0504824),
            (0.122474, 0.00912787, 0.1279769, 0.1038626),
            (0.282311, 0.0240345, 0.2916911, 0.237011),
        ],
    },
}
