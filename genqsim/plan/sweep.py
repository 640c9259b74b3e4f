"""One circuit at many parameter points from one plan.

A parameter sweep (``gq.expectation(circuit, obs, values={theta: grid})``) runs the same
gates at every point; only the numbers of the parametrised ones change. :class:`SweepPlan`
builds the calls of the fixed gates once, encodes the whole circuit once as one run over
the whole state (on a backend that runs sweeps, :class:`~genqsim.backends.SweepRunner`),
computes the parametrised gates' numbers for every point at once, and runs the states of
many points in one call, the threads sharing out the points.

A gate ``U(theta) = exp(-i theta G) U(0)`` whose generator is ``G = a I + b P`` for one
Pauli string ``P`` (rotations, phase gates, Pauli rotations, controlled or not) has the
numbers ``exp(-i a theta) (cos(b theta) D0 + sin(b theta) D1)`` in any encoding of its
call (a dense matrix, a diagonal): two arrays read off the gate once, checked against the
gate library at a test angle, and each point's numbers are a few vectorised operations.
Other parametrised gates (``u`` with three angles, ...) are built point by point from the
gate library, still with no binding and no planning per point.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..backends import SweepRunner, ThreadScoped, capability
from ..circuit.circuit import Circuit, Operation, evaluated_gate
from ..circuit.gates import pauli_generator, with_parameters
from ..numbers import NumberSystem
from ..support.lazysympy import is_sympy
from .build import block_layout_of, call_for
from .calls import BlockRun, DiagonalCall, MatrixCall

SWEEP_CHUNK_BYTES = 1 << 25
"""Amplitudes of the points run together in one call, in bytes (32 MiB): a chunk of states
and its numbers stay far below the memory of any machine genqsim runs on."""

CLOSED_FORM_TOLERANCE = 1e-12
"""A gate's closed form must match the gate library's numbers to this at a test angle, or
its numbers are built point by point."""

TEST_ANGLE = 1.3
"""The angle a closed form is checked at (not a multiple of pi/4 over any small rate)."""


def generic_values(count: int) -> np.ndarray:
    """Parameter values at which no gate's number is zero or one by accident (steps of the
    golden ratio's fraction): the encoding made there fits every other point."""
    return 0.1 + 0.6180339887498949 * np.arange(1, count + 1)


@dataclass
class _Slot:
    """A parametrised call of the run: where its numbers sit in the encoding, which entries
    of its data they are, and how they are computed at many points."""

    position: int
    operation: Operation
    where: np.ndarray
    entries: np.ndarray
    angle: Callable[[np.ndarray], Any] | None
    """The gate's one angle at every point, from the ``(points, parameters)`` values;
    ``None`` for gates built point by point."""
    closed: tuple[np.ndarray, np.ndarray, float, float] | None
    """``(D0, D1, a, b)`` of the closed form (module text), or ``None``."""

    @property
    def in_closed_form(self) -> bool:
        """Whether the slot's numbers come from its closed form (:class:`_ClosedForms`)."""
        return self.closed is not None and self.angle is not None

    def numbers_at(
        self, values: np.ndarray, parameters: Sequence[Any], numbers: NumberSystem
    ) -> np.ndarray | None:
        """The slot's encoded numbers at every point, ``(points, len(where))``, from the
        gate library point by point (closed forms go together, :class:`_ClosedForms`);
        ``None`` where a point has no real finite angle (the per-point path explains it)."""
        rows = []
        for point in values:
            gate = evaluated_gate(self.operation.gate, dict(zip(parameters, point.tolist())))
            if gate is None:
                return None
            rows.append(_flat_data(self.operation, gate, numbers)[self.entries])
        return np.array(rows, dtype=np.complex128).reshape(len(rows), self.entries.size)


