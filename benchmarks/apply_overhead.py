"""Host cost of ``StateVector.apply`` on small states, where planning rivals the kernels:
the whole call, the plan alone (``plan_for_backend``) and the run of a pre-built plan, for one
H gate on 12 qubits (NumPy and Numba backends) and 20 qubits (Numba), and the whole call for
a random circuit of depth 2. Best of 5 rounds, microseconds. Not a test.

    python benchmarks/apply_overhead.py [--gpu-host | --small]

``--small`` times a 4-layer ansatz on 9-16 qubits applied again and again on the Numba
backend: gate by gate (a plan's first two applies), the third apply (which encodes the runs
over the whole state that every later apply runs) and the applies after it, against qulacs
updating its own state with the same circuit in the same process, with 1 and 2 threads.

``--gpu-host`` measures instead the CuPy backend's host work per gate on any machine: CuPy
is replaced by a stand-in whose kernels (and driver launches, for launches packed on a kept
plan) count their launches and do nothing, and each
single-gate case of ``gpu_bench.py`` (H, X, T, CNOT, U on qubit 2 and n - 2, 24 qubits,
complex64 and complex128) is applied again as that benchmark does, the gate's plan kept on
its circuit; then random circuits of 16 and 20 qubits (20 layers), whose plans run in
shared-memory tile runs. On a GPU the time between two launches is this plus CuPy's own
launch, and at 24 qubits a kernel streams the state in about 0.07 ms (H200), so this host
work shows.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import sys
import time
import types
from collections.abc import Callable
from typing import Any

import numpy as np

import genqsim as gq
from genqsim.plan.build import plan_for_backend, run_plan


def best_us(job: Callable[[], object], calls: int) -> float:
    """Best mean time of ``calls`` calls of ``job`` over five rounds, after a warm-up."""
    for _ in range(50):
        job()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            job()
        best = min(best, (time.perf_counter() - start) / calls * 1e6)
    return best


def report(n: int, backend: str) -> None:
    """One case: one H gate, then a random circuit of depth 2, on ``n`` qubits."""
    psi = gq.zeros(n, backend=backend)
    one = gq.Circuit(n).h(3)
    plan = plan_for_backend(one, psi.numbers, psi.backend, None)
    calls = 5000 if n == 12 else 500
    whole = best_us(lambda: psi.apply(one), calls)
    planning = best_us(lambda: plan_for_backend(one, psi.numbers, psi.backend, None), calls)
    running = best_us(lambda: run_plan(plan, psi.backend, psi.amplitudes), calls)
    print(f"n={n} {backend}, one H: apply {whole:.1f} us = plan {planning:.1f} us + run "
          f"{running:.1f} us + the rest")  # fmt: skip
    layered = gq.library.random_circuit(n, 2, seed=1)
    print(f"   random circuit, depth 2 ({len(layered)} operations): apply "
          f"{best_us(lambda: psi.apply(layered), calls // 10):.1f} us")  # fmt: skip


def standin_cupy() -> types.ModuleType:
    """A module named ``cupy`` with what the CuPy backend's gate launches touch: arrays (NumPy
    arrays of a class in that module), modules whose kernels count their launches, one
    device."""
    module = types.ModuleType("cupy")
    module.__spec__ = importlib.machinery.ModuleSpec("cupy", None)
    module.__version__ = "stand-in"
    # a device array's pointer, as a packed launch reads it (`data.ptr`)
    pointer = types.SimpleNamespace(ptr=0)
    array_type = type("ndarray", (np.ndarray,), {"__module__": "cupy", "data": pointer})
    launches = [0]

    class RawKernel:  # CuPy's own launch, and its function for the driver's
        kernel = types.SimpleNamespace(ptr=1)

        def __call__(self, grid, block, args, shared_mem=0) -> None:
            launches[0] += 1

    def launch_kernel(function, gx, gy, gz, bx, by, bz, shared, stream, table, extra) -> None:
        launches[0] += 1

    class RawModule:
        def __init__(self, code: str, options: tuple = ()) -> None:
            pass

        def get_function(self, name: str) -> RawKernel:
            return RawKernel()

    runtime = types.SimpleNamespace(
        getDevice=lambda: 0,
        getDeviceCount=lambda: 1,
        memGetInfo=lambda: (1 << 40, 1 << 40),
        getDeviceProperties=lambda device: {"multiProcessorCount": 132, "name": b"stand-in"},
    )
    driver = types.SimpleNamespace(launchKernel=launch_kernel, CUDADriverError=RuntimeError)
    stream = types.SimpleNamespace(ptr=0)
    module.ndarray, module.RawModule, module.launches = array_type, RawModule, launches
    module.cuda = types.SimpleNamespace(runtime=runtime, driver=driver,
                                        get_current_stream=lambda: stream)  # fmt: skip
    module.zeros = lambda shape, dtype=float: np.zeros(shape, dtype).view(array_type)
    module.asarray = lambda a, dtype=None: np.asarray(a, dtype).view(array_type)
    return module


def gpu_host_report(n: int = 24) -> None:
    """The CuPy backend's host work per single gate, on the stand-in CuPy."""
    sys.modules["cupy"] = cupy = standin_cupy()
    gates = {
        "H": lambda c, q: c.h(q),
        "X": lambda c, q: c.x(q),
        "T": lambda c, q: c.t(q),
        "CNOT": lambda c, q: c.cx(q + 1 if q + 1 < n else 0, q),
        "U": lambda c, q: c.u(0.3, 0.2, 0.1, q),
    }
    print(f"host work per gate, {n} qubits, CuPy replaced by a stand-in (no kernel runs)")
    print("| gate | qubit | dtype | psi.apply | run of the kept plan | launches |")
    print("|---|---|---|---:|---:|---:|")
    for dtype in ("complex64", "complex128"):
        psi = gq.zeros(n, numbers=dtype, device="gpu")
        assert psi.backend.name == "cupy", psi.backend
        for name, add in gates.items():
            for q in (2, n - 2):
                circuit = gq.Circuit(n)
                add(circuit, q)
                whole, running, launches = host_times(psi, circuit, cupy)
                print(f"| {name} | {q} | {dtype} | {whole:.1f} us | {running:.1f} us | "
                      f"{launches} |")  # fmt: skip
    print("\nwhole circuits (fused, shared-memory tile runs), applied again")
    print("| circuit | dtype | psi.apply | launches | per launch |\n|---|---|---:|---:|---:|")
    for n_random in (16, 20):
        for dtype in ("complex64", "complex128"):
            psi = gq.zeros(n_random, numbers=dtype, device="gpu")
            circuit = gq.library.random_circuit(n_random, 20, seed=1)
            whole, _, launches = host_times(psi, circuit, cupy, None, 50)
            print(f"| random {n_random} (20 layers) | {dtype} | {whole:.0f} us | {launches} | "
                  f"{whole / launches:.1f} us |")  # fmt: skip


