"""The Numba backend against the generic NumPy routine: every primitive, both dtypes, random
circuits (hypothesis), reductions, the multithreaded path and thread settings."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim.plan.calls import BlockRun, DiagonalCall, MatrixCall, PermutationCall

from reference import random_state
from strategies import random_circuit

pytest.importorskip("numba")


@settings(max_examples=80, deadline=None)
@given(random_circuit(), st.sampled_from(["complex128", "complex64"]), st.integers(0, 2**31))
def test_random_circuits_match_generic_routine(circuit, dtype, seed):
    psi0 = random_state(circuit.n_qubits, np.random.default_rng(seed)).astype(dtype)
    fast = gq.simulate(circuit, numbers=dtype, backend="numba", initial=psi0)
    generic = gq.simulate(circuit, numbers=dtype, backend="numpy", initial=psi0)
    assert fast.backend.name == "numba" and generic.backend.name == "numpy"
    tol = 1e-12 if dtype == "complex128" else 2e-6
    np.testing.assert_allclose(fast.amplitudes, generic.amplitudes, atol=tol, rtol=0)
    n = circuit.n_qubits
    qubits = list(np.random.default_rng(seed).permutation(n)[: max(1, n // 2)])
    np.testing.assert_allclose(
        fast.probabilities(qubits), generic.probabilities(qubits), atol=tol, rtol=0
    )
    np.testing.assert_allclose(fast.probabilities(), generic.probabilities(), atol=tol, rtol=0)
    assert fast.norm_squared() == pytest.approx(generic.norm_squared(), abs=tol * 10)
    assert fast.inner(generic) == pytest.approx(generic.inner(generic), abs=tol * 10)
    observable = " + ".join(f"{0.5 + i}*{'XYZ'[i % 3]}{i} Z{(i + 1) % n}" for i in range(n - 1))
    observable = observable or "X0"
    assert fast.expectation(observable) == pytest.approx(
        generic.expectation(observable), abs=tol * 50
    )


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_multithreaded_path_matches_generic(dtype):
    """States above the parallel threshold run the prange loops on several threads."""
    from genqsim.backends.numba_switch import parallel_min_qubits

    n = parallel_min_qubits(2) + 1  # 15: the test session fixes the switch at 14
    rng = np.random.default_rng(1)
    U3 = np.linalg.qr(rng.normal(size=(8, 8)) + 1j * rng.normal(size=(8, 8)))[0]
    c = (
        gq.library.qft(n)
        .ccx(0, 5, n - 1)
        .iswap(2, n - 2)
        .unitary(U3, [1, n - 1, 7], [3], [0])
        .rzz(0.3, 0, n - 1)
        .cy(n - 1, 0)
    )
    psi0 = random_state(n, rng).astype(dtype)
    fast = gq.simulate(c, numbers=dtype, backend="numba", initial=psi0)
    generic = gq.simulate(c, numbers=dtype, backend="numpy", initial=psi0)
    tol = 1e-12 if dtype == "complex128" else 1e-5
    np.testing.assert_allclose(fast.amplitudes, generic.amplitudes, atol=tol, rtol=0)
    np.testing.assert_allclose(
        fast.probabilities([n - 1, 2]), generic.probabilities([n - 1, 2]), atol=tol
    )


@pytest.mark.parametrize("n", [10, 15])  # the serial and (in a two-thread scope) threaded kernels
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_one_target_diagonals_and_exchanges_take_their_shortcuts_and_match_generic(n, dtype):
    """The primitives read a one-target diagonal's two factors and a one-target permutation
    without array calls: every pattern of factors (both one, only the first, only the second,
    neither), exchanges and the identity, bare and under controls of either value, equal
    the generic routine, also inside a thread scope that asks for two threads."""
    from genqsim.backends import get_backend

    numba_backend, generic = get_backend("numba"), get_backend("numpy")
    rng = np.random.default_rng(3)
    phase = np.exp(0.7j)
    diagonals = [(1, 1), (1, phase), (phase, 1), (phase, np.exp(-0.2j)), (1, -1)]
    permutations = [[1, 0], [0, 1]]
    for controls, values in [((), ()), ((n - 1,), (1,)), ((0, 4), (0, 1))]:
        for target in (1, 3, n - 2):
            start = random_state(n, rng).astype(dtype)
            fast, slow = start.copy(), start.copy()
            with numba_backend.threads(2):
                for d in diagonals:
                    numba_backend.apply_diagonal(fast, np.array(d), (target,), controls, values)
                for p in permutations:
                    numba_backend.apply_permutation(fast, p, None, (target,), controls, values)
            for d in diagonals:
                generic.apply_diagonal(slow, np.array(d, dtype=dtype), (target,), controls, values)
            for p in permutations:
                generic.apply_permutation(slow, p, None, (target,), controls, values)
            tol = 1e-12 if dtype == np.complex128 else 1e-5
            np.testing.assert_allclose(fast, slow, atol=tol, rtol=0)


def test_a_thread_scope_is_what_kernels_choose_by_and_ends_where_it_began():
    """Kernels choose serial or threaded code by the count of the thread scope they run in
    (not asking Numba each time); scopes nest, and leaving one puts back Numba's count and
    the outer scope's."""
    import numba

    from genqsim.backends import get_backend
    from genqsim.backends import numba_backend as nb

    backend = get_backend("numba")
    before = numba.get_num_threads()
    assert nb._scoped.count is None
    with backend.threads(1):
        assert nb._scoped.count == 1 and numba.get_num_threads() == 1
        big = np.zeros(1 << 20, dtype=np.complex128)
        assert nb._kernels(big) is nb.K.SERIAL  # one thread: serial whatever the size
        with backend.threads(2):
            assert nb._scoped.count == 2 and numba.get_num_threads() == 2
            assert nb._kernels(big) is nb.K.PARALLEL
        assert nb._scoped.count == 1 and numba.get_num_threads() == 1
    assert nb._scoped.count is None and numba.get_num_threads() == before


def test_set_num_threads_validates_and_applies():
    import numba

    limit = numba.config.NUMBA_NUM_THREADS
    gq.set_num_threads(1)
    assert gq.get_num_threads() == 1
    gq.set_num_threads(limit)
    assert gq.get_num_threads() == limit
    with pytest.raises(ValueError, match=f"1..{limit}"):
        gq.set_num_threads(limit + 1)
    with pytest.raises(ValueError):
        gq.set_num_threads(0)


def test_numba_num_threads_environment_is_respected():
    code = (
        "import genqsim as gq; psi = gq.simulate(gq.library.qft(15), initial=5);"
        "print(gq.get_num_threads(), psi.backend.name, round(psi.norm_squared(), 12))"
    )
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "numba", "1.0"]


