"""The CuPy backend on a real GPU: every primitive, both dtypes, against the generic NumPy
routine (hypothesis random circuits with controlled, multi-target, diagonal and permutation
gates), shared-memory block runs, batches, IQP encoding, reductions and sampling.

On a machine with an NVIDIA GPU and CuPy, ``pytest -m gpu`` runs them on the device;
elsewhere they run in the default test run on the CPU emulation of the same CUDA sources
(``gpu_marks``, ``emulated_cupy``), which checks the kernels' results and the launches, not
their speed. The test of CuPy's compiler cache needs the device and skips without one."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from gpu_marks import DEVICE_MARKS, GPU_MARKS, cupy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim.numbers import get_number_system
from genqsim.plan import BlockRun
from genqsim.plan.build import plan_for_backend

from reference import random_state
from strategies import random_circuit

pytestmark = GPU_MARKS
DTYPES = ["complex64", "complex128"]
TOL = {"complex64": 2e-5, "complex128": 1e-12}


def _gpu_state(host: np.ndarray, dtype: str) -> gq.StateVector:
    return gq.StateVector(cupy.asarray(host.astype(dtype)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_circuit(n_max=8), st.sampled_from(DTYPES), st.integers(0, 2**31), st.booleans())
def test_gpu_equals_the_generic_routine_on_random_circuits(circuit, dtype, seed, fuse):
    host = random_state(circuit.n_qubits, np.random.default_rng(seed))
    want = gq.StateVector(host.copy(), backend="numpy").apply(circuit, fuse=False).to_numpy()
    psi = _gpu_state(host, dtype)
    assert psi.backend.name == "cupy"
    psi.apply(circuit, fuse=None if fuse else False)
    np.testing.assert_allclose(psi.to_numpy(), want, atol=TOL[dtype] * 10)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_circuit(n_max=8), st.integers(0, 2**31))
def test_a_kept_plan_applied_again_launches_from_its_kept_records(circuit, seed):
    """A circuit's plan is kept on it and each gate call keeps its launch record per dtype
    (``GateCallRunner``): applied twice to one state, then to a state of the other dtype and
    to a batch, every result equals the generic routine applying the circuit as often."""
    host = random_state(circuit.n_qubits, np.random.default_rng(seed))
    once = gq.StateVector(host.copy(), backend="numpy").apply(circuit, fuse=False)
    twice = once.copy().apply(circuit, fuse=False).to_numpy()
    psi = _gpu_state(host, "complex128").apply(circuit, fuse=False).apply(circuit, fuse=False)
    np.testing.assert_allclose(psi.to_numpy(), twice, atol=TOL["complex128"] * 10)
    single = _gpu_state(host, "complex64").apply(circuit, fuse=False)
    np.testing.assert_allclose(single.to_numpy(), once.to_numpy(), atol=TOL["complex64"] * 10)
    batch = cupy.asarray(np.stack([host, host[::-1].copy()]).astype("complex128"))
    gq.apply_batch(circuit, batch, fuse=False)
    other = gq.StateVector(host[::-1].copy(), backend="numpy").apply(circuit, fuse=False)
    np.testing.assert_allclose(
        cupy.asnumpy(batch), np.stack([once.to_numpy(), other.to_numpy()]), atol=1e-10
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [10, 14])
def test_packed_launches_run_on_each_state_and_from_new_threads(dtype, n):
    """A kept plan's launches are packed for the driver (the state's pointer written at each
    launch): applied to two states in turn, then from threads that never touched CUDA (no
    context yet: the first launch goes through CuPy's, which sets one up), every state
    equals the generic routine's. 10 qubits run gate calls, 14 tile runs."""
    import threading

    from genqsim.backends.cupy_backend import kept_launch

    circuit = gq.library.random_circuit(n, 4, seed=11).h(3).cx(0, n - 1).t(n - 2)
    rng = np.random.default_rng(2)
    hosts = [random_state(n, rng) for _ in range(4)]
    want = [gq.StateVector(h.copy(), backend="numpy").apply(circuit, fuse=False).to_numpy()
            for h in hosts]  # fmt: skip
    for fuse in (False, None):
        gpus = [_gpu_state(h, dtype) for h in hosts]
        gpus[0].apply(circuit, fuse=fuse)
        plan = plan_for_backend(circuit, get_number_system(dtype), gpus[0].backend, fuse,
                                keep=True)  # fmt: skip
        runs = [item for item in plan if isinstance(item, BlockRun)]
        calls = [item for item in plan if not isinstance(item, BlockRun)]
        launches = [kept_launch(c, np.dtype(dtype), (1 << n,)) for c in calls]
        launches += [launch for run in runs for key, launch in run.encoded.items()
                     if len(key) == 4]  # fmt: skip
        launches = [launch for launch in launches if launch is not None and launch.kernel]
        assert launches and all(launch.packed is not None for launch in launches)
        gpus[1].apply(circuit, fuse=fuse)
        threads = [threading.Thread(target=psi.apply, args=(circuit, fuse)) for psi in gpus[2:]]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for psi, expected in zip(gpus, want):
            np.testing.assert_allclose(psi.to_numpy(), expected, atol=TOL[dtype] * 10)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    random_circuit(n_min=13, n_max=15), st.sampled_from(DTYPES), st.integers(0, 2**31),
    st.booleans(),
)  # fmt: skip
def test_tile_runs_equal_the_generic_routine_on_random_circuits(circuit, dtype, seed, fuse):
    """States of 13+ qubits, where the plan groups gates into shared-memory tile runs: every
    gate kind and width (dense up to 3 targets, diagonals, permutations, controls) inside
    tiles, against the generic routine; unfused and fused (as from 22 qubits on)."""
    host = random_state(circuit.n_qubits, np.random.default_rng(seed))
    want = gq.StateVector(host.copy(), backend="numpy").apply(circuit, fuse=False).to_numpy()
    psi = _gpu_state(host, dtype).apply(circuit, fuse=True if fuse else None)
    np.testing.assert_allclose(psi.to_numpy(), want, atol=TOL[dtype] * 100)


