"""A circuit on ``n`` qubits as the circuit on ``2n`` qubits that evolves ``vec(rho)``.

``vec(rho)`` holds ``rho[i, j]`` at index ``i * 2**n + j`` (``rho.reshape(-1)``): the column
index is the low ``n`` bits (vector qubit ``q`` is column qubit ``q``), the row index the
high ``n`` bits (vector qubit ``q + n`` is row qubit ``q``). Then

* a gate ``U`` becomes ``U`` on the row qubits and ``conj(U)`` on the column qubits (same
  controls): ``rho -> U rho U^dagger``, with the same diagonal / permutation / dense
  structure, so the backend primitives, fusion and tiling apply unchanged;
* a channel becomes its superoperator ``sum_k K_k (x) conj(K_k)`` on column and row qubits;
* a reset becomes the reset channel (Kraus ``|0><0|``, ``|0><1|``);
* mid-circuit measurements stay (a density matrix splits its ensemble on them),
  conditionals keep their classical condition around a doubled body, and stores stay.

:func:`fused_vectorised` fuses before doubling: gates and channels on a few qubits become
one superoperator on their column and row qubits, one pass over ``vec(rho)`` instead of one
for ``U``, one for ``conj(U)`` and one for each channel.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..circuit.channels import KrausChannel, QuantumChannel
from ..circuit.circuit import Circuit, Operation
from ..circuit.conditional import WHILE_NEEDS_SHOTS, Conditional, WhileLoop
from ..circuit.gates import Barrier, Gate, GateKind
from ..errors import UnsupportedOperationError
from ..numbers import NumberSystem, get_number_system
from ..plan.build import fusion_widths
from ..plan.fusion import fuse_operations, fused_block

RESET_CHANNEL = KrausChannel([np.array([[1, 0], [0, 0]]), np.array([[0, 1], [0, 0]])], name="reset")
"""Reset to ``|0>`` as a channel: exact on density matrices, no sampling."""


class ConjugateGate(Gate):
    """``conj(U)`` of a gate ``U``, with its structure: what acts on the column qubits."""

    def __init__(self, gate: Gate) -> None:
        self.gate = gate
        self.name = gate.name + "*"
        self.n_qubits = gate.n_qubits
        self.params = gate.params
        self.kind = gate.kind

    @property
    def free_symbols(self) -> frozenset:
        return self.gate.free_symbols

    def diagonal(self, numbers: NumberSystem) -> np.ndarray:
        return numbers.conj_array(self.gate.diagonal(numbers))

    def permutation(self, numbers: NumberSystem) -> tuple[np.ndarray, np.ndarray | None]:
        perm, phases = self.gate.permutation(numbers)
        return perm, None if phases is None else numbers.conj_array(phases)

    def matrix(self, numbers: NumberSystem | str = "complex128") -> np.ndarray:
        ns = get_number_system(numbers)
        return ns.conj_array(self.gate.matrix(ns))

    def bind(self, mapping: Mapping) -> Gate:
        return ConjugateGate(self.gate.bind(mapping))

    def _key(self) -> tuple:
        return (*super()._key(), self.gate._key())


class SuperoperatorGate(Gate):
    """A channel's superoperator as a (non-unitary) gate on ``2k`` vector qubits: the ``k``
    column qubits are its low index bits, the ``k`` row qubits its high ones."""

    def __init__(self, channel: QuantumChannel) -> None:
        self.channel = channel
        self.name = channel.name
        self.n_qubits = 2 * channel.n_qubits
        self.params = channel.params
        self.kind = GateKind.DIAGONAL if channel.diagonal_kraus else GateKind.DENSE

    @property
    def free_symbols(self) -> frozenset:
        return self.channel.free_symbols

    def diagonal(self, numbers: NumberSystem) -> np.ndarray:
        return self.channel.superoperator_diagonal(numbers)

    def matrix(self, numbers: NumberSystem | str = "complex128") -> np.ndarray:
        ns = get_number_system(numbers)
        if self.kind is GateKind.DIAGONAL:
            return super().matrix(ns)
        return self.channel.superoperator(ns)

    def bind(self, mapping: Mapping) -> Gate:
        bound = self.channel.bind(mapping)
        assert isinstance(bound, QuantumChannel)
        return SuperoperatorGate(bound)

    def _key(self) -> tuple:
        return (*super()._key(), self.channel._key())


def vectorised(circuit: Circuit) -> Circuit:
    """The ``2n``-qubit circuit that maps ``vec(rho)`` as ``circuit`` maps ``rho``."""
    n = circuit.n_qubits
    ops: list[Operation] = []
    for op in circuit.operations:
        ops.extend(_vectorised_operation(op, n))
    return Circuit(2 * n, ops, n_clbits=circuit.n_clbits)


def _vectorised_operation(op: Operation, n: int) -> list[Operation]:
    gate = op.gate
    rows = tuple(q + n for q in op.targets)
    both = op.targets + rows
    if gate.kind is GateKind.BARRIER:
        return [Operation(Barrier(2 * len(op.targets)), tuple(sorted(both)))]
    if gate.kind is GateKind.MEASURE:
        # the ensemble splits on it (column qubit q names the qubit); the barrier keeps
        # fusion from moving row-qubit gates across it
        return [Operation(Barrier(2), tuple(sorted(both))), op]
    if gate.kind is GateKind.RESET:
        return [Operation(SuperoperatorGate(RESET_CHANNEL), both)]
    if isinstance(gate, QuantumChannel):
        return [Operation(SuperoperatorGate(gate), both)]
    if isinstance(gate, WhileLoop):
        raise UnsupportedOperationError(WHILE_NEEDS_SHOTS)
    if isinstance(gate, Conditional):
        return [Operation(gate.map_bodies(vectorised), both)]
    if gate.kind is GateKind.STORE:  # on classical bits alone: the ensemble's records change
        return [op]
    row_controls = tuple(q + n for q in op.controls)
    return [
        Operation(gate, rows, row_controls, op.control_values),
        Operation(ConjugateGate(gate), op.targets, op.controls, op.control_values),
    ]


DEFAULT_SUPEROPERATOR_QUBITS = (2, 1)
"""``(structured, dense)``: system qubits a fused superoperator may span. Diagonal and
permutation gates and Pauli or diagonal channels keep a 2-qubit superoperator sparse (a
depolarized CX is 28 nonzeros in 256); a dense gate makes it dense, so those blocks stay on
one qubit (a 4x4 superoperator: a gate, its conjugate and its noise in one pass)."""


def _cheap_superoperator(op: Operation) -> bool:
    gate = op.gate
    if isinstance(gate, QuantumChannel):
        return gate.pauli_mixture or gate.diagonal_kraus
    return gate.kind in (GateKind.DIAGONAL, GateKind.PERMUTATION)


_NOT_LINEAR = (
    GateKind.MEASURE, GateKind.CONDITIONAL, GateKind.LOOP, GateKind.STORE, GateKind.BARRIER
)  # fmt: skip


def _linear(op: Operation) -> bool:
    """Gates, channels and resets act on ``rho`` linearly, so they fuse."""
    return op.kind not in _NOT_LINEAR


def fused_vectorised(
    circuit: Circuit, numbers: NumberSystem, widths: tuple[int, int] = DEFAULT_SUPEROPERATOR_QUBITS
) -> Circuit:
    """:func:`vectorised`, with neighbouring gates, channels and resets on at most
    ``widths[0]`` qubits (``widths[1]`` when one is dense) fused into one superoperator on
    their column and row qubits (machine numbers: products of expressions would grow)."""
    n = circuit.n_qubits
    ops: list[Operation] = []
    blocks = fuse_operations(
        circuit.operations, *widths, structured=_cheap_superoperator, fusable=_linear
    )
    for block in blocks:
        doubled = [v for op in block for v in _vectorised_operation(op, n)]
        span = {q for op in block for q in op.qubits}
        if not _linear(block[0]) or len(span) > max(widths):
            # a wide operation stands alone (fusion left it so): its doubled halves run as
            # they are, as a 2**(2k) superoperator would cost far more than two gates
            ops.extend(doubled)
            continue
        fused = fused_block(doubled, numbers, name="superoperator")
        if fused is not None:
            ops.append(fused)
    return Circuit(2 * n, ops, n_clbits=circuit.n_clbits)


def superoperator_widths(numbers: NumberSystem, fuse: int | bool | None) -> tuple[int, int]:
    """``(structured, dense)`` system-qubit widths of fused superoperators: the defaults for
    ``fuse=None``/``True`` on machine numbers, none for object numbers or ``fuse=False``/``0``,
    ``fuse`` qubits for both when it is an int."""
    structured, dense = fusion_widths(numbers, fuse)  # validates fuse
    if structured and (fuse is None or fuse is True):
        return DEFAULT_SUPEROPERATOR_QUBITS
    return structured, dense


def doubled_circuit(circuit: Circuit, numbers: NumberSystem, fuse: int | bool | None) -> Circuit:
    """The circuit a density matrix runs on ``vec(rho)``: fused superoperators where
    :func:`superoperator_widths` allows, the plain doubling otherwise."""
    widths = superoperator_widths(numbers, fuse)
    if widths[0] < 1:
        return vectorised(circuit)
    return fused_vectorised(circuit, numbers, widths)