def test_non_contiguous_or_object_arrays_fall_back_to_generic():
    strided = np.zeros(8, dtype=complex)[::2]
    strided[0] = 1
    assert gq.StateVector(strided).backend.name == "numpy"
    with pytest.raises(gq.UnknownBackendError):
        gq.StateVector(np.array([1, 0], dtype=object), backend="numba")


@settings(max_examples=40, deadline=None)
@given(
    st.integers(3, 4),
    st.booleans(),
    st.sampled_from([0, 2]),
    st.sampled_from(["complex128", "complex64"]),
    st.integers(0, 2**31),
)
def test_sparse_matrices_match_generic_alone_and_in_block_runs(k, controlled, low, dtype, seed):
    """Matrices of 3+ qubits with few nonzeros (noisy superoperators) run as sparse rows,
    empty rows included, on their own and inside a cache-blocked run; group by group, or in
    lanes of neighbouring groups where the lowest target leaves 4+ consecutive amplitudes
    (``low=2``)."""
    from genqsim.backends.numba_backend import _sparse_form
    from genqsim.plan.calls import BlockRun, MatrixCall

    rng = np.random.default_rng(seed)
    dim = 1 << k
    mask = rng.random((dim, dim)) < 0.12
    mask[rng.integers(dim)] = False
    m = np.where(mask, rng.normal(size=(dim, dim)) + 1j * rng.normal(size=(dim, dim)), 0)
    assert _sparse_form(m.astype(dtype)) is not None
    targets = tuple(int(q) for q in rng.choice(np.arange(low, 6), k, replace=False))
    controls, values = ((6,), (1,)) if controlled else ((), ())
    psi0 = random_state(8, rng).astype(dtype)
    expected = psi0.copy()
    gq.get_backend("numpy").apply_matrix(expected, m.astype(dtype), targets, controls, values)
    numba_backend = gq.get_backend("numba")
    alone = psi0.copy()
    numba_backend.apply_matrix(alone, m, targets, controls, values)
    blocked = psi0.copy()
    numba_backend.apply_block_run(blocked, BlockRun([MatrixCall(m, targets, controls, values)], 7))
    tol = 1e-12 if dtype == "complex128" else 1e-5
    np.testing.assert_allclose(alone, expected, atol=tol, rtol=0)
    np.testing.assert_allclose(blocked, expected, atol=tol, rtol=0)


def _dense_transition(bra, ket, x_mask, z_mask, controls, values):
    """``<bra| (projectors on the controls) X^x Z^z |ket>`` from a kron-built operator."""
    n = bra.size.bit_length() - 1
    X, Z, eye = np.array([[0, 1], [1, 0]]), np.diag([1, -1]), np.eye(2)
    op = np.eye(1)
    for q in reversed(range(n)):  # qubit n-1 is the leftmost factor
        factor = eye
        if x_mask >> q & 1:
            factor = factor @ X
        if z_mask >> q & 1:
            factor = factor @ Z
        if q in controls:
            v = values[controls.index(q)]
            factor = np.diag([1 - v, v])
        op = np.kron(op, factor)
    return np.vdot(bra, op @ ket)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.data(), st.sampled_from(["complex128", "complex64"]))
