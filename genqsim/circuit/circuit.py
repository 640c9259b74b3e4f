"""Circuits: ordered operations on ``n_qubits`` qubits, built with chained methods.

Qubit 0 is the least-significant bit of a basis index. Parameters are SymPy symbols (strings
passed as parameters become real symbols of that name), so the same circuit runs numerically
after :meth:`Circuit.bind` or symbolically as it is.
"""

from __future__ import annotations

import functools
import math
import numbers as _abc
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import (
    ArgumentTypeError,
    ArgumentValueError,
    NonFiniteError,
    NumberTypeError,
    QubitCountMismatchError,
    QubitIndexError,
    UnboundParameterError,
    UnknownParameterError,
)
from ..numbers import get_number_system, python_number, to_python_complex
from ..numbers.uncertain import is_uncertain_value
from ..support.lazysympy import is_sympy
from ..support.validation import as_qubit, as_qubit_tuple, check_n_qubits, check_operation_qubits
from . import channels
from .channels import QuantumChannel
from .composite import Composite, operations_matrix
from .conditional import Conditional, WhileLoop, as_clbits, written_bits
from .gates import (
    NON_UNITARY,
    Barrier,
    Gate,
    GateKind,
    MatrixGate,
    Measure,
    NamedGate,
    PauliRotation,
    Reset,
    with_parameters,
)
from .operation import Operation, new_operation
from .store import Store

if TYPE_CHECKING:
    import sympy

    from .lightcone import LightCone


def parameters(names: str | Iterable[str]) -> tuple[sympy.Symbol, ...]:
    """Real SymPy symbols for circuit parameters: ``a, b = gq.parameters("a b")``;
    ranges as in SymPy (``gq.parameters("t0:4")`` gives t0..t3).

    Real symbols let conjugates, probabilities and expectation values simplify correctly.
    """
    if not isinstance(names, str):
        if not isinstance(names, Iterable) or not all(isinstance(n, str) for n in names):
            raise ArgumentTypeError(
                f"parameter names are a string ('a b', 't0:4') or strings, got {names!r}"
            )
        names = " ".join(names)
    words = names.replace(",", " ").split()
    if not words:
        raise ArgumentValueError(
            f"no parameter names given ({names!r}): name them, as gq.parameters('a b')"
        )
    for word in words:
        head, colon, stop = word.partition(":")
        if not head.isidentifier() or (colon and not stop.isdigit()):
            raise ArgumentValueError(
                f"{word!r} is not a parameter name: a name is a Python identifier "
                "(a range as 't0:4'), so that OpenQASM, "
                "lambdify and --bind can use it"
            )
    import sympy

    return tuple(sympy.symbols(" ".join(words), real=True, seq=True))


def _bind_value(value: Any, name: str) -> Any:
    """A bound value: SymPy as it is, a number as SymPy, an ``uncertainties`` value as it
    is (gates take those as angles for ``numbers="uncertain"``)."""
    if is_sympy(value) or is_uncertain_value(value):
        if is_uncertain_value(value) and not math.isfinite(value.nominal_value):
            raise NonFiniteError(f"value for parameter {name} is not finite: {value!r}")
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (_abc.Number, np.number)):
        raise NumberTypeError(f"value for parameter {name} must be a number, got {value!r}")
    to_python_complex(value, f"value for parameter {name}")  # refuses NaN and infinities
    import sympy

    return sympy.sympify(value.item() if isinstance(value, np.generic) else value)


DISPLAY_MAX_OPERATIONS = 400
"""Circuits longer than this show their size alone in notebooks, not a drawing."""


