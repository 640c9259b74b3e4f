"""CPU benchmark: genqsim against the peers a user would otherwise pick, side by side.

Every (simulator, thread count) runs in its own subprocess, so thread settings and memory
do not leak between them; each subprocess times every case applying the circuit to a state
that already exists where the simulator's API allows (best of at least ``--repeat`` runs,
and of as many as fill a quarter of a second for sub-millisecond cases) and prints
JSON. The parent measures this machine's memory bandwidth in the same run, then prints for
each case the time, the ratio to the fastest peer, and for single gates the fraction of
bandwidth achieved (a 1-qubit gate reads and writes the state once: 32 * 2**n bytes for
complex128, 16 * 2**n for complex64).

    genqsim bench                                       # everything (about 25 minutes)
    genqsim bench --quick                               # small sizes, a minute or two
    genqsim bench --sims genqsim qulacs --threads 2 --json out.json
    genqsim bench --only ghz walsh                      # some gates / circuits only
    genqsim bench --only x h --rounds 5                 # 5 rounds in turn: median ratios
    python benchmarks/cpu_bench.py ...                  # the same, from a source checkout

Peers (all optional, ``pip install -e ".[bench]"`` plus the peer packages): qulacs, Qiskit Aer
(statevector, fusion on), qibojit (numba platform), PennyLane lightning.qubit. A missing peer
is reported, never fatal.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

SIMULATORS = ("genqsim", "genqsim-nofuse", "qulacs", "aer", "qibojit", "lightning")
PEERS = ("qulacs", "aer", "qibojit", "lightning")


@dataclass(frozen=True)
class Case:
    name: str
    kind: str  # "gate" or "circuit"
    n: int
    dtype: str = "complex128"
    gate: str = ""  # x, h, t, cx, u
    target: str = ""  # "low" (qubit 2) or "high" (qubit n-2)
    depth: int = 0

    @property
    def label(self) -> str:
        suffix = "" if self.dtype == "complex128" else " c64"
        if self.kind == "gate":
            return f"{self.gate.upper()} {self.target} n={self.n}{suffix}"
        return f"{self.name} n={self.n}{suffix}"


CASE_NAMES = ("x", "h", "t", "cx", "u", "qft", "ghz", "walsh", "random")
"""What ``--only`` selects: single gates by gate name, circuits by circuit name."""


def cases(quick: bool, only: Sequence[str] | None = None) -> list[Case]:
    """The benchmark's cases (small sizes with ``quick``), those named in ``only`` if given."""
    sizes = (16, 18) if quick else (20, 24, 26)
    out = [
        Case("gate", "gate", n, gate=g, target=t)
        for n in sizes
        for g in ("x", "h", "t", "cx", "u")
        for t in ("low", "high")
    ]
    big = 18 if quick else 26
    qft_sizes = (14, 16) if quick else (20, 24)
    rnd = 14 if quick else 22
    out += [Case("qft", "circuit", n) for n in qft_sizes]
    out += [
        Case("ghz", "circuit", big),
        Case("walsh", "circuit", big),
        Case("random", "circuit", rnd, depth=20),
        Case("gate", "gate", big, "complex64", gate="h", target="low"),
        Case("qft", "circuit", qft_sizes[-1], "complex64"),
        Case("random", "circuit", rnd, "complex64", depth=20),
    ]
    if only:
        out = [c for c in out if (c.gate if c.kind == "gate" else c.name) in only]
    return out


# -- circuits as plain gate lists, translated for each simulator ------------------------------


