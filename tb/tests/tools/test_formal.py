"""The formal jobs of `make formal` (tools/formal/), checked without a solver (make model).

`make formal` runs the solver: it fails when a proof fails or a planted fault does NOT yield a
counterexample. These tests check, in a second or so and without the formal tools, what the solver
run depends on: the job table is well formed, every planted mutant applies to its RTL file, every
property set has a planted fault whose counterexample is kept (formal/cex/*.vcd) and actually ends in
a failed check of that fault, the reference decoder is the one spec/isa.py generates today, and the
SBY log reader gives the right verdicts (including a log of a failed proof, so the reader can fail).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tools.formal import gen_decode
from tools.formal.jobs import Job, Mutant, all_jobs
from tools.formal.sby import (
    CEX,
    ROOT,
    Result,
    failed_assertion,
    keep_trace,
    parse_log,
    peeks_of,
    sby_text,
    trace_signature,
)

JOBS = all_jobs()
FAULTS = [j for j in JOBS if j.expect == "fail"]
PROOFS = [j for j in JOBS if j.expect == "pass"]


def test_job_names_unique_and_files_exist() -> None:
    names = [j.name for j in JOBS]
    assert len(names) == len(set(names))
    for j in JOBS:
        assert (ROOT / j.props).is_file(), j.props
        for src in j.sources:
            assert (ROOT / src).is_file(), src
        assert j.mode in ("prove", "bmc", "cover") and j.depth >= 1


@pytest.mark.parametrize("job", FAULTS, ids=lambda j: j.name)
def test_mutant_applies_once(job: Job) -> None:
    assert job.mutant is not None
    text = (ROOT / job.mutant.file).read_text()
    assert text.count(job.mutant.old) == 1, f"{job.name}: the mutant no longer matches {job.mutant.file}"
    assert job.mutant.old != job.mutant.new
    assert job.mutant.file in job.sources


def test_every_property_set_has_a_planted_fault() -> None:
    faulted = {j.props for j in FAULTS}
    for j in PROOFS:
        assert j.props in faulted, f"{j.name}: no planted fault checks {j.props}"


@pytest.mark.parametrize("job", FAULTS, ids=lambda j: j.name)
def test_counterexample_kept(job: Job) -> None:
    """Each planted fault's counterexample is in formal/cex/ and shows the unit failing a check: the
    trace ends with the wrapper's assertion going false (smtbmc writes the failing step last)."""
    vcd = CEX / f"{job.name}.vcd"
    assert vcd.is_file(), f"{vcd} missing: run `make formal` and commit formal/cex/"
    text = vcd.read_text()
    assert "$enddefinitions" in text
    assert f"$scope module {job.top} $end" in text
    assert "$scope module dut $end" in text
    steps = re.findall(r"^#(\d+)$", text, flags=re.M)
    assert len(steps) >= 2


def test_reference_decoder_is_current() -> None:
    assert gen_decode.OUT.read_text() == gen_decode.generate(), "run python -m tools.formal.gen_decode"


def test_reference_decoder_follows_the_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    """A change of the ISA table changes the generated reference (so the proof would catch an RTL that
    was not changed with it)."""
    from spec import isa

    before = gen_decode.generate()
    op = isa.BY_MNEMONIC["SHL"]
    monkeypatch.setattr(isa, "OPS", tuple(o for o in isa.OPS if o is not op))
    after = gen_decode.generate()
    assert after != before and "// SHL:" in before and "// SHL:" not in after


def test_ports_from_syntax() -> None:
    from spec import isa

    assert gen_decode.ports(isa.Fmt.RMAD) == {"a": "f2", "b": "f3", "c": "f1"}
    assert gen_decode.ports(isa.Fmt.STORE) == {"a": "f1", "b": "imm", "c": "f2"}
    assert gen_decode.ports(isa.Fmt.IMM) == {"a": "imm"}
    assert gen_decode.ports(isa.Fmt.SREG) == {}


def test_peeks_and_sby_text(tmp_path: Path) -> None:
    props = tmp_path / "p.sv"
    props.write_text("// peek: a = dut.x\n  // peek: b[3:2] = dut.g[1].y\nmodule p; endmodule\n")
    assert peeks_of(props) == [("a", "dut.x"), ("b[3:2]", "dut.g[1].y")]
    job = next(j for j in JOBS if j.name == "warp_sched")
    text = sby_text(job, [ROOT / "rtl/sm/simt_warp_sched.v", ROOT / job.props])
    assert "mode prove" in text and "chparam -set NUM_WARPS 5 simt_warp_sched_props" in text
    assert "proc -norom" in text and "connect -set start \\dut.start" in text
    assert "-DINVARIANTS" in text


LOG_PASS = """SBY 1:00:00 [x] engine_0.induction: ##   0:00:00  Trying induction in step 3..
SBY 1:00:00 [x] summary: successful proof by k-induction.
SBY 1:00:00 [x] DONE (PASS, rc=0)
"""
LOG_FAIL = """SBY 1:00:00 [x] summary: counterexample trace [basecase]: /w/run/engine_0/trace.vcd
SBY 1:00:00 [x] summary:   failed assertion p._witness_.check_assert_p_sv_12_3 at p.sv:3.9-3.30 step 4
SBY 1:00:00 [x] DONE (FAIL, rc=2)
"""
LOG_UNKNOWN = """SBY 1:00:00 [x] summary:   failed assertion p._witness_.check at p.sv:2.1-2.9
SBY 1:00:00 [x] DONE (UNKNOWN, rc=4)
"""


