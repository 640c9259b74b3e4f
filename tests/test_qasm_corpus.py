"""Circuits nobody here wrote: every MQT Bench benchmark at 3-8 qubits, at its algorithm and
target-independent levels, written out by Qiskit as OpenQASM 2 and 3, is read by genqsim and
runs as Qiskit runs the circuit it was written from: the same state (Qiskit's
``Statevector``) for unitary circuits, and for dynamic ones (mid-circuit measurements,
``if``/``else``) the exact distribution of classical records genqsim's density matrix gives,
checked against Qiskit Aer's counts. A file Qiskit writes that genqsim refuses fails here."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import pytest
from qiskit_files import check, exported

mqt_bench = pytest.importorskip("mqt.bench", reason="a test dependency: pip install mqt.bench")

SIZES = range(3, 9)
FIXED_SIZE_MAX_QUBITS = 13
"""A benchmark that comes in one size only is read at that size up to this many qubits (the
Steane code, 13); Shor's nine-qubit code (17) and Shor's algorithm (18) only come wider."""
TOO_WIDE = ("shors_nine_qubit_code", "shor")
QISKIT_CANNOT_WRITE = ("ae",)
"""Benchmarks neither of Qiskit's exporters writes (a gate whose parameter is a matrix:
``TypeError``); :func:`test_qiskit_still_cannot_write_these` notices when that changes."""
LEVELS = ("alg", "indep")


def benchmark_names() -> list[str]:
    from mqt.bench.benchmarks import get_available_benchmark_names

    skipped = (*TOO_WIDE, *QISKIT_CANNOT_WRITE)
    return [name for name in get_available_benchmark_names() if name not in skipped]


def _benchmark(name: str, level: str, n: int) -> Any:
    """The circuit, or ``None`` where the benchmark does not come in ``n`` qubits."""
    from mqt.bench import BenchmarkLevel, get_benchmark

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return get_benchmark(name, BenchmarkLevel[level.upper()], n)
        except (ValueError, TypeError, AssertionError, KeyError):
            return None


@functools.cache
def generated(name: str) -> list[tuple[str, Any]]:
    """``(label, QuantumCircuit)`` of benchmark ``name`` at every size in ``SIZES`` and level
    it has; at its one size, up to ``FIXED_SIZE_MAX_QUBITS``, if it has none of those."""
    out = []
    for level in LEVELS:
        made = [(f"{name}_{level}_{n}", qc) for n in SIZES
                if (qc := _benchmark(name, level, n)) is not None]  # fmt: skip
        for n in range(SIZES.stop, FIXED_SIZE_MAX_QUBITS + 1) if not made else ():
            qc = _benchmark(name, level, n)
            if qc is not None:
                made.append((f"{name}_{level}_{n}", qc))
                break
        out += made
    return out


@pytest.mark.parametrize("name", benchmark_names())
def test_mqt_bench_files_qiskit_writes_read_and_run_as_qiskit_runs_them(name):
    circuits = generated(name)
    assert circuits, f"MQT Bench made no {name} circuit at {SIZES.start}-{SIZES.stop - 1} qubits"
    problems = []
    files = 0
    for label, qc in circuits:
        for kind, text in exported(qc):
            files += 1
            problem = check(label, qc, kind, text)
            if problem is not None:
                problems.append(problem)
    assert files, f"Qiskit wrote no OpenQASM file of {name}"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", QISKIT_CANNOT_WRITE)
def test_qiskit_still_cannot_write_these(name):
    """Once Qiskit writes them, they belong in the corpus above."""
    label, qc = generated(name)[0]
    assert exported(qc) == [], f"Qiskit now writes {label}: take it into the corpus"
