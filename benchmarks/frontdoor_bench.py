"""The front doors against the simulators their users would otherwise pick, in one process.

* Qiskit: an Estimator PUB (``efficient_su2`` ansatz, ``--points`` parameter points, two
  observables) on ``genqsim.qiskit.Estimator``, Qiskit's ``StatevectorEstimator`` and Aer's
  ``EstimatorV2``; a Sampler PUB (the same ansatz measured, 1,000 shots a point) on
  ``genqsim.qiskit.Sampler``, ``StatevectorSampler`` and Aer's ``SamplerV2``.
* PennyLane: value and gradient of ``StronglyEntanglingLayers`` (2 layers) on
  ``genqsim.qubit`` (adjoint), ``default.qubit`` (backprop and adjoint) and
  ``lightning.qubit`` (adjoint); and mid-circuit measurements without shots (``n // 2`` of
  them, each reset and controlling an RX, between layers of RY and a CNOT chain): the tree
  traversal of ``genqsim.qubit`` against ``default.qubit``'s and ``lightning.qubit``'s tree
  traversals and ``default.qubit``'s deferred measurements (a wire per measurement).
* Cirq: ``simulate_expectation_values_sweep`` over ``--points`` points of a random
  parametrised circuit on ``genqsim.cirq.Simulator`` and ``cirq.Simulator``.

Each time is the best of ``--repeats`` after one untimed call; ratios are genqsim's time over
the peer's (below 1 genqsim is faster). Results are checked equal before timing.

    python benchmarks/frontdoor_bench.py [--qubits 4 8 12] [--points 50] [--repeats 3] [--threads 1]
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable

import numpy as np


def best(repeats: int, fn: Callable[[], object]) -> float:
    fn()
    out = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t0)
    return out


def ratios(label: str, ours: float, peers: dict[str, float]) -> None:
    parts = " | ".join(f"{name} {t * 1e3:8.1f} ms ({ours / t:5.2f}x)" for name, t in peers.items())
    print(f"{label:28s} genqsim {ours * 1e3:8.1f} ms | {parts}")


def qiskit_cases(n: int, points: int, repeats: int) -> None:
    from qiskit.circuit.library import efficient_su2
    from qiskit.primitives import StatevectorEstimator, StatevectorSampler
    from qiskit.quantum_info import SparsePauliOp
    from qiskit_aer.primitives import EstimatorV2, SamplerV2

    from genqsim.qiskit import Estimator, Sampler

    ansatz = efficient_su2(n, reps=2)
    values = np.random.default_rng(1).uniform(-np.pi, np.pi, (points, ansatz.num_parameters))
    zz = "Z" * 2 + "I" * (n - 2)
    observables = [[SparsePauliOp([zz])], [SparsePauliOp(["X" * n, "Y" * n], [0.5, 0.5])]]
    pub = (ansatz, observables, values)
    ours = Estimator().run([pub]).result()[0].data.evs
    assert np.allclose(ours, StatevectorEstimator().run([pub]).result()[0].data.evs, atol=1e-10)
    ratios(
        f"Estimator n={n} x{points}",
        best(repeats, lambda: Estimator().run([pub]).result()),
        {
            "Statevector": best(repeats, lambda: StatevectorEstimator().run([pub]).result()),
            "Aer": best(repeats, lambda: EstimatorV2().run([pub]).result()),
        },
    )
    measured = ansatz.measure_all(inplace=False)
    spub = (measured, values)
    ratios(
        f"Sampler n={n} x{points}",
        best(repeats, lambda: Sampler(seed=1).run([spub], shots=1000).result()),
        {
            "Statevector": best(
                repeats, lambda: StatevectorSampler(seed=1).run([spub], shots=1000).result()
            ),
            "Aer": best(repeats, lambda: SamplerV2(seed=1).run([spub], shots=1000).result()),
        },
    )


def pennylane_cases(n: int, repeats: int) -> None:
    import pennylane as qml
    from pennylane import numpy as pnp

    shape = qml.StronglyEntanglingLayers.shape(n_layers=2, n_wires=n)
    weights = pnp.array(np.random.default_rng(2).uniform(-3, 3, shape), requires_grad=True)

    def energy(w):
        qml.StronglyEntanglingLayers(w, wires=range(n))
        return qml.expval(qml.PauliZ(0) @ qml.PauliZ(1) + 0.5 * qml.PauliX(n - 1))

    def gradient(device: str, diff_method: str) -> Callable[[], object]:
        node = qml.QNode(energy, qml.device(device, wires=n), diff_method=diff_method)
        return lambda: qml.grad(node)(weights)

    ours = gradient("genqsim.qubit", "adjoint")
    assert np.allclose(ours(), gradient("default.qubit", "backprop")(), atol=1e-9)
    peers = {
        "default backprop": best(repeats, gradient("default.qubit", "backprop")),
        "default adjoint": best(repeats, gradient("default.qubit", "adjoint")),
    }
    try:
        peers["lightning adjoint"] = best(repeats, gradient("lightning.qubit", "adjoint"))
    except Exception as exc:  # a missing peer is reported, not fatal
        print(f"  (lightning.qubit unavailable: {exc})")
    ratios(f"PennyLane grad n={n}", best(repeats, ours), peers)


def pennylane_mcm_cases(n: int, repeats: int) -> None:
    import pennylane as qml

    count = max(1, n // 2)
    angles = np.random.default_rng(4).uniform(0, np.pi, (count + 1, n))

    def circuit():
        measured = []
        for layer in range(count + 1):
            for w in range(n):
                qml.RY(angles[layer, w], w)
            for w in range(n - 1):
                qml.CNOT([w, w + 1])
            if layer < count:
                m = qml.measure(layer % n, reset=True)
                qml.cond(m, qml.RX)(0.7, (layer + 3) % n)
                measured.append(m)
        return (qml.expval(qml.PauliZ(0) @ qml.PauliZ(n - 1)), qml.probs(wires=[0, 1]),
                qml.probs(op=measured[:3]), qml.expval(sum(measured)))  # fmt: skip

    def run(device: str, method: str, wires: int | None = None) -> Callable[[], object]:
        dev = qml.device(device) if wires is None else qml.device(device, wires=wires)
        return qml.QNode(circuit, dev, mcm_method=method)

    ours = run("genqsim.qubit", "tree-traversal", n)
    reference = run("default.qubit", "tree-traversal")()
    assert all(np.allclose(a, b, atol=1e-10) for a, b in zip(ours(), reference))
    peers = {
        "default tree": best(repeats, run("default.qubit", "tree-traversal")),
        "default deferred": best(repeats, run("default.qubit", "deferred")),
    }
    try:
        peers["lightning tree"] = best(repeats, run("lightning.qubit", "tree-traversal", n))
    except Exception as exc:  # a missing peer is reported, not fatal
        print(f"  (lightning.qubit's tree traversal unavailable: {exc})")
    ratios(f"PennyLane {count} MCMs n={n}", best(repeats, ours), peers)


def cirq_cases(n: int, points: int, repeats: int) -> None:
    import cirq
    import sympy

    from genqsim.cirq import Simulator

    qubits = cirq.LineQubit.range(n)
    symbols = sympy.symbols(f"t0:{n}")
    ops = []
    for layer in range(3):
        ops += [cirq.ry(symbols[q]).on(q_) for q, q_ in enumerate(qubits)]
        ops += [cirq.CZ(a, b) for a, b in zip(qubits[layer % 2 :: 2], qubits[layer % 2 + 1 :: 2])]
    circuit = cirq.Circuit(ops)
    rng = np.random.default_rng(3)
    sweep = cirq.ListSweep(
        [{str(s): float(v) for s, v in zip(symbols, rng.uniform(-3, 3, n))} for _ in range(points)]
    )
    observables = [cirq.Z(qubits[0]) * cirq.Z(qubits[1]), cirq.X(qubits[-1])]
    ours = Simulator(dtype=np.complex128)
    theirs = cirq.Simulator(dtype=np.complex128)
    a = ours.simulate_expectation_values_sweep(circuit, observables, sweep)
    b = theirs.simulate_expectation_values_sweep(circuit, observables, sweep)
    assert np.allclose(a, b, atol=1e-10)
    ratios(
        f"Cirq expectation n={n} x{points}",
        best(repeats, lambda: ours.simulate_expectation_values_sweep(circuit, observables, sweep)),
        {
            "cirq.Simulator": best(
                repeats,
                lambda: theirs.simulate_expectation_values_sweep(circuit, observables, sweep),
            )
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qubits", type=int, nargs="+", default=[4, 8, 12])
    parser.add_argument("--points", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None, help="genqsim's CPU threads")
    args = parser.parse_args()
    if args.threads is not None:
        import genqsim as gq

        gq.set_num_threads(args.threads)
        print(f"# genqsim threads: {args.threads}")
    for n in args.qubits:
        qiskit_cases(n, args.points, args.repeats)
        pennylane_cases(n, args.repeats)
        pennylane_mcm_cases(n, args.repeats)
        cirq_cases(n, args.points, args.repeats)


if __name__ == "__main__":
    main()
