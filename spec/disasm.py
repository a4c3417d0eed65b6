"""Disassembler: instruction words -> assembly text the assembler accepts (docs/assembler.md).

Operand order and kinds come from ``isa.Fmt.syntax``; nothing here knows an encoding. For every legal
word ``w``, ``assemble(disassemble(w)).image.code == [w]``; an illegal word becomes
``.illegal 0x........``, which the assembler also accepts (in ``.text``) and turns back into ``w``.

CLI: ``python -m spec.disasm kernel.hex`` prints a launch image as an assembly source that
reassembles to the same image; ``python -m spec.disasm --word 0x0c221800`` prints one word.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Mapping

from . import cli, isa
from .image import ImageFormatError, LaunchImage

# Operand items of Fmt.syntax.
REG_ITEMS = ("rd", "f1", "f2", "f3")  # a register encoded in that field
IMM = "imm"  # an immediate
MEM = "[f1+imm]"  # memory operand: base register in f1, offset in the immediate
SREG = "%sreg"  # a special register, its index in f1
TARGET = "target"  # a branch target (absolute instruction address) in imm16
_KNOWN_ITEMS = {*REG_ITEMS, IMM, MEM, SREG, TARGET}

_SYNTAX: dict[isa.Fmt, tuple[str, ...]] = {
    fmt: tuple(s.strip() for s in fmt.syntax.split(",") if s.strip()) for fmt in isa.Fmt
}
for _fmt, _items in _SYNTAX.items():
    if not set(_items) <= _KNOWN_ITEMS:
        raise ImportError(
            f"isa.Fmt.{_fmt.name} syntax {_fmt.syntax!r} has operand kinds "
            f"{sorted(set(_items) - _KNOWN_ITEMS)} unknown to disasm.py/asm.py: teach them the new kind"
        )

MNEMONIC_WIDTH = max(len(op.mnemonic) for op in isa.OPS)


def operand_syntax(op: isa.Op) -> tuple[str, ...]:
    """The operand items of ``op`` in written order, e.g. ``("rd", "f2", "f3", "f1")`` for MAD."""
    return _SYNTAX[op.fmt]


def illegal(word: int) -> str:
    return f".illegal 0x{word & isa.WORD_MASK:08x}"


def disassemble(word: int, labels: Mapping[int, str] | None = None) -> str:
    """One word as assembly text; never raises (illegal words give ``.illegal 0x........``)."""
    word &= isa.WORD_MASK
    try:
        d = isa.decode(word)
    except isa.IllegalInstruction:
        return illegal(word)
    parts: list[str] = []
    for item in operand_syntax(d.op):
        if item in REG_ITEMS:
            parts.append(f"r{getattr(d, item)}")
        elif item == IMM:
            parts.append(str(d.imm))
        elif item == MEM:
            if d.imm == 0:
                parts.append(f"[r{d.f1}]")
            else:
                parts.append(f"[r{d.f1} {'-' if d.imm < 0 else '+'} {abs(d.imm)}]")
        elif item == SREG:
            parts.append("%" + isa.SREG_NAMES[d.f1])
        else:  # TARGET
            parts.append(labels.get(d.imm, str(d.imm)) if labels else str(d.imm))
    if not parts:
        return d.mnemonic
    return f"{d.mnemonic:<{MNEMONIC_WIDTH}} {', '.join(parts)}"


def branch_target(word: int) -> int | None:
    """The target address of a legal branch/BRA/SSY word, else None."""
    try:
        d = isa.decode(word)
    except isa.IllegalInstruction:
        return None
    return d.imm if TARGET in operand_syntax(d.op) else None


def disassemble_program(words: Iterable[int]) -> list[str]:
    """One line per word (index = pc); targets inside the program get ``L<pc>`` labels."""
    code = list(words)
    targets = {t for w in code if (t := branch_target(w)) is not None and t < len(code)}
    labels = {t: f"L{t}" for t in sorted(targets)}
    width = max((len(name) for name in labels.values()), default=0) + 2
    out = []
    for pc, word in enumerate(code):
        label = f"{labels[pc]}:" if pc in labels else ""
        out.append(f"{label:<{width}}{disassemble(word, labels)}")
    return out


def _words_lines(words: list[int], per_line: int = 8) -> list[str]:
    return [
        "    .word " + ", ".join(f"0x{w:08x}" for w in words[i : i + per_line])
        for i in range(0, len(words), per_line)
    ]


def disassemble_image(image: LaunchImage) -> list[str]:
    """A launch image as assembly source that reassembles to an equal image."""
    lines = [
        f"; launch image: {len(image.code)} instructions, {len(image.consts)} constants, "
        f"{len(image.data)} data record(s)",
        ".grid {} {} {}".format(*image.grid),
        ".block {} {} {}".format(*image.block),
        f".regs {image.regs}",
        f".shared {image.shared_words}",
    ]
    lines += [f".param 0x{p & isa.WORD_MASK:08x}" for p in image.params]
    lines.append(".text")
    listing = disassemble_program(image.code)
    width = max((len(text) for text in listing), default=0) + 2
    for pc, (text, word) in enumerate(zip(listing, image.code)):
        lines.append(f"{text:<{width}}; {pc:5d}: {word & isa.WORD_MASK:08x}")
    if image.consts:
        lines.append(".const")
        lines += _words_lines(image.consts)
    for base, words in image.data:
        lines.append(f".data {base}")
        lines += _words_lines(words)
    return lines


def _word_arg(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r} (write e.g. 0x0c221800)") from None
    if not 0 <= value <= isa.WORD_MASK:
        raise argparse.ArgumentTypeError(f"{text} does not fit 32 bits")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = cli.ArgumentParser(
        prog="python -m spec.disasm",
        description="Disassemble a launch image (.hex) or single instruction words.",
    )
    parser.add_argument("hexfile", nargs="?", help="launch image written by the assembler")
    parser.add_argument(
        "--word", action="append", type=_word_arg, default=[], help="disassemble this word (repeatable)"
    )
    args = parser.parse_args(argv)
    if (args.hexfile is None) == (not args.word):
        parser.error("give either a launch-image .hex file or one or more --word 0x... values")
    if args.word:
        for word in args.word:
            print(disassemble(word))
        return 0
    try:
        image = LaunchImage.read_hex(args.hexfile)
    except OSError as e:
        print(f"{args.hexfile}: error: cannot read: {e.strerror}", file=sys.stderr)
        return 2
    except ImageFormatError as e:  # located: file:line[:col]: error: ...
        print(e, file=sys.stderr)
        return 1
    print("\n".join(disassemble_image(image)))
    return 0


if __name__ == "__main__":
    cli.run(main)
