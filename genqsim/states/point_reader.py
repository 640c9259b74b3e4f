"""An optimiser's loop: ``gq.expectation(template, observable, values=point)`` at one point
after another, everything but the values worked out once.

The first call with given arguments makes a :class:`PointReader` and keeps it on the
template (until the template grows): the decision between the whole circuit and its light
cones (:mod:`genqsim.states.cones`), each part's sweep plan and initial state
(:func:`~genqsim.states.swept.sweep_setup`), the observables parsed, the values of the
terms whose cones hold no parameter. A later point costs its values read, one call for the
numbers of its gates, one run and one pass of the terms per part: tens of microseconds on
small states, where the general path's arguments, method choice and sweep objects cost
more than the run.

It serves what :func:`genqsim.expectation`'s sweeps serve at one point (machine numbers,
Pauli sums, the state-vector method, the ``threads`` option); anything else, and any
mistake, goes the general way, which explains it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..backends import SweepRunner, capability
from ..circuit.circuit import Circuit
from ..distributed.ranks import launched_ranks
from ..errors import GenqsimError
from ..linalg.pauli import PauliSum
from ..numbers import NumberSystem, get_number_system
from ..plan.sweep import SweepPlan
from .base import pauli_sum_values
from .cones import cones_cost_less, group_value, narrower_groups
from .registry import AUTO, choose_method
from .swept import point_values, sweep_setup

READER_OPTIONS = frozenset({"numbers", "backend", "initial", "method", "threads"})
"""The arguments a point reader takes (any other sends the call the general way)."""


@dataclass(frozen=True)
class _Part:
    """A circuit swept for some of the terms: the whole template or a light cone's."""

    plan: SweepPlan
    columns: np.ndarray | None
    """The template's value columns of the part's parameters (``None``: all, in order)."""
    initial: np.ndarray | None
    reads: list[tuple[int, PauliSum]]
    """``(observable, terms)``: the terms of each observable this part evaluates."""


@dataclass(frozen=True)
class PointReader:
    """The value of an expectation at one point of a template's parameters (see the
    module's text); call it with the values, ``None`` where they are not one point of real
    finite numbers for every parameter."""

    template: Circuit
    parts: list[_Part]
    fixed: list[Any]
    """Per observable, the value of its terms whose cones hold no parameter (``None``)."""
    many: bool
    numbers: NumberSystem
    runner: SweepRunner
    threads: int | None

    def __call__(self, values: Mapping[Any, Any]) -> Any:
        found = point_values(self.template, values)
        if found is None or found[0]:
            return None
        table = found[1]
        totals = list(self.fixed)
        for part in self.parts:
            data = part.plan.numbers_at(table if part.columns is None else table[:, part.columns])
            if data is None:
                return None
            (state,) = part.plan.states(data, part.initial, self.threads)
            strings = functools.partial(self.runner.pauli_strings_points, state)
            for k, terms in part.reads:
                (value,) = pauli_sum_values(terms, self.numbers, strings)
                totals[k] = value if totals[k] is None else totals[k] + value
        return totals if self.many else totals[0]


def point_reader(
    template: Circuit, observable: Any, options: Mapping[str, Any], light_cone: bool
) -> PointReader | None:
    """The reader of ``observable`` on ``template`` with :func:`genqsim.expectation`'s
    ``options`` (``numbers``, ``backend``, ``initial``, ``method`` and run options), kept on
    the template; ``None`` where it does not serve them."""
    given = {k: v for k, v in options.items() if v is not None}
    if not set(given) <= READER_OPTIONS:
        return None
    listed = list(observable) if isinstance(observable, (list, tuple)) else [observable]
    if not listed or not all(isinstance(o, (str, PauliSum)) for o in listed):
        return None
    kept_by = tuple(o if isinstance(o, str) else id(o) for o in listed)
    key = ("point reader", kept_by, isinstance(observable, (list, tuple)), light_cone,
           tuple(sorted(given.items())), launched_ranks())  # fmt: skip
    try:
        hash(key)
    except TypeError:  # an initial state given as an array: the general way
        return None
    kept = template.derived(key, lambda: (listed, _reader(template, observable, given, light_cone)))
    same = all(a is b or isinstance(b, str) for a, b in zip(kept[0], listed))
    return kept[1] if same else _reader(template, observable, given, light_cone)


