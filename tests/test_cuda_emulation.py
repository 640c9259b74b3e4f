"""The CPU emulation of the CUDA kernels (``emulated_cupy``, ``cuda_on_cpu.h``) that the GPU
tests run on where no GPU is lent: it keeps CUDA's meaning of blocks, threads, barriers and
shared memory (checked on small kernels against NumPy), a race that no barrier orders shows as
a result that changes with the threads' order, and genqsim's kernels give the same states with
every block's threads reversed (no such race in them)."""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import genqsim as gq

from reference import random_state
from strategies import random_circuit

emulated_cupy = pytest.importorskip("emulated_cupy")
pytestmark = pytest.mark.skipif(emulated_cupy.GXX is None, reason="the emulator needs g++")

SOURCE = r"""
typedef long long index_t;
extern __shared__ __align__(16) unsigned char shared_bytes[];

// Each block reverses its own row of n through shared memory (dynamic), grid-stride rows.
extern "C" __global__ void reverse_rows(const int* in, int* out, int n, int rows) {
    int* row = reinterpret_cast<int*>(shared_bytes);
    for (int r = blockIdx.x; r < rows; r += gridDim.x) {
        for (int i = threadIdx.x; i < n; i += blockDim.x) row[i] = in[r * n + i];
        BARRIER;
        for (int i = threadIdx.x; i < n; i += blockDim.x) out[r * n + i] = row[n - 1 - i];
        __syncthreads();
    }
}

// Writes i at out[i] for i = 0 .. n + past - 1: past the end of an array of n where past > 0.
extern "C" __global__ void fill_past(int* out, int n, int past) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n + past; i += blockDim.x * gridDim.x)
        out[i] = i;
}

// Block sums in a static shared array (a tree reduction), then the block's thread count.
extern "C" __global__ void block_sums(const double* in, double* sums, int* threads, index_t size) {
    __shared__ double partial[256];
    double acc = 0;
    for (index_t j = blockIdx.x * (index_t)blockDim.x + threadIdx.x; j < size;
         j += (index_t)blockDim.x * gridDim.x)
        acc += in[j];
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        sums[blockIdx.x] = partial[0];
        threads[blockIdx.x] = blockDim.x;
    }
}
"""


def _module(barrier: bool) -> emulated_cupy.RawModule:
    define = "#define BARRIER __syncthreads()\n" if barrier else "#define BARRIER\n"
    return emulated_cupy.RawModule(define + SOURCE)


@pytest.mark.parametrize("reverse", [False, True], ids=["in-order", "reversed"])
def test_blocks_share_memory_across_a_barrier_in_either_order(reverse):
    """Rows reversed through shared memory (3 blocks over 7 rows: the grid-stride loop)
    and block sums through a static shared array, against NumPy, in both thread orders."""
    cp = emulated_cupy
    rng = np.random.default_rng(4)
    rows, n = 7, 300  # more entries than threads: each thread moves two
    data = rng.integers(0, 1000, size=(rows, n)).astype(np.int32)
    out = cp.empty((rows, n), dtype=np.int32)
    reverse_rows = _module(True).get_function("reverse_rows")
    values = rng.normal(size=5000)
    sums, threads = cp.empty(4, dtype=np.float64), cp.empty(4, dtype=np.int32)
    block_sums = _module(True).get_function("block_sums")
    context = cp.threads_reversed() if reverse else nullcontext()
    with context:
        reverse_rows((3,), (256,), (cp.asarray(data), out, np.int32(n), np.int32(rows)),
                     shared_mem=4 * n)  # fmt: skip
        block_sums((4,), (128,), (cp.asarray(values), sums, threads, np.int64(values.size)))
    np.testing.assert_array_equal(cp.asnumpy(out), data[:, ::-1])
    np.testing.assert_allclose(float(np.sum(cp.asnumpy(sums))), values.sum(), rtol=1e-12)
    np.testing.assert_array_equal(cp.asnumpy(threads), [128] * 4)


def test_a_race_no_barrier_orders_shows_as_another_result_in_the_other_order():
    """Without the barrier between its writes and reads of shared memory, the kernel reads
    entries other threads have not written yet in one order of its threads or the other."""
    cp = emulated_cupy
    data = np.arange(512, dtype=np.int32).reshape(1, 512)
    kernel = _module(False).get_function("reverse_rows")
    results = []
    for context in (nullcontext(), cp.threads_reversed()):
        out = cp.empty((1, 512), dtype=np.int32)
        with context:
            kernel((1,), (256,), (cp.asarray(data), out, np.int32(512), np.int32(1)),
                   shared_mem=4 * 512)  # fmt: skip
        results.append(cp.asnumpy(out))
    assert any(not np.array_equal(r, data[:, ::-1]) for r in results)


def test_an_access_past_the_end_of_a_device_array_is_an_illegal_address():
    """A kernel that writes one element past an array of 4096 ints fails with CUDA's
    illegal address (the array ends at a page no access may touch), and a launch after it
    runs as usual; within the array it writes what NumPy says."""
    cp = emulated_cupy
    kernel = _module(True).get_function("fill_past")
    out = cp.empty(4096, dtype=np.int32)
    with pytest.raises(cp.CUDADriverError, match="ILLEGAL_ADDRESS"):
        kernel((2,), (128,), (out, np.int32(4096), np.int32(1)))
    kernel((2,), (128,), (out, np.int32(4096), np.int32(0)))
    np.testing.assert_array_equal(cp.asnumpy(out), np.arange(4096))


