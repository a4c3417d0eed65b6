"""Bad command lines and environments (part of the bad-input corpus, tb/tests/model/test_bad_inputs.py):
the assembler's ``-o`` never destroys anything (no empty name, never the source, a link is written
through, a failed run leaves the old output alone), the disassembler's arguments, and the environment
checks that run before any build (``SEED``, ``SIM``, a C++ compiler), each with its message.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from spec import asm, disasm
from spec.config import ConfigError, check_parameters
from spec.error_names import error_kind_name
from tb.agents.host_bfm import GpuError
from tb.tests.model.test_bad_inputs import run_cli
from tools import simenv

ROOT = Path(__file__).resolve().parents[3]
GOOD = "LDS r1, %tid\nEXIT\n"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    Path("k.s").write_text(GOOD)
    return tmp_path


# (name, argv, exit code, first stderr line or a part of it)
ASM_LINES = [
    ("empty-output-name", ["k.s", "-o", ""], 2, "error: -o needs a file name (got an empty string); write e.g. -o kernel.hex"),
    ("blank-output-name", ["k.s", "-o", "  "], 2, "error: -o needs a file name"),
    ("output-is-source", ["k.s", "-o", "k.s"], 2, "error: -o k.s names the source file; refusing to overwrite it with "
                                                   "the image (use e.g. -o k.hex)"),
    ("output-is-source-by-path", ["k.s", "-o", "./sub/../k.s"], 2, "names the source file"),
    ("output-is-directory", ["k.s", "-o", "."], 2, "error: -o . is a directory; name the .hex file to write"),
    ("output-in-missing-dir", ["k.s", "-o", "nodir/k.hex"], 1, "nodir/k.hex: error: cannot write the image: No such file or directory"),
    ("missing-source", ["nosuch.s"], 2, "nosuch.s: error: cannot read the source: No such file or directory"),
    ("no-arguments", [], 2, "python -m spec.asm: error: the following arguments are required: source (see: python -m spec.asm --help)"),
]  # fmt: skip


@pytest.mark.parametrize("name,argv,code,expect", ASM_LINES, ids=[a[0] for a in ASM_LINES])
def test_asm_command_lines(name: str, argv: list[str], code: int, expect: str, work: Path) -> None:
    (work / "sub").mkdir()
    rc, lines = run_cli(asm.main, argv)
    assert rc == code and lines and expect in lines[0], f"{name}: exit {rc}, {lines[:2]}"
    assert Path("k.s").read_text() == GOOD, "the source was changed"


def test_output_symlink_is_written_through(work: Path) -> None:
    Path("images").mkdir()
    Path("images/real.hex").write_text("old\n")
    Path("link.hex").symlink_to("images/real.hex")
    assert run_cli(asm.main, ["k.s", "-o", "link.hex"])[0] == 0
    assert Path("link.hex").is_symlink(), "the link was replaced by a regular file"
    assert Path("images/real.hex").read_text().startswith("// SIMT launch image")
    Path("dangling.hex").symlink_to("images/new.hex")  # a link to a file not there yet: created
    assert run_cli(asm.main, ["k.s", "-o", "dangling.hex"])[0] == 0
    assert Path("dangling.hex").is_symlink() and Path("images/new.hex").exists()


def test_output_symlink_to_the_source_is_refused(work: Path) -> None:
    Path("alias.hex").symlink_to("k.s")
    rc, lines = run_cli(asm.main, ["k.s", "-o", "alias.hex"])
    assert rc == 2 and "names the source file" in lines[0]
    assert Path("k.s").read_text() == GOOD


def test_failed_assembly_keeps_the_old_output(work: Path) -> None:
    Path("k.hex").write_text("previous image\n")
    Path("bad.s").write_text("ADDD r1\n")
    rc, lines = run_cli(asm.main, ["bad.s", "-o", "k.hex"])
    assert rc == 1 and lines[0].startswith("bad.s:1:1: error: unknown instruction 'ADDD'")
    assert Path("k.hex").read_text() == "previous image\n"
    assert sorted(p.name for p in work.iterdir()) == ["bad.s", "k.hex", "k.s"], "a temporary file was left"


DISASM_LINES = [
    ("no-arguments", [], 2, "give either a launch-image .hex file or one or more --word 0x... values"),
    ("file-and-word", ["k.hex", "--word", "0"], 2, "give either a launch-image .hex file or one or more"),
    ("word-not-a-number", ["--word", "zz"], 2, "not a number: 'zz' (write e.g. 0x0c221800)"),
    ("word-33-bits", ["--word", "0x100000000"], 2, "0x100000000 does not fit 32 bits"),
    ("word-minus-one", ["--word", "-1"], 2, "-1 does not fit 32 bits"),
    ("missing-file", ["nosuch.hex"], 2, "nosuch.hex: error: cannot read: No such file or directory"),
    ("directory", ["."], 2, ".: error: cannot read: Is a directory"),
]  # fmt: skip


@pytest.mark.parametrize("name,argv,code,expect", DISASM_LINES, ids=[a[0] for a in DISASM_LINES])
def test_disasm_command_lines(name: str, argv: list[str], code: int, expect: str, work: Path) -> None:
    rc, lines = run_cli(disasm.main, argv)
    assert rc == code and any(expect in line for line in lines), f"{name}: exit {rc}, {lines}"


# ---- environment checks (tools/simenv.py), before any build -------------------------------------------
ENVIRONMENTS = [
    ("seed-letters", {"SEED": "abc"}, "SEED='abc' is not a non-negative integer: SEED repeats a run's random "
                                      "seed, e.g. SEED=12345"),
    ("seed-negative", {"SEED": "-5"}, "SEED='-5' is not a non-negative integer"),
    ("seed-float", {"SEED": "1.5"}, "SEED='1.5' is not a non-negative integer"),
    ("sim-unknown", {"SIM": "modelsim"}, "SIM='modelsim' is not supported: use SIM=icarus or SIM=verilator"),
    ("sim-uppercase", {"SIM": "Icarus"}, "SIM='Icarus' is not supported"),
    ("no-cxx", {"CXX": "no-such-c++"}, "no C++ compiler: `no-such-c++` is not on PATH, and Verilator compiles "
                                       "the design to C++ (set CXX to another compiler, or install g++ with: "
                                       "sudo apt-get install -y g++ make)"),
]  # fmt: skip


@pytest.mark.parametrize("name,env,expect", ENVIRONMENTS, ids=[e[0] for e in ENVIRONMENTS])
def test_environment_checks(name: str, env: dict[str, str], expect: str) -> None:
    base = {k: v for k, v in os.environ.items() if k not in ("SEED", "SIM", "CXX")} | env
    with pytest.raises(simenv.SimEnvError) as exc:
        simenv.check_seed(base)
        simenv.sim_from_env(base)
        simenv.check_cxx(base)
    assert expect in str(exc.value)


def test_seed_checked_before_any_build() -> None:
    """`make unit SEED=abc` stops in the tool check with the message, exit 2, before pytest starts."""
    env = dict(os.environ, SEED="abc")
    proc = subprocess.run(
        [sys.executable, "-m", "tools.tasks", "unit", "--sim", "icarus", "--", "-k", "none"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "SEED='abc' is not a non-negative integer" in proc.stderr
    assert "pytest" not in proc.stdout


def test_no_make_is_reported(tmp_path: Path) -> None:
    (tmp_path / "g++").symlink_to("/bin/true")
    with pytest.raises(simenv.SimEnvError, match="`make` is not on PATH; Verilator's build runs it"):
        simenv.check_cxx({"PATH": str(tmp_path)})


PARAMETERS = [
    ({"NUM_SMS": 0}, "illegal parameter NUM_SMS=0 for simt_gpu (must be in 1..16)"),
    ({"WARP_SIZE": -32}, "illegal parameter WARP_SIZE=-32 for simt_gpu (must be a power of two in 4..32)"),
    ({"NUM_LANES": 6}, "illegal parameter NUM_LANES=6 for simt_gpu (must be one of 4, 8, 16, 32)"),
    ({"SEG_WORDS": 3}, "illegal parameter SEG_WORDS=3 for simt_gpu (must be a power of two in 1..32)"),
    ({"GLOBAL_WORDS": 1000}, "illegal parameter GLOBAL_WORDS=1000 for simt_gpu (must be a power of two in 1024"),
    ({"NUM_WARPS": "8"}, "illegal parameter NUM_WARPS=8 for simt_gpu (must be in 1..32)"),
]  # fmt: skip


@pytest.mark.parametrize("params,expect", PARAMETERS, ids=[str(p[0]) for p in PARAMETERS])
def test_illegal_parameters_refused_before_build(params: dict[str, object], expect: str) -> None:
    with pytest.raises(ConfigError) as exc:
        check_parameters({"TAG_W": 9, "DEPTH": 3, **params}, "simt_gpu")  # non-machine parameters pass
    assert str(exc.value).startswith(expect)


# ---- the harness names errors as the spec does ---------------------------------------------------
def test_gpu_error_names() -> None:
    assert error_kind_name(7) == "GLOBAL_OUT_OF_RANGE (global address out of range)"
    assert error_kind_name(0x13) == "launch error 0x13 (START with no image loaded)"
    assert error_kind_name(0) == "no error" and error_kind_name(99) == "unknown error kind 99"
    text = str(GpuError(kind=7, sm=1, block=3, warp=2, pc=17, lane=5))
    assert (
        text
        == "GpuError(GLOBAL_OUT_OF_RANGE (global address out of range) at SM 1 block 3 warp 2 pc 17, lane 5)"
    )
    assert "kind=7" not in text
    loader = str(GpuError(kind=0x10, sm=0, block=0, warp=0, pc=0, lane=63, rule=10, word=26))
    assert loader == "GpuError(launch error 0x10 (bad image): rule DATA_ORDER at image word 26)"