def test_parse_log(tmp_path: Path) -> None:
    assert parse_log(LOG_PASS) == ("PASS", 3, None)
    assert parse_log(LOG_FAIL) == ("FAIL", 4, "/w/run/engine_0/trace.vcd")
    assert parse_log(LOG_UNKNOWN)[0] == "UNKNOWN"
    assert parse_log("no sby output")[0] == "ERROR"
    src = tmp_path / "p.sv"
    src.write_text("module p;\n// line 2\n    assert (x == y);\nendmodule\n")
    assert failed_assertion(LOG_FAIL, [src]) == "p.sv:3: assert (x == y);"


def test_verdicts_can_fail() -> None:
    """The result reader fails a proof that did not pass and a planted fault that was not caught."""
    proof = next(j for j in PROOFS if j.mode == "prove")
    fault = FAULTS[0]
    assert Result(proof, "PASS", 1.0).ok and Result(proof, "PASS", 1.0).verdict == "proved"
    assert not Result(proof, "UNKNOWN", 1.0).ok
    assert not Result(proof, "FAIL", 1.0, step=2).ok
    assert Result(fault, "FAIL", 1.0, step=2).ok
    assert not Result(fault, "PASS", 1.0).ok  # a fault the properties miss fails make formal
    bounded = next(j for j in PROOFS if j.mode == "bmc")
    assert Result(bounded, "PASS", 1.0).verdict == f"bounded to {bounded.depth}"


def test_mutant_dataclass_is_hashable() -> None:
    assert hash(Mutant("a", "b", "c", "d"))


def test_no_stray_counterexample() -> None:
    """formal/cex/ holds the counterexamples of today's fault jobs and the witnesses of its cover jobs only."""
    names = {f"{j.name}.vcd" for j in JOBS if j.expect == "fail" or j.mode == "cover"}
    assert {p.name for p in CEX.glob("*.vcd")} <= names


def test_coverage_holes_count_and_resolution() -> None:
    """The issue's 74 holes are the testplan's hole bins over the regression's points; a hole counts as
    proved unreachable only when every proof its entry names passed as an unbounded (k-induction) job."""
    from tools.formal import holes

    hs = holes.holes()
    assert len(hs) == 74
    names = {j.name: j for j in JOBS}
    for h in hs:
        for job in h.proofs:
            assert job in names and names[job].mode == "prove", f"{h.point}: {job} is not a proof job"
    none_bins = [h for h in hs if h.proofs]
    assert none_bins, "no hole names a proof"
    ok = {j: {"mode": "prove", "status": "PASS"} for j in none_bins[0].proofs}
    assert holes.proved(ok, none_bins[0].proofs)
    first = none_bins[0].proofs[0]
    assert not holes.proved({**ok, first: {"mode": "prove", "status": "UNKNOWN"}}, none_bins[0].proofs)
    assert not holes.proved({**ok, first: {"mode": "bmc", "status": "PASS"}}, none_bins[0].proofs)
    assert not holes.proved({}, ())
    text = holes.summary(hs, ok)
    assert f"{len(none_bins)} of 74 resolved ({len(none_bins)} proved unreachable" in text
    assert "0 of 74 resolved" in holes.summary(hs, {})


_VCD = """$version Generated by Yosys-SMTBMC $end
$timescale 1ns $end
$var integer 32 t smt_step $end
$scope module top_props $end
$scope module _witness_ $end
$var wire 2 {w} anyseq_auto_setundef_cc_350_execute_{n} $end
$upscope $end
$var wire 1 {a} rst $end
$var wire 2 {b} x [1:0] $end
$scope module dut $end
$var wire 2 {b} x_q [1:0] $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
1{a}
b00 {b}
b{wv} {w}
#5
0{a}
b{x} {b}
"""


def _vcd(
    path: Path,
    *,
    x: str = "10",
    codes: tuple[str, str, str] = ("n0", "n1", "n2"),
    n: int = 10035,
    wv: str = "11",
) -> Path:
    w, a, b = codes
    path.write_text(_VCD.format(w=w, a=a, b=b, n=n, wv=wv, x=x))
    return path


def test_counterexample_rewritten_only_when_the_trace_changes(tmp_path: Path) -> None:
    """A rerun that finds the same trace leaves formal/cex/ alone (git stays clean), even when Yosys
    renumbers its internal witness names or the VCD's identifier codes change; a different trace (a
    named signal's value) or a missing file is written."""
    kept = tmp_path / "cex" / "job.vcd"
    first = _vcd(tmp_path / "a.vcd")
    assert keep_trace(first, kept) and kept.read_text() == first.read_text()
    assert not keep_trace(first, kept)
    renamed = _vcd(tmp_path / "b.vcd", codes=("n7", "n3", "n5"), n=20411, wv="01")
    assert renamed.read_text() != first.read_text()
    assert trace_signature(renamed.read_text()) == trace_signature(first.read_text())
    assert not keep_trace(renamed, kept) and kept.read_text() == first.read_text()
    other = _vcd(tmp_path / "c.vcd", x="01")
    assert trace_signature(other.read_text()) != trace_signature(first.read_text())
    assert keep_trace(other, kept) and kept.read_text() == other.read_text()
    sig = dict(trace_signature(other.read_text()))
    assert sig["5"] == frozenset(
        {("top_props.rst", "0"), ("top_props.x[1:0]", "b01"), ("top_props.dut.x_q[1:0]", "b01")}
    )
