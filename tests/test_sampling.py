"""Sampling, marginals and measurement against the exact distribution."""

from __future__ import annotations

import numpy as np
import pytest

import genqsim as gq

from reference import random_state


def _state(n=4, seed=1):
    return gq.StateVector(random_state(n, np.random.default_rng(seed)))


def test_sampling_is_reproducible_with_a_seed():
    psi = _state()
    assert psi.sample(1000, seed=42) == psi.sample(1000, seed=42)
    assert psi.sample(1000, seed=42) != psi.sample(1000, seed=43)
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    assert psi.sample(500, seed=rng_a) == psi.sample(500, seed=rng_b)


@pytest.mark.parametrize("qubits", [None, [2], [3, 0], [1, 2, 0]])
def test_counts_match_probabilities_within_five_sigma(qubits):
    psi = _state(5, seed=9)
    shots = 100_000
    counts = psi.sample(shots, seed=2024, qubits=qubits)
    p = psi.probabilities(qubits)
    width = 5 if qubits is None else len(qubits)
    assert sum(counts.values()) == shots
    for index, prob in enumerate(p):
        observed = counts.get(format(index, f"0{width}b"), 0)
        sigma = np.sqrt(shots * prob * (1 - prob))
        assert abs(observed - shots * prob) <= 5 * sigma + 1e-9, (index, observed, prob)


def test_bitstrings_put_highest_qubit_leftmost():
    psi = gq.simulate(gq.Circuit(3).x(0))  # |q2 q1 q0> = |001>
    assert psi.sample(10, seed=0) == {"001": 10}
    assert psi.sample(10, seed=0, qubits=[2, 0]) == {"10": 10}  # qubits[0] is rightmost


def test_marginals_equal_sums_of_the_full_distribution():
    psi = _state(4, seed=3)
    full = psi.probabilities()
    bits = lambda i, q: (i >> q) & 1  # noqa: E731
    for qubits in ([0], [3], [1, 2], [2, 1], [3, 0, 2], [0, 1, 2, 3], [3, 2, 1, 0]):
        marginal = psi.probabilities(qubits)
        expected = np.zeros(2 ** len(qubits))
        for i, p in enumerate(full):
            key = sum(bits(i, q) << pos for pos, q in enumerate(qubits))
            expected[key] += p
        np.testing.assert_allclose(marginal, expected, atol=1e-14)
    assert abs(full.sum() - 1) < 1e-12


def test_measure_collapses_and_renormalises():
    psi = gq.simulate(gq.library.ghz(4))
    outcome = psi.measure([2], seed=1)
    expected_index = 0 if outcome == "0" else 15
    np.testing.assert_allclose(np.abs(psi.amplitudes[expected_index]), 1.0, atol=1e-14)
    assert abs(psi.norm_squared() - 1) < 1e-14
    # a second measurement of any qubit now agrees with the first
    assert psi.measure([0], seed=99) == outcome


def test_measure_outcome_frequencies_follow_born_rule():
    psi0 = gq.simulate(gq.Circuit(1).ry(2 * np.arccos(np.sqrt(0.3)), 0))  # P(0) = 0.3
    rng = np.random.default_rng(0)
    ones = sum(psi0.copy().measure(seed=rng) == "1" for _ in range(4000))
    sigma = np.sqrt(4000 * 0.7 * 0.3)
    assert abs(ones - 2800) < 5 * sigma


def test_measure_on_partial_qubits_keeps_others_coherent():
    psi = gq.simulate(gq.Circuit(2).h(0).h(1))
    psi.measure([0], seed=4)
    p1 = psi.probabilities([1])
    np.testing.assert_allclose(p1, [0.5, 0.5], atol=1e-14)


def _dense_observable(terms, n):
    """``sum c P`` as a dense matrix from Kronecker products (qubit 0 the rightmost factor)."""
    from reference import _paulis, kron_all

    index = dict(zip("IXYZ", _paulis(exact=False)))
    total = np.zeros((2**n, 2**n), dtype=complex)
    for c, word in terms:
        total += c * kron_all([index[word.get(q, "I")] for q in reversed(range(n))])
    return total


OBSERVABLE = [(1.0, {0: "Z", 1: "Z"}), (0.5, {2: "X"}), (-0.3, {0: "Y", 3: "Z"}), (0.2, {})]
TEXT = "Z0 Z1 + 0.5*X2 - 0.3*Y0 Z3 + 0.2"


@pytest.mark.parametrize("method", ["statevector", "density_matrix", "mps", "pauli"])
def test_variance_equals_the_dense_second_moment(method):
    psi = random_state(4, np.random.default_rng(5))
    c = gq.Circuit(4).ry(0.4, 1).cx(1, 2).rz(0.9, 3)
    state = gq.simulate(c, initial=psi if method != "pauli" else None, method=method)
    vector = gq.simulate(c, initial=psi if method != "pauli" else None).amplitudes
    h = _dense_observable(OBSERVABLE, 4)
    mean = np.vdot(vector, h @ vector).real
    expected = np.vdot(vector, h @ h @ vector).real - mean**2
    assert state.variance(TEXT) == pytest.approx(expected, abs=1e-12)
    assert gq.simulate(gq.Circuit(2)).variance("Z0 + Z1") == 0.0  # an eigenstate: exactly 0


def test_shot_estimates_fall_within_their_standard_error():
    """Over 400 seeded estimates of 2000 shots, the mean is the exact value within 5 standard
    errors of the mean, each estimate's reported error matches the spread of the estimates
    (within 15 %), and the state is untouched."""
    state = _state(4, seed=2)
    before = state.amplitudes.copy()
    exact = state.expectation(TEXT)
    found = [state.shot_estimate(TEXT, 2000, seed=s) for s in range(400)]
    values = np.array([f.value for f in found])
    reported = np.mean([f.standard_error for f in found])
    assert abs(values.mean() - exact) < 5 * values.std() / np.sqrt(len(values))
    assert values.std() == pytest.approx(reported, rel=0.15)
    assert found[0].settings == 3 and found[0].shots == 2000
    np.testing.assert_array_equal(state.amplitudes, before)
    with pytest.raises(gq.ShotsError):
        state.shot_estimate(TEXT, 0)
    with pytest.raises(gq.NumberTypeError, match="Hermitian"):
        state.variance("1j*Z0")
