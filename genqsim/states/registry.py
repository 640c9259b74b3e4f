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

import contextlib
import dataclasses
import importlib
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import numpy as np

from ..backends import Backend, backend_for
from ..circuit.circuit import Circuit
from ..errors import (
    ArgumentTypeError,
    ArgumentValueError,
    GenqsimError,
    NumberTypeError,
    UnknownMethodError,
    UnknownOptionError,
)
from ..numbers import NumberSystem, get_number_system
from ..plan import check_bound
from .base import StateBase
from .options import RunOptions
from .protocol import Seed, State

ENTRY_POINT_GROUP = "genqsim.states"
AUTO = "auto"
DEFAULT_METHOD = AUTO
"""``simulate``'s default: the registry picks a method for the circuit (:func:`choose_method`)."""

FALLBACK_METHOD = "statevector"
"""What ``method="auto"`` runs when no method with an automatic rule claims the circuit."""

WIDE_METHOD = "pauli"
"""What :func:`expectation` with ``method="auto"`` runs on a light cone wider than
:data:`WIDE_QUBITS` (or, in exact numbers, than :data:`WIDE_EXACT_QUBITS`): the
observable propagated in the Heisenberg picture instead of a ``2**n`` state."""
WIDE_QUBITS = 26
"""Light cones above this many qubits are too wide for a state vector (1 GiB in complex128)."""
WIDE_EXACT_QUBITS = 8
"""Exact numbers (trig, SymPy) grow expressions with the state: above this many qubits the
Heisenberg route is the cheaper one."""


@dataclass(frozen=True)
class SimulationRequest:
    """Everything ``simulate`` was asked for, resolved once: the circuit, the number system
    (``None`` when the caller left it to the method), where to run, the initial state, the
    seed for mid-circuit collapses and the method's options (an instance of its
    :attr:`MethodSpec.options` class)."""

    circuit: Circuit
    numbers: NumberSystem | None
    backend: str | None = None
    device: str | None = None
    initial: Any = None
    seed: Seed = None
    options: RunOptions = field(default_factory=RunOptions)


Method = Callable[[SimulationRequest], State]
"""A simulation method: builds the initial state and runs the circuit on it."""

AutoRule = Callable[[Circuit, "NumberSystem | None"], bool]
"""Whether ``method="auto"`` should run a circuit (in these numbers) with a method."""
Sweeper = Callable[[Circuit, Mapping[Any, Any], Mapping[str, Any]], Any]
"""A method's sweep over parameter arrays from one plan (:attr:`MethodSpec.sweep`)."""


@dataclass(frozen=True)
class MethodSpec:
    """One simulation method: its name, how it runs, its options and when ``"auto"``
    picks it.

    ``options``: the dataclass of the method's settings, a :class:`RunOptions` subclass
    whose extra fields are made with :func:`~genqsim.states.options.option` (help text
    included: the command line makes its flags from them). ``auto``: the rule
    ``method="auto"`` asks (``None``: never chosen automatically); where several rules
    claim a circuit the highest ``priority`` wins. ``summary``: one line for ``--help``.
    ``ensemble``: the state keeps every branch of mid-circuit measurements (a mixed state,
    :class:`~genqsim.states.protocol.HasRecordDistribution`), so :func:`~genqsim.counts`
    draws all shots from one run instead of one run per shot. ``averages``: the method's
    expectation values are means over the outcomes of mid-circuit measurements and the
    branches of channels (exact or estimated; an ``ensemble`` method's are), so
    :func:`~genqsim.expectation` hands it circuits that measure (it follows every history
    itself for ``"statevector"`` and refuses other methods, which would give one history's
    value). ``light_cone``: the method's
    expectation values are exact functions of the state, so :func:`expectation` may run each
    term on its own light cone (a smaller circuit) and give the same value. ``sweep``: how
    the method runs a circuit at every point of broadcast parameter arrays from one plan,
    ``sweep(circuit, values, simulate_options)``, giving an object with the points'
    ``shape``, their ``states()`` and ``expectations(observable)``, or ``None`` where it
    does not serve those arguments (then every point is run on its own).
    """

    name: str
    run: Method
    options: type[RunOptions] = RunOptions
    summary: str = ""
    auto: AutoRule | None = None
    priority: int = 0
    ensemble: bool = False
    light_cone: bool = False
    sweep: Sweeper | None = None
    averages: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or self.name == AUTO:
            raise ArgumentValueError(
                f"a method name is a non-empty string other than {AUTO!r}, got {self.name!r}"
            )
        if not callable(self.run):
            raise ArgumentTypeError(f"method {self.name!r}: run must be callable")
        if not (isinstance(self.options, type) and issubclass(self.options, RunOptions)):
            raise ArgumentTypeError(
                f"method {self.name!r}: options must be a RunOptions subclass, got {self.options!r}"
            )

    def option_names(self) -> list[str]:
        """The names of every option the method takes (shared ones included)."""
        return [f.name for f in dataclasses.fields(self.options)]

    def make_options(self, given: Mapping[str, Any]) -> RunOptions:
        """The method's options from keywords, refusing any it does not have with the list
        of those it has (and the methods that have the refused ones)."""
        names = set(self.option_names())
        unknown = sorted(set(given) - names)
        if unknown:
            owners = {
                k: [m.name for m in _specs().values() if k in m.option_names()] for k in unknown
            }
            where = "; ".join(
                f"{k} is an option of method {', '.join(repr(o) for o in v)}"
                for k, v in owners.items()
                if v
            )
            raise UnknownOptionError(
                f"method {self.name!r} has no option {', '.join(repr(k) for k in unknown)}; "
                f"its options: {', '.join(self.option_names())}" + (f" ({where})" if where else "")
            )
        return self.options(**given)


