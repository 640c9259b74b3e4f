"""Dynamic circuits: counts of circuits that measure mid-circuit and act on the outcomes, by
``gq.counts`` and by Qiskit Aer (statevector method, per shot and with its shot branching)
in the same process, printed as ratios (genqsim / the faster Aer: below 1 genqsim is
faster).

Cases (each built as a Qiskit circuit, read by ``gq.from_qiskit``; both sides run the same
circuit, timed from the circuit object to the counts, best of ``--repeats``):

1. ``rus n``: repeat until success: flip a coin until it shows 0 (a ``while_loop``), turning
   a counter qubit each retry, beside ``n - 2`` spectator qubits in a random product state.
2. ``ipe``: iterative phase estimation of a phase 2 pi (0.b1 b2 b3 b4), four rounds of
   measure, reset and ``if_test`` feed-forward.
3. ``teleport n``: a state passed down a chain of ``n`` qubits by ``n/2 - 1`` teleportations
   (mid-circuit measurements and conditional Pauli corrections).
4. ``syndrome n``: ``n``-qubit repetition code, three rounds of parity checks into ancillas
   measured and reset mid-circuit, a ``switch`` correcting the data from the syndrome.
5. ``verify n``: ``n`` qubits each measured, then an ``if_test``/``else`` on its bit whose
   branches both measure into that bit again (flip and confirm, or retry once in ``|+>``),
   three rounds.

Before anything is timed the two sides' counts are compared on one key statistic with a
chi-square-style bound (five standard errors), so a wrong run is caught, not timed.

``--runners`` times genqsim's two ways of running shot groups instead, on states around the
largest the compiled shot loop takes (``genqsim.states.branching.COMPILED_SHOTS_MAX_QUBITS``):
the compiled loop against the grouped runner in Python, which applies each gate with the
backend's kernels (threaded ones on large states). It is what that limit was chosen from.

    python benchmarks/dynamic_bench.py [--shots 10000] [--repeats 3] [--threads N] [--runners]
"""

from __future__ import annotations

import argparse
import math
import platform
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import genqsim as gq


def rus(n: int) -> Any:
    from qiskit import QuantumCircuit

    qc = QuantumCircuit(n, 2)
    rng = np.random.default_rng(1)
    for q in range(2, n):
        qc.ry(float(rng.uniform(0, np.pi)), q)
    qc.h(0)
    qc.measure(0, 0)
    with qc.while_loop((qc.clbits[0], 1)):
        qc.h(0)
        qc.measure(0, 0)
        qc.ry(0.7, 1)
    qc.measure(1, 1)
    return qc


def verify(n: int) -> Any:
    """Each qubit turned by ``ry(0.7)`` and measured; where it read 1 it is flipped and
    measured into its bit again (reads 0), elsewhere put in ``|+>`` and measured into it
    (reads 1 half the time); three rounds."""
    from qiskit import QuantumCircuit

    qc = QuantumCircuit(n, n)
    for _ in range(3):
        for q in range(n):
            qc.ry(0.7, q)
            qc.measure(q, q)
            with qc.if_test((qc.clbits[q], 1)) as orelse:
                qc.x(q)
                qc.measure(q, q)
            with orelse:
                qc.h(q)
                qc.measure(q, q)
    return qc


def ipe() -> Any:
    from qiskit import QuantumCircuit

    bits = [1, 0, 1, 1]  # the phase 0.1011 in binary
    phase = 2 * math.pi * sum(b / 2 ** (i + 1) for i, b in enumerate(bits))
    qc = QuantumCircuit(2, 4)
    qc.x(1)
    for k in range(4):  # from the last bit to the first
        power = 2 ** (3 - k)
        qc.h(0)
        qc.cp(phase * power, 0, 1)
        for j in range(k):  # undo the bits already read
            with qc.if_test((qc.clbits[j], 1)):
                qc.p(-math.pi / 2 ** (k - j), 0)
        qc.h(0)
        qc.measure(0, k)
        qc.reset(0)
    return qc


def teleport(n: int) -> Any:
    from qiskit import QuantumCircuit

    qc = QuantumCircuit(n, n)
    qc.ry(0.9, 0)
    for a in range(0, n - 2, 2):
        b, c = a + 1, a + 2
        qc.h(b)
        qc.cx(b, c)
        qc.cx(a, b)
        qc.h(a)
        qc.measure(a, a)
        qc.measure(b, b)
        with qc.if_test((qc.clbits[b], 1)):
            qc.x(c)
        with qc.if_test((qc.clbits[a], 1)):
            qc.z(c)
    last = n - 1 if (n - 1) % 2 == 0 else n - 2
    qc.measure(last, n - 1)
    return qc


