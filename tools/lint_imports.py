"""Layering check of the Python packages (``make lint``).

Two rules keep the project's layers apart:

- the specification package ``spec/`` (ISA, golden model, assembler, image rules, configurations and
  machines) imports nothing from ``tb``, ``kernels``, ``tools`` or ``ppa``: everything else is written
  against it, never the other way round;
- no module outside a ``tests`` folder imports from one: launchers and helpers that other code needs
  live in the harness (``tb/``), not in a test file.

Usage: ``python -m tools.lint_imports``; exit status 0 when clean, else one ``file:line: …`` per import.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

from spec import cli

ROOT = Path(__file__).resolve().parent.parent
SPEC = "spec"
NOT_FROM_SPEC = ("tb", "kernels", "tools", "ppa", "cudac")
PACKAGES = ("spec", "cudac", "tb", "kernels", "tools", "ppa")


def imported_modules(path: Path, root: Path = ROOT) -> Iterator[tuple[int, str]]:
    """(line, absolute module name) of each import in ``path``; relative imports are resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            yield node.lineno, name
            for alias in node.names:  # `from tb import tests` imports a test package too
                yield node.lineno, f"{name}.{alias.name}"


def _in_tests(name: str) -> bool:
    return "tests" in name.split(".")


def violations(root: Path = ROOT) -> list[str]:
    out: list[str] = []
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            rel = path.relative_to(root)
            in_spec = rel.parts[0] == SPEC
            in_tests = "tests" in rel.parts
            for line, name in imported_modules(path, root):
                top = name.split(".")[0]
                if in_spec and top in NOT_FROM_SPEC:
                    out.append(
                        f"{rel}:{line}: the spec package imports {name} (spec/ must not depend on {top}/)"
                    )
                elif not in_tests and top in PACKAGES and _in_tests(name):
                    out.append(
                        f"{rel}:{line}: imports the test module {name}; move what it needs into the harness (tb/)"
                    )
    return sorted(set(out))


def lint() -> int:
    found = violations()
    for v in found:
        print(v, file=sys.stderr)
    if found:
        print(f"lint_imports: {len(found)} layering violation(s)", file=sys.stderr)
    return 1 if found else 0


def main(argv: list[str] | None = None) -> int:
    """Check the layering of the Python packages (no arguments)."""
    cli.ArgumentParser(prog="python -m tools.lint_imports", description=main.__doc__).parse_args(argv)
    return lint()


if __name__ == "__main__":
    cli.run(main)
