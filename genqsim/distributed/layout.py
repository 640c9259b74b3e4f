"""Where each logical qubit sits in a distributed state vector, and where it should go next.

A state of ``n`` qubits on ``R = 2**k`` ranks is a ``2**n`` array cut into ``R`` contiguous
slices: the low ``n - k`` *positions* index amplitudes within a rank (local positions), the top
``k`` are the bits of the rank number (rank positions). Logical qubits are not fixed to
positions: a :class:`QubitLayout` records which qubit sits where, so a run of gates on a high
qubit costs one swap of positions (an exchange of half of each rank's slice) instead of one
exchange per gate, and a SWAP gate costs nothing at all (the two qubits trade places in the
layout). :class:`DenseUses` looks ahead in a plan to choose which local qubit gives up its place
(the one needed again furthest in the future).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..plan import (
    GATE_CALLS,
    ChannelCall,
    ConditionalCall,
    DiagonalCall,
    LoopCall,
    PermutationCall,
    ResetCall,
)


@dataclass
class QubitLayout:
    """``position[q]``: the position of logical qubit ``q``; positions below ``local_qubits``
    index amplitudes within a rank, the others are rank bits (position ``p`` is bit
    ``p - local_qubits`` of the rank number)."""

    n_qubits: int
    local_qubits: int
    position: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.position:
            self.position = list(range(self.n_qubits))
        if sorted(self.position) != list(range(self.n_qubits)):
            raise ValueError(f"a layout is a permutation of the positions, got {self.position}")

    @property
    def qubit_at(self) -> list[int]:
        """The inverse map: ``qubit_at[p]`` is the logical qubit at position ``p``."""
        inverse = [0] * self.n_qubits
        for q, p in enumerate(self.position):
            inverse[p] = q
        return inverse

    @property
    def is_identity(self) -> bool:
        return self.position == list(range(self.n_qubits))

    def is_local(self, qubit: int) -> bool:
        return self.position[qubit] < self.local_qubits

    def rank_qubits(self) -> list[int]:
        """The logical qubits on rank bits, lowest rank bit first."""
        return self.qubit_at[self.local_qubits :]

    def swap_positions(self, p: int, r: int) -> None:
        """Record that the qubits at positions ``p`` and ``r`` traded places."""
        at = self.qubit_at
        self.position[at[p]], self.position[at[r]] = r, p

    def physical_mask(self, logical_mask: int) -> int:
        """A mask over logical qubits as the same mask over positions."""
        out = 0
        for q in range(self.n_qubits):
            if logical_mask >> q & 1:
                out |= 1 << self.position[q]
        return out

    def copy(self) -> QubitLayout:
        return QubitLayout(self.n_qubits, self.local_qubits, list(self.position))


def is_plain_swap(call: object) -> bool:
    """An uncontrolled SWAP without phases: with remapping, the layout absorbs it (the two
    qubits trade positions; no amplitude moves)."""
    return (
        isinstance(call, PermutationCall)
        and len(call.targets) == 2
        and not call.controls
        and call.phases is None
        and [int(v) for v in call.permutation] == [0, 2, 1, 3]
    )


def needs_locality(item: object) -> tuple[int, ...]:
    """The logical qubits an item must find on local positions to run without an exchange:
    targets of dense and permutation gates (diagonal gates, controls, measurements and SWAP
    gates, which the layout absorbs, never need one); reset and channel targets too (their
    branches flip or mix them), and those of a conditional's gates."""
    if isinstance(item, DiagonalCall) or is_plain_swap(item):
        return ()
    if isinstance(item, (*GATE_CALLS, ResetCall, ChannelCall)):
        return item.targets
    if isinstance(item, (ConditionalCall, LoopCall)):
        calls = (call for branch in item.branches for call in branch)
        return tuple(dict.fromkeys(q for call in calls for q in needs_locality(call)))
    return ()


def initial_layout(n_qubits: int, local_qubits: int, plan: Sequence[object]) -> QubitLayout:
    """A layout for a state that is still a basis state (its amplitudes can be placed
    anywhere for free): the qubits first needed locally latest (or never) go on the rank
    bits."""
    first = [float("inf")] * n_qubits
    for index, item in enumerate(plan):
        for q in needs_locality(item):
            first[q] = min(first[q], index)
    order = sorted(range(n_qubits), key=lambda q: (first[q], q))
    local, ranked = sorted(order[:local_qubits]), order[local_qubits:]
    position = [0] * n_qubits
    for p, q in enumerate(local + ranked):
        position[q] = p
    return QubitLayout(n_qubits, local_qubits, position)
