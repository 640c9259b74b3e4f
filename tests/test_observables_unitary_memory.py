"""Matrix observables (Hermitian on some qubits, sparse over all), the unitary of a circuit,
and per-shot memory, against independent references: operators embedded with ``kron``,
Qiskit's ``Operator``, closed forms, and the counts drawn with the same seed."""

from __future__ import annotations

import collections
import itertools

import numpy as np
import pytest
import scipy.sparse as sp
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq

from reference import embed, random_state
from strategies import random_circuit

PAULI = {
    "I": np.eye(2),
    "X": np.array([[0, 1], [1, 0]]),
    "Y": np.array([[0, -1j], [1j, 0]]),
    "Z": np.diag([1, -1]),
}


def random_hermitian(k: int, rng: np.random.Generator) -> np.ndarray:
    a = rng.normal(size=(1 << k, 1 << k)) + 1j * rng.normal(size=(1 << k, 1 << k))
    return a + a.conj().T


def pauli_sum_matrix(obs: gq.PauliSum, n: int) -> np.ndarray:
    """The dense matrix of a Pauli sum, qubit 0 the least-significant bit."""
    total = np.zeros((1 << n, 1 << n), dtype=complex)
    for coeff, pauli in obs.terms:
        letters = dict(pauli)
        factors = [PAULI[letters.get(q, "I")] for q in reversed(range(n))]
        term = factors[0]
        for f in factors[1:]:
            term = np.kron(term, f)
        total += complex(coeff) * term
    return total


# -- Hermitian and sparse observables -----------------------------------------------------------
@settings(max_examples=20, deadline=None)
@given(random_circuit(n_min=2, n_max=6), st.data())
def test_hermitian_observable_matches_the_embedded_matrix(circuit, data):
    n = circuit.n_qubits
    k = data.draw(st.integers(1, min(3, n)))
    qubits = data.draw(st.permutations(range(n)))[:k]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    h = random_hermitian(k, rng)
    psi = gq.simulate(circuit)
    v = psi.to_numpy()
    reference = np.vdot(v, embed(h, n, qubits) @ v).real
    observable = gq.Hermitian(h, qubits)
    assert psi.expectation(observable) == pytest.approx(reference, abs=1e-9)
    rho = gq.simulate(circuit, method="density_matrix")
    assert rho.expectation(observable) == pytest.approx(reference, abs=1e-9)
    # states without a matrix path take the exact Pauli decomposition
    assert psi.expectation(observable.to_pauli_sum()) == pytest.approx(reference, abs=1e-9)
    sparse = sp.csr_matrix(embed(h, n, qubits))
    assert psi.expectation(sparse) == pytest.approx(reference, abs=1e-9)
    assert rho.expectation(gq.SparseObservable(sparse)) == pytest.approx(reference, abs=1e-9)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_pauli_decomposition_rebuilds_the_matrix(k):
    rng = np.random.default_rng(k)
    h = random_hermitian(k, rng)
    qubits = list(range(k))
    obs = gq.Hermitian(h, qubits).to_pauli_sum()
    assert len(obs.terms) == 4**k  # a random matrix has every Pauli string
    assert np.allclose(pauli_sum_matrix(obs, k), h, atol=1e-12)
    sparse = gq.SparseObservable(sp.csr_matrix(h)).to_pauli_sum()
    assert np.allclose(pauli_sum_matrix(sparse, k), h, atol=1e-12)


def test_ising_hamiltonian_as_sparse_matrix_and_as_pauli_sum_agree():
    n = 8
    text = (
        " + ".join(f"Z{q} Z{q + 1}" for q in range(n - 1))
        + " + "
        + " + ".join(f"0.7*X{q}" for q in range(n))
    )
    pauli = gq.PauliSum.parse(text)
    dense = pauli_sum_matrix(pauli, n)
    hamiltonian = sp.csr_matrix(dense)
    psi = gq.simulate(gq.library.random_circuit(n, 6, seed=4))
    expected = np.vdot(psi.to_numpy(), dense @ psi.to_numpy()).real
    assert psi.expectation(hamiltonian) == pytest.approx(expected, abs=1e-10)
    assert psi.expectation(text) == pytest.approx(expected, abs=1e-10)
    recovered = gq.SparseObservable(hamiltonian).to_pauli_sum()
    assert len(recovered.terms) == 2 * n - 1  # the decomposition finds the 15 terms again
    assert np.allclose(pauli_sum_matrix(recovered, n), dense)


def test_symbolic_hermitian_observable_is_exact():
    theta, g = sympy.symbols("theta g", real=True)
    psi = gq.simulate(gq.Circuit(2).ry(theta, 0).cx(0, 1), numbers="sympy")
    h = sympy.Matrix([[1, g], [g, -1]])  # Z + g X on qubit 1
    value = psi.expectation(gq.Hermitian(h, [1]))
    assert sympy.simplify(value - sympy.cos(theta)) == 0  # <X1> = 0 on this state
    obs = gq.Hermitian(h, [1]).to_pauli_sum()
    assert {(str(c), p) for c, p in obs.terms} == {("1", ((1, "Z"),)), ("g", ((1, "X"),))}


