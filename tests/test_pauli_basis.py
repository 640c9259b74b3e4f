"""Density matrices on real Pauli coordinates (genqsim.states.pauli_basis): the change of
coordinates against Tr(P rho) with P built by np.kron, transfer matrices against textbook
closed forms, and whole noisy runs against the dense Kraus construction."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_noise import _dense_reference, _random_rho, noisy_circuits

import genqsim as gq
from genqsim.backends import GenericBackend
from genqsim.backends.numba_backend import NumbaBackend
from genqsim.backends.pauli_coordinates import GatePauliCoordinates
from genqsim.circuit import channels
from genqsim.circuit.circuit import Operation
from genqsim.errors import ArgumentValueError, NumberTypeError
from genqsim.states import DensityMatrix, DensityOptions
from genqsim.states.doubling import SuperoperatorGate, doubled_circuit
from genqsim.states.pauli_basis import PauliRun, pauli_run, transfer_matrix

pytest.importorskip("numba")

X = np.array([[0, 1], [1, 0]], dtype=complex)
Z = np.diag([1.0 + 0j, -1.0])


def pauli_coordinates(rho: np.ndarray) -> np.ndarray:
    """``y[x + 2**n z] = Tr(i**popcount(x & z) X**x Z**z rho) / 2**(n/2)``, the Pauli strings
    built qubit by qubit with np.kron (qubit 0 the last factor)."""
    dim = rho.shape[0]
    n = dim.bit_length() - 1
    out = np.empty(dim * dim)
    for x in range(dim):
        for z in range(dim):
            p = np.ones((1, 1), dtype=complex)
            for q in range(n):
                factor = np.linalg.matrix_power(X, (x >> q) & 1) @ np.linalg.matrix_power(
                    Z, (z >> q) & 1
                )
                p = np.kron(factor, p)
            value = 1j ** bin(x & z).count("1") * np.trace(p @ rho)
            assert abs(value.imag) < 1e-12 * max(1.0, abs(value))
            out[x + dim * z] = value.real / 2 ** (n / 2)
    return out


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_coordinates_are_the_pauli_traces(n, dtype):
    backend = gq.get_backend("numba")
    rho = _random_rho(n, np.random.default_rng(n))
    vec = rho.reshape(-1).astype(dtype)
    coords = backend.to_pauli_coordinates(vec, n)
    assert coords is not None and coords.dtype.kind == "f"
    tol = 1e-14 if dtype == "complex128" else 2e-7
    np.testing.assert_allclose(coords, pauli_coordinates(rho), atol=tol)
    backend.from_pauli_coordinates(vec, n)
    np.testing.assert_allclose(vec, rho.reshape(-1), atol=tol * 10)


@pytest.mark.parametrize("n", [5, 7, 8])
def test_coordinates_round_trip_over_several_hadamard_stages(n):
    """Seven and eight qubits take two Walsh-Hadamard passes; purity is the sum of squares
    of the coordinates (an orthonormal basis)."""
    backend = gq.get_backend("numba")
    rho = _random_rho(n, np.random.default_rng(7))
    vec = rho.reshape(-1).copy()
    coords = backend.to_pauli_coordinates(vec, n)
    assert coords is not None
    np.testing.assert_allclose(np.sum(coords**2), np.trace(rho @ rho).real, rtol=1e-12)
    # the all-identity coordinate is Tr(rho) / 2**(n/2)
    np.testing.assert_allclose(coords[0], 2 ** (-n / 2), rtol=1e-12)
    backend.from_pauli_coordinates(vec, n)
    np.testing.assert_allclose(vec, rho.reshape(-1), atol=1e-15)


class _GateCoordinates(GenericBackend, GatePauliCoordinates):
    """The NumPy routines with the change of coordinates run as gates (the CuPy backend's
    way), so it is checked here without a GPU."""

    name = "numpy-gate-coordinates"


class _TiledGateCoordinates(GatePauliCoordinates, NumbaBackend):
    """The same on the Numba backend's gathered tiles: the pair matrices grouped into tile
    runs, as the CuPy backend groups them into shared-memory tiles."""


@pytest.mark.parametrize("n", [1, 3, 5])
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_coordinates_reached_by_gates_equal_the_pauli_traces(n, dtype):
    """The pair matrix (CX from the row to the column, H on the row, the phase i**(x z)) on
    every pair gives the same coordinates, in the same memory, as the Numba transform and the
    traces of the Pauli strings; back again it gives ``vec(rho)``."""
    rho = _random_rho(n, np.random.default_rng(10 + n))
    vec = rho.reshape(-1).astype(dtype)
    backend = _GateCoordinates()
    coords = backend.to_pauli_coordinates(vec, n)
    assert coords is not None and coords.dtype.kind == "f" and np.shares_memory(coords, vec)
    tol = 1e-13 if dtype == "complex128" else 2e-6
    np.testing.assert_allclose(coords, pauli_coordinates(rho), atol=tol)
    numba_vec = rho.reshape(-1).astype(dtype)
    np.testing.assert_allclose(coords, gq.get_backend("numba").to_pauli_coordinates(numba_vec, n),
                               atol=tol)  # fmt: skip
    backend.from_pauli_coordinates(vec, n)
    np.testing.assert_allclose(vec, rho.reshape(-1), atol=tol * 10)


@pytest.mark.parametrize(("n", "dtype"), [(8, "complex128"), (9, "complex64")])
def test_coordinates_reached_by_gates_in_tile_runs_equal_the_numba_transform(n, dtype):
    """Beyond one tile the pair matrices run as tile runs of the lowest qubits plus as many
    pairs as fit (the plan checked here), with the same coordinates and way back."""
    from genqsim.backends.pauli_coordinates import coordinate_change
    from genqsim.plan import BlockRun

    backend = _TiledGateCoordinates()
    layout = backend.tile_layout(np.dtype(dtype))
    runs = coordinate_change(n, layout.tile_qubits, layout.low_qubits)
    assert len(runs) > 1 and all(isinstance(r, BlockRun) for r in runs)
    assert sum(len(r.calls) for r in runs) == n
    assert all(r.block_qubits <= layout.tile_qubits for r in runs)
    assert all(set(range(layout.low_qubits)) <= set(r.qubits) for r in runs)
    rho = _random_rho(n, np.random.default_rng(n))
    vec = rho.reshape(-1).astype(dtype)
    coords = backend.to_pauli_coordinates(vec, n)
    want = gq.get_backend("numba").to_pauli_coordinates(rho.reshape(-1).astype(dtype), n)
    tol = 1e-13 if dtype == "complex128" else 1e-6
    np.testing.assert_allclose(coords, want, atol=tol)
    backend.from_pauli_coordinates(vec, n)
    np.testing.assert_allclose(vec, rho.reshape(-1), atol=tol * 10)


def test_coordinates_reached_by_gates_refuse_a_non_hermitian_operator():
    m = np.zeros((16, 16), dtype=complex)
    m[0, 3] = 1
    vec = m.reshape(-1).copy()
    assert _GateCoordinates().to_pauli_coordinates(vec, 4) is None
    np.testing.assert_allclose(vec, m.reshape(-1), atol=1e-15)  # back as it was


def test_a_non_hermitian_operator_stays_in_the_computational_basis():
    """An operator given as ``rho`` need not be Hermitian: its coordinates are not real, so
    it is left untouched and the run takes the computational basis (same result as there)."""
    m = np.zeros((16, 16), dtype=complex)
    m[0, 3] = 1
    assert gq.get_backend("numba").to_pauli_coordinates(m.reshape(-1).copy(), 4) is None
    c = gq.Circuit(4).h(0).cx(0, 1).depolarizing(0.1, 1).amplitude_damping(0.2, 3)
    forced = DensityMatrix(m, options=DensityOptions(pauli_basis=True)).apply(c).to_numpy()
    plain = DensityMatrix(m, options=DensityOptions(pauli_basis=False)).apply(c).to_numpy()
    np.testing.assert_allclose(forced, plain, atol=1e-15)


def _transfer(channel):
    op = Operation(SuperoperatorGate(channel), (0, 1))
    found = transfer_matrix(op, 1)
    assert found is not None
    return found[0]


def test_transfer_matrices_match_closed_forms():
    """Coordinates are ordered I, X, Z, Y (index x + 2z)."""
    p, g = 0.12, 0.3
    shrink = 1 - 4 * p / 3
    np.testing.assert_allclose(
        _transfer(channels.depolarizing(p)), np.diag([1, shrink, shrink, shrink]), atol=1e-15
    )
    damping = np.zeros((4, 4))
    damping[0, 0] = 1
    damping[1, 1] = damping[3, 3] = np.sqrt(1 - g)
    damping[2, 0], damping[2, 2] = g, 1 - g
    np.testing.assert_allclose(_transfer(channels.amplitude_damping(g)), damping, atol=1e-15)


def test_a_gate_on_the_row_qubits_alone_has_no_transfer_matrix():
    """``rho -> H rho`` is not Hermitian-preserving: the plain doubling's halves stay in the
    computational basis (``fuse=False`` never takes the Pauli basis)."""
    half = Operation(gq.gates.NamedGate("h"), (1,))
    assert transfer_matrix(half, 1) is None
    ns = gq.get_number_system("complex128")
    c = gq.Circuit(8)
    for q in range(8):
        c.h(q).depolarizing(0.01, q)
    numba = gq.get_backend("numba")
    assert pauli_run(doubled_circuit(c, ns, False), 8, ns, numba, True) is None
    assert pauli_run(doubled_circuit(c, ns, None), 8, ns, numba, None) is not None
    assert pauli_run(doubled_circuit(c, ns, None), 8, ns, numba, False) is None
    assert pauli_run(doubled_circuit(c, ns, None), 8, ns, gq.get_backend("numpy"), True) is None


DTYPES = st.sampled_from(["complex128", "complex64"])


@settings(max_examples=60, deadline=None)
@given(noisy_circuits(), DTYPES, st.sampled_from([None, 1, 2]))
def test_pauli_basis_runs_match_dense_kraus_construction(circuit, dtype, fuse):
    """Forced onto Pauli coordinates (every gate, controlled or not, and every channel as a
    real transfer matrix), random noisy circuits equal sum_k K rho K^dagger built densely."""
    rho = gq.simulate(circuit, method="density_matrix", numbers=dtype, fuse=fuse, pauli_basis=True)
    tol = 1e-12 if dtype == "complex128" else 2e-6
    np.testing.assert_allclose(rho.to_numpy(), _dense_reference(circuit), atol=tol)


def test_large_noisy_runs_take_the_pauli_basis_by_default():
    """Eight qubits with noise after every gate (and a controlled rotation, non-unital
    channels): the default picks the Pauli basis, and matches the dense Kraus sums."""
    n = 8
    rng = np.random.default_rng(3)
    c = gq.Circuit(n)
    for layer in range(2):
        for q in range(n):
            c.u(*rng.uniform(0, 2 * np.pi, 3), q).depolarizing(0.01, q)
        for q in range(layer % 2, n - 1, 2):
            c.cx(q, q + 1).depolarizing(0.02, q, q + 1)
    c.crx(0.4, 0, 5).amplitude_damping(0.2, 5).thermal_relaxation(50.0, 70.0, 12.0, 2)
    c.channel(channels.reset_error(0.2, 0.1), (3,))
    ns = gq.get_number_system("complex128")
    assert pauli_run(doubled_circuit(c, ns, None), n, ns, gq.get_backend("numba")) is not None
    rho = gq.simulate(c, method="density_matrix")
    np.testing.assert_allclose(rho.to_numpy(), _dense_reference(c), atol=1e-12)


def test_real_states_refuse_complex_matrices_and_other_backends_pauli_runs():
    state = np.zeros(8)
    with pytest.raises(NumberTypeError, match="complex entries"):
        gq.get_backend("numba").apply_matrix(state, np.diag([1, 1j]), (0,))
    assert not state.any()
    with pytest.raises(ArgumentValueError, match="pauli_basis"):
        DensityOptions(pauli_basis="yes")  # type: ignore[arg-type]
    ns = gq.get_number_system("complex128")
    with pytest.raises(ArgumentValueError, match="cannot run Pauli coordinates"):
        PauliRun(gq.Circuit(2), 1, ns, gq.get_backend("numpy"))


@settings(max_examples=20, deadline=None)
@given(noisy_circuits(), st.sampled_from([True, False]))
def test_a_noisy_circuit_applied_again_keeps_its_run_until_it_grows(circuit, pauli_basis):
    """The doubled circuit, its Pauli-coordinate run and its plan are kept on the circuit:
    applied twice (the second time from what was kept), the state equals the dense Kraus
    construction of the circuit twice over; once the circuit grows it is compiled anew."""
    rho = DensityMatrix.zeros(circuit.n_qubits, options=DensityOptions(pauli_basis=pauli_basis))
    rho.apply(circuit)
    kept = rho._doubled_run(circuit, None)
    rho.apply(circuit)
    assert rho._doubled_run(circuit, None) is kept
    np.testing.assert_allclose(rho.to_numpy(), _dense_reference(circuit + circuit), atol=1e-12)
    circuit.h(0)
    assert rho._doubled_run(circuit, None) is not kept
