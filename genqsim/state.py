"""Moved to :mod:`genqsim.states` (``genqsim.states.statevector``); this name keeps old
imports working."""

from __future__ import annotations

import warnings

from .states import StateVector, basis, expectation, simulate, zeros

warnings.warn(
    "genqsim.state moved to genqsim.states (StateVector, simulate, zeros, basis, expectation)",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["StateVector", "basis", "expectation", "simulate", "zeros"]
