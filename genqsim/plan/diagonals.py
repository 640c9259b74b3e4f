"""Consecutive diagonal calls merged into one diagonal call.

Diagonal gates commute, and a run of them (a QFT's controlled phases onto one qubit, a
layer of CZ and RZ) changes each amplitude by the product of their factors. Applied one by
one, every call is a pass over the amplitudes it changes, often a strided one; merged, the
run is one pass with a factor per pattern of its qubits. The merged diagonal has
``2**k`` entries for ``k`` qubits, so merging stops at a backend's
:attr:`~genqsim.backends.BlockLayout.merged_diagonal_qubits`.
"""

from __future__ import annotations

from collections.abc import Sequence

from .calls import DiagonalCall, PlanItem, monomial_map


def merged_diagonal(calls: Sequence[DiagonalCall]) -> DiagonalCall:
    """One diagonal call equal to ``calls`` applied in turn: on the union of their targets
    and controls (ascending, bit ``p`` of an entry's index for qubit ``p`` of that list),
    each entry the product of the calls' factors there, as :func:`monomial_map` gives it
    for the calls renamed onto qubits ``0 .. k - 1``."""
    qubits = sorted({q for call in calls for q in call.targets + call.controls})
    position = {q: p for p, q in enumerate(qubits)}
    _, phases = monomial_map([call.renamed(position) for call in calls], 0, len(qubits))
    return DiagonalCall(phases, tuple(qubits))


def merge_diagonals(
    calls: Sequence[PlanItem], max_qubits: int, bands: Sequence[int] = ()
) -> list[PlanItem]:
    """``calls`` with each maximal stretch of consecutive diagonal calls merged: the stretch
    is first parted by the band of each call's highest qubit (``bands``: ascending qubit
    boundaries; diagonal calls commute, so the parts may run in any order, lowest band
    first), then each part's calls are taken greedily, in order, into groups on at most
    ``max_qubits`` qubits, each group replaced by its :func:`merged_diagonal`; a group of
    one call, and every other item, is kept as it is. Bands keep a merged diagonal inside
    what one kind of a backend's row code runs well (a repeating pattern of low qubits, long
    series, a gathered tile)."""
    out: list[PlanItem] = []
    stretch: list[DiagonalCall] = []

    def close() -> None:
        parts: dict[int, list[DiagonalCall]] = {}
        for call in stretch:
            top = max(call.targets + call.controls)
            parts.setdefault(sum(top >= b for b in bands), []).append(call)
        for band in sorted(parts):
            out.extend(_merged_greedily(parts[band], max_qubits))
        stretch.clear()

    for call in calls:
        if isinstance(call, DiagonalCall):
            stretch.append(call)
            continue
        close()
        out.append(call)
    close()
    return out


def _merged_greedily(calls: list[DiagonalCall], max_qubits: int) -> list[PlanItem]:
    """``calls`` taken in order into groups on at most ``max_qubits`` qubits, each group of
    two or more replaced by its :func:`merged_diagonal`."""
    out: list[PlanItem] = []
    group: list[DiagonalCall] = []
    qubits: set[int] = set()
    for call in calls:
        own = set(call.targets + call.controls)
        if len(qubits | own) > max_qubits:
            out.extend(group if len(group) < 2 else [merged_diagonal(group)])
            group, qubits = [], set()
        group.append(call)
        qubits.update(own)
    out.extend(group if len(group) < 2 else [merged_diagonal(group)])
    return out
