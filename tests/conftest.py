"""Test-wide settings.

Hypothesis examples run with no deadline: a per-example deadline is a timed assertion, and
it failed tests on a throttled machine (a 200 ms default against 341 ms for an example that
is correct). Tests assert results; speed is measured in ``benchmarks/``.

The Numba kernels' serial/threaded switch is fixed at 2**14 amplitudes, so tests that use
states of 13 and 15 qubits run both builds on every machine (a measured switch would move
with the CPU), and no test waits for the measurement; ``tests/test_threads.py`` tests the
measurement itself. One-qubit phases on large states rewrite every amplitude for runs of
256 bytes alone (qubit 4 in complex128, 5 in complex64) and store the changed half for the
rest, so both ways run on every machine without the measurement
(``tests/test_numba_backend.py`` tests it).
"""

import os

import pytest
from hypothesis import settings

os.environ.setdefault("GENQSIM_PARALLEL_MIN_QUBITS", "14")
os.environ.setdefault("GENQSIM_PHASE_REWRITE", "256")

settings.register_profile("genqsim", deadline=None)
settings.load_profile("genqsim")


@pytest.fixture(scope="module")
def emulated_gpu():
    """The CPU emulation of the CUDA kernels installed as ``cupy`` for a module's tests
    (``gpu_marks.GPU_MARKS`` asks for it where no GPU is visible)."""
    import emulated_cupy
    import gpu_marks

    with emulated_cupy.installed(gpu_marks.cupy) as cupy:
        yield cupy
