"""Backends: the kernels that act on state arrays, chosen by array type and dtype.

A backend implements the small protocol :class:`Backend`. Backends register by name — the
built-in ones here, third-party ones through the ``genqsim.backends`` entry-point group — and
:func:`select_backend` picks the highest-priority backend that supports an array, unless the
user names one (``backend="numpy"``). Backends subclass :class:`GenericBackend`, so a primitive
a fast backend does not implement falls back to the generic routine.

Each backend declares the ``device`` its arrays live on; :func:`backend_for` maps a device
(``"cpu"``, ``"gpu"``) and number system to a backend, so nothing outside this registry names
a concrete backend. Optional capabilities are the Protocols of :mod:`.protocol`, asked for
with :func:`capability`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from importlib import metadata

from ..errors import ArgumentValueError, NumberTypeError, SlowFallbackWarning, UnknownBackendError
from ..numbers import NumberSystem
from .protocol import (
    CAPABILITIES,
    DEVICES,
    AdjointSteps,
    ArrayNamespace,
    Backend,
    BatchPrimitives,
    BlockLayout,
    BlockRunner,
    DeviceInfo,
    DeviceSampler,
    DeviceSelector,
    GateCallRunner,
    GenericBackend,
    IQPEncoder,
    KernelCache,
    MonomialRunner,
    PauliCoordinates,
    PauliPropagator,
    ReferencePauliPropagator,
    ReferenceSegmentRunner,
    SegmentRunner,
    ShotGroupRunner,
    SweepRunner,
    ThreadScoped,
    capabilities_of,
    capability,
)

__all__ = [
    "CAPABILITIES",
    "DEVICES",
    "AdjointSteps",
    "ArrayNamespace",
    "Backend",
    "BatchPrimitives",
    "BlockLayout",
    "BlockRunner",
    "DeviceInfo",
    "DeviceSampler",
    "DeviceSelector",
    "GateCallRunner",
    "GenericBackend",
    "IQPEncoder",
    "KernelCache",
    "MonomialRunner",
    "PauliCoordinates",
    "PauliPropagator",
    "ReferencePauliPropagator",
    "ReferenceSegmentRunner",
    "SegmentRunner",
    "ShotGroupRunner",
    "SweepRunner",
    "ThreadScoped",
    "available_backends",
    "backend_for",
    "capabilities_of",
    "capability",
    "get_backend",
    "min_state_qubits",
    "normalize_device",
    "register_backend",
    "select_backend",
    "unavailable_backends",
]

ENTRY_POINT_GROUP = "genqsim.backends"

_FACTORIES: dict[str, Callable[[], Backend]] = {}
_MIN_STATE_QUBITS: dict[str, int] = {}
_INSTANCES: dict[str, Backend] = {}
_UNAVAILABLE: dict[str, str] = {}
_entry_points_loaded = False


def register_backend(name: str, factory: Callable[[], Backend], min_state_qubits: int = 0) -> None:
    """Register a backend factory under ``name`` (replacing any earlier one of that name).
    Automatic selection passes the backend over for states of fewer than
    ``min_state_qubits`` qubits (where loading and calling its kernels costs more than the
    work), without loading it."""
    _FACTORIES[name] = factory
    _MIN_STATE_QUBITS[name] = min_state_qubits
    _INSTANCES.pop(name, None)
    _UNAVAILABLE.pop(name, None)


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in _FACTORIES:
            continue
        try:
            factory = ep.load()
        except Exception as exc:  # a broken third-party plugin must not break genqsim
            warnings.warn(
                f"genqsim backend entry point {ep.name!r} failed to load: {exc}", stacklevel=2
            )
            continue
        _FACTORIES[ep.name] = factory


def _instance(name: str) -> Backend | None:
    if name not in _INSTANCES:
        if name in _UNAVAILABLE:
            return None
        try:
            _INSTANCES[name] = _FACTORIES[name]()
        except ImportError as exc:  # optional dependency missing: the backend is unavailable
            _UNAVAILABLE[name] = str(exc)
            return None
    return _INSTANCES[name]


def unavailable_backends() -> dict[str, str]:
    """Registered backends that cannot run here, with the reason (a missing dependency)."""
    _load_entry_points()
    for name in _FACTORIES:
        _instance(name)
    return {name: _UNAVAILABLE[name] for name in sorted(_UNAVAILABLE) if name in _FACTORIES}


def min_state_qubits(name: str) -> int:
    """The smallest state a registered backend is picked for by default (0: any)."""
    return _MIN_STATE_QUBITS.get(name, 0)


def available_backends() -> list[str]:
    """Names of the backends that can be used on this machine."""
    _load_entry_points()
    return sorted(name for name in _FACTORIES if _instance(name) is not None)


def get_backend(name: str) -> Backend:
    """The backend registered as ``name``."""
    _load_entry_points()
    if name not in _FACTORIES:
        raise UnknownBackendError(
            f"unknown backend {name!r}; available: {', '.join(available_backends())}"
        )
    backend = _instance(name)
    if backend is None:
        raise UnknownBackendError(
            f"backend {name!r} is registered but its dependencies are not installed"
        )
    return backend


def select_backend(array: object, name: str | None = None) -> Backend:
    """The backend for ``array``: ``name`` if given (checked to support it), else the
    highest-priority available backend that supports the array's type and dtype (passing
    over those whose ``min_state_qubits`` exceeds the array's size)."""
    if name is not None:
        backend = get_backend(name)
        if not backend.supports(array):
            raise UnknownBackendError(
                f"backend {name!r} cannot work on {type(array).__name__} arrays of dtype "
                f"{getattr(array, 'dtype', '?')}"
            )
        return backend
    chosen = _by_priority(getattr(array, "size", None), lambda b: b.supports(array))
    if chosen is None:
        raise UnknownBackendError(
            f"no backend supports {type(array).__name__} arrays of dtype "
            f"{getattr(array, 'dtype', '?')}"
        )
    _notice_fallback(chosen, getattr(getattr(array, "dtype", None), "kind", ""))
    return chosen


