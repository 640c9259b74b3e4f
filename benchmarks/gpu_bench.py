"""GPU benchmark: genqsim's CuPy backend against the device's copy bandwidth and, where they
are installed, qibojit's cupy platform and cuStateVec (cuquantum). Not a test.

    python benchmarks/gpu_bench.py [--quick] [--repeat 5] [--json out.json]

Cases: single gates (H, X, T, CNOT, U; target 2 and n-2) for n = 24..30 in complex64 and
complex128; QFT 28 and random 26 (20 layers) through ``apply`` (the circuit applied again:
its plan kept from the first time), through ``apply`` on a circuit never applied before
(planning included), without fusion, as a plan built beforehand (GPU time alone), and one
kernel launch per gate; IQP encoding for n = 4, 10, 16, 20, one sample and a batch. Every
time is the best of ``--repeat`` runs on an existing state, measured with CUDA events (kernel
time, no host synchronisation inside).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

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


def plan_case(circuit: gq.Circuit, dtype: str, repeat: int, tiles: bool) -> float:
    """The circuit's plan, built beforehand, on the GPU alone: as ``apply`` plans it (fused
    gates in shared-memory tile runs), or with ``tiles=False`` one kernel launch per gate
    (neither fusion nor tile runs, the baseline those are measured against)."""
    from genqsim.numbers import get_number_system
    from genqsim.plan.build import build_plan, plan_for_backend, run_plan

    numbers = get_number_system(dtype)
    if tiles:
        plan = plan_for_backend(circuit, numbers, gq.get_backend("cupy"))
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    cupy = _cupy()
    props = cupy.cuda.runtime.getDeviceProperties(0)
    bw = copy_bandwidth(args.repeat)
    print(f"device: {props['name'].decode()}, copy bandwidth {bw / 1e9:.0f} GB/s", flush=True)
    sizes = (16, 18) if args.quick else (24, 26, 28, 30)
    rows, results = [], {}

    def record(label, t, peer=None, nbytes=None):
        results[label] = {"genqsim": t, "qibojit": peer}
        frac = f"{nbytes / t / bw:.0%}" if nbytes else ""
        ratio = f"{t / peer:.2f}" if isinstance(peer, float) else str(peer or "")
        rows.append(f"| {label} | {t * 1e3:.3f} ms | {frac} | {ratio} |")
        print(rows[-1], flush=True)

    print("| case | genqsim | bandwidth | / qibojit-cupy |\n|---|---|---|---|")
    for dtype in ("complex64", "complex128"):
        item = 8 if dtype == "complex64" else 16
        for n in sizes:
            for name, add in GATES.items():
                for where, q in (("low", 2), ("high", n - 2)):
                    c = gq.Circuit(n)
                    add(c, q)
                    t = genqsim_case(c, dtype, args.repeat, False)
                    peer = qibojit_case(c, dtype, args.repeat) if n <= 28 else None
                    record(f"{name} {where} n={n} {dtype}", t, peer, 2 * item * 2**n)
    n_qft, n_rand = (16, 14) if args.quick else (28, 26)
    for label, circuit in (
        (f"qft n={n_qft}", gq.library.qft(n_qft)),
        (f"random n={n_rand} (20 layers)", gq.library.random_circuit(n_rand, 20, seed=1)),
    ):
        for dtype in ("complex64", "complex128"):
            repeat = max(1, args.repeat // 2)
            peer = qibojit_case(circuit, dtype, 1)
            record(f"{label} {dtype}", genqsim_case(circuit, dtype, repeat, None), peer)
            first = first_apply_case(circuit, dtype, repeat)
            record(f"{label} {dtype}, first apply (planning included)", first, peer)
            record(f"{label} {dtype}, no fusion", genqsim_case(circuit, dtype, repeat, False))
            prebuilt = plan_case(circuit, dtype, repeat, tiles=True)
            record(f"{label} {dtype}, plan built beforehand", prebuilt)
            per_gate = plan_case(circuit, dtype, repeat, tiles=False)
            record(f"{label} {dtype}, one launch per gate", per_gate)
    for n in (4, 10, 16, 20):
        data = np.random.default_rng(n).uniform(-1, 1, size=n + n * (n - 1) // 2)
        batch = np.tile(data, (max(1, 2**22 >> n), 1))
        t1 = gpu_time(lambda d=data: gq.iqp_encode(d, device="gpu"), args.repeat)
        tb = gpu_time(lambda b=batch: gq.iqp_encode(b, device="gpu"), args.repeat)
        record(f"IQP n={n} one sample", t1)
        record(f"IQP n={n} batch of {len(batch)}", tb, None, 16 * batch.shape[0] * 2**n)
    try:
        import cuquantum  # noqa: F401

        print("cuStateVec: installed; comparison not yet wired in this script")
    except ImportError:
        print("cuStateVec (cuquantum-python): not installed, not compared")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"device": props["name"].decode(), "bandwidth": bw, "results": results,
                       "time": time.time()}, fh, indent=1)  # fmt: skip


if __name__ == "__main__":
    main()
