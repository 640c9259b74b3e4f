"""Classically controlled operations: a sub-circuit that runs only when classical bits hold a
value (OpenQASM 2's ``if (c == 3) x q[0];``, Qiskit's ``if_test`` and ``c_if``), or again and
again while they hold one of some values (:class:`WhileLoop`: OpenQASM 3's ``while``,
Qiskit's ``while_loop``).

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
    keyword = "if"

    def __init__(self, clbits: Any, value: Any, body: Circuit) -> None:
        self.clbits = as_clbits(clbits)
        self.value = _checked_value(value, self.clbits)
        self._fill(body)

    def _fill(self, body: Circuit) -> None:
        self.body = body
        self.name = self.keyword
        self.n_qubits = body.n_qubits
        self.params = ()

    @property
    def values(self) -> tuple[int, ...]:
        """The values of the bits on which the body runs."""
        return (self.value,)

    @property
    def free_symbols(self) -> frozenset:
        return frozenset(self.body.parameters)

    @property
    def condition_label(self) -> str:
        bits = f"c{list(self.clbits)}"
        return " || ".join(f"{bits}=={v}" for v in self.values)

    @property
    def label(self) -> str:
        inner = "; ".join(
            op.gate.label if not op.controls else "c" * len(op.controls) + op.gate.label
            for op in self.body.operations
        )
        return f"{self.keyword}({self.condition_label}) {inner}"

    def holds(self, clbit_values: Mapping[int, int]) -> bool:
        """Whether the bits (missing ones read 0) hold the value (one of the values)."""
        found = sum(clbit_values.get(b, 0) << i for i, b in enumerate(self.clbits))
        return found in self.values

    def operations_on(self, targets: Sequence[int]) -> list[Any]:
        """The body's operations on the circuit's qubits (body qubit ``i`` on ``targets[i]``)."""
        return [op.remapped(targets) for op in self.body.operations]

    def inverse(self) -> Gate:
        raise ArgumentTypeError(
            f"a classically controlled operation ({self.keyword}) has no inverse"
        )

    def with_body(self, body: Circuit) -> Conditional:
        """The same condition on another body (on as many qubits)."""
        gate = object.__new__(type(self))
        gate.__dict__.update(self.__dict__)
        gate._fill(body)
        return gate

    def bind(self, mapping: Mapping) -> Gate:
        ops = [op.bind(mapping) for op in self.body.operations]
        return self.with_body(type(self.body)(self.body.n_qubits, ops))  # a Circuit

    def _key(self) -> tuple:
        return (*super()._key(), self.clbits, self.values)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Conditional)
            and type(other) is type(self)
            and self._key() == other._key()
            and self.body == other.body
        )

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"{self.keyword}({self.condition_label}) {list(self.body.operations)}"


class WhileLoop(Conditional):
    """Run ``body`` again and again while the classical bits ``clbits`` (``clbits[0]``
    lowest) hold one of ``values`` (OpenQASM 3's ``while``, Qiskit's ``while_loop``): what
    the body measures decides whether it runs once more. State vectors run it shot by shot;
    a loop that runs :data:`genqsim.plan.calls.MAX_WHILE_ITERATIONS` times in one shot raises
    :class:`~genqsim.errors.WhileLoopLimitError`, never hangs."""

    kind = GateKind.LOOP
    keyword = "while"

    def __init__(self, clbits: Any, values: Any, body: Circuit) -> None:
        self.clbits = as_clbits(clbits)
        items = values if isinstance(values, Sequence) else (values,)
        checked = sorted({_checked_value(v, self.clbits) for v in items})
        if not checked:
            raise ArgumentValueError("a while loop needs at least one value of its bits")
        self._values = tuple(checked)
        self.value = checked[0]
        self._fill(body)

    @property
    def values(self) -> tuple[int, ...]:
        return self._values


WHILE_NEEDS_SHOTS = (
    "a density matrix keeps every measurement branch, and a while loop has no last iteration "
    "to stop them at: run it shot by shot (method='statevector' or 'trajectories', as "
    "gq.counts does by default)"
)
"""Why methods that keep every measurement branch refuse while loops."""


def _checked_value(value: Any, clbits: tuple[int, ...]) -> int:
    if isinstance(value, bool) or not isinstance(value, (_abc.Integral, np.integer)):
        raise ArgumentTypeError(f"a condition's value is an integer, got {value!r}")
    if not 0 <= value < 1 << len(clbits):
        raise ArgumentValueError(f"value {value} does not fit in {len(clbits)} classical bit(s)")
    return int(value)
