"""What a cocotb bench is handed by its launcher (tb/rtlsim.py ``run``), read back in the bench.

One encoding each: the machine (a :class:`GpuConfig` as JSON in ``SIMT_CONFIG``, when the launcher
passed ``machine=``) and the Verilog parameters the bench was built with (JSON in ``SIMT_PARAMETERS``,
always). A bench never parses its own environment variable for either.
"""

from __future__ import annotations

import json
import os

from spec.config import GpuConfig

PARAMETERS_ENV = "SIMT_PARAMETERS"


def machine() -> GpuConfig:
    """The machine the launcher passed (``rtlsim.run(..., machine=cfg)``)."""
    return GpuConfig.from_env()


def parameters() -> dict[str, int]:
    """The Verilog parameters this bench's design was built with."""
    text = os.environ.get(PARAMETERS_ENV)
    if text is None:
        raise RuntimeError(
            f"{PARAMETERS_ENV} is not set: run this bench through its pytest launcher (tb/rtlsim.py)"
        )
    return json.loads(text)


def parameter(name: str, default: int | None = None) -> int:
    """One Verilog parameter of this build; ``default`` when the launcher left it at the RTL's default."""
    value = parameters().get(name, default)
    if value is None:
        raise KeyError(
            f"parameter {name} was not passed to this bench; pass it in rtlsim.run(parameters=...)"
        )
    return int(value)
