"""Compiled in-place kernels for complex64 and complex128 states (one source, both dtypes:
Numba specialises each function per argument type).

Index scheme: a gate on ``targets`` under ``controls`` visits ``2**(n - k - c)`` *bases*, the
indices whose target and control bits are all zero, made by inserting zero bits at the sorted
``fixed`` positions into the loop counter; control bits are then set to their values
(``fixed_value``). So a controlled gate iterates only over the subspace it changes — no
per-amplitude test of control bits. Every kernel loads all amplitudes of a group before it
stores any of them (read-all-then-write), so in-place updates never read a value they wrote.

Every kernel exists twice, from the one source: in :data:`PARALLEL` (``prange`` loops over
threads) and in :data:`SERIAL` (the same loops on the calling thread, for small states where
waking threads costs more than it saves). The backend picks one per call from the state's
size, so no thread setting is ever toggled per primitive. Thread-local scratch
(``scratch[get_thread_id()]``) is allocated by the caller, never inside a parallel loop.

Small helpers are inlined (``_inline``); the large row-level bodies of block, tile and adjoint
runs are compiled once per dtype and called (``_shared``), so the eight builds that use them
do not each compile a copy (an empty cache once took ten minutes to fill).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numba as nb
import numpy as np
from numba import prange

from ..plan.calls import CallKind
from . import numba_low_chunks as low_chunks
from . import numba_planar as planar
from .numba_prefetch import prefetch

_SOURCES: dict[str, Callable[..., Any]] = {}


def _inline(fn: Callable[..., Any]) -> Any:
    """A helper compiled into the kernels that call it."""
    return nb.njit(cache=True, nogil=True, inline="always")(fn)


def _shared(fn: Callable[..., Any]) -> Any:
    """A helper compiled once per argument types and called (not inlined) by every kernel
    that uses it: large row-level bodies shared by the serial and parallel builds and by
    block and tile runs are compiled once instead of once per caller."""
    return nb.njit(cache=True, nogil=True, error_model="numpy", fastmath=True)(fn)


def _compiled(fn: Callable[..., Any], parallel: bool) -> Any:
    return nb.njit(parallel=parallel, cache=True, nogil=True, error_model="numpy",
                   fastmath=True)(fn)  # fmt: skip


def _kernel(fn: Callable[..., Any]) -> Any:
    """Register ``fn`` as a kernel; the parallel and serial builds are made below."""
    _SOURCES[fn.__name__] = fn
    return fn


@_inline
def _calling_thread():
    """The serial build's thread id: always row 0 of the scratch (Numba's own
    ``get_thread_id`` is only defined once its thread pool has started)."""
    return 0


_SERIAL_NB = types.ModuleType("numba_serial")
_SERIAL_NB.get_thread_id = _calling_thread  # type: ignore[attr-defined]


def _build(fn: Callable[..., Any], parallel: bool) -> Any:
    """``fn`` compiled with or without threads. The serial build is compiled from a copy
    under its own qualified name (so the two land in different cache files) whose ``nb``
    is a module with the serial ``get_thread_id``."""
    if parallel:
        return _compiled(fn, parallel=True)
    serial_globals = {**fn.__globals__, "nb": _SERIAL_NB}
    twin = types.FunctionType(fn.__code__, serial_globals, fn.__name__ + "_serial",
                              fn.__defaults__, fn.__closure__)  # fmt: skip
    twin.__qualname__ = fn.__qualname__ + "_serial"
    twin.__doc__ = fn.__doc__
    return _compiled(twin, parallel=False)


@_inline
def _base(i, fixed, fixed_value):
    """Insert a zero bit at each (ascending) position of ``fixed`` into ``i``, then set the
    control bits of ``fixed_value``."""
    if fixed.size == 1:
        p = fixed[0]
        return (((i >> p) << (p + 1)) | (i & ((np.int64(1) << p) - 1))) | fixed_value
    for p in fixed:
        low = i & ((np.int64(1) << p) - 1)
        i = ((i >> p) << (p + 1)) | low
    return i | fixed_value


MAX_RUN_BITS = 10
"""Inner stride-1 runs are at most ``2**10`` amplitudes (so the outer parallel loop keeps
enough iterations); a permutation in a block run buffers one run in the scratch row."""


@_inline
def _run_length(fixed):
    """Indices below the lowest fixed bit are free and contiguous: loops walk them as an inner
    stride-1 run of this length (capped so the outer parallel loop keeps enough iterations)."""
    return np.int64(1) << min(fixed[0], MAX_RUN_BITS)


@_inline
def _chunks(state, fixed):
    """``(run, chunks, outer iterations per chunk)``: kernels with a per-thread scratch row
    split the outer loop into at most 1024 chunks, so each chunk fetches its row once."""
    run = _run_length(fixed)
    n_outer = (state.size >> fixed.size) // run
    n_chunks = min(n_outer, 1024)
    return run, n_chunks, n_outer // n_chunks


@_inline
def _popcount(v):
    """Set bits of a non-negative int64 (SWAR: no loop, no table)."""
    u = np.uint64(v)
    u = u - ((u >> np.uint64(1)) & np.uint64(0x5555555555555555))
    u = (u & np.uint64(0x3333333333333333)) + ((u >> np.uint64(2)) & np.uint64(0x3333333333333333))
    u = (u + (u >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((u * np.uint64(0x0101010101010101)) >> np.uint64(56))


@_inline
def _parity(x):
    return _popcount(x) & 1


def _is_real(array):
    """Whether ``array`` holds real numbers: a constant each compiled specialisation folds
    (pure-Python stub; the compiled version is the overload below)."""
    return array.dtype.kind == "f"


@nb.extending.overload(_is_real, inline="always")
def _is_real_compiled(array):
    real = isinstance(array.dtype, nb.types.Float)
    return lambda array: real


# -- gate kernels --------------------------------------------------------------------------------


def reals_view(array):
    """A complex array's memory as its real type (real, imaginary, real, ...); a real array
    itself (pure-Python stub; the compiled version is the overload below)."""
    return array.view(np.finfo(array.dtype).dtype) if array.dtype.kind == "c" else array


@nb.extending.overload(reals_view, inline="always")
def _reals_view_compiled(array):
    if isinstance(array.dtype, nb.types.Complex):
        real = nb.np.numpy_support.as_dtype(array.dtype.underlying_float)
        return lambda array: array.view(real)
    return lambda array: array


# Dense one-qubit gates on complex states run on the state's floats: the compiler vectorises
# the real arithmetic (packed multiply-adds over several pairs at once) where it can prove
# that the two series of a pair do not overlap. It proves it when the distance between them
# is the loop's own trip count (a whole group: pairs ``(i, i + bit)``, ``i`` over ``bit``
# consecutive amplitudes), or when they arrive as two arrays (a call that is not inlined).
# Complex arithmetic on complex arrays is faster only in two places, both measured: two
# gates per sweep (:func:`_mix22_series`) and the unrolled groups of qubits 1 and 2
# (:func:`_mix2c_groups`). Products by one complex factor or a repeating pattern of them are
# written out on the floats in straight chunks, which the SLP vectoriser packs
# (:mod:`backends.numba_low_chunks`).

PAIRS_ADJACENT = 0  # the target is qubit 0: a pair is four consecutive floats
PAIRS_GROUP = 1  # the target is the lowest fixed bit: whole groups of 2 * bit amplitudes
PAIRS_SERIES = 2  # series of ``run`` amplitudes ``bit`` apart, two arrays per call
PAIRS_SHORT = 3  # series too short to pay for a call: complex pairs one by one

SERIES_MIN = 16
"""Series shorter than this (a control below the target) run as plain complex pairs; longer
ones are whole chunks of :mod:`backends.numba_low_chunks` (:func:`_scale_series`)."""
assert SERIES_MIN % low_chunks.CHUNK == 0


@_inline
def _reals4(c):
    """Four complex entries as eight reals ``(re c0, im c0, re c1, ...)``."""
    return (c[0].real, c[0].imag, c[1].real, c[1].imag,
            c[2].real, c[2].imag, c[3].real, c[3].imag)  # fmt: skip


@_inline
def _all_real(e):
    """Whether the four entries whose reals are ``e`` (see :func:`_reals4`) are real."""
    return e[1] == 0 and e[3] == 0 and e[5] == 0 and e[7] == 0


@_inline
def _reals16(c):
    """Sixteen complex entries (a 4x4 matrix, row-major) as 32 reals."""
    return _reals4(c[0:4]) + _reals4(c[4:8]) + _reals4(c[8:12]) + _reals4(c[12:16])


@_inline
def _pairs_layout(bit, fixed, n_iter):
    """``(mode, width)``: how the pairs of a one-qubit gate on the qubit of ``bit`` are
    walked, and the bases (loop counter values, one per pair) each step takes. Where the
    target is the lowest fixed qubit, a step takes every whole group of ``2 * bit``
    amplitudes up to the next fixed qubit (at most ``2**MAX_RUN_BITS`` pairs): one call per
    run of groups instead of one per group."""
    target = fixed[0]
    if np.int64(1) << target == bit and bit <= np.int64(1) << MAX_RUN_BITS:
        free = fixed[1] - target - 1 if fixed.size > 1 else MAX_RUN_BITS
        groups = np.int64(1) << max(0, min(free, MAX_RUN_BITS - target))
        return (PAIRS_ADJACENT if bit == 1 else PAIRS_GROUP), min(bit * groups, n_iter)
    run = _run_length(fixed)
    return (PAIRS_SERIES if run >= SERIES_MIN else PAIRS_SHORT), run


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


@nb.njit(cache=True, nogil=True, error_model="numpy", fastmath=True)
def _mix2_groups(f, bit, e, real):
    """The pairs ``(j, bit + j)`` of each whole group of ``2 * bit`` amplitudes of the
    floats ``f``. Not inlined: one call takes a run of groups. A real matrix mixes the floats
    ``(k, k ^ 2 bit)`` alike, real and imaginary parts: up to qubit 3, as a real gate on a
    split row whose two halves are the two halves of ``f`` (:func:`planar.mix_groups`:
    straight packed chunks for floats 2, 4 and 8 apart, in a 15-qubit row 0.81 / 0.74 /
    0.78 -> 0.24-0.47 / 0.26-0.46 / 0.49 ns per amplitude for qubits 1 / 2 / 3 with
    complex128; qubit 0 too, for complex64), from qubit 4 as two series (the inline lanes
    ran at half speed there, n = 20, in cache)."""
    if real and bit <= 8 and (f.size // 2) % (4 * bit) == 0:
        half_size = f.size // 2
        planar.mix_groups(f[:half_size], f[half_size:], 2 * bit, e, True)
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


@nb.njit(cache=True, nogil=True, error_model="numpy", fastmath=True)
def _mix2c_groups(x, bit, m0, m1, m2, m3):
    """:func:`_mix2c_groups_of` with ``bit`` (2 or 4) a constant in each branch."""
    if bit == 2:
        _mix2c_groups_of(x, 2, m0, m1, m2, m3)
    else:
        _mix2c_groups_of(x, 4, m0, m1, m2, m3)


@nb.njit(cache=True, nogil=True, error_model="numpy", fastmath=True)
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


@_inline
def _add8(s, t):
    return (s[0] + t[0], s[1] + t[1], s[2] + t[2], s[3] + t[3],
            s[4] + t[4], s[5] + t[5], s[6] + t[6], s[7] + t[7])  # fmt: skip


_ZERO8 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@nb.njit(cache=True, nogil=True, error_model="numpy", fastmath=True)
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


@nb.njit(cache=True, nogil=True, error_model="numpy", fastmath=True)
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


@nb.njit(cache=True, nogil=True, error_model="numpy", fastmath=True)
def _adjoint_groups(p, lam, bit, e, variant):
    """The adjoint step on whole groups of ``2 * bit`` amplitudes (the target is the lowest
    fixed qubit, at ``bit``) of a run of ``psi`` and the same run of ``lam`` (float views);
    not inlined, as above: one call takes many groups, the variant chosen once."""
    if variant == ADJOINT_REAL:
        return _adjoint_groups_as(p, lam, bit, e, ADJOINT_REAL)
    if variant == ADJOINT_DIAGONAL:
        return _adjoint_groups_as(p, lam, bit, e, ADJOINT_DIAGONAL)
    return _adjoint_groups_as(p, lam, bit, e, ADJOINT_GENERAL)


@_inline
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


@nb.njit(cache=True, nogil=True, error_model="numpy", fastmath=True)
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


PATTERN_MAX_BITS = 10
"""A diagonal gate whose qubits all lie below this many runs as one repeating pattern of
factors (at most ``2**10``) over the whole state, when its series are short."""


@_inline
def _scale_series(f, a, count, dr, di):
    """The ``count`` complex numbers starting at float ``a`` of ``f`` times ``dr + i di``
    (``count`` a multiple of :data:`~backends.numba_low_chunks.CHUNK`: every caller's
    series holds at least :data:`SERIES_MIN` amplitudes, a power of two), in packed chunks."""
    low_chunks.scale_chunks(f[a : a + 2 * count], dr, di)


@_inline
def _diagonal_pattern(pattern, diag, offsets, fixed, fixed_value):
    """``pattern[i]``: the factor of a diagonal gate for index ``i`` (one where it changes
    nothing); every fixed bit lies below ``log2(pattern.size)``, so the factors of the
    whole state repeat it."""
    for i in range(pattern.size):
        pattern[i] = 1
    for o in range(pattern.size >> fixed.size):
        base = _base(np.int64(o), fixed, fixed_value)
        for r in range(offsets.size):
            pattern[base + offsets[r]] = diag[r]


@_inline
def _pattern_as_floats(pattern):
    """Where every factor of the complex ``pattern`` is real (CZ's 1 and -1), rewrite its
    floats in place so that floats ``2j`` and ``2j + 1`` both hold factor ``j`` (a pattern
    for the state's floats, lane by lane) and return True; else return False, unchanged."""
    for j in range(pattern.size):
        if pattern[j].imag != 0:
            return False
    f = reals_view(pattern)
    for j in range(pattern.size):
        f[2 * j + 1] = f[2 * j]
    return True


@nb.njit(cache=True, nogil=True, error_model="numpy", fastmath=True)
def _times_pattern(x, pattern):
    """``x`` (a whole number of patterns long) times the repeating ``pattern``, element by
    element: a state's floats by a real pattern of floats (:func:`_pattern_as_floats`), lane
    by lane, or a short row's amplitudes by complex factors. Not inlined, like
    :func:`_mix2_series`, so the loop vectorises (0.44 ns per amplitude lane by lane in a
    14-qubit row, one thread)."""
    size = pattern.size
    for c in range(x.size // size):
        segment = x[c * size : (c + 1) * size]
        for j in range(size):
            segment[j] *= pattern[j]


@_inline
def _times_complex_pattern(x, pattern):
    """The complex ``x`` (a whole number of patterns long) times the repeating complex
    ``pattern``: in packed chunks (:data:`~backends.numba_low_chunks.pattern_chunks`, 0.47-0.59
    ns per amplitude in a 1 MiB row, one thread, against 1.06-1.14 in complex arithmetic)
    where the pattern holds whole chunks, else amplitude by amplitude (a state or row of
    fewer than 16 amplitudes)."""
    if pattern.size >= low_chunks.CHUNK:
        low_chunks.pattern_chunks(reals_view(x), reals_view(pattern))
    else:
        _times_pattern(x, pattern)


@_inline
def _period(fixed, n):
    """The period of a diagonal's factors over a row of ``n`` amplitudes where its qubits
    all lie below :data:`PATTERN_MAX_BITS` (at least 64, at most ``n``), else 0."""
    top = fixed[fixed.size - 1]
    if top >= PATTERN_MAX_BITS:
        return np.int64(0)
    return min(max(np.int64(1) << (top + 1), np.int64(64)), n)


@_inline
def _pattern_size(fixed, size):
    """Amplitudes in the repeating pattern of a diagonal gate on ``fixed`` bits over a
    state (or row) of ``size`` amplitudes, or 0 where its series are long enough to scale
    one by one or its bits too high for a pattern."""
    if _run_length(fixed) >= SERIES_MIN:
        return np.int64(0)
    return _period(fixed, size)


@_kernel
def apply_diagonal(state, diag, offsets, fixed, fixed_value):
    """Multiply the rows listed in ``offsets`` (those whose entry is not one) by ``diag``: on
    the floats of a complex state (vectorised), as long series or, for low qubits, as one
    repeating pattern of factors."""
    n_iter = state.size >> fixed.size
    n_rows = offsets.size
    run = _run_length(fixed)
    if not _is_real(state):
        f = reals_view(state)
        size = _pattern_size(fixed, state.size)
        if size:
            pattern = np.empty(size, dtype=state.dtype)
            _diagonal_pattern(pattern, diag, offsets, fixed, fixed_value)
            real = _pattern_as_floats(pattern)
            chunk = max(size, min(np.int64(1) << MAX_RUN_BITS, state.size))
            for c in prange(state.size // chunk):
                segment = state[c * chunk : (c + 1) * chunk]
                if real:
                    _times_pattern(reals_view(segment), reals_view(pattern))
                else:
                    _times_complex_pattern(segment, pattern)
            return
        if run >= SERIES_MIN:
            for o in prange(n_iter // run):
                start = _base(np.int64(o) * run, fixed, fixed_value)
                for r in range(n_rows):
                    d = diag[r]
                    _scale_series(f, 2 * (start + offsets[r]), run, d.real, d.imag)
            return
    for o in prange(n_iter // run):
        start = _base(np.int64(o) * run, fixed, fixed_value)
        for j in range(run):
            base = start + j
            for r in range(n_rows):
                state[base + offsets[r]] *= diag[r]


@_kernel
def apply_phase_1q(state, phase, target, fixed, fixed_value):
    """``diag(1, phase)`` on ``target`` (Z, S, T, P, Rz up to phase, CZ, CP): touches half,
    in straight chunks where one fixed qubit is among the four lowest, else as series on
    the floats of a complex state where they are long enough."""
    n_iter = state.size >> fixed.size
    bit = np.int64(1) << target
    stretch, steps = _low_chunk_walk(state, fixed, np.int64(1) << MAX_RUN_BITS)
    if stretch:
        side = fixed_value | bit
        variant = 2 * fixed[0] + ((side >> fixed[0]) & 1)
        f = reals_view(state)
        for o in prange(steps):
            a = _low_chunk_start(o, stretch, fixed, side)
            low_chunks.phase_chunks(f[a : a + 2 * stretch], phase.real, phase.imag, variant)
        return
    run = _run_length(fixed)
    if not _is_real(state) and run >= SERIES_MIN:
        f = reals_view(state)
        for o in prange(n_iter // run):
            start = _base(np.int64(o) * run, fixed, fixed_value) | bit
            _scale_series(f, 2 * start, run, phase.real, phase.imag)
        return
    for o in prange(n_iter // run):
        start = _base(np.int64(o) * run, fixed, fixed_value) | bit
        for j in range(run):
            state[start + j] *= phase


@nb.njit(cache=True, nogil=True, error_model="numpy", fastmath=True)
def _swap_series(x, y):
    """Exchange two series element by element. Not inlined on purpose, like
    :func:`_mix2_series`: as two arguments they are checked for overlap once per call, and
    the loop vectorises."""
    for j in range(x.size):
        t = x[j]
        x[j] = y[j]
        y[j] = t


@_inline
def _swap_layout(fixed, n_iter):
    """``(run, blocks, stride)``: a swap step exchanges ``blocks`` series of ``run``
    consecutive amplitudes (``run`` set by the lowest fixed qubit), ``stride`` apart (past
    the fixed qubits that follow the lowest one without a gap). Short series are taken many
    at a time, up to the next fixed qubit (at most ``2**MAX_RUN_BITS`` amplitudes), so a step
    never pays an index computation per amplitude."""
    run = _run_length(fixed)
    if run >= SERIES_MIN:
        return run, np.int64(1), run
    k = 0
    while k + 1 < fixed.size and fixed[k + 1] == fixed[k] + 1:
        k += 1
    free = fixed[k + 1] - fixed[k] - 1 if k + 1 < fixed.size else MAX_RUN_BITS
    blocks = np.int64(1) << max(0, min(free, MAX_RUN_BITS - fixed[0]))
    return run, min(blocks, n_iter // run), np.int64(1) << (fixed[k] + 1)


@_inline
def _swap_step(state, o, run, blocks, stride, offset_a, offset_b, fixed, fixed_value):
    """Step ``o`` of a swap of the amplitudes at ``base + offset_a`` and ``base + offset_b``
    (walked as :func:`_swap_layout` says): a long series exchanged whole, vectorised."""
    start = _base(np.int64(o) * run * blocks, fixed, fixed_value)
    a = start + offset_a
    b = start + offset_b
    if run >= SERIES_MIN:
        _swap_series(state[a : a + run], state[b : b + run])
        return
    for r in range(blocks):
        for j in range(stride * r, stride * r + run):
            t = state[a + j]
            state[a + j] = state[b + j]
            state[b + j] = t


@_inline
def _low_chunk_walk(state, fixed, max_stretch):
    """``(stretch, steps)`` of a gate that runs in the straight chunks of
    :mod:`backends.numba_low_chunks` (``stretch`` 0 where it does not: a real state, no
    fixed qubit below 4 or two of them, fewer than 16 amplitudes). Step ``o`` covers a
    stretch of ``stretch`` consecutive amplitudes on each side of the gate (up to its next
    fixed qubit, at most ``max_stretch``), from :func:`_low_chunk_start`."""
    if (_is_real(state) or fixed[0] >= low_chunks.LOW_QUBITS or state.size < low_chunks.CHUNK
            or (fixed.size > 1 and fixed[1] < low_chunks.LOW_QUBITS)):  # fmt: skip
        return np.int64(0), np.int64(0)
    contiguous = np.int64(1) << fixed[1] if fixed.size > 1 else state.size
    stretch = min(contiguous, max_stretch)
    return stretch, (state.size >> (fixed.size - 1)) // stretch


@_inline
def _low_chunk_start(o, stretch, fixed, side):
    """The first float of step ``o``'s stretch on the side of a gate at ``base + side``
    (``side``: the fixed bits' values there)."""
    base = _base(np.int64(o) * stretch, fixed[1:], 0)
    return 2 * (base | (side & ~np.int64(low_chunks.CHUNK - 1)))


@_inline
def _swap_variant(fixed, side_a, side_b):
    """The exchange variant of :mod:`backends.numba_low_chunks` for sides ``side_a`` and
    ``side_b`` (the fixed bits' values at the two amplitudes)."""
    q = fixed[0]
    return 4 * q + 2 * ((side_a >> q) & 1) + ((side_b >> q) & 1)


@_inline
def _swap_low_chunk_step(floats, o, stretch, fixed, side_a, side_b, variant):
    """Step ``o`` of an exchange walked as :func:`_low_chunk_walk` says."""
    a = _low_chunk_start(o, stretch, fixed, side_a)
    b = _low_chunk_start(o, stretch, fixed, side_b)
    low_chunks.swap_chunks(floats[a : a + 2 * stretch], floats[b : b + 2 * stretch], variant)


@_kernel
def swap_pairs(state, offset_a, offset_b, fixed, fixed_value):
    """Exchange the amplitudes at ``base + offset_a`` and ``base + offset_b`` (X, CX, SWAP):
    in straight chunks where one fixed qubit is among the four lowest, else in series."""
    stretch, steps = _low_chunk_walk(state, fixed, np.int64(1) << MAX_RUN_BITS)
    if stretch:
        side_a, side_b = fixed_value | offset_a, fixed_value | offset_b
        variant = _swap_variant(fixed, side_a, side_b)
        f = reals_view(state)
        for o in prange(steps):
            _swap_low_chunk_step(f, o, stretch, fixed, side_a, side_b, variant)
        return
    n_iter = state.size >> fixed.size
    run, blocks, stride = _swap_layout(fixed, n_iter)
    for o in prange(n_iter // (run * blocks)):
        _swap_step(state, o, run, blocks, stride, offset_a, offset_b, fixed, fixed_value)


@_kernel
def apply_cycles(state, cycle_ptr, offsets, phases, fixed, fixed_value):
    """A phased permutation as disjoint cycles ``j0 -> j1 -> ...``: element ``e`` of a cycle
    moves to the next with factor ``phases[e]``; one temporary per cycle."""
    n_iter = state.size >> fixed.size
    n_cycles = cycle_ptr.size - 1
    run = _run_length(fixed)
    for o in prange(n_iter // run):
        start = _base(np.int64(o) * run, fixed, fixed_value)
        for j in range(run):
            base = start + j
            for c in range(n_cycles):
                first = cycle_ptr[c]
                end = cycle_ptr[c + 1]
                last = state[base + offsets[end - 1]]
                for e in range(end - 1, first, -1):
                    state[base + offsets[e]] = phases[e - 1] * state[base + offsets[e - 1]]
                state[base + offsets[first]] = phases[end - 1] * last


# -- monomial runs: whole series moved along their cycles ----------------------------------------


@nb.njit(cache=True, nogil=True, error_model="numpy", fastmath=True)
def _move_scaled(target, source, phase):
    """``target = phase * source`` element by element (a plain copy for a phase of one). Not
    inlined, like :func:`_swap_series`, so the two views are checked for overlap once and the
    loop vectorises."""
    if phase == 1:
        for j in range(target.size):
            target[j] = source[j]
    else:
        for j in range(target.size):
            target[j] = phase * source[j]


@_kernel
def move_series(state, series_size, piece, cycle_ptr, cycle_series, cycle_phases, scratch):
    """A monomial map of whole series of ``series_size`` consecutive amplitudes, as disjoint
    cycles: series ``cycle_series[e]`` moves to the next series of its cycle (the last to the
    first) times ``cycle_phases[e]``. A step of the parallel loop walks one cycle for one
    ``piece`` of the series' amplitudes (pieces outermost, so threads share long cycles),
    backwards from a copy of the last series' piece in the thread's row of ``scratch``: each
    step writes the piece the step before read, so every amplitude is read once and written
    once."""
    n_pieces = series_size // piece
    n_cycles = cycle_ptr.size - 1
    for u in prange(n_pieces * n_cycles):
        lo = (u // n_cycles) * piece
        c = u % n_cycles
        first = cycle_ptr[c]
        last = cycle_ptr[c + 1] - 1
        buf = scratch[nb.get_thread_id()]
        start = cycle_series[last] * series_size + lo
        _move_scaled(buf[:piece], state[start : start + piece], 1)
        for e in range(last, first, -1):
            to = cycle_series[e] * series_size + lo
            at = cycle_series[e - 1] * series_size + lo
            _move_scaled(state[to : to + piece], state[at : at + piece], cycle_phases[e - 1])
        to = cycle_series[first] * series_size + lo
        _move_scaled(state[to : to + piece], buf[:piece], cycle_phases[last])


@nb.njit(cache=True, nogil=True)
def series_cycles(destination, changed):
    """The cycles of the permutation ``destination`` through the ``changed`` entries, as
    ``(cycle_ptr, elements)``: cycle ``c`` is ``elements[cycle_ptr[c]:cycle_ptr[c + 1]]``,
    each element's destination the next one (the last's, the first)."""
    n = destination.size
    seen = np.zeros(n, dtype=np.bool_)
    elements = np.empty(n, dtype=np.int64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    count = 0
    cycles = 0
    for s in range(n):
        if seen[s] or not changed[s]:
            continue
        e = s
        while not seen[e]:
            seen[e] = True
            elements[count] = e
            count += 1
            e = destination[e]
        cycles += 1
        ptr[cycles] = count
    return ptr[: cycles + 1].copy(), elements[:count].copy()


# -- reductions ----------------------------------------------------------------------------------


@_kernel
def probabilities_full(state, out):
    for i in prange(state.size):
        a = state[i]
        out[i] = a.real * a.real + a.imag * a.imag


@_kernel
def probabilities_marginal(state, qubits, partial):
    """Per-thread histograms in ``partial[thread]``; the caller sums them."""
    for i in prange(state.size):
        a = state[i]
        key = 0
        for pos in range(qubits.size):
            key |= ((np.int64(i) >> qubits[pos]) & 1) << pos
        partial[nb.get_thread_id(), key] += a.real * a.real + a.imag * a.imag


@_kernel
def norm_squared(state):
    total = 0.0
    for i in prange(state.size):
        a = state[i]
        total += np.float64(a.real) * a.real + np.float64(a.imag) * a.imag
    return total


@_kernel
def inner(a, b):
    re = 0.0
    im = 0.0
    for i in prange(a.size):
        x = a[i]
        y = b[i]
        re += np.float64(x.real) * y.real + np.float64(x.imag) * y.imag
        im += np.float64(x.real) * y.imag - np.float64(x.imag) * y.real
    return complex(re, im)


@_kernel
def transition_xz(bra, ket, x_mask, z_mask, fixed, fixed_value):
    """``<bra| X^x Z^z |ket>`` over the subspace whose ``fixed`` bits (sorted; control qubits,
    disjoint from ``x_mask``) hold ``fixed_value``, without copying either state: an
    expectation value (``bra is ket``, nothing fixed), or a gradient term of the adjoint sweep
    (``Im <lambda| P |psi>`` under a rotation's controls)."""
    re = 0.0
    im = 0.0
    for i in prange(ket.size >> fixed.size):
        j = _base(np.int64(i), fixed, fixed_value) if fixed.size else np.int64(i)
        sign = 1.0 - 2.0 * _parity(j & z_mask)
        a = bra[j ^ x_mask]
        b = ket[j]
        re += sign * (np.float64(a.real) * b.real + np.float64(a.imag) * b.imag)
        im += sign * (np.float64(a.real) * b.imag - np.float64(a.imag) * b.real)
    return complex(re, im)


# -- cache-blocked runs --------------------------------------------------------------------------

KIND_DENSE = int(CallKind.MATRIX)
KIND_DIAGONAL = int(CallKind.DIAGONAL)
KIND_CYCLES = int(CallKind.PERMUTATION)  # permutations travel as cycles
KIND_SPARSE = int(max(CallKind)) + 1  # sparse matrices, in this backend's encoding only
KIND_SWAP = KIND_SPARSE + 1  # one exchange of two amplitudes, no phases (X, CX, SWAP), likewise
KIND_PERMUTE = KIND_SWAP + 1  # consecutive permutations as one table of sources, likewise
KIND_SKIP = KIND_PERMUTE + 1  # a permutation taken into the table of the call before it


@_inline
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


@_inline
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


@_inline
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


@_inline
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


@nb.njit(cache=True, nogil=True, error_model="numpy", fastmath=True)
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
def _call_on_row(row, g, kinds, fixed_values, fixed_ptr, fixed, index_ptr, index, data_ptr,
                 data, buf):  # fmt: skip
    """Apply call ``g`` of an encoded run to ``row`` (see :func:`_run_on_row`)."""
    fx = fixed[fixed_ptr[g] : fixed_ptr[g + 1]]
    ix = index[index_ptr[g] : index_ptr[g + 1]]
    dx = data[data_ptr[g] : data_ptr[g + 1]]
    if kinds[g] == KIND_DENSE:
        _dense_on_row(row, dx, ix, fx, fixed_values[g], buf)
    elif kinds[g] == KIND_DIAGONAL:
        _diagonal_on_row(row, dx, ix, fx, fixed_values[g], buf)
    elif kinds[g] == KIND_SPARSE:
        _sparse_on_row(row, dx, ix, fx, fixed_values[g], buf)
    elif kinds[g] == KIND_PERMUTE:
        _permute_on_row(row, ix, buf)
    elif kinds[g] == KIND_SKIP:
        return
    elif kinds[g] == KIND_SWAP:
        stretch, steps = _low_chunk_walk(row, fx, row.size)
        if stretch:
            side_a, side_b = fixed_values[g] | ix[0], fixed_values[g] | ix[1]
            variant = _swap_variant(fx, side_a, side_b)
            f = reals_view(row)
            for o in range(steps):
                _swap_low_chunk_step(f, o, stretch, fx, side_a, side_b, variant)
            return
        n_iter = row.size >> fx.size
        run, blocks, stride = _swap_layout(fx, n_iter)
        for o in range(n_iter // (run * blocks)):
            _swap_step(row, o, run, blocks, stride, ix[0], ix[1], fx, fixed_values[g])
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


@nb.njit(cache=True, nogil=True, error_model="numpy", fastmath=True)
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


@nb.njit(cache=True, nogil=True, error_model="numpy", fastmath=True)
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


@_inline
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
def _planar_stretch(g, kinds, fixed_ptr, index_ptr, data_ptr, data):
    """``(end, complex calls)`` of the longest stretch from call ``g`` that runs split."""
    end = g
    work = 0
    while end < kinds.size:
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


@_inline
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
def _run_on_row(row, kinds, fixed_values, fixed_ptr, fixed, index_ptr, index, data_ptr, data,
                buf):  # fmt: skip
    """Apply every call of an encoded run to ``row`` (a block or a gathered tile).

    Gate ``g`` is ``kinds[g]``; its fixed positions are ``fixed[fixed_ptr[g]:fixed_ptr[g+1]]``,
    its row offsets (dense, diagonal), cycle pointers + offsets (cycles) or sparse layout are
    in ``index``, its matrix / diagonal / phases / nonzeros in ``data``. Two consecutive
    uncontrolled one-qubit gates on different qubits of a complex row (a layer of H, RY or
    U) are applied in one sweep of it (:func:`_two_1q`). A stretch of one-qubit gates and
    diagonals with at least :data:`PLANAR_MIN_CALLS` complex one-qubit gates runs on the
    row split into real and imaginary parts (:func:`_run_planar`) where ``buf`` has room for it.
    """
    g = 0
    checked = 0  # calls before this one were looked at for a split stretch
    while g < kinds.size:
        if not _is_real(row) and g >= checked and buf.size >= row.size + 2 * PLANAR_PATTERN:
            end, work = _planar_stretch(g, kinds, fixed_ptr, index_ptr, data_ptr, data)
            checked = max(end, g + 1)
            if work >= PLANAR_MIN_CALLS:
                _run_planar(row, g, end, kinds, fixed_values, fixed_ptr, fixed, index_ptr,
                            index, data_ptr, data, buf)  # fmt: skip
                g = end
                continue
        if not _is_real(row) and g + 1 < kinds.size:
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
        _run_on_row(row, kinds, fixed_values, fixed_ptr, fixed, index_ptr, index, data_ptr,
                    data, scratch[nb.get_thread_id()])  # fmt: skip


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
        _run_on_row(row, kinds, fixed_values, fixed_ptr, fixed, index_ptr, index, data_ptr,
                    data, scratch[nb.get_thread_id()])  # fmt: skip
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


@nb.njit(cache=True, nogil=True)
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


@nb.njit(cache=True, nogil=True)
def unpack_pauli_coordinates(floats, n):
    """Inverse of :func:`pack_pauli_coordinates` (descending order): entry ``(z, x)``
    becomes ``y / i**popcount(x & z)``."""
    dim = np.int64(1) << n
    for i in range(dim * dim - 1, -1, -1):
        turn = _popcount((i & (dim - 1)) & (i >> n)) & 3
        y = floats[i]
        floats[2 * i + 1] = -_SIN_QUARTER[turn] * y
        floats[2 * i] = _COS_QUARTER[turn] * y


PARALLEL = types.SimpleNamespace(**{name: _build(fn, True) for name, fn in _SOURCES.items()})
"""Every kernel with ``prange`` loops spread over the configured threads."""
SERIAL = types.SimpleNamespace(**{name: _build(fn, False) for name, fn in _SOURCES.items()})
"""Every kernel run on the calling thread alone."""