@dataclass
class _ClosedForms:
    """Every slot with a closed form, computed together: one angle column per slot, and per
    encoded entry its position in the run, its slot and its ``D0``/``D1`` numbers, so the
    numbers of all of them at every point are one compiled call whatever the number of
    gates (a point of an optimiser's loop costs microseconds, not one pass per gate;
    :meth:`~genqsim.backends.SweepRunner.closed_form_numbers`)."""

    columns: np.ndarray
    """Each slot's angle: a column of the values, or past them a column of the angles
    that are expressions (in the order of :attr:`expressions`)."""
    expressions: list[Callable[[np.ndarray], Any]]
    """The angle functions of the slots whose angle is an expression."""
    rates: tuple[np.ndarray, np.ndarray]
    """Each slot's ``a`` (the global phase's rate) and ``b`` (the Pauli term's rate)."""
    entries: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    """Per encoded entry: its slot, its ``D0`` and ``D1`` numbers, its place in the run."""

    @classmethod
    def gather(cls, slots: Sequence[_Slot], parameters: Sequence[Any]) -> _ClosedForms:
        """The closed forms of ``slots`` (each :attr:`_Slot.in_closed_form`)."""
        column = {p: k for k, p in enumerate(parameters)}
        columns = np.empty(len(slots), dtype=np.int64)
        expressions: list[Callable[[np.ndarray], Any]] = []
        forms = []
        for s, slot in enumerate(slots):
            assert slot.closed is not None and slot.angle is not None
            forms.append(slot.closed)
            k = column.get(slot.operation.gate.params[0])
            if k is None:
                k = len(parameters) + len(expressions)
                expressions.append(slot.angle)
            columns[s] = k
        counts = [slot.entries.size for slot in slots]
        return cls(
            columns=columns,
            expressions=expressions,
            rates=(
                np.array([f[2] for f in forms], dtype=float),
                np.array([f[3] for f in forms], dtype=float),
            ),
            entries=(
                np.repeat(np.arange(len(slots), dtype=np.int64), counts),
                np.concatenate([f[0][slot.entries] for f, slot in zip(forms, slots)]),
                np.concatenate([f[1][slot.entries] for f, slot in zip(forms, slots)]),
                np.concatenate([slot.where for slot in slots]).astype(np.int64),
            ),
        )

    def write(self, values: np.ndarray, data: np.ndarray, runner: SweepRunner) -> bool:
        """Write every closed-form slot's numbers at the points of ``values`` (finite reals)
        into ``data`` (``(points, entries of the run)``) on ``runner``; ``False`` where an
        angle that is an expression is not real and finite at some point (then nothing is
        to be used)."""
        values = np.ascontiguousarray(values, dtype=float)
        points = values.shape[0]
        extra = np.empty((points, len(self.expressions)))
        for x, angle in enumerate(self.expressions):
            found = np.asarray(angle(values))
            if found.dtype.kind not in "iuf":
                return False
            extra[:, x] = np.broadcast_to(found, (points,))
        if self.expressions and not np.isfinite(extra).all():
            return False
        runner.closed_form_numbers(values, extra, self.columns, self.rates, self.entries, data)
        return True


def _flat_data(op: Operation, gate: Any, numbers: NumberSystem) -> np.ndarray:
    """The numbers of ``op`` with ``gate`` in its place (a matrix or a diagonal), flat."""
    call = call_for(Operation(gate, op.targets, op.controls, op.control_values), numbers)
    if not isinstance(call, (MatrixCall, DiagonalCall)):
        raise ValueError(f"{op} is not a matrix or diagonal call at every angle")
    return np.asarray(call.data, dtype=np.complex128).reshape(-1)


def _closed_form(
    op: Operation, numbers: NumberSystem
) -> tuple[np.ndarray, np.ndarray, float, float] | None:
    """``(D0, D1, a, b)`` with the numbers of ``op`` at angle ``t`` equal to
    ``exp(-i a t) (cos(b t) D0 + sin(b t) D1)``, or ``None`` where its gate has no Pauli
    generator of the form ``a I + b P`` or the form does not match the gate library."""
    gate = op.gate
    terms = pauli_generator(gate)
    if terms is None or len(gate.params) != 1:
        return None
    a = sum(c for c, p in terms if set(p) <= {"I"})
    others = [c for c, p in terms if not set(p) <= {"I"}]
    if len(others) != 1 or others[0] == 0:
        return None
    b = others[0]

    def at(theta: float) -> np.ndarray:
        return _flat_data(op, with_parameters(gate, [theta]), numbers)

    quarter = math.pi / (2 * b)
    d0 = at(0.0)
    d1 = at(quarter) * np.exp(1j * a * quarter)
    t = TEST_ANGLE
    closed = np.exp(-1j * a * t) * (math.cos(b * t) * d0 + math.sin(b * t) * d1)
    if not np.allclose(closed, at(t), rtol=0, atol=CLOSED_FORM_TOLERANCE):
        return None
    return d0, d1, a, b


def _angle_function(expr: Any, parameters: Sequence[Any]) -> Callable[[np.ndarray], Any] | None:
    """The angle ``expr`` at every point, from the ``(points, parameters)`` values: a
    column for a bare parameter, a NumPy function of the columns it uses otherwise."""
    column = {p: k for k, p in enumerate(parameters)}
    if expr in column:
        k = column[expr]
        return lambda values: values[:, k]
    if not is_sympy(expr):
        return None
    import sympy

    symbols = sorted(expr.free_symbols, key=str)
    fn = sympy.lambdify(symbols, expr, modules="numpy")
    columns = [column[s] for s in symbols]

    def angle(values: np.ndarray) -> Any:
        with np.errstate(all="ignore"):  # a pole or a complex value: checked by the caller
            return fn(*(values[:, k] for k in columns))

    return angle


