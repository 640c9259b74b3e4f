"""Where compiling goes: one precision's ``genqsim warmup`` workloads in a fresh process with
an empty kernel cache, and the seconds Numba spent compiling each function, not counting the
functions it calls (each compiled once, counted where it is compiled).

    python benchmarks/compile_bench.py [--numbers complex128] [--top 40] [--builds]

Prints the total (from importing genqsim, the serial/threaded switch's measurement included),
each workload's seconds, then the functions by their own compiling time
(with how many builds of each: serial and threaded kernels are separate). Numba's compile
events nest (a kernel's typing compiles its callees), so a function's own time is its event
minus those inside it. ``--builds`` adds each function compiled more than once with the
argument types of each build: a literal argument, a read-only array or another layout is a
build of its own (the switch's measurement once compiled the one-qubit gate again for a
writable array). Nothing is asserted.
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
signatures = collections.defaultdict(list)  # per function: (own seconds, argument types)


class Timer(event.Listener):
    def on_start(self, ev):
        name = ev.data["dispatcher"].py_func.__qualname__
        args = ", ".join(str(a) for a in ev.data["args"])
        starts.append([name, args, time.perf_counter(), 0.0])

    def on_end(self, ev):
        name, args, began, inner = starts.pop()
        took = time.perf_counter() - began
        own[name] += took - inner
        builds[name] += 1
        signatures[name].append((took - inner, args))
        if starts:
            starts[-1][3] += took


event.register("numba:compile", Timer())
t0 = time.perf_counter()  # the switch's measurement (its kernels) included
from genqsim.backends import get_backend, min_state_qubits
from genqsim.cli.warmup import warm_precision
from genqsim.plan.build import DEFAULT_FUSION_MIN_QUBITS

numbers, top, show_builds = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
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
if show_builds:
    print("functions compiled more than once, each build's own seconds and argument types:")
    for name, took in own.most_common():
        if builds[name] > 1 and not name.startswith("ol_") and "<lambda>" not in name:
            print(f"  {name} ({took:.2f} s)")
            for seconds, args in signatures[name]:
                print(f"    {seconds:6.2f} s  ({args})")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numbers", default="complex128", choices=["complex128", "complex64"])
    parser.add_argument("--top", type=int, default=40, help="functions to list")
    parser.add_argument(
        "--builds",
        action="store_true",
        help="also list each function compiled more than once with its argument types (a "
        "literal argument, a read-only array or another layout is a build of its own)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "GENQSIM_CACHE_DIR": cache}
        subprocess.run(
            [sys.executable, "-c", CHILD, args.numbers, str(args.top), str(int(args.builds))],
            env=env,
            check=True,
        )


if __name__ == "__main__":
    main()
