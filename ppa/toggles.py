"""Toggle activity of the RTL per launch (Verilator toggle coverage of the raw bench), per SM unit.

The energy model's reference (ppa/energy.py): Verilator ``--coverage-toggle`` counts, for every bit of
every signal up to ``MAX_WIDTH`` bits, its 0->1 and 1->0 transitions over a run. One launch of an image
on the raw bench (tools/bench/raw_bench.py's Verilog wrapper, no Python in the loop) built with toggle
coverage gives per SM module (simt_alu, simt_regfile, ...) the sum of its bits' toggles. The reference
energy of the run is then Σ_unit toggles(unit) x weight(unit), weight = the unit's synthesised area /
its instrumented bits: the mean area (capacitance proxy) behind one toggling bit of that unit, in
µm² per toggle (ppa/energy.py toggle_energy). Modules outside the SM (the GPU top, the test wrapper and
its HDL memory) are not counted. Not counted either, by Verilator: memories (unpacked arrays: their
ports' signals are counted instead) and signals wider than MAX_WIDTH.

Verilator 5.048's runtime miscounts toggles of signals wider than 64 bits: ``VL_COV_TOGGLE_CHG_ST_W``
(include/verilated_cov.h) walks ``width - 32 i`` bits of 32-bit word i instead of at most 32, so the
changes of word i are also added to every later word's bits (word k of a signal counts k + 1 times
what it toggled; measured: simt_sm's 1,024-bit result buffer reported 16x its real toggles). Every
toggle build here compiles against a corrected copy of that header (``_corrected_cov_header``, placed
in the build folder, which the generated C++ includes first); before any energy run uses it, a
128-bit signal whose four words toggle equally is built the same way and ``check_counting`` refuses
the counts unless the four words agree (tb/tests/ppa/test_ppa_toggles.py shows it refusing the
uncorrected build).

Cached in build/ppa/toggles/<config>-<key>/<image hash>.json.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spec.config import GpuConfig  # noqa: E402
from tools import simenv  # noqa: E402

BUILD = ROOT / "build" / "ppa" / "toggles"
MAX_WIDTH = 2048
# Every module of rtl/sm (the SM is split into stage modules: a fixed list silently dropped the toggles of
# modules added later from the energy reference).
SM_MODULES = tuple(sorted(p.stem for p in (ROOT / "rtl" / "sm").glob("simt_*.v")))
_LINE = re.compile(r"raw: status=(\w+) cycles=(\d+) warp_instrs=(\d+) sim_cycles=(\d+)")


def _sources() -> list[str]:
    from tools.bench.raw_bench import _sources as raw_sources

    return raw_sources()


_COV_BUG = "for (int j = 0; j < width - i * VL_EDATASIZE; ++j)"
_COV_FIX = "for (int j = 0; j < VL_EDATASIZE && j < width - i * VL_EDATASIZE; ++j)"
_CHECK_V = """module toggle_count_check;
  reg clk = 1'b0;
  reg [127:0] w = 128'd0;
  reg [1:0] row = 2'd0;
  integer cyc = 0;
  always #5 clk = ~clk;
  always @(posedge clk) begin  // one 32-bit word of w inverted per cycle, in turn: all four toggle alike
    cyc <= cyc + 1;
    row <= row + 1'b1;
    w[row*32 +: 32] <= ~w[row*32 +: 32];
    if (cyc == 99) $finish;
  end
endmodule
"""


def _corrected_cov_header(folder: Path) -> None:
    """Write verilated_cov.h with the wide-signal toggle loop bounded to one word into *folder* (the
    Verilator build folder: the generated C++ includes it from there before Verilator's own)."""
    out = subprocess.run(
        ["verilator", "--getenv", "VERILATOR_ROOT"], capture_output=True, text=True, check=True
    )
    text = (Path(out.stdout.strip()) / "include" / "verilated_cov.h").read_text()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "verilated_cov.h").write_text(text.replace(_COV_BUG, _COV_FIX))


