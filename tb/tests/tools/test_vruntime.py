"""The shared Verilator run-time cache (tb/vruntime.py): a second build with the same compile command gets
the object without compiling; another command, compiler or install compiles again; the build folder's
own objects are never replaced. A fake Verilator install and a fake compiler (a shell script that logs
each call) stand in for the real ones, so this runs in make model with only `make` and `sh`."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tb import vruntime

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make (build-essential)")

FAKE_CC = """#!/bin/sh
# a stand-in compiler: "-c -o OUT SRC" writes OUT (the source's text and the flags) and OUT's .d
echo "$*" >> "$(dirname "$0")/calls.log"
out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
for src in "$@"; do :; done
{ cat "$src"; echo "$*"; } > "$out"
echo "$out: $src" > "${out%.o}.d"
"""

MAKEFILE = """OPT ?= -Os
OBJS = verilated.o verilated_vpi.o
model: $(OBJS) model.o main.o
\tcat $^ > model
$(OBJS): %.o: $(VERILATOR_ROOT)/include/%.cpp
\t$(CXX) $(OPT) -c -o $@ $<
model.o: model.cpp
\t$(CXX) -c -o $@ model.cpp
main.o: $(MAIN_DIR)/main.cpp
\t$(CXX) -c -o $@ $<
"""


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    root = tmp_path / "verilator"
    (root / "include").mkdir(parents=True)
    for name in ("verilated", "verilated_vpi"):
        (root / "include" / f"{name}.cpp").write_text(f"// {name}\n")
    (root / "include" / "verilated_config.h").write_text("#define VERILATOR_VERSION 1\n")
    main = tmp_path / "cocotb-share"  # stands in for cocotb's verilator.cpp folder (vruntime.main_dirs)
    main.mkdir()
    (main / "main.cpp").write_text('// main\n#include "Vtop.h"\n')
    monkeypatch.setattr(vruntime, "main_dirs", lambda: [main])
    bindir = tmp_path / "bin"
    bindir.mkdir()
    cc = bindir / "fakecc"
    cc.write_text(FAKE_CC)
    cc.chmod(0o755)
    env = {**os.environ, "VERILATOR_ROOT": str(root), "CXX": str(cc), "MAKEFLAGS": "", "MAIN_DIR": str(main)}
    return {"tmp": tmp_path, "root": root, "cc": cc, "env": env, "cache": tmp_path / "cache"}


def _build(s: dict, name: str, *make_vars: str) -> tuple[Path, list[str]]:
    """One build folder: prefill, make, store; returns the folder and the compiler calls of this build."""
    bdir = s["tmp"] / name
    bdir.mkdir(exist_ok=True)
    (bdir / "Makefile").write_text(MAKEFILE)
    (bdir / "model.cpp").write_text(f"// model {name}\n")
    (bdir / "Vtop.h").write_text(s.get("ports", "// ports\n"))
    log = s["cc"].parent / "calls.log"
    log.unlink(missing_ok=True)
    cmd = ["make", "-C", str(bdir), *make_vars]
    keys = vruntime.prefill(cmd, bdir, s["cache"], s["env"])
    subprocess.run(cmd, cwd=bdir, env=s["env"], check=True, capture_output=True)
    vruntime.store(keys, bdir, s["cache"])
    return bdir, log.read_text().splitlines() if log.exists() else []


def test_runtime_commands_are_only_the_install_sources(setup: dict) -> None:
    bdir = setup["tmp"] / "a"
    bdir.mkdir()
    (bdir / "Makefile").write_text(MAKEFILE)
    (bdir / "model.cpp").write_text("// model\n")
    found = vruntime.runtime_commands(["make", "-C", str(bdir)], bdir, setup["env"])
    # the install's sources and the simulator main, not model.o (the design's own)
    assert sorted(found) == ["main.o", "verilated.o", "verilated_vpi.o"]


def test_second_build_compiles_only_its_model(setup: dict) -> None:
    first, calls1 = _build(setup, "a")
    assert len(calls1) == 4  # two run-time objects, the main and the model
    second, calls2 = _build(setup, "b")
    assert len(calls2) == 1 and "model.cpp" in calls2[0], calls2
    for obj in ("verilated.o", "verilated_vpi.o", "main.o"):
        assert (second / obj).read_bytes() == (first / obj).read_bytes()
    assert (second / "model").exists()


def test_another_command_compiles_again(setup: dict) -> None:
    _build(setup, "a")
    _, calls = _build(setup, "b", "OPT=-O0")  # other flags: other objects
    assert sum("verilated" in c for c in calls) == 2, calls
    assert all("-O0" in c for c in calls if "verilated" in c)


def test_another_install_compiles_again(setup: dict) -> None:
    _build(setup, "a")
    (setup["root"] / "include" / "verilated_config.h").write_text("#define VERILATOR_VERSION 22\n")
    _, calls = _build(setup, "b")
    assert sum("verilated" in c for c in calls) == 2, calls


def test_a_build_folders_own_object_is_kept(setup: dict) -> None:
    _build(setup, "a")
    bdir = setup["tmp"] / "b"
    bdir.mkdir()
    (bdir / "verilated.o").write_text("mine\n")
    _build(setup, "b")
    assert (bdir / "verilated.o").read_text() == "mine\n"


def test_the_main_is_shared_only_with_the_same_model_header(setup: dict) -> None:
    """cocotb's main includes the build's Vtop.h (the design's ports): another header compiles it again."""
    _build(setup, "a")
    _, same = _build(setup, "b")
    assert not any("main.cpp" in c for c in same), same
    setup["ports"] = "// other ports\n"
    _, other = _build(setup, "c")
    assert sum("main.cpp" in c for c in other) == 1, other
