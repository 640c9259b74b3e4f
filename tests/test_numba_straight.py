"""The straight code of the generated chunk loops, emitted as one intrinsic per loop body
(``backends/numba_straight.py``): every loop the kernels use equals its own generated
source run by the Python interpreter on NumPy arrays, and the rewrite leaves what is not
straight code alone."""

from __future__ import annotations

import ast

import numpy as np
import pytest
from numba.core.errors import TypingError

from genqsim.backends import numba_low_chunks as low_chunks
from genqsim.backends import numba_planar as planar
from genqsim.backends import numba_straight as straight

FLOATS = [np.float64, np.float32]


def _interpreted(source: str, name: str):
    """The generated function ``name`` of ``source`` as plain Python (the reference)."""
    namespace: dict = {}
    exec(source, namespace)
    return namespace[name]


def _tolerance(dtype) -> float:
    return 1e-13 if dtype == np.float64 else 3e-6


@pytest.mark.parametrize("dtype", FLOATS)
def test_exchanges_and_phases_equal_their_source_run_by_python(dtype):
    """Every exchange variant (one series and two) and every phase variant, through the
    kernels' dispatchers, against the same generated loop interpreted."""
    rng = np.random.default_rng(3)
    x0 = rng.standard_normal(256).astype(dtype)
    y0 = rng.standard_normal(256).astype(dtype)
    for variant, (q, a, b) in enumerate(low_chunks.SWAP_VARIANTS):
        reference = _interpreted(low_chunks._swap_loop_source(q, a, b), f"swap_chunks_{variant}")
        got_x, got_y, want_x, want_y = x0.copy(), y0.copy(), x0.copy(), y0.copy()
        low_chunks.swap_chunks(got_x, got_y, variant)
        reference(want_x, want_y)
        assert np.array_equal(got_x, want_x) and np.array_equal(got_y, want_y), (q, a, b)
        if a != b:  # both sides in one chunk: one series
            got, want = x0.copy(), x0.copy()
            low_chunks.swap_chunks(got, got, variant)
            reference(want, want)
            assert np.array_equal(got, want), (q, a, b)
    pr, pi = dtype(0.6), dtype(-0.8)
    for variant, (q, a) in enumerate(low_chunks.PHASE_VARIANTS):
        name = f"phase_chunks_{variant}"
        source = low_chunks._product_loop_source(name, low_chunks._side(q, a), False)
        got, want = x0.copy(), x0.copy()
        low_chunks.phase_chunks(got, pr, pi, variant)
        _interpreted(source, name)(want, pr, pi)
        np.testing.assert_allclose(got, want, rtol=0, atol=_tolerance(dtype))
        assert np.array_equal(got[want == x0], x0[want == x0])  # the other side untouched


@pytest.mark.parametrize("dtype", FLOATS)
def test_split_row_and_float_chunks_equal_their_source_run_by_python(dtype):
    """The one-qubit gate chunks of split rows (bits 1-8, real and complex entries) and of
    interleaved floats (bits 2-32), against the same generated loops interpreted."""
    rng = np.random.default_rng(5)
    re0, im0 = rng.standard_normal(128).astype(dtype), rng.standard_normal(128).astype(dtype)
    entries = rng.standard_normal(8).astype(dtype)
    for bit in (1, 2, 4, 8):
        for real in (True, False):
            name = f"chunks_{bit}_{'real' if real else 'complex'}"
            compiled = planar._chunk_loop(bit, real, cache=False)  # an entry from Python
            re, im, want_re, want_im = re0.copy(), im0.copy(), re0.copy(), im0.copy()
            compiled(re, im, entries)
            _interpreted(planar._chunk_loop_source(bit, real), name)(want_re, want_im, entries)
            np.testing.assert_allclose(re, want_re, rtol=0, atol=4 * _tolerance(dtype))
            np.testing.assert_allclose(im, want_im, rtol=0, atol=4 * _tolerance(dtype))
    for bit in planar.FLOAT_CHUNK_BITS:
        got, want = re0.copy(), re0.copy()
        planar._float_chunk_loop(bit, cache=False)(got, entries)
        _interpreted(planar._float_chunk_loop_source(bit), f"floats_{bit}")(want, entries)
        np.testing.assert_allclose(got, want, rtol=0, atol=4 * _tolerance(dtype))


def test_only_the_straight_tail_of_a_loop_becomes_an_intrinsic():
    """The loop head (``o = c * 32``, ``q = o & mask``) stays Python; the loads and stores
    after it become one call with the names they read from outside; a loop whose body reads
    at a computed index (the real pairs' inner loop) is left as it was."""
    source = low_chunks._product_loop_source("pattern_chunks", [0, 1], True)
    rewritten, made = straight.straight_source(source)
    (loop,) = [n for n in ast.walk(ast.parse(rewritten)) if isinstance(n, ast.For)]
    assert [ast.unparse(s) for s in loop.body[:2]] == ["o = c * 32", "q = o & mask"]
    (call,) = loop.body[2:]
    (name,) = made
    assert ast.unparse(call) == f"{name}(x, o, p, q)"
    pairs = low_chunks._real_pair_loop_source(1, 2)
    unchanged, none = straight.straight_source(pairs)
    assert none == {} and ast.dump(ast.parse(unchanged)) == ast.dump(ast.parse(pairs))


def test_straight_code_refuses_arguments_it_is_not_written_for():
    """An integer array, or a two-dimensional one, is a typing error naming the argument,
    not code that reinterprets memory."""
    loop = low_chunks.swap_loop(0, 0, 1, cache=False)
    with pytest.raises(TypingError, match="argument 'x'"):
        loop(np.zeros(64, dtype=np.int64), np.zeros(64, dtype=np.int64))
    with pytest.raises(TypingError, match="argument 'x'"):
        loop(np.zeros((2, 32)), np.zeros((2, 32)))