def count_check_words(work: Path, corrected: bool = True) -> list[int]:
    """Toggles per 32-bit word of a 128-bit signal whose four words toggle equally (``_CHECK_V``), built
    in *work* with (or, to show the miscount, without) the corrected header."""
    simenv.apply(["verilator"])
    shutil.rmtree(work, ignore_errors=True)
    (work / "obj").mkdir(parents=True)
    if corrected:
        _corrected_cov_header(work / "obj")
    (work / "check.v").write_text(_CHECK_V)
    subprocess.run(["verilator", "--binary", "--timing", "--coverage-toggle", "-Wno-fatal", "-Wno-lint",
                    "--top-module", "toggle_count_check", "-Mdir", "obj", "-MAKEFLAGS", "OPT_FAST=-O0 OPT_GLOBAL=-O0",
                    "check.v"],
                   cwd=work, check=True, capture_output=True, text=True)  # fmt: skip
    subprocess.run(["obj/Vtoggle_count_check", "+verilator+coverage+file+check.dat"], cwd=work, check=True,
                   capture_output=True, text=True)  # fmt: skip
    words = [0, 0, 0, 0]
    for line in (work / "check.dat").read_text(encoding="latin-1").splitlines():
        m = re.search(r"\x02w\[(\d+)\]:.*' (\d+)$", line)
        if m:
            words[int(m.group(1)) // 32] += int(m.group(2))
    return words


def check_counting(words: list[int]) -> None:
    """Refuse toggle counts of the check design unless its four words counted the same, non-zero toggles
    (the uncorrected Verilator 5.048 counts 1x, 2x, 3x, 4x)."""
    if min(words) == 0 or len(set(words)) != 1:
        raise RuntimeError(
            f"Verilator toggle coverage miscounts a 128-bit signal (per 32-bit word: {words}, expected four "
            "equal counts): the energy reference would be wrong; check ppa/toggles.py's header correction "
            "against this Verilator's include/verilated_cov.h"
        )


def checked() -> None:
    """:func:`check_counting` on the corrected build, once (a stamp records it). Each process checks in
    a folder of its own, so parallel energy runs (make ppa-sweep --jobs) cannot delete each other's."""
    stamp = BUILD / "check-ok.json"
    if not stamp.exists():
        BUILD.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix="check-", dir=BUILD))
        words = count_check_words(work)
        check_counting(words)
        shutil.rmtree(work, ignore_errors=True)
        stamp.write_text(json.dumps(words))


def build(cfg: GpuConfig) -> Path:
    """The raw bench of ``cfg`` with toggle coverage (cached by parameters and source contents)."""
    from tb.rtlsim import machine_parameters
    from tools.bench.raw_bench import TOP

    simenv.apply(["verilator"])
    params = machine_parameters(cfg, TOP)
    checked()
    h = hashlib.sha1(json.dumps([params, MAX_WIDTH, _COV_FIX]).encode())
    for s in _sources():
        h.update(Path(s).read_bytes())
    out = BUILD / "bin" / h.hexdigest()[:12]
    exe = out / f"V{TOP}"
    if not exe.exists():
        _corrected_cov_header(out)
        cmd = ["verilator", "--binary", "--timing", "-O3", "-Wno-fatal", "-Wno-lint", "-Wno-style",
               f"-I{ROOT / 'rtl' / 'include'}", "--coverage-toggle", "--coverage-max-width", str(MAX_WIDTH),
               "--top-module", TOP, "-Mdir", str(out), "-j", "2", "-CFLAGS", "-O2",
               *(f"-G{k}={v}" for k, v in params.items()), *_sources()]  # fmt: skip
        subprocess.run(["nice", "-n", "5", *cmd], check=True, capture_output=True, text=True)
    return exe


def _toggle_points(dat: Path) -> Iterator[tuple[dict[str, str], str, int]]:
    """(fields, hierarchy, count) of every toggle point of one Verilator coverage file."""
    from tools.codecov import parse_point

    for line in dat.read_text(encoding="latin-1").splitlines():
        if not line.startswith("C "):
            continue
        m = re.fullmatch(r"C '(.*)' (\d+)", line)
        if m is None:
            continue
        _, fields, hier = parse_point(m.group(1))
        if fields.get("t") == "toggle":
            yield fields, hier, int(m.group(2))


def unit_toggles(dat: Path) -> tuple[dict[str, int], dict[str, int]]:
    """(toggles per SM module, instrumented bits per SM module) from one coverage file."""
    toggles: dict[str, int] = defaultdict(int)
    bits: dict[str, set] = defaultdict(set)
    for fields, hier, count in _toggle_points(dat):
        module = fields.get("page", "").rpartition("/")[2].split("__")[0]  # simt_sm__pi3: a parameterization
        if module not in SM_MODULES:
            continue
        toggles[module] += count
        sig = fields.get("o", "").rpartition(":")[0]  # "sig[3]" of "sig[3]:0->1"
        bits[module].add((hier, sig))
    return dict(toggles), {k: len(v) for k, v in bits.items()}


