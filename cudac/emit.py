"""From allocated IR to assembly text for spec/asm.py, each instruction commented with its C line."""

from __future__ import annotations

from pathlib import Path

from cudac.ir import BRANCHES, LOADS, R3, RI, STORES, Ins
from cudac.spill import SpillInfo


def tidy(code: list[Ins]) -> list[Ins]:
    """Drop code after BRA/EXIT up to the next label, jumps to the next instruction, unused labels."""
    while True:
        out: list[Ins] = []
        dead = False
        for ins in code:
            if ins.is_label:
                dead = False
            if dead:
                continue
            out.append(ins)
            if ins.op in ("BRA", "EXIT"):
                dead = True
        # a jump whose target label follows it directly (labels only in between)
        keep: list[Ins] = []
        for i, ins in enumerate(out):
            if ins.op == "BRA" or ins.op in BRANCHES:
                j = i + 1
                labels = set()
                while j < len(out) and out[j].is_label:
                    labels.add(out[j].target)
                    j += 1
                if ins.target in labels:
                    continue
            keep.append(ins)
        used = {i.target for i in keep if not i.is_label and i.op in ("BRA", "SSY", *BRANCHES)}
        keep = [i for i in keep if not (i.is_label and i.target not in used)]
        if len(keep) == len(code):
            return keep
        code = keep


def _mem(base: int, off: int) -> str:
    if off == 0:
        return f"[r{base}]"
    return f"[r{base} + {off}]" if off > 0 else f"[r{base} - {-off}]"


def format_ins(ins: Ins) -> str:  # noqa: PLR0911
    op = ins.op
    s = [f"r{r}" for r in ins.srcs]
    d = f"r{ins.dst}" if ins.dst is not None else ""
    if op in R3:
        return f"{op} {d}, {s[0]}, {s[1]}"
    if op == "MAD":
        return f"MAD {d}, {s[0]}, {s[1]}, {s[2]}"
    if op in ("NOT", "MV"):
        return f"{op} {d}, {s[0]}"
    if op in RI:
        return f"{op} {d}, {s[0]}, {ins.imm}"
    if op in ("LI", "MVI", "LUI"):
        return f"{op} {d}, {ins.imm}"
    if op in LOADS:
        return f"{op} {d}, {_mem(ins.srcs[0], ins.imm or 0)}"
    if op in STORES:
        return f"{op} {_mem(ins.srcs[0], ins.imm or 0)}, {s[1]}"
    if op == "LDS":
        return f"LDS {d}, %{ins.target}"
    if op in BRANCHES:
        return f"{op} {s[0]}, {ins.target}"
    if op in ("BRA", "SSY"):
        return f"{op} {ins.target}"
    return op


class SourceText:
    def __init__(self) -> None:
        self._files: dict[str, list[str]] = {}

    def raw(self, file: str, line: int) -> str:
        if file not in self._files:
            try:
                self._files[file] = Path(file).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                self._files[file] = []
        lines = self._files[file]
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def line(self, file: str, line: int) -> str:
        return self.raw(file, line).strip()


def first_column(file: str, line: int) -> int:
    """The column of the first non-blank character of a source line (1 when unknown)."""
    text = SourceText().raw(file, line)
    return len(text) - len(text.lstrip()) + 1 if text.strip() else 1


def assembly(
    code: list[Ins],
    *,
    kernel: str,
    source: str,
    regs: int,
    params: list[str],
    shared_words: int,
    consts: list[int],
    spill: SpillInfo | None = None,
    threads: int = 32,
) -> str:
    src = SourceText()
    out = [f"; kernel {kernel}, compiled by cudac from {source} (docs/kernels-c.md)"]
    if spill is not None:
        out.append(
            f"; {spill.stored} values spill to shared memory ({spill.slots} words per thread from word "
            f"{spill.base}, .shared sized for {threads} threads), {spill.recomputed} are recomputed"
        )
    out.append(f".regs {regs}")
    if shared_words:
        out.append(f".shared {shared_words}")
    out += [f".param {p}, 0" for p in params]
    if consts:
        out.append(".const")
        for k in range(0, len(consts), 8):
            out.append("        .word " + ", ".join(f"0x{w:08x}" for w in consts[k : k + 8]))
        out.append(".text")
    base = Path(source).name
    for ins in code:
        if ins.is_label:
            out.append(f"{ins.target}:")
            continue
        text = format_ins(ins)
        file, line = ins.loc
        where = f"{Path(file).name if Path(file).name != base else base}:{line}"
        out.append(f"        {text:<28}; {where}: {src.line(file, line)}".rstrip())
    return "\n".join(out) + "\n"