def gate_list(case: Case) -> list[tuple]:
    """``(name, qubits, params)`` tuples; qubit 0 is the least-significant bit everywhere."""
    n = case.n
    if case.kind == "gate":
        q = 2 if case.target == "low" else n - 2
        if case.gate == "cx":
            other = n - 1 if case.target == "low" else 0
            return [("cx", (other, q), ())]
        if case.gate == "u":
            return [("u", (q,), (0.3, 0.5, 0.7))]
        return [(case.gate, (q,), ())]
    if case.name == "ghz":
        return [("h", (0,), ())] + [("cx", (i, i + 1), ()) for i in range(n - 1)]
    if case.name == "walsh":
        return [("h", (i,), ()) for i in range(n)]
    if case.name == "qft":
        import math

        ops: list[tuple[str, tuple[int, ...], tuple[Any, ...]]] = []
        for j in reversed(range(n)):
            ops.append(("h", (j,), ()))
            for k in reversed(range(j)):
                ops.append(("cp", (k, j), (math.pi / 2 ** (j - k),)))
        ops += [("swap", (i, n - 1 - i), ()) for i in range(n // 2)]
        return ops
    if case.name == "random":
        import numpy as np

        rng = np.random.default_rng(1234)
        ops = []
        for layer in range(case.depth):
            angles = rng.uniform(0, 2 * np.pi, size=(n, 3))
            ops += [("u", (q,), tuple(float(a) for a in angles[q])) for q in range(n)]
            ops += [("cz", (q, q + 1), ()) for q in range(layer % 2, n - 1, 2)]
        return ops
    raise ValueError(case.name)


# -- workers: one function per simulator, each returning seconds (or raising) ------------------


def circuit_of(case: Case) -> Any:
    """The case's gates as a genqsim circuit."""
    import genqsim as gq

    circuit = gq.Circuit(case.n)
    for name, qubits, params in gate_list(case):
        getattr(circuit, name)(*params, *qubits)
    return circuit


MIN_TIMED_SECONDS = 0.25
"""Each case is timed at least ``--repeat`` times and until this much time has passed (at
most :data:`MAX_RUNS` runs): a sub-millisecond gate's best of three is mostly noise (a
thread waking, the clock speed changing), for every simulator alike."""

MAX_RUNS = 500


def shortest(measure: Callable[[], float], repeat: int) -> float:
    """The least of at least ``repeat`` results of ``measure`` (a run's seconds), measured
    again while the runs so far took under :data:`MIN_TIMED_SECONDS` (at most
    :data:`MAX_RUNS` runs)."""
    times: list[float] = []
    while len(times) < repeat or (sum(times) < MIN_TIMED_SECONDS and len(times) < MAX_RUNS):
        times.append(measure())
    return min(times)


def best_of(fn: Callable[[], object], repeat: int) -> float:
    """The shortest wall time of ``fn()``, by :func:`shortest`."""

    def timed() -> float:
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    return shortest(timed, repeat)


def run_genqsim(case: Case, repeat: int, threads: int, fuse: bool) -> float:
    import genqsim as gq
    from genqsim.plan import build_plan, plan_for_backend, run_plan

    gq.set_num_threads(threads)
    c = circuit_of(case)
    psi = gq.zeros(case.n, numbers=case.dtype)
    # what StateVector.apply does (default fusion and cache blocking), or plain gate by gate
    if fuse:
        plan = plan_for_backend(c, psi.numbers, psi.backend)
    else:
        plan = build_plan(c, psi.numbers, False)
    run_plan(plan, psi.backend, psi.amplitudes)  # compile / load kernels once
    return best_of(lambda: run_plan(plan, psi.backend, psi.amplitudes), repeat)


def run_qulacs(case: Case, repeat: int, threads: int) -> float:
    if case.dtype != "complex128":
        raise NotImplementedError("qulacs (CPU) is double precision only")
    from qulacs import QuantumCircuit, QuantumState

    c = QuantumCircuit(case.n)
    for name, q, p in gate_list(case):
        if name == "u":
            c.add_U3_gate(q[0], *p)
        elif name == "cx":
            c.add_CNOT_gate(q[0], q[1])
        elif name == "cz":
            c.add_CZ_gate(q[0], q[1])
        elif name == "cp":
            import numpy as np
            from qulacs.gate import DenseMatrix

            phase = np.array([[1, 0], [0, np.exp(1j * p[0])]], dtype=np.complex128)
            g = DenseMatrix(q[1], phase)
            g.add_control_qubit(q[0], 1)
            c.add_gate(g)
        elif name == "swap":
            c.add_SWAP_gate(*q)
        else:
            getattr(c, f"add_{name.upper()}_gate")(q[0])
    state = QuantumState(case.n)
    c.update_quantum_state(state)
    return best_of(lambda: c.update_quantum_state(state), repeat)


def run_aer(case: Case, repeat: int, threads: int) -> float:
    from qiskit import QuantumCircuit
    from qiskit_aer import AerSimulator

    qc = QuantumCircuit(case.n)
    for name, q, p in gate_list(case):
        getattr(qc, name)(*p, *q)
    qc.save_amplitudes([0])  # something to compute, so Aer cannot skip the circuit
    sim = AerSimulator(
        method="statevector",
        precision="single" if case.dtype == "complex64" else "double",
        max_parallel_threads=threads,
        fusion_enable=True,
    )
    sim.run(qc).result()

    def job() -> float:
        """Aer's own timing of one run (its Python overhead left out)."""
        return float(sim.run(qc, shots=1).result().results[0].time_taken)

    job()
    return shortest(job, repeat)


def run_qibojit(case: Case, repeat: int, threads: int) -> float:
    import numpy as np
    import qibo
    from qibo import gates

    # qibojit sets its thread count from the CPU affinity, and numba refuses more threads than
    # NUMBA_NUM_THREADS: pin the worker to `threads` CPUs so the two agree.
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:threads])
    qibo.set_backend("qibojit", platform="numba")
    qibo.set_dtype(case.dtype)
    backend = qibo.get_backend()
    n = case.n
    # qibo numbers qubit 0 as the most significant bit: mirror indices so the work matches
    m = lambda q: n - 1 - q  # noqa: E731
    ops = []
    for name, q, p in gate_list(case):
        if name == "u":
            ops.append(gates.U3(m(q[0]), *p))
        elif name == "cx":
            ops.append(gates.CNOT(m(q[0]), m(q[1])))
        elif name == "cz":
            ops.append(gates.CZ(m(q[0]), m(q[1])))
        elif name == "cp":
            ops.append(gates.CU1(m(q[0]), m(q[1]), p[0]))
        elif name == "swap":
            ops.append(gates.SWAP(m(q[0]), m(q[1])))
        else:
            ops.append(getattr(gates, name.upper())(m(q[0])))
    state = np.zeros(2**n, dtype=case.dtype)
    state[0] = 1

    def apply():
        s = state
        for g in ops:
            s = backend.apply_gate(g, s, n)
        return s

    apply()
    return best_of(apply, repeat)


