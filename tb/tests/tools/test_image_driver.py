"""The HDL image driver's Python side (tb/agents/image_driver.py) without a simulator: which load a run
gets from SIMT_HOST_LOAD, and the clear errors instead of a silent fallback."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tb.agents import image_driver
from tools import envvars


class _Sig:
    def __init__(self) -> None:
        self.value = 0


def _dut(with_driver: bool = True) -> SimpleNamespace:
    ports = {"load_go": _Sig(), "load_words": _Sig(), "load_done": _Sig(), "load_max": _Sig()}
    return SimpleNamespace(_name="simt_gpu_tb", **(ports if with_driver else {}))


def test_default_is_hdl(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SIMT_HOST_LOAD", raising=False)
    assert image_driver.host_load() == "hdl"
    monkeypatch.setenv("SIMT_HOST_LOAD", " registers ")
    assert image_driver.host_load() == "registers"


def test_registers_needs_no_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMT_HOST_LOAD", "registers")
    assert image_driver.HdlImageDriver.for_dut(_dut(with_driver=False), None) is None
    dut = _dut()
    dut.load_go.value = 1  # (Verilator starts inputs random): the wrapper's idle driver must see go low
    assert image_driver.HdlImageDriver.for_dut(dut, None) is None
    assert dut.load_go.value == 0


def test_hdl_without_ports_or_file_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SIMT_HOST_LOAD", "hdl")
    monkeypatch.setenv("SIMT_IMAGE_FILE", str(tmp_path / "image.hex"))
    with pytest.raises(RuntimeError, match="has no HDL image driver.*SIMT_HOST_LOAD=registers"):
        image_driver.HdlImageDriver.for_dut(_dut(with_driver=False), None)
    monkeypatch.delenv("SIMT_IMAGE_FILE")
    with pytest.raises(RuntimeError, match="SIMT_IMAGE_FILE is not set"):
        image_driver.HdlImageDriver.for_dut(_dut(), None)
    monkeypatch.setenv("SIMT_IMAGE_FILE", str(tmp_path / "image.hex"))
    drv = image_driver.HdlImageDriver.for_dut(_dut(), None)
    assert drv is not None and drv.path == tmp_path / "image.hex"


def test_envvars_checks_the_load() -> None:
    assert envvars.problems({"SIMT_HOST_LOAD": "hdl"}) == []
    assert envvars.problems({"SIMT_HOST_LOAD": "registers"}) == []
    (line,) = envvars.problems({"SIMT_HOST_LOAD": "python"})
    assert "SIMT_HOST_LOAD='python'" in line and "hdl, registers" in line
