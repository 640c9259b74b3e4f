"""The distributed state vector's layout, schedule and exchange arithmetic on their own, and
its typed errors (``tests/test_distributed_ranks.py`` runs the state on real ranks)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import genqsim as gq
from genqsim.distributed import DistributedStateVector
from genqsim.distributed.exchange import pieces, subspace
from genqsim.distributed.layout import QubitLayout, initial_layout, is_plain_swap, needs_locality
from genqsim.distributed.schedule import Swap, runs_in_place, schedule
from genqsim.errors import ArgumentValueError
from genqsim.plan import build_plan

from strategies import random_circuit

pytest.importorskip("mpi4py")  # the [mpi] extra (part of [test])


@given(st.integers(1, 9), st.data())
def test_subspace_is_the_indices_with_fixed_bits(local_qubits, data):
    """The view of a subspace holds exactly the amplitudes whose bits match, in index order;
    its pieces cover it in order, none larger than the chunk."""
    positions = data.draw(st.sets(st.integers(0, local_qubits - 1), max_size=local_qubits))
    fixed = {p: data.draw(st.integers(0, 1)) for p in positions}
    local = np.arange(1 << local_qubits).astype(np.complex128)
    view = subspace(local, local_qubits, fixed)
    expected = [
        i for i in range(1 << local_qubits) if all((i >> p) & 1 == v for p, v in fixed.items())
    ]
    np.testing.assert_array_equal(view.reshape(-1).real, expected)
    chunk = 1 << data.draw(st.integers(0, local_qubits))
    parts = list(pieces(view, chunk))
    assert all(p.size == min(chunk, view.size) for p in parts)
    np.testing.assert_array_equal(np.concatenate([p.reshape(-1) for p in parts]).real, expected)
    for part in parts:  # views, not copies: writing through them writes the state
        part[...] = -1
    assert np.all(local[expected] == -1)


def test_layout_bookkeeping():
    layout = QubitLayout(5, 3)
    assert layout.is_identity and layout.rank_qubits() == [3, 4]
    layout.swap_positions(0, 4)
    assert layout.position == [4, 1, 2, 3, 0] and layout.qubit_at == [4, 1, 2, 3, 0]
    assert not layout.is_local(0) and layout.is_local(4)
    assert layout.physical_mask(0b00011) == 0b10010
    with pytest.raises(ValueError):
        QubitLayout(3, 2, [0, 0, 1])


def _replay(plan, steps, layout):
    """Check a schedule: every item once, dependencies kept, each item's targets local when
    it runs (or a one-target gate with two local controls); returns the swaps."""
    n = layout.n_qubits
    last_run = {}
    seen = []
    for step in steps:
        if isinstance(step, Swap):
            assert step.local < layout.local_qubits <= step.rank
            layout.swap_positions(step.local, step.rank)
            continue
        item = plan[step]
        for q in item.qubits if hasattr(item, "qubits") else range(n):
            for earlier in range(step):  # every earlier item on a shared qubit already ran
                other = plan[earlier]
                shared = set(other.qubits) if hasattr(other, "qubits") else set(range(n))
                if q in shared:
                    assert earlier in last_run, (earlier, step)
        assert runs_in_place(item, layout)
        if is_plain_swap(item):
            a, b = item.targets
            layout.position[a], layout.position[b] = layout.position[b], layout.position[a]
        last_run[step] = True
        seen.append(step)
    assert sorted(seen) == list(range(len(plan)))
    return [s for s in steps if isinstance(s, Swap)]


@given(random_circuit(n_min=4, n_max=7), st.integers(1, 2))
def test_schedule_is_a_valid_order(circuit, rank_bits):
    plan = build_plan(circuit, gq.get_number_system("complex128"), False)
    layout = QubitLayout(circuit.n_qubits, circuit.n_qubits - rank_bits)
    if any(len(item.targets) > layout.local_qubits for item in plan):
        return
    steps = schedule(plan, layout.copy())
    _replay(plan, steps, layout)


def test_schedule_runs_ahead_instead_of_swapping_every_layer():
    """A random circuit touches every qubit in every layer; run in order it would swap the
    rank qubit in once per layer. Out of order, the qubits far from the rank qubit's light cone
    finish first and one of them gives up its place for good."""
    n, depth = 12, 10
    plan = build_plan(
        gq.library.random_circuit(n, depth, seed=3), gq.get_number_system("complex128"), False
    )
    layout = initial_layout(n, n - 1, plan)
    assert layout.rank_qubits() == [n - 1]  # first needed last in layer 0
    swaps = _replay(plan, schedule(plan, layout.copy()), layout.copy())
    assert len(swaps) <= 2 < depth


def test_initial_layout_puts_the_latest_needed_qubits_on_rank_bits():
    c = gq.Circuit(5).h(4).h(0).cz(1, 4).h(2).cx(1, 3).swap(0, 2).h(1)
    plan = build_plan(c, gq.get_number_system("complex128"), False)
    assert needs_locality(plan[2]) == () and needs_locality(plan[5]) == ()  # CZ, SWAP
    assert needs_locality(plan[4]) == (3,)  # the CX target only
    assert sorted(initial_layout(5, 3, plan).rank_qubits()) == [1, 3]  # first needed last


class StandIn:
    """A communicator's rank and size, for the checks made before any message is sent."""

    def __init__(self, size: int) -> None:
        self.size = size

    def Get_rank(self) -> int:
        return 0

    def Get_size(self) -> int:
        return self.size

    def allgather(self, value: object) -> list[object]:
        return [value] * self.size

    def Ibarrier(self) -> Arrived:
        return Arrived()  # the collective guard's barrier: every rank is there

    def Split_type(self, kind: int) -> StandIn:
        return StandIn(1)  # alone on its node


class Arrived:
    """A completed request."""

    def Test(self) -> bool:
        return True


def test_rank_counts_and_gate_widths_are_checked():
    with pytest.raises(ArgumentValueError, match="power-of-two"):
        DistributedStateVector(4, comm=StandIn(3))
    with pytest.raises(ArgumentValueError, match="too many for 2 qubits"):
        DistributedStateVector(2, comm=StandIn(4))
    state = DistributedStateVector(4, comm=StandIn(4))
    unitary = np.linalg.qr(np.arange(64).reshape(8, 8) + 1j * np.eye(8))[0]
    assert state.options.threads == max(1, min(state.backend.max_threads(), os.cpu_count() or 1))
    before = state.local_amplitudes.copy()
    with pytest.raises(ArgumentValueError, match="3-qubit gate needs 3 local qubits"):
        state.apply(gq.Circuit(4).h(0).append(gq.MatrixGate(unitary), (0, 1, 3)))
    np.testing.assert_array_equal(state.local_amplitudes, before)


def test_rank_memory_is_checked_before_allocating(monkeypatch):
    monkeypatch.setenv("GENQSIM_MEMORY_LIMIT", str(1 << 20))
    with pytest.raises(gq.errors.StateTooLargeError, match="rank 0: a 17-qubit state"):
        DistributedStateVector(20, comm=StandIn(8))  # 2**17 amplitudes a rank
