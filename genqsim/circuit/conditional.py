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

from ..errors import ArgumentTypeError, ArgumentValueError, QubitIndexError
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
        ops = [op.bind(mapping) for op in self.body.operations]
        body = type(self.body)(self.body.n_qubits, ops)  # a Circuit, named without importing it
        return Conditional(self.clbits, self.value, body)

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
