"""The Heisenberg picture: observables propagated backwards through circuits as sums of
Pauli strings (:func:`heisenberg`), and the ``method="pauli"`` state that evaluates
expectation values that way."""

from __future__ import annotations

from .propagation import HeisenbergResult, Truncation, heisenberg

__all__ = ["HeisenbergResult", "Truncation", "heisenberg"]