def run_lightning(case: Case, repeat: int, threads: int) -> float:
    import pennylane as qml

    n = case.n
    wires = list(range(n))[::-1]  # PennyLane wire 0 is the most significant bit
    w = lambda q: wires[q]  # noqa: E731
    ops = []
    for name, q, p in gate_list(case):
        if name == "u":
            ops.append(qml.U3(*p, wires=w(q[0])))
        elif name == "cx":
            ops.append(qml.CNOT(wires=[w(q[0]), w(q[1])]))
        elif name == "cz":
            ops.append(qml.CZ(wires=[w(q[0]), w(q[1])]))
        elif name == "cp":
            ops.append(qml.ControlledPhaseShift(p[0], wires=[w(q[0]), w(q[1])]))
        elif name == "swap":
            ops.append(qml.SWAP(wires=[w(q[0]), w(q[1])]))
        else:
            ops.append({"x": qml.PauliX, "h": qml.Hadamard, "t": qml.T}[name](wires=w(q[0])))
    dtype = "complex64" if case.dtype == "complex64" else "complex128"
    import numpy as np

    dev = qml.device("lightning.qubit", wires=n, c_dtype=np.dtype(dtype))
    tape = qml.tape.QuantumScript(ops, [qml.expval(qml.PauliZ(0))])
    dev.execute(tape)
    return best_of(lambda: dev.execute(tape), repeat)


def worker(sim: str, threads: int, repeat: int, quick: bool, only: Sequence[str] | None) -> None:
    results: dict[str, Any] = {}
    for case in cases(quick, only):
        try:
            if sim.startswith("genqsim"):
                seconds = run_genqsim(case, repeat, threads, fuse=sim == "genqsim")
            else:
                seconds = globals()[f"run_{sim}"](case, repeat, threads)
            results[case.label] = seconds
        except ImportError as exc:
            print(json.dumps({"missing": f"{sim}: {exc}"}))
            return
        except Exception as exc:
            results[case.label] = f"error: {type(exc).__name__}: {exc}"[:200]
        print(json.dumps({"case": case.label, "result": results[case.label]}), flush=True)


