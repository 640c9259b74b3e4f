"""What every Numba kernel family shares: the kernel registry and its serial and threaded
builds, the subspace index scheme (``_base``), float views of complex arrays and the layout
of a one-qubit gate's pairs."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numba as nb
import numpy as np

from . import numba_cache  # noqa: F401  (first: where Numba keeps the kernels below)
from . import numba_low_chunks as low_chunks
from .numba_ranges import one_build
from .numba_slp import helper_njit, vector_njit

_SOURCES: dict[str, Callable[..., Any]] = {}


class CompileNotice(nb.core.event.Listener):
    """Says on stderr, once per complex number type and process, that genqsim's kernels are
    being compiled: the first run after installing compiles for tens of seconds, and without
    a word it looks like a hang. Numba announces a real compilation (not a load from its
    on-disk cache) with a ``numba:compile`` event. Helpers on real arrays or scalars compile
    with a state's kernels and are covered by its line (or by one plain line if they come
    first)."""

    def __init__(self) -> None:
        self.said: set[str] = set()
        self.progress: Callable[[int], None] | None = None
        self.compiled = 0

    def on_start(self, event: Any) -> None:
        dispatcher = event.data.get("dispatcher") if isinstance(event.data, dict) else None
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        if not module.startswith("genqsim.backends"):
            return
        if self.progress is not None:
            self.compiled += 1
            self.progress(self.compiled)
            return
        kinds = [
            str(t.dtype)
            for t in event.data.get("args", ())
            if isinstance(t, nb.types.Array) and isinstance(t.dtype, nb.types.Complex)
        ]
        what = kinds[0] if kinds else ""
        if what in self.said or (not what and self.said):
            return
        self.said.add(what)
        print(f"genqsim: compiling kernels{' for ' + what if what else ''} (once after "
              "installing: later runs load them from Numba's cache; 'genqsim warmup' compiles "
              "them all ahead of time) ...", file=sys.stderr, flush=True)  # fmt: skip

    def on_end(self, event: Any) -> None:
        pass


COMPILE_NOTICE = CompileNotice()
nb.core.event.register("numba:compile", COMPILE_NOTICE)


@contextlib.contextmanager
def compile_progress(report: Callable[[int], None]) -> Iterator[None]:
    """Within it, each kernel compiled calls ``report`` with the count so far instead of the
    one-line notice (the command line's progress while it compiles for later runs)."""
    saved = COMPILE_NOTICE.progress
    COMPILE_NOTICE.progress, COMPILE_NOTICE.compiled = report, 0
    try:
        yield
    finally:
        COMPILE_NOTICE.progress = saved


def _inline(fn: Callable[..., Any]) -> Any:
    """A helper every kernel that calls it inlines: the hot per-amplitude helpers, whose
    loops vectorise only with their caller's (a one-qubit gate's pairs: called, not
    inlined, U on qubit 0 ran four times slower). It is compiled once per argument types
    and inlined by LLVM (``alwaysinline``), not copied into each caller's Numba code:
    Numba typed and lowered such a copy once per caller and per threaded loop using it,
    with that, and no entry point from Python for any helper, the complex128 warm-up
    workloads compiled in 85 s instead of 111 on a 2-core EPYC Zen 3
    (:func:`~backends.numba_slp.helper_njit`)."""
    return helper_njit(inline=True)(fn)


def _shared(fn: Callable[..., Any]) -> Any:
    """A function compiled once per argument types and called (not inlined) by every kernel
    that uses it: the large row-level bodies of block, tile and adjoint runs, and each
    kernel's range functions (:mod:`.numba_ranges`). Called from compiled code only
    (:func:`~backends.numba_slp.helper_njit`): no machine code of its own."""
    return helper_njit()(fn)


THREADED_LOOPS_ONLY = {
    "prange": True,
    "comprehension": False,
    "reduction": False,
    "inplace_binop": False,
    "setitem": False,
    "numpy": False,
    "stencil": False,
    "fusion": False,
}
"""Numba's parallel options for a kernel: only its ``prange`` loops run on the thread pool
(array expressions stay on the calling thread, which runs the serial branch)."""


def _compiled(fn: Callable[..., Any], keeps_prange: bool) -> Any:
    """A kernel's build, kept from gathers and scatters
    (:func:`~backends.numba_slp.vector_njit`); where it keeps a ``prange`` loop, threading
    those loops alone, else without Numba's parallel passes (their compiling time)."""
    parallel = dict(THREADED_LOOPS_ONLY) if keeps_prange else False
    return vector_njit(parallel=parallel, cache=True, nogil=True, error_model="numpy",
                       fastmath=True)(fn)  # fmt: skip


def _kernel(fn: Callable[..., Any]) -> Any:
    """Register ``fn`` as a kernel; its build, serial and threaded, is made in
    :mod:`.numba_kernels`."""
    _SOURCES[fn.__name__] = fn
    return fn


def _build(fn: Callable[..., Any]) -> Any:
    """``fn`` compiled once as ``fn(threaded, *arguments)``, its threaded loops as range
    functions (:mod:`.numba_ranges`)."""
    return one_build(fn, _compiled, _shared)


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
