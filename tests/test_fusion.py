"""Gate fusion: fused runs equal gate-by-gate runs; blocks respect width and barriers."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim.plan.fusion import fuse_circuit, fuse_operations

from reference import random_state
from registries import CPU_BACKENDS
from strategies import random_circuit

BACKENDS = CPU_BACKENDS


@settings(max_examples=80, deadline=None)
@given(random_circuit(n_max=7), st.integers(2, 5), st.integers(0, 2**31), st.sampled_from(BACKENDS))
def test_fused_equals_unfused(circuit, width, seed, backend):
    psi0 = random_state(circuit.n_qubits, np.random.default_rng(seed))
    plain = gq.simulate(circuit, backend=backend, initial=psi0, fuse=False)
    fused = gq.simulate(circuit, backend=backend, initial=psi0, fuse=width)
    np.testing.assert_allclose(fused.amplitudes, plain.amplitudes, atol=1e-12, rtol=0)


@settings(max_examples=40, deadline=None)
@given(random_circuit(n_max=7), st.integers(2, 5))
def test_blocks_respect_width_and_order(circuit, width):
    blocks = fuse_operations(circuit.operations, width)
    flat = [op for block in blocks for op in block]
    assert sorted(map(id, flat)) == sorted(id(op) for op in circuit.operations)
    for block in blocks:
        qubits = {q for op in block for q in op.qubits}
        assert len(block) == 1 or len(qubits) <= width
    # every pair of operations sharing a qubit keeps its order
    position = {id(op): i for i, op in enumerate(flat)}
    ops = circuit.operations
    for i, a in enumerate(ops):
        for b in ops[i + 1 :]:
            if set(a.qubits) & set(b.qubits):
                assert position[id(a)] < position[id(b)]


def test_fusion_never_crosses_a_barrier():
    c = gq.Circuit(2).h(0).barrier().h(0).cx(0, 1)
    blocks = fuse_operations(c.operations, 4)
    assert [[op.gate.name for op in b] for b in blocks] == [["h"], ["h", "x"]]


def test_fusion_reduces_passes_and_drops_identities():
    qft = gq.library.qft(8)
    fused = fuse_circuit(qft, gq.get_number_system("complex128"), 4)
    assert fused.size < qft.size / 2
    cancelling = gq.Circuit(3).h(0).cx(0, 1).cx(0, 1).h(0)
    assert fuse_circuit(cancelling, gq.get_number_system("complex128"), 3).size == 0


def test_swap_chains_stay_unfused_and_mixed_blocks_fuse():
    numbers = gq.get_number_system("complex128")
    chain = gq.Circuit(4).cx(0, 1).cx(1, 2).swap(2, 3).ccx(0, 1, 3).x(2)
    fused = fuse_circuit(chain, numbers, 3)
    assert [op.gate.name for op in fused.operations] == [op.gate.name for op in chain.operations]
    assert [op.qubits for op in fused.operations] == [op.qubits for op in chain.operations]
    exact = fuse_circuit(chain, gq.get_number_system("sympy"), 3)
    assert [op.gate.name for op in exact.operations] == [op.gate.name for op in chain.operations]
    assert fuse_circuit(gq.Circuit(2).cx(0, 1).x(0).x(0).cx(0, 1), numbers, 2).size == 0
    # a phase between the swaps: one fused block (here CX RZ CX = RZZ, a diagonal)
    mixed = gq.Circuit(2).cx(0, 1).rz(0.3, 1).cx(0, 1)
    fused = fuse_circuit(mixed, numbers, 2)
    assert fused.size == 1 and fused.operations[0].gate.kind is gq.GateKind.DIAGONAL
    want = np.diag(np.exp(-0.15j * np.array([1, -1, -1, 1])))
    np.testing.assert_allclose(fused.operations[0].gate.matrix(numbers), want, atol=1e-15)


def test_diagonal_runs_fuse_into_one_diagonal():
    c = gq.Circuit(3).rz(0.1, 0).cz(0, 1).t(2).rzz(0.4, 1, 2).p(0.2, 0)
    fused = fuse_circuit(c, gq.get_number_system("complex128"), 3)
    assert fused.size == 1 and fused.operations[0].gate.kind is gq.GateKind.DIAGONAL
    psi0 = random_state(3, np.random.default_rng(0))
    np.testing.assert_allclose(
        gq.simulate(c, initial=psi0, fuse=3).amplitudes,
        gq.simulate(c, initial=psi0, fuse=False).amplitudes,
        atol=1e-14,
    )


def test_symbolic_fusion_is_exact_when_asked():
    a, b = gq.parameters("a b")
    c = gq.Circuit(2).h(0).rz(a, 0).cx(0, 1).ry(b, 1).s(1)
    plain = gq.simulate(c, numbers="sympy")
    fused = gq.simulate(c, numbers="sympy", fuse=2)
    for x, y in zip(plain.amplitudes, fused.amplitudes):
        assert sympy.simplify(x - y) == 0


def test_symbolic_default_is_unfused_and_numeric_default_fuses():
    from genqsim.plan import DEFAULT_DENSE_FUSED_QUBITS, DEFAULT_FUSED_QUBITS, fusion_widths

    assert fusion_widths(gq.get_number_system("sympy"), None) == (0, 0)
    assert fusion_widths(gq.get_number_system("complex64"), None) == (
        DEFAULT_FUSED_QUBITS,
        DEFAULT_DENSE_FUSED_QUBITS,
    )
    assert fusion_widths(gq.get_number_system("sympy"), 3) == (3, 3)
    with pytest.raises(ValueError, match="fuse must be"):
        fusion_widths(gq.get_number_system("complex64"), -1)


@settings(max_examples=40, deadline=None)
@given(random_circuit(n_max=7), st.integers(2, 5), st.integers(1, 5), st.integers(0, 2**31))
def test_mixed_widths_equal_unfused(circuit, width, dense_width, seed):
    from genqsim.plan.fusion import fuse_circuit

    ns = gq.get_number_system("complex128")
    fused = fuse_circuit(circuit, ns, width, dense_width)
    for op in fused.operations:
        if op.gate.name == "fused" and op.kind is gq.GateKind.DENSE:
            assert len(op.qubits) <= dense_width
    psi0 = random_state(circuit.n_qubits, np.random.default_rng(seed))
    np.testing.assert_allclose(
        gq.simulate(fused, initial=psi0, fuse=False).amplitudes,
        gq.simulate(circuit, initial=psi0, fuse=False).amplitudes,
        atol=1e-12,
    )


# -- cache-blocked runs ---------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(
    random_circuit(n_min=4, n_max=8),
    st.integers(1, 4),
    st.sampled_from([None, False, 3]),
    st.sampled_from(["complex128", "complex64"]),
    st.integers(0, 2**31),
)
def test_fused_and_blocked_equals_generic(circuit, block_qubits, fuse, dtype, seed):
    """Plans with runs grouped into small cache blocks (to force blocking on small states)
    give the generic routine's result on every backend."""
    from genqsim.plan import BlockRun, build_plan, run_plan

    n = circuit.n_qubits
    psi0 = random_state(n, np.random.default_rng(seed)).astype(dtype)
    reference = gq.simulate(circuit, numbers=dtype, backend="numpy", initial=psi0, fuse=False)
    ns = gq.get_number_system(dtype)
    plan = build_plan(circuit, ns, fuse, block_qubits=min(block_qubits, n - 2))
    for backend in BACKENDS:
        psi = gq.StateVector(psi0.copy(), backend=backend)
        run_plan(plan, psi.backend, psi.amplitudes)
        tol = 1e-12 if dtype == "complex128" else 2e-6
        np.testing.assert_allclose(psi.amplitudes, reference.amplitudes, atol=tol, rtol=0)
    for item in plan:
        if isinstance(item, BlockRun):
            assert len(item.calls) >= 2
            assert all(max(c.targets + c.controls) < item.block_qubits for c in item.calls)


