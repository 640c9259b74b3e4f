"""A state vector distributed over MPI ranks (``gq.simulate(circuit, method="mpi")``).

* :mod:`.layout`: which logical qubit sits on which local or rank position, and where to move
  them next (looking ahead in the plan).
* :mod:`.exchange`: pairwise, chunked ``Sendrecv`` of subspaces of the ranks' slices, and the
  byte counts.
* :mod:`.state`: :class:`DistributedStateVector`, the State protocol over the ranks.

mpi4py (and so MPI itself) is imported only when a distributed state is made: ``pip install
'genqsim[mpi]'`` brings both (the ``mpich`` wheel provides ``mpiexec``).
"""

from __future__ import annotations

from .exchange import DEFAULT_CHUNK, CommunicationStats
from .layout import QubitLayout
from .state import DistributedStateVector, run_mpi, world

__all__ = [
    "DEFAULT_CHUNK",
    "CommunicationStats",
    "DistributedStateVector",
    "QubitLayout",
    "run_mpi",
    "world",
]
