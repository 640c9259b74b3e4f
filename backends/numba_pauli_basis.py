"""Pauli coordinates of a density matrix (:mod:`genqsim.states.pauli_basis`): the row XOR
shuffle, Walsh-Hadamard passes over row bits, and packing the phases into real coordinates."""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import prange

from . import numba_cache  # noqa: F401  (first: where Numba keeps this module's kernels)
from .numba_common import _kernel, _popcount
from .numba_slp import vector_njit

# -- Pauli coordinates of a density matrix (genqsim.states.pauli_basis) ----------------------------


@_kernel
def xor_shuffle_rows(state, n, scratch):
    """Entry ``x`` of row ``b`` of the ``2**n x 2**n`` matrix ``state`` becomes entry
    ``b ^ x`` (so row ``b`` then holds ``rho[b, b ^ x]``; the map is its own inverse)."""
    dim = np.int64(1) << n
    for b in prange(dim):
        buf = scratch[nb.get_thread_id()]
        first = b * dim
        for x in range(dim):
            buf[x] = state[first + (x ^ b)]
        for x in range(dim):
            state[first + x] = buf[x]


@_kernel
def hadamard_rows(floats, n, low, k, width, scratch):
    """Orthonormal Walsh-Hadamard transform over row bits ``low .. low + k - 1`` of the
    complex ``2**n x 2**n`` matrix that ``floats`` views (real and imaginary parts transform
    alike, so the butterflies run on the floats): each group of ``2**k`` rows is taken
    ``width`` columns at a time into the thread's scratch, transformed there and written
    back."""
    dim = np.int64(1) << n
    rows = np.int64(1) << k
    n_chunks = dim // width
    scale = 1 / np.sqrt(2.0)
    span = 2 * width  # floats per row segment
    for task in prange((dim >> k) * n_chunks):
        group = task // n_chunks
        column = (task % n_chunks) * width
        base = ((group >> low) << (low + k)) | (group & ((np.int64(1) << low) - 1))
        buf = scratch[nb.get_thread_id()]
        for r in range(rows):
            src = 2 * ((base + (r << low)) * dim + column)
            for j in range(span):
                buf[r * span + j] = floats[src + j]
        half = np.int64(1)
        while half < rows:
            for r in range(rows):
                if r & half == 0:
                    a0 = r * span
                    a1 = (r + half) * span
                    for j in range(span):
                        u = buf[a0 + j]
                        v = buf[a1 + j]
                        buf[a0 + j] = (u + v) * scale
                        buf[a1 + j] = (u - v) * scale
            half *= 2
        for r in range(rows):
            dst = 2 * ((base + (r << low)) * dim + column)
            for j in range(span):
                floats[dst + j] = buf[r * span + j]


_COS_QUARTER = np.array([1.0, 0.0, -1.0, 0.0])
_SIN_QUARTER = np.array([0.0, 1.0, 0.0, -1.0])


@_kernel
def pauli_residual(floats, n, out):
    """For the complex ``2**n x 2**n`` matrix ``w`` that ``floats`` views: ``out[z] =
    (max |Im(i**popcount(x & z) w[z, x])|, max |Re(...)|)`` over row ``z``: the part that
    packing would drop, against the part it keeps (zero unless ``rho`` was not Hermitian)."""
    dim = np.int64(1) << n
    for z in prange(dim):
        dropped = 0.0
        kept = 0.0
        for x in range(dim):
            i = z * dim + x
            turn = _popcount(x & z) & 3
            c = _COS_QUARTER[turn]
            s = _SIN_QUARTER[turn]
            re = floats[2 * i]
            im = floats[2 * i + 1]
            dropped = max(dropped, abs(s * re + c * im))
            kept = max(kept, abs(c * re - s * im))
        out[z, 0] = dropped
        out[z, 1] = kept


@vector_njit(cache=True, nogil=True)
def pack_pauli_coordinates(floats, n):
    """``floats`` views a complex ``2**n x 2**n`` matrix ``w`` (row ``z``, column ``x``) whose
    entries times ``i**popcount(x & z)`` are real: those reals, packed in ascending order into
    the first half of the same memory (serial: each step reads ahead of what it writes)."""
    dim = np.int64(1) << n
    for z in range(dim):
        for x in range(dim):
            i = z * dim + x
            turn = _popcount(x & z) & 3
            floats[i] = _COS_QUARTER[turn] * floats[2 * i] - _SIN_QUARTER[turn] * floats[2 * i + 1]


@vector_njit(cache=True, nogil=True)
def unpack_pauli_coordinates(floats, n):
    """Inverse of :func:`pack_pauli_coordinates` (descending order): entry ``(z, x)``
    becomes ``y / i**popcount(x & z)``."""
    dim = np.int64(1) << n
    for i in range(dim * dim - 1, -1, -1):
        turn = _popcount((i & (dim - 1)) & (i >> n)) & 3
        y = floats[i]
        floats[2 * i + 1] = -_SIN_QUARTER[turn] * y
        floats[2 * i] = _COS_QUARTER[turn] * y