def test_pauli_transition_matches_a_dense_operator(n, data, dtype):
    """The adjoint sweep's reduction <bra| X^x Z^z |ket> under controls (both control values)
    on both backends, against the kron-built operator."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    bra, ket = (random_state(n, rng).astype(dtype) for _ in range(2))
    order = data.draw(st.permutations(range(n)))
    n_controls = data.draw(st.integers(0, n - 1))
    controls, targets = tuple(order[:n_controls]), order[n_controls:]
    values = tuple(data.draw(st.lists(st.integers(0, 1), min_size=n_controls, max_size=n_controls)))
    x_mask = sum(data.draw(st.integers(0, 1)) << q for q in targets)
    z_mask = sum(data.draw(st.integers(0, 1)) << q for q in targets)
    want = _dense_transition(bra.astype(complex), ket.astype(complex), x_mask, z_mask,
                             controls, values)  # fmt: skip
    ns = gq.get_number_system(dtype)
    tol = 1e-12 if dtype == "complex128" else 2e-6
    for name in ("numba", "numpy"):
        got = gq.get_backend(name).pauli_transition(bra, ket, x_mask, z_mask, ns, controls, values)
        assert abs(complex(got) - want) < tol, name


def test_pauli_transition_threaded_path_matches_generic():
    from genqsim.backends.numba_switch import parallel_min_qubits

    n = parallel_min_qubits(2) + 1  # 15: the test session fixes the switch at 14
    rng = np.random.default_rng(3)
    bra, ket = random_state(n, rng), random_state(n, rng)
    ns = gq.get_number_system("complex128")
    args = (0b1010, 0b0110, ns, (n - 1, 0), (1, 0))
    fast = gq.get_backend("numba").pauli_transition(bra, ket, *args)
    generic = gq.get_backend("numpy").pauli_transition(bra, ket, *args)
    assert abs(fast - generic) < 1e-12 and abs(generic) > 1e-6


ADJOINT_STEPS = {  # (inverse, generator): the general, real and diagonal kernels
    "general": (lambda rng: np.linalg.qr(rng.normal(size=(2, 2)) + 1j * rng.normal(size=(2, 2)))[0],
                np.array([[0.3, 0.2 - 0.5j], [0.2 + 0.5j, -0.1]])),
    "real": (lambda rng: np.linalg.qr(rng.normal(size=(2, 2)))[0],
             np.array([[0, -0.5j], [0.5j, 0]])),
    "diagonal": (lambda rng: np.diag(np.exp(1j * rng.uniform(-3, 3, 2))),
                 np.array([[0.5, 0], [0, -0.25]])),
}  # fmt: skip


@pytest.mark.parametrize("n", [5, 15])  # the serial and the threaded kernels
@pytest.mark.parametrize("controls", [(), (1,), (4, 0)])
@pytest.mark.parametrize("place", ["0", "2", "middle", "top"])
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("kind", sorted(ADJOINT_STEPS))
def test_fused_adjoint_step_equals_its_three_passes(n, controls, place, dtype, kind):
    """One pass: Im <lam| G |psi> over the changed pairs, then the inverse applied to both
    states; against the masked inner product and two generic applies. Targets 0 (adjacent
    pairs), 2 (short groups), the middle (groups of 16 or more pairs, or short series under
    a control) and the top (long series) reach every walk, for each kernel variant."""
    rng = np.random.default_rng(n + len(controls))
    psi, lam = random_state(n, rng).astype(dtype), random_state(n, rng).astype(dtype)
    values = tuple(int(v) for v in rng.integers(0, 2, len(controls)))
    target = {"0": 0, "2": 2, "middle": 5 if n > 5 else 3, "top": n - 1}[place]
    if target in controls:  # other qubits, as many
        controls = tuple(q for q in dict.fromkeys((n - 2, 1, 3)) if q != target)[: len(controls)]
    make_inverse, generator = ADJOINT_STEPS[kind]
    inverse = make_inverse(rng)
    j = np.arange(psi.size)
    changed = np.ones(psi.size, dtype=bool)
    for c, v in zip(controls, values):
        changed &= (j >> c & 1) == v
    low = changed & ((j >> target & 1) == 0)
    i0, i1 = j[low], j[low] | 1 << target
    p, lm = psi.astype(np.complex128), lam.astype(np.complex128)
    g_psi = [generator[a, 0] * p[i0] + generator[a, 1] * p[i1] for a in (0, 1)]
    want = (np.vdot(lm[i0], g_psi[0]) + np.vdot(lm[i1], g_psi[1])).imag
    generic = gq.get_backend("numpy")
    psi_want, lam_want = psi.copy(), lam.copy()
    for state in (psi_want, lam_want):
        generic.apply_matrix(state, inverse, (target,), controls, values)
    backend = gq.get_backend("numba")
    got = backend.adjoint_step_1q(psi, lam, inverse, generator, target, controls, values)
    tolerance = 1e-12 if dtype is np.complex128 else 2e-5
    assert abs(got - want) < tolerance and abs(want) > 1e-6
    np.testing.assert_allclose(psi, psi_want, atol=tolerance)
    np.testing.assert_allclose(lam, lam_want, atol=tolerance)


def assert_plan_matches_generic(calls, plan, n: int, dtype: str, seed: int) -> None:
    """``plan`` (the ``calls`` grouped) on the Numba backend equals ``calls`` one by one on
    the generic routine, from one random state."""
    from genqsim.plan import run_item

    state = random_state(n, np.random.default_rng(seed)).astype(dtype)
    want = state.copy()
    generic, fast = gq.get_backend("numpy"), gq.get_backend("numba")
    for call in calls:
        call.run(generic, want)
    for item in plan:
        run_item(item, fast, state)
    np.testing.assert_allclose(state, want, atol=1e-12 if dtype == "complex128" else 2e-6)


def assert_grouping_matches_generic(circuit, dtype: str, grouping: str, seed: int) -> None:
    """The circuit's calls as one run over the whole state, in blocks or in gathered tiles
    (``grouping``), on the Numba backend, against the generic routine."""
    from genqsim.plan import build_plan, group_block_runs, group_tile_runs

    n = circuit.n_qubits
    calls = build_plan(circuit, gq.get_number_system(dtype), fuse=False)
    plan = {
        "whole": [BlockRun(calls, n)] if len(calls) > 1 else calls,
        "blocks": group_block_runs(calls, n, n - 1),
        "tiles": group_tile_runs(calls, n, n - 1, 2),
    }[grouping]
    assert_plan_matches_generic(calls, plan, n, dtype, seed)


@settings(max_examples=30, deadline=None)
@given(
    random_circuit(n_min=11, n_max=13),
    st.sampled_from(["complex128", "complex64"]),
    st.sampled_from(["calls", "blocks", "tiles"]),
    st.integers(0, 2**31),
)
def test_float_view_dense_kernels_match_generic(circuit, dtype, grouping, seed):
    """Dense one- and two-qubit gates run on the floats of a complex state, walked as adjacent
    pairs (target 0), whole groups (targets up to 10), long series passed as separate arrays
    (targets above 10, or every fixed bit at 4 or more) or plain pairs (short series under a
    low control): gate by gate, in contiguous blocks and in gathered tiles big enough to hold
    every one of these cases, against the generic routine."""
    from genqsim.plan import build_plan, group_block_runs, group_tile_runs

    n = circuit.n_qubits
    numbers = gq.get_number_system(dtype)
    calls = build_plan(circuit, numbers, fuse=False)
    plan = {
        "calls": calls,
        "blocks": group_block_runs(calls, n, n - 2),
        "tiles": group_tile_runs(calls, n, n - 1, 4),
    }[grouping]
    assert_plan_matches_generic(calls, plan, n, dtype, seed)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("qubits", [(0, 1, 2, 3, 4), (0, 1, 5, 6, 8)], ids=["block", "tile"])
def test_run_matrices_updated_in_place_equal_a_fresh_encoding(dtype, qubits):
    """A run encoded once, given new one- and two-qubit matrices at some positions
    (update_run_matrices), applies exactly what a run built with those matrices applies; a
    position that is not a dense call is refused."""
    rng = np.random.default_rng(len(qubits) + np.dtype(dtype).itemsize)
    n = 9
    backend = gq.get_backend("numba")

    def unitary(k):
        q, _ = np.linalg.qr(rng.normal(size=(2**k, 2**k)) + 1j * rng.normal(size=(2**k, 2**k)))
        return q

    phases = np.exp(1j * rng.normal(size=2))

    def calls(matrices):
        a, b, c, d, e = qubits
        return [
            MatrixCall(matrices[0], (a,)),
            PermutationCall((1, 0), None, (b,), (c,), (1,)),
            MatrixCall(matrices[1], (d, b)),
            DiagonalCall(phases, (e,)),
            MatrixCall(matrices[2], (c,), (a,), (0,)),
        ]

    old = [unitary(1), unitary(2), unitary(1)]
    new = [unitary(1), unitary(2), unitary(1)]
    run = BlockRun(calls(old), len(qubits), qubits)
    psi = random_state(n, rng).astype(dtype)
    backend.apply_block_run(psi.copy(), run)  # encoded with the old matrices
    backend.update_run_matrices(run, (0, 4), np.array([new[0], new[2]]))
    backend.update_run_matrices(run, (2,), np.array([new[1]]))
    fresh = BlockRun(calls(new), len(qubits), qubits)
    got, want = psi.copy(), psi.copy()
    backend.apply_block_run(got, run)
    backend.apply_block_run(want, fresh)
    np.testing.assert_array_equal(got, want)
    assert not np.allclose(got, psi, atol=1e-3)
    with pytest.raises(ValueError, match="not dense"):
        backend.update_run_matrices(run, (1,), np.array([new[0]]))


@pytest.mark.parametrize("n", [6, 15])  # the serial and the threaded kernels
@pytest.mark.parametrize("controls", ["none", "above", "below"])
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("grouping", ["calls", "blocks"])
def test_real_and_complex_one_qubit_gates_on_every_target(n, controls, dtype, grouping):
    """A real 2x2 matrix (mixed lane by lane: adjacent pairs, inline groups up to qubit 3,
    groups as two series from qubit 4, long series) and a complex one on every target, under
    no control, one just above and one below, gate by gate and in blocks, against the
    generic routine."""
    from genqsim.plan import build_plan, group_block_runs, run_item

    rng = np.random.default_rng(n)
    real = np.linalg.qr(rng.normal(size=(2, 2)))[0]
    complex_ = np.linalg.qr(rng.normal(size=(2, 2)) + 1j * rng.normal(size=(2, 2)))[0]
    circuit = gq.Circuit(n)
    for target in range(n):
        control = {"none": (), "above": (target + 1) % n, "below": (target - 1) % n}[controls]
        for matrix in (real, complex_):
            circuit.unitary(matrix, [target], control)
    numbers = gq.get_number_system(np.dtype(dtype).name)
    calls = build_plan(circuit, numbers, fuse=False)
    plan = calls if grouping == "calls" else group_block_runs(calls, n, n - 2)
    state = random_state(n, rng).astype(dtype)
    want = state.copy()
    for call in calls:
        call.run(gq.get_backend("numpy"), want)
    for item in plan:
        run_item(item, gq.get_backend("numba"), state)
    np.testing.assert_allclose(state, want, atol=1e-12 if dtype is np.complex128 else 2e-6)


ONE_QUBIT = ["h", "ry", "rx", "u", "cry", "cz"]
"""H and RY have real matrices (two in a row on different qubits run in one sweep of a row,
on the floats), RX and U complex ones (paired too, in complex arithmetic); CRY and CZ are
controlled: these break pairs."""


GATE_SPECS = st.tuples(
    st.sampled_from(ONE_QUBIT), st.integers(0, 12), st.integers(0, 12), st.floats(-3.2, 3.2)
)


LOW_PAIR_SPECS = st.tuples(
    st.sampled_from(["h", "ry", "ry", "u", "cz"]),
    st.integers(0, 4),
    st.integers(0, 4),
    st.floats(-3.2, 3.2),
)
"""H, RY, U and CZ on qubits 0 to 4: real pairs on the lowest qubits among complex gates."""


@pytest.mark.parametrize(
    ("sizes", "specs"), [((8, 13), GATE_SPECS), ((4, 9), LOW_PAIR_SPECS)], ids=["any", "low"]
)
@settings(max_examples=40, deadline=None)
@given(
    st.data(),
    st.sampled_from(["complex128", "complex64"]),
    st.sampled_from(["whole", "blocks", "tiles"]),
    st.integers(0, 2**31),
)
def test_one_qubit_gates_in_pairs_match_generic(sizes, specs, data, dtype, grouping, seed):
    """Consecutive uncontrolled one-qubit gates on different qubits (layers of H, RY, RX, U;
    targets at qubit 4 and above of a block: runs of 16 amplitudes or more, and above qubit
    10 runs cut at 1024) are applied two per sweep of a block or gathered tile, in either
    order of their qubits, real pairs on the floats and the others in complex arithmetic;
    so are real ones (H, RY) on qubits 0 and 1 or 2 and 3 (``numba_low_chunks.REAL_PAIRS``,
    the ``low`` cases: gates on qubits 0 to 4 only); controlled neighbours, complex gates
    and other pairs of low qubits run alone. Against the generic routine."""
    n = data.draw(st.integers(*sizes), label="n")
    gates = data.draw(st.lists(specs, min_size=2, max_size=24), label="gates")
    circuit = gq.Circuit(n)
    for name, q, r, angle in gates:
        q, r = q % n, r % n
        if name == "h":
            circuit.h(q)
        elif name in ("ry", "rx"):
            getattr(circuit, name)(angle, q)
        elif name == "u":
            circuit.u(angle, 0.5 * angle, 1.0 - angle, q)
        elif q != r:
            circuit.cry(angle, r, q) if name == "cry" else circuit.cz(r, q)
    assert_grouping_matches_generic(circuit, dtype, grouping, seed)


SPLIT_GATES = ["u", "rx", "h", "ry", "rz", "t", "p", "cz", "cp", "rzz", "cx"]
"""Complex one-qubit gates (U, RX), real ones (H, RY), complex and real diagonals on one or
two qubits (RZ, T, P, CP, RZZ; CZ): all run on a split row; CX ends a stretch."""


SPLIT_SPECS = st.tuples(
    st.sampled_from(SPLIT_GATES), st.integers(0, 12), st.integers(0, 12), st.floats(-3.2, 3.2)
)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(9, 13),
    st.lists(SPLIT_SPECS, min_size=4, max_size=40),
    st.sampled_from(["complex128", "complex64"]),
    st.sampled_from(["whole", "blocks", "tiles"]),
    st.integers(0, 2**31),
)
def test_split_rows_match_generic(n, gates, dtype, grouping, seed):
    """Stretches of one-qubit gates and diagonals with at least ``PLANAR_MIN_CALLS`` complex
    one-qubit gates run on a block or tile row split into real and imaginary parts (pairs 1 to 64
    amplitudes apart in unrolled groups, farther ones in series; diagonals as patterns or
    series), in whole rows, blocks and gathered tiles. Against the generic routine."""
    circuit = gq.Circuit(n)
    for name, q, r, angle in gates:
        q, r = q % n, r % n
        if name in ("u",):
            circuit.u(angle, 0.5 * angle, 1.0 - angle, q)
        elif name in ("rx", "ry", "rz", "p"):
            getattr(circuit, name)(angle, q)
        elif name in ("h", "t"):
            getattr(circuit, name)(q)
        elif q != r:
            if name in ("cp", "rzz"):
                getattr(circuit, name)(angle, q, r)
            else:
                getattr(circuit, name)(q, r)
    assert_grouping_matches_generic(circuit, dtype, grouping, seed)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 6),
    st.integers(1, 10),
    st.booleans(),
    st.sampled_from([np.float64, np.float32]),
    st.integers(0, 2**31),
)
def test_split_row_one_qubit_gate_matches_dense_matrix(log_bit, row_qubits, real, dtype, seed):
    """``mix_groups`` on every low qubit of split rows of 2 to 1024 amplitudes (below 16
    amplitudes the group loop, from 16 the straight chunks the SLP vectoriser packs), real
    and complex matrices, both float widths: against the matrix applied by ``einsum`` to the
    row seen as ``(groups, 2, bit)``."""
    import numba as nb

    from genqsim.backends import numba_planar as planar

    bit = 1 << log_bit
    if 2 * bit > 1 << row_qubits:
        return
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((2, 2)) + (0 if real else 1j) * rng.standard_normal((2, 2))
    x = rng.standard_normal(1 << row_qubits) + 1j * rng.standard_normal(1 << row_qubits)
    re, im = x.real.astype(dtype), x.imag.astype(dtype)
    entries = np.array([[v.real, v.imag] for v in m.reshape(-1)], dtype=dtype).reshape(-1)
    caller = nb.njit(lambda re, im, bit, e, real: planar.mix_groups(re, im, bit, e, real))
    caller(re, im, bit, entries, real)  # a helper called from compiled code only
    complex_dtype = np.complex128 if dtype == np.float64 else np.complex64
    rows = (re.astype(np.float64) + 1j * im.astype(np.float64)).reshape(-1, 2, bit)
    expected = np.einsum(
        "ij,gjb->gib", m.astype(complex_dtype), x.astype(complex_dtype).reshape(-1, 2, bit)
    )
    tol = 1e-12 if dtype == np.float64 else 3e-6
    np.testing.assert_allclose(rows, expected, atol=tol * 10, rtol=0)


def test_a_row_split_for_every_target_and_diagonal():
    """Every target of a 13-qubit row (groups 1 to 64 apart, then series, cut at 1024) and
    diagonals on low qubits (patterns, real and complex) and high ones (series) in one
    split stretch: the run's scratch has room for the split, and the result equals the
    generic routine's."""
    from genqsim.backends import numba_block_runs as K
    from genqsim.plan import build_plan

    n = 13
    circuit = gq.Circuit(n)
    for q in range(n):
        circuit.u(0.3 + q, 0.2 * q, 1.1, q)
        circuit.rz(0.7 - 0.1 * q, q)
        circuit.cz(q, (q + 5) % n)
        circuit.cp(0.4 + 0.05 * q, q, (q + 9) % n)
    calls = build_plan(circuit, gq.get_number_system("complex128"), fuse=False)
    run = BlockRun(calls, n)
    backend = gq.get_backend("numba")
    _, max_dim = backend._encoded(run, np.dtype(np.complex128))
    assert max_dim >= (1 << n) + 2 * K.PLANAR_PATTERN
    for dtype in ("complex128", "complex64"):
        assert_plan_matches_generic(calls, [run], n, dtype, 7)


