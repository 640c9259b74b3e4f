"""Complex balls with python-flint's ``acb``: every amplitude encloses the exact result.

Arb arithmetic rounds outward, so a ball run of a circuit is a proof: the exact amplitude
(for the exact gate parameters given) lies in each ball. Parameters given as floats are taken
at their exact binary value; SymPy parameters (``pi/4``) are enclosed exactly. ``numbers="ball"``
works at 53 bits, ``numbers="ball:128"`` at 128. Flint's working precision is a global
setting, so the system sets it around each state operation (:meth:`context`) and restores it.
"""

from __future__ import annotations

import contextlib
import math
import numbers as _abc
from collections.abc import Iterator
from typing import Any

import numpy as np
import sympy

from ..errors import NonFiniteError, NumberTypeError
from ..support.optional import require
from .base import Number, NumberSystem
from .numeric import to_python_complex

DEFAULT_BITS = 53


def _flint():
    return require("flint", "interval", "numbers='ball'")


class BallNumbers(NumberSystem):
    """``flint.acb`` complex balls in object arrays at ``bits`` of working precision."""

    dtype = np.dtype(object)
    symbolic = False

    def __init__(self, bits: int = DEFAULT_BITS) -> None:
        if isinstance(bits, bool) or not isinstance(bits, int) or bits < 16:
            raise NumberTypeError(f"ball precision must be an integer >= 16 bits, got {bits!r}")
        self.flint = _flint()
        self.bits = bits
        self.name = "ball" if bits == DEFAULT_BITS else f"ball:{bits}"
        with self.context():
            self.zero = self.flint.acb(0)
            self.one = self.flint.acb(1)
            self.I = self.flint.acb(0, 1)
            self.pi = self.flint.acb.pi()

    zero = one = I = pi = None  # type: ignore[assignment]  # noqa: E741  (set per instance)

    @contextlib.contextmanager
    def context(self) -> Iterator[None]:
        ctx = self.flint.ctx
        saved = ctx.prec
        ctx.prec = self.bits
        try:
            yield
        finally:
            ctx.prec = saved

    def scalar(self, value: Any) -> Any:
        acb, arb = self.flint.acb, self.flint.arb
        if isinstance(value, acb):
            z = value
        elif isinstance(value, arb):
            z = acb(value)
        elif isinstance(value, sympy.Basic):
            from .evaluate import evaluate

            with self.context():
                z = acb(evaluate(value, self, {}))
        elif isinstance(value, (_abc.Number, np.number)) and not isinstance(value, bool):
            c = to_python_complex(value)  # rejects NaN and infinities with the standard message
            if isinstance(value, (_abc.Rational, np.integer)):
                z = acb(int(value))  # type: ignore[arg-type]  # Rational: an integer here
            else:
                z = acb(c.real, c.imag)  # a binary float is exact in a ball
        else:
            raise NumberTypeError(
                f"expected a number, a ball or a SymPy expression, got {value!r} of type "
                f"{type(value).__name__}"
            )
        if not z.is_finite():
            raise NonFiniteError(f"{value!r} is not finite")
        return z

    def integer(self, k: int) -> Any:
        return self.flint.acb(k)

    def float_value(self, x: Any) -> Any:
        return self.flint.acb(self.flint.arb(str(x)))  # encloses the decimal digits given

    def display(self, value: Number) -> str:
        """The midpoint's digits that the radius leaves certain, then the radius itself
        (not the decimal display's rounding): ``0.3535533905932737622004221810524245 +/-
        2.9e-39``."""
        with self.context():
            z = self.scalar(value)
            real = self._display_real(z.real)
            if z.imag.mid() == 0 and z.imag.rad() == 0:
                return real
            return f"({real}) + ({self._display_real(z.imag)})j"

    def _display_real(self, x: Any) -> str:
        radius, mid = float(x.rad()), x.mid()
        most = int(self.bits * math.log10(2)) + 1  # the digits the precision holds
        if mid == 0:
            return f"0 +/- {radius:.2g}"
        magnitude = math.floor(math.log10(abs(float(mid))))
        if radius == 0:
            text = mid.str(most, radius=False)
            if "e" not in text and "." in text:
                text = text.rstrip("0").rstrip(".")
            return f"{text} +/- 0"
        digits = min(max(magnitude - math.floor(math.log10(radius)), 1), most)
        return f"{mid.str(digits, radius=False)} +/- {radius:.2g}"

    def encode(self, value: Number) -> str:
        """Exact: midpoint and radius of the real and the imaginary part, each as
        ``mantissa:exponent``."""
        z = _flint().acb(value)
        return " ".join(
            f"{m}:{e}"
            for part in (z.real, z.imag)
            for m, e in (part.mid().man_exp(), part.rad().man_exp())
        )

    def decode(self, text: str) -> Any:
        """The ball :meth:`encode` wrote: midpoints bit for bit; flint may round a radius up
        by one unit in its 30-bit last place, so the loaded ball contains the saved one."""
        from .mpmath_numbers import _mantissa_exponent_pairs

        flint = _flint()
        pairs = [(int(m), int(e)) for m, e in _mantissa_exponent_pairs(text, 4)]
        real = flint.arb(mid=pairs[0], rad=pairs[1])
        imag = flint.arb(mid=pairs[2], rad=pairs[3])
        return flint.acb(real, imag)

    def to_complex(self, value: Number) -> complex:
        return complex(self.scalar(value).mid())

    def _enclose(self, x: Number, function: str) -> Any:
        """``function`` of ``x``, an enclosure computed at this system's precision."""
        with self.context():
            return getattr(self.flint.acb(x), function)()

    def exp(self, x: Number) -> Any:
        return self._enclose(x, "exp")

    def cos(self, x: Number) -> Any:
        return self._enclose(x, "cos")

    def sin(self, x: Number) -> Any:
        return self._enclose(x, "sin")

    def sqrt(self, x: Number) -> Any:
        return self._enclose(x, "sqrt")

    def conj(self, x: Number) -> Any:
        return self.flint.acb(x).conjugate()

    def abs2(self, x: Number) -> Any:
        z = self.flint.acb(x)
        with self.context():
            return z.real * z.real + z.imag * z.imag

    def real(self, x: Number) -> Any:
        return self.flint.acb(x).real

    def abs2_array(self, a: np.ndarray) -> np.ndarray:
        with self.context():
            return super().abs2_array(a)

    def radius(self, x: Number) -> float:
        """An upper bound on the distance from the ball's midpoint to any point in it."""
        z = self.flint.acb(x)
        return float((z - z.mid()).abs_upper().upper())
