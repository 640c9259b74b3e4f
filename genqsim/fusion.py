"""Moved to :mod:`genqsim.plan.fusion`; this name keeps old imports working."""

from __future__ import annotations

import warnings

from .plan.fusion import *  # noqa: F403
from .plan.fusion import fuse_circuit, fuse_operations  # noqa: F401

warnings.warn("genqsim.fusion moved to genqsim.plan.fusion", DeprecationWarning, stacklevel=2)
