"""What one propagation gives back: the value, what truncation dropped, the strings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..linalg.pauli import PauliSum
from ..numbers import Number, NumberSystem
from .strings import string_of


@dataclass
class HeisenbergResult:
    """One propagation: ``value`` (the expectation value), ``truncated_weight`` (the sum of
    ``|c|`` dropped by truncation: a bound on ``|value - exact|``; ``None`` where the numbers
    have no magnitude), ``dropped`` (strings dropped), ``peak_terms`` (the most strings held at
    once) and the propagated observable's strings (:meth:`observable`)."""

    value: Number
    truncated_weight: float | None
    dropped: int
    peak_terms: int
    n_qubits: int
    _terms: Callable[[], list[tuple[Number, int, int]]] = field(repr=False)

    ns: NumberSystem = field(repr=False)
    closed_form: Any = field(default=None, repr=False)
    """``numbers="trig"`` runs: the value as SymPy in ``cos`` and ``sin`` of the parameters,
    factored (shorter than the trig number's own forms when many angles multiply)."""

    def observable(self) -> PauliSum:
        """The observable in the Heisenberg picture, ``U^dagger H U``, as a Pauli sum
        (coefficients as SymPy: closed forms for symbolic numbers, values otherwise)."""
        return PauliSum((_as_sympy(c, self.ns), string_of(x, z)) for c, x, z in self._terms())

    @property
    def n_terms(self) -> int:
        """Strings left after the last operation."""
        return len(self._terms())


def _as_sympy(value: Number, ns: NumberSystem) -> Any:
    """A coefficient as SymPy: trig and SymEngine numbers converted, SymPy kept, others by
    their value."""
    import sympy

    convert = getattr(ns, "to_sympy", None)  # SymEngine's number system converts its own
    if hasattr(value, "to_sympy"):
        return value.to_sympy()
    if convert is not None:
        return convert(value)
    if isinstance(value, sympy.Basic):
        return value
    z = ns.to_complex(value)
    return sympy.Float(z.real) if z.imag == 0 else sympy.sympify(z)
