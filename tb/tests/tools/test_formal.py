"""The formal jobs of `make formal` (tools/formal/), checked without a solver (make model).

`make formal` runs the solver: it fails when a proof fails or a planted fault does NOT yield a
counterexample. These tests check, in a second or so and without the formal tools, what the solver
run depends on: the job table is well formed, every planted mutant applies to its RTL file, every
property set has a planted fault (its counterexample is kept by `make formal` in build/formal/cex/,
not committed: a fault counts as caught only with a trace that shows the wrapper and the unit), the reference decoder is the one spec/isa.py generates today, and the
SBY log reader gives the right verdicts (including a log of a failed proof, so the reader can fail).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tools.formal import gen_decode, gen_image_rules
from tools.formal.jobs import Job, Mutant, all_jobs
from tools.formal.sby import (
    CEX,
    ROOT,
    Result,
    failed_assertion,
    job_files,
    keep_trace,
    parse_log,
    peeks_of,
    sby_text,
    trace_shows_unit,
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


def test_no_counterexample_committed() -> None:
    """Counterexamples and witnesses are build output (build/formal/cex/): a trace depends on the whole
    netlist, so committed ones were rewritten by every RTL edit (docs/verification.md "Formal")."""
    assert CEX == ROOT / "build" / "formal" / "cex"
    assert "!formal/cex" not in (ROOT / ".gitignore").read_text()  # *.vcd stays ignored everywhere
    if shutil.which("git") and (ROOT / ".git").exists():
        tracked = subprocess.run(
            ["git", "ls-files", "formal"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
        assert not [f for f in tracked if f.endswith(".vcd")], "a trace is committed under formal/"


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


def test_image_rules_reference_is_current() -> None:
    """The loader proof's constants (formal/top/simt_image_rules_ref.vh) are spec/image_rules.py's today."""
    text = gen_image_rules.OUT.read_text()
    assert text == gen_image_rules.generate(), "run python -m tools.formal.gen_image_rules"
    from spec import image_rules

    assert f"IR_RULE_DATA_ORDER = 8'd{int(image_rules.Rule.DATA_ORDER)};" in text
    assert "IR_RULE_TRUNCATED" not in text  # rules the loader cannot see have no number


def test_image_rules_reference_follows_the_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    """A change of the spec's record order changes the generated constants (so the loader proof would
    catch an RTL that was not changed with it)."""
    from spec import image_rules

    before = gen_image_rules.generate()
    order = image_rules.RECORD_ORDER
    monkeypatch.setattr(image_rules, "RECORD_ORDER", (order[1], order[0], *order[2:]))
    after = gen_image_rules.generate()
    assert after != before and "3'd0: ir_order_tag = IR_TAG_BLOCK;" in after


def test_mutant_copy_replaces_only_rtl(tmp_path: Path) -> None:
    """make mutants' formal stage reads the RTL from the mutant's copy of rtl/ but a wrapper's own sources
    (the generated reference decoder, the image-rule constants) from the repository: mapping those into
    the copy raised, and the traceback's exit 1 read as a kill."""
    from tools.formal.jobs import by_name

    for name in ("decode", "loader"):
        job = by_name()[name]
        files = job_files(job, tmp_path, rtl=tmp_path / "rtl")
        for rel in job.sources:
            want = tmp_path / rel if rel.startswith("rtl/") else ROOT / rel
            assert want in files, (name, rel)


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
    assert "proc -norom" in text and "connect -nounset -set start \\dut.start" in text
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
    assert Result(fault, "FAIL", 1.0, step=2, trace_ok=True).ok
    assert not Result(fault, "PASS", 1.0).ok  # a fault the properties miss fails make formal
    bounded = next(j for j in PROOFS if j.mode == "bmc")
    assert Result(bounded, "PASS", 1.0).verdict == f"bounded to {bounded.depth}"


def test_mutant_dataclass_is_hashable() -> None:
    assert hash(Mutant("a", "b", "c", "d"))


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


def test_fault_caught_only_with_its_trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A planted fault counts as caught only when SBY failed AND its trace was kept and shows the
    wrapper and the unit; the trace is copied to build/formal/cex/<job>.vcd (a mutant run keeps none)."""
    from tools.formal import sby

    monkeypatch.setattr(sby, "CEX", tmp_path / "cex")
    found = _vcd(tmp_path / "trace.vcd")
    kept = keep_trace(found, "job")
    assert kept == tmp_path / "cex" / "job.vcd" and kept.read_text() == found.read_text()
    assert keep_trace(found, "job", build=tmp_path / "mutant") == found
    assert trace_shows_unit(found.read_text(), "top_props")
    assert not trace_shows_unit(found.read_text(), "other_props")
    assert not trace_shows_unit(found.read_text().replace("module dut", "module u"), "top_props")
    assert not trace_shows_unit(found.read_text().split("#5")[0], "top_props")  # one step only
    fault = FAULTS[0]
    assert Result(fault, "FAIL", 1.0, step=2, trace=kept, trace_ok=True).ok
    assert not Result(fault, "FAIL", 1.0, step=2).ok  # no trace kept: not caught
