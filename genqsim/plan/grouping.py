"""Grouping of consecutive gate calls into :class:`BlockRun` s, for backends that run
blocks (cache blocks on the CPU, shared-memory tiles on a GPU)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np

from .calls import (
    BlockRun,
    DiagonalCall,
    MatrixCall,
    MonomialMember,
    MonomialRun,
    PermutationCall,
    PlanItem,
    is_gate_call,
)

RunCall = MatrixCall | DiagonalCall | PermutationCall


def group_block_runs(
    calls: Sequence[PlanItem], n_qubits: int, block_qubits: int | None
) -> list[PlanItem]:
    """Wrap maximal runs of at least two consecutive calls on qubits below ``block_qubits``
    into :class:`BlockRun` s (only when the state spans at least four blocks): the tiles of
    :func:`group_tile_runs` made of the lowest qubits only."""
    if block_qubits is None or n_qubits < block_qubits + 2:
        return list(calls)
    return group_tile_runs(calls, n_qubits, block_qubits, block_qubits)


def whole_state_runs(items: Sequence[PlanItem], n_qubits: int) -> list[PlanItem]:
    """``items`` with each stretch of two or more consecutive gate calls wrapped into one
    :class:`BlockRun` over the whole ``n_qubits``-qubit state (a block of every qubit);
    everything else (measurements, resets, channels, conditionals, lone calls) as it is."""
    out: list[PlanItem] = []
    stretch: list[RunCall] = []
    every_qubit = tuple(range(n_qubits))

    def close() -> None:
        if len(stretch) >= 2:
            out.append(BlockRun(list(stretch), n_qubits, every_qubit))
        else:
            out.extend(stretch)
        stretch.clear()

    for item in items:
        if is_gate_call(item):
            stretch.append(cast(RunCall, item))
            continue
        close()
        out.append(item)
    close()
    return out


LOOKAHEAD = 256
"""Calls a tile run looks past its first call for more that fit (bounds the planning cost
at ``O(calls * LOOKAHEAD)``)."""


def group_tile_runs(
    calls: Sequence[PlanItem],
    n_qubits: int,
    tile_qubits: int,
    low_qubits: int,
    min_gathered_work: float = 0.0,
) -> list[PlanItem]:
    """Group gate calls into :class:`BlockRun` s over tiles of ``tile_qubits`` qubits that
    always include the lowest ``low_qubits`` (so each tile is read as series of
    ``2**low_qubits`` consecutive amplitudes, coalesced on a GPU) plus up to
    ``tile_qubits - low_qubits`` others, high ones included (the most-significant-bit scheme of
    Gutierrez et al.'s CUDA quantum-computer simulator).

    A run starts at the first call not yet placed and takes every later call (up to
    :data:`LOOKAHEAD` on) whose qubits still fit in the tile and that commutes past the calls
    it skips: it shares no qubit with any of them, and none of them is a measurement or
    other non-gate item. So a layer of one-qubit gates followed by a brick of two-qubit gates
    fills each tile from both, instead of cutting a run at the first gate that does not fit.
    A run is padded with the lowest free qubits; a lone call stays a plain call, and so does
    the first call of a run over gathered tiles (not the lowest qubits only) whose calls would
    move fewer than ``min_gathered_work`` states' worth of amplitudes one by one (see
    :func:`gate_by_gate_work`): the calls after it are grouped again from the next one."""
    if n_qubits < tile_qubits + 1 or len(calls) < 2:  # a lone call stays a plain call
        return list(calls)
    low = (1 << low_qubits) - 1  # qubit sets as bit masks: the look-ahead is the hot loop
    pending = list(calls)
    masks = [_qubit_mask(c) if is_gate_call(c) else -1 for c in pending]  # -1: not a gate
    everyone = (1 << n_qubits) - 1
    out: list[PlanItem] = []
    placed = [False] * len(pending)
    head = 0
    while head < len(pending):
        if placed[head]:
            head += 1
            continue
        first = pending[head]
        if masks[head] < 0 or (low | masks[head]).bit_count() > tile_qubits:
            out.append(first)
            placed[head] = True
            continue
        run = [head]
        extra = masks[head] & ~low
        blocked = 0
        for i in range(head + 1, min(len(pending), head + 1 + LOOKAHEAD)):
            if placed[i]:
                continue
            qubits = masks[i]
            if qubits < 0:
                break  # nothing moves across a measurement, reset or conditional
            if not qubits & blocked:
                wanted = extra | (qubits & ~low)
                if (low | wanted).bit_count() <= tile_qubits:
                    run.append(i)
                    extra = wanted
                    continue
            blocked |= qubits  # later calls on these qubits stay behind this one
            if blocked == everyone:
                break
        gathered = extra >> tile_qubits != 0  # else padded to the lowest qubits
        members = [cast(RunCall, pending[i]) for i in run]  # gate calls only, checked above
        if len(run) < 2 or (gathered and gate_by_gate_work(members) < min_gathered_work):
            placed[head] = True
            out.append(first)
            continue
        for i in run:
            placed[i] = True
        qubits = low | extra
        free = ~qubits
        while qubits.bit_count() < tile_qubits:  # pad with the lowest free qubits
            lowest = free & -free
            qubits |= lowest
            free ^= lowest
        tile = tuple(q for q in range(qubits.bit_length()) if qubits >> q & 1)
        out.append(BlockRun(members, tile_qubits, tile))
    return out


def _qubit_mask(call: PlanItem) -> int:
    """The qubits of a gate call as a bit mask."""
    mask = 0
    for q in call.qubits:  # type: ignore[union-attr]
        mask |= 1 << q
    return mask


def gate_by_gate_work(calls: Sequence[RunCall]) -> float:
    """States' worth of amplitudes ``calls`` move when each runs on its own: a call under
    ``c`` controls touches only its ``2**-c`` of the state."""
    return sum(2.0 ** -len(c.controls) for c in calls)


MAX_SERIES_MAP_BITS = 20
"""A monomial run maps at most ``2**20`` series (its map is built with NumPy at planning
time, and a backend walks its cycles)."""


def group_monomial_runs(
    items: Sequence[PlanItem], n_qubits: int, min_series_qubits: int
) -> list[PlanItem]:
    """Wrap maximal runs of at least two consecutive permutation and diagonal calls on
    qubits ``min_series_qubits`` and above (X, CX, SWAP, Toffoli, CZ, T on high qubits) into
    :class:`MonomialRun` s moving series of ``2**k`` amplitudes, ``k`` the lowest qubit the
    run touches: one pass over the series the run changes, instead of one pass per call.
    A run is formed only where its calls, one by one, would move more amplitudes than the
    run changes (see :func:`gate_by_gate_work`); other items pass through unchanged."""
    out: list[PlanItem] = []
    pending: list[MonomialMember] = []

    def close() -> None:
        run = _monomial_run(pending, n_qubits) if len(pending) > 1 else None
        out.extend([run] if run is not None else pending)
        pending.clear()

    for item in items:
        if (
            isinstance(item, (PermutationCall, DiagonalCall))
            and min(item.qubits) >= min_series_qubits
        ):
            pending.append(item)
            continue
        close()
        out.append(item)
    close()
    return out


def _monomial_run(calls: list[MonomialMember], n_qubits: int) -> MonomialRun | None:
    """The run of ``calls`` if it moves fewer amplitudes than the calls one by one."""
    k = min(q for c in calls for q in c.qubits)
    if n_qubits - k > MAX_SERIES_MAP_BITS:
        return None
    run = MonomialRun(list(calls), k, n_qubits)
    changed = run.changed
    return run if gate_by_gate_work(calls) > np.count_nonzero(changed) / changed.size else None
