"""Backends: the kernels that act on state arrays, chosen by array type and dtype.

A backend implements the small protocol :class:`Backend`. Backends register by name — the
built-in ones here, third-party ones through the ``genqsim.backends`` entry-point group — and
:func:`select_backend` picks the highest-priority backend that supports an array, unless the
user names one (``backend="numpy"``). Backends subclass :class:`GenericBackend`, so a primitive
a fast backend does not implement falls back to the generic routine.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from importlib import metadata

from ..errors import UnknownBackendError
from .protocol import Backend, GenericBackend

__all__ = [
    "Backend",
    "GenericBackend",
    "available_backends",
    "get_backend",
    "register_backend",
    "select_backend",
]

ENTRY_POINT_GROUP = "genqsim.backends"

_FACTORIES: dict[str, Callable[[], Backend]] = {}
_INSTANCES: dict[str, Backend] = {}
_entry_points_loaded = False


def register_backend(name: str, factory: Callable[[], Backend]) -> None:
    """Register a backend factory under ``name`` (replacing any earlier one of that name)."""
    _FACTORIES[name] = factory
    _INSTANCES.pop(name, None)


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
        try:
            _INSTANCES[name] = _FACTORIES[name]()
        except ImportError:
            return None  # optional dependency missing: the backend is simply unavailable
    return _INSTANCES[name]


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
    highest-priority available backend that supports the array's type and dtype."""
    if name is not None:
        backend = get_backend(name)
        if not backend.supports(array):
            raise UnknownBackendError(
                f"backend {name!r} cannot work on {type(array).__name__} arrays of dtype "
                f"{getattr(array, 'dtype', '?')}"
            )
        return backend
    _load_entry_points()
    candidates = [b for b in (_instance(n) for n in _FACTORIES) if b is not None]
    for backend in sorted(candidates, key=lambda b: -b.priority):
        if backend.supports(array):
            return backend
    raise UnknownBackendError(
        f"no backend supports {type(array).__name__} arrays of dtype {getattr(array, 'dtype', '?')}"
    )


def _numba_backend() -> Backend:
    from .numba_backend import NumbaBackend  # ImportError when numba is not installed

    return NumbaBackend()


def _register_builtin() -> None:
    from .numpy_backend import NumpyBackend

    register_backend("numpy", NumpyBackend)
    register_backend("numba", _numba_backend)


_register_builtin()
