"""Distributed state-vector benchmark: QFT and random circuits on 1, 2 and 4 MPI ranks, with
and without qubit remapping, against the single-process state vector in the same run.

The driver starts one ``mpiexec -n R`` per rank count (one process tree); each run prints one
JSON line per case from rank 0: wall time (between barriers, the slowest rank), time inside
``Sendrecv`` (the slowest rank: communication) and the rest (compute), bytes sent by all ranks,
and the largest deviation from the single-process state on a few sampled amplitudes (checked,
not timed). The driver prints the table and the ratios the issue asks for: bytes with / without
remapping, and time on R ranks / one process.

    python benchmarks/mpi_bench.py [--sizes 26 28] [--ranks 1 2 4] [--depth 10] [--json out]

Each rank gets ``cores // R`` threads (at least one), so runs with more ranks than cores
oversubscribe the machine and measure the protocol more than the speed-up.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np


def circuits(n: int, depth: int) -> dict[str, Any]:
    import genqsim as gq

    return {
        f"qft {n}": gq.library.qft(n),
        f"random {n} (depth {depth})": gq.library.random_circuit(n, depth, seed=1),
    }


def worker(sizes: list[int], depth: int, threads: int) -> None:
    """One rank of ``mpiexec -n R``: runs every case and prints results from rank 0."""
    import genqsim as gq
    from genqsim.distributed import world

    comm = world()
    rank, ranks = comm.Get_rank(), comm.Get_size()
    gq.set_num_threads(threads)
    for circuit in circuits(8, 2).values():  # load the compiled kernels before timing
        for remap in (True, False):
            gq.simulate(circuit, method="mpi", remap=remap)
    probe = np.random.default_rng(0)
    for n in sizes:
        indices = probe.integers(0, 1 << n, size=64)
        for name, circuit in circuits(n, depth).items():
            reference = None
            for remap in (True, False):
                if ranks == 1 and not remap:
                    continue  # nothing to remap on one rank
                comm.Barrier()
                start = time.perf_counter()
                state = gq.simulate(circuit, method="mpi", remap=remap)
                comm.Barrier()
                wall = time.perf_counter() - start
                stats = state.communication
                sent = comm.allreduce(stats.bytes_sent)
                comm_seconds = comm.allreduce(stats.seconds, op=_max())
                amplitudes = _amplitudes(state, indices)
                if reference is None:
                    reference = amplitudes
                deviation = float(np.max(np.abs(amplitudes - reference)))
                if rank == 0:
                    print(json.dumps({
                        "case": name, "ranks": ranks, "remap": remap, "wall": wall,
                        "communication": comm_seconds, "bytes": sent, "deviation": deviation,
                        "calls": stats.calls,
                    }), flush=True)  # fmt: skip
                del state


def _max() -> Any:
    from mpi4py import MPI

    return MPI.MAX


def _amplitudes(state: Any, indices: np.ndarray) -> np.ndarray:
    """Amplitudes at logical basis indices, collected from the ranks that hold them."""
    L = state.local_qubits
    local = state.backend.to_numpy(state.local_amplitudes)
    out = np.zeros(len(indices), dtype=complex)
    for k, index in enumerate(indices):
        physical = state.layout.physical_mask(int(index))
        if physical >> L == state.rank:
            out[k] = local[physical & ((1 << L) - 1)]
    return state.comm.allreduce(out)


def single_process(sizes: list[int], depth: int) -> list[dict[str, Any]]:
    """The same circuits on the ordinary single-process state vector, all threads."""
    import genqsim as gq

    rows = []
    for circuit in circuits(8, 2).values():  # load the compiled kernels before timing
        gq.simulate(circuit)
    for n in sizes:
        for name, circuit in circuits(n, depth).items():
            start = time.perf_counter()
            state = gq.simulate(circuit)
            rows.append({"case": name, "wall": time.perf_counter() - start})
            del state
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[26, 28])
    parser.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="n = 20 only")
    parser.add_argument("--json", default=None)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [20] if args.quick else args.sizes
    if args.worker:
        worker(sizes, args.depth, args.threads)
        return
    cores = os.cpu_count() or 1
    mpiexec = Path(sys.executable).parent / "mpiexec"
    rows: list[dict[str, Any]] = []
    for ranks in args.ranks:
        command = [str(mpiexec), "-n", str(ranks), sys.executable, __file__, "--worker",
                   "--depth", str(args.depth), "--threads", str(max(1, cores // ranks)),
                   "--sizes", *map(str, sizes)]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode:
            sys.exit(f"mpiexec -n {ranks} failed:\n{done.stdout}\n{done.stderr}")
        rows += [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    baseline = {r["case"]: r["wall"] for r in single_process(sizes, args.depth)}
    print(f"machine: {platform.processor() or platform.machine()}, {cores} cores")
    print(f"{'case':26} {'ranks':>5} {'remap':>5} {'wall s':>8} {'comm s':>8} {'compute s':>9} "
          f"{'GiB sent':>9} {'vs 1 proc':>9}")  # fmt: skip
    for r in rows:
        compute = r["wall"] - r["communication"]
        print(f"{r['case']:26} {r['ranks']:5d} {r['remap']!s:>5} {r['wall']:8.2f} "
              f"{r['communication']:8.2f} {compute:9.2f} {r['bytes'] / 2**30:9.3f} "
              f"{r['wall'] / baseline[r['case']]:9.2f}")  # fmt: skip
        if r["deviation"] > 1e-9:
            sys.exit(f"{r['case']} on {r['ranks']} ranks differs by {r['deviation']:.2e}")
    print()
    print("bytes sent with remapping / without (target <= 0.5):")
    for r in rows:
        if r["remap"] and r["ranks"] > 1:
            other = next(o for o in rows if o["case"] == r["case"] and o["ranks"] == r["ranks"]
                         and not o["remap"])  # fmt: skip
            print(f"  {r['case']:26} {r['ranks']} ranks: {r['bytes'] / other['bytes']:.3f}")
    for case, wall in baseline.items():
        print(f"single process {case}: {wall:.2f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "single_process": baseline}, indent=2))


if __name__ == "__main__":
    main()
