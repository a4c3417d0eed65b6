"""Python's side of the HDL image driver (tb/hdl/simt_tb_loader.v): a launch image written to the GPU's
IMAGE register by Verilog, with one Python callback per launch instead of a few per word.

The driver writes the words to the file the wrapper was given (``+SIMT_IMAGE``; tb/rtlsim.py passes
its path in ``SIMT_IMAGE_FILE``), sets ``load_words``, raises ``load_go`` and sleeps until ``load_done``;
the Verilog writes every word through the same host interface (native valid/ready, or AXI4-Lite on the
AXI top) the Python BFM would. ``SIMT_HOST_LOAD=registers`` keeps the Python register writes
(:meth:`tb.agents.host_bfm.HostBfm.load`); the default is ``hdl``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
from cocotb.triggers import First, RisingEdge, Timer

HOST_LOAD_ENV = "SIMT_HOST_LOAD"
IMAGE_FILE_ENV = "SIMT_IMAGE_FILE"
# A word may wait for host_ready this long (tb/agents/host_bfm.py HOST_BOUND: a drain, DATA stores).
WORD_BOUND = 100_000


def host_load() -> str:
    """``hdl`` (the default) or ``registers``: how a launch image reaches IMAGE (tools/envvars.py checks)."""
    return os.environ.get(HOST_LOAD_ENV, "").strip() or "hdl"


class HdlImageDriver:
    """Loads launch images through the wrapper's ``load_go``/``load_words``/``load_done`` ports."""

    def __init__(self, dut: Any, clock: Any, path: Path, period_ns: int = 10) -> None:
        self.dut, self.clock, self.path, self.period_ns = dut, clock, path, period_ns
        self.max_words: int | None = None  # read at the first load (after reset the port is defined)
        dut.load_go.value = 0
        dut.load_words.value = 0

    @classmethod
    def for_dut(cls, dut: Any, clock: Any) -> HdlImageDriver | None:
        """The driver of ``dut``, or None when ``SIMT_HOST_LOAD=registers``. A wrapper without the
        driver's ports, or a run without an image file, is an error (never a silent fallback)."""
        if host_load() == "registers":
            if hasattr(
                dut, "load_go"
            ):  # the wrapper's driver stays idle (its inputs start random on Verilator)
                dut.load_go.value = 0
                dut.load_words.value = 0
            return None
        if not hasattr(dut, "load_go"):
            raise RuntimeError(
                f"{HOST_LOAD_ENV}=hdl, but the design {dut._name} has no HDL image driver (load_go, "
                f"load_words, load_done: tb/hdl/simt_tb_loader.v); set {HOST_LOAD_ENV}=registers"
            )
        path = os.environ.get(IMAGE_FILE_ENV)
        if not path:
            raise RuntimeError(
                f"{HOST_LOAD_ENV}=hdl, but {IMAGE_FILE_ENV} is not set: run the bench through its launcher "
                "(tb/rtlsim.py run(..., trace=True) passes +SIMT_IMAGE and the file's path)"
            )
        return cls(dut, clock, Path(path))

    async def load(self, words: list[int]) -> None:
        """Write ``words`` to IMAGE through the HDL driver; returns at the edge that took the last one."""
        if not words:
            return
        dut = self.dut
        if self.max_words is None:
            self.max_words = int(dut.load_max.value)
        if len(words) > self.max_words:
            raise ValueError(
                f"a launch image of {len(words)} words is longer than the HDL image driver holds "
                f"({self.max_words}: simt_gpu_tb's IMAGE_MAX); raise IMAGE_MAX or set {HOST_LOAD_ENV}=registers"
            )
        self.path.write_bytes(hex_lines(words))
        dut.load_words.value = len(words)
        dut.load_go.value = 1
        bound = (len(words) + 1) * WORD_BOUND * self.period_ns
        done = RisingEdge(dut.load_done)
        if await First(done, Timer(bound, "ns")) is not done:
            raise AssertionError(
                f"the HDL image driver did not write the {len(words)} words of the launch image within "
                f"{bound // self.period_ns} cycles (host_ready low?)"
            )
        dut.load_go.value = 0


def hex_lines(words: list[int]) -> bytes:
    """``words`` as $readmemh text, one 8-digit hex word a line (what ``"".join(f"{w & 0xFFFF_FFFF:08x}\\n"
    ...)`` writes), built in bulk: a Python loop over every word was ~1 us a word of each launch."""
    big = (np.asarray(words, dtype=np.int64) & 0xFFFF_FFFF).astype(">u4")  # (image words: 32-bit)
    digits = np.frombuffer(big.tobytes().hex().encode("ascii"), dtype=np.uint8).reshape(-1, 8)
    return np.hstack([digits, np.full((len(words), 1), ord("\n"), np.uint8)]).tobytes()
