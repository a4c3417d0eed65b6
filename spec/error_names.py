"""The spec's names for the GPU's ERR_KIND values (docs/isa.md section 7, docs/gpu.md launch errors)."""

from __future__ import annotations

from .model import ERROR_CODES

KERNEL_ERRORS = {code: kind for kind, code in ERROR_CODES.items()}
LAUNCH_ERRORS = {0x10: "bad image", 0x11: "block cannot fit one SM", 0x12: "program or constants too large",
                 0x13: "START with no image loaded"}  # fmt: skip


def error_kind_name(kind: int) -> str:
    """``GLOBAL_OUT_OF_RANGE (global address out of range)`` for 7, ``launch error 0x10 (bad image)``..."""
    if kind in KERNEL_ERRORS:
        return f"{KERNEL_ERRORS[kind].name} ({KERNEL_ERRORS[kind].value})"
    if kind in LAUNCH_ERRORS:
        return f"launch error 0x{kind:02x} ({LAUNCH_ERRORS[kind]})"
    return f"unknown error kind {kind}" if kind else "no error"
