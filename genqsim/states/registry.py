"""Simulation methods: the registry of state kinds behind ``gq.simulate(method=...)``.

A method is a callable that takes a :class:`SimulationRequest` and returns a
:class:`~genqsim.states.State`. Built in: ``"statevector"`` (the default: a dense state
vector on any backend and number system), ``"density_matrix"`` (mixed states: noise
channels exactly, mid-circuit measurements as an ensemble), ``"trajectories"`` (noisy circuits
averaged over state-vector runs), ``"interval"`` (a rigorous enclosure of the exact state,
results as balls), ``"tangent"`` (a state and its derivatives with respect to the circuit
parameters, on the fast kernels), ``"mpi"`` (a state vector spread over MPI ranks) and
``"mps"`` (a matrix-product state, optionally charge-conserving).

Third parties add a method without editing genqsim, through the ``genqsim.states``
entry-point group (``name = "package.module:function"``), or in-process with
:func:`register_method`.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from ..backends import Backend, backend_for
from ..circuit import Circuit
from ..errors import ArgumentTypeError, ArgumentValueError, NumberTypeError, UnknownMethodError
from ..numbers import Number, NumberSystem, get_number_system
from ..pauli import PauliSum
from ..plan import check_bound
from .options import RunOptions
from .protocol import Seed, State

ENTRY_POINT_GROUP = "genqsim.states"
DEFAULT_METHOD = "statevector"


@dataclass(frozen=True)
class SimulationRequest:
    """Everything ``simulate`` was asked for, resolved once: the circuit, the number system
    (``None`` when the caller left it to the method), where to run, the initial state, the
    seed for mid-circuit collapses and the run options."""

    circuit: Circuit
    numbers: NumberSystem | None
    backend: str | None = None
    device: str | None = None
    initial: Any = None
    seed: Seed = None
    options: RunOptions = field(default_factory=RunOptions)


Method = Callable[[SimulationRequest], State]
"""A simulation method: builds the initial state and runs the circuit on it."""

_METHODS: dict[str, Method] = {}
_entry_points_loaded = False


def register_method(name: str, method: Method) -> None:
    """Make ``gq.simulate(circuit, method=name)`` run ``method`` (replacing any earlier one
    of that name)."""
    if not isinstance(name, str) or not name:
        raise ArgumentValueError(f"a method name is a non-empty string, got {name!r}")
    _METHODS[name] = method


def _load_entry_points(rescan: bool = False) -> None:
    """Read the ``genqsim.states`` entry points once (again with ``rescan``: a plugin
    installed after genqsim was imported)."""
    global _entry_points_loaded
    if _entry_points_loaded and not rescan:
        return
    _entry_points_loaded = True
    if rescan:
        importlib.invalidate_caches()
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in _METHODS:
            continue
        try:
            _METHODS[ep.name] = ep.load()
        except Exception as exc:  # a broken third-party plugin must not break genqsim
            warnings.warn(
                f"genqsim state entry point {ep.name!r} failed to load: {exc}", stacklevel=3
            )


def available_methods() -> list[str]:
    """Names accepted by ``simulate(method=...)``."""
    _load_entry_points()
    return sorted(_METHODS)


def get_method(name: str) -> Method:
    """The method registered as ``name``."""
    _load_entry_points()
    if name not in _METHODS:
        _load_entry_points(rescan=True)
    if name not in _METHODS:
        raise UnknownMethodError(
            f"unknown method {name!r}; available: {', '.join(available_methods())}"
        )
    return _METHODS[name]


def cpu_backend(request: SimulationRequest, method: str) -> Backend:
    """The complex128 CPU backend for a method that runs on host arrays (the one named in
    the request, or the default one), refusing a device backend."""
    backend = backend_for(get_number_system("complex128"), request.device, request.backend)
    if backend.device != "cpu":
        raise NumberTypeError(
            f"method={method!r} runs on a CPU backend, not on {backend.name!r} ({backend.device})"
        )
    return backend


def simulate(
    circuit: Circuit,
    numbers: str | NumberSystem | None = None,
    backend: str | None = None,
    initial: Any = None,
    fuse: int | bool | None = None,
    seed: Seed = None,
    progress: bool = False,
    device: str | None = None,
    *,
    method: str = DEFAULT_METHOD,
    threads: int | None = None,
    trajectories: int = 1000,
    pauli_basis: bool | None = None,
    exchange_chunk: int | None = None,
    remap: bool = True,
    max_bond: int | None = None,
    cutoff: float = 0.0,
    conserve: str | None = None,
) -> Any:
    """Run ``circuit`` and return the final state.

    ``method`` picks the kind of state (:func:`available_methods`): ``"statevector"`` (the
    default), ``"density_matrix"`` (mixed states, noise channels exactly),
    ``"trajectories"`` (noisy circuits averaged over ``trajectories`` state-vector runs),
    ``"interval"``, ``"tangent"``, ``"mpi"`` (a state vector spread over the ranks of an
    ``mpiexec`` run, :mod:`genqsim.distributed`), ``"mps"`` (a matrix-product state with bond
    limit ``max_bond``, discarded-weight ``cutoff`` and, with ``conserve``, a U(1) charge,
    :mod:`genqsim.mps`), or one a plugin registered. ``numbers``: the
    number system (default ``complex128`` for state vectors); ``initial``: ``|0...0>`` by
    default, or a bitstring, a basis index, an array or a state (copied); ``device="gpu"``
    runs on a GPU backend; ``backend`` names one; ``fuse``, ``progress`` and ``threads`` are
    the run options the state keeps (:class:`~genqsim.states.RunOptions`), as is
    ``pauli_basis`` (density matrices on real Pauli coordinates: ``None`` where it pays),
    ``exchange_chunk`` and ``remap`` (``method="mpi"``: amplitudes per message, and whether
    qubits move between local and rank positions); ``seed`` seeds mid-circuit measurements.
    """
    if not isinstance(circuit, Circuit):
        raise ArgumentTypeError(f"simulate() takes a Circuit, got {type(circuit).__name__}")
    run = get_method(method)
    ns = None if numbers is None else get_number_system(numbers)  # resolved once, here
    if ns is not None:
        check_bound(circuit, ns)  # the common mistake, caught before allocating
    options = RunOptions(
        threads=threads,
        fuse=fuse,
        progress=progress,
        trajectories=trajectories,
        pauli_basis=pauli_basis,
        exchange_chunk=exchange_chunk,
        remap=remap,
        max_bond=max_bond,
        cutoff=cutoff,
        conserve=conserve,
    )
    request = SimulationRequest(circuit, ns, backend, device, initial, seed, options)
    return run(request)


def expectation(
    circuit: Circuit,
    observable: str | PauliSum,
    numbers: str | NumberSystem | None = None,
    backend: str | None = None,
    initial: Any = None,
    values: Mapping[Any, Any] | None = None,
    *,
    method: str = DEFAULT_METHOD,
) -> Number:
    """``<psi|observable|psi>`` for ``psi = circuit |initial>``, optionally binding ``values``."""
    if values:
        circuit = circuit.bind(values)
    state = simulate(circuit, numbers, backend, initial, method=method)
    return state.expectation(observable)
