"""Polynomials in the cosines and sines of circuit parameters: the compact form of the
coefficients Pauli propagation meets.

A coefficient of a Pauli string pushed backwards through rotations is a sum of products of
``cos`` and ``sin`` of the rotation angles. As a trig number (a Laurent polynomial in
``exp(i*theta/2)``) each product of ``m`` of them expands into ``2**m`` terms; as a polynomial in
``c_k = cos(u_k)`` and ``s_k = sin(u_k)`` it stays one. Here a coefficient is a python-flint
polynomial over Q in ``r = sqrt(2)``, the ``s_k`` and the ``c_k``, one pair per parameter with
the unit angle ``u_k = a_k * theta_k`` (the largest common step of the parameter's multiples
in the circuit), kept canonical by ``s_k**2 = 1 - c_k**2`` and ``r**2 = 2``. Results convert
to SymPy (:meth:`CosSinRing.to_sympy`) and to the trig numbers they equal
(:meth:`CosSinRing.to_trig`, one polynomial composition in flint).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import sympy

from .angles import Angle
from .forms import _factored

if TYPE_CHECKING:
    from .laurent import TrigNumber
    from .system import TrigNumbers

_COS_SIN_OF_QUARTER_PI = [(1, 0, 0, 0), (0, 1, 0, 1), (0, 0, 1, 0), (0, -1, 0, 1),
                          (-1, 0, 0, 0), (0, -1, 0, -1), (0, 0, -1, 0), (0, 1, 0, -1)]  # fmt: skip
"""``(cos_rational, cos_sqrt2_half, sin_rational, sin_sqrt2_half)`` of ``n*pi/4``."""


def _gcd(values: list[Fraction]) -> Fraction:
    """The largest ``g > 0`` with every value an integer multiple of it."""
    numerator = math.gcd(*(v.numerator for v in values))
    denominator = math.lcm(*(v.denominator for v in values))
    return Fraction(numerator, denominator)


class CosSinRing:
    """The polynomials of one propagation: a variable pair per parameter generator, with the
    unit angles found in the circuit (``units``: generator -> multiples met)."""

    def __init__(self, system: TrigNumbers, multiples: Mapping[sympy.Expr, list[Fraction]]) -> None:
        import flint

        self.system = system
        self.generators = sorted(multiples, key=str)
        self.units = {g: _gcd([abs(m) for m in multiples[g]]) for g in self.generators}
        m = len(self.generators)
        names = ("r", *(f"s{k}" for k in range(m)), *(f"c{k}" for k in range(m)))
        self.ctx = flint.fmpq_mpoly_ctx.get(names, "lex")
        gens = self.ctx.gens()
        self.r, self.s, self.c = gens[0], gens[1 : 1 + m], gens[1 + m :]
        self.index = {g: k for k, g in enumerate(self.generators)}
        self.zero, self.one = self.ctx.from_dict({}), self.ctx.from_dict({(0,) * (2 * m + 1): 1})
        self.minus_one = -self.one
        self._relations = [(0, self.r**2 - 2)] + [
            (1 + k, self.s[k] ** 2 + self.c[k] ** 2 - 1) for k in range(m)
        ]
        self._cache: dict[tuple, tuple[Any, Any]] = {}

    # -- making and multiplying ---------------------------------------------------------------
    def rational(self, q: Fraction) -> Any:
        """``q`` as a constant polynomial (``one`` and ``minus_one`` themselves for
        ``+-1``, which products then skip)."""
        import flint

        if q == 1 or q == -1:
            return self.one if q == 1 else self.minus_one
        return self.one * flint.fmpq(q.numerator, q.denominator) if q else self.zero

    def reduce(self, p: Any) -> Any:
        """``p`` with ``r`` and every ``s_k`` of degree at most one."""
        degrees = p.degrees()
        for var, relation in self._relations:
            if degrees[var] >= 2:
                p = divmod(p, relation)[1]
        return p

    def mul(self, a: Any, b: Any) -> Any:
        """``a * b`` reduced; only the relations of variables ``b`` holds can apply (``a``
        is reduced), so a factor free of ``r`` and every ``s_k`` (a cosine, a rational:
        most of a propagation's products) needs none."""
        if b is self.minus_one:
            return -a
        p = a * b
        if b.is_constant():
            return p
        held = b.degrees()
        if not any(held[var] for var, _ in self._relations):
            return p
        degrees = p.degrees()
        for var, relation in self._relations:
            if held[var] and degrees[var] >= 2:
                p = divmod(p, relation)[1]
        return p

    def cos_sin(self, angle: Angle) -> tuple[Any, Any] | None:
        """``(cos, sin)`` of ``angle`` as polynomials; ``None`` where it is not an integer
        combination of the units plus a multiple of pi/4."""
        key = (angle.const, angle.pi_part, angle.terms)
        if key in self._cache:
            return self._cache[key]
        if angle.const or (4 * angle.pi_part).denominator != 1:
            return None
        n = int(4 * angle.pi_part) % 8
        cr, ch, sr, sh = _COS_SIN_OF_QUARTER_PI[n]
        cos = self.rational(Fraction(cr)) + self.r * self.rational(Fraction(ch, 2))
        sin = self.rational(Fraction(sr)) + self.r * self.rational(Fraction(sh, 2))
        for generator, a in angle.terms:
            if generator not in self.index:
                return None
            steps = a / self.units[generator]
            if steps.denominator != 1:
                return None
            k = self.index[generator]
            c, s = self._multiple(k, int(steps))
            cos, sin = (
                self.reduce(cos * c - sin * s),
                self.reduce(sin * c + cos * s),
            )
        self._cache[key] = (cos, sin)
        return cos, sin

    def _multiple(self, k: int, steps: int) -> tuple[Any, Any]:
        """``cos(steps*u_k)``, ``sin(steps*u_k)`` by repeated angle addition."""
        cos, sin = self.one, self.zero
        for _ in range(abs(steps)):
            cos, sin = (
                self.reduce(cos * self.c[k] - sin * self.s[k]),
                self.reduce(sin * self.c[k] + cos * self.s[k]),
            )
        return (cos, -sin) if steps < 0 else (cos, sin)

    # -- results ------------------------------------------------------------------------------
    def to_sympy(self, p: Any) -> sympy.Expr:
        """``p`` in ``sqrt(2)``, ``cos(u_k)`` and ``sin(u_k)``, factored by flint."""
        if p.is_zero():
            return sympy.Integer(0)
        angles = [
            sympy.Rational(u.numerator, u.denominator) * g
            for u, g in zip(self.units.values(), self.generators)
        ]
        variables = [
            sympy.sqrt(2),
            *(sympy.sin(a) for a in angles),
            *(sympy.cos(a) for a in angles),
        ]
        return _factored(p, variables)

    def to_trig(self, p: Any) -> TrigNumber:
        """The trig number equal to ``p``: each ``c_k``, ``s_k`` is ``(W +- 1/W)/2`` (over
        ``i`` for the sine) with ``W = exp(i*u_k)``; homogenised per parameter so one flint
        composition does the substitution."""
        import flint

        ns = self.system
        if p.is_zero():
            return ns.zero
        m = len(self.generators)
        slots = [ns._slot(g)[1] for g in self.generators]
        space = ns._space
        terms = p.to_dict()
        top = [max((e[1 + k] + e[1 + m + k] for e in terms), default=0) for k in range(m)]
        names = (*self.ctx.names(), *(f"t{k}" for k in range(m)))
        homogeneous_ctx = flint.fmpq_mpoly_ctx.get(names, "lex")
        homogeneous = homogeneous_ctx.from_dict(
            {
                (*e, *(top[k] - e[1 + k] - e[1 + m + k] for k in range(m))): c
                for e, c in terms.items()
            }
        )
        w = []
        shift = [0] * space.capacity
        for k, g in enumerate(self.generators):
            power = 2 * self.units[g]
            exps = [0] * space.capacity
            exps[slots[k]] = int(power)
            w.append(space.monomial(tuple(exps)))
            shift[slots[k]] -= top[k] * int(power)
        root2 = ns.sqrt(2)._in(space)[0]
        minus_i = ns.minus_i._in(space)[0]
        half = flint.fmpq(1, 2)
        images = [root2]
        images += [(x * x - 1) * minus_i * half for x in w]
        images += [(x * x + 1) * half for x in w]
        images += w
        poly = homogeneous.compose(*images, ctx=space.ctx)
        return ns.one._new(space, poly, tuple(shift), 2 * ns.field.degree)
