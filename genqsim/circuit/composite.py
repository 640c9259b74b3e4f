"""Composite gates: a named gate that keeps its body, as Qiskit keeps one instruction with a
definition.

An OpenQASM ``gate`` definition called in a file is one :class:`Composite` operation (one per
call): ``count_ops``, drawings and exports show it by its name (:attr:`Circuit.instructions`),
while everything that runs reads :attr:`Circuit.operations`, where each call is its body placed
on the call's qubits. That placement is made when the operations are first read, not when the
circuit is built, so a reader records one operation per call. Where the planner fuses gates, a
composite on at most the fused width runs as one block, its matrix built once per composite
gate (see :func:`genqsim.plan.fusion.fuse_circuit`).

Users build one from a unitary circuit: ``c.append(gq.Composite("bell", gq.Circuit(2).h(0)
.cx(0, 1)), [3, 5])``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ArgumentTypeError, ArgumentValueError, QubitIndexError
from ..linalg.generic import subspace_indices
from ..numbers import NumberSystem, get_number_system
from ..support.validation import check_operation_qubits
from .gates import NON_UNITARY, Gate, GateKind, _free_symbols, _short, _substitute
from .operation import Operation, new_operation, place_operations

if TYPE_CHECKING:
    from .circuit import Circuit


class Composite(Gate):
    """A gate named ``name`` whose action is its ``body``: operations on its own qubits
    ``0 .. n_qubits - 1`` (unitary gates, barriers and other composites). ``params`` are the
    values it was called with, shown in drawings; the body already holds them."""

    kind = GateKind.COMPOSITE

    def __init__(
        self, name: str, body: Circuit | Sequence[Operation], params: Sequence[Any] = ()
    ) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise ArgumentValueError(
                f"a composite gate's name is an identifier (as OpenQASM names gates), got {name!r}"
            )
        if isinstance(body, Sequence) and all(isinstance(op, Operation) for op in body):
            ops = tuple(body)
            qubits = [q for op in ops for q in op.qubits]
            if any(not isinstance(q, int) or q < 0 for q in qubits):
                raise QubitIndexError(
                    f"a composite gate's body acts on its own qubits 0, 1, ...; {name!r} has "
                    f"{sorted(set(qubits), key=str)}"
                )
            n_qubits = 1 + max(qubits, default=0)
            for op in ops:  # qubits as a circuit checks them
                check_operation_qubits(
                    n_qubits, op.targets, op.controls, op.control_values or None, op.gate.n_qubits
                )
        elif hasattr(body, "instructions") and hasattr(body, "n_qubits"):  # a Circuit
            n_qubits, ops = body.n_qubits, body.instructions
        else:
            raise ArgumentTypeError(
                f"a composite gate's body is a Circuit or a sequence of Operations, got "
                f"{type(body).__name__}"
            )
        for op in ops:
            if op.kind in NON_UNITARY:
                raise ArgumentTypeError(
                    f"a composite gate's body holds unitary gates only; {name!r} has a "
                    f"{op.gate.name} operation (measure, reset, channel or conditional)"
                )
        self._fill(name, tuple(params), n_qubits, tuple(ops))

    @classmethod
    def trusted(
        cls, name: str, params: tuple, n_qubits: int, body: tuple[Operation, ...]
    ) -> Composite:
        """A composite from a reader that has checked its body on qubits ``0 .. n_qubits - 1``
        (the OpenQASM parser: one per definition and parameter values)."""
        gate = object.__new__(cls)
        gate._fill(name, params, n_qubits, body)
        return gate

    def _fill(self, name: str, params: tuple, n_qubits: int, body: tuple[Operation, ...]) -> None:
        self.name, self.params, self.n_qubits, self.body = name, params, n_qubits, body
        self.size: int = sum(op.gate.size if isinstance(op.gate, Composite) else 1 for op in body)
        """Operations the body places (nested composites counted by theirs)."""
        self._blocks: dict[str, Any] = {}

    @property
    def label(self) -> str:
        if not self.params:
            return self.name
        return f"{self.name}({', '.join(_short(p) for p in self.params)})"

    @property
    def free_symbols(self) -> frozenset:
        found = _free_symbols(self.params)
        for op in self.body:
            found |= op.gate.free_symbols
        return found

    def operations_on(
        self,
        targets: Sequence[int],
        controls: tuple[int, ...] = (),
        control_values: tuple[int, ...] = (),
    ) -> list[Operation]:
        """The body on the circuit's qubits (body qubit ``i`` on ``targets[i]``), under the
        call's controls where it has any (barriers then dropped: they mark no qubits the
        controls do not), nested composites placed in turn."""
        out: list[Operation] = []
        extend = out.extend
        placed = place_operations(self.body, targets)
        if not controls:
            for op in placed:
                gate = op.gate
                if isinstance(gate, Composite):
                    extend(gate.operations_on(op.targets, op.controls, op.control_values))
                else:
                    out.append(op)
            return out
        for op in placed:
            if op.kind is GateKind.BARRIER:
                continue
            c, v = op.controls + controls, op.control_values + control_values
            if isinstance(op.gate, Composite):
                extend(op.gate.operations_on(op.targets, c, v))
            else:
                out.append(new_operation(op.gate, op.targets, c, v))
        return out

    def matrix(self, numbers: NumberSystem | str = "complex128") -> np.ndarray:
        """The body's ``2**n x 2**n`` matrix in ``numbers`` (body qubit 0 the low bit)."""
        ns = get_number_system(numbers)
        return operations_matrix(self.body, range(self.n_qubits), ns)

    def kept_block(self, numbers: NumberSystem, build: Any) -> Any:
        """``build()``, made once per number system for this gate: the fused block the
        planner runs in place of the body (shared by every call of the same composite)."""
        if numbers.name not in self._blocks:
            self._blocks[numbers.name] = build()
        return self._blocks[numbers.name]

    def inverse(self) -> Gate:
        """The inverse body, named ``<name>_dg`` (as Qiskit names a defined gate's inverse;
        the inverse of that is ``<name>`` again)."""
        body = tuple(op.inverse() for op in reversed(self.body))
        name = self.name[: -len(_DAGGER)] if self.name.endswith(_DAGGER) else self.name + _DAGGER
        return Composite.trusted(name, self.params, self.n_qubits, body)

    def bind(self, mapping: Mapping) -> Gate:
        if not self.free_symbols & set(mapping):
            return self
        body = tuple(op.bind(mapping) for op in self.body)
        params = tuple(_substitute(p, mapping) for p in self.params)
        return Composite.trusted(self.name, params, self.n_qubits, body)

    def _key(self) -> tuple:
        return (self.name, self.n_qubits, self.kind, len(self.body))

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return (
            isinstance(other, Composite)
            and self._key() == other._key()
            and super().__eq__(other)
            and self.body == other.body
        )

    def __hash__(self) -> int:
        return hash(self._key())

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_blocks": {}}  # fused blocks are rebuilt where needed

    def __repr__(self) -> str:
        return f"Composite({self.label}, {self.n_qubits} qubits, {len(self.body)} operations)"


_DAGGER = "_dg"
"""What an inverse composite's name ends with (a name OpenQASM can write)."""


def operations_matrix(
    ops: Sequence[Operation], qubits: Sequence[int], numbers: NumberSystem
) -> np.ndarray:
    """The ``2**k x 2**k`` matrix of ``ops`` on ``qubits`` (``qubits[0]`` the low bit)."""
    position = {q: i for i, q in enumerate(qubits)}
    k = len(position)
    if numbers.dtype.kind == "c":
        m = np.eye(1 << k, dtype=numbers.dtype)
    else:
        m = numbers.array(np.eye(1 << k, dtype=int).astype(object))
    for op in ops:
        if op.kind is GateKind.BARRIER:
            continue
        t = tuple(position[q] for q in op.targets)
        c = tuple(position[q] for q in op.controls)
        idx = subspace_indices(k, t, c, op.control_values)
        u = op.gate.matrix(numbers)
        rows = m[idx]  # (2**t, rest, 2**k): the rows the operation mixes, by target pattern
        m[idx] = (u @ rows.reshape(u.shape[1], -1)).reshape(rows.shape)  # half tensordot's time
    return m