def host_times(
    psi: gq.StateVector,
    circuit: gq.Circuit,
    cupy: types.ModuleType,
    fuse: bool | None = False,
    calls: int = 2000,
) -> tuple:
    """``psi.apply(circuit)`` again and again, the run of its kept plan alone (microseconds),
    and the kernels one apply launches."""
    whole = best_us(lambda: psi.apply(circuit, fuse=fuse), calls)
    plan = plan_for_backend(circuit, psi.numbers, psi.backend, fuse, keep=True)
    running = best_us(lambda: run_plan(plan, psi.backend, psi.amplitudes), calls)
    cupy.launches[0] = 0
    psi.apply(circuit, fuse=fuse)
    return whole, running, cupy.launches[0]


def ansatz_gates(n: int, layers: int = 4, angles: np.ndarray | None = None) -> list[tuple]:
    """A hardware-efficient ansatz as ``(name, qubit, angle or control)`` steps: RY and RZ on
    every qubit, then a CX ladder, per layer (``angles``: the ``2 n layers`` angles in order;
    default fixed ones). Both simulators build it from these steps."""
    if angles is None:
        angles = 0.1 * np.arange(1, 2 * n * layers + 1)
    steps: list[tuple] = []
    k = 0
    for _ in range(layers):
        for q in range(n):
            steps += [("ry", q, float(angles[k])), ("rz", q, float(angles[k + 1]))]
            k += 2
        steps += [("cx", q + 1, q) for q in range(n - 1)]
    return steps


def ansatz(n: int, layers: int = 4, angles: np.ndarray | None = None) -> gq.Circuit:
    """:func:`ansatz_gates` as a genqsim circuit."""
    circuit = gq.Circuit(n)
    for name, qubit, value in ansatz_gates(n, layers, angles):
        if name == "cx":
            circuit.cx(value, qubit)
        else:
            getattr(circuit, name)(value, qubit)
    return circuit


def _qulacs_circuit(steps: list[tuple], n: int) -> Any:
    """:func:`ansatz_gates` steps as a qulacs circuit (qulacs rotates by
    ``exp(+i theta/2 P)``, hence the negated angles)."""
    import qulacs
    from qulacs import gate as qgate

    qc = qulacs.QuantumCircuit(n)
    for name, qubit, value in steps:
        if name == "cx":
            qc.add_gate(qgate.CNOT(value, qubit))
        else:
            qc.add_gate({"ry": qgate.RY, "rz": qgate.RZ}[name](qubit, -value))
    return qc


def _has_qulacs() -> bool:
    return importlib.util.find_spec("qulacs") is not None


