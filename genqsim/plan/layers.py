"""Layers of one-qubit unitaries split into a real layer between two diagonal ones.

Every 2x2 unitary is ``diag(p, q) @ R @ diag(1, r)`` with ``R`` a real rotation (``U3``
is ``P(phi) RY(theta) P(lambda)``). A complex 2x2 gate costs twice the arithmetic of a real
one on a complex state (eight multiply-adds per amplitude against four), and a diagonal
costs one pass whatever its qubits. So a layer of complex one-qubit gates on distinct
qubits (a random circuit's ``U`` layer, a variational ansatz's rotations) becomes its
diagonal parts before it, a layer of real gates, and its diagonal parts after it; the
diagonals then merge with each other and with the diagonal gates around the layer (a brick
of CZ, the next layer's parts) into a few merged diagonals
(:func:`~genqsim.plan.diagonals.merge_diagonals`). Only for backends that merge diagonals.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .calls import DiagonalCall, MatrixCall, PlanItem

SPLIT_MIN_CALLS = 4
"""A stretch of one-qubit gates on distinct qubits is split where at least this many of
them are complex and not diagonal: fewer leave too few diagonals to merge for the two
extra calls each split gate brings."""

UNITARY_TOLERANCE_ULPS = 64
"""A matrix is split only where its parts give it back to within this many units of
rounding of its number type (else, not unitary, it is left whole)."""


def unitary_parts(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(after, real, before)`` with ``matrix == diag(after) @ real @ diag(before)``:
    ``after = (p, q)`` and ``before = (1, r)`` phases, ``real`` a real rotation, all in
    ``matrix``'s dtype; ``None`` where ``matrix`` is not a 2x2 unitary to within
    :data:`UNITARY_TOLERANCE_ULPS`."""
    m = np.asarray(matrix)
    if m.shape != (2, 2) or m.dtype.kind != "c":
        return None
    a, b, c, d = (complex(v) for v in m.reshape(-1))
    cos, sin = abs(a), abs(c)
    tolerance = UNITARY_TOLERANCE_ULPS * float(np.finfo(m.dtype).eps)
    if abs(cos * cos + sin * sin - 1) > tolerance:
        return None

    def unit(z: complex) -> complex:
        return z / abs(z)

    # a = p cos, b = -p r sin, c = q sin, d = q r cos: phases from the larger entries
    if cos >= sin:
        p, qr = unit(a), unit(d) if d else 1
        q = unit(c) if sin > tolerance else qr
        r = qr / q
    else:
        q, pr = unit(c), unit(-b) if b else 1
        p = unit(a) if cos > tolerance else pr
        r = pr / p
    after = np.array([p, q])
    before = np.array([1, r])
    real = np.array([[cos, -sin], [sin, cos]])
    if np.abs((after[:, None] * real * before[None, :]) - m).max() > tolerance:
        return None
    return after.astype(m.dtype), real.astype(m.dtype), before.astype(m.dtype)


def _one_qubit(item: PlanItem) -> bool:
    """Whether ``item`` is an uncontrolled one-qubit matrix call."""
    return isinstance(item, MatrixCall) and len(item.targets) == 1 and not item.controls


def _splits(call: MatrixCall) -> bool:
    """Whether ``call``'s matrix is complex and not diagonal: the gates a split pays for."""
    m = np.asarray(call.matrix)
    return m.dtype.kind == "c" and bool(np.any(m.imag)) and bool(m[0, 1] != 0 or m[1, 0] != 0)


def split_unitary_layers(
    calls: Sequence[PlanItem], min_calls: int = SPLIT_MIN_CALLS
) -> list[PlanItem]:
    """``calls`` with each maximal stretch of consecutive uncontrolled one-qubit matrix calls
    on distinct qubits, at least ``min_calls`` of them complex and not diagonal, rewritten
    as the diagonal parts applied first, then the real parts, then the diagonal parts
    applied last (:func:`unitary_parts`; gates on distinct qubits commute, so the stretch
    regroups exactly). Real matrices stay in the middle, diagonal ones go first; a matrix
    that is not unitary leaves its stretch as it was."""
    out: list[PlanItem] = []
    i = 0
    while i < len(calls):
        end, seen = i, set()
        while end < len(calls) and _one_qubit(calls[end]):
            qubit = calls[end].targets[0]  # type: ignore[union-attr]
            if qubit in seen:
                break
            seen.add(qubit)
            end += 1
        stretch = [c for c in calls[i:end] if isinstance(c, MatrixCall)]
        split = _split_stretch(stretch, min_calls) if stretch else None
        out.extend(split if split is not None else calls[i : max(end, i + 1)])
        i = max(end, i + 1)
    return out


def _split_stretch(stretch: list[MatrixCall], min_calls: int) -> list[PlanItem] | None:
    """One stretch of :func:`split_unitary_layers` rewritten, or ``None`` to keep it."""
    if sum(_splits(call) for call in stretch) < min_calls:
        return None
    first: list[PlanItem] = []
    middle: list[PlanItem] = []
    last: list[PlanItem] = []
    for call in stretch:
        m = np.asarray(call.matrix)
        if m[0, 1] == 0 and m[1, 0] == 0:
            first.append(DiagonalCall(np.ascontiguousarray(m.diagonal()), call.targets))
            continue
        if not _splits(call):
            middle.append(call)
            continue
        parts = unitary_parts(m)
        if parts is None:
            return None
        after, real, before = parts
        if before[1] != 1:
            first.append(DiagonalCall(before, call.targets))
        middle.append(MatrixCall(real, call.targets))
        if after[0] != 1 or after[1] != 1:
            last.append(DiagonalCall(after, call.targets))
    return first + middle + last
