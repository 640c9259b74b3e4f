"""The gate library: gates as recipes that build their matrices in any number system.

A :class:`Gate` knows its structure — ``DIAGONAL`` (Z, S, T, Rz, P, RZZ, ...), ``PERMUTATION``
(X, Y, SWAP, iSWAP: a permutation of basis states with phases) or ``DENSE`` (H, Rx, U, ...) — so
backends can apply it with the cheapest primitive. Its entries are built by the state's number
system: ``H`` holds ``1/sqrt(2)`` exactly under SymPy and a rounded float under complex64.

Matrix convention: for a gate on ``targets``, ``targets[0]`` is the least-significant bit of the
matrix index (Qiskit's convention), so ``CX`` with control 0 and target 1 equals the matrix
``unitary(CX4, targets=[1, 0])``.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import (
    ArgumentTypeError,
    MatrixShapeError,
    NonFiniteError,
    NotUnitaryError,
    NumberTypeError,
    UnknownGateError,
)
from ..numbers import Number, NumberSystem, get_number_system, to_python_complex
from ..support.lazysympy import is_sympy, is_sympy_matrix, same_value


class GateKind(enum.Enum):
    """How a gate acts on basis states; decides which backend primitive applies it."""

    DIAGONAL = "diagonal"
    PERMUTATION = "permutation"
    DENSE = "dense"
    BARRIER = "barrier"
    MEASURE = "measure"
    RESET = "reset"
    CHANNEL = "channel"
    CONDITIONAL = "conditional"
    LOOP = "loop"
    STORE = "store"
    COMPOSITE = "composite"


Builder = Callable[..., Any]


@dataclass(frozen=True)
class CirqForm:
    """How Cirq writes a gate: the ``cirq`` class (an ``EigenGate`` such as ``XPowGate``, or
    ``IdentityGate``), its exponent (``None``: the gate's parameter divided by pi) and its
    global shift. ``rz(t)`` is ``ZPowGate(exponent=t/pi, global_shift=-0.5)``."""

    gate: str
    exponent: float | None = 1.0
    global_shift: float = 0.0


@dataclass(frozen=True)
class GateSpec:
    """A row of the gate table: name, arity, parameter counts, structure, how to build its
    entries, its inverse, and its names in OpenQASM 2.0 (qelib1), Qiskit and Cirq (``None``
    where that format has no such gate).

    ``build(numbers, *params)`` returns the diagonal (DIAGONAL), ``(permutation, phases)``
    (PERMUTATION, phases ``None`` when all are one) or the rows of the matrix (DENSE).
    ``inverse(params)`` returns ``(name, params)`` of the inverse gate.
    """

    name: str
    n_qubits: int
    n_params: tuple[int, ...]
    kind: GateKind
    build: Builder
    inverse: Callable[[tuple], tuple[str, tuple]]
    label: str = ""
    qasm: str | None = None
    qiskit: str | None = None
    cirq: CirqForm | None = None


@dataclass(frozen=True)
class InverseIs:
    """Inverse rule: the gate ``name`` with the same parameters (negated when ``negate``)."""

    name: str
    negate: bool = False

    def __call__(self, params: tuple) -> tuple[str, tuple]:
        return self.name, tuple(-x for x in params) if self.negate else params


GATE_SPECS: dict[str, GateSpec] = {}


def _spec(
    name: str,
    n_qubits: int,
    n_params: tuple[int, ...],
    kind: GateKind,
    inverse: Callable[[tuple], tuple[str, tuple]] | None = None,
    label: str = "",
    qasm: str | None = None,
    qiskit: str | None = None,
    cirq: CirqForm | None = None,
) -> Callable[[Builder], Builder]:
    def register(build: Builder) -> Builder:
        GATE_SPECS[name] = GateSpec(
            name, n_qubits, n_params, kind, build, inverse or InverseIs(name), label or name,
            qasm, qiskit, cirq,
        )  # fmt: skip
        return build

    return register


def _negated(name: str) -> InverseIs:
    return InverseIs(name, negate=True)


def _named(name: str) -> InverseIs:
    return InverseIs(name)


def _eigen(gate: str, exponent: float | None = 1.0, shift: float = 0.0) -> CirqForm:
    return CirqForm(gate, exponent, shift)


# -- one-qubit gates ----------------------------------------------------------------------------
D, P, M = GateKind.DIAGONAL, GateKind.PERMUTATION, GateKind.DENSE


@_spec(
    "id",
    1,
    (0,),
    D,
    label="I",
    qasm="id",
    qiskit="IGate",
    cirq=CirqForm("IdentityGate"),
)
def _id(ns: NumberSystem):
    return [ns.one, ns.one]


@_spec(
    "x",
    1,
    (0,),
    P,
    label="X",
    qasm="x",
    qiskit="XGate",
    cirq=_eigen("XPowGate"),
)
def _x(ns: NumberSystem):
    return [1, 0], None


@_spec(
    "y",
    1,
    (0,),
    P,
    label="Y",
    qasm="y",
    qiskit="YGate",
    cirq=_eigen("YPowGate"),
)
def _y(ns: NumberSystem):
    return [1, 0], [ns.I, -ns.I]


@_spec(
    "z",
    1,
    (0,),
    D,
    label="Z",
    qasm="z",
    qiskit="ZGate",
    cirq=_eigen("ZPowGate"),
)
def _z(ns: NumberSystem):
    return [ns.one, -ns.one]


@_spec(
    "h",
    1,
    (0,),
    M,
    label="H",
    qasm="h",
    qiskit="HGate",
    cirq=_eigen("HPowGate"),
)
def _h(ns: NumberSystem):
    s = ns.one / ns.sqrt(2 * ns.one)
    return [[s, s], [s, -s]]


@_spec(
    "s",
    1,
    (0,),
    D,
    inverse=_named("sdg"),
    label="S",
    qasm="s",
    qiskit="SGate",
    cirq=_eigen("ZPowGate", 0.5),
)
def _s(ns: NumberSystem):
    return [ns.one, ns.I]


@_spec(
    "sdg",
    1,
    (0,),
    D,
    inverse=_named("s"),
    label="S†",
    qasm="sdg",
    qiskit="SdgGate",
    cirq=_eigen("ZPowGate", -0.5),
)
def _sdg(ns: NumberSystem):
    return [ns.one, -ns.I]


@_spec(
    "t",
    1,
    (0,),
    D,
    inverse=_named("tdg"),
    label="T",
    qasm="t",
    qiskit="TGate",
    cirq=_eigen("ZPowGate", 0.25),
)
def _t(ns: NumberSystem):
    return [ns.one, ns.expi(ns.pi / 4)]


@_spec(
    "tdg",
    1,
    (0,),
    D,
    inverse=_named("t"),
    label="T†",
    qasm="tdg",
    qiskit="TdgGate",
    cirq=_eigen("ZPowGate", -0.25),
)
def _tdg(ns: NumberSystem):
    return [ns.one, ns.expi(-ns.pi / 4)]


@_spec(
    "sx",
    1,
    (0,),
    M,
    inverse=_named("sxdg"),
    label="√X",
    qasm="sx",
    qiskit="SXGate",
    cirq=_eigen("XPowGate", 0.5),
)
def _sx(ns: NumberSystem):
    a, b = (ns.one + ns.I) / 2, (ns.one - ns.I) / 2
    return [[a, b], [b, a]]


@_spec(
    "sxdg",
    1,
    (0,),
    M,
    inverse=_named("sx"),
    label="√X†",
    qasm="sxdg",
    qiskit="SXdgGate",
    cirq=_eigen("XPowGate", -0.5),
)
def _sxdg(ns: NumberSystem):
    a, b = (ns.one - ns.I) / 2, (ns.one + ns.I) / 2
    return [[a, b], [b, a]]


@_spec(
    "rx",
    1,
    (1,),
    M,
    inverse=_negated("rx"),
    label="Rx",
    qasm="rx",
    qiskit="RXGate",
    cirq=_eigen("XPowGate", None, -0.5),
)
def _rx(ns: NumberSystem, theta):
    c, s = ns.cos(theta / 2), ns.sin(theta / 2)
    return [[c, -ns.I * s], [-ns.I * s, c]]


@_spec(
    "ry",
    1,
    (1,),
    M,
    inverse=_negated("ry"),
    label="Ry",
    qasm="ry",
    qiskit="RYGate",
    cirq=_eigen("YPowGate", None, -0.5),
)
def _ry(ns: NumberSystem, theta):
    c, s = ns.cos(theta / 2), ns.sin(theta / 2)
    return [[c, -s], [s, c]]


@_spec(
    "rz",
    1,
    (1,),
    D,
    inverse=_negated("rz"),
    label="Rz",
    qasm="rz",
    qiskit="RZGate",
    cirq=_eigen("ZPowGate", None, -0.5),
)
def _rz(ns: NumberSystem, theta):
    return [ns.expi(-theta / 2), ns.expi(theta / 2)]


@_spec(
    "p",
    1,
    (1,),
    D,
    inverse=_negated("p"),
    label="P",
    qasm="p",
    qiskit="PhaseGate",
    cirq=_eigen("ZPowGate", None),
)
def _p(ns: NumberSystem, lam):
    return [ns.one, ns.expi(lam)]


def _u_inverse(p: tuple) -> tuple[str, tuple]:
    theta, phi, lam, *gamma = p
    return "u", (-theta, -lam, -phi, *(-g for g in gamma))


@_spec(
    "u",
    1,
    (3, 4),
    M,
    inverse=_u_inverse,
    label="U",
    qasm="u",
    qiskit="UGate",
    cirq=None,
)
def _u(ns: NumberSystem, theta, phi, lam, gamma=0):
    c, s = ns.cos(theta / 2), ns.sin(theta / 2)
    g = ns.expi(gamma) if gamma != 0 else ns.one
    return [
        [g * c, -g * ns.expi(lam) * s],
        [g * ns.expi(phi) * s, g * ns.expi(phi + lam) * c],
    ]


# -- two-qubit gates ----------------------------------------------------------------------------


@_spec(
    "swap",
    2,
    (0,),
    P,
    label="SWAP",
    qasm="swap",
    qiskit="SwapGate",
    cirq=_eigen("SwapPowGate"),
)
def _swap(ns: NumberSystem):
    return [0, 2, 1, 3], None


@_spec(
    "iswap",
    2,
    (0,),
    P,
    inverse=_named("iswapdg"),
    label="iSWAP",
    qasm="iswap",
    qiskit="iSwapGate",
    cirq=_eigen("ISwapPowGate"),
)
def _iswap(ns: NumberSystem):
    return [0, 2, 1, 3], [ns.one, ns.I, ns.I, ns.one]


@_spec(
    "iswapdg",
    2,
    (0,),
    P,
    inverse=_named("iswap"),
    label="iSWAP†",
    qasm=None,
    qiskit=None,
    cirq=_eigen("ISwapPowGate", -1.0),
)
def _iswapdg(ns: NumberSystem):
    return [0, 2, 1, 3], [ns.one, -ns.I, -ns.I, ns.one]


@_spec(
    "rzz",
    2,
    (1,),
    D,
    inverse=_negated("rzz"),
    label="RZZ",
    qasm="rzz",
    qiskit="RZZGate",
    cirq=_eigen("ZZPowGate", None, -0.5),
)
def _rzz(ns: NumberSystem, theta):
    a, b = ns.expi(-theta / 2), ns.expi(theta / 2)
    return [a, b, b, a]


def pauli_action(pauli: str, numbers: NumberSystem) -> tuple[list[int], list[Number]]:
    """``P|j> = phase[j] |perm[j]>`` for a Pauli string; ``pauli[i]`` acts on bit ``i`` of j."""
    size = 1 << len(pauli)
    perm, phases = [], []
    for j in range(size):
        out, phase = j, numbers.one
        for bit, letter in enumerate(pauli):
            b = j >> bit & 1
            if letter in "XY":
                out ^= 1 << bit
            if letter == "Y":
                phase = phase * (numbers.I if b == 0 else -numbers.I)
            elif letter == "Z" and b:
                phase = -phase
        perm.append(out)
        phases.append(phase)
    return perm, phases


def pauli_rotation_matrix(pauli: str, theta: Number, ns: NumberSystem) -> list[list[Number]]:
    """Rows of ``exp(-i theta P / 2) = cos(theta/2) I - i sin(theta/2) P``."""
    size = 1 << len(pauli)
    c, s = ns.cos(theta / 2), ns.sin(theta / 2)
    perm, phases = pauli_action(pauli, ns)
    rows = [[ns.zero] * size for _ in range(size)]
    for j in range(size):
        rows[j][j] = rows[j][j] + c
        rows[perm[j]][j] = rows[perm[j]][j] - ns.I * s * phases[j]
    return rows


@_spec(
    "rxx",
    2,
    (1,),
    M,
    inverse=_negated("rxx"),
    label="RXX",
    qasm="rxx",
    qiskit="RXXGate",
    cirq=_eigen("XXPowGate", None, -0.5),
)
def _rxx(ns: NumberSystem, theta):
    return pauli_rotation_matrix("XX", theta, ns)


@_spec(
    "ryy",
    2,
    (1,),
    M,
    inverse=_negated("ryy"),
    label="RYY",
    qasm="ryy",
    qiskit="RYYGate",
    cirq=_eigen("YYPowGate", None, -0.5),
)
def _ryy(ns: NumberSystem, theta):
    return pauli_rotation_matrix("YY", theta, ns)


# -- names in other formats ----------------------------------------------------------------------

QASM_CONTROLLED: dict[tuple[str, int], tuple[str, int]] = {
    ("x", 1): ("cx", 0), ("x", 2): ("ccx", 0), ("x", 3): ("c3x", 0), ("x", 4): ("c4x", 0),
    ("y", 1): ("cy", 0), ("z", 1): ("cz", 0), ("h", 1): ("ch", 0), ("sx", 1): ("csx", 0),
    ("sx", 3): ("c3sqrtx", 0), ("p", 1): ("cp", 1), ("rx", 1): ("crx", 1),
    ("ry", 1): ("cry", 1), ("rz", 1): ("crz", 1), ("u", 1): ("cu", 4), ("swap", 1): ("cswap", 0),
}  # fmt: skip
"""(gate, number of controls) -> (qelib1 name, parameters it takes) of controlled gates."""

QASM_ALIASES: dict[str, str] = {"U": "u", "u3": "u", "u1": "p", "CX": "cx", "cu1": "cp"}
"""Other OpenQASM 2.0 spellings of table names."""


@dataclass(frozen=True)
class QasmName:
    """What an OpenQASM 2.0 gate name means: a library gate under ``n_controls`` controls,
    written with ``n_params`` parameters."""

    gate: str
    n_controls: int
    n_params: int

    @property
    def n_qubits(self) -> int:
        return GATE_SPECS[self.gate].n_qubits + self.n_controls


def qasm_names() -> dict[str, QasmName]:
    """Every OpenQASM 2.0 name the gate table knows (plain, controlled and aliases)."""
    out = {
        spec.qasm: QasmName(spec.name, 0, min(spec.n_params))
        for spec in GATE_SPECS.values()
        if spec.qasm is not None
    }
    for (name, k), (qasm, n_params) in QASM_CONTROLLED.items():
        out[qasm] = QasmName(name, k, n_params)
    for alias, target in QASM_ALIASES.items():
        out[alias] = out[target]
    return out


# -- gates ----------------------------------------------------------------------------------


def has_infinity(expr: Any) -> bool:
    """Whether a SymPy expression is or holds an infinity or NaN (``log(0)`` is ``zoo``)."""
    import sympy

    return bool(expr.has(sympy.zoo, sympy.oo, -sympy.oo, sympy.nan))


def _as_param(value: Any) -> Any:
    """Accept numbers and SymPy expressions; a string names a real parameter."""
    if value.__class__ is float and math.isfinite(value):  # the common case, first
        return value
    if isinstance(value, str):
        import sympy

        return sympy.Symbol(value, real=True)
    if isinstance(value, (bool, np.bool_)) or value is None:
        raise NumberTypeError(f"a gate parameter must be a number or symbol, got {value!r}")
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (int, float, complex)) or is_sympy(value):
        if isinstance(value, (float, complex)):
            to_python_complex(value)  # raises NonFiniteError for NaN / inf
        elif is_sympy(value) and not value.is_finite and has_infinity(value):
            raise NonFiniteError(f"a gate parameter must be finite, got {value}")
        return value
    if _is_number_with_more(value):
        return value
    raise NumberTypeError(
        f"a gate parameter must be a number, a SymPy expression or a name, got {value!r}"
    )


def _is_number_with_more(value: Any) -> bool:
    """A value some registered number system carries as a parameter directly (a dual number,
    an ``uncertainties`` value, a complex ball, an ``mpmath`` number, ...): the number
    systems declare their parameter types when they register."""
    from ..numbers import is_parameter_value

    return is_parameter_value(value)


def _free_symbols(values: Sequence[Any]) -> frozenset:
    out: set = set()
    for v in values:
        if is_sympy(v):
            out |= v.free_symbols
    return frozenset(out)


def _substitute(value: Any, mapping: Mapping) -> Any:
    """``value`` with symbols replaced: by SymPy values symbolically, by ``uncertainties``
    values (angles with an error) through that package's own arithmetic."""
    if not (is_sympy(value) and value.free_symbols & set(mapping)):
        return value
    if all(is_sympy(v) for s, v in mapping.items() if s in value.free_symbols):
        return value.xreplace(mapping)
    from ..numbers.uncertain import evaluate_real

    return evaluate_real(value, mapping)


class Gate:
    """A gate: a recipe for a ``2**k x 2**k`` unitary in any number system."""

    name: str
    n_qubits: int
    params: tuple
    kind: GateKind

    @property
    def label(self) -> str:
        """Short name for drawings."""
        return self.name

    @property
    def free_symbols(self) -> frozenset:
        """SymPy symbols the gate depends on (found once: a gate is an immutable value, and
        planning asks each gate for them on every run)."""
        found = self.__dict__.get("_symbols")
        if found is None:
            found = self.__dict__["_symbols"] = self._find_symbols()
        return found

    def _find_symbols(self) -> frozenset:
        """The symbols in the gate's parameters."""
        return _free_symbols(self.params)

    @property
    def bits_read(self) -> frozenset[int]:
        """The classical bits the gate reads (conditions, stores): none for a gate."""
        return frozenset()

    @property
    def bits_written(self) -> frozenset[int]:
        """The classical bits the gate writes (measurements, stores): none for a gate."""
        return frozenset()

    def diagonal(self, numbers: NumberSystem) -> np.ndarray:
        """The diagonal of a DIAGONAL gate."""
        raise ArgumentTypeError(f"{self.name} is not diagonal")

    def permutation(self, numbers: NumberSystem) -> tuple[np.ndarray, np.ndarray | None]:
        """``(perm, phases)`` of a PERMUTATION gate: ``|j> -> phases[j] |perm[j]>``."""
        raise ArgumentTypeError(f"{self.name} is not a permutation")

    def matrix(self, numbers: NumberSystem | str = "complex128") -> np.ndarray:
        """The dense matrix in the given numbers (built from the diagonal or permutation)."""
        ns = get_number_system(numbers)
        size = 1 << self.n_qubits
        if self.kind is GateKind.DIAGONAL:
            out = ns.array([[ns.zero] * size for _ in range(size)])
            diag = self.diagonal(ns)
            for j in range(size):
                out[j, j] = diag[j]
            return out
        if self.kind is GateKind.PERMUTATION:
            out = ns.array([[ns.zero] * size for _ in range(size)])
            perm, phases = self.permutation(ns)
            for j in range(size):
                out[perm[j], j] = ns.one if phases is None else phases[j]
            return out
        raise NotImplementedError

    def inverse(self) -> Gate:
        raise NotImplementedError

    def bind(self, mapping: Mapping) -> Gate:
        """The gate with symbols replaced by values from ``mapping``."""
        raise NotImplementedError

    def _key(self) -> tuple:
        return (self.name, self.n_qubits, self.kind)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Gate) or self._key() != other._key():
            return False
        return len(self.params) == len(other.params) and all(
            same_value(a, b) for a, b in zip(self.params, other.params)
        )

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        args = ", ".join(str(p) for p in self.params)
        return f"{self.name}({args})" if args else self.name


