"""Layers of complex one-qubit gates split into real gates between diagonals
(genqsim/plan/layers.py), and diagonal stretches merged by bands (genqsim/plan/diagonals.py):
the parts against the matrices they came from, the plans against the generic routine."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim.backends import BlockLayout
from genqsim.plan import build_plan, run_plan
from genqsim.plan.calls import DiagonalCall, MatrixCall
from genqsim.plan.diagonals import merge_diagonals
from genqsim.plan.layers import split_unitary_layers, unitary_parts

from reference import random_state

SPECIAL = [
    np.array([[0, 1], [1, 0]]),  # X: the cosine is zero
    np.array([[0, -1j], [1j, 0]]),  # Y
    np.array([[1, 0], [0, 1j]]),  # S: the sine is zero
    np.array([[np.exp(0.3j), 0], [0, np.exp(-1.1j)]]),
    np.array([[0, np.exp(0.7j)], [np.exp(2.0j), 0]]),
    np.array([[1, 1], [1, -1]]) / np.sqrt(2),
    np.array([[1, 1j], [1j, 1]]) / np.sqrt(2),  # RX(-pi/2): sine equals cosine
    np.array([[1, 1e-9], [-1e-9, 1]]) / np.sqrt(1 + 1e-18),  # a tiny sine
]


def haar_unitary(rng: np.random.Generator) -> np.ndarray:
    """A Haar-random 2x2 unitary (QR of a complex Gaussian matrix, phases fixed)."""
    z = rng.standard_normal((2, 2)) + 1j * rng.standard_normal((2, 2))
    q, r = np.linalg.qr(z)
    return q * (np.diag(r) / np.abs(np.diag(r)))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(["complex128", "complex64"]))
def test_unitary_parts_give_the_matrix_back(seed, dtype):
    """``diag(after) @ real @ diag(before)`` is the matrix, for Haar-random unitaries and
    for those with a zero or tiny entry: ``real`` a rotation, the others unit phases with
    ``before[0] == 1``, all in the matrix's dtype."""
    rng = np.random.default_rng(seed)
    tolerance = 1e-13 if dtype == "complex128" else 2e-6
    for m in [haar_unitary(rng), *SPECIAL]:
        m = m.astype(dtype)
        parts = unitary_parts(m)
        assert parts is not None
        after, real, before = parts
        assert after.dtype == real.dtype == before.dtype == np.dtype(dtype)
        np.testing.assert_allclose(
            np.diag(after) @ real @ np.diag(before), m, atol=tolerance, rtol=0
        )
        assert np.all(real.imag == 0) and before[0] == 1
        np.testing.assert_allclose(real.real.T @ real.real, np.eye(2), atol=tolerance)
        assert real[0, 0] == real[1, 1] and real[0, 1] == -real[1, 0]
        np.testing.assert_allclose(np.abs(np.r_[after, before]), 1, atol=tolerance)


def test_unitary_parts_refuses_what_is_not_a_2x2_unitary():
    """Not unitary (a shear, a scaled unitary), not 2x2, or not complex: ``None``."""
    assert unitary_parts(np.array([[1, 1j], [0, 1]])) is None
    assert unitary_parts(2 * haar_unitary(np.random.default_rng(0))) is None
    assert unitary_parts(np.array([[1, 0.5j], [0.5j, 1]])) is None  # columns not unit
    assert unitary_parts(np.eye(4, dtype=complex)) is None
    assert unitary_parts(np.array([[0.6, -0.8], [0.8, 0.6]])) is None  # real: nothing to split


def _u(rng: np.random.Generator, q: int) -> MatrixCall:
    return MatrixCall(haar_unitary(rng), (q,))


def test_a_layer_becomes_diagonals_reals_diagonals():
    """A layer of four complex gates, H and T on distinct qubits: the diagonals applied first
    (each split gate's ``before`` and T, in turn), the real parts and H, then each ``after``; a
    stretch with three complex gates, and a repeated qubit ending a stretch, stay as they
    were; the calls of each rewritten layer multiply out to the layer."""
    rng = np.random.default_rng(1)
    h = MatrixCall(np.array([[1, 1], [1, -1]], dtype=complex) / np.sqrt(2), (4,))
    t = MatrixCall(np.diag([1, np.exp(0.25j * np.pi)]), (5,))
    layer = [_u(rng, 0), h, _u(rng, 1), t, _u(rng, 2), _u(rng, 3)]
    out = split_unitary_layers(layer)
    kinds = [(type(c).__name__, c.targets) for c in out]
    assert kinds == [("DiagonalCall", (q,)) for q in (0, 1, 5, 2, 3)] + [
        ("MatrixCall", (0,)), ("MatrixCall", (4,)), ("MatrixCall", (1,)), ("MatrixCall", (2,)),
        ("MatrixCall", (3,)),
    ] + [("DiagonalCall", (q,)) for q in range(4)]  # fmt: skip
    assert all(np.all(np.asarray(c.matrix).imag == 0) for c in out if isinstance(c, MatrixCall))

    short = [_u(rng, 0), _u(rng, 1), _u(rng, 2), h]
    assert split_unitary_layers(short) == short
    repeated = [_u(rng, 0), _u(rng, 1), _u(rng, 0), _u(rng, 2), _u(rng, 3)]
    assert split_unitary_layers(repeated)[:2] == repeated[:2]  # [u0, u1] then [u0 .. u3]

    generic = gq.get_backend("numpy")
    for calls in (layer, repeated):
        want = random_state(6, np.random.default_rng(2))
        got = want.copy()
        for call in calls:
            call.run(generic, want)
        for call in split_unitary_layers(calls):
            call.run(generic, got)
        np.testing.assert_allclose(got, want, atol=1e-13, rtol=0)


