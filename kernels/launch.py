"""The one launch-image builder: assemble a kernel and fill in its launch.

The directed library (kernels/directed), the random-kernel generator (tb/sequences/random_kernel.py)
and the benchmark suite (kernels/suite.py) all build their launch images here: assemble the source
(errors located at file:line:col), then override what the harness decides (grid, block, shared
words, registers), set the parameters (by ``.param`` name or by position) and place the input data
as DATA records. With a machine given, the image is checked against it, and a refusal names the
kernel (and the size, when the caller gives one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from spec.asm import Program, assemble, read_source
from spec.config import GpuConfig
from spec.image import LaunchError, LaunchImage

Dim3 = tuple[int, int, int]


def assemble_kernel(source: str | Path, name: str | None = None) -> Program:
    """Assemble kernel text (``name`` is its file name in messages) or a ``.s`` file."""
    if isinstance(source, Path):
        return assemble(read_source(source), str(source))
    return assemble(source, name or "<string>")


def set_params(prog: Program, values: Mapping[str, int], where: str) -> list[int]:
    """The parameter list with each named ``.param`` of ``prog`` set from ``values``; every name in
    ``values`` must be declared and every declared name given (``where`` names the caller's files)."""
    unknown = set(values) - set(prog.param_names)
    if unknown:
        raise LaunchError(f"{where}: sets {sorted(unknown)}, which the kernel does not declare with .param")
    missing = set(prog.param_names) - set(values)
    if missing:
        raise LaunchError(f"{where}: the kernel declares .param {sorted(missing)}; no value is given")
    params = list(prog.image.params)
    for pname, index in prog.param_names.items():
        params[index] = int(values[pname]) & 0xFFFFFFFF
    return params


def build(
    source: str | Path | Program,
    name: str,
    *,
    grid: Dim3 | None = None,
    block: Dim3 | None = None,
    shared_words: int | None = None,
    regs: int | None = None,
    params: Mapping[str, int] | Sequence[int] | None = None,
    data: Sequence[tuple[int, Sequence[int]]] | None = None,
    cfg: GpuConfig | None = None,
    size: int | None = None,
) -> LaunchImage:
    """The launch image of kernel ``name``: ``source`` assembled (or an assembled ``Program``), with
    each given field overriding what the source's directives set. ``params`` by ``.param`` name (a
    mapping) or by position (a sequence). With ``cfg`` the image is checked against that machine."""
    prog = source if isinstance(source, Program) else assemble_kernel(source, f"{name}.s")
    image = prog.image
    if grid is not None:
        image.grid = tuple(grid)  # type: ignore[assignment]
    if block is not None:
        image.block = tuple(block)  # type: ignore[assignment]
    if shared_words is not None:
        image.shared_words = shared_words
    if regs is not None:
        image.regs = regs
    label = f"kernel {name}" + (f" size {size}" if size is not None else "")
    if isinstance(params, Mapping):
        image.params = set_params(prog, params, label)
    elif params is not None:
        image.params = [int(p) for p in params]
    if data is not None:
        image.data = [(int(base), [int(w) for w in words]) for base, words in data]
    if cfg is not None:
        try:
            image.check(cfg)
        except LaunchError as exc:
            raise LaunchError(f"{label}: {exc}") from None
    return image