MACHINE_MEMO_SIZE = 4096
"""Gate arrays in machine numbers remembered across runs (all forgotten when it fills)."""
_MACHINE_MEMO: dict[tuple, Any] = {}


_PARAMETERLESS: dict[str, NamedGate] = {}
"""The library gates without parameters, by name, as :meth:`NamedGate.checked` builds them."""


class NamedGate(Gate):
    """A gate from the library table (``h``, ``rz``, ``iswap``, ...)."""

    def __init__(self, name: str, *params: Any) -> None:
        key = name if name in GATE_SPECS else name.lower()
        if key not in GATE_SPECS:
            raise UnknownGateError(
                f"unknown gate {name!r}; known gates: {', '.join(sorted(GATE_SPECS))}"
            )
        spec = GATE_SPECS[key]
        if len(params) not in spec.n_params:
            expected = " or ".join(str(k) for k in spec.n_params)
            raise ArgumentTypeError(
                f"gate {key!r} takes {expected} parameter(s), got {len(params)}"
            )
        self._fill(spec, tuple(map(_as_param, params)))

    @classmethod
    def checked(cls, name: str, params: tuple[Any, ...]) -> NamedGate:
        """The library gate ``name`` (lower case) with ``params`` known to be valid (their
        count right, each a finite Python number or a SymPy expression), built without checking
        again: for readers that check as they read, such as the OpenQASM parser. A gate
        without parameters is built once per process (a gate is an immutable value)."""
        if not params and cls is NamedGate:
            gate = _PARAMETERLESS.get(name)
            if gate is None:
                gate = _PARAMETERLESS[name] = cls.__new__(cls)
                gate._fill(GATE_SPECS[name], ())
            return gate
        gate = cls.__new__(cls)
        gate._fill(GATE_SPECS[name], params)
        return gate

    def _fill(self, spec: GateSpec, params: tuple[Any, ...]) -> None:
        self.spec = spec
        self.name = spec.name
        self.n_qubits = spec.n_qubits
        self.params = params
        self.kind = spec.kind

    @property
    def label(self) -> str:
        if not self.params:
            return self.spec.label
        return f"{self.spec.label}({', '.join(_short(p) for p in self.params)})"

    def _built(self, numbers: NumberSystem):
        return self.spec.build(numbers, *(numbers.real_scalar(p) for p in self.params))

    def _memo(self, what: str, numbers: NumberSystem, make: Callable[[], Any]) -> Any:
        """``make()`` once per gate, numbers and ``what`` for machine numbers (angles such as
        ``pi/2`` are evaluated once, not on every run); each call gets its own copy of the
        arrays. Other systems build anew (their numbers may carry symbols or depend on
        context)."""
        if numbers.dtype.kind != "c" or self.free_symbols:
            return make()
        key = (what, numbers.name, self.name, self.params)
        try:
            value = _MACHINE_MEMO.get(key)
        except TypeError:  # an unhashable parameter: nothing to remember it by
            return make()
        if value is None:
            value = make()
            if len(_MACHINE_MEMO) >= MACHINE_MEMO_SIZE:
                # forget all at once: dropping the oldest entry on every insert made each
                # insert scan the holes it left at the dict's front (microseconds a gate
                # where a loop binds new angles each time, which never hit)
                _MACHINE_MEMO.clear()
            _MACHINE_MEMO[key] = value
        if isinstance(value, tuple):
            return tuple(None if a is None else a.copy() for a in value)
        return value.copy()

    def diagonal(self, numbers: NumberSystem) -> np.ndarray:
        if self.kind is not GateKind.DIAGONAL:
            return super().diagonal(numbers)
        return self._memo("diagonal", numbers, lambda: numbers.array(self._built(numbers)))

    def permutation(self, numbers: NumberSystem):
        if self.kind is not GateKind.PERMUTATION:
            return super().permutation(numbers)

        def make() -> tuple[np.ndarray, np.ndarray | None]:
            perm, phases = self._built(numbers)
            return (
                np.asarray(perm, dtype=np.int64),
                None if phases is None else numbers.array(phases),
            )

        return self._memo("permutation", numbers, make)

    def matrix(self, numbers: NumberSystem | str = "complex128") -> np.ndarray:
        ns = get_number_system(numbers)
        if self.kind is GateKind.DENSE:
            return self._memo("matrix", ns, lambda: ns.array(self._built(ns)))
        return self._memo("matrix", ns, lambda: super(NamedGate, self).matrix(ns))

    def inverse(self) -> Gate:
        name, params = self.spec.inverse(self.params)
        return NamedGate(name, *params)

    def __reduce__(self) -> tuple[Any, tuple]:
        return NamedGate, (self.name, *self.params)  # the table row is looked up by name

    def bind(self, mapping: Mapping) -> Gate:
        return NamedGate(self.name, *(_substitute(p, mapping) for p in self.params))


