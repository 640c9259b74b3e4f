"""What the GPU test modules share: CuPy (the module skips where it is missing), how many
CUDA devices are visible, and the marks that select and skip them (``pytest -m gpu``)."""

from __future__ import annotations

import pytest

cupy = pytest.importorskip("cupy")
try:
    N_GPUS = cupy.cuda.runtime.getDeviceCount()
except Exception:  # no driver, no device
    N_GPUS = 0
GPU_MARKS = [
    pytest.mark.gpu,
    pytest.mark.skipif(N_GPUS == 0, reason="no CUDA device visible"),
]
