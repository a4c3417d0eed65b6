"""The compiler's one error type: a message located at file:line:col of the user's source."""

from __future__ import annotations


class CompileError(Exception):
    """``file:line:col: error: message``; ``line``/``col`` are 1-based (0 when unknown)."""

    def __init__(self, file: str, line: int, col: int, message: str) -> None:
        super().__init__(message)
        self.file, self.line, self.col, self.message = file, line, col, message

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: error: {self.message}"
