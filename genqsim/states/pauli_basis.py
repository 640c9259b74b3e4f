"""Density-matrix evolution in the Pauli basis, where every superoperator is a real matrix.

For a Hermitian ``rho`` the coordinates ``y_P = Tr(P rho) / 2**(n/2)`` on the Pauli strings
``P`` are real, and a channel or ``U . U^dagger`` maps them by its *Pauli transfer matrix*,
also real. So a run of fused superoperators (:func:`~.doubling.fused_vectorised`) can act on
``4**n`` real numbers instead of ``4**n`` complex ones: half the memory traffic, and a
one-qubit noisy gate costs 4 real multiply-adds per coordinate instead of 16 (its complex
4x4 superoperator). A CX with Pauli noise becomes a signed, scaled permutation.

Coordinates keep the layout of ``vec(rho)``: system qubit ``q`` owns vector qubits ``q``
(``x``, the Pauli's X part) and ``q + n`` (``z``, its Z part), so ``P = i**(x.z) X**x Z**z``
and every superoperator keeps its qubits. Per qubit, the change of coordinates is the unitary
``T = phase(i**(x z)) . H(row) . CX(row -> column)``:

    y[x, z] = i**(x z) / sqrt(2) * sum_b (-1)**(z b) rho[b, b ^ x]

A backend with the :class:`~genqsim.backends.PauliCoordinates` capability (the Numba one)
does this in place for all ``n`` qubits at once: each row ``b`` XOR-shuffled to
``rho[b, b ^ x]``, a Walsh-Hadamard transform over the row index in cache-sized stages, then
the phases, packed as reals into the first half of the vector's memory (and back after the
run). The transfer matrices run as real gate calls and tile runs on those reals.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from ..backends import Backend, BlockLayout, BlockRunner, PauliCoordinates, capability
from ..backends.pauli_coordinates import PAIR_BASIS
from ..circuit.circuit import Circuit, Operation
from ..circuit.composite import operations_matrix
from ..circuit.gates import GateKind, MatrixGate
from ..errors import ArgumentValueError
from ..numbers import NumberSystem, get_number_system
from ..plan import build_plan, run_item

MAX_PAIRS = 3
"""Superoperators on more system qubits than this stay in the computational basis (their
transfer matrix, ``4**k`` square, would cost more to build than it saves)."""

_SNAP = 64 * np.finfo(np.float64).eps
"""Transfer-matrix entries below this (relative to the largest) are rounding residue."""


@lru_cache(maxsize=8)
def pair_basis(k: int) -> np.ndarray:
    """``T`` on each of ``k`` pairs, for a matrix whose index bit ``j`` is pair ``j``'s column
    qubit and bit ``k + j`` its row qubit (the order of ``sorted(columns + rows)``)."""
    interleaved = np.ones((1, 1), dtype=complex)
    for _ in range(k):  # bits (2j, 2j + 1) = pair j
        interleaved = np.kron(PAIR_BASIS, interleaved)
    index = np.arange(1 << (2 * k))
    source = np.zeros_like(index)
    for j in range(k):
        source |= ((index >> j) & 1) << (2 * j)
        source |= ((index >> (k + j)) & 1) << (2 * j + 1)
    return interleaved[np.ix_(source, source)]


def transfer_matrix(op: Operation, n: int) -> tuple[np.ndarray, tuple[int, ...]] | None:
    """The real Pauli transfer matrix of a superoperator ``op`` on ``vec(rho)`` of ``n``
    qubits, and the vector qubits it acts on (each system qubit's column and row); ``None``
    where there is none: ``op`` is wider than :data:`MAX_PAIRS` or does not keep ``rho``
    Hermitian (a gate on the row qubits alone)."""
    system = sorted({q % n for q in op.qubits})
    if len(system) > MAX_PAIRS:
        return None
    qubits = tuple(system + [q + n for q in system])
    m = operations_matrix([op], qubits, get_number_system("complex128"))
    basis = pair_basis(len(system))
    ptm = basis @ m @ basis.conj().T
    scale = max(1.0, float(np.max(np.abs(ptm))))
    if np.max(np.abs(ptm.imag)) > _SNAP * scale:
        return None
    real = ptm.real.copy()
    real[np.abs(real) < _SNAP * scale] = 0
    return real, qubits


def pauli_circuit(doubled: Circuit, n: int) -> Circuit | None:
    """``doubled`` (the superoperators on ``vec(rho)``) as transfer matrices on the Pauli
    coordinates; ``None`` where some operation has none (measurements, conditionals, stores,
    halves of a gate), so the run stays in the computational basis."""
    ops: list[Operation] = []
    for op in doubled.operations:
        if op.kind is GateKind.BARRIER:
            continue
        if op.kind in (GateKind.MEASURE, GateKind.CONDITIONAL, GateKind.LOOP, GateKind.STORE):
            return None
        found = transfer_matrix(op, n)
        if found is None:
            return None
        ptm, qubits = found
        # carried as a complex matrix like every gate's; a real state takes its real entries
        gate = MatrixGate(ptm.astype(complex), name=f"ptm({op.gate.name})", check_unitary=False)
        ops.append(Operation(gate, qubits))
    return Circuit(2 * n, ops)


def _real_layout(backend: Backend, numbers: NumberSystem) -> BlockLayout | None:
    """The backend's tiles for the coordinates (reals of ``numbers``' precision), if any."""
    runner = capability(backend, BlockRunner)
    return None if runner is None else runner.tile_layout(np.finfo(numbers.dtype).dtype)


class PauliRun:
    """A linear run of a density matrix, compiled for its Pauli coordinates: the plan of
    transfer matrices, tiled for real states, and the backend that changes coordinates."""

    def __init__(self, real: Circuit, n: int, numbers: NumberSystem, backend: Backend) -> None:
        coordinates = capability(backend, PauliCoordinates)
        if coordinates is None:
            raise ArgumentValueError(f"backend {backend.name!r} cannot run Pauli coordinates")
        self.n = n
        self.backend = backend
        self.coordinates = coordinates
        self.plan = build_plan(real, numbers, False, layout=_real_layout(backend, numbers))

    def __len__(self) -> int:
        return len(self.plan)

    def run(self, vec: np.ndarray, progress: Any = None) -> bool:
        """Evolve ``vec(rho)`` in place: into Pauli coordinates (real numbers in the same
        memory), the transfer matrices, and back. ``False`` (nothing applied) where ``rho``
        is not Hermitian, so its coordinates are not real."""
        coords = self.coordinates.to_pauli_coordinates(vec, self.n)
        if coords is None:
            return False
        for done, item in enumerate(self.plan, 1):
            run_item(item, self.backend, coords)
            if progress is not None:
                progress.update(done)
        self.coordinates.from_pauli_coordinates(vec, self.n)
        return True


def pauli_run(
    doubled: Circuit, n: int, numbers: NumberSystem, backend: Backend, mode: bool | None = None
) -> PauliRun | None:
    """A :class:`PauliRun` for ``doubled``, or ``None`` where the run stays in the
    computational basis. It needs machine numbers, a backend that runs real states and a
    transfer matrix for every operation (no measurement, conditional or half of a gate);
    ``mode=None`` also wants it to pay: a state tiled into gathered runs and at least ``n``
    superoperators (the change of coordinates costs about six passes). ``mode=False``:
    never."""
    if mode is False or numbers.dtype.kind != "c" or not capability(backend, PauliCoordinates):
        return None
    if mode is None:
        layout = _real_layout(backend, numbers)
        if layout is None or 2 * n < layout.min_state_qubits or len(doubled.operations) < n:
            return None
    real = pauli_circuit(doubled, n)
    if real is None:
        return None
    return PauliRun(real, n, numbers, backend)


__all__: Sequence[str] = ("PauliRun", "pauli_circuit", "pauli_run", "transfer_matrix")
