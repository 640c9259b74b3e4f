"""Split (planar) rows: the real parts of a row's amplitudes in one array, the imaginary parts
in another, so complex gate arithmetic runs in packed multiply-adds with no shuffles.

A complex state stores ``re, im, re, im, ...``. Lane by lane, a complex product needs the
real and imaginary floats of one amplitude in different lanes, which the compiler builds
with shuffles (or leaves scalar). In split form, ``re' = a_r re - a_i im + ...`` is the same
multiply-add in every lane. A stretch of complex one-qubit gates and diagonals in a block
or tile row (:func:`~backends.numba_kernels._run_on_row`) is split once, applied here, and
merged back: two passes over a row in cache for many gates.

Every function takes the two halves ``re`` and ``im`` (float arrays of the row's length)
and a gate's entries as eight reals ``e = (re m00, im m00, re m01, ..., im m11)``. ``real``
says that every imaginary part is zero: those gates (H, RY, CZ) mix the real and the
imaginary parts alike, with half the arithmetic.

Numba's on-disk cache stamps a compiled kernel with its own file only: after editing this
module, touch ``numba_kernels.py`` (or clear ``__pycache__``) so the row kernels that call
these loops are compiled again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba as nb
import numpy as np


def _called(fn: Callable[..., Any]) -> Any:
    """A loop compiled on its own and called: its array arguments are checked for overlap
    once per call, so the loop vectorises."""
    return nb.njit(cache=True, nogil=True, error_model="numpy", fastmath=True)(fn)


def _inline(fn: Callable[..., Any]) -> Any:
    return nb.njit(cache=True, nogil=True, inline="always")(fn)


GROUP_MAX_BIT = 64
"""Gates whose pairs lie at most this many amplitudes apart walk whole groups of
``2 * bit`` amplitudes with ``bit`` a constant of the loop (:func:`mix_groups`); farther
pairs walk two series per call (:func:`mix_series`). In a 15-qubit row, one thread:
0.36-0.5 ns per amplitude for pairs 16 to 16384 apart, 0.73-0.93 for 1, 2 and 4, 1.3 for 8
(against 0.75-1.4 for complex gates on the interleaved floats)."""


@_called
def split(f, re, im):
    """The interleaved floats ``f`` of a complex row into ``re`` and ``im``."""
    one = np.uint64(1)
    for j in range(re.size):
        u = np.uint64(2 * j)
        re[j] = f[u]
        im[j] = f[u + one]


@_called
def merge(f, re, im):
    """``re`` and ``im`` back into the interleaved floats ``f``."""
    one = np.uint64(1)
    for j in range(re.size):
        u = np.uint64(2 * j)
        f[u] = re[j]
        f[u + one] = im[j]


@_inline
def _pair(xr_, xi_, u, yr_, yi_, v, e, real):
    """Mix amplitude ``u`` of ``(xr_, xi_)`` with amplitude ``v`` of ``(yr_, yi_)``
    (``real``: a constant where inlined, so the compiler keeps one branch)."""
    xr = xr_[u]
    xi = xi_[u]
    yr = yr_[v]
    yi = yi_[v]
    if real:
        xr_[u] = e[0] * xr + e[2] * yr
        xi_[u] = e[0] * xi + e[2] * yi
        yr_[v] = e[4] * xr + e[6] * yr
        yi_[v] = e[4] * xi + e[6] * yi
    else:
        xr_[u] = e[0] * xr - e[1] * xi + e[2] * yr - e[3] * yi
        xi_[u] = e[0] * xi + e[1] * xr + e[2] * yi + e[3] * yr
        yr_[v] = e[4] * xr - e[5] * xi + e[6] * yr - e[7] * yi
        yi_[v] = e[4] * xi + e[5] * xr + e[6] * yi + e[7] * yr


@_inline
def _groups_of(re, im, bit, e, real):
    """The pairs ``(j, j + bit)`` of every group of ``2 * bit`` amplitudes (``bit`` and
    ``real`` constants where inlined: the group's loop is unrolled or vectorised whole)."""
    step = np.uint64(2 * bit)
    for c in range(re.size // (2 * bit)):
        o = np.uint64(c) * step
        for j in range(bit):
            u = o + np.uint64(j)
            _pair(re, im, u, re, im, u + np.uint64(bit), e, real)


@_inline
def _groups_real_or_not(re, im, bit, e, real):
    if real:
        _groups_of(re, im, bit, e, True)
    else:
        _groups_of(re, im, bit, e, False)


@_called
def mix_groups(re, im, bit, e, real):
    """A one-qubit gate on the qubit of ``bit`` (1 to :data:`GROUP_MAX_BIT`), with ``bit`` a
    constant in each branch."""
    if bit == 1:
        _groups_real_or_not(re, im, 1, e, real)
    elif bit == 2:
        _groups_real_or_not(re, im, 2, e, real)
    elif bit == 4:
        _groups_real_or_not(re, im, 4, e, real)
    elif bit == 8:
        _groups_real_or_not(re, im, 8, e, real)
    elif bit == 16:
        _groups_real_or_not(re, im, 16, e, real)
    elif bit == 32:
        _groups_real_or_not(re, im, 32, e, real)
    else:
        _groups_real_or_not(re, im, 64, e, real)


@_inline
def _series_of(xr, xi, yr, yi, e, real):
    for k in range(xr.size):
        _pair(xr, xi, k, yr, yi, k, e, real)


@_called
def mix_series(xr, xi, yr, yi, e, real):
    """A one-qubit gate on the pairs ``(x[k], y[k])`` of two series, four arrays."""
    if real:
        _series_of(xr, xi, yr, yi, e, True)
    else:
        _series_of(xr, xi, yr, yi, e, False)


@_inline
def mix(re, im, bit, e, real, max_run):
    """A one-qubit gate (entries ``e``) on the qubit of ``bit`` of a split row, in series of
    at most ``max_run`` amplitudes."""
    if bit <= GROUP_MAX_BIT:
        mix_groups(re, im, bit, e, real)
        return
    run = min(bit, max_run)
    for o in range(re.size // (2 * run)):
        i = np.int64(o) * run
        i = ((i // bit) * 2 * bit) | (i & (bit - 1))
        j = i + bit
        mix_series(re[i : i + run], im[i : i + run], re[j : j + run], im[j : j + run], e, real)


@_inline
def _times_pattern_of(re, im, pr, pi, real):
    size = pr.size
    for c in range(re.size // size):
        xr = re[c * size : (c + 1) * size]
        xi = im[c * size : (c + 1) * size]
        for j in range(size):
            if real:
                xr[j] *= pr[j]
                xi[j] *= pr[j]
            else:
                a = xr[j]
                b = xi[j]
                xr[j] = pr[j] * a - pi[j] * b
                xi[j] = pr[j] * b + pi[j] * a


@_called
def times_pattern(re, im, pr, pi, real):
    """A split row (a whole number of patterns long) times the repeating factors
    ``pr + i pi`` (a diagonal on low qubits); ``real``: every ``pi`` is zero."""
    if real:
        _times_pattern_of(re, im, pr, pi, True)
    else:
        _times_pattern_of(re, im, pr, pi, False)


@_called
def scale(xr, xi, dr, di):
    """One series times ``dr + i di``."""
    if di == 0:
        for k in range(xr.size):
            xr[k] *= dr
            xi[k] *= dr
        return
    for k in range(xr.size):
        a = xr[k]
        b = xi[k]
        xr[k] = dr * a - di * b
        xi[k] = dr * b + di * a
