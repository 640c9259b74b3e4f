"""Classically controlled operations: a sub-circuit that runs only when classical bits hold a
value (OpenQASM 2's ``if (c == 3) x q[0];``, Qiskit's ``if_test`` and ``c_if``).

A :class:`Conditional` is a gate of kind ``CONDITIONAL`` whose body is a small circuit on the
qubits it touches (body qubit ``i`` is the operation's ``targets[i]``), so renaming qubits
(``compose`` with a qubit map) renames the body with it. State vectors run it per shot, on the
outcomes of earlier mid-circuit measurements; density matrices run it exactly, on the part of
the ensemble whose classical bits hold the value.
"""

from __future__ import annotations

import numbers as _abc
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import ArgumentTypeError, ArgumentValueError, QubitIndexError
from .gates import Gate, GateKind

if TYPE_CHECKING:
    from .circuit import Circuit


def as_clbits(clbits: Any) -> tuple[int, ...]:
    """Classical bits of a condition: one index or a sequence of distinct ones (the first is
    the lowest bit of the compared value)."""
    items = (clbits,) if isinstance(clbits, (_abc.Integral, np.integer)) else clbits
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence | np.ndarray):
        raise ArgumentTypeError(
            f"classical bits are an index or a sequence of them, got {clbits!r}"
        )
    out = []
    for b in items:
        if isinstance(b, bool) or not isinstance(b, (_abc.Integral, np.integer)):
            raise ArgumentTypeError(f"a classical bit is a non-negative integer, got {b!r}")
        if b < 0:
            raise QubitIndexError(f"classical bit indices are non-negative, got {b}")
        out.append(int(b))
    if not out:
        raise ArgumentValueError("a condition needs at least one classical bit")
    if len(set(out)) != len(out):
        raise ArgumentValueError(f"a condition names a classical bit twice: {out}")
    return tuple(out)


class Conditional(Gate):
    """Run ``body`` when the classical bits ``clbits`` (``clbits[0]`` lowest) hold ``value``.
    Bits never written read as 0."""

    kind = GateKind.CONDITIONAL

    def __init__(self, clbits: Any, value: Any, body: Circuit) -> None:
        self.clbits = as_clbits(clbits)
        if isinstance(value, bool) or not isinstance(value, (_abc.Integral, np.integer)):
            raise ArgumentTypeError(f"a condition's value is an integer, got {value!r}")
        if not 0 <= value < 1 << len(self.clbits):
            raise ArgumentValueError(
                f"value {value} does not fit in {len(self.clbits)} classical bit(s)"
            )
        self.value = int(value)
        self.body = body
        self.name = "if"
        self.n_qubits = body.n_qubits
        self.params = ()

    @property
    def free_symbols(self) -> frozenset:
        return frozenset(self.body.parameters)

    @property
    def label(self) -> str:
        inner = "; ".join(
            op.gate.label if not op.controls else "c" * len(op.controls) + op.gate.label
            for op in self.body.operations
        )
        return f"if(c{list(self.clbits)}=={self.value}) {inner}"

    def holds(self, clbit_values: Mapping[int, int]) -> bool:
        """Whether the bits (missing ones read 0) hold the value."""
        return all(
            clbit_values.get(b, 0) == (self.value >> i) & 1 for i, b in enumerate(self.clbits)
        )

    def operations_on(self, targets: Sequence[int]) -> list[Any]:
        """The body's operations on the circuit's qubits (body qubit ``i`` on ``targets[i]``)."""
        return [op.remapped(targets) for op in self.body.operations]

    def inverse(self) -> Gate:
        raise ArgumentTypeError("a classically controlled operation has no inverse")

    def bind(self, mapping: Mapping) -> Gate:
        from .circuit import Circuit

        ops = [op.bind(mapping) for op in self.body.operations]
        return Conditional(self.clbits, self.value, Circuit(self.body.n_qubits, ops))

    def _key(self) -> tuple:
        return (*super()._key(), self.clbits, self.value)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Conditional)
            and self._key() == other._key()
            and self.body == other.body
        )

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"if(c{list(self.clbits)}=={self.value}) {list(self.body.operations)}"


def conditional_operation(
    n_qubits: int, clbits: Any, value: Any, body: Any, qubits: Sequence[int] | None
) -> tuple[Conditional, tuple[int, ...]]:
    """The gate and targets of ``Circuit.if_``: the body (an Operation or a Circuit, placed on
    ``qubits`` when given) compacted onto the qubits it touches."""
    from .circuit import Circuit, Operation
    from .validation import as_qubit_tuple

    if isinstance(body, Operation):
        body = Circuit(n_qubits, [body])
    if not isinstance(body, Circuit):
        raise ArgumentTypeError(f"if_() runs an Operation or a Circuit, got {type(body).__name__}")
    if qubits is None:
        if body.n_qubits != n_qubits:
            raise ArgumentValueError(
                f"the conditional body has {body.n_qubits} qubits but the circuit has "
                f"{n_qubits}; place it with qubits=[...]"
            )
        placement = tuple(range(n_qubits))
    else:
        placement = as_qubit_tuple(qubits, n_qubits, "qubit")
        if len(placement) != body.n_qubits:
            raise ArgumentValueError(
                f"qubits= has {len(placement)} entries for a {body.n_qubits}-qubit body"
            )
    ops = [op.remapped(placement) for op in body.operations if op.kind is not GateKind.BARRIER]
    touched = sorted({q for op in ops for q in op.qubits})
    if not touched:
        raise ArgumentValueError("a conditional body must act on at least one qubit")
    position = [0] * n_qubits
    for i, q in enumerate(touched):
        position[q] = i
    local = Circuit(len(touched), [op.remapped(position) for op in ops])
    return Conditional(clbits, value, local), tuple(touched)