def test_slp_compiled_chunks_are_packed_and_leave_numba_settings_alone():
    """The straight chunk loops are compiled with LLVM's SLP vectoriser (packed double
    arithmetic in their x86-64 code, for every bit and both kinds of matrix), and compiling
    them leaves Numba's own setting (off) as it was for every other function."""
    import platform

    from numba.core import config

    from genqsim.backends import numba_planar as planar

    before = config.SLP_VECTORIZE
    for bit in (1, 2, 4, 8):
        for real in (True, False):
            loop = planar._chunk_loop(bit, real, cache=False)
            loop(np.zeros(64), np.zeros(64), np.zeros(8))
            assert config.SLP_VECTORIZE == before
            if platform.machine() in ("x86_64", "AMD64"):
                (assembly,) = loop.inspect_asm().values()
                packed = [line for line in assembly.splitlines() if "pd\t" in line]
                assert packed, f"the chunk loop of bit {bit} compiled to scalar code"


AVX512 = {
    "NUMBA_CPU_NAME": "znver4",
    "NUMBA_CPU_FEATURES": "+64bit,+cx8,+cx16,+sse4.2,+popcnt,+avx,+avx2,+fma,+bmi,+bmi2,"
    "+f16c,+avx512f,+avx512dq,+avx512vl,+avx512bw,+avx512cd",
}
"""Numba's target for an AMD EPYC Zen 4 with AVX-512: code is made for it, never run, so the
check below holds on any x86-64 machine. The features are spelled out, 8- and 16-byte
compare-exchange included, for an LLVM that does not know ``znver4`` (Numba 0.61's): the
reference counts' atomic updates need them."""

