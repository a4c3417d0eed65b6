"""The mutation report: build/reports/mutants.jsonl (one result per line) and mutants.md.

The Markdown report is rebuilt from the JSON lines and the equivalence list, so a reason written after
a run shows up with ``python -m tools.mutants report`` (no re-run). Equivalence reasons live in
``docs/mutants-equivalent.toml``, one table per mutant id::

    ["simt_sm.v:123:17:op-swap:==→!="]
    why = "the two arms are equal whenever the condition can differ: ..."

An entry names one mutant of today's sources; when the RTL changes and the id no longer exists, the
report lists the entry as stale so it is re-checked rather than silently trusted.
"""

from __future__ import annotations

import json
import tomllib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tools.mutants.generate import OPERATORS, ROOT, RTL, Mutant
from tools.mutants.runner import Result

REPORTS = ROOT / "build" / "reports"
EQUIVALENTS = ROOT / "docs" / "mutants-equivalent.toml"
GOAL = 0.90
KILLED = ("killed", "timeout")


def load_equivalents(path: Path = EQUIVALENTS) -> dict[str, str]:
    """Mutant id -> why it is equivalent."""
    if not path.exists():
        return {}
    with open(path, "rb") as f:
        data = tomllib.load(f)
    out = {}
    for key, value in data.items():
        why = value.get("why", "") if isinstance(value, Mapping) else str(value)
        if not why.strip():
            raise ValueError(f"{path}: entry {key!r} has no `why`: say why no input can observe the mutant")
        out[key] = " ".join(why.split())
    return out


def result_row(r: Result) -> dict[str, object]:
    m = r.mutant
    before, after = m.lines((RTL / m.file).read_text())
    return {
        "id": m.id,
        "file": m.file,
        "line": m.line,
        "col": m.col,
        "operator": m.operator,
        "detail": m.detail,
        "before": before,
        "after": after,
        "status": r.status,
        "stage": r.stage,
        "test": r.test,
        "seconds": r.seconds,
        "stage_seconds": r.stage_seconds,
    }


