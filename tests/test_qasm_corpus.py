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

import numpy as np
import pytest

import genqsim as gq
from genqsim.io.qasm.qasm3 import _as_qasm2, _read

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
SHOTS = 20_000
SAMPLED_SHOTS = 1_000
EXACT_RECORDS_MAX_QUBITS = 10
"""Dynamic circuits up to this width are compared through genqsim's exact distribution of
classical records (a density matrix); wider ones through genqsim's own shots."""
FIDELITY_TOLERANCE = 1e-9


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


def exported(qc: Any) -> list[tuple[str, str]]:
    """The OpenQASM texts Qiskit writes of ``qc`` (2.0 only where it can say the circuit)."""
    from qiskit import qasm2, qasm3
    from qiskit.qasm2 import QASM2ExportError
    from qiskit.qasm3 import QASM3ExporterError

    out = []
    try:
        out.append(("qasm3", qasm3.dumps(qc)))
    except TypeError:  # Qiskit 2.6's exporter fails on matrix-valued parameters (ae)
        pass
    except QASM3ExporterError:  # and on instructions that are no gates (Initialize, ...)
        pass
    try:
        out.append(("qasm2", qasm2.dumps(qc)))
    except (QASM2ExportError, TypeError):  # conditions on single bits: OpenQASM 2 has none
        pass
    return out


def is_dynamic(qc: Any) -> bool:
    body = qc.remove_final_measurements(inplace=False)
    return any(i.operation.name in ("measure", "reset", "if_else") for i in body.data)


def qiskit_state(qc: Any) -> np.ndarray:
    from qiskit import transpile
    from qiskit.quantum_info import Statevector

    body = qc.remove_final_measurements(inplace=False)
    return Statevector(transpile(body, basis_gates=["u", "cx"], optimization_level=0)).data


def aer_counts(qc: Any, shots: int) -> dict[int, int]:
    """Aer's counts of ``qc`` keyed by the integer of all classical bits (bit ``i`` of the
    key is ``qc.clbits[i]``, as genqsim numbers the bits a file declares)."""
    from qiskit import transpile
    from qiskit_aer import AerSimulator

    sim = AerSimulator(method="statevector", seed_simulator=11)
    counts = sim.run(transpile(qc, sim, optimization_level=0), shots=shots).result().get_counts()
    return {int(key.replace(" ", ""), 2): v for key, v in counts.items()}


def genqsim_records(circuit: gq.Circuit) -> dict[int, float]:
    """The exact probability of each classical record (bits never written read 0)."""
    rest, terminal = circuit.split_terminal_measurements()
    state = gq.simulate(rest, method="density_matrix")
    records = state.record_distribution(terminal, circuit.n_clbits)
    return {int(key.replace("-", "0"), 2): float(p) for key, p in records.items()}


def genqsim_counts(circuit: gq.Circuit, shots: int) -> dict[int, int]:
    counts = gq.counts(circuit, shots, seed=5, method="statevector")
    return {int(key.replace(" ", ""), 2): v for key, v in counts.items()}


def read(kind: str, text: str) -> gq.Circuit:
    return gq.qasm.loads3(text) if kind == "qasm3" else gq.qasm.loads(text)


def check(label: str, qc: Any, kind: str, text: str) -> str | None:
    """What is wrong with genqsim's reading and run of ``text``, or ``None``."""
    try:
        circuit = read(kind, text)
    except gq.qasm.QasmError as exc:
        return f"{label}.{kind} refused: {exc}"
    if kind == "qasm3" and _as_qasm2(text) is not None and circuit != _read(text, None):
        return f"{label}.{kind}: the plain-export reader and the reference parser's differ"
    if circuit.n_qubits != qc.num_qubits:
        return f"{label}.{kind}: {circuit.n_qubits} qubits, Qiskit {qc.num_qubits}"
    if not is_dynamic(qc):
        body, _ = circuit.split_terminal_measurements()
        ours = gq.simulate(body).to_numpy()
        fidelity = abs(np.vdot(qiskit_state(qc), ours)) ** 2
        if not fidelity > 1 - FIDELITY_TOLERANCE:
            return f"{label}.{kind}: fidelity {fidelity} with Qiskit's state"
        return None
    if circuit.n_qubits <= EXACT_RECORDS_MAX_QUBITS:
        expected = genqsim_records(circuit)
        counts = aer_counts(qc, SHOTS)
        for value in set(expected) | set(counts):
            p = expected.get(value, 0.0)
            f = counts.get(value, 0) / SHOTS
            if abs(f - p) > 5 * np.sqrt(max(p * (1 - p), 0.0) / SHOTS) + 2e-3:
                return f"{label}.{kind}: record {value:b} has probability {p}, Aer {f}"
        return None
    ours, theirs = genqsim_counts(circuit, SAMPLED_SHOTS), aer_counts(qc, SAMPLED_SHOTS)
    for value in set(ours) | set(theirs):
        a, b = ours.get(value, 0) / SAMPLED_SHOTS, theirs.get(value, 0) / SAMPLED_SHOTS
        p = (a + b) / 2
        if abs(a - b) > 5 * np.sqrt(2 * p * (1 - p) / SAMPLED_SHOTS) + 2e-3:
            return f"{label}.{kind}: record {value:b} in {a} of genqsim's shots, Aer's {b}"
    return None


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