class PauliRotation(Gate):
    """``exp(-i theta P / 2)`` for a Pauli string ``P`` (``pauli[i]`` acts on ``targets[i]``).

    All-Z strings are diagonal, so ``PauliRotation("ZZZ", t)`` costs one phase pass.
    """

    def __init__(self, pauli: str, theta: Any) -> None:
        pauli = pauli.upper()
        if not pauli or set(pauli) - set("IXYZ"):
            raise UnknownGateError(f"a Pauli string holds only I, X, Y, Z; got {pauli!r}")
        self.pauli = pauli
        self.name = "pauli_rotation"
        self.n_qubits = len(pauli)
        self.params = (_as_param(theta),)
        self.kind = GateKind.DIAGONAL if set(pauli) <= set("IZ") else GateKind.DENSE

    def _key(self) -> tuple:
        return (*super()._key(), self.pauli)

    @property
    def label(self) -> str:
        return f"exp(-i{_short(self.params[0])}/2·{self.pauli})"

    def diagonal(self, numbers: NumberSystem) -> np.ndarray:
        if self.kind is not GateKind.DIAGONAL:
            return super().diagonal(numbers)
        theta = numbers.real_scalar(self.params[0])
        _, signs = pauli_action(self.pauli, numbers)
        plus, minus = numbers.expi(-theta / 2), numbers.expi(theta / 2)
        return numbers.array([plus if s == numbers.one else minus for s in signs])

    def matrix(self, numbers: NumberSystem | str = "complex128") -> np.ndarray:
        ns = get_number_system(numbers)
        if self.kind is GateKind.DENSE:
            return ns.array(pauli_rotation_matrix(self.pauli, ns.real_scalar(self.params[0]), ns))
        return super().matrix(ns)

    def inverse(self) -> Gate:
        return PauliRotation(self.pauli, -self.params[0])

    def bind(self, mapping: Mapping) -> Gate:
        return PauliRotation(self.pauli, _substitute(self.params[0], mapping))

    def __repr__(self) -> str:
        return f"pauli_rotation({self.pauli!r}, {self.params[0]})"


