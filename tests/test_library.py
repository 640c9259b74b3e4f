"""Built-in circuits against independent references."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import genqsim as gq
from genqsim import library


def dense_of(circuit: gq.Circuit) -> np.ndarray:
    """The circuit's matrix, column by column, from basis-state runs."""
    return np.column_stack(
        [gq.simulate(circuit, initial=j).amplitudes for j in range(2**circuit.n_qubits)]
    )


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7])
def test_qft_is_the_dft_matrix(n):
    N = 2**n
    j, k = np.meshgrid(np.arange(N), np.arange(N))
    dft = np.exp(2j * np.pi * j * k / N) / np.sqrt(N)
    np.testing.assert_allclose(dense_of(library.qft(n)), dft, atol=1e-12)
    np.testing.assert_allclose(dense_of(library.qft(n, inverse=True)), dft.conj().T, atol=1e-12)


def test_qft_without_swaps_is_bit_reversed():
    n, N = 4, 16
    rev = [int(format(i, "04b")[::-1], 2) for i in range(N)]
    j, k = np.meshgrid(np.arange(N), np.arange(N))
    dft = np.exp(2j * np.pi * j * k / N) / np.sqrt(N)
    np.testing.assert_allclose(dense_of(library.qft(n, swaps=False)), dft[rev, :], atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 6])
def test_ghz_and_walsh(n):
    ghz = gq.simulate(library.ghz(n)).amplitudes
    expected = np.zeros(2**n)
    expected[[0, -1]] = 2**-0.5
    np.testing.assert_allclose(ghz, expected, atol=1e-14)
    hadamard = np.array([[1.0]])
    for _ in range(n):
        hadamard = np.kron(hadamard, np.array([[1, 1], [1, -1]]) / np.sqrt(2))
    np.testing.assert_allclose(dense_of(library.walsh(n)), hadamard, atol=1e-12)


@pytest.mark.parametrize("m", [0, 3, 5, 7])
def test_phase_estimation_exact_for_dyadic_phases(m):
    c = library.phase_estimation(3).bind({"phi": sympy.Rational(m, 8)})
    psi = gq.simulate(c, numbers="sympy")
    assert sympy.simplify(psi.probabilities()[m] - 1) == 0


def test_phase_estimation_peaks_at_nearest_fraction():
    p = gq.simulate(library.phase_estimation(5).bind({"phi": 0.3})).probabilities()
    assert int(np.argmax(p)) == round(0.3 * 32)
    assert p.sum() == pytest.approx(1)


