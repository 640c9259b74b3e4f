"""One build per kernel (backends/numba_ranges.py): threaded loops as range functions over
pieces the threads claim, and functions only called from compiled code kept without
machine code of their own (backends/numba_slp.py). The kernels themselves are checked
against the generic routine in test_numba_backend.py and test_threads.py, in both
branches."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap

import numba
import numba as nb
import numpy as np
import pytest
from numba import prange

pytest.importorskip("numba")

from genqsim.backends import numba_kernels as K
from genqsim.backends import numba_ranges as ranges


@pytest.mark.parametrize("parts", [1, 2, 3, 4, 7])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, 1000, 1 << 20])
def test_a_loop_is_split_into_pieces_per_thread(n, parts):
    """One thread takes the loop as one piece; more take ``PIECES_PER_THREAD`` each where
    the loop is that long, never an empty one; the calling thread's share is all of it."""
    if parts > n:
        return  # never asked: a loop runs on at most as many threads as it has iterations
    pieces = ranges._piece_count.py_func(n, parts)
    assert pieces == (1 if parts == 1 else min(n, parts * ranges.PIECES_PER_THREAD))
    assert ranges._whole.py_func(n) == (0, n, 0)


def _counted(visits, slots, pieces):
    """A kernel counting the visits of each iteration and, per thread slot, the
    iterations it ran; ``pieces[i]``: whether iteration ``i`` follows one that ran
    elsewhere or earlier (the start of a piece)."""
    for i in prange(visits.size):  # written as the kernels write it, so it is rewritten
        visits[i] += 1
        slots[nb.get_thread_id(), i] = 1
        pieces[i] = i == 0 or visits[i - 1] == visits[i] - 1


def _threaded_build(kernel):
    from genqsim.backends.numba_slp import vector_njit

    def compile_kernel(fn, keeps_prange):
        parallel = {"prange": True} if keeps_prange else False
        return vector_njit(cache=False, nogil=True, parallel=parallel)(fn)

    return ranges.one_build(kernel, compile_kernel, vector_njit(cache=False, nogil=True))


@pytest.mark.parametrize("threads", range(1, min(4, numba.config.NUMBA_NUM_THREADS) + 1))
@pytest.mark.parametrize("n", [1, 2, 5, 17, 100, 4097])
def test_threads_claiming_pieces_run_every_iteration_once(n, threads):
    """Each thread of the threaded branch claims pieces until none is left: every iteration
    runs exactly once, each on one slot below the thread count (every thread count the
    pool allows, up to 4), in at most ``PIECES_PER_THREAD`` pieces per thread; the calling
    thread's branch runs each once too, in order."""
    build = _threaded_build(_counted)
    assert "__range0" in str(build.py_func.__globals__.keys())  # a range function, not a prange
    visits = np.zeros(n, np.int64)
    slots = np.zeros((numba.config.NUMBA_NUM_THREADS, n), np.int64)
    pieces = np.zeros(n, np.bool_)
    saved = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        build(True, visits, slots, pieces)
    finally:
        numba.set_num_threads(saved)
    assert (visits == 1).all()
    assert (slots.sum(axis=0) == 1).all() and not slots[threads:].any()
    assert pieces.sum() <= threads * ranges.PIECES_PER_THREAD
    build(False, visits, slots, pieces)
    assert (visits == 2).all() and pieces.sum() == 1


def _raising(values):
    for i in prange(values.size):
        if values[i] < 0:
            raise ValueError("a negative value")
        values[i] += 1


