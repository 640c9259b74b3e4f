"""Linear error propagation with the ``uncertainties`` package, correlations included.

``uncertainties`` has real numbers only (``ufloat(0.3, 0.01) * 1j`` raises ``TypeError``), so an
amplitude is carried as its real and imaginary parts, each an ``uncertainties`` value (or a plain
float when it carries no uncertainty), in :class:`UComplex`. Gate parameters given as
``ufloat(0.3, 0.01)`` propagate through every gate to probabilities and expectation values,
which come back as ``uncertainties`` values (``nominal_value``, ``std_dev``); values that depend
on the same parameter stay correlated, as the package tracks it.
"""

from __future__ import annotations

import math
import numbers as _abc
import sys
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import NonFiniteError, NumberTypeError
from ..support.lazysympy import is_sympy
from ..support.optional import require
from .base import Number, NumberSystem
from .numeric import to_python_complex

if TYPE_CHECKING:
    import sympy


def _umath():
    return require("uncertainties.umath", "uncertain", "numbers='uncertain'")


def is_uncertain_value(x: Any) -> bool:
    """Whether ``x`` is a real value of the ``uncertainties`` package (a ufloat or a function
    of ufloats)."""
    core = sys.modules.get("uncertainties.core")  # a value of it exists only once it is loaded
    # a type test: hasattr(x, "std_dev") would evaluate that property, a sum over every
    # variable x depends on, on each arithmetic step of the object path
    return core is not None and isinstance(x, core.AffineScalarFunc)


def evaluate_real(expr: sympy.Basic, values: Mapping[Any, Any]) -> Any:
    """A real SymPy expression (a gate angle such as ``theta / 2``) at ``values``, some of
    them ``uncertainties`` values, computed with that package's functions so the result
    keeps its dependence on them. Every symbol of ``expr`` needs a value."""
    free = expr.free_symbols
    left = free - set(values)
    if left:
        names = ", ".join(sorted(str(s) for s in left))
        raise NumberTypeError(
            f"{expr}: an uncertain value can only be bound with every parameter of the "
            f"expression ({names} left unbound)"
        )
    import sympy

    symbols = sorted(free, key=str)
    umath = _umath()
    function = sympy.lambdify(symbols, expr, modules=[umath, "math"])
    return function(*(_real_value(values[s]) for s in symbols))


def _real_value(value: Any) -> Any:
    if is_uncertain_value(value):
        return value
    z = to_python_complex(value)
    if z.imag:
        raise NumberTypeError(f"an angle must be real, got {value!r}")
    return z.real


def _is_real(x: Any) -> bool:
    return is_uncertain_value(x) or (
        isinstance(x, (_abc.Real, np.floating, np.integer)) and not isinstance(x, bool)
    )


def _nominal(x: Any) -> float:
    return float(x.nominal_value) if is_uncertain_value(x) else float(x)


def _is_exact_zero(x: Any) -> bool:
    if is_uncertain_value(x):
        return x.nominal_value == 0 and not any(d != 0 for d in x.derivatives.values())
    return x == 0


def _expanded(x: Any) -> Any:
    """``x`` with its derivatives by each variable worked out and kept. The package builds
    results as lazy trees of linear combinations; an amplitude's tree after many gates
    shares subtrees so widely that expanding it once at the end costs exponential time,
    while expanding each stored part costs one pass over its variables."""
    if is_uncertain_value(x):
        x.derivatives  # noqa: B018  (the property expands the combination and caches it)
    return x


class UComplex:
    """A complex number whose real and imaginary parts are ``uncertainties`` values."""

    __slots__ = ("imag", "real")

    def __init__(self, real: Any, imag: Any = 0.0) -> None:
        self.real = _expanded(real)
        self.imag = _expanded(imag)

    @staticmethod
    def lift(x: Any) -> UComplex:
        if isinstance(x, UComplex):
            return x
        if _is_real(x):
            return UComplex(x, 0.0)
        if isinstance(x, (_abc.Complex, np.complexfloating)):
            z = complex(x)
            return UComplex(z.real, z.imag)
        raise TypeError(f"cannot use {x!r} as an uncertain complex number")

    def __add__(self, other: Any) -> UComplex:
        try:
            o = UComplex.lift(other)
        except TypeError:
            return NotImplemented
        return UComplex(self.real + o.real, self.imag + o.imag)

    __radd__ = __add__

    def __neg__(self) -> UComplex:
        return UComplex(-self.real, -self.imag)

    def __sub__(self, other: Any) -> UComplex:
        try:
            return self + (-UComplex.lift(other))
        except TypeError:
            return NotImplemented

    def __rsub__(self, other: Any) -> UComplex:
        return (-self) + other

    def __mul__(self, other: Any) -> UComplex:
        if _is_real(other):
            return UComplex(self.real * other, self.imag * other)
        try:
            o = UComplex.lift(other)
        except TypeError:
            return NotImplemented
        return UComplex(
            self.real * o.real - self.imag * o.imag, self.real * o.imag + self.imag * o.real
        )

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> UComplex:
        if _is_real(other):
            return UComplex(self.real / other, self.imag / other)
        try:
            o = UComplex.lift(other)
        except TypeError:
            return NotImplemented
        return self * o.reciprocal()

    def __rtruediv__(self, other: Any) -> UComplex:
        return UComplex.lift(other) * self.reciprocal()

    def reciprocal(self) -> UComplex:
        d = self.real * self.real + self.imag * self.imag
        return UComplex(self.real / d, -self.imag / d)

    def __pow__(self, k: Any) -> UComplex:
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
            return NotImplemented
        result = UComplex(1.0)
        for _ in range(abs(int(k))):
            result = result * self
        return result if k >= 0 else result.reciprocal()

    def conjugate(self) -> UComplex:
        return UComplex(self.real, -self.imag)

    def __eq__(self, other: object) -> bool:
        try:
            o = UComplex.lift(other)
        except TypeError:
            return NotImplemented
        return _is_exact_zero(self.real - o.real) and _is_exact_zero(self.imag - o.imag)

    __hash__ = None  # type: ignore[assignment]

    def __complex__(self) -> complex:
        return complex(_nominal(self.real), _nominal(self.imag))

    def __repr__(self) -> str:
        return f"UComplex({self.real!r}, {self.imag!r})"

    def __str__(self) -> str:
        return f"({self.real}) + ({self.imag})j"