class MatrixGate(Gate):
    """Any ``2**k x 2**k`` matrix, numeric or symbolic; its structure is detected from its
    exact zeros, so a user-given diagonal or permutation matrix runs on the cheap primitives."""

    def __init__(self, matrix: Any, name: str = "unitary", check_unitary: bool = True) -> None:
        entries = _matrix_entries(matrix)
        rows = operator_size(entries.shape, "a gate matrix")
        if check_unitary:
            _check_unitary(entries)
        self.entries = entries
        self.name = name
        self.n_qubits = rows.bit_length() - 1
        self.params = ()
        self.kind = _classify(entries)

    def _find_symbols(self) -> frozenset:
        if self.entries.dtype != object:
            return frozenset()  # numeric entries hold no parameters
        return _free_symbols(list(self.entries.reshape(-1)))

    @property
    def label(self) -> str:
        return "U" if self.name == "unitary" else self.name

    def diagonal(self, numbers: NumberSystem) -> np.ndarray:
        if self.kind is not GateKind.DIAGONAL:
            return super().diagonal(numbers)
        return numbers.array(np.diagonal(self.entries).copy())

    def permutation(self, numbers: NumberSystem):
        if self.kind is not GateKind.PERMUTATION:
            return super().permutation(numbers)
        size = self.entries.shape[0]
        perm = np.empty(size, dtype=np.int64)
        phases = []
        for j in range(size):
            i = next(r for r in range(size) if not _is_exact_zero(self.entries[r, j]))
            perm[j] = i
            phases.append(self.entries[i, j])
        if all(_is_exact_one(p) for p in phases):
            return perm, None
        return perm, numbers.array(np.array(phases, dtype=object))

    def matrix(self, numbers: NumberSystem | str = "complex128") -> np.ndarray:
        return get_number_system(numbers).array(self.entries)

    def inverse(self) -> Gate:
        conj = np.vectorize(_conj_entry, otypes=[self.entries.dtype])(self.entries)
        return MatrixGate(conj.T.copy(), name=_dagger_name(self.name), check_unitary=False)

    def bind(self, mapping: Mapping) -> Gate:
        if not self.free_symbols & set(mapping):
            return self
        new = np.vectorize(lambda v: _substitute(v, mapping), otypes=[object])(self.entries)
        return MatrixGate(new, name=self.name, check_unitary=False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MatrixGate) or self.entries.shape != other.entries.shape:
            return False
        pairs = zip(self.entries.reshape(-1), other.entries.reshape(-1))
        return all(same_value(a, b) for a, b in pairs)

    def __hash__(self) -> int:
        return hash((self.name, self.entries.shape))

    def __repr__(self) -> str:
        return f"MatrixGate({self.n_qubits} qubits, {self.kind.value})"