def test_block_runs_are_formed_for_low_qubit_runs():
    from genqsim.plan import BlockRun, build_plan

    c = gq.Circuit(6).h(0).h(1).cx(0, 1).t(2).h(5).h(0).rz(0.1, 1)
    plan = build_plan(c, gq.get_number_system("complex128"), False, block_qubits=3)
    kinds = [type(item).__name__ for item in plan]
    # h(5) stays a single call; h(0) and rz(1) commute past it into the first run
    assert kinds == ["BlockRun", "MatrixCall"]
    assert [len(item.calls) for item in plan if isinstance(item, BlockRun)] == [6]
    # a state that is not at least four blocks long is not blocked
    small = build_plan(gq.Circuit(4).h(0).h(1), gq.get_number_system("complex128"), False, 3)
    assert all(not isinstance(item, BlockRun) for item in small)


@st.composite
def diagonal_calls(draw, n: int = 6):
    """2 to 6 diagonal calls on random qubits of ``n``: 1 to 3 targets with random phases,
    0 to 2 controls of either value."""
    from genqsim.plan.calls import DiagonalCall

    calls = []
    for _ in range(draw(st.integers(2, 6))):
        k = draw(st.integers(1, 3))
        c = draw(st.integers(0, min(2, n - k)))
        qubits = draw(st.permutations(range(n)))[: k + c]
        values = tuple(draw(st.integers(0, 1)) for _ in range(c))
        angles = draw(st.lists(st.floats(-np.pi, np.pi), min_size=1 << k, max_size=1 << k))
        phases = np.exp(1j * np.array(angles))
        calls.append(DiagonalCall(phases, tuple(qubits[:k]), tuple(qubits[k:]), values))
    return calls


