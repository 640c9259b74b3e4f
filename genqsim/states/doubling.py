"""A circuit on ``n`` qubits as the circuit on ``2n`` qubits that evolves ``vec(rho)``.

``vec(rho)`` holds ``rho[i, j]`` at index ``i * 2**n + j`` (``rho.reshape(-1)``): the column
index is the low ``n`` bits (vector qubit ``q`` is column qubit ``q``), the row index the
high ``n`` bits (vector qubit ``q + n`` is row qubit ``q``). Then

* a gate ``U`` becomes ``U`` on the row qubits and ``conj(U)`` on the column qubits (same
  controls): ``rho -> U rho U^dagger``, with the same diagonal / permutation / dense
  structure, so the backend primitives, fusion and tiling apply unchanged;
* a channel becomes its superoperator ``sum_k K_k (x) conj(K_k)`` on column and row qubits;
* a reset becomes the reset channel (Kraus ``|0><0|``, ``|0><1|``);
* mid-circuit measurements stay (a density matrix splits its ensemble on them) and
  conditionals keep their classical condition around a doubled body.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..channels import KrausChannel, QuantumChannel
from ..circuit import Circuit, Operation
from ..conditional import Conditional
from ..gates import Barrier, Gate, GateKind
from ..numbers import NumberSystem, get_number_system

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
    if isinstance(gate, Conditional):
        return [Operation(Conditional(gate.clbits, gate.value, vectorised(gate.body)), both)]
    row_controls = tuple(q + n for q in op.controls)
    return [
        Operation(gate, rows, row_controls, op.control_values),
        Operation(ConjugateGate(gate), op.targets, op.controls, op.control_values),
    ]
