"""Disassembler: every legal word round-trips through the assembler; illegal words are .illegal."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spec import isa
from spec.asm import assemble
from spec.disasm import disassemble, disassemble_image, disassemble_program, main
from spec.image import LaunchImage


def roundtrip(word: int) -> list[int]:
    return assemble(disassemble(word)).image.code


def build(op: isa.Op, values: dict[str, int]) -> int:
    word = op.fixed_bits
    for name, value in values.items():
        word |= value << isa.FIELDS[name][0]
    return word


@pytest.mark.parametrize("op", isa.OPS, ids=lambda op: op.mnemonic)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_op_roundtrips(op: isa.Op, data: st.DataObject) -> None:
    values = {
        name: data.draw(st.integers(0, count - 1), label=name)
        for name, count in isa.legal_field_values(op).items()
    }
    word = build(op, values)
    d = isa.decode(word)
    assert d.op is op
    for name, value in values.items():
        if name in ("imm16", "imm11"):
            assert d.imm & ((1 << isa.FIELDS[name][1]) - 1) == value
        else:
            assert getattr(d, name) == value
    assert roundtrip(word) == [word], disassemble(word)


@pytest.mark.parametrize("op", isa.OPS, ids=lambda op: op.mnemonic)
def test_field_extremes_roundtrip(op: isa.Op) -> None:
    counts = isa.legal_field_values(op)
    for pick in (lambda n: 0, lambda n: n - 1, lambda n: n // 2, lambda n: n // 2 - 1):
        word = build(op, {name: max(0, pick(n)) for name, n in counts.items()})
        assert roundtrip(word) == [word], disassemble(word)


def test_every_special_register_roundtrips() -> None:
    for index, name in isa.SREG_NAMES.items():
        word = isa.encode("LDS", rd=3, f1=index)
        assert disassemble(word).split()[-1] == f"%{name}"
        assert roundtrip(word) == [word]


@settings(max_examples=600, deadline=None)
@given(st.integers(0, isa.WORD_MASK))
def test_any_word_disassembles_and_roundtrips(word: int) -> None:
    text = disassemble(word)
    try:
        isa.lookup(word)
    except isa.IllegalInstruction:
        assert text == f".illegal 0x{word:08x}"
    assert roundtrip(word) == [word]


def illegal_words() -> list[int]:
    words = []
    used_opcodes = {op.opcode for op in isa.OPS}
    words += [opcode << 26 for opcode in range(64) if opcode not in used_opcodes]
    used_funcs = {op.func for op in isa.OPS if op.opcode == isa.OP_ALU}
    words += [func for func in range(64) if func not in used_funcs]
    for op in isa.OPS:  # every reserved bit of every format
        reserved = ~op.fmt.used_mask & isa.WORD_MASK
        words += [op.fixed_bits | 1 << b for b in range(32) if reserved >> b & 1]
    return words


def test_illegal_words_raise_and_disassemble_to_illegal() -> None:
    words = illegal_words()
    assert len(words) > 100
    for word in words:
        with pytest.raises(isa.IllegalInstruction):
            isa.lookup(word)
        assert disassemble(word) == f".illegal 0x{word:08x}"
        assert roundtrip(word) == [word]


def test_formats() -> None:
    assert disassemble(isa.encode("ADD", rd=1, f1=2, f2=3)).split() == ["ADD", "r1,", "r2,", "r3"]
    assert " ".join(disassemble(isa.encode("MAD", rd=1, f1=4, f2=2, f3=3)).split()) == "MAD r1, r2, r3, r4"
    assert " ".join(disassemble(isa.encode("ST", f1=1, f2=2, imm=-3)).split()) == "ST [r1 - 3], r2"
    assert " ".join(disassemble(isa.encode("LDG", rd=5, f1=1, imm=7)).split()) == "LDG r5, [r1 + 7]"
    assert " ".join(disassemble(isa.encode("LD", rd=5, f1=1)).split()) == "LD r5, [r1]"
    assert " ".join(disassemble(isa.encode("ANDI", rd=1, f1=1, imm=0xFFFF)).split()) == "ANDI r1, r1, 65535"
    assert " ".join(disassemble(isa.encode("ADDI", rd=1, f1=1, imm=-1)).split()) == "ADDI r1, r1, -1"
    assert " ".join(disassemble(isa.encode("BNE", f1=2, imm=9), {9: "loop"}).split()) == "BNE r2, loop"
    assert disassemble(isa.encode("EXIT")) == "EXIT"
    assert disassemble(isa.encode("NOP")) == "NOP"


def test_program_labels_and_roundtrip() -> None:
    code = [
        isa.encode("SSY", imm=3),
        isa.encode("BEQ", f1=1, imm=3),
        isa.encode("BRA", imm=900),  # beyond the program: stays numeric
        isa.encode("EXIT"),
    ]
    lines = disassemble_program(code)
    assert len(lines) == 4
    assert lines[3].startswith("L3:")
    assert "L3" in lines[0] and "L3" in lines[1] and "900" in lines[2]
    assert assemble("\n".join(lines)).image.code == code


def test_image_roundtrip_and_cli(tmp_path, capsys) -> None:
    image = LaunchImage(
        code=[isa.encode("LDS", rd=1, f1=16), isa.encode("BRA", imm=0), 0xFFFFFFFF, isa.encode("EXIT")],
        grid=(3, 2, 1),
        block=(64, 1, 1),
        regs=4,
        shared_words=16,
        params=[7, 0xFFFFFFFF],
        consts=list(range(11)),
        data=[(7, [9]), (100, [1, 2, 3])],  # increasing address order, as the stream carries it
    )
    assert assemble("\n".join(disassemble_image(image))).image == image
    path = tmp_path / "k.hex"
    image.write_hex(path)
    assert main([str(path)]) == 0
    assert assemble(capsys.readouterr().out).image == image
    assert main(["--word", "0xfc000000", "--word", "0"]) == 0
    assert capsys.readouterr().out.split() == ["EXIT", "NOP"]


def test_cli_usage_errors(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main(["--word", "zz"])
    assert exc.value.code == 2
    assert main([str(tmp_path / "missing.hex")]) == 2
    bad = tmp_path / "bad.hex"
    bad.write_text("00000000\n")
    assert main([str(bad)]) == 1
    assert "bad magic" in capsys.readouterr().err
