"""The Numba backend: compiled, multithreaded, in-place kernels for complex64/complex128
NumPy states. Chosen automatically for such arrays when numba is installed. The gate
primitives and block runs also take float32/float64 states with real matrices: a density
matrix's Pauli coordinates (:mod:`genqsim.states.pauli_basis`).

Gates are dispatched by structure: 1- and 2-qubit dense matrices to unrolled butterflies,
larger ones to a gather-multiply-scatter kernel; diagonal gates multiply only the rows whose
entry is not one (``diag(1, p)`` touches half the state); permutations move amplitudes along
their cycles (X, CX and SWAP are plain swaps). Small states run each kernel on the calling
thread (its serial build), large ones on the thread pool (its threaded build), on the thread
count of the current thread's setting: a state's run options enter that setting once around
a run (:meth:`NumbaBackend.threads`).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from types import SimpleNamespace
from typing import Any, cast

import numba
import numpy as np

from ..errors import QubitCountMismatchError
from ..numbers import NumberSystem
from ..plan.calls import (
    BlockRun,
    DiagonalCall,
    MatrixCall,
    MonomialRun,
    PermutationCall,
    monomial_map,
)
from ..support.cpus import usable_cpus
from . import numba_block_runs as runs
from . import numba_cache
from . import numba_common as common
from . import numba_dense as dense
from . import numba_diagonal_permutation as diagonals
from . import numba_kernels as K
from . import numba_pauli_basis as pauli_basis
from . import numba_pauli_strings as pauli_strings
from . import numba_phase_rewrite as phase_rewrite
from . import numba_shots as shot_loop
from . import numba_switch as switch
from .protocol import (
    PAULI_HERMITIAN_TOLERANCE,
    AdjointSteps,
    BlockLayout,
    BlockRunner,
    GenericBackend,
    KernelCache,
    MonomialRunner,
    PauliCoordinates,
    PauliPropagator,
    SegmentRunner,
    ShotGroupRunner,
    SweepRunner,
    ThreadScoped,
    real_entries,
)

GateCallOfRun = MatrixCall | DiagonalCall | PermutationCall

PARALLEL_MIN_QUBITS = min(switch.CANDIDATE_QUBITS)
"""States below this size always run the serial kernels; from it on, the threaded ones once
the state reaches the size measured on this machine (:mod:`.numba_switch`)."""

_DTYPES = (np.dtype(np.complex64), np.dtype(np.complex128))


def _caused_by_interrupt(exc: BaseException | None) -> bool:
    """Whether a ``KeyboardInterrupt`` is in the chain of causes of ``exc``."""
    while exc is not None:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _entries(values: Any, dtype: np.dtype) -> np.ndarray:
    """``values`` as a contiguous array of the state's ``dtype``; a real state takes only
    real entries (a complex one is a planning error, never silently dropped)."""
    array = real_entries(values) if np.dtype(dtype).kind == "f" else np.asarray(values)
    return np.ascontiguousarray(array, dtype=dtype)


BLOCK_BYTES = 1 << 20
"""Bytes of amplitudes per contiguous cache block: 1 MiB, twice a core's L2 on the reference
EPYC. Gates inside a block are bound by arithmetic, not by where the block lives: Walsh 26,
one thread, a block of 16 H in 352 ms against 15 in 353 at 512 KiB, and its plan 719 ->
648 ms (two threads 351 -> 326), the gathered pass after the blocks having one gate fewer;
random 20-22, QFT 20-24 within the spread. Blocks of 2 and 4 MiB made random 22 20-25 %
slower (a split row's scratch doubles the bytes in cache)."""

BLOCKED_MIN_BYTES = 1 << 21
"""States of at least 2 MiB (17 qubits at complex128) run their gates in contiguous blocks;
random 17 unblocked took 51 against 29 ms, one thread."""

TILE_BYTES = 1 << 18
"""Bytes of amplitudes per gathered tile of :meth:`NumbaBackend.tile_layout` (density
matrices, adjoint sweeps): 256 KiB."""

HADAMARD_STAGE_BITS = 6
"""Row bits one pass of the Pauli-coordinate transform covers (64 rows at a time)."""

HADAMARD_CHUNK = 1 << 14
"""Amplitudes a thread holds in that pass: 64 rows x 256 columns (256 KiB at complex128)."""

TILE_LOW_QUBITS = 4
"""Gathered tiles over any qubits (:meth:`NumbaBackend.tile_layout`: density matrices,
adjoint sweeps) read series of ``2**4`` consecutive amplitudes (256 bytes at complex128),
which leaves ten qubits of a tile free. Series of 64 made no difference to adjoint gradients
at 20 and 22 qubits and made a 12-qubit density matrix 5 % slower (fewer free qubits, more
passes)."""

GATHERED_LOW_QUBITS = 6
"""The default plan's gathered tiles (the gates on high qubits, after the contiguous blocks)
read series of ``2**6`` consecutive amplitudes (1 KiB at complex128), leaving eight qubits
free: each series is a trip to memory of its own, and a pass in series of 256 bytes cost
twice one in series of 1 KiB (`python benchmarks/tile_plans_bench.py --gather`: 26 qubits,
one thread, 441 against 223 ms; a contiguous pass 91 ms)."""

SERIES_MIN_QUBITS = 6
"""The default plan moves runs of permutation and diagonal calls on qubit 6 and above as
whole series of at least ``2**6`` amplitudes (:class:`~genqsim.plan.MonomialRun`)."""

MERGED_DIAGONAL_QUBITS = 14
"""The default plan merges consecutive diagonal calls on at most 14 qubits together into one
(:func:`~genqsim.plan.diagonals.merge_diagonals`; 16384 entries, 256 KiB in complex128).
QFT 24, one thread, the plan's items in turn: 2.24-2.46 s unmerged, 1.20-1.24 s merged on
at most 8 to 12 qubits, 0.98 s on 14; random 22 and GHZ 26 the same within the spread."""

SERIES_PIECE = 512
"""Amplitudes of a series a step of a monomial run moves at a time (8 KiB at complex128:
the piece read one step is written the next, from L1)."""

GATHERED_TILE_BYTES = 1 << 21
"""The default plan's gathered tiles hold 2 MiB of amplitudes (17 qubits at complex128): the
:data:`GATHERED_LOW_QUBITS` and up to eleven others, so the gates on the eleven qubits of a
26-qubit state above its cache blocks take one gathered pass instead of two (8 and 3 gates
in tiles of 256 KiB). A tile that size lives in L3, not L2, but a gather costs more than the
arithmetic it leaves there: Walsh 26, one thread, the plan's items best of 8 interleaved,
801 -> 691 ms; two threads 426 -> 370 ms; complex64 (18 qubits a tile) 517 -> 407 ms. QFT
20-24 and random 18-22 moved less than the spread (``benchmarks/split_row_bench.py
--plan``)."""

GATHERED_MIN_WORK = 3.0
"""The default plan's ``min_gathered_work``: a run on high qubits is gathered where its
calls would move at least three states' worth one by one. A gather costs about two and a
half plain passes (above) and a gate inside a tile about a third of one, while a plain pass
on the two highest qubits of a 26-qubit state costs 2.4 of one lower down (H on qubit 25:
149 ms against 62 ms on qubit 23, one thread), so Walsh's last three H run faster gathered
(885 against 1164 ms for Walsh 26, one thread, the plans interleaved). Runs of nothing but
permutations and diagonals (GHZ's CX ladder) go to monomial runs instead, one pass at most;
with a minimum of four, and before monomial runs, seven CX on high qubits (3.5 states'
worth) had been left plain because they ran slower gathered."""


@lru_cache(maxsize=4096)
def _layout(
    targets: tuple[int, ...], controls: tuple[int, ...], control_values: tuple[int, ...]
) -> tuple[np.ndarray, int, np.ndarray]:
    """``(fixed positions, control bits, row offsets)`` of an operation."""
    fixed = np.array(sorted(targets + controls), dtype=np.int64)
    value = sum(1 << c for c, v in zip(controls, control_values) if v)
    rows = np.arange(1 << len(targets), dtype=np.int64)
    offsets = np.zeros(rows.size, dtype=np.int64)
    for pos, t in enumerate(targets):  # whole arrays: merged diagonals have 2**14 rows
        offsets |= ((rows >> pos) & 1) << t
    for arr in (fixed, offsets):
        arr.flags.writeable = False
    return fixed, value, offsets


_TWO_ROWS = {
    (a, b): np.array([r for r, changed in enumerate((a, b)) if changed], dtype=np.int64)
    for a in (False, True)
    for b in (False, True)
}
"""The changed rows of a one-qubit diagonal, by which of its two factors differ from one."""
for _rows in _TWO_ROWS.values():
    _rows.flags.writeable = False


def _changed_rows(diag: np.ndarray) -> np.ndarray:
    """Indices of the entries of ``diag`` other than one (read-only); a one-qubit diagonal's
    two factors are read without array calls, microseconds a gate on small states."""
    if diag.size == 2:
        first, second = diag.tolist()
        return _TWO_ROWS[first != 1, second != 1]
    return np.flatnonzero(diag != 1)


@lru_cache(maxsize=1024)
def _cycles(perm: tuple[int, ...], moves_phased: tuple[bool, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Cycle decomposition of ``|j> -> |perm[j]>``: ``(pointers, elements)``; fixed points
    are kept only where their phase is not one (the decomposition of a monomial run's map,
    :func:`~genqsim.backends.numba_diagonal_permutation.series_cycles`)."""
    destination = np.array(perm, dtype=np.int64)
    changed = (destination != np.arange(destination.size)) | np.array(moves_phased, dtype=bool)
    return diagonals.series_cycles(destination, changed)


SPARSE_MAX_FILL = 0.25
"""Matrices of three or more qubits with at most this fraction of nonzeros run as sparse
(a depolarized CX's superoperator: 28 of 256)."""


def _sparse_form(m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(row pointers, columns, values)`` of ``m`` when it is worth running sparse."""
    dim = m.shape[0]
    if dim < 8:
        return None
    rows, cols = np.nonzero(m)
    if rows.size > SPARSE_MAX_FILL * dim * dim:
        return None
    row_ptr = np.searchsorted(rows, np.arange(dim + 1)).astype(np.int64)
    return row_ptr, cols.astype(np.int64), np.ascontiguousarray(m[rows, cols])


PERMUTE_TABLE_COST = 1.0
"""A stretch of consecutive permutations without phases in a block or tile run is applied
as one table of sources (a copy and a gather of the row, about 1 ns per amplitude of the
state on one core here, with the row in L2) where the calls one by one would cost more
(:func:`_swap_cost`)."""


def _swap_cost(call: PermutationCall) -> float:
    """What moving ``call``'s amplitudes costs inside a row, in the units of
    :data:`PERMUTE_TABLE_COST`: the fraction of the row it moves, times 1.2 where its series
    are shorter than 256 amplitudes, else 0.5 (a CX on qubit 0 to 7 costs 0.45-0.7 ns per
    amplitude of the state, one on qubit 8 and above 0.25-0.3, and four CX on qubits 10-13
    ran faster one by one than as a table)."""
    perm = np.asarray(call.permutation)
    moved = np.count_nonzero(perm != np.arange(perm.size)) / perm.size
    return moved * 2.0 ** -len(call.controls) * (1.2 if min(call.qubits) < 8 else 0.5)


def _permutation_stretches(calls: Sequence[GateCallOfRun]) -> dict[int, int]:
    """``{first: end}`` of each stretch of consecutive permutation calls without phases
    that costs more one by one than as a table (:data:`PERMUTE_TABLE_COST`)."""
    stretches: dict[int, int] = {}
    start, cost = 0, 0.0
    for i in range(len(calls) + 1):
        call = calls[i] if i < len(calls) else None
        if isinstance(call, PermutationCall) and (
            call.phases is None or bool(np.all(np.asarray(call.phases) == 1))
        ):
            cost += _swap_cost(call)
            continue
        if i - start > 1 and cost > PERMUTE_TABLE_COST:
            stretches[start] = i
        start, cost = i + 1, 0.0
    return stretches


def _sources(calls: Sequence[GateCallOfRun], row_qubits: int) -> np.ndarray:
    """The table of :func:`~genqsim.backends.numba_block_runs._permute_on_row` for permutation
    ``calls`` on a row of ``row_qubits``: over the patterns of qubits 0 to the highest they
    touch (at least :data:`~.numba_common.MAX_RUN_BITS` of them, so the row is walked in
    long segments), where each new amplitude comes from."""
    highest = max(q for c in calls for q in c.qubits)
    bits = max(highest + 1, min(common.MAX_RUN_BITS, row_qubits))
    destination, _ = monomial_map(cast(Sequence[PermutationCall], calls), 0, bits)
    sources = np.empty_like(destination)
    sources[destination] = np.arange(destination.size)
    return sources


def _splits_with(kind: int, fixed: np.ndarray, index: np.ndarray, data: np.ndarray) -> int:
    """1 where an encoded call is a one-qubit gate with complex entries, which counts
    towards a split row (as the kernels' ``_planar_call`` decides), else 0."""
    if kind != runs.KIND_DENSE or len(fixed) != 1 or len(index) != 2:
        return 0
    return int(np.iscomplexobj(data) and bool(np.any(data.imag != 0)))


def _encode_run(
    calls: Sequence[GateCallOfRun], dtype: np.dtype, row_qubits: int
) -> tuple[tuple[np.ndarray, ...], int]:
    """Flatten a run of calls on a row (block, tile) of ``row_qubits`` into the arrays
    ``apply_block_run`` reads. A stretch of
    permutations (:func:`_permutation_stretches`) is one :data:`~.numba_block_runs.KIND_PERMUTE`
    call at its first position and :data:`~.numba_block_runs.KIND_SKIP` at the others, so
    every call keeps its position (the adjoint sweep's steps and matrix updates use them).
    A run with :data:`~.numba_block_runs.PLANAR_MIN_CALLS` complex one-qubit gates gets
    scratch for its row split in two (``_run_planar``)."""
    stretches = _permutation_stretches(calls)
    skipped = {i for first, end in stretches.items() for i in range(first + 1, end)}
    kinds: list[int] = []
    values: list[int] = []
    fixed: list[np.ndarray] = []
    index: list[np.ndarray] = []
    data: list[np.ndarray] = []
    fixed_ptr, index_ptr, data_ptr = [0], [0], [0]
    max_dim = 1
    planar_work = 0
    for i, call in enumerate(calls):
        fx, value, offsets = _layout(call.targets, call.controls, call.control_values)
        kinds.append(int(call.kind))
        if i in stretches:
            kinds[-1] = runs.KIND_PERMUTE
            idx, dat = _sources(calls[i : stretches[i]], row_qubits), np.zeros(0, dtype=dtype)
            max_dim = max(max_dim, idx.size)
        elif i in skipped:
            kinds[-1] = runs.KIND_SKIP
            idx, dat = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=dtype)
        elif isinstance(call, MatrixCall):
            m = _entries(call.matrix, dtype)
            max_dim = max(max_dim, offsets.size)
            if offsets.size == 2:  # runs as a diagonal's pattern where it is one at the time
                max_dim = max(max_dim, 1 << diagonals.PATTERN_MAX_BITS)
            sparse = _sparse_form(m)
            if sparse is None:
                idx, dat = offsets, m.reshape(-1)
            else:
                row_ptr, cols, dat = sparse
                kinds[-1] = runs.KIND_SPARSE
                max_dim = max(max_dim, offsets.size * dense.SPARSE_LANES)
                idx = np.concatenate([[offsets.size], offsets, row_ptr, cols])
        elif isinstance(call, DiagonalCall):
            diag = _entries(call.diagonal, dtype)
            active = _changed_rows(diag)
            idx, dat = offsets[active], diag[active]
            max_dim = max(max_dim, 1 << diagonals.PATTERN_MAX_BITS)  # a pattern of factors
        else:
            perm, phases = call.permutation, call.phases
            ph = None if phases is None else _entries(phases, dtype)
            moved = tuple(False for _ in perm) if ph is None else tuple(bool(x != 1) for x in ph)
            ptr, elems = _cycles(tuple(int(p) for p in perm), moved)
            if ph is None and elems.size == 2:  # one exchange (X, CX, SWAP): no buffer
                kinds[-1] = runs.KIND_SWAP
                idx, dat = offsets[elems], np.zeros(0, dtype=dtype)
            else:
                max_dim = max(max_dim, 1 << common.MAX_RUN_BITS)  # one run of a cycle, buffered
                idx = np.concatenate([[ptr.size], ptr, offsets[elems]])
                dat = np.ones(elems.size, dtype=dtype) if ph is None else ph[elems]
        values.append(value)
        planar_work += _splits_with(kinds[-1], fx, idx, dat)
        for store, ptrs, part in ((fixed, fixed_ptr, fx), (index, index_ptr, idx),
                                  (data, data_ptr, dat)):  # fmt: skip
            store.append(np.asarray(part))
            ptrs.append(ptrs[-1] + len(part))
    if planar_work >= runs.PLANAR_MIN_CALLS:  # room for the row split, and a pattern's parts
        max_dim = max(max_dim, (1 << row_qubits) + 2 * runs.PLANAR_PATTERN)
    arrays = (
        np.array(kinds, dtype=np.int64),
        np.array(values, dtype=np.int64),
        np.array(fixed_ptr, dtype=np.int64),
        np.concatenate(fixed).astype(np.int64),
        np.array(index_ptr, dtype=np.int64),
        np.concatenate(index).astype(np.int64),
        np.array(data_ptr, dtype=np.int64),
        np.concatenate(data).astype(dtype),
    )
    return arrays, max_dim


def _qubits_of(nbytes: int, dtype: np.dtype) -> int:
    """Qubits of ``nbytes`` (a power of two) of ``dtype`` amplitudes."""
    return nbytes.bit_length() - np.dtype(dtype).itemsize.bit_length()


def _block_bits(dtype: np.dtype) -> int:
    """Qubits of a cache block of :data:`BLOCK_BYTES` of ``dtype`` amplitudes."""
    return _qubits_of(BLOCK_BYTES, dtype)


@cache
def _block_layout(dtype: np.dtype) -> BlockLayout:
    """:meth:`NumbaBackend.block_layout`, built once per dtype (every ``apply`` asks)."""
    bits = _block_bits(dtype)
    tile = _qubits_of(GATHERED_TILE_BYTES, dtype)
    gathered = BlockLayout(
        tile_qubits=tile,
        low_qubits=GATHERED_LOW_QUBITS,
        min_state_qubits=tile + 1,
        min_gathered_work=GATHERED_MIN_WORK,
    )
    return BlockLayout(tile_qubits=bits, low_qubits=bits,
                       min_state_qubits=_blocked_min_qubits(dtype),
                       repeated_whole_state_runs=True,
                       gathered=gathered, min_series_qubits=SERIES_MIN_QUBITS,
                       merged_diagonal_qubits=MERGED_DIAGONAL_QUBITS,
                       merged_diagonal_bands=(diagonals.PATTERN_MAX_BITS, bits))  # fmt: skip


def _blocked_min_qubits(dtype: np.dtype) -> int:
    """Qubits of the smallest state that runs in blocks (:data:`BLOCKED_MIN_BYTES`)."""
    return _qubits_of(BLOCKED_MIN_BYTES, dtype)


@lru_cache(maxsize=1024)
def _tile_series(qubits: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, int]:
    """``(tile qubits, series offsets, series length)`` of a gathered tile: the tile's lowest
    qubits that are the state's lowest make each series of consecutive amplitudes; every
    combination of the others starts one series."""
    low = 0
    while low < len(qubits) and qubits[low] == low:
        low += 1
    high = qubits[low:]
    series = np.zeros(1 << len(high), dtype=np.int64)
    for s in range(series.size):
        for pos, q in enumerate(high):
            if s >> pos & 1:
                series[s] |= 1 << q
    tile = np.array(qubits, dtype=np.int64)
    for arr in (tile, series):
        arr.flags.writeable = False
    return tile, series, 1 << low


def _adjoint_variants(inverses: np.ndarray, generators: np.ndarray) -> np.ndarray:
    """Which sums and which update each adjoint step needs (``inverses`` and ``generators``
    stacked ``(steps, 2, 2)``): diagonal (a diagonal inverse and generator: phases,
    ``Im t00`` and ``Im t11``), real (a real inverse and an imaginary generator: lane by
    lane, the real parts) or general."""
    off = (0, 1), (1, 0)
    diagonal = np.all([(inverses[:, i, j] == 0) & (generators[:, i, j] == 0) for i, j in off],
                      axis=0)  # fmt: skip
    real = ~np.any(inverses.imag, axis=(1, 2)) & ~np.any(generators.real, axis=(1, 2))
    return np.where(
        diagonal, dense.ADJOINT_DIAGONAL, np.where(real, dense.ADJOINT_REAL, dense.ADJOINT_GENERAL)
    ).astype(np.int64)


def _stacked(matrices: Sequence[Any]) -> np.ndarray:
    """2x2 matrices as one ``(count, 2, 2)`` complex array."""
    return np.array(matrices, dtype=np.complex128).reshape(-1, 2, 2)


def _max_threads() -> int:
    """Numba's start-up thread count (``NUMBA_NUM_THREADS``): the most a run may use."""
    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


def _kernels(state: np.ndarray) -> SimpleNamespace:
    """The serial kernels for small states and for one thread, the threaded ones for states
    from the size where this machine's threads pay off (:mod:`.numba_switch`)."""
    if state.size < 1 << PARALLEL_MIN_QUBITS:
        return K.SERIAL
    threads = _scoped.count or numba.get_num_threads()
    if threads == 1 or state.size < 1 << switch.parallel_min_qubits(threads):
        return K.SERIAL
    return K.PARALLEL


class NumbaBackend(
    GenericBackend,
    AdjointSteps,
    BlockRunner,
    MonomialRunner,
    SweepRunner,
    SegmentRunner,
    ShotGroupRunner,
    ThreadScoped,
    KernelCache,
    PauliCoordinates,
    PauliPropagator,
):
    """Compiled kernels for C-contiguous complex64/complex128 NumPy arrays."""

    name = "numba"
    priority = 10
    device = "cpu"

    def __init__(self) -> None:
        self._scratch: dict[tuple[np.dtype, int, str], np.ndarray] = {}

    def supports(self, array: Any) -> bool:
        return (
            isinstance(array, np.ndarray)
            and array.dtype in _DTYPES
            and array.ndim == 1
            and array.flags.c_contiguous
        )

    def _scratch_for(self, dtype: np.dtype, dim: int, use: str = "gate") -> np.ndarray:
        """One row of ``dim`` amplitudes per thread, kept for reuse (per use: gate groups
        and gathered tiles)."""
        key = (dtype, dim, use)
        if key not in self._scratch:
            self._scratch[key] = np.empty((_max_threads(), dim), dtype=dtype)
        return self._scratch[key]

    # -- dynamic circuits -----------------------------------------------------------------------
    def run_shot_groups(
        self,
        program: Any,
        start: np.ndarray,
        shots: int,
        max_pending: int,
        max_iterations: int,
        generator: np.random.Generator,
        control: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """One serial loop over the groups (:mod:`.numba_shots`). A Ctrl-C that reaches
        Python inside Numba's return (as a ``SystemError`` caused by it) is raised as the
        ``KeyboardInterrupt`` it is."""
        try:
            records, counts, status = shot_loop.run_shot_groups(
                program.code, program.ints, program.reals, program.data,
                np.ascontiguousarray(start, dtype=np.complex128), shots, program.record_bits,
                program.n_loops, program.max_targets, program.max_branches, max_pending,
                max_iterations, generator, False, control,
            )  # fmt: skip
        except SystemError as exc:
            if _caused_by_interrupt(exc):
                raise KeyboardInterrupt from None
            raise
        return records, counts, int(status)

    # -- gates ----------------------------------------------------------------------------------
    def apply_matrix(self, state, matrix, targets, controls=(), control_values=()) -> None:
        t, c, v = tuple(targets), tuple(controls), tuple(control_values)
        fixed, value, offsets = _layout(t, c, v)
        m = _entries(matrix, state.dtype)
        k = _kernels(state)
        if len(t) == 1:
            k.apply_1q(state, m, t[0], fixed, value)
        elif len(t) == 2:
            k.apply_2q(state, m, t[0], t[1], fixed, value)
        else:
            sparse = _sparse_form(m)
            if sparse is None:
                scratch = self._scratch_for(state.dtype, offsets.size)
                k.apply_kq(state, m, offsets, fixed, value, scratch)
            else:
                scratch = self._scratch_for(state.dtype, offsets.size * dense.SPARSE_LANES)
                k.apply_sparse_kq(state, *sparse, offsets, fixed, value, scratch)

    def adjoint_step_1q(
        self, psi, lam, inverse, generator, target, controls=(), control_values=()
    ) -> float:
        c, v = tuple(controls), tuple(control_values)
        fixed, value, _ = _layout((int(target),), c, v)
        m = _entries(inverse, psi.dtype)
        variant = int(_adjoint_variants(_stacked([m]), _stacked([generator]))[0])
        sums = _kernels(psi).adjoint_step_1q(psi, lam, m, int(target), fixed, value, variant)
        return float(np.sum(np.asarray(generator) * np.array(sums).reshape(2, 2)).imag)

    def adjoint_block_run(
        self, psi: np.ndarray, lam: np.ndarray, run: BlockRun, generators: Sequence[Any]
    ) -> np.ndarray:
        """Contiguous blocks of both states in place; tiles on other qubits gathered per
        thread, two rows each."""
        arrays, max_dim = self._encoded(run, psi.dtype)
        steps = tuple(g for g, generator in enumerate(generators) if generator is not None)
        slots, where = self._gradient_slots(run, psi.dtype, steps)
        owners = _stacked([generators[g] for g in steps])
        variants = np.full(len(generators), dense.ADJOINT_GENERAL, dtype=np.int64)
        variants[list(steps)] = _adjoint_variants(arrays[7][where].reshape(-1, 2, 2), owners)
        sums = np.zeros((_max_threads(), max(1, len(steps)), 8))
        scratch = self._scratch_for(psi.dtype, max_dim)
        k = _kernels(psi)
        if run.contiguous:
            size = np.int64(1) << run.block_qubits
            k.adjoint_block_run(psi, lam, size, slots, variants, *arrays, scratch, sums)
        else:
            tile_qubits, series, series_size = _tile_series(run.qubits)
            prows = self._scratch_for(psi.dtype, 1 << run.block_qubits, "tile")
            lrows = self._scratch_for(psi.dtype, 1 << run.block_qubits, "second tile")
            k.adjoint_tile_run(psi, lam, tile_qubits, series, series_size, slots, variants,
                               *arrays, scratch, prows, lrows, sums)  # fmt: skip
        total = sums.sum(axis=0)[: len(steps)]
        t = (total[:, 0::2] + 1j * total[:, 1::2]).reshape(-1, 2, 2)
        return np.einsum("gab,gab->g", owners, t).imag

    def _gradient_slots(
        self, run: BlockRun, dtype: np.dtype, steps: tuple[int, ...]
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(slots, where)`` for the gradient steps at positions ``steps`` of ``run``: each
        call's slot in the sums (``-1``: none) and the indices of the steps' 2x2 entries in
        the encoded data (kept on the run)."""
        key = ("gradient slots", dtype, steps)
        if key not in run.encoded:
            slots = np.full(len(run.calls), -1, dtype=np.int64)
            slots[list(steps)] = np.arange(len(steps))
            run.encoded[key] = slots, self._matrix_entries(run, dtype, steps, 4)
        return run.encoded[key]

    def _matrix_entries(
        self, run: BlockRun, dtype: np.dtype, positions: tuple[int, ...], size: int
    ) -> np.ndarray:
        """Indices of the ``size`` entries of the dense calls at ``positions`` in the run's
        encoded data, in order."""
        arrays, _ = self._encoded(run, dtype)
        at = np.array(positions, dtype=np.int64)
        if np.any(arrays[0][at] != runs.KIND_DENSE) or np.any(np.diff(arrays[6])[at] != size):
            raise ValueError(f"calls {positions} of {run!r} are not dense with {size} entries")
        return (arrays[6][at][:, None] + np.arange(size)).reshape(-1)

    def update_run_matrices(self, run: BlockRun, positions: Any, matrices: Any) -> None:
        """Writes the entries over the old ones in each of the run's encodings (one per
        dtype); a run not encoded yet reads its calls' matrices when it is."""
        m = np.asarray(matrices)
        at = tuple(int(p) for p in positions)
        if not at:
            return
        for dtype in [key for key in run.encoded if isinstance(key, np.dtype)]:
            key = ("matrix entries", dtype, at)
            if key not in run.encoded:
                run.encoded[key] = self._matrix_entries(run, dtype, at, m[0].size)
            run.encoded[dtype][0][7][run.encoded[key]] = _entries(m, dtype).reshape(-1)

    def apply_diagonal(self, state, diagonal, targets, controls=(), control_values=()) -> None:
        t, c, v = tuple(targets), tuple(controls), tuple(control_values)
        diag = _entries(diagonal, state.dtype)
        active = _changed_rows(diag)
        if active.size == 0:
            return
        fixed, value, offsets = _layout(t, c, v)
        k = _kernels(state)
        if len(t) == 1 and active.size == 1 and active[0] == 1:
            pattern = phase_rewrite.pattern_for(state, diag[1], t[0], fixed)
            k.apply_phase_1q(state, diag[1], t[0], fixed, value, pattern)
        elif active.size == diag.size:
            k.apply_diagonal(state, diag, offsets, fixed, value)
        else:
            k.apply_diagonal(
                state, np.ascontiguousarray(diag[active]), offsets[active], fixed, value
            )

    def apply_permutation(
        self, state, permutation, phases, targets, controls=(), control_values=()
    ) -> None:
        t, c, v = tuple(targets), tuple(controls), tuple(control_values)
        if phases is None and len(t) == 1:  # X, CX, CCX: one exchange, or none
            if int(permutation[0]) == 1:
                fixed, value, offsets = _layout(t, c, v)
                _kernels(state).swap_pairs(state, offsets[0], offsets[1], fixed, value)
            return
        perm = tuple(int(p) for p in permutation)
        ph = None if phases is None else _entries(phases, state.dtype)
        phased = tuple(False for _ in perm) if ph is None else tuple(bool(x != 1) for x in ph)
        ptr, elems = _cycles(perm, phased)
        if elems.size == 0:
            return
        fixed, value, offsets = _layout(t, c, v)
        k = _kernels(state)
        if ph is None and elems.size == 2:  # one exchange (X, CX, SWAP), as in _encode_run
            k.swap_pairs(state, offsets[elems[0]], offsets[elems[1]], fixed, value)
        else:
            cycle_phases = (
                np.ones(elems.size, dtype=state.dtype) if ph is None else ph[elems].copy()
            )
            k.apply_cycles(state, ptr, offsets[elems], cycle_phases, fixed, value)

    # -- cache-blocked runs ---------------------------------------------------------------------
    def block_layout(self, dtype: np.dtype) -> BlockLayout:
        """Contiguous cache blocks of :data:`BLOCK_BYTES`, on states of at least
        :data:`BLOCKED_MIN_BYTES`; the gates they leave out, on high qubits, then go into
        gathered tiles of :data:`GATHERED_TILE_BYTES` read in series of
        :data:`GATHERED_LOW_QUBITS`, where a run pays for its gather
        (:data:`GATHERED_MIN_WORK`); consecutive diagonals merged first
        (:data:`MERGED_DIAGONAL_QUBITS`)."""
        return _block_layout(np.dtype(dtype))

    def tile_layout(self, dtype: np.dtype) -> BlockLayout:
        """Gathered tiles of :data:`TILE_BYTES`: series of 16 consecutive amplitudes (the
        lowest four qubits) times any ten other qubits, on states of at least two tiles."""
        bits = _qubits_of(TILE_BYTES, dtype)
        return BlockLayout(tile_qubits=bits, low_qubits=TILE_LOW_QUBITS, min_state_qubits=bits + 1)

    @staticmethod
    def _encoded(run: BlockRun, dtype: np.dtype) -> tuple[tuple[np.ndarray, ...], int]:
        """The run's arrays for ``dtype`` (encoded once, kept on the run)."""
        if dtype not in run.encoded:
            run.encoded[dtype] = _encode_run(run.local_calls, dtype, run.block_qubits)
        return run.encoded[dtype]

    def apply_block_run(self, state: np.ndarray, run: BlockRun) -> None:
        """Contiguous blocks run in place; tiles on other qubits are gathered per thread."""
        arrays, max_dim = self._encoded(run, state.dtype)
        scratch = self._scratch_for(state.dtype, max_dim)
        k = _kernels(state)
        if run.contiguous:
            k.apply_block_run(state, np.int64(1) << run.block_qubits, *arrays, scratch)
            return
        tile_qubits, series, series_size = _tile_series(run.qubits)
        tiles = self._scratch_for(state.dtype, 1 << run.block_qubits, "tile")
        k.apply_tile_run(state, tile_qubits, series, series_size, *arrays, scratch, tiles)

    # -- parameter sweeps -----------------------------------------------------------------------
    def sweep_layout(
        self, run: BlockRun, dtype: np.dtype, positions: Sequence[int]
    ) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
        """The run's encoded numbers and where the calls at ``positions`` keep theirs: a
        dense call all its entries, a sparse one its nonzeros (in ``np.nonzero`` order), a
        diagonal the entries other than one."""
        dtype = np.dtype(dtype)
        arrays, _ = self._encoded(run, dtype)
        kinds, data_ptr, data = arrays[0], arrays[6], arrays[7]
        places = []
        for g in positions:
            call = run.local_calls[g]
            where = np.arange(data_ptr[g], data_ptr[g + 1], dtype=np.int64)
            if kinds[g] == runs.KIND_DENSE:
                entries = np.arange(where.size, dtype=np.int64)
            elif kinds[g] == runs.KIND_SPARSE:
                matrix = _entries(call.data, dtype)
                rows, cols = np.nonzero(matrix)
                entries = rows * matrix.shape[1] + cols
            elif kinds[g] == runs.KIND_DIAGONAL:
                entries = np.flatnonzero(_entries(call.data, dtype) != 1)
            else:
                raise ValueError(f"call {g} of {run!r} has no numbers a sweep can change")
            if entries.size != where.size:
                raise ValueError(f"call {g} of {run!r} is not encoded from its data")
            places.append((where, entries.astype(np.int64)))
        return data.copy(), places

    def pauli_strings_points(
        self, states: np.ndarray, x_masks: np.ndarray, z_masks: np.ndarray
    ) -> np.ndarray:
        """One compiled pass over each point's state per string, the threads taking the
        points."""
        found = np.zeros((states.shape[0], len(x_masks)), dtype=np.complex128)
        k = _kernels(states.reshape(-1)) if states.shape[0] > 1 else K.SERIAL
        k.pauli_strings_points(states, np.ascontiguousarray(x_masks, dtype=np.int64),
                               np.ascontiguousarray(z_masks, dtype=np.int64), found)  # fmt: skip
        return found

    def adjoint_block_run_points(
        self,
        psi: np.ndarray,
        lam: np.ndarray,
        run: BlockRun,
        generators: Sequence[Any],
        data: np.ndarray,
    ) -> np.ndarray:
        """:meth:`adjoint_block_run` on rows of whole states, each with its numbers."""
        arrays, max_dim = self._encoded(run, psi.dtype)
        steps = tuple(g for g, generator in enumerate(generators) if generator is not None)
        slots, where = self._gradient_slots(run, psi.dtype, steps)
        owners = _stacked([generators[g] for g in steps])
        points = psi.shape[0]
        variants = np.full((points, len(generators)), dense.ADJOINT_GENERAL, dtype=np.int64)
        inverses = data[:, where].reshape(points * len(steps), 2, 2)
        stacked_owners = np.broadcast_to(owners, (points, *owners.shape)).reshape(-1, 2, 2)
        variants[:, list(steps)] = _adjoint_variants(inverses, stacked_owners).reshape(points, -1)
        sums = np.zeros((points, max(1, len(steps)), 8))
        scratch = self._scratch_for(psi.dtype, max_dim)
        k = _kernels(psi.reshape(-1)) if points > 1 else K.SERIAL
        k.adjoint_block_run_points(psi, lam, slots, variants, *arrays[:7],
                                   np.ascontiguousarray(data), scratch, sums)  # fmt: skip
        total = sums[:, : len(steps)]
        t = (total[..., 0::2] + 1j * total[..., 1::2]).reshape(points, -1, 2, 2)
        return np.einsum("gab,pgab->pg", owners, t).imag

    def closed_form_numbers(
        self,
        values: np.ndarray,
        extra: np.ndarray,
        columns: np.ndarray,
        rates: tuple[np.ndarray, np.ndarray],
        entries: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        data: np.ndarray,
    ) -> None:
        """One compiled call for every closed-form gate at every point, the threads taking
        the points where there are enough of them."""
        slot_of_entry, d0, d1, where = entries
        k = _kernels(data.reshape(-1)) if data.shape[0] > 1 else K.SERIAL
        k.closed_form_numbers(values, extra, columns, *rates, slot_of_entry, d0, d1, where, data)

    def apply_block_run_points(self, states: np.ndarray, run: BlockRun, data: np.ndarray) -> None:
        """Every row of ``states`` in one call: the threads take the points (each state
        whole on one thread), as many as pay off for the points' amplitudes together."""
        if states.ndim != 2 or states.shape[1] != 1 << run.block_qubits or not run.contiguous:
            raise QubitCountMismatchError(
                f"{run!r} runs whole states of {run.block_qubits} qubits, not rows of "
                f"{states.shape}"
            )
        arrays, max_dim = self._encoded(run, states.dtype)
        if data.shape != (states.shape[0], arrays[7].size):
            raise ValueError(f"sweep numbers of shape {data.shape} do not fit {run!r}")
        scratch = self._scratch_for(states.dtype, max_dim)
        k = _kernels(states.reshape(-1)) if states.shape[0] > 1 else K.SERIAL
        k.apply_block_run_points(states, *arrays[:7], np.ascontiguousarray(data), scratch)

    # -- segments of a run -----------------------------------------------------------------------
    def _segment_arrays(
        self, rows: np.ndarray, run: BlockRun, *cuts: np.ndarray
    ) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
        """The run's encoding for ``rows`` and the scratch its calls need, after checking
        that no cut falls inside a stretch of permutations encoded as one table (the
        stretch would run whole from its first call)."""
        arrays, max_dim = self._encoded(run, rows.dtype)
        kinds = arrays[0]
        for cut in cuts:
            inside = cut[cut < kinds.size]
            if np.any(kinds[inside] == runs.KIND_SKIP):
                raise ValueError(
                    f"segment bounds {cut.tolist()} cut a permutation table of {run!r}"
                )
        return arrays, self._scratch_for(rows.dtype, max_dim)

    def _snapshots(
        self,
        row: np.ndarray,
        run: BlockRun,
        bounds: np.ndarray,
        out: np.ndarray,
        where: np.ndarray,
        marks: np.ndarray,
    ) -> None:
        """One kernel call on the calling thread: the row stays in cache throughout."""
        arrays, scratch = self._segment_arrays(row, run, bounds, marks)
        K.SERIAL.run_segment_snapshots(row, bounds, out, where, marks, *arrays, scratch)

    def _reads(
        self,
        rows: np.ndarray,
        run: BlockRun,
        bounds: np.ndarray,
        starts: np.ndarray,
        readers: np.ndarray,
    ) -> np.ndarray:
        """One kernel call: each group of rows on one thread for all its segments, in cache."""
        arrays, scratch = self._segment_arrays(rows, run, bounds)
        reads = np.zeros((rows.shape[0], readers.shape[0]))
        k = _kernels(rows.reshape(-1)) if rows.shape[0] > 1 else K.SERIAL
        k.run_segment_reads(rows, bounds, starts, readers, reads, *arrays, scratch)
        return reads

    # -- monomial runs --------------------------------------------------------------------------
    def apply_monomial_run(self, state: np.ndarray, run: MonomialRun) -> None:
        """Move the series the run changes along the cycles of its map, in one pass."""
        if state.size != 1 << run.n_qubits:
            raise QubitCountMismatchError(
                f"a monomial run planned for {run.n_qubits} qubits cannot run on a state of "
                f"{state.size} amplitudes"
            )
        if state.dtype not in run.encoded:
            ptr, series = diagonals.series_cycles(run.destination, run.changed)
            phases = np.ones(series.size) if run.phases is None else run.phases[series]
            run.encoded[state.dtype] = (ptr, series, np.ascontiguousarray(phases, state.dtype))
        ptr, series, phases = run.encoded[state.dtype]
        if series.size == 0:
            return
        size = 1 << run.series_qubits
        piece = min(size, SERIES_PIECE)
        scratch = self._scratch_for(state.dtype, piece, "series")
        _kernels(state).move_series(state, size, piece, ptr, series, phases, scratch)

    # -- Pauli coordinates ----------------------------------------------------------------------
    def to_pauli_coordinates(self, vec: np.ndarray, n_qubits: int) -> np.ndarray | None:
        """``vec(rho)`` in place as the real Pauli coordinates of ``rho`` (see
        :mod:`genqsim.states.pauli_basis`), packed into the first half of ``vec``'s memory:
        the returned real view is valid until :meth:`from_pauli_coordinates`. Rows are
        XOR-shuffled (``rho[b, b ^ x]``), Walsh-Hadamard transformed over the row index in
        cache-sized stages, then phased and packed. ``None`` (and ``vec`` unchanged, up to
        rounding) where ``rho`` is not Hermitian: its coordinates are not real."""
        self._xor_shuffle(vec, n_qubits)
        self._hadamard_rows(vec, n_qubits)
        floats = common.reals_view(vec)
        residual = np.empty((1 << n_qubits, 2), dtype=floats.dtype)
        _kernels(vec).pauli_residual(floats, n_qubits, residual)
        dropped, kept = residual.max(axis=0)
        if dropped > PAULI_HERMITIAN_TOLERANCE * np.finfo(floats.dtype).eps * max(kept, 1e-300):
            self._hadamard_rows(vec, n_qubits)
            self._xor_shuffle(vec, n_qubits)
            return None
        pauli_basis.pack_pauli_coordinates(floats, n_qubits)
        return floats[: vec.size]

    def from_pauli_coordinates(self, vec: np.ndarray, n_qubits: int) -> None:
        """Undo :meth:`to_pauli_coordinates`: ``vec`` holds ``vec(rho)`` again."""
        pauli_basis.unpack_pauli_coordinates(common.reals_view(vec), n_qubits)
        self._hadamard_rows(vec, n_qubits)
        self._xor_shuffle(vec, n_qubits)

    def _xor_shuffle(self, vec: np.ndarray, n: int) -> None:
        _kernels(vec).xor_shuffle_rows(vec, n, self._scratch_for(vec.dtype, 1 << n, "row"))

    def _hadamard_rows(self, vec: np.ndarray, n: int) -> None:
        """Stages of at most :data:`HADAMARD_STAGE_BITS` row bits, each one pass."""
        kernels = _kernels(vec)
        floats = common.reals_view(vec)
        low = 0
        while low < n:
            k = min(HADAMARD_STAGE_BITS, n - low)
            width = min(1 << n, HADAMARD_CHUNK >> k)
            scratch = self._scratch_for(floats.dtype, 2 * width << k, "hadamard")
            kernels.hadamard_rows(floats, n, low, k, width, scratch)
            low += k

    # -- threads --------------------------------------------------------------------------------
    # -- packed Pauli strings (the Heisenberg picture) -------------------------------------------
    @staticmethod
    def _positions(qubits: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        q = np.asarray(qubits, dtype=np.int64)
        return q // 64, q % 64

    def pauli_local_codes(self, strings: np.ndarray, qubits: Sequence[int]) -> np.ndarray:
        return pauli_strings.local_codes(strings, *self._positions(qubits))

    def pauli_apply_table(self, strings, coefficients, codes, qubits, table):
        return pauli_strings.apply_table(
            strings, coefficients, codes, *self._positions(qubits), *table
        )

    def pauli_merge(self, strings, coefficients):
        return pauli_strings.merge(strings, coefficients)

    def pauli_truncate(self, strings, coefficients, min_abs, max_weight):
        out, out_c, dropped, count = pauli_strings.truncate(
            strings, coefficients, float(min_abs), int(max_weight)
        )
        return out, out_c, float(dropped), int(count)

    def pauli_diagonal_value(self, strings, coefficients, bits):
        words = strings.shape[1] // 2
        full = (1 << 64) - 1
        packed = np.array([bits >> (64 * i) & full for i in range(words)], dtype=np.uint64)
        return float(pauli_strings.diagonal_value(strings, coefficients, packed))

    def max_threads(self) -> int:
        return _max_threads()

    def default_threads(self) -> int:
        """The calling thread's thread count for runs that set none (:func:`get_num_threads`)."""
        return get_num_threads()

    def set_default_threads(self, count: int) -> None:
        """The calling thread's thread count for runs that set none (validated first)."""
        set_num_threads(count)

    def kernels_compiled(self, numbers: NumberSystem) -> bool:
        """Whether a run or ``genqsim warmup`` in ``numbers`` completed here since the
        kernel sources last changed (:func:`~backends.numba_cache.compiled_marker`)."""
        return numba_cache.kernels_compiled(str(numbers.dtype))

    def mark_kernels_compiled(self, numbers: NumberSystem) -> None:
        numba_cache.mark_kernels_compiled(str(numbers.dtype))

    def compile_progress(
        self, report: Callable[[int], None]
    ) -> contextlib.AbstractContextManager[None]:
        return common.compile_progress(report)

    def kernel_choices(self) -> list[str]:
        """The serial/threaded switch per thread count and how one-qubit phases run, as
        measured here (or as set)."""
        fixed = os.environ.get("GENQSIM_PARALLEL_MIN_QUBITS")
        if fixed:
            lines = [f"threaded kernels from {fixed} qubits (GENQSIM_PARALLEL_MIN_QUBITS)"]
        else:
            lines = [
                f"{threads} threads: threaded kernels from {qubits} qubits (measured here)"
                for threads, qubits in sorted(switch.known_switches().items())
            ]
            if not lines:
                lines = (
                    ["1 thread: serial kernels at every size"]
                    if get_num_threads() == 1
                    else ["serial/threaded switch not measured yet ('genqsim warmup' does)"]
                )
        return [*lines, phase_rewrite.known_choice()]

    def warmup_qubits(self) -> tuple[int, ...]:
        """One size below the smallest serial/threaded switch there can be, and one at or
        above the largest (the setting of ``GENQSIM_PARALLEL_MIN_QUBITS``, else just past
        the sizes measured): both builds run whatever is measured here, and nothing needs
        measuring first."""
        return (PARALLEL_MIN_QUBITS - 1, max(PARALLEL_MIN_QUBITS, switch.largest_switch()))

    def calibrate(self) -> None:
        """Measure how one-qubit phases run here and, for the default thread count, the
        serial/threaded switch (or read them back)."""
        phase_rewrite.rewrite_run_bytes()
        threads = get_num_threads()
        if threads > 1:
            switch.parallel_min_qubits(threads)

    def choices_deferred(self) -> contextlib.AbstractContextManager[None]:
        return switch.deferred()

    def threads(self, count: int | None) -> contextlib.AbstractContextManager[None]:
        """Run this thread's kernels on ``count`` threads, or with ``None`` on the calling
        thread's default (:func:`get_num_threads`: the CPUs this process may use, not the
        machine's). Numba's setting is per thread, so other threads are unaffected. Where
        Numba already runs that many, nothing is set (entered around every ``apply``: a few
        microseconds that show on small states)."""
        if count is not None:
            check_thread_count(count)
        wanted = get_num_threads() if count is None else int(count)
        saved = numba.get_num_threads()
        return _ThreadScope(wanted, saved)

    # -- reductions -----------------------------------------------------------------------------
    def probabilities(self, state, qubits, numbers):
        real = np.finfo(state.dtype).dtype
        k = _kernels(state)
        if qubits is None:
            out = np.empty(state.size, dtype=real)
            k.probabilities_full(state, out)
            return out
        partial = np.zeros((_max_threads(), 1 << len(qubits)))
        k.probabilities_marginal(state, np.array(qubits, dtype=np.int64), partial)
        return partial.sum(axis=0).astype(real)

    def inner(self, a, b, numbers):
        if not (self.supports(a) and self.supports(b) and a.dtype == b.dtype):
            return super().inner(a, b, numbers)
        return _kernels(a).inner(a, b)

    def norm_squared(self, state, numbers):
        return float(_kernels(state).norm_squared(state))

    def pauli_transition(self, bra, ket, x_mask, z_mask, numbers, controls=(), control_values=()):
        if not (self.supports(bra) and self.supports(ket) and bra.dtype == ket.dtype):
            return super().pauli_transition(
                bra, ket, x_mask, z_mask, numbers, controls, control_values
            )
        order = sorted(range(len(controls)), key=lambda i: controls[i])
        fixed = np.array([controls[i] for i in order], dtype=np.int64)
        fixed_value = sum(int(v) << int(c) for c, v in zip(controls, control_values))
        return _kernels(ket).transition_xz(
            bra, ket, np.int64(x_mask), np.int64(z_mask), fixed, np.int64(fixed_value)
        )


def check_thread_count(n: Any) -> None:
    """Refuse a thread count outside ``1..NUMBA_NUM_THREADS`` (numba's start-up setting)."""
    from ..errors import ThreadCountError

    limit = _max_threads()
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= limit:
        raise ThreadCountError(
            f"thread count must be an integer in 1..{limit} (NUMBA_NUM_THREADS), got {n!r}"
        )


class _ChosenCount(threading.local):
    """The thread count :func:`set_num_threads` set on each thread (``None``: the default;
    a class attribute, so reading it on a thread that set none raises nothing)."""

    count: int | None = None


_chosen = _ChosenCount()


def set_num_threads(n: int) -> None:
    """The default thread count for large states on the calling thread (at most
    ``NUMBA_NUM_THREADS``); a state's own ``threads=`` option overrides it for its runs."""
    check_thread_count(n)
    _chosen.count = int(n)
    numba.set_num_threads(int(n))


class _ScopedCount(threading.local):
    """The thread count of the :meth:`NumbaBackend.threads` scope the calling thread is in
    (``None``: outside any), which every kernel launch reads to choose serial or threaded
    kernels instead of asking Numba (``numba.get_num_threads`` takes two locks: about a
    microsecond a gate, which shows on small states)."""

    count: int | None = None


_scoped = _ScopedCount()


class _ThreadScope:
    """Numba's thread count of the calling thread set to ``wanted`` (where it differs from
    ``saved``) and the scope's count recorded, both put back on leaving."""

    __slots__ = ("outer", "saved", "wanted")

    def __init__(self, wanted: int, saved: int) -> None:
        self.wanted, self.saved = wanted, saved
        self.outer: int | None = None

    def __enter__(self) -> None:
        if self.wanted != self.saved:
            numba.set_num_threads(self.wanted)
        self.outer, _scoped.count = _scoped.count, self.wanted

    def __exit__(self, *exc: object) -> None:
        _scoped.count = self.outer
        if self.wanted != self.saved:
            numba.set_num_threads(self.saved)


def get_num_threads() -> int:
    """The calling thread's default: what :func:`set_num_threads` set on it, else
    :func:`default_thread_count`."""
    return _chosen.count or default_thread_count()


@cache
def default_thread_count() -> int:
    """Threads for runs that ask for no count: ``NUMBA_NUM_THREADS`` where the environment
    sets it, else the CPUs this process may use (its affinity and cgroup quota:
    :func:`~genqsim.support.cpus.usable_cpus`), which on a shared node, in a container or
    a CI runner is fewer than the machine's count Numba starts with."""
    if os.environ.get("NUMBA_NUM_THREADS"):
        return _max_threads()
    return max(1, min(usable_cpus(), _max_threads()))