# -- IQP -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("n,zz", [(1, True), (2, True), (4, True), (5, False), (6, True)])
def test_iqp_fast_route_equals_gate_by_gate_circuit(n, zz):
    rng = np.random.default_rng(n)
    data = rng.uniform(-np.pi, np.pi, n + (n * (n - 1) // 2 if zz else 0))
    fast = gq.library.iqp_encode(data, zz=zz)
    circuit = gq.simulate(library.iqp(data, zz=zz), fuse=False)
    np.testing.assert_allclose(fast.amplitudes, circuit.amplitudes, atol=1e-12)


def test_iqp_batch_and_complex64():
    rng = np.random.default_rng(0)
    batch = rng.uniform(-1, 1, size=(5, 10))  # n = 4 with pairs
    states = gq.library.iqp_encode(batch)
    assert states.shape == (5, 16)
    for row, data in zip(states, batch):
        np.testing.assert_allclose(row, gq.library.iqp_encode(data).amplitudes, atol=1e-13)
    single = gq.library.iqp_encode(batch[0], numbers="complex64")
    assert single.amplitudes.dtype == np.complex64
    np.testing.assert_allclose(single.amplitudes, states[0], atol=1e-6)


def test_iqp_rejects_bad_data():
    with pytest.raises(ValueError, match="n\\(n\\+1\\)/2"):
        library.iqp([0.1, 0.2])
    with pytest.raises(ValueError, match="finite"):
        gq.library.iqp_encode([np.nan, 0.1, 0.2])


def test_walsh_hadamard_transform_is_the_hadamard_matrix():
    rng = np.random.default_rng(1)
    v = rng.normal(size=16) + 1j * rng.normal(size=16)
    H = np.array([[1.0]])
    for _ in range(4):
        H = np.kron(H, [[1, 1], [1, -1]])
    np.testing.assert_allclose(library.walsh_hadamard_transform(v.copy()), H @ v, atol=1e-12)


# -- Trotter ------------------------------------------------------------------------------------

HEISENBERG = "X0 X1 + Y0 Y1 + 0.7*Z0 Z1 + X1 X2 + Y1 Y2 + 0.7*Z1 Z2 + 0.5*Z0 - 0.3*X2 + 0.2"


def test_exact_evolution_matches_scipy_expm():
    scipy_linalg = pytest.importorskip("scipy.linalg")
    H = library.pauli_matrix(HEISENBERG, 3)
    np.testing.assert_allclose(
        library.exact_evolution(HEISENBERG, 0.8, 3), scipy_linalg.expm(-0.8j * H), atol=1e-12
    )


@pytest.mark.parametrize("order", [1, 2, 4])
def test_trotter_error_falls_at_the_expected_order(order):
    scipy_linalg = pytest.importorskip("scipy.linalg")
    t, n = 1.0, 3
    exact = scipy_linalg.expm(-1j * t * library.pauli_matrix(HEISENBERG, n))
    psi0 = np.zeros(2**n, dtype=complex)
    psi0[0b101] = 1
    errors = []
    for steps in (4, 8, 16, 32) if order < 4 else (4, 8, 16):
        psi = gq.simulate(library.trotter(HEISENBERG, t, steps, order), initial=psi0)
        errors.append(np.linalg.norm(psi.amplitudes - exact @ psi0))
    slopes = -np.diff(np.log2(errors))  # error ~ steps**-order: slope ~ order
    assert np.all(np.abs(slopes - order) < 0.25), (errors, slopes)
    assert errors[-1] < (5e-2 if order == 1 else 2e-3)


def test_trotter_with_symbolic_time():
    (t,) = gq.parameters("t")
    c = library.trotter("Z0 + X0", t, steps=2)
    assert c.parameters == (t,)
    bound = gq.simulate(c.bind({t: 0.3}))
    assert bound.norm_squared() == pytest.approx(1)


# -- QAOA and hardware-efficient ansatz ------------------------------------------------------


def test_qaoa_maxcut_against_dense_construction():
    edges = [(0, 1), (1, 2), (2, 0), (2, 3)]
    c = library.qaoa_maxcut(edges, p=1)
    gamma, beta = 0.7, 0.3
    psi = gq.simulate(c.bind({"gamma0": gamma, "beta0": beta}))
    n = 4
    bits = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    cut = sum(bits[:, i] ^ bits[:, j] for i, j in edges)
    rx = np.cos(beta) * np.eye(2) - 1j * np.sin(beta) * np.array([[0, 1], [1, 0]])
    mixer = np.array([[1.0]])
    for _ in range(n):
        mixer = np.kron(mixer, rx)
    plus = np.full(2**n, 0.25, dtype=complex)
    expected = mixer @ (np.exp(-1j * gamma * cut) * plus)
    overlap = abs(np.vdot(expected, psi.amplitudes))  # equal up to a global phase
    assert overlap == pytest.approx(1.0, abs=1e-12)
    value = psi.expectation(library.maxcut_observable(edges))
    assert value == pytest.approx(float(np.sum(np.abs(expected) ** 2 * cut)), abs=1e-12)


def test_hardware_efficient_structure_and_parameters():
    c = library.hardware_efficient(4, 2)
    assert len(c.parameters) == 16
    assert c.count_ops() == {"ry": 8, "rz": 8, "cx": 8}
    rng = np.random.default_rng(0)
    values = dict(zip(c.parameters, rng.uniform(-3, 3, 16)))
    psi = gq.simulate(c.bind(values))
    # first layer, checked by hand: RY/RZ products on |0000> then the CNOT ring
    state = np.array([1.0 + 0j])
    thetas = list(values.values())
    for q in range(4):
        ry, rz = thetas[2 * q], thetas[2 * q + 1]
        one = np.array([np.cos(ry / 2), np.sin(ry / 2)]) * np.exp(-1j * rz / 2 * np.array([1, -1]))
        state = np.kron(one, state)
    layer1 = gq.simulate(gq.Circuit(4).cx(0, 1).cx(1, 2).cx(2, 3).cx(3, 0), initial=state)
    first = gq.simulate(c.bind(values), initial=0)
    assert first.norm_squared() == pytest.approx(1)
    half = library.hardware_efficient(4, 1).bind(dict(list(values.items())[:8]))
    np.testing.assert_allclose(gq.simulate(half).amplitudes, layer1.amplitudes, atol=1e-12)
    assert psi.norm_squared() == pytest.approx(1)