class Circuit:
    """An ordered list of :class:`Operation` on ``n_qubits`` qubits.

    Builder methods (``h``, ``cx``, ``rz``, ``unitary``, ...) append and return the circuit, so
    calls chain: ``Circuit(2).h(0).cx(0, 1)``.
    """

    n_qubits: int
    n_clbits: int

    scratch_clbits: frozenset[int] = frozenset()
    """Classical bits that hold a program's working memory (the classical variables of an
    OpenQASM 3 file or a Qiskit circuit, kept where a later measurement would overwrite the
    bits their values read), left out of counts and per-shot memory
    (:meth:`mark_scratch`)."""

    _bound_from: tuple[Circuit, int]
    """Set on a circuit made by :meth:`bind`: the circuit it was bound from (the same
    operations at the same places) and its length then, whose light cones serve this one."""

    _bound_point: dict[Any, float]
    """Set on a circuit :meth:`bind` made from machine reals: the values it bound, by
    symbol (:meth:`bound_point`)."""

    def __init__(
        self, n_qubits: int, operations: Iterable[Operation] = (), n_clbits: int = 0
    ) -> None:
        self.n_qubits = check_n_qubits(n_qubits)
        self.n_clbits = int(n_clbits)
        self._ops: list[Operation] = []
        self._items: list[Operation] | None = None
        """The operations as appended where they hold composites (else ``_ops`` is that
        list): ``_ops`` is then their flattening, made when first read (see
        :meth:`__getattr__`) and dropped when a composite is appended."""
        self._flat: tuple[int, list[Operation]] = (0, [])
        """How many of ``_items`` the last flattening covered, and that flattening."""
        self._derived: dict[Any, tuple[int, Any]] = {}
        for op in operations:
            self._append_op(op)

    def __getattr__(self, name: str) -> Any:
        """``_ops``, where composites were appended since it was last made: their bodies
        placed on their qubits (the instructions appended since are placed, after a copy of
        the operations made before)."""
        if name != "_ops" or "_items" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        items = self._items
        assert items is not None
        done, previous = self._flat
        flat = list(previous)  # a new list: a thread reading meanwhile sees a whole one
        for op in items[done:]:
            if isinstance(op.gate, Composite):
                flat.extend(op.gate.operations_on(op.targets, op.controls, op.control_values))
            else:
                flat.append(op)
        self._flat = (len(items), flat)
        self._ops = flat
        return flat

    def _count(self) -> int:
        """How many instructions were appended: what tells a kept value is still current."""
        items = self._items
        return len(self._ops) if items is None else len(items)

    def derived(self, key: Any, build: Callable[[], Any]) -> Any:
        """``build()``, computed once and kept under ``key`` until the circuit grows:
        operations are only ever appended, so their count tells whether a kept value (the
        parameters, a planned adjoint sweep) still describes the circuit. Not pickled."""
        count = self._count()
        kept = self._derived.get(key)
        if kept is not None and kept[0] == count:
            return kept[1]
        value = build()
        self._derived[key] = (count, value)
        return value

    def __getstate__(self) -> dict[str, Any]:
        state = {**self.__dict__, "_derived": {}}
        state.pop("_bound_from", None)  # a shortcut to the unbound circuit's light cones
        state.pop("_bound_point", None)
        if state["_items"] is not None:  # the flattening is made again where it is read
            state.pop("_ops", None)
            state["_flat"] = (0, [])
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update({"_derived": {}, "_items": None, "_flat": (0, []), **state})

    # -- core ---------------------------------------------------------------------------------
    @property
    def operations(self) -> tuple[Operation, ...]:
        """The operations in order, as they run: each composite's body placed on its qubits
        (a tuple: the circuit changes only through its methods)."""
        return tuple(self._ops)

    @property
    def instructions(self) -> tuple[Operation, ...]:
        """The operations as appended: a composite (a defined gate of an OpenQASM file, a
        :class:`~genqsim.circuit.composite.Composite`) as one, by its name. Drawings,
        ``count_ops`` and exports read these; runs read :attr:`operations`."""
        items = self._items
        return tuple(self._ops if items is None else items)

    def _append_op(self, op: Operation) -> None:
        t, c, v = check_operation_qubits(
            self.n_qubits, op.targets, op.controls, op.control_values or None, op.gate.n_qubits
        )
        self._push(Operation(op.gate, t, c, v))

    def _push(self, op: Operation) -> None:
        """Append an operation whose qubits are already checked against this circuit."""
        if op.controls and op.gate.kind in NON_UNITARY:
            raise ArgumentTypeError(f"{op.gate.name} operations cannot be controlled by qubits")
        self._note_clbits(op.gate)
        self._push_checked(op)

    def _push_checked(self, op: Operation) -> None:
        """Append an operation checked in full against this circuit: its qubits, its
        controls, and any classical bit it writes already within ``n_clbits``."""
        items = self._items
        if op.gate.kind is GateKind.COMPOSITE:
            if items is None:
                items = self._items = list(self._ops)
                self._flat = (len(items), self._ops)
            items.append(op)
            self.__dict__.pop("_ops", None)  # flattened again where it is read
        elif items is None:
            self._ops.append(op)
        else:
            items.append(op)
            flat = self.__dict__.get("_ops")
            if flat is not None:
                flat.append(op)
                self._flat = (len(items), flat)

    def _push_gates(self, ops: Iterable[Operation]) -> None:
        """Append gates (unitary, composites, or barriers) whose qubits are already checked
        against this circuit and whose controls are allowed: they write no classical bit, so
        nothing is left to check or note (an OpenQASM gate call, once expanded)."""
        if self._items is None and "_ops" in self.__dict__:
            ops = list(ops)
            if not any(op.gate.kind is GateKind.COMPOSITE for op in ops):
                self._ops.extend(ops)
                return
        for op in ops:
            self._push_checked(op)

    def _note_clbits(self, gate: Gate) -> None:
        """Grow ``n_clbits`` to cover the classical bits ``gate`` writes or reads."""
        if isinstance(gate, Measure):
            self.n_clbits = max(self.n_clbits, gate.clbit + 1)
        elif isinstance(gate, Conditional):
            widest = max(body.n_clbits for body in gate.bodies)
            self.n_clbits = max(self.n_clbits, max(gate.clbits) + 1, widest)
        elif isinstance(gate, Store):
            self.n_clbits = max(self.n_clbits, *(b + 1 for b in gate.clbits + gate.sources))

    def append(
        self,
        gate: Gate | str,
        targets: int | Sequence[int],
        controls: int | Sequence[int] = (),
        control_values: int | Sequence[int] | None = None,
    ) -> Circuit:
        """Append a gate (a :class:`Gate` or a library name) on ``targets`` under controls."""
        g = NamedGate(gate) if isinstance(gate, str) else gate
        if not isinstance(g, Gate):
            raise ArgumentTypeError(f"expected a Gate or gate name, got {gate!r}")
        t, c, v = check_operation_qubits(
            self.n_qubits, targets, controls, control_values, g.n_qubits
        )
        self._push(Operation(g, t, c, v))
        return self

    def _named(self, name: str, params: Sequence[Any], targets, controls=(), values=None):
        return self.append(NamedGate(name, *params), targets, controls, values)

    # -- one-qubit gates ----------------------------------------------------------------------
    def id(self, q: int) -> Circuit:
        """Identity on ``q`` (kept in the circuit, e.g. as a placeholder for noise after it)."""
        return self._named("id", (), q)

    def x(self, q: int) -> Circuit:
        """Pauli X (NOT) on ``q``: ``[[0, 1], [1, 0]]``."""
        return self._named("x", (), q)

    def y(self, q: int) -> Circuit:
        """Pauli Y on ``q``: ``[[0, -i], [i, 0]]``."""
        return self._named("y", (), q)

    def z(self, q: int) -> Circuit:
        """Pauli Z on ``q``: ``diag(1, -1)``."""
        return self._named("z", (), q)

    def h(self, q: int) -> Circuit:
        """Hadamard on ``q``: ``[[1, 1], [1, -1]] / sqrt(2)``."""
        return self._named("h", (), q)

    def s(self, q: int) -> Circuit:
        """S (phase) gate on ``q``: ``diag(1, i)``, the square root of Z."""
        return self._named("s", (), q)

    def sdg(self, q: int) -> Circuit:
        """S dagger on ``q``: ``diag(1, -i)``."""
        return self._named("sdg", (), q)

    def t(self, q: int) -> Circuit:
        """T gate on ``q``: ``diag(1, exp(i pi/4))``, the square root of S."""
        return self._named("t", (), q)

    def tdg(self, q: int) -> Circuit:
        """T dagger on ``q``: ``diag(1, exp(-i pi/4))``."""
        return self._named("tdg", (), q)

    def sx(self, q: int) -> Circuit:
        """Square root of X on ``q``: ``[[1+i, 1-i], [1-i, 1+i]] / 2``."""
        return self._named("sx", (), q)

    def sxdg(self, q: int) -> Circuit:
        """Inverse square root of X on ``q``."""
        return self._named("sxdg", (), q)

    def rx(self, theta: Any, q: int) -> Circuit:
        """Rotation about X: ``exp(-i theta X / 2)`` on ``q``."""
        return self._named("rx", (theta,), q)

    def ry(self, theta: Any, q: int) -> Circuit:
        """Rotation about Y: ``exp(-i theta Y / 2)`` on ``q`` (real matrix)."""
        return self._named("ry", (theta,), q)

    def rz(self, theta: Any, q: int) -> Circuit:
        """Rotation about Z: ``exp(-i theta Z / 2) = diag(exp(-i theta/2), exp(i theta/2))``."""
        return self._named("rz", (theta,), q)

    def p(self, lam: Any, q: int) -> Circuit:
        """Phase gate ``diag(1, exp(i lam))``."""
        return self._named("p", (lam,), q)

    def u(self, theta: Any, phi: Any, lam: Any, q: int) -> Circuit:
        """``U(theta, phi, lam)`` as in OpenQASM / Qiskit."""
        return self._named("u", (theta, phi, lam), q)

    u3 = u

    # -- controlled gates ---------------------------------------------------------------------
    def cx(self, control: int, target: int) -> Circuit:
        """Controlled X (CNOT): flips ``target`` where ``control`` is 1."""
        return self._named("x", (), target, control)

    cnot = cx

    def cy(self, control: int, target: int) -> Circuit:
        """Controlled Y: Y on ``target`` where ``control`` is 1."""
        return self._named("y", (), target, control)

    def cz(self, control: int, target: int) -> Circuit:
        """Controlled Z: ``diag(1, 1, 1, -1)`` (symmetric in its two qubits)."""
        return self._named("z", (), target, control)

    def ch(self, control: int, target: int) -> Circuit:
        """Controlled Hadamard on ``target``."""
        return self._named("h", (), target, control)

    def cp(self, lam: Any, control: int, target: int) -> Circuit:
        """Controlled phase: ``exp(i lam)`` on ``|11>``."""
        return self._named("p", (lam,), target, control)

    def crx(self, theta: Any, control: int, target: int) -> Circuit:
        """Controlled ``RX(theta)`` on ``target``."""
        return self._named("rx", (theta,), target, control)

    def cry(self, theta: Any, control: int, target: int) -> Circuit:
        """Controlled ``RY(theta)`` on ``target``."""
        return self._named("ry", (theta,), target, control)

    def crz(self, theta: Any, control: int, target: int) -> Circuit:
        """Controlled ``RZ(theta)`` on ``target``."""
        return self._named("rz", (theta,), target, control)

    def cu(self, theta: Any, phi: Any, lam: Any, gamma: Any, control: int, target: int) -> Circuit:
        """Controlled ``exp(i gamma) U(theta, phi, lam)`` (Qiskit's ``CUGate``)."""
        return self._named("u", (theta, phi, lam, gamma), target, control)

    def ccx(self, control1: int, control2: int, target: int) -> Circuit:
        """Toffoli: X on ``target`` where both controls are 1."""
        return self._named("x", (), target, (control1, control2))

    toffoli = ccx

    def mcx(self, controls: Sequence[int], target: int, control_values=None) -> Circuit:
        """X on ``target`` controlled by any number of qubits."""
        return self._named("x", (), target, controls, control_values)

    def cswap(self, control: int, a: int, b: int) -> Circuit:
        """Fredkin: swap ``a`` and ``b`` where ``control`` is 1."""
        return self._named("swap", (), (a, b), control)

    fredkin = cswap

    # -- two-qubit gates ----------------------------------------------------------------------
    def swap(self, a: int, b: int) -> Circuit:
        """Swap qubits ``a`` and ``b``."""
        return self._named("swap", (), (a, b))

    def iswap(self, a: int, b: int) -> Circuit:
        """iSWAP: swaps ``|01>`` and ``|10>`` with a phase ``i``."""
        return self._named("iswap", (), (a, b))

    def rxx(self, theta: Any, a: int, b: int) -> Circuit:
        """``exp(-i theta X_a X_b / 2)``, the XX (Ising) interaction."""
        return self._named("rxx", (theta,), (a, b))

    def ryy(self, theta: Any, a: int, b: int) -> Circuit:
        """``exp(-i theta Y_a Y_b / 2)``, the YY interaction."""
        return self._named("ryy", (theta,), (a, b))

    def rzz(self, theta: Any, a: int, b: int) -> Circuit:
        """``exp(-i theta Z_a Z_b / 2)``, the ZZ interaction (diagonal)."""
        return self._named("rzz", (theta,), (a, b))

    def pauli_rotation(self, pauli: str, theta: Any, qubits: Sequence[int]) -> Circuit:
        """``exp(-i theta P / 2)``; ``pauli[i]`` acts on ``qubits[i]``."""
        return self.append(PauliRotation(pauli, theta), qubits)

    # -- arbitrary matrices and control ---------------------------------------------------------
    def unitary(
        self,
        matrix: Any,
        targets: int | Sequence[int],
        controls: int | Sequence[int] = (),
        control_values: int | Sequence[int] | None = None,
        *,
        name: str = "unitary",
        check_unitary: bool = True,
    ) -> Circuit:
        """Any ``2**k x 2**k`` matrix on ``targets`` (``targets[0]`` = least-significant bit
        of the matrix index), optionally controlled; numeric matrices are checked unitary."""
        return self.append(
            MatrixGate(matrix, name, check_unitary), targets, controls, control_values
        )

    def controlled(
        self,
        operation: Gate | str | Circuit,
        targets: int | Sequence[int] | None = None,
        controls: int | Sequence[int] = (),
        control_values: int | Sequence[int] | None = None,
    ) -> Circuit:
        """Append ``operation`` under extra controls: a gate (with ``targets``) or a whole
        circuit (its qubit ``i`` mapped to ``targets[i]``, identity map when omitted)."""
        if isinstance(operation, Circuit):
            qubit_map = tuple(range(operation.n_qubits)) if targets is None else targets
            qubit_map = as_qubit_tuple(qubit_map, self.n_qubits, "target")
            if len(qubit_map) != operation.n_qubits:
                raise QubitCountMismatchError(
                    f"circuit has {operation.n_qubits} qubits but {len(qubit_map)} targets given"
                )
            _, c, v = check_operation_qubits(self.n_qubits, qubit_map, controls, control_values)
            new_ops = []
            for op in operation.operations:
                if op.kind is GateKind.BARRIER:
                    continue
                if op.kind in NON_UNITARY:
                    raise ArgumentTypeError(
                        f"{op.gate.name} operations (measurements, resets, channels, "
                        "conditionals, stores) cannot be controlled by qubits"
                    )
                mapped = op.remapped(qubit_map)
                check_operation_qubits(self.n_qubits, mapped.targets, mapped.controls + c)
                new_ops.append(
                    Operation(
                        mapped.gate, mapped.targets, mapped.controls + c, mapped.control_values + v
                    )
                )
            for new in new_ops:
                self._push_checked(new)
            return self
        if targets is None:
            raise ArgumentTypeError("controlled(gate, ...) needs targets")
        return self.append(operation, targets, controls, control_values)

    def measure(self, qubit: int, clbit: int | None = None) -> Circuit:
        """Measure ``qubit`` into classical bit ``clbit`` (default: the qubit's index).

        Terminal measurements (nothing acts on the qubit afterwards) only feed sampling;
        mid-circuit ones collapse the state during a run (seeded by ``apply(..., seed=)``).
        """
        clbit = as_qubit(qubit, self.n_qubits) if clbit is None else clbit
        if isinstance(clbit, bool) or not isinstance(clbit, (_abc.Integral, np.integer)):
            raise ArgumentTypeError(f"clbit must be a non-negative integer, got {clbit!r}")
        if clbit < 0:
            raise QubitIndexError(f"clbit must be non-negative, got {clbit}")
        self._append_op(Operation(Measure(int(clbit)), (qubit,)))
        return self

    def measure_all(self) -> Circuit:
        """Measure every qubit ``q`` into classical bit ``q``."""
        for q in range(self.n_qubits):
            self.measure(q, q)
        return self

    def reset(self, qubit: int) -> Circuit:
        """Reset ``qubit`` to ``|0>`` (collapses the state during a run)."""
        return self.append(Reset(), qubit)

    # -- noise channels and classical control ---------------------------------------------------
    def channel(self, channel: QuantumChannel, targets: int | Sequence[int]) -> Circuit:
        """A noise channel (``gq.channels.depolarizing(0.01)``, ...) on ``targets``."""
        if not isinstance(channel, QuantumChannel):
            raise ArgumentTypeError(
                f"channel() takes a noise channel (genqsim.channels), got {type(channel).__name__}"
            )
        return self.append(channel, targets)

    def kraus(
        self,
        matrices: Sequence[Any],
        targets: int | Sequence[int],
        *,
        name: str = "kraus",
        check_trace: bool = True,
    ) -> Circuit:
        """A channel given by its Kraus operators (numeric ones checked trace preserving)."""
        return self.append(channels.KrausChannel(matrices, name, check_trace), targets)

    def depolarizing(self, p: Any, *qubits: int) -> Circuit:
        """Depolarizing noise on one qubit or on a pair (:func:`genqsim.channels.depolarizing`)."""
        return self.append(channels.depolarizing(p, len(qubits)), qubits)

    def bit_flip(self, p: Any, q: int) -> Circuit:
        """Bit-flip noise on ``q``: X with probability ``p``."""
        return self.append(channels.bit_flip(p), q)

    def phase_flip(self, p: Any, q: int) -> Circuit:
        """Phase-flip noise on ``q``: Z with probability ``p``."""
        return self.append(channels.phase_flip(p), q)

    def bit_phase_flip(self, p: Any, q: int) -> Circuit:
        """Bit-phase-flip noise on ``q``: Y with probability ``p``."""
        return self.append(channels.bit_phase_flip(p), q)

    def pauli_channel(self, px: Any, py: Any, pz: Any, q: int) -> Circuit:
        """Pauli noise on ``q``: X, Y, Z with probabilities ``px``, ``py``, ``pz``."""
        return self.append(channels.pauli_channel(px, py, pz), q)

    def amplitude_damping(self, gamma: Any, q: int) -> Circuit:
        """Amplitude damping on ``q``: ``|1>`` decays to ``|0>`` with probability ``gamma``."""
        return self.append(channels.amplitude_damping(gamma), q)

    def generalized_amplitude_damping(self, p: Any, gamma: Any, q: int) -> Circuit:
        """Relaxation of ``q`` towards a thermal state: with weight ``p`` towards ``|0>``,
        with ``1 - p`` towards ``|1>``, at rate ``gamma``."""
        return self.append(channels.generalized_amplitude_damping(p, gamma), q)

    def phase_damping(self, lam: Any, q: int) -> Circuit:
        """Phase damping on ``q``: coherences shrink by ``sqrt(1 - lam)``."""
        return self.append(channels.phase_damping(lam), q)

    def thermal_relaxation(self, t1: Any, t2: Any, time: Any, q: int) -> Circuit:
        """T1/T2 relaxation of ``q`` over ``time`` (one time unit; ``t2 <= 2 t1``)."""
        return self.append(channels.thermal_relaxation(t1, t2, time), q)

    def reset_error(self, p0: Any, p1: Any, q: int) -> Circuit:
        """Reset noise on ``q``: to ``|0>`` with probability ``p0``, to ``|1>`` with ``p1``."""
        return self.append(channels.reset_error(p0, p1), q)

    def if_(
        self,
        clbits: int | Sequence[int],
        value: int | Sequence[int],
        body: Operation | Circuit,
        qubits: Sequence[int] | None = None,
        orelse: Operation | Circuit | None = None,
    ) -> Circuit:
        """Run ``body`` (an Operation, or a Circuit: on this circuit's qubits, or placed on
        ``qubits``) only when the classical bits ``clbits`` (``clbits[0]`` the lowest) hold
        ``value`` (one value, or any of a sequence of them), and ``orelse`` (placed the
        same way) when they hold none; bits of the register not yet written read 0. The
        bits are read once, before either branch runs, so a branch may measure into them.
        A bit outside the register (no measurement writes it, and the circuit declares
        fewer bits) is refused: the condition could never change.
        ``c.if_(0, 1, gq.Circuit(2).x(1), orelse=gq.Circuit(2).h(1))``."""
        return self._classically_controlled(clbits, value, body, qubits, Conditional, orelse)

    def switch_(
        self,
        clbits: int | Sequence[int],
        cases: Sequence[tuple[int | Sequence[int], Operation | Circuit]],
        qubits: Sequence[int] | None = None,
    ) -> Circuit:
        """Run the body of the first of ``cases`` (``(values, body)`` pairs; ``values`` one
        value or a sequence of them) whose values the classical bits ``clbits`` hold: Qiskit's
        ``switch``, OpenQASM 3's ``switch`` and if/else-if chains. The bits are read once,
        before any body runs, so bodies may measure into them. Bodies are placed as for
        :meth:`if_`. Two cases that run on every value are an if with an else; otherwise,
        where at most one body measures into the bits, each case is a conditional of its
        own (that body's last), and where more do, each later case is the else branch of
        the one before. ``c.switch_([0, 1], [(0, gq.Circuit(2).x(1)), ([1, 2],
        gq.Circuit(2).h(1))])``."""
        bits = as_clbits(clbits)
        taken: set[int] = set()
        chosen: list[tuple[list[int], Any]] = []
        for values, body in cases:
            items = list(values) if isinstance(values, Sequence | np.ndarray) else [values]
            fresh = [v for v in dict.fromkeys(items) if v not in taken]
            taken.update(fresh)
            if fresh and _acts(body):
                chosen.append((fresh, body))
        writing = [case for case in chosen if _measured_into(case[1], bits)]
        # where the cases run on every value of the bits, the last runs on whatever the
        # others leave: a plain else
        covered = sum(len(values) for values, _ in chosen) == 1 << len(bits)
        if len(writing) <= 1 and not (covered and len(chosen) == 2):
            # each case on its own, the one that writes the bits last
            for values, body in [case for case in chosen if case not in writing] + writing:
                self.if_(bits, values, body, qubits)
            return self
        width = self.n_qubits if qubits is None else len(qubits)
        rest: Any = chosen[-1][1] if covered else None  # the chain of the later cases
        for values, body in reversed(chosen[1 : len(chosen) - covered]):
            rest = Circuit(width, n_clbits=self.n_clbits).if_(bits, values, body, orelse=rest)
        return self.if_(bits, chosen[0][0], chosen[0][1], qubits, orelse=rest)

    def store(
        self,
        clbits: int | Sequence[int],
        value: int | Sequence[int] | Callable[[int], int],
        sources: int | Sequence[int] = (),
    ) -> Circuit:
        """Write ``value`` into the classical bits ``clbits`` (``clbits[0]`` the lowest)
        mid-circuit: a constant, or a function of the bits ``sources`` (a callable taking
        their value, or a table of ``2**len(sources)`` values), read when the store runs.
        Qiskit's ``store`` into bits and registers, OpenQASM 3's ``c[1] = !c[0];``.
        ``c.store(1, lambda v: 1 - v, sources=0)`` writes the negation of bit 0 into bit 1.
        The register grows to the bits named (:class:`~genqsim.circuit.store.Store`)."""
        self._push(Operation(Store(clbits, value, sources), ()))
        return self

    def while_(
        self,
        clbits: int | Sequence[int],
        values: int | Sequence[int],
        body: Operation | Circuit,
        qubits: Sequence[int] | None = None,
    ) -> Circuit:
        """Run ``body`` again and again while the classical bits ``clbits`` (``clbits[0]``
        the lowest) hold ``values`` (one value, or any of a sequence of them): a
        repeat-until-success loop whose body measures into those bits. ``body`` is placed as
        for :meth:`if_`. State vectors (``gq.counts``, ``gq.simulate``) run it shot by shot;
        a loop still running after ``genqsim.plan.calls.MAX_WHILE_ITERATIONS`` iterations of
        one shot raises :class:`~genqsim.errors.WhileLoopLimitError`. ``c.while_(0, 1,
        gq.Circuit(1).h(0).measure(0, 0))`` repeats until qubit 0 reads 0."""
        return self._classically_controlled(clbits, values, body, qubits, WhileLoop)

    def _classically_controlled(
        self,
        clbits: Any,
        value: Any,
        body: Any,
        qubits: Sequence[int] | None,
        kind: type[Conditional],
        orelse: Any = None,
    ) -> Circuit:
        gate, targets = conditional_operation(
            self.n_qubits, clbits, value, body, qubits, kind, orelse
        )
        outside = [b for b in gate.clbits if b >= self.n_clbits]
        if outside:
            raise QubitIndexError(
                f"classical bit(s) {', '.join(map(str, outside))} outside this circuit's "
                f"register of {self.n_clbits} bit(s): nothing writes them, so the condition "
                f"would always read 0; measure into them first (c.measure(qubit, "
                f"{outside[0]})) or declare the register (gq.Circuit({self.n_qubits}, "
                f"n_clbits={max(outside) + 1}))"
            )
        if kind is WhileLoop and not written_bits(gate.body) & set(gate.clbits):
            raise ArgumentValueError(
                f"the body of a while loop on classical bits {list(gate.clbits)} measures "
                "or stores into none of them, so the loop would never end once entered: "
                "measure into them in the body (c.measure(qubit, bit))"
            )
        self._append_op(Operation(gate, targets))
        return self

    @property
    def has_non_unitary(self) -> bool:
        """Whether the circuit holds measurements, resets, channels or conditionals (kept
        until the circuit grows: asked on every ``apply``, also of a long circuit whose plan
        is kept)."""
        return bool(
            self.derived("has_non_unitary", lambda: any(op.kind in NON_UNITARY for op in self._ops))
        )

    @property
    def runs_before_read_out(self) -> bool:
        """Whether anything but gates runs before the read-out: measurements that are not
        terminal (:meth:`split_terminal_measurements`), resets, conditionals, channels. Such
        a circuit's runs take histories of outcomes, and its statistics are means over them."""
        return self.split_terminal_measurements()[0].has_non_unitary

    @property
    def has_noise(self) -> bool:
        """Whether the circuit holds noise channels (also inside conditionals; kept until
        the circuit grows: choosing a method asks at every point of an optimiser's loop)."""
        return self._holds_kind(GateKind.CHANNEL)

    @property
    def has_loops(self) -> bool:
        """Whether the circuit holds while loops (also inside conditionals): they run shot
        by shot, so methods that keep every measurement branch refuse them."""
        return self._holds_kind(GateKind.LOOP)

    def _holds_kind(self, kind: GateKind) -> bool:
        """Whether an operation of ``kind`` is in the circuit, inside the bodies of
        conditionals and loops too (kept until the circuit grows)."""
        return bool(
            self.derived(
                ("holds", kind),
                lambda: any(
                    op.kind is kind
                    or (
                        isinstance(op.gate, Conditional)
                        and any(body._holds_kind(kind) for body in op.gate.bodies)
                    )
                    for op in self._ops
                ),
            )
        )

    def split_terminal_measurements(self) -> tuple[Circuit, list[tuple[int, int]]]:
        """``(circuit without its terminal measurements, [(qubit, clbit), ...])``.

        A measurement is terminal when no later operation (other than barriers and further
        measurements) touches its qubit and no later operation that stays (a conditional, a
        store, a measurement that is not terminal) reads or writes its classical bit. A
        circuit that measures nothing is returned as it is (every ``apply`` asks).
        """
        kept, terminal = self.derived("terminal measurements", self._terminal_measurements)
        if not terminal and len(kept) == self._count():
            return self, []
        rest = self._empty_like()
        items = self.instructions
        for i in kept:  # instructions of this circuit: their qubits are checked already
            rest._push_checked(items[i])
        return rest, list(terminal)

    def _terminal_measurements(self) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
        """The positions of the instructions that are not terminal measurements, and the
        terminal ``(qubit, clbit)`` pairs, in order (worked out once per circuit)."""
        items = self.instructions
        if not any(isinstance(op.gate, Measure) for op in items):
            return tuple(range(len(items))), ()
        busy_after: set[int] = set()
        used_after: set[int] = set()  # bits a later kept operation reads or writes
        keep: list[int] = []
        terminal: list[tuple[int, int]] = []
        for i in reversed(range(len(items))):
            op = items[i]
            gate = op.gate
            if (
                isinstance(gate, Measure)
                and op.targets[0] not in busy_after
                and gate.clbit not in used_after
            ):
                terminal.append((op.targets[0], gate.clbit))
                continue
            used_after.update(gate.bits_read, gate.bits_written)
            if op.kind is not GateKind.BARRIER:
                busy_after.update(op.qubits)
            keep.append(i)
        return tuple(reversed(keep)), tuple(reversed(terminal))

    def keep_measurements(self) -> Circuit:
        """Keep each terminal measurement where it stands, in place: a store of its bit into
        itself at the end reads the bit, so a run makes the measurement instead of leaving
        it to sampling (for runs that read the state after every measurement: Aer's saves,
        Cirq's moment steps, groups of shots). Returns this circuit."""
        for _, clbit in self.split_terminal_measurements()[1]:
            self.store(clbit, [0, 1], sources=clbit)
        return self

    def barrier(self, *qubits: Any) -> Circuit:
        """A barrier on ``qubits`` (all when none given): no effect on the state, but gates are
        never fused or reordered across it."""
        qs: tuple[Any, ...] = qubits or tuple(range(self.n_qubits))
        if len(qs) == 1 and not isinstance(qs[0], (_abc.Integral, np.integer)):
            qs = tuple(qs[0])
        qs = as_qubit_tuple(qs, self.n_qubits)
        return self.append(Barrier(len(qs)), tuple(sorted(qs)))

    def light_cone(self, qubits: int | Iterable[int]) -> LightCone:
        """The operations that can change what ``qubits`` show at the end, and the qubits
        they touch (:class:`~genqsim.circuit.lightcone.LightCone`; ``.compact()`` gives the
        cone as a circuit of its own on ``len(cone.qubits)`` qubits).

        >>> import genqsim as gq
        >>> c = gq.Circuit(4).h(0).cx(0, 1).cx(2, 3).x(3)
        >>> cone = c.light_cone([1])
        >>> cone.qubits, cone.indices
        ((0, 1), (0, 1))
        """
        from .lightcone import LightCone, light_cone

        qs = (qubits,) if isinstance(qubits, (int, np.integer)) else tuple(qubits)
        checked = as_qubit_tuple(qs, self.n_qubits)

        def build() -> LightCone:
            template = self._template()
            if template is None:
                return light_cone(self, checked)
            # bound from a circuit of the same structure: its cone (kept there, computed
            # once for a whole sweep) with this circuit's operations at the same places
            cone = template.light_cone(checked)
            sub = Circuit(self.n_qubits, n_clbits=cone.circuit.n_clbits)
            for i in cone.indices:
                sub._push_checked(self._ops[i])
            return LightCone(sub, cone.qubits, cone.indices)

        # kept on the circuit: expectations ask once per term and again per group
        return self.derived(("light cone", checked), build)

    # -- whole-circuit transformations ----------------------------------------------------------
    @property
    def parameters(self) -> tuple[sympy.Symbol, ...]:
        """Free parameters in order of first appearance (sorted by name within one gate)."""

        def collect() -> tuple[sympy.Symbol, ...]:
            seen: dict[sympy.Symbol, None] = {}
            for op in self._ops:
                symbols = op.gate.free_symbols
                for s in sorted(symbols, key=str) if len(symbols) > 1 else symbols:
                    seen.setdefault(s, None)
            return tuple(seen)

        return self.derived("parameters", collect)

    def bind(self, values: Mapping[Any, Any]) -> Circuit:
        """A new circuit with parameters replaced by values (numbers, SymPy expressions, or
        ``uncertainties`` values for ``numbers="uncertain"``).

        Keys are symbols or their names; unknown keys raise ``UnknownParameterError``. Python
        floats bind as floats (so numeric runs stay fast), SymPy values stay exact.
        """
        by_name = self.derived("parameters by name", lambda: {str(p): p for p in self.parameters})
        by_symbol = self.derived("parameters by symbol", lambda: {p: p for p in self.parameters})
        numeric = _machine_reals(values, by_symbol, by_name)
        if numeric is not None:
            return self._bind_numbers(numeric)
        mapping: dict[sympy.Symbol, Any] = {}
        for key, value in values.items():
            name = key if isinstance(key, str) else str(key)
            if name not in by_name:
                known = ", ".join(by_name) or "none"
                raise UnknownParameterError(
                    f"circuit has no parameter {name!r} (its parameters: {known})"
                )
            mapping[by_name[name]] = _bind_value(value, name)
        inexact = any(_holds_float(v) for v in mapping.values())
        ops = []
        for op in self._ops:
            bound = op.bind(mapping)
            if inexact and op.gate.free_symbols & set(mapping):
                bound = Operation(
                    _floated(bound.gate), bound.targets, bound.controls, bound.control_values
                )
            ops.append(bound)
        out = self._empty_like()
        for op in ops:
            out._append_op(op)
        out._bound_from = (self, len(self._ops))
        return out

    def _template(self) -> Circuit | None:
        """The circuit :meth:`bind` made this one from, while neither has grown since (the
        same operations at the same places, parameters in place of numbers); else ``None``."""
        source = self.__dict__.get("_bound_from")
        if source is None or not (len(source[0]._ops) == source[1] == len(self._ops)):
            return None
        return source[0]

    def bound_point(self) -> tuple[Circuit, dict[sympy.Symbol, float]] | None:
        """``(template, values)`` for a circuit :meth:`bind` made from machine reals, while
        neither circuit has grown: a run may use the template's plan at these values (a
        sweep of one point) instead of planning this circuit; ``None`` otherwise."""
        template = self._template()
        point = self.__dict__.get("_bound_point")
        return None if template is None or point is None else (template, point)

    def _bind_numbers(self, numeric: dict[sympy.Symbol, float]) -> Circuit:
        """:meth:`bind` for machine real values, the fast path of parameter sweeps: a gate's
        parameter that is a symbol takes its value, an expression is evaluated by a compiled
        function (made once per expression); other gates go the general way. The qubits of
        every operation were checked when this circuit was built, so they are not again."""
        out = self._empty_like()
        keys = set(numeric)
        general: dict[sympy.Symbol, Any] | None = None
        for op in self._ops:
            symbols = op.gate.free_symbols
            if not symbols & keys:
                out._push_checked(op)
                continue
            gate = evaluated_gate(op.gate, numeric) if symbols <= keys else None
            if gate is None:
                if general is None:
                    general = {k: _bind_value(v, str(k)) for k, v in numeric.items()}
                gate = _floated(op.gate.bind(general))
            out._push_checked(new_operation(gate, op.targets, op.controls, op.control_values))
        out._bound_from = (self, len(self._ops))
        out._bound_point = numeric
        return out

    def inverse(self) -> Circuit:
        """The adjoint circuit: inverse gates in reverse order."""
        if self.has_non_unitary:
            raise ArgumentTypeError(
                "a circuit with measurements, resets, noise channels, conditionals or "
                "classical stores has no inverse"
            )
        return Circuit(self.n_qubits, [op.inverse() for op in reversed(self.instructions)])

    def compose(self, other: Circuit, qubits: Sequence[int] | None = None) -> Circuit:
        """A new circuit: this one followed by ``other`` (its qubit ``i`` on ``qubits[i]``)."""
        if not isinstance(other, Circuit):
            raise ArgumentTypeError(f"can only compose with a Circuit, got {type(other).__name__}")
        if qubits is None:
            if other.n_qubits != self.n_qubits:
                raise QubitCountMismatchError(
                    f"cannot compose a {other.n_qubits}-qubit circuit onto {self.n_qubits} qubits "
                    "without a qubit map (compose(other, qubits=[...]))"
                )
            qubit_map: tuple[int, ...] = tuple(range(self.n_qubits))
        else:
            qubit_map = as_qubit_tuple(qubits, self.n_qubits, "qubit")
            if len(qubit_map) != other.n_qubits:
                raise QubitCountMismatchError(
                    f"qubit map has {len(qubit_map)} entries for a {other.n_qubits}-qubit circuit"
                )
        out = Circuit(
            self.n_qubits,
            [*self.instructions, *(op.remapped(qubit_map) for op in other.instructions)],
            n_clbits=max(self.n_clbits, other.n_clbits),
        )
        return out.mark_scratch(self.scratch_clbits | other.scratch_clbits)

    def __add__(self, other: Circuit) -> Circuit:
        return self.compose(other)

    def control(
        self, n_controls: int = 1, control_values: int | Sequence[int] | None = None
    ) -> Circuit:
        """A new circuit on ``n_controls + n_qubits`` qubits: this one on qubits
        ``n_controls ..`` under controls on qubits ``0 .. n_controls-1`` (the order of
        Qiskit's ``QuantumCircuit.control``); ``control_values`` as in :meth:`append`
        (default: all ones). Every gate gains the controls, so the circuit must be unitary."""
        if isinstance(n_controls, bool) or not isinstance(n_controls, (_abc.Integral, np.integer)):
            raise ArgumentTypeError(f"n_controls must be an integer >= 1, got {n_controls!r}")
        if n_controls < 1:
            raise ArgumentValueError(f"n_controls must be an integer >= 1, got {n_controls}")
        k = int(n_controls)
        out = Circuit(k + self.n_qubits)
        return out.controlled(self, range(k, k + self.n_qubits), range(k), control_values)

    def power(self, exponent: Any) -> Circuit:
        """This circuit raised to ``exponent``: an integer repeats it (a negative one repeats
        its inverse; 0 gives the empty circuit), as Qiskit's ``QuantumCircuit.power``; any
        other real number gives one unitary gate, the principal power of the circuit's
        matrix (Qiskit's ``matrix_power=True``), for numeric circuits of at most
        :data:`POWER_MAX_QUBITS` qubits."""
        numeric = isinstance(exponent, (_abc.Real, np.integer, np.floating)) or (
            is_sympy(exponent) and exponent.is_number and exponent.is_real
        )
        if isinstance(exponent, bool) or not numeric:
            raise ArgumentTypeError(f"a circuit power is a real number, got {exponent!r}")
        value = float(exponent)
        if not math.isfinite(value):
            raise NonFiniteError(f"a circuit power must be finite, got {exponent!r}")
        if self.has_non_unitary:
            raise ArgumentTypeError(
                "a circuit with measurements, resets, noise channels, conditionals or "
                "classical stores has no power"
            )
        if value.is_integer():
            step = self if value >= 0 else self.inverse()
            return Circuit(self.n_qubits, list(step.instructions) * abs(int(value)))
        if self.parameters:
            names = ", ".join(sorted(map(str, self.parameters)))
            raise UnboundParameterError(
                f"a fractional power needs the circuit's matrix: bind its parameters ({names})"
            )
        if self.n_qubits > POWER_MAX_QUBITS:
            raise ArgumentValueError(
                f"a fractional power of a {self.n_qubits}-qubit circuit needs its "
                f"{2**self.n_qubits}-square matrix; at most {POWER_MAX_QUBITS} qubits"
            )
        from ..linalg.unitary_power import unitary_power

        matrix = unitary_power(_dense_unitary(self), value)
        return Circuit(self.n_qubits).unitary(matrix, range(self.n_qubits), name="unitary")

    def copy(self) -> Circuit:
        """An independent copy (operations are immutable and shared)."""
        out = self._empty_like()
        for op in self.instructions:
            out._append_op(op)
        return out

    def _empty_like(self) -> Circuit:
        """An empty circuit on the same qubits and classical bits (its scratch bits too)."""
        return Circuit(self.n_qubits, n_clbits=self.n_clbits).mark_scratch(self.scratch_clbits)

    @property
    def result_clbits(self) -> tuple[int, ...]:
        """The classical bits counts and per-shot memory report, in order: every bit but
        the scratch bits (:meth:`mark_scratch`)."""
        return tuple(b for b in range(self.n_clbits) if b not in self.scratch_clbits)

    def mark_scratch(self, clbits: Iterable[int]) -> Circuit:
        """Mark the classical bits ``clbits`` (added to those marked before) as working
        memory: they run as any bit, but counts and per-shot memory leave them out (the
        readers of OpenQASM 3 files and Qiskit circuits keep classical variables in such bits
        where a later measurement would overwrite the bits their values read). Returns this
        circuit."""
        given = list(clbits)
        wrong = [b for b in given if isinstance(b, bool) or not isinstance(b, _abc.Integral)]
        if wrong:
            raise ArgumentTypeError(f"classical bits are integers, got {wrong!r}")
        marked = frozenset(int(b) for b in given)
        if any(b < 0 for b in marked):
            raise ArgumentValueError(f"classical bits are non-negative, got {sorted(marked)}")
        if marked:
            self.scratch_clbits = self.scratch_clbits | marked
            self.n_clbits = max(self.n_clbits, max(marked) + 1)
        return self

    # -- inspection ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._ops)

    def __iter__(self) -> Iterator[Operation]:
        return iter(self._ops)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Circuit)
            and self.n_qubits == other.n_qubits
            and self.n_clbits == other.n_clbits
            and self.scratch_clbits == other.scratch_clbits
            and self._ops == other._ops
        )

    __hash__ = None  # type: ignore[assignment]  # circuits are mutable

    def count_ops(self) -> dict[str, int]:
        """How many instructions of each kind, controlled ones named with a ``c`` prefix per
        control (``cx``, ``ccx``), most frequent first; a composite (a gate an OpenQASM file
        defines) counts once, by its name."""
        counts = Counter("c" * len(op.controls) + op.gate.name for op in self.instructions)
        return dict(counts.most_common())

    @property
    def size(self) -> int:
        """Number of operations, barriers excluded."""
        return sum(1 for op in self._ops if op.kind is not GateKind.BARRIER)

    def depth(self) -> int:
        """Length of the longest chain of operations sharing qubits (barriers count zero but
        synchronise their qubits)."""
        level = [0] * self.n_qubits
        for op in self._ops:
            qs = op.qubits
            if not qs:
                continue
            top = max(level[q] for q in qs)
            new = top if op.kind is GateKind.BARRIER else top + 1
            for q in qs:
                level[q] = new
        return max(level, default=0)

    def __str__(self) -> str:
        from .drawing import draw

        return draw(self)

    def draw(
        self,
        output: str = "text",
        *,
        ax: Any = None,
        filename: str | None = None,
        fold: int | None = None,
        standalone: bool = True,
    ) -> Any:
        """The circuit drawn: ``"text"`` (the string ``print(circuit)`` shows), ``"mpl"``
        (a matplotlib figure, on ``ax`` when given; ``fold`` caps the columns drawn) or
        ``"latex"`` (quantikz source: a whole document, or with ``standalone=False`` the
        ``quantikz`` environment alone; ``fold`` wraps it into rows of that many columns).
        ``filename`` also writes the figure or the source there."""
        if output not in ("text", "mpl", "latex"):
            raise ArgumentValueError(f"output must be 'text', 'mpl' or 'latex', got {output!r}")
        if output == "mpl":
            from .drawing_mpl import draw_mpl

            return draw_mpl(self, ax, filename=filename, fold=fold)
        if ax is not None:
            raise ArgumentValueError(f"ax= is for output='mpl', not {output!r}")
        if output == "text":
            if fold is not None:
                raise ArgumentValueError("fold= is for output='mpl' or 'latex', not 'text'")
            from .drawing import draw

            drawing = draw(self)
        else:
            from .drawing_latex import draw_latex

            drawing = draw_latex(self, standalone=standalone, fold=fold)
        if filename is not None:
            with open(filename, "w", encoding="utf-8") as handle:
                handle.write(drawing + ("" if drawing.endswith("\n") else "\n"))
        return drawing

    def _repr_html_(self) -> str:
        """Jupyter shows the text drawing (monospace), headed by the circuit's size."""
        from html import escape

        from .drawing import draw

        head = f"{self.n_qubits} qubits, {len(self)} operations"
        if self.parameters:
            head += ", parameters " + ", ".join(sorted(str(p) for p in self.parameters))
        body = draw(self) if len(self) <= DISPLAY_MAX_OPERATIONS else "(too long to draw here)"
        return f"<div><b>Circuit</b>: {escape(head)}<pre>{escape(body)}</pre></div>"

    def __repr__(self) -> str:
        return f"<Circuit: {self.n_qubits} qubits, {self.size} operations, depth {self.depth()}>"


