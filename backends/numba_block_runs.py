"""Cache-blocked and tiled runs: a run of calls applied row by row (a cache block or a gathered
tile at a time), with every gate kind's row code compiled once per dtype and shared by the
serial and threaded builds, and the adjoint sweep's backward steps over both states."""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import prange

from ..plan.calls import CallKind
from . import numba_cache  # noqa: F401  (first: where Numba keeps this module's kernels)
from . import numba_low_chunks as low_chunks
from . import numba_planar as planar
from .numba_common import (
    MAX_RUN_BITS,
    SERIES_MIN,
    _all_real,
    _base,
    _inline,
    _is_real,
    _kernel,
    _pairs_layout,
    _reals4,
    _reals16,
    _run_length,
    _shared,
    reals_view,
)
from .numba_dense import _adjoint_at, _entries4, _mix2_step, _mix4, _mix4_series_at, _sparse_run
from .numba_diagonal_permutation import (
    PATTERN_MAX_BITS,
    _diagonal_pattern,
    _low_chunk_walk,
    _move_scaled,
    _pattern_as_floats,
    _pattern_size,
    _period,
    _scale_series,
    _swap_layout,
    _swap_low_chunk_step,
    _swap_step,
    _swap_variant,
    _times_complex_pattern,
    _times_pattern,
)
from .numba_prefetch import prefetch
from .numba_slp import helper_njit

# -- cache-blocked runs --------------------------------------------------------------------------

KIND_DENSE = int(CallKind.MATRIX)
KIND_DIAGONAL = int(CallKind.DIAGONAL)
KIND_CYCLES = int(CallKind.PERMUTATION)  # permutations travel as cycles
KIND_SPARSE = int(max(CallKind)) + 1  # sparse matrices, in this backend's encoding only
KIND_SWAP = KIND_SPARSE + 1  # one exchange of two amplitudes, no phases (X, CX, SWAP), likewise
KIND_PERMUTE = KIND_SWAP + 1  # consecutive permutations as one table of sources, likewise
KIND_SKIP = KIND_PERMUTE + 1  # a permutation taken into the table of the call before it


