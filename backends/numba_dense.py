"""Dense gate kernels: one-, two- and k-qubit matrices (on the interleaved floats where that
vectorises), sparse matrices, and the adjoint sweep's one-qubit gradient step."""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import prange

from . import numba_cache  # noqa: F401  (first: where Numba keeps this module's kernels)
from . import numba_planar as planar
from .numba_common import (
    PAIRS_ADJACENT,
    PAIRS_GROUP,
    PAIRS_SERIES,
    SERIES_MIN,
    _all_real,
    _base,
    _chunks,
    _inline,
    _is_real,
    _kernel,
    _pairs_layout,
    _reals4,
    _reals16,
    _run_length,
    reals_view,
)
from .numba_slp import helper_njit


@_inline
def _mix2(x, a, y, b, e):
    """One pair: the complex numbers at floats ``x[a], x[a + 1]`` and ``y[b], y[b + 1]``
    (unsigned offsets: no negative-index wrap for the compiler to keep) times the 2x2
    matrix whose entries, as reals, are ``e``."""
    one = np.uint64(1)
    xr = x[a]
    xi = x[a + one]
    yr = y[b]
    yi = y[b + one]
    x[a] = e[0] * xr - e[1] * xi + e[2] * yr - e[3] * yi
    x[a + one] = e[0] * xi + e[1] * xr + e[2] * yi + e[3] * yr
    y[b] = e[4] * xr - e[5] * xi + e[6] * yr - e[7] * yi
    y[b + one] = e[4] * xi + e[5] * xr + e[6] * yi + e[7] * yr


@_inline
def _mix2_pair(x, a, y, b, e, real):
    """:func:`_mix2`, or :func:`_mix2_real` where ``real`` (a constant where inlined: the
    compiler keeps one of the two)."""
    if real:
        _mix2_real(x, a, y, b, e)
    else:
        _mix2(x, a, y, b, e)


@_inline
def _mix2_adjacent(f, start, count, e, real):
    """``count`` pairs ``(start + 2j, start + 2j + 1)`` (target qubit 0)."""
    first = np.uint64(2 * start)
    for j in range(count):
        o = first + np.uint64(4 * j)
        _mix2_pair(f, o, f, o + np.uint64(2), e, real)


@_inline
def _mix2_lanes(x, a, y, b, count, e):
    """A real 2x2 matrix (``e``'s real parts) on ``count`` floats of ``x`` from ``a`` and
    of ``y`` from ``b``, lane by lane: a unit-stride loop that vectorises."""
    e0, e2, e4, e6 = e[0], e[2], e[4], e[6]
    for k in range(count):
        i = a + np.uint64(k)
        j = b + np.uint64(k)
        u = x[i]
        v = y[j]
        x[i] = e0 * u + e2 * v
        y[j] = e4 * u + e6 * v


