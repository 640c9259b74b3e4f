"""Reading Cirq circuits: :func:`from_cirq`, and :func:`from_cirq_measured`, which also
returns where each measurement key's records are (for :class:`genqsim.cirq.Simulator`).

Cirq's qubits, in the order given, become genqsim qubits 0, 1, ...; operations are read in
the order Cirq's simulators apply them (a subcircuit's operations where the subcircuit
stands). Gates of genqsim's table keep their names, other operations go through their
unitaries, Kraus operators or decompositions; classical controls under any
``cirq.Condition`` become conditionals on the bits of the measurements they read, and a
subcircuit repeated until a condition holds (``repeat_until``) a loop."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy

from ..circuit.circuit import Circuit
from ..circuit.gates import GATE_SPECS, NamedGate
from ..errors import ArgumentTypeError, ArgumentValueError
from . import classical
from .classical import ClassicalError
from .interop import _global_phase, _identifier

MAX_RECORDED_REPEATS = 100
"""Iterations of a ``repeat_until`` subcircuit whose measurements
:func:`from_cirq_measured` records one by one, as Cirq does: a shot still looping after
them is refused (:class:`CirqRecords.unfinished`)."""


def from_cirq(circuit: Any) -> Circuit:
    """A genqsim circuit from a ``cirq.Circuit``, its qubits in sorted order becoming genqsim
    qubits 0, 1, .... Gates of genqsim's table keep their names (``H``, ``CNOT``, ``CZ``,
    ``TOFFOLI``, ``T``, ``Rx(t)``, ``X**0.5`` as ``sx``, ``Z**e`` as ``p``, ...); other
    numeric operations go through their exact unitaries; parametrised ``Rx/Ry/Rz``,
    ``X/Y/Z/CZ/CX**t`` and ``PhasedXPow`` keep their symbols; measurements map to classical
    bits in order of appearance; noise channels become their Kraus operators, classically
    controlled operations conditionals on the bits of the measurements their conditions
    read (any ``cirq.Condition``, resolved as Cirq resolves it), a subcircuit with
    ``repeat_until`` its body followed by a while loop that runs it again until the
    condition holds (its measurements write the same bits each time), and
    ``GlobalPhaseGate`` a phase."""
    import cirq

    if not isinstance(circuit, cirq.AbstractCircuit):
        raise ArgumentTypeError(f"expected a cirq.Circuit, got {type(circuit).__name__}")
    return from_cirq_measured(circuit, sorted(circuit.all_qubits()), with_records=False)[0]


@dataclass(frozen=True)
class CirqMeasurement:
    """One measurement of a Cirq key: the classical bits it wrote, in the order of its
    qubits, which of them Cirq reports inverted (its ``invert_mask``), and the bits that
    all read 0 in the shots where it ran (an iteration of a ``repeat_until`` loop past the
    first runs where the loop had not ended; none: it ran in every shot)."""

    clbits: tuple[int, ...]
    inverted: tuple[bool, ...]
    ran_where_zero: tuple[int, ...] = ()


@dataclass
class CirqRecords:
    """Where a converted circuit keeps Cirq's records: the measurements of each key in
    order, and the bits that read 0 in a shot whose ``repeat_until`` loop had not ended
    after :data:`MAX_RECORDED_REPEATS` iterations (with the loop it belongs to)."""

    keys: dict[str, list[CirqMeasurement]] = field(default_factory=dict)
    unfinished: list[tuple[int, str]] = field(default_factory=list)


def from_cirq_measured(
    circuit: Any, qubits: Sequence[Any], with_records: bool = True
) -> tuple[Circuit, CirqRecords]:
    """:func:`from_cirq` with ``qubits[i]`` as genqsim qubit ``i`` (qubits the circuit leaves
    idle included), and where the measurements of each key are recorded. ``with_records``:
    the caller reads Cirq's records from these, apart from the circuit's bits, so a
    ``repeat_until`` subcircuit runs as up to :data:`MAX_RECORDED_REPEATS` iterations, each
    measuring into bits of its own, and confusion maps draw into bits of their own; without,
    the loop is its body and a while loop on the same bits, and confusion maps are
    refused."""
    index = {q: i for i, q in enumerate(qubits)}
    missing = set(circuit.all_qubits()) - set(index)
    if missing:
        raise ArgumentValueError(
            f"the qubit order lacks the circuit's qubits {sorted(missing)}: list every qubit"
        )
    reader = CirqReader(index, with_records)
    c = Circuit(len(qubits))
    reader.read(c, circuit.all_operations())
    return c, reader.records


class CirqReader:
    """Reads Cirq operations into genqsim circuits, numbering measured bits in order of
    appearance and keeping each key's records."""

    def __init__(self, index: dict[Any, int], with_records: bool) -> None:
        self.index = index
        self.with_records = with_records
        self.records = CirqRecords()
        self.clbit = 0
        """The next classical bit a measurement writes."""
        self.looped_keys: set[str] = set()
        """Keys measured in a while loop (read without per-iteration records): only their
        latest measurement has bits of its own."""
        self.ran_where_zero: tuple[int, ...] = ()
        """Bits that read 0 where the operations being read run (inside iterations of
        ``repeat_until`` loops past their first)."""

    def read(self, c: Circuit, operations: Iterable[Any]) -> None:
        """Append ``operations`` to ``c``, subcircuits placed inline with the keys Cirq
        gives them (``"0:m"``, ``"1:m"``)."""
        import cirq

        pending = deque(operations)
        while pending:
            op = pending.popleft()
            gate = op.gate
            if isinstance(op.untagged, cirq.CircuitOperation):
                sub = op.untagged
                if sub.repeat_until is not None:
                    self.repeat_until(c, sub)
                    continue
                try:
                    inline = sub.mapped_circuit(deep=False)
                except ValueError as exc:  # repetitions given by a symbol
                    raise ArgumentValueError(f"a Cirq subcircuit is not read: {exc}") from None
                pending.extendleft(reversed(list(inline.all_operations())))
                continue
            qs = [self.index[q] for q in op.qubits]
            if isinstance(op, cirq.ClassicallyControlledOperation):
                self.conditional(c, op)
            elif isinstance(gate, cirq.GlobalPhaseGate):
                _cirq_global_phase(c, gate)
            elif isinstance(gate, cirq.MeasurementGate):
                self.measurement(c, op, qs)
            elif isinstance(gate, cirq.ResetChannel):
                c.reset(qs[0])
            elif not cirq.is_parameterized(op):
                if _named_cirq_op(c, gate, qs):
                    pass
                elif cirq.has_unitary(op):
                    # cirq.unitary is big-endian over op.qubits: the last qubit is the lowest bit
                    c.unitary(cirq.unitary(op), list(reversed(qs)))
                elif not cirq.is_measurement(op) and cirq.has_kraus(op):
                    name = _identifier(type(gate).__name__ if gate is not None else "kraus")
                    c.kraus(list(cirq.kraus(op)), list(reversed(qs)), name=name)  # big-endian
                elif (parts := cirq.decompose_once(op, default=None)) is not None:
                    pending.extendleft(reversed(parts))  # a Pauli measurement: basis change, ...
                else:
                    raise ArgumentValueError(
                        f"Cirq operation {op!r} has no unitary, no Kraus operators and no "
                        "decomposition"
                    )
            else:
                _symbolic_cirq_op(c, gate, qs)

    def measurement(self, c: Circuit, op: Any, qs: list[int]) -> None:
        """Measure ``qs`` into the next bits, recorded under the operation's key."""
        import cirq

        gate = op.gate
        if gate.confusion_map and not self.with_records:
            raise ArgumentValueError(
                f"measurement {gate.key!r} has a confusion map, which genqsim.cirq.Simulator "
                "runs (its records are kept apart from the circuit's bits); a genqsim "
                "circuit applies readout errors from a NoiseModel (NoiseModel.add_readout_error)"
            )
        first = self.clbit
        for q in qs:
            c.measure(q, self.clbit)
            self.clbit += 1
        record = tuple(range(first, self.clbit))
        _check_confusion(gate)
        for indices, matrix in gate.confusion_map.items():
            self.confuse(c, [qs[k] for k in indices], [record[k] for k in indices], matrix)
        found = CirqMeasurement(record, tuple(gate.full_invert_mask()), self.ran_where_zero)
        self.records.keys.setdefault(cirq.measurement_key_name(op), []).append(found)

    def confuse(self, c: Circuit, qubits: list[int], bits: list[int], matrix: Any) -> None:
        """Cirq's confusion matrix on measured ``qubits`` (the first the most significant):
        the bits record outcome ``r`` with probability ``matrix[t][r]`` where the qubits
        hold ``t``, and the qubits keep ``t``. Run as the qubits' outcome copied into bits
        of its own, a channel of Kraus operators ``sqrt(matrix[t][r]) |r><t|`` on the
        (collapsed) qubits, a measurement into the recorded bits, and an X on each qubit
        whose two bits differ: the next map, and what follows, see ``t`` again."""
        matrix = np.asarray(matrix, dtype=float)
        size = 1 << len(qubits)
        if matrix.shape != (size, size):
            raise ArgumentValueError(
                f"a confusion matrix on {len(qubits)} qubit(s) is {size}x{size}, got {matrix.shape}"
            )
        true = []
        for q in qubits:  # measured just now: measuring again reads the same
            c.measure(q, self.clbit)
            true.append(self.clbit)
            self.clbit += 1
        kraus = []
        for t in range(size):
            for r in range(size):
                if matrix[t, r] > 0:
                    k = np.zeros((size, size), dtype=complex)
                    k[r, t] = np.sqrt(matrix[t, r])
                    kraus.append(k)
        c.kraus(kraus, list(reversed(qubits)), name="confusion")  # big-endian
        for q, b, t in zip(qubits, bits, true):
            c.measure(q, b)
            c.if_([t, b], [1, 2], Circuit(c.n_qubits).x(q))  # where they differ

    def conditional(self, c: Circuit, op: Any) -> None:
        """A ``cirq.ClassicallyControlledOperation``: its operation (gates, channels, resets)
        runs where every condition holds, each as Cirq resolves it (``KeyCondition``,
        ``BitMaskKeyCondition``, ``SympyCondition`` or any other ``cirq.Condition``) on the
        values the measurements of its keys recorded (after their invert masks): a
        conditional on the bits of the measurements it reads, run on the values where it
        holds."""

        body = Circuit(c.n_qubits)
        before = len(self.records.keys), sum(map(len, self.records.keys.values()))
        self.read(body, [op.without_classical_controls()])
        if (len(self.records.keys), sum(map(len, self.records.keys.values()))) != before:
            raise ArgumentValueError(f"{op!r}: a measurement under a classical control is not read")
        tested, values = self.condition_values(op, op.classical_controls)
        if not values:  # it never runs
            return
        if tested:
            body = Circuit(c.n_qubits, n_clbits=c.n_clbits).if_(tested, values, body)
        for inner in body.instructions:
            c._append_op(inner)

    def condition_values(
        self, op: Any, conditions: Iterable[Any]
    ) -> tuple[tuple[int, ...], list[int]]:
        """``(bits, values)``: ``conditions`` all hold, as Cirq resolves them on the records
        so far, exactly where ``bits`` hold one of ``values``."""
        import cirq

        conditions = tuple(conditions)
        keys = {str(key): key for condition in conditions for key in condition.keys}
        read: dict[int, None] = {}
        for condition in conditions:
            for name, position in _instances_read(op, condition, self.records.keys):
                if name in self.looped_keys and position != len(self.records.keys[name]) - 1:
                    raise ArgumentValueError(
                        f"{op!r}: the condition {condition} reads an earlier measurement of "
                        f"the key {name!r}, which a repeat_until loop measures: read without "
                        "per-iteration records, only its latest value is kept (run the "
                        "circuit with genqsim.cirq.Simulator, which records each iteration)"
                    )
                read.update(dict.fromkeys(self.records.keys[name][position].clbits))
        measured = {name: self.records.keys[name] for name in keys}
        widest = max((len(m.clbits) for found in measured.values() for m in found), default=0)
        placeholders = cirq.LineQubit.range(widest)

        def holds(values: Mapping[int, int]) -> bool:
            store = cirq.ClassicalDataDictionaryStore()
            for name, key in keys.items():
                for m in measured[name]:
                    digits = [values.get(b, 0) ^ flip for b, flip in zip(m.clbits, m.inverted)]
                    store.record_measurement(key, digits, placeholders[: len(digits)])
            return all(condition.resolve(store) for condition in conditions)

        try:
            return classical.values_holding(tuple(read), holds)
        except ClassicalError as exc:
            raise ArgumentValueError(f"{op!r}: {exc}") from None

    def repeat_until(self, c: Circuit, sub: Any) -> None:
        """A subcircuit run again until its condition holds (checked after each run)."""
        import cirq

        if sub.repetitions != 1:  # Cirq allows none: a guard for later versions
            raise ArgumentValueError(f"{sub!r}: repeat_until with repetitions is not read")
        body = list(sub.replace(repeat_until=None).mapped_circuit(deep=False).all_operations())
        condition = _mapped_condition(sub, cirq.Circuit(body))
        if self.with_records:
            self.recorded_iterations(c, sub, body, condition)
            return
        first = self.clbit
        self.read(c, body)
        after = self.clbit
        tested, values = self.condition_values(sub, [condition])
        self.clbit = first  # later iterations measure into the first one's bits
        again = Circuit(c.n_qubits)
        kept = {name: len(found) for name, found in self.records.keys.items()}
        self.read(again, body)
        self.clbit = after
        for name, found in self.records.keys.items():  # the same bits: kept once
            if len(found) > kept[name]:
                self.looped_keys.add(name)
                del found[kept[name] :]
        if not tested:
            if values:  # it holds after the first run
                return
            raise ArgumentValueError(f"{sub!r}: its repeat_until condition never holds")
        loop = Circuit(c.n_qubits, n_clbits=c.n_clbits)
        loop.while_(tested, classical.complement(tested, values), again)
        for inner in loop.instructions:
            c._append_op(inner)

    def recorded_iterations(self, c: Circuit, sub: Any, body: list[Any], condition: Any) -> None:
        """Up to :data:`MAX_RECORDED_REPEATS` iterations of a ``repeat_until`` subcircuit,
        each measuring into bits of its own, then storing into a bit of its own whether the
        loop has ended (1 where it had ended before)."""
        outer = self.ran_where_zero
        ended: int | None = None
        for _ in range(MAX_RECORDED_REPEATS):
            iteration = c if ended is None else Circuit(c.n_qubits)
            if ended is not None:
                self.ran_where_zero = (*outer, ended)
            self.read(iteration, body)
            tested, values = self.condition_values(sub, [condition])
            flag = self.clbit
            self.clbit += 1
            held = set(values)
            iteration.store(flag, [int(v in held) for v in range(1 << len(tested))], tested)
            if ended is not None:
                stopped = Circuit(c.n_qubits).store(flag, 1)
                step = Circuit(c.n_qubits, n_clbits=max(c.n_clbits, iteration.n_clbits))
                step.if_(ended, 0, iteration, orelse=stopped)
                for inner in step.instructions:
                    c._append_op(inner)
            ended = flag
        self.ran_where_zero = outer
        assert ended is not None
        self.records.unfinished.append((ended, f"until {condition}"))


