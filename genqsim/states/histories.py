"""Means over the outcomes of mid-circuit measurements, resets, conditionals and channels:
what :func:`genqsim.expectation` and :func:`genqsim.probabilities` give for a circuit that
has them, instead of one history drawn at random (the state :func:`genqsim.simulate`
returns). With state vectors, every history with a nonzero probability is followed, depth
first, and weighted by its probability (:func:`~genqsim.states.counting.branch_states`);
methods whose values are such means already (``MethodSpec.averages``: a density matrix,
trajectories, Pauli propagation) are handed the circuit; methods that keep one history are
refused."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..circuit.circuit import Circuit
from ..errors import ArgumentValueError
from ..numbers import NumberSystem, get_number_system
from .counting import SIMULATE_PARAMETERS, branch_states
from .protocol import State
from .registry import AUTO, choose_method, method_spec

MAX_HISTORIES = 1 << 16
"""Histories of mid-circuit outcomes (and Kraus branches) followed one state vector at a
time; a circuit with more is refused, with the methods that serve it."""


def averaging_method(
    circuit: Circuit, numbers: str | NumberSystem | None, method: str, options: Mapping[str, Any]
) -> str | None:
    """How a circuit with mid-circuit measurements, resets, conditionals or channels is
    averaged over its outcomes: ``None`` to follow every history on state vectors
    (:func:`mean_over_histories`; ``"statevector"``, and ``"auto"`` where it picks it, with
    machine numbers), else the method to run, one whose values are such means (exact
    numbers take a density matrix). Methods that run one history are refused."""
    system = None if numbers is None else get_number_system(numbers)
    own = {k: v for k, v in options.items() if k not in SIMULATE_PARAMETERS}
    chosen = choose_method(circuit, system, own) if method == AUTO else method
    spec = method_spec(chosen)
    exact = system is not None and system.dtype.kind != "c"
    if spec.name == "statevector":
        return "density_matrix" if exact and not circuit.has_loops else None
    if spec.averages:
        return chosen
    raise ArgumentValueError(
        "a circuit with mid-circuit measurements, resets, conditionals or channels gives a "
        f"mean over their outcomes, and method={chosen!r} runs one history of them: use "
        "method='statevector' (every history, exactly), 'density_matrix' (the ensemble, "
        "exactly) or 'trajectories' (an estimate)"
    )


def means_or_method(
    circuit: Circuit,
    read: Callable[[State], list[Any]],
    method: str,
    options: Mapping[str, Any],
) -> tuple[list[Any] | None, str]:
    """For a circuit that :attr:`~genqsim.Circuit.runs_before_read_out` (its terminal
    measurements left out): ``(means, method)``, the means of ``read`` over every history
    where state vectors follow them, else ``(None, the method to run)``, one that averages
    (:func:`averaging_method`); ``options`` are :func:`genqsim.simulate`'s."""
    run = averaging_method(circuit, options.get("numbers"), method, options)
    if run is None:
        return mean_over_histories(circuit, read, options), method
    return None, run


def mean_over_histories(
    circuit: Circuit, read: Callable[[State], list[Any]], options: Mapping[str, Any]
) -> list[Any]:
    """The probability-weighted mean of ``read(state)`` (a list of values or arrays) over
    every history of ``circuit``'s mid-circuit outcomes and Kraus branches, run on state
    vectors with :func:`genqsim.simulate`'s ``options``."""
    totals: list[Any] | None = None
    histories = branch_states(circuit, **{**options, "method": "statevector"})
    for count, (state, probability) in enumerate(histories, 1):
        if count > MAX_HISTORIES:
            raise ArgumentValueError(
                f"the circuit has more than {MAX_HISTORIES:,} histories of mid-circuit "
                "outcomes with a nonzero probability, each a state vector to follow: its "
                "mean over them is out of reach this way; use method='density_matrix' "
                "(exact, up to about 13 qubits) or method='trajectories' (an estimate)"
            )
        values = [probability * v for v in read(state)]
        totals = values if totals is None else [t + v for t, v in zip(totals, values)]
    assert totals is not None  # the probabilities of the histories sum to 1: one at least
    return totals
