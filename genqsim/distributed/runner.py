"""Running a plan on a distributed state: each call classified by where its qubits sit,
exchanged where it must cross ranks, and local calls batched into the backend's cache blocks
(the rules are listed in :mod:`genqsim.distributed.state`)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, cast

import numpy as np

from ..backends import BlockRunner, capability
from ..numbers import NumberSystem
from ..plan import (
    ChannelCall,
    ConditionalCall,
    DiagonalCall,
    LoopCall,
    MatrixCall,
    MeasureCall,
    PermutationCall,
    PlanItem,
    ResetCall,
    StoreCall,
    group_calls,
    is_gate_call,
    run_plan,
)
from ..states import sampling
from .exchange import subspace
from .layout import is_plain_swap
from .schedule import PAIRWISE_CONTROLS

if TYPE_CHECKING:
    from .state import DistributedStateVector

RunCall = MatrixCall | DiagonalCall | PermutationCall


def _scalar_row(call: RunCall, numbers: NumberSystem) -> np.ndarray:
    """The 2x2 matrix of a one-target matrix or permutation call, as complex numbers."""
    if isinstance(call, MatrixCall):
        return np.array([[numbers.to_complex(v) for v in row] for row in np.asarray(call.matrix)])
    assert isinstance(call, PermutationCall)
    matrix = np.zeros((2, 2), dtype=complex)
    phases = call.phases
    for j in range(2):
        matrix[int(call.permutation[j]), j] = 1 if phases is None else numbers.to_complex(phases[j])
    return matrix


class PlanRun:
    """One run of a plan on a distributed state: classifies each call, exchanges what must
    cross ranks, and batches local calls into the backend's cache blocks."""

    def __init__(
        self,
        state: DistributedStateVector,
        rng: np.random.Generator | None,
    ) -> None:
        self.state = state
        self.rng = rng
        self.pending: list[RunCall] = []
        self.stats = state.communication

    # -- dispatch ----------------------------------------------------------------------------
    def item(self, item: PlanItem, index: int) -> None:
        if is_gate_call(item):
            self.gate(item, index)  # type: ignore[arg-type]
            return
        self.flush()
        s = self.state
        if isinstance(item, MeasureCall):
            s.clbits[item.clbit] = int(s._measure((item.qubit,), self.rng))
        elif isinstance(item, ResetCall):
            if s._measure((item.qubit,), self.rng) == "1":
                self.gate(PermutationCall([1, 0], None, (item.qubit,)), index)
        elif isinstance(item, ChannelCall):
            self._channel(item, index)
        elif isinstance(item, StoreCall):  # the bits are the same on every rank
            s.clbits.update(item.written(s.clbits))
        elif isinstance(item, ConditionalCall):
            for call in item.branch(s.clbits):
                self.item(call, index)
        elif isinstance(item, LoopCall):  # the bits are the same on every rank

            def once() -> None:
                for call in item.body:
                    self.item(call, index)

            item.repeat(lambda: s.clbits, once)
        else:  # pragma: no cover - the plan vocabulary is closed
            raise TypeError(f"cannot run {type(item).__name__} on a distributed state")
        self.flush()

    def gate(self, call: RunCall, index: int) -> None:
        s = self.state
        if is_plain_swap(call):
            self.flush()
            a, b = call.targets
            position = s.layout.position
            if s.options.remap:  # the layout absorbs it
                position[a], position[b] = position[b], position[a]
                self.stats.count("relabel")
            else:  # the amplitudes move, the layout stays
                s._swap_amplitudes(position[a], position[b])
            return
        remote = [q for q in call.targets if not s.layout.is_local(q)]
        if remote and not isinstance(call, DiagonalCall):
            self.flush()
            if self._pairwise(call):
                return
            saved = None if s.options.remap else s.layout.copy()
            s._make_local(call.targets)  # remap=False, or an item the schedule did not place
            self._run_local(call)
            if saved is not None:
                self.flush()
                s._restore(saved)
            return
        self._run_local(call)

    def _pairwise(self, call: RunCall) -> bool:
        """Run a one-target gate on a rank bit by combining with the partner rank's controlled
        amplitudes (always with ``remap=False``; with remapping where the schedule chose to,
        :data:`~.schedule.PAIRWISE_CONTROLS`); ``False`` to swap instead."""
        s = self.state
        if len(call.targets) != 1:
            return False
        local_controls = [c for c in call.controls if s.layout.is_local(c)]
        if s.options.remap and len(local_controls) < PAIRWISE_CONTROLS:
            return False
        physical = call.renamed(dict(enumerate(s.layout.position)))
        controls = self._local_controls(physical)
        if controls is None:
            return True
        fixed = dict(zip(*controls))
        bit_position = physical.targets[0] - s.local_qubits
        bit = (s.rank >> bit_position) & 1
        row = _scalar_row(call, s.numbers)[bit]
        view = subspace(s._local, s.local_qubits, fixed)
        s._exchanger.combine(view, s.rank ^ (1 << bit_position), row[bit], row[1 - bit])
        self.stats.count("exchange")
        return True

    def _run_local(self, call: RunCall) -> None:
        """Queue ``call`` (targets already local) for this rank's slice: rank-bit controls
        are resolved here (skip, or drop them), rank-bit diagonal targets fixed."""
        s = self.state
        L = s.local_qubits
        physical = call.renamed(dict(enumerate(s.layout.position)))
        local = self._local_controls(physical)
        if local is None:
            return
        if len(local[0]) != len(physical.controls):
            self.stats.count("rank_controlled")
        physical = replace(physical, controls=local[0], control_values=local[1])
        if isinstance(physical, DiagonalCall) and any(t >= L for t in physical.targets):
            self.stats.count("diagonal")
            reduced = self._fix_rank_targets(physical)
            if reduced is not None:
                self.pending.append(reduced)
            return
        self.stats.count("local")
        self.pending.append(physical)

    def _local_controls(self, physical: RunCall) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """The controls of a call (in positions) that sit on local positions, and their values;
        ``None`` where a control on a rank bit fails on this rank (the rank skips the call)."""
        L, rank = self.state.local_qubits, self.state.rank
        controls, values = [], []
        for c, v in zip(physical.controls, physical.control_values):
            if c < L:
                controls.append(c)
                values.append(v)
            elif (rank >> (c - L)) & 1 != v:
                self.stats.count("skipped")
                return None
        return tuple(controls), tuple(values)

    def _fix_rank_targets(self, call: DiagonalCall) -> DiagonalCall | None:
        """The diagonal restricted to this rank's values of its rank-bit targets: a smaller
        diagonal on the local targets, or a factor on the controlled subspace."""
        s = self.state
        L = s.local_qubits
        diagonal = np.asarray(call.diagonal)
        local_targets = [t for t in call.targets if t < L]
        fixed = 0
        for i, t in enumerate(call.targets):
            if t >= L and (s.rank >> (t - L)) & 1:
                fixed |= 1 << i
        positions = [i for i, t in enumerate(call.targets) if t < L]
        index = np.full(1 << len(positions), fixed, dtype=np.int64)
        j = np.arange(index.size)
        for bit, i in enumerate(positions):
            index |= ((j >> bit) & 1) << i
        reduced = diagonal[index]
        if local_targets:
            return replace(call, diagonal=reduced, targets=tuple(local_targets))
        factor = reduced[0]
        if factor == 1:
            return None
        if call.controls:  # the factor on the controlled pattern, 1 elsewhere
            pattern = sum(v << i for i, v in enumerate(call.control_values))
            on_controls = np.ones(1 << len(call.controls), dtype=diagonal.dtype)
            on_controls[pattern] = factor
            return DiagonalCall(on_controls, call.controls)
        self.flush()
        s._local *= factor
        return None

    def flush(self) -> None:
        """Run the queued local calls, grouped as a whole state's plan is (cache blocks, then
        gathered tiles on the high local qubits)."""
        if not self.pending:
            return
        s = self.state
        calls: list[PlanItem] = list(self.pending)
        self.pending.clear()
        runner = capability(s.backend, BlockRunner)
        if runner is not None:
            calls = group_calls(calls, s.local_qubits, runner.block_layout(s.numbers.dtype))
        run_plan(calls, s.backend, s._local)

    # -- channels -------------------------------------------------------------------------------
    def _channel(self, call: ChannelCall, index: int) -> None:
        """Apply one Kraus branch drawn with its probability (Pauli mixtures: from their fixed
        weights; otherwise ``Tr(K^dagger K rho)`` from the targets' reduced state)."""
        s = self.state
        if call.mixture is not None:
            probabilities, branches = call.mixture
            k = self._draw(np.asarray(probabilities) / np.sum(probabilities))
            for gate_call in branches[k]:
                self.gate(cast(RunCall, gate_call), index)  # branches hold gate calls
            self.flush()
            return
        rho = self._reduced(call.targets)
        weights = np.array([
            np.trace(np.conj(m).T @ m @ rho).real
            for m in (np.asarray(c.matrix, dtype=complex) for c in call.kraus)
        ])  # fmt: skip
        weights = np.clip(weights, 0.0, None)
        k = self._draw(weights / weights.sum())
        self.gate(call.kraus[k], index)
        self.flush()
        s._local *= s.numbers.dtype.type(1 / np.sqrt(weights[k]))

    def _draw(self, p: np.ndarray) -> int:
        s = self.state
        return int(s.comm.bcast(sampling.draw_outcome(p, self.rng) if s.rank == 0 else None))

    def _reduced(self, targets: tuple[int, ...]) -> np.ndarray:
        """The reduced density matrix of ``targets`` (``targets[0]`` the lowest index bit),
        from the Pauli expectations of every string on them: ``rho = sum conj<X^x Z^z>
        X^x Z^z / 2**m``."""
        s = self.state
        m = len(targets)
        rho = np.zeros((1 << m, 1 << m), dtype=complex)
        for x in range(1 << m):
            for z in range(1 << m):
                value = s._pauli_value(_spread(x, targets), _spread(z, targets))
                rho += np.conj(value) * _pauli_matrix(x, z, m)
        return rho / (1 << m)


def _spread(mask: int, targets: tuple[int, ...]) -> int:
    return sum(1 << q for i, q in enumerate(targets) if mask >> i & 1)


def _pauli_matrix(x: int, z: int, m: int) -> np.ndarray:
    """``X^x Z^z`` on ``m`` qubits (bit ``i`` of the index is qubit ``i``)."""
    size = 1 << m
    out = np.zeros((size, size), dtype=complex)
    for j in range(size):
        out[j ^ x, j] = -1 if bin(j & z).count("1") & 1 else 1
    return out