def _check_confusion(gate: Any) -> None:
    """Refuse what Cirq itself runs two ways: a confusion map on a qubit the invert mask
    flips, or confusion maps that overlap. Cirq's sampling of terminal measurements
    inverts first and confuses each map from the bits the maps before it left; its
    mid-circuit measurements confuse first, each map from the measured bits."""
    inverted = gate.full_invert_mask()
    seen: set[int] = set()
    for indices in gate.confusion_map:
        flipped = [k for k in indices if inverted[k]]
        if flipped:
            raise ArgumentValueError(
                f"measurement {gate.key!r} inverts and confuses its qubit(s) {flipped}: Cirq "
                "applies the two in one order to terminal measurements and in the other "
                "mid-circuit; fold the inversion into the confusion matrix"
            )
        if seen.intersection(indices):
            raise ArgumentValueError(
                f"measurement {gate.key!r} has confusion maps that overlap on qubit(s) "
                f"{sorted(seen.intersection(indices))}: Cirq chains them for terminal "
                "measurements and not mid-circuit; give one map for those qubits"
            )
        seen.update(indices)


def _mapped_condition(sub: Any, body: Any) -> Any:
    """``sub``'s ``repeat_until`` condition with the subcircuit's key map, parameters and
    path applied, as its mapped body names the keys."""
    import cirq

    condition = sub.repeat_until
    if sub.measurement_key_map:
        condition = cirq.with_measurement_key_mapping(condition, sub.measurement_key_map)
    if sub.param_resolver:
        condition = cirq.resolve_parameters(condition, sub.param_resolver, recursive=False)
    return cirq.with_rescoped_keys(
        condition, sub.parent_path, bindable_keys=cirq.measurement_key_objs(body)
    )


