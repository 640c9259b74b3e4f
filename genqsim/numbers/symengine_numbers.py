"""Exact symbolic numbers with SymEngine: the same results as ``numbers="sympy"``, several
times faster to build (SymEngine is a C++ library).

SymEngine symbols carry no assumptions, so the system remembers which parameters are real
(those made with ``gq.parameters`` or named in a circuit): the conjugate of an expression in
real parameters is the expression with ``I`` replaced by ``-I``, which keeps ``|exp(I*a)|**2``
equal to 1 without any simplification. :func:`to_sympy` / :func:`to_symengine` convert results
either way, restoring the real assumptions.
"""

from __future__ import annotations

import numbers as _abc
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy

from ..errors import NotNumericError, NumberTypeError
from ..support.optional import require
from .base import Number, NumberSystem
from .numeric import to_python_complex
from .sympy_numbers import SympyNumbers


def _symengine():
    return require("symengine", "symbolic", "numbers='symengine'")


class SymengineNumbers(NumberSystem):
    """SymEngine expressions in object arrays; exact constants, symbolic parameters."""

    name = "symengine"
    dtype = np.dtype(object)
    symbolic = True

    def __init__(self) -> None:
        self.se = _symengine()
        self._sympy_symbols: dict[str, sympy.Symbol] = {}
        self.zero, self.one = self.se.Integer(0), self.se.Integer(1)
        self.I, self.pi = self.se.I, self.se.pi

    zero = one = I = pi = None  # type: ignore[assignment]  # noqa: E741  (set per instance)

    def _remember(self, expr: sympy.Basic) -> None:
        for s in expr.free_symbols:
            self._sympy_symbols.setdefault(s.name, s)

    def _is_real(self, symbol: Any) -> bool:
        known = self._sympy_symbols.get(str(symbol))
        return bool(known is not None and known.is_real)

    def scalar(self, value: Any) -> Any:
        se = self.se
        if isinstance(value, se.Basic):
            return value
        if isinstance(value, sympy.Basic):
            SympyNumbers().scalar(value)  # the same checks: finite, a number or expression
            self._remember(value)
            return se.sympify(value)
        if isinstance(value, (_abc.Number, np.number)) and not isinstance(value, bool):
            to_python_complex(value)  # rejects NaN and infinities with the standard message
            if isinstance(value, np.generic):
                value = value.item()
            return se.sympify(value)
        raise NumberTypeError(
            f"expected a number or a SymPy/SymEngine expression, got {value!r} of type "
            f"{type(value).__name__}"
        )

    def integer(self, k: int) -> Any:
        return self.se.Integer(k)

    def encode(self, value: Number) -> str:
        """Through SymPy's ``srepr``, with the real symbols this system met restored, so
        conjugation stays exact after loading."""
        expr = sympy.sympify(value)
        known = {s: self._sympy_symbols.get(s.name, s) for s in expr.free_symbols}
        return sympy.srepr(expr.xreplace(known))

    def decode(self, text: str) -> Any:
        """Read an ``srepr`` back (evaluated as Python: load only files you trust)."""
        from .srepr import read_srepr

        return self.scalar(read_srepr(text))

    def to_complex(self, value: Number) -> complex:
        expr = self.scalar(value)
        if expr.free_symbols:
            names = ", ".join(sorted(str(s) for s in expr.free_symbols))
            raise NotNumericError(f"{expr} still depends on {names}; substitute values first")
        return complex(expr.n(real=False))

    def exp(self, x: Number) -> Any:
        return self.se.exp(x)

    def cos(self, x: Number) -> Any:
        return self.se.cos(x)

    def sin(self, x: Number) -> Any:
        return self.se.sin(x)

    def sqrt(self, x: Number) -> Any:
        return self.se.sqrt(x)

    def conj(self, x: Number) -> Any:
        return self._conj(self.scalar(x), {})

    def _conj(self, x: Any, memo: dict) -> Any:
        """Conjugate by walking the tree: numbers and ``I`` flip, real parameters stay, sums,
        products, powers and ``exp/sin/cos`` (real on the real axis) conjugate their
        arguments. SymEngine's own ``conjugate`` does not distribute, and substituting
        ``I -> -I`` misses complex coefficients such as ``-I/2``, which are single numbers."""
        if x in memo:
            return memo[x]
        se = self.se
        if x.is_Number:
            re, im = x.as_real_imag()
            out = x if im == 0 else re - se.I * im
        elif x == se.I:
            out = -se.I
        elif x.is_Symbol:
            out = x if self._is_real(x) else se.conjugate(x)
        elif isinstance(x, se.conjugate):
            out = x.args[0]
        elif not x.args:  # pi, E and other real constants
            out = x
        elif isinstance(x, (se.Add, se.Mul, se.Pow, se.sin, se.cos)):
            out = x.func(*(self._conj(a, memo) for a in x.args))
        else:
            out = se.conjugate(x)
        memo[x] = out
        return out

    def abs2(self, x: Number) -> Any:
        return self.se.expand(self.scalar(x) * self.conj(x))

    def real(self, x: Number) -> Any:
        return self.se.expand((self.scalar(x) + self.conj(x)) / 2)

    def simplify(self, x: Number) -> Any:
        from .trig.canonical import simplified

        return self.se.sympify(simplified(self.to_sympy(x)))

    def is_zero(self, x: Number) -> bool:
        return self.se.expand(self.scalar(x)) == 0

    def free_symbols(self, values: Sequence[Number] | np.ndarray) -> set:
        found: set = set()
        for v in np.asarray(values, dtype=object).reshape(-1):
            if isinstance(v, self.se.Basic):
                found |= {
                    self._sympy_symbols.get(str(s), sympy.Symbol(str(s))) for s in v.free_symbols
                }
        return found

    def to_sympy(self, x: Any) -> sympy.Expr:
        """A SymPy expression equal to ``x``, with the real parameters' assumptions restored."""
        expr = sympy.sympify(x)
        swap = {
            s: self._sympy_symbols[s.name]
            for s in expr.free_symbols
            if s.name in self._sympy_symbols
        }
        return expr.xreplace(swap) if swap else expr
