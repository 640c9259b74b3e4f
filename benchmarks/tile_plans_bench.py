"""Plans compared on one state: contiguous cache blocks alone, the default plan (blocks, then
gathered tiles on high qubits where a run pays for its gather), and gathered tiles for every
run (with and without fusion), for the circuits of ``genqsim bench``; and the cost of a
gather itself.

    python benchmarks/tile_plans_bench.py --threads 1 2 --repeat 3
    python benchmarks/tile_plans_bench.py --cases ghz:24 qft:22 --threads 2
    python benchmarks/tile_plans_bench.py --gather --threads 1 2

Each line gives the best time of each plan and, in brackets, its items and block runs: a
plan with fewer items makes fewer passes over the state, but a gathered tile moves every
amplitude twice per pass in short series, so fewer passes are not always faster. The plans
run interleaved, round by round, so a machine whose speed drifts treats them alike.
``--gather`` times a run of one diagonal gate over tiles whose lowest 4, 6 or 8 qubits are
the state's lowest (series of 256 bytes, 1 KiB, 4 KiB) and the rest are high qubits, beside
a contiguous block: what a pass costs for each series length.
"""

from __future__ import annotations

import argparse

import genqsim as gq
from genqsim.backends import numba_backend
from genqsim.cli.bench import Case, gate_list
from genqsim.plan import BlockRun, build_plan, group_block_runs, plan_for_backend, run_plan

DEFAULT_CASES = ("ghz:26", "walsh:26", "qft:24", "random:22", "random:22:complex64")


def parse_case(text: str) -> Case:
    """``name:n[:dtype]`` (random circuits have depth 20, as in ``genqsim bench``)."""
    name, n, *rest = text.split(":")
    dtype = rest[0] if rest else "complex128"
    return Case(name, "circuit", int(n), dtype, depth=20 if name == "random" else 0)


def interleaved_best(plans: dict[str, list], backend, state, repeat: int) -> dict[str, float]:
    """Best time of each plan over ``repeat`` rounds, each round running every plan once."""
    import time

    for plan in plans.values():
        run_plan(plan, backend, state)  # compile / load the kernels
    best = dict.fromkeys(plans, float("inf"))
    for _ in range(repeat):
        for label, plan in plans.items():
            start = time.perf_counter()
            run_plan(plan, backend, state)
            best[label] = min(best[label], time.perf_counter() - start)
    return best


def compare(case: Case, repeat: int) -> str:
    circuit = gq.Circuit(case.n)
    for name, qubits, params in gate_list(case):
        getattr(circuit, name)(*params, *qubits)
    psi = gq.zeros(case.n, numbers=case.dtype)
    backend, numbers = psi.backend, psi.numbers
    block_qubits = backend.block_layout(psi.amplitudes.dtype).tile_qubits
    plans = {
        "blocks only": group_block_runs(build_plan(circuit, numbers), case.n, block_qubits),
        "default": plan_for_backend(circuit, numbers, backend),
        "tiles": plan_for_backend(circuit, numbers, backend, tiles=True),
        "tiles-nofuse": plan_for_backend(circuit, numbers, backend, fuse=False, tiles=True),
    }
    best = interleaved_best(plans, backend, psi.amplitudes, repeat)
    cells = []
    for label, plan in plans.items():
        runs = sum(isinstance(item, BlockRun) for item in plan)
        cells.append(f"{label} {best[label] * 1e3:.0f} ms ({len(plan)}/{runs})")
    ratio = best["default"] / best["blocks only"]
    return f"{case.label}: " + ", ".join(cells) + f"; default / blocks only {ratio:.2f}"


def gather_costs(n: int, repeat: int) -> str:
    """One pass of a diagonal gate on qubit 0 over tiles with 4, 6 and 8 low qubits (the
    rest the highest qubits below the top two), and over a contiguous block."""
    psi = gq.zeros(n)
    backend, numbers = psi.backend, psi.numbers
    tile = backend.tile_layout(psi.amplitudes.dtype).tile_qubits
    (call,) = build_plan(gq.Circuit(n).t(0), numbers, fuse=False)
    plans = {"contiguous": [BlockRun([call], tile)]}
    for low in (4, 6, 8):
        high = tuple(range(n - 2 - (tile - low), n - 2))
        plans[f"series of {2**low}"] = [BlockRun([call], tile, tuple(range(low)) + high)]
    best = interleaved_best(plans, backend, psi.amplitudes, repeat)
    return f"gather, {n} qubits: " + ", ".join(f"{k} {v * 1e3:.0f} ms" for k, v in best.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=list(DEFAULT_CASES))
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--gather", action="store_true", help="time a gather pass instead")
    parser.add_argument("--gather-qubits", type=int, default=26)
    args = parser.parse_args()
    series = (2**numba_backend.GATHERED_LOW_QUBITS, 2**numba_backend.TILE_LOW_QUBITS)
    print("gathered tiles read series of {} amplitudes in the default plan, {} in tiles".format(
        *series))  # fmt: skip
    for threads in args.threads:
        gq.set_num_threads(threads)
        if args.gather:
            print(f"{threads} thread(s), {gather_costs(args.gather_qubits, args.repeat)}")
            continue
        for text in args.cases:
            print(f"{threads} thread(s), {compare(parse_case(text), args.repeat)}", flush=True)


if __name__ == "__main__":
    main()
