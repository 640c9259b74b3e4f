"""Angles for ``numbers="trig"``: exact real linear forms ``c + p*pi + sum_k a_k theta_k``.

Gate builders do arithmetic on angles (``theta / 2``, ``phi + lam``) before taking
``exp(i*angle)``, ``cos`` or ``sin``; in the trig system that arithmetic stays exact here, and
only then becomes a monomial in ``zeta`` and ``z_k = exp(i*theta_k/2)``. A plain rational
(a Pauli coefficient, a channel probability: the other real parameters) is an angle with only
``c``, and turns into a number where it meets one.
"""

from __future__ import annotations

import functools
import numbers as _abc
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from ...errors import NonFiniteError, NumberTypeError

ANGLE_MEMO_SIZE = 4096
"""Distinct SymPy angle expressions whose parsed :class:`Angle` is remembered."""


def exact_rational(value: Any, what: str) -> Fraction:
    """A Python or NumPy integer, rational or float (its exact binary value), or a SymPy
    number, as a Fraction."""
    if isinstance(value, (bool, np.bool_)):
        raise NumberTypeError(f"{what}: expected a number, got {value!r}")
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    if isinstance(value, float):
        if not np.isfinite(value):
            raise NonFiniteError(f"{what}: {value!r} is not finite")
        return Fraction(value)
    if isinstance(value, sympy.Basic) and (value.is_Rational or value.is_Float):
        if value.is_Float and not value.is_finite:
            raise NonFiniteError(f"{what}: {value!r} is not finite")
        r = sympy.Rational(value)
        return Fraction(int(r.p), int(r.q))
    if isinstance(value, _abc.Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    raise NumberTypeError(f"{what}: expected a real rational number, got {value!r}")


def is_generator(key: sympy.Basic) -> bool:
    """Whether an angle's term is one of its variables: a parameter ``theta`` or a parameter
    times pi (``pi*phi``: phase estimation writes ``2*pi*phi``)."""
    if isinstance(key, sympy.Symbol):
        return True
    return (
        isinstance(key, sympy.Mul)
        and len(key.args) == 2
        and sympy.pi in key.args
        and any(isinstance(a, sympy.Symbol) for a in key.args)
    )


class Angle:
    """``const + pi_part*pi + sum(coeff * generator)``, all coefficients exact rationals; a
    generator is a parameter or a parameter times pi (see :func:`is_generator`)."""

    __slots__ = ("const", "pi_part", "terms")

    def __init__(
        self,
        const: Fraction = Fraction(0),
        pi_part: Fraction = Fraction(0),
        terms: tuple[tuple[sympy.Expr, Fraction], ...] = (),
    ) -> None:
        self.const = const
        self.pi_part = pi_part
        self.terms = tuple(sorted(((g, c) for g, c in terms if c), key=lambda t: str(t[0])))

    @classmethod
    def parse(cls, value: Any) -> Angle:
        """An angle from a number or a SymPy expression linear in its symbols and pi (a
        SymPy expression's angle is remembered: angles never change, and a circuit repeats
        the same few)."""
        if isinstance(value, Angle):
            return value
        if not isinstance(value, sympy.Basic):
            return cls(exact_rational(value, "an angle"))
        return _parsed(value)

    @classmethod
    def _parse_expression(cls, value: sympy.Basic) -> Angle:
        expr = sympy.expand(value)
        if expr.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
            raise NonFiniteError(f"angle {value} is not finite")
        const, pi_part = Fraction(0), Fraction(0)
        terms: dict[sympy.Expr, Fraction] = {}
        for key, coeff in expr.as_coefficients_dict().items():
            if not (coeff.is_Rational or coeff.is_Float):
                raise _not_linear(value)
            c = exact_rational(coeff, "an angle's coefficient")
            if key == 1:
                const += c
            elif key is sympy.pi:
                pi_part += c
            elif is_generator(key):
                if any(s.is_real is False for s in key.free_symbols):
                    raise NumberTypeError(f"angle {value}: parameter {key} is not real")
                terms[key] = terms.get(key, Fraction(0)) + c
            else:
                raise _not_linear(value)
        return cls(const, pi_part, tuple(terms.items()))

    # -- arithmetic ------------------------------------------------------------------------
    @staticmethod
    def _lift(other: Any) -> Angle | None:
        if isinstance(other, Angle):
            return other
        if isinstance(other, (int, Fraction, float, np.integer, np.floating)) or (
            isinstance(other, sympy.Basic) and (other.is_Rational or other.is_Float)
        ):
            return Angle(exact_rational(other, "an angle"))
        return None

    def __add__(self, other: Any) -> Angle:
        o = self._lift(other)
        if o is None:
            return NotImplemented
        merged = dict(self.terms)
        for s, c in o.terms:
            merged[s] = merged.get(s, Fraction(0)) + c
        return Angle(self.const + o.const, self.pi_part + o.pi_part, tuple(merged.items()))

    __radd__ = __add__

    def __neg__(self) -> Angle:
        return self._scaled(Fraction(-1))

    def __sub__(self, other: Any) -> Angle:
        o = self._lift(other)
        return NotImplemented if o is None else self + (-o)

    def __rsub__(self, other: Any) -> Angle:
        o = self._lift(other)
        return NotImplemented if o is None else o + (-self)

    def _scaled(self, k: Fraction) -> Angle:
        return Angle(self.const * k, self.pi_part * k, tuple((s, c * k) for s, c in self.terms))

    def rational(self) -> Fraction | None:
        """The value when the angle is a plain rational (no pi, no symbols), else None."""
        return self.const if not self.pi_part and not self.terms else None

    def __mul__(self, other: Any) -> Angle:
        o = self._lift(other)
        if o is None:
            return NotImplemented
        k = o.rational()
        if k is not None:
            return self._scaled(k)
        k = self.rational()
        if k is not None:
            return o._scaled(k)
        raise NumberTypeError(f"the product of angles {self} and {o} is not linear")

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Angle:
        o = self._lift(other)
        if o is None:
            return NotImplemented
        k = o.rational()
        if k is None or k == 0:
            raise NumberTypeError(f"angle {self} divided by {o}: only nonzero rationals divide")
        return self._scaled(1 / k)

    def __eq__(self, other: object) -> bool:
        o = self._lift(other)
        if o is None:
            return NotImplemented
        return (self.const, self.pi_part, self.terms) == (o.const, o.pi_part, o.terms)

    def __hash__(self) -> int:
        return hash((self.const, self.pi_part, self.terms))

    def to_sympy(self) -> sympy.Expr:
        def q(c: Fraction) -> sympy.Rational:
            return sympy.Rational(c.numerator, c.denominator)

        return (
            q(self.const)
            + q(self.pi_part) * sympy.pi
            + sum((q(c) * s for s, c in self.terms), sympy.Integer(0))
        )

    def __repr__(self) -> str:
        return f"Angle({self.to_sympy()})"


@functools.lru_cache(maxsize=ANGLE_MEMO_SIZE)
def _parsed(value: sympy.Basic) -> Angle:
    return Angle._parse_expression(value)


def _not_linear(value: Any) -> NumberTypeError:
    return NumberTypeError(
        f"angle {value} is not a linear form in its parameters and pi with rational "
        "coefficients, which numbers='trig' needs (exp(i*angle) must be a monomial in "
        "exp(i*theta/2)); use numbers='sympy' for it"
    )
