"""The number-system interface: what a routine needs to build gates in some kind of number.

A number system turns gate parameters into its own numbers and supplies the elementary
functions and constants gate matrices are made of (``exp(-i*theta/2)`` for ``Rz``, ``1/sqrt(2)``
for ``H``). The simulator never calls ``numpy.exp`` or ``sympy.exp`` directly; it asks the
state's number system, so one gate library serves every kind of number.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

Number = Any
"""A scalar of some number system: ``complex``, ``numpy.complex64``, a SymPy expression, ..."""


_NO_SETTINGS = contextlib.nullcontext()
"""The context of number systems without working settings (reusable: it holds no state)."""


class NumberSystem(ABC):
    """Elementary functions, constants and conversions for one kind of number.

    Subclasses set ``name`` (what users pass as ``numbers=``), ``dtype`` (the NumPy dtype of
    state arrays: a complex dtype, or ``object`` for Python-object numbers), ``symbolic``
    (whether numbers may carry free symbols, so circuits need not be bound) and
    ``float_angles`` (whether a gate angle given as a float has a value here: not in exact
    fields that hold ``exp(i*theta)`` only for rational multiples of pi).
    """

    name: str
    dtype: np.dtype
    symbolic: bool = False
    float_angles: bool = True

    # -- conversions ------------------------------------------------------------------------
    @abstractmethod
    def scalar(self, value: Any) -> Number:
        """Convert a gate parameter or matrix entry to this system's number.

        Raises ``UnboundParameterError`` for free symbols the system cannot carry and
        ``NonFiniteError`` for NaN or infinities.
        """

    def real_scalar(self, value: Any) -> Number:
        """Convert a real-valued gate parameter (an angle); defaults to :meth:`scalar`."""
        return self.scalar(value)

    def integer(self, k: int) -> Number:
        """The integer ``k`` as this system's number (exact where the system can be)."""
        return self.scalar(k)

    def float_value(self, x: Any) -> Number:
        """A SymPy ``Float`` as this system's number; by default its double value."""
        return self.scalar(float(x))

    @abstractmethod
    def to_complex(self, value: Number) -> complex:
        """A Python ``complex`` approximating ``value`` (for sampling and printing)."""

    def array(self, values: Iterable[Any] | np.ndarray) -> np.ndarray:
        """An array of this system's numbers (gate matrices, diagonals, states)."""
        values = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values
        out = np.empty(values.shape, dtype=self.dtype)
        flat_in, flat_out = values.reshape(-1), out.reshape(-1)
        for i, v in enumerate(flat_in):
            flat_out[i] = self.scalar(v)
        return out

    # -- constants --------------------------------------------------------------------------
    @property
    @abstractmethod
    def zero(self) -> Number: ...

    @property
    @abstractmethod
    def one(self) -> Number: ...

    @property
    @abstractmethod
    def I(self) -> Number:  # noqa: E743 - the imaginary unit has this name everywhere
        """The imaginary unit."""

    @property
    @abstractmethod
    def pi(self) -> Number: ...

    # -- elementary functions ---------------------------------------------------------------
    @abstractmethod
    def exp(self, x: Number) -> Number: ...

    @abstractmethod
    def cos(self, x: Number) -> Number: ...

    @abstractmethod
    def sin(self, x: Number) -> Number: ...

    @abstractmethod
    def sqrt(self, x: Number) -> Number: ...

    @abstractmethod
    def conj(self, x: Number) -> Number: ...

    @abstractmethod
    def abs2(self, x: Number) -> Number:
        """``|x|**2`` as a real number of this system."""

    def expi(self, x: Number) -> Number:
        """``exp(i*x)`` for a real ``x``: the phase factor every rotation gate is built from."""
        return self.exp(self.I * x)

    def real(self, x: Number) -> Number:
        """The real part of ``x`` (expectation values of Hermitian observables are real)."""
        return x.real

    def simplify(self, x: Number) -> Number:
        """A simpler equal form where that means something (symbolic systems); else ``x``."""
        return x

    def display(self, value: Number) -> str:
        """``value`` as people read it (the command line's output): ``str`` by default;
        systems whose ``str`` hides what matters (a ball's true radius, a dual number's
        partials by name) say it."""
        return str(value)

    def encode(self, value: Number) -> str:
        """``value`` as text that :meth:`decode` reads back to the same number (states saved
        to files). Systems whose numbers refer to live objects (derivative seeds, correlated
        uncertain variables) cannot be written down and say so."""
        from ..errors import NumberTypeError

        raise NumberTypeError(
            f"{self.name} numbers cannot be written to a file: they refer to variables of this "
            "session; save a complex128 or symbolic run instead"
        )

    def decode(self, text: str) -> Number:
        """The number :meth:`encode` wrote as ``text``."""
        return self.encode(self.zero)  # raises the same error: nothing was ever encoded

    def is_zero(self, x: Number) -> bool:
        """Whether ``x`` is exactly zero (used to classify matrices as diagonal/permutation)."""
        return bool(x == 0)

    # -- arrays -----------------------------------------------------------------------------
    def conj_array(self, a: np.ndarray) -> np.ndarray:
        """Elementwise complex conjugate of an array of this system's numbers (object arrays
        entry by entry with :meth:`conj`, so every system conjugates its own way)."""
        if a.dtype != object:
            return np.conjugate(a)
        out = np.empty_like(a)
        out.reshape(-1)[:] = [self.conj(x) for x in a.reshape(-1)]
        return out

    def abs2_array(self, a: np.ndarray) -> np.ndarray:
        """Elementwise ``|a|**2`` of an array of this system's numbers."""
        return np.array([self.abs2(x) for x in a.reshape(-1)], dtype=object).reshape(a.shape)

    def free_symbols(self, values: Sequence[Number] | np.ndarray) -> set:
        """Free symbols appearing in ``values`` (empty for purely numeric systems)."""
        return set()

    def unbound(self, symbols: Iterable[Any]) -> set:
        """The circuit parameters among ``symbols`` this system cannot give a value to
        (none for symbolic systems; systems seeded with parameter values know theirs)."""
        return set() if self.symbolic else set(symbols)

    def context(self) -> contextlib.AbstractContextManager[None]:
        """Working settings the arithmetic needs (a library's global precision), entered
        around every state operation; nothing for most systems (one shared do-nothing
        context, cheaper to enter than a generator's)."""
        return _NO_SETTINGS

    def __repr__(self) -> str:
        return f"<number system {self.name!r}>"
