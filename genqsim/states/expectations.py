"""Expectation values, the front door ``gq.expectation``: one bound circuit run whole or
a group of terms at a time on each group's backward light cone, and parameter values
(one point or broadcast arrays) run as sweeps of one plan, on the whole circuit or on its
light cones (:mod:`genqsim.states.swept`), or point by point where no sweep serves them.

A point of an optimiser's loop (values without arrays) costs what a sweep of one point
costs: no binding, no planning, one compiled call per light cone group.

Terminal measurements are read-out, left to sampling as everywhere in genqsim: the value
is that of the state before them. Mid-circuit measurements, resets, conditionals and
channels make the value a mean over their outcomes, as a density matrix holds it: they are
followed on every history of outcomes (:func:`genqsim.states.counting.branch_states`),
never on one drawn at random.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

import numpy as np

from ..circuit.circuit import Circuit
from ..errors import ArgumentValueError
from ..linalg.pauli import PauliSum
from ..numbers import Number, NumberSystem, get_number_system
from .chunks import broadcast_points, run_points
from .cones import (
    ConeGroup,
    cone_applies,
    cone_groups,
    cones_cost_less,
    group_value,
    has_narrower_cone,
    narrower_groups,
)
from .histories import means_or_method
from .point_reader import point_reader
from .registry import (
    DEFAULT_METHOD,
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

    Terminal measurements are left to sampling (the state before them is read). A circuit
    with mid-circuit measurements, resets, conditionals or channels gives the mean over
    their outcomes, exactly: with ``method="statevector"`` (what ``"auto"`` picks without
    noise) every history of outcomes with a nonzero probability is followed, one state
    vector at a time (at most :data:`~genqsim.states.histories.MAX_HISTORIES` of them);
    ``"density_matrix"`` holds the ensemble, ``"trajectories"`` estimates it, and Pauli
    propagation averages as it propagates. Methods that keep one history (MPS, MPI) refuse
    such circuits rather than give one run's value.

    >>> import genqsim as gq
    >>> c = gq.Circuit(60).h(0).h(1).h(30).cx(0, 1)
    >>> round(gq.expectation(c, "X0 X1 + X30"), 12)  # a 2-qubit and a 1-qubit state, not 2**60
    2.0
    >>> m = gq.Circuit(2, n_clbits=1).h(0).measure(0, 0).if_(0, 1, gq.Circuit(2).x(1))
    >>> round(gq.expectation(m, "Z1"), 12), round(gq.expectation(m, "Z0 Z1"), 12)
    (0.0, 1.0)
    """
    if values and executor is None and _one_point(values):  # an optimiser's loop
        options = {"numbers": numbers, "backend": backend, "initial": initial, "method": method,
                   **method_options}  # fmt: skip
        reader = point_reader(circuit, observable, options, light_cone)  # kept on the template
        value = None if reader is None else reader(values)
        if value is not None:
            return value
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


def _one_point(values: Mapping[Any, Any]) -> bool:
    """Whether ``values`` look like one point (its first value a number; the reader checks
    the rest and refuses anything else)."""
    first = next(iter(values.values()))
    return isinstance(first, (float, int, np.floating, np.integer))


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
    rest, _ = circuit.split_terminal_measurements()  # read-out: left to sampling
    if rest.has_non_unitary:  # mid-circuit measurements, resets, conditionals, channels
        listed = list(observable) if isinstance(observable, (list, tuple)) else [observable]
        options = {**method_options, "numbers": numbers, "backend": backend, "initial": initial}
        read = lambda state: [state.expectation(o) for o in listed]  # noqa: E731
        means, method = means_or_method(rest, read, method, options)
        if means is not None:
            return means if isinstance(observable, (list, tuple)) else means[0]
    if isinstance(observable, (list, tuple)):
        if not observable:
            raise ArgumentValueError("an empty list of observables: give at least one")
        if light_cone and all(
            cone_applies(circuit, o, initial, method) and has_narrower_cone(circuit, o)
            for o in observable
        ):
            return [
                _expectation_by_cones(circuit, o, numbers, backend, initial, method, method_options)
                for o in observable
            ]
        state = simulate(circuit, numbers, backend, initial, method=method, **method_options)
        return [state.expectation(o) for o in observable]
    if light_cone and cone_applies(circuit, observable, initial, method):
        return _expectation_by_cones(
            circuit, observable, numbers, backend, initial, method, method_options
        )
    state = simulate(circuit, numbers, backend, initial, method=method, **method_options)
    return state.expectation(observable)


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
    options = {"numbers": numbers, "backend": backend, "method": method, **method_options}
    total: Any = None
    for group in cone_groups(circuit, observable, initial):
        value = group_value(group, options)
        total = value if total is None else total + value
    if total is None:  # no term (an empty sum)
        system = get_number_system(numbers or "complex128")
        return 0.0 if system.dtype.kind == "c" else system.zero
    return total


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
    groups = narrower_groups(circuit, observable, options) if light_cone else None
    found = None if groups is None else point_values(circuit, values)
    if groups is not None and found is not None:
        if cones_cost_less(circuit, groups, found[1].shape[0]):
            cones = _swept_cones(groups, found, options, circuit.parameters, many)
            if cones is not None:
                return cones
    sweep = swept_states(circuit, values, options)
    if sweep is not None:
        return sweep.shape, sweep.expectations(observable)
    if groups is not None and found is not None:
        return _swept_cones(groups, found, options, circuit.parameters, many)
    return None


def _swept_cones(
    groups: list[list[ConeGroup]],
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
    points = table.shape[0]
    columns: list[list[Any]] = []
    for gs in groups:
        total: list[Any] | None = None
        for g in gs:
            if id(g) in swept:
                part = swept[id(g)].expectations(g.terms)
            else:  # a cone without parameters: the same value at every point, run once
                part = [group_value(g, options)] * points
            total = part if total is None else [a + b for a, b in zip(total, part)]
        assert total is not None  # every observable has a group
        columns.append(total)
    return shape, [list(point) for point in zip(*columns)] if many else columns[0]
