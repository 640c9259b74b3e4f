"""Parameter broadcasting: one circuit at many parameter points, against the peers' own
broadcasting, in one process.

The circuit is a hardware-efficient ansatz (``--layers`` layers of RY and RZ on every
qubit, then a ring of CNOTs), ``2 * n * layers`` angles, swept over ``--points`` random
points; the observable is ``sum Z_q Z_q+1 + 0.5 sum X_q``. Timed, best of ``--repeats``
after one untimed call:

* genqsim: ``gq.expectation(circuit, H, values={theta_k: array})`` (one plan, every point's
  state from the batched kernels), and the same points bound and run one at a time (what
  a loop over ``circuit.bind`` costs; ``--no-loop`` leaves it out);
* Qiskit's ``StatevectorEstimator`` and Aer's ``EstimatorV2`` with the points as one
  ``BindingsArray``;
* PennyLane's ``default.qubit`` and ``lightning.qubit`` with broadcast parameters (a QNode
  called once with arrays of ``--points`` values).

Every result is checked against genqsim's to 1e-9 before timing. Ratios are genqsim's time
over the peer's (below 1 genqsim is faster). The machine, the thread count and the genqsim
kernels' serial/threaded switch are printed first.

    python benchmarks/broadcast_bench.py [--qubits 4 8 12 16] [--points 200] [--layers 2]
        [--repeats 3] [--threads N] [--no-loop]
"""

from __future__ import annotations

import argparse
import math
import platform
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from adjoint_bench import genqsim_ansatz as ansatz  # the same ansatz as there
from adjoint_bench import pennylane_layers

import genqsim as gq


def best(repeats: int, fn: Callable[[], object]) -> tuple[float, object]:
    out = fn()
    fastest = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        fastest = min(fastest, time.perf_counter() - t0)
    return fastest, out


def hamiltonian(n: int) -> str:
    ring = " + ".join(f"Z{q} Z{(q + 1) % n}" for q in range(n))
    return ring + " + " + " + ".join(f"0.5*X{q}" for q in range(n))


def qiskit_hamiltonian(n: int) -> Any:
    """:func:`hamiltonian` as Qiskit's ``SparsePauliOp`` (qubit 0 last in its labels)."""
    from qiskit.quantum_info import SparsePauliOp

    labels = []
    for q in range(n):
        zz = ["I"] * n
        zz[n - 1 - q] = zz[n - 1 - (q + 1) % n] = "Z"
        x = ["I"] * n
        x[n - 1 - q] = "X"
        labels += [("".join(zz), 1.0), ("".join(x), 0.5)]
    return SparsePauliOp.from_list(labels)


def qiskit_order(qc: Any) -> list[int]:
    """The columns of the angles ``t0, t1, ...`` in the order Qiskit gives them (by name)."""
    return [int(p.name[1:]) for p in qc.parameters]


def numba_setup(args: argparse.Namespace) -> None:
    """Set the Numba backend's threads (``--threads``) and print the machine line."""
    numba_backend = gq.get_backend("numba")
    if args.threads is not None:
        numba_backend.set_default_threads(args.threads)
    choices = " ".join(numba_backend.kernel_choices())
    threads = numba_backend.default_threads()
    print(f"# {platform.processor() or platform.machine()}: {choices}; threads {threads}; "
          f"{args.points} points, {args.layers} layers")  # fmt: skip


def qiskit_runs(c: gq.Circuit, n: int, table: np.ndarray) -> dict[str, Callable[[], np.ndarray]]:
    from qiskit.primitives import StatevectorEstimator
    from qiskit_aer.primitives import EstimatorV2

    qc = gq.to_qiskit(c)
    bindings = table[:, qiskit_order(qc)]
    op = qiskit_hamiltonian(n)
    reference, aer = StatevectorEstimator(), EstimatorV2()
    return {
        "StatevectorEstimator": lambda: reference.run([(qc, op, bindings)]).result()[0].data.evs,
        "Aer EstimatorV2": lambda: aer.run([(qc, op, bindings)]).result()[0].data.evs,
    }


def pennylane_runs(n: int, layers: int, table: np.ndarray) -> dict[str, Callable[[], object]]:
    import pennylane as qml

    obs = qml.sum(
        *[qml.PauliZ(q) @ qml.PauliZ((q + 1) % n) for q in range(n)],
        *[0.5 * qml.PauliX(q) for q in range(n)],
    )
    runs: dict[str, Callable[[], object]] = {}
    for name in ("default.qubit", "lightning.qubit"):
        device = qml.device(name, wires=n)

        @qml.qnode(device, diff_method=None)
        def circuit(angles):
            pennylane_layers(qml, n, layers, angles)
            return qml.expval(obs)

        columns = [table[:, k] for k in range(table.shape[1])]
        runs[name] = lambda circuit=circuit, columns=columns: np.asarray(circuit(columns))
    return runs


def compare(n: int, args: argparse.Namespace, rng: np.random.Generator) -> None:
    """One size: genqsim's sweep, its bind loop and the peers, checked and timed."""
    c, thetas = ansatz(n, args.layers)
    h = hamiltonian(n)
    table = rng.uniform(-np.pi, np.pi, (args.points, len(thetas)))
    values = {t: table[:, k] for k, t in enumerate(thetas)}
    ours_s, ours = best(args.repeats, lambda: gq.expectation(c, h, values=values))
    times: dict[str, float] = {}
    if not args.no_loop:
        times["bind loop"], looped = best(
            1, lambda: [gq.expectation(c.bind(dict(zip(thetas, row))), h) for row in table]
        )
        np.testing.assert_allclose(looped, ours, atol=1e-9)
    peers = {**qiskit_runs(c, n, table), **pennylane_runs(n, args.layers, table)}
    for name, run in peers.items():
        times[name], theirs = best(args.repeats, run)
        np.testing.assert_allclose(np.asarray(theirs, dtype=float), ours, atol=1e-9)
    parts = " | ".join(f"{k} {t * 1e3:8.1f} ms ({ours_s / t:5.2f}x)" for k, t in times.items())
    print(f"n={n:2d}: genqsim {ours_s * 1e3:8.1f} ms ({ours_s / args.points * 1e6:6.1f} "
          f"us/point) | {parts}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qubits", type=int, nargs="+", default=[4, 8, 12, 16])
    parser.add_argument("--points", type=int, default=200)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--no-loop", action="store_true", help="leave out the bind loop")
    args = parser.parse_args()
    numba_setup(args)
    rng = np.random.default_rng(7)
    for n in args.qubits:
        compare(n, args, rng)


if __name__ == "__main__":
    main()
