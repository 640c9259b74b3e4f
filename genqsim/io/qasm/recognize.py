"""Gate definitions that are table gates: a file's own ``gate dcx a, b { ... }``, or the
``mcx``/``mcphase`` definitions Qiskit writes for its multi-controlled gates, run as the one
table gate (on its controlled kernel) when their unitary equals it.

A definition is a candidate by its name alone (a table name such as ``rzz``, or a
multi-controlled family such as ``mcx``, with or without the ``_<n>`` suffix Qiskit gives
distinct definitions of one name). It is recognised when its expansion on its own qubits
acts as the table gate does on :data:`CHECK_STATES` random states, to :data:`TOLERANCE`:
once for every parameter value where its body is built from its parameters (compared at
random values, :class:`TableMatch`), else per parameter values (so a body that ignores its
parameter, as Qiskit's ``mcphase(param0)`` does, is recognised only at the value it was
written for). A candidate that acts otherwise keeps its expansion: the file's definition is
what runs. Free symbols (an ``input`` parameter) take random values for the comparison.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...circuit.circuit import Operation, new_operation
from ...circuit.composite import Composite
from ...circuit.gates import GATE_SPECS, NON_UNITARY, GateKind, NamedGate, qasm_names
from ...errors import GenqsimError
from ...linalg.generic import apply_matrix
from .kept import DECISIONS, keep

MULTI_CONTROLLED: dict[str, str] = {
    # family name (as Qiskit and OpenQASM libraries write it) -> the table gate controlled
    "mcx": "x", "mct": "x", "mcx_gray": "x", "mcx_recursive": "x", "mcx_vchain": "x",
    "mcx_noancilla": "x", "c3x": "x", "c4x": "x", "cccx": "x", "ccccx": "x",
    "mcy": "y", "mcz": "z", "ccz": "z", "mcphase": "p", "mcp": "p", "mcu1": "p",
    "mcrx": "rx", "mcry": "ry", "mcrz": "rz", "cs": "s", "csdg": "sdg", "ct": "t",
    "ctdg": "tdg", "c3sx": "sx", "c3sqrtx": "sx", "mcsx": "sx", "ccy": "y", "cch": "h",
}  # fmt: skip
"""Multi-controlled gates by family name: the last declared qubit is the target, the others
its controls (ancilla-using variants: the controls, the target, then the ancillas)."""

ANCILLA_VARIANTS = ("mcx_recursive", "mcx_vchain")
"""Families whose definitions may take ancillas after the target (one for the recursive
form, ``controls - 2`` for the v-chain): a layout is recognised only where the definition
leaves every ancilla as it found it, whatever it held."""

CHECK_STATES = 2
"""Random states a candidate's expansion and the table gate are compared on."""

TOLERANCE = 1e-12
"""Largest 2-norm of the difference of the two images of a unit state that counts as equal."""

CHECK_MAX_QUBITS = 20
"""Wider definitions are not compared (each comparison runs ``2**n`` amplitudes)."""

_SEED = 20260427
_NUMBERED = re.compile(r"_\d+$")


@functools.cache
def _table_names() -> dict[str, Any]:
    """The OpenQASM names of the gate table (built once: the table does not change)."""
    return qasm_names()


def family(name: str) -> str:
    """``name`` without the ``_<n>`` suffix Qiskit adds to distinct definitions of a name."""
    stripped = _NUMBERED.sub("", name)
    return stripped if stripped in MULTI_CONTROLLED or stripped in _table_names() else name


@functools.lru_cache(maxsize=4096)
def is_candidate(name: str) -> bool:
    """Whether a definition named ``name`` may stand for a table gate (checked when called)."""
    base = family(name)
    return base in MULTI_CONTROLLED or base in _table_names()


def table_operations(
    name: str, params: Sequence[Any], n_qubits: int, expansion: Sequence[Operation]
) -> tuple[Operation, ...] | None:
    """The table gate, as one operation on qubits ``0 .. n_qubits - 1``, that the definition
    ``name`` called with ``params`` stands for, where its ``expansion`` (on those qubits)
    acts as that gate does; else ``None``."""
    layout = _matching_layout(name, params, n_qubits, expansion)
    if layout is None:
        return None
    return candidates(family(name), tuple(params), n_qubits)[layout]


def _matching_layout(
    name: str, params: Sequence[Any], n_qubits: int, expansion: Sequence[Operation]
) -> int | None:
    """Which of the candidates of ``name`` the ``expansion`` acts as, if any (remembered for
    the process: a file read again, or files of one generator, compare each body once)."""
    if not 0 < n_qubits <= CHECK_MAX_QUBITS:
        return None
    try:
        key = (family(name), expansion_params_key(params), n_qubits, id(expansion))
        kept = _BY_IDENTITY.get(key)
        if kept is not None and kept[0] is expansion:
            return kept[1]
        layout = _remembered_layout(family(name), tuple(params), n_qubits, tuple(expansion))
    except TypeError:  # an unhashable parameter: compare without remembering
        return _compared_layout(family(name), tuple(params), n_qubits, tuple(expansion))
    if len(_BY_IDENTITY) >= REMEMBERED_COMPARISONS:
        _BY_IDENTITY.clear()
    _BY_IDENTITY[key] = (expansion, layout)
    return layout