_METHODS: dict[str, MethodSpec] = {}
_entry_points_loaded = False


def register_method(
    name: str | MethodSpec,
    method: Method | None = None,
    *,
    options: type[RunOptions] = RunOptions,
    summary: str = "",
    auto: AutoRule | None = None,
    priority: int = 0,
    ensemble: bool = False,
    light_cone: bool = False,
    averages: bool = False,
) -> MethodSpec:
    """Make ``gq.simulate(circuit, method=name)`` run ``method`` (replacing any earlier one
    of that name): either a :class:`MethodSpec`, or a name and a run function with the
    spec's other fields as keywords. Returns the spec."""
    if isinstance(name, MethodSpec):
        spec = name
    else:
        if method is None:
            raise ArgumentTypeError("register_method(name, method): the run function is missing")
        spec = MethodSpec(name, method, options, summary, auto, priority, ensemble, light_cone,
                          averages=averages)  # fmt: skip
    _METHODS[spec.name] = spec
    return spec


def _as_spec(name: str, loaded: Any) -> MethodSpec:
    """An entry point's object: a :class:`MethodSpec`, or a plain run function."""
    return loaded if isinstance(loaded, MethodSpec) else MethodSpec(name, loaded)


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
            _METHODS[ep.name] = _as_spec(ep.name, ep.load())
        except Exception as exc:  # a broken third-party plugin must not break genqsim
            warnings.warn(
                f"genqsim state entry point {ep.name!r} failed to load: {exc}", stacklevel=3
            )


def _specs() -> dict[str, MethodSpec]:
    _load_entry_points()
    return _METHODS


def available_methods() -> list[str]:
    """Names accepted by ``simulate(method=...)`` (besides ``"auto"``)."""
    return sorted(_specs())


def method_spec(name: str) -> MethodSpec:
    """The method registered as ``name``."""
    _load_entry_points()
    if name not in _METHODS:
        _load_entry_points(rescan=True)
    if name not in _METHODS:
        raise UnknownMethodError(
            f"unknown method {name!r}; available: {AUTO}, {', '.join(available_methods())}"
        )
    return _METHODS[name]


def get_method(name: str) -> Method:
    """The run function of the method registered as ``name``."""
    return method_spec(name).run


def choose_method(
    circuit: Circuit, numbers: NumberSystem | None = None, options: Mapping[str, Any] = {}
) -> str:
    """What ``method="auto"`` runs: of the methods whose automatic rule claims the circuit
    (noise: a density matrix up to a size, trajectories above; several MPI ranks: ``"mpi"``)
    and ``"statevector"`` last, the first by priority that has every option in ``options``
    (``trajectories=500`` on a small noisy circuit picks trajectories). Options no candidate
    has are refused by the first candidate, with the methods that have them."""
    specs = _specs()
    candidates = sorted(
        (s for s in specs.values() if _claims(s, circuit, numbers)), key=lambda s: -s.priority
    )
    candidates.append(specs[FALLBACK_METHOD])
    for spec in candidates:
        if set(options) <= set(spec.option_names()):
            return spec.name
    candidates[0].make_options(options)  # raises, naming the methods that have them
    raise AssertionError("unreachable: make_options accepted options it lacks")


def mixed_state(matrix: Any, numbers: NumberSystem, options: RunOptions | None = None) -> State:
    """The density matrix ``matrix`` (``2**k x 2**k``) as a state of the method registered as
    ``"density_matrix"``: how a kind makes a reduced state without importing that kind."""
    spec = method_spec("density_matrix")
    n_qubits = int(np.shape(matrix)[0]).bit_length() - 1
    request = SimulationRequest(
        Circuit(n_qubits), numbers, initial=matrix, options=spec.options.of(options)
    )
    return spec.run(request)


def _method_of_options(options: RunOptions | None) -> str | None:
    """The one method whose options class ``options`` is (``None`` for the shared class)."""
    if options is None or type(options) is RunOptions:
        return None
    owners = [s.name for s in _specs().values() if s.options is type(options)]
    return owners[0] if len(owners) == 1 else None