def _holds_float(value: Any) -> bool:
    """Whether a bound value is, or contains, a SymPy float (so the gates it enters are
    evaluated to Python numbers)."""
    if not is_sympy(value):
        return False
    import sympy

    return isinstance(value, sympy.Float) or value.has(sympy.Float)


def _machine_reals(
    values: Mapping[Any, Any],
    by_symbol: Mapping[sympy.Symbol, sympy.Symbol],
    by_name: Mapping[str, sympy.Symbol],
) -> dict[sympy.Symbol, float] | None:
    """``values`` by symbol as Python floats when every key is a parameter (the symbol, or
    its name) and every value a finite real machine number; ``None`` otherwise (the general
    path checks and explains)."""
    out = {}
    for key, value in values.items():
        symbol = by_name.get(key) if isinstance(key, str) else by_symbol.get(key)
        if symbol is None and not isinstance(key, str):
            symbol = by_name.get(str(key))  # equal in name only (other assumptions)
        if symbol is None or isinstance(value, (bool, np.bool_)):
            return None
        if not isinstance(value, (int, float, np.integer, np.floating)):
            return None
        number = float(value)
        if not math.isfinite(number):
            return None
        out[symbol] = number
    return out


@functools.lru_cache(maxsize=4096)
def _compiled(expr: sympy.Expr) -> tuple[tuple[sympy.Symbol, ...], Callable[..., Any]]:
    """A real expression of parameters as a Python function of its symbols (in name
    order), compiled once per expression."""
    import sympy

    symbols = tuple(sorted(expr.free_symbols, key=str))
    return symbols, sympy.lambdify(symbols, expr, modules="math")


