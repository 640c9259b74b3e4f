"""GPU benchmark: genqsim's CuPy backend against the device's copy bandwidth and, where they
are installed, qibojit's cupy platform and cuStateVec (the ``custatevec-cu13`` wheel, called
through ctypes). Not a test.

    python benchmarks/gpu_bench.py [--quick] [--repeat 5] [--sizes 24,26,28,30] [--json out.json]

Cases: single gates (H, X, T, CNOT, U; target 2 and n-2) for the ``--sizes`` in complex64 and
complex128; QFT 28 and random 26 (20 layers) through ``apply`` (the circuit applied again:
its plan kept from the first time), through ``apply`` on a circuit never applied before
(planning included), without fusion, as a plan built beforehand (GPU time alone), with
diagonals merged, and one kernel launch per gate; IQP encoding for n = 4, 10, 16, 20, one
sample and a batch; a noisy density matrix of 12 and 14 qubits in the computational basis
and in Pauli coordinates. Every time is the best of ``--repeat`` runs on an existing state,
measured with CUDA events (kernel time, no host synchronisation inside).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np

import genqsim as gq


def _cupy():
    import cupy

    return cupy


def gpu_time(job: Callable[[], object], repeat: int) -> float:
    """Best wall time of ``job`` between two CUDA events, after one warm-up call."""
    cupy = _cupy()
    job()
    cupy.cuda.Device().synchronize()
    best = float("inf")
    for _ in range(repeat):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        job()
        stop.record()
        stop.synchronize()
        best = min(best, cupy.cuda.get_elapsed_time(start, stop) / 1e3)
    return best


def copy_bandwidth(repeat: int) -> float:
    cupy = _cupy()
    src = cupy.ones(1 << 27, dtype=cupy.float64)  # 1 GiB
    dst = cupy.empty_like(src)
    t = gpu_time(lambda: cupy.copyto(dst, src), repeat)
    return 2 * src.nbytes / t


GATES = {
    "H": lambda c, q: c.h(q),
    "X": lambda c, q: c.x(q),
    "T": lambda c, q: c.t(q),
    "CNOT": lambda c, q: c.cx(q + 1 if q + 1 < c.n_qubits else 0, q),
    "U": lambda c, q: c.u(0.3, 0.2, 0.1, q),
}


def released(value: Any) -> Any:
    """``value``, once the memory of the case that made it has gone back to the GPU."""
    _cupy().get_default_memory_pool().free_all_blocks()
    return value


def on_fresh_state(
    n: int, dtype: str, job: Callable[[gq.StateVector], object], repeat: int
) -> float:
    """:func:`gpu_time` of ``job(psi)`` on a new ``n``-qubit state, whose memory goes back to
    the pool afterwards."""

    def timed() -> float:
        psi = gq.zeros(n, numbers=dtype, device="gpu")
        return gpu_time(lambda: job(psi), repeat)

    t = timed()
    _cupy().get_default_memory_pool().free_all_blocks()  # the state is gone: give it back
    return t


def genqsim_case(circuit: gq.Circuit, dtype: str, repeat: int, fuse) -> float:
    """``psi.apply(circuit)`` again and again: the plan of the first time is kept on the
    circuit, so this is the GPU's time plus the host's launches."""
    return on_fresh_state(circuit.n_qubits, dtype, lambda psi: psi.apply(circuit, fuse=fuse),
                          repeat)  # fmt: skip


def first_apply_case(circuit: gq.Circuit, dtype: str, repeat: int) -> float:
    """``psi.apply`` of a circuit never applied before (a copy made beforehand for each
    run): the host's planning included."""
    copies = [circuit.copy() for _ in range(repeat + 1)]  # one for gpu_time's warm-up
    return on_fresh_state(circuit.n_qubits, dtype, lambda psi: psi.apply(copies.pop()), repeat)