def expansion_params_key(params: Sequence[Any]) -> tuple:
    """Parameter values as a key that tells ``1`` from ``1.0`` (an exact value from a
    float one)."""
    return (tuple(map(type, params)), *params)


_BY_IDENTITY: dict[tuple, tuple[Sequence[Operation], int | None]] = {}
"""The layouts of expansions compared before, by the expansion's identity (kept with it):
a body kept for the process (:data:`.kept.FIXED_BODIES`) is compared by a lookup,
without hashing its operations."""


def _compared_layout(
    base: str, params: tuple, n_qubits: int, expansion: tuple[Operation, ...]
) -> int | None:
    for layout, candidate in enumerate(_candidates(base, params, n_qubits)):
        if _same_action(candidate, expansion, n_qubits):
            return layout
    return None


REMEMBERED_COMPARISONS = 1024
"""Comparisons of a body with its candidates kept for the process (the oldest dropped)."""

_remembered_layout = functools.lru_cache(maxsize=REMEMBERED_COMPARISONS)(_compared_layout)


_UNDECIDED = -1


class TableMatch:
    """Whether a parametrised definition is a table gate at every parameter value: decided
    once, by comparing its body with the gate at :data:`CHECK_STATES` random values of its
    parameters (a body built from its parameters, as ``gate rzz(t) a, b { cx a, b; rz(t)
    b; cx a, b; }``). Then each call is the table gate at once, without expanding the body;
    otherwise (a body written for one value, as Qiskit's ``mcphase(param0)``) each call's
    expansion is compared with the gate at its own values (:func:`table_operations`)."""

    __slots__ = ("identity", "layout", "n_params", "n_qubits", "name")

    def __init__(self, name: str, n_params: int, n_qubits: int) -> None:
        self.name, self.n_params, self.n_qubits = name, n_params, n_qubits
        self.layout = _UNDECIDED if n_params else None
        """The matching candidate's index for every value, ``None`` where there is none."""
        self.identity: tuple | None = None
        """The definition's identity (see :mod:`.kept`): the decision is then kept for the
        process."""

    def operations(
        self, params: Sequence[Any], expand: Callable[[list[Any]], Sequence[Operation]]
    ) -> tuple[Operation, ...] | None:
        """The table operation for a call with ``params`` if the definition is the table gate
        at every value; ``expand(values)`` gives its body at other values, for the check."""
        if self.layout == _UNDECIDED:
            if self.identity is None:
                self.layout = self._decide(expand)
            else:
                key = (self.identity, family(self.name))  # the identity has the counts
                self.layout = DECISIONS.get(key, _UNDECIDED)
                if self.layout == _UNDECIDED:
                    self.layout = self._decide(expand)
                    keep(DECISIONS, key, self.layout)
        if self.layout is None:
            return None
        return candidates(family(self.name), tuple(params), self.n_qubits)[self.layout]

    def _decide(self, expand: Callable[[list[Any]], Sequence[Operation]]) -> int | None:
        found: set[int | None] = set()
        for values in _check_values(self.n_params):
            try:
                expansion = expand(values)
            except (GenqsimError, ArithmeticError, ValueError):
                return None  # the body is reported when a call expands it
            if not all(isinstance(op, Operation) for op in expansion):
                return None  # a global phase of the body's own: not a table gate alone
            found.add(_matching_layout(self.name, values, self.n_qubits, expansion))
        return found.pop() if len(found) == 1 else None


@functools.cache
def _check_values(n_params: int) -> tuple[list[float], ...]:
    """The :data:`CHECK_STATES` random parameter values a parametrised candidate is compared
    at (the same ones every time: a generator is costly to make)."""
    rng = np.random.default_rng(_SEED + 1)
    return tuple(
        [float(v) for v in rng.uniform(-np.pi, np.pi, n_params)] for _ in range(CHECK_STATES)
    )


def candidates(base: str, params: tuple, n_qubits: int) -> list[tuple[Operation, ...]]:
    """:func:`_candidates`, remembered for the process where the values are hashable (a
    file calls its recognised gates many times with the same values; the operations are
    immutable)."""
    try:
        return _remembered_candidates(base, params, n_qubits)
    except TypeError:  # an unhashable value
        return _candidates(base, params, n_qubits)