NO_SCATTERS = r"""
import numba as nb
from numba import types as t
from genqsim.backends import numba_common as C, numba_dense as dense, numba_low_chunks as lc
from genqsim.backends import numba_slp
options = dict(cache=False, nogil=True, error_model="numpy", fastmath=True)
groups = (t.complex128[::1], t.int64) + (t.complex128,) * 4
cases = {
    "plain": (nb.njit(**options)(dense._mix2c_groups.py_func), groups),
    "phase loop": (lc.phase_loop(2, 1, cache=False), (t.float64[::1], t.float64, t.float64)),
    "real pairs": (lc.real_pair_loop(1, 2, cache=False), (t.float64[::1],) + (t.float64,) * 8),
    "complex groups": (numba_slp.vector_njit(**options)(dense._mix2c_groups.py_func), groups),
    "threaded 1q": (
        C._build(C._SOURCES["apply_1q"]),
        (t.boolean, t.complex128[::1], t.complex128[:, ::1], t.int64,
         t.Array(t.int64, 1, "C", readonly=True), t.int64),
    ),
}
for name, (fn, signature) in cases.items():
    fn.compile(signature)
    (code,) = fn.inspect_asm().values()
    print(name, sum(code.count(n) for n in numba_slp.SCATTERED), code.count("zmm"), sep="|")
"""


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_phases_rewritten_whole_equal_the_generic_routine(dtype, monkeypatch):
    """A one-qubit phase on a large state, with every amplitude rewritten (the run lengths
    chosen here) and with the changed half stored (the others), on qubits 3-8, equals the
    generic routine; controlled phases, small states and runs not chosen store the half."""
    from genqsim.backends import numba_phase_rewrite as phases

    n = 20
    itemsize = np.dtype(dtype).itemsize
    chosen = {itemsize << 4, itemsize << 6}
    monkeypatch.setenv("GENQSIM_PHASE_REWRITE", ",".join(map(str, sorted(chosen))))
    host = random_state(n, np.random.default_rng(4)).astype(dtype)
    phase = np.exp(0.3j)
    for q in range(3, 9):
        fixed = np.array([q], dtype=np.int64)
        pattern = phases.pattern_for(host, phase, q, fixed)
        assert pattern.size == (4 << q if itemsize << q in chosen else 0)
        want, got = host.copy(), host.copy()
        gq.get_backend("numpy").apply_diagonal(want, np.array([1, phase]), (q,))
        gq.get_backend("numba").apply_diagonal(got, np.array([1, phase]), (q,))
        np.testing.assert_allclose(got, want, atol=1e-6 if dtype == "complex64" else 1e-14)
    controlled = np.array([2, 4], dtype=np.int64)
    assert phases.pattern_for(host, phase, 4, controlled).size == 0
    assert phases.pattern_for(host[: 1 << 12], phase, 4, controlled[1:]).size == 0
    want, got = host.copy(), host.copy()
    gq.get_backend("numpy").apply_diagonal(want, np.array([1, phase]), (4,), (2,))
    gq.get_backend("numba").apply_diagonal(got, np.array([1, phase]), (4,), (2,))
    np.testing.assert_allclose(got, want, atol=1e-6 if dtype == "complex64" else 1e-14)


