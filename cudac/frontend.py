"""Front end: the C preprocessor (``gcc -E``), CUDA keywords, pycparser, and positions in the user's file.

``gcc -E`` keeps lines (through line markers) but not columns: it drops comments and squeezes blanks,
and a macro's expansion replaces its name. :class:`Positions` maps a column of the preprocessed text
back to the user's line by matching the two lines' tokens, so every message points into the file the
user wrote. The CUDA keywords become C storage classes of the same width after preprocessing (so a
macro may expand to them): ``__global__`` -> ``_Noreturn`` marks the kernel, ``__shared__`` ->
``register`` a shared array, ``__constant__`` -> ``auto`` a constant-memory array; ``__device__``,
``__forceinline__``, ``__host__`` vanish (every non-kernel function is inlined).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast, c_parser

from cudac.errors import CompileError

# CUDA spelling -> what pycparser sees (same width, so the columns of the rest of the line hold)
KEYWORDS = {
    "__global__": "_Noreturn ",
    "__shared__": "register  ",
    "__constant__": "auto        ",
    "__device__": "          ",
    "__host__": "        ",
    "__forceinline__": "               ",
    "__noinline__": "            ",
    "__restrict__": "            ",
}
# C keywords the substitution takes over: refused where the user writes them
RESERVED = {
    "_Noreturn": "'_Noreturn' is not supported: a kernel is declared __global__",
    "register": "'register' is not supported (the compiler allocates registers): drop it",
    "auto": "'auto' is not supported: drop it (locals are automatic)",
    "_Thread_local": "'_Thread_local' is not supported: use __shared__ for memory shared by a block",
}
PRELUDE = "typedef unsigned int uint32_t;\ntypedef int int32_t;\n"

_TOKEN = re.compile(
    r"""(?P<ws>\s+)|(?P<lc>//[^\n]*)|(?P<bc>/\*.*?\*/)|(?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
    |(?P<num>\.?\d(?:[eEpP][+-]|[\w.])*)|(?P<id>[A-Za-z_]\w*)
    |(?P<op>>>=|<<=|\.\.\.|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\#\#|.)""",
    re.S | re.X,
)


def tokens(text: str) -> list[tuple[int, int, str]]:
    """(line, col, text) of each C token of ``text`` (1-based), comments and blanks skipped."""
    out: list[tuple[int, int, str]] = []
    line, line_start = 1, 0
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind not in ("ws", "lc", "bc"):
            out.append((line, m.start() - line_start + 1, m.group()))
        nl = m.group().count("\n")
        if nl:
            line += nl
            line_start = m.start() + m.group().rindex("\n") + 1
    return out


@dataclass
class Positions:
    """Maps (file, preprocessed line, preprocessed column) to the column in the user's file."""

    pre_lines: dict[tuple[str, int], str] = field(default_factory=dict)
    _orig: dict[str, dict[int, list[tuple[int, str]]]] = field(default_factory=dict)

    def _orig_tokens(self, file: str, line: int) -> list[tuple[int, str]]:
        if file not in self._orig:
            by_line: dict[int, list[tuple[int, str]]] = {}
            try:
                text = Path(file).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            for ln, col, tok in tokens(text):
                by_line.setdefault(ln, []).append((col, tok))
            self._orig[file] = by_line
        return self._orig[file].get(line, [])

    def column(self, file: str, line: int, col: int) -> int:
        pre = self.pre_lines.get((file, line))
        if pre is None:
            return col
        ptoks = [(c, t) for _, c, t in tokens(pre)]
        otoks = self._orig_tokens(file, line)
        k = next((i for i, (c, t) in enumerate(ptoks) if c <= col < c + len(t)), None)
        if k is None:
            return col
        for i in range(k + 1):
            if i >= len(otoks) or otoks[i][1] != ptoks[i][1]:
                # a macro expanded before the token: match the rest of the line from its end instead
                tail = len(ptoks) - k
                if tail <= len(otoks) and [t for _, t in ptoks[k:]] == [
                    t for _, t in otoks[len(otoks) - tail :]
                ]:
                    return otoks[len(otoks) - tail][0]
                return otoks[i][0] if i < len(otoks) else col  # inside a macro's expansion: its name
        return otoks[k][0]


def _gcc() -> str:
    gcc = shutil.which("gcc")
    if gcc is None:
        raise CompileError("<gcc>", 0, 0, "gcc not found: the preprocessor is gcc -E; install gcc")
    return gcc


def preprocess(path: Path, defines: dict[str, str] | None = None) -> str:
    """``gcc -E`` of ``path`` (``#include "…"`` relative to its folder); errors keep gcc's location."""
    args = [_gcc(), "-E", "-x", "c", "-std=c11", "-undef", "-D__CUDACC__=1", "-D__CUDAC__=1"]
    args += [f"-D{k}={v}" for k, v in (defines or {}).items()]
    proc = subprocess.run([*args, str(path)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        first = next(
            (ln for ln in proc.stderr.splitlines() if ": error:" in ln or ": fatal error:" in ln), ""
        )
        m = re.match(r"(.*?):(\d+):(\d+): (?:fatal )?error: (.*)", first)
        if m:
            raise CompileError(m.group(1), int(m.group(2)), int(m.group(3)), f"preprocessor: {m.group(4)}")
        raise CompileError(str(path), 0, 0, f"preprocessor failed: {proc.stderr.strip()}")
    return proc.stdout


_MARKER = re.compile(r'^#\s*(\d+)\s+"((?:\\.|[^"])*)"')


def index_lines(pre: str) -> Positions:
    """The preprocessed text's lines by their (file, line) in the sources, from gcc's line markers."""
    pos = Positions()
    file, line = "<unknown>", 1
    for text in pre.split("\n"):
        m = _MARKER.match(text)
        if m:
            file, line = m.group(2), int(m.group(1))
            continue
        pos.pre_lines[(file, line)] = text
        line += 1
    return pos


def substitute_keywords(pre: str, positions: Positions) -> str:
    """Refuse the C keywords the CUDA ones stand for, then replace the CUDA keywords (same width)."""
    file, line = "<unknown>", 1
    out = []
    for text in pre.split("\n"):
        m = _MARKER.match(text)
        if m:
            file, line = m.group(2), int(m.group(1))
            out.append(text)
            continue
        for _, col, tok in tokens(text):
            if tok in RESERVED:
                raise CompileError(file, line, positions.column(file, line, col), RESERVED[tok])
        if "__" in text:
            text = re.sub(r"\b(" + "|".join(KEYWORDS) + r")\b", lambda mm: KEYWORDS[mm.group(1)], text)
        out.append(text)
        line += 1
    return "\n".join(out)


_PARSE_ERR = re.compile(r"^(.*?):(\d+):(\d+): (.*)$", re.S)


def parse(path: Path, defines: dict[str, str] | None = None) -> tuple[c_ast.FileAST, Positions]:
    """Preprocess and parse ``path``; a syntax error is a :class:`CompileError` at its place."""
    pre = preprocess(path, defines)
    positions = index_lines(pre)
    text = substitute_keywords(pre, positions)
    parser = c_parser.CParser()
    try:
        ast = parser.parse(PRELUDE + '# 1 "' + str(path) + '"\n' + text, filename="<prelude>")
    except c_parser.ParseError as exc:
        m = _PARSE_ERR.match(str(exc))
        if m:
            file, line, col, msg = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        else:  # pycparser names no place for some errors: the token it stopped at
            tok = parser._peek()  # noqa: SLF001
            coord = parser._tok_coord(tok) if tok is not None else None  # noqa: SLF001
            if coord is None:
                raise CompileError(str(path), 0, 0, f"syntax error: {exc}") from None
            file, line, col = coord.file, coord.line, coord.column
            msg = (
                "syntax error: "
                + str(exc).split(": ", 1)[-1].lower()
                + (f" at '{tok.value}'" if tok is not None else "")
            )
        msg = re.sub(r"^before: (.*)$", r"syntax error before '\1'", msg)
        raise CompileError(file, line, positions.column(file, line, col), msg) from None
    return ast, positions