def _candidates(base: str, params: tuple, n_qubits: int) -> list[tuple[Operation, ...]]:
    """The table operations ``base(params)`` may mean on ``n_qubits`` qubits."""
    named = _table_names().get(base)
    if named is not None:
        if named.n_params != len(params) or named.n_qubits != n_qubits:
            return []
        if len(params) not in GATE_SPECS[named.gate].n_params:
            return []
        k = named.n_controls
        return [_controlled(named.gate, params, tuple(range(k)), tuple(range(k, n_qubits)))]
    gate = MULTI_CONTROLLED.get(base)
    if gate is None or len(params) not in GATE_SPECS[gate].n_params:
        return []
    if GATE_SPECS[gate].n_qubits != 1:
        return []
    layouts = [n_qubits - 1]  # controls, then the target
    if base in ANCILLA_VARIANTS:
        layouts += [n_qubits - 2, (n_qubits + 1) // 2]  # one ancilla; a v-chain's k - 2
    out: list[tuple[Operation, ...]] = []
    for k in dict.fromkeys(layouts):
        if 0 < k < n_qubits:
            out.append(_controlled(gate, params, tuple(range(k)), (k,)))
    return out


_remembered_candidates = functools.lru_cache(maxsize=REMEMBERED_COMPARISONS)(_candidates)


def _controlled(gate: str, params: tuple, controls: tuple, targets: tuple) -> tuple[Operation]:
    return (new_operation(NamedGate(gate, *params), targets, controls, (1,) * len(controls)),)


def _symbols(ops: Sequence[Operation]) -> list[Any]:
    """The free symbols of operations (an ``input`` parameter, a symbol of the circuit)."""
    found: set[Any] = set()
    for op in ops:
        found |= set(op.gate.free_symbols)
    return sorted(found, key=str)


def _same_action(a: Sequence[Operation], b: Sequence[Operation], n_qubits: int) -> bool:
    """Whether the operation lists ``a`` and ``b`` map :data:`CHECK_STATES` random unit states
    alike, to :data:`TOLERANCE` (complex128); free symbols take random values in
    ``[-pi, pi]``, new ones for each state (two trigonometric polynomials that agree at
    random points are equal)."""
    rng = np.random.default_rng(_SEED)
    symbols = _symbols([*a, *b])
    for _ in range(CHECK_STATES):
        values = {s: float(rng.uniform(-np.pi, np.pi)) for s in symbols}
        v = rng.normal(size=1 << n_qubits) + 1j * rng.normal(size=1 << n_qubits)
        v /= np.linalg.norm(v)
        try:
            x = _applied([op.bind(values) if values else op for op in a], v, n_qubits)
            y = _applied([op.bind(values) if values else op for op in b], v, n_qubits)
        except (GenqsimError, ArithmeticError, TypeError, ValueError):
            return False  # a parameter without a complex value: not compared
        if not np.linalg.norm(x - y) <= TOLERANCE:
            return False
    return True


def _applied(ops: Sequence[Operation], vector: np.ndarray, n_qubits: int) -> np.ndarray:
    """``vector`` (qubit ``q`` is bit ``q`` of the index) after the gates ``ops``, each as its
    dense complex128 matrix (:func:`~genqsim.linalg.generic.apply_matrix`): a few small
    gates on a few qubits, where planning a simulator run would cost more than running it."""
    psi = np.array(vector, dtype=np.complex128)
    for op in ops:
        if op.gate.kind is not GateKind.BARRIER:
            matrix = np.asarray(op.gate.matrix("complex128"), dtype=np.complex128)
            apply_matrix(psi, matrix, op.targets, op.controls, op.control_values)
    return psi


class CallRecords:
    """What the calls of one gate definition record, per expansion of its body (kept by
    identity, with the expansion): the table gate the expansion was recognised as, or else
    one :class:`~genqsim.circuit.composite.Composite` named after the definition that
    holds it (one per parameter values, shared by every call with them)."""

    __slots__ = ("_made", "_tables", "n_qubits", "name")

    def __init__(self, name: str, n_qubits: int) -> None:
        self.name, self.n_qubits = name, n_qubits
        self._made: dict[Any, tuple[tuple[Any, ...], tuple[Any, ...]]] = {}
        self._tables: dict[int, tuple[Any, ...]] = {}

    def recognised(self, ops: tuple[Operation, ...]) -> None:
        """Note that ``ops`` is the table gate a call's body was recognised as."""
        self._tables[id(ops)] = ops

    def instruction(self, ops: tuple[Any, ...], params: Sequence[Any]) -> tuple[Any, ...]:
        """What a call whose expansion is ``ops`` records, on the gate's own qubits: ``ops``
        itself where it is a recognised table gate, holds more than operations (a global
        phase of the OpenQASM 3 reader's), resets a qubit (a composite is unitary) or the
        gate acts on no qubits (a global phase at most), else one composite operation."""
        key: Any = (id(ops), *expansion_params_key(params)) if params else id(ops)
        try:  # a body that ignores its parameters is one expansion for several values
            kept = self._made.get(key)
        except TypeError:  # an unhashable value: made again
            key, kept = None, None
        if kept is not None and kept[0] is ops:
            return kept[1]
        if (
            id(ops) in self._tables
            or not self.n_qubits
            or not all(isinstance(op, Operation) for op in ops)
            or any(op.kind in NON_UNITARY for op in ops)  # a reset: the operations in place
        ):
            made = ops
        else:
            n = self.n_qubits
            gate = Composite.trusted(self.name, tuple(params), n, ops)
            made = (new_operation(gate, tuple(range(n))),)
        if key is not None:
            self._made[key] = (ops, made)
        return made
