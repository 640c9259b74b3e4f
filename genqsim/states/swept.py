"""Parameter sweeps from one plan: the final state vector at every point of broadcast
parameter arrays, as :func:`genqsim.expectation`, :func:`genqsim.probabilities` and
:func:`genqsim.counts` take them (``values={theta: grid}``).

The circuit is planned once (:class:`~genqsim.plan.sweep.SweepPlan`, kept on the circuit
for the next sweep), every point's gate numbers are computed together, and the states of
many points run in one call of the fast kernels. Each point's state is then a
:class:`~genqsim.states.statevector.StateVector` like the one :func:`genqsim.simulate`
returns, so every value read from it is the one a run at that point gives.

It serves what a sweep most often is: a unitary circuit (measurements at the end allowed),
machine numbers, a state vector that fits one of the backend's blocks, real parameter
values. Anything else goes point by point (:mod:`genqsim.states.chunks`), which also
explains any mistake in the arguments.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..backends import SweepRunner, backend_for, capability
from ..circuit.circuit import Circuit
from ..errors import GenqsimError
from ..linalg.observables import observable_for_state
from ..linalg.pauli import PauliSum
from ..numbers import NumberSystem, get_number_system
from ..plan.sweep import SweepPlan
from .base import pauli_sum_values
from .options import RunOptions
from .registry import SimulationRequest
from .statevector import StateVector, initial_state, run_statevector

SWEPT_OPTIONS = frozenset({"threads"})
"""Run options a swept run honours (any other sends the sweep point by point)."""


def point_values(
    circuit: Circuit, values: Mapping[Any, Any]
) -> tuple[tuple[int, ...], np.ndarray] | None:
    """The broadcast shape of ``values`` and, in C order, every point's values of the
    circuit's parameters (``(points, parameters)`` floats, columns in the order of
    ``circuit.parameters``); ``None`` unless each parameter has real finite values and
    every key names one (the point-by-point path explains the rest)."""
    parameters = circuit.parameters
    if len(values) == len(parameters):  # an optimiser's dictionary of floats by symbol
        try:
            row = [values[p] for p in parameters]
        except KeyError:
            row = None
        if row is not None and all(type(v) is float for v in row):
            table = np.array([row])
            return ((), table) if np.isfinite(table).all() else None
    column = circuit.derived("parameter columns", lambda: _parameter_columns(circuit))
    columns: dict[int, Any] = {}
    for key, value in values.items():
        k = column.get(key)
        if k is None and not isinstance(key, str):
            k = column.get(str(key))  # a symbol equal in name only (other assumptions)
        if k is None or k in columns:
            return None
        columns[k] = value
    if len(columns) != len(circuit.parameters):
        return None
    if all(isinstance(v, _REAL_SCALARS) and type(v) is not bool for v in columns.values()):
        # one point, an optimiser's loop: no arrays to broadcast
        point = np.array([[columns[k] for k in range(len(columns))]], dtype=float)
        return ((), point) if np.isfinite(point).all() else None
    arrays = {k: np.asarray(v) for k, v in columns.items()}
    if any(a.dtype.kind not in "iuf" for a in arrays.values()):
        return None
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError:
        return None
    points = int(np.prod(shape, dtype=np.int64))
    table = np.empty((points, len(arrays)))
    for k, array in arrays.items():
        table[:, k] = np.broadcast_to(array, shape).reshape(-1)
    return (shape, table) if np.isfinite(table).all() else None


_REAL_SCALARS = (float, int, np.floating, np.integer)
"""Real numbers that make one point (Python's bools excluded where they are read)."""


def _parameter_columns(circuit: Circuit) -> dict[Any, int]:
    """Each parameter's column in :func:`point_values`' table, found by the symbol or by its
    name."""
    column: dict[Any, int] = {}
    for k, p in enumerate(circuit.parameters):
        column[p] = column[str(p)] = k
    return column


@dataclass
class Sweep:
    """A circuit's final states over the points of a sweep (see the module's text): their
    broadcast :attr:`shape`, and the states a chunk of points at a time."""

    shape: tuple[int, ...]
    plan: SweepPlan
    data: np.ndarray
    """Every point's encoded numbers (:meth:`~genqsim.plan.sweep.SweepPlan.numbers_at`)."""
    initial: np.ndarray | None
    """The initial amplitudes as a run makes them (``None``: ``|0...0>``)."""
    options: RunOptions
    """The options of the states a run makes."""
    threads: int | None

    @property
    def numbers(self) -> NumberSystem:
        """The states' number system."""
        return self.plan.numbers

    def chunks(self) -> Iterator[np.ndarray]:
        """The points' states as ``(points, 2**n)`` arrays, in C order of :attr:`shape`."""
        return self.plan.states(self.data, self.initial, self.threads)

    def states(self) -> Iterator[StateVector]:
        """Each point's state, as :func:`genqsim.simulate` returns it (rows of a chunk)."""
        for chunk in self.chunks():
            for row in chunk:
                yield self._state(row)

    def expectations(self, observable: Any) -> list[Any]:
        """``<observable>`` at every point (a list per point for a list of observables):
        Pauli sums over whole chunks at once (:func:`~genqsim.states.base.pauli_sum_values`),
        matrix observables state by state."""
        n = self.plan.n_qubits
        many = isinstance(observable, (list, tuple))
        parsed = [observable_for_state(o, n) for o in (observable if many else [observable])]
        runner = capability(self.plan.backend, SweepRunner)
        assert runner is not None  # a sweep plan is only built for backends that run sweeps
        found: list[Any] = []
        for chunk in self.chunks():
            strings = functools.partial(runner.pauli_strings_points, chunk)
            columns = [
                pauli_sum_values(o, self.numbers, strings) if isinstance(o, PauliSum)
                else [self._state(row).expectation(o) for row in chunk]
                for o in parsed
            ]  # fmt: skip
            found.extend(list(point) if many else point[0] for point in zip(*columns))
        return found

    def _state(self, row: np.ndarray) -> StateVector:
        """A point's state: a row of a chunk, on the backend that ran it."""
        return StateVector(row, self.numbers, self.plan.backend, self.options)


def sweep_for(
    circuit: Circuit,
    values: Mapping[Any, Any],
    numbers: str | NumberSystem | None = None,
    backend: str | None = None,
    initial: Any = None,
    options: Mapping[str, Any] | None = None,
) -> Sweep | None:
    """The final states of ``circuit`` (without its terminal measurements) at every point
    of ``values``, run as ``genqsim.simulate(..., method="statevector")`` with these
    arguments would run them; ``None`` where the sweep is not served (module text)."""
    options = {k: v for k, v in (options or {}).items() if v is not None}
    if not set(options) <= SWEPT_OPTIONS:
        return None
    threads = options.get("threads")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or threads < 1):  # fmt: skip
        return None
    if backend is not None and not isinstance(backend, str):
        return None
    try:
        ns = get_number_system("complex128" if numbers is None else numbers)
    except GenqsimError:
        return None
    if ns.dtype.kind != "c" or ns.symbolic:
        return None
    setup = sweep_setup(circuit, ns, backend, initial)
    found = None if setup is None else point_values(circuit, values)
    if setup is None or found is None:
        return None
    plan, amplitudes, run_options = setup
    shape, table = found
    data = plan.numbers_at(table)
    if data is None:
        return None
    return Sweep(shape, plan, data, amplitudes, run_options, threads)


