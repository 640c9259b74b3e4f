"""Plans compared on one state: contiguous cache blocks (the default), gathered tiles over
any qubits, and gathered tiles without fusion, for the circuits of ``genqsim bench``.

    python benchmarks/tile_plans_bench.py --threads 1 2 --repeat 2
    python benchmarks/tile_plans_bench.py --cases ghz:24 qft:22 --threads 2

Each line gives the best time of each plan and, in brackets, its items and block runs: a
plan with fewer items makes fewer passes over the state, but a gathered tile moves every
amplitude twice per pass in short series, so fewer passes are not always faster.
"""

from __future__ import annotations

import argparse

import genqsim as gq
from genqsim.bench import Case, best_of, gate_list
from genqsim.plan import BlockRun, plan_for_backend, run_plan

DEFAULT_CASES = ("ghz:26", "walsh:26", "qft:24", "random:22", "random:22:complex64")


def parse_case(text: str) -> Case:
    """``name:n[:dtype]`` (random circuits have depth 20, as in ``genqsim bench``)."""
    name, n, *rest = text.split(":")
    dtype = rest[0] if rest else "complex128"
    return Case(name, "circuit", int(n), dtype, depth=20 if name == "random" else 0)


def compare(case: Case, repeat: int) -> str:
    circuit = gq.Circuit(case.n)
    for name, qubits, params in gate_list(case):
        getattr(circuit, name)(*params, *qubits)
    psi = gq.zeros(case.n, numbers=case.dtype)
    backend, numbers = psi.backend, psi.numbers
    plans = {
        "blocks": plan_for_backend(circuit, numbers, backend),
        "tiles": plan_for_backend(circuit, numbers, backend, tiles=True),
        "tiles-nofuse": plan_for_backend(circuit, numbers, backend, fuse=False, tiles=True),
    }
    cells = []
    for label, plan in plans.items():
        run_plan(plan, backend, psi.amplitudes)  # compile / load the kernels
        seconds = best_of(lambda plan=plan: run_plan(plan, backend, psi.amplitudes), repeat)
        runs = sum(isinstance(item, BlockRun) for item in plan)
        cells.append(f"{label} {seconds * 1e3:.0f} ms ({len(plan)}/{runs})")
    return f"{case.label}: " + ", ".join(cells)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=list(DEFAULT_CASES))
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    for threads in args.threads:
        gq.set_num_threads(threads)
        for text in args.cases:
            print(f"{threads} thread(s), {compare(parse_case(text), args.repeat)}", flush=True)


if __name__ == "__main__":
    main()
