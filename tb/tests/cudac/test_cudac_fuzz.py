"""The CUDA-C compiler's random-program fuzzer (cudac/fuzz.py): 300 programs in make model, each
compiled by gcc with the host header (cudac/host.h) and by cudac on the golden model, every output
word compared; planted compiler faults it must catch; reproducible seeds and shards.

``make fuzz N=10000`` runs the long campaign (docs/kernels-c.md, "Fuzzer").
"""

from __future__ import annotations

import pytest

from cudac import fuzz

CHUNKS, PER_CHUNK = 10, 30  # 300 programs, spread over the xdist workers


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_programs_agree_with_gcc(chunk: int) -> None:
    seeds = list(range(chunk * PER_CHUNK, (chunk + 1) * PER_CHUNK))
    failures = fuzz.campaign(seeds, log=lambda _msg: None)
    assert not failures, "\n".join(f"seed {s}: {v.kind}: {v.detail}\n{src}" for s, v, src in failures)


def test_planted_missing_ssy_is_caught_and_shrunk() -> None:
    """Meta-test: with every branch taken as uniform (no SSY), the fuzzer reports the divergent branch
    and shrinks the program to a smaller one that still fails the same way."""
    failures = fuzz.campaign(list(range(6)), fault="no-ssy", do_shrink=False, log=lambda _msg: None)
    assert failures, "the planted missing-SSY fault was not caught"
    seed, verdict, source = failures[0]
    assert verdict.kind == "model" and "DIVERGENT_WITHOUT_SSY" in verdict.detail
    small, v2 = fuzz.shrink(fuzz.generate(seed), verdict, "no-ssy", budget=30)
    assert not v2.ok and v2.kind == "model"
    assert len(small.source()) < len(source)


def test_planted_wrong_compare_is_caught_as_a_mismatch() -> None:
    """Meta-test: signed compares emitted as unsigned give wrong words (no machine error): caught by
    comparing outputs with gcc's."""
    failures = fuzz.campaign(list(range(8)), fault="cmp-unsigned", do_shrink=False, log=lambda _msg: None)
    assert any(v.kind == "mismatch" for _, v, _ in failures)


def test_some_programs_need_more_registers_than_the_isa_has() -> None:
    """One program in eight keeps 24..36 extra values live to the end: it spills (cudac/spill.py);
    the other seeds' programs are what they were before this mode existed."""
    progs = [fuzz.generate(s) for s in range(80)]
    heavy = [p for p in progs if p.extra]
    assert 4 <= len(heavy) <= 20
    assert fuzz.generate(0).extra == 0 and "h0" not in fuzz.generate(0).source()
    from cudac.compiler import compile_source

    k = compile_source(heavy[0].source(), "heavy.cu", threads=heavy[0].threads)
    assert k.spill is not None and k.spill.stored > 0


def test_planted_spill_slot_sharing_is_caught() -> None:
    """Meta-test: spilled values all given slot 0 (slot colouring ignoring liveness) give wrong words
    or wild addresses on the high-pressure programs: caught."""
    heavy = [s for s in range(60) if fuzz.generate(s).extra][:3]
    failures = fuzz.campaign(heavy, fault="spill-one-slot", do_shrink=False, log=lambda _msg: None)
    assert failures and all(v.kind in ("mismatch", "model") for _, v, _ in failures)


def test_programs_repeat_per_seed_and_differ_between_seeds() -> None:
    a, b, c = fuzz.generate(7).source(), fuzz.generate(7).source(), fuzz.generate(8).source()
    assert a == b and a != c
    for needle in ("__syncthreads();", "threadIdx.x", "__device__ int f0"):
        assert needle in a


def test_shards_partition_the_seeds() -> None:
    shards = [fuzz.shard_seeds(100, 50, i, 4) for i in range(4)]
    assert sorted(s for sh in shards for s in sh) == list(range(100, 150))
    assert all(s % 4 == i for i, sh in enumerate(shards) for s in sh)
