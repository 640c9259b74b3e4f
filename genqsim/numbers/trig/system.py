"""``numbers="trig"``: exact, canonical numbers for parametrised circuits.

Amplitudes are Laurent polynomials in ``z_k = exp(i*theta_k/2)``, one variable per circuit
parameter, with coefficients in the cyclotomic field Q(zeta_N) (N = 8 by default:
``numbers="trig:N"`` for others). ``Rz(theta)`` is ``diag(z**-1, z)``, ``Ry(theta)`` has
``(z + z**-1)/2`` and ``(z - z**-1)/(2i)``; ``H`` holds ``1/sqrt(2) = (zeta - zeta**3)/2``
exactly. Every value has one form, so equal results compare equal with no simplification, and
``|z|**2 = 1`` holds by construction. Angles must be rational multiples of pi plus
half-integer multiples of parameters (``theta``, ``theta/2``, ``pi/4 - 2*phi``); anything
else is refused with the field or system that would hold it.
"""

from __future__ import annotations

import numbers as _abc
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from ...errors import NonFiniteError, NumberTypeError
from ...support.optional import require
from ..base import Number, NumberSystem
from .angles import Angle, exact_rational
from .cyclotomic import DEFAULT_ORDER, CyclotomicField
from .laurent import Space, TrigNumber, rational_value

FIRST_CAPACITY = 8
"""Parameter variables in a system's first flint context (it doubles when they run out)."""
SMALL = 1024
"""Rationals with numerator and denominator below this are made once per system."""


def _flint() -> Any:
    flint = require("flint", "interval", "numbers='trig'")
    if not hasattr(flint, "fmpq_mpoly_ctx"):
        raise NumberTypeError(
            "numbers='trig' needs python-flint >= 0.7 (multivariate polynomials): "
            "pip install -U 'python-flint>=0.7'"
        )
    return flint