def issue_order(trace: Path, warp_size: int) -> list[list[int]]:
    """[[sm, block, warp], ...] of every retire in the order the RTL retired them, from the test
    wrapper's trace (tb/hdl/simt_tb_trace.v, ``+SIMT_TRACE``: one ``R <cycle> <sm> <record>`` line per
    retire; decoded by the retire record's own table)."""
    from spec.retire_record import decode

    order = []
    for line in trace.read_text().splitlines():
        t = line.split()
        if t and t[0] == "R":
            r = decode(t[3:], warp_size)
            order.append([int(t[2]), r.block, r.warp])
    return order


def sm_bit_toggles(dat: Path, sm: str = "sm[0].u_sm") -> dict[str, int]:
    """Toggles (0->1 and 1->0) of every instrumented bit inside SM *sm* of one coverage file, keyed
    ``<path below the SM>/<signal bit>`` (e.g. ``u_issue/dec_txns[0]``; ``/ready`` for the SM's own),
    for ppa/kernelpower.py, which finds the same names in the mapped netlist."""
    out: dict[str, int] = defaultdict(int)
    mark = "." + sm
    for fields, hier, count in _toggle_points(dat):
        at = hier.find(mark)
        if at < 0 or (hier[at + len(mark) : at + len(mark) + 1] not in ("", ".")):
            continue
        below = hier[at + len(mark) + 1 :]
        sig = fields.get("o", "").rpartition(":")[0]
        out[f"{below}/{sig}"] += count
    return dict(out)


def run(cfg: GpuConfig, words: list[int], latency: int = 20, per_bit: bool = False) -> dict:
    """One launch on the toggle-coverage raw bench: {cycles, warp_instrs, toggles{module}, bits{module},
    order: the RTL's retire order (``issue_order``)}; with *per_bit* also ``bit_toggles`` (SM 0's bits,
    :func:`sm_bit_toggles`), cached apart."""
    exe = build(cfg)
    tag = ["order", "bits"] if per_bit else ["order"]
    key = hashlib.sha1(json.dumps([str(exe), words, latency, *tag]).encode()).hexdigest()[:16]
    cache = exe.parent / "runs" / f"{key}.json"
    if cache.exists():
        return json.loads(cache.read_text())
    cache.parent.mkdir(parents=True, exist_ok=True)
    image = cache.with_suffix(".hex")
    dat = cache.with_suffix(".dat")
    trace = cache.with_suffix(".trace")
    image.write_text("".join(f"{w & 0xFFFF_FFFF:08x}\n" for w in words))
    proc = subprocess.run(
        [
            "nice",
            "-n",
            "5",
            str(exe),
            f"+IMAGE={image}",
            f"+WORDS={len(words)}",
            f"+LAT_MIN={latency}",
            f"+LAT_MAX={latency}",
            f"+verilator+coverage+file+{dat}",
            f"+SIMT_TRACE={trace}",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=cache.parent,
    )
    image.unlink(missing_ok=True)
    m = _LINE.search(proc.stdout)
    if proc.returncode != 0 or m is None or not dat.exists():
        raise RuntimeError(f"toggle run failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    toggles, bits = unit_toggles(dat)
    bit_toggles = sm_bit_toggles(dat) if per_bit else None
    dat.unlink()
    order = issue_order(trace, cfg.warp_size)
    trace.unlink(missing_ok=True)
    out = {
        "status": int(m.group(1), 16),
        "cycles": int(m.group(2)),
        "warp_instrs": int(m.group(3)),
        "toggles": toggles,
        "bits": bits,
        "order": order,
    }
    if bit_toggles is not None:
        out["bit_toggles"] = bit_toggles
    cache.write_text(json.dumps(out))
    return out


def main(argv: list[str] | None = None) -> int:
    """A smoke run: the toggle counts of a one-EXIT launch on the machine of ``--lanes`` lanes."""
    from ppa.rtlcycles import machine
    from spec import cli
    from spec.asm import assemble

    ap = cli.ArgumentParser(prog="python -m ppa.toggles", description=main.__doc__)
    ap.add_argument("--lanes", type=cli.int_range(1, 64), default=8, help="lanes of the machine (default 8)")
    args = ap.parse_args(argv)
    cfg = machine(args.lanes)
    img = assemble("        EXIT\n", "<t>", cfg).image
    print(json.dumps(run(cfg, img.to_words()), indent=1))
    return 0


if __name__ == "__main__":
    from spec import cli

    cli.run(main)