@helper_njit()
def _mix2_groups(f, bit, e, real):
    """The pairs ``(j, bit + j)`` of each whole group of ``2 * bit`` amplitudes of the
    floats ``f``. Not inlined: one call takes a run of groups. A real matrix mixes the floats
    ``(k, k ^ 2 bit)`` alike, real and imaginary parts: up to qubit 4, in straight packed
    chunks over ``f`` (:func:`planar.mix_floats`, one stream; H on qubits 1-4 of 24 qubits,
    one thread on Zen 4: complex128 12.0-15.2 -> 10.4-11.0 ms, complex64 7.7-9.8 -> 5.1-5.4),
    from qubit 5 as two series (the inline lanes ran at half speed there, n = 20, in
    cache)."""
    if real and bit <= 16 and f.size % planar.float_chunk(2 * bit) == 0:
        planar.mix_floats(f, 2 * bit, e)
        return
    step = np.uint64(4 * bit)
    half = np.uint64(2 * bit)
    if real and bit >= 16:
        for g in range(f.size // (4 * bit)):
            o = g * 4 * bit
            _mix2_series(f[o : o + 2 * bit], f[o + 2 * bit : o + 4 * bit], e, True)
        return
    for g in range(f.size // (4 * bit)):
        o = np.uint64(g) * step
        if real:
            _mix2_lanes(f, o, f, o + half, half, e)
            continue
        for j in range(bit):
            a = o + np.uint64(2 * j)
            _mix2(f, a, f, a + half, e)


@_inline
def _mix2c_groups_of(x, bit, m0, m1, m2, m3):
    """The pairs ``(j, bit + j)`` of each whole group of ``2 * bit`` amplitudes of ``x``, in
    complex arithmetic (``bit`` a constant where inlined: the group is unrolled)."""
    for g in range(x.size // (2 * bit)):
        o = g * 2 * bit
        for j in range(bit):
            u = x[o + j]
            v = x[o + bit + j]
            x[o + j] = m0 * u + m1 * v
            x[o + bit + j] = m2 * u + m3 * v


MIX2C_MAX_BIT = 4
"""Complex one-qubit gates on qubits 1 and 2 (groups of four and eight amplitudes) run in
complex arithmetic with the group unrolled (:func:`_mix2c_groups`): in a 14-qubit row, one
thread, 0.81 and 0.96 ns per amplitude against 1.54 and 1.42 on the floats pair by pair. On
qubit 0 the floats are as fast (0.75-0.81), on qubit 3 both took 1.3."""


@helper_njit()
def _mix2c_groups(x, bit, m0, m1, m2, m3):
    """:func:`_mix2c_groups_of` with ``bit`` (2 or 4) a constant in each branch."""
    if bit == 2:
        _mix2c_groups_of(x, 2, m0, m1, m2, m3)
    else:
        _mix2c_groups_of(x, 4, m0, m1, m2, m3)


@helper_njit()
def _mix2_series(s0, s1, e, real):
    """Pairs ``(s0[j], s1[j])`` of two series (float views). Not inlined on purpose: as two
    arguments the series are checked for overlap once per call, and the loop vectorises."""
    if real:
        _mix2_lanes(s0, np.uint64(0), s1, np.uint64(0), s0.size, e)
        return
    for j in range(s0.size // 2):
        a = np.uint64(2 * j)
        _mix2(s0, a, s1, a, e)


@_inline
def _mix2_step(x, f, o, mode, width, bit, fixed, fixed_value, c, e, real):
    """Step ``o`` of a one-qubit gate on the complex array ``x`` (``f`` its floats; ``c``
    the matrix entries ``(m00, m01, m10, m11)``, ``e`` the same as reals; ``real``: all
    four are real, so real and imaginary floats mix alike), walked as
    :func:`_pairs_layout` says."""
    start = _base(np.int64(o) * width, fixed, fixed_value)
    if mode == PAIRS_GROUP and not real and bit <= MIX2C_MAX_BIT:
        _mix2c_groups(x[start : start + 2 * width], bit, c[0], c[1], c[2], c[3])
    elif mode == PAIRS_ADJACENT:
        if real and f.itemsize == 4:
            # complex64: straight chunks (Walsh 26's block of 16 H 275-287 -> 215-241 ms,
            # one thread); complex128 was no faster there (349-399 against 388-417 ms)
            a = 2 * start
            _mix2_groups(f[a : a + 4 * width], 1, e, True)
        elif real:
            _mix2_adjacent(f, start, width, e, True)
        else:
            _mix2_adjacent(f, start, width, e, False)
    elif mode == PAIRS_GROUP:
        a = 2 * start
        _mix2_groups(f[a : a + 4 * width], bit, e, real)
    elif mode == PAIRS_SERIES:
        a = 2 * start
        b = 2 * (start + bit)
        _mix2_series(f[a : a + 2 * width], f[b : b + 2 * width], e, real)
    else:
        for i0 in range(start, start + width):
            a0 = x[i0]
            a1 = x[i0 + bit]
            x[i0] = c[0] * a0 + c[1] * a1
            x[i0 + bit] = c[2] * a0 + c[3] * a1


@_kernel
def apply_1q(state, m, target, fixed, fixed_value):
    """Dense 2x2 butterfly on ``target``: on the floats of a complex state (vectorised), as
    plain pairs on a real one."""
    n_iter = state.size >> fixed.size
    bit = np.int64(1) << target
    if not _is_real(state):
        f = reals_view(state)
        c = (m[0, 0], m[0, 1], m[1, 0], m[1, 1])
        e = _reals4(c)
        real = _all_real(e)
        mode, width = _pairs_layout(bit, fixed, n_iter)
        for o in prange(n_iter // width):
            _mix2_step(state, f, o, mode, width, bit, fixed, fixed_value, c, e, real)
        return
    m00, m01, m10, m11 = m[0, 0], m[0, 1], m[1, 0], m[1, 1]
    run = _run_length(fixed)
    for o in prange(n_iter // run):
        start = _base(np.int64(o) * run, fixed, fixed_value)
        for j in range(run):
            i0 = start + j
            i1 = i0 | bit
            a0 = state[i0]
            a1 = state[i1]
            state[i0] = m00 * a0 + m01 * a1
            state[i1] = m10 * a0 + m11 * a1


@_inline
def _mix2_real(x, a, y, b, e):
    """:func:`_mix2` for a real matrix (``e``'s imaginary parts ignored): the real and
    imaginary floats of the pair mix alike, lane by lane."""
    one = np.uint64(1)
    xr = x[a]
    xi = x[a + one]
    yr = y[b]
    yi = y[b + one]
    x[a] = e[0] * xr + e[2] * yr
    x[a + one] = e[0] * xi + e[2] * yi
    y[b] = e[4] * xr + e[6] * yr
    y[b + one] = e[4] * xi + e[6] * yi


ADJOINT_GENERAL = 0  # any 2x2 inverse and generator: all eight real parts of the sums
ADJOINT_REAL = 1  # a real inverse and an imaginary generator (RY): the real parts suffice
ADJOINT_DIAGONAL = 2  # a diagonal inverse and generator (RZ, P): Im t00 and Im t11 suffice


@_inline
def _adjoint_pair(p0, a, p1, b, l0, c, l1, d, e, variant):
    """One pair of the adjoint step on float views: the real and imaginary parts of the
    sums ``t_ab = conj(lam_a) psi_b`` for the pair as it is (``(re t00, im t00, re t01,
    ..., im t11)``, in float64; a ``variant`` other than general leaves the parts its
    generator does not need at zero), then the 2x2 matrix whose entries, as reals, are
    ``e`` applied to the pair of both states (``psi`` at floats ``a`` and ``b`` of ``p0``,
    ``p1``; ``lam`` at ``c``, ``d``). The real variant works lane by lane (real and
    imaginary floats alike), the diagonal one multiplies each amplitude by its phase."""
    one = np.uint64(1)
    pr0 = np.float64(p0[a])
    pi0 = np.float64(p0[a + one])
    pr1 = np.float64(p1[b])
    pi1 = np.float64(p1[b + one])
    lr0 = np.float64(l0[c])
    li0 = np.float64(l0[c + one])
    lr1 = np.float64(l1[d])
    li1 = np.float64(l1[d + one])
    if variant == ADJOINT_REAL:
        _mix2_real(p0, a, p1, b, e)
        _mix2_real(l0, c, l1, d, e)
        return (lr0 * pr0 + li0 * pi0, 0.0, lr0 * pr1 + li0 * pi1, 0.0,
                lr1 * pr0 + li1 * pi0, 0.0, lr1 * pr1 + li1 * pi1, 0.0)  # fmt: skip
    if variant == ADJOINT_DIAGONAL:
        p0[a] = e[0] * p0[a] - e[1] * p0[a + one]
        p0[a + one] = e[0] * pi0 + e[1] * pr0
        p1[b] = e[6] * p1[b] - e[7] * p1[b + one]
        p1[b + one] = e[6] * pi1 + e[7] * pr1
        l0[c] = e[0] * l0[c] - e[1] * l0[c + one]
        l0[c + one] = e[0] * li0 + e[1] * lr0
        l1[d] = e[6] * l1[d] - e[7] * l1[d + one]
        l1[d + one] = e[6] * li1 + e[7] * lr1
        return (0.0, lr0 * pi0 - li0 * pr0, 0.0, 0.0,
                0.0, 0.0, 0.0, lr1 * pi1 - li1 * pr1)  # fmt: skip
    _mix2(p0, a, p1, b, e)
    _mix2(l0, c, l1, d, e)
    return (lr0 * pr0 + li0 * pi0, lr0 * pi0 - li0 * pr0,
            lr0 * pr1 + li0 * pi1, lr0 * pi1 - li0 * pr1,
            lr1 * pr0 + li1 * pi0, lr1 * pi0 - li1 * pr0,
            lr1 * pr1 + li1 * pi1, lr1 * pi1 - li1 * pr1)  # fmt: skip


@helper_njit()
def _add8(s, t):
    return (s[0] + t[0], s[1] + t[1], s[2] + t[2], s[3] + t[3],
            s[4] + t[4], s[5] + t[5], s[6] + t[6], s[7] + t[7])  # fmt: skip


_ZERO8 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@helper_njit()
def _adjoint_series(p0, p1, l0, l1, e, variant):
    """The adjoint step on pairs ``(s0[j], s1[j])`` of two series of ``psi`` and the same
    two of ``lam`` (float views), returning the pair sums (see :func:`_adjoint_pair`). Not
    inlined on purpose, like :func:`_mix2_series`: the series are checked for overlap once
    per call, and the loop (reductions included) vectorises, once per variant."""
    s = _ZERO8
    if variant == ADJOINT_REAL:
        for j in range(p0.size // 2):
            a = np.uint64(2 * j)
            s = _add8(s, _adjoint_pair(p0, a, p1, a, l0, a, l1, a, e, ADJOINT_REAL))
    elif variant == ADJOINT_DIAGONAL:
        for j in range(p0.size // 2):
            a = np.uint64(2 * j)
            s = _add8(s, _adjoint_pair(p0, a, p1, a, l0, a, l1, a, e, ADJOINT_DIAGONAL))
    else:
        for j in range(p0.size // 2):
            a = np.uint64(2 * j)
            s = _add8(s, _adjoint_pair(p0, a, p1, a, l0, a, l1, a, e, ADJOINT_GENERAL))
    return s


@helper_njit()
def _adjoint_adjacent(p, lam, e, variant):
    """The adjoint step on adjacent pairs (target qubit 0) of a run of ``psi`` and the same
    run of ``lam`` (float views: four floats per pair); not inlined, as above."""
    s = _ZERO8
    two = np.uint64(2)
    if variant == ADJOINT_REAL:
        for j in range(p.size // 4):
            a = np.uint64(4 * j)
            s = _add8(s, _adjoint_pair(p, a, p, a + two, lam, a, lam, a + two, e, ADJOINT_REAL))
    elif variant == ADJOINT_DIAGONAL:
        for j in range(p.size // 4):
            a = np.uint64(4 * j)
            s = _add8(s, _adjoint_pair(p, a, p, a + two, lam, a, lam, a + two, e,
                                       ADJOINT_DIAGONAL))  # fmt: skip
    else:
        for j in range(p.size // 4):
            a = np.uint64(4 * j)
            s = _add8(s, _adjoint_pair(p, a, p, a + two, lam, a, lam, a + two, e,
                                       ADJOINT_GENERAL))  # fmt: skip
    return s


@_inline
def _adjoint_groups_as(p, lam, bit, e, variant):
    """:func:`_adjoint_groups` for one ``variant``, inlined where it is a constant (so the
    compiler drops the other variants from the loop)."""
    s = _ZERO8
    step = np.uint64(4 * bit)
    half = np.uint64(2 * bit)
    for g in range(p.size // (4 * bit)):
        for j in range(bit):
            a = np.uint64(g) * step + np.uint64(2 * j)
            s = _add8(s, _adjoint_pair(p, a, p, a + half, lam, a, lam, a + half, e, variant))
    return s


@helper_njit()
def _adjoint_groups(p, lam, bit, e, variant):
    """The adjoint step on whole groups of ``2 * bit`` amplitudes (the target is the lowest
    fixed qubit, at ``bit``) of a run of ``psi`` and the same run of ``lam`` (float views);
    not inlined, as above: one call takes many groups, the variant chosen once."""
    if variant == ADJOINT_REAL:
        return _adjoint_groups_as(p, lam, bit, e, ADJOINT_REAL)
    if variant == ADJOINT_DIAGONAL:
        return _adjoint_groups_as(p, lam, bit, e, ADJOINT_DIAGONAL)
    return _adjoint_groups_as(p, lam, bit, e, ADJOINT_GENERAL)


@helper_njit()
def _adjoint_at(fp, fl, o, mode, width, bit, fixed, fixed_value, e, variant):
    """Step ``o`` of the adjoint step on the floats ``fp``, ``fl`` of ``psi`` and ``lam``,
    walked as :func:`_pairs_layout` says: its pair sums (see :func:`_adjoint_pair`)."""
    start = _base(np.int64(o) * width, fixed, fixed_value)
    a = 2 * start
    b = 2 * (start + bit)
    n = 2 * width
    if mode == PAIRS_ADJACENT:
        return _adjoint_adjacent(fp[a : a + 2 * n], fl[a : a + 2 * n], e, variant)
    if mode == PAIRS_GROUP:
        return _adjoint_groups(fp[a : a + 2 * n], fl[a : a + 2 * n], bit, e, variant)
    if width >= SERIES_MIN:
        return _adjoint_series(fp[a : a + n], fp[b : b + n], fl[a : a + n], fl[b : b + n], e,
                               variant)  # fmt: skip
    s = _ZERO8
    for j in range(width):
        u = np.uint64(a + 2 * j)
        v = np.uint64(b + 2 * j)
        s = _add8(s, _adjoint_pair(fp, u, fp, v, fl, u, fl, v, e, variant))
    return s


@_kernel
def adjoint_step_1q(psi, lam, m, target, fixed, fixed_value, variant):
    """One backward step of the adjoint sweep in one pass over both states: the sums
    ``t_ab = sum conj(lam[i_a]) psi[i_b]`` over the pairs ``(i_0, i_1)`` the gate changes, read
    before the update (a one-qubit generator ``G`` then gives ``<lam| G |psi> = sum G_ab
    t_ab``), and ``m`` (the gate's inverse) applied to the pairs of both states, on their
    floats (vectorised where the series are long enough). Returns ``(t_00, t_01, t_10,
    t_11)``, accumulated in float64 (a ``variant`` leaves the parts it need not compute at
    zero, see :func:`_adjoint_pair`)."""
    n_iter = psi.size >> fixed.size
    bit = np.int64(1) << target
    e = _reals4((m[0, 0], m[0, 1], m[1, 0], m[1, 1]))
    fp = reals_view(psi)
    fl = reals_view(lam)
    mode, width = _pairs_layout(bit, fixed, n_iter)
    r00 = i00 = r01 = i01 = r10 = i10 = r11 = i11 = 0.0
    for o in prange(n_iter // width):
        s = _adjoint_at(fp, fl, o, mode, width, bit, fixed, fixed_value, e, variant)
        r00 += s[0]
        i00 += s[1]
        r01 += s[2]
        i01 += s[3]
        r10 += s[4]
        i10 += s[5]
        r11 += s[6]
        i11 += s[7]
    return complex(r00, i00), complex(r01, i01), complex(r10, i10), complex(r11, i11)


@_inline
def _entries4(m):
    """The 16 entries of a flat 4x4 matrix as a tuple (registers, not loads after stores)."""
    return (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7],
            m[8], m[9], m[10], m[11], m[12], m[13], m[14], m[15])  # fmt: skip


@_inline
def _mix4(x0, i0, x1, i1, x2, i2, x3, i3, e):
    """``(x0[i0], x1[i1], x2[i2], x3[i3])`` times the 4x4 matrix whose row-major entries are
    ``e`` (a tuple held in registers, or an array)."""
    a0 = x0[i0]
    a1 = x1[i1]
    a2 = x2[i2]
    a3 = x3[i3]
    x0[i0] = e[0] * a0 + e[1] * a1 + e[2] * a2 + e[3] * a3
    x1[i1] = e[4] * a0 + e[5] * a1 + e[6] * a2 + e[7] * a3
    x2[i2] = e[8] * a0 + e[9] * a1 + e[10] * a2 + e[11] * a3
    x3[i3] = e[12] * a0 + e[13] * a1 + e[14] * a2 + e[15] * a3


@_inline
def _row4(e, r, v):
    """Row ``r`` of a 4x4 matrix (entries as reals in ``e``) times the vector whose reals
    are ``v``: ``(re, im)``."""
    ar, ai, br, bi, cr, ci, dr, di = v
    k = 8 * r
    re = (e[k] * ar - e[k + 1] * ai + e[k + 2] * br - e[k + 3] * bi
          + e[k + 4] * cr - e[k + 5] * ci + e[k + 6] * dr - e[k + 7] * di)  # fmt: skip
    im = (e[k] * ai + e[k + 1] * ar + e[k + 2] * bi + e[k + 3] * br
          + e[k + 4] * ci + e[k + 5] * cr + e[k + 6] * di + e[k + 7] * dr)  # fmt: skip
    return re, im


@helper_njit()
def _mix4_series(s0, s1, s2, s3, e):
    """Quadruples ``(s0[j], s1[j], s2[j], s3[j])`` of four series (float views) times the 4x4
    matrix whose row-major entries, as reals, are ``e``. Not inlined, like
    :func:`_mix2_series`, so that the loop vectorises."""
    one = np.uint64(1)
    for jj in range(s0.size // 2):
        j = np.uint64(2 * jj)
        v = (s0[j], s0[j + one], s1[j], s1[j + one], s2[j], s2[j + one], s3[j], s3[j + one])
        s0[j], s0[j + one] = _row4(e, 0, v)
        s1[j], s1[j + one] = _row4(e, 1, v)
        s2[j], s2[j + one] = _row4(e, 2, v)
        s3[j], s3[j + one] = _row4(e, 3, v)


@_inline
def _mix4_series_at(f, start, run, b0, b1, b2, e):
    """The quadruples ``start + j + (0, b0, b1, b2)``, ``j < run``, of the complex array
    whose floats are ``f``, as four float series."""
    a = 2 * start
    n = 2 * run
    _mix4_series(f[a : a + n], f[a + 2 * b0 : a + 2 * b0 + n],
                 f[a + 2 * b1 : a + 2 * b1 + n], f[a + 2 * b2 : a + 2 * b2 + n], e)  # fmt: skip


@_kernel
def apply_2q(state, m, t0, t1, fixed, fixed_value):
    """Dense 4x4 on ``(t0, t1)``, ``t0`` the low bit of the matrix index; fully unrolled, on
    the floats of a complex state (vectorised) where the series are long enough."""
    n_iter = state.size >> fixed.size
    b0 = np.int64(1) << t0
    b1 = np.int64(1) << t1
    e = _entries4(m.reshape(16))
    run = _run_length(fixed)
    if not _is_real(state) and run >= SERIES_MIN:
        f = reals_view(state)
        reals = _reals16(e)
        for o in prange(n_iter // run):
            start = _base(np.int64(o) * run, fixed, fixed_value)
            _mix4_series_at(f, start, run, b0, b1, b0 | b1, reals)
        return
    for o in prange(n_iter // run):
        start = _base(np.int64(o) * run, fixed, fixed_value)
        for j in range(run):
            i0 = start + j
            i1 = i0 | b0
            _mix4(state, i0, state, i1, state, i0 | b1, state, i1 | b1, e)


@_kernel
def apply_kq(state, m, offsets, fixed, fixed_value, scratch):
    """Dense ``2**k x 2**k`` matrix; ``offsets[r]`` is row r's index offset. Work is split in
    chunks; each chunk gathers a group into its thread's ``scratch`` row before writing any
    output (read-all-then-write)."""
    dim = offsets.size
    run, n_chunks, per_chunk = _chunks(state, fixed)
    for chunk in prange(n_chunks):
        buf = scratch[nb.get_thread_id()]
        for o in range(chunk * per_chunk, (chunk + 1) * per_chunk):
            start = _base(np.int64(o) * run, fixed, fixed_value)
            for j in range(run):
                base = start + j
                for c in range(dim):
                    buf[c] = state[base + offsets[c]]
                for r in range(dim):
                    acc = m[r, 0] * buf[0]
                    for c in range(1, dim):
                        acc += m[r, c] * buf[c]
                    state[base + offsets[r]] = acc


@_inline
def _sparse_group(state, base, offsets, row_ptr, cols, vals, buf):
    """One group of a sparse matrix in CSR form: gather, then each row's nonzeros only."""
    dim = offsets.size
    for c in range(dim):
        buf[c] = state[base + offsets[c]]
    for r in range(dim):
        acc = buf[0] * 0
        for p in range(row_ptr[r], row_ptr[r + 1]):
            acc += vals[p] * buf[cols[p]]
        state[base + offsets[r]] = acc


SPARSE_LANES = 16
"""Neighbouring groups a sparse kernel takes at once where they are consecutive amplitudes."""


@_inline
def _sparse_lanes(state, start, lanes, offsets, row_ptr, cols, vals, buf):
    """``lanes`` neighbouring groups at once (consecutive amplitudes in every row, ``buf``
    holds ``dim * lanes``): each nonzero is one multiply-add over a contiguous series."""
    dim = offsets.size
    for c in range(dim):
        src = start + offsets[c]
        for j in range(lanes):
            buf[c * lanes + j] = state[src + j]
    for r in range(dim):
        dst = start + offsets[r]
        p0 = row_ptr[r]
        p1 = row_ptr[r + 1]
        if p0 == p1:
            for j in range(lanes):
                state[dst + j] = 0
            continue
        v = vals[p0]
        src = cols[p0] * lanes
        for j in range(lanes):
            state[dst + j] = v * buf[src + j]
        for p in range(p0 + 1, p1):
            v = vals[p]
            src = cols[p] * lanes
            for j in range(lanes):
                state[dst + j] += v * buf[src + j]


@_inline
def _sparse_run(state, start, run, offsets, row_ptr, cols, vals, buf):
    """The groups ``start .. start + run - 1`` (consecutive): in lanes when there are at
    least four, one by one otherwise."""
    if run >= 4:
        lanes = min(run, SPARSE_LANES)
        for j0 in range(0, run, lanes):
            _sparse_lanes(state, start + j0, lanes, offsets, row_ptr, cols, vals, buf)
    else:
        for j in range(run):
            _sparse_group(state, start + j, offsets, row_ptr, cols, vals, buf)


@_kernel
def apply_sparse_kq(state, row_ptr, cols, vals, offsets, fixed, fixed_value, scratch):
    """Sparse ``2**k x 2**k`` matrix (CSR: ``row_ptr``, ``cols``, ``vals``), such as the
    superoperator of a noisy two-qubit gate: a multiply-add per nonzero, not per entry."""
    run, n_chunks, per_chunk = _chunks(state, fixed)
    for chunk in prange(n_chunks):
        buf = scratch[nb.get_thread_id()]
        for o in range(chunk * per_chunk, (chunk + 1) * per_chunk):
            start = _base(np.int64(o) * run, fixed, fixed_value)
            _sparse_run(state, start, run, offsets, row_ptr, cols, vals, buf)
