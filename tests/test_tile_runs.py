"""Tile runs over any set of qubits (the GPU's MSB scheme), checked on the CPU: the planner's
grouping and qubit renaming, executed with the same index arithmetic as the CUDA kernel
(tile base = zero bits inserted at the tile's qubits; element j's bit i goes to qubit q[i]),
must equal running the calls one by one."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim.plan import BlockRun, build_plan, group_tile_runs
from genqsim.plan.grouping import gate_by_gate_work

from strategies import random_circuit


def deposit_zeros(i: int, positions) -> int:
    for p in positions:  # sorted, as in the kernel
        i = ((i >> p) << (p + 1)) | (i & ((1 << p) - 1))
    return i


def run_like_the_kernel(run: BlockRun, state: np.ndarray) -> None:
    """Gather every tile, apply the renamed calls to it with the generic routine, scatter."""
    n = state.size.bit_length() - 1
    generic = gq.get_backend("numpy")
    offsets = [sum(((j >> i) & 1) << q for i, q in enumerate(run.qubits))
               for j in range(1 << run.block_qubits)]  # fmt: skip
    for t in range(1 << (n - run.block_qubits)):
        index = deposit_zeros(t, run.qubits) + np.array(offsets)
        tile = state[index].copy()
        for call in run.local_calls:
            call.run(generic, tile)
        state[index] = tile


MIN_GATHERED_WORK = st.sampled_from([0.0, 1.5, 4.0])
"""No minimum, and minima that leave some gathered runs as plain calls."""


@settings(max_examples=60, deadline=None)
@given(
    random_circuit(n_min=5, n_max=8),
    st.integers(3, 5),
    st.integers(1, 3),
    MIN_GATHERED_WORK,
    st.integers(0, 2**31),
)
def test_tile_runs_on_any_qubits_equal_the_calls_in_order(circuit, tile, low, min_work, seed):
    low = min(low, tile - 1)
    numbers = gq.get_number_system("complex128")
    calls = build_plan(circuit, numbers, fuse=False)
    plan = group_tile_runs(calls, circuit.n_qubits, tile, low, min_work)
    rng = np.random.default_rng(seed)
    state = rng.normal(size=2**circuit.n_qubits) + 1j * rng.normal(size=2**circuit.n_qubits)
    want = state.copy()
    generic = gq.get_backend("numpy")
    for call in calls:
        call.run(generic, want)
    for item in plan:
        if isinstance(item, BlockRun):
            assert set(range(low)) <= set(item.qubits) and len(item.qubits) == tile
            if not item.contiguous:
                assert gate_by_gate_work(item.calls) >= min_work
            for call in item.calls:
                assert set(call.targets + call.controls) <= set(item.qubits)
            run_like_the_kernel(item, state)
        else:
            item.run(generic, state)
    np.testing.assert_allclose(state, want, atol=1e-12)
    flattened = [c for item in plan for c in (item.calls if isinstance(item, BlockRun) else [item])]
    assert_commuting_reorder(calls, flattened)


def assert_commuting_reorder(calls, flattened) -> None:
    """``flattened`` holds every call once, and any two calls that share a qubit (or where
    one is not a gate) keep their order: only calls on disjoint qubits swap."""
    assert sorted(map(id, flattened)) == sorted(map(id, calls))
    position = {id(c): i for i, c in enumerate(flattened)}

    def qubits(call):
        return set(call.targets + call.controls) if hasattr(call, "controls") else None

    for i, a in enumerate(calls):
        for b in calls[i + 1 :]:
            qa, qb = qubits(a), qubits(b)
            if qa is None or qb is None or qa & qb:
                assert position[id(a)] < position[id(b)]


@settings(max_examples=60, deadline=None)
@given(
    random_circuit(n_min=5, n_max=8),
    st.integers(3, 5),
    st.integers(0, 3),
    MIN_GATHERED_WORK,
    st.sampled_from(["complex128", "complex64"]),
    st.integers(0, 2**31),
)
def test_numba_gathers_tiles_on_any_qubits(circuit, tile, low, min_work, dtype, seed):
    """The Numba backend's own gathered tiles (series of consecutive amplitudes for the lowest
    qubits, any others) equal the calls in order on the generic routine."""
    pytest.importorskip("numba")
    low = min(low, tile - 1)
    numbers = gq.get_number_system(dtype)
    calls = build_plan(circuit, numbers, fuse=False)
    plan = group_tile_runs(calls, circuit.n_qubits, tile, low, min_work)
    rng = np.random.default_rng(seed)
    state = rng.normal(size=2**circuit.n_qubits) + 1j * rng.normal(size=2**circuit.n_qubits)
    state = state.astype(dtype)
    want = state.copy()
    generic = gq.get_backend("numpy")
    for call in calls:
        call.run(generic, want)
    fast = gq.get_backend("numba")
    for item in plan:
        if isinstance(item, BlockRun):
            fast.apply_block_run(state, item)
        else:
            item.run(fast, state)
    np.testing.assert_allclose(state, want, atol=1e-12 if dtype == "complex128" else 1e-5)


def test_runs_on_high_qubits_become_tiles():
    c = gq.Circuit(20)
    for q in (19, 18, 17):
        c.h(q)
    c.cx(19, 18).rz(0.3, 17)
    calls = build_plan(c, gq.get_number_system("complex128"), fuse=False)
    (run,) = group_tile_runs(calls, 20, 10, 5)
    assert run.qubits == (0, 1, 2, 3, 4, 5, 6, 17, 18, 19) and not run.contiguous
    assert run.local_calls[0].targets == (9,)  # qubit 19 is tile bit 9


def test_a_run_takes_later_gates_that_commute_past_the_ones_it_skips():
    """A tile on qubits 0-2 + 7: after h(7) and cx(8, 9) (which does not fit), rz(7) joins
    the run (it commutes past cx(8, 9)); x(9) does not (it shares qubit 9), nor anything after
    the reset."""
    c = gq.Circuit(10, n_clbits=1)
    c.h(7).cx(8, 9).rz(0.3, 7).x(9).h(0).reset(1).h(7)
    calls = build_plan(c, gq.get_number_system("complex128"), fuse=False)
    plan = group_tile_runs(calls, 10, 4, 3)
    run = plan[0]
    assert isinstance(run, BlockRun) and run.qubits == (0, 1, 2, 7)
    assert [call.targets for call in run.calls] == [(7,), (7,), (0,)]
    assert [getattr(item, "targets", None) for item in plan[1:3]] == [(9,), (9,)]
    flattened = [c for item in plan for c in (item.calls if isinstance(item, BlockRun) else [item])]
    assert_commuting_reorder(calls, flattened)


def test_lookahead_fills_tiles_across_a_layer():
    """A layer of one-qubit gates on 12 high qubits, then CX pairs on them: tiles of 4 free
    qubits each take two pairs' one-qubit gates and their CX, so 3 runs, not one per pair
    boundary of the layer order."""
    n = 16
    c = gq.Circuit(n)
    for q in range(4, n):
        c.h(q)
    for q in range(4, n, 2):
        c.cx(q, q + 1)
    calls = build_plan(c, gq.get_number_system("complex128"), fuse=False)
    plan = group_tile_runs(calls, n, 8, 4)
    assert len(plan) == 3 and all(isinstance(item, BlockRun) for item in plan)
    assert [len(item.calls) for item in plan] == [6, 6, 6]


def test_a_gathered_run_forms_only_where_its_calls_move_enough_of_the_state():
    """Tiles of 9 qubits, the lowest 5 in each. Four H on qubits 16-19 move four states'
    worth one by one, a CX chain on qubits 12-15 (one control each) one and a half: with a
    minimum of 4 the H layer is one gathered run and each CX a plain call; above 4 every call
    stays plain; at 1.5 the chain is a run too. A run on the lowest qubits (contiguous, no
    gather) forms whatever the minimum."""
    n = 20
    c = gq.Circuit(n)
    for q in (16, 17, 18, 19):
        c.h(q)
    c.cx(12, 13).cx(13, 14).cx(14, 15)
    calls = build_plan(c, gq.get_number_system("complex128"), fuse=False)
    assert gate_by_gate_work(calls[:4]) == 4.0 and gate_by_gate_work(calls[4:]) == 1.5

    def sizes(plan):
        return [len(item.calls) if isinstance(item, BlockRun) else 1 for item in plan]

    plan = group_tile_runs(calls, n, 9, 5, min_gathered_work=4.0)
    assert sizes(plan) == [4, 1, 1, 1]
    assert plan[0].qubits == (0, 1, 2, 3, 4, 16, 17, 18, 19) and plan[1:] == calls[4:]

    plan = group_tile_runs(calls, n, 9, 5, min_gathered_work=4.5)
    assert plan == calls

    plan = group_tile_runs(calls, n, 9, 5, min_gathered_work=1.5)
    assert sizes(plan) == [4, 3] and not plan[1].contiguous

    low = build_plan(gq.Circuit(n).h(0).h(1), gq.get_number_system("complex128"), fuse=False)
    (run,) = group_tile_runs(low, n, 9, 5, min_gathered_work=100.0)
    assert run.contiguous and len(run.calls) == 2


def test_the_default_numba_plan_gathers_high_qubits_after_the_blocks():
    """On 18 qubits (cache blocks of 16), a layer of rotations on every qubit and a CX chain:
    the default plan takes the lowest 16 qubits in contiguous blocks, then the rotations on
    the two high qubits and the chain's last two CX in one gathered run (5 states' worth one
    by one, above the minimum of three), and equals the calls run one by one on the generic
    routine."""
    pytest.importorskip("numba")
    n = 18
    c = gq.Circuit(n)
    for q in range(n):
        c.ry(0.1 + 0.2 * q, q).rz(0.3 - 0.1 * q, q)
    for q in range(n - 1):
        c.cx(q, q + 1)
    numbers = gq.get_number_system("complex128")
    backend = gq.get_backend("numba")
    plan = gq.plan.plan_for_backend(c, numbers, backend, fuse=False)
    gathered = [i for i in plan if isinstance(i, BlockRun) and not i.contiguous]
    assert [sorted({q for call in run.calls for q in call.qubits}) for run in gathered] == [
        [15, 16, 17]
    ]
    assert len(gathered[0].calls) == 6 and plan[0].contiguous and len(plan) == 2
    state = backend.zeros(n, numbers)
    want = state.copy()
    for call in build_plan(c, numbers, fuse=False):
        call.run(gq.get_backend("numpy"), want)
    gq.plan.run_plan(plan, backend, state)
    np.testing.assert_allclose(state, want, atol=1e-12)
