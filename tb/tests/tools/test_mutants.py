"""The mutant generator of ``make mutants`` (tools/mutants/): pure Python, no simulator.

The mutation run itself is too slow for ``make test``; these check that what it mutates is right:
every operator is found, the regions that must not be mutated are skipped, each mutant is one splice
of one place, ids are stable, and the real rtl/ gives mutants that change exactly what they say.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tools.formal.jobs import MUTANT_WHOLE_SM, mutant_jobs
from tools.mutants.__main__ import SELF_CHECK, select, self_check_mutant
from tools.mutants.generate import OPERATORS, RTL, all_mutants, mutants_of, rtl_files
from tools.mutants.lexer import Source, tokenize
from tools.mutants.report import load_equivalents
from tools.mutants.runner import (
    AXI_FILES,
    AXI_SLAVE_FAULTS,
    POST_FILES,
    POST_STAGES,
    _descendants,
    _kill_group,
    post_only_lines,
    stages_for,
    stages_for_mutant,
)

SNIPPET = """\
`include "simt_check.vh"
// a comment: a + b == c ? d : e
module m #(
    parameter integer N = 4    // not mutated: a parameter default
) (
    input  wire         clk,
    input  wire [N-1:0] a,
    output reg  [N-1:0] q
);
    generate
        if (N < 1) begin : bad_n
            `SIMT_AT_ELAB $fatal(1, "m: illegal parameter N=%0d (1..)", N);
        end
    endgenerate
    wire [N-1:0] row_mask = a & ~{N{1'b0}};
    wire         big = a[N-1:1] != 0;
    reg  [3:0]   cnt;
`ifdef SIMT_FAULTS
    wire flt = a == 4'd3;
`else
    wire ok = a <= 4'd3;
`endif
    always @(posedge clk) begin
        if (a < 4'd4) cnt <= cnt + 4'd1;
        else cnt <= big ? cnt - 1'b1 : {4{1'b0}};
        q <= (cnt >> 1) ^ a;
    end
endmodule
"""


def _ids(text: str = SNIPPET) -> list[str]:
    return [m.id for m in mutants_of("sm/m.v", text)]


def test_every_operator_is_found_in_a_snippet() -> None:
    ids = _ids()
    kinds = Counter(i.split(":")[3] for i in ids)
    assert set(kinds) == set(OPERATORS), kinds
    for expected in (
        "m.v:24:15:op-swap:<→<=",
        "m.v:24:34:op-swap:+→-",
        "m.v:24:9:cond-invert:if",
        "m.v:25:25:cond-invert:?",
        "m.v:25:25:arm-swap:?:",
        "m.v:24:17:const:4'd4→4'd5",
        "m.v:24:17:const:4'd4→4'd3",
        "m.v:25:33:const:1'b1→1'b0",
        "m.v:26:25:op-swap:^→|",
        "m.v:26:19:op-swap:>>→<<",
        "m.v:15:29:stuck-bit:bit0=1",
        "m.v:15:29:stuck-bit:bit0=0",
        "m.v:21:17:op-swap:<=→<",
        "m.v:16:33:op-swap:!=→==",
    ):
        assert expected in ids, f"{expected} not generated; got {ids}"


def test_skipped_regions_are_not_mutated() -> None:
    by_line = Counter(int(i.split(":")[1]) for i in _ids())
    # comment, header and ports, the $fatal check, declarations without initialiser, the fault hook
    for line in (2, 3, 4, 6, 7, 8, 11, 12, 17, 19):
        assert by_line[line] == 0, f"line {line} mutated: {SNIPPET.splitlines()[line - 1]!r}"
    assert by_line[21] > 0, "the `else branch of `ifdef SIMT_FAULTS is the real design and must be mutated"
    ids = _ids()
    assert not any(":op-swap:<=→<" in i and i.split(":")[1] in ("24", "25", "26") for i in ids), (
        "a non-blocking assignment was mutated as a comparison"
    )
    assert [i for i in ids if i.startswith("m.v:16:") and ":const:" in i] == ["m.v:16:36:const:0→1"], (
        "a part-select bound was mutated"
    )
    assert not any(i.startswith("m.v:25:") and ":const:4→" in i for i in ids), (
        "a replication count was mutated"
    )


def test_each_mutant_changes_one_place() -> None:
    base = tokenize(SNIPPET)
    for m in mutants_of("sm/m.v", SNIPPET):
        new = m.apply(SNIPPET)
        assert new != SNIPPET, m.id
        assert (
            new[: m.start] == SNIPPET[: m.start] and new[m.start + len(m.replacement) :] == SNIPPET[m.end :]
        )
        toks = tokenize(new)
        changed = _changed_tokens(base, toks)
        if m.operator in ("op-swap", "const"):
            assert changed == 1, f"{m.id} changes {changed} tokens"
        Source(new)  # still balanced and lexable


def test_ids_are_stable_and_unique() -> None:
    assert _ids() == _ids()
    assert len(set(_ids())) == len(_ids())
    everything = all_mutants()
    ids = [m.id for m in everything]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1][:5]
    assert ids == [m.id for m in all_mutants()]
    files = {m.file for m in everything}
    assert files == set(rtl_files()) - NO_LOGIC, "every rtl/sm and rtl/top file with logic has mutants"


# files of instances and wires only: nothing a mutation operator changes
NO_LOGIC = {"top/simt_gpu_axi.v"}


def test_axi_files_have_their_stage_and_formal_comes_last() -> None:
    """The AXI top's files are mutated and run the AXI stage (the native stages do not read them); every
    file's stages end with the formal stage, and a file's formal jobs read that file."""
    assert set(AXI_FILES) <= set(rtl_files())
    assert any(m.file == "top/simt_axi_mem_bridge.v" for m in all_mutants())
    for f in rtl_files():
        names = [s.name for s in stages_for(f)]
        assert names[-1] == "formal" and names.count("formal") == 1, (f, names)
        assert ("axi" in names) == (f in AXI_FILES), (f, names)
        for job in mutant_jobs(f):
            assert f"rtl/{f}" in job.sources and job.mode == "bmc" and job.mutant is None, (f, job.name)
            assert "INVARIANTS" not in job.defines, (f, job.name)
    assert [j.name for j in mutant_jobs("sm/simt_alu.v")] == ["alu"]
    assert [j.name for j in mutant_jobs("sm/simt_commit.v")] == list(MUTANT_WHOLE_SM)


def test_post_stores_logic_runs_on_a_post_stores_build() -> None:
    """Every mutated file with POST_STORES logic (a POST_STORES parameter of its own, not only passed on)
    runs the post stage after the default-parameter stages and before formal, so its posted logic is
    judged on a POST_STORES = 1 build; the stage's nodes are benches that build POST_STORES = 1."""
    from tb.tests.system import test_kernels
    from tb.tests.unit import test_gmem_unit

    mutated = {m.file for m in all_mutants()}
    with_param = {f for f in rtl_files() if "parameter integer POST_STORES" in (RTL / f).read_text()}
    assert set(POST_FILES) == with_param & mutated, sorted(with_param & mutated)
    for f in rtl_files():
        names = [s.name for s in stages_for(f)]
        assert ("post" in names) == (f in POST_FILES), (f, names)
        if f in POST_FILES:
            assert names[-2:] == ["post", "formal"], (f, names)
    assert POST_STAGES["sm/simt_gmem_unit.v"].nodes[0].endswith("::test_gmem_unit_posted")
    assert test_gmem_unit.POSTED and hasattr(test_gmem_unit, "test_gmem_unit_posted")
    assert all(s.nodes[-1].endswith("test_kernels.py::test_posted_stores") for s in POST_STAGES.values())
    assert "post_stores=1" in Path(test_kernels.__file__).read_text()


POST_SNIPPET = """\
    generate
        if (POST_STORES != 0) begin : g_post  // header: every build elaborates its condition
            always @(posedge clk) begin
                if (rst) q <= 1'b0;
            end
            assign a = q;
        end else begin : g_wait
            assign a = 1'b0;
        end
    endgenerate
"""


def test_post_only_mutants_run_only_the_post_stage() -> None:
    """A mutant inside an ``if (POST_STORES != 0)`` generate branch runs only the post stage (no other
    stage elaborates it); its header, the else branch and the rest of the file run every stage."""
    assert post_only_lines(POST_SNIPPET) == {3, 4, 5, 6}
    gmem = "sm/simt_gmem_unit.v"
    inside = post_only_lines((RTL / gmem).read_text())
    assert inside, "the gmem unit's g_post branch is not found"
    seen = set()
    for m in mutants_of(gmem, (RTL / gmem).read_text()):
        names = [s.name for s in stages_for_mutant(m)]
        seen.add(m.line in inside)
        assert names == (["post"] if m.line in inside else [s.name for s in stages_for(gmem)]), (m.id, names)
    assert seen == {True, False}


def test_axi_stage_runs_every_broken_slave() -> None:
    """The AXI stage runs each planted broken slave whose axi_error bit the bridge must raise."""
    from tb.agents.axi_mem_agent import FAULTS
    from tb.tests.system.test_axi import AXI_FAULTS

    assert set(AXI_SLAVE_FAULTS) <= set(FAULTS)
    assert {f for f, check in AXI_FAULTS.items() if check.startswith("Axi")} == set(AXI_SLAVE_FAULTS)


@pytest.mark.skipif(
    shutil.which("yowasp-sby", path=str(Path(sys.executable).parent)) is None,
    reason="formal tools not installed (make formal installs requirements-formal.txt)",
)
def test_formal_stage_kills_a_planted_mutant(tmp_path: Path) -> None:
    """The formal stage's command: the unmutated ALU passes, the self-check mutant (ADD made SUB) is
    killed by a counterexample (exit 1)."""
    m = self_check_mutant(all_mutants())
    for name, mutant, want in (("clean", None, 0), ("mutant", m, 1)):
        rtl = tmp_path / name / "rtl"
        shutil.copytree(RTL, rtl)
        if mutant is not None:
            (rtl / m.file).write_text(m.apply((rtl / m.file).read_text()))
        cmd = [sys.executable, "-m", "tools.formal", "--mutant", m.file, "--rtl", str(rtl),
               "--work", str(tmp_path / name / "build")]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=600)
        assert proc.returncode == want, (name, proc.stdout, proc.stderr)


def test_real_rtl_mutants_change_exactly_one_token() -> None:
    """On the real rtl/ (a seeded sample per file, to stay fast): a token swap differs from the
    original in exactly one token, any mutant in exactly one contiguous place, and still lexes."""
    rng = random.Random(7)
    for name in rtl_files():
        text = (RTL / name).read_text()
        base = tokenize(text)
        mutants = mutants_of(name, text)
        for m in rng.sample(mutants, min(12, len(mutants))):
            new = m.apply(text)
            changed = _changed_tokens(base, tokenize(new))
            if m.operator in ("op-swap", "const"):
                assert changed == 1, f"{m.id} changes {changed} tokens"
            else:
                assert changed >= 1, m.id
            before, after = m.lines(text)
            assert before != after, m.id
            assert " ".join(text.splitlines()[m.line - 1].split()) in before, (
                f"{m.id}: line {m.line} is not where it says"
            )


def test_fault_hooks_and_legality_checks_of_the_real_rtl_are_not_mutated() -> None:
    for name in rtl_files():
        text = (RTL / name).read_text()
        lines = text.splitlines()
        for m in mutants_of(name, text):
            assert "$fatal" not in lines[m.line - 1], f"{m.id} mutates a parameter check"
        src = Source(text)
        inside = False
        for tok, ok in zip(src.code, src.mutable):
            if tok.kind == "directive" and tok.text.startswith("`ifdef"):
                inside = True  # every `ifdef in rtl/sm and rtl/top is SIMT_FAULTS (checked below)
            elif tok.kind == "directive" and tok.text in ("`else", "`endif"):
                inside = False
            elif inside:
                assert not ok, f"{name} line {tok.line}: {tok.text!r} inside `ifdef SIMT_FAULTS is mutable"
        assert all("SIMT_FAULTS" in ln for ln in lines if ln.strip().startswith("`ifdef"))


def test_sample_is_seeded() -> None:
    mutants = all_mutants()
    args = argparse.Namespace(file=None, operator=None, only=None, all=False, count=20, seed=3)
    assert [m.id for m in select(mutants, args)] == [m.id for m in select(mutants, args)]
    other = [m.id for m in select(mutants, argparse.Namespace(**{**vars(args), "seed": 4}))]
    assert other != [m.id for m in select(mutants, args)]


def test_self_check_mutant_exists() -> None:
    m = self_check_mutant(all_mutants())
    assert m.file == SELF_CHECK[0] and "a - b" in m.lines((RTL / m.file).read_text())[1]


def test_equivalence_reasons_parse() -> None:
    for key, why in load_equivalents().items():
        assert key.count(":") >= 4 and why, key


def stale_equivalents(equivalents: dict[str, str], ids: set[str]) -> list[str]:
    """Equivalence entries whose mutant is no longer generated (the RTL around it moved)."""
    return sorted(set(equivalents) - ids)


def test_equivalence_entries_name_current_mutants() -> None:
    """An RTL edit that moves an explained mutant must re-key its entry (docs/mutants-equivalent.toml),
    or `make mutants` counts it as an unexplained survivor."""
    stale = stale_equivalents(load_equivalents(), {m.id for m in all_mutants()})
    assert not stale, f"re-key these entries of docs/mutants-equivalent.toml to the current RTL: {stale}"


def test_stale_entry_check_can_fail() -> None:
    ids = {m.id for m in all_mutants()}
    assert stale_equivalents({"simt_sm.v:1:1:const:0→1": "moved"}, ids) == ["simt_sm.v:1:1:const:0→1"]


def _changed_tokens(a: list, b: list) -> int:
    """Number of tokens that differ between two token lists of equal length, else the size of the
    differing middle (common prefix and suffix removed)."""
    ta, tb = [t.text for t in a if t.kind != "ws"], [t.text for t in b if t.kind != "ws"]
    i = 0
    while i < min(len(ta), len(tb)) and ta[i] == tb[i]:
        i += 1
    j = 0
    while j < min(len(ta), len(tb)) - i and ta[-1 - j] == tb[-1 - j]:
        j += 1
    return max(len(ta) - i - j, len(tb) - i - j)


@pytest.mark.parametrize("text", ["wire a = b <= c;", "always @* x <= y;", "assign z = p ? q <= r : s;"])
def test_nonblocking_assignment_or_comparison(text: str) -> None:
    src = Source(text)
    le = [i for i, t in enumerate(src.code) if t.text == "<="]
    assert (le[0] in src.assign_le) == text.startswith("always")


def test_stopping_a_stage_ends_the_simulator_it_started() -> None:
    """A stage stopped at its first failing test must take its simulator with it: cocotb starts vvp in a
    session of its own, which killing pytest's process group alone left running, orphaned."""
    if not os.path.isdir("/proc"):
        pytest.skip("no /proc on this system: descendants are not found there")
    stage = subprocess.Popen(["bash", "-c", "setsid sleep 60 & sleep 60"], start_new_session=True)
    deadline = time.monotonic() + 5
    while len(_descendants(stage.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    children = _descendants(stage.pid)
    assert len(children) == 2, f"the stand-in stage has children {children}: expected its two sleeps"
    _kill_group(stage)
    stage.wait()
    time.sleep(0.2)

    def alive(pid: int) -> bool:
        try:
            return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    assert not [p for p in children if alive(p)], "a process of the stopped stage (its own session) survived"
