"""The summary table of `make formal`: printed, written to build/reports/formal.md and (with --docs) into
docs/verification.md between the markers below."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from tools.formal.sby import ROOT, Result

DOCS = ROOT / "docs" / "verification.md"
BEGIN = "<!-- formal-table: begin (python -m tools.formal --docs) -->"
END = "<!-- formal-table: end -->"


def table(results: Sequence[Result], cex: str = "../formal/cex/") -> str:
    """The summary table; ``cex``: the counterexamples' folder (build/formal/cex/) relative to the file the
    table goes into (build/reports/formal.md by default; docs/verification.md: ../build/formal/cex/)."""
    head = "| unit | job | property | parameters | engine | result | wall | CPU |"
    rows = [head, "| --- | --- | --- | --- | --- | --- | ---: | ---: |"]
    for r in results:
        params = ", ".join(f"{k}={v}" for k, v in r.job.params.items())
        verdict = r.verdict
        if r.job.expect == "fail":
            link = f" [cex]({cex}{r.job.name}.vcd)" if r.trace is not None else ""
            verdict = f"{verdict}{link} ({'expected' if r.ok else 'NOT caught'})"
            if r.failed:
                text = r.failed.split(": ", 1)[-1].replace("|", "\\|")  # a table cell
                verdict += f": `{text}`"
        elif r.job.mode == "prove" and r.status == "PASS":
            verdict = f"proved (k = {r.job.depth})"
        rows.append(
            f"| {r.job.unit} | {r.job.name} | {r.job.what} | {params} | {r.job.engine_name} | {verdict} |"
            f" {r.seconds:.1f} s | {r.cpu:.1f} s |"
        )
    return "\n".join(rows)


def results_json(results: Sequence[Result]) -> dict[str, dict[str, str]]:
    """Each job's verdict (build/reports/formal.json: read by tools/formal/holes.py)."""
    return {
        r.job.name: {"mode": r.job.mode, "status": r.status, "verdict": r.verdict, "expect": r.job.expect}
        for r in results
    }


def summary(results: Sequence[Result], wall: float) -> str:
    proofs = [r for r in results if r.job.expect == "pass"]
    faults = [r for r in results if r.job.expect == "fail"]
    units = sorted({r.job.unit for r in proofs if r.ok and r.job.mode == "prove"})
    cpu = sum(r.cpu for r in results)
    return (
        f"formal: {sum(r.ok for r in proofs)} of {len(proofs)} property jobs passed "
        f"({len(units)} units with an unbounded proof), {sum(r.ok for r in faults)} of {len(faults)} planted "
        f"faults caught; wall {wall:.0f} s, CPU {cpu:.0f} s (CPU / 2 = {cpu / 2:.0f} s on an idle 2-core machine)"
    )


def write_build(text: str, line: str) -> Path:
    out = ROOT / "build" / "reports" / "formal.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(f"# make formal\n\n{text}\n\n{line}\n")
    return out


def write_docs(text: str, line: str) -> None:
    doc = DOCS.read_text()
    block = f"{BEGIN}\n{text}\n\n{line}\n{END}"
    if BEGIN in doc and END in doc:
        doc = re.sub(re.escape(BEGIN) + r".*?" + re.escape(END), lambda _m: block, doc, flags=re.S)
    else:
        doc = doc.rstrip("\n") + "\n\n## Formal\n\n" + block + "\n"
    DOCS.write_text(doc)
