"""Number systems: one file each, looked up by name (``numbers="sympy"``) or from a dtype."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import NumberTypeError, UnknownNumberSystemError
from .base import Number, NumberSystem
from .numeric import MachineComplex, machine_numbers, python_number, to_python_complex

__all__ = [
    "MachineComplex",
    "Number",
    "NumberSystem",
    "SympyNumbers",
    "available_number_systems",
    "get_number_system",
    "is_parameter_value",
    "missing_number_systems",
    "number_system_for_array",
    "python_number",
    "register_number_system",
    "to_python_complex",
]


def __getattr__(name: str) -> Any:
    """``SympyNumbers`` on first use (importing it imports SymPy)."""
    if name == "SympyNumbers":
        from .sympy_numbers import SympyNumbers

        return SympyNumbers
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _sympy() -> NumberSystem:
    from .sympy_numbers import SympyNumbers

    return SympyNumbers()


def _symengine() -> NumberSystem:
    from .symengine_numbers import SymengineNumbers

    return SymengineNumbers()


def _mpmath(digits: int | None = None) -> NumberSystem:
    from .mpmath_numbers import DEFAULT_DIGITS, MpmathNumbers

    return MpmathNumbers(DEFAULT_DIGITS if digits is None else digits)


def _ball(bits: int | None = None) -> NumberSystem:
    from .ball_numbers import DEFAULT_BITS, BallNumbers

    return BallNumbers(DEFAULT_BITS if bits is None else bits)


def _trig(order: int | None = None) -> NumberSystem:
    from .trig import DEFAULT_ORDER, TrigNumbers

    return TrigNumbers(DEFAULT_ORDER if order is None else order)


def _dual() -> NumberSystem:
    from .dual import DualNumbers

    return DualNumbers()


def _uncertain() -> NumberSystem:
    from .uncertain import UncertainNumbers

    return UncertainNumbers()


_FACTORIES: dict[str, Callable[..., NumberSystem]] = {
    "complex128": lambda: machine_numbers("complex128"),
    "complex64": lambda: machine_numbers("complex64"),
    "sympy": _sympy,
    "symengine": _symengine,
    "mpmath": _mpmath,
    "ball": _ball,
    "dual": _dual,
    "uncertain": _uncertain,
    "trig": _trig,
}
_PARAMETER_TYPES: dict[str, tuple[str, ...]] = {
    "mpmath": ("mpmath",),
    "ball": ("flint",),
    "dual": ("genqsim.numbers.dual",),
    "uncertain": ("uncertainties",),
}
"""For each number system, the modules whose values it takes as gate parameters directly
(``ufloat(0.3, 0.01)``, a ball, a dual number): matched by the value's type's module, so
checking a parameter imports nothing."""
_PRECISION_SUFFIX = {
    "mpmath": "decimal digits",
    "ball": "bits",
    "trig": "the order N of the roots of unity exp(2*pi*i/N), a multiple of 4",
}
"""Systems whose name takes a number: ``"mpmath:50"``, ``"ball:128"``, ``"trig:24"``."""
_INSTANCES: dict[str, NumberSystem] = {}


def register_number_system(
    name: str, factory: Callable[[], NumberSystem], parameter_modules: tuple[str, ...] = ()
) -> None:
    """Make ``numbers=name`` available; ``factory`` is called once, on first use.
    ``parameter_modules``: modules whose values gates accept as parameters for this system
    (values of types defined there pass gate construction unchanged)."""
    _FACTORIES[name] = factory
    _INSTANCES.pop(name, None)
    if parameter_modules:
        _PARAMETER_TYPES[name] = tuple(parameter_modules)


def is_parameter_value(value: Any) -> bool:
    """Whether ``value`` is a number of some registered system that gates take as a parameter
    directly (see :func:`register_number_system`)."""
    module = type(value).__module__
    return any(
        module == m or module.startswith(m + ".")
        for modules in _PARAMETER_TYPES.values()
        for m in modules
    )


def _make(key: str) -> NumberSystem:
    name, _, suffix = key.partition(":")
    if not suffix:
        return _FACTORIES[name]()
    try:
        precision = int(suffix)
    except ValueError:
        precision = -1
    if precision <= 0:
        raise UnknownNumberSystemError(
            f"{key!r}: the precision after ':' must be a positive integer "
            f"({_PRECISION_SUFFIX[name]})"
        )
    return _FACTORIES[name](precision)


def available_number_systems() -> list[str]:
    """Names accepted by ``numbers=``."""
    return sorted(_FACTORIES)


NEEDS: dict[str, tuple[str, str]] = {
    "symengine": ("symengine", "symbolic"),
    "ball": ("flint", "interval"),
    "trig": ("flint", "interval"),
    "uncertain": ("uncertainties", "uncertain"),
}
"""The module each number system beyond NumPy, SymPy and mpmath imports, and the
``genqsim[extra]`` that installs it."""


def missing_number_systems() -> dict[str, str]:
    """``{name: "pip install 'genqsim[extra]'"}`` for the number systems whose module is not
    installed (found without importing it)."""
    import importlib.util

    return {
        name: f"pip install 'genqsim[{extra}]'"
        for name, (module, extra) in NEEDS.items()
        if importlib.util.find_spec(module) is None
    }


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
    base, colon, _ = key.partition(":")
    if base not in _FACTORIES or (colon and base not in _PRECISION_SUFFIX):
        raise UnknownNumberSystemError(
            f"unknown number system {numbers!r}; available: {', '.join(available_number_systems())}"
            " (mpmath and ball take a precision, trig a cyclotomic order: 'mpmath:50', 'ball:128',"
            " 'trig:24')"
        )
    if key not in _INSTANCES:
        _INSTANCES[key] = _make(key)
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