class Barrier(Gate):
    """A marker: does nothing, but keeps later optimisations from moving gates across it."""

    def __init__(self, n_qubits: int) -> None:
        self.name = "barrier"
        self.n_qubits = n_qubits
        self.params = ()
        self.kind = GateKind.BARRIER

    def inverse(self) -> Gate:
        return self

    def bind(self, mapping: Mapping) -> Gate:
        return self


class Measure(Gate):
    """Measurement of one qubit in the computational basis into classical bit ``clbit``.

    Not unitary: a run collapses the state onto the outcome (seeded), except for terminal
    measurements, which are left to sampling.
    """

    def __init__(self, clbit: int) -> None:
        self.name = "measure"
        self.n_qubits = 1
        self.params = ()
        self.kind = GateKind.MEASURE
        self.clbit = int(clbit)

    def _key(self) -> tuple:
        return (*super()._key(), self.clbit)

    @property
    def bits_written(self) -> frozenset[int]:
        return frozenset((self.clbit,))

    @property
    def label(self) -> str:
        return f"M→c{self.clbit}"

    def inverse(self) -> Gate:
        raise ArgumentTypeError(
            "a measurement has no inverse; remove measurements before inverting"
        )

    def bind(self, mapping: Mapping) -> Gate:
        return self

    def __repr__(self) -> str:
        return f"measure(->c{self.clbit})"


