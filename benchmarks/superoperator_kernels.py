"""Cost of a density matrix's fused superoperators inside a gathered tile, per amplitude:
the arithmetic left once memory passes are shared by a tile run.

For each kind of noisy gate (a one-qubit gate with depolarizing noise: one dense 4x4
superoperator; a CX with two-qubit depolarizing noise: a permutation, a population mixing on
a quarter of the amplitudes and a phased permutation) a run of them on a 10-qubit density
matrix (20-qubit vector) is timed as one tile run, minus the same tile run holding only an
identity (the gather and scatter), per amplitude and per noisy gate.

    python benchmarks/superoperator_kernels.py
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

import genqsim as gq
from genqsim.numbers import get_number_system
from genqsim.plan.calls import BlockRun, MatrixCall
from genqsim.states.doubling import doubled_circuit

N_SYSTEM = 10
TILE_QUBITS = 14


def _tile(calls: list[MatrixCall]) -> tuple[int, ...]:
    qubits = set(range(4))
    for call in calls:
        qubits |= set(call.qubits)
    q = 0
    while len(qubits) < TILE_QUBITS:
        qubits.add(q)
        q += 1
    return tuple(sorted(qubits))


def _time(run: Callable[[], None], repeats: int = 5) -> float:
    run()
    start = time.perf_counter()
    for _ in range(repeats):
        run()
    return (time.perf_counter() - start) / repeats


def main() -> None:
    backend = gq.get_backend("numba")
    state = np.random.default_rng(0).normal(size=1 << (2 * N_SYSTEM)) + 0j
    cases: dict[str, Callable[[gq.Circuit], None]] = {
        "U + depolarizing, qubits 0-3": lambda c: [
            c.u(0.1, 0.2, 0.3, q).depolarizing(0.01, q) for q in range(4)
        ],
        "U + depolarizing, qubits 4-7": lambda c: [
            c.u(0.1, 0.2, 0.3, q).depolarizing(0.01, q) for q in range(4, 8)
        ],
        "CX + depolarizing2, pairs (0,1) (2,3)": lambda c: [
            c.cx(q, q + 1).depolarizing(0.02, q, q + 1) for q in (0, 2)
        ],
        "CX + depolarizing2, pairs (4,5) (6,7)": lambda c: [
            c.cx(q, q + 1).depolarizing(0.02, q, q + 1) for q in (4, 6)
        ],
    }
    vector = 2 * N_SYSTEM
    print(f"threads: {gq.get_num_threads()}, vector of {vector} qubits, tiles of {TILE_QUBITS}")
    for label, build in cases.items():
        circuit = gq.Circuit(N_SYSTEM)
        build(circuit)
        doubled = doubled_circuit(circuit, get_number_system("complex128"), None)
        calls = [
            MatrixCall(op.gate.matrix(), op.targets, op.controls, op.control_values)
            for op in doubled.operations
        ]
        noisy_gates = sum(op.kind is not gq.GateKind.CHANNEL for op in circuit.operations)
        run = BlockRun(calls, TILE_QUBITS, _tile(calls))
        empty = BlockRun([MatrixCall(np.eye(2), (0,))], TILE_QUBITS, run.qubits)
        full = _time(lambda r=run: backend.apply_block_run(state, r))
        copy = _time(lambda r=empty: backend.apply_block_run(state, r))
        per = (full - copy) / noisy_gates / state.size * 1e9
        print(f"{label:40s} {len(calls) // noisy_gates} call(s) {per:5.2f} ns per amplitude")


if __name__ == "__main__":
    main()
