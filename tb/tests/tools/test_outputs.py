"""Outputs follow the CLI rule (spec/cli.py): atomic only onto regular files; a character device, FIFO,
terminal or descriptor name is written into and never replaced; a closed pipe ends quietly.

Nothing here can harm a system file: the special files are made in the test's temporary folder (a
FIFO, a character device node when the test may create one), and the one case that names the real
``/dev/null`` runs in-process with ``os.replace`` guarded so it could never rename over it.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from spec import asm, cli
from tb.tests.model.test_bad_inputs import run_cli

ROOT = Path(__file__).resolve().parents[3]
GOOD = "LDS r1, %tid\nEXIT\n"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    Path("k.s").write_text(GOOD)
    return tmp_path


def _image_text() -> str:
    return asm.assemble(GOOD, "k.s").image.to_hex()


def test_fifo_is_written_into_not_replaced(work: Path) -> None:
    os.mkfifo("pipe.hex")
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(Path("pipe.hex").read_text()))
    reader.start()
    rc, lines = run_cli(asm.main, ["k.s", "-o", "pipe.hex"])
    reader.join(timeout=10)
    assert rc == 0, lines
    assert stat.S_ISFIFO(os.stat("pipe.hex").st_mode), "the FIFO was replaced by a regular file"
    assert got == [_image_text()]


def test_character_device_node_is_written_into(work: Path) -> None:
    try:  # a null device node of our own, in the temporary folder (needs CAP_MKNOD)
        os.mknod("null.hex", stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError) as err:
        pytest.skip(
            f"cannot create a device node here ({err}); test_dev_null_is_never_renamed_over covers it"
        )
    assert run_cli(asm.main, ["k.s", "-o", "null.hex"])[0] == 0
    assert stat.S_ISCHR(os.stat("null.hex").st_mode), "the device node was replaced by a regular file"


def test_dev_null_is_never_renamed_over(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    renamed: list[str] = []
    real_replace = os.replace

    def guarded(src: str, dst: str) -> None:  # only ever inside the temporary folder
        renamed.append(str(dst))
        assert str(Path(dst).resolve()).startswith(str(work)), f"rename over {dst}"
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", guarded)
    for path in ("/dev/null", "/dev/stdout"):
        assert cli.output_kind(path) == "stream"
    assert run_cli(asm.main, ["k.s", "-o", "/dev/null"])[0] == 0
    assert renamed == [] and stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert run_cli(asm.main, ["k.s", "-o", "k.hex"])[0] == 0 and renamed == [str(work / "k.hex")]


def test_dev_stdout_appended_to_a_log_keeps_the_log(work: Path) -> None:
    Path("build.log").write_text("earlier log line\n")
    cmd = f"'{sys.executable}' -m spec.asm k.s -o /dev/stdout >> build.log"
    proc = subprocess.run(
        ["sh", "-c", cmd], env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert Path("build.log").read_text() == "earlier log line\n" + _image_text()


@pytest.mark.parametrize("target", ["dir", "/dev/loop0"])
def test_directory_or_block_device_is_refused(work: Path, target: str) -> None:
    if target == "dir":
        Path("dir").mkdir()
    elif not (Path(target).exists() and stat.S_ISBLK(os.stat(target).st_mode)):
        pytest.skip(f"{target} is not a block device here")
    rc, lines = run_cli(asm.main, ["k.s", "-o", target])
    assert rc == 2 and lines and target in lines[0] and "error" in lines[0]


def _head_one_line(cmd: list[str], cwd: Path) -> tuple[int, str]:
    """Run ``cmd | head -1``: read one line, close the pipe; (exit code, stderr)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    return proc.wait(timeout=60), err


def test_closed_pipe_ends_quietly(work: Path) -> None:
    body = "".join(f"ADDI r{1 + i % 30}, r1, {i}\n" for i in range(6000)) + "EXIT\n"
    Path("big.s").write_text(body)
    assert run_cli(asm.main, ["big.s", "-o", "big.hex"])[0] == 0
    for cmd in (
        [sys.executable, "-m", "spec.asm", "big.s", "--listing"],
        [sys.executable, "-m", "spec.disasm", "big.hex"],
    ):
        rc, err = _head_one_line(cmd, work)
        assert rc in (0, cli.EXIT_PIPE) and "Traceback" not in err and "BrokenPipe" not in err, (cmd, rc, err)