def _instances_read(
    op: Any, condition: Any, records: Mapping[str, list[CirqMeasurement]]
) -> list[tuple[str, int]]:
    """The measurements ``condition`` reads, as (key, position among the key's measurements
    so far): the one its ``index`` names (``KeyCondition``, ``BitMaskKeyCondition``), the
    latest of each key (``SympyCondition``), or every one of its keys (a condition of
    another kind)."""
    import cirq

    out = []
    for key in condition.keys:
        name = str(key)
        found = records.get(name, [])
        if not found:
            raise ArgumentValueError(f"{op!r}: the key {name!r} is not measured before it")
        position = getattr(condition, "index", None)
        if isinstance(position, int):
            if not -len(found) <= position < len(found):
                raise ArgumentValueError(
                    f"{op!r}: the condition {condition} reads measurement {position} of the key "
                    f"{name!r}, which is measured {len(found)} time(s) before it"
                )
            out.append((name, position % len(found)))
        elif isinstance(condition, cirq.SympyCondition):
            out.append((name, len(found) - 1))
        else:
            out.extend((name, i) for i in range(len(found)))
    return out


def _cirq_global_phase(c: Circuit, gate: Any) -> None:
    """A ``cirq.GlobalPhaseGate`` (a numeric one) as :func:`_global_phase`."""
    import cirq

    if cirq.is_parameterized(gate):
        raise ArgumentValueError(
            f"{gate!r}: a global phase with a symbol has no genqsim form; resolve it first"
        )
    _global_phase(c, float(np.angle(complex(gate.coefficient))))