@pytest.mark.parametrize("dtype", DTYPES)
def test_one_target_calls_on_neighbouring_pairs_equal_the_generic_routine(dtype, monkeypatch):
    """The candidate kernel ``apply_op_pairs`` (``PAIRED_ONE_TARGET``): dense, diagonal and
    permutation calls on one target above qubit 0 (a CNOT on qubits 2 and 3 among them),
    with controls at 0 and at 1 and with phases, on one state and a batch of three, through
    a plan kept on a circuit and call by call, against the generic routine; a call on qubit
    0 keeps ``apply_op_narrow``. With the grid capped at 3 blocks, each thread loops."""
    import weakref

    from genqsim.backends import cupy_backend
    from genqsim.plan.calls import DiagonalCall, MatrixCall, PermutationCall

    monkeypatch.setattr(cupy_backend, "PAIRED_ONE_TARGET", True)
    monkeypatch.setattr(cupy_backend, "_kept_launches", weakref.WeakKeyDictionary())
    rng = np.random.default_rng(23)
    u = np.linalg.qr(rng.normal(size=(2, 2)) + 1j * rng.normal(size=(2, 2)))[0]

    def phases(k: int) -> np.ndarray:
        return np.exp(1j * rng.uniform(0, 2 * np.pi, size=k))

    paired = [
        MatrixCall(u, (1,)),
        MatrixCall(u, (7,), (2, 5), (0, 1)),
        DiagonalCall(phases(2), (3,)),
        DiagonalCall(phases(2), (1,), (4, 6), (1, 0)),
        PermutationCall([1, 0], None, (2,), (3,), (1,)),
        PermutationCall([1, 0], phases(2), (6,)),
    ]
    narrow = [MatrixCall(u, (0,)), MatrixCall(u, (4,), (0,), (1,)), DiagonalCall(phases(2), (0,))]
    assert {cupy_backend.gate_kernel_name(c) for c in paired} == {"apply_op_pairs"}
    assert {cupy_backend.gate_kernel_name(c) for c in narrow} == {"apply_op_narrow"}
    n = 11  # 1024 pairs a state: past one pass of 3 blocks of 256 threads
    hosts = np.stack([random_state(n, rng) for _ in range(3)]).astype(dtype)
    ref, gpu = gq.get_backend("numpy"), gq.get_backend("cupy")
    for cap in (cupy_backend.MAX_BLOCKS, 3):
        monkeypatch.setattr(cupy_backend, "MAX_BLOCKS", cap)
        for state in (hosts[0].copy(), hosts.copy()):
            got = cupy.asarray(state)
            for call in paired + narrow:
                for row in state.reshape(-1, 1 << n):  # the generic routine, state by state
                    call.run(ref, row)
                call.run(gpu, got)
                np.testing.assert_allclose(cupy.asnumpy(got), state, atol=TOL[dtype] * 10)
    circuit = gq.Circuit(n).h(1).cx(3, 2).t(5).u(0.3, 0.2, 0.1, 7).cz(1, 6).h(0).x(4)
    want = gq.StateVector(hosts[1].copy(), backend="numpy").apply(circuit, fuse=False)
    psi = _gpu_state(hosts[1], dtype).apply(circuit, fuse=False).apply(circuit, fuse=False)
    twice = want.apply(circuit, fuse=False).to_numpy()
    np.testing.assert_allclose(psi.to_numpy(), twice, atol=TOL[dtype] * 10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_grid_stride_loops_cover_work_beyond_one_pass_of_the_grid(dtype, monkeypatch):
    """With the grid capped at 3 blocks (and the tile kernel's at one block a
    multiprocessor), every kernel loops over the rest of its work: gate calls of every
    width (a batch of two states, and a dense call too wide to travel by value), tile runs
    over groups of tiles, IQP encoding's phases, tiles and stages, probabilities and an
    expectation's partial sums, against the generic routine. At the real cap (65 536
    blocks) only states of 2**25 subspaces take a second pass."""
    import weakref

    from genqsim.backends import cupy_backend

    monkeypatch.setattr(cupy_backend, "MAX_BLOCKS", 3)
    monkeypatch.setattr(cupy_backend, "TILE_BLOCKS_PER_SM", 1)
    monkeypatch.setattr(cupy_backend, "_kept_launches", weakref.WeakKeyDictionary())
    rng = np.random.default_rng(17)
    n = 14
    circuit = gq.library.random_circuit(n, 5, seed=9).ccx(0, 7, 13).cswap(12, 1, 2)
    u4 = np.linalg.qr(rng.normal(size=(16, 16)) + 1j * rng.normal(size=(16, 16)))[0]
    circuit.unitary(u4, [0, 3, 9, 13])
    hosts = np.stack([random_state(n, rng) for _ in range(2)]).astype(dtype)
    for fuse in (False, None):
        want = gq.apply_batch(circuit, hosts.copy(), fuse=False)
        got = gq.apply_batch(circuit, cupy.asarray(hosts), fuse=fuse)
        np.testing.assert_allclose(cupy.asnumpy(got), want, atol=TOL[dtype] * 100)
    psi = _gpu_state(hosts[0], dtype).apply(circuit)
    cpu = gq.StateVector(hosts[0].copy(), backend="numpy").apply(circuit, fuse=False)
    np.testing.assert_allclose(psi.probabilities().get(), cpu.probabilities(), atol=TOL[dtype])
    obs = "Z0 Z13 + 0.5*X2 Y9"
    assert abs(psi.expectation(obs) - cpu.expectation(obs)) < 100 * TOL[dtype]
    data = rng.uniform(-1, 1, size=(3, 12 + 66))
    np.testing.assert_allclose(
        cupy.asnumpy(gq.iqp_encode(data, numbers=dtype, device="gpu")),
        gq.iqp_encode(data, numbers=dtype),
        atol=TOL[dtype] * 200,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "qubits",
    [(0, 1, 2, 3, 4, 9), (0, 2, 4, 5, 7, 9, 11, 13, 14, 16), tuple(range(10))],
    ids=["series-of-5-and-one-high", "series-of-1-and-nine-high", "contiguous"],
)
@pytest.mark.parametrize(
    "kernel", ["apply_tile_run", "apply_tile_run_narrow", "apply_tile_run_wide"]
)
def test_a_tile_places_its_qubits_through_both_offset_tables(dtype, qubits, kernel):
    """Tiles run directly: a series of 5 and one qubit above it, a series of 1 and nine above
    it (both of the kernel's look-up tables of element offsets), and the lowest 10 qubits;
    dense (up to 3 targets, controlled), diagonal and permutation calls on the tile's qubits,
    against the same calls one by one on the host (up to 4 targets and controls, whose subspace
    the kernel finds with bit masks, and 5 or 6, with its loop). With a controlled 3-target
    dense call the run takes the kernel that holds 8 amplitudes a thread; with a 16-row
    diagonal there instead, the narrow one; with a 16-row permutation, the wide one."""
    from genqsim.backends.cupy_backend import tile_kernel_name
    from genqsim.plan.calls import DiagonalCall, MatrixCall, PermutationCall

    n, q = 18, qubits
    rng = np.random.default_rng(len(q))

    def unitary(k: int) -> np.ndarray:
        return np.linalg.qr(rng.normal(size=(k, k)) + 1j * rng.normal(size=(k, k)))[0]

    wide = {
        "apply_tile_run": MatrixCall(unitary(8), (q[1], q[-1], q[0]), (q[-2],), (1,)),
        "apply_tile_run_narrow": DiagonalCall(
            np.exp(1j * rng.uniform(size=16)), (q[1], q[-1], q[0], q[3]), (q[-2],), (1,)
        ),
        "apply_tile_run_wide": PermutationCall(
            rng.permutation(16),
            np.exp(1j * rng.uniform(size=16)),
            (q[1], q[-1], q[0], q[3]),
            (q[-2],),
            (1,),
        ),
    }[kernel]
    calls = [
        MatrixCall(unitary(2), (q[-1],)),
        wide,
        DiagonalCall(np.exp(1j * rng.uniform(size=4)), (q[-1], q[2])),
        PermutationCall([1, 0], None, (q[3],), (q[-1],), (0,)),
        MatrixCall(unitary(4), (q[1], q[5])),
        PermutationCall([2, 3, 1, 0], np.exp(1j * rng.uniform(size=4)), (q[4], q[0])),
        # five fixed bits and more: the kernel's loop over them instead of its masks
        PermutationCall([1, 0], None, (q[2],), (q[0], q[3], q[4], q[-1]), (1, 0, 1, 1)),
        DiagonalCall(np.exp(1j * rng.uniform(size=8)), (q[3], q[1], q[-1]), (q[0], q[2]), (1, 0)),
    ]
    assert tile_kernel_name(calls) == kernel
    host = random_state(n, rng).astype(dtype)
    want = host.copy()
    for call in calls:
        call.run(gq.get_backend("numpy"), want)
    got = cupy.asarray(host)
    gq.get_backend("cupy").apply_block_run(got, BlockRun(calls, len(q), q))
    np.testing.assert_allclose(cupy.asnumpy(got), want, atol=TOL[dtype] * 10)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_real_states_run_real_calls_in_tiles_and_alone(dtype):
    """Real states (a density matrix's Pauli coordinates) on their own module: dense,
    diagonal and permutation calls of up to 16 rows (a two-qubit channel's signed
    permutation), controlled or not, in one tile run and call by call, against the generic
    routine on the host; a dense call too wide to travel by value takes the wide kernel."""
    from genqsim.backends.cupy_backend import tile_kernel_name
    from genqsim.plan.calls import DiagonalCall, MatrixCall, PermutationCall

    n, q = 16, (0, 1, 2, 3, 4, 5, 9, 12, 14)
    rng = np.random.default_rng(21)

    def orthogonal(k: int) -> np.ndarray:
        return np.linalg.qr(rng.normal(size=(k, k)))[0]

    calls = [
        MatrixCall(orthogonal(4), (q[0], q[-1])),
        PermutationCall(rng.permutation(16), rng.uniform(-1, 1, size=16), (q[1], q[7], q[3], q[5])),
        DiagonalCall(rng.uniform(-1, 1, size=16), (q[2], q[6], q[4], q[8]), (q[0],), (0,)),
        MatrixCall(orthogonal(8), (q[4], q[1], q[6])),
        PermutationCall(rng.permutation(16), None, (q[0], q[2], q[6], q[8]), (q[7],), (1,)),
    ]
    assert tile_kernel_name(calls) == "apply_tile_run_wide"
    host = rng.normal(size=2**n).astype(dtype)
    want = host.copy()
    for call in calls:
        call.run(gq.get_backend("numpy"), want)
    tol = 1e-4 if dtype == "float32" else 1e-12
    gpu = gq.get_backend("cupy")
    in_tiles = cupy.asarray(host)
    gpu.apply_block_run(in_tiles, BlockRun(calls, len(q), q))
    np.testing.assert_allclose(cupy.asnumpy(in_tiles), want, atol=tol)
    alone = cupy.asarray(host)
    for call in calls:
        call.run(gpu, alone)
    np.testing.assert_allclose(cupy.asnumpy(alone), want, atol=tol)
    wide = MatrixCall(orthogonal(32), (0, 3, 6, 9, 12))  # too wide to travel by value
    wide.run(gq.get_backend("numpy"), want)
    wide.run(gpu, alone)
    np.testing.assert_allclose(cupy.asnumpy(alone), want, atol=tol)


@pytest.mark.parametrize("n", [1, 3, 5, 8])
def test_pauli_coordinates_on_the_gpu_equal_the_numba_transform(n):
    from test_noise import _random_rho

    rho = _random_rho(n, np.random.default_rng(n))
    host = rho.reshape(-1).copy()
    want = gq.get_backend("numba").to_pauli_coordinates(host, n).copy()
    vec = cupy.asarray(rho.reshape(-1))
    coords = gq.get_backend("cupy").to_pauli_coordinates(vec, n)
    assert coords is not None and coords.dtype == np.float64
    np.testing.assert_allclose(cupy.asnumpy(coords), want, atol=1e-13)
    gq.get_backend("cupy").from_pauli_coordinates(vec, n)
    np.testing.assert_allclose(cupy.asnumpy(vec), rho.reshape(-1), atol=1e-13)


def _noisy_layers(n: int, layers: int, seed: int) -> gq.Circuit:
    """U on every qubit and a CX brick, each gate followed by depolarizing noise, with
    amplitude damping, a controlled rotation and a thermal relaxation in between."""
    rng = np.random.default_rng(seed)
    c = gq.Circuit(n)
    for layer in range(layers):
        for q in range(n):
            c.u(*rng.uniform(0, 2 * np.pi, 3), q).depolarizing(0.01, q)
        for q in range(layer % 2, n - 1, 2):
            c.cx(q, q + 1).depolarizing(0.02, q, q + 1)
        c.amplitude_damping(0.05, layer % n)
    c.crx(0.4, 0, n - 1).thermal_relaxation(50.0, 70.0, 12.0, n - 1)
    return c


@pytest.mark.parametrize("n", [3, 7, 8])
@pytest.mark.parametrize("dtype", DTYPES)
def test_density_matrices_run_in_pauli_coordinates_on_the_gpu(n, dtype):
    """A noisy circuit on a density matrix on the GPU in Pauli coordinates (real transfer
    matrices in tile runs; 7 and 8 qubits: vec(rho) of 14 and 16 qubits, beyond one tile)
    equals the computational basis on the GPU and the generic routine on the host; the run
    really is in Pauli coordinates."""
    from genqsim.states import DensityMatrix, DensityOptions
    from genqsim.states.doubling import doubled_circuit
    from genqsim.states.pauli_basis import pauli_run

    circuit = _noisy_layers(n, 3, seed=n)
    ns = get_number_system(dtype)
    gpu = gq.get_backend("cupy")
    assert pauli_run(doubled_circuit(circuit, ns, None), n, ns, gpu, True) is not None
    want = DensityMatrix.zeros(n, dtype, backend="numpy").apply(circuit).to_numpy()
    tol = 2e-5 if dtype == "complex64" else 1e-12
    for pauli_basis in (True, False, None):
        options = DensityOptions(pauli_basis=pauli_basis)
        rho = DensityMatrix.zeros(n, dtype, device="gpu", options=options).apply(circuit)
        assert rho.backend.name == "cupy"
        np.testing.assert_allclose(rho.to_numpy(), want, atol=tol * 10)
        rho.apply(circuit)  # again, from the kept run
        twice = DensityMatrix.zeros(n, dtype, backend="numpy").apply(circuit).apply(circuit)
        np.testing.assert_allclose(rho.to_numpy(), twice.to_numpy(), atol=tol * 20)


def test_a_non_hermitian_operator_on_the_gpu_stays_in_the_computational_basis():
    from genqsim.states import DensityMatrix, DensityOptions

    m = np.zeros((16, 16), dtype=complex)
    m[0, 3] = 1
    vec = cupy.asarray(m.reshape(-1))
    assert gq.get_backend("cupy").to_pauli_coordinates(vec, 4) is None
    np.testing.assert_allclose(cupy.asnumpy(vec), m.reshape(-1), atol=1e-15)
    c = gq.Circuit(4).h(0).cx(0, 1).depolarizing(0.1, 1).amplitude_damping(0.2, 3)
    forced = DensityMatrix(m, backend="cupy", options=DensityOptions(pauli_basis=True))
    plain = DensityMatrix(m, backend="numpy", options=DensityOptions(pauli_basis=False))
    np.testing.assert_allclose(forced.apply(c).to_numpy(), plain.apply(c).to_numpy(), atol=1e-14)


@pytest.mark.parametrize("dtype", DTYPES)
def test_block_runs_in_shared_memory_equal_gate_by_gate(dtype):
    n = 14  # tiles of 12 (complex64) or 11 qubits: the lowest 5 plus any others, high ones too
    circuit = gq.library.random_circuit(n, 6, seed=3)
    for q in range(8):
        circuit.cp(0.1 * q, q, q + 1).ccx(q, q + 1, q + 2)
    for q in (13, 12, 11):  # a run on high qubits only (MSB tiles)
        circuit.h(q).cp(0.3, q, 13 - (q == 13)).sx(q)
    host = random_state(n, np.random.default_rng(1))
    want = gq.StateVector(host.copy(), backend="numpy").apply(circuit, fuse=False).to_numpy()
    psi = _gpu_state(host, dtype)
    plan = plan_for_backend(circuit, get_number_system(dtype), psi.backend)
    assert any(isinstance(item, BlockRun) and not item.contiguous for item in plan)
    psi.apply(circuit)
    np.testing.assert_allclose(psi.to_numpy(), want, atol=TOL[dtype] * 100)


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_primitive_with_controls_matches_numpy(dtype):
    n = 6
    rng = np.random.default_rng(5)
    host = random_state(n, rng)
    u3 = np.linalg.qr(rng.normal(size=(8, 8)) + 1j * rng.normal(size=(8, 8)))[0]
    u4 = np.linalg.qr(rng.normal(size=(16, 16)) + 1j * rng.normal(size=(16, 16)))[0]
    calls = [
        ("apply_matrix", (u3, (4, 0, 2), (5,), (0,))),
        ("apply_matrix", (u4, (1, 3, 5, 0), (), ())),  # too wide to travel by value
        ("apply_diagonal", (np.exp(1j * rng.uniform(size=4)), (2, 5), (0, 1), (1, 0))),
        ("apply_permutation", ([2, 0, 3, 1], np.exp(1j * rng.uniform(size=4)), (3, 1), (4,), (1,))),
        ("apply_permutation", ([1, 0], None, (0,), (2, 3), (1, 1))),
        # 16 rows: by value, in their own kernel (apply_op_rows16)
        ("apply_permutation", (rng.permutation(16), np.exp(1j * rng.uniform(size=16)),
                               (5, 0, 3, 2), (1,), (0,))),
        ("apply_diagonal", (np.exp(1j * rng.uniform(size=16)), (1, 4, 0, 3), (), ())),
    ]  # fmt: skip
    ref = gq.get_backend("numpy")
    gpu = gq.get_backend("cupy")
    want, got = host.astype(dtype), cupy.asarray(host.astype(dtype))
    for name, args in calls:
        getattr(ref, name)(want, *args)
        getattr(gpu, name)(got, *args)
        np.testing.assert_allclose(cupy.asnumpy(got), want, atol=TOL[dtype] * 10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reductions_and_sampling_on_the_device(dtype):
    c = gq.library.random_circuit(7, 3, seed=2)
    cpu = gq.simulate(c, numbers=dtype)
    gpu = gq.simulate(c, numbers=dtype, device="gpu")
    np.testing.assert_allclose(gpu.probabilities().get(), cpu.probabilities(), atol=TOL[dtype])
    np.testing.assert_allclose(
        cupy.asnumpy(gpu.probabilities([5, 1])), cpu.probabilities([5, 1]), atol=TOL[dtype]
    )
    obs = "Z0 Z1 + 0.5*X2 Y4 - 0.3*Y6"
    assert abs(gpu.expectation(obs) - cpu.expectation(obs)) < 50 * TOL[dtype]
    assert abs(gpu.norm_squared() - 1) < 10 * TOL[dtype]
    assert abs(gpu.inner(gpu) - 1) < 10 * TOL[dtype]
    counts = gpu.sample(200_000, seed=11)
    assert counts == gpu.sample(200_000, seed=11)  # the same seed, the same counts
    p = cpu.probabilities()
    for bits, count in counts.items():
        expected = 200_000 * p[int(bits, 2)]
        assert abs(count - expected) <= 5 * np.sqrt(expected) + 5


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_batch_runs_in_one_launch_per_gate_and_equals_row_by_row(dtype):
    n, batch = 9, 5
    rng = np.random.default_rng(8)
    host = np.stack([random_state(n, rng) for _ in range(batch)]).astype(dtype)
    circuit = gq.library.qft(n) + gq.library.random_circuit(n, 2, seed=4)
    want = gq.apply_batch(circuit, host.copy())
    got = gq.apply_batch(circuit, cupy.asarray(host))
    np.testing.assert_allclose(cupy.asnumpy(got), want, atol=TOL[dtype] * 100)


@pytest.mark.parametrize("n", [4, 10, 12, 16])
@pytest.mark.parametrize("dtype", DTYPES)
def test_iqp_encoding_on_the_gpu_equals_the_cpu_route(n, dtype):
    rng = np.random.default_rng(n)
    data = rng.uniform(-1, 1, size=n + n * (n - 1) // 2)
    cpu = gq.iqp_encode(data, numbers=dtype).amplitudes
    gpu = gq.iqp_encode(data, numbers=dtype, device="gpu")
    assert gpu.backend.name == "cupy"
    np.testing.assert_allclose(gpu.to_numpy(), cpu, atol=TOL[dtype] * n * 10)
    batch = np.stack([data, 0.5 * data, -data])
    np.testing.assert_allclose(
        cupy.asnumpy(gq.iqp_encode(batch, numbers=dtype, device="gpu")),
        gq.iqp_encode(batch, numbers=dtype),
        atol=TOL[dtype] * n * 10,
    )


def test_large_states_use_64_bit_indices_and_device_memory_checks():
    psi = gq.zeros(31, numbers="complex64", device="gpu") if _free_gib() > 20 else None
    if psi is not None:  # 16 GiB: indices past 2**31
        psi.apply(gq.Circuit(31).x(30).h(30))
        assert abs(complex(psi.amplitudes[2**30]) + 2**-0.5) < 1e-6
        del psi
    with pytest.raises(gq.StateTooLargeError, match="GPU memory"):
        gq.zeros(40, numbers="complex128", device="gpu")


def _free_gib() -> float:
    return cupy.cuda.runtime.memGetInfo()[0] / 2**30


@pytest.mark.parametrize("marks", [pytest.param(0, marks=DEVICE_MARKS)], ids=["device"])
def test_second_process_loads_kernels_from_the_disk_cache(tmp_path, marks):
    """A second process compiles nothing: every kernel it needs is read back from the disk cache."""
    probe = (
        "import genqsim as gq;"
        "psi=gq.zeros(20, numbers='complex64', device='gpu');"
        "psi.apply(gq.Circuit(20).h(3).cz(2, 5));"
        "print(abs(complex(psi.amplitudes.sum().get())))"
    )
    cache = tmp_path / "kernel_cache"
    env = {**os.environ, "CUPY_CACHE_DIR": str(cache)}

    def written() -> dict[str, int]:
        return {f.name: f.stat().st_mtime_ns for f in cache.iterdir()} if cache.exists() else {}

    after = []
    for _ in range(2):  # from an empty folder: `python -c` puts the working directory first
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                              cwd=tmp_path, env=env)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        # (|0> + |1>) / sqrt 2 on one qubit: the amplitudes add up to sqrt 2
        assert float(done.stdout) == pytest.approx(2**0.5, rel=1e-5)
        after.append(written())
    assert any(name.endswith(".cubin") for name in after[0]), after[0]
    assert after[1] == after[0]


@pytest.mark.parametrize("dtype", DTYPES)
def test_measurement_collapse_and_normalise_on_the_device(dtype):
    c = gq.Circuit(3).h(0).cx(0, 1).measure(0, 0).h(2)
    cpu = gq.simulate(c, numbers=dtype, seed=4)
    gpu = gq.simulate(c, numbers=dtype, seed=4, device="gpu")
    assert gpu.clbits == cpu.clbits
    np.testing.assert_allclose(gpu.to_numpy(), cpu.to_numpy(), atol=TOL[dtype])
    gpu.apply_matrix(np.diag([2.0, 1.0]), 2).normalize()
    assert abs(gpu.norm_squared() - 1) < 10 * TOL[dtype]


def test_adjoint_gradients_on_the_gpu_equal_forward_mode_on_the_cpu():
    """``device="gpu"``: the adjoint sweep's three states on the device, every gate kind of
    the sweep (one-target rotations, controlled and multi-target ones, a U gate through the
    third state), against forward mode on the CPU."""
    from genqsim.differentiation.gradients import value_and_gradient

    a, b, c = gq.parameters("a b c")
    n = 12
    circuit = gq.Circuit(n)
    for layer in range(3):
        for q in range(n):
            circuit.ry(a * (q + 1) + layer, q).rz(b - q, q)
        for q in range(layer % 2, n - 1, 2):
            circuit.cx(q, q + 1)
        circuit.crx(c, 0, n - 1).rzz(a + c, 2, 7).u(b, c, a, 5).cp(a * b, 3, 4)
    values = {a: 0.31, b: -0.72, c: 1.13}
    observable = "Z0 Z1 - 0.5*X3 + 0.25*Y5 Y6"
    want = gq.gradient(circuit, observable, values, mode="forward")
    value, got = value_and_gradient(circuit, observable, values, device="gpu")
    energy = gq.simulate(circuit.bind(values)).expectation(observable)
    assert abs(value - energy) < 1e-10
    for p in values:
        assert abs(got[p] - want[p]) < 1e-10, (p, got[p], want[p])


@pytest.mark.parametrize("steps", [3, 5])
def test_pauli_propagation_on_the_gpu_equals_the_cpu(steps):
    """Packed Pauli strings propagated in GPU memory (CuPy) give the CPU's kernels' value,
    truncated weight and strings on a 60-qubit kicked Ising circuit (RX kicks, RZZ(-pi/2)
    on a ring), with and without truncation."""
    n = 60
    c = gq.Circuit(n)
    for _ in range(steps):
        for q in range(n):
            c.rx(0.6, q)
        for q in range(n):
            c.rzz(-np.pi / 2, q, (q + 1) % n)
    for cutoff in (0.0, 1e-4):
        gpu = gq.heisenberg(c, "Z30 + 0.5*X29 Y30", min_abs_coeff=cutoff, device="gpu")
        cpu = gq.heisenberg(c, "Z30 + 0.5*X29 Y30", min_abs_coeff=cutoff)
        assert gpu.value == pytest.approx(cpu.value, abs=1e-12)
        assert gpu.truncated_weight == pytest.approx(cpu.truncated_weight, abs=1e-12)
        assert gpu.peak_terms == cpu.peak_terms
        mine = {(x, z): v for v, x, z in gpu._terms()}
        assert mine.keys() == {(x, z) for _, x, z in cpu._terms()}
    state = gq.simulate(c, method="pauli", device="gpu")
    assert state.expectation("Z30") == pytest.approx(gq.heisenberg(c, "Z30").value, abs=1e-12)