@dataclass
class SweepPlan:
    """A circuit planned once for every parameter point (see the module's text). Build it
    with :meth:`build`, which says ``None`` for circuits it does not serve: measurements,
    resets, channels or conditionals; parameters in gates that are not one matrix or
    diagonal; states wider than one of the backend's blocks; backends that do not run
    sweeps."""

    n_qubits: int
    parameters: tuple[Any, ...]
    """The swept parameters, in the order of the columns of the values."""
    numbers: NumberSystem
    backend: Any
    run: BlockRun | None
    """The whole circuit as one run over the whole state (``None``: no gates)."""
    base: np.ndarray
    """The run's encoded numbers, the parametrised calls' at generic values."""
    slots: list[_Slot]
    """Every parametrised call, in the run's order."""
    closed: _ClosedForms | None = None
    """The slots with closed forms, computed together (``None``: none has one)."""

    @classmethod
    def build(cls, circuit: Circuit, numbers: NumberSystem, backend: Any) -> SweepPlan | None:
        """The plan of ``circuit`` (unitary; its free parameters swept, in the order of
        ``circuit.parameters``) for machine ``numbers`` on ``backend``, or ``None``."""
        runner = capability(backend, SweepRunner)
        layout = block_layout_of(backend, numbers.dtype)
        if runner is None or layout is None or numbers.dtype.kind != "c":
            return None
        if circuit.has_non_unitary or circuit.n_qubits > layout.tile_qubits:
            return None
        parameters = circuit.parameters
        generic = dict(zip(parameters, generic_values(len(parameters)).tolist()))
        calls: list[Any] = []
        swept: list[tuple[int, Operation]] = []
        for op in circuit.operations:
            if op.gate.free_symbols:
                gate = evaluated_gate(op.gate, generic)
                if gate is None:
                    return None
                call = call_for(Operation(gate, op.targets, op.controls, op.control_values),
                                numbers)  # fmt: skip
                if not isinstance(call, (MatrixCall, DiagonalCall)):
                    return None
                swept.append((len(calls), op))
            else:
                call = call_for(op, numbers)
                if call is None:
                    continue
            calls.append(call)
        if not calls:
            return cls(circuit.n_qubits, parameters, numbers, backend, None,
                       np.zeros(0, dtype=numbers.dtype), [])  # fmt: skip
        run = BlockRun(calls, circuit.n_qubits)
        try:
            base, places = runner.sweep_layout(run, numbers.dtype, [g for g, _ in swept])
        except ValueError:
            return None
        slots = []
        for (g, op), (where, entries) in zip(swept, places):
            closed = _closed_form(op, numbers)
            angle = None if closed is None else _angle_function(op.gate.params[0], parameters)
            slots.append(_Slot(g, op, where, entries, angle, closed))
        with_forms = [slot for slot in slots if slot.in_closed_form]
        forms = _ClosedForms.gather(with_forms, parameters) if with_forms else None
        return cls(circuit.n_qubits, parameters, numbers, backend, run, base, slots, forms)

    def numbers_at(self, values: np.ndarray) -> np.ndarray | None:
        """The run's encoded numbers at every point of ``values`` (``(points,
        parameters)``, columns in :attr:`parameters` order), or ``None`` where a point has
        no real finite angle for some gate."""
        data = np.empty((values.shape[0], self.base.size), dtype=self.numbers.dtype)
        data[:] = self.base
        runner = capability(self.backend, SweepRunner)
        assert runner is not None  # checked by build
        if self.closed is not None and not self.closed.write(values, data, runner):
            return None
        for slot in self.slots:
            if slot.in_closed_form:
                continue  # written with the other closed forms
            found = slot.numbers_at(values, self.parameters, self.numbers)
            if found is None:
                return None
            data[:, slot.where] = found
        return data

    def chunk_points(self) -> int:
        """Points run together in one call (:data:`SWEEP_CHUNK_BYTES`)."""
        return max(1, SWEEP_CHUNK_BYTES // ((1 << self.n_qubits) * self.numbers.dtype.itemsize))

    def states(
        self, data: np.ndarray, initial: np.ndarray | None = None, threads: int | None = None
    ) -> Iterator[np.ndarray]:
        """The final states at the points whose numbers are the rows of ``data`` (from
        :meth:`numbers_at`), a chunk at a time as ``(points, 2**n)`` arrays, each state run
        from ``initial`` (``|0...0>`` by default) on ``threads`` threads (``None``: the
        backend's default)."""
        size = 1 << self.n_qubits
        chunk = self.chunk_points()
        scoped = capability(self.backend, ThreadScoped)
        for start in range(0, data.shape[0], chunk):
            rows = data[start : start + chunk]
            out = np.zeros((rows.shape[0], size), dtype=self.numbers.dtype)
            if initial is None:
                out[:, 0] = 1
            else:
                out[:] = initial
            if self.run is not None:
                runner = capability(self.backend, SweepRunner)
                assert runner is not None  # checked by build
                if scoped is None or rows.shape[0] == 1:  # one point runs on one thread
                    runner.apply_block_run_points(out, self.run, rows)
                else:
                    with scoped.threads(threads):
                        runner.apply_block_run_points(out, self.run, rows)
            yield out