class Reset(Gate):
    """Reset of one qubit to ``|0>`` (measure, then flip on outcome 1)."""

    def __init__(self) -> None:
        self.name = "reset"
        self.n_qubits = 1
        self.params = ()
        self.kind = GateKind.RESET

    @property
    def label(self) -> str:
        return "|0>"

    def inverse(self) -> Gate:
        raise ArgumentTypeError("a reset has no inverse")

    def bind(self, mapping: Mapping) -> Gate:
        return self


NON_UNITARY = (
    GateKind.MEASURE, GateKind.RESET, GateKind.CHANNEL, GateKind.CONDITIONAL, GateKind.LOOP,
    GateKind.STORE,
)  # fmt: skip
"""Kinds that are not unitary gates: measurements and resets collapse the state, channels are
noise (a Kraus branch per trajectory, exact on density matrices), conditionals and while
loops depend on classical bits, and stores write them; all of them stop fusion and have no
inverse."""


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _dagger_name(name: str) -> str:
    return name[:-1] if name.endswith("†") else name + "†"


def _conj_entry(value: Any) -> Any:
    if is_sympy(value):
        return value.conjugate()
    return np.conj(value)


def _is_exact_zero(value: Any) -> bool:
    if is_sympy(value):
        return value.is_zero is True
    return bool(value == 0)


