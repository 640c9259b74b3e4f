"""Generic numbers at scale, side by side with what a user would run instead: exact closed
forms (``numbers="trig"`` against SymPy's ``simplify`` and SymEngine), then the adjoint
gradient against PennyLane Lightning and error propagation against the object path (the two
existing benchmarks, run as child processes of this one).

    pip install -e ".[bench]" pennylane pennylane-lightning
    python benchmarks/generic_bench.py [--ansatz 4 6] [--qft 8 10 12] [--skip-children]

Closed forms: <Z0> of ``library.hardware_efficient(n, layers=1)`` (2n angles). SymPy: the
expectation with ``numbers="sympy"`` then ``sympy.simplify``; trig: the expectation, then
``to_sympy()``; each result's operation count (``sympy.count_ops``), and whether the two are
the same number (the SymPy form read into the trig field and compared exactly). The exact
QFT of the basis state |5>: ``numbers="trig:2**n"`` against SymEngine (best of 3 after one
warm-up). Ratios are printed; nothing is asserted.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import sympy

import genqsim as gq
from genqsim import library
from genqsim.numbers import get_number_system

HERE = Path(__file__).resolve().parent


def timed(function):
    t0 = time.perf_counter()
    result = function()
    return time.perf_counter() - t0, result


def best_of(function, repeat: int = 3) -> float:
    function()
    return min(timed(function)[0] for _ in range(repeat))


def closed_forms(sizes: list[int]) -> None:
    print("## <Z0> of the hardware-efficient ansatz (1 layer): closed forms")
    print("| n | angles | SymPy + simplify s | ops | trig s | ops | SymPy / trig | equal |")
    print("|---:|---:|---:|---:|---:|---:|---:|:---:|")
    for n in sizes:
        c = library.hardware_efficient(n, layers=1)
        slow, simplified = timed(
            lambda c=c: sympy.simplify(gq.expectation(c, "Z0", numbers="sympy"))
        )
        fast, closed = timed(lambda c=c: gq.expectation(c, "Z0", numbers="trig").to_sympy())
        trig = get_number_system("trig")
        equal = "yes" if trig.scalar(simplified) == trig.scalar(closed) else "NO"
        print(f"| {n} | {2 * n} | {slow:.2f} | {sympy.count_ops(simplified)} | {fast:.3f} | "
              f"{sympy.count_ops(closed)} | {slow / fast:.0f} | {equal} |")  # fmt: skip


def exact_qft(sizes: list[int]) -> None:
    print("\n## Exact QFT of the basis state |5>")
    print("| n | trig:2^n s | SymEngine s | trig / SymEngine |")
    print("|---:|---:|---:|---:|")
    for n in sizes:
        c = gq.Circuit(n).x(0).x(2).compose(library.qft(n))
        trig = best_of(lambda c=c, n=n: gq.simulate(c, numbers=f"trig:{2**n}"))
        symengine = best_of(lambda c=c: gq.simulate(c, numbers="symengine"))
        print(f"| {n} | {trig:.4f} | {symengine:.4f} | {trig / symengine:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ansatz", type=int, nargs="+", default=[4, 6])
    parser.add_argument("--qft", type=int, nargs="+", default=[8, 10, 12])
    parser.add_argument(
        "--skip-children", action="store_true", help="closed forms only (no Lightning run)"
    )
    args = parser.parse_args()
    closed_forms(args.ansatz)
    exact_qft(args.qft)
    if args.skip_children:
        return
    for script in ("adjoint_bench.py", "propagation_bench.py"):
        print(f"\n## {script}", flush=True)
        subprocess.run([sys.executable, str(HERE / script)], check=True)


if __name__ == "__main__":
    main()
