"""Outcome probabilities of whole circuits, at one parameter point or broadcast over arrays
of them (:mod:`.chunks`): ``gq.probabilities(circuit, qubits, values={theta: grid})``, the
distributions Qiskit's ``StatevectorSampler`` draws from, without the sampling.

Above the state kinds: it runs circuits through :func:`~genqsim.states.registry.simulate`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

import numpy as np

from ..circuit.circuit import Circuit
from .chunks import broadcast_points, run_points
from .histories import means_or_method
from .registry import AUTO, simulate, swept_states


def probabilities(
    circuit: Circuit,
    qubits: Sequence[int] | None = None,
    *,
    values: Mapping[Any, Any] | None = None,
    executor: Executor | None = None,
    chunk_size: int | None = None,
    **simulate_options: Any,
) -> Any:
    """Probabilities of the basis states of ``qubits`` (every qubit by default; ``qubits[0]``
    the lowest bit of the index) in the state ``circuit`` leaves, as
    :meth:`State.probabilities <genqsim.states.protocol.State.probabilities>` gives them.
    Measurements at the end of the circuit are left out (they leave the distribution as it
    is). With mid-circuit measurements, resets, conditionals or channels the probabilities
    are the mean over their outcomes, as :func:`genqsim.expectation` averages them
    (:mod:`genqsim.states.histories`: every history on state vectors, or a method that
    averages), not one history's. ``simulate_options`` go to :func:`genqsim.simulate`
    (``method``, ``numbers``, ``initial``, ...).

    ``values`` binds the circuit's parameters; arrays broadcast as NumPy's do, and the result
    has their broadcast shape followed by the ``2**len(qubits)`` outcomes (floats, or exact
    objects for symbolic numbers). ``executor`` and ``chunk_size`` run the points in chunks
    on any ``concurrent.futures.Executor``, as :func:`genqsim.expectation` does.

    >>> import genqsim as gq, numpy as np
    >>> theta = gq.parameters("theta")[0]
    >>> p = gq.probabilities(gq.Circuit(1).ry(theta, 0), values={theta: [0, np.pi]})
    >>> p.round(12).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    task = functools.partial(_probabilities_point, qubits=qubits, options=simulate_options)
    if not values and executor is None:
        return task(circuit, None)
    sweep = None if executor is not None else swept_states(circuit, values or {}, simulate_options)
    if sweep is not None:  # one plan, every point's state from the fast kernels
        shape = sweep.shape
        found = [state.probabilities(qubits) for state in sweep.states()]
    else:
        shape, points = broadcast_points(values or {})
        whole = functools.partial(_probabilities_chunk, qubits=qubits, options=simulate_options)
        found = run_points(task, circuit, points, executor=executor, chunk_size=chunk_size,
                           chunk_task=whole)  # fmt: skip
    arrays = [np.asarray(p) for p in found]
    exact = any(a.dtype == object for a in arrays)
    stacked = np.array(arrays, dtype=object if exact else float)
    return stacked.reshape(shape + stacked.shape[1:])


def _probabilities_chunk(
    circuit: Circuit,
    values: Mapping[Any, Any],
    qubits: Sequence[int] | None,
    options: dict[str, Any],
) -> list[Any] | None:
    """A chunk of a sweep on an executor's worker as one broadcast sweep of its points
    (``None`` where the method's sweep does not serve it: then point by point)."""
    sweep = swept_states(circuit, values, options)
    return None if sweep is None else [state.probabilities(qubits) for state in sweep.states()]


def _probabilities_point(
    circuit: Circuit, seed: Any, qubits: Sequence[int] | None, options: dict[str, Any]
) -> Any:
    """:func:`probabilities` at one bound point (``seed`` unused: exact values). Terminal
    measurements do not change the distribution, so they are not run (a state vector would
    collapse on one outcome); mid-circuit ones give the mean over their outcomes."""
    rest, _ = circuit.split_terminal_measurements()
    if rest.has_non_unitary:
        read = lambda state: [state.probabilities(qubits)]  # noqa: E731
        means, method = means_or_method(rest, read, options.get("method", AUTO), options)
        if means is not None:
            return means[0]
        options = {**options, "method": method}
    return simulate(rest, **options).probabilities(qubits)
