"""Compiled in-place kernels for complex64 and complex128 states (one source, both dtypes:
Numba specialises each function per argument type).

Index scheme: a gate on ``targets`` under ``controls`` visits ``2**(n - k - c)`` *bases*, the
indices whose target and control bits are all zero, made by inserting zero bits at the sorted
``fixed`` positions into the loop counter; control bits are then set to their values
(``fixed_value``). So a controlled gate iterates only over the subspace it changes — no
per-amplitude test of control bits. Every kernel loads all amplitudes of a group before it
stores any of them (read-all-then-write), so in-place updates never read a value they wrote.

Every kernel is compiled once (:data:`BUILDS`, :mod:`.numba_ranges`), with a first argument
``threaded``, and reached two ways: in :data:`PARALLEL` (its loops shared out over the
threads) and in :data:`SERIAL` (the same loops on the calling thread, for small states where
waking threads costs more than it saves). The backend picks one per call from the state's
size, so no thread setting is ever toggled per primitive. Thread-local scratch (a row per
thread) is allocated by the caller, never inside a parallel loop.

Small helpers are inlined (``_inline``); the large row-level bodies of block, tile and adjoint
runs are compiled once per dtype and called (``_shared``), so the kernels that use them do
not each compile a copy (an empty cache once took ten minutes to fill).
"""

from __future__ import annotations

import types
from functools import partial

# every family registers its kernels with numba_common when it is imported
from . import (  # noqa: F401
    numba_block_runs,
    numba_dense,
    numba_diagonal_permutation,
    numba_pauli_basis,
    numba_reductions,
)
from .numba_common import _SOURCES, _build

BUILDS = {name: _build(fn) for name, fn in _SOURCES.items()}
"""Every kernel, compiled once: its first argument says whether its loops run on the
thread pool."""

PARALLEL = types.SimpleNamespace(**{name: partial(b, True) for name, b in BUILDS.items()})
"""Every kernel with its ``prange`` loops spread over the configured threads."""
SERIAL = types.SimpleNamespace(**{name: partial(b, False) for name, b in BUILDS.items()})
"""Every kernel run on the calling thread alone."""