def _real_symbols(expr: Any) -> Any:
    expr = sympy.sympify(expr)
    return expr.xreplace({s: sympy.Symbol(s.name, real=True) for s in expr.free_symbols})


_CIRQ_CONTROLLED = {"CXPowGate": "x", "CZPowGate": "z", "CCXPowGate": "x", "CCZPowGate": "z"}
"""Cirq's controlled Pauli gates (at exponent 1: CNOT, CZ, TOFFOLI, CCZ) and their target."""


def _named_cirq_op(c: Circuit, gate: Any, qs: list[int]) -> bool:
    """Append a numeric Cirq gate as the table gate it is (``H``, ``CNOT``, ``T``, ``Rx(t)``,
    ``ZPowGate(exponent=e)`` as ``p(e*pi)``, ...: the rows' Cirq forms read backwards), so
    names, structure and fast kernels survive; ``False`` for a gate the table lacks."""
    import cirq

    if isinstance(gate, (cirq.Rx, cirq.Ry, cirq.Rz)):
        c.append(NamedGate(type(gate).__name__.lower(), float(gate._rads)), qs)
        return True
    if isinstance(gate, cirq.IdentityGate):
        for q in qs:
            c.id(q)
        return True
    kinds = {cls.__name__ for cls in type(gate).__mro__}  # cirq.X is a _PauliX, an XPowGate
    exponent, shift = getattr(gate, "exponent", None), getattr(gate, "global_shift", None)
    if not isinstance(exponent, (int, float)) or not isinstance(shift, (int, float)):
        return False
    controlled = [_CIRQ_CONTROLLED[k] for k in kinds if k in _CIRQ_CONTROLLED]
    if controlled and exponent == 1 and shift == 0:
        c.append(NamedGate(controlled[0]), [qs[-1]], qs[:-1])
        return True
    targets = list(reversed(qs))  # to_cirq puts targets[0] last
    rows = [(name, spec.cirq) for name, spec in GATE_SPECS.items() if spec.cirq is not None]
    for name, form in rows:  # fixed exponents first: ZPowGate(0.25) is t, not p(pi/4)
        if form.gate in kinds and form.exponent == exponent and form.global_shift == shift:
            c.append(NamedGate(name), targets)
            return True
    for name, form in rows:
        if form.gate in kinds and form.exponent is None and form.global_shift == shift:
            c.append(NamedGate(name, float(exponent) * np.pi), targets)
            return True
    return False