def test_merge_diagonals_parts_a_stretch_by_bands():
    """With bands (2, 4): the calls whose highest qubit is below 2, from 2 to 3 and from 4
    on are merged apart, lowest band first, each part greedily up to the qubit limit."""

    def z(*qubits: int) -> DiagonalCall:
        return DiagonalCall(np.exp(1j * np.arange(1 << len(qubits))), qubits)

    calls = [z(4), z(0), z(3, 1), z(1), z(5, 2), z(0, 1), z(2)]
    merged = merge_diagonals(calls, 3, bands=(2, 4))
    assert [c.targets for c in merged] == [(0, 1), (1, 2, 3), (2, 4, 5)]
    generic = gq.get_backend("numpy")
    want = random_state(6, np.random.default_rng(4))
    got = want.copy()
    for call in calls:
        call.run(generic, want)
    for call in merged:
        call.run(generic, got)
    np.testing.assert_allclose(got, want, atol=1e-13, rtol=0)


@st.composite
def layered_circuits(draw):
    """Circuits of ``n`` = 4 to 7 qubits: layers of U (with H, RY and T mixed in, sometimes
    a qubit twice) between bricks of CZ, CX, RZ and controlled U."""
    n = draw(st.integers(4, 7))
    c = gq.Circuit(n)
    angle = st.floats(-np.pi, np.pi, allow_nan=False)
    for _ in range(draw(st.integers(1, 4))):
        for q in draw(st.lists(st.integers(0, n - 1), min_size=4, max_size=n + 2)):
            kind = draw(st.sampled_from(["u", "u", "u", "h", "ry", "t"]))
            if kind == "u":
                c.u(draw(angle), draw(angle), draw(angle), q)
            elif kind == "ry":
                c.ry(draw(angle), q)
            else:
                getattr(c, kind)(q)
        for _ in range(draw(st.integers(0, n))):
            a, b = draw(st.permutations(range(n)))[:2]
            kind = draw(st.sampled_from(["cz", "cx", "rz", "cu"]))
            if kind == "rz":
                c.rz(draw(angle), a)
            elif kind == "cu":
                c.cu(draw(angle), draw(angle), draw(angle), 0.0, a, b)
            else:
                getattr(c, kind)(a, b)
    return c


@settings(max_examples=60, deadline=None)
@given(layered_circuits(), st.sampled_from(["complex128", "complex64"]))
def test_split_and_banded_plans_equal_the_generic_routine(circuit, dtype):
    """A fused plan whose layout merges diagonals in bands (so it also splits U layers), run
    by the Numba backend in blocks of three qubits and gathered tiles, equals the circuit
    run gate by gate on the generic routine."""
    pytest.importorskip("numba")
    numbers = gq.get_number_system(dtype)
    layout = BlockLayout(
        tile_qubits=3,
        low_qubits=3,
        min_state_qubits=4,
        gathered=BlockLayout(tile_qubits=3, low_qubits=1, min_state_qubits=4),
        merged_diagonal_qubits=3,
        merged_diagonal_bands=(1, 3),
    )
    n = circuit.n_qubits
    plan = build_plan(circuit, numbers, fuse=True, layout=layout)
    backend = gq.get_backend("numba")
    psi0 = random_state(n, np.random.default_rng(n))
    state = psi0.astype(numbers.dtype)
    run_plan(plan, backend, state)
    want = gq.simulate(circuit, backend="numpy", initial=psi0, fuse=False).amplitudes
    tolerance = 1e-12 if dtype == "complex128" else 2e-5
    np.testing.assert_allclose(state, want, atol=tolerance, rtol=0)


def test_the_default_numba_plan_splits_a_random_circuits_layers():
    """The benchmark's random circuit on 17 qubits (blocks of 16), fused (the default from 22
    qubits): the Numba backend's plan holds real one-qubit gates and no complex non-diagonal
    one, and equals the generic routine."""
    pytest.importorskip("numba")
    from genqsim.cli.bench import Case, circuit_of
    from genqsim.plan import plan_for_backend

    n = 17
    circuit = circuit_of(Case("random", "circuit", n, depth=4))
    numbers = gq.get_number_system("complex128")
    backend = gq.get_backend("numba")
    plan = plan_for_backend(circuit, numbers, backend, fuse=True)
    calls = [c for item in plan for c in getattr(item, "calls", [item])]
    one_qubit = [c for c in calls if isinstance(c, MatrixCall) and len(c.targets) == 1]
    assert len(one_qubit) >= 4 * (n - 1)  # fusion takes a few into two-qubit blocks
    assert all(np.all(c.matrix.imag == 0) for c in one_qubit)
    psi0 = random_state(n, np.random.default_rng(5))
    state = psi0.copy()
    run_plan(plan, backend, state)
    want = gq.simulate(circuit, backend="numpy", initial=psi0, fuse=False).amplitudes
    np.testing.assert_allclose(state, want, atol=1e-12, rtol=0)
