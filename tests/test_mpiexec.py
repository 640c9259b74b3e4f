"""``tests/test_distributed_ranks.py`` under real MPI: ``mpiexec -n 2`` and ``-n 4`` (four ranks
oversubscribe a 2-core machine fine). This file sorts after the rank tests, so their one-rank
run has compiled and cached every kernel before the ranks start."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mpi4py")  # the [mpi] extra (part of [test])

TESTS = Path(__file__).parent


def _mpiexec() -> str:
    beside = Path(sys.executable).parent / "mpiexec"
    found = str(beside) if beside.exists() else shutil.which("mpiexec")
    if found is None:
        pytest.fail("mpiexec not found: pip install 'genqsim[mpi]' provides it (mpich)")
    return found


@pytest.mark.parametrize("ranks", [2, 4])
def test_under_mpiexec(ranks):
    """Every rank test passes on every rank."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    command = [_mpiexec(), "-n", str(ranks), sys.executable, "-m", "pytest", "-q",
               "-p", "no:cacheprovider", str(TESTS / "test_distributed_ranks.py")]  # fmt: skip
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=900, env=env, cwd=TESTS.parent
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert done.stdout.count(" passed") == ranks and " failed" not in done.stdout


ONE_RANK = """
import genqsim as gq
from genqsim.distributed import world
state = gq.simulate(gq.Circuit(4).h(0).cx(0, 3), method="mpi")
if world().Get_rank() == 0:
    state.expectation("Z0 Z3")  # a collective call on one rank only
"""

DIFFERENT = """
import genqsim as gq
from genqsim.distributed import world
state = gq.simulate(gq.Circuit(4).h(0).cx(0, 3), method="mpi")
if world().Get_rank() == 0:
    state.probabilities()
else:
    state.expectation("Z0")
"""


@pytest.mark.parametrize(
    ("script", "message"),
    [
        (ONE_RANK, "rank 0 of 2 called DistributedStateVector.expectation and waited 2 s for "
                   "the other ranks, which did not call it"),
        (DIFFERENT, "the ranks made different collective calls (rank 0: "
                    "DistributedStateVector.probabilities; rank 1: "
                    "DistributedStateVector.expectation)"),
    ],
    ids=["one rank", "different calls"],
)  # fmt: skip
def test_a_collective_call_not_every_rank_makes_ends_the_job(script, message, tmp_path):
    """Instead of hanging, the job ends within the timeout (GENQSIM_MPI_TIMEOUT=2 here) with
    a typed error naming the call and the ranks."""
    path = tmp_path / "mistake.py"
    path.write_text(script)
    env = {**os.environ, "GENQSIM_MPI_TIMEOUT": "2", "OMP_NUM_THREADS": "1"}
    done = subprocess.run([_mpiexec(), "-n", "2", sys.executable, str(path)], capture_output=True,
                          text=True, timeout=120, env=env)  # fmt: skip
    assert done.returncode != 0
    assert "CollectiveMismatchError" in done.stderr and message in done.stderr
