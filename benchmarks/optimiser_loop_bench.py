"""One parameter point at a time, as an optimiser's loop asks for them: genqsim against the
peers a user would call in that loop, in one process.

The circuit is ``adjoint_bench.py``'s hardware-efficient ansatz (``--layers`` layers of RY
and RZ on every qubit, then a ring of CNOTs), ``2 * n * layers`` angles; the observable is
``sum Z_q Z_q+1 + 0.5 sum X_q``. Every simulator is called with each of ``--points`` random
points alone, one after the other; the simulators take turns, a whole loop each, for
``--rounds`` rounds (so a slower spell of the machine falls on all of them), and each one's
best loop is printed as time a point. (Calling them in turn point by point instead slows
every one: the peers' OpenMP threads spin after their calls.)

* genqsim ``gq.expectation(template, H, values=point)`` (a sweep of one point of the
  template's plan, on the light cones where they are narrower);
* genqsim ``gq.simulate(template.bind(point)).expectation(H)`` (the bound circuit runs on
  its template's plan);
* qulacs: a ``ParametricQuantumCircuit`` built once, ``set_parameter`` for every angle, a
  new state updated, the observable's expectation;
* PennyLane ``lightning.qubit``: a QNode called with the point;
* Qiskit's ``StatevectorEstimator`` and Aer's ``EstimatorV2``: one binding a call.

Every peer's value is checked against genqsim's to 1e-9 at the first point. Ratios are
genqsim's time over the fastest peer's (below 1 genqsim is faster). A peer not installed is
left out.

    python benchmarks/optimiser_loop_bench.py [--qubits 4 8 12 16] [--points 60]
        [--layers 2] [--rounds 3] [--threads N]
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from collections.abc import Callable

import numpy as np
from adjoint_bench import genqsim_ansatz as ansatz  # the same ansatz as there
from adjoint_bench import pennylane_layers
from broadcast_bench import hamiltonian, numba_setup, qiskit_hamiltonian, qiskit_order

import genqsim as gq

Run = Callable[[np.ndarray], float]
"""A simulator's value of the observable at one point (the angles in order)."""


def genqsim_runs(c: gq.Circuit, thetas: tuple, h: str) -> dict[str, Run]:
    """The two ways a genqsim user evaluates one point."""
    return {
        "genqsim expectation(values=)": lambda row: gq.expectation(
            c, h, values=dict(zip(thetas, row.tolist()))
        ),
        "genqsim simulate(bind)": lambda row: gq.simulate(
            c.bind(dict(zip(thetas, row.tolist())))
        ).expectation(h),
    }


def qulacs_run(n: int, layers: int) -> dict[str, Run]:
    """qulacs's parametric circuit (it rotates by ``exp(+i theta/2 P)``: angles negated)."""
    if importlib.util.find_spec("qulacs") is None:
        return {}
    from qulacs import Observable, ParametricQuantumCircuit, QuantumState

    circuit = ParametricQuantumCircuit(n)
    for _ in range(layers):
        for q in range(n):
            circuit.add_parametric_RY_gate(q, 0.0)
            circuit.add_parametric_RZ_gate(q, 0.0)
        for q in range(n):
            circuit.add_CNOT_gate(q, (q + 1) % n)
    observable = Observable(n)
    for q in range(n):
        observable.add_operator(1.0, f"Z {q} Z {(q + 1) % n}")
        observable.add_operator(0.5, f"X {q}")

    def run(row: np.ndarray) -> float:
        for k, angle in enumerate(row.tolist()):
            circuit.set_parameter(k, -angle)
        state = QuantumState(n)
        circuit.update_quantum_state(state)
        return observable.get_expectation_value(state)

    return {"qulacs parametric": run}


def pennylane_run(n: int, layers: int) -> dict[str, Run]:
    """lightning.qubit, a QNode called with one point."""
    if importlib.util.find_spec("pennylane_lightning") is None:
        return {}
    import pennylane as qml

    obs = qml.sum(
        *[qml.PauliZ(q) @ qml.PauliZ((q + 1) % n) for q in range(n)],
        *[0.5 * qml.PauliX(q) for q in range(n)],
    )

    @qml.qnode(qml.device("lightning.qubit", wires=n), diff_method=None)
    def circuit(angles):
        pennylane_layers(qml, n, layers, angles)
        return qml.expval(obs)

    return {"lightning.qubit": lambda row: float(circuit(row))}


def qiskit_runs(c: gq.Circuit, n: int) -> dict[str, Run]:
    """Qiskit's reference estimator and Aer's, one binding a call."""
    if importlib.util.find_spec("qiskit_aer") is None:
        return {}
    from qiskit.primitives import StatevectorEstimator
    from qiskit_aer.primitives import EstimatorV2

    qc = gq.to_qiskit(c)
    order = qiskit_order(qc)
    op = qiskit_hamiltonian(n)
    runs: dict[str, Run] = {}
    for name, estimator in (("StatevectorEstimator", StatevectorEstimator()),
                            ("Aer EstimatorV2", EstimatorV2())):  # fmt: skip
        runs[name] = lambda row, e=estimator: float(
            e.run([(qc, op, row[order])]).result()[0].data.evs
        )
    return runs


def compare(n: int, args: argparse.Namespace, rng: np.random.Generator) -> None:
    """One size: every simulator over every point, a loop each in turn, best loop."""
    c, thetas = ansatz(n, args.layers)
    h = hamiltonian(n)
    table = rng.uniform(-np.pi, np.pi, (args.points, len(thetas)))
    runs = {**genqsim_runs(c, thetas, h), **qulacs_run(n, args.layers),
            **pennylane_run(n, args.layers), **qiskit_runs(c, n)}  # fmt: skip
    reference = gq.simulate(c.bind(dict(zip(thetas, table[0].tolist()))), backend="numpy")
    expected = reference.expectation(h)
    for name, run in runs.items():
        found = run(table[0])  # also the warm-up: compiling, plans kept on the template
        assert abs(found - expected) < 1e-9, f"{name} gives {found}, expected {expected}"
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(args.rounds):
        for name, run in runs.items():
            start = time.perf_counter()
            for row in table:
                run(row)
            best[name] = min(best[name], (time.perf_counter() - start) / len(table) * 1e6)
    peers = {k: v for k, v in best.items() if not k.startswith("genqsim")}
    fastest = min(peers, key=peers.__getitem__) if peers else None
    print(f"\nn={n}, {len(thetas)} angles, {len(c.operations)} gates; us a point (best loop)")
    for name, us in best.items():
        ratio = f"  {us / peers[fastest]:5.2f}x {fastest}" if fastest and name not in peers else ""
        print(f"  {name:30s} {us:10.1f}{ratio}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qubits", type=int, nargs="+", default=[4, 8, 12, 16])
    parser.add_argument("--points", type=int, default=60)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    numba_setup(args)
    rng = np.random.default_rng(11)
    for n in args.qubits:
        compare(n, args, rng)


if __name__ == "__main__":
    main()