def _reader(
    template: Circuit, observable: Any, options: Mapping[str, Any], light_cone: bool
) -> PointReader | None:
    """:func:`point_reader`, worked out: the parts as :func:`genqsim.expectation`'s sweep
    of one point would choose them."""
    try:
        numbers = get_number_system(options.get("numbers") or "complex128")
        many = isinstance(observable, (list, tuple))
        listed = list(observable) if many else [observable]
        parsed = [PauliSum.for_state(o, template.n_qubits) for o in listed]
        if numbers.dtype.kind != "c" or numbers.symbolic or not template.parameters:
            return None
        groups = narrower_groups(template, observable, options) if light_cone else None
        whole = _setup(template, numbers, options)
        if groups is not None and (whole is None or cones_cost_less(template, groups, 1)):
            return _on_cones(template, groups, numbers, options, many)
        if whole is None:
            return None
        reads = list(enumerate(parsed))
        return _made(template, [_part(template, whole, reads)], [None] * len(parsed), many,
                     numbers, options)  # fmt: skip
    except GenqsimError:
        return None  # the general way explains it


def _setup(circuit: Circuit, numbers: NumberSystem, options: Mapping[str, Any]) -> Any:
    """The sweep setup of ``circuit`` where the options choose the state vector for it."""
    method = options.get("method", AUTO)
    threads = {"threads": options["threads"]} if "threads" in options else {}
    if method == AUTO:
        method = choose_method(circuit, numbers, threads)
    if method != "statevector":
        return None
    return sweep_setup(circuit, numbers, options.get("backend"), options.get("initial"))


def _part(template: Circuit, setup: Any, reads: list[tuple[int, PauliSum]]) -> _Part:
    """A part of the reader from the sweep setup of a circuit (the template or a cone)."""
    plan, initial, _ = setup
    column = {p: k for k, p in enumerate(template.parameters)}
    columns = np.array([column[p] for p in plan.parameters], dtype=np.int64)
    identity = np.array_equal(columns, np.arange(len(template.parameters)))
    return _Part(plan, None if identity else columns, initial, reads)


def _on_cones(
    template: Circuit,
    groups: list[list[Any]],
    numbers: NumberSystem,
    options: Mapping[str, Any],
    many: bool,
) -> PointReader | None:
    """The reader that sweeps the light cone groups with parameters (one part per cone,
    shared by the observables whose terms it holds) and evaluates the others once."""
    parts: dict[tuple[int, Any], tuple[Any, list[tuple[int, PauliSum]]]] = {}
    fixed: list[Any] = [None] * len(groups)
    for k, gs in enumerate(groups):
        for g in gs:
            if not g.circuit.parameters:  # the same value at every point: run once
                value = group_value(g, options)
                fixed[k] = value if fixed[k] is None else fixed[k] + value
                continue
            setup = _setup(g.circuit, numbers, {**options, "initial": g.initial})
            if setup is None:
                return None
            # the cones' circuits are kept on the template: one part per circuit and start
            parts.setdefault((id(g.circuit), g.initial), (setup, []))[1].append((k, g.terms))
    made = [_part(template, setup, reads) for setup, reads in parts.values()]
    return _made(template, made, fixed, many, numbers, options)


def _made(
    template: Circuit,
    parts: Sequence[_Part],
    fixed: list[Any],
    many: bool,
    numbers: NumberSystem,
    options: Mapping[str, Any],
) -> PointReader | None:
    """The reader, on the backend the parts' plans run on."""
    runner = capability(parts[0].plan.backend, SweepRunner) if parts else None
    if runner is None:
        return None
    return PointReader(template, list(parts), fixed, many, numbers, runner, options.get("threads"))
