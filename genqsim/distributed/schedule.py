"""The order a distributed state runs a plan in, and where it swaps qubit positions.

Calls that share no qubit commute, so a plan is a dependency graph, not a sequence. The
schedule runs every call it can without moving amplitudes between ranks (local gates,
diagonal gates and controls on rank bits, one-target gates whose partner ranks exchange only
a small controlled subspace) as early as the graph allows, and swaps a rank qubit onto a local
position only when every ready call waits for one. The qubit that gives up its local place is
the one whose next use is furthest away (Belady's rule, over the calls not yet run). A random
circuit whose layers each touch every qubit then needs a swap only where the light cone of a
rank qubit's gates reaches the rest, instead of one per layer.

Items that are not gates (measurements, resets, channels, conditionals) are barriers: they
run in plan order with respect to everything else, and like gates they wait until the qubits
they flip or mix are local.

The schedule depends on the plan and the layout only, never on amplitudes, so every rank
computes the same one.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from ..plan import GATE_CALLS, PlanItem
from .layout import QubitLayout, is_plain_swap, needs_locality

PAIRWISE_CONTROLS = 2
"""A one-target gate on a rank qubit with at least this many controls on local positions runs
by exchanging its controlled subspace (at most a quarter of a slice) rather than a swap of
positions (half a slice)."""


@dataclass(frozen=True)
class Swap:
    """Trade the qubits at positions ``local`` (below the local count) and ``rank``."""

    local: int
    rank: int


Step = int | Swap
"""A plan index to run, or a swap of positions."""


def runs_in_place(item: PlanItem, layout: QubitLayout) -> bool:
    """Whether ``item`` needs no swap: its targets are local, or it is a one-target gate that
    exchanges just its controlled subspace (:data:`PAIRWISE_CONTROLS`)."""
    remote = [q for q in needs_locality(item) if not layout.is_local(q)]
    if not remote:
        return True
    if not isinstance(item, GATE_CALLS) or len(item.targets) != 1:
        return False
    local_controls = sum(1 for c in item.controls if layout.is_local(c))
    return local_controls >= PAIRWISE_CONTROLS


def _touched(item: PlanItem, n_qubits: int) -> tuple[int, ...]:
    if isinstance(item, GATE_CALLS):
        return item.qubits
    return tuple(range(n_qubits))  # a barrier


class _NextUse:
    """For each qubit, the plan indices where it must be local, skipping those already run."""

    def __init__(self, n_qubits: int, plan: Sequence[PlanItem]) -> None:
        self.uses: list[list[int]] = [[] for _ in range(n_qubits)]
        for index, item in enumerate(plan):
            for q in needs_locality(item):
                self.uses[q].append(index)
        self.cursor = [0] * n_qubits

    def next(self, qubit: int, done: list[bool]) -> float:
        uses, at = self.uses[qubit], self.cursor[qubit]
        while at < len(uses) and done[uses[at]]:
            at += 1
        self.cursor[qubit] = at
        return float(uses[at]) if at < len(uses) else float("inf")


def schedule(plan: Sequence[PlanItem], layout: QubitLayout) -> list[Step]:
    """The steps that run ``plan`` from ``layout`` (which it updates to the final layout)."""
    n = layout.n_qubits
    size = len(plan)
    successors: list[list[int]] = [[] for _ in range(size)]
    waiting = [0] * size
    last: list[int | None] = [None] * n
    for index, item in enumerate(plan):
        before = {last[q] for q in _touched(item, n)} - {None}
        for b in before:
            successors[b].append(index)  # type: ignore[index]
        waiting[index] = len(before)
        for q in _touched(item, n):
            last[q] = index
    ready = [i for i in range(size) if waiting[i] == 0]
    heapq.heapify(ready)
    done = [False] * size
    uses = _NextUse(n, plan)
    steps: list[Step] = []
    blocked: list[int] = []
    while ready or blocked:
        while ready:
            index = heapq.heappop(ready)
            if not runs_in_place(plan[index], layout):
                blocked.append(index)
                continue
            steps.append(index)
            done[index] = True
            if is_plain_swap(plan[index]):
                a, b = plan[index].targets  # type: ignore[union-attr]
                layout.position[a], layout.position[b] = layout.position[b], layout.position[a]
            for after in successors[index]:
                waiting[after] -= 1
                if waiting[after] == 0:
                    heapq.heappush(ready, after)
        if not blocked:
            break
        first = min(blocked)
        wanted = set(needs_locality(plan[first]))
        needed_now = {q for i in blocked for q in needs_locality(plan[i])}
        for q in needs_locality(plan[first]):
            if layout.is_local(q):
                continue
            victim = _victim(layout, uses, done, wanted, needed_now)
            steps.append(Swap(victim, layout.position[q]))
            layout.swap_positions(victim, layout.position[q])
        for index in blocked:
            heapq.heappush(ready, index)
        blocked.clear()
    return steps


def _victim(
    layout: QubitLayout, uses: _NextUse, done: list[bool], keep: set[int], soon: set[int]
) -> int:
    """The local position to give up: never one holding a qubit in ``keep``; preferably not
    one a waiting call needs; then the furthest next use; then the highest position."""
    at = layout.qubit_at
    best: tuple[bool, float, int] | None = None
    for p in range(layout.local_qubits):
        q = at[p]
        if q in keep:
            continue
        key = (q not in soon, uses.next(q, done), p)
        if best is None or key > best:
            best = key
    if best is None:
        raise ValueError("no local position is free to swap with")
    return best[2]
