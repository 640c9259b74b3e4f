"""Kinds of state behind one protocol, chosen by ``gq.simulate(circuit, method=...)``.

* :mod:`.protocol`: the :class:`State` protocol (required and optional members).
* :mod:`.base`: :class:`~genqsim.states.base.StateBase`, what every built-in kind shares
  (circuit checks, Pauli sums, sampling, measuring, saving, displays).
* :mod:`.registry`: :class:`MethodSpec`, :func:`register_method`, ``method="auto"``
  (:func:`choose_method`) and :func:`simulate`; the built-in methods are registered by
  :mod:`genqsim.methods`, plugins through the ``genqsim.states`` entry-point group.
* :mod:`.statevector`, :mod:`.interval`, :mod:`.tangent`, :mod:`.density`: the built-in
  kinds (:mod:`.doubling` turns circuits into the ``vec(rho)`` circuits density matrices
  run).
* :mod:`.sampling`: seeds, bitstrings and drawing from distributions, shared by every kind;
  :mod:`.counting`: counts and per-shot memory of whole circuits; :mod:`.distributions`:
  their outcome probabilities, swept over parameter arrays.
* :mod:`.options`: the run options a state carries, and :func:`~.options.option` for a
  method's own.
"""

from __future__ import annotations

from .counting import counted_register, counts, memory, record_distribution
from .density import DensityMatrix, DensityOptions
from .distributions import probabilities
from .expectations import expectation
from .interval import IntervalState, enclose
from .options import RunOptions
from .protocol import HasAmplitudes, HasOverlap, Seed, State
from .registry import (
    AUTO,
    DEFAULT_METHOD,
    ENTRY_POINT_GROUP,
    Method,
    MethodSpec,
    SimulationRequest,
    available_methods,
    choose_method,
    get_method,
    method_spec,
    register_method,
    simulate,
)
from .saving import save_state
from .statevector import StateVector, basis, initial_state, zeros
from .storage import load_state
from .tangent import TangentState
from .trajectories import (
    Estimate,
    TrajectoryOptions,
    TrajectoryRunner,
    TrajectoryState,
)
from .unitary import unitary

__all__ = [
    "AUTO",
    "DEFAULT_METHOD",
    "ENTRY_POINT_GROUP",
    "DensityMatrix",
    "DensityOptions",
    "Estimate",
    "HasAmplitudes",
    "HasOverlap",
    "IntervalState",
    "Method",
    "MethodSpec",
    "RunOptions",
    "Seed",
    "SimulationRequest",
    "State",
    "StateVector",
    "TangentState",
    "TrajectoryOptions",
    "TrajectoryRunner",
    "TrajectoryState",
    "available_methods",
    "basis",
    "choose_method",
    "counted_register",
    "counts",
    "enclose",
    "expectation",
    "get_method",
    "initial_state",
    "load_state",
    "memory",
    "method_spec",
    "probabilities",
    "record_distribution",
    "register_method",
    "save_state",
    "simulate",
    "unitary",
    "zeros",
]