def new_circuits_report(n: int = 12, points: int = 60) -> None:
    """A loop that binds new angles each time (an optimiser's): the ansatz built, planned and
    run anew for each point, best of ``points``; qulacs building and updating its own."""
    rng = np.random.default_rng(1)
    psi = gq.zeros(n, backend="numba")
    psi.apply(ansatz(n))  # kernels loaded
    best = {"build": np.inf, "plan": np.inf, "apply": np.inf, "qulacs": np.inf}
    if _has_qulacs():
        import qulacs

        def make_qulacs(angles: np.ndarray) -> None:
            qc = _qulacs_circuit(ansatz_gates(n, 4, angles), n)
            qc.update_quantum_state(qulacs.QuantumState(n))
    else:
        make_qulacs = None
    for _ in range(points):
        angles = rng.normal(size=8 * n)
        start = time.perf_counter()
        circuit = ansatz(n, 4, angles)
        built = time.perf_counter()
        plan_for_backend(circuit, psi.numbers, psi.backend, None)
        planned = time.perf_counter()
        gq.zeros(n, backend="numba").apply(ansatz(n, 4, angles))
        applied = time.perf_counter()
        best["build"] = min(best["build"], built - start)
        best["plan"] = min(best["plan"], planned - built)
        best["apply"] = min(best["apply"], applied - planned)
        if make_qulacs is not None:
            start = time.perf_counter()
            make_qulacs(angles)
            best["qulacs"] = min(best["qulacs"], time.perf_counter() - start)
    ms = {key: value * 1e3 for key, value in best.items()}
    print(f"\na new {n}-qubit ansatz for each of {points} points (new angles), best: build "
          f"{ms['build']:.2f} ms, plan {ms['plan']:.2f} ms; build and apply "
          f"{ms['apply']:.2f} ms against qulacs building and updating its own "
          f"{ms['qulacs']:.2f} ms ({ms['apply'] / ms['qulacs']:.2f}x)")  # fmt: skip


def qulacs_circuit(n: int) -> Callable[[], None] | None:
    """qulacs updating its own state with the ansatz on ``n`` qubits (``None``: no qulacs),
    checked against genqsim's state first."""
    if not _has_qulacs():
        return None
    import qulacs

    qc = _qulacs_circuit(ansatz_gates(n), n)
    state = qulacs.QuantumState(n)
    reference = gq.zeros(n, backend="numpy").apply(ansatz(n)).amplitudes
    qc.update_quantum_state(state)
    assert np.allclose(state.get_vector(), reference, atol=1e-10), "qulacs differs"
    return lambda: qc.update_quantum_state(state)


def small_states_report(threads: int) -> None:
    """One ansatz applied again and again to a small state: gate by gate (its first two
    applies), the third apply (which encodes the runs over the whole state), and every later
    apply, against qulacs updating its own state with the same circuit."""
    gq.set_num_threads(threads)
    print(f"\nsmall states, a 4-layer ansatz applied again and again, {threads} thread(s); "
          "qulacs with its defaults")  # fmt: skip
    print("| qubits | gates | gate by gate | third apply | from then on | qulacs | / qulacs |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in (9, 10, 12, 14, 16):
        by_gate, third, again, peer_us = small_state_times(n)
        print(f"| {n} | {len(ansatz(n))} | {by_gate:.0f} us | {third:.0f} us | {again:.0f} us"
              f" | {peer_us:.0f} us | {again / peer_us:.2f} |")  # fmt: skip


def small_state_times(n: int) -> tuple[float, float, float, float]:
    """Microseconds of :func:`small_states_report`'s row for ``n`` qubits."""
    circuit = ansatz(n)
    rounds = 200 if n <= 12 else 20
    psi = gq.zeros(n, backend="numba")
    plan = plan_for_backend(circuit, psi.numbers, psi.backend, None)
    run_plan(plan, psi.backend, psi.amplitudes)
    by_gate = best_us(lambda: run_plan(plan, psi.backend, psi.amplitudes), rounds)
    third = []
    for _ in range(5):
        fresh = circuit.copy()
        psi.apply(fresh).apply(fresh)
        start = time.perf_counter()
        psi.apply(fresh)
        third.append((time.perf_counter() - start) * 1e6)
    again = best_us(lambda: psi.apply(circuit), rounds)
    peer = qulacs_circuit(n)
    peer_us = best_us(peer, rounds) if peer is not None else float("nan")
    return by_gate, min(third), again, peer_us


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gpu-host", action="store_true", help="the CuPy backend's host work")
    parser.add_argument("--small", action="store_true", help="small states applied repeatedly")
    args = parser.parse_args()
    if args.gpu_host:
        gpu_host_report()
        return
    if args.small:
        for threads in (1, 2):
            small_states_report(threads)
        new_circuits_report()
        return
    for n, backend in ((12, "numba"), (12, "numpy"), (20, "numba")):
        report(n, backend)


if __name__ == "__main__":
    main()
