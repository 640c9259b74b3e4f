"""Where the GPU tests run: on a real GPU where CuPy sees one (``pytest -m gpu`` selects them
there), and elsewhere on the CPU emulation of the CUDA kernels (``emulated_cupy``: the same
sources built with g++) in the default run, so the CuPy backend's kernels and launches are
checked against the generic routine on every machine. ``DEVICE_MARKS`` are for tests that
need a real device (CuPy's own compiler cache): they skip without one."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

try:
    import cupy as _cupy

    N_GPUS = _cupy.cuda.runtime.getDeviceCount()
except Exception:  # no CuPy, no driver, no device
    N_GPUS = 0

ON_DEVICE = N_GPUS > 0
DEVICE_MARKS = [
    pytest.mark.gpu,
    pytest.mark.skipif(not ON_DEVICE, reason="no CUDA device visible"),
]
EMULATED = False
"""Whether the GPU tests run on the emulation (no device visible, g++ present)."""
cupy: ModuleType | None
if ON_DEVICE:
    cupy = _cupy
    GPU_MARKS = [pytest.mark.gpu]
else:
    import emulated_cupy

    EMULATED = emulated_cupy.GXX is not None
    cupy = emulated_cupy.module() if EMULATED else None
    GPU_MARKS = (
        [pytest.mark.usefixtures("emulated_gpu")]
        if EMULATED
        else [pytest.mark.skip(reason="no CUDA device visible, and no g++ to emulate one")]
    )


def on_gpu(test: Callable[..., Any]) -> Callable[..., Any]:
    """``test`` with :data:`GPU_MARKS`, for a GPU test in a module of CPU tests: put it
    last, since the emulation, once installed for it, stays for the rest of the module."""
    for mark in GPU_MARKS:
        test = mark(test)
    return test