def _library_circuits() -> dict[str, Any]:
    """Qiskit library gates whose exports hold arguments that are no OpenQASM expressions
    (complex numbers, labels), each on a state that is not a basis state; ``dynamic``: the
    same under a measurement and an ``if``, which the reference parser reads."""
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import DiagonalGate, Initialize, PauliGate, StatePreparation
    from qiskit.quantum_info import random_statevector

    def on(n: int, *gates: tuple[Any, list[int]]) -> Any:
        qc = QuantumCircuit(n)
        qc.h(range(n))
        qc.ry(0.3, 0)
        for gate, qubits in gates:
            qc.append(gate, qubits)
        return qc

    dynamic = QuantumCircuit(3, 2)
    dynamic.append(StatePreparation(random_statevector(4, seed=3)), [0, 1])
    dynamic.append(PauliGate("XY"), [1, 2])
    dynamic.measure(0, 0)
    with dynamic.if_test((dynamic.clbits[0], 1)):
        dynamic.append(StatePreparation("1+"), [1, 2])
    dynamic.measure(2, 1)
    return {
        "state_preparation": on(3, (StatePreparation(random_statevector(8, seed=2)), [2, 0, 1])),
        "state_preparation_label": on(3, (StatePreparation("0+r"), [0, 1, 2])),
        "initialize": on(2, (Initialize(random_statevector(4, seed=4)), [1, 0])),
        "diagonal": on(3, (DiagonalGate(list(np.exp(0.7j * np.arange(8)))), [0, 1, 2])),
        "pauli": on(3, (PauliGate("XZY"), [0, 1, 2])),
        "dynamic": dynamic,
    }


@pytest.mark.parametrize("name", _library_circuits())
def test_qiskit_exports_with_unread_arguments_that_are_no_expressions_read(name):
    """Qiskit writes complex numbers and labels as the arguments of gates whose definitions
    hold fixed numbers (and never read those parameters): such arguments are passed over,
    once-per-gate warned, and the file runs as Qiskit runs the circuit. The one file Qiskit
    writes that breaks the language otherwise (``reset`` inside Initialize's OpenQASM 2.0
    definition) is refused, naming what reads (QPY)."""
    qc = _library_circuits()[name]
    texts = exported(qc)
    assert texts, f"Qiskit wrote no OpenQASM file of {name}"
    for kind, text in texts:
        if name == "initialize" and kind == "qasm2":
            with pytest.raises(gq.qasm.QasmError, match="save the circuit as QPY, which genqsim"):
                read(kind, text)
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            problem = check(f"{name}", qc, kind, text)
        assert problem is None, problem
        passed_over = [w for w in caught if w.category is gq.qasm.QasmArgumentWarning]
        assert passed_over, f"{name}.{kind}: no argument was passed over"
        assert "is no OpenQASM expression" in str(passed_over[0].message)


def test_arguments_passed_over_only_where_no_expression_is_and_nothing_reads_them():
    """An unread parameter's argument that is an expression is read as one (no warning); an
    argument that is no expression for a parameter the body reads is still an error."""
    defined = 'OPENQASM 2.0;\ninclude "qelib1.inc";\ngate g(a, b) q { rx(b) q; }\nqreg q[1];\n'
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        circuit = gq.qasm.loads(defined + "g(pi/2, 0.5) q[0];")
    np.testing.assert_allclose(
        gq.simulate(circuit).amplitudes, [np.cos(0.25), -1j * np.sin(0.25)], atol=1e-15
    )
    with pytest.warns(gq.qasm.QasmArgumentWarning, match="'1\\+2j', an argument of 'g'"):
        circuit = gq.qasm.loads(defined + "g(1+2j, 0.5) q[0];\ng(x, 0.5) q[0];")
    np.testing.assert_allclose(
        gq.simulate(circuit).amplitudes, [np.cos(0.5), -1j * np.sin(0.5)], atol=1e-15
    )
    with pytest.raises(gq.qasm.QasmError, match="line 5, column 11: expected"):
        gq.qasm.loads(defined + "g(0.1, 1+2j) q[0];")
    with pytest.raises(gq.qasm.QasmError, match="line 5, column 12: the parameters of 'g' are"):
        gq.qasm.loads(defined + "g(1+2j q[0];")