def test_matrix_observables_on_other_number_systems():
    rng = np.random.default_rng(3)
    h = random_hermitian(2, rng)
    c = gq.Circuit(3).h(0).cx(0, 2).ry(0.3, 1)
    reference = gq.simulate(c).expectation(gq.Hermitian(h, [2, 1]))
    single = gq.simulate(c, numbers="complex64").expectation(gq.Hermitian(h, [2, 1]))
    assert single == pytest.approx(reference, abs=1e-5)
    precise = gq.simulate(c, numbers="mpmath:30").expectation(gq.Hermitian(h, [2, 1]))
    assert float(precise) == pytest.approx(reference, abs=1e-12)
    trajectories = gq.simulate(c, method="trajectories", trajectories=4, seed=1)
    assert trajectories.expectation(gq.Hermitian(h, [2, 1])) == pytest.approx(reference)


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: gq.Hermitian(np.eye(3), [0]), gq.MatrixShapeError, "2\\*\\*k x 2\\*\\*k"),
        (lambda: gq.Hermitian(np.eye(4), [0]), gq.MatrixShapeError, "acts on 2 qubit"),
        (lambda: gq.Hermitian([[0, 1], [0, 0]], [0]), gq.ArgumentTypeError, "not Hermitian"),
        (lambda: gq.Hermitian(np.eye(4), [1, 1]), gq.DuplicateQubitError, "duplicate"),
        (lambda: gq.Hermitian([[np.nan, 0], [0, 1]], [0]), gq.NotNumericError, "not finite"),
        (lambda: gq.SparseObservable(np.eye(2)), gq.ArgumentTypeError, "scipy.sparse"),
        (lambda: gq.SparseObservable(sp.csr_matrix([[0, 1j], [0, 0]])), gq.ArgumentTypeError,
         "not Hermitian"),
    ],
)  # fmt: skip
def test_bad_matrix_observables_are_refused(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_observable_larger_than_the_state_is_refused_and_state_untouched():
    psi = gq.simulate(gq.Circuit(2).h(0))
    before = psi.to_numpy()
    with pytest.raises(gq.QubitIndexError, match="qubit 3"):
        psi.expectation(gq.Hermitian(np.eye(2), [3]))
    with pytest.raises(gq.MatrixShapeError, match="over 3 qubits, on a 2-qubit state"):
        psi.expectation(sp.identity(8, format="csr"))
    assert np.array_equal(psi.to_numpy(), before)


# -- the unitary of a circuit -------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(random_circuit(n_min=1, n_max=5))
def test_unitary_matches_qiskit_operator(circuit):
    from qiskit.quantum_info import Operator

    expected = Operator(gq.to_qiskit(circuit)).data
    assert np.allclose(gq.unitary(circuit), expected, atol=1e-10)
    single = gq.unitary(circuit, "complex64")
    assert single.dtype == np.complex64 and np.allclose(single, expected, atol=1e-5)


def test_unitary_columns_are_the_circuit_on_each_basis_state():
    c = gq.library.qft(3)
    u = gq.unitary(c)
    for j in range(8):
        assert np.allclose(u[:, j], gq.simulate(c, initial=j).to_numpy())
    assert np.allclose(u.conj().T @ u, np.eye(8))


def test_symbolic_unitary_is_exact():
    theta = sympy.Symbol("theta", real=True)
    u = gq.unitary(gq.Circuit(2).ry(theta, 0).cx(0, 1), "sympy")
    c, s = sympy.cos(theta / 2), sympy.sin(theta / 2)
    ry = sympy.Matrix([[c, -s], [s, c]])
    cx = sympy.Matrix([[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0]])
    expected = cx * sympy.kronecker_product(sympy.eye(2), ry)
    assert sympy.simplify(sympy.Matrix(u) - expected) == sympy.zeros(4, 4)


def test_unitary_refuses_what_has_none():
    measured = gq.Circuit(1, n_clbits=1).h(0).measure(0, 0)
    with pytest.raises(gq.NotUnitaryError, match="no unitary"):
        gq.unitary(measured)
    (phi,) = gq.parameters("phi")
    with pytest.raises(gq.UnboundParameterError, match="phi"):
        gq.unitary(gq.Circuit(1).rz(phi, 0))
    with pytest.raises(gq.ArgumentTypeError, match="takes a Circuit"):
        gq.unitary(np.eye(2))


# -- per-shot memory ----------------------------------------------------------------------------
def test_memory_tallies_to_the_counts_of_the_same_seed():
    c = gq.Circuit(3).h(0).cx(0, 1).ry(0.7, 2)
    shots = gq.memory(c, 500, seed=11)
    assert len(shots) == 500
    assert dict(collections.Counter(shots)) == gq.counts(c, 500, seed=11)
    measured = gq.Circuit(2, n_clbits=1).h(0).measure(0, 0)
    bits = gq.memory(measured, 200, seed=2)
    assert set(bits) == {"0", "1"} and dict(collections.Counter(bits)) == gq.counts(
        measured, 200, seed=2
    )
    psi = gq.simulate(c)
    assert collections.Counter(gq.memory(psi, 300, seed=5, qubits=[2])) == collections.Counter(
        psi.sample(300, seed=5, qubits=[2])
    )


def test_memory_is_in_shot_order_not_sorted():
    # independent fair coin flips change value between neighbouring shots half the time
    flips = gq.memory(gq.Circuit(1).h(0), 4000, seed=1)
    changes = sum(a != b for a, b in itertools.pairwise(flips))
    assert abs(changes - 3999 / 2) < 5 * np.sqrt(3999) / 2


def test_memory_of_a_random_state_has_its_distribution():
    rng = np.random.default_rng(0)
    psi = gq.StateVector(random_state(3, rng))
    shots = gq.memory(psi, 20000, seed=3)
    freq = collections.Counter(shots)
    p = psi.probabilities()
    for i in range(8):
        expected = 20000 * p[i]
        assert abs(freq[format(i, "03b")] - expected) < 5 * np.sqrt(expected + 1)
