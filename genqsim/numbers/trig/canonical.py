"""One canonical form for exact expressions in the parameters: through the trig numbers,
where equal functions are equal polynomials."""

from __future__ import annotations

from typing import Any

import sympy

from ...errors import NonFiniteError, NumberTypeError
from .convert import from_sympy
from .system import TrigNumbers

_NEEDS_REAL_SYMBOLS = (sympy.conjugate, sympy.re, sympy.im, sympy.Abs, sympy.arg)


def canonical(expr: sympy.Expr) -> sympy.Expr | None:
    """``expr`` in the trig numbers' canonical form (equal functions give identical
    expressions, and every cancellation is complete), or ``None`` where the trig numbers do
    not hold it exactly: floats, angles that are not half-integer multiples of the
    parameters, other functions, python-flint missing, or conjugates and moduli of
    parameters not declared real (the trig numbers take every parameter to be real)."""
    import importlib.util

    if importlib.util.find_spec("flint") is None or expr.has(sympy.Float):
        return None
    if expr.has(*_NEEDS_REAL_SYMBOLS) and not all(s.is_real for s in expr.free_symbols):
        return None
    try:
        value = from_sympy(expr, TrigNumbers())
    except (NumberTypeError, NonFiniteError, ValueError, TypeError):
        return None
    return value.to_sympy()


def simplified(expr: Any) -> sympy.Expr:
    """``expr`` simplified: its canonical trig form where :func:`canonical` applies (a
    polynomial in the cosines and sines of the parameters, as circuit results are), else
    SymPy's ``simplify``."""
    expr = sympy.sympify(expr)
    found = canonical(expr) if isinstance(expr, sympy.Expr) else None
    return sympy.simplify(expr) if found is None else found
