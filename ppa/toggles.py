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

Cached in build/ppa/toggles/<config>-<key>/<image hash>.json.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tb.reference.config import GpuConfig  # noqa: E402
from tools import simenv  # noqa: E402

BUILD = ROOT / "build" / "ppa" / "toggles"
MAX_WIDTH = 2048
SM_MODULES = ("simt_alu", "simt_barrier", "simt_coalescer", "simt_decode", "simt_div_stack", "simt_gmem_unit",
              "simt_perf", "simt_regfile", "simt_shared_lsu", "simt_sm", "simt_warp_sched")  # fmt: skip
_LINE = re.compile(r"raw: status=(\w+) cycles=(\d+) warp_instrs=(\d+) sim_cycles=(\d+)")


def _sources() -> list[str]:
    from tools.bench.raw_bench import _sources as raw_sources

    return raw_sources()


def build(cfg: GpuConfig) -> Path:
    """The raw bench of ``cfg`` with toggle coverage (cached by parameters and source contents)."""
    from tb.rtlsim import machine_parameters
    from tools.bench.raw_bench import TOP

    simenv.apply(["verilator"])
    params = machine_parameters(cfg, TOP)
    h = hashlib.sha1(json.dumps([params, MAX_WIDTH]).encode())
    for s in _sources():
        h.update(Path(s).read_bytes())
    out = BUILD / "bin" / h.hexdigest()[:12]
    exe = out / f"V{TOP}"
    if not exe.exists():
        out.mkdir(parents=True, exist_ok=True)
        cmd = ["verilator", "--binary", "--timing", "-O3", "-Wno-fatal", "-Wno-lint", "-Wno-style",
               f"-I{ROOT / 'rtl' / 'include'}", "--coverage-toggle", "--coverage-max-width", str(MAX_WIDTH),
               "--top-module", TOP, "-Mdir", str(out), "-j", "2", "-CFLAGS", "-O2",
               *(f"-G{k}={v}" for k, v in params.items()), *_sources()]  # fmt: skip
        subprocess.run(["nice", "-n", "5", *cmd], check=True, capture_output=True, text=True)
    return exe


def unit_toggles(dat: Path) -> tuple[dict[str, int], dict[str, int]]:
    """(toggles per SM module, instrumented bits per SM module) from one coverage file."""
    from tools.codecov import parse_point

    toggles: dict[str, int] = defaultdict(int)
    bits: dict[str, set] = defaultdict(set)
    for line in dat.read_text(encoding="latin-1").splitlines():
        if not line.startswith("C "):
            continue
        m = re.fullmatch(r"C '(.*)' (\d+)", line)
        if m is None:
            continue
        key, fields, hier = parse_point(m.group(1))
        if fields.get("t") != "toggle":
            continue
        module = fields.get("page", "").rpartition("/")[2].split("__")[0]  # simt_sm__pi3: a parameterization
        if module not in SM_MODULES:
            continue
        toggles[module] += int(m.group(2))
        sig = fields.get("o", "").rpartition(":")[0]  # "sig[3]" of "sig[3]:0->1"
        bits[module].add((hier, sig))
    return dict(toggles), {k: len(v) for k, v in bits.items()}


def run(cfg: GpuConfig, words: list[int], latency: int = 20) -> dict:
    """One launch on the toggle-coverage raw bench: {cycles, warp_instrs, toggles{module}, bits{module}}."""
    exe = build(cfg)
    key = hashlib.sha1(json.dumps([str(exe), words, latency]).encode()).hexdigest()[:16]
    cache = exe.parent / "runs" / f"{key}.json"
    if cache.exists():
        return json.loads(cache.read_text())
    cache.parent.mkdir(parents=True, exist_ok=True)
    image = cache.with_suffix(".hex")
    dat = cache.with_suffix(".dat")
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
    dat.unlink()
    out = {
        "status": int(m.group(1), 16),
        "cycles": int(m.group(2)),
        "warp_instrs": int(m.group(3)),
        "toggles": toggles,
        "bits": bits,
    }
    cache.write_text(json.dumps(out))
    return out


if __name__ == "__main__":
    from ppa.rtlcycles import machine
    from tb.reference.asm import assemble

    cfg = machine(int(os.environ.get("LANES", "8")))
    img = assemble("        EXIT\n", "<t>", cfg).image
    print(json.dumps(run(cfg, img.to_words()), indent=1))