# -- parent -------------------------------------------------------------------------------------


def measure_bandwidth() -> float:
    """Bytes per second of the best of a single-threaded NumPy copy and a threaded Numba copy
    of a 1 GiB array (bytes read + written)."""
    import numpy as np

    src = np.ones(1 << 27, dtype=np.float64)  # 1 GiB
    dst = np.empty_like(src)
    best = min(best_of(lambda: np.copyto(dst, src), 1) for _ in range(3))
    try:
        import numba

        @numba.njit(parallel=True, cache=False)
        def copy(a, b):
            for i in numba.prange(a.size):
                b[i] = a[i]

        copy(src, dst)
        best = min(best, min(best_of(lambda: copy(src, dst), 1) for _ in range(3)))
    except ImportError:
        pass
    return 2 * src.nbytes / best


def thread_env(threads: int) -> dict[str, str]:
    """This process's environment with every simulator's thread count set to ``threads``
    (for a worker subprocess: the counts are read at start-up)."""
    counts = ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "QULACS_NUM_THREADS")
    return {**os.environ, **dict.fromkeys(counts, str(threads))}


def spawn(
    sim: str, threads: int, repeat: int, quick: bool, only: Sequence[str] | None
) -> tuple[dict, str | None]:
    env = thread_env(threads)
    cmd = [sys.executable, "-m", "genqsim.cli.bench", "--worker", sim, "--threads", str(threads),
           "--repeat", str(repeat)] + (["--quick"] if quick else [])  # fmt: skip
    if only:
        cmd += ["--only", *only]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    results, missing = {}, None
    for line in proc.stdout.splitlines():
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "missing" in item:
            missing = item["missing"]
        else:
            results[item["case"]] = item["result"]
    if proc.returncode and not results and not missing:
        missing = f"{sim}: worker failed: {proc.stderr.strip().splitlines()[-1:]}"
    return results, missing


