"""The bad-input corpus (tb/tests/model/corpus/): every malformed source, image and .hex file gets its
clear, located message, checked word for word so a regression of the message fails.

- ``asm.toml``: assembler sources -> the first line ``python -m spec.asm k.s -o k.hex`` prints
  (``k.s:line:col: error: ...``, exit 1, no output written; or a warning, exit 0);
- ``images.toml``: launch-image word streams -> ``image_rules.check_words`` rule, word index, message
  (the loader's unit bench feeds the same streams to the RTL: tb/tests/unit/test_loader.py);
- ``hex.toml``: ``.hex`` files -> the first line ``python -m spec.disasm k.hex`` prints (exit 1);
- below: generated sources (huge expressions, non-UTF-8 bytes) and ``LaunchImage`` fields that no
  stream can carry (None, values over 32 bits, overlapping DATA), refused by the model too.
Command lines (``-o``, ``SEED``, ``SIM``, a missing compiler) are in test_bad_cli.py.
"""

from __future__ import annotations

import contextlib
import io
import tomllib
from pathlib import Path
from typing import Any

import pytest

from spec import asm, cli, disasm, isa
from spec.config import GpuConfig
from spec.image import ImageFormatError, LaunchError, LaunchImage
from spec.image_rules import Rule, check_words
from spec.model import Model

CORPUS = Path(__file__).parent / "corpus"


def load(name: str) -> list[dict[str, Any]]:
    return tomllib.loads((CORPUS / name).read_text())["case"]


def words_of(case: dict[str, Any]) -> list[int]:
    out: list[int] = []
    for w in case["words"]:
        out.extend([w[0]] * w[1] if isinstance(w, list) else [w])
    return out


def run_cli(main: Any, argv: list[str]) -> tuple[int, list[str]]:
    """``main(argv)`` under the CLI rule (spec/cli.py entry): the exit code and the stderr lines."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            rc = cli.entry(main, argv)
        except SystemExit as e:  # a parser outside the rule's (argparse's own usage errors)
            rc = int(e.code or 0)
    return rc, err.getvalue().splitlines()


ASM = load("asm.toml")
IMAGES = load("images.toml")
HEX = load("hex.toml")


@pytest.mark.parametrize("case", ASM, ids=[c["name"] for c in ASM])
def test_asm_corpus(case: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("k.s").write_text(case["source"])
    rc, lines = run_cli(asm.main, ["k.s", "-o", "k.hex"])
    assert lines and lines[0] == case["expect"], f"{case['name']}: got {lines[:1]}"
    if case.get("kind") == "warning":
        assert rc == 0 and Path("k.hex").exists()
    else:
        assert rc == 1 and not Path("k.hex").exists(), f"{case['name']}: exit {rc}, an image written"


# (name, source bytes, the first line printed) — sources too big or too odd for the TOML file
GENERATED = [
    ("expression-50000-terms", ("LI r1, " + "+".join(["1"] * 50_000) + "\nEXIT\n").encode(),
     f"k.s:1:521: error: expression with more than {asm.MAX_OPERATORS} operators; split it into .equ steps"),
    ("parens-5000-deep", ("LI r1, " + "(" * 5000 + "1" + ")" * 5000 + "\nEXIT\n").encode(),
     f"k.s:1:40: error: expression nested more than {asm.MAX_NESTING} levels deep (parentheses, unary "
     "operators, hi/lo); split it into .equ steps"),
    ("unary-minus-5000", ("LI r1, " + "-" * 5000 + "1\nEXIT\n").encode(),
     f"k.s:1:40: error: expression nested more than {asm.MAX_NESTING} levels deep"),
    ("equ-chain-3000", ("\n".join(f".equ A{i}, A{i + 1} + 1" for i in range(3000)) + "\n.equ A3000, 1\n"
                        "LI r1, A0\nEXIT\n").encode(),
     "error: definitions nested too deeply to evaluate"),
    ("non-utf8-source", b"; kernel\nADD r1, r2, r3 ; caf\xe9\nEXIT\n",
     "k.s:2:21: error: byte 0xe9 (file offset 29) is not UTF-8 text; save the source as UTF-8"),
    ("utf16-source", "EXIT\n".encode("utf-16"),
     "k.s:1:1: error: byte 0xff (file offset 0) is not UTF-8 text; save the source as UTF-8"),
]  # fmt: skip


@pytest.mark.parametrize("name,source,expect", GENERATED, ids=[g[0] for g in GENERATED])
def test_generated_sources(
    name: str, source: bytes, expect: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("k.s").write_bytes(source)
    rc, lines = run_cli(asm.main, ["k.s", "-o", "k.hex"])
    assert rc == 1 and lines and expect in lines[0], f"{name}: exit {rc}, {lines[:1]}"
    assert not Path("k.hex").exists()


@pytest.mark.parametrize("case", IMAGES, ids=[c["name"] for c in IMAGES])
def test_image_corpus(case: dict[str, Any]) -> None:
    words = words_of(case)
    verdict = check_words(words, GpuConfig())
    assert verdict.rule is not None and verdict.rule.name == case["rule"], verdict.message
    assert verdict.index == case["index"], verdict.message
    assert verdict.message.startswith(case["expect"]), verdict.message
    # The reader refuses every stream whose fault does not depend on the machine, with the same text.
    fmt_only = check_words(words)
    if not fmt_only.ok:
        with pytest.raises(ImageFormatError) as exc:
            LaunchImage.from_words(words)
        assert str(exc.value) == fmt_only.message


def test_image_corpus_covers_every_rule() -> None:
    """Each rule the loader reports, and each Python-only rule but NOT_A_WORD's None, has a case."""
    assert {Rule[c["rule"]] for c in IMAGES} == set(Rule)