def _method_of_state(initial: Any) -> str | None:
    """The method of a state given as ``initial`` where it is another kind than a state vector
    (a density matrix continues as one); ``None`` otherwise."""
    kind = initial.method if isinstance(initial, StateBase) else None
    return kind if kind in _specs() and kind != FALLBACK_METHOD else None


def _claims(spec: MethodSpec, circuit: Circuit, numbers: NumberSystem | None) -> bool:
    return spec.auto is not None and bool(spec.auto(circuit, numbers))


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
    options: RunOptions | None = None,
    **method_options: Any,
) -> Any:
    """Run ``circuit`` and return the final state; ``state.method`` names the method that ran.

    ``method`` picks the kind of state (:func:`available_methods`): ``"auto"`` (the
    default: :func:`choose_method` decides from the circuit, numbers and options),
    ``"statevector"``, ``"density_matrix"``, ``"trajectories"``, ``"interval"``,
    ``"tangent"``, ``"mpi"``, ``"mps"``, or one a plugin registered. Settings of one method
    are keywords (``method="mps", max_bond=64``) or its options object (``options=
    gq.MPSOptions(max_bond=64)``); one the method lacks is an
    :class:`~genqsim.errors.UnknownOptionError` that lists those it has.

    Shared by every method: ``numbers`` (the number system; default ``complex128`` for state
    vectors); ``initial`` (``|0...0>`` by default, or a bitstring, a basis index, an array or
    a state, copied); ``device="gpu"`` (a GPU backend) or ``backend`` (one by name);
    ``seed`` (mid-circuit measurements); ``fuse``, ``progress`` and ``threads`` (the run
    options the state keeps, :class:`~genqsim.states.RunOptions`).

    >>> import genqsim as gq
    >>> gq.simulate(gq.Circuit(2).h(0).cx(0, 1)).method
    'statevector'
    >>> mps = gq.simulate(gq.library.ghz(30), method="mps", max_bond=4)
    >>> mps.method, mps.max_bond_dimension
    ('mps', 2)
    >>> gq.simulate(gq.Circuit(2), max_bond=4)
    Traceback (most recent call last):
    genqsim.errors.UnknownOptionError: method 'statevector' has no option 'max_bond'; ...
    """
    if not isinstance(circuit, Circuit):
        raise ArgumentTypeError(f"simulate() takes a Circuit, got {type(circuit).__name__}")
    ns = None if numbers is None else get_number_system(numbers)  # resolved once, here
    given = {"threads": threads, "fuse": fuse, "progress": progress, **method_options}
    if options is not None:
        if not isinstance(options, RunOptions):
            raise ArgumentTypeError(
                f"options= takes a RunOptions (a method's options class), "
                f"got {type(options).__name__}"
            )
        if method_options:
            raise ArgumentValueError(
                "give a method's settings either as keywords or as options=, not both"
            )
        defaults = {f.name: f.default for f in dataclasses.fields(RunOptions)}
        keywords = {k: v for k, v in given.items() if v is not defaults[k]}  # set by the caller
        given = {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}
        given.update(keywords)  # threads=, fuse=, progress= beside options= are not dropped
    if method == AUTO:
        method = (_method_of_options(options) or _method_of_state(initial)
                  or choose_method(circuit, ns, given))  # fmt: skip
    spec = method_spec(method)
    run_options = spec.make_options(given)
    if ns is not None:
        check_bound(circuit, ns)  # the common mistake, caught before allocating
    request = SimulationRequest(circuit, ns, backend, device, initial, seed, run_options)
    state = spec.run(request)
    with contextlib.suppress(AttributeError):  # a plugin's state may refuse new attributes
        setattr(state, "method", spec.name)  # noqa: B010 (not every State declares it)
    return state


def swept_states(
    circuit: Circuit, values: Mapping[Any, Any], simulate_options: Mapping[str, Any]
) -> Any:
    """``circuit`` at every point of the parameter arrays in ``values``, from one plan, as
    the method :func:`simulate` runs with ``simulate_options`` computes it
    (:attr:`MethodSpec.sweep`); ``None`` where that method has no sweep or its sweep does
    not serve these arguments, and for mistakes the point-by-point path explains."""
    options = dict(simulate_options)
    method = options.pop("method", AUTO) or AUTO
    if method == AUTO:
        numbers = options.get("numbers")
        own = {k: v for k, v in options.items() if k not in _SWEEP_SHARED}
        try:
            ns = None if numbers is None else get_number_system(numbers)
            method = choose_method(circuit, ns, own)
        except GenqsimError:
            return None
    spec = _specs().get(method)
    if spec is None or spec.sweep is None:
        return None
    return spec.sweep(circuit, values, options)


_SWEEP_SHARED = frozenset({"numbers", "backend", "initial", "device", "seed"})
"""Arguments of :func:`simulate` that are not a method's options."""
