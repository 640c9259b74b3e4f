"""Dense one- and two-qubit kernels and the circuits made of them, genqsim against qulacs,
side by side: each simulator runs in its own subprocess with its thread count set through
the environment (``NUMBA_NUM_THREADS``, ``OMP_NUM_THREADS``, ``QULACS_NUM_THREADS``).

The cases are those of ``genqsim bench`` that dense gates dominate: H and U on a low
(qubit 2) and a high (qubit n - 2) target, a 24-qubit QFT and 20 layers of random U + CZ
bricks on 22 qubits, in both precisions (qulacs' CPU build is double precision only).
genqsim is timed on a prepared plan (what ``StateVector.apply`` runs), qulacs with
``update_quantum_state``; best of ``--repeat`` after one warm-up run.

    python benchmarks/dense_kernels_bench.py [--threads 1 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from genqsim.cli.bench import Case, run_genqsim, run_qulacs, thread_env

CASES = [
    Case("gate", "gate", 24, gate="h", target="low"),
    Case("gate", "gate", 24, gate="h", target="high"),
    Case("gate", "gate", 24, gate="u", target="low"),
    Case("gate", "gate", 24, gate="u", target="high"),
    Case("gate", "gate", 24, gate="t", target="low"),
    Case("gate", "gate", 24, gate="t", target="high"),
    Case("gate", "gate", 26, gate="h", target="low"),
    Case("gate", "gate", 26, "complex64", gate="h", target="low"),
    Case("gate", "gate", 24, "complex64", gate="h", target="high"),
    Case("qft", "circuit", 24),
    Case("qft", "circuit", 24, "complex64"),
    Case("random", "circuit", 22, depth=20),
    Case("random", "circuit", 22, "complex64", depth=20),
]

RUNNERS = {"genqsim": lambda case, repeat, threads: run_genqsim(case, repeat, threads, True),
           "qulacs": run_qulacs}  # fmt: skip


def worker(sim: str, threads: int, repeat: int) -> None:
    """Time every case with one simulator; one JSON line per case (``null``: unsupported)."""
    for case in CASES:
        try:
            seconds: float | None = RUNNERS[sim](case, repeat, threads)
        except (ImportError, NotImplementedError):
            seconds = None
        print(json.dumps({"case": case.label, "seconds": seconds}), flush=True)


def spawn(sim: str, threads: int, repeat: int) -> dict[str, float | None]:
    cmd = [sys.executable, __file__, "--worker", sim, "--threads", str(threads),
           "--repeat", str(repeat)]  # fmt: skip
    out = subprocess.run(
        cmd, env=thread_env(threads), capture_output=True, text=True, check=True
    ).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {row["case"]: row["seconds"] for row in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.threads[0], args.repeat)
        return
    print("| threads | case | genqsim | qulacs | genqsim / qulacs |")
    print("|---|---|---:|---:|---:|")
    for threads in args.threads:
        ours, theirs = (spawn(sim, threads, args.repeat) for sim in ("genqsim", "qulacs"))
        for case in CASES:
            a, b = ours[case.label], theirs.get(case.label)
            ratio = f"{a / b:.2f}" if a and b else ""
            peer = f"{b * 1e3:.1f} ms" if b else "n/a"
            print(f"| {threads} | {case.label} | {a * 1e3:.1f} ms | {peer} | {ratio} |")


if __name__ == "__main__":
    main()
