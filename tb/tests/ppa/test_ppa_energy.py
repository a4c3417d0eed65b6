"""Tests of the per-event energy fitting (ppa/energy.py): NNLS, the toggle proxy, the fit and its
validation, with planted wrong inputs that must fail."""

from __future__ import annotations

import numpy as np
import pytest

from ppa import energy

EVENTS = ("alu", "reg_read", "shared_pass", "gmem_txn", "idle")
TRUE = {"alu": 3.0, "reg_read": 1.5, "shared_pass": 6.0, "gmem_txn": 20.0, "idle": 0.4}


def _samples(n: int, seed: int, noise: float = 0.0) -> list[energy.Sample]:
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        counts = {e: float(rng.integers(0, 500)) for e in EVENTS}
        counts[EVENTS[k % len(EVENTS)]] += 5000.0  # each micro-kernel stresses one event
        e = sum(TRUE[ev] * c for ev, c in counts.items()) * (1 + noise * rng.standard_normal())
        out.append(energy.Sample(f"k{k}", counts, e))
    return out


def test_nnls_equals_least_squares_when_unconstrained_is_positive() -> None:
    rng = np.random.default_rng(1)
    a = rng.random((20, 4))
    x_true = np.array([1.0, 2.0, 0.5, 3.0])
    assert energy.nnls(a, a @ x_true) == pytest.approx(x_true, rel=1e-9)


def test_nnls_clamps_where_least_squares_goes_negative() -> None:
    a = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    b = np.array([2.0, 1.0, -1.0])  # least squares gives x2 < 0
    ls = np.linalg.lstsq(a, b, rcond=None)[0]
    assert ls[1] < 0
    x = energy.nnls(a, b)
    assert (x >= 0).all()
    assert x == pytest.approx([1.5, 0.0])  # the constrained optimum (x2 = 0, x1 = mean(2, 1))


def test_nnls_shape_errors() -> None:
    with pytest.raises(energy.FitError, match="m×n"):
        energy.nnls(np.ones((3, 2)), np.ones(4))


def test_fit_recovers_planted_energies_and_validates_on_held_out() -> None:
    model = energy.fit(_samples(12, seed=2), EVENTS)
    for e in EVENTS:
        assert model.energy[e] == pytest.approx(TRUE[e], rel=1e-6)
    val = energy.validate(model, _samples(6, seed=3))
    assert val.geomean_abs < 1e-6 and val.mape < 1e-6


def test_relative_fit_recovers_planted_energies() -> None:
    model = energy.fit(_samples(12, seed=2), EVENTS, relative=True)
    for e in EVENTS:
        assert model.energy[e] == pytest.approx(TRUE[e], rel=1e-6)


def test_relative_fit_is_not_decided_by_the_largest_kernel() -> None:
    """Planted: one training kernel 1000x larger than the others with a 20 % error in its reference.
    The absolute fit bends to it and misses the small kernels; the relative fit keeps them right."""
    s = _samples(12, seed=9)
    big = energy.Sample("big", {e: 1000 * v for e, v in s[0].counts.items()}, 1000 * s[0].energy * 1.2)
    train = [*s[1:], big]
    held = _samples(6, seed=10)
    absolute = energy.validate(energy.fit(train, EVENTS), held)
    relative = energy.validate(energy.fit(train, EVENTS, relative=True), held)
    assert relative.mape < absolute.mape
    with pytest.raises(energy.FitError, match="above 0"):
        energy.fit([*s, energy.Sample("zero", s[0].counts, 0.0)], EVENTS, relative=True)


def test_fit_with_noise_stays_within_ten_percent() -> None:
    model = energy.fit(_samples(40, seed=4, noise=0.03), EVENTS)
    val = energy.validate(model, _samples(10, seed=5, noise=0.03))
    assert val.geomean_abs < 0.10
    assert val.worst in val.errors


def test_planted_wrong_energy_is_caught_by_validation() -> None:
    model = energy.fit(_samples(12, seed=6), EVENTS)
    wrong = energy.EventFit(model.events, {**model.energy, "gmem_txn": 2.0}, 0.0)  # 10x too small
    assert energy.validate(wrong, _samples(6, seed=7)).mape > 0.10


def test_fit_refuses_unexercised_or_dependent_events() -> None:
    s = _samples(12, seed=8)
    no_idle = [energy.Sample(x.kernel, {**x.counts, "idle": 0.0}, x.energy) for x in s]
    with pytest.raises(energy.FitError, match="no training kernel exercises"):
        energy.fit(no_idle, EVENTS)
    tied = [energy.Sample(x.kernel, {**x.counts, "reg_read": 2 * x.counts["alu"]}, x.energy) for x in s]
    with pytest.raises(energy.FitError, match="linearly dependent"):
        energy.fit(tied, EVENTS)
    with pytest.raises(energy.FitError, match="cannot determine"):
        energy.fit(s[:3], EVENTS)
    bad = [energy.Sample("neg", {"alu": -1.0}, 1.0), *s]
    with pytest.raises(energy.FitError, match="negative"):
        energy.fit(bad, EVENTS)


def test_toggle_energy_weights_and_missing_nets() -> None:
    assert energy.toggle_energy({"a": 10, "b": 2}, {"a": 3.0, "b": 5.0}) == pytest.approx(40.0)
    with pytest.raises(energy.FitError, match="no area weight"):
        energy.toggle_energy({"a": 1, "c": 1}, {"a": 1.0})
    assert energy.toggle_energy({"c": 4}, {}, default=0.5) == pytest.approx(2.0)
    with pytest.raises(energy.FitError, match="negative"):
        energy.toggle_energy({"a": -1}, {"a": 1.0})
