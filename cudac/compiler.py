"""The compiler's entry points: C source file -> assembly text -> launch image (spec/asm.py)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pycparser import c_ast

from cudac import emit, frontend, regalloc
from cudac.errors import CompileError
from cudac.lower import Lowerer
from cudac.spill import SpillError, SpillInfo, allocate_with_spills
from cudac.types import Ptr
from spec.asm import AsmError, Program, assemble

MAX_REGS = 32
THREADS = 32  # threads per block the spill area is sized for when the caller does not say


@dataclass
class Compiled:
    """A compiled kernel: its name, parameter names (in order; pointers marked), the assembly and the
    assembled program (``program.image`` is the launch image with default launch shape). ``spill`` is
    the per-thread spill area in shared memory (None when every value fits a register); its
    ``.shared`` covers ``threads`` threads per block: a bigger block needs ``shared_words(threads)``."""

    kernel: str
    params: list[str]
    pointer_params: list[str]
    asm: str
    program: Program
    regs: int
    spill: SpillInfo | None = None
    array_words: int = 0  # the __shared__ arrays' words (the spill area starts here)

    def shared_words(self, threads: int) -> int:
        """Shared words per block for a launch of ``threads`` threads per block."""
        return self.array_words + (self.spill.words(threads) if self.spill else 0)


def _fault() -> str:
    return os.environ.get("CUDAC_FAULT", "")


def compile_file(
    path: str | Path,
    *,
    kernel: str | None = None,
    max_regs: int = MAX_REGS,
    fault: str | None = None,
    threads: int = THREADS,
) -> Compiled:
    """Compile the ``__global__`` function ``kernel`` (the only one when None) of the CUDA-C file.
    ``threads`` (threads per block) sizes ``.shared`` when values spill to shared memory."""
    path = Path(path)
    if not path.is_file():
        raise CompileError(str(path), 0, 0, "no such file")
    ast, positions = frontend.parse(path)
    file = str(path)
    funcs: dict[str, c_ast.FuncDef] = {}
    kernels: list[c_ast.FuncDef] = []
    low = Lowerer(file, positions, funcs, fault if fault is not None else _fault())
    pending_consts: list[c_ast.Decl] = []
    for node in ast.ext:
        if isinstance(node, c_ast.FuncDef):
            name = node.decl.name
            if name in funcs:
                raise low.err(node.decl, f"function '{name}' is defined twice")
            funcs[name] = node
            if "_Noreturn" in node.decl.funcspec:
                kernels.append(node)
        elif isinstance(node, c_ast.Decl):
            if isinstance(node.type, c_ast.FuncDecl):
                continue  # a prototype
            if node.name is None:
                kind = type(node.type).__name__.lower()
                raise low.err(node, f"{kind} types are not supported: use int, unsigned and arrays of them")
            if "auto" in node.storage:
                pending_consts.append(node)
            elif "register" in node.storage:
                low.shared_decl(node)
            else:
                raise low.err(
                    node,
                    f"global variable '{node.name}': declare it __shared__ or __constant__, or pass a pointer parameter",
                )
        elif isinstance(node, c_ast.Typedef):
            if node.coord is not None and node.coord.file == "<prelude>":
                continue
            raise low.err(node, "typedef is not supported: write int or unsigned")
        elif isinstance(node, c_ast.Pragma):
            continue
    for d in pending_consts:
        low.const_decl(d)
    if kernel is not None:
        kernels = [k for k in kernels if k.decl.name == kernel]
        if not kernels:
            raise CompileError(file, 1, 1, f"no __global__ function named '{kernel}'")
    if not kernels:
        raise CompileError(
            file, 1, 1, "no __global__ function: declare the kernel as __global__ void name(...)"
        )
    if len(kernels) > 1:
        k = kernels[1]
        raise low.err(
            k.decl,
            f"more than one __global__ function ({kernels[0].decl.name}, {k.decl.name}): name one with kernel=",
        )
    fdef = kernels[0]
    del funcs[fdef.decl.name]
    low.kernel(fdef)
    code = low.prologue + low.code
    spill: SpillInfo | None = None
    try:
        code, regs = regalloc.allocate(code, max_regs)
    except regalloc.AllocError:
        try:
            code, regs, spill = allocate_with_spills(code, max_regs, low.shared_words, low.fault)
        except SpillError as exc:
            f, line = exc.loc
            raise CompileError(
                f or file,
                line,
                emit.first_column(f or file, line),
                f"kernel '{fdef.decl.name}' does not fit {exc.budget} register{'s' if exc.budget != 1 else ''} "
                "even with spilling: this "
                "line needs its operands and the spill area's address in registers at once; give it more "
                "registers (--regs, max_regs)",
            ) from None
    code = emit.tidy(code)
    params = [n for n, _ in low.params]
    text = emit.assembly(
        code,
        kernel=fdef.decl.name,
        source=file,
        regs=regs,
        params=params,
        shared_words=low.shared_words + (spill.words(threads) if spill else 0),
        consts=low.consts,
        spill=spill,
        threads=threads,
    )
    try:
        program = assemble(text, f"{path.stem}.s")
    except AsmError as exc:  # a compiler bug: say so, with the assembly
        raise CompileError(
            file, 0, 0, f"internal error: the assembler refused the compiled code: {exc}"
        ) from None
    return Compiled(
        fdef.decl.name,
        params,
        [n for n, t in low.params if isinstance(t, Ptr)],
        text,
        program,
        regs,
        spill,
        low.shared_words,
    )


def compile_source(text: str, name: str = "kernel.cu", **kw: object) -> Compiled:
    """Compile C source text (written to a temporary file so the preprocessor can see it)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="cudac-") as tmp:
        p = Path(tmp) / name
        p.write_text(text)
        try:
            return compile_file(p, **kw)  # type: ignore[arg-type]
        except CompileError as exc:
            if exc.file == str(p):
                exc.file = name
            raise
