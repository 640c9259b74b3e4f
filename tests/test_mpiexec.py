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