def _is_exact_one(value: Any) -> bool:
    if is_sympy(value):
        return value == 1
    return bool(value == 1)


def _matrix_entries(matrix: Any) -> np.ndarray:
    """Validate a user matrix and return it as a 2-D array (complex, or object if symbolic)."""
    if is_sympy_matrix(matrix):
        matrix = np.array(matrix.tolist(), dtype=object)
    arr = np.asarray(matrix)
    if arr.ndim != 2:
        raise MatrixShapeError(f"a gate matrix must be 2-dimensional, got shape {arr.shape}")
    if arr.dtype.kind == "b":
        raise ArgumentTypeError("a boolean array is not a gate matrix; convert it explicitly")
    if arr.dtype.kind in "iufc":
        if not np.isfinite(arr).all():
            raise NonFiniteError("gate matrix entries must be finite (found NaN or inf)")
        return arr.astype(np.complex128)
    if arr.dtype.kind != "O":
        raise ArgumentTypeError(f"a gate matrix must hold numbers, got dtype {arr.dtype}")
    out = np.empty(arr.shape, dtype=object)
    for idx, v in np.ndenumerate(arr):
        v = _as_param(v)
        if is_sympy(v) and not _finite_expression(v):
            raise NonFiniteError(f"gate matrix entry {idx} is not finite: {v}")
        out[idx] = v
    return out


