"""Symbolic simulation speed: an exact QFT on n qubits with SymPy and SymEngine numbers, and
(optionally) the same circuit with ``sympy.physics.quantum``'s ``qapply``, the peer a symbolic
user would try first.

    python benchmarks/symbolic_bench.py [--qubits 8] [--repeat 3] [--qapply]

Two inputs: the basis state ``|0...0>`` (exact numbers throughout: ``exp(i pi k/2**j)``
phases, ``sqrt(2)`` factors), and ``sum_k exp(i k phi) |k>`` (unnormalised; an eigenphase
register as in phase estimation), where every amplitude is an expression in ``phi``. ``qapply``
is timed on the basis state only.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import sympy

import genqsim as gq


def initial_state(n: int, numbers: str, phase_input: bool) -> gq.StateVector:
    if not phase_input:
        return gq.zeros(n, numbers)
    (phi,) = gq.parameters("phi")
    amps = np.array([sympy.exp(sympy.I * k * phi) for k in range(2**n)], dtype=object)
    return gq.StateVector(amps, numbers)


def time_genqsim(n: int, numbers: str, repeat: int, phase_input: bool) -> float:
    circuit = gq.library.qft(n)
    best = float("inf")
    for _ in range(repeat):
        psi = initial_state(n, numbers, phase_input)
        t0 = time.perf_counter()
        psi.apply(circuit)
        best = min(best, time.perf_counter() - t0)
    return best


def time_qapply(n: int) -> float:
    """The same QFT with sympy.physics.quantum gates on a symbolic ket sum (one run)."""
    from sympy.physics.quantum import qapply
    from sympy.physics.quantum.gate import CPHASE, SWAP, H  # noqa: F401  (CPHASE via controls)
    from sympy.physics.quantum.qft import QFT
    from sympy.physics.quantum.qubit import Qubit

    (phi,) = gq.parameters("phi")
    ket = sum(sympy.exp(sympy.I * k * phi) * Qubit(format(k, f"0{n}b")) for k in range(2**n))
    circuit = QFT(0, n).decompose()
    t0 = time.perf_counter()
    qapply(circuit * ket)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--qubits", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--qapply", action="store_true", help="also time sympy qapply (slow)")
    args = parser.parse_args()
    n = args.qubits
    print(f"exact QFT on {n} qubits, best of {args.repeat} (qapply: one run)", flush=True)
    print("| simulator | input \\|0...0> | input sum_k exp(i k phi)\\|k> |\n|---|---|---|")
    for numbers in ("symengine", "sympy"):
        basis = time_genqsim(n, numbers, args.repeat, False)
        phase = time_genqsim(n, numbers, args.repeat, True)
        print(f"| genqsim numbers={numbers} | {basis:.3f} s | {phase:.3f} s |", flush=True)
    if args.qapply:
        print(f"| sympy.physics.quantum qapply | {time_qapply(n):.3f} s | not timed |")


if __name__ == "__main__":
    main()
