"""Exact symbolic numbers with SymPy: ``H`` holds ``1/sqrt(2)``, ``Rz(theta)`` holds
``exp(-I*theta/2)``, and free parameters stay symbols through the whole simulation."""

from __future__ import annotations

import numbers as _abc
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy

from ..errors import NonFiniteError, NumberTypeError
from .base import Number, NumberSystem
from .srepr import read_srepr


def _not_a_number(value: Any) -> NumberTypeError:
    kind = type(value).__name__
    return NumberTypeError(f"expected a number or SymPy expression, got {value!r} of type {kind}")


class SympyNumbers(NumberSystem):
    """SymPy expressions in object arrays; exact constants, symbolic parameters."""

    name = "sympy"
    dtype = np.dtype(object)
    symbolic = True

    def scalar(self, value: Any) -> sympy.Expr:
        if isinstance(value, (bool, np.bool_)) or value is None or isinstance(value, (str, bytes)):
            raise _not_a_number(value)
        if isinstance(value, sympy.Basic):
            expr = value
        elif isinstance(value, (_abc.Number, np.number)):
            expr = sympy.sympify(value.item() if isinstance(value, np.generic) else value)
        else:
            raise _not_a_number(value)
        if (expr.is_number and expr.is_finite is False) or expr.has(sympy.nan, sympy.zoo):
            raise NonFiniteError(f"{value!r} is not finite")
        if expr.has(sympy.oo, -sympy.oo):
            raise NonFiniteError(f"{value!r} is not finite")
        return expr

    def to_complex(self, value: Number) -> complex:
        expr = sympy.sympify(value)
        if expr.free_symbols:
            from ..errors import NotNumericError

            names = ", ".join(sorted(str(s) for s in expr.free_symbols))
            raise NotNumericError(f"{expr} still depends on {names}; substitute values first")
        return complex(sympy.N(expr, 17))

    def encode(self, value: Number) -> str:
        """``srepr``: exact, symbols with their assumptions (``real=True``) included."""
        return sympy.srepr(sympy.sympify(value))

    def decode(self, text: str) -> sympy.Expr:
        """Read an ``srepr`` back. It is evaluated as Python, as pickles are: load only
        files you trust."""
        return self.scalar(read_srepr(text))

    zero = sympy.Integer(0)
    one = sympy.Integer(1)
    I = sympy.I  # noqa: E741
    pi = sympy.pi

    def exp(self, x: Number) -> sympy.Expr:
        return sympy.exp(x)

    def cos(self, x: Number) -> sympy.Expr:
        return sympy.cos(x)

    def sin(self, x: Number) -> sympy.Expr:
        return sympy.sin(x)

    def sqrt(self, x: Number) -> sympy.Expr:
        return sympy.sqrt(x)

    def conj(self, x: Number) -> sympy.Expr:
        return sympy.conjugate(x)

    def abs2(self, x: Number) -> sympy.Expr:
        return sympy.re(sympy.expand(x * sympy.conjugate(x)))

    def real(self, x: Number) -> sympy.Expr:
        return sympy.re(sympy.expand(x))

    def simplify(self, x: Number) -> sympy.Expr:
        from .trig.canonical import simplified

        return simplified(x)

    def is_zero(self, x: Number) -> bool:
        return sympy.sympify(x).is_zero is True

    def free_symbols(self, values: Sequence[Number] | np.ndarray) -> set:
        found: set = set()
        for v in np.asarray(values, dtype=object).reshape(-1):
            if isinstance(v, sympy.Basic):
                found |= v.free_symbols
        return found
