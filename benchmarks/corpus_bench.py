"""Parse + simulate MQT Bench circuits as Qiskit writes them, side by side with Qiskit Aer.

Each benchmark of MQT Bench (``pip install mqt.bench``) at ``--sizes`` qubits, at its
algorithm and target-independent levels, is written by Qiskit as OpenQASM 2 and 3; for each
file (dynamic circuits left out: they run per shot) this times, best of ``--repeats``:

* genqsim: ``gq.qasm.loads``/``loads3`` and ``gq.simulate`` of the circuit without its
  terminal measurements (the final state), ``threads=--threads``;
* Qiskit Aer: ``qiskit.qasm2.loads``/``qasm3.loads``, ``transpile`` for the simulator (Aer
  runs no gate it does not know, such as a file's own definitions) and ``AerSimulator(
  method="statevector")`` with ``save_statevector`` (``max_parallel_threads=--threads``);
* the parse alone: genqsim's reader against Qiskit's, called in turn ``4 * --repeats``
  times each (the shortest of each), and the first read of the file in this process
  (``first``: genqsim keeps what a gate definition's text builds for the process,
  ``genqsim.io.qasm.kept``, so a repeated read of one file, or of another file with the
  same definitions, reuses it; Qiskit's reader keeps nothing).

It prints each file's ratios (genqsim time / Aer time; below 1 genqsim is faster), then the
median and the largest, and the operations genqsim runs against those Aer runs.

    python benchmarks/corpus_bench.py [--sizes 10 11 12] [--repeats 3] [--threads 1]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
import warnings
from collections.abc import Callable

import genqsim as gq


def once(fn: Callable[[], object]) -> float:
    """The time of one call of ``fn``."""
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def best(repeats: int, fn: Callable[[], object]) -> float:
    """The shortest of ``repeats`` timed calls of ``fn``, after one untimed."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def interleaved(
    rounds: int, a: Callable[[], object], b: Callable[[], object]
) -> tuple[float, float]:
    """The shortest times of ``a`` and of ``b``, called in turn ``rounds`` times each after
    one untimed call each: a slow spell of the machine then falls on both, not on one."""
    a(), b()
    best_a = best_b = float("inf")
    for _ in range(rounds):
        best_a = min(best_a, once(a))
        best_b = min(best_b, once(b))
    return best_a, best_b


def corpus(sizes: list[int]) -> list[tuple[str, str, str]]:
    """``(label, "qasm2" | "qasm3", text)`` of every unitary MQT Bench circuit at ``sizes``."""
    from mqt.bench import BenchmarkLevel, get_benchmark
    from mqt.bench.benchmarks import get_available_benchmark_names
    from qiskit import qasm2, qasm3

    out = []
    for name in get_available_benchmark_names():
        for level in ("alg", "indep"):
            for n in sizes:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        qc = get_benchmark(name, BenchmarkLevel[level.upper()], n)
                    except Exception:  # a size or level this benchmark does not come in
                        continue
                body = qc.remove_final_measurements(inplace=False)
                if any(i.operation.name in ("measure", "reset", "if_else") for i in body.data):
                    continue  # dynamic: run per shot, not a state
                for kind, dumps in (("qasm2", qasm2.dumps), ("qasm3", qasm3.dumps)):
                    try:
                        out.append((f"{name}_{level}_{n}", kind, dumps(qc)))
                    except Exception:  # what Qiskit's exporters cannot write
                        continue
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 11, 12])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()

    from qiskit import qasm2, qasm3, transpile
    from qiskit_aer import AerSimulator

    aer = AerSimulator(method="statevector", max_parallel_threads=args.threads)

    def qiskit_read(kind: str, text: str):
        if kind == "qasm2":
            return qasm2.loads(text, custom_instructions=qasm2.LEGACY_CUSTOM_INSTRUCTIONS)
        return qasm3.loads(text)

    def aer_run(kind: str, text: str) -> None:
        qc = qiskit_read(kind, text).remove_final_measurements(inplace=False)
        qc.save_statevector()
        aer.run(transpile(qc, aer, optimization_level=0)).result()

    def ours_read(kind: str, text: str) -> gq.Circuit:
        return gq.qasm.loads3(text) if kind == "qasm3" else gq.qasm.loads(text, exact=False)

    def ours_run(kind: str, text: str) -> None:
        body, _ = ours_read(kind, text).split_terminal_measurements()
        gq.simulate(body, threads=args.threads)

    ratios, parse_ratios, first_ratios = [], [], []
    print(f"{'file':42s} {'ops':>6s} {'genqsim':>9s} {'Aer':>9s} {'ratio':>6s} {'parse':>6s} "
          f"{'first':>6s}")  # fmt: skip
    for label, kind, text in corpus(args.sizes):
        first = once(functools.partial(ours_read, kind, text))
        qiskit_first = once(functools.partial(qiskit_read, kind, text))
        ours = best(args.repeats, functools.partial(ours_run, kind, text))
        try:
            theirs = best(args.repeats, functools.partial(aer_run, kind, text))
        except Exception as exc:  # a file Qiskit or Aer cannot run: said, not timed
            print(f"{label + '.' + kind:42s} Qiskit/Aer failed: {type(exc).__name__}: {exc}")
            continue
        parse, qiskit_parse = interleaved(
            4 * args.repeats,
            functools.partial(ours_read, kind, text),
            functools.partial(qiskit_read, kind, text),
        )
        ops = len(ours_read(kind, text).operations)
        ratios.append(ours / theirs)
        parse_ratios.append(parse / qiskit_parse)
        first_ratios.append(first / qiskit_first)
        print(f"{label + '.' + kind:42s} {ops:6d} {ours * 1e3:8.2f}ms {theirs * 1e3:8.2f}ms "
              f"{ours / theirs:6.2f} {parse / qiskit_parse:6.2f} "
              f"{first / qiskit_first:6.2f}")  # fmt: skip
    print(f"\n{len(ratios)} files; parse + simulate / Aer: median {statistics.median(ratios):.2f}, "
          f"largest {max(ratios):.2f}; parse / Qiskit's parser: median "
          f"{statistics.median(parse_ratios):.2f}, largest {max(parse_ratios):.2f}, "
          f"{sum(r <= 1 for r in parse_ratios)} of {len(parse_ratios)} at or below; first "
          f"read: median {statistics.median(first_ratios):.2f}, largest "
          f"{max(first_ratios):.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