def write_jsonl(rows: Iterable[Mapping[str, object]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def read_jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@dataclass
class Totals:
    generated: int
    sampled: int
    counts: Counter

    @property
    def killed(self) -> int:
        return self.counts["killed"] + self.counts["timeout"]

    @property
    def compiling(self) -> int:
        return self.killed + self.counts["survived"]

    @property
    def rate(self) -> float:
        return self.killed / self.compiling if self.compiling else 0.0


def _rate(killed: int, survived: int) -> str:
    return f"{100 * killed / (killed + survived):.1f} %" if killed + survived else "–"


def render(
    rows: Sequence[Mapping[str, object]],
    meta: Mapping[str, object],
    equivalents: Mapping[str, str],
    all_ids: set[str],
) -> tuple[str, Totals, list[Mapping[str, object]]]:
    """The Markdown report; the totals; the survivors nobody explained."""
    counts = Counter(str(r["status"]) for r in rows)
    totals = Totals(int(meta.get("generated", 0)), len(rows), counts)
    survivors = [r for r in rows if r["status"] == "survived"]
    equivalent = [r for r in survivors if r["id"] in equivalents]
    unexplained = [r for r in survivors if r["id"] not in equivalents]
    adjusted = totals.compiling - len(equivalent)
    out = ["# Mutation testing report", ""]
    out.append(f"`make mutants` (tools/mutants/): {meta.get('command', '')}")
    out.append("")
    out.append(
        f"Sample: seed {meta.get('seed')}, {totals.sampled} of {totals.generated} generated mutants; "
        f"simulator {meta.get('sim')}; wall time {float(meta.get('wall_seconds', 0)) / 60:.1f} min "
        f"({meta.get('jobs')} at a time), {meta.get('mean_seconds', 0):.1f} s per mutant on average."
    )
    out.append("")
    out.append(
        "| generated | sampled | killed | survived | did not compile | timeouts (counted as killed) | not run | kill rate |"
    )
    out.append("|---:|---:|---:|---:|---:|---:|---:|---:|")
    out.append(
        f"| {totals.generated} | {totals.sampled} | {counts['killed']} | {counts['survived']} | "
        f"{counts['did-not-compile']} | {counts['timeout']} | {counts['not-run']} | "
        f"**{100 * totals.rate:.1f} %** |"
    )
    out.append("")
    out.append(
        f"Kill rate = (killed + timeouts) / (killed + timeouts + survived), over the mutants that compile; "
        f"goal {100 * GOAL:.0f} %. Of the {counts['survived']} survivors {len(equivalent)} are shown "
        f"equivalent (docs/mutants-equivalent.toml) and {len(unexplained)} are NOT EXPLAINED; without the "
        f"equivalent ones the kill rate is {_rate(totals.killed, adjusted - totals.killed)}."
    )
    out.append("")
    stage_hist = Counter(str(r["stage"]) for r in rows if r["status"] in KILLED)
    if stage_hist:
        out.append("Killing stage: " + ", ".join(f"{s} {n}" for s, n in stage_hist.most_common()) + ".")
        out.append("")
    cost = {
        s: sorted(float(r["seconds"]) for r in rows if r["status"] == s)
        for s in ("killed", "survived", "timeout")
    }
    if any(cost.values()):
        line = "Cost per mutant (median): " + ", ".join(
            f"{s} {v[len(v) // 2]:.0f} s" for s, v in cost.items() if v
        )
        base = {str(k): float(v) for k, v in dict(meta.get("baseline_seconds") or {}).items()}
        units = [v for k, v in base.items() if k.startswith("unit ")]
        if base:
            line += "; baseline stages: " + ", ".join(
                f"{k.split()[0]} {v:.0f} s" for k, v in base.items() if not k.startswith("unit ")
            )
            line += f", unit benches {min(units):.0f}-{max(units):.0f} s" if units else ""
        out += [line + ".", ""]
    for title, key, order in (("operator", "operator", list(OPERATORS)), ("file", "file", None)):
        out += [
            f"## By {title}",
            "",
            f"| {title} | sampled | killed | survived | equivalent | did not compile | kill rate |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        groups: dict[str, list[Mapping[str, object]]] = defaultdict(list)
        for r in rows:
            groups[str(r[key])].append(r)
        for name in order or sorted(groups):
            g = groups.get(name, [])
            c = Counter(str(r["status"]) for r in g)
            k = c["killed"] + c["timeout"]
            eq = sum(1 for r in g if r["status"] == "survived" and r["id"] in equivalents)
            out.append(
                f"| {name} | {len(g)} | {k} | {c['survived']} | {eq} | {c['did-not-compile']} | "
                f"{_rate(k, c['survived'])} |"
            )
        out.append("")
    out += ["## Survivors", ""]
    if not survivors:
        out += ["None.", ""]
    for r in sorted(survivors, key=lambda r: (str(r["file"]), int(r["line"]), int(r["col"]))):
        why = equivalents.get(str(r["id"]))
        out.append(f"### `{r['id']}`")
        out.append("")
        out.append(f"`rtl/{r['file']}` line {r['line']}, column {r['col']}")
        out.append("")
        out.append("```verilog")
        out.append(f"- {r['before']}")
        out.append(f"+ {r['after']}")
        out.append("```")
        out.append("")
        out.append(
            f"Equivalent: {why}"
            if why
            else "**NOT EXPLAINED**: add a test that kills it, or say why no "
            "input can observe it in docs/mutants-equivalent.toml."
        )
        out.append("")
    dnc = [r for r in rows if r["status"] == "did-not-compile"]
    if dnc:
        out += ["## Did not compile", "", "| mutant | compiler |", "|---|---|"]
        out += [f"| `{r['id']}` | {str(r['test']).replace('|', '/')} |" for r in dnc]
        out.append("")
    not_run = [r for r in rows if r["status"] == "not-run"]
    if not_run:
        out += ["## Not run (the time budget ran out)", ""] + [f"- `{r['id']}`" for r in not_run] + [""]
    stale = sorted(set(equivalents) - all_ids)
    if stale:
        out += (
            [
                "## Stale equivalence entries",
                "",
                "These ids are no longer generated (the RTL changed): re-check them and update "
                "docs/mutants-equivalent.toml.",
                "",
            ]
            + [f"- `{s}`" for s in stale]
            + [""]
        )
    return "\n".join(out), totals, unexplained


def not_run_row(m: Mutant) -> dict[str, object]:
    return result_row(Result(m, "not-run"))
