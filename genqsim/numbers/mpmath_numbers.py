"""Arbitrary-precision complex numbers with mpmath: the high-precision reference.

``numbers="mpmath"`` works to 30 significant digits, ``numbers="mpmath:100"`` to 100. Each
system owns a private mpmath context, so its precision does not depend on (or change)
``mpmath.mp.dps``: every ``mpc`` it makes remembers the context it came from.
"""

from __future__ import annotations

import numbers as _abc
from typing import Any

import mpmath
import numpy as np
import sympy

from ..errors import NonFiniteError, NumberTypeError
from .base import Number, NumberSystem
from .numeric import to_python_complex

DEFAULT_DIGITS = 30


class MpmathNumbers(NumberSystem):
    """``mpmath.mpc`` values in object arrays, ``digits`` significant decimal digits."""

    dtype = np.dtype(object)
    symbolic = False

    def __init__(self, digits: int = DEFAULT_DIGITS) -> None:
        if isinstance(digits, bool) or not isinstance(digits, int) or digits < 5:
            raise NumberTypeError(
                f"mpmath precision must be an integer >= 5 digits, got {digits!r}"
            )
        self.digits = digits
        self.ctx = mpmath.MPContext()
        self.ctx.dps = digits
        self.name = "mpmath" if digits == DEFAULT_DIGITS else f"mpmath:{digits}"
        self.zero = self.ctx.mpc(0)
        self.one = self.ctx.mpc(1)
        self.I = self.ctx.mpc(0, 1)
        self.pi = self.ctx.mpc(self.ctx.pi)

    def scalar(self, value: Any) -> mpmath.mpc:
        if isinstance(value, (mpmath.mpc, mpmath.mpf)):
            z = self.ctx.mpc(value)
        elif isinstance(value, sympy.Basic):
            from .evaluate import evaluate

            z = self.ctx.mpc(evaluate(value, self, {}))
        elif isinstance(value, (_abc.Number, np.number)) and not isinstance(value, bool):
            to_python_complex(value)  # rejects NaN and infinities with the standard message
            z = self.ctx.mpc(value.item() if isinstance(value, np.generic) else value)
        else:
            raise NumberTypeError(
                f"expected a number or SymPy expression, got {value!r} of type "
                f"{type(value).__name__}"
            )
        if not (self.ctx.isfinite(z.real) and self.ctx.isfinite(z.imag)):
            raise NonFiniteError(f"{value!r} is not finite")
        return z

    def integer(self, k: int) -> mpmath.mpc:
        return self.ctx.mpc(k)

    def float_value(self, x: Any) -> mpmath.mpc:
        return self.ctx.mpc(self.ctx.mpf(str(x)))  # a SymPy Float keeps all its digits

    def to_complex(self, value: Number) -> complex:
        return complex(value)

    def encode(self, value: Number) -> str:
        """Exact: ``mantissa:exponent`` of the real and the imaginary part."""
        z = self.ctx.mpc(value)
        return " ".join(f"{m}:{e}" for part in (z.real, z.imag) for m, e in [part.man_exp])

    def decode(self, text: str) -> mpmath.mpc:
        """The number :meth:`encode` wrote, bit for bit."""
        parts = [self.ctx.ldexp(int(m), int(e)) for m, e in _mantissa_exponent_pairs(text, 2)]
        return self.ctx.mpc(*parts)

    # zero, one, I, pi are set per instance in __init__ (they belong to the private context)
    zero = one = I = pi = None  # type: ignore[assignment]  # noqa: E741

    def exp(self, x: Number) -> mpmath.mpc:
        return self.ctx.exp(x)

    def cos(self, x: Number) -> mpmath.mpc:
        return self.ctx.cos(x)

    def sin(self, x: Number) -> mpmath.mpc:
        return self.ctx.sin(x)

    def sqrt(self, x: Number) -> mpmath.mpc:
        return self.ctx.sqrt(x)

    def conj(self, x: Number) -> mpmath.mpc:
        return self.ctx.conj(x)

    def abs2(self, x: Number) -> mpmath.mpf:
        z = self.ctx.mpc(x)
        return z.real * z.real + z.imag * z.imag

    def real(self, x: Number) -> mpmath.mpf:
        return self.ctx.mpc(x).real


def _mantissa_exponent_pairs(text: str, count: int) -> list[tuple[str, str]]:
    """``count`` pairs from ``"m:e m:e ..."``, or a typed error naming the text."""
    pairs = [tuple(item.split(":")) for item in text.split()]
    if len(pairs) != count or any(
        len(p) != 2 or not all(x.lstrip("-").isdigit() for x in p) for p in pairs
    ):
        raise NumberTypeError(f"not a saved number: {text[:60]!r}")
    return pairs  # type: ignore[return-value]