def evaluated_gate(gate: Gate, numeric: Mapping[sympy.Symbol, float]) -> Gate | None:
    """A table gate or Pauli rotation with its parameters evaluated at ``numeric`` (every
    free symbol of it is there); ``None`` for other gates or a value that is not real."""
    if not isinstance(gate, (NamedGate, PauliRotation)):
        return None
    params = []
    for p in gate.params:
        if not is_sympy(p):
            params.append(p)
        elif p.is_Symbol:
            params.append(numeric[p])
        else:
            symbols, fn = _compiled(p)
            try:
                value = fn(*(numeric[x] for x in symbols))
            except (TypeError, ValueError, ZeroDivisionError, OverflowError):
                return None  # complex intermediate values, poles: the general path decides
            if not isinstance(value, (int, float)) or not math.isfinite(value):
                return None
            params.append(float(value))
    return with_parameters(gate, params)


def _floated(gate: Gate) -> Gate:
    """Replace closed parameter expressions with Python numbers (fast numeric runs)."""
    if not isinstance(gate, (NamedGate, PauliRotation)):
        return gate
    new_params = []
    changed = False
    for p in gate.params:
        if is_sympy(p) and not p.free_symbols:
            new_params.append(python_number(p))
            changed = True
        else:
            new_params.append(p)
    return (with_parameters(gate, new_params) or gate) if changed else gate


