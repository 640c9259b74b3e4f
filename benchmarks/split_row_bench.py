"""Split-row kernels in isolation, and a plan's items one by one.

    python benchmarks/split_row_bench.py [--qubits 15] [--repeat 5]
    python benchmarks/split_row_bench.py --plan random:22 random:22:complex64 [--threads 1]
    python benchmarks/split_row_bench.py --diagonals [--repeat 8]

The first form times one one-qubit gate on a split row of ``--qubits`` qubits (real and
imaginary parts in two arrays, as a block's row is while a stretch of complex gates runs;
``backends/numba_planar.py``) for each qubit of the row that walks groups or chunks (pairs
1 to 64 amplitudes apart), complex and real matrices, both float widths: ns per amplitude,
best of ``--repeat`` rounds of 1000 calls on one thread (the row stays in cache).

``--plan`` builds the default plan of each ``genqsim bench`` circuit (``name:n[:dtype]``)
and times each plan item alone, best of ``--repeat``: the sum and the slowest items, to see
which part of a plan a kernel change moves (whole-circuit ratios against the peers come
from ``genqsim bench``).

``--diagonals`` times diagonals inside the 1 MiB blocks of an 18-qubit state, as a block
run applies them: a pattern on qubits 0-9 or 0-5, series on qubits 10-15 or 9-15, and a
real rotation for scale, both dtypes, one thread: ns per amplitude, from 16 of the same
call in one block run less one. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import genqsim as gq
from genqsim.backends import numba_planar as planar
from genqsim.cli.bench import Case, circuit_of
from genqsim.plan import plan_for_backend
from genqsim.plan.build import run_item
from genqsim.plan.calls import BlockRun, DiagonalCall, MatrixCall


def gate_times(qubits: int, repeat: int) -> None:
    """ns per amplitude of ``mix_groups`` for pairs 1 to 64 apart."""
    size = 1 << qubits
    rng = np.random.default_rng(7)
    bits = [1 << k for k in range(7)]
    print(f"split row of {qubits} qubits, ns per amplitude and gate, one thread")
    print("| floats | matrix | " + " | ".join(f"pairs {b} apart" for b in bits) + " |")
    print("|---|---|" + "---:|" * len(bits))
    for dtype in (np.float64, np.float32):
        for real in (False, True):
            m = rng.standard_normal((2, 2)) + (0 if real else 1j) * rng.standard_normal((2, 2))
            e = np.array([[v.real, v.imag] for v in m.reshape(-1)], dtype=dtype).reshape(-1)
            re, im = rng.standard_normal((2, size)).astype(dtype)
            cells = []
            for bit in bits:
                planar.mix_groups(re, im, bit, e, real)
                best = np.inf
                for _ in range(repeat):
                    start = time.perf_counter()
                    for _ in range(1000):
                        planar.mix_groups(re, im, bit, e, real)
                    best = min(best, (time.perf_counter() - start) / 1000)
                cells.append(f"{best / size * 1e9:.2f}")
            kind = "real" if real else "complex"
            print(f"| {np.dtype(dtype).name} | {kind} | " + " | ".join(cells) + " |")


def plan_item_times(spec: str, threads: int, repeat: int) -> None:
    """Each item of the default plan of one circuit, timed alone."""
    name, n, *rest = spec.split(":")
    dtype = rest[0] if rest else "complex128"
    case = Case(name, "circuit", int(n), dtype, depth=20 if name == "random" else 0)
    gq.set_num_threads(threads)
    circuit = circuit_of(case)
    psi = gq.zeros(case.n, numbers=dtype)
    plan = plan_for_backend(circuit, psi.numbers, psi.backend)
    for item in plan:  # compile or load every kernel first
        run_item(item, psi.backend, psi.amplitudes)
    times = []
    for item in plan:
        best = np.inf
        for _ in range(repeat):
            start = time.perf_counter()
            run_item(item, psi.backend, psi.amplitudes)
            best = min(best, time.perf_counter() - start)
        times.append(best)
    print(f"{case.label}, {threads} thread(s): {len(plan)} items, {sum(times) * 1e3:.0f} ms")
    for item, seconds in sorted(zip(plan, times), key=lambda pair: -pair[1])[:6]:
        calls = getattr(item, "calls", None)
        size = f" of {len(calls)} calls" if calls is not None else ""
        print(f"  {seconds * 1e3:8.1f} ms  {type(item).__name__}{size}")


def _block_run_seconds(psi: gq.State, calls: list, block: int, repeat: int) -> float:
    """The best of ``repeat`` runs of ``calls`` as one block run over ``psi``'s blocks of
    ``block`` qubits, after one untimed (compile or load, encode)."""
    item = BlockRun(calls, block, tuple(range(block)))
    run_item(item, psi.backend, psi.amplitudes)
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        run_item(item, psi.backend, psi.amplitudes)
        best = min(best, time.perf_counter() - start)
    return best


def diagonal_times(repeat: int, n: int = 18, block: int = 16, count: int = 16) -> None:
    """ns per amplitude of diagonals (and of a real rotation) in the blocks of a state."""
    gq.set_num_threads(1)
    rng = np.random.default_rng(2)

    def diagonal(qubits: range) -> DiagonalCall:
        return DiagonalCall(np.exp(1j * rng.uniform(0, 6, 1 << len(qubits))), tuple(qubits))

    def rotation(qubit: int) -> MatrixCall:
        c, s = np.cos(a := rng.uniform(0, 6)), np.sin(a)
        return MatrixCall(np.array([[c, -s], [s, c]], dtype=complex), (qubit,))

    cases = [
        ("diagonal on qubits 0-9 (pattern)", lambda: diagonal(range(10))),
        ("diagonal on qubits 0-5 (pattern)", lambda: diagonal(range(6))),
        ("diagonal on qubits 10-15 (series)", lambda: diagonal(range(10, 16))),
        ("diagonal on qubits 9-15 (series)", lambda: diagonal(range(9, 16))),
        ("real rotation on qubit 5", lambda: rotation(5)),
        ("real rotation on qubit 12", lambda: rotation(12)),
    ]
    print(f"{n}-qubit state, blocks of {block} qubits, one thread, ns per amplitude and call")
    print("| call | complex128 | complex64 |")
    print("|---|---:|---:|")
    for label, make in cases:
        cells = []
        for dtype in ("complex128", "complex64"):
            psi = gq.zeros(n, numbers=dtype)
            psi.amplitudes[:] = np.exp(1j * rng.standard_normal(1 << n)) / 2 ** (n / 2)
            many = _block_run_seconds(psi, [make() for _ in range(count)], block, repeat)
            one = _block_run_seconds(psi, [make()], block, repeat)
            cells.append(f"{(many - one) / (count - 1) / (1 << n) * 1e9:.3f}")
        print(f"| {label} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qubits", type=int, default=15)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--plan", nargs="+", metavar="NAME:N[:DTYPE]")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--diagonals", action="store_true", help="diagonals in blocks")
    args = parser.parse_args()
    if args.diagonals:
        diagonal_times(args.repeat)
    elif args.plan:
        for spec in args.plan:
            plan_item_times(spec, args.threads, args.repeat)
    else:
        gate_times(args.qubits, args.repeat)


if __name__ == "__main__":
    main()
