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
from collections.abc import Callable, Mapping, Sequence
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
    """Run ``body`` when the classical bits ``clbits`` (``clbits[0]`` lowest) hold ``values``
    (one value, or any of a sequence of them), and ``orelse`` (if given) when they hold
    none of them: the bits are read once, so a branch that measures into them never sets
    off the other (Qiskit's ``if_else`` and ``switch``, OpenQASM 3's ``else``). Bits never
    written read as 0. Both branches are circuits on the qubits the operation touches."""

    kind = GateKind.CONDITIONAL
    keyword = "if"

    def __init__(
        self, clbits: Any, values: Any, body: Circuit, orelse: Circuit | None = None
    ) -> None:
        self.clbits = as_clbits(clbits)
        items = values if isinstance(values, Sequence | np.ndarray) else (values,)
        checked = sorted({_checked_value(v, self.clbits) for v in items})
        if not checked:
            raise ArgumentValueError(
                f"a {self.keyword} needs at least one value of its classical bits"
            )
        self._values = tuple(checked)
        self._fill(body, orelse)

    def _fill(self, body: Circuit, orelse: Circuit | None = None) -> None:
        if orelse is not None and orelse.n_qubits != body.n_qubits:
            raise ArgumentValueError(
                f"the else branch has {orelse.n_qubits} qubits and the if branch "
                f"{body.n_qubits}: both run on the operation's qubits"
            )
        self.body = body
        self.orelse = orelse
        self.name = self.keyword
        self.n_qubits = body.n_qubits
        self.params = ()

    @property
    def values(self) -> tuple[int, ...]:
        """The values of the bits on which the body runs."""
        return self._values

    @property
    def value(self) -> int:
        """The value of the bits on which the body runs, where it runs on one."""
        if len(self._values) != 1:
            raise ArgumentValueError(
                f"this {self.keyword} runs on {len(self._values)} values of its bits: read .values"
            )
        return self._values[0]

    @property
    def bodies(self) -> tuple[Circuit, ...]:
        """The branches: the body, then the else branch where there is one."""
        return (self.body,) if self.orelse is None else (self.body, self.orelse)

    @property
    def free_symbols(self) -> frozenset:
        return frozenset(p for body in self.bodies for p in body.parameters)

    @property
    def condition_label(self) -> str:
        bits = f"c{list(self.clbits)}"
        return " || ".join(f"{bits}=={v}" for v in self.values)

    @property
    def label(self) -> str:
        def inner(body: Circuit) -> str:
            return "; ".join(
                op.gate.label if not op.controls else "c" * len(op.controls) + op.gate.label
                for op in body.operations
            )

        text = f"{self.keyword}({self.condition_label}) {inner(self.body)}"
        return text if self.orelse is None else f"{text} else {inner(self.orelse)}"

    @property
    def bits_read(self) -> frozenset[int]:
        """The classical bits this conditional reads: its own, and those the conditionals,
        loops and stores in its branches read (a measurement before it that writes one of
        them is no terminal measurement)."""
        inner = (op.gate.bits_read for body in self.bodies for op in body.operations)
        return frozenset(self.clbits).union(*inner)

    @property
    def bits_written(self) -> frozenset[int]:
        """The classical bits the measurements and stores in its branches may write (a
        measurement before it into one of them is no terminal measurement either)."""
        return frozenset().union(*(written_bits(body) for body in self.bodies))

    def holds(self, clbit_values: Mapping[int, int]) -> bool:
        """Whether the bits (missing ones read 0) hold the value (one of the values)."""
        found = sum(clbit_values.get(b, 0) << i for i, b in enumerate(self.clbits))
        return found in self.values

    def operations_on(self, targets: Sequence[int], branch: int = 0) -> list[Any]:
        """A branch's operations (0: the body, 1: the else branch, none where it has none)
        on the circuit's qubits (body qubit ``i`` on ``targets[i]``)."""
        if branch and self.orelse is None:
            return []
        return [op.remapped(targets) for op in self.bodies[branch].operations]

    def inverse(self) -> Gate:
        raise ArgumentTypeError(
            f"a classically controlled operation ({self.keyword}) has no inverse"
        )

    def with_body(self, body: Circuit, orelse: Circuit | None = None) -> Conditional:
        """The same condition on other branches (on as many qubits)."""
        gate = object.__new__(type(self))
        gate.__dict__.update(self.__dict__)
        gate._fill(body, orelse)
        return gate

    def map_bodies(self, change: Callable[[Circuit], Circuit]) -> Conditional:
        """The same condition with ``change`` applied to each branch."""
        return self.with_body(*(change(body) for body in self.bodies))

    def bind(self, mapping: Mapping) -> Gate:
        def bound(body: Circuit) -> Circuit:
            ops = [op.bind(mapping) for op in body.operations]
            return type(body)(body.n_qubits, ops)  # a Circuit

        return self.map_bodies(bound)

    def _key(self) -> tuple:
        return (*super()._key(), self.clbits, self.values, self.orelse is not None)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Conditional)
            and type(other) is type(self)
            and self._key() == other._key()
            and self.bodies == other.bodies
        )

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        text = f"{self.keyword}({self.condition_label}) {list(self.body.operations)}"
        return text if self.orelse is None else f"{text} else {list(self.orelse.operations)}"


class WhileLoop(Conditional):
    """Run ``body`` again and again while the classical bits ``clbits`` (``clbits[0]``
    lowest) hold one of ``values`` (OpenQASM 3's ``while``, Qiskit's ``while_loop``): what
    the body measures decides whether it runs once more. State vectors run it shot by shot;
    a loop that runs :data:`genqsim.plan.calls.MAX_WHILE_ITERATIONS` times in one shot raises
    :class:`~genqsim.errors.WhileLoopLimitError`, never hangs."""

    kind = GateKind.LOOP
    keyword = "while"

    def __init__(self, clbits: Any, values: Any, body: Circuit) -> None:
        super().__init__(clbits, values, body)

    def _fill(self, body: Circuit, orelse: Circuit | None = None) -> None:
        if orelse is not None:
            raise ArgumentValueError("a while loop has no else branch")
        super()._fill(body)


def written_bits(circuit: Circuit) -> set[int]:
    """The classical bits ``circuit`` writes (measures or stores into), inside conditionals
    and loops too."""
    return set().union(*(op.gate.bits_written for op in circuit.operations))


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
