"""SymPy expressions read back from their ``srepr`` text: how SymPy, SymEngine and trig
numbers load saved states (one reader, so every number system refuses bad text alike)."""

from __future__ import annotations

import sympy


def read_srepr(text: str) -> sympy.Basic:
    """A SymPy expression from its ``srepr`` (shared with SymEngine numbers, which save
    through SymPy to keep their symbols' assumptions)."""
    from ..errors import NumberTypeError

    try:
        expr = sympy.sympify(text)
    except (sympy.SympifyError, SyntaxError, TypeError) as exc:
        raise NumberTypeError(f"cannot read a saved expression {text[:60]!r}: {exc}") from None
    if not isinstance(expr, sympy.Basic):
        raise NumberTypeError(f"a saved expression is not a SymPy expression: {text[:60]!r}")
    return expr
