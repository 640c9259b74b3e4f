"""Machine complex numbers: ``complex128`` and ``complex64``, from one source.

Gate entries are computed in double precision with :mod:`cmath` and rounded once to the state's
dtype, so a complex64 gate is the correctly rounded double-precision gate.
"""

from __future__ import annotations

import cmath
import math
import numbers as _abc
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import NonFiniteError, NumberTypeError, UnboundParameterError
from ..support.lazysympy import is_sympy
from .base import Number, NumberSystem


def to_python_complex(value: Any, what: str = "parameter") -> complex:
    """A finite Python ``complex`` from a number or a closed SymPy expression.

    Raises ``UnboundParameterError`` for expressions with free symbols, ``NonFiniteError`` for
    NaN/inf, and ``NumberTypeError`` for things that are not numbers (strings, bools, None).
    """
    if isinstance(value, (bool, np.bool_)) or value is None or isinstance(value, (str, bytes)):
        raise NumberTypeError(
            f"{what} must be a number, got {value!r} of type {type(value).__name__}"
        )
    if is_sympy(value):
        if value.free_symbols:
            names = ", ".join(sorted(str(s) for s in value.free_symbols))
            raise UnboundParameterError(
                f"{what} {value} has free parameters ({names}); bind them first "
                f"(circuit.bind({{...}})) or use symbolic numbers (numbers='sympy')"
            )
        try:
            result = complex(value.evalf(17))
        except (TypeError, ValueError) as exc:
            raise NonFiniteError(f"{what} {value} is not a finite number") from exc
    elif isinstance(value, _abc.Number):
        result = complex(value)  # type: ignore[call-overload]  # a numbers.Number is complex-able
    else:
        try:
            result = complex(value)
        except (TypeError, ValueError) as exc:
            hint = ""
            if hasattr(value, "std_dev"):
                hint = "; uncertain parameters need numbers='uncertain'"
            raise NumberTypeError(
                f"{what} must be a number, got {value!r} of type {type(value).__name__}{hint}"
            ) from exc
    if not (math.isfinite(result.real) and math.isfinite(result.imag)):
        raise NonFiniteError(f"{what} must be finite, got {value!r}")
    return result


def python_number(value: Any, what: str = "parameter") -> float | complex:
    """:func:`to_python_complex`, as a ``float`` when its imaginary part is zero."""
    z = to_python_complex(value, what)
    return z.real if z.imag == 0 else z


class MachineComplex(NumberSystem):
    """IEEE complex numbers of one NumPy dtype (``complex128`` or ``complex64``)."""

    symbolic = False

    def __init__(self, dtype: str | np.dtype) -> None:
        self.dtype = np.dtype(dtype)
        if self.dtype not in (np.dtype(np.complex128), np.dtype(np.complex64)):
            raise NumberTypeError(
                f"machine complex numbers need complex64 or complex128, not {dtype}"
            )
        self.name = self.dtype.name

    def scalar(self, value: Any) -> complex:
        return to_python_complex(value)

    def real_scalar(self, value: Any) -> float:
        z = to_python_complex(value)
        if z.imag != 0.0:
            raise NumberTypeError(f"an angle must be real, got {value!r}")
        return z.real

    def to_complex(self, value: Number) -> complex:
        return complex(value)

    def array(self, values: Any) -> np.ndarray:
        values = np.asarray(values)
        if values.dtype.kind in "biufc":
            if values.dtype.kind == "b":
                raise NumberTypeError("boolean arrays are not numbers; convert explicitly")
            if not np.isfinite(values).all():  # the method: half the time of np.all
                raise NonFiniteError("array entries must be finite (found NaN or inf)")
            return values.astype(self.dtype)
        flat = [to_python_complex(v, "matrix entry") for v in values.reshape(-1)]
        return np.array(flat, dtype=np.complex128).reshape(values.shape).astype(self.dtype)

    zero = 0j
    one = 1 + 0j
    I = 1j  # noqa: E741
    pi = math.pi

    def exp(self, x: Number) -> complex:
        return cmath.exp(x)

    def cos(self, x: Number) -> complex:
        return cmath.cos(x) if isinstance(x, complex) else math.cos(x)

    def sin(self, x: Number) -> complex:
        return cmath.sin(x) if isinstance(x, complex) else math.sin(x)

    def sqrt(self, x: Number) -> complex:
        return cmath.sqrt(x) if isinstance(x, complex) or x < 0 else math.sqrt(x)

    def conj(self, x: Number) -> complex:
        return complex(x).conjugate()

    def abs2(self, x: Number) -> float:
        z = complex(x)
        return z.real * z.real + z.imag * z.imag

    def expi(self, x: Number) -> complex:
        return (
            complex(math.cos(x), math.sin(x)) if not isinstance(x, complex) else cmath.exp(1j * x)
        )

    def abs2_array(self, a: np.ndarray) -> np.ndarray:
        return a.real * a.real + a.imag * a.imag

    def free_symbols(self, values: Sequence[Number] | np.ndarray) -> set:
        return set()


_MACHINE: dict[str, MachineComplex] = {}


def machine_numbers(name: str) -> MachineComplex:
    """The one :class:`MachineComplex` of a dtype name (``"complex128"``, ``"complex64"``),
    shared by the registry and the systems built on machine numbers (so ``is`` compares)."""
    if name not in _MACHINE:
        _MACHINE[name] = MachineComplex(name)
    return _MACHINE[name]
