"""The one command-line rule every entry point of the project follows (docs/cli.md):

- a bad argument, file or environment value ends in ONE line on stderr that says where the problem is
  and what to do, and exit code 2 — never a traceback (:class:`ArgumentParser`, :class:`UsageError`,
  :func:`entry`);
- an output is written atomically (a temporary file renamed into place) only onto a regular file (or
  a name not yet taken); a character device, FIFO or terminal is written *into*, never renamed over
  (:func:`write_output`);
- a closed pipe (``... | head``) ends the output quietly, exit 141 as a shell tool would (:func:`entry`).

The entry points wrap their ``main`` in :func:`entry`; ``tb/tests/tools/test_cli_rule.py`` finds every
entry point of the project and fails when one does not. Lives in ``spec`` because every layer (spec,
tb, kernels, tools, ppa) may import spec and spec imports nothing of theirs.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

EXIT_USAGE = 2
EXIT_PIPE = 141  # 128 + SIGPIPE: what a shell tool whose reader went away reports


class UsageError(Exception):
    """A bad argument, file or environment value: its message is the one line printed (exit 2)."""


class InputError(Exception):
    """Base of the project's bad-input errors (a launch, an image, a configuration, a source, a trace,
    the tools environment): one that reaches :func:`entry` uncaught is printed in one line, exit 2."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse, with usage errors in one line: ``prog: error: what (see: prog --help)``, exit 2."""

    def error(self, message: str) -> NoReturn:
        # printed and exited here (as argparse does), so a caller of main() without entry() gets it too
        print(f"{self.prog}: error: {message} (see: {self.prog} --help)", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def fail(message: str) -> int:
    """Print ``message`` (one line) on stderr; the exit code of a usage error."""
    print(message.splitlines()[0] if message else "error", file=sys.stderr)
    return EXIT_USAGE


def _quiet_stdout() -> None:
    """After a closed pipe: point stdout at /dev/null so the interpreter's final flush is silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def entry(main: Callable[..., int | None], argv: Sequence[str] | None = None) -> int:
    """Run an entry point's ``main`` under the rule: usage errors and unreadable files become one
    line and exit 2, a closed stdout pipe exit 141, Ctrl-C exit 130. Anything else is a bug and keeps
    its traceback (the property tests feed bad input and fail on any traceback)."""
    try:
        rc = main() if argv is None else main(list(argv))
        sys.stdout.flush()
        return int(rc or 0)
    except UsageError as err:
        return fail(str(err))
    except InputError as err:
        text = str(err).splitlines()[0] if str(err) else type(err).__name__
        return fail(text if "error:" in text else f"error: {text}")
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_PIPE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError) as err:
        where = err.filename if err.filename is not None else "file"
        return fail(f"{where}: error: {err.strerror or err}; check the path")


def run(main: Callable[..., int | None]) -> None:
    """``if __name__ == "__main__": cli.run(main)``: :func:`entry` then exit with its code."""
    sys.exit(entry(main))


# --------------------------------------------------------------------------- argument types


def positive_int(text: str) -> int:
    return int_range(1, None)(text)


def int_range(lo: int | None, hi: int | None) -> Callable[[str], int]:
    """An argparse type: an integer (decimal or 0x...) in [lo, hi], the range said on refusal."""

    def parse(text: str) -> int:
        try:
            value = int(text, 0)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            what = f">= {lo}" if hi is None else f"in {lo}..{hi}" if lo is not None else f"<= {hi}"
            raise argparse.ArgumentTypeError(f"{text} is out of range: need an integer {what}")
        return value

    parse.__name__ = "integer"
    return parse


def int_list(lo: int, hi: int) -> Callable[[str], list[int]]:
    """An argparse type: comma-separated integers, each in [lo, hi] (e.g. 3,17,42)."""
    one = int_range(lo, hi)

    def parse(text: str) -> list[int]:
        items = [t.strip() for t in text.split(",")]
        if not text.strip() or any(not t for t in items):
            raise argparse.ArgumentTypeError(f"{text!r}: write comma-separated integers, e.g. 3,17,42")
        return [one(t) for t in items]

    parse.__name__ = "integer list"
    return parse


def shard(text: str) -> tuple[int, int]:
    """An argparse type: ``I/N`` with 1 <= I <= N (this machine's share of a sharded run)."""
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: write I/N, e.g. 2/4") from None
    if not 1 <= i <= n:
        raise argparse.ArgumentTypeError(f"{text!r}: need 1 <= I <= N")
    return i, n


# --------------------------------------------------------------------------- outputs


# Names of a descriptor the caller already holds (``-o /dev/stdout >> build.log``): written into (appended
# to), since resolving them would name the log file itself and a rename would replace it.
_DESCRIPTOR_NAMES = ("/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/self/fd/", "/dev/tty")


def output_kind(path: str | Path) -> str:
    """'regular' (a regular file, or a name not taken yet), 'stream' (character device, FIFO, socket,
    or a name of an open descriptor such as /dev/stdout: written into, never replaced), 'directory'
    or 'other' (a block device: refused). Links are followed."""
    text = os.path.abspath(str(path))
    if text.startswith(_DESCRIPTOR_NAMES) or (text.startswith("/proc/") and "/fd/" in text):
        return "stream"
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "regular"
    if stat.S_ISREG(mode):
        return "regular"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return "stream"
    return "other"


def write_output(path: str | Path, text: str, what: str = "output") -> None:
    """Write ``text`` to the output ``path`` the safe way for what ``path`` is.

    A regular file (or a new name) is written next to its target and renamed into place, so a reader
    never sees a partial file and a failed run leaves the old one; a symbolic link is written through.
    A character device, FIFO, socket or descriptor name (``/dev/null``, ``/dev/stdout``, a named pipe,
    a terminal) is written into, in append mode: renaming over it would replace the special file with
    a regular one, and truncating ``/dev/stdout >> log`` would empty the log. A directory or a block
    device is refused with a :class:`UsageError`."""
    kind = output_kind(path)
    if kind == "stream":
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)
        return
    if kind != "regular":
        raise UsageError(
            f"{path}: error: cannot write the {what} here: it is a {kind}, not a file; name a file"
        )
    target = Path(os.path.realpath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        if output_kind(target) != "regular":  # it became a special file meanwhile: never rename over it
            raise UsageError(f"{path}: error: the {what} path became a {output_kind(target)} while writing")
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
