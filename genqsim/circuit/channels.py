"""Noise channels: completely positive maps ``rho -> sum_k K_k rho K_k^dagger`` as circuit
operations, built in any number system.

A channel is a :class:`~genqsim.gates.Gate` of kind ``CHANNEL`` whose parameters (an error
probability, a damping rate, T1 and T2) may be numbers, SymPy symbols, dual numbers or
``uncertainties`` values, like gate angles: the same noisy circuit gives a closed form in
``p`` with ``numbers="sympy"``, ``d<Z>/dp`` with dual numbers, or the spread of a result under
an uncertain T1. Density matrices apply a channel exactly (its superoperator
``sum_k K_k (x) conj(K_k)`` on the row and column qubits); state vectors draw one Kraus
branch per run (quantum trajectories).

Library (``gq.channels.NAME(...)`` or ``Circuit.NAME(..., qubit)``):

============================================  =============================================
``depolarizing(p, n_qubits=1)``               ``(1-p) rho + p/(4**n-1) sum_{P != I} P rho P``
``bit_flip(p)``, ``phase_flip(p)``,           X, Z or Y with probability ``p``
``bit_phase_flip(p)``
``pauli_channel(px, py, pz)``                 X, Y, Z with their probabilities
``amplitude_damping(gamma)``                  decay ``|1> -> |0>`` with probability ``gamma``
``generalized_amplitude_damping(p, gamma)``   damping towards a thermal state (``p``: weight
                                              of decay towards ``|0>``)
``phase_damping(lam)``                        coherences scaled by ``sqrt(1-lam)``
``thermal_relaxation(t1, t2, time)``          amplitude then phase damping: populations relax
                                              with ``T1``, coherences decay as
                                              ``exp(-time/T2)`` (needs ``T2 <= 2 T1``)
``reset_error(p0, p1=0)``                     reset to ``|0>`` with ``p0``, to ``|1>`` with
                                              ``p1``
``kraus(matrices)``                           any Kraus operators (numeric ones checked to be
                                              trace preserving)
============================================  =============================================

The depolarizing probability ``p`` is the probability of a non-identity Pauli error (Cirq's
convention); Qiskit's ``depolarizing_error(lam)`` is ``p = lam (4**n - 1) / 4**n`` here.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import (
    ArgumentTypeError,
    ChannelParameterError,
    MatrixShapeError,
    NotTracePreservingError,
    UnknownGateError,
)
from ..numbers import Number, NumberSystem, get_number_system, to_python_complex
from ..support.lazysympy import is_sympy, same_value
from .gates import (
    Gate,
    GateKind,
    _as_param,
    _free_symbols,
    _is_exact_zero,
    _matrix_entries,
    _short,
    _substitute,
    operator_size,
)

KrausBuilder = Callable[..., list[list[list[Any]]]]
MixtureBuilder = Callable[..., list[tuple[Any, str]]]


class QuantumChannel(Gate):
    """A noise channel on ``n_qubits`` qubits: Kraus operators in any number system.

    ``kraus(numbers)`` gives the operators (``targets[0]`` the lowest bit of their index, as
    for gates); ``superoperator(numbers)`` the ``4**k x 4**k`` matrix that acts on a
    vectorised density matrix (column bits low, row bits high); ``mixture()``, for channels
    that apply a Pauli string with a fixed probability, the branches a trajectory can draw
    without looking at the state.
    """

    kind = GateKind.CHANNEL
    trace_preserving: bool = True
    """False only for the projections a collapsed Heisenberg-picture state keeps."""
    diagonal_kraus: bool = False
    """Whether every Kraus operator is diagonal (the superoperator is then diagonal too)."""

    @property
    def pauli_mixture(self) -> bool:
        """Whether :meth:`mixture` describes the channel (Pauli strings with fixed weights)."""
        return False

    def kraus(self, numbers: NumberSystem | str = "complex128") -> list[np.ndarray]:
        raise NotImplementedError

    def mixture(self, numbers: NumberSystem | str = "complex128") -> list[tuple[Any, str]] | None:
        """``[(probability, pauli_string), ...]`` in ``numbers`` when the channel is a mixture
        of Pauli strings (``pauli[i]`` on ``targets[i]``); ``None`` for other channels."""
        return None

    def superoperator(self, numbers: NumberSystem | str = "complex128") -> np.ndarray:
        """``sum_k K_k (x) conj(K_k)``: the channel on ``vec(rho)`` with the row bits high."""
        ns = get_number_system(numbers)
        total: np.ndarray | None = None
        for k in self.kraus(ns):
            term = np.kron(k, ns.conj_array(k))
            total = term if total is None else total + term
        assert total is not None
        return total

    def superoperator_diagonal(self, numbers: NumberSystem | str = "complex128") -> np.ndarray:
        """The diagonal of :meth:`superoperator` (for channels with diagonal Kraus operators)."""
        ns = get_number_system(numbers)
        total: np.ndarray | None = None
        for k in self.kraus(ns):
            d = np.diagonal(k).copy()
            term = np.kron(d, ns.conj_array(d))
            total = term if total is None else total + term
        assert total is not None
        return total

    def matrix(self, numbers: NumberSystem | str = "complex128") -> np.ndarray:
        raise ArgumentTypeError(
            f"{self.name} is a noise channel, not a gate: it has Kraus operators "
            "(kraus()) and a superoperator (superoperator()), no single matrix"
        )

    def inverse(self) -> Gate:
        raise ArgumentTypeError(f"a noise channel ({self.name}) has no inverse")


@dataclass(frozen=True)
class ChannelSpec:
    """One library channel: its qubit count, parameter names, Kraus operators, and its Pauli
    mixture where it is one."""

    name: str
    n_qubits: int
    param_names: tuple[str, ...]
    kraus: KrausBuilder
    mixture: MixtureBuilder | None = None
    check: Callable[..., None] | None = None
    diagonal_kraus: bool = False
    superoperator: Callable[..., list[list[Any]]] | None = None


CHANNEL_SPECS: dict[str, ChannelSpec] = {}


def _register(spec: ChannelSpec) -> None:
    CHANNEL_SPECS[spec.name] = spec


def _numeric(value: Any) -> float | None:
    """A parameter's real value when it is a plain number (``None`` for symbols and for
    numbers that carry more, such as dual numbers, which are checked by their users)."""
    if is_sympy(value):
        if value.free_symbols:
            return None
    elif not isinstance(value, (int, float, complex)):
        return None
    z = to_python_complex(value, "channel parameter")
    if z.imag != 0:
        raise ChannelParameterError(f"channel parameters are real, got {value}")
    return z.real


def _check_probabilities(name: str, params: Sequence[Any], names: Sequence[str]) -> None:
    values = [_numeric(p) for p in params]
    for value, pname in zip(values, names):
        if value is not None and not 0.0 <= value <= 1.0:
            raise ChannelParameterError(
                f"{name}: {pname} = {value:g} is not a probability in [0, 1]"
            )


def _check_total(limit: float) -> Callable[..., None]:
    def check(name: str, params: Sequence[Any], names: Sequence[str]) -> None:
        _check_probabilities(name, params, names)
        values = [_numeric(p) for p in params]
        if all(v is not None for v in values):
            total = sum(v for v in values if v is not None)
            if total > limit + 1e-12:
                raise ChannelParameterError(
                    f"{name}: {' + '.join(names)} = {total:g} exceeds {limit:g}"
                )

    return check


def _pauli_matrix(ns: NumberSystem, letter: str) -> list[list[Number]]:
    o, z, i = ns.one, ns.zero, ns.I
    return {
        "I": [[o, z], [z, o]],
        "X": [[z, o], [o, z]],
        "Y": [[z, -i], [i, z]],
        "Z": [[o, z], [z, -o]],
    }[letter]


def _pauli_string_matrix(ns: NumberSystem, pauli: str) -> np.ndarray:
    """The matrix of a Pauli string (``pauli[0]`` on the lowest bit)."""
    out = ns.array([[ns.one]])
    for letter in pauli:  # later letters are higher bits: kron(new, out)
        out = np.kron(ns.array(_pauli_matrix(ns, letter)), out)
    return out


def _pauli_kraus(mix: MixtureBuilder) -> KrausBuilder:
    """Kraus operators ``sqrt(p_k) P_k`` of a Pauli mixture."""

    def build(ns: NumberSystem, *params: Any) -> list[Any]:
        return [ns.sqrt(p) * _pauli_string_matrix(ns, pauli) for p, pauli in mix(ns, *params)]

    return build


def _pauli_mixture(weights: Callable[..., dict[str, Any]]) -> MixtureBuilder:
    def mix(ns: NumberSystem, *params: Any) -> list[tuple[Any, str]]:
        return [(weight, pauli) for pauli, weight in weights(ns, *params).items()]

    return mix


def _depolarizing_weights(n: int) -> Callable[..., dict[str, Any]]:
    others = ["".join(s) for s in itertools.product("IXYZ", repeat=n)][1:]

    def weights(ns: NumberSystem, p: Any) -> dict[str, Any]:
        share = p / ns.integer(len(others))
        return {"I" * n: ns.one - p, **{s: share for s in others}}

    return weights


for _n in (1, 2):
    _w = _depolarizing_weights(_n)
    _register(
        ChannelSpec(
            "depolarizing" if _n == 1 else "depolarizing2",
            _n,
            ("p",),
            _pauli_kraus(_pauli_mixture(_w)),
            _pauli_mixture(_w),
            _check_probabilities,
        )
    )

for _name, _letter in (("bit_flip", "X"), ("phase_flip", "Z"), ("bit_phase_flip", "Y")):

    def _flip_weights(ns: NumberSystem, p: Any, letter: str = _letter) -> dict[str, Any]:
        return {"I": ns.one - p, letter: p}

    _register(
        ChannelSpec(
            _name,
            1,
            ("p",),
            _pauli_kraus(_pauli_mixture(_flip_weights)),
            _pauli_mixture(_flip_weights),
            _check_probabilities,
            diagonal_kraus=_letter == "Z",
        )
    )


def _pauli_channel_weights(ns: NumberSystem, px: Any, py: Any, pz: Any) -> dict[str, Any]:
    return {"I": ns.one - px - py - pz, "X": px, "Y": py, "Z": pz}


_register(
    ChannelSpec(
        "pauli_channel",
        1,
        ("px", "py", "pz"),
        _pauli_kraus(_pauli_mixture(_pauli_channel_weights)),
        _pauli_mixture(_pauli_channel_weights),
        _check_total(1.0),
    )
)


def _amplitude_damping(ns: NumberSystem, gamma: Any) -> list[Any]:
    o, z = ns.one, ns.zero
    return [[[o, z], [z, ns.sqrt(o - gamma)]], [[z, ns.sqrt(gamma)], [z, z]]]


def _generalized_amplitude_damping(ns: NumberSystem, p: Any, gamma: Any) -> list[Any]:
    o, z = ns.one, ns.zero
    a, b = ns.sqrt(p), ns.sqrt(o - p)
    keep, decay = ns.sqrt(o - gamma), ns.sqrt(gamma)
    return [
        [[a, z], [z, a * keep]],
        [[z, a * decay], [z, z]],
        [[b * keep, z], [z, b]],
        [[z, z], [b * decay, z]],
    ]


def _phase_damping(ns: NumberSystem, lam: Any) -> list[Any]:
    o, z = ns.one, ns.zero
    return [[[o, z], [z, ns.sqrt(o - lam)]], [[z, z], [z, ns.sqrt(lam)]]]


def _thermal_relaxation(ns: NumberSystem, t1: Any, t2: Any, time: Any) -> list[Any]:
    """Amplitude damping with ``gamma = 1 - exp(-t/T1)``, then phase damping that brings the
    coherence factor to ``exp(-t/T2)``: ``1 - lam = exp(t/T1 - 2t/T2)``."""
    gamma = ns.one - ns.exp(-time / t1)
    lam = ns.one - ns.exp(time / t1 - ns.integer(2) * time / t2)
    damp = [ns.array(k) for k in _amplitude_damping(ns, gamma)]
    dephase = [ns.array(k) for k in _phase_damping(ns, lam)]
    return [np.dot(d, a) for d in dephase for a in damp]


def _check_thermal(name: str, params: Sequence[Any], names: Sequence[str]) -> None:
    t1, t2, time = (_numeric(p) for p in params)
    if t1 is not None and not t1 > 0:
        raise ChannelParameterError(f"{name}: T1 must be positive, got {t1:g}")
    if t2 is not None and not t2 > 0:
        raise ChannelParameterError(f"{name}: T2 must be positive, got {t2:g}")
    if time is not None and time < 0:
        raise ChannelParameterError(f"{name}: the time must be non-negative, got {time:g}")
    if t1 is not None and t2 is not None and t2 > 2 * t1 * (1 + 1e-12):
        raise ChannelParameterError(
            f"{name}: T2 = {t2:g} exceeds 2 T1 = {2 * t1:g}, which no physical qubit allows"
        )


def _reset_error(ns: NumberSystem, p0: Any, p1: Any) -> list[Any]:
    o, z = ns.one, ns.zero
    keep, to0, to1 = ns.sqrt(o - p0 - p1), ns.sqrt(p0), ns.sqrt(p1)
    return [
        [[keep, z], [z, keep]],
        [[to0, z], [z, z]],
        [[z, to0], [z, z]],
        [[z, z], [to1, z]],
        [[z, z], [z, to1]],
    ]


# Superoperators written out (index ``row * 2 + column``): no square roots of the rates, so
# symbolic results come out as polynomials in them and dual derivatives exist at rate zero.


def _damping_superoperator(ns: NumberSystem, decay: Any, coherence: Any) -> list[list[Any]]:
    """Populations: ``rho00 += decay * rho11``; coherences scaled by ``coherence``."""
    o, z = ns.one, ns.zero
    return [[o, z, z, decay], [z, coherence, z, z], [z, z, coherence, z], [z, z, z, o - decay]]


def _amplitude_damping_superoperator(ns: NumberSystem, gamma: Any) -> list[list[Any]]:
    return _damping_superoperator(ns, gamma, ns.sqrt(ns.one - gamma))


def _phase_damping_superoperator(ns: NumberSystem, lam: Any) -> list[list[Any]]:
    return _damping_superoperator(ns, ns.zero, ns.sqrt(ns.one - lam))


def _thermal_relaxation_superoperator(
    ns: NumberSystem, t1: Any, t2: Any, time: Any
) -> list[list[Any]]:
    return _damping_superoperator(ns, ns.one - ns.exp(-time / t1), ns.exp(-time / t2))


def _generalized_amplitude_damping_superoperator(
    ns: NumberSystem, p: Any, gamma: Any
) -> list[list[Any]]:
    o, z = ns.one, ns.zero
    up, down = (o - p) * gamma, p * gamma  # |0> -> |1> and |1> -> |0>
    c = ns.sqrt(o - gamma)
    return [[o - up, z, z, down], [z, c, z, z], [z, z, c, z], [up, z, z, o - down]]


def _reset_error_superoperator(ns: NumberSystem, p0: Any, p1: Any) -> list[list[Any]]:
    keep, z = ns.one - p0 - p1, ns.zero
    return [
        [keep + p0, z, z, p0],
        [z, keep, z, z],
        [z, z, keep, z],
        [p1, z, z, keep + p1],
    ]


_register(
    ChannelSpec(
        "amplitude_damping",
        1,
        ("gamma",),
        _amplitude_damping,
        None,
        _check_probabilities,
        superoperator=_amplitude_damping_superoperator,
    )
)
_register(
    ChannelSpec(
        "generalized_amplitude_damping",
        1,
        ("p", "gamma"),
        _generalized_amplitude_damping,
        None,
        _check_probabilities,
        superoperator=_generalized_amplitude_damping_superoperator,
    )
)
_register(
    ChannelSpec(
        "phase_damping",
        1,
        ("lam",),
        _phase_damping,
        None,
        _check_probabilities,
        True,
        _phase_damping_superoperator,
    )
)
_register(
    ChannelSpec(
        "thermal_relaxation",
        1,
        ("t1", "t2", "time"),
        _thermal_relaxation,
        None,
        _check_thermal,
        superoperator=_thermal_relaxation_superoperator,
    )
)
_register(
    ChannelSpec(
        "reset_error",
        1,
        ("p0", "p1"),
        _reset_error,
        None,
        _check_total(1.0),
        superoperator=_reset_error_superoperator,
    )
)


class NamedChannel(QuantumChannel):
    """A channel from the library table (``depolarizing``, ``amplitude_damping``, ...)."""

    def __init__(self, name: str, *params: Any) -> None:
        if name not in CHANNEL_SPECS:
            raise UnknownGateError(
                f"unknown channel {name!r}; known channels: {', '.join(sorted(CHANNEL_SPECS))}"
            )
        spec = CHANNEL_SPECS[name]
        if len(params) != len(spec.param_names):
            raise ArgumentTypeError(
                f"channel {name!r} takes {len(spec.param_names)} parameter(s) "
                f"({', '.join(spec.param_names)}), got {len(params)}"
            )
        self.spec = spec
        self.name = name
        self.n_qubits = spec.n_qubits
        self.params = tuple(_as_param(p) for p in params)
        self.diagonal_kraus = spec.diagonal_kraus
        if spec.check is not None:
            spec.check(name, self.params, spec.param_names)

    @property
    def label(self) -> str:
        return f"{self.name}({', '.join(_short(p) for p in self.params)})"

    @property
    def pauli_mixture(self) -> bool:
        return self.spec.mixture is not None

    def _values(self, ns: NumberSystem) -> list[Number]:
        return [ns.real_scalar(p) for p in self.params]

    def kraus(self, numbers: NumberSystem | str = "complex128") -> list[np.ndarray]:
        ns = get_number_system(numbers)
        return [
            ns.array(np.asarray(k, dtype=object)) for k in self.spec.kraus(ns, *self._values(ns))
        ]

    def mixture(self, numbers: NumberSystem | str = "complex128") -> list[tuple[Any, str]] | None:
        if self.spec.mixture is None:
            return None
        ns = get_number_system(numbers)
        return self.spec.mixture(ns, *self._values(ns))

    def superoperator(self, numbers: NumberSystem | str = "complex128") -> np.ndarray:
        """Written out for the damping channels, ``sum_k p_k P_k (x) conj(P_k)`` for Pauli
        mixtures: exact polynomials in the rates, without ``conj(sqrt(p))``. Machine-number
        superoperators are cached (a noise model repeats a few channels many times)."""
        ns = get_number_system(numbers)
        if ns.dtype.kind == "c" and all(isinstance(p, float | int) for p in self.params):
            return _cached_superoperator(self.name, self.params, ns.name).copy()
        return self._superoperator(ns)

    def _superoperator(self, ns: NumberSystem) -> np.ndarray:
        values = self._values(ns)
        if self.spec.superoperator is not None:
            return ns.array(np.asarray(self.spec.superoperator(ns, *values), dtype=object))
        if self.spec.mixture is not None:
            total: np.ndarray | None = None
            for weight, pauli in self.spec.mixture(ns, *values):
                m = _pauli_string_matrix(ns, pauli)
                term = weight * np.kron(m, ns.conj_array(m))
                total = term if total is None else total + term
            assert total is not None
            return total
        return super().superoperator(ns)

    def superoperator_diagonal(self, numbers: NumberSystem | str = "complex128") -> np.ndarray:
        return np.diagonal(self.superoperator(numbers)).copy()

    def bind(self, mapping: Mapping) -> Gate:
        return NamedChannel(self.name, *(_substitute(p, mapping) for p in self.params))

    def __reduce__(self) -> tuple[Any, tuple]:
        return NamedChannel, (self.name, *self.params)


@functools.lru_cache(maxsize=512)
def _cached_superoperator(name: str, params: tuple[float, ...], numbers: str) -> np.ndarray:
    return NamedChannel(name, *params)._superoperator(get_number_system(numbers))


class KrausChannel(QuantumChannel):
    """A channel from any Kraus operators ``2**k x 2**k`` (``targets[0]`` the lowest bit of
    their index). Numeric ones are checked to be trace preserving (``sum K^dagger K = I``);
    symbolic ones are accepted as given."""

    def __init__(
        self, matrices: Sequence[Any], name: str = "kraus", check_trace: bool = True
    ) -> None:
        if isinstance(matrices, np.ndarray) and matrices.ndim == 2:
            matrices = [matrices]
        if not isinstance(matrices, (list, tuple, np.ndarray)) or len(matrices) == 0:
            raise ArgumentTypeError("a Kraus channel needs a non-empty list of matrices")
        entries = [_matrix_entries(m) for m in matrices]
        shapes = {e.shape for e in entries}
        if len(shapes) != 1:
            raise MatrixShapeError(f"Kraus operators must share one shape, got {sorted(shapes)}")
        rows = operator_size(entries[0].shape, "Kraus operators")
        if check_trace:
            _check_trace_preserving(entries)
        self.entries = entries
        self.name = name
        self.n_qubits = rows.bit_length() - 1
        self.params = ()
        self.diagonal_kraus = all(
            all(_is_exact_zero(v) for (r, c), v in np.ndenumerate(e) if r != c) for e in entries
        )

    @property
    def free_symbols(self) -> frozenset:
        return _free_symbols([v for e in self.entries for v in e.reshape(-1)])

    def kraus(self, numbers: NumberSystem | str = "complex128") -> list[np.ndarray]:
        ns = get_number_system(numbers)
        return [ns.array(e) for e in self.entries]

    def bind(self, mapping: Mapping) -> Gate:
        if not self.free_symbols & set(mapping):
            return self
        bound = [
            np.vectorize(lambda v: _substitute(v, mapping), otypes=[object])(e)
            for e in self.entries
        ]
        return KrausChannel(bound, self.name, check_trace=False)

    def _key(self) -> tuple:
        return (*super()._key(), len(self.entries))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, KrausChannel) or len(self.entries) != len(other.entries):
            return False
        return all(
            a.shape == b.shape and np.all(np.vectorize(same_value, otypes=[bool])(a, b))
            for a, b in zip(self.entries, other.entries)
        )

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"KrausChannel({len(self.entries)} operators on {self.n_qubits} qubit(s))"


def _check_trace_preserving(entries: Sequence[np.ndarray], atol: float = 1e-8) -> None:
    if any(e.dtype == object and _free_symbols(list(e.reshape(-1))) for e in entries):
        return
    numeric = [
        e if e.dtype != object
        else np.array([to_python_complex(v) for v in e.reshape(-1)]).reshape(e.shape)
        for e in entries
    ]  # fmt: skip
    total = sum(k.conj().T @ k for k in numeric)
    deviation = float(np.max(np.abs(total - np.eye(numeric[0].shape[0]))))
    if deviation > atol:
        raise NotTracePreservingError(
            f"Kraus operators are not trace preserving: max |sum K^dagger K - I| = "
            f"{deviation:.3g} > {atol:g} (pass check_trace=False for a trace-decreasing map)"
        )


# -- public constructors ------------------------------------------------------------------------


def depolarizing(p: Any, n_qubits: int = 1) -> NamedChannel:
    """With probability ``p`` one of the ``4**n - 1`` non-identity Pauli strings, uniformly
    (``n_qubits`` 1 or 2): ``<Z>`` after it is ``(1 - 4p/3) <Z>`` for one qubit."""
    if n_qubits not in (1, 2):
        raise ArgumentTypeError(f"depolarizing channels act on 1 or 2 qubits, not {n_qubits!r}")
    return NamedChannel("depolarizing" if n_qubits == 1 else "depolarizing2", p)


def bit_flip(p: Any) -> NamedChannel:
    """X with probability ``p``."""
    return NamedChannel("bit_flip", p)


def phase_flip(p: Any) -> NamedChannel:
    """Z with probability ``p``."""
    return NamedChannel("phase_flip", p)


def bit_phase_flip(p: Any) -> NamedChannel:
    """Y with probability ``p``."""
    return NamedChannel("bit_phase_flip", p)


def pauli_channel(px: Any, py: Any, pz: Any) -> NamedChannel:
    """X, Y, Z with probabilities ``px``, ``py``, ``pz`` (identity with the rest)."""
    return NamedChannel("pauli_channel", px, py, pz)


def amplitude_damping(gamma: Any) -> NamedChannel:
    """Energy relaxation: ``|1>`` decays to ``|0>`` with probability ``gamma``."""
    return NamedChannel("amplitude_damping", gamma)


def generalized_amplitude_damping(p: Any, gamma: Any) -> NamedChannel:
    """Relaxation towards a thermal state at finite temperature: with weight ``p`` decay
    towards ``|0>``, with ``1 - p`` towards ``|1>``, at rate ``gamma``."""
    return NamedChannel("generalized_amplitude_damping", p, gamma)


def phase_damping(lam: Any) -> NamedChannel:
    """Pure dephasing: populations kept, coherences scaled by ``sqrt(1 - lam)``."""
    return NamedChannel("phase_damping", lam)


def thermal_relaxation(t1: Any, t2: Any, time: Any) -> NamedChannel:
    """Relaxation over ``time`` for a qubit with ``T1`` and ``T2`` (same time unit, ``T2 <=
    2 T1``): populations decay as ``exp(-time/T1)``, coherences as ``exp(-time/T2)``
    (Qiskit Aer's ``thermal_relaxation_error`` with no excited-state population)."""
    return NamedChannel("thermal_relaxation", t1, t2, time)


def reset_error(p0: Any, p1: Any = 0) -> NamedChannel:
    """Reset to ``|0>`` with probability ``p0`` and to ``|1>`` with ``p1`` (Aer's
    ``reset_error``)."""
    return NamedChannel("reset_error", p0, p1)


def kraus(matrices: Sequence[Any], name: str = "kraus", check_trace: bool = True) -> KrausChannel:
    """A channel from Kraus operators (see :class:`KrausChannel`)."""
    return KrausChannel(matrices, name, check_trace)


def channel_names() -> list[str]:
    """Names of the library channels."""
    return sorted(CHANNEL_SPECS)
