"""Number systems: one file each, looked up by name (``numbers="sympy"``) or from a dtype."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import NumberTypeError, UnknownNumberSystemError
from .base import Number, NumberSystem
from .numeric import MachineComplex, to_python_complex
from .sympy_numbers import SympyNumbers

__all__ = [
    "MachineComplex",
    "Number",
    "NumberSystem",
    "SympyNumbers",
    "available_number_systems",
    "get_number_system",
    "number_system_for_array",
    "register_number_system",
    "to_python_complex",
]

_FACTORIES: dict[str, Callable[[], NumberSystem]] = {
    "complex128": lambda: MachineComplex("complex128"),
    "complex64": lambda: MachineComplex("complex64"),
    "sympy": SympyNumbers,
}
_INSTANCES: dict[str, NumberSystem] = {}


def register_number_system(name: str, factory: Callable[[], NumberSystem]) -> None:
    """Make ``numbers=name`` available; ``factory`` is called once, on first use."""
    _FACTORIES[name] = factory
    _INSTANCES.pop(name, None)


def available_number_systems() -> list[str]:
    """Names accepted by ``numbers=``."""
    return sorted(_FACTORIES)


def get_number_system(numbers: str | np.dtype | type | NumberSystem) -> NumberSystem:
    """The number system for a name, a NumPy dtype, or a ready ``NumberSystem``."""
    if isinstance(numbers, NumberSystem):
        return numbers
    if isinstance(numbers, str):
        key = numbers.lower()
    else:
        try:
            key = np.dtype(numbers).name
        except TypeError as exc:
            raise UnknownNumberSystemError(f"cannot use {numbers!r} as a number system") from exc
    if key == "object":
        key = "sympy"
    if key not in _FACTORIES:
        raise UnknownNumberSystemError(
            f"unknown number system {numbers!r}; available: {', '.join(available_number_systems())}"
        )
    if key not in _INSTANCES:
        _INSTANCES[key] = _FACTORIES[key]()
    return _INSTANCES[key]


def number_system_for_array(array: np.ndarray) -> NumberSystem:
    """The number system an existing array's dtype implies (object arrays: SymPy)."""
    dtype = np.dtype(array.dtype)
    if dtype.kind == "c":
        return get_number_system(dtype.name)
    if dtype == np.dtype(object):
        return get_number_system("sympy")
    raise NumberTypeError(
        f"state arrays must hold complex numbers or objects, got dtype {dtype}; "
        "convert explicitly, e.g. gq.StateVector(array, numbers='complex128')"
    )
