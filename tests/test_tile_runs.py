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


@settings(max_examples=60, deadline=None)
@given(
    random_circuit(n_min=5, n_max=8), st.integers(3, 5), st.integers(1, 3), st.integers(0, 2**31)
)
def test_tile_runs_on_any_qubits_equal_the_calls_in_order(circuit, tile, low, seed):
    low = min(low, tile - 1)
    numbers = gq.get_number_system("complex128")
    calls = build_plan(circuit, numbers, fuse=False)
    plan = group_tile_runs(calls, circuit.n_qubits, tile, low)
    rng = np.random.default_rng(seed)
    state = rng.normal(size=2**circuit.n_qubits) + 1j * rng.normal(size=2**circuit.n_qubits)
    want = state.copy()
    generic = gq.get_backend("numpy")
    for call in calls:
        call.run(generic, want)
    for item in plan:
        if isinstance(item, BlockRun):
            assert set(range(low)) <= set(item.qubits) and len(item.qubits) == tile
            for call in item.calls:
                assert set(call.targets + call.controls) <= set(item.qubits)
            run_like_the_kernel(item, state)
        else:
            item.run(generic, state)
    np.testing.assert_allclose(state, want, atol=1e-12)
    flattened = [c for item in plan for c in (item.calls if isinstance(item, BlockRun) else [item])]
    assert flattened == calls  # nothing dropped or reordered


@settings(max_examples=60, deadline=None)
@given(
    random_circuit(n_min=5, n_max=8),
    st.integers(3, 5),
    st.integers(0, 3),
    st.sampled_from(["complex128", "complex64"]),
    st.integers(0, 2**31),
)
def test_numba_gathers_tiles_on_any_qubits(circuit, tile, low, dtype, seed):
    """The Numba backend's own gathered tiles (series of consecutive amplitudes for the lowest
    qubits, any others) equal the calls in order on the generic routine."""
    pytest.importorskip("numba")
    low = min(low, tile - 1)
    numbers = gq.get_number_system(dtype)
    calls = build_plan(circuit, numbers, fuse=False)
    plan = group_tile_runs(calls, circuit.n_qubits, tile, low)
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