@_shared
def _dense_on_row(row, m, offsets, fixed, fixed_value, buf):
    dim = offsets.size
    run = _run_length(fixed)
    if dim == 2:
        bit = offsets[1]
        n_iter = row.size >> fixed.size
        if not _is_real(row):  # on the floats, as apply_1q
            c = (m[0], m[1], m[2], m[3])
            e = _reals4(c)
            real = _all_real(e)
            mode, width = _pairs_layout(bit, fixed, n_iter)
            f = reals_view(row)
            for o in range(n_iter // width):
                _mix2_step(row, f, o, mode, width, bit, fixed, fixed_value, c, e, real)
            return
        m00, m01, m10, m11 = m[0], m[1], m[2], m[3]
        for o in range(n_iter // run):
            start = _base(np.int64(o) * run, fixed, fixed_value)
            # one slice per row of the matrix: the compiler checks once that they do not
            # overlap and vectorises the series (indexing ``row`` at two offsets, it cannot)
            s0 = row[start : start + run]
            s1 = row[start + bit : start + bit + run]
            for j in range(run):
                a0 = s0[j]
                a1 = s1[j]
                s0[j] = m00 * a0 + m01 * a1
                s1[j] = m10 * a0 + m11 * a1
        return
    if dim == 4:
        b0 = offsets[1]
        b1 = offsets[2]
        b2 = offsets[3]
        if not _is_real(row) and run >= SERIES_MIN:
            reals = _reals16(_entries4(m))
            f = reals_view(row)
            for o in range((row.size >> fixed.size) // run):
                start = _base(np.int64(o) * run, fixed, fixed_value)
                _mix4_series_at(f, start, run, b0, b1, b2, reals)
            return
        if not _is_real(row):
            # complex: entries read from ``m`` as written (measured faster than held)
            for o in range((row.size >> fixed.size) // run):
                start = _base(np.int64(o) * run, fixed, fixed_value)
                for i0 in range(start, start + run):
                    _mix4(row, i0, row, i0 + b0, row, i0 + b1, row, i0 + b2, m)
            return
        e = _entries4(m)
        for o in range((row.size >> fixed.size) // run):
            start = _base(np.int64(o) * run, fixed, fixed_value)
            s0 = row[start : start + run]
            s1 = row[start + b0 : start + b0 + run]
            s2 = row[start + b1 : start + b1 + run]
            s3 = row[start + b2 : start + b2 + run]
            for j in range(run):
                _mix4(s0, j, s1, j, s2, j, s3, j, e)
        return
    for o in range((row.size >> fixed.size) // run):
        start = _base(np.int64(o) * run, fixed, fixed_value)
        for j in range(run):
            base = start + j
            for c in range(dim):
                buf[c] = row[base + offsets[c]]
            for r in range(dim):
                acc = m[r * dim] * buf[0]
                for c in range(1, dim):
                    acc += m[r * dim + c] * buf[c]
                row[base + offsets[r]] = acc


@_shared
def _sparse_on_row(row, vals, index, fixed, fixed_value, buf):
    """``index`` holds ``dim``, the row offsets, the CSR row pointers and the columns."""
    dim = index[0]
    offsets = index[1 : 1 + dim]
    row_ptr = index[1 + dim : 2 + 2 * dim]
    cols = index[2 + 2 * dim :]
    run = _run_length(fixed)
    for o in range((row.size >> fixed.size) // run):
        start = _base(np.int64(o) * run, fixed, fixed_value)
        _sparse_run(row, start, run, offsets, row_ptr, cols, vals, buf)


@_shared
def _diagonal_on_row(row, diag, offsets, fixed, fixed_value, buf):
    """As :func:`apply_diagonal`, on one row (the pattern built in ``buf``)."""
    run = _run_length(fixed)
    if not _is_real(row):
        f = reals_view(row)
        size = _pattern_size(fixed, row.size)
        if size:
            pattern = buf[:size]
            _diagonal_pattern(pattern, diag, offsets, fixed, fixed_value)
            if _pattern_as_floats(pattern):
                _times_pattern(f, reals_view(pattern))
            else:
                _times_complex_pattern(row, pattern)
            return
        if run >= SERIES_MIN:
            for o in range((row.size >> fixed.size) // run):
                start = _base(np.int64(o) * run, fixed, fixed_value)
                for r in range(offsets.size):
                    d = diag[r]
                    _scale_series(f, 2 * (start + offsets[r]), run, d.real, d.imag)
            return
    for o in range((row.size >> fixed.size) // run):
        start = _base(np.int64(o) * run, fixed, fixed_value)
        for r in range(offsets.size):
            d = diag[r]
            first = start + offsets[r]
            for j in range(run):
                row[first + j] *= d


@_shared
def _cycles_on_row(row, cycle_ptr, offsets, phases, fixed, fixed_value, buf):
    n_cycles = cycle_ptr.size - 1
    run = _run_length(fixed)
    for o in range((row.size >> fixed.size) // run):
        start = _base(np.int64(o) * run, fixed, fixed_value)
        for c in range(n_cycles):
            first = cycle_ptr[c]
            end = cycle_ptr[c + 1]
            if run >= 4:  # whole series per step: contiguous, vectorised
                tail = row[start + offsets[end - 1] : start + offsets[end - 1] + run]
                for j in range(run):
                    buf[j] = tail[j]
                for e in range(end - 1, first, -1):
                    dst = row[start + offsets[e] : start + offsets[e] + run]
                    src = row[start + offsets[e - 1] : start + offsets[e - 1] + run]
                    ph = phases[e - 1]
                    for j in range(run):
                        dst[j] = ph * src[j]
                dst = row[start + offsets[first] : start + offsets[first] + run]
                ph = phases[end - 1]
                for j in range(run):
                    dst[j] = ph * buf[j]
                continue
            for j in range(run):
                base = start + j
                last = row[base + offsets[end - 1]]
                for e in range(end - 1, first, -1):
                    row[base + offsets[e]] = phases[e - 1] * row[base + offsets[e - 1]]
                row[base + offsets[first]] = phases[end - 1] * last


@helper_njit()
def _gather_series(target, source, at):
    """``target[j] = source[at[j]]``; not inlined, like :func:`_move_scaled`."""
    for j in range(target.size):
        target[j] = source[at[j]]


@_inline
def _permute_on_row(row, sources, buf):
    """Amplitude ``j`` of each segment of ``sources.size`` amplitudes of ``row`` becomes the
    segment's amplitude ``sources[j]``: a stretch of permutations (a CX ladder, Toffolis)
    in one copy and one gather, where each would otherwise take a pass of its own."""
    size = sources.size
    for lo in range(0, row.size, size):
        segment = row[lo : lo + size]
        _move_scaled(buf[:size], segment, 1)
        _gather_series(segment, buf[:size], sources)


@_shared
def _swap_on_row(row, offsets, fixed, fixed_value):
    """One exchange of the amplitudes at ``offsets[0]`` and ``offsets[1]`` (X, CX, SWAP)."""
    stretch, steps = _low_chunk_walk(row, fixed, row.size)
    if stretch:
        side_a, side_b = fixed_value | offsets[0], fixed_value | offsets[1]
        variant = _swap_variant(fixed, side_a, side_b)
        f = reals_view(row)
        for o in range(steps):
            _swap_low_chunk_step(f, o, stretch, fixed, side_a, side_b, variant)
        return
    n_iter = row.size >> fixed.size
    run, blocks, stride = _swap_layout(fixed, n_iter)
    for o in range(n_iter // (run * blocks)):
        _swap_step(row, o, run, blocks, stride, offsets[0], offsets[1], fixed, fixed_value)


@_shared
def _call_on_row(row, g, kinds, fixed_values, fixed_ptr, fixed, index_ptr, index, data_ptr,
                 data, buf):  # fmt: skip
    """Apply call ``g`` of an encoded run to ``row`` (see :func:`_run_on_row`)."""
    fx = fixed[fixed_ptr[g] : fixed_ptr[g + 1]]
    ix = index[index_ptr[g] : index_ptr[g + 1]]
    dx = data[data_ptr[g] : data_ptr[g + 1]]
    if kinds[g] == KIND_DENSE and ix.size == 2 and dx[1] == 0 and dx[2] == 0:
        # a rotation about Z as a dense call (its matrix changes between runs of a planned
        # sweep): a diagonal's pass, a fifth of a dense one's on low qubits
        _diagonal_on_row(row, dx[::3], ix, fx, fixed_values[g], buf)
    elif kinds[g] == KIND_DENSE:
        _dense_on_row(row, dx, ix, fx, fixed_values[g], buf)
    elif kinds[g] == KIND_DIAGONAL:
        _diagonal_on_row(row, dx[::1], ix, fx, fixed_values[g], buf)
    elif kinds[g] == KIND_SPARSE:
        _sparse_on_row(row, dx, ix, fx, fixed_values[g], buf)
    elif kinds[g] == KIND_PERMUTE:
        _permute_on_row(row, ix, buf)
    elif kinds[g] == KIND_SKIP:
        return
    elif kinds[g] == KIND_SWAP:
        _swap_on_row(row, ix, fx, fixed_values[g])
    else:
        n_ptr = ix[0]
        _cycles_on_row(row, ix[1 : 1 + n_ptr], ix[1 + n_ptr :], dx, fx, fixed_values[g], buf)


PAIR_MIN_BIT = 16
"""Two one-qubit gates are applied in one sweep of a row where both act on qubit 4 or above
of it (series of at least 16 amplitudes, 32 floats, per call), or, both real, on one of the
pairs of lower qubits of :data:`~backends.numba_low_chunks.REAL_PAIRS`."""


@_inline
def _mix22_lanes(s00, s01, s10, s11, count, a0, a1, a2, a3, b0, b1, b2, b3):
    """The first ``count`` elements of :func:`_mix22_series` (``count`` a constant where
    inlined: the loop unrolled and packed whole)."""
    for k in range(count):
        x00 = s00[k]
        x01 = s01[k]
        x10 = s10[k]
        x11 = s11[k]
        y00 = a0 * x00 + a1 * x01
        y01 = a2 * x00 + a3 * x01
        y10 = a0 * x10 + a1 * x11
        y11 = a2 * x10 + a3 * x11
        s00[k] = b0 * y00 + b1 * y10
        s10[k] = b2 * y00 + b3 * y10
        s01[k] = b0 * y01 + b1 * y11
        s11[k] = b2 * y01 + b3 * y11


@helper_njit()
def _mix22_series(s00, s01, s10, s11, a0, a1, a2, a3, b0, b1, b2, b3):
    """Two 2x2 matrices on four series: ``(a0, a1; a2, a3)`` mixes ``(s00, s01)`` and
    ``(s10, s11)``, ``(b0, b1; b2, b3)`` mixes ``(s00, s10)`` and ``(s01, s11)`` (gates on
    two qubits commute, so the order is free); each element is read and written once for
    both gates. Real matrices run on a complex state's floats, lane by lane; complex ones on
    its amplitudes, in complex arithmetic (0.72-0.78 ns per amplitude and gate against 1.0 one
    gate at a time, four series of 8192 amplitudes in L2, one thread; written out on the
    floats the complex pair took 1.4-1.6)."""
    _mix22_lanes(s00, s01, s10, s11, s00.size, a0, a1, a2, a3, b0, b1, b2, b3)


QUADS_MAX_RUN = 128
"""Two real one-qubit gates whose lower pairs lie at most 64 amplitudes apart (series of at
most 128 floats) sweep a row in one loop over every quad of series (:func:`_mix22_quads`)
instead of a call per quad: in a 1 MiB row, one thread, ns per amplitude and gate for the
qubits of bits 16 and 32 0.47-0.61 -> 0.21, 32 and 64 0.25, 64 and 128 0.28 (``high`` a
constant, the two qubits adjacent), 0.28-0.35 for a higher second qubit."""


@_inline
def _mix22_quads(f, run, high, a0, a1, a2, a3, b0, b1, b2, b3):
    """:func:`_mix22_series` on every quad of series of ``run`` floats of the floats ``f``
    of a complex row: the lower pairs ``run`` floats apart, the higher ``high`` (``run`` a
    constant where inlined, so the inner loop is unrolled and packed; ``high`` too where
    it is ``2 * run``)."""
    for o in range(f.size // (4 * run)):
        i = np.int64(o) * run
        i = ((i // run) * 2 * run) | (i & (run - 1))  # a zero at the lower bit, then the higher
        i = ((i // high) * 2 * high) | (i & (high - 1))
        s00 = f[i : i + run]
        s01 = f[i + run : i + 2 * run]
        s10 = f[i + high : i + high + run]
        s11 = f[i + high + run : i + high + 2 * run]
        _mix22_lanes(s00, s01, s10, s11, run, a0, a1, a2, a3, b0, b1, b2, b3)


@helper_njit()
def _mix22_short(f, run, high, a0, a1, a2, a3, b0, b1, b2, b3):
    """:func:`_mix22_quads` with ``run`` (32, 64 or 128 floats) a constant in each branch,
    and ``high`` too where it is ``2 * run``."""
    if run == 32:
        if high == 64:
            _mix22_quads(f, 32, 64, a0, a1, a2, a3, b0, b1, b2, b3)
        else:
            _mix22_quads(f, 32, high, a0, a1, a2, a3, b0, b1, b2, b3)
    elif run == 64:
        if high == 128:
            _mix22_quads(f, 64, 128, a0, a1, a2, a3, b0, b1, b2, b3)
        else:
            _mix22_quads(f, 64, high, a0, a1, a2, a3, b0, b1, b2, b3)
    elif high == 256:
        _mix22_quads(f, 128, 256, a0, a1, a2, a3, b0, b1, b2, b3)
    else:
        _mix22_quads(f, 128, high, a0, a1, a2, a3, b0, b1, b2, b3)


@_inline
def _pairable_bit(g, kinds, fixed_ptr, index_ptr, index):
    """The bit of call ``g``'s target where it is an uncontrolled one-qubit dense gate (one
    fixed position: its target, no control), else 0."""
    if kinds[g] != KIND_DENSE or fixed_ptr[g + 1] - fixed_ptr[g] != 1:
        return np.int64(0)
    return index[index_ptr[g] + 1]


@_inline
def _low_pair_variant(bit_a, ma, bit_b, mb):
    """The :data:`~backends.numba_low_chunks.REAL_PAIRS` variant of two real gates on the
    bits ``bit_a``, ``bit_b`` (either order), or -1 where they are not such a pair."""
    if not (_all_real(_reals4(ma)) and _all_real(_reals4(mb))):
        return -1
    lo, hi = min(bit_a, bit_b), max(bit_a, bit_b)
    for v in range(len(low_chunks.REAL_PAIRS)):
        if lo == low_chunks.REAL_PAIRS[v][0] and hi == low_chunks.REAL_PAIRS[v][1]:
            return v
    return -1


@_inline
def _pairs_in_one_sweep(bit_a, ma, bit_b, mb):
    """Whether two uncontrolled one-qubit gates on the bits ``bit_a != bit_b`` share a sweep:
    both at least :data:`PAIR_MIN_BIT`, or two real gates on a pair of the lowest qubits
    that :mod:`backends.numba_low_chunks` runs together."""
    if not bit_a or not bit_b or bit_a == bit_b:
        return False
    if bit_a >= PAIR_MIN_BIT and bit_b >= PAIR_MIN_BIT:
        return True
    return _low_pair_variant(bit_a, ma, bit_b, mb) >= 0


@_shared
def _two_1q(row, bit_a, ma, bit_b, mb):
    """Two one-qubit gates (2x2 matrices ``ma``, ``mb`` on bits ``bit_a != bit_b``) in one
    sweep of the complex ``row``: on the floats, lane by lane, where both are real (a layer
    of H or RY), else in complex arithmetic."""
    real = _all_real(_reals4(ma)) and _all_real(_reals4(mb))
    if bit_a < bit_b:
        lo, hi, mlo, mhi = bit_a, bit_b, ma, mb
    else:
        lo, hi, mlo, mhi = bit_b, bit_a, mb, ma
    elo = _reals4(mlo)
    ehi = _reals4(mhi)
    f = reals_view(row)
    if lo < PAIR_MIN_BIT:  # a pair of the lowest qubits, real (_pairs_in_one_sweep)
        low_chunks.real_pairs(f, elo[0], elo[2], elo[4], elo[6], ehi[0], ehi[2], ehi[4],
                              ehi[6], _low_pair_variant(lo, mlo, hi, mhi))  # fmt: skip
        return
    if real and 2 * lo <= QUADS_MAX_RUN:
        _mix22_short(f, 2 * lo, 2 * hi, elo[0], elo[2], elo[4], elo[6], ehi[0], ehi[2], ehi[4],
                     ehi[6])  # fmt: skip
        return
    run = min(lo, np.int64(1) << MAX_RUN_BITS)
    for o in range(row.size // (4 * run)):
        i = np.int64(o) * run
        i = ((i // lo) * 2 * lo) | (i & (lo - 1))  # a zero at the lower bit, then the higher
        i = ((i // hi) * 2 * hi) | (i & (hi - 1))
        if real:
            a = 2 * i
            b = a + 2 * lo
            c = a + 2 * hi
            d = c + 2 * lo
            _mix22_series(f[a : a + 2 * run], f[b : b + 2 * run], f[c : c + 2 * run],
                          f[d : d + 2 * run], elo[0], elo[2], elo[4], elo[6], ehi[0], ehi[2],
                          ehi[4], ehi[6])  # fmt: skip
        else:
            j = i + hi
            _mix22_series(row[i : i + run], row[i + lo : i + lo + run], row[j : j + run],
                          row[j + lo : j + lo + run], mlo[0], mlo[1], mlo[2], mlo[3], mhi[0],
                          mhi[1], mhi[2], mhi[3])  # fmt: skip


PLANAR_MIN_CALLS = 4
"""A stretch of one-qubit gates and diagonals in a complex row runs split
(:mod:`backends.numba_planar`) where at least this many of its calls are one-qubit gates
with complex entries: the split and the merge cost about one gate's pass over the row in
cache each."""

PLANAR_PATTERN = 1 << PATTERN_MAX_BITS
"""Amplitudes reserved twice after a split row in the scratch: a diagonal's repeating pattern
of complex factors, then its real and imaginary parts."""


@_inline
def _planar_call(g, kinds, fixed_ptr, index_ptr, data_ptr, data):
    """-1 where call ``g`` cannot run on a split row; else 1 for a one-qubit gate with
    complex entries (U, RX) and 0 for any other that can: an uncontrolled one-qubit gate
    with real entries, a diagonal. Only the first kind counts towards a split: a stretch of
    H and CP (QFT) runs as well on the interleaved floats."""
    if kinds[g] == KIND_DIAGONAL:
        return 0
    if kinds[g] != KIND_DENSE:
        return -1
    if fixed_ptr[g + 1] - fixed_ptr[g] != 1 or index_ptr[g + 1] - index_ptr[g] != 2:
        return -1
    for k in range(data_ptr[g], data_ptr[g + 1]):
        if data[k].imag != 0:
            return 1
    return 0


@_inline
def _planar_stretch(g, last, kinds, fixed_ptr, index_ptr, data_ptr, data):
    """``(end, complex calls)`` of the longest stretch from call ``g`` (before ``last``)
    that runs split."""
    end = g
    work = 0
    while end < last:
        c = _planar_call(end, kinds, fixed_ptr, index_ptr, data_ptr, data)
        if c < 0:
            break
        work += c
        end += 1
    return end, work


@_inline
def _pattern_stretch(g, end, kinds, fixed_ptr, fixed, n):
    """``(last, size)``: calls ``g`` to ``last - 1`` (before ``end``) are diagonals whose
    factors repeat over a row of ``n`` amplitudes with a period of at most ``size``
    (:func:`_period`); ``last == g`` where call ``g`` is not one."""
    last = g
    size = np.int64(0)
    while last < end and kinds[last] == KIND_DIAGONAL:
        s = _period(fixed[fixed_ptr[last] : fixed_ptr[last + 1]], n)
        if s == 0:
            break
        size = max(size, s)
        last += 1
    return last, size


@_inline
def _planar_patterns(re, im, first, last, size, fixed_values, fixed_ptr, fixed, index_ptr,
                     index, data_ptr, data, pattern, pfloats):  # fmt: skip
    """Diagonals ``first`` to ``last - 1`` on low qubits (a layer of CZ, phases) in one pass
    over a split row: the product of their repeating patterns, ``size`` factors, its real
    and imaginary parts in ``pfloats``, times the row."""
    pr = pfloats[:size]
    pi = pfloats[size : 2 * size]
    pr[:] = 1
    pi[:] = 0
    for g in range(first, last):
        fx = fixed[fixed_ptr[g] : fixed_ptr[g + 1]]
        s = _period(fx, re.size)
        p = pattern[:s]
        _diagonal_pattern(p, data[data_ptr[g] : data_ptr[g + 1]],
                          index[index_ptr[g] : index_ptr[g + 1]], fx, fixed_values[g])  # fmt: skip
        for j in range(size):
            d = p[j & (s - 1)]
            x = pr[j]
            y = pi[j]
            pr[j] = d.real * x - d.imag * y
            pi[j] = d.real * y + d.imag * x
    real = True
    for j in range(size):
        if pi[j] != 0:
            real = False
    planar.times_pattern(re, im, pr, pi, real)


@_inline
def _planar_series_diagonal(re, im, diag, offsets, fixed, fixed_value):
    """As :func:`_diagonal_on_row`, on a split row, series by series."""
    run = _run_length(fixed)
    for o in range((re.size >> fixed.size) // run):
        start = _base(np.int64(o) * run, fixed, fixed_value)
        for r in range(offsets.size):
            dr = diag[r].real
            di = diag[r].imag
            a = start + offsets[r]
            if run >= SERIES_MIN:
                planar.scale(re[a : a + run], im[a : a + run], dr, di)
                continue
            for j in range(a, a + run):
                x = re[j]
                y = im[j]
                re[j] = dr * x - di * y
                im[j] = dr * y + di * x


@_shared
def _run_planar(row, first, end, kinds, fixed_values, fixed_ptr, fixed, index_ptr, index,
                data_ptr, data, buf):  # fmt: skip
    """Calls ``first`` to ``end - 1`` (one-qubit gates and diagonals) on the complex ``row``
    split into ``buf``: its floats hold the real parts, the imaginary parts, then a
    pattern's parts (:data:`PLANAR_PATTERN` amplitudes' worth), then one diagonal's complex
    pattern. Consecutive diagonals on qubits below :data:`PATTERN_MAX_BITS` (a layer of CZ)
    are multiplied into one pattern and applied in one pass; a lone diagonal whose series
    are long is scaled series by series."""
    n = row.size
    fb = reals_view(buf)
    re = fb[:n]
    im = fb[n : 2 * n]
    pfloats = fb[2 * n : 2 * (n + PLANAR_PATTERN)]
    pattern = buf[n + PLANAR_PATTERN : n + 2 * PLANAR_PATTERN]
    f = reals_view(row)
    planar.split(f, re, im)
    g = first
    while g < end:
        ix = index[index_ptr[g] : index_ptr[g + 1]]
        dx = data[data_ptr[g] : data_ptr[g + 1]]
        if kinds[g] == KIND_DENSE:
            e = _reals4(dx)
            planar.mix(re, im, ix[1], e, _all_real(e), np.int64(1) << MAX_RUN_BITS)
            g += 1
            continue
        fx = fixed[fixed_ptr[g] : fixed_ptr[g + 1]]
        last, size = _pattern_stretch(g, end, kinds, fixed_ptr, fixed, n)
        if last > g + 1 or (last > g and _pattern_size(fx, n)):  # one pass for them all
            _planar_patterns(re, im, g, last, size, fixed_values, fixed_ptr, fixed, index_ptr,
                             index, data_ptr, data, pattern, pfloats)  # fmt: skip
            g = last
            continue
        _planar_series_diagonal(re, im, dx, ix, fx, fixed_values[g])
        g += 1
    planar.merge(f, re, im)


@_shared
def _run_on_row(row, first, last, kinds, fixed_values, fixed_ptr, fixed, index_ptr, index,
                data_ptr, data, buf):  # fmt: skip
    """Apply calls ``first`` to ``last - 1`` of an encoded run to ``row`` (a block or a
    gathered tile; a whole run is ``first = 0``, ``last = kinds.size``).

    Gate ``g`` is ``kinds[g]``; its fixed positions are ``fixed[fixed_ptr[g]:fixed_ptr[g+1]]``,
    its row offsets (dense, diagonal), cycle pointers + offsets (cycles) or sparse layout are
    in ``index``, its matrix / diagonal / phases / nonzeros in ``data``. Two consecutive
    uncontrolled one-qubit gates on different qubits of a complex row (a layer of H, RY or
    U) are applied in one sweep of it (:func:`_two_1q`). A stretch of one-qubit gates and
    diagonals with at least :data:`PLANAR_MIN_CALLS` complex one-qubit gates runs on the
    row split into real and imaginary parts (:func:`_run_planar`) where ``buf`` has room for it.
    """
    g = first
    checked = first  # calls before this one were looked at for a split stretch
    while g < last:
        if not _is_real(row) and g >= checked and buf.size >= row.size + 2 * PLANAR_PATTERN:
            end, work = _planar_stretch(g, last, kinds, fixed_ptr, index_ptr, data_ptr, data)
            checked = max(end, g + 1)
            if work >= PLANAR_MIN_CALLS:
                _run_planar(row, g, end, kinds, fixed_values, fixed_ptr, fixed, index_ptr,
                            index, data_ptr, data, buf)  # fmt: skip
                g = end
                continue
        if not _is_real(row) and g + 1 < last:
            bit_a = _pairable_bit(g, kinds, fixed_ptr, index_ptr, index)
            bit_b = _pairable_bit(g + 1, kinds, fixed_ptr, index_ptr, index)
            ma = data[data_ptr[g] : data_ptr[g] + 4]
            mb = data[data_ptr[g + 1] : data_ptr[g + 1] + 4]
            if _pairs_in_one_sweep(bit_a, ma, bit_b, mb):
                _two_1q(row, bit_a, ma, bit_b, mb)
                g += 2
                continue
        _call_on_row(row, g, kinds, fixed_values, fixed_ptr, fixed, index_ptr, index,
                     data_ptr, data, buf)  # fmt: skip
        g += 1


@_shared
def _adjoint_on_rows(prow, lrow, slots, variants, kinds, fixed_values, fixed_ptr, fixed,
                     index_ptr, index, data_ptr, data, buf, sums):  # fmt: skip
    """The backward steps of an encoded run on the same block (or gathered tile) of ``psi``
    and ``lam``: a call with ``slots[g] >= 0`` is a one-target gradient step (a dense 2x2
    inverse, taken as ``variants[g]``) whose pair sums are added to ``sums[slots[g]]``
    before its un-apply; any other call is un-applied from both rows."""
    fp = reals_view(prow)
    fl = reals_view(lrow)
    for g in range(kinds.size):
        slot = slots[g]
        if slot < 0:
            _call_on_row(prow, g, kinds, fixed_values, fixed_ptr, fixed, index_ptr, index,
                         data_ptr, data, buf)  # fmt: skip
            _call_on_row(lrow, g, kinds, fixed_values, fixed_ptr, fixed, index_ptr, index,
                         data_ptr, data, buf)  # fmt: skip
            continue
        fx = fixed[fixed_ptr[g] : fixed_ptr[g + 1]]
        bit = index[index_ptr[g] + 1]
        m = data[data_ptr[g] : data_ptr[g + 1]]
        e = _reals4((m[0], m[1], m[2], m[3]))
        n_iter = prow.size >> fx.size
        mode, width = _pairs_layout(bit, fx, n_iter)
        total = sums[slot]
        for o in range(n_iter // width):
            s = _adjoint_at(fp, fl, o, mode, width, bit, fx, fixed_values[g], e, variants[g])
            for k in range(8):
                total[k] += s[k]


@_kernel
def apply_block_run(state, block_size, kinds, fixed_values, fixed_ptr, fixed, index_ptr,
                    index, data_ptr, data, scratch):  # fmt: skip
    """Apply a whole run of gates, all on qubits below log2(block_size), one contiguous block
    of the state at a time: each block is loaded into cache once for the run."""
    n_blocks = state.size // block_size
    for blk in prange(n_blocks):
        row = state[blk * block_size : (blk + 1) * block_size]
        _run_on_row(row, np.int64(0), kinds.size, kinds, fixed_values, fixed_ptr, fixed,
                    index_ptr, index, data_ptr, data, scratch[nb.get_thread_id()])  # fmt: skip


@_kernel
def apply_block_run_points(states, kinds, fixed_values, fixed_ptr, fixed, index_ptr, index,
                           data_ptr, data, scratch):  # fmt: skip
    """A run over whole states at many parameter points: row ``p`` of ``states`` is one
    state, run with its own numbers ``data[p]`` (the run's encoding otherwise shared). The
    threads share out the points, each state whole on one thread (a sweep of small
    states)."""
    for p in prange(states.shape[0]):
        _run_on_row(states[p], np.int64(0), kinds.size, kinds, fixed_values, fixed_ptr, fixed,
                    index_ptr, index, data_ptr, data[p], scratch[nb.get_thread_id()])  # fmt: skip


@_kernel
def closed_form_numbers(values, extra, columns, rate_phase, rate, slot_of_entry, d0, d1, where,
                        data):  # fmt: skip
    """The numbers of a sweep's closed-form gates at every point (``genqsim.plan.sweep``):
    ``data[p, where[e]] = exp(-i a t) (cos(b t) d0[e] + sin(b t) d1[e])`` with ``a``, ``b``
    the rates of entry ``e``'s slot and ``t`` its angle at point ``p``: column ``k`` of
    ``values`` (the parameters), or column ``k - values.shape[1]`` of ``extra`` (angles
    that are expressions). One call for every gate, the threads taking the points."""
    n_values = values.shape[1]
    for p in prange(values.shape[0]):
        for e in range(where.size):
            s = slot_of_entry[e]
            k = columns[s]
            theta = values[p, k] if k < n_values else extra[p, k - n_values]
            turned = rate[s] * theta
            phase = np.exp(-1j * rate_phase[s] * theta)
            data[p, where[e]] = phase * (np.cos(turned) * d0[e] + np.sin(turned) * d1[e])


# -- segments of a run: rows carried through consecutive stretches of calls ---------------------


READ_GROUP = 4
"""Rows :func:`run_segment_reads` carries side by side on one thread: each reader is loaded
from the shared cache once for all of them (a piece of it at a time, held in the core's
own cache while the rows' pieces are read against it)."""

READ_PIECE = 512
"""Amplitudes of a reader read against every row of a group in turn (8 KiB at complex128)."""


@_inline
def _real_dot(a, b):
    """The dot product of two float arrays of one size."""
    total = 0.0
    for j in range(a.size):
        total += a[j] * b[j]
    return total


@_inline
def _read_group(reader, rows, first, last, reads, s):
    """``reads[p, s] += Re <reader| rows[p]>`` for rows ``first`` to ``last - 1``, a piece
    of the reader at a time (dot products of the floats: on slices, so that the compiler
    vectorises them)."""
    fr = reals_view(reader)
    for lo in range(0, fr.size, 2 * READ_PIECE):
        hi = min(lo + 2 * READ_PIECE, fr.size)
        for p in range(first, last):
            reads[p, s] += _real_dot(fr[lo:hi], reals_view(rows[p])[lo:hi])


@_kernel
def run_segment_snapshots(row, bounds, out, where, marks, kinds, fixed_values, fixed_ptr,
                          fixed, index_ptr, index, data_ptr, data, scratch):  # fmt: skip
    """``row`` through segment ``p`` of an encoded run (calls ``bounds[p]`` to
    ``bounds[p + 1] - 1``) for every ``p`` in turn; after segment ``p < where.size`` a copy
    goes to ``out[where[p]]``, and that copy through calls ``marks[p]`` to
    ``marks[p + 1] - 1``. One row, in order: the calling thread's work."""
    buf = scratch[nb.get_thread_id()]
    for p in range(bounds.size - 1):
        _run_on_row(row, bounds[p], bounds[p + 1], kinds, fixed_values, fixed_ptr, fixed,
                    index_ptr, index, data_ptr, data, buf)  # fmt: skip
        if p < where.size:
            copy = out[where[p]]
            copy[:] = row
            _run_on_row(copy, marks[p], marks[p + 1], kinds, fixed_values, fixed_ptr, fixed,
                        index_ptr, index, data_ptr, data, buf)  # fmt: skip


@_kernel
def run_segment_reads(rows, bounds, starts, readers, reads, kinds, fixed_values, fixed_ptr,
                      fixed, index_ptr, index, data_ptr, data, scratch):  # fmt: skip
    """Row ``p`` stands at the end of segment ``starts[p]`` of an encoded run (-1: before
    the first): it is read against ``readers[s]`` (``reads[p, s] += Re <readers[s]| row>``,
    ``reads`` zero before) at the end of every segment ``s >= starts[p]`` that has a
    reader, and carried through every later segment. Rows go in groups of
    :data:`READ_GROUP` consecutive ones (``starts`` ascending: similar work), each group on
    one thread, in cache, for all its segments: a row is first carried alone up to the
    group's last start, then the group side by side. The threads take groups from both
    ends in turn (long and short), so their shares of the work match."""
    count = rows.shape[0]
    segments = bounds.size - 1
    n_readers = readers.shape[0]
    groups = (count + READ_GROUP - 1) // READ_GROUP
    for i in prange(groups):
        half = np.int64(i) >> 1  # prange's index is unsigned in the threaded build
        g = half if i % 2 == 0 else groups - 1 - half
        first = g * READ_GROUP
        last = min(first + READ_GROUP, count)
        buf = scratch[nb.get_thread_id()]
        top = starts[last - 1]
        for p in range(first, last):  # each row alone up to the group's last start
            s = starts[p]
            while s < top:
                if s >= 0 and s < n_readers:
                    _read_group(readers[s], rows, p, p + 1, reads, s)
                s += 1
                _run_on_row(rows[p], bounds[s], bounds[s + 1], kinds, fixed_values,
                            fixed_ptr, fixed, index_ptr, index, data_ptr, data, buf)  # fmt: skip
        s = top
        while s < segments:  # side by side
            if s >= 0 and s < n_readers:
                _read_group(readers[s], rows, first, last, reads, s)
            s += 1
            if s < segments:
                for p in range(first, last):
                    row = rows[p]
                    _run_on_row(row, bounds[s], bounds[s + 1], kinds, fixed_values, fixed_ptr,
                                fixed, index_ptr, index, data_ptr, data, buf)  # fmt: skip


PREFETCH_BYTES = 4096
"""A gather requests the series that starts about this many bytes of series later (at
least the next one): 16 series of 256 bytes ahead, 4 of 1 KiB. A pass over a 26-qubit state
in gathered tiles, one thread (``python benchmarks/tile_plans_bench.py --gather``), went from
547 to 441 ms in series of 256 bytes, 298 to 223 ms in series of 1 KiB and 226 to 185 ms in
series of 4 KiB (a contiguous pass: 91 ms). In series of 256 bytes, requesting 2 or 8 KiB
ahead was slower."""


@_inline
def _move_tile(state, row, base, series, series_size, gather):
    """Copy a tile between ``state`` and ``row``: gather (state to row) or scatter. A gather
    prefetches each line of a later series (:data:`PREFETCH_BYTES`); a scatter writes the
    lines its gather has just brought into cache."""
    line = max(1, 64 // state.itemsize)
    ahead = max(1, PREFETCH_BYTES // (series_size * state.itemsize))
    for s in range(series.size):
        at = base + series[s]
        first = s * series_size
        if gather and s + ahead < series.size:
            later = base + series[s + ahead]
            for j in range(0, series_size, line):
                prefetch(state, later + j)
        if gather:
            for j in range(series_size):
                row[first + j] = state[at + j]
        else:
            for j in range(series_size):
                state[at + j] = row[first + j]


@_kernel
def apply_tile_run(state, tile_qubits, series, series_size, kinds, fixed_values, fixed_ptr,
                   fixed, index_ptr, index, data_ptr, data, scratch, tiles):  # fmt: skip
    """Apply a run of gates on any ``tile_qubits`` (ascending, the lowest ``log2(series_size)``
    of them the state's lowest qubits): each tile is gathered from ``series.size`` series of
    ``series_size`` consecutive amplitudes (series ``s`` starts ``series[s]`` past the tile's
    base) into the thread's row of ``tiles``, the run applied there (the calls are encoded
    with the qubits' positions in the tile), and written back."""
    n_tiles = state.size >> tile_qubits.size
    for t in prange(n_tiles):
        base = _base(np.int64(t), tile_qubits, 0)
        row = tiles[nb.get_thread_id()]
        _move_tile(state, row, base, series, series_size, True)
        _run_on_row(row, np.int64(0), kinds.size, kinds, fixed_values, fixed_ptr, fixed,
                    index_ptr, index, data_ptr, data, scratch[nb.get_thread_id()])  # fmt: skip
        _move_tile(state, row, base, series, series_size, False)


@_kernel
def adjoint_block_run(psi, lam, block_size, slots, variants, kinds, fixed_values, fixed_ptr,
                      fixed, index_ptr, index, data_ptr, data, scratch, sums):  # fmt: skip
    """A run of backward steps of the adjoint sweep (:func:`_adjoint_on_rows`), all on
    qubits below ``log2(block_size)``, one contiguous block of both states at a time; each
    thread adds its gradient sums to its own ``sums[thread]``."""
    for blk in prange(psi.size // block_size):
        tid = nb.get_thread_id()
        lo = blk * block_size
        _adjoint_on_rows(psi[lo : lo + block_size], lam[lo : lo + block_size], slots,
                         variants, kinds, fixed_values, fixed_ptr, fixed, index_ptr, index,
                         data_ptr, data, scratch[tid], sums[tid])  # fmt: skip


@_kernel
def adjoint_block_run_points(psi, lam, slots, variants, kinds, fixed_values, fixed_ptr,
                             fixed, index_ptr, index, data_ptr, data, scratch, sums):  # fmt: skip
    """:func:`adjoint_block_run` over whole states at many parameter points: rows ``p`` of
    ``psi`` and ``lam`` with their own numbers ``data[p]``, step variants ``variants[p]``
    and gradient sums ``sums[p]``; the threads share out the points."""
    for p in prange(psi.shape[0]):
        _adjoint_on_rows(psi[p], lam[p], slots, variants[p], kinds, fixed_values, fixed_ptr,
                         fixed, index_ptr, index, data_ptr, data[p], scratch[nb.get_thread_id()],
                         sums[p])  # fmt: skip


@_kernel
def adjoint_tile_run(psi, lam, tile_qubits, series, series_size, slots, variants, kinds,
                     fixed_values, fixed_ptr, fixed, index_ptr, index, data_ptr, data, scratch,
                     prows, lrows, sums):  # fmt: skip
    """:func:`adjoint_block_run` on tiles over any ``tile_qubits``, gathered into the
    thread's rows of ``prows`` and ``lrows`` as :func:`apply_tile_run` gathers them."""
    for t in prange(psi.size >> tile_qubits.size):
        tid = nb.get_thread_id()
        base = _base(np.int64(t), tile_qubits, 0)
        prow = prows[tid]
        lrow = lrows[tid]
        _move_tile(psi, prow, base, series, series_size, True)
        _move_tile(lam, lrow, base, series, series_size, True)
        _adjoint_on_rows(prow, lrow, slots, variants, kinds, fixed_values, fixed_ptr, fixed,
                         index_ptr, index, data_ptr, data, scratch[tid], sums[tid])  # fmt: skip
        _move_tile(psi, prow, base, series, series_size, False)
        _move_tile(lam, lrow, base, series, series_size, False)