def plan_case(
    circuit: gq.Circuit, dtype: str, repeat: int, tiles: bool, merged: bool = False
) -> float:
    """The circuit's plan, built beforehand, on the GPU alone: as ``apply`` plans it (fused
    gates in shared-memory tile runs), with ``merged=True`` with consecutive diagonals merged
    into diagonals of up to 4 qubits (16 rows, by value; one-qubit layers not split), or
    with ``tiles=False`` one kernel launch per gate (neither fusion nor tile runs, the
    baseline those are measured against)."""
    from dataclasses import replace

    from genqsim.numbers import get_number_system
    from genqsim.plan.build import build_plan, run_plan

    numbers = get_number_system(dtype)
    backend = gq.get_backend("cupy")
    if tiles:
        layout = backend.block_layout(np.dtype(dtype))
        if merged:
            layout = replace(layout, merged_diagonal_qubits=4, split_unitary_layers=False)
        plan = build_plan(circuit, numbers, None, layout=layout)
    else:
        plan = build_plan(circuit, numbers, fuse=False)  # no layout: no tile runs

    def run(psi: gq.StateVector) -> None:
        run_plan(plan, psi.backend, psi.amplitudes)

    return on_fresh_state(circuit.n_qubits, dtype, run, repeat)


def qibojit_case(circuit: gq.Circuit, dtype: str, repeat: int) -> float | str:
    try:
        import qibo
    except ImportError:
        return "not installed"
    cupy = _cupy()
    qibo.set_backend("qibojit", platform="cupy")
    qibo.set_dtype(dtype)
    backend = qibo.get_backend()
    n = circuit.n_qubits
    m = lambda q: n - 1 - q  # noqa: E731  (qibo's qubit 0 is the most significant bit)
    ops = []
    for op in circuit.operations:
        name, params = op.gate.name, [float(p) for p in op.gate.params]
        qs = [m(q) for q in op.controls + op.targets]
        if name == "x" and op.controls:
            ops.append(qibo.gates.CNOT(*qs) if len(qs) == 2 else qibo.gates.TOFFOLI(*qs))
        elif name == "cz" or (name == "z" and op.controls):
            ops.append(qibo.gates.CZ(*qs))
        elif name == "p" and op.controls:
            ops.append(qibo.gates.CU1(*qs, *params))
        elif name == "swap":
            ops.append(qibo.gates.SWAP(*qs))
        elif name == "u":
            ops.append(qibo.gates.U3(*qs, *params[:3]))
        else:
            ops.append(getattr(qibo.gates, name.upper())(*qs, *params))
    state = cupy.zeros(2**n, dtype=dtype)
    state[0] = 1

    def run():
        s = state
        for g in ops:
            s = backend.apply_gate(g, s, n)

    return gpu_time(run, repeat)


def _custatevec() -> Any:
    """cuStateVec's library through ctypes (the ``custatevec-cu13`` wheel, or the file named by
    ``CUSTATEVEC_LIBRARY``), with its cuBLAS loaded first; ``None`` where it is not found."""
    import ctypes
    import glob
    import os
    import sys

    path = os.environ.get("CUSTATEVEC_LIBRARY")
    if path is None:
        found = [f for d in sys.path for f in glob.glob(f"{d}/cuquantum/lib/libcustatevec.so*")]
        if not found:
            return None
        path = found[0]
    for name in ("libcublasLt.so.13", "libcublas.so.13"):
        try:
            ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        except OSError:  # not on the loader's path: the NVIDIA wheels' folders
            hits = [f for d in sys.path for f in glob.glob(f"{d}/nvidia/**/{name}", recursive=True)]
            if hits:
                ctypes.CDLL(hits[0], mode=ctypes.RTLD_GLOBAL)
    return ctypes.CDLL(path)


CUDA_C_32F, CUDA_C_64F = 4, 5
LAYOUT_ROW = 1


