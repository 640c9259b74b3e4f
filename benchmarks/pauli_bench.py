"""Pauli propagation: genqsim's Heisenberg picture against the state vector and against
Qiskit's ``pauli-prop`` in the same process.

    pip install -e ".[interval]" pauli-prop qiskit
    python benchmarks/pauli_bench.py [--threads 1] [--repeat 3] [--steps 5] [--atol 1e-4]
                                     [--device gpu]

Symbolic (no peer gives closed forms): QAOA MaxCut on a random 3-regular graph of 100
vertices, ``<Z_u Z_v>`` of one edge at p=1 and p=2 and the whole cost function at p=1 as
exact trig closed forms; the 2-layer hardware-efficient ansatz on 6 qubits (24 angles); and
the trig state vector on a 12-vertex graph for comparison. Numeric: the kicked Ising circuit
of Kim et al. (Nature 618, 500 (2023)) on a heavy-hex lattice of 115 qubits (RX(theta_h) on
every qubit, then RZZ(-pi/2) on every edge, ``--steps`` times), ``<Z>`` of a middle qubit,
genqsim and pauli-prop at the same coefficient cutoff, and without truncation against the
light-cone state vector where the cone fits; with ``--device gpu``, the same propagation in
GPU memory beside the CPU's, and 3 steps deeper. Prints times, values and ratios; asserts
nothing.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

MAX_TERMS = 1 << 20
"""Both propagators keep at most this many strings (pauli-prop allocates for them)."""


def best(fn, repeat: int):
    value, times = None, []
    for _ in range(repeat):
        t = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t)
    return value, min(times)


def heavy_hex_edges() -> tuple[int, list[tuple[int, int]]]:
    from qiskit.transpiler import CouplingMap

    coupling = CouplingMap.from_heavy_hex(7)
    edges = sorted({tuple(sorted(e)) for e in coupling.get_edges()})
    return coupling.size(), edges


def kicked_ising(gq, n: int, edges, steps: int, theta: float):
    c = gq.Circuit(n)
    for _ in range(steps):
        for q in range(n):
            c.rx(theta, q)
        for a, b in edges:
            c.rzz(-np.pi / 2, a, b)
    return c


def symbolic(gq, repeat: int) -> None:
    print("## closed forms (numbers='trig'), genqsim only")
    print("| case | time | target | strings (peak) |")
    print("|---|---|---|---|")
    edges = gq.library.random_regular_graph(100, 3, seed=1)
    u, v = edges[0]
    cases = [
        ("QAOA p=1, 100 vertices, one edge", gq.library.qaoa_maxcut(edges, 1), f"Z{u} Z{v}", .5),
        ("QAOA p=1, 100 vertices, 150 edges", gq.library.qaoa_maxcut(edges, 1),
         gq.library.maxcut_observable(edges), 10.0),
        ("QAOA p=2, 100 vertices, one edge", gq.library.qaoa_maxcut(edges, 2), f"Z{u} Z{v}", 5),
        ("hardware-efficient, 6 qubits, 2 layers", gq.library.hardware_efficient(6, 2), "Z0 Z1", 2),
    ]  # fmt: skip
    for label, circuit, obs, target in cases:
        result, t = best(lambda c=circuit, o=obs: gq.heisenberg(c, o, numbers="trig"), repeat)
        print(f"| {label} | {t:.3f} s | {target} s | {result.peak_terms} |")
    small = gq.library.random_regular_graph(12, 3, seed=1)
    a, b = small[0]
    circuit = gq.library.qaoa_maxcut(small, 1)
    sv, t_sv = best(lambda: gq.simulate(circuit, numbers="trig").expectation(f"Z{a} Z{b}"), 1)
    hp, t_hp = best(lambda: gq.heisenberg(circuit, f"Z{a} Z{b}", numbers="trig").value, repeat)
    assert sv == hp
    print(f"| QAOA p=1, 12 vertices, one edge: trig state vector | {t_sv:.3f} s | "
          f"(Heisenberg {t_hp:.3f} s, {t_sv / t_hp:.0f}x faster, equal) | |")  # fmt: skip


def against_pauli_prop(
    gq, circuit, edges, steps: int, theta: float, target: int, atol: float, repeat: int
) -> None:
    """genqsim's Heisenberg picture and Qiskit's ``pauli-prop`` at two cutoffs."""
    from pauli_prop.propagation import propagate_through_circuit
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import SparsePauliOp

    n = circuit.n_qubits
    qc = QuantumCircuit(n)
    for _ in range(steps):
        for q in range(n):
            qc.rx(theta, q)
        for a, b in edges:
            qc.rzz(-np.pi / 2, a, b)
    observable = SparsePauliOp.from_sparse_list([("Z", [target], 1.0)], n)
    print("| cutoff | genqsim | value | bound | pauli-prop | value | genqsim / pauli-prop |")
    print("|---|---|---|---|---|---|---|")
    for cutoff in (atol * 10, atol):
        mine, t_mine = best(
            lambda m=cutoff: gq.heisenberg(
                circuit, f"Z{target}", min_abs_coeff=m, max_terms=MAX_TERMS
            ),
            repeat,
        )

        def peer(m: float = cutoff) -> float:
            op, _ = propagate_through_circuit(
                observable, qc, max_terms=MAX_TERMS, atol=m, frame="h"
            )
            z = [i for i, p in enumerate(op.paulis) if not p.x.any()]
            return float(np.real(op.coeffs[z].sum())) if z else 0.0

        theirs, t_theirs = best(peer, repeat)
        print(f"| {cutoff:g} | {t_mine:.3f} s | {mine.value:.6f} | {mine.truncated_weight:.2e} "
              f"| {t_theirs:.3f} s | {theirs:.6f} | {t_mine / t_theirs:.2f} |")  # fmt: skip


def numeric(gq, steps: int, atol: float, repeat: int, device: str = "cpu") -> None:
    n, edges = heavy_hex_edges()
    theta = 0.6
    target = n // 2
    circuit = kicked_ising(gq, n, edges, steps, theta)
    print(f"\n## kicked Ising, heavy-hex {n} qubits, {steps} steps, <Z{target}>, theta_h={theta}")
    try:
        against_pauli_prop(gq, circuit, edges, steps, theta, target, atol, repeat)
    except ImportError as exc:  # the peer's environment: pip install pauli-prop qiskit
        print(f"pauli-prop not compared ({exc})")
    if device == "gpu":
        deep = kicked_ising(gq, n, edges, steps + 3, theta)  # millions of strings
        print(f"\n### the same on the GPU (CuPy), {steps} and {steps + 3} steps")
        print("| steps | cutoff | GPU | CPU | GPU / CPU | strings (peak) | |value difference| |")
        print("|---|---|---|---|---|---|---|")
        for depth, c in ((steps, circuit), (steps + 3, deep)):
            for cutoff in (atol * 10, atol):

                def run(where: str, m: float = cutoff, c: object = c) -> object:
                    return gq.heisenberg(
                        c, f"Z{target}", min_abs_coeff=m, max_terms=MAX_TERMS, device=where
                    )

                on_gpu, t_gpu = best(lambda: run("gpu"), repeat)
                on_cpu, t_cpu = best(lambda: run("cpu"), repeat)
                print(f"| {depth} | {cutoff:g} | {t_gpu:.3f} s | {t_cpu:.3f} s | "
                      f"{t_gpu / t_cpu:.2f} | {on_gpu.peak_terms} | "
                      f"{abs(on_gpu.value - on_cpu.value):.1e} |")  # fmt: skip
    exact_steps = min(steps, 3)
    small = kicked_ising(gq, n, edges, exact_steps, theta)
    cone = small.light_cone([target])
    if cone.size <= 28:
        sv = gq.simulate(cone.compact()).expectation(f"Z{cone.qubits.index(target)}")
        pp, t_pp = best(lambda: gq.heisenberg(small, f"Z{target}").value, repeat)
        print(f"\nno truncation, {exact_steps} steps: Heisenberg {pp:.12f} ({t_pp:.3f} s), "
              f"light-cone state vector ({cone.size} qubits) {sv:.12f}, "
              f"difference {abs(pp - sv):.1e}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--skip-symbolic", action="store_true")
    parser.add_argument(
        "--device", choices=("cpu", "gpu"), default="cpu",
        help="gpu: also propagate the kicked Ising strings in GPU memory (CuPy), beside the CPU",
    )  # fmt: skip
    args = parser.parse_args()
    os.environ.setdefault("RAYON_NUM_THREADS", str(args.threads))
    import genqsim as gq

    gq.set_num_threads(args.threads)
    if not args.skip_symbolic:
        symbolic(gq, args.repeat)
    numeric(gq, args.steps, args.atol, args.repeat, args.device)


if __name__ == "__main__":
    main()
