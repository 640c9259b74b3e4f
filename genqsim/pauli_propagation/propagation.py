"""Pauli propagation: an observable conjugated backwards through a circuit, then read off
the initial state.

``<psi|H|psi>`` with ``psi = U_L ... U_1 |b>`` equals ``<b| U_1^dagger ... U_L^dagger H U_L ...
U_1 |b>``: the observable, a sum of Pauli strings, is pushed through the operations last to
first (:mod:`genqsim.pauli_propagation.transfer`), and on a basis state ``|b>`` only strings of
``Z`` and ``I`` survive, each worth ``(-1)**|z & b|``. For a shallow circuit or a local
observable the sum stays short whatever the qubit count, and its coefficients are the closed
form: trig polynomials, dual numbers, uncertain values, balls, or machine floats.

Two engines share the transfers: machine numbers run on packed strings through a backend's
:class:`~genqsim.backends.PauliPropagator` (compiled kernels), every other number system on
a dictionary of Python integers and its own numbers. Numeric runs may truncate (largest
weight, smallest coefficient, most strings, as ``pauli-prop`` and PauliPropagation.jl do); the
sum of the dropped ``|c|`` bounds the error, since each dropped string's value stays within
``[-|c|, |c|]`` under every earlier unitary and channel.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from ..backends import PauliPropagator, ReferencePauliPropagator, backend_for, capability
from ..circuit.circuit import Circuit
from ..errors import (
    ArgumentTypeError,
    ArgumentValueError,
    NumberTypeError,
    QubitIndexError,
    UnknownBackendError,
)
from ..linalg import packed_paulis
from ..linalg.pauli import PauliSum
from ..numbers import Number, NumberSystem, get_number_system
from ..support.progress import ProgressBar
from .dictionary import basis_value, dictionary_step
from .result import HeisenbergResult
from .strings import masks_of
from .transfer import Transfer, transfer_of

PROGRESS_MIN_OPERATIONS = 200
"""Runs with ``progress=True`` draw a bar from this many operations on."""


@dataclass(frozen=True)
class Truncation:
    """What a numeric propagation may drop after each operation: strings of more than
    ``max_weight`` non-identity qubits, coefficients below ``min_abs_coeff`` in magnitude,
    and all but the ``max_terms`` largest. The defaults drop nothing."""

    max_weight: int | None = None
    min_abs_coeff: float = 0.0
    max_terms: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_weight", "max_terms"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1
            ):
                raise ArgumentValueError(
                    f"{name} must be a positive integer or None, got {value!r}"
                )
        m = self.min_abs_coeff
        if (
            isinstance(m, bool)
            or not isinstance(m, (int, float, np.floating))
            or not (math.isfinite(m) and m >= 0)
        ):
            raise ArgumentValueError(f"min_abs_coeff must be a finite number >= 0, got {m!r}")

    @property
    def active(self) -> bool:
        return self.max_weight is not None or self.min_abs_coeff > 0 or self.max_terms is not None

    @property
    def by_magnitude(self) -> bool:
        return self.min_abs_coeff > 0 or self.max_terms is not None


def _initial_bits(initial: Any, n_qubits: int) -> int:
    """The basis state ``|b>`` the propagation ends on: ``None`` (all zeros), an integer
    index or a bitstring (highest qubit first, as Qiskit prints them)."""
    if initial is None:
        return 0
    if isinstance(initial, str):
        if len(initial) != n_qubits or set(initial) - {"0", "1"}:
            raise ArgumentValueError(
                f"initial bitstring must have {n_qubits} characters 0/1, got {initial!r}"
            )
        return int(initial, 2)
    if isinstance(initial, (int, np.integer)) and not isinstance(initial, bool):
        if not 0 <= initial < 1 << n_qubits:
            raise QubitIndexError(f"initial basis index {initial} is outside 0..2**{n_qubits}-1")
        return int(initial)
    raise ArgumentTypeError(
        "Pauli propagation ends on a basis state: initial is None, a bitstring or a basis "
        f"index, got {type(initial).__name__} (prepare other product or stabilizer states with "
        "gates at the start of the circuit)"
    )


def heisenberg(
    circuit: Circuit,
    observable: Any,
    numbers: str | NumberSystem | None = None,
    initial: Any = None,
    *,
    max_weight: int | None = None,
    min_abs_coeff: float = 0.0,
    max_terms: int | None = None,
    backend: str | None = None,
    progress: bool = False,
    device: str | None = None,
) -> HeisenbergResult:
    """``<observable>`` after ``circuit`` by Pauli propagation, with what the run dropped.

    ``numbers``: complex128 (the default) runs on packed strings and compiled kernels; any
    other number system (``"trig"`` and ``"sympy"`` for closed forms, ``DualNumbers`` for
    gradients, ``"uncertain"``, ``"ball"``) on its own numbers. Truncation
    (:class:`Truncation`) applies to numeric runs; ``max_weight`` to every run.
    ``device="gpu"`` keeps the packed strings of a machine-number run in GPU memory
    and propagates them there.

    >>> import genqsim as gq
    >>> theta, = gq.parameters("theta")
    >>> c = gq.Circuit(3).ry(theta, 0).cx(0, 1).cx(1, 2)
    >>> print(gq.heisenberg(c, "Z0 Z2", numbers="trig").value)
    1
    >>> gq.heisenberg(c, "X0 X1 X2", numbers="sympy").value
    sin(theta)
    """
    if not isinstance(circuit, Circuit):
        raise ArgumentTypeError(f"heisenberg() takes a Circuit, got {type(circuit).__name__}")
    ns = get_number_system(numbers if numbers is not None else "complex128")
    truncation = Truncation(max_weight, min_abs_coeff, max_terms)
    obs = PauliSum.coerce(observable)
    if obs.n_qubits > circuit.n_qubits:
        raise QubitIndexError(
            f"observable acts on qubit {obs.n_qubits - 1} but the circuit has "
            f"{circuit.n_qubits} qubits"
        )
    from ..plan import check_bound

    check_bound(circuit, ns)
    bits = _initial_bits(initial, circuit.n_qubits)
    body, _ = circuit.split_terminal_measurements()  # the state before they are read
    support = sorted({q for _, pauli in obs.terms for q, _ in pauli})
    every = body.derived(
        ("pauli transfers", ns), lambda: [transfer_of(op, ns) for op in body.operations]
    )
    if any(not getattr(op.gate, "trace_preserving", True) for op in body.operations):
        indices: Sequence[int] = range(len(every))  # a projection changes every value
    else:
        indices = body.light_cone(support).indices if support else ()
    transfers = [t for t in (every[i] for i in indices) if t is not None]
    bar = (
        ProgressBar(len(transfers), "pauli")
        if progress and len(transfers) >= PROGRESS_MIN_OPERATIONS
        else None
    )
    if ns.dtype.kind == "c":
        return _packed_run(
            obs, transfers, circuit.n_qubits, bits, truncation, ns, backend, bar, device
        )
    if device not in (None, "cpu"):
        raise NumberTypeError(
            f"numbers={ns.name!r} coefficients are Python objects and propagate on the CPU; "
            f"device={device!r} takes complex128 or complex64 runs"
        )
    if not truncation.active and ns.symbolic:
        from .trig_engine import is_trig, trig_run  # loads SymPy and flint: exact runs only

        fast = trig_run(obs, transfers, circuit.n_qubits, bits, ns, bar) if is_trig(ns) else None
        if fast is not None:
            return fast
    if truncation.by_magnitude and ns.symbolic:
        raise ArgumentValueError(
            f"numbers={ns.name!r} coefficients have no magnitude to truncate by: give "
            "max_weight alone, or run in numeric numbers (complex128, dual, uncertain, ball)"
        )
    return _object_run(obs, transfers, circuit.n_qubits, bits, truncation, ns, bar)


# -- any number system: a dictionary of strings ------------------------------------------------


def _object_run(
    obs: PauliSum,
    transfers: Sequence[Transfer],
    n_qubits: int,
    bits: int,
    truncation: Truncation,
    ns: NumberSystem,
    bar: ProgressBar | None,
) -> HeisenbergResult:
    terms: dict[tuple[int, int], Number] = {}
    for c, pauli in obs.terms:
        terms[masks_of(pauli)] = ns.scalar(c)
    dropped, weight, peak = 0, 0.0, len(terms)
    magnitude = truncation.by_magnitude
    for done, transfer in enumerate(reversed(transfers)):
        terms = dictionary_step(terms, transfer, ns)
        if truncation.active:
            terms, n, w = _object_truncate(terms, truncation, ns)
            dropped, weight = dropped + n, weight + w
        peak = max(peak, len(terms))
        if bar is not None:
            bar.update(done + 1)
    if bar is not None:
        bar.close()
    value = basis_value(terms, bits, ns.zero)
    real = all(getattr(c, "is_real", True) for c, _ in obs.terms)
    if real and not ns.symbolic:
        value = ns.real(value)
    snapshot = list(terms.items())
    return HeisenbergResult(
        value,
        weight if magnitude or not truncation.active else None,
        dropped,
        peak,
        n_qubits,
        lambda: [(c, x, z) for (x, z), c in snapshot],
        ns,
    )


def _object_truncate(
    terms: dict[tuple[int, int], Number], truncation: Truncation, ns: NumberSystem
) -> tuple[dict[tuple[int, int], Number], int, float]:
    kept: dict[tuple[int, int], Number] = {}
    dropped, weight = 0, 0.0
    limit = truncation.max_weight
    for key, c in terms.items():
        size = abs(ns.to_complex(c)) if truncation.by_magnitude else 0.0
        if (limit is not None and (key[0] | key[1]).bit_count() > limit) or (
            size < truncation.min_abs_coeff
        ):
            dropped, weight = dropped + 1, weight + size
        else:
            kept[key] = c
    if truncation.max_terms is not None and len(kept) > truncation.max_terms:
        ranked = sorted(kept.items(), key=lambda kv: -abs(ns.to_complex(kv[1])))
        for _, c in ranked[truncation.max_terms :]:
            weight += abs(ns.to_complex(c))
        dropped += len(ranked) - truncation.max_terms
        kept = dict(ranked[: truncation.max_terms])
    return kept, dropped, weight


# -- machine numbers: packed strings on a backend ----------------------------------------------


def _propagator(ns: NumberSystem, backend: str | None, device: str | None) -> PauliPropagator:
    """The backend's propagator on ``device``; the NumPy reference where a CPU backend has no
    compiled one. A GPU backend without one is refused: the run was asked for there."""
    chosen = backend_for(ns, device or "cpu", backend)
    found = capability(chosen, PauliPropagator)
    if found is not None:
        return found
    if chosen.device != "cpu":
        raise UnknownBackendError(
            f"backend {chosen.name!r} has no Pauli propagator: run method='pauli' on the CPU"
        )
    return ReferencePauliPropagator()


def _table(transfer: Transfer, codes: Any, xp: ModuleType) -> tuple[tuple[Any, Any, Any], bool]:
    """The columns of the codes present, compressed (arrays of ``xp``, where the strings
    are); and whether any holds several strings."""
    size = 4 ** len(transfer.qubits)
    present = np.flatnonzero(packed_paulis.to_host(xp.bincount(codes, minlength=size)))
    counts = np.zeros(size, dtype=np.int64)
    image_codes: list[int] = []
    image_values: list[float] = []
    splits = False
    for code in present.tolist():
        column = transfer.column(code)
        counts[code] = len(column)
        splits |= len(column) > 1
        for a, v in column:
            image_codes.append(a)
            image_values.append(v)
    start = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    table = (
        xp.asarray(start),
        xp.asarray(np.array(image_codes, dtype=np.int64)),
        xp.asarray(np.array(image_values, dtype=np.float64)),
    )
    return table, splits


def _packed_run(
    obs: PauliSum,
    transfers: Sequence[Transfer],
    n_qubits: int,
    bits: int,
    truncation: Truncation,
    ns: NumberSystem,
    backend: str | None,
    bar: ProgressBar | None,
    device: str | None = None,
) -> HeisenbergResult:
    engine = _propagator(ns, backend, device)
    masks = [masks_of(p) for _, p in obs.terms]
    values = np.array([complex(ns.scalar(c)) for c, _ in obs.terms], dtype=np.complex128)
    parts = [values.real]
    if np.any(values.imag):
        parts.append(values.imag)  # linear: the imaginary part runs as a second sum
    results = [
        _packed_part(
            engine, masks, part, transfers, n_qubits, bits, truncation, bar if i == 0 else None
        )
        for i, part in enumerate(parts)
    ]
    value: complex | float = results[0][0]
    if len(results) > 1:
        value = complex(results[0][0], results[1][0])
    weight = sum(r[1] for r in results)
    dropped = sum(r[2] for r in results)
    peak = max(r[3] for r in results)
    strings, coefficients = results[0][4], results[0][5]
    return HeisenbergResult(
        value,
        weight,
        dropped,
        peak,
        n_qubits,
        lambda: [
            (float(c), x, z)
            for c, (x, z) in zip(coefficients.tolist(), packed_paulis.unpack(strings))
        ],
        ns,
    )


def _packed_part(
    engine: PauliPropagator,
    masks: list[tuple[int, int]],
    coefficients: np.ndarray,
    transfers: Sequence[Transfer],
    n_qubits: int,
    bits: int,
    truncation: Truncation,
    bar: ProgressBar | None,
) -> tuple[float, float, int, int, np.ndarray, np.ndarray]:
    xp = engine.pauli_namespace()
    strings = xp.asarray(packed_paulis.pack(masks, n_qubits))
    coefficients = xp.asarray(np.ascontiguousarray(coefficients, dtype=np.float64))
    min_abs = float(truncation.min_abs_coeff)
    max_weight = -1 if truncation.max_weight is None else int(truncation.max_weight)
    weight, dropped, peak = 0.0, 0, len(coefficients)
    for done, transfer in enumerate(reversed(transfers)):
        if len(coefficients) == 0:
            break
        codes = engine.pauli_local_codes(strings, transfer.qubits)
        if transfer.unital and not bool(codes.any()):
            continue  # every string is the identity on these qubits
        table, splits = _table(transfer, codes, xp)
        strings, coefficients = engine.pauli_apply_table(
            strings, coefficients, codes, transfer.qubits, table
        )
        if splits:
            strings, coefficients = engine.pauli_merge(strings, coefficients)
        if splits or min_abs > 0 or max_weight >= 0 or len(coefficients) != len(codes):
            strings, coefficients, w, n = engine.pauli_truncate(
                strings, coefficients, min_abs, max_weight
            )
            weight, dropped = weight + w, dropped + n
        if truncation.max_terms is not None and len(coefficients) > truncation.max_terms:
            keep = xp.sort(
                xp.argpartition(-xp.abs(coefficients), truncation.max_terms)[: truncation.max_terms]
            )
            lost = xp.ones(len(coefficients), dtype=bool)
            lost[keep] = False
            weight += float(xp.abs(coefficients[lost]).sum())
            dropped += int(lost.sum())
            strings, coefficients = strings[keep], coefficients[keep]
        peak = max(peak, len(coefficients))
        if bar is not None:
            bar.update(done + 1)
    if bar is not None:
        bar.close()
    value = engine.pauli_diagonal_value(strings, coefficients, bits) if len(coefficients) else 0.0
    host = packed_paulis.to_host
    return value, weight, dropped, peak, host(strings), host(coefficients)