def test_kernel_loops_do_not_gather_or_scatter_on_avx512(tmp_path):
    """Compiled for an AVX-512 CPU (Zen 4), the loops over short runs of amplitudes come out
    without gathers or scatters, which made them 5-19x slower there: the phase loops and
    real pairs (SLP-compiled straight chunks) and the complex groups of one-qubit gates on
    qubits 1 and 2 (a helper compiled like every called kernel helper), and a kernel's
    build (its loops as range functions linked in, threaded over shares as thread-pool
    tasks, each module optimised again without the loop vectoriser where it scattered).
    The same helper compiled by plain ``nb.njit`` scatters, the case the compilers look
    for; the straight chunks still use the 512-bit registers."""
    import platform

    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the check reads x86-64 code")
    env = {**os.environ, **AVX512, "GENQSIM_CACHE_DIR": str(tmp_path)}
    found = subprocess.run([sys.executable, "-c", NO_SCATTERS], env=env, capture_output=True,
                           text=True, timeout=600, check=True)  # fmt: skip
    counts = {}
    for line in found.stdout.strip().splitlines():
        name, scattered, wide = line.split("|")
        counts[name] = (int(scattered), int(wide))
    assert counts.pop("plain")[0] > 0, "plain nb.njit no longer scatters here: " + found.stdout
    for name, (scattered, wide) in counts.items():
        assert scattered == 0, f"{name}: {scattered} gathers or scatters"
        if name in ("phase loop", "real pairs"):  # straight chunks: the SLP vectoriser packs
            assert wide > 0, f"{name}: no 512-bit registers"


PHASES = {"x": None, "swap": None, "z": -1.0, "s": 1j, "t": np.exp(0.25j * np.pi)}
"""The gates of :func:`test_exchanges_and_phases_on_low_qubits_match_index_arithmetic`:
exchanges, and phases with the factor of the target's ``|1>``."""


def _gate_by_index(state: np.ndarray, gate: str, targets, controls, values) -> np.ndarray:
    """X or SWAP (an exchange) or Z, S, T (a phase) under controls, by index arithmetic on
    a copy."""
    index = np.arange(state.size)
    active = np.ones(state.size, dtype=bool)
    for c, v in zip(controls, values):
        active &= (index >> c & 1) == v
    if PHASES[gate] is not None:
        hit = active & (index >> targets[0] & 1 == 1)
        return state * np.where(hit, PHASES[gate], 1).astype(state.dtype)
    if len(targets) == 1:
        partner = index ^ (1 << targets[0])
    else:
        a, b = targets
        differ = (index >> a & 1) != (index >> b & 1)
        partner = np.where(differ, index ^ (1 << a) ^ (1 << b), index)
    return state[np.where(active, partner, index)]


GATES = st.tuples(st.sampled_from(sorted(PHASES)), st.integers(0, 3), st.integers(0, 2**31))
"""A gate: ``(name, controls, seed)``, the seed picking its qubits and control values."""


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 9),
    st.lists(GATES, min_size=1, max_size=6),
    st.sampled_from(["complex128", "complex64"]),
    st.sampled_from(["alone", "whole", "blocks", "tiles"]),
    st.integers(0, 2**31),
)
def test_exchanges_and_phases_on_low_qubits_match_index_arithmetic(n, gates, dtype, grouping,
                                                                   seed):  # fmt: skip
    """X, SWAP, Z, S and T under 0 to 3 controls of either value, on any qubits (one among
    the four lowest runs in the straight chunks of ``backends/numba_low_chunks.py``, the
    others in series), alone and in runs over the whole state, blocks and gathered tiles:
    against the gate done by index arithmetic."""
    from genqsim.plan import build_plan, group_block_runs, group_tile_runs, run_item

    circuit = gq.Circuit(n)
    done = []
    for gate, n_controls, gate_seed in gates:
        n_targets = 2 if gate == "swap" else 1
        if n_targets + n_controls > n:
            continue
        rng = np.random.default_rng(gate_seed)
        qubits = [int(q) for q in rng.permutation(n)[: n_targets + n_controls]]
        targets, controls = qubits[:n_targets], qubits[n_targets:]
        values = [int(v) for v in rng.integers(0, 2, size=n_controls)]
        circuit.controlled(gate, targets, controls, values)
        done.append((gate, targets, controls, values))
    if not done:
        return
    state = random_state(n, np.random.default_rng(seed)).astype(dtype)
    want = state.copy()
    for gate in done:
        want = _gate_by_index(want, *gate)
    calls = build_plan(circuit, gq.get_number_system(dtype), fuse=False)
    plan = {
        "alone": calls,
        "whole": [BlockRun(calls, n)] if len(calls) > 1 else calls,
        "blocks": group_block_runs(calls, n, max(1, n - 1)),
        "tiles": group_tile_runs(calls, n, max(1, n - 1), 2) if n >= 3 else calls,
    }[grouping]
    backend = gq.get_backend("numba")
    for item in plan:
        run_item(item, backend, state)
    np.testing.assert_allclose(state, want, rtol=0, atol=1e-12 if dtype == "complex128" else 2e-6)


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_product_chunks_match_numpy(dtype):
    """A series times one complex factor, and times a repeating pattern of factors, in
    straight chunks, against NumPy's complex products."""
    import numba as nb

    from genqsim.backends import numba_low_chunks as low_chunks

    rng = np.random.default_rng(11)
    x = (rng.standard_normal(512) + 1j * rng.standard_normal(512)).astype(dtype)
    pattern = np.exp(1j * rng.uniform(0, 2 * np.pi, 64)).astype(dtype)
    floats = np.float64 if dtype == "complex128" else np.float32
    pr, pi = floats(0.6), floats(-0.8)
    scaled = x.copy()
    # loops called from compiled code only
    nb.njit(lambda f, a, b: low_chunks.scale_chunks(f, a, b))(scaled.view(floats), pr, pi)
    patterned = x.copy()
    nb.njit(lambda f, p: low_chunks.pattern_chunks(f, p))(
        patterned.view(floats), pattern.view(floats)
    )
    tol = 1e-14 if dtype == "complex128" else 2e-6
    np.testing.assert_allclose(scaled, x * complex(pr, pi), rtol=0, atol=tol * 8)
    np.testing.assert_allclose(patterned, x * np.tile(pattern, 8), rtol=0, atol=tol * 8)


def test_low_chunks_are_packed():
    """The straight exchange, phase and product chunks, and the loops of real pairs on the
    lowest qubits, compile to packed (256-bit) code on x86-64."""
    import platform

    from genqsim.backends import numba_low_chunks as low_chunks

    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the packed-instruction check reads x86-64 assembly")
    x, y = np.arange(64.0), np.arange(64.0) + 100
    loops = [(v, low_chunks.swap_loop(*v, cache=False), (x, y)) for v in low_chunks.SWAP_VARIANTS]
    loops += [
        (v, low_chunks.phase_loop(*v, cache=False), (x, 0.5, 0.25))
        for v in low_chunks.PHASE_VARIANTS
    ]
    loops += [
        (pair, low_chunks.real_pair_loop(*pair, cache=False), (x, *(0.6, -0.8, 0.8, 0.6) * 2))
        for pair in low_chunks.REAL_PAIRS
    ]
    loops += [
        ("scalar", low_chunks.product_loop(pattern=False, cache=False), (x, 0.6, 0.8)),
        ("pattern", low_chunks.product_loop(pattern=True, cache=False), (x, np.arange(32.0))),
    ]
    for variant, loop, arguments in loops:
        loop(*arguments)
        (assembly,) = loop.inspect_asm().values()
        assert "ymm" in assembly, f"the chunk loop {variant} compiled to scalar code"


