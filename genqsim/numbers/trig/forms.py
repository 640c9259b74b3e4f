"""Trig numbers as SymPy expressions, in two shapes.

``"sum"``: the real and imaginary parts as sums of ``c*cos(phi) + s*sin(phi)``, ``phi`` a
linear combination of the angles (each pair of terms ``z**m`` and ``z**-m`` is one cosine or
sine). This is the shape SymPy's ``simplify`` reaches for expectation values.

``"exp"``: the Laurent polynomial as it is, ``sum c_m exp(i*phi_m)``.

``"product"``: each ``z_k`` written as ``cos(a_k) + i*sin(a_k)`` (``a_k = theta_k`` where only
even powers occur, else ``theta_k/2``), reduced by ``sin**2 = 1 - cos**2`` to a canonical
polynomial, and each part factored by flint: ``cos(theta0)*cos(theta1)`` rather than the
four cosines of sums it expands to.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import sympy

from ...errors import ArgumentValueError

if TYPE_CHECKING:
    from .laurent import TrigNumber

FORMS = ("auto", "sum", "product", "exp")


def to_sympy(x: TrigNumber, form: str = "auto") -> sympy.Expr:
    """``x`` as a SymPy expression in the chosen form (see the module docstring)."""
    if form not in FORMS:
        raise ArgumentValueError(f"form must be one of {', '.join(FORMS)}, got {form!r}")
    if form == "exp":
        return _exp_form(x)
    real, imag = x.real, (x * x.system.minus_i).real
    if form == "sum":
        return _sum_form(real) + sympy.I * _sum_form(imag)
    if form == "product":
        return _product_form(real) + sympy.I * _product_form(imag)
    candidates = [
        _sum_form(real) + sympy.I * _sum_form(imag),
        _product_form(real) + sympy.I * _product_form(imag),
    ]
    if not imag.is_zero():
        candidates.append(_exp_form(x))
    return min(candidates, key=sympy.count_ops)


def _exp_form(x: TrigNumber) -> sympy.Expr:
    """``sum c_m exp(i*phi_m)``: the Laurent polynomial itself (short for complex
    amplitudes such as a Fourier sum)."""
    field, symbols = x.system.field, _symbols(x)
    by_powers: dict[tuple, dict[int, Fraction]] = defaultdict(dict)
    for e, powers, c in x.terms():
        by_powers[powers][e] = c
    return sympy.Add(
        *(
            field.to_sympy(coefficient) * sympy.exp(sympy.I * _phase(powers, symbols))
            for powers, coefficient in by_powers.items()
        )
    )


def _phase(powers: tuple, symbols: dict[str, sympy.Expr]) -> sympy.Expr:
    """``sum k/2 * generator`` for the exponents ``k`` of ``z = exp(i*generator/2)``."""
    return sympy.Add(*(sympy.Rational(k, 2) * symbols[name] for name, k in powers))


def _symbols(x: TrigNumber) -> dict[str, sympy.Expr]:
    return {str(g): g for g in x.space.symbols}


def _sum_form(real: TrigNumber) -> sympy.Expr:
    """A real trig number as ``sum Re(c_m) cos(phi_m) - Im(c_m) sin(phi_m)`` over pairs."""
    field, symbols = real.system.field, _symbols(real)
    by_powers: dict[tuple, dict[int, Fraction]] = defaultdict(dict)
    for e, powers, c in real.terms():
        by_powers[powers][e] = c
    out = sympy.Integer(0)
    for powers, coefficient in by_powers.items():
        if powers and powers[0][1] < 0:
            continue  # the partner of a term with the first exponent positive
        value = field.to_sympy(coefficient)
        if not powers:
            out += sympy.re(value)
            continue
        phase = _phase(powers, symbols)
        re, im = sympy.re(value), sympy.im(value)
        out += 2 * re * sympy.cos(phase) - 2 * im * sympy.sin(phase)
    return out


def _product_form(real: TrigNumber) -> sympy.Expr:
    """A real trig number as factored polynomials in cosines and sines of the angles."""
    import flint

    field, symbols = real.system.field, _symbols(real)
    terms = list(real.terms())
    names = sorted({name for _, powers, _ in terms for name, _ in powers})
    full = {
        n: all(k % 2 == 0 for _, powers, _ in terms for m, k in powers if m == n) for n in names
    }
    sines, cosines = [f"s{j}" for j in range(len(names))], [f"c{j}" for j in range(len(names))]
    ctx = flint.fmpq_mpoly_ctx.get(("zeta", *sines, *cosines), "lex")
    gens = ctx.gens()
    zeta, s, c = gens[0], gens[1 : 1 + len(names)], gens[1 + len(names) :]
    i = zeta ** (field.order // 4)
    up = [c[j] + i * s[j] for j in range(len(names))]
    down = [c[j] - i * s[j] for j in range(len(names))]
    poly = ctx.from_dict({})
    for e, powers, coefficient in terms:
        term = ctx.term(exp_vec=(e,) + (0,) * (2 * len(names)), coeff=_fmpq(coefficient))
        for name, k in powers:
            j = names.index(name)
            k = k // 2 if full[name] else k
            term = term * (up[j] ** k if k > 0 else down[j] ** (-k))
        poly += term
    for j in range(len(names)):
        poly = divmod(poly, s[j] ** 2 + c[j] ** 2 - 1)[1]
    blank = (0,) * (2 * len(names))
    modulus = {(e, *blank): int(v) for e, v in enumerate(field.modulus.coeffs()) if v}
    poly = divmod(poly, ctx.from_dict(modulus))[1]
    angles = [symbols[n] if full[n] else symbols[n] / 2 for n in names]
    variables = [sympy.sin(a) for a in angles] + [sympy.cos(a) for a in angles]
    by_zeta: dict[int, dict[tuple[int, ...], Any]] = defaultdict(dict)
    for exps, coeff in poly.terms():
        by_zeta[exps[0]][exps[1:]] = coeff
    rest_ctx = flint.fmpq_mpoly_ctx.get((*sines, *cosines), "lex")
    by_value: dict[sympy.Expr, Any] = {}
    for e, part in by_zeta.items():
        value = sympy.cos(2 * sympy.pi * e / field.order)
        if value == 0:
            continue
        p = rest_ctx.from_dict(part)
        if -value in by_value:
            by_value[-value] -= p
        else:
            by_value[value] = by_value.get(value, rest_ctx.from_dict({})) + p
    return sympy.Add(*(value * _factored(p, variables) for value, p in by_value.items()))


def _fmpq(c: Fraction) -> Any:
    import flint

    return flint.fmpq(c.numerator, c.denominator)


def _factored(poly: Any, variables: list[sympy.Expr]) -> sympy.Expr:
    """A flint polynomial in sines and cosines as a SymPy product of its factors."""
    if poly.is_zero():
        return sympy.Integer(0)
    content, factors = poly.factor()
    out = sympy.Rational(int(content.p), int(content.q))
    for factor, multiplicity in factors:
        expr = sympy.Add(
            *(
                sympy.Rational(int(c.p), int(c.q))
                * sympy.Mul(*(v**k for v, k in zip(variables, exps, strict=True)))
                for exps, c in factor.terms()
            )
        )
        out *= expr**multiplicity
    return out
