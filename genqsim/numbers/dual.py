"""Dual numbers: a complex value with a vector of exact partial derivatives.

``Dual(v, d)`` stands for ``v + sum_k d[k] eps_k`` with ``eps_j eps_k = 0``: every arithmetic
operation and elementary function carries the derivatives along (forward-mode automatic
differentiation), so one simulation gives the derivative of every amplitude with respect to
every seeded parameter. Values and partials may themselves be dual numbers (duals of duals give
second derivatives; :func:`genqsim.hessian` uses that). ``partials=None`` means all zero, the
common case for constants, and costs nothing.

``DualNumbers({theta: 0.3, phi: 1.2})`` is the number system: each listed parameter is seeded
with its own unit tangent, in the order given.
"""

from __future__ import annotations

import cmath
import math
import numbers as _abc
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import NonFiniteError, NumberTypeError, UnboundParameterError
from ..support.lazysympy import is_sympy
from .base import Number, NumberSystem
from .numeric import machine_numbers, to_python_complex

if TYPE_CHECKING:
    import sympy


def _is_plain(x: Any) -> bool:
    return isinstance(x, (_abc.Number, np.number)) and not isinstance(x, bool)


def _fn(name: str, x: Any) -> Any:
    """Elementary function ``name`` of a plain number or a dual (duals of duals recurse)."""
    if isinstance(x, Dual):
        return getattr(x, name)()
    z = complex(x)
    if name == "conjugate":
        return z.conjugate() if isinstance(x, complex) else x
    if (z.imag == 0 and name in ("cos", "sin")) or (name == "sqrt" and z.imag == 0 and z.real >= 0):
        return getattr(math, name)(z.real)
    return getattr(cmath, name)(z)


class Dual:
    """``value + partials · eps``; see the module docstring."""

    __slots__ = ("partials", "value")

    def __init__(self, value: Any, partials: Any = None) -> None:
        self.value = value
        self.partials = None if partials is None else np.asarray(partials)

    # -- helpers ------------------------------------------------------------------------------
    @staticmethod
    def lift(x: Any) -> Dual:
        return x if isinstance(x, Dual) else Dual(x)

    def _with(self, value: Any, scale: Any) -> Dual:
        """``Dual(value, scale * self.partials)``: the chain rule for a function of self."""
        return Dual(value, None if self.partials is None else scale * self.partials)

    # -- arithmetic ---------------------------------------------------------------------------
    def __add__(self, other: Any) -> Dual:
        if not isinstance(other, Dual):
            return Dual(self.value + other, self.partials) if _is_plain(other) else NotImplemented
        if other.partials is None:
            d = self.partials
        elif self.partials is None:
            d = other.partials
        else:
            d = self.partials + other.partials
        return Dual(self.value + other.value, d)

    __radd__ = __add__

    def __neg__(self) -> Dual:
        return Dual(-self.value, None if self.partials is None else -self.partials)

    def __pos__(self) -> Dual:
        return self

    def __sub__(self, other: Any) -> Dual:
        if not isinstance(other, Dual) and not _is_plain(other):
            return NotImplemented
        return self + (-other)

    def __rsub__(self, other: Any) -> Dual:
        return (-self) + other

    def __mul__(self, other: Any) -> Dual:
        if not isinstance(other, Dual):
            if not _is_plain(other):
                return NotImplemented
            return Dual(
                self.value * other, None if self.partials is None else self.partials * other
            )
        a, b = self, other
        if a.partials is None and b.partials is None:
            d = None
        elif a.partials is None:
            d = a.value * b.partials
        elif b.partials is None:
            d = a.partials * b.value
        else:
            d = a.partials * b.value + a.value * b.partials
        return Dual(a.value * b.value, d)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Dual:
        if not isinstance(other, Dual):
            if not _is_plain(other):
                return NotImplemented
            return self * (1 / other)
        return self * other.reciprocal()

    def __rtruediv__(self, other: Any) -> Dual:
        return self.reciprocal() * other

    def reciprocal(self) -> Dual:
        inv = 1 / self.value
        return self._with(inv, -inv * inv)

    def __pow__(self, k: Any) -> Dual:
        if isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            result: Any = Dual(1.0)
            for _ in range(abs(int(k))):
                result = result * self
            return result if k >= 0 else result.reciprocal()
        return NotImplemented

    # -- elementary functions -----------------------------------------------------------------
    def exp(self) -> Dual:
        e = _fn("exp", self.value)
        return self._with(e, e)

    def cos(self) -> Dual:
        return self._with(_fn("cos", self.value), -_fn("sin", self.value))

    def sin(self) -> Dual:
        return self._with(_fn("sin", self.value), _fn("cos", self.value))

    def sqrt(self) -> Dual:
        r = _fn("sqrt", self.value)
        return self._with(r, 1 / (2 * r))

    def conjugate(self) -> Dual:
        d = self.partials
        if d is not None:
            if d.dtype == object:
                d = np.array([_fn("conjugate", x) for x in d.reshape(-1)], dtype=object)
            else:
                d = d.conj()
        return Dual(_fn("conjugate", self.value), d)

    @property
    def real(self) -> Dual:
        return Dual(_part(self.value, "real"), _part(self.partials, "real"))

    @property
    def imag(self) -> Dual:
        return Dual(_part(self.value, "imag"), _part(self.partials, "imag"))

    # -- comparison and display ---------------------------------------------------------------
    def is_constant(self) -> bool:
        return self.partials is None or not np.any(self.partials != 0)

    def __eq__(self, other: object) -> bool:
        other_value = other.value if isinstance(other, Dual) else other
        if not (isinstance(other, Dual) or _is_plain(other)):
            return NotImplemented
        if bool(self.value != other_value):
            return False
        mine = self.partials if not self.is_constant() else None
        theirs = other.partials if isinstance(other, Dual) and not other.is_constant() else None
        if mine is None or theirs is None:
            return mine is None and theirs is None
        return bool(np.all(mine == theirs))

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]

    def __complex__(self) -> complex:
        return complex(self.value)

    def __float__(self) -> float:
        return float(complex(self.value).real)

    def __repr__(self) -> str:
        if self.partials is None:
            return f"Dual({self.value!r})"
        return f"Dual({self.value!r}, {self.partials.tolist()!r})"


