"""Bosonic modes on a charge-conserving MPS: boson-sampling probabilities against
permanents (Ryser's formula, written here), beam splitters against the two-mode Fock
algebra, sampling against the exact distribution."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from genqsim.errors import ArgumentValueError, MatrixShapeError, NotUnitaryError, QubitIndexError
from genqsim.mps import ModeMPS, Truncation, boson_sampling
from genqsim.mps.bosons import two_mode_matrix


def ryser_permanent(a: np.ndarray) -> complex:
    """``Perm(A) = (-1)^n sum_{S} (-1)^{|S|} prod_i sum_{j in S} A_ij`` (Ryser, 1963)."""
    n = a.shape[0]
    total = 0j
    for r in range(1, n + 1):
        for cols in itertools.combinations(range(n), r):
            total += (-1) ** r * np.prod(a[:, cols].sum(axis=1))
    return (-1) ** n * total


def patterns_of(photons: int, modes: int) -> list[tuple[int, ...]]:
    """Every way of putting ``photons`` photons in ``modes`` modes (stars and bars)."""
    out = []
    for bars in itertools.combinations(range(photons + modes - 1), modes - 1):
        edges = (-1, *bars, photons + modes - 1)
        out.append(tuple(edges[i + 1] - edges[i] - 1 for i in range(modes)))
    return out


def haar_unitary(m: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    z = (rng.normal(size=(m, m)) + 1j * rng.normal(size=(m, m))) / np.sqrt(2)
    q, r = np.linalg.qr(z)
    return q * (np.diag(r) / np.abs(np.diag(r)))


def output_probability(u: np.ndarray, inputs: list[int], outputs: tuple[int, ...]) -> float:
    """``|Perm(U_{T,S})|^2 / (prod s! prod t!)`` with rows repeated by output occupation."""
    cols = [i for i, n in enumerate(inputs) for _ in range(n)]
    rows = [i for i, n in enumerate(outputs) for _ in range(n)]
    norm = np.prod([math.factorial(k) for k in inputs]) * np.prod(
        [math.factorial(k) for k in outputs]
    )
    return abs(ryser_permanent(u[np.ix_(rows, cols)])) ** 2 / norm


@pytest.mark.parametrize(
    "modes, inputs, seed",
    [
        (6, [1, 1, 1, 0, 0, 0], 1),
        (8, [1, 0, 1, 0, 1, 0, 1, 0], 2),
        (7, [2, 0, 1, 0, 1, 0, 0], 3),  # a doubly occupied input
        (10, [1, 1, 1, 1, 1, 0, 0, 0, 0, 0], 4),
    ],
)
def test_boson_sampling_probabilities_are_permanents(modes, inputs, seed):
    u = haar_unitary(modes, seed)
    state = ModeMPS.fock(inputs).interferometer(u)
    photons = sum(inputs)
    patterns = patterns_of(photons, modes)
    rng = np.random.default_rng(seed)
    for index in rng.choice(len(patterns), size=min(60, len(patterns)), replace=False):
        pattern = patterns[index]
        assert state.probability(pattern) == pytest.approx(
            output_probability(u, inputs, pattern), abs=1e-12
        )
    assert sum(state.probability(p) for p in patterns) == pytest.approx(1.0, abs=1e-12)
    expected_mean = (np.abs(u) ** 2) @ np.array(inputs, dtype=float)
    np.testing.assert_allclose(state.mean_photons(), expected_mean, atol=1e-12)
    assert state.total_photons == photons


def test_sampled_patterns_follow_the_permanents():
    u = haar_unitary(5, 7)
    inputs = [1, 1, 0, 1, 0]
    shots = 20000
    counts = boson_sampling(u, inputs, shots, seed=5)
    assert sum(counts.values()) == shots
    distance = 0.0
    for pattern in patterns_of(3, 5):
        distance += abs(counts.get(pattern, 0) / shots - output_probability(u, inputs, pattern))
    assert distance < 0.05
    assert boson_sampling(u, inputs, 100, seed=1) == boson_sampling(u, inputs, 100, seed=1)


def test_two_mode_matrix_follows_the_creation_operators():
    """Hong-Ou-Mandel: |1,1> through a 50:50 splitter never leaves one photon per mode, and
    every photon-number block of a beam splitter is unitary."""
    t = np.array([[1, -1], [1, 1]]) / np.sqrt(2)
    m = two_mode_matrix(t, 2)
    d = 3
    out = m[:, 1 * d + 1]
    assert abs(out[1 * d + 1]) < 1e-15
    assert abs(out[2 * d + 0]) ** 2 == pytest.approx(0.5) and abs(
        out[0 * d + 2]
    ) ** 2 == pytest.approx(0.5)
    for total in range(d):
        index = [p * d + (total - p) for p in range(total + 1)]
        block = m[np.ix_(index, index)]
        np.testing.assert_allclose(block.conj().T @ block, np.eye(total + 1), atol=1e-13)
    state = ModeMPS.fock([1, 1]).beam_splitter(np.pi / 4, 0, 1)
    assert state.probability([1, 1]) == pytest.approx(0.0, abs=1e-15)
    assert state.probability([2, 0]) == pytest.approx(0.5)


def test_distant_modes_and_order_of_modes():
    """A beam splitter on modes (4, 1) equals the same splitter written for (1, 4) with its
    transfer matrix's rows and columns swapped; swaps bring distant modes together."""
    t = np.array([[0.6, -0.8j], [-0.8j, 0.6]])
    a = ModeMPS.fock([0, 1, 0, 0, 2]).two_mode(t, 4, 1)
    b = ModeMPS.fock([0, 1, 0, 0, 2]).two_mode(t[::-1, ::-1], 1, 4)
    u = np.eye(5, dtype=complex)
    u[np.ix_([4, 1], [4, 1])] = t
    inputs = [0, 1, 0, 0, 2]
    for pattern in [(0, 3, 0, 0, 0), (0, 1, 0, 0, 2), (0, 2, 0, 0, 1), (0, 0, 0, 0, 3)]:
        expected = output_probability(u, inputs, pattern)
        assert a.probability(pattern) == pytest.approx(expected, abs=1e-12)
        assert b.probability(pattern) == pytest.approx(expected, abs=1e-12)


def test_a_cutoff_below_the_photon_number_reports_the_lost_weight():
    exact = ModeMPS.fock([2, 2]).beam_splitter(np.pi / 4, 0, 1)
    lossy = ModeMPS.fock([2, 2], cutoff=2).beam_splitter(np.pi / 4, 0, 1)
    lost = sum(exact.probability(p) for p in [(4, 0), (0, 4), (3, 1), (1, 3)])
    assert lossy.truncation_error == pytest.approx(lost, abs=1e-12)
    assert lost > 0.1


def test_bosonic_errors():
    with pytest.raises(ArgumentValueError, match="cutoff"):
        ModeMPS.fock([3, 0], cutoff=2)
    with pytest.raises(NotUnitaryError):
        ModeMPS.fock([1, 0]).interferometer(np.ones((2, 2)))
    with pytest.raises(MatrixShapeError):
        ModeMPS.fock([1, 0]).interferometer(np.eye(3))
    with pytest.raises(QubitIndexError):
        ModeMPS.fock([1, 0]).beam_splitter(0.3, 0, 2)
    with pytest.raises(ArgumentValueError, match="pattern"):
        ModeMPS.fock([1, 0]).probability([1])
    state = ModeMPS.fock([1, 1, 0], truncation=Truncation(max_bond=1)).interferometer(
        haar_unitary(3, 0)
    )
    assert state.truncation_error > 0 and max(state.bond_dimensions) == 1
