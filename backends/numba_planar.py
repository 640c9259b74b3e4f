"""Split (planar) rows: the real parts of a row's amplitudes in one array, the imaginary parts
in another, so complex gate arithmetic runs in packed multiply-adds with no shuffles.

A complex state stores ``re, im, re, im, ...``. Lane by lane, a complex product needs the
real and imaginary floats of one amplitude in different lanes, which the compiler builds
with shuffles (or leaves scalar). In split form, ``re' = a_r re - a_i im + ...`` is the same
multiply-add in every lane. A stretch of complex one-qubit gates and diagonals in a block
or tile row (:func:`~backends.numba_block_runs._run_on_row`) is split once, applied here, and
merged back: two passes over a row in cache for many gates.

Every function takes the two halves ``re`` and ``im`` (float arrays of the row's length)
and a gate's entries as eight reals ``e = (re m00, im m00, re m01, ..., im m11)``. ``real``
says that every imaginary part is zero: those gates (H, RY, CZ) mix the real and the
imaginary parts alike, with half the arithmetic.

Numba's on-disk cache stamps a compiled kernel with its own file only: after editing this
module, touch ``numba_dense.py`` and ``numba_block_runs.py`` (or clear ``__pycache__``) so
the kernels that call these loops are compiled again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import numba_cache  # noqa: F401  (first: where Numba keeps this module's kernels)
from .numba_common import _inline
from .numba_slp import helper_njit
from .numba_straight import compiled_loop


def _called(fn: Callable[..., Any]) -> Any:
    """A loop compiled on its own and called: its array arguments are checked for overlap
    once per call, so the loop vectorises."""
    return helper_njit()(fn)


GROUP_MAX_BIT = 64
"""Gates whose pairs lie at most this many amplitudes apart are mixed by :func:`mix_groups`
(straight chunks below :data:`CHUNK`, whole groups of ``2 * bit`` amplitudes with ``bit`` a
constant of the loop from there); farther pairs walk two series per call
(:func:`mix_series`). In a 15-qubit row, one thread, complex gates: 0.4-0.5 ns per
amplitude (complex128) and 0.2-0.5 (complex64) for pairs 2 to 16384 apart, 1.0 and 0.4 for
pairs 1 apart (against 0.75-1.4 for complex gates on the interleaved floats)."""


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


CHUNK = 16
"""Pairs fewer than ``CHUNK`` amplitudes apart (qubits 0 to 3 of a row) are mixed a chunk
of ``CHUNK`` amplitudes at a time, in straight code that the SLP vectoriser packs
(:func:`_chunk_loop_source`). In a 15-qubit row, one thread, ns per amplitude for the
qubits of bit 1 / 2 / 4 / 8, complex gates: complex128 1.02 / 0.67 / 0.45 / 0.43 (group
loops before: 0.97 / 0.79 / 0.87 / 1.71), complex64 0.40 / 0.52 / 0.34 / 0.18 (0.43 / 0.84 /
0.82 / 1.66)."""


def _chunk_loop_source(bit: int, real: bool) -> str:
    """Python source of ``chunks_<bit>_<real|complex>(re, im, e)``: a one-qubit gate with
    entries ``e`` on the pairs ``(k, k ^ bit)`` of a split row, ``CHUNK`` amplitudes at a
    time, written out as straight code.

    In each chunk every load comes first, then every store to ``re``, then every store to
    ``im``: the compiler must assume the two arrays may overlap, so it packs a series of
    stores only where no store to the other array lies between them. A lane ``k`` with its
    ``bit`` clear becomes ``m00 x[k] + m01 x[k ^ bit]``, one with it set
    ``m11 x[k] + m10 x[k ^ bit]``; ``real`` drops the imaginary parts of the entries."""
    kind = "real" if real else "complex"
    lines = _chunk_loop_head(f"chunks_{bit}_{kind}(re, im, e)", range(8), "re", CHUNK)
    lines += [f"        r{k} = re[o + {k}]" for k in range(CHUNK)]
    lines += [f"        i{k} = im[o + {k}]" for k in range(CHUNK)]
    to_re, to_im = [], []
    for k in range(CHUNK):
        p = k ^ bit
        a, b = (6, 4) if k & bit else (0, 2)
        if real:
            to_re.append(f"e{a} * r{k} + e{b} * r{p}")
            to_im.append(f"e{a} * i{k} + e{b} * i{p}")
        else:
            to_re.append(f"e{a} * r{k} - e{a + 1} * i{k} + e{b} * r{p} - e{b + 1} * i{p}")
            to_im.append(f"e{a} * i{k} + e{a + 1} * r{k} + e{b} * i{p} + e{b + 1} * r{p}")
    lines += [f"        re[o + {k}] = {value}" for k, value in enumerate(to_re)]
    lines += [f"        im[o + {k}] = {value}" for k, value in enumerate(to_im)]
    return "\n".join(lines) + "\n"


def _chunk_loop_head(signature: str, entries: range, array: str, chunk: int) -> list[str]:
    """The first lines of a generated chunk loop: its ``def``, the gate's ``entries`` read
    into locals ``e0, e1, ...``, and the loop over whole chunks of ``array``."""
    names = ", ".join(f"e{k}" for k in entries)
    values = ", ".join(f"e[{k}]" for k in entries)
    return [
        f"def {signature}:",
        f"    {names} = {values}",
        f"    for c in range({array}.size // {chunk}):",
        f"        o = c * {chunk}",
    ]


def _compiled(source: str, name: str, cache: bool) -> Any:
    """:func:`~backends.numba_straight.compiled_loop` for a loop this module generated."""
    return compiled_loop(source, name, __name__, __file__, cache)


def _chunk_loop(bit: int, real: bool, cache: bool = True) -> Any:
    """:func:`_chunk_loop_source`, compiled (:func:`_compiled`)."""
    name = f"chunks_{bit}_{'real' if real else 'complex'}"
    return _compiled(_chunk_loop_source(bit, real), name, cache)


def _float_chunk_loop_source(bit: int) -> str:
    """Python source of ``floats_<bit>(f, e)``: a real 2x2 matrix (``e``'s real parts) on the
    pairs of floats ``(k, k ^ bit)`` of one array, ``max(CHUNK, 2 bit)`` floats at a time in
    straight code (every load, then every store). On the interleaved floats of a complex
    state this is a real one-qubit gate on the qubit of amplitude bit ``bit / 2``: real and
    imaginary parts mix alike, in one stream over the state."""
    chunk = max(CHUNK, 2 * bit)
    lines = _chunk_loop_head(f"floats_{bit}(f, e)", range(0, 8, 2), "f", chunk)
    lines += [f"        r{k} = f[o + {k}]" for k in range(chunk)]
    for k in range(chunk):
        a, b = (6, 4) if k & bit else (0, 2)
        lines.append(f"        f[o + {k}] = e{a} * r{k} + e{b} * r{k ^ bit}")
    return "\n".join(lines) + "\n"


def _float_chunk_loop(bit: int, cache: bool = True) -> Any:
    """:func:`_float_chunk_loop_source`, compiled (:func:`_compiled`)."""
    return _compiled(_float_chunk_loop_source(bit), f"floats_{bit}", cache)


FLOAT_CHUNK_BITS = (2, 4, 8, 16, 32)
"""Float distances :func:`mix_floats` takes: qubits 0 to 4 of a complex state."""


@_inline
def float_chunk(bit):
    """Floats per straight chunk of :func:`mix_floats` for floats ``bit`` apart."""
    return max(CHUNK, 2 * bit)


_chunks_1_real = _chunk_loop(1, True)
_chunks_1_complex = _chunk_loop(1, False)
_chunks_2_real = _chunk_loop(2, True)
_chunks_2_complex = _chunk_loop(2, False)
_chunks_4_real = _chunk_loop(4, True)
_chunks_4_complex = _chunk_loop(4, False)
_chunks_8_real = _chunk_loop(8, True)
_chunks_8_complex = _chunk_loop(8, False)
_floats_2 = _float_chunk_loop(2)
_floats_4 = _float_chunk_loop(4)
_floats_8 = _float_chunk_loop(8)
_floats_16 = _float_chunk_loop(16)
_floats_32 = _float_chunk_loop(32)


@_inline
def mix_floats(f, bit, e):
    """A real one-qubit gate (entries ``e``, real parts read) on the interleaved floats ``f``
    of a complex state, its pairs ``bit`` floats apart (2 to 32: qubits 0 to 4), in
    straight chunks of :func:`float_chunk` floats (``f.size`` a multiple of it). One stream
    over the state: H on qubit 2 of 24 qubits, complex128, one thread on Zen 4, 15.3 -> 10.6
    ms, where the two halves of each run of 1024 pairs taken as the halves of a split row
    (two streams 16 KiB apart) had reached 84 % of the copy bandwidth."""
    if bit == 2:
        _floats_2(f, e)
    elif bit == 4:
        _floats_4(f, e)
    elif bit == 8:
        _floats_8(f, e)
    elif bit == 16:
        _floats_16(f, e)
    else:
        _floats_32(f, e)


@_inline
def _chunks_of(re, im, bit, e, real):
    """The straight chunk loop of ``bit`` and ``real`` (constants where inlined)."""
    if bit == 1:
        _chunks_1_real(re, im, e) if real else _chunks_1_complex(re, im, e)
    elif bit == 2:
        _chunks_2_real(re, im, e) if real else _chunks_2_complex(re, im, e)
    elif bit == 4:
        _chunks_4_real(re, im, e) if real else _chunks_4_complex(re, im, e)
    else:
        _chunks_8_real(re, im, e) if real else _chunks_8_complex(re, im, e)


@_inline
def _groups_of(re, im, bit, e, real):
    """The pairs ``(j, j + bit)`` of every group of ``2 * bit`` amplitudes (``bit`` and
    ``real`` constants where inlined), the group's loop unrolled or vectorised whole."""
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
    """A one-qubit gate on the qubit of ``bit`` (1 to :data:`GROUP_MAX_BIT`): straight chunks
    below ``CHUNK``, group loops with ``bit`` a constant from ``CHUNK`` on; rows shorter
    than a chunk (states of fewer than four qubits) walk their groups with ``bit`` a
    variable."""
    if bit < CHUNK:
        if re.size % CHUNK == 0:
            _chunks_of(re, im, bit, e, real)
        else:
            _groups_real_or_not(re, im, bit, e, real)
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
