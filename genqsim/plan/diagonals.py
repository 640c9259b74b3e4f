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


def merge_diagonals(calls: Sequence[PlanItem], max_qubits: int) -> list[PlanItem]:
    """``calls`` with each maximal stretch of consecutive diagonal calls on at most
    ``max_qubits`` qubits together (taken greedily, in order) replaced by its
    :func:`merged_diagonal`; a stretch of one call, and every other item, is kept as it
    is."""
    out: list[PlanItem] = []
    stretch: list[DiagonalCall] = []
    qubits: set[int] = set()

    def close() -> None:
        out.extend(stretch if len(stretch) < 2 else [merged_diagonal(stretch)])
        stretch.clear()
        qubits.clear()

    for call in calls:
        if not isinstance(call, DiagonalCall):
            close()
            out.append(call)
            continue
        own = set(call.targets + call.controls)
        if len(qubits | own) > max_qubits:
            close()
        stretch.append(call)
        qubits.update(own)
    close()
    return out
