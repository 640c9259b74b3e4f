"""Truncation of Schmidt spectra: the one place a matrix-product state loses accuracy.

All singular values of one cut (every charge sector together) are ranked by one global threshold, so
a bond keeps the ``max_bond`` largest values whatever sector they are in, as Liu et al.,
Supercomputing tensor networks for U(1) symmetric quantum many-body systems prescribe. The discarded
weight is returned so the state can report the total.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ArgumentValueError

DEFAULT_MIN_SINGULAR = 1e-14
"""Schmidt values below this (of a normalised state) are numerical zeros and are dropped."""


@dataclass(frozen=True)
class Truncation:
    """How much of a Schmidt spectrum a bond keeps.

    ``max_bond``: at most this many Schmidt values per bond (``None``: no limit).
    ``cutoff``: drop the smallest values while their total weight (sum of squares, relative to
    the state's norm) stays at or below this. ``min_singular``: drop values below this (relative
    to the norm) whatever the other settings say; the default drops numerical zeros only.
    The three match TeNPy's ``chi_max``, ``trunc_cut`` and ``svd_min``.
    """

    max_bond: int | None = None
    cutoff: float = 0.0
    min_singular: float = DEFAULT_MIN_SINGULAR

    def __post_init__(self) -> None:
        b = self.max_bond
        if b is not None and (isinstance(b, bool) or not isinstance(b, int) or b < 1):
            raise ArgumentValueError(f"max_bond must be a positive integer or None, got {b!r}")
        for name in ("cutoff", "min_singular"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ArgumentValueError(f"{name} must be a number in [0, 1), got {value!r}")
            if not (math.isfinite(value) and 0 <= value < 1):
                raise ArgumentValueError(f"{name} must be a number in [0, 1), got {value!r}")

    @property
    def exact(self) -> bool:
        """Whether only numerical zeros are dropped (no bond limit, no cutoff)."""
        return self.max_bond is None and self.cutoff == 0


def kept_counts(spectra: list[np.ndarray], truncation: Truncation) -> tuple[list[int], float]:
    """How many values to keep of each sector's spectrum (each sorted largest first), and the
    discarded weight relative to the total. At least one value is always kept."""
    sizes = [s.size for s in spectra]
    values = np.concatenate(spectra) if spectra else np.zeros(0)
    if values.size == 0:
        return sizes, 0.0
    weights = values * values
    total = float(weights.sum())
    if total == 0.0:
        raise ArgumentValueError("the state has norm zero: nothing to keep at this bond")
    order = np.argsort(-values, kind="stable")
    ranked = weights[order] / total
    keep = int(np.count_nonzero(values[order] > truncation.min_singular * math.sqrt(total)))
    if truncation.max_bond is not None:
        keep = min(keep, truncation.max_bond)
    if truncation.cutoff > 0:
        tail = np.cumsum(ranked[::-1])[::-1]  # tail[i]: weight of values i, i+1, ...
        allowed = int(np.count_nonzero(tail > truncation.cutoff))  # first index we may drop
        keep = min(keep, allowed)
    keep = max(keep, 1)
    discarded = float(ranked[keep:].sum())
    sector = np.repeat(np.arange(len(spectra)), sizes)
    counts = np.bincount(sector[order[:keep]], minlength=len(spectra))
    return [int(c) for c in counts], discarded