def _part(x: Any, which: str) -> Any:
    if x is None:
        return None
    if isinstance(x, np.ndarray):
        if x.dtype == object:
            return np.array([_part(v, which) for v in x.reshape(-1)], dtype=object)
        return getattr(x, which).copy()
    if isinstance(x, Dual):
        return getattr(x, which)
    return getattr(complex(x), which)


class DualNumbers(NumberSystem):
    """Dual numbers in object arrays, seeded with a value for each differentiated parameter.

    ``values`` maps parameters (SymPy symbols, or their names) to values; each gets the unit
    tangent of its position. ``base`` is the system the values and partials live in (the
    default is plain Python complex numbers; another ``DualNumbers`` nests them).
    """

    dtype = np.dtype(object)
    symbolic = False

    def __init__(
        self,
        values: Mapping[Any, Any] | None = None,
        base: NumberSystem | None = None,
        tangents: Mapping[Any, Any] | None = None,
    ) -> None:
        self.base = base or machine_numbers("complex128")
        self.name = "dual" if base is None else f"dual[{base.name}]"
        pairs = list((values or {}).items())
        self.parameters: tuple[sympy.Symbol, ...] = tuple(_as_symbol(k) for k, _ in pairs)
        k = len(pairs)
        given = {_as_symbol(key): t for key, t in (tangents or {}).items()}
        self._seeds = {}
        for i, (symbol, (_, v)) in enumerate(zip(self.parameters, pairs)):
            if tangents is not None:  # one direction per partial, as given
                unit = np.asarray(given.get(symbol, 0.0), dtype=np.complex128).reshape(-1)
            elif base is not None:
                unit = np.empty(k, dtype=object)
                unit[:] = [self.base.zero] * k
                unit[i] = self.base.one
            else:
                unit = np.zeros(k, dtype=np.complex128)
                unit[i] = 1
            self._seeds[symbol] = Dual(self._base_scalar(v), unit)
        self.zero, self.one = Dual(self.base.zero), Dual(self.base.one)
        self.I, self.pi = Dual(self.base.I), Dual(self.base.pi)

    zero: Any = None  # set per instance
    one: Any = None
    I: Any = None  # noqa: E741
    pi: Any = None

    def display(self, value: Number) -> str:
        """The value and its partial derivative by each seeded parameter, by name:
        ``0.8824 (d/dphi: -1.237)``."""
        dual = self.scalar(value)
        text = _plain(dual.value)
        if not self.parameters:
            return text
        partials = [0.0] * len(self.parameters) if dual.partials is None else list(dual.partials)
        named = ", ".join(f"d/d{p}: {_plain(d)}" for p, d in zip(self.parameters, partials))
        return f"{text} ({named})"

    def _base_scalar(self, v: Any) -> Any:
        if isinstance(v, Dual) and self.base.name == "complex128":
            raise NumberTypeError("nested dual values need base=DualNumbers(...)")
        return v if isinstance(v, Dual) else self.base.scalar(v)

    def unbound(self, symbols: Iterable[Any]) -> set:
        return set(symbols) - set(self._seeds)

    def scalar(self, value: Any) -> Dual:
        if isinstance(value, Dual):
            return value
        if is_sympy(value):
            if not value.free_symbols:
                return Dual(self.base.scalar(value))
            from .evaluate import evaluate

            return Dual.lift(evaluate(value, self, self._seeds))
        if isinstance(value, (bool, np.bool_)) or not _is_plain(value):
            raise NumberTypeError(
                f"expected a number, a dual number or a SymPy expression, got {value!r} of "
                f"type {type(value).__name__}"
            )
        return Dual(self.base.scalar(value))

    def integer(self, k: int) -> Dual:
        return Dual(self.base.integer(k))

    def to_complex(self, value: Number) -> complex:
        v = value
        while isinstance(v, Dual):
            v = v.value
        z = complex(v)
        if not (math.isfinite(z.real) and math.isfinite(z.imag)):
            raise NonFiniteError(f"{value!r} is not finite")
        return z

    def exp(self, x: Number) -> Dual:
        return Dual.lift(x).exp()

    def cos(self, x: Number) -> Dual:
        return Dual.lift(x).cos()

    def sin(self, x: Number) -> Dual:
        return Dual.lift(x).sin()

    def sqrt(self, x: Number) -> Dual:
        return Dual.lift(x).sqrt()

    def conj(self, x: Number) -> Dual:
        return Dual.lift(x).conjugate()

    def abs2(self, x: Number) -> Dual:
        x = Dual.lift(x)
        return (x.conjugate() * x).real

    def real(self, x: Number) -> Dual:
        return Dual.lift(x).real

    def is_zero(self, x: Number) -> bool:
        return bool(Dual.lift(x) == 0)


