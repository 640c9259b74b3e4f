"""Reductions of the Numba backend: the norm, the inner product and ``<bra| X^x Z^z |ket>``
(one Pauli string's expectation value) on one state, 1 and 2 threads, beside NumPy's
``np.vdot`` on the same arrays in the same process.

    python benchmarks/reductions_bench.py [--sizes 20 24] [--repeat 9]

Each thread count runs in its own child process (Numba's pool is set before import). Prints
the best of ``--repeat`` calls of each after one warm-up, and genqsim / ``np.vdot`` for the
norm and the inner product; the results must agree with NumPy's to 1e-9 (relative).
Nothing is asserted about time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def best_of(function, repeat: int) -> float:
    """The best of ``repeat`` timed calls after one warm-up, in milliseconds."""
    function()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def worker(sizes: list[int], repeat: int) -> None:
    """One thread count: one JSON line per size."""
    for n in sizes:
        print(json.dumps(measured(n, repeat)), flush=True)


def measured(n: int, repeat: int) -> dict[str, float]:
    """The reductions' and ``np.vdot``'s times on a random ``n``-qubit state, after checking
    the results against NumPy's."""
    from genqsim.backends import numba_kernels as kernels

    threads = int(os.environ["NUMBA_NUM_THREADS"])
    build = kernels.SERIAL if threads == 1 else kernels.PARALLEL
    rng = np.random.default_rng(n)
    psi = rng.normal(size=1 << n) + 1j * rng.normal(size=1 << n)
    psi /= np.linalg.norm(psi)
    phi = np.roll(psi, 3)
    none = np.zeros(0, dtype=np.int64)
    x_mask, z_mask = np.int64(0b101), np.int64(0b1001)
    signs = 1.0 - 2.0 * (np.bitwise_count(np.arange(psi.size) & z_mask) & 1)
    checks = {
        "norm": (build.norm_squared(psi), np.vdot(psi, psi).real),
        "inner": (build.inner(psi, phi), np.vdot(psi, phi)),
        "pauli": (
            build.transition_xz(psi, psi, x_mask, z_mask, none, np.int64(0)),
            np.vdot(psi[np.arange(psi.size) ^ x_mask], signs * psi),
        ),
    }
    for name, (ours, numpy_value) in checks.items():
        if abs(ours - numpy_value) > 1e-9 * max(1.0, abs(numpy_value)):
            raise SystemExit(f"{name} at n = {n}: {ours} against NumPy's {numpy_value}")
    return {
        "threads": threads,
        "n": n,
        "norm": best_of(lambda: build.norm_squared(psi), repeat),
        "inner": best_of(lambda: build.inner(psi, phi), repeat),
        "pauli": best_of(
            lambda: build.transition_xz(psi, psi, x_mask, z_mask, none, np.int64(0)), repeat
        ),
        "vdot_norm": best_of(lambda: np.vdot(psi, psi), repeat),
        "vdot_inner": best_of(lambda: np.vdot(psi, phi), repeat),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 24])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.sizes, args.repeat)
        return
    print("| threads | n | norm ms | inner ms | Pauli string ms | norm / vdot | inner / vdot |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for threads in args.threads:
        env = {**os.environ, "NUMBA_NUM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads)}
        command = [sys.executable, __file__, "--worker", "--repeat", str(args.repeat),
                   "--sizes", *map(str, args.sizes)]  # fmt: skip
        lines = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
        for line in lines.stdout.splitlines():
            r = json.loads(line)
            print(f"| {r['threads']} | {r['n']} | {r['norm']:.2f} | {r['inner']:.2f} | "
                  f"{r['pauli']:.2f} | {r['norm'] / r['vdot_norm']:.2f} | "
                  f"{r['inner'] / r['vdot_inner']:.2f} |")  # fmt: skip


if __name__ == "__main__":
    main()
