"""Grouping of consecutive gate calls into :class:`BlockRun` s, for backends that run
blocks (cache blocks on the CPU, shared-memory tiles on a GPU)."""

from __future__ import annotations

from collections.abc import Sequence

from .calls import BlockRun, PlanItem, is_gate_call


def group_block_runs(
    calls: Sequence[PlanItem], n_qubits: int, block_qubits: int | None
) -> list[PlanItem]:
    """Wrap maximal runs of at least two consecutive calls on qubits below ``block_qubits``
    into :class:`BlockRun` s (only when the state spans at least four blocks): the tiles of
    :func:`group_tile_runs` made of the lowest qubits only."""
    if block_qubits is None or n_qubits < block_qubits + 2:
        return list(calls)
    return group_tile_runs(calls, n_qubits, block_qubits, block_qubits)


def group_tile_runs(
    calls: Sequence[PlanItem], n_qubits: int, tile_qubits: int, low_qubits: int
) -> list[PlanItem]:
    """Group consecutive gate calls into :class:`BlockRun` s over tiles of ``tile_qubits``
    qubits that always include the lowest ``low_qubits`` (so each tile is read as series of
    ``2**low_qubits`` consecutive amplitudes, coalesced on a GPU) plus up to
    ``tile_qubits - low_qubits`` others, high ones included (seed 001's MSB scheme). A run
    grows while its calls' qubits fit in one tile; it is padded with the lowest free qubits."""
    if n_qubits < tile_qubits + 1:
        return list(calls)
    low = set(range(low_qubits))
    out: list[PlanItem] = []
    run: list = []
    extra: set[int] = set()

    def flush() -> None:
        if len(run) >= 2:
            qubits = low | extra
            for q in range(n_qubits):  # pad with the lowest free qubits
                if len(qubits) == tile_qubits:
                    break
                qubits.add(q)
            out.append(BlockRun(run.copy(), tile_qubits, tuple(sorted(qubits))))
        else:
            out.extend(run)
        run.clear()
        extra.clear()

    for call in calls:
        is_gate = is_gate_call(call)
        involved = set(call.qubits) if is_gate else set()  # type: ignore[union-attr]
        wanted = extra | (involved - low)
        if is_gate and len(low) + len(wanted) <= tile_qubits:
            run.append(call)
            extra.update(wanted)
            continue
        flush()
        if is_gate and len(low | involved) <= tile_qubits:
            run.append(call)
            extra.update(involved - low)
        else:
            out.append(call)
    flush()
    return out
