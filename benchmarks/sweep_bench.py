"""Parameter sweeps on a Dask cluster against one process: the speed-up of
``gq.expectation(..., values=..., executor=client.get_executor())``.

A QAOA MaxCut ring (p=1, ``--qubits`` qubits) swept over a grid of ``--points`` (gamma,
beta) points, two observables per point, is timed (best of ``--repeats``):

* serially, in this process (``threads=1``, the kernels' own threads off);
* on a ``distributed.LocalCluster`` of ``--workers`` worker processes, one thread each
  (started before timing; the cluster's start-up is printed apart);
* on a ``concurrent.futures.ProcessPoolExecutor`` of as many processes, for comparison.

It prints the times, the speed-ups over one process and checks that every sweep gave the
serial values (to 1e-12).

    python benchmarks/sweep_bench.py [--qubits 6 12] [--points 2000] [--workers 2]
"""

from __future__ import annotations

import argparse
import math
import platform
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

import genqsim as gq


def timed(repeats: int, fn) -> tuple[float, object]:
    best, out = math.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qubits", type=int, nargs="+", default=[6, 12])
    parser.add_argument("--points", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    import distributed

    side = int(math.sqrt(args.points))
    values = {
        "gamma0": np.linspace(-1.5, 1.5, side)[:, None],
        "beta0": np.linspace(-1, 1, args.points // side),
    }
    observables = ["Z0 Z1", "X1 + 0.5*Y0 Y1"]
    print(f"# {platform.processor() or platform.machine()}, {args.workers} workers, "
          f"{side * (args.points // side)} points")  # fmt: skip
    t0 = time.perf_counter()
    with (
        distributed.LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
        ProcessPoolExecutor(args.workers) as pool,
    ):
        print(f"cluster start-up: {time.perf_counter() - t0:.2f} s")
        dask = client.get_executor()
        for n in args.qubits:
            circuit = gq.library.qaoa_ring(n)

            def sweep(executor=None, circuit=circuit):
                return gq.expectation(
                    circuit, observables, values=values, executor=executor, threads=1
                )

            sweep(dask), sweep(pool)  # imports and compiled kernels in every worker
            serial_s, serial = timed(args.repeats, sweep)
            dask_s, on_dask = timed(args.repeats, lambda: sweep(dask))
            pool_s, on_pool = timed(args.repeats, lambda: sweep(pool))
            np.testing.assert_allclose(on_dask, serial, atol=1e-12)
            np.testing.assert_allclose(on_pool, serial, atol=1e-12)
            print(
                f"n={n:2d}: one process {serial_s:7.3f} s | Dask {dask_s:7.3f} s "
                f"(speed-up {serial_s / dask_s:4.2f}x) | process pool {pool_s:7.3f} s "
                f"(speed-up {serial_s / pool_s:4.2f}x)"
            )


if __name__ == "__main__":
    main()
