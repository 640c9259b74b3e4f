"""How many MPI ranks this process was started among, read without starting MPI."""

from __future__ import annotations

import os
import sys

LAUNCHER_SIZE_VARIABLES = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS")
"""What ``mpiexec`` sets in each rank's environment (MPICH's Hydra, Open MPI, PMIx, Intel
MPI): the size of the world, readable before (and without) importing mpi4py."""


def launched_ranks() -> int:
    """The number of ranks of this job: ``MPI.COMM_WORLD``'s size where mpi4py is already
    imported, else what the launcher set, else 1 (a plain ``python`` run)."""
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is not None:
        return int(mpi.COMM_WORLD.Get_size())
    for name in LAUNCHER_SIZE_VARIABLES:
        value = os.environ.get(name, "")
        if value.isdigit() and int(value) > 0:
            return int(value)
    return 1