def _finite_expression(value: Any) -> bool:
    import sympy

    return not value.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo)


def operator_size(shape: tuple[int, ...], what: str) -> int:
    """The dimension of a ``2**k x 2**k`` operator (``k >= 1``), or ``MatrixShapeError``
    naming ``what``."""
    rows, cols = shape
    if rows != cols or rows < 2 or rows & (rows - 1):
        raise MatrixShapeError(f"{what} must be 2**k x 2**k with k >= 1, got shape {shape}")
    return int(rows)


def _check_unitary(entries: np.ndarray, atol: float = 1e-8) -> None:
    """Raise ``NotUnitaryError`` when a numeric matrix is not unitary (symbolic ones pass)."""
    if entries.dtype == object:
        if _free_symbols(list(entries.reshape(-1))):
            return
        numeric: np.ndarray = np.array([to_python_complex(v) for v in entries.reshape(-1)]).reshape(
            entries.shape
        )
    else:
        numeric = entries
    deviation = np.max(np.abs(numeric.conj().T @ numeric - np.eye(numeric.shape[0])))
    if deviation > atol:
        raise NotUnitaryError(
            f"matrix is not unitary: max |U^dagger U - I| = {deviation:.3g} > {atol:g}; "
            "pass check_unitary=False to apply it anyway"
        )


def _classify(entries: np.ndarray) -> GateKind:
    """The structure of a matrix from its exact zeros (numbers compared in one array
    operation; symbolic entries one by one)."""
    if entries.dtype.kind in "biufc":
        nonzero = entries != 0
    else:
        nonzero = np.vectorize(lambda v: not _is_exact_zero(v), otypes=[bool])(entries)
    if not np.any(nonzero & ~np.eye(entries.shape[0], dtype=bool)):
        return GateKind.DIAGONAL
    if np.all(nonzero.sum(axis=0) == 1) and np.all(nonzero.sum(axis=1) == 1):
        return GateKind.PERMUTATION
    return GateKind.DENSE


# -- public constructors ---------------------------------------------------------------------


def gate(name: str, *params: Any) -> NamedGate:
    """A library gate by name: ``gate("rz", theta)``."""
    return NamedGate(name, *params)


def gate_names() -> list[str]:
    """Names of the library gates."""
    return sorted(GATE_SPECS)


def with_parameters(gate: Gate, params: Sequence[Any]) -> Gate | None:
    """The same named gate or Pauli rotation with other parameter values (each a number,
    an expression, or an ``uncertainties`` value); ``None`` for gates whose parameters are
    not angles of the gate library (matrices, channels)."""
    if isinstance(gate, PauliRotation):
        return PauliRotation(gate.pauli, params[0])
    if isinstance(gate, NamedGate):
        return NamedGate(gate.name, *params)
    return None


_GENERATORS: dict[str, tuple[tuple[float, str], ...]] = {
    "rx": ((0.5, "X"),),
    "ry": ((0.5, "Y"),),
    "rz": ((0.5, "Z"),),
    "rxx": ((0.5, "XX"),),
    "ryy": ((0.5, "YY"),),
    "rzz": ((0.5, "ZZ"),),
    "p": ((-0.5, "I"), (0.5, "Z")),  # P(l) = exp(i l/2) Rz(l)
}


def pauli_generator(gate: Gate) -> tuple[tuple[float, str], ...] | None:
    """``G`` as Pauli terms ``((c, pauli), ...)`` (``pauli[i]`` on the gate's target ``i``)
    for the one-angle gates with ``dU/dtheta = -i G U``: the rotations ``exp(-i theta P/2)``
    and the phase gate. The adjoint sweep reads a gradient term off such a gate as
    ``2 Im <lambda| G |psi>`` with no derivative matrix or scratch state. ``None`` for other
    gates."""
    if isinstance(gate, PauliRotation):
        return ((0.5, gate.pauli),)
    if isinstance(gate, NamedGate):
        return _GENERATORS.get(gate.name)
    return None


VARIABLE_WIDTH_NAMES = frozenset({"unitary", "pauli_rotation", "barrier"})
"""Names of gates whose width is not fixed by the name (a matrix, a Pauli rotation)."""


def gate_width(name: str) -> int | None:
    """The number of qubits a gate of this name acts on (a leading ``c`` per control:
    ``"ccx"`` is 3), ``0`` for the names of :data:`VARIABLE_WIDTH_NAMES`, ``None`` for a
    name no gate of the table has."""
    if name in VARIABLE_WIDTH_NAMES:
        return 0
    controls = 0
    while name not in GATE_SPECS and name.startswith("c"):
        name, controls = name[1:], controls + 1
    spec = GATE_SPECS.get(name)
    return None if spec is None else spec.n_qubits + controls