@pytest.mark.parametrize("threads", range(1, min(4, numba.config.NUMBA_NUM_THREADS) + 1))
def test_a_threaded_loop_that_raises_makes_its_kernel_raise(threads):
    """A piece that raises on some thread: the threaded branch raises ``RuntimeError``
    (saying how to see the exception) once the threads are done; the calling thread's
    branch raises the loop's own exception."""
    build = _threaded_build(_raising)
    values = np.zeros(64)
    values[37] = -1.0
    saved = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        with pytest.raises(RuntimeError, match=r"threaded loop .* raised"):
            build(True, values)
    finally:
        numba.set_num_threads(saved)
    with pytest.raises(ValueError, match="negative"):
        build(False, values)
    values[37] = 0.0
    build(True, values)
    assert (values[values.size // 2 :] >= 1).all()


def _doubled(x, out):
    for i in prange(x.size):
        out[i] = 2.0 * x[i]


def test_a_range_function_indexes_without_wraparound():
    """A range function's index is its start plus a count from 0, the start known to LLVM
    as non-negative: ``x[i]`` compiles with no test for a negative index (which made
    ``norm_squared``'s loop load its floats one by one), and the results are right."""
    import re

    build = _threaded_build(_doubled)
    x = np.arange(1000.0)
    out = np.zeros_like(x)
    build(True, x, out)
    assert (out == 2.0 * x).all()
    range_function = build.py_func.__globals__["_doubled__range0"]
    (compiled,) = range_function.overloads.values()
    code = str(compiled.library._final_module)
    assert not re.findall(r"icmp slt i64 %\S+, 0", code)  # no wraparound left


def _kernel_source(name):
    import ast

    tree = ranges._source_tree(K._SOURCES[name])
    made = ranges._rewrite_loops(tree.body[0])
    return ast.unparse(ast.fix_missing_locations(tree)), made


def test_a_loop_that_sums_into_variables_becomes_a_summing_range_function():
    """``norm_squared`` sums into ``total``, read after its loop: a range function that
    takes and returns the sum; a loop that only writes arrays becomes a range function
    taking no sums. No kernel keeps a ``prange`` (so none needs Numba's parallel passes)."""
    source, made = _kernel_source("norm_squared")
    assert [f.name for f in made] == ["norm_squared__range0"] and "prange(" not in source
    assert "_summed_on_threads(" in source and isinstance(made[0].body[-1], ast.Return)
    source, made = _kernel_source("probabilities_marginal")
    assert [f.name for f in made] == ["probabilities_marginal__range0"]
    assert "get_thread_id" not in source  # the scratch row is the share's slot
    assert "_summed_on_threads(" not in source
    kept = [name for name in K._SOURCES if "prange(" in _kernel_source(name)[0]]
    assert kept == []


def _summing(x, start):
    total = start
    count = 0
    twisted = 0j
    for i in prange(x.size):
        if x[i] < 0:
            raise ValueError("negative")
        total += x[i]
        count += 1
        twisted += x[i] * 1j
    return total, count, twisted


def _not_only_summing(x):
    total = 0.0
    for i in prange(x.size):
        total += x[i] * total  # reads the sum: a grouping changes it
    return total


def test_a_loop_that_reads_its_own_sum_stays_a_threaded_loop():
    """``total += x[i] * total`` is no sum of independent pieces: the loop stays a
    ``prange`` (Numba's reduction), as does one that sums into a parameter."""
    tree = ranges._source_tree(_not_only_summing)
    assert ranges._rewrite_loops(tree.body[0]) == []
    assert "prange(x.size)" in ast.unparse(ast.fix_missing_locations(tree))
    tree = ranges._source_tree(_summing_into_a_parameter)
    assert ranges._rewrite_loops(tree.body[0]) == []


def _summing_into_a_parameter(x, total):
    for i in prange(x.size):
        total += x[i]
    return total


@pytest.mark.parametrize("threads", range(1, min(4, numba.config.NUMBA_NUM_THREADS) + 1))
@pytest.mark.parametrize("n", [0, 1, 3, 17, 1000])
def test_sums_on_threads_add_the_pieces_in_order(n, threads):
    """A loop summing into a float started from a given value, an integer started from 0
    and a complex: threaded, the result is the start plus each piece's sum, added in the
    pieces' order (the same whichever thread ran which piece, so the same in every run);
    not threaded, the plain loop's sums. A piece that raises makes the kernel raise."""
    build = _threaded_build(_summing)
    x = np.random.default_rng(n).random(n) * 1e3
    saved = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        runs = [build(True, x, 2.5) for _ in range(3)]
        parts = min(threads, n)
        pieces = ranges._piece_count.py_func(n, parts)
        expected = 2.5
        for piece in range(pieces):
            part = 0.0
            for i in range(n * piece // pieces, n * (piece + 1) // pieces):
                part += x[i]
            expected += part
        assert all(run == runs[0] for run in runs)
        assert runs[0][0] == expected and runs[0][1] == n
        assert runs[0][2] == pytest.approx(1j * x.sum(), rel=1e-12)
        if n:
            x[n // 2] = -1.0
            with pytest.raises(RuntimeError, match=r"threaded loop .* raised"):
                build(True, x, 2.5)
            x[n // 2] = 1.0
    finally:
        numba.set_num_threads(saved)
    serial = 2.5
    for value in x:
        serial += value
    assert build(False, x, 2.5) == (serial, n, pytest.approx(1j * x.sum(), rel=1e-12))


def test_loops_that_each_set_a_name_first_share_nothing_through_it():
    """``apply_phase_1q``'s loops each begin with ``start = ...``: every one becomes a range
    function. A threaded loop whose variable a later loop may read before setting it (``t``
    below, set there only where ``y[k] > 0``) stays as written: a range function would keep
    its last value to itself."""
    _, made = _kernel_source("apply_phase_1q")
    assert len(made) == 4
    for kernel, kept in ((_set_first_later, False), (_maybe_read_later, True)):
        tree = ranges._source_tree(kernel)
        made = ranges._rewrite_loops(tree.body[0])
        assert len(made) == (0 if kept else 1)
        assert ("prange(x.size)" in ast.unparse(ast.fix_missing_locations(tree))) == kept


def _set_first_later(x, y):
    for i in prange(x.size):
        t = x[i]
        x[i] = t + 1
    for k in range(y.size):
        t = y[k]
        y[k] = 2 * t


def _maybe_read_later(x, y):
    for i in prange(x.size):
        t = x[i]
        x[i] = t + 1
    for k in range(y.size):
        if y[k] > 0:
            t = y[k]
        y[k] = t


@pytest.mark.parametrize("numbers", [np.complex64, np.complex128])
def test_both_branches_of_a_kernel_give_the_numpy_results(numbers):
    """A range function with a per-thread row (the marginal's histogram, by slot) and a
    kept reduction (the norm), threaded and not, against NumPy on a random state."""
    import numba

    rng = np.random.default_rng(5)
    state = (rng.normal(size=1 << 11) + 1j * rng.normal(size=1 << 11)).astype(numbers)
    probabilities = np.abs(state.astype(np.complex128)) ** 2
    qubits = np.array([0, 3, 9], dtype=np.int64)
    bits = (np.arange(state.size)[:, None] >> qubits) & 1
    keys = bits @ (1 << np.arange(qubits.size))
    expected = np.bincount(keys, weights=probabilities, minlength=8)
    for build in (K.SERIAL, K.PARALLEL):
        partial = np.zeros((numba.config.NUMBA_NUM_THREADS, 8))
        build.probabilities_marginal(state, qubits, partial)
        assert np.allclose(partial.sum(axis=0), expected, rtol=1e-5)
        assert build.norm_squared(state) == pytest.approx(probabilities.sum(), rel=1e-5)


def _kernel_with_a_taken_name(state, threaded):
    for i in numba.prange(state.size):
        state[i] = threaded


def test_a_kernel_using_a_name_its_build_adds_is_refused():
    """A kernel whose own variable is ``threaded`` (the build's first argument) is refused
    with an error naming it, before anything is compiled."""
    with pytest.raises(ValueError, match="threaded"):
        ranges.one_build(_kernel_with_a_taken_name, pytest.fail, pytest.fail)


def test_a_function_only_called_from_compiled_code_says_so_when_called_from_python():
    """A range function has no Python entry point of its own: called from Python it raises
    a TypeError that names the stand-in, instead of running or crashing."""
    import numba

    K.SERIAL.probabilities_full(np.ones(4, np.complex128), np.empty(4))
    function = K.BUILDS["probabilities_full"].py_func.__globals__["probabilities_full__range0"]
    assert isinstance(function, numba.core.registry.CPUDispatcher)
    with pytest.raises(TypeError, match="called_from_compiled_code_only"):
        function(np.int64(0), np.int64(4), np.int64(0), np.empty(4), np.ones(4, np.complex128))


def test_helpers_of_the_same_argument_types_stay_apart():
    """Two functions only called from compiled code, of the same argument types, each called
    by its own caller: each caller runs its own callee (Numba finds a callee's code by its
    entry point, so each has an entry point of its own)."""
    import numba

    from genqsim.backends.numba_slp import COMPILED_CODE_ONLY, vector_njit

    options = dict(cache=False, nogil=True, error_model="numpy", fastmath=True)

    def doubled(x):
        return 2.0 * x

    def tripled(x):
        return 3.0 * x

    first, second = (vector_njit(**options, **COMPILED_CODE_ONLY)(f) for f in (doubled, tripled))
    for callee in (first, second):  # both compiled before either caller is
        callee.compile((numba.float64,))

    def call_first(x):
        return first(x)

    def call_second(x):
        return second(x)

    assert vector_njit(**options)(call_first)(5.0) == 10.0
    assert vector_njit(**options)(call_second)(5.0) == 15.0


CALLERS = """
import sys
import numpy as np
from genqsim.backends.numba_slp import helper_njit, vector_njit

options = dict(cache=True, nogil=True, error_model="numpy", fastmath=True)


@helper_njit()
def callee(x):
    total = 0.0
    for i in range(x.size):
        total += x[i] * (i + 1)
    return total


@vector_njit(**options)
def first(x):
    return callee(x) + 1.0


@vector_njit(**options)
def second(x):
    return callee(x) * 2.0


x = np.arange(1.0, 101.0)
expected = float(np.sum(x * np.arange(1, 101)))
caller = first if sys.argv[1] == "first" else second
got = caller(x)
want = expected + 1.0 if sys.argv[1] == "first" else expected * 2.0
assert abs(got - want) < 1e-9 * want, (got, want)
library = callee.overloads[next(iter(callee.overloads))].library
print(sys.argv[1], "pending" if library._genqsim_code_pending else "made")
"""


def test_a_helper_is_cached_as_llvm_code_and_linked_by_a_later_caller(tmp_path):
    """The callee is compiled with the first caller and cached without machine code; a
    second process compiles another caller, which loads the callee from the cache (as LLVM
    code, still without machine code) and links it: both give the right sums."""
    (tmp_path / "callers.py").write_text(textwrap.dedent(CALLERS))
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    for which in ("first", "second"):
        done = subprocess.run([sys.executable, str(tmp_path / "callers.py"), which],
                              capture_output=True, text=True, env=env, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.split() == [which, "pending"]
    cached = [name for _, _, names in os.walk(tmp_path / "cache") for name in names]
    assert any(name.startswith("callers.callee") for name in cached)


THREADED_KERNEL = """
import sys
import numpy as np
import numba.np.ufunc.parallel as pool
from numba import prange
from genqsim.backends.numba_ranges import one_build
from genqsim.backends.numba_slp import helper_njit, vector_njit


def _ramp(x, y):
    for i in prange(x.size):
        x[i] += i * y[0]


kernel = one_build(_ramp, lambda fn, keeps_prange: vector_njit(cache=True, nogil=True)(fn),
                   helper_njit())
before = pool._is_initialized
x = np.zeros(1000)
kernel(True, x, np.array([2.0]))
assert (x == 2.0 * np.arange(1000)).all()
print(sys.argv[1], "started the pool" if not before and pool._is_initialized else "pool state?")
"""


def test_a_threaded_kernel_loaded_from_the_cache_starts_the_pool_itself(tmp_path):
    """A kernel's threaded branch calls the pool by symbol: compiled in one process and
    loaded from the cache in another, where nothing else started the pool, it starts it
    (Numba's reload hook for threaded code) and runs, instead of failing to link."""
    (tmp_path / "threaded.py").write_text(textwrap.dedent(THREADED_KERNEL))
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "NUMBA_NUM_THREADS": "2"}
    for which in ("compiled", "loaded"):
        done = subprocess.run([sys.executable, str(tmp_path / "threaded.py"), which],
                              capture_output=True, text=True, env=env, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.split("\n")[0] == f"{which} started the pool"
    cached = [name for _, _, names in os.walk(tmp_path / "cache") for name in names]
    assert any(name.startswith("threaded._ramp") for name in cached)


BY_NAME = """
import sys
import numba
import numpy as np
from genqsim.backends import numba_slp as slp
from genqsim.backends.numba_slp import helper_njit, vector_njit

options = dict(cache=True, nogil=True, error_model="numpy", fastmath=True)
if sys.argv[1] == "shifted":  # Numba numbers each function it compiles: a different name
    numba.njit(lambda v: v + 1)(1)


@helper_njit()
def big(x):
    s = 0.0
BODY
    return s


@vector_njit(**options)
def first(x):
    return big(x) + 1.0


@vector_njit(**options)
def second(x):
    return big(x) * 2.0


x = np.arange(1.0, 9.0)
total = 0.0
for k in range(TERMS):
    total = total * 0.5 + x[k % 8] * (k + 1)
for name in sys.argv[2:]:
    caller = {"first": first, "second": second}[name]
    got = caller(x)
    want = total + 1.0 if name == "first" else total * 2.0
    assert abs(got - want) < 1e-9 * want, (name, got, want)
    library = caller.overloads[next(iter(caller.overloads))].library
    defined = [f.name for f in library._final_module.functions if not f.is_declaration]
    assert not any("big" in n for n in defined), defined  # called by name, not linked
    assert caller.stats.cache_hits or slp._calls_by_name(library)
    print(name, "compiled" if caller.stats.cache_misses else "loaded")
"""


def test_a_large_helper_is_called_by_name_and_its_callers_load_whatever_the_cache_holds(
    tmp_path,
):
    """A helper too large to link into each caller is called by name: each caller's module
    only declares it and its machine code is made once. Each caller's cache entry carries
    the helper's code it was made with: after the helper's own entry is replaced (compiled
    again under another name, as when two processes compile at once), a third process
    loads both callers from the cache and each gives its sum, where a caller that relied
    on the helper's entry would fail to link."""
    terms = 700  # about 1,400 LLVM instructions: more than LATE_LINK_INSTRUCTIONS
    body = "\n".join(f"    s = s * 0.5 + x[{k % 8}] * {k + 1}.0" for k in range(terms))
    source = textwrap.dedent(BY_NAME).replace("BODY", body).replace("TERMS", str(terms))
    (tmp_path / "by_name.py").write_text(source)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def run(*arguments):
        done = subprocess.run([sys.executable, str(tmp_path / "by_name.py"), *arguments],
                              capture_output=True, text=True, env=env, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.split("\n")[:-1]

    assert run("plain", "first") == ["first compiled"]
    for folder, _, names in os.walk(tmp_path / "cache"):
        for name in names:
            if name.startswith("by_name.big"):
                os.unlink(os.path.join(folder, name))
    assert run("shifted", "second") == ["second compiled"]
    assert run("plain", "first", "second") == ["first loaded", "second loaded"]