def best_results(kept: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Each case's shorter time of two rounds; a case timed in either keeps its time (a
    round where it failed, ``"err"``, does not replace one where it ran)."""
    out = dict(kept)
    for case, value in new.items():
        old = out.get(case)
        if not isinstance(old, (int, float)) or (isinstance(value, (int, float)) and value < old):
            out[case] = value
    return out


def state_bytes(case: Case) -> int:
    return (16 if case.dtype == "complex128" else 8) * 2**case.n


def peer_ratio(results: dict, threads: int, label: str) -> float | None:
    """genqsim's time of case ``label`` over the fastest peer's in ``results`` (``None``
    where either is missing)."""
    times = {sim: r.get(label) for (sim, t), r in results.items() if t == threads}
    ours = times.get("genqsim")
    peers = [v for sim, v in times.items() if sim in PEERS and isinstance(v, (int, float))]
    if not isinstance(ours, (int, float)) or not peers:
        return None
    return ours / min(peers)


def table(
    all_results,
    bandwidth: float,
    threads_list,
    sims,
    quick: bool,
    only: Sequence[str] | None = None,
    rounds: Sequence[dict] = (),
) -> str:
    """The times (each case's best) and genqsim's ratio to the fastest peer: with several
    ``rounds`` (each its own processes, one round's simulators minutes apart at most) the
    median of the rounds' ratios, so that one process's luck on a shared machine does not
    decide it."""
    lines = []
    for threads in threads_list:
        lines.append(f"\n### {threads} thread{'s' if threads > 1 else ''}\n")
        header = ["case", *sims, "genqsim / best peer", "genqsim bandwidth"]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        for case in cases(quick, only):
            row = [case.label]
            times = {}
            for sim in sims:
                value = all_results.get((sim, threads), {}).get(case.label)
                if isinstance(value, (int, float)):
                    times[sim] = value
                    row.append(f"{value * 1e3:.2f} ms")
                else:
                    row.append("n/a" if value is None else "err")
            ours = times.get("genqsim")
            found = [r for r in (peer_ratio(x, threads, case.label) for x in rounds) if r]
            ratio = (
                statistics.median(found) if found else peer_ratio(all_results, threads, case.label)
            )
            row.append("n/a" if ratio is None else f"{ratio:.2f}")
            if case.kind == "gate" and ours:
                row.append(f"{2 * state_bytes(case) / ours / bandwidth:.0%}")
            else:
                row.append("")
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="genqsim bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sims", nargs="+", default=list(SIMULATORS), choices=SIMULATORS)
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--only", nargs="+", choices=CASE_NAMES,
                        help="only these gates / circuits (e.g. --only ghz walsh)")  # fmt: skip
    parser.add_argument("--rounds", type=int, default=1,
                        help="run every simulator this many times, in turn, keeping each "
                             "case's best time and giving the median of the rounds' ratios: "
                             "on a shared machine the memory bandwidth drifts between one "
                             "simulator's process and the next's, and one process's speed "
                             "must not decide a ratio")  # fmt: skip
    parser.add_argument("--json", help="also write raw results here")
    parser.add_argument("--busy-neighbour", action="store_true",
                        help="measure beside a CPU-bound process pinned to one core, as on a "
                             "shared node or a laptop")  # fmt: skip
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.threads[0], args.repeat, args.quick, args.only)
        return
    with busy_neighbour() if args.busy_neighbour else contextlib.nullcontext():
        measure_all(args)


@contextlib.contextmanager
def busy_neighbour() -> Iterator[None]:
    """A CPU-bound process pinned to the last CPU this one may use, for the block's length."""
    cpu = max(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    pin = (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=pin)
    print(f"busy neighbour: pid {spinner.pid} spinning on CPU {cpu}", flush=True)
    try:
        time.sleep(0.5)  # let it reach the core
        yield
    finally:
        spinner.kill()
        spinner.wait()


def measure_all(args: argparse.Namespace) -> None:
    """Every simulator at every thread count (``--rounds`` times, the order of the
    simulators reversed every other round), then the table of each case's best."""
    if args.rounds < 1:
        sys.exit(f"genqsim bench: --rounds is a positive count, got {args.rounds}")
    bandwidth = measure_bandwidth()
    print(f"memory bandwidth (1 GiB copy, read + write): {bandwidth / 1e9:.2f} GB/s", flush=True)
    all_results: dict[tuple[str, int], dict] = {}
    rounds: list[dict[tuple[str, int], dict]] = []
    missing = []
    for round_index in range(args.rounds):
        order = args.sims if round_index % 2 == 0 else args.sims[::-1]
        rounds.append({})
        for threads in args.threads:
            for sim in order:
                t0 = time.time()
                results, miss = spawn(sim, threads, args.repeat, args.quick, args.only)
                rounds[-1][(sim, threads)] = results
                all_results[(sim, threads)] = best_results(
                    all_results.get((sim, threads), {}), results
                )
                if miss:
                    missing.append(miss)
                where = f"round {round_index + 1}/{args.rounds}: " if args.rounds > 1 else ""
                print(f"  {where}{sim} ({threads} threads): {len(results)} cases in "
                      f"{time.time() - t0:.0f} s", file=sys.stderr, flush=True)  # fmt: skip
    if args.rounds > 1:
        print(f"times: the best of {args.rounds} rounds; genqsim / best peer: the median of "
              "the rounds' ratios")  # fmt: skip
    print(table(all_results, bandwidth, args.threads, args.sims, args.quick, args.only,
                rounds if args.rounds > 1 else ()))  # fmt: skip
    for m in sorted(set(missing)):
        print(f"missing peer: {m}")
    ours = [r for (sim, _), r in all_results.items() if sim == "genqsim"]
    if ours and not any(isinstance(v, (int, float)) for r in ours for v in r.values()):
        why = "; ".join(m for m in missing if m.startswith("genqsim")) or "every case failed"
        sys.exit(f"genqsim bench: genqsim itself could not run ({why})")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {"bandwidth": bandwidth,
                 "results": {f"{s}|{t}": r for (s, t), r in all_results.items()}},
                fh, indent=1,
            )  # fmt: skip


if __name__ == "__main__":
    main()
