"""A density matrix's real Pauli coordinates reached through the backend's own gate kernels,
for backends without a dedicated transform (the CuPy one).

Per system qubit ``q`` the change of coordinates is the unitary :data:`PAIR_BASIS` on the pair
of vector qubits ``(q, q + n)`` (the column and the row qubit of ``vec(rho)``): ``CX`` from the
row to the column (``rho[b, b ^ x]``), ``H`` on the row (the Walsh-Hadamard transform over the
row index) and the phase ``i**(x z)``. The ``n`` pair matrices commute; a backend that runs
tiles (:class:`BlockRunner`) takes them a tile at a time, the lowest qubits plus as many pairs
as fit, so the change costs a few passes over ``vec(rho)``. The real coordinates are then
packed into the first half of the vector's memory, through a temporary of half its size, so
the transfer matrices run on a real state in place.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ..plan.calls import BlockRun, DiagonalCall, MatrixCall, PermutationCall
from .protocol import PAULI_HERMITIAN_TOLERANCE, BlockRunner, PauliCoordinates, capability

_S = 1 / np.sqrt(2)
PAIR_BASIS = (
    np.diag([1, 1, 1, 1j])  # i**(x z)
    @ np.array([[_S, 0, _S, 0], [0, _S, 0, _S], [_S, 0, -_S, 0], [0, _S, 0, -_S]])  # H on z
    @ np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]])  # x = column ^ row
)
"""``T`` on one system qubit's (column, row) pair, local index ``column + 2 row`` in, ``x + 2 z``
out: unitary, so its inverse is its conjugate transpose."""


@lru_cache(maxsize=16)
def coordinate_change(
    n_qubits: int, tile_qubits: int = 0, low_qubits: int = 0, inverse: bool = False
) -> list[MatrixCall | BlockRun]:
    """The change of coordinates of ``vec(rho)`` (``2 n`` qubits) as :data:`PAIR_BASIS` on
    every pair (its inverse with ``inverse``), grouped into tile runs of at most
    ``tile_qubits`` qubits that hold the lowest ``low_qubits`` (no grouping with 0)."""
    matrix = PAIR_BASIS.conj().T if inverse else PAIR_BASIS
    calls = [MatrixCall(matrix, (q, q + n_qubits)) for q in range(n_qubits)]
    if tile_qubits == 0:
        return list(calls)
    out: list[MatrixCall | BlockRun] = []
    low = set(range(low_qubits))
    qubits = set(low)
    members: list[MatrixCall | DiagonalCall | PermutationCall] = []
    for call in calls:
        if members and len(qubits | set(call.targets)) > tile_qubits:
            out.append(BlockRun(members, len(qubits), tuple(qubits)))
            qubits, members = set(low), []
        qubits |= set(call.targets)
        members.append(call)
    out.append(BlockRun(members, len(qubits), tuple(qubits)))
    return out


class GatePauliCoordinates(PauliCoordinates):
    """:class:`PauliCoordinates` by :func:`coordinate_change`, run with the gate and tile
    kernels of the backend that inherits this."""

    def _change(self, vec: Any, n_qubits: int, inverse: bool) -> None:
        runner = capability(self, BlockRunner)
        layout = None if runner is None else runner.tile_layout(np.dtype(vec.dtype))
        tiled = layout is not None and 2 * n_qubits >= layout.min_state_qubits
        tile, low = (layout.tile_qubits, layout.low_qubits) if tiled else (0, 0)  # type: ignore[union-attr]
        for item in coordinate_change(n_qubits, tile, low, inverse):
            if isinstance(item, BlockRun):
                runner.apply_block_run(vec, item)  # type: ignore[union-attr]
            else:
                item.run(self, vec)  # type: ignore[arg-type]

    def to_pauli_coordinates(self, vec: Any, n_qubits: int) -> Any | None:
        """The real coordinates in the first half of ``vec``'s memory (a view valid until
        :meth:`from_pauli_coordinates`); ``None``, with ``vec`` back as it was up to rounding,
        where ``rho`` is not Hermitian."""
        self._change(vec, n_qubits, False)
        real = vec.real
        dropped, kept = float(abs(vec.imag).max()), float(abs(real).max())
        if dropped > PAULI_HERMITIAN_TOLERANCE * np.finfo(real.dtype).eps * max(kept, 1e-300):
            self._change(vec, n_qubits, True)
            return None
        coordinates = real.copy()
        floats = vec.view(real.dtype)
        floats[: vec.size] = coordinates
        return floats[: vec.size]

    def from_pauli_coordinates(self, vec: Any, n_qubits: int) -> None:
        """``vec(rho)`` again from the coordinates in the first half of its memory."""
        coordinates = vec.view(np.finfo(vec.dtype).dtype)[: vec.size].copy()
        vec[...] = coordinates  # imaginary parts zero
        self._change(vec, n_qubits, True)