def _as_symbol(key: Any) -> sympy.Symbol:
    import sympy

    if isinstance(key, str):
        return sympy.Symbol(key, real=True)
    if isinstance(key, sympy.Symbol):
        return key
    raise TypeError(f"parameters are SymPy symbols or names, got {key!r}")


def split(values: np.ndarray, n_partials: int, base_dtype: Any = np.complex128):
    """``(value array, [partial array k for each k])`` of an array of duals; plain entries
    count as constants. Arrays come back in ``base_dtype`` (``object`` for nested duals)."""
    flat = values.reshape(-1)
    primal = np.empty(flat.size, dtype=base_dtype)
    tangents = np.zeros((n_partials, flat.size), dtype=base_dtype)
    if np.dtype(base_dtype) == np.dtype(object):
        tangents[:] = 0
    for i, x in enumerate(flat):
        if isinstance(x, Dual):
            primal[i] = x.value
            if x.partials is not None:
                tangents[:, i] = x.partials
        else:
            primal[i] = x
    shape = values.shape
    return primal.reshape(shape), [t.reshape(shape) for t in tangents]


__all__ = ["Dual", "DualNumbers", "UnboundParameterError", "split", "to_python_complex"]


def _plain(x: Any) -> str:
    """A number as short text: a real number without ``+0j``."""
    if isinstance(x, Dual):
        return repr(x)
    z = complex(x)
    return f"{z.real:.12g}" if z.imag == 0 else f"{z.real:.12g}{z.imag:+.12g}j"
