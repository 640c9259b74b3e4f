"""Kinds of state behind one protocol, chosen by ``gq.simulate(circuit, method=...)``.

* :mod:`.protocol`: the :class:`State` protocol (required and optional members).
* :mod:`.registry`: the methods (``"statevector"``, ``"interval"``, ``"tangent"``, and
  plugins through the ``genqsim.states`` entry-point group) and :func:`simulate`.
* :mod:`.statevector`, :mod:`.interval`, :mod:`.tangent`, :mod:`.density`: the built-in
  kinds (:mod:`.doubling` turns circuits into the ``vec(rho)`` circuits density matrices
  run).
* :mod:`.sampling`: seeds, bitstrings and counts, shared by every kind.
* :mod:`.options`: the run options a state carries.
"""

from __future__ import annotations

from .density import DensityMatrix, run_density_matrix
from .interval import IntervalState, enclose, run_interval
from .options import RunOptions
from .protocol import HasAmplitudes, HasOverlap, Seed, State
from .registry import (
    DEFAULT_METHOD,
    ENTRY_POINT_GROUP,
    Method,
    SimulationRequest,
    available_methods,
    expectation,
    get_method,
    register_method,
    simulate,
)
from .sampling import counts, memory
from .statevector import StateVector, basis, initial_state, run_statevector, zeros
from .storage import load_state, save_state
from .tangent import TangentState, run_tangent
from .trajectories import Estimate, TrajectoryRunner, TrajectoryState, run_trajectories
from .unitary import unitary


def _run_mpi(request: SimulationRequest) -> State:
    """``method="mpi"``: imported on first use (it brings in mpi4py, which starts MPI)."""
    from ..distributed import run_mpi

    return run_mpi(request)


def _run_mps(request: SimulationRequest) -> State:
    """``method="mps"``: a matrix-product state (:mod:`genqsim.mps`, imported on first use)."""
    from ..mps import run_mps

    return run_mps(request)


register_method("statevector", run_statevector)
register_method("interval", run_interval)
register_method("tangent", run_tangent)
register_method("density_matrix", run_density_matrix)
register_method("trajectories", run_trajectories)
register_method("mpi", _run_mpi)
register_method("mps", _run_mps)

__all__ = [
    "DEFAULT_METHOD",
    "ENTRY_POINT_GROUP",
    "DensityMatrix",
    "Estimate",
    "HasAmplitudes",
    "HasOverlap",
    "IntervalState",
    "Method",
    "RunOptions",
    "Seed",
    "SimulationRequest",
    "State",
    "StateVector",
    "TangentState",
    "TrajectoryRunner",
    "TrajectoryState",
    "available_methods",
    "basis",
    "counts",
    "enclose",
    "expectation",
    "get_method",
    "initial_state",
    "load_state",
    "memory",
    "register_method",
    "save_state",
    "simulate",
    "unitary",
    "zeros",
]
