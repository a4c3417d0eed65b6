"""Which RTL a results file was measured on (issue 29 "No stale figures", issue 32).

A results file under docs/bench/ carries ``"measured_on"``: the RTL's hash (:func:`rtl_hash`: every
``rtl/**/*.v`` and ``rtl/**/*.vh``, paths and contents), the git commit the run started from, whether
rtl/ had uncommitted changes then, and the date. The generated docs tables render it beside themselves
("measured on RTL ``<hash>``"), so the table check of ``make model`` also covers the stamp, and
``python -m tools.bench._tables`` (run by ``make bench``) lists the tables measured on an RTL other than
the current one. Not a bench script (tools/tasks.py runs every tools/bench/*.py not starting with ``_``).

A results file written before stamps existed gets one with ``"how": "inferred"``: the RTL of the commit
that wrote it (:func:`rtl_hash_at`), said so beside its table.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SUFFIXES = (".v", ".vh")
SHORT = 10  # hex digits of the hash shown in the docs

Stamp = dict[str, Any]


def _digest(files: list[tuple[str, bytes]]) -> str:
    h = hashlib.sha256()
    for rel, data in sorted(files):
        h.update(rel.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    return h.hexdigest()


def rtl_hash(root: Path = ROOT) -> str:
    """sha256 over every RTL source and include file under ``root``/rtl (relative path + contents)."""
    rtl = root / "rtl"
    if not rtl.is_dir():
        raise SystemExit(f"{rtl}: no RTL directory; run from a checkout of the project")
    files = [(p.relative_to(root).as_posix(), p.read_bytes()) for p in rtl.rglob("*") if p.suffix in SUFFIXES and p.is_file()]  # fmt: skip
    return _digest(files)


def _git(*args: str, root: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def rtl_hash_at(commit: str, root: Path = ROOT) -> str:
    """:func:`rtl_hash` of rtl/ as committed in ``commit`` (read from git, the work tree untouched)."""
    try:
        names = [n for n in _git("ls-tree", "-r", "--name-only", commit, "--", "rtl", root=root).splitlines()
                 if n.endswith(SUFFIXES)]  # fmt: skip
        files = [
            (
                n,
                subprocess.run(
                    ["git", "show", f"{commit}:{n}"], cwd=root, capture_output=True, check=True
                ).stdout,
            )
            for n in names
        ]
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        raise SystemExit(
            f"git cannot read rtl/ at {commit!r} ({exc}); give a commit of this repository"
        ) from None
    return _digest(files)


def head(root: Path = ROOT) -> tuple[str, bool]:
    """(commit of HEAD, True when rtl/ differs from it); ("unknown", False) outside git."""
    try:
        commit = _git("rev-parse", "HEAD", root=root).strip()
        dirty = bool(_git("status", "--porcelain", "--", "rtl", root=root).strip())
    except (subprocess.CalledProcessError, FileNotFoundError):
        return "unknown", False
    return commit, dirty


def stamp(root: Path = ROOT) -> Stamp:
    """The stamp of a run starting now on the work tree's RTL."""
    commit, dirty = head(root)
    return {
        "rtl_hash": rtl_hash(root),
        "commit": commit,
        "rtl_dirty": dirty,
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d"),
        "how": "recorded",
    }


def inferred(commit: str, date: str, root: Path = ROOT) -> Stamp:
    """The stamp of a results file written before stamps existed: the RTL of ``commit`` (the commit
    that wrote the file)."""
    return {"rtl_hash": rtl_hash_at(commit, root), "commit": commit, "rtl_dirty": False, "date": date,
            "how": "inferred"}  # fmt: skip


def note(st: Stamp | None, what: str = "") -> str:
    """The line rendered beside a generated table: which RTL its numbers come from."""
    lead = f"{what}: measured" if what else "Measured"
    if not st:
        return f"{lead} on an unrecorded RTL (results file without a stamp: measure again with --docs)."
    extra = ", rtl/ with uncommitted changes" if st.get("rtl_dirty") else ""
    how = {"inferred": "; inferred from the last commit that wrote the results file, rows kept by --resume may be older",
           "recorded by hand": "; figures copied from the source below"}.get(st.get("how", ""), "")  # fmt: skip
    other = st.get("other") or {}
    if other:
        how += "; " + ", ".join(f"{n} rows from RTL `{h[:SHORT]}`" for h, n in sorted(other.items()))
    return f"{lead} on RTL `{st['rtl_hash'][:SHORT]}` (commit {st['commit'][:7]}{extra}, {st['date']}{how})."


def is_current(st: Stamp | None, current: str | None = None) -> bool:
    return bool(st) and st["rtl_hash"] == (current or rtl_hash())  # type: ignore[index]