def syndrome(n: int, angles: list[float] | None = None) -> Any:
    """``n`` data qubits, each turned by ``rx(angles[q])`` (default 0.3: flipped with
    probability sin(0.15)^2), then three rounds of parity checks of data qubits 0-2 into two
    ancillas, measured, reset and read by a ``switch`` that flips the qubit they point at
    (``tests/test_classical_control.py`` checks it on a known flip)."""
    from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister

    data = QuantumRegister(n, "d")
    ancilla = QuantumRegister(2, "a")
    checks = ClassicalRegister(2, "s")
    out = ClassicalRegister(n, "m")
    qc = QuantumCircuit(data, ancilla, checks, out)
    for q, angle in enumerate([0.3] * n if angles is None else angles):
        if angle:
            qc.rx(angle, data[q])
    for _ in range(3):
        qc.cx(data[0], ancilla[0])
        qc.cx(data[1], ancilla[0])
        qc.cx(data[1], ancilla[1])
        qc.cx(data[2], ancilla[1])
        qc.measure(ancilla, checks)
        qc.reset(ancilla)
        with qc.switch(checks) as case:
            with case(1):
                qc.x(data[0])
            with case(3):
                qc.x(data[1])
            with case(2):
                qc.x(data[2])
    qc.measure(data, out)
    return qc


def best(run: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def ones_fraction(counts: dict[str, int], bit: int) -> float:
    """The fraction of shots whose classical bit ``bit`` (0 the rightmost) reads 1."""
    total = sum(counts.values())
    return sum(v for k, v in counts.items() if k.replace(" ", "")[::-1][bit] == "1") / total


def runners(shots: int, repeats: int) -> None:
    """The compiled shot loop against the grouped runner in Python, genqsim alone (ms)."""
    import genqsim.states.branching as branching

    largest = branching.COMPILED_SHOTS_MAX_QUBITS
    print(f"{'case':<14}{'compiled':>12}{'grouped':>12}{'ratio':>8}   (the loop takes up to "
          f"{largest} qubits)")  # fmt: skip
    sizes = {"teleport": (12, 14, 16), "verify": (10, 12, 14), "rus": (12, 14, 16)}
    makers = {"teleport": teleport, "verify": verify, "rus": rus}
    cases = [(f"{name} {n}", makers[name](n)) for name, ns in sizes.items() for n in ns]
    for name, qc in cases:
        circuit = gq.from_qiskit(qc)
        taken = []
        for limit in (64, 0):  # every state to the compiled loop, then none
            branching.COMPILED_SHOTS_MAX_QUBITS = limit
            gq.counts(circuit, 10, seed=1)  # compiled and warm before timing
            taken.append(best(lambda c=circuit: gq.counts(c, shots, seed=1), repeats)[0])
        branching.COMPILED_SHOTS_MAX_QUBITS = largest
        print(f"{name:<14}{taken[0] * 1e3:>10.1f}ms{taken[1] * 1e3:>10.1f}ms"
              f"{taken[0] / taken[1]:>8.2f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shots", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--runners", action="store_true",
                        help="time the compiled shot loop against the grouped runner")  # fmt: skip
    args = parser.parse_args()
    if args.threads is not None:
        gq.get_backend("numba").set_default_threads(args.threads)
    threads = gq.get_backend("numba").default_threads()
    if args.runners:
        print(f"# {platform.processor() or platform.machine()}; threads {threads}; "
              f"{args.shots} shots; best of {args.repeats}")  # fmt: skip
        runners(args.shots, args.repeats)
        return
    from qiskit_aer import AerSimulator

    print(f"# {platform.processor() or platform.machine()}; threads {threads}; "
          f"{args.shots} shots; best of {args.repeats}")  # fmt: skip
    peers = {
        "Aer": AerSimulator(method="statevector", max_parallel_threads=threads),
        "Aer branching": AerSimulator(method="statevector", max_parallel_threads=threads,
                                      shot_branching_enable=True),
    }  # fmt: skip
    cases = [("rus 2", rus(2), 1), ("rus 12", rus(12), 1), ("rus 20", rus(20), 1),
             ("ipe", ipe(), 0), ("teleport 10", teleport(10), 9),
             ("teleport 12", teleport(12), 11), ("syndrome 3", syndrome(3), 2),
             ("verify 6", verify(6), 0)]  # fmt: skip
    print(f"{'case':<14}{'genqsim':>12}{'Aer':>12}{'Aer branch':>12}{'ratio':>8}   "
          "statistic (genqsim / Aer)")  # fmt: skip
    for name, qc, bit in cases:
        seconds, ours = best(lambda qc=qc: gq.counts(gq.from_qiskit(qc), args.shots, seed=1),
                             args.repeats)  # fmt: skip
        times, theirs = [], {}
        for sim in peers.values():
            peer, theirs = best(lambda qc=qc, sim=sim: sim.run(qc, shots=args.shots,
                                seed_simulator=1).result().get_counts(), args.repeats)  # fmt: skip
            times.append(peer)
        a, b = ones_fraction(ours, bit), ones_fraction(theirs, bit)
        p = (a + b) / 2
        bound = 5 * math.sqrt(max(p * (1 - p), 1e-12) * 2 / args.shots) + 1e-12
        status = "ok" if abs(a - b) <= bound else "DIFFERENT"
        print(f"{name:<14}{seconds * 1e3:>10.1f}ms{times[0] * 1e3:>10.1f}ms"
              f"{times[1] * 1e3:>10.1f}ms{seconds / min(times):>8.2f}"
              f"   bit {bit}: {a:.4f} / {b:.4f} {status}")  # fmt: skip


if __name__ == "__main__":
    main()
