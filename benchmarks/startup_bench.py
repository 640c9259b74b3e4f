"""Start-up and small-circuit costs, side by side with Qiskit in one process tree.

* ``genqsim run ghz:2`` and ``import genqsim`` in fresh processes (best of 5);
* OpenQASM 2 parse time: ``gq.qasm.loads`` (exact, and ``exact=False``) against
  ``qiskit.qasm2.loads`` (run in turn, Qiskit between each two of ours; 10th percentile of
  20 runs per ``--repeats``); and load + simulate against
  ``Statevector(QuantumCircuit.from_qasm_str(...))``, on generated circuits below 14 qubits
  (a Cirq-style layered circuit with decimal angles, an exact QFT, a random U + CZ circuit,
  four Qiskit library circuits as ``qiskit.qasm2.dumps`` writes them, with gate definitions)
  and on every ``*.qasm`` file under ``--dir`` (e.g. a QASMBench checkout's ``small/``);
* with ``--load-files``, only reading each ``--dir`` file from disk (``gq.qasm.load``
  against ``qiskit.qasm2.load``);
* the two size thresholds: the NumPy against the Numba backend per gate on small states
  (``COMPILED_MIN_STATE_QUBITS``), and default fusion against gate by gate
  (``DEFAULT_FUSION_MIN_QUBITS``).

    python benchmarks/startup_bench.py [--dir PATH] [--repeats 5]
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import genqsim as gq


def best(repeats: int, fn: Callable[..., object], *args: object, **kwargs: object) -> float:
    """The shortest of ``repeats`` timed calls ``fn(*args, **kwargs)``, after one untimed."""
    fn(*args, **kwargs)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args, **kwargs)
        times.append(time.perf_counter() - t0)
    return min(times)


def interleaved(samples: int, calls: list[Callable[[], object]]) -> dict[object, float]:
    """The 10th percentile of the timed runs of each of ``calls``, run in turn (one of each,
    then again) ``samples`` times after one untimed run each, keyed by call: parse times of
    a few to a few hundred microseconds, where one slow moment of the machine would
    otherwise favour one side. A call listed twice (a peer between two of ours, so neither
    of ours runs right after the other on warm caches) has its runs pooled."""
    for call in calls:
        call()
    times: dict[object, list[float]] = {call: [] for call in calls}
    for _ in range(samples):
        for call in calls:
            t0 = time.perf_counter()
            call()
            times[call].append(time.perf_counter() - t0)
    return {call: sorted(taken)[len(taken) // 10] for call, taken in times.items()}


def fresh_process(code: list[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(code, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return min(times)


def layered(n: int, layers: int, seed: int = 1) -> str:
    """A Cirq-exported style circuit: decimal multiples of pi, u3 and cx, as in QASMBench."""
    r = random.Random(seed)
    out = ["OPENQASM 2.0;", 'include "qelib1.inc";', f"qreg q[{n}];", f"creg c[{n}];"]
    for _ in range(layers):
        for q in range(n):
            a = f"{r.random():.10f}"
            out += [f"rx(pi*{a}) q[{q}];", f"ry(pi*{a}) q[{q}];", f"rz(pi*{a}) q[{q}];"]
        for q in range(n - 1):
            out += [
                f"u3(pi*0.5,0,pi*0.25) q[{q}];",
                f"u3(pi*0.5,pi*1.0,pi*0.75) q[{q + 1}];",
                f"cx q[{q}],q[{q + 1}];",
                f"rx(pi*-0.5) q[{q + 1}];",
                f"cx q[{q + 1}],q[{q}];",
            ]
    return "\n".join(out) + "\n"


ADDER = """OPENQASM 2.0;
include "qelib1.inc";
gate majority a,b,c
{
  cx c,b;
  cx c,a;
  ccx a,b,c;
}
gate unmaj a,b,c
{
  ccx a,b,c;
  cx c,a;
  cx a,b;
}
qreg cin[1];
qreg a[4];
qreg b[4];
qreg cout[1];
creg ans[5];
// set input states
x a[0]; // a = 0001
x b;    // b = 1111
// add a to b, storing result in b
majority cin[0],b[0],a[0];
majority a[0],b[1],a[1];
majority a[1],b[2],a[2];
majority a[2],b[3],a[3];
cx a[3],cout[0];
unmaj a[2],b[3],a[3];
unmaj a[1],b[2],a[2];
unmaj a[0],b[1],a[1];
unmaj cin[0],b[0],a[0];
measure b[0] -> ans[0];
measure b[1] -> ans[1];
measure b[2] -> ans[2];
measure b[3] -> ans[3];
measure cout[0] -> ans[4];
"""
"""The ripple-carry adder of the OpenQASM 2 paper (QASMBench's ``adder``): gate definitions,
a broadcast and measurements, as hand-written files have them."""


def qiskit_exports() -> list[tuple[str, str]]:
    """Circuits as ``qiskit.qasm2.dumps`` writes them: each of its library gates becomes a
    gate definition whose body calls qelib1 gates with constant parameters (how many
    QASMBench files were made)."""
    from qiskit import QuantumCircuit, qasm2
    from qiskit.circuit.library import QFTGate, efficient_su2, grover_operator, quantum_volume

    qft = QuantumCircuit(8)
    qft.append(QFTGate(8), range(8))
    oracle = QuantumCircuit(5)
    oracle.h(4)
    oracle.mcx([0, 1, 2, 3], 4)
    oracle.h(4)
    grover = QuantumCircuit(5)
    grover.h(range(5))
    grover.append(grover_operator(oracle).to_gate(), range(5))
    grover.measure_all()
    ansatz = efficient_su2(6, reps=2)
    ansatz = ansatz.assign_parameters([0.1 * i for i in range(ansatz.num_parameters)])
    bound = QuantumCircuit(6)
    bound.append(ansatz.to_gate(), range(6))
    circuits = [
        ("qft 8", qft),
        ("grover 5 (mcx)", grover),
        ("quantum volume 6", quantum_volume(6, seed=1)),
        ("bound ansatz 6", bound),
    ]
    return [(f"Qiskit export: {name}", qasm2.dumps(c)) for name, c in circuits]


def cases(directory: Path | None) -> list[tuple[str, str]]:
    out = [
        ("adder n=10 (gate definitions)", ADDER),
        ("layered n=8 (decimal pi multiples)", layered(8, 6)),
        ("layered n=13", layered(13, 6)),
        ("qft n=12 (exact pi/2^k)", gq.qasm.dumps(gq.library.qft(12))),
        ("random n=10 depth 20 (float u)", gq.qasm.dumps(gq.library.random_circuit(10, 20, 1))),
        *qiskit_exports(),
    ]
    if directory is not None:
        for path in sorted(directory.rglob("*.qasm")):
            out.append((str(path.relative_to(directory)), path.read_text()))
    return out


def load_and_simulate(text: str) -> object:
    return gq.simulate(gq.qasm.loads(text, exact=False))


def qiskit_load_and_simulate(text: str) -> object:
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import Statevector

    return Statevector(QuantumCircuit.from_qasm_str(text).remove_final_measurements(False))


PARSE_SAMPLES_PER_REPEAT = 20
"""Parse times are the 10th percentile of this many interleaved runs per ``--repeats``."""


def qasm_table(directory: Path | None, repeats: int) -> None:
    import qiskit.qasm2
    from qiskit import QuantumCircuit

    print("\n| circuit | n | gates | parse: genqsim exact / float / Qiskit | ratio (float) |"
          " load+simulate: genqsim / Qiskit | ratio |")  # fmt: skip
    print("|---|---:|---:|---|---:|---|---:|")
    ratios_parse, ratios_total = [], []
    legacy = qiskit.qasm2.LEGACY_CUSTOM_INSTRUCTIONS  # what from_qasm_str reads: cp, cu, ...
    for name, text in cases(directory):
        try:
            circuit = gq.qasm.loads(text, exact=False)
            qc = QuantumCircuit.from_qasm_str(text)
            qiskit.qasm2.loads(text, custom_instructions=legacy)
        except Exception as exc:  # a file one of the two cannot read is listed, not timed
            print(f"| {name} | | | skipped: {type(exc).__name__}: {str(exc)[:60]} | | | |")
            continue
        if circuit.n_qubits >= 14:
            continue
        qc.remove_final_measurements()
        unitary = not circuit.split_terminal_measurements()[0].has_non_unitary
        ours_exact = functools.partial(gq.qasm.loads, text)
        ours_float = functools.partial(gq.qasm.loads, text, exact=False)
        peer = functools.partial(qiskit.qasm2.loads, text, custom_instructions=legacy)
        parse = interleaved(
            PARSE_SAMPLES_PER_REPEAT * repeats, [ours_exact, peer, ours_float, peer]
        )
        exact, floats, theirs = parse[ours_exact], parse[ours_float], parse[peer]
        cell = "n/a (mid-circuit measurement)"
        ratio_total = ""
        if unitary:
            ours_total = best(repeats, load_and_simulate, text)
            theirs_total = best(repeats, qiskit_load_and_simulate, text)
            cell = f"{ours_total * 1e3:.2f} / {theirs_total * 1e3:.2f} ms"
            ratios_total.append(ours_total / theirs_total)
            ratio_total = f"{ours_total / theirs_total:.2f}"
        ratios_parse.append(floats / theirs)
        print(
            f"| {name} | {circuit.n_qubits} | {len(circuit)} | {exact * 1e3:.2f} / "
            f"{floats * 1e3:.2f} / {theirs * 1e3:.2f} ms | {floats / theirs:.2f} | {cell} | "
            f"{ratio_total} |"
        )
    if ratios_parse:
        print(
            f"\nmedian parse ratio genqsim (float) / Qiskit: {statistics.median(ratios_parse):.2f}"
        )
    if ratios_total:
        print(f"median load+simulate ratio: {statistics.median(ratios_total):.2f}; "
              f"circuits where genqsim is faster: "
              f"{sum(r <= 1 for r in ratios_total)} of {len(ratios_total)}")  # fmt: skip


def file_table(directory: Path, repeats: int) -> None:
    """Reading each ``*.qasm`` file under ``directory`` from disk: ``gq.qasm.load`` (floats)
    against ``qiskit.qasm2.load`` (timed in turn, as the parse columns)."""
    import qiskit.qasm2

    legacy = qiskit.qasm2.LEGACY_CUSTOM_INSTRUCTIONS
    print("\n| file | load from disk: genqsim / Qiskit | ratio |\n|---|---|---:|")
    ratios = []
    for path in sorted(directory.rglob("*.qasm")):
        ours = functools.partial(gq.qasm.load, path, exact=False)
        peer = functools.partial(qiskit.qasm2.load, str(path), custom_instructions=legacy)
        try:
            ours(), peer()
        except Exception as exc:  # a file one of the two cannot read is listed, not timed
            print(f"| {path.relative_to(directory)} | skipped: {type(exc).__name__} | |")
            continue
        times = interleaved(PARSE_SAMPLES_PER_REPEAT * repeats, [ours, peer, peer])
        ratios.append(times[ours] / times[peer])
        print(f"| {path.relative_to(directory)} | {times[ours] * 1e6:.1f} / "
              f"{times[peer] * 1e6:.1f} us | {ratios[-1]:.2f} |")  # fmt: skip
    if ratios:
        print(
            f"\nmedian load ratio genqsim / Qiskit: {statistics.median(ratios):.2f}; "
            f"files at or below Qiskit: {sum(r <= 1 for r in ratios)} of {len(ratios)}"
        )


def thresholds(repeats: int) -> None:
    print("\n| n | gates | numpy backend | numba backend | numpy / numba |")
    print("|---:|---:|---:|---:|---:|")
    for n in (4, 6, 8, 9, 10, 12):
        c = gq.library.random_circuit(n, 20, 1)
        times = [best(repeats, gq.simulate, c, backend=b) for b in ("numpy", "numba")]
        print(f"| {n} | {len(c)} | {times[0] * 1e3:.2f} ms | {times[1] * 1e3:.2f} ms | "
              f"{times[0] / times[1]:.2f} |")  # fmt: skip
    print("\n| circuit | fused (fuse=True) | gate by gate (fuse=False) | fused / gate by gate |")
    print("|---|---:|---:|---:|")
    for n in (12, 16, 18, 20, 22):
        for label, c in (
            ("qft", gq.library.qft(n)),
            ("random", gq.library.random_circuit(n, 20, 1)),
        ):
            fused = best(max(1, repeats // 2), gq.simulate, c, fuse=True)
            plain = best(max(1, repeats // 2), gq.simulate, c, fuse=False)
            print(f"| {label} n={n} | {fused * 1e3:.1f} ms | {plain * 1e3:.1f} ms | "
                  f"{fused / plain:.2f} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", type=Path, default=None, help="also time every *.qasm here")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--qasm-only", action="store_true", help="the OpenQASM table alone")
    parser.add_argument(
        "--load-files", action="store_true", help="only time reading the --dir files from disk"
    )
    args = parser.parse_args()
    if args.load_files:
        if args.dir is None:
            parser.error("--load-files needs --dir")
        file_table(args.dir, args.repeats)
        return
    if args.qasm_only:
        qasm_table(args.dir, args.repeats)
        return
    genqsim = [sys.executable, "-m", "genqsim"]
    print(f"genqsim run ghz:2 (fresh process): "
          f"{fresh_process([*genqsim, 'run', 'ghz:2'], args.repeats):.3f} s")  # fmt: skip
    importing = fresh_process([sys.executable, "-c", "import genqsim"], args.repeats)
    print(f"import genqsim (fresh process):    {importing:.3f} s")
    print(f"python -c pass (fresh process):    "
          f"{fresh_process([sys.executable, '-c', 'pass'], args.repeats):.3f} s")  # fmt: skip
    qasm_table(args.dir, args.repeats)
    thresholds(args.repeats)


if __name__ == "__main__":
    main()
