"""Adjoint gradients: genqsim's adjoint sweep against PennyLane lightning.qubit's adjoint
method on the same ansatz, side by side, 1 and 2 threads.

    pip install -e ".[bench]" pennylane pennylane-lightning
    python benchmarks/adjoint_bench.py [--sizes 12 16 20] [--threads 1 2] [--layers 4]

The ansatz: ``layers`` of RY and RZ on every qubit (one free angle each) and a CX ring;
``d<Z0>/d angle`` for every angle. Each thread count runs in its own child process (Numba's
and OpenMP's thread pools are set before import), both simulators in the same child. The
gradients must agree to 1e-9; the time is the best of ``--repeat`` calls after one warm-up
(Lightning's includes its QNode and autograd overhead, as a user calls it). Prints the
ratio genqsim / Lightning; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def angles(n: int, layers: int) -> np.ndarray:
    return np.random.default_rng(n).uniform(-np.pi, np.pi, 2 * n * layers)


def genqsim_ansatz(n: int, layers: int):
    """The ansatz in genqsim and its angles ``t0, t1, ...`` in order: per layer RY, RZ on
    every qubit, then a ring of CNOTs."""
    import genqsim as gq

    symbols = gq.parameters(f"t0:{2 * n * layers}")
    circuit = gq.Circuit(n)
    k = 0
    for _ in range(layers):
        for q in range(n):
            circuit.ry(symbols[k], q).rz(symbols[k + 1], q)
            k += 2
        for q in range(n):
            circuit.cx(q, (q + 1) % n)
    return circuit, symbols


def genqsim_gradient(n: int, layers: int, values: np.ndarray):
    """A function returning the gradient (in the angles' order) with genqsim's adjoint."""
    import genqsim as gq

    circuit, symbols = genqsim_ansatz(n, layers)
    bound = dict(zip(symbols, values))

    def run() -> np.ndarray:
        g = gq.gradient(circuit, "Z0", bound, mode="adjoint")
        return np.array([g[s] for s in symbols])

    return run


def pennylane_layers(qml, n: int, layers: int, params) -> None:
    """The ansatz as PennyLane operations: per layer RY(params[k]), RZ(params[k + 1]) on
    every qubit, then a ring of CNOTs (genqsim's ``ansatz`` here, in the same order)."""
    k = 0
    for _ in range(layers):
        for q in range(n):
            qml.RY(params[k], wires=q)
            qml.RZ(params[k + 1], wires=q)
            k += 2
        for q in range(n):
            qml.CNOT(wires=[q, (q + 1) % n])


def lightning_gradient(n: int, layers: int, values: np.ndarray):
    """The same gradient with lightning.qubit's adjoint method (autograd interface)."""
    import pennylane as qml
    from pennylane import numpy as pnp

    dev = qml.device("lightning.qubit", wires=n)

    @qml.qnode(dev, diff_method="adjoint")
    def energy(params):
        pennylane_layers(qml, n, layers, params)
        return qml.expval(qml.PauliZ(0))

    params = pnp.array(values, requires_grad=True)
    gradient = qml.grad(energy)
    return lambda: np.asarray(gradient(params))


def best_of(function, repeat: int) -> tuple[float, np.ndarray]:
    result = function()  # warm-up: compilation, caches
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - t0)
    return best, result


def worker(sizes: list[int], layers: int, repeat: int) -> None:
    """One thread count: both simulators, one JSON line per size."""
    import genqsim as gq

    gq.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    for n in sizes:
        values = angles(n, layers)
        ours, g_ours = best_of(genqsim_gradient(n, layers, values), repeat)
        try:
            peer, g_peer = best_of(lightning_gradient(n, layers, values), repeat)
            agree = float(np.max(np.abs(g_ours - g_peer)))
        except ImportError:
            peer, agree = None, None
        print(json.dumps({"n": n, "params": values.size, "genqsim": ours, "lightning": peer,
                          "max_difference": agree}), flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[12, 16, 20])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.sizes, args.layers, args.repeat)
        return
    print(f"ansatz: {args.layers} layers of RY, RZ on every qubit + CX ring; d<Z0>/d angle")
    print("| threads | n | angles | genqsim ms | lightning ms | genqsim / lightning | max |diff| |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for threads in args.threads:
        env = {**os.environ, "OMP_NUM_THREADS": str(threads), "NUMBA_NUM_THREADS": str(threads)}
        command = [sys.executable, __file__, "--worker", "--layers", str(args.layers),
                   "--repeat", str(args.repeat), "--sizes", *map(str, args.sizes)]  # fmt: skip
        child = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        for line in child.stdout.splitlines():
            row = json.loads(line)
            ours, peer = row["genqsim"] * 1e3, row["lightning"]
            ratio = f"{row['genqsim'] / peer:.2f}" if peer else "n/a"
            peer_text = f"{peer * 1e3:.1f}" if peer else "n/a"
            diff = f"{row['max_difference']:.1e}" if peer else "n/a"
            print(f"| {threads} | {row['n']} | {row['params']} | {ours:.1f} | {peer_text} | "
                  f"{ratio} | {diff} |")  # fmt: skip


if __name__ == "__main__":
    main()