class TrigNumbers(NumberSystem):
    """Laurent polynomials in ``exp(i*theta/2)`` over Q(zeta_N) in object arrays."""

    dtype = np.dtype(object)
    symbolic = True
    float_angles = False  # exp(i*theta) is exact here for rational multiples of pi only

    def __init__(self, order: int = DEFAULT_ORDER) -> None:
        _flint()
        self.field = CyclotomicField(order)
        self.name = self.field.name
        self._space = Space(FIRST_CAPACITY, [], self.field.modulus)
        self._constants: dict[tuple, TrigNumber] = {}  # roots of unity and square roots
        zero: Any = self.field_constant({})
        one: Any = self.field_constant({0: Fraction(1)})
        imaginary_unit: Any = self.field_constant({order // 4: Fraction(1)})
        self.zero, self.one, self.I = zero, one, imaginary_unit
        self.minus_i = self.field_constant({3 * order // 4: Fraction(1)})

    # set per instance (the constants belong to the system's flint context)
    zero: Any = None  # type: ignore[assignment]
    one: Any = None  # type: ignore[assignment]
    I: Any = None  # type: ignore[assignment]  # noqa: E741

    @property
    def pi(self) -> Angle:  # type: ignore[override]
        """pi as an angle: it only ever appears inside exp(i*angle), cos and sin."""
        return Angle(pi_part=Fraction(1))

    # -- making numbers --------------------------------------------------------------------
    def field_constant(self, terms: dict[int, Fraction]) -> TrigNumber:
        """The field element ``sum c * zeta**e`` for ``{e: c}``."""
        reduced = self.field.reduce(terms) if terms else {}
        space = self._space
        degree = max(reduced, default=0)
        return TrigNumber(self, space, space.constant(reduced), space.no_shift, degree)

    def _remembered(self, key: tuple, make: Any) -> TrigNumber:
        """A constant made once (numbers are immutable, so they can be shared)."""
        value = self._constants.get(key)
        if value is None:
            value = self._constants[key] = make()
        return value

    def constant_inverse(self, terms: tuple[tuple[int, Fraction], ...]) -> TrigNumber:
        """``1/c`` for a field element ``c`` given by its terms (remembered: the same few
        constants, such as sqrt(2), are inverted again and again)."""
        return self._remembered(
            ("inverse", terms), lambda: self.field_constant(self.field.inverse(dict(terms)))
        )

    def _slot(self, generator: sympy.Expr) -> tuple[Space, int]:
        """The variable ``exp(i*generator/2)`` (made on first use; a larger context when the
        current one is full)."""
        space, name = self._space, str(generator)
        k = space.index.get(name)
        if k is not None:
            return space, k
        if len(space.symbols) == space.capacity:
            space = self._space = Space(
                2 * space.capacity, [*space.symbols, generator], self.field.modulus
            )
        else:
            space.symbols.append(generator)
            space.index[name] = len(space.symbols) - 1
        return space, space.index[name]

    def expi(self, x: Number) -> TrigNumber:
        """``exp(i*x)`` for an angle: ``zeta**e * prod z_k**(2*a_k)``."""
        angle = self.real_scalar(x)
        if angle.const:
            raise NumberTypeError(
                f"the angle {float(angle.const):.17g} (radians) is not a rational multiple of "
                f"pi, so exp(i*angle) is not exact in numbers={self.name!r}: write angles as "
                "multiples of pi and of parameters (sympy.pi/4, not 0.785...), or use "
                "numbers='sympy'"
            )
        e = self.field.root_exponent(angle.pi_part / 2, lambda: f"exp(i*{angle.to_sympy()})")
        exponents: dict[int, int] = {}
        space = self._space
        for symbol, a in angle.terms:
            if (2 * a).denominator != 1:
                raise NumberTypeError(
                    f"exp(i*{angle.to_sympy()}) is not a Laurent monomial in "
                    f"exp(i*{symbol}/2): numbers={self.name!r} takes angles with half-integer "
                    f"multiples of each parameter ({symbol}, {symbol}/2, 3*{symbol}/2)"
                )
            space, k = self._slot(symbol)
            exponents[k] = int(2 * a)
        root = self._remembered(("root", e), lambda: self.field_constant({e: Fraction(1)}))
        if not exponents:
            return root
        shift = tuple(exponents.get(k, 0) for k in range(space.capacity))
        poly = root.poly if root.space is space else root.poly.project_to_context(space.ctx)
        return TrigNumber(self, space, poly, shift, root.zeta_degree)

    def cos(self, x: Number) -> TrigNumber:
        angle = self.real_scalar(x)
        return (self.expi(angle) + self.expi(-angle)) * Fraction(1, 2)

    def sin(self, x: Number) -> TrigNumber:
        angle = self.real_scalar(x)
        return (self.expi(angle) - self.expi(-angle)) * self.minus_i * Fraction(1, 2)

    def exp(self, x: Number) -> TrigNumber:
        raise NumberTypeError(
            f"numbers={self.name!r} holds exp(i*angle) for exact angles only; exp({x}) is "
            "not one of them (channels with decay times need numbers='sympy' or machine numbers)"
        )

    def sqrt(self, x: Number) -> TrigNumber:
        r = rational_value(x)
        if r is None:
            raise NumberTypeError(
                f"numbers={self.name!r} takes square roots of rational numbers only, not of {x}"
            )
        return self._remembered(
            ("sqrt", r), lambda: self.field_constant(self.field.sqrt_rational(r))
        )

    # -- conversions -----------------------------------------------------------------------
    def scalar(self, value: Any) -> TrigNumber:
        if isinstance(value, TrigNumber):
            if value.system is not self:
                raise NumberTypeError(
                    f"a number of {value.system.name!r} given to numbers={self.name!r}"
                )
            return value
        if isinstance(value, Angle):
            r = value.rational()
            if r is None:
                raise NumberTypeError(
                    f"the angle {value.to_sympy()} is not a trig number: numbers={self.name!r} "
                    "holds exp(i*angle), cos(angle) and sin(angle), not angles themselves"
                )
            return self.field_constant({0: r} if r else {})
        if isinstance(value, (bool, np.bool_)) or value is None or isinstance(value, (str, bytes)):
            raise NumberTypeError(f"expected a number, got {value!r}")
        if isinstance(value, sympy.Basic):
            from .convert import from_sympy

            return from_sympy(value, self)
        if isinstance(value, (complex, np.complexfloating)):
            z = complex(value)
            if not np.isfinite(z.real) or not np.isfinite(z.imag):
                raise NonFiniteError(f"{value!r} is not finite")
            return self.scalar(z.real) + self.scalar(z.imag) * self.I
        if isinstance(value, (_abc.Number, np.number)):
            r = exact_rational(value, "a trig number")
            if abs(r.numerator) < SMALL and r.denominator < SMALL:
                return self._remembered(("rational", r), lambda: self.field_constant({0: r}))
            return self.field_constant({0: r} if r else {})
        raise NumberTypeError(
            f"expected a number, a SymPy expression or a trig number, got {value!r} of type "
            f"{type(value).__name__}"
        )

    def real_scalar(self, value: Any) -> Angle:  # type: ignore[override]
        """A real parameter as an exact :class:`Angle` (it becomes a number where one is
        needed: a rational Pauli coefficient, a channel probability)."""
        if isinstance(value, TrigNumber):
            r = rational_value(value)
            if r is None:
                raise NumberTypeError(f"{value} is not an angle")
            return Angle(r)
        return Angle.parse(value)

    def integer(self, k: int) -> TrigNumber:
        return self.field_constant({0: Fraction(k)} if k else {})

    def float_value(self, x: Any) -> TrigNumber:
        return self.scalar(exact_rational(x, "a float"))

    def to_complex(self, value: Number) -> complex:
        return self.scalar(value).to_complex()

    # -- arithmetic the simulator asks for -------------------------------------------------
    def conj(self, x: Number) -> TrigNumber:
        return self.scalar(x).conjugate()

    def abs2(self, x: Number) -> TrigNumber:
        x = self.scalar(x)
        return x * x.conjugate()

    def real(self, x: Number) -> TrigNumber:
        return self.scalar(x).real

    def is_zero(self, x: Number) -> bool:
        return self.scalar(x).is_zero()

    def free_symbols(self, values: Sequence[Number] | np.ndarray) -> set:
        found: set = set()
        for v in np.asarray(values, dtype=object).reshape(-1):
            if isinstance(v, TrigNumber):
                found |= v.free_symbols()
        return found

    def display(self, value: Number) -> str:
        return str(self.scalar(value).to_sympy())

    def encode(self, value: Number) -> str:
        """Exact, through SymPy's ``srepr`` of the sum form (read back by :meth:`decode`)."""
        return sympy.srepr(self.scalar(value).to_sympy("sum"))

    def decode(self, text: str) -> TrigNumber:
        """Read an ``srepr`` back (evaluated as Python: load only files you trust)."""
        from ..srepr import read_srepr

        return self.scalar(read_srepr(text))
