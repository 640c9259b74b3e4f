"""Diagonal and permutation kernels: diagonals as series or repeating patterns, single phases,
plain swaps (in straight chunks on the lowest qubits), phased cycles, and monomial runs that
move whole series along their cycles."""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import prange

from . import numba_cache  # noqa: F401  (first: where Numba keeps this module's kernels)
from . import numba_low_chunks as low_chunks
from .numba_common import (
    MAX_RUN_BITS,
    SERIES_MIN,
    _base,
    _inline,
    _is_real,
    _kernel,
    _run_length,
    reals_view,
)
from .numba_slp import helper_njit, vector_njit

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


@helper_njit()
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
def apply_phase_1q(state, phase, target, fixed, fixed_value, pattern):
    """``diag(1, phase)`` on ``target`` (Z, S, T, P, Rz up to phase, CZ, CP): touches half,
    in straight chunks where one fixed qubit is among the four lowest, else as series on
    the floats of a complex state where they are long enough. With a ``pattern`` (the
    interleaved floats of ``2**(target + 1)`` factors, 1 then the phase; empty: none), every
    amplitude is rewritten instead, in whole chunks (:mod:`.numba_phase_rewrite`)."""
    if pattern.size:
        f = reals_view(state)
        segment = max(pattern.size, np.int64(2) << MAX_RUN_BITS)
        for o in prange(f.size // segment):
            low_chunks.pattern_chunks(f[o * segment : (o + 1) * segment], pattern)
        return
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


@helper_njit()
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


@helper_njit()
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


@vector_njit(cache=True, nogil=True)
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