class UncertainNumbers(NumberSystem):
    """:class:`UComplex` numbers in object arrays; gate parameters may be ``ufloat`` values,
    or symbols given uncertain ``values`` here (``{theta: ufloat(0.3, 0.01)}``), so one
    symbolic circuit serves many error studies."""

    name = "uncertain"
    dtype = np.dtype(object)
    symbolic = False

    def __init__(self, values: Mapping[Any, Any] | None = None) -> None:
        import sympy

        self.umath = _umath()
        self._values = {}
        for key, value in (values or {}).items():
            symbol = sympy.Symbol(key, real=True) if isinstance(key, str) else key
            if not isinstance(symbol, sympy.Symbol):
                raise TypeError(f"parameters are SymPy symbols or names, got {key!r}")
            self._values[symbol] = self.real_scalar(value)

    def unbound(self, symbols: Iterable[Any]) -> set:
        return set(symbols) - set(self._values)

    zero = UComplex(0.0)
    one = UComplex(1.0)
    I = UComplex(0.0, 1.0)  # noqa: E741
    pi = UComplex(math.pi)

    def scalar(self, value: Any) -> UComplex:
        if isinstance(value, UComplex):
            return value
        if is_uncertain_value(value):
            if not math.isfinite(value.nominal_value):
                raise NonFiniteError(f"{value!r} is not finite")
            return UComplex(value, 0.0)
        if is_sympy(value):
            from .evaluate import evaluate

            return UComplex.lift(evaluate(value, self, self._values))
        if isinstance(value, (_abc.Number, np.number)) and not isinstance(value, bool):
            z = to_python_complex(value)
            return UComplex(z.real, z.imag)
        raise NumberTypeError(
            f"expected a number, an uncertainties value or a SymPy expression, got {value!r} "
            f"of type {type(value).__name__}"
        )

    def real_scalar(self, value: Any) -> Any:
        """Angles stay real ``uncertainties`` values, so ``cos`` and ``sin`` stay real."""
        if is_uncertain_value(value):
            return self.scalar(value).real
        z = self.scalar(value)
        if not _is_exact_zero(z.imag):
            raise NumberTypeError(f"an angle must be real, got {value!r}")
        return z.real

    def to_complex(self, value: Number) -> complex:
        return complex(UComplex.lift(value))

    def _complex_fn(self, x: Any, real_fn: str) -> UComplex:
        z = UComplex.lift(x)
        a, b = z.real, z.imag
        if _is_exact_zero(b):
            return UComplex(getattr(self.umath, real_fn)(a), 0.0)
        m = self.umath
        if real_fn == "exp":
            e = m.exp(a)
            return UComplex(e * m.cos(b), e * m.sin(b))
        if real_fn == "cos":
            return UComplex(m.cos(a) * m.cosh(b), -m.sin(a) * m.sinh(b))
        return UComplex(m.sin(a) * m.cosh(b), m.cos(a) * m.sinh(b))

    def exp(self, x: Number) -> UComplex:
        return self._complex_fn(x, "exp")

    def cos(self, x: Number) -> Any:
        return self.umath.cos(x) if _is_real(x) else self._complex_fn(x, "cos")

    def sin(self, x: Number) -> Any:
        return self.umath.sin(x) if _is_real(x) else self._complex_fn(x, "sin")

    def expi(self, x: Number) -> UComplex:
        if _is_real(x):
            return UComplex(self.umath.cos(x), self.umath.sin(x))
        return self.exp(self.I * x)

    def sqrt(self, x: Number) -> Any:
        z = UComplex.lift(x)
        if _is_exact_zero(z.imag) and _nominal(z.real) >= 0:
            return UComplex(self.umath.sqrt(z.real), 0.0)
        raise NumberTypeError("uncertain numbers support square roots of non-negative reals only")

    def conj(self, x: Number) -> UComplex:
        return UComplex.lift(x).conjugate()

    def abs2(self, x: Number) -> Any:
        z = UComplex.lift(x)
        return z.real * z.real + z.imag * z.imag

    def real(self, x: Number) -> Any:
        return UComplex.lift(x).real

    def is_zero(self, x: Number) -> bool:
        z = UComplex.lift(x)
        return _is_exact_zero(z.real) and _is_exact_zero(z.imag)