@settings(max_examples=60, deadline=None)
@given(diagonal_calls(), st.integers(0, 2**31))
def test_merged_diagonal_equals_its_calls_in_turn(calls, seed):
    """One merged diagonal call, on the union of the calls' qubits, equals the calls applied
    one by one (the generic routine, controls of either value included)."""
    from genqsim.plan.diagonals import merged_diagonal

    generic = gq.get_backend("numpy")
    state = random_state(6, np.random.default_rng(seed))
    want = state.copy()
    for call in calls:
        call.run(generic, want)
    merged = merged_diagonal(calls)
    assert merged.targets == tuple(sorted({q for c in calls for q in c.targets + c.controls}))
    merged.run(generic, state)
    np.testing.assert_allclose(state, want, atol=1e-12, rtol=0)


def test_merge_diagonals_stops_at_the_qubit_limit_and_at_other_calls():
    """Greedy stretches: a call that would take the union past the limit starts a new
    stretch, any other call ends one, and a stretch of one call stays as it was."""
    from genqsim.plan.calls import DiagonalCall, MatrixCall
    from genqsim.plan.diagonals import merge_diagonals

    def z(*qubits: int) -> DiagonalCall:
        return DiagonalCall(np.array([1, -1] * (1 << (len(qubits) - 1))), qubits)

    h = MatrixCall(np.array([[1, 1], [1, -1]]) / np.sqrt(2), (0,))
    calls = [z(0), z(1), z(2), z(3), h, z(4), z(1), h]
    merged = merge_diagonals(calls, 3)
    assert [type(c).__name__ for c in merged] == [
        "DiagonalCall", "DiagonalCall", "MatrixCall", "DiagonalCall", "MatrixCall"
    ]  # fmt: skip
    assert merged[0].targets == (0, 1, 2) and merged[1] is calls[3]
    assert merged[3].targets == (1, 4)


def test_default_numba_plan_merges_a_qft_ladder():
    """The Numba backend's default plan merges a QFT's controlled phases onto one qubit into
    fewer diagonal calls, and the state still equals the gate-by-gate generic run."""
    from genqsim.plan import build_plan, plan_for_backend

    pytest.importorskip("numba")
    n = 12
    circuit = gq.library.qft(n)
    backend = gq.get_backend("numba")
    numbers = gq.get_number_system("complex128")

    def diagonals(items) -> int:
        flat = [c for item in items for c in getattr(item, "calls", [item])]
        return sum(type(c).__name__ == "DiagonalCall" for c in flat)

    merged_plan = plan_for_backend(circuit, numbers, backend, fuse=True)
    unmerged = build_plan(circuit, numbers, fuse=True)
    assert diagonals(merged_plan) < diagonals(unmerged) // 2
    psi0 = random_state(n, np.random.default_rng(3))
    fast = gq.simulate(circuit, backend="numba", initial=psi0, fuse=True)
    plain = gq.simulate(circuit, backend="numpy", initial=psi0, fuse=False)
    np.testing.assert_allclose(fast.amplitudes, plain.amplitudes, atol=1e-12, rtol=0)
