"""One generated block of a docs file: the text between its BEGIN and END markers replaced."""

from __future__ import annotations

from pathlib import Path


def splice(current: str, begin: str, end: str, body: list[str], doc: Path | str, name: str) -> str:
    """``current`` with everything from ``begin`` through ``end`` replaced by the markers around ``body``;
    a missing marker stops with the file, the table and the markers to restore."""
    i, j = current.find(begin), current.find(end)
    if i < 0 or j < 0:
        raise SystemExit(f"{doc}: the {name} table markers are missing; restore {begin!r} ... {end!r}")
    return current[:i] + "\n".join([begin, *body, end]) + current[j + len(end) :]
