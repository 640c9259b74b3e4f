"""U(1) charges of a matrix-product state's sites: which charge each local basis state
carries, and which gates keep the total.

A site of local dimension ``d`` gives its basis state ``s`` an integer charge ``q(s)``:
``conserve="N"`` counts particles (``q(s) = s``: an excited qubit, ``s`` photons in a mode),
``conserve="Sz"`` counts twice the spin along z (``q(s) = d - 1 - 2 s``: ``+1`` for a qubit's
``|0>``, ``-1`` for ``|1>``) and ``conserve=None`` gives every state charge 0, so one code path
serves the plain MPS as one block per bond. A bond's charge is the total charge of the sites
to its left.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..errors import ArgumentValueError, ChargeViolationError

CONSERVED = (None, "N", "Sz")
"""The charges a state can keep."""

CHARGE_TOLERANCE = 1e-12
"""A gate entry between states of different charge counts as zero below this, relative to
the gate's largest entry."""


def site_charges(conserve: str | None, d: int) -> tuple[int, ...]:
    """``q(s)`` for ``s = 0 .. d-1`` under ``conserve``."""
    if conserve not in CONSERVED:
        raise ArgumentValueError(f"conserve must be one of {CONSERVED}, got {conserve!r}")
    if isinstance(d, bool) or not isinstance(d, int) or d < 2:
        raise ArgumentValueError(f"a site's local dimension is an integer >= 2, got {d!r}")
    if conserve is None:
        return (0,) * d
    if conserve == "N":
        return tuple(range(d))
    return tuple(d - 1 - 2 * s for s in range(d))


@dataclass(frozen=True)
class ChargeGroups:
    """The basis states of ``k`` neighbouring sites (``t = (t_1, ..., t_k)``, ``t_1`` the
    leftmost and the slowest index of a gate's matrix) grouped by total charge: a gate that
    conserves the charge is block diagonal over these groups."""

    states: tuple[tuple[int, ...], ...]
    charge: dict[tuple[int, ...], int]
    groups: dict[int, np.ndarray]  # total charge -> indices into ``states``


@lru_cache(maxsize=64)
def charge_groups(charges: tuple[int, ...], k: int) -> ChargeGroups:
    """The :class:`ChargeGroups` of ``k`` sites whose states carry ``charges``."""
    d = len(charges)
    states = tuple(itertools.product(range(d), repeat=k))
    charge = {t: sum(charges[s] for s in t) for t in states}
    groups: dict[int, list[int]] = {}
    for index, t in enumerate(states):
        groups.setdefault(charge[t], []).append(index)
    return ChargeGroups(states, charge, {m: np.array(ix) for m, ix in sorted(groups.items())})


def gate_blocks(matrix: np.ndarray, groups: ChargeGroups, name: str) -> dict[int, np.ndarray]:
    """The blocks of ``matrix`` (over ``groups.states``) that keep each total charge; raises
    :class:`ChargeViolationError` naming the gate when it moves weight between charges."""
    scale = float(np.max(np.abs(matrix))) if matrix.size else 0.0
    blocks: dict[int, np.ndarray] = {}
    mask = np.ones(matrix.shape, dtype=bool)
    for m, ix in groups.groups.items():
        blocks[m] = np.ascontiguousarray(matrix[np.ix_(ix, ix)])
        mask[np.ix_(ix, ix)] = False
    leak = float(np.max(np.abs(matrix[mask]))) if mask.any() else 0.0
    if leak > CHARGE_TOLERANCE * max(scale, 1.0):
        raise ChargeViolationError(
            f"gate {name} does not conserve the charge this state keeps (an entry of size "
            f"{leak:.3g} couples states of different charge): run it with conserve=None, or "
            "rewrite the circuit with charge-conserving gates"
        )
    return blocks