def _symbolic_cirq_op(c: Circuit, gate: Any, qs: list[int]) -> None:
    import cirq

    pi = sympy.pi
    if isinstance(gate, (cirq.Rx, cirq.Ry, cirq.Rz)):
        name = {cirq.Rx: "rx", cirq.Ry: "ry", cirq.Rz: "rz"}[type(gate)]
        c.append(NamedGate(name, _real_symbols(gate._rads)), qs)
        return
    if isinstance(gate, cirq.EigenGate) and type(gate) in (
        cirq.XPowGate, cirq.YPowGate, cirq.ZPowGate, cirq.CZPowGate, cirq.CXPowGate
    ):  # fmt: skip
        t = _real_symbols(gate.exponent)
        shift = sympy.sympify(gate.global_shift)
        # P**t = exp(i pi t (1 - P)/2) * exp(i pi t s) = exp(i pi t (1/2 + s)) R_P(pi t)
        phase = pi * t * (sympy.Rational(1, 2) + shift)
        if isinstance(gate, cirq.ZPowGate):
            c.p(pi * t, qs[0])
            phase = pi * t * shift
        elif isinstance(gate, cirq.CZPowGate):
            c.cp(pi * t, qs[0], qs[1])
            phase = pi * t * shift
        elif isinstance(gate, cirq.CXPowGate):
            c.append(NamedGate("rx", pi * t), [qs[1]], [qs[0]])
            c.append(NamedGate("p", pi * t / 2), [qs[0]])
            phase = pi * t * shift
        else:
            c.append(NamedGate("rx" if isinstance(gate, cirq.XPowGate) else "ry", pi * t), qs)
        if phase != 0:
            c.pauli_rotation("I", -2 * phase, [qs[0]])
        return
    raise ArgumentValueError(f"parametrised Cirq gate {gate!r} has no genqsim equivalent")
