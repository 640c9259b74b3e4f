"""Matrix-product states (``method="mps"``), optionally keeping a U(1) charge
(Liu et al., Supercomputing tensor networks for U(1) symmetric quantum many-body systems).

:class:`MPSState` holds a right-canonical MPS whose bonds are split into charge sectors
(:mod:`~genqsim.mps.network`); :class:`Truncation` sets how much of each Schmidt spectrum
a bond keeps; :func:`tebd` evolves nearest-neighbour Hamiltonians; :class:`ModeMPS` holds
bosonic modes (Fock states, beam splitters, :func:`boson_sampling`).
"""

from __future__ import annotations

from .bosons import ModeMPS, boson_sampling
from .charges import CONSERVED, site_charges
from .network import Network
from .state import MPSState, run_mps
from .tebd import tebd
from .truncation import Truncation

__all__ = [
    "CONSERVED",
    "MPSState",
    "ModeMPS",
    "Network",
    "Truncation",
    "boson_sampling",
    "run_mps",
    "site_charges",
    "tebd",
]