def custatevec_case(circuit: gq.Circuit, dtype: str, repeat: int) -> float | str:
    """``circuit`` gate by gate through ``custatevecApplyMatrix`` (host matrices, controls as
    controls), on a CuPy state; checked against genqsim's state before it is timed."""
    import ctypes

    lib = _custatevec()
    if lib is None:
        return "not installed"
    cupy = _cupy()
    from genqsim.numbers import get_number_system

    numbers = get_number_system(dtype)
    handle = ctypes.c_void_p()
    if lib.custatevecCreate(ctypes.byref(handle)):
        return "custatevecCreate failed"
    n = circuit.n_qubits
    kind = CUDA_C_64F if dtype == "complex128" else CUDA_C_32F
    calls = []
    for op in circuit.operations:
        matrix = np.ascontiguousarray(op.gate.matrix(numbers), dtype=dtype)
        targets = np.asarray(op.targets, dtype=np.int32)
        controls = np.asarray(op.controls, dtype=np.int32)
        values = np.asarray(op.control_values, dtype=np.int32)
        calls.append((matrix, targets, controls, values))
    state = cupy.zeros(2**n, dtype=dtype)

    def run() -> None:
        for matrix, targets, controls, values in calls:
            status = lib.custatevecApplyMatrix(
                handle, ctypes.c_void_p(state.data.ptr), kind, ctypes.c_uint32(n),
                matrix.ctypes.data_as(ctypes.c_void_p), kind, LAYOUT_ROW, ctypes.c_int32(0),
                targets.ctypes.data_as(ctypes.c_void_p), ctypes.c_uint32(len(targets)),
                controls.ctypes.data_as(ctypes.c_void_p), values.ctypes.data_as(ctypes.c_void_p),
                ctypes.c_uint32(len(controls)), 0, None, ctypes.c_size_t(0),
            )  # fmt: skip
            if status:
                raise RuntimeError(f"custatevecApplyMatrix returned status {status}")

    state[0] = 1
    run()
    diff = float(
        cupy.abs(state - gq.zeros(n, numbers=dtype, device="gpu").apply(circuit).amplitudes).max()
    )
    tolerance = 1e-4 if dtype == "complex64" else 1e-10
    t = gpu_time(run, repeat) if diff <= tolerance else f"differs from genqsim by {diff:.1e}"
    lib.custatevecDestroy(handle)
    return t


QUEUED = 50
"""Launches queued back to back where a row times the GPU's own work per launch."""


@cache
def series_kernel(dtype: str, series: int) -> Any:
    """``apply_op_narrow`` compiled with ``series`` series of 32 subspaces a thread (the
    backend compiles ``NARROW_SERIES``); from 4 on, with 4 blocks an SM so it does not
    spill."""
    import re

    from genqsim.backends.cupy_backend import kernel_source

    source = re.sub(r"#define NARROW_SERIES \d+", f"#define NARROW_SERIES {series}",
                    kernel_source(dtype))  # fmt: skip
    if series > 2:
        source = source.replace("sizeof(real_t) == 4 ? 8 : 6", "4")
    module = _cupy().RawModule(code=source, options=("--std=c++14",))
    return module.get_function("apply_op_narrow")