def _by_priority(size: int | None, accepts: Callable[[Backend], bool]) -> Backend | None:
    """The highest-priority available backend that ``accepts``, first among those whose
    ``min_state_qubits`` admits an array of ``size`` entries (any when ``None``; the others
    are not even loaded), then among all."""
    _load_entry_points()
    sized = [n for n in _FACTORIES if size is None or size >= 1 << _MIN_STATE_QUBITS.get(n, 0)]
    for names in (sized, list(_FACTORIES)):
        available = [b for b in map(_instance, names) if b is not None]
        for backend in sorted(available, key=lambda b: -b.priority):
            if accepts(backend):
                return backend
    return None


def normalize_device(device: str | None) -> str:
    """``"cpu"`` or ``"gpu"`` (``None`` means the CPU, ``"cuda"`` the GPU)."""
    if device is None:
        return "cpu"
    name = "gpu" if device == "cuda" else device
    if name not in DEVICES:
        raise ArgumentValueError(
            f"device must be one of {', '.join(DEVICES)} (or 'cuda', the GPU), got {device!r}"
        )
    return name


def backend_for(
    numbers: NumberSystem,
    device: str | None = None,
    name: str | None = None,
    size: int | None = None,
) -> Backend:
    """The backend that holds states of ``numbers`` on ``device``: the one called ``name``
    when given (checked to live on that device and to hold those numbers), else the
    highest-priority available one, passing over those whose ``min_state_qubits`` exceeds
    a state of ``size`` entries (``None``: any size)."""
    where = normalize_device(device)
    if name is not None:
        backend = get_backend(name)
        if device is not None and backend.device != where:
            raise ValueError(
                f"backend {name!r} runs on the {backend.device}, not on device={device!r}"
            )
        _check_holds(backend, numbers)
        return backend
    chosen = _by_priority(size, lambda b: b.device == where and b.holds(numbers))
    if chosen is not None:
        _notice_fallback(chosen, numbers.dtype.kind)
        return chosen
    if not any(b is not None and b.device == where for b in map(_instance, _FACTORIES)):
        missing = "; ".join(f"{n} ({why})" for n, why in unavailable_backends().items())
        raise UnknownBackendError(
            f"no backend for device {where!r} is available"
            + (f"; registered backends that could not load: {missing}" if missing else "")
        )
    raise NumberTypeError(
        f"no {where} backend holds numbers={numbers.name!r} (GPU states hold complex64 or "
        "complex128)"
    )


def _check_holds(backend: Backend, numbers: NumberSystem) -> None:
    if not backend.holds(numbers):
        raise UnknownBackendError(
            f"backend {backend.name!r} cannot work on {numbers.name} states"
            + (" (GPU states hold complex64 or complex128)" if backend.device == "gpu" else "")
        )


def _numba_backend() -> Backend:
    try:
        from .numba_backend import NumbaBackend
    except ImportError:
        raise
    except Exception as exc:  # installed but broken (e.g. built for another NumPy)
        raise ImportError(f"numba failed to load: {type(exc).__name__}: {exc}") from exc
    return NumbaBackend()


_warned_fallback = False


def _notice_fallback(backend: Backend, kind: str) -> None:
    """Say once per process that complex states run on the generic NumPy backend because
    the Numba backend could not load (it is a default dependency, so this is a broken or
    partial install, and runs are 10-50x slower)."""
    global _warned_fallback
    if _warned_fallback or kind != "c" or backend.name != "numpy" or "numba" not in _UNAVAILABLE:
        return
    _warned_fallback = True
    warnings.warn(
        f"genqsim: the Numba backend could not load ({_UNAVAILABLE['numba']}); complex states "
        "run on the generic NumPy backend, 10-50x slower. Install it: pip install 'numba>=0.59'",
        SlowFallbackWarning,
        stacklevel=3,
    )


COMPILED_MIN_STATE_QUBITS = 9
"""Smallest state the Numba backend is picked for by default. Below 2**9 amplitudes a circuit
runs within 20 % of its compiled time on the generic NumPy backend (0.2-0.5 ms more for a few
hundred gates, ``python benchmarks/startup_bench.py``), while a process that never loads Numba
starts about a second sooner (its import, target and kernel cache)."""


def _register_builtin() -> None:
    from .numpy_backend import NumpyBackend

    register_backend("numpy", NumpyBackend)
    register_backend("numba", _numba_backend, min_state_qubits=COMPILED_MIN_STATE_QUBITS)


_register_builtin()
