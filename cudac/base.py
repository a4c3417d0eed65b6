"""The lowering's common state and emission helpers: what every part of the lowering (statements,
control flow, expressions, memory, division) builds on.

:class:`LowerBase` holds the IR being built (``code``, ``prologue``), virtual registers and labels,
the scopes, the region stack and the divergence analyses; the parts are mixins over it, combined in
:class:`cudac.lower.Lowerer`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from cudac.errors import CompileError
from cudac.frontend import Positions
from cudac.ir import Ins
from cudac.types import INT, MASK, Array, CType, Val, Var
from cudac.uniform import Analysis, Analyzer

SREG_BARE = {"threadIdx", "blockIdx", "blockDim", "gridDim"}


@dataclass
class Region:
    """An entry of the lowering's region stack: an SSY region (``join`` is its reconvergence point),
    a loop (break/continue targets) or an inlined function (return target)."""

    kind: str
    join: str = ""
    cont: str = ""
    flags: dict[str, int] = field(default_factory=dict)  # "break"/"continue"/"return" -> flag vreg
    checks: list[tuple[int, str]] = field(default_factory=list)  # after join: BNE flag, target
    ret: int | None = None
    ret_type: CType | None = None


class LowerBase:
    def __init__(self, file: str, positions: Positions, funcs: dict[str, c_ast.FuncDef], fault: str) -> None:
        self.file, self.positions, self.funcs, self.fault = file, positions, funcs, fault
        self.analyzer = Analyzer(funcs, fault)
        self.code: list[Ins] = []
        self.prologue: list[Ins] = []
        self.nreg = 0
        self.nlabel = 0
        self.scopes: list[dict[str, Var | Array]] = [{}]
        self.regions: list[Region] = []
        self.analyses: list[Analysis] = []
        self.ctl: list[tuple[c_ast.Node, bool]] = []  # enclosing constructs (for __syncthreads)
        self.loc: tuple[str, int] = (file, 0)
        self.sregs: dict[str, int] = {}
        self.inlining: list[str] = []
        self.params: list[tuple[str, CType]] = []
        self.shared_words = 0
        self.consts: list[int] = []

    # -- infrastructure -------------------------------------------------------------------------
    def err(self, node: c_ast.Node | None, msg: str) -> CompileError:
        coord = getattr(node, "coord", None)
        if coord is None or coord.line is None:
            return CompileError(self.file, self.loc[1], 0, msg)
        col = self.positions.column(coord.file, coord.line, coord.column or 1)
        return CompileError(coord.file, coord.line, col, msg)

    def at(self, node: c_ast.Node) -> None:
        coord = getattr(node, "coord", None)
        if coord is not None and coord.line:
            self.loc = (coord.file, coord.line)

    def emit(self, op: str, dst=None, srcs=(), imm=None, target=None) -> None:  # type: ignore[no-untyped-def]
        self.code.append(Ins(op, dst, tuple(srcs), imm, target, self.loc))

    def vreg(self) -> int:
        self.nreg += 1
        return self.nreg

    def label(self, hint: str) -> str:
        self.nlabel += 1
        return f"{hint}{self.nlabel}"

    def place(self, label: str) -> None:
        self.code.append(Ins("LABEL", target=label, loc=self.loc))

    def sreg(self, name: str) -> int:
        if name not in self.sregs:
            self.sregs[name] = r = self.vreg()
            self.prologue.append(Ins("LDS", r, target=name, loc=self.loc))
        return self.sregs[name]

    def lookup(self, name: str, node: c_ast.Node) -> Var | Array:
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        if name in SREG_BARE:
            raise self.err(node, f"'{name}' needs a field: {name}.x, {name}.y or {name}.z")
        raise self.err(node, f"'{name}' is not declared")

    def declare(self, name: str, sym: Var | Array, node: c_ast.Node) -> None:
        if name in self.scopes[-1]:
            raise self.err(node, f"'{name}' is declared twice in the same scope")
        self.scopes[-1][name] = sym

    @property
    def analysis(self) -> Analysis:
        return self.analyses[-1]

    def varying(self, node: c_ast.Node) -> bool:
        return self.analysis.node_varying.get(id(node), True)

    # -- values ---------------------------------------------------------------------------------
    def reg_of(self, v: Val) -> int:
        """A register holding ``v`` (constants materialised with LI)."""
        if v.reg is not None:
            return v.reg
        r = self.vreg()
        self.emit("LI", r, imm=v.signed_const())
        return r

    def const(self, value: int, ctype: CType = INT) -> Val:
        return Val(ctype, const=value & MASK)

    def set_reg(self, r: int, v: Val) -> None:
        if v.is_const:
            self.emit("LI", r, imm=v.signed_const())
        elif v.reg != r:
            self.emit("MV", r, (v.reg,))