def conditional_operation(
    n_qubits: int,
    clbits: Any,
    value: Any,
    body: Any,
    qubits: Sequence[int] | None,
    kind: type[Conditional] = Conditional,
    orelse: Any = None,
) -> tuple[Conditional, tuple[int, ...]]:
    """The gate and targets of ``Circuit.if_`` (or ``while_``, ``kind`` :class:`WhileLoop`):
    the body and the else branch (Operations or Circuits, placed on ``qubits`` when given)
    compacted onto the qubits they touch."""
    method = f"{kind.keyword}_()"
    if qubits is not None:
        qubits = as_qubit_tuple(qubits, n_qubits, "qubit")
    branches = [_placed_branch(body, n_qubits, qubits, method, "conditional body")]
    if orelse is not None:
        branches.append(_placed_branch(orelse, n_qubits, qubits, method, "else branch"))
    touched = sorted({q for ops in branches for op in ops for q in op.qubits})
    if not touched and not any(op.gate.bits_written for ops in branches for op in ops):
        raise ArgumentValueError(
            "a conditional body must act on at least one qubit, or store into a classical bit"
        )
    position = [0] * n_qubits
    for i, q in enumerate(touched):
        position[q] = i
    local = [Circuit(len(touched), [op.remapped(position) for op in ops]) for ops in branches]
    return kind(clbits, value, *local), tuple(touched)


