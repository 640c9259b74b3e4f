"""Moved to :mod:`genqsim.states.interval`; this name keeps old imports working."""

from __future__ import annotations

import warnings

from .states.interval import IntervalState, enclose

warnings.warn(
    "genqsim.intervals moved to genqsim.states.interval", DeprecationWarning, stacklevel=2
)

__all__ = ["IntervalState", "enclose"]