def test_a_launch_the_device_would_refuse_is_refused():
    cp = emulated_cupy
    kernel = _module(True).get_function("reverse_rows")
    args = (cp.asarray(np.zeros((1, 4), np.int32)), cp.empty((1, 4), np.int32), np.int32(4),
            np.int32(1))  # fmt: skip
    with pytest.raises(cp.CUDADriverError, match="shared memory"):
        kernel((1,), (32,), args, shared_mem=64 * 1024)
    with pytest.raises(cp.CUDADriverError, match="2048 threads"):
        kernel((1,), (2048,), args, shared_mem=16)
    with pytest.raises(TypeError, match="host array"):
        kernel((1,), (32,), (np.zeros((1, 4), np.int32), *args[1:]), shared_mem=16)


@pytest.fixture(scope="module")
def cupy():
    with emulated_cupy.installed() as module:
        yield module


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_circuit(n_min=13, n_max=14), st.integers(0, 2**31))
def test_genqsim_kernels_give_the_same_state_with_every_blocks_threads_reversed(
    cupy, circuit, seed
):
    """Tile runs (shared memory, a barrier after each operation), gate calls, the
    expectation's reduction and IQP encoding, with each block's threads in reverse order,
    against the generic routine: no result depends on an order no barrier fixes."""
    host = random_state(circuit.n_qubits, np.random.default_rng(seed))
    want = gq.StateVector(host.copy(), backend="numpy").apply(circuit, fuse=False)
    with emulated_cupy.threads_reversed():
        psi = gq.StateVector(cupy.asarray(host)).apply(circuit)
        value = psi.expectation("Z0 Z12 + 0.5*X3")
        iqp = gq.iqp_encode(np.linspace(-1, 1, 12 + 66), device="gpu").to_numpy()
    np.testing.assert_allclose(psi.to_numpy(), want.to_numpy(), atol=1e-11)
    assert value == pytest.approx(want.expectation("Z0 Z12 + 0.5*X3"), abs=1e-11)
    np.testing.assert_allclose(
        iqp, gq.iqp_encode(np.linspace(-1, 1, 12 + 66)).amplitudes, atol=1e-11
    )


@pytest.fixture(scope="module")
def gpu_bench():
    """``benchmarks/gpu_bench.py`` as a module (the benchmarks' folder on the path, for the
    modules it imports)."""
    import importlib
    import sys
    from pathlib import Path

    folder = str(Path(__file__).resolve().parent.parent / "benchmarks")
    sys.path.insert(0, folder)
    try:
        yield importlib.import_module("gpu_bench")
    finally:
        sys.path.remove(folder)


@pytest.mark.parametrize(("gate", "qubit"), [("CNOT", 2), ("H", 8), ("T", 0)])
def test_the_gpu_benchmarks_gate_rows_run_on_the_emulator(cupy, gpu_bench, gate, qubit):
    """``benchmarks/gpu_bench.py --launches`` (the rows a GPU session measures first, where
    device minutes are few) runs end to end on 10 qubits: every kernel variant it times
    (series, pairs where qubit 0 is free, the kernel of every width), its kept and CuPy
    launches, with the peers reported as not installed. Times here mean nothing."""
    bench = gpu_bench
    for dtype in ("complex64", "complex128"):
        rows = bench.launch_breakdown(10, dtype, gate, qubit, repeat=1)
        assert rows["kernel"] == "apply_op_narrow"
        timed = ["apply", "packed launch", "CuPy launch", "series 1 queued", "series 4 queued",
                 "apply_op queued"] + (["pairs queued"] if qubit > 0 else [])  # fmt: skip
        assert all(isinstance(rows[key], float) and rows[key] > 0 for key in timed), rows
        assert ("pairs queued" in rows) == (qubit > 0)
        assert rows["cuStateVec"] == "not installed" or isinstance(rows["cuStateVec"], float)


def test_the_gpu_benchmarks_circuit_rows_run_on_the_emulator(cupy, gpu_bench):
    """The circuit rows of ``gpu_bench.py`` on small sizes: applied again, first apply, plans
    built beforehand (tile runs, merged diagonals, one launch per gate), IQP, and a noisy
    density matrix in both bases; each gives a positive time."""
    bench = gpu_bench
    circuit = gq.library.random_circuit(13, 4, seed=1)
    times = [
        bench.genqsim_case(circuit, "complex64", 1, None),
        bench.genqsim_case(circuit, "complex128", 1, False),
        bench.first_apply_case(circuit, "complex128", 1),
        bench.plan_case(circuit, "complex64", 1, tiles=True),
        bench.plan_case(circuit, "complex128", 1, tiles=True, merged=True),
        bench.plan_case(circuit, "complex64", 1, tiles=False),
        bench.gpu_time(lambda: gq.iqp_encode(np.linspace(0, 1, 10 + 45), device="gpu"), 1),
        bench.density_case(4, 2, False, 1),
        bench.density_case(4, 2, True, 1),
    ]
    assert all(isinstance(t, float) and t > 0 for t in times), times
    assert bench.custatevec_case(circuit, "complex64", 1) == "not installed"
