"""The Verilog header and the opcode table in docs/isa.md are generated from spec/isa.py.

A stale copy fails here (and `make model` fails), telling the user to run `python -m spec.gen`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spec import config, gen, isa


def test_committed_generated_files_are_current() -> None:
    stale = gen.stale()
    assert not stale, f"stale generated files {stale}: run `python -m spec.gen` and commit"


def test_check_detects_a_stale_header(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    header = tmp_path / "simt_isa.vh"
    header.write_text(gen.render_header().replace("6'h3f", "6'h3e"))  # EXIT's opcode corrupted
    monkeypatch.setattr(gen, "HEADER", header)
    assert gen.stale() == [header]
    assert gen.main(["--check"]) == 1
    assert gen.main([]) == 0  # regenerating repairs it
    assert gen.stale() == []


def test_check_detects_a_stale_doc_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = tmp_path / "isa.md"
    doc.write_text(gen.DOC.read_text().replace("| EXIT | 0x3f |", "| EXIT | 0x3e |"))
    monkeypatch.setattr(gen, "DOC", doc)
    assert gen.stale() == [doc]


def test_header_defines_every_opcode_and_function_code() -> None:
    text = gen.render_header()
    defines = dict(re.findall(r"`define (\S+)\s+(\S+)", text))
    for op in isa.OPS:
        if op.func is not None:
            assert defines[f"SIMT_FN_{op.mnemonic}"] == f"6'h{op.func:02x}"
        elif op.fmt is isa.Fmt.RI:
            base = int(defines["SIMT_OP_IMM_BASE"].split("'h")[1], 16)
            assert base | isa.ALU_FUNCS[op.alu or ""] == op.opcode
        else:
            assert defines[f"SIMT_OP_{op.mnemonic}"] == f"6'h{op.opcode:02x}"


def test_doc_table_lists_every_instruction() -> None:
    table = gen.render_doc_table()
    for op in isa.OPS:
        assert f"| {op.mnemonic} | 0x{op.opcode:02x} |" in table


def test_baseline_encodings_match_seed_table_4_1() -> None:
    """Lies 2019 (seed 000) Table 4.1, opcode and function code bits, transcribed from the document."""
    table = {
        "NOP": "000000-000000", "MAD": "000000-000001", "MUL": "000000-000010", "ADD": "000000-000011",
        "SUB": "000000-000100", "SLT": "000000-000101", "SGT": "000000-000110", "SHR": "000000-000111",
        "SHL": "000000-001000", "NOT": "000000-001001", "AND": "000000-001010", "OR": "000000-001011",
        "XOR": "000000-001100", "MV": "000001", "MVI": "000010", "LD": "000011", "LDC": "000100",
        "LDS": "000101", "BEQ": "000110", "BNE": "000111", "ST": "001000", "SSY": "111101",
        "BAR": "111110", "EXIT": "111111",
    }  # fmt: skip
    assert set(table) == isa.BASELINE
    for name, bits in table.items():
        op = isa.BY_MNEMONIC[name]
        opcode, _, func = bits.partition("-")
        assert op.opcode == int(opcode, 2), name
        if func:
            assert op.func == int(func, 2), name
    # Operand fields as Table 4.1 places them: MAD d-1-2-3, MUL d-x-2-3, NOT d-x-2, ST x-1-2.
    assert isa.Fmt.RMAD.fields == ("op", "rd", "f1", "f2", "f3", "func")
    assert "f1" not in isa.Fmt.RMUL.fields and "f1" not in isa.Fmt.RNOT.fields
    assert isa.BY_MNEMONIC["ST"].fmt.fields[:3] == ("op", "f1", "f2")


# ---- machine parameters: one definition (spec/config.py PARAMS) ---------------------------
def test_check_detects_a_stale_params_header(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    header = tmp_path / "simt_params.vh"
    header.write_text(gen.render_params_header().replace("(VAL) <= 32)", "(VAL) <= 64)", 1))
    monkeypatch.setattr(gen, "PARAMS_HEADER", header)
    assert gen.stale() == [header]


def test_params_header_and_doc_follow_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Change a range in PARAMS and the header, the docs table and GpuConfig.check all follow it."""
    from dataclasses import replace

    wider = replace(config.PARAMS["num_warps"], hi=48)
    monkeypatch.setitem(config.PARAMS, "num_warps", wider)
    assert "(VAL) <= 48" in gen.render_params_header()
    assert "| `NUM_WARPS` | 16 | in 1..48 |" in gen.render_params_doc()
    config.GpuConfig(num_warps=40).check()  # legal under the new table
    with pytest.raises(config.ConfigError, match=r"num_warps=49 \(must be in 1\.\.48\)"):
        config.GpuConfig(num_warps=49).check()


MACHINE_PARAMS = {p.verilog for p in config.PARAMS.values()}
# simt_mem_arbiter's NUM_SMS counts the loader's port as well as the SMs: not the machine parameter
NOT_MACHINE = {("simt_mem_arbiter", "NUM_SMS")}


def hand_copies(text: str, module: str) -> list[str]:
    """Machine parameters of an RTL module that carry a hand-written default or range check."""
    found = []
    for name, default in re.findall(r"parameter\s+integer\s+(\w+)\s*=\s*([^,\s)]+)", text):
        if (
            name in MACHINE_PARAMS
            and (module, name) not in NOT_MACHINE
            and default != f"`SIMT_DEFAULT_{name}"
        ):
            found.append(f"{module}: {name} default {default} (use `SIMT_DEFAULT_{name})")
    for name in re.findall(r'"\w+: illegal parameter (\w+)=', text):
        if name in MACHINE_PARAMS and (module, name) not in NOT_MACHINE:
            found.append(f"{module}: hand-written check of {name} (use `SIMT_CHECK_{name})")
    return found


def test_rtl_takes_machine_parameters_from_the_generated_header() -> None:
    bad = [msg for f in sorted((gen.ROOT / "rtl").rglob("*.v")) for msg in hand_copies(f.read_text(), f.stem)]
    assert not bad, "hand-written copies of spec/config.py PARAMS in rtl/:\n" + "\n".join(bad)


def test_hand_copy_check_can_fail() -> None:
    text = 'module m #(parameter integer NUM_WARPS = 16) ();\n $fatal(1, "m: illegal parameter SEG_WORDS=%0d", S);'
    assert len(hand_copies(text, "m")) == 2