def _straight_sum_source(terms: int) -> str:
    """A function of ``terms`` straight-line products (two LLVM instructions each)."""
    lines = ["def big(x):", "    s = 0.0"]
    lines += [f"    s += x[{k % 8}] * {k + 1}.0" for k in range(terms)]
    return "\n".join(lines) + "\n    return s\n"


def test_large_callees_link_after_the_kernel_is_optimised_and_others_as_numba_does(monkeypatch):
    """A genqsim kernel (``vector_njit``) links a callee of more than
    ``LATE_LINK_INSTRUCTIONS`` instructions after its own module is optimised and a small
    one before (so it can be inlined); a plain ``numba.njit`` caller of the same callees is
    finalised by Numba's own code. Every result is the sum it must be."""
    import numba

    from genqsim.backends import numba_slp as slp

    monkeypatch.setattr(slp, "LATE_LINK_INSTRUCTIONS", 40)  # a callee of 100 products: late
    terms = 100
    namespace: dict = {}
    exec(_straight_sum_source(terms), namespace)
    big = slp.vector_njit(nogil=True)(namespace["big"])

    @slp.vector_njit(nogil=True)
    def small(x):
        return x[0] + x[1]

    late_calls: list[list[int]] = []
    real = slp._finalize_linking_late

    def watched(library):
        late_calls.append([slp._instructions(c) for c in library._linking_libraries])
        real(library)

    monkeypatch.setattr(slp, "_finalize_linking_late", watched)

    def caller(x):
        return big(x) + small(x)

    kernel, plain = slp.vector_njit(nogil=True)(caller), numba.njit(caller)
    x = np.arange(1.0, 9.0)
    expected = sum(x[k % 8] * (k + 1) for k in range(terms)) + 3.0
    assert kernel(x) == pytest.approx(expected, rel=1e-12)
    sizes = [size for call in late_calls for size in call]
    assert any(size > slp.LATE_LINK_INSTRUCTIONS for size in sizes)  # big: late
    assert any(size <= slp.LATE_LINK_INSTRUCTIONS for size in sizes)  # small: early
    (library,) = [overload.library for overload in kernel.overloads.values()]
    defined = {f.name for f in library._final_module.functions if not f.is_declaration}
    assert any("big" in name for name in defined)  # its code travels with the kernel
    seen = len(late_calls)
    assert plain(x) == pytest.approx(expected, rel=1e-12)
    assert len(late_calls) == seen  # not a genqsim kernel: Numba's finalize


def test_an_inlined_helper_is_inlined_whatever_its_size_and_has_no_python_entry(monkeypatch):
    """A helper compiled with ``helper_njit(inline=True)`` larger than
    ``LATE_LINK_INSTRUCTIONS`` is still linked before its caller is optimised, and inlined
    there: the kernel's optimised code calls no function of its own, and gives the sum it
    must. Its own module is left unoptimised (its callers optimise it), it gets no machine
    code, and called from Python it says it is called from compiled code only."""
    from genqsim.backends import numba_slp as slp

    monkeypatch.setattr(slp, "LATE_LINK_INSTRUCTIONS", 40)
    terms = 100
    namespace: dict = {}
    exec(_straight_sum_source(terms), namespace)
    big = slp.helper_njit(inline=True, cache=False)(namespace["big"])

    from numba.core import codegen

    optimised: list = []
    numba_optimise = codegen.CPUCodeLibrary._optimize_final_module

    def watched(library):
        optimised.append(library.name)
        numba_optimise(library)

    monkeypatch.setattr(codegen.CPUCodeLibrary, "_optimize_final_module", watched)

    @slp.vector_njit(nogil=True)
    def caller(x):
        return big(x) * 2.0

    x = np.arange(1.0, 9.0)
    expected = 2.0 * sum(x[k % 8] * (k + 1) for k in range(terms))
    assert caller(x) == pytest.approx(expected, rel=1e-12)
    (library,) = [overload.library for overload in caller.overloads.values()]
    module = library._final_module
    calls = [str(i) for f in module.functions if not f.is_declaration
             for block in f.blocks for i in block.instructions if i.opcode == "call"]  # fmt: skip
    assert not any("big" in call for call in calls)  # inlined, not called
    (helper,) = [overload.library for overload in big.overloads.values()]
    assert slp._inlined(helper) and helper._genqsim_code_pending
    assert optimised.count(helper.name) == 0 and any("caller" in n for n in optimised)
    with pytest.raises(TypeError, match="called_from_compiled_code_only"):
        big(x)


def test_an_inlined_helper_is_built_once_for_every_constant_and_folded_in_each_caller():
    """Callers passing an inlined helper different constants (``bit`` 2 or 4, ``flag`` True
    or False) share one build of it, for the constants' plain types; LLVM folds each
    constant into the caller's inlined copy: the caller passing ``True`` multiplies by 2
    and never by 3, and every caller's result is right."""
    from genqsim.backends import numba_slp as slp

    namespace: dict = {}
    exec(
        "def scaled_sum(x, bit, flag):\n"
        "    total = 0.0\n"
        "    for j in range(bit):\n"
        "        total += x[j]\n"
        "    return total * 2.0 if flag else total * 3.0\n",
        namespace,
    )
    helper = slp.helper_njit(inline=True, cache=False)(namespace["scaled_sum"])

    @slp.vector_njit(nogil=True)
    def doubled_pairs(x):
        return helper(x, 2, True)

    @slp.vector_njit(nogil=True)
    def tripled_quads(x):
        return helper(x, 4, False)

    x = np.arange(1.0, 9.0)
    assert doubled_pairs(x) == 2.0 * (1.0 + 2.0)
    assert tripled_quads(x) == 3.0 * (1.0 + 2.0 + 3.0 + 4.0)
    assert [tuple(map(str, sig)) for sig in helper.signatures] == [
        ("array(float64, 1d, C)", "int64", "bool")
    ]
    (library,) = [overload.library for overload in doubled_pairs.overloads.values()]
    code = str(library._final_module)
    assert "2.000000e+00" in code and "3.000000e+00" not in code