def _placed_branch(
    body: Any, n_qubits: int, qubits: tuple[int, ...] | None, method: str, what: str
) -> list[Operation]:
    """A branch's operations on the circuit's qubits (barriers left out)."""
    if isinstance(body, Operation):
        body = Circuit(n_qubits, [body])
    if not isinstance(body, Circuit):
        raise ArgumentTypeError(
            f"{method} runs an Operation or a Circuit, got {type(body).__name__}"
        )
    if qubits is None:
        if body.n_qubits != n_qubits:
            raise ArgumentValueError(
                f"the {what} has {body.n_qubits} qubits but the circuit has "
                f"{n_qubits}; place it with qubits=[...]"
            )
        placement = tuple(range(n_qubits))
    else:
        placement = qubits
        if len(placement) != body.n_qubits:
            raise ArgumentValueError(
                f"qubits= has {len(placement)} entries for a {body.n_qubits}-qubit {what}"
            )
    return [op.remapped(placement) for op in body.operations if op.kind is not GateKind.BARRIER]


def _acts(body: Operation | Circuit) -> bool:
    """Whether a branch's body does anything (acts on a qubit other than by barriers)."""
    ops = [body] if isinstance(body, Operation) else getattr(body, "operations", None)
    if ops is None:  # not a body: if_ says what it takes
        return True
    return any(op.kind is not GateKind.BARRIER for op in ops)


def _measured_into(body: Operation | Circuit, bits: Sequence[int]) -> bool:
    """Whether a branch's body measures or stores into any of ``bits``."""
    if isinstance(body, Operation):
        return not body.gate.bits_written.isdisjoint(bits)
    return isinstance(body, Circuit) and not written_bits(body).isdisjoint(bits)


POWER_MAX_QUBITS = 10
"""The widest circuit :meth:`Circuit.power` takes a fractional power of (its dense matrix)."""


def _dense_unitary(circuit: Circuit) -> np.ndarray:
    """The ``complex128`` matrix of a bound unitary circuit (qubit 0 the low bit)."""
    numbers = get_number_system("complex128")
    return operations_matrix(circuit.operations, range(circuit.n_qubits), numbers)
