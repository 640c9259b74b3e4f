"""Segment runs (the exact Hessian's sweeps, ``SegmentRunner``): the Numba kernels against
the reference on the generic routine's primitives, on random runs cut after random one-qubit
gates, one row and many, serial and threaded; the reads against dot products of rows run
call by call; bad arguments refused before any kernel runs. A dense one-qubit call whose
matrix is diagonal (a Z rotation of a planned sweep) runs as a diagonal inside block runs:
checked against the generic routine there too."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim.backends import ReferenceSegmentRunner
from genqsim.errors import NumberTypeError, QubitCountMismatchError
from genqsim.plan.calls import BlockRun, DiagonalCall, MatrixCall, PermutationCall

from reference import random_state, random_unitary

pytest.importorskip("numba")

NUMBA = gq.get_backend("numba")
GENERIC = gq.get_backend("numpy")
REFERENCE = ReferenceSegmentRunner(GENERIC)


def _one_qubit(rng: np.random.Generator, kind: str) -> np.ndarray:
    """A 2x2 matrix: a general unitary, a real rotation, or a diagonal (a Z rotation)."""
    if kind == "diagonal":
        return np.diag(np.exp(1j * rng.normal(size=2)))
    if kind == "real":
        a = rng.normal()
        return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], dtype=complex)
    return random_unitary(2, rng)


def _piece(rng: np.random.Generator, n: int, extra: int) -> list:
    """``extra`` random calls (two-qubit matrices, diagonals, exchanges in stretches: a
    permutation table when encoded), then a one-qubit gate that ends the piece, under a
    control or not."""
    calls: list = []
    for _ in range(extra):
        a, b = (int(q) for q in rng.choice(n, 2, replace=False))
        roll = rng.integers(4)
        if roll == 0:
            calls.append(MatrixCall(random_unitary(4, rng), (a, b)))
        elif roll == 1:
            calls.append(DiagonalCall(np.exp(1j * rng.normal(size=4)), (a, b)))
        else:  # CX and SWAP: consecutive ones are encoded as one table
            perm = (0, 1, 3, 2) if roll == 2 else (0, 2, 1, 3)
            calls.append(PermutationCall(perm, None, (a, b)))
    target = int(rng.integers(n))
    kind = ("general", "real", "diagonal")[int(rng.integers(3))]
    controls = () if rng.integers(2) else ((target + 1) % n,)
    values = tuple(int(v) for v in rng.integers(0, 2, size=len(controls)))
    calls.append(MatrixCall(_one_qubit(rng, kind), (target,), controls, values))
    return calls


def _segmented(rng: np.random.Generator, n: int, segments: int, transforms: int):
    """A run of ``segments`` pieces, then ``transforms`` one-call transforms; its bounds
    and marks."""
    calls: list = []
    bounds = [0]
    for _ in range(segments):
        calls += _piece(rng, n, int(rng.integers(0, 4)))
        bounds.append(len(calls))
    marks = [len(calls)]
    for _ in range(transforms):
        target = int(rng.integers(n))
        calls.append(MatrixCall(-1j * _one_qubit(rng, "general"), (target,)))
        marks.append(len(calls))
    return BlockRun(calls, n), np.array(bounds), np.array(marks)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 9), st.integers(1, 7), st.integers(0, 2**31))
def test_snapshots_match_the_reference(n, segments, seed):
    """A row through every segment, copies after some of them transformed: the kernel
    and the reference agree, and the row ends as the whole run applied call by call."""
    rng = np.random.default_rng(seed)
    run, bounds, marks = _segmented(rng, n, segments, segments)
    copies = int(rng.integers(0, segments + 1))
    where = rng.permutation(segments)[:copies]
    psi = random_state(n, rng)
    got_row, want_row = psi.copy(), psi.copy()
    got = np.zeros((segments, 2**n), dtype=complex)
    want = got.copy()
    NUMBA.run_segment_snapshots(got_row, run, bounds, got, where, marks)
    REFERENCE.run_segment_snapshots(want_row, run, bounds, want, where, marks)
    np.testing.assert_allclose(got_row, want_row, atol=1e-12, rtol=0)
    np.testing.assert_allclose(got, want, atol=1e-12, rtol=0)
    whole = psi.copy()
    for call in run.calls[: bounds[-1]]:
        call.run(GENERIC, whole)
    np.testing.assert_allclose(got_row, whole, atol=1e-12, rtol=0)


def _reads_by_hand(rows, run, bounds, starts, readers):
    """Each row run call by call from its start, read after every segment with a reader."""
    reads = np.zeros((rows.shape[0], readers.shape[0]))
    finals = rows.copy()
    for p, row in enumerate(finals):
        for s in range(starts[p], len(bounds) - 1):
            if s > starts[p]:
                for call in run.calls[bounds[s] : bounds[s + 1]]:
                    call.run(GENERIC, row)
            if 0 <= s < readers.shape[0]:
                reads[p, s] = np.vdot(readers[s], row).real
    return reads, finals


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 9),
    st.integers(1, 8),
    st.integers(1, 11),
    st.booleans(),
    st.integers(0, 2**31),
)
def test_reads_match_the_reference_and_rows_run_by_hand(n, segments, count, all_read, seed):
    """Rows starting at ascending segments (-1: before the first), read against fewer or
    as many readers as segments: kernel, reference and a row-by-row computation agree."""
    rng = np.random.default_rng(seed)
    run, bounds, _ = _segmented(rng, n, segments, 0)
    starts = np.sort(rng.integers(-1, segments, size=count))
    rows = np.array([random_state(n, rng) for _ in range(count)])
    n_readers = segments if all_read else int(rng.integers(0, segments + 1))
    readers = np.array([random_state(n, rng) for _ in range(n_readers)], dtype=complex)
    readers = readers.reshape(-1, 2**n)
    got_rows, want_rows = rows.copy(), rows.copy()
    got = NUMBA.run_segment_reads(got_rows, run, bounds, starts, readers)
    want = REFERENCE.run_segment_reads(want_rows, run, bounds, starts, readers)
    by_hand, finals = _reads_by_hand(rows, run, bounds, starts, readers)
    np.testing.assert_allclose(got, by_hand, atol=1e-12, rtol=0)
    np.testing.assert_allclose(want, by_hand, atol=1e-12, rtol=0)
    np.testing.assert_allclose(got_rows, finals, atol=1e-12, rtol=0)
    np.testing.assert_allclose(want_rows, finals, atol=1e-12, rtol=0)


@pytest.mark.parametrize("threads", [1, 2])
def test_reads_on_threads_match_one_thread(threads):
    """Rows together above the size where threads take over: groups of rows on two threads
    give the reads and rows of the serial kernel."""
    from genqsim.backends.numba_switch import parallel_min_qubits

    n = 10
    count = max(2, (2 << parallel_min_qubits(2)) >> n)  # above the threaded builds' size
    rng = np.random.default_rng(count)
    run, bounds, _ = _segmented(rng, n, 12, 0)
    starts = np.sort(rng.integers(-1, 12, size=count))
    rows = np.array([random_state(n, rng) for _ in range(count)])
    readers = np.array([random_state(n, rng) for _ in range(12)])
    want, finals = _reads_by_hand(rows, run, bounds, starts, readers)
    with NUMBA.threads(min(threads, NUMBA.max_threads())):
        got = NUMBA.run_segment_reads(rows, run, bounds, starts, readers)
    np.testing.assert_allclose(got, want, atol=1e-12, rtol=0)
    np.testing.assert_allclose(rows, finals, atol=1e-12, rtol=0)


@pytest.mark.parametrize("runner", [NUMBA, REFERENCE], ids=["numba", "reference"])
def test_bad_arguments_are_refused_and_leave_the_rows_alone(runner):
    """Rows of another size or type, bounds that leave the run or descend, starts out of
    order or range, copies to rows that do not exist: typed errors naming the problem,
    raised before anything runs."""
    rng = np.random.default_rng(3)
    n = 4
    run, bounds, marks = _segmented(rng, n, 3, 3)
    rows = np.array([random_state(n, rng) for _ in range(3)])
    readers = rows.copy()
    kept = rows.copy()
    starts = np.array([-1, 0, 2])
    cases = [
        (QubitCountMismatchError, "amplitudes", (rows[:, :8].copy(), bounds, starts, readers)),
        (NumberTypeError, "complex128", (rows.astype(np.complex64), bounds, starts, readers)),
        (ValueError, "leave", (rows, bounds + 100, starts, readers)),
        (ValueError, "ascending", (rows, bounds[::-1].copy(), starts, readers)),
        (ValueError, "one per row", (rows, bounds, starts[::-1].copy(), readers)),
        (ValueError, "outside segments", (rows, bounds, np.array([-1, 0, 3]), readers)),
        (QubitCountMismatchError, "amplitudes", (rows, bounds, starts, readers[:, :8].copy())),
    ]
    for error, words, (r, b, s, rd) in cases:
        with pytest.raises(error, match=words):
            runner.run_segment_reads(r, run, b, s, rd)
    np.testing.assert_array_equal(rows, kept)
    out = np.zeros((2, 2**n), dtype=complex)
    row = rows[0].copy()
    with pytest.raises(ValueError, match="copies to rows"):
        runner.run_segment_snapshots(row, run, bounds, out, np.array([0, 2]), marks)
    with pytest.raises(ValueError, match="a segment and a transform"):
        runner.run_segment_snapshots(row, run, bounds, out, np.array([0, 1]), marks[:2])
    np.testing.assert_array_equal(row, rows[0])


def test_a_cut_inside_a_permutation_table_is_refused():
    """Consecutive exchanges are encoded as one table at the first of them: a segment that
    would start at the second is refused (the table would run whole before it)."""
    calls = [
        PermutationCall((0, 1, 3, 2), None, (0, 1)),
        PermutationCall((0, 2, 1, 3), None, (1, 2)),
        MatrixCall(random_unitary(2, np.random.default_rng(0)), (0,)),
    ]
    run = BlockRun(calls, 3)
    rows = np.array([random_state(3, np.random.default_rng(1))])
    with pytest.raises(ValueError, match="cut a permutation table"):
        NUMBA.run_segment_reads(rows, run, np.array([0, 1, 3]), np.array([-1]), rows)


@pytest.mark.parametrize("n", [6, 15])  # the serial and the threaded kernels
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_dense_diagonal_one_qubit_calls_in_block_runs_match_generic(n, dtype):
    """Dense 2x2 calls that are diagonal (one entry 1 or neither), on every target, under
    controls or not, in block runs (where they run as a diagonal's pass) and gathered
    tiles: the generic routine's state."""
    rng = np.random.default_rng(n)
    calls = []
    for target in range(n):
        for controls in ((), ((target + 2) % n,)):
            phases = np.exp(1j * rng.normal(size=2))
            if target % 3 == 0:
                phases[0] = 1
            calls.append(MatrixCall(np.diag(phases), (target,), controls, (1,) * len(controls)))
    psi = random_state(n, rng).astype(dtype)
    want = psi.copy()
    for call in calls:
        call.run(GENERIC, want)
    for qubits in (tuple(range(n)), None):
        got = psi.copy()
        if qubits is None:  # a tile over every qubit but the second highest
            inner = [c for c in calls if n - 2 not in (*c.targets, *c.controls)]
            tiled = tuple(q for q in range(n) if q != n - 2)
            want_tile = psi.copy()
            for call in inner:
                call.run(GENERIC, want_tile)
            NUMBA.apply_block_run(got, BlockRun(inner, n - 1, tiled))
            expected = want_tile
        else:
            NUMBA.apply_block_run(got, BlockRun(calls, n, qubits))
            expected = want
        tol = 1e-12 if dtype == np.complex128 else 1e-5
        np.testing.assert_allclose(got, expected, atol=tol, rtol=0)
