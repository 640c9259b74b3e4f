"""Expectation values, the front door ``gq.expectation``: one bound circuit run whole or
a group of terms at a time on each group's backward light cone, and parameter values
(one point or broadcast arrays) run as sweeps of one plan, on the whole circuit or on its
light cones (:mod:`genqsim.states.swept`), or point by point where no sweep serves them.

A point of an optimiser's loop (values without arrays) costs what a sweep of one point
costs: no binding, no planning, one compiled call per light cone group.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..circuit.circuit import Circuit
from ..circuit.gates import GateKind
from ..circuit.growth import TRIG_STATE_LOG2_TERMS, trig_growth_log2
from ..errors import ArgumentValueError
from ..linalg.pauli import PauliSum
from ..numbers import Number, NumberSystem, get_number_system
from .chunks import broadcast_points, run_points
from .registry import (
    AUTO,
    DEFAULT_METHOD,
    WIDE_EXACT_QUBITS,
    WIDE_METHOD,
    WIDE_QUBITS,
    available_methods,
    method_spec,
    simulate,
    swept_states,
)
from .swept import point_values


def expectation(
    circuit: Circuit,
    observable: str | PauliSum | Sequence[str | PauliSum],
    numbers: str | NumberSystem | None = None,
    backend: str | None = None,
    initial: Any = None,
    values: Mapping[Any, Any] | None = None,
    *,
    method: str = DEFAULT_METHOD,
    light_cone: bool = True,
    executor: Executor | None = None,
    chunk_size: int | None = None,
    **method_options: Any,
) -> Number:
    """``<psi|observable|psi>`` for ``psi = circuit |initial>``, optionally binding ``values``;
    ``method`` and its options as in :func:`simulate`.

    With ``light_cone`` (the default), a Pauli-sum observable on a circuit without
    measurements, resets or conditionals, started from a basis state, is evaluated a group of
    terms at a time on each group's backward light cone (:meth:`Circuit.light_cone`) when that
    is smaller than the circuit: the same value, from states of the cone's size (``"auto"``
    chooses the method per cone, Pauli propagation for cones wider than a state vector holds,
    :data:`WIDE_METHOD`; a named method only where its values are exact functions of the
    state, :attr:`MethodSpec.light_cone`). ``light_cone=False`` runs the whole circuit.

    Several observables (a list or tuple) give a list of values, in order, from one run (or
    each from its light cones). ``values`` may hold arrays: they broadcast as NumPy arrays do,
    one run per point, and the result is an array of their broadcast shape (with a last axis
    over the observables when several are given), as Qiskit's Estimator shapes its results.
    ``executor`` (any ``concurrent.futures.Executor``: a process pool, a Dask client's
    ``get_executor()``) runs the points in chunks of ``chunk_size`` on its workers, with the
    same values in the same order (:mod:`genqsim.states.chunks`); without ``values`` it goes
    to the method (``method="trajectories"`` runs chunks of its trajectories there).

    >>> import genqsim as gq
    >>> c = gq.Circuit(60).h(0).h(1).h(30).cx(0, 1)
    >>> round(gq.expectation(c, "X0 X1 + X30"), 12)  # a 2-qubit and a 1-qubit state, not 2**60
    2.0
    """
    task = functools.partial(
        _expectation_point,
        observable=observable, numbers=numbers, backend=backend, initial=initial,
        method=method, light_cone=light_cone, method_options=method_options,
    )  # fmt: skip
    if not values:
        if executor is not None:  # no points to split: the method's own (trajectories)
            own = {**method_options, "executor": executor}
            return _expectation_at(
                circuit, observable, numbers, backend, initial, method, light_cone, own
            )
        return task(circuit, None)
    options = {"numbers": numbers, "backend": backend, "initial": initial, "method": method,
               **method_options}  # fmt: skip
    # one plan per light cone group or for the whole circuit, every point's state from the
    # fast kernels; values read as a run gives them
    found = None if executor else _swept_expectations(circuit, observable, values, options,
                                                      light_cone)  # fmt: skip
    if found is not None:
        shape, out = found
        if not shape:
            return out[0]  # one point: its value (or list of values), as a run gives it
    else:
        shape, points = broadcast_points(values)
        if not shape and executor is None:
            return task(circuit.bind(points[0]), None)
        whole = functools.partial(_expectation_chunk, observable=observable, options=options)
        out = run_points(task, circuit, points, executor=executor, chunk_size=chunk_size,
                         chunk_task=whole)  # fmt: skip
    result = np.array(out, dtype=object if _holds_objects(out) else None)
    return result.reshape(shape + result.shape[1:])


def _expectation_chunk(
    circuit: Circuit, values: Mapping[Any, Any], observable: Any, options: Mapping[str, Any]
) -> list[Any] | None:
    """A chunk of a sweep on an executor's worker as one broadcast sweep of its points
    (``None`` where the method's sweep does not serve it: then point by point)."""
    sweep = swept_states(circuit, values, options) if _listed_observables(observable) else None
    return None if sweep is None else sweep.expectations(observable)


def _listed_observables(observable: Any) -> bool:
    """Whether ``observable`` is one observable or a non-empty list of them (an empty list
    goes the point-by-point way, which refuses it)."""
    return not isinstance(observable, (list, tuple)) or len(observable) > 0


def _expectation_point(circuit: Circuit, seed: Any, **settings: Any) -> Any:
    """:func:`expectation` at one bound point of a sweep (``seed`` unused: exact values)."""
    return _expectation_at(circuit, **settings)


def _holds_objects(results: list[Any]) -> bool:
    """Whether sweep results are exact numbers (kept as objects, not cast to floats)."""
    flat = [x for r in results for x in (r if isinstance(r, list) else [r])]
    return not all(isinstance(x, (int, float, complex, np.number)) for x in flat)


def _has_narrower_cone(circuit: Circuit, observable: str | PauliSum) -> bool:
    """Whether a term of ``observable`` has a light cone narrower than the circuit (else
    one state of the whole circuit serves every observable of a list)."""
    obs = PauliSum.for_state(observable, circuit.n_qubits)
    return any(
        circuit.light_cone(tuple(q for q, _ in pauli) or (0,)).size < circuit.n_qubits
        for _, pauli in obs.terms
    )


def _expectation_at(
    circuit: Circuit,
    observable: Any,
    numbers: str | NumberSystem | None,
    backend: str | None,
    initial: Any,
    method: str,
    light_cone: bool,
    method_options: Mapping[str, Any],
) -> Any:
    """The value(s) of :func:`expectation` for one bound circuit."""
    if isinstance(observable, (list, tuple)):
        if not observable:
            raise ArgumentValueError("an empty list of observables: give at least one")
        if light_cone and all(
            _cone_applies(circuit, o, initial, method) and _has_narrower_cone(circuit, o)
            for o in observable
        ):
            return [
                _expectation_by_cones(circuit, o, numbers, backend, initial, method, method_options)
                for o in observable
            ]
        state = simulate(circuit, numbers, backend, initial, method=method, **method_options)
        return [state.expectation(o) for o in observable]
    if light_cone and _cone_applies(circuit, observable, initial, method):
        return _expectation_by_cones(
            circuit, observable, numbers, backend, initial, method, method_options
        )
    state = simulate(circuit, numbers, backend, initial, method=method, **method_options)
    return state.expectation(observable)


def _cone_applies(circuit: Circuit, observable: Any, initial: Any, method: str) -> bool:
    """Light cones give the same value: a Pauli sum, a circuit whose operations are gates and
    channels (no collapse, nothing classical), a basis state to start from, a method whose
    values are exact functions of the state."""
    if not isinstance(observable, (str, PauliSum)):
        return False
    if initial is not None and not (
        isinstance(initial, str)
        or (isinstance(initial, (int, np.integer)) and not isinstance(initial, bool))
    ):
        return False
    if method != AUTO and not method_spec(method).light_cone:
        return False
    return circuit.n_qubits > 1 and not circuit.derived(
        "collapses or reads bits",  # kept: asked at every point of an optimiser's loop
        lambda: any(op.kind in _NO_CONES for op in circuit.operations),
    )


_NO_CONES = (GateKind.MEASURE, GateKind.RESET, GateKind.CONDITIONAL)
"""Operations whose circuits are run whole (a cone would change what they do)."""


@dataclass(frozen=True)
class _ConeGroup:
    """Terms of an observable that share a light cone: the cone as a circuit of its own
    (the circuit itself where the cone spans it), the terms on its qubits, and the basis
    state it starts from."""

    circuit: Circuit
    terms: PauliSum
    initial: Any

    @property
    def work(self) -> int:
        """Amplitude updates of one run: gates times amplitudes."""
        return len(self.circuit.operations) << self.circuit.n_qubits


def _cone_groups(circuit: Circuit, observable: str | PauliSum, initial: Any) -> list[_ConeGroup]:
    """The terms of ``observable`` grouped by light cone (:meth:`Circuit.light_cone`), kept
    on ``circuit`` with the cones' circuits, so a sweep's template makes them once (an
    observable given as a :class:`PauliSum` is kept by identity, and alive with them)."""
    key = observable if isinstance(observable, str) else id(observable)
    kept = circuit.derived(
        ("light cone groups", key, initial),
        lambda: (observable, _grouped(circuit, observable, initial)),
    )
    if kept[0] is observable or isinstance(observable, str):
        return kept[1]
    return _grouped(circuit, observable, initial)


def _grouped(circuit: Circuit, observable: str | PauliSum, initial: Any) -> list[_ConeGroup]:
    """:func:`_cone_groups`, worked out."""
    obs = PauliSum.for_state(observable, circuit.n_qubits)
    bits = _basis_index(initial, circuit.n_qubits)
    grouped: dict[tuple[int, ...], list[tuple[Any, Any]]] = {}
    cones = {}
    for coeff, pauli in obs.terms:
        cone = circuit.light_cone(tuple(q for q, _ in pauli) or (0,))
        cones[cone.qubits] = cone
        grouped.setdefault(cone.qubits, []).append((coeff, pauli))
    groups = []
    for qubits, terms in grouped.items():
        cone = cones[qubits]
        if cone.size == circuit.n_qubits:
            groups.append(_ConeGroup(circuit, PauliSum(terms), initial))
            continue
        position = {q: i for i, q in enumerate(qubits)}
        sub = circuit.derived(("light cone circuit", qubits), cone.compact)
        sub_terms = [(c, {position[q]: p for q, p in pauli}) for c, pauli in terms]
        sub_initial = sum((bits >> q & 1) << i for i, q in enumerate(qubits))
        groups.append(_ConeGroup(sub, PauliSum(sub_terms), sub_initial))
    return groups


def _expectation_by_cones(
    circuit: Circuit,
    observable: str | PauliSum,
    numbers: str | NumberSystem | None,
    backend: str | None,
    initial: Any,
    method: str,
    method_options: Mapping[str, Any],
) -> Number:
    """The terms grouped by light cone, each group run on its cone's circuit."""
    ns = None if numbers is None else get_number_system(numbers)
    total: Any = None
    for group in _cone_groups(circuit, observable, initial):
        run = _wide(method, group.circuit, ns)
        state = simulate(group.circuit, ns, backend, group.initial, method=run, **method_options)
        value = state.expectation(group.terms)
        total = value if total is None else total + value
    return total


CONE_GROUP_WORK = 1 << 16
"""A light cone group's own cost in a sweep, as amplitude updates (planning its sweep,
calling the kernels, reading its terms: some tens of microseconds), weighed against the
amplitude updates the cones save over one sweep of the whole circuit."""


def _swept_expectations(
    circuit: Circuit,
    observable: Any,
    values: Mapping[Any, Any],
    options: Mapping[str, Any],
    light_cone: bool,
) -> tuple[tuple[int, ...], list[Any]] | None:
    """The values of :func:`expectation` at every point of ``values`` (``(shape, values per
    point)``, a list per point for a list of observables) from sweeps: of the light cone
    groups where cones apply, are narrower than the circuit and cost less than the whole
    circuit (or the whole circuit has no sweep), else of the whole circuit; ``None`` where
    neither is served (then point by point)."""
    if not _listed_observables(observable):
        return None
    many = isinstance(observable, (list, tuple))
    groups = _narrower_groups(circuit, observable, options) if light_cone else None
    found = None if groups is None else point_values(circuit, values)
    if groups is not None and found is not None:
        points = found[1].shape[0]
        whole = points * (len(circuit.operations) << circuit.n_qubits)
        if sum(points * g.work + CONE_GROUP_WORK for gs in groups for g in gs) < whole:
            cones = _swept_cones(groups, found, options, circuit.parameters, many)
            if cones is not None:
                return cones
    sweep = swept_states(circuit, values, options)
    if sweep is not None:
        return sweep.shape, sweep.expectations(observable)
    if groups is not None and found is not None:
        return _swept_cones(groups, found, options, circuit.parameters, many)
    return None


def _narrower_groups(
    circuit: Circuit, observable: Any, options: Mapping[str, Any]
) -> list[list[_ConeGroup]] | None:
    """Each observable's light cone groups, where light cones apply to all of them and one
    is narrower than the circuit; ``None`` otherwise."""
    initial, method = options.get("initial"), options.get("method", AUTO)
    listed = list(observable) if isinstance(observable, (list, tuple)) else [observable]
    if not all(_cone_applies(circuit, o, initial, method) for o in listed):
        return None
    groups = [_cone_groups(circuit, o, initial) for o in listed]
    if all(g.circuit is circuit for gs in groups for g in gs):
        return None  # no narrower cone: one sweep of the whole circuit
    return groups


def _swept_cones(
    groups: list[list[_ConeGroup]],
    found: tuple[tuple[int, ...], np.ndarray],
    options: Mapping[str, Any],
    parameters: Sequence[Any],
    many: bool,
) -> tuple[tuple[int, ...], list[Any]] | None:
    """The observables' values at every point of ``found`` (:func:`point_values` of the
    circuit, its columns in the order of ``parameters``; a list per point where ``many``)
    from a sweep of every light cone group with parameters and one run of every group
    without; ``None`` where a group's sweep is not served."""
    shape, table = found
    column = {p: k for k, p in enumerate(parameters)}
    swept = {}
    for gs in groups:
        for g in gs:
            if not g.circuit.parameters:
                continue
            own = {
                p: table[:, column[p]].reshape(shape) if shape else float(table[0, column[p]])
                for p in g.circuit.parameters
            }
            sweep = swept_states(g.circuit, own, {**options, "initial": g.initial})
            if sweep is None:
                return None
            swept[id(g)] = sweep
    method = options.get("method", AUTO)
    fixed = {k: v for k, v in options.items() if k not in ("initial", "method")}
    points = table.shape[0]
    columns = []
    for gs in groups:
        total: list[Any] | None = None
        for g in gs:
            if id(g) in swept:
                part = swept[id(g)].expectations(g.terms)
            else:  # a cone without parameters: the same value at every point, run once
                run = _wide(method, g.circuit, _numbers_of(options))
                state = simulate(g.circuit, initial=g.initial, method=run, **fixed)
                part = [state.expectation(g.terms)] * points
            total = part if total is None else [a + b for a, b in zip(total, part)]
        columns.append(total)
    return shape, [list(point) for point in zip(*columns)] if many else columns[0]


def _numbers_of(options: Mapping[str, Any]) -> NumberSystem | None:
    """The number system named in ``options`` (``None``: the default)."""
    numbers = options.get("numbers")
    return None if numbers is None else get_number_system(numbers)


def _wide(method: str, circuit: Circuit, numbers: NumberSystem | None) -> str:
    """``method``, or :data:`WIDE_METHOD` where ``"auto"`` meets a cone too wide for a
    state (machine numbers) or for exact expressions (symbolic numbers), or trig numbers
    whose amplitudes would pass :data:`~genqsim.circuit.growth.TRIG_STATE_LOG2_TERMS`."""
    if method != AUTO or WIDE_METHOD not in available_methods():
        return method
    limit = WIDE_EXACT_QUBITS if numbers is not None and numbers.symbolic else WIDE_QUBITS
    if circuit.n_qubits > limit:
        return WIDE_METHOD
    if numbers is not None and trig_growth_log2(circuit, numbers) > TRIG_STATE_LOG2_TERMS:
        return WIDE_METHOD  # exact amplitudes would explode; Pauli coefficients stay small
    return method


def _basis_index(initial: Any, n_qubits: int) -> int:
    """The basis index of ``None``, an index or a bitstring (checked by the full run's rules
    when they are wrong: the state of the whole circuit reports them)."""
    if initial is None:
        return 0
    if isinstance(initial, str):
        from .base import check_qubit_count

        check_qubit_count("initial bitstring", len(initial), n_qubits)
        if set(initial) - {"0", "1"}:
            raise ArgumentValueError(f"initial bitstring must hold 0 and 1 only, got {initial!r}")
        return int(initial, 2)
    if not 0 <= int(initial) < 1 << n_qubits:
        raise ArgumentValueError(f"initial basis index {initial} is outside 0..2**{n_qubits}-1")
    return int(initial)