@pytest.mark.parametrize("case", HEX, ids=[c["name"] for c in HEX])
def test_hex_corpus(case: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    raw = bytes.fromhex(case["bytes"]) if "bytes" in case else case["text"].encode()
    Path("k.hex").write_bytes(raw)
    rc, lines = run_cli(disasm.main, ["k.hex"])
    assert rc == 1 and lines and lines[0] == case["expect"], f"{case['name']}: exit {rc}, {lines[:1]}"


EXIT = isa.encode("EXIT")
# LaunchImage fields no word stream can hold: refused by check() and by the model, never truncated.
FIELDS = [
    ("none-in-grid", {"grid": (1, None, 1)}, "grid dimensions (1, None, 1) must be three integers"),
    ("grid-two-values", {"grid": (4, 1)}, "grid dimensions (4, 1) must be three integers"),
    ("code-word-33-bits", {"code": [EXIT, 1 << 32]}, "code[1] = 0x100000000 is not a 32-bit word"),
    ("param-2-to-40", {"params": [1 << 40]}, "params[0] = 0x10000000000 is not a 32-bit word"),
    ("negative-param", {"params": [-1]}, "params[0] = -1 is not a 32-bit word"),
    ("const-float", {"consts": [1.5]}, "consts[0] = 1.5 is not a 32-bit word"),
    ("data-word-too-wide", {"data": [(0, [1 << 33])]}, "data[0] words[0] = 0x200000000 is not a 32-bit word"),
    ("data-base-negative", {"data": [(-4, [1])]}, "data[0] base -4 is not a 32-bit address"),
    ("data-overlap", {"data": [(10, [1, 2, 3]), (12, [4])]},
     "data at global [12, 13) overlaps data ending at 13 of the previous DATA record (DATA records must not overlap)"),
    ("data-overlap-reversed", {"data": [(12, [4]), (10, [1, 2, 3])]},
     "data at global [12, 13) overlaps data ending at 13"),
    ("regs-none", {"regs": None}, "registers per thread None is not a 32-bit word"),
    ("grid-zero", {"grid": (0, 1, 1)}, "grid dimensions: x = 0 outside 1..65535"),
    ("shared-too-big", {"shared_words": 1 << 20}, "shared words per block 1048576 exceed the SM's 1024"),
]  # fmt: skip


@pytest.mark.parametrize("name,fields,expect", FIELDS, ids=[f[0] for f in FIELDS])
def test_launch_image_fields(name: str, fields: dict[str, Any], expect: str) -> None:
    image = LaunchImage(**({"code": [EXIT]} | fields))
    with pytest.raises(LaunchError) as exc:
        image.check(GpuConfig())
    assert expect in str(exc.value), str(exc.value)
    with pytest.raises(LaunchError):
        Model(GpuConfig(), image)


def corpus_counts() -> dict[str, int]:
    """The bad-input corpus by category: every case is a bad input with the message it must get."""
    from tb.tests.tools import test_bad_cli, test_cli_rule, test_envvars, test_outputs

    return {
        "assembler sources": len(ASM) + len(GENERATED),
        "launch-image word streams": len(IMAGES),
        ".hex files": len(HEX),
        "launch-image fields": len(FIELDS),
        "assembler/disassembler command lines": len(test_bad_cli.ASM_LINES) + len(test_bad_cli.DISASM_LINES),
        "command lines of every entry point": len(test_cli_rule.CASES),
        "environment variables": len(test_envvars.BAD) + len(test_bad_cli.ENVIRONMENTS),
        "illegal machine parameters": len(test_bad_cli.PARAMETERS),
        # a FIFO, a device node, /dev/null, /dev/stdout >> log, a directory, a block device, a closed pipe
        "special output files and pipes": sum(n.startswith("test_") for n in dir(test_outputs)) + 1,
    }


def test_corpus_size() -> None:
    """Issue 20 asked for at least 100 malformed inputs with their messages, issue 26 for 250."""
    counts = corpus_counts()
    assert sum(counts.values()) >= 250, counts
