"""The cyclotomic field Q(zeta_N), zeta_N = exp(2*pi*i/N): the exact constants of
``numbers="trig"``.

An element is a polynomial in ``zeta`` of degree below phi(N) with rational coefficients (the
remainder modulo the cyclotomic polynomial Phi_N), so each element has exactly one form.
Clifford+T constants live in Q(zeta_8): ``i = zeta^2``, ``exp(i*pi/4) = zeta``,
``sqrt(2) = zeta - zeta^3``. This module knows which constants a field holds and says which
field holds the others; the multivariate arithmetic lives in :mod:`.laurent`.
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Callable
from fractions import Fraction
from functools import cached_property
from typing import Any

import sympy

from ...errors import NumberTypeError


def _squarefree_part(m: int) -> tuple[int, int]:
    """``(s, f)`` with ``m = s**2 * f`` and ``f`` squarefree (``m`` positive)."""
    s, f, p = 1, 1, 2
    while p * p <= m:
        while m % (p * p) == 0:
            m //= p * p
            s *= p
        if m % p == 0:
            m //= p
            f *= p
        p += 1
    return s, f * m


def _prime_factors(m: int) -> list[int]:
    out, p = [], 2
    while p * p <= m:
        if m % p == 0:
            out.append(p)
            while m % p == 0:
                m //= p
        p += 1
    return out + ([m] if m > 1 else [])


def order_of_sqrt(f: int) -> int:
    """The smallest N with sqrt(f) in Q(zeta_N), ``f`` squarefree and positive: 8 for 2,
    p for primes p = 1 mod 4, 4p for p = 3 mod 4 (Gauss sums), their lcm for products."""
    order = 1
    for p in _prime_factors(f):
        order = math.lcm(order, 8 if p == 2 else (p if p % 4 == 1 else 4 * p))
    return order


class CyclotomicField:
    """Q(zeta_N) for one ``order`` N (a multiple of 4, so that ``i = zeta**(N/4)`` is in it)."""

    def __init__(self, order: int) -> None:
        if isinstance(order, bool) or not isinstance(order, int) or order < 4 or order % 4:
            raise NumberTypeError(
                f"the trig numbers' cyclotomic order must be a multiple of 4 (so that i is "
                f"exact), got {order!r}: e.g. numbers='trig:8' (Clifford+T), 'trig:24'"
            )
        import flint

        self.order = order
        self.modulus = flint.fmpz_poly.cyclotomic(order)
        self.degree = self.modulus.degree()

    @property
    def name(self) -> str:
        return "trig" if self.order == DEFAULT_ORDER else f"trig:{self.order}"

    def _advice(self, needed: int) -> str:
        return f"numbers='trig:{math.lcm(self.order, needed)}'"

    def root_exponent(self, turns: Fraction, what: Callable[[], str]) -> int:
        """``e`` with ``zeta**e = exp(2*pi*i*turns)``; an error naming the field that holds it
        when this one does not (``what()`` names the value in it)."""
        e = turns * self.order
        if e.denominator != 1:
            needed = turns.denominator  # exp(2 pi i p/q) is a primitive q-th root
            raise NumberTypeError(
                f"{what()} is not in Q(zeta_{self.order}) (numbers={self.name!r}); it needs "
                f"the {needed}-th roots of unity: use {self._advice(needed)}"
            )
        return int(e) % self.order

    def sqrt_rational(self, r: Fraction) -> dict[int, Fraction]:
        """The principal square root of a rational as ``{power of zeta: coefficient}``."""
        if r == 0:
            return {}
        num, den = abs(r.numerator), r.denominator
        outside, f = _squarefree_part(num * den)
        scale = Fraction(outside, den)  # sqrt(|r|) = scale * sqrt(f)
        needed = order_of_sqrt(f)
        if r < 0:
            needed = math.lcm(needed, 4)
        if self.order % needed:
            raise NumberTypeError(
                f"sqrt({r}) is not in Q(zeta_{self.order}) (numbers={self.name!r}): "
                f"use {self._advice(needed)}"
            )
        value = {0: Fraction(1)}
        for p in _prime_factors(f):
            value = self.multiply(value, self._sqrt_prime(p))
        if r < 0:
            value = self.multiply(value, {self.order // 4: Fraction(1)})
        return {e: c * scale for e, c in value.items()}

    def _sqrt_prime(self, p: int) -> dict[int, Fraction]:
        """sqrt(p): zeta_8 + zeta_8^-1 for 2; the quadratic Gauss sum for odd p (times -i
        when p = 3 mod 4), its sign checked numerically."""
        if p == 2:
            step = self.order // 8
            terms = {step: Fraction(1), self.order - step: Fraction(1)}
        else:
            step = self.order // p
            terms = {}
            for a in range(1, p):
                legendre = 1 if pow(a, (p - 1) // 2, p) == 1 else -1
                terms[(a * step) % self.order] = Fraction(legendre)
            if p % 4 == 3:
                terms = self.multiply(terms, {3 * self.order // 4: Fraction(1)})  # times -i
        terms = self.reduce(terms)
        if self.to_complex(terms).real < 0:
            terms = {e: -c for e, c in terms.items()}
        return terms

    def multiply(self, a: dict[int, Fraction], b: dict[int, Fraction]) -> dict[int, Fraction]:
        """The product of two elements given as ``{power: coefficient}``, reduced."""
        return _terms(_poly(a) * _poly(b) % self._modulus)

    def reduce(self, terms: dict[int, Fraction]) -> dict[int, Fraction]:
        """``terms`` (any powers) as the remainder modulo Phi_N."""
        return _terms(_poly(terms) % self._modulus)

    def inverse(self, terms: dict[int, Fraction]) -> dict[int, Fraction]:
        """The inverse of a nonzero element (extended Euclid against Phi_N)."""
        g, s, _ = _poly(terms).xgcd(self._modulus)
        if g != 1:
            raise ZeroDivisionError("division by zero in a cyclotomic field")
        return _terms(s)

    @cached_property
    def _modulus(self) -> Any:
        """Phi_N with rational coefficients (flint's remainders and xgcd want that type)."""
        import flint

        return flint.fmpq_poly(self.modulus)

    @cached_property
    def _roots(self) -> list[complex]:
        return [cmath.exp(2j * math.pi * e / self.order) for e in range(self.order)]

    def to_complex(self, terms: dict[int, Fraction]) -> complex:
        return sum((float(c) * self._roots[e] for e, c in terms.items()), 0j)

    def to_sympy(self, terms: dict[int, Fraction]) -> sympy.Expr:
        """The element as SymPy radicals where SymPy knows them (cos(pi/4) = sqrt(2)/2)."""
        real, imag = sympy.Integer(0), sympy.Integer(0)
        for e, c in terms.items():
            q, angle = sympy.Rational(c.numerator, c.denominator), 2 * sympy.pi * e / self.order
            real, imag = real + q * sympy.cos(angle), imag + q * sympy.sin(angle)
        return sympy.expand(real) + sympy.I * sympy.expand(imag)


def _poly(terms: dict[int, Fraction]) -> Any:
    """``{power of zeta: coefficient}`` as a univariate flint polynomial."""
    import flint

    length = max(terms, default=-1) + 1
    zero = Fraction(0)
    return flint.fmpq_poly(
        [
            flint.fmpq(c.numerator, c.denominator)
            for c in (terms.get(e, zero) for e in range(length))
        ]
    )


def _terms(poly: Any) -> dict[int, Fraction]:
    """A flint polynomial's nonzero coefficients by power."""
    return {e: Fraction(int(c.p), int(c.q)) for e, c in enumerate(poly.coeffs()) if c != 0}


DEFAULT_ORDER = 8
"""``numbers="trig"``: Q(zeta_8), the Clifford+T constants."""
