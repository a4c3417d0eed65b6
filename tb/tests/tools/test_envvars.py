"""Every environment variable the project reads is in one table (tools/envvars.py) and checked up front:
a bad value is one line naming the variable, the value and what to write (part of the bad-input corpus).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tools import envvars

ROOT = Path(__file__).resolve().parents[3]
# Read by the code but not the project's own: the tools' and Python's environment.
NOT_OURS = {"PATH", "PYTHONPATH", "PYTEST_CURRENT_TEST", "VERILATOR_ROOT", "HOME", "MAKEFLAGS", "CXXFLAGS"}
READ = re.compile(r"""(?:environ|env|getenv)(?:\.get|\.pop)?[(\[]\s*["']([A-Z][A-Z0-9_]+)["']""")


def variables_read() -> set[str]:
    found: set[str] = set()
    for pkg in ("spec", "cudac", "tb", "kernels", "tools", "ppa"):
        for path in (ROOT / pkg).rglob("*.py"):
            if "tests" in path.parts and path.name.startswith("test_"):
                continue
            found |= set(READ.findall(path.read_text()))
    return found - NOT_OURS


def test_every_variable_read_is_in_the_table() -> None:
    missing = variables_read() - set(envvars.BY_NAME)
    assert not missing, (
        f"read but not in tools/envvars.py VARS (name, meaning, legal values): {sorted(missing)}"
    )


def test_the_memory_profiles_are_the_agents() -> None:
    from tb.agents.gmem_agent import GMEM_PROFILES

    assert tuple(GMEM_PROFILES) == envvars.GMEM_PROFILE_NAMES


def test_docs_table_is_current() -> None:
    text = (ROOT / "docs" / "environment.md").read_text()
    assert "\n".join(envvars.table()) in text, "docs/environment.md is stale: python -m tools.envvars"


def test_make_help_lists_every_user_variable() -> None:
    make = (ROOT / "Makefile").read_text()
    assert "tools.envvars --help-lines" in make
    lines = "\n".join(envvars.help_lines())
    for v in envvars.VARS:
        assert (v.name in lines) != v.internal


# (variable, bad value, a part of the one line it must get)
BAD = [
    ("KERNEL_SEEDS", "1-3", "for seeds 1 to 3 write 1:4"),
    ("KERNEL_SEEDS", "3:1", "the range a:b needs a < b"),
    ("KERNEL_SEEDS", "a,b", "write a range a:b (b excluded) or seeds a,b,c"),
    ("KERNEL_SEEDS", "1,,2", "write a range a:b"),
    ("KERNEL_SEEDS", "-1", "write a range a:b"),
    ("WAVES", "2", "WAVES='2': write 1 (on) or 0 (off)"),
    ("WAVES", "fst", "write 1 (on) or 0 (off)"),
    ("SIMT_RANDOM_INIT", "maybe", "write 1 (on) or 0 (off)"),
    ("SIMT_CODE_COVERAGE", "2", "write 1 (on) or 0 (off)"),
    ("SEED", "-5", "a non-negative integer"),
    ("SEED", "0x10", "a non-negative integer"),
    ("SIM", "questa", "write icarus or verilator"),
    ("KERNEL_CASES", "vecad:64", "no kernel 'vecad'"),
    ("KERNEL_CASES", "vecad.cu:64", "no kernel 'vecad.cu'"),
    ("CUDAC_FUZZ", "5631:1:big", "write start:count or start:count:full"),
    ("KERNEL_CASES", "vecadd", "write name:size[:seed]"),
    ("KERNEL_CASES", "vecadd:0", "write name:size[:seed]"),
    ("KERNEL_CASES", "vecadd:-4", "write name:size[:seed]"),
    ("GMEM_PROFILE", "fast", "write one of ideal, default, stress"),
    ("GMEM_LATENCY", "0", "a whole number of cycles >= 1"),
    ("GMEM_LATENCY", "ten", "a whole number of cycles >= 1"),
    ("CHECK_MODE", "partial", "write one of full, end"),
    ("SIMT_SHARD", "3/2", "write I/N with 1 <= I <= N"),
    ("SIMT_SHARD", "1of2", "write I/N"),
    ("SIMT_RTL_ROOT", "/nonexistent", "a copy of rtl/"),
    ("SIMT_SIM_TIMEOUT", "0", ">= 1"),
]


@pytest.mark.parametrize("name,value,expect", BAD, ids=[f"{n}={v}" for n, v, _ in BAD])
def test_bad_value_is_one_clear_line(name: str, value: str, expect: str) -> None:
    lines = envvars.problems({name: value})
    assert len(lines) == 1 and lines[0].startswith(f"error: environment {name}={value!r}: "), lines
    assert expect in lines[0]
    with pytest.raises(envvars.EnvError):
        envvars.check({name: value})


@pytest.mark.parametrize(
    "name,value",
    [("KERNEL_SEEDS", "0:4"), ("KERNEL_SEEDS", "17"), ("KERNEL_SEEDS", "1,5,9"), ("WAVES", "1"), ("WAVES", "0"),
     ("KERNEL_CASES", "vecadd:64,matrixmul:8:3"), ("KERNEL_CASES", "matrixmul.cu:256:1"), ("GMEM_PROFILE", "stress"),
     ("SIMT_SHARD", "2/4"), ("SEED", "7"), ("CUDAC_FUZZ", "5631:1:full")],
)  # fmt: skip
def test_legal_value_passes(name: str, value: str) -> None:
    assert envvars.problems({name: value}) == []


def test_kernel_seeds_reads_ranges_and_lists() -> None:
    assert envvars.kernel_seeds("2:5") == [2, 3, 4] and envvars.kernel_seeds("7,3") == [7, 3]


def test_tasks_refuse_a_bad_variable_before_running(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from tools import tasks

    monkeypatch.setenv("WAVES", "2")
    assert tasks.main(["model"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("error: environment WAVES='2'")