def launch_breakdown(
    n: int, dtype: str, gate: str, qubit: int, repeat: int
) -> dict[str, float | str]:
    """Where the time of one gate on ``n`` qubits goes (``gpu_bench.py --launches``): ``psi.apply``
    alone and ``QUEUED`` of them back to back (per apply: at 24 qubits and up the GPU's own
    time, the host's launches hidden behind the kernels), the kept launch packed for the
    driver and CuPy's own launch of the same kernel and arguments, the host's time per call
    without waiting for the GPU; queued, the kernel as the backend compiles it, with 1 and 4
    series a thread (:func:`series_kernel`), the candidate that moves neighbouring pairs
    (``apply_op_pairs``, where qubit 0 is free) and the kernel of every width (``apply_op``);
    cuStateVec alone and queued."""
    from genqsim.backends.cupy_backend import THREADS, _kernel, _launch_size, kept_launch
    from genqsim.numbers import get_number_system
    from genqsim.plan.build import plan_for_backend

    cupy = _cupy()
    circuit = gq.Circuit(n)
    GATES[gate](circuit, qubit)
    psi = gq.zeros(n, numbers=dtype, device="gpu")
    psi.apply(circuit, fuse=False)
    (call,) = plan_for_backend(circuit, get_number_system(dtype), psi.backend, False, keep=True)
    state = psi.amplitudes
    launch = kept_launch(call, np.dtype(dtype), state.shape)
    args = (state, *launch.arguments)
    work = int(launch.arguments[1]) * int(launch.arguments[3])  # iterations times batch

    def grid(series: int) -> tuple[int, ...]:
        return _launch_size(-(-work // series))[0]  # the backend's grid, series a thread

    def queued(job: Callable[[], object]) -> float:
        return gpu_time(lambda: [job() for _ in range(QUEUED)], repeat) / QUEUED

    def host_us(job: Callable[[], object], calls: int = 400) -> float:
        cupy.cuda.Device().synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            job()
        elapsed = time.perf_counter() - start
        cupy.cuda.Device().synchronize()
        return elapsed / calls

    def run_kernel(kernel: Any, series: int) -> Callable[[], None]:
        return lambda: kernel(grid(series), (THREADS,), args)

    apply = lambda: psi.apply(circuit, fuse=False)  # noqa: E731
    rows: dict[str, float | str] = {
        "kernel": launch.kernel.name,  # CuPy's RawKernel: its function's name
        "apply": gpu_time(apply, repeat),
        "apply queued": queued(apply),
        "apply host": host_us(apply),
        "packed launch": gpu_time(lambda: launch.packed(state), repeat),
        "packed host": host_us(lambda: launch.packed(state)),
        "CuPy launch": gpu_time(lambda: launch.kernel(launch.grid, (THREADS,), args), repeat),
        "CuPy host": host_us(lambda: launch.kernel(launch.grid, (THREADS,), args)),
        "packed queued": queued(lambda: launch.packed(state)),
        "apply_op queued": queued(run_kernel(_kernel(np.dtype(dtype), "apply_op"), 1)),
    }
    if rows["kernel"] == "apply_op_narrow":
        for series in (1, 4):
            rows[f"series {series} queued"] = queued(run_kernel(series_kernel(dtype, series),
                                                                series))  # fmt: skip
        if min(call.qubits) > 0:  # qubit 0 free: the candidate that moves neighbouring pairs
            rows["pairs queued"] = queued(run_kernel(_kernel(np.dtype(dtype), "apply_op_pairs"), 2))
    many = gq.Circuit(n)
    for _ in range(QUEUED):
        GATES[gate](many, qubit)
    rows["cuStateVec"] = released(custatevec_case(circuit, dtype, repeat))
    total = released(custatevec_case(many, dtype, repeat))
    rows["cuStateVec queued"] = total / QUEUED if isinstance(total, float) else total
    _cupy().get_default_memory_pool().free_all_blocks()
    return rows


def launch_table(sizes: Sequence[int], repeat: int) -> dict:
    """:func:`launch_breakdown` of H, T, CNOT and U on qubits 2 and n - 2, as a table
    (microseconds)."""
    keys = ("apply", "apply queued", "apply host", "packed launch", "packed host", "CuPy launch",
            "CuPy host", "packed queued", "series 1 queued", "series 4 queued", "pairs queued",
            "apply_op queued", "cuStateVec", "cuStateVec queued")  # fmt: skip
    print(f"\none gate, microseconds (queued: {QUEUED} back to back, per launch; host: the "
          "host's time per call, not waiting for the GPU)")  # fmt: skip
    print(f"| case | {' | '.join(keys)} |\n|---|{'---:|' * len(keys)}")
    results = {}
    for dtype in ("complex64", "complex128"):
        for n in sizes:
            for gate in ("H", "T", "CNOT", "U"):
                for where, qubit in (("low", 2), ("high", n - 2)):
                    label = f"{gate} {where} n={n} {dtype}"
                    try:
                        rows = launch_breakdown(n, dtype, gate, qubit, repeat)
                    except Exception as exc:  # a broken row says why; the benchmark goes on
                        print(f"| {label} | {type(exc).__name__}: {exc} |", flush=True)
                        continue
                    results[label] = rows
                    cells = [f"{rows[k] * 1e6:.1f}" if isinstance(rows.get(k), float)
                             else str(rows.get(k, "")) for k in keys]  # fmt: skip
                    print(f"| {label} | {' | '.join(cells)} |", flush=True)
    return results


def density_case(n: int, layers: int, pauli_basis: bool, repeat: int) -> float:
    """A noisy random circuit (U layers and a CX brick, depolarizing after every gate; the
    circuit of ``noise_bench.py``) on an ``n``-qubit density matrix on the GPU, complex128,
    applied again (its run kept), in the computational basis or Pauli coordinates."""
    from noise_bench import genqsim_circuit, random_layers

    from genqsim.states.density import DensityOptions

    circuit = genqsim_circuit(n, random_layers(n, layers, seed=n))
    options = DensityOptions(pauli_basis=pauli_basis)
    rho = gq.DensityMatrix.zeros(n, "complex128", device="gpu", options=options)
    return gpu_time(lambda: rho.apply(circuit), repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json")
    parser.add_argument(
        "--sizes", default="24,26,28,30", help="qubit counts of the single-gate cases (comma list)"
    )
    parser.add_argument(
        "--launches", help="first, where one gate's time goes at these qubit counts (comma list)"
    )
    parser.add_argument(
        "--gate-repeat", type=int, help="repeats of the single-gate cases (default: --repeat)"
    )
    args = parser.parse_args()
    cupy = _cupy()
    props = cupy.cuda.runtime.getDeviceProperties(0)
    bw = copy_bandwidth(args.repeat)
    print(f"device: {props['name'].decode()}, copy bandwidth {bw / 1e9:.0f} GB/s", flush=True)
    gate_repeat = args.gate_repeat or args.repeat
    breakdown = {}
    if args.launches:
        breakdown = launch_table([int(n) for n in args.launches.split(",")], gate_repeat)
    sizes = (16, 18) if args.quick else tuple(int(n) for n in args.sizes.split(","))
    rows, results = [], {}

    def record(label, t, peer=None, nbytes=None, cusv=None):
        results[label] = {"genqsim": t, "qibojit": peer, "custatevec": cusv}
        frac = f"{nbytes / t / bw:.0%}" if nbytes else ""
        ratios = [f"{t / p:.2f}" if isinstance(p, float) else str(p or "") for p in (peer, cusv)]
        rows.append(f"| {label} | {t * 1e3:.3f} ms | {frac} | {' | '.join(ratios)} |")
        print(rows[-1], flush=True)

    print("| case | genqsim | bandwidth | / qibojit-cupy | / cuStateVec |\n|---|---|---|---|---|")
    for dtype in ("complex64", "complex128"):
        item = 8 if dtype == "complex64" else 16
        for n in sizes:
            for name, add in GATES.items():
                for where, q in (("low", 2), ("high", n - 2)):
                    c = gq.Circuit(n)
                    add(c, q)
                    t = genqsim_case(c, dtype, gate_repeat, False)
                    peer = qibojit_case(c, dtype, gate_repeat) if n <= 28 else None
                    cusv = released(custatevec_case(c, dtype, gate_repeat))
                    record(f"{name} {where} n={n} {dtype}", t, peer, 2 * item * 2**n, cusv)
    n_qft, n_rand = (16, 14) if args.quick else (28, 26)
    for label, circuit in (
        (f"qft n={n_qft}", gq.library.qft(n_qft)),
        (f"random n={n_rand} (20 layers)", gq.library.random_circuit(n_rand, 20, seed=1)),
    ):
        for dtype in ("complex64", "complex128"):
            repeat = max(1, args.repeat // 2)
            peer = qibojit_case(circuit, dtype, 1)
            cusv = released(custatevec_case(circuit, dtype, repeat))
            again = genqsim_case(circuit, dtype, repeat, None)
            record(f"{label} {dtype}", again, peer, None, cusv)
            first = first_apply_case(circuit, dtype, repeat)
            record(f"{label} {dtype}, first apply (planning included)", first, peer)
            record(f"{label} {dtype}, no fusion", genqsim_case(circuit, dtype, repeat, False))
            prebuilt = plan_case(circuit, dtype, repeat, tiles=True)
            record(f"{label} {dtype}, plan built beforehand", prebuilt)
            merged = plan_case(circuit, dtype, repeat, tiles=True, merged=True)
            record(f"{label} {dtype}, plan built beforehand, diagonals merged", merged)
            per_gate = plan_case(circuit, dtype, repeat, tiles=False)
            record(f"{label} {dtype}, one launch per gate", per_gate)
    for n in (4, 10, 16, 20):
        data = np.random.default_rng(n).uniform(-1, 1, size=n + n * (n - 1) // 2)
        batch = np.tile(data, (max(1, 2**22 >> n), 1))
        t1 = gpu_time(lambda d=data: gq.iqp_encode(d, device="gpu"), args.repeat)
        tb = gpu_time(lambda b=batch: gq.iqp_encode(b, device="gpu"), args.repeat)
        record(f"IQP n={n} one sample", t1)
        record(f"IQP n={n} batch of {len(batch)}", tb, None, 16 * batch.shape[0] * 2**n)
    for n in (10, 12) if args.quick else (12, 14):
        for pauli_basis in (False, True):
            t = released(density_case(n, 10, pauli_basis, max(1, args.repeat // 2)))
            basis = "Pauli coordinates" if pauli_basis else "computational basis"
            record(f"density matrix n={n} (10 noisy layers), {basis}", t, None, None)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"device": props["name"].decode(), "bandwidth": bw, "results": results,
                       "launches": breakdown, "time": time.time()}, fh, indent=1)  # fmt: skip


if __name__ == "__main__":
    main()
