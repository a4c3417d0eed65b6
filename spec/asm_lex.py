"""The assembler's errors and lexer: source text -> tokens, each with its column (docs/assembler.md).

Part of the assembler (spec/asm.py): every message carries file:line:col.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass

from . import cli


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------
def _unexpected(c: str) -> str:
    """The message for a character the syntax has no use for; invisible and non-ASCII ones by name."""
    if c == "\ufeff":
        return "a byte-order mark (U+FEFF) inside the text; delete it (an editor may show nothing there)"
    if c.isascii() and c.isprintable():
        return f"unexpected character {c!r}"
    name = unicodedata.name(c, "unnamed")
    return f"unexpected character U+{ord(c):04X} ({name}); the assembler reads ASCII source: retype it"


class AsmError(cli.InputError):
    """One assembly error at file:line:col (1-based)."""

    def __init__(self, file: str, line: int, col: int, message: str) -> None:
        super().__init__(message)
        self.file, self.line, self.col, self.message = file, line, col, message

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: error: {self.message}"


class AsmErrors(AsmError):
    """All errors of a file (first one first); its own location is that of the first error."""

    def __init__(self, errors: list[AsmError], suppressed: int = 0) -> None:
        first = errors[0]
        super().__init__(first.file, first.line, first.col, first.message)
        self.errors = errors
        self.suppressed = suppressed

    def __str__(self) -> str:
        lines = [AsmError.__str__(e) for e in self.errors]
        if self.suppressed:
            lines.append(f"{self.file}: {self.suppressed} more error(s) not shown; fix the ones above first")
        return "\n".join(lines)


class _Err(Exception):
    """An error inside the current statement (the assembler adds file and line)."""

    def __init__(self, col: int, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.col, self.message, self.line = col, message, line


class _Unknown(Exception):
    """A value that pass 1 cannot know yet (forward reference)."""


def _did_you_mean(word: str, candidates: list[str]) -> str:
    close = difflib.get_close_matches(word, candidates, n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


# ---------------------------------------------------------------------------------------------
# Lexer
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Tok:
    kind: str  # "id", "num" or "op"
    text: str
    col: int  # 1-based
    value: int = 0  # numeric value of "num" tokens

    @property
    def end(self) -> int:
        return self.col + len(self.text)


_IDENT = re.compile(r"[A-Za-z_.$][A-Za-z0-9_.$]*")
_NUMBER = re.compile(r"[0-9][0-9A-Za-z_.]*")
_REG = re.compile(r"[rR]([0-9]+)")
_PUNCT = set(",[]()+-*/%&|^~:")
_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34}


def _number(text: str, col: int) -> int:
    low = text.lower()
    base, digits = 10, low
    if len(low) > 1 and low[0] == "0" and low[1] in "xbo":
        base, digits = {"x": 16, "b": 2, "o": 8}[low[1]], low[2:]
    if digits and not digits.startswith("_") and "." not in digits:
        try:
            return int(digits, base)
        except ValueError:
            pass
    if "." in text and base == 10:
        raise _Err(col, f"bad numeric literal '{text}': only integers are supported")
    raise _Err(
        col,
        f"bad numeric literal '{text}': write decimal, 0x hex, 0b binary or 0o octal digits "
        "(single '_' separators allowed)",
    )


def _char(text: str, i: int) -> tuple[int, int]:
    """Parse the character literal opening at text[i]; return (value, index after it)."""
    col, n, j = i + 1, len(text), i + 1
    if j < n and text[j] == "\\":
        esc = text[j + 1] if j + 1 < n else ""
        if esc == "x" and (m := re.match(r"[0-9A-Fa-f]{1,2}", text[j + 2 :])):
            value, j = int(m.group(), 16), j + 2 + m.end()
        elif esc in _ESCAPES and esc:
            value, j = _ESCAPES[esc], j + 2
        else:
            raise _Err(
                j + 1,
                f"unknown escape '\\{esc}' in a character literal "
                "(use \\n \\t \\r \\0 \\\\ \\' \\\" or \\xNN)",
            )
    elif j < n and text[j] == "'":
        raise _Err(col, "empty character literal ''")
    elif j < n:
        value, j = ord(text[j]), j + 1
    else:
        value = 0
    if j >= n or text[j] != "'":
        raise _Err(col, "unterminated character literal: write one character between quotes, e.g. 'A'")
    return value, j + 1


def lex(text: str) -> list[Tok]:
    """The tokens of one source line (comments removed)."""
    toks: list[Tok] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
            continue
        if c in ";#" or text.startswith("//", i):
            break
        col = i + 1
        if c == "'":
            value, end = _char(text, i)
            toks.append(Tok("num", text[i:end], col, value))
            i = end
        elif m := _IDENT.match(text, i):
            toks.append(Tok("id", m.group(), col))
            i = m.end()
        elif m := _NUMBER.match(text, i):
            toks.append(Tok("num", m.group(), col, _number(m.group(), col)))
            i = m.end()
        elif text.startswith(("<<", ">>"), i):
            toks.append(Tok("op", text[i : i + 2], col))
            i += 2
        elif c in _PUNCT:
            toks.append(Tok("op", c, col))
            i += 1
        else:
            raise _Err(col, _unexpected(c))
    return toks
