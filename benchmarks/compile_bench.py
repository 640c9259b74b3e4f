"""Where compiling goes: one precision's ``genqsim warmup`` workloads in a fresh process with
an empty kernel cache, and the seconds Numba spent compiling each function, not counting the
functions it calls (each compiled once, counted where it is compiled).

    python benchmarks/compile_bench.py [--numbers complex128] [--top 40]

Prints the total (from importing genqsim, the serial/threaded switch's measurement included),
each workload's seconds, then the functions by their own compiling time
(with how many builds of each: serial and threaded kernels are separate). Numba's compile
events nest (a kernel's typing compiles its callees), so a function's own time is its event
minus those inside it. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import collections, sys, time
from numba.core import event

starts = []
own = collections.Counter()
builds = collections.Counter()


class Timer(event.Listener):
    def on_start(self, ev):
        starts.append([ev.data["dispatcher"].py_func.__qualname__, time.perf_counter(), 0.0])

    def on_end(self, ev):
        name, began, inner = starts.pop()
        took = time.perf_counter() - began
        own[name] += took - inner
        builds[name] += 1
        if starts:
            starts[-1][2] += took


event.register("numba:compile", Timer())
t0 = time.perf_counter()  # the switch's measurement (its kernels) included
from genqsim.backends import get_backend, min_state_qubits
from genqsim.cli.warmup import warm_precision
from genqsim.plan.build import DEFAULT_FUSION_MIN_QUBITS

numbers, top = sys.argv[1], int(sys.argv[2])
scoped = get_backend("numba")
small = min_state_qubits("numba") or min(scoped.warmup_qubits())
large = max(max(scoped.warmup_qubits()), DEFAULT_FUSION_MIN_QUBITS)
done = warm_precision("numba", numbers, (small, large))
print(f"{numbers}: {time.perf_counter() - t0:.1f} s in all")
for name, _, n, took in done:
    print(f"  {name:<18} {n:>2} qubits  {took:7.2f} s")
print(f"compiling, by function (own seconds, builds), {sum(own.values()):.1f} s counted:")
for name, took in own.most_common(top):
    print(f"  {took:7.2f} s  {builds[name]:>2}  {name}")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numbers", default="complex128", choices=["complex128", "complex64"])
    parser.add_argument("--top", type=int, default=40, help="functions to list")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "GENQSIM_CACHE_DIR": cache}
        subprocess.run(
            [sys.executable, "-c", CHILD, args.numbers, str(args.top)], env=env, check=True
        )


if __name__ == "__main__":
    main()