SweepSetup = tuple[SweepPlan, "np.ndarray | None", RunOptions]
"""A sweep's plan, initial amplitudes (``None``: ``|0...0>``) and states' options."""


def sweep_setup(
    circuit: Circuit, numbers: NumberSystem, backend: str | None, initial: Any
) -> SweepSetup | None:
    """What a sweep of ``circuit`` needs besides the values (:data:`SweepSetup`), kept on the
    circuit for an initial state given as ``None``, a bitstring or an index (an optimiser's
    loop asks at every point); ``None`` where no sweep serves the circuit."""
    if initial is None or isinstance(initial, (str, int)):
        return circuit.derived(
            ("sweep setup", numbers.name, backend, initial),
            lambda: _sweep_setup(circuit, numbers, backend, initial),
        )
    return _sweep_setup(circuit, numbers, backend, initial)


def _sweep_setup(
    circuit: Circuit, numbers: NumberSystem, backend: str | None, initial: Any
) -> SweepSetup | None:
    """:func:`sweep_setup`, worked out: the plan of ``circuit`` (kept on it, without its
    terminal measurements), the initial amplitudes and the states' options."""
    rest, _ = circuit.split_terminal_measurements()
    if rest.has_non_unitary or not circuit.parameters:  # nothing swept: one run
        return None
    amplitudes, run_options = None, RunOptions()
    if initial is not None or backend is not None:  # else |0...0> on the CPU, as plans start
        start = initial_state(circuit.n_qubits, initial, numbers, backend)
        if not isinstance(start.amplitudes, np.ndarray):
            return None  # a device's state: swept point by point there
        amplitudes, run_options = start.amplitudes, start.options
        amplitudes.setflags(write=False)  # kept for every sweep: runs copy it
    # the fastest backend for the numbers, also for states a single run keeps on NumPy:
    # many points in one call pay for the compiled kernels
    runner = backend_for(numbers, None, backend)
    plan = circuit.derived(
        ("sweep plan", numbers.name, runner.name), lambda: SweepPlan.build(rest, numbers, runner)
    )
    if plan is None or plan.parameters != circuit.parameters:
        return None
    return plan, amplitudes, run_options


def run_statevector_point(request: SimulationRequest) -> StateVector:
    """``method="statevector"``: :func:`~genqsim.states.statevector.run_statevector`, except
    for a circuit :meth:`~genqsim.circuit.circuit.Circuit.bind` made from machine reals (an
    optimiser's loop binding a template at each point), which runs as a sweep of one point
    of its template's plan, kept on the template: no planning per point, and one compiled
    call for a state within one of the backend's blocks. The state is the one the plain run
    gives, on the backend and with the options that run would have."""
    found = request.circuit.bound_point()
    options = request.options
    if (
        found is None
        or request.device is not None
        or options.fuse is not None
        or options.progress
        or request.circuit.has_non_unitary
    ):
        return run_statevector(request)
    template, point = found
    numbers = request.numbers or get_number_system("complex128")
    threads = {} if options.threads is None else {"threads": options.threads}
    sweep = sweep_for(template, point, numbers, request.backend, request.initial, threads)
    if sweep is None:
        return run_statevector(request)
    (amplitudes,) = sweep.chunks()
    psi = initial_state(request.circuit.n_qubits, request.initial, numbers, request.backend,
                        None, options)  # fmt: skip
    return StateVector(amplitudes[0], psi.numbers, psi.backend, psi.options)


def sweep_with(
    circuit: Circuit, values: Mapping[Any, Any], simulate_options: Mapping[str, Any]
) -> Sweep | None:
    """:func:`sweep_for` with the keywords of :func:`genqsim.simulate` (``numbers``,
    ``backend``, ``initial`` and the run options): the state vector's
    :attr:`~genqsim.states.MethodSpec.sweep`."""
    options = dict(simulate_options)
    picked = {k: options.pop(k, None) for k in ("numbers", "backend", "initial")}
    return sweep_for(circuit, values, options=options, **picked)