@pytest.mark.parametrize("inline", [False, True])
def test_a_helper_reading_integer_arrays_has_one_build_for_read_only_and_writable(inline):
    """Callers passing a helper a read-only integer array (a gate kernel's cached ``fixed``)
    and a writable one (the row engine's) share one build of it, for the read-only type;
    a helper that writes its integer array keeps a build for the writable one. Each
    caller's result is right, and the written array holds what was written."""
    from genqsim.backends import numba_slp as slp

    namespace: dict = {}
    exec(
        "def picked_sum(x, positions):\n"
        "    total = 0.0\n"
        "    for j in range(positions.size):\n"
        "        total += x[positions[j]]\n"
        "    return total\n"
        "def shifted(positions):\n"
        "    for j in range(positions.size):\n"
        "        positions[j] += 1\n"
        "    return positions[0]\n",
        namespace,
    )
    reader = slp.helper_njit(inline=inline, cache=False)(namespace["picked_sum"])
    writer = slp.helper_njit(inline=inline, cache=False)(namespace["shifted"])

    @slp.vector_njit(nogil=True)
    def from_any(x, positions):
        return reader(x, positions)

    @slp.vector_njit(nogil=True)
    def from_a_copy(x, positions):
        mine = positions.copy()  # writable, whatever was passed
        first = writer(mine)
        return reader(x, mine) + first

    x = np.arange(1.0, 9.0)
    fixed = np.array([1, 3, 6], dtype=np.int64)
    read_only = fixed.copy()
    read_only.flags.writeable = False
    assert from_any(x, read_only) == 2.0 + 4.0 + 7.0
    assert from_any(x, fixed) == 2.0 + 4.0 + 7.0
    assert from_a_copy(x, read_only) == (3.0 + 5.0 + 8.0) + 2
    assert [tuple(map(str, sig)) for sig in reader.signatures] == [
        ("array(float64, 1d, C)", "readonly array(int64, 1d, C)")
    ]
    assert [tuple(map(str, sig)) for sig in writer.signatures] == [("array(int64, 1d, C)",)]


def test_a_function_first_compiled_by_an_inlined_helper_is_not_inlined_itself():
    """Numba lets a function compiled while an inlined helper is typed inherit the helper's
    unset ``forceinline``; every genqsim build sets it, so a loop first compiled from an
    inlined helper keeps its own (optimised, here packed) code instead of being left
    unoptimised for its callers. The straight chunks of a complex product are the case
    that ran unpacked, 2.5x slower (T on qubit 18 of 20)."""
    from genqsim.backends import numba_low_chunks as low_chunks
    from genqsim.backends import numba_slp as slp

    loop = low_chunks.product_loop(pattern=False, cache=False)
    namespace = {"loop": loop}
    exec("def scaled(f, a, b):\n    loop(f, a, b)\n", namespace)
    inlined = slp.helper_njit(inline=True, cache=False)(namespace["scaled"])

    @slp.vector_njit(nogil=True)
    def caller(f, a, b):
        inlined(f, a, b)

    x = np.arange(64.0)
    caller(x, 0.6, 0.8)
    z = np.arange(64.0).view(np.complex128) * complex(0.6, 0.8)
    np.testing.assert_allclose(x.view(np.complex128), z, rtol=1e-15)
    (library,) = [overload.library for overload in loop.overloads.values()]
    assert not slp._inlined(library)
    assert " x double>" in str(library._final_module)  # its own module, packed


def test_a_threaded_loop_body_and_its_wrappers_get_machine_code_only_when_asked(monkeypatch):
    """A threaded genqsim kernel runs (the sum it must give) while the libraries of its loop
    body and the two wrappers around it, only linked into the kernel, have no machine code
    of their own; asked for an address in one of them, that library's code is made then."""
    import numba

    from genqsim.backends import numba_slp as slp

    finalised: list = []
    real = slp._finalize_without_code

    def watched(library):
        finalised.append(library)
        real(library)

    monkeypatch.setattr(slp, "_finalize_without_code", watched)

    def total(x):
        s = 0.0
        for i in numba.prange(x.size):
            s += x[i] * (i + 1)
        return s

    kernel = slp.vector_njit(parallel=True, nogil=True)(total)
    x = np.arange(1.0, 1001.0)
    assert kernel(x) == pytest.approx(float(np.sum(x * np.arange(1, 1001))), rel=1e-12)
    bodies = [lib for lib in finalised if lib.name.startswith(slp.PARFOR_BODY)]
    assert bodies and all(lib._genqsim_code_pending for lib in bodies)
    (kernel_library,) = [o.library for o in kernel.overloads.values()]
    assert not kernel_library._genqsim_code_pending  # the kernel itself runs: code made
    body = bodies[0]
    defined = [f.name for f in body._final_module.functions if not f.is_declaration]
    name = next(n for n in defined if "parfor_gufunc" in n and not n.startswith("cpython"))
    assert body.get_pointer_to_function(name) != 0
    assert not body._genqsim_code_pending


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_a_small_state_runs_a_plan_applied_again_and_again_as_whole_state_runs(dtype, monkeypatch):
    """From the third apply of one circuit on a state below the Numba backend's blocks, its
    gate calls run as runs over the whole state (one compiled call a stretch), cut at a
    measurement; each apply still equals the generic routine applied as often, and the
    circuit's own plan (and any circuit on the generic backend) keeps its plain calls."""
    from genqsim.plan import build
    from genqsim.plan.build import WHOLE_STATE_RUNS_FROM, plan_for_backend, plan_to_apply

    n = 10
    circuit = gq.library.random_circuit(n, 6, seed=4)
    circuit.measure(2, 0).h(2)
    for q in range(n - 1):
        circuit.cx(q, q + 1)
    numbers, fast = gq.get_number_system(dtype), gq.get_backend("numba")
    assert n < fast.block_layout(numbers.dtype).min_state_qubits
    runs_seen = []
    block_run = type(fast).apply_block_run
    monkeypatch.setattr(
        type(fast),
        "apply_block_run",
        lambda self, state, run: runs_seen.append(run) or block_run(self, state, run),
    )
    psi = gq.zeros(n, numbers=dtype, backend="numba")
    reference = gq.zeros(n, numbers=dtype, backend="numpy")
    for apply in range(1, WHOLE_STATE_RUNS_FROM + 3):
        runs_seen.clear()
        psi.apply(circuit, seed=apply)
        reference.apply(circuit, seed=apply)
        tol = 1e-12 if dtype == "complex128" else 2e-5
        np.testing.assert_allclose(psi.amplitudes, reference.amplitudes, atol=tol)
        if apply < WHOLE_STATE_RUNS_FROM:
            assert runs_seen == []
        else:
            assert len(runs_seen) == 2  # before and after the measurement
            assert all(run.qubits == tuple(range(n)) for run in runs_seen)
    plain = build.build_plan(circuit, numbers, None)
    kept = plan_for_backend(circuit, numbers, fast, None, keep=True)  # the plan itself: calls
    assert not any(isinstance(item, BlockRun) for item in kept) and len(kept) == len(plain)
    whole = plan_to_apply(circuit, numbers, fast, None)
    assert sum(len(item.calls) for item in whole if isinstance(item, BlockRun)) == len(plain) - 1
    for _ in range(WHOLE_STATE_RUNS_FROM + 1):
        generic = plan_to_apply(circuit, numbers, gq.get_backend("numpy"), None)
        assert not any(isinstance(item, BlockRun) for item in generic)
