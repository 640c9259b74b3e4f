"""Elements of ``numbers="trig"``: Laurent polynomials in ``z_k = exp(i*theta_k/2)`` with
coefficients in Q(zeta_N), on python-flint's multivariate rational polynomials.

A number is ``z**shift * P(zeta, z)``: ``P`` a polynomial with the variable ``zeta`` first
(its degree kept below phi(N) by reducing modulo Phi_N) and one variable per parameter, and
``shift`` a vector of integer exponents that may be negative. ``conj`` maps ``zeta`` to
``zeta**-1`` and ``z_k`` to ``z_k**-1`` (parameters are real). Two numbers are equal exactly
when their difference is the zero polynomial; their terms with absolute exponents are a
canonical form (hashing, printing, SymPy conversion), whatever the shifts.

Parameters get variables in the order a system meets them, in a context with room for
``capacity`` of them; a system that meets more opens a context twice as large, and numbers
made before are carried over (by variable name) when they meet newer ones.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from ...errors import NotNumericError, NumberTypeError
from .angles import Angle, exact_rational

if TYPE_CHECKING:
    from .system import TrigNumbers

ZETA = "zeta"


class Space:
    """One flint context: ``zeta`` and ``capacity`` parameter variables ``z0, z1, ...``."""

    def __init__(self, capacity: int, symbols: list[sympy.Expr], modulus: Any) -> None:
        import flint

        self.capacity = capacity
        self.ctx = flint.fmpq_mpoly_ctx.get((ZETA, *tuple(f"z{k}" for k in range(capacity))), "lex")
        self.symbols = list(symbols)
        self.index = {str(g): k for k, g in enumerate(self.symbols)}
        self.modulus = self.ctx.from_dict(
            {(e,) + (0,) * capacity: int(c) for e, c in enumerate(modulus.coeffs()) if c != 0}
        )
        self.no_shift = (0,) * capacity
        self._monomials: dict[tuple[int, ...], Any] = {}

    def monomial(self, exponents: tuple[int, ...]) -> Any:
        """``z**exponents`` (non-negative) as a polynomial, cached."""
        m = self._monomials.get(exponents)
        if m is None:
            m = self._monomials[exponents] = self.ctx.term(exp_vec=(0, *exponents))
        return m

    def constant(self, terms: Mapping[int, Fraction]) -> Any:
        """A field element ``{power of zeta: coefficient}`` (reduced) as a polynomial."""
        import flint

        zeros = (0,) * self.capacity
        return self.ctx.from_dict(
            {(e, *zeros): flint.fmpq(c.numerator, c.denominator) for e, c in terms.items()}
        )


class TrigNumber:
    """A Laurent polynomial in ``exp(i*theta_k/2)`` with cyclotomic coefficients."""

    __slots__ = ("poly", "shift", "space", "system", "zeta_degree")

    def __init__(
        self, system: TrigNumbers, space: Space, poly: Any, shift: tuple[int, ...], zeta_degree: int
    ) -> None:
        self.system = system
        self.space = space
        self.poly = poly
        self.shift = shift
        self.zeta_degree = zeta_degree  # an upper bound on P's degree in zeta

    # -- operands --------------------------------------------------------------------------
    def _coerce(self, other: Any) -> TrigNumber | None:
        if type(other) is TrigNumber and other.system is self.system:
            return other
        if isinstance(other, TrigNumber):
            if other.system is not self.system:
                raise NumberTypeError(
                    f"cannot combine numbers of {self.system.name!r} and {other.system.name!r}"
                )
            return other
        if isinstance(other, Angle):
            return self.system.scalar(other)
        if isinstance(other, (int, Fraction, float, complex, np.number)) and not isinstance(
            other, bool
        ):
            return self.system.scalar(other)
        return None

    def _in(self, space: Space) -> tuple[Any, tuple[int, ...]]:
        """This number's polynomial and shift in ``space`` (a larger context of its system)."""
        if space is self.space:
            return self.poly, self.shift
        pad = (0,) * (space.capacity - self.space.capacity)
        return self.poly.project_to_context(space.ctx), self.shift + pad

    def _pair(self, other: TrigNumber) -> tuple[Space, Any, tuple[int, ...], Any, tuple[int, ...]]:
        space = self.space if self.space.capacity >= other.space.capacity else other.space
        a, sa = self._in(space)
        b, sb = other._in(space)
        return space, a, sa, b, sb

    def _new(self, space: Space, poly: Any, shift: tuple[int, ...], zeta_degree: int) -> TrigNumber:
        """A number of this system, reduced modulo Phi_N when its degree in zeta may have
        reached phi(N) (a product)."""
        if zeta_degree >= self.system.field.degree:
            poly = divmod(poly, space.modulus)[1]
            zeta_degree = self.system.field.degree - 1
        return TrigNumber(self.system, space, poly, shift, zeta_degree)

    # -- ring operations -------------------------------------------------------------------
    def __add__(self, other: Any) -> TrigNumber:
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        if o.poly.is_zero():
            return self
        if self.poly.is_zero():
            return o
        space, a, sa, b, sb = self._pair(o)
        degree = max(self.zeta_degree, o.zeta_degree)
        if sa == sb:
            return TrigNumber(self.system, space, a + b, sa, degree)
        low = tuple(map(min, sa, sb))
        if sa != low:
            a = a * space.monomial(tuple(map(operator.sub, sa, low)))
        if sb != low:
            b = b * space.monomial(tuple(map(operator.sub, sb, low)))
        return TrigNumber(self.system, space, a + b, low, degree)

    __radd__ = __add__

    def __neg__(self) -> TrigNumber:
        return TrigNumber(self.system, self.space, -self.poly, self.shift, self.zeta_degree)

    def __pos__(self) -> TrigNumber:
        return self

    def __sub__(self, other: Any) -> TrigNumber:
        o = self._coerce(other)
        return NotImplemented if o is None else self + (-o)

    def __rsub__(self, other: Any) -> TrigNumber:
        o = self._coerce(other)
        return NotImplemented if o is None else o + (-self)

    def __mul__(self, other: Any) -> TrigNumber:
        if type(other) is TrigNumber and other.system is self.system:
            o = other
        else:
            o = self._coerce(other)  # type: ignore[assignment]
            if o is None:
                return NotImplemented
        if self.poly.is_zero():
            return self
        if o.poly.is_zero():
            return o
        if self.space is o.space:
            space, a, sa, b, sb = self.space, self.poly, self.shift, o.poly, o.shift
        else:
            space, a, sa, b, sb = self._pair(o)
        if sb == space.no_shift:
            shift = sa
        elif sa == space.no_shift:
            shift = sb
        else:
            shift = tuple(map(operator.add, sa, sb))
        return self._new(space, a * b, shift, self.zeta_degree + o.zeta_degree)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> TrigNumber:
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        return self * o.reciprocal()

    def __rtruediv__(self, other: Any) -> TrigNumber:
        o = self._coerce(other)
        return NotImplemented if o is None else o * self.reciprocal()

    def __pow__(self, k: Any) -> TrigNumber:
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
            raise NumberTypeError(f"trig numbers take integer powers only, got {k!r}")
        k = int(k)
        base = self if k >= 0 else self.reciprocal()
        result, k = self.system.one, abs(k)
        while k:
            if k & 1:
                result = result * base
            base = base * base
            k >>= 1
        return result

    def reciprocal(self) -> TrigNumber:
        """``1/self`` for a constant times a monomial (a gate phase, ``1/sqrt(2)``); other
        Laurent polynomials have no inverse among trig numbers."""
        if self.poly.is_zero():
            raise ZeroDivisionError("division by a trig number equal to zero")
        content = self.poly.term_content()
        (exps,) = content.monoms()
        low = tuple(int(x) for x in exps[1:])
        rest = self.poly / self.space.monomial(low)
        if any(rest.degrees()[1:]):
            raise NumberTypeError(
                f"cannot divide by {self}: trig numbers divide only by constants and monomials "
                "(a Laurent polynomial has no inverse among them); use numbers='sympy'"
            )
        constant = tuple((e[0], Fraction(int(c.p), int(c.q))) for e, c in rest.terms())
        inverse = self.system.constant_inverse(constant)
        shift = tuple(-a - b for a, b in zip(self.shift, low, strict=True))
        poly = inverse.poly if inverse.space is self.space else inverse._in(self.space)[0]
        return TrigNumber(self.system, self.space, poly, shift, inverse.zeta_degree)

    def conjugate(self) -> TrigNumber:
        """``zeta -> zeta**-1`` and ``z_k -> z_k**-1`` (real parameters)."""
        order = self.system.field.order
        items = list(self.poly.terms())
        if not items:
            return self
        width = self.space.capacity
        top = [int(max(e[k + 1] for e, _ in items)) for k in range(width)]
        flipped = {}
        for e, c in items:
            flipped[
                ((order - e[0]) % order, *tuple(t - x for t, x in zip(top, e[1:], strict=True)))
            ] = c
        poly = self.space.ctx.from_dict(flipped)
        shift = tuple(-s - t for s, t in zip(self.shift, top, strict=True))
        return self._new(self.space, poly, shift, order - 1)

    # -- comparison and canonical form -----------------------------------------------------
    def is_zero(self) -> bool:
        return bool(self.poly.is_zero())

    def __eq__(self, other: object) -> bool:
        if (
            type(other) is int
            and self.shift == self.space.no_shift
            and self.zeta_degree < self.system.field.degree
        ):  # reduced in zeta, no shift: equal to an integer exactly when its polynomial is
            return bool(self.poly == other)
        try:
            o = self._coerce(other)
        except NumberTypeError:
            return False
        if o is None:
            return NotImplemented
        return (self - o).is_zero()

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __bool__(self) -> bool:
        return not self.is_zero()

    def terms(self) -> Iterator[tuple[int, tuple[tuple[str, int], ...], Fraction]]:
        """``(power of zeta, ((parameter name, exponent of z), ...), coefficient)`` for every
        term, exponents absolute and parameters sorted by name: the canonical form."""
        symbols = self.space.symbols
        for e, c in self.poly.terms():
            powers = [
                (str(symbols[k]), self.shift[k] + int(x))
                for k, x in enumerate(e[1 : 1 + len(symbols)])
            ]
            yield (
                int(e[0]),
                tuple(sorted((n, x) for n, x in powers if x)),
                Fraction(int(c.p), int(c.q)),
            )

    def canonical(self) -> tuple:
        """The terms, sorted: equal numbers have equal canonical forms."""
        return (self.system.field.order, tuple(sorted(self.terms())))

    def __hash__(self) -> int:
        return hash(self.canonical())

    # -- values ----------------------------------------------------------------------------
    def generators(self) -> set[sympy.Expr]:
        """The variables (parameters, or parameters times pi) with a nonzero exponent in
        some term."""
        if self.poly.is_zero():
            return set()
        highest = self.poly.degrees()[1:]
        lowest = self.poly.term_content().monoms()[0][1:]
        return {
            g
            for g, lo, hi, shift in zip(self.space.symbols, lowest, highest, self.shift)
            if lo != hi or lo + shift != 0
        }

    def free_symbols(self) -> set[sympy.Symbol]:
        """The parameters the number depends on."""
        return {s for g in self.generators() for s in g.free_symbols}

    def __complex__(self) -> complex:
        return self.to_complex()

    def to_complex(self) -> complex:
        """The value, for a number without parameters (raises NotNumericError otherwise)."""
        symbols = self.free_symbols()
        if symbols:
            names = ", ".join(sorted(str(s) for s in symbols))
            raise NotNumericError(f"{self} still depends on {names}; substitute values first")
        return self.evaluate({})

    def evaluate(self, values: Mapping[Any, Any]) -> Any:
        """The value with ``values`` for the parameters (symbols or names; NumPy arrays
        broadcast, so one call evaluates a sweep)."""
        by_name = {getattr(k, "name", k): np.asarray(v, dtype=float) for k, v in values.items()}
        generator_values = {}
        for g in self.generators():
            missing = sorted(s.name for s in g.free_symbols if s.name not in by_name)
            if missing:
                raise NotNumericError(f"no value for parameter {', '.join(missing)} of {self}")
            scale = np.pi if g.has(sympy.pi) else 1.0
            (symbol,) = g.free_symbols
            generator_values[str(g)] = scale * by_name[symbol.name]
        field = self.system.field
        total: Any = 0j
        for e, powers, c in self.terms():
            phase: Any = 0.0
            for name, x in powers:
                phase = phase + x * generator_values[name] / 2
            total = total + float(c) * field.to_complex({e: Fraction(1)}) * np.exp(1j * phase)
        return complex(total) if np.ndim(total) == 0 else total

    def to_sympy(self, form: str = "auto") -> sympy.Expr:
        """The number as a SymPy expression: ``form="sum"`` a sum of cosines and sines of
        linear combinations of the angles (SymPy's simplified shape), ``"product"`` factored
        polynomials in the cosines and sines of the angles, ``"auto"`` whichever has fewer
        operations."""
        from .forms import to_sympy

        return to_sympy(self, form)

    def __str__(self) -> str:
        return str(self.to_sympy("sum"))

    def __repr__(self) -> str:
        return f"TrigNumber({self}, numbers={self.system.name!r})"

    @property
    def real(self) -> TrigNumber:
        return (self + self.conjugate()) * Fraction(1, 2)

    @property
    def imag(self) -> TrigNumber:
        return (self - self.conjugate()) * self.system.minus_i * Fraction(1, 2)


def rational_value(x: Any) -> Fraction | None:
    """``x`` as a rational when it is one (a number, a rational angle, a trig constant)."""
    if isinstance(x, Angle):
        return x.rational()
    if isinstance(x, TrigNumber):
        terms = list(x.terms())
        if not terms:
            return Fraction(0)
        if len(terms) == 1 and terms[0][0] == 0 and not terms[0][1]:
            return terms[0][2]
        return None
    try:
        return exact_rational(x, "a value")
    except NumberTypeError:
        return None
