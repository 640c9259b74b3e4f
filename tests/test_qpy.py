"""QPY, Qiskit's binary circuit format: files ``qiskit.qpy.dump`` writes are read by
``gq.qpy.load`` and ``genqsim run`` and run as Qiskit runs the circuits they were written
from (Qiskit's ``Statevector``; for a dynamic circuit, the exact distribution of its
records); damaged, foreign and ambiguous files are refused with typed errors."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
import sympy
from dynamic_circuits import exact

import genqsim as gq

qiskit = pytest.importorskip("qiskit")
from qiskit import QuantumCircuit, qpy  # noqa: E402
from qiskit.circuit import AnnotatedOperation, ControlModifier, Parameter  # noqa: E402
from qiskit.circuit.library import SXGate, UnitaryGate  # noqa: E402
from qiskit.quantum_info import Statevector, random_clifford, random_unitary  # noqa: E402


def genqsim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "genqsim", *args], capture_output=True, text=True, timeout=120
    )


def unitary_circuit() -> QuantumCircuit:
    """Gates of several kinds QPY stores each its own way: standard gates, a matrix, a
    Clifford tableau, an annotated operation, a custom gate, a global phase."""
    sub = QuantumCircuit(2, name="my-bell")
    sub.h(0)
    sub.cx(0, 1)
    qc = QuantumCircuit(4, global_phase=0.4)
    qc.h(range(4))
    qc.append(UnitaryGate(random_unitary(4, seed=5)), [3, 1])
    qc.append(random_clifford(2, seed=2), [0, 2])
    qc.append(AnnotatedOperation(SXGate(), [ControlModifier(2, ctrl_state=2)]), [1, 3, 0])
    qc.append(sub.to_gate(), [2, 3])
    qc.rzz(0.7, 0, 3)
    return qc


def dynamic_circuit() -> QuantumCircuit:
    """A measurement, an if/else on it and a final measurement: P(c = 00) = cos^2(0.3),
    P(01) = sin^2(0.3) / 2 = P(11) (the else branch leaves qubit 1 in |+>)."""
    qc = QuantumCircuit(2, 2)
    qc.ry(0.6, 0)
    qc.measure(0, 0)
    with qc.if_test((qc.clbits[0], 1)) as orelse:
        qc.h(1)
    with orelse:
        qc.id(1)
    qc.measure(1, 1)
    return qc


def write(path, programs) -> str:
    with open(path, "wb") as f:
        qpy.dump(programs, f)
    return str(path)


def test_load_reads_every_circuit_of_a_file_as_qiskit_runs_it(tmp_path):
    theta = Parameter("theta")
    swept = QuantumCircuit(1)
    swept.ry(theta, 0)
    path = write(tmp_path / "three.qpy", [unitary_circuit(), dynamic_circuit(), swept])
    unitary, dynamic, symbolic = gq.qpy.load(path)

    np.testing.assert_allclose(
        gq.simulate(unitary).amplitudes, Statevector(unitary_circuit()).data, atol=1e-12
    )
    records = exact(dynamic)
    c, s = math.cos(0.3) ** 2, math.sin(0.3) ** 2
    assert records.keys() <= {"00", "01", "11"}
    np.testing.assert_allclose(
        [records.get(k, 0.0) for k in ("00", "01", "11")], [c, s / 2, s / 2], atol=1e-12
    )
    (t,) = symbolic.parameters
    assert str(t) == "theta" and t.is_real  # a Parameter stays a symbol
    amplitudes = gq.simulate(symbolic, numbers="sympy").amplitudes
    assert sympy.simplify(amplitudes[1] - sympy.sin(t / 2)) == 0


def test_the_command_line_runs_a_qpy_file_and_one_of_several(tmp_path):
    one = write(tmp_path / "one.qpy", unitary_circuit())
    out = genqsim("run", one, "--format", "json")
    assert out.returncode == 0, out.stderr
    shown = json.loads(out.stdout)["amplitudes"]  # {"0101": "+0.1-0.2j"}: 6 decimals
    got = np.zeros(16, complex)
    for bits, value in shown.items():
        got[int(bits, 2)] = complex(value)
    np.testing.assert_allclose(got, Statevector(unitary_circuit()).data, atol=1e-6)

    several = write(tmp_path / "several", [unitary_circuit(), dynamic_circuit()])  # no suffix
    out = genqsim("run", f"{several}:1", "--shots", "4000", "--seed", "2", "--format", "json")
    assert out.returncode == 0, out.stderr
    counts = json.loads(out.stdout)["counts"]
    assert set(counts) <= {"00", "01", "11"} and sum(counts.values()) == 4000
    p00 = math.cos(0.3) ** 2
    assert abs(counts["00"] - 4000 * p00) < 5 * math.sqrt(4000 * p00 * (1 - p00))


@pytest.mark.parametrize(
    "make, source, message",
    [
        (lambda p: write(p, [QuantumCircuit(1), QuantumCircuit(2)]), "{p}",
         "holds 2 circuits: choose one with {p}:INDEX (0 to 1)"),
        (lambda p: write(p, [QuantumCircuit(1), QuantumCircuit(2)]), "{p}:2",
         "the index after ':' must be 0 to 1, got '2'"),
        (lambda p: p.write_bytes(b"QISKIT\x0d\x02"), "{p}", "s QPY reader refuses it: Error:"),
        (lambda p: p.write_bytes(b"OPENQASM 2.0;"), "{p}", "is not a QPY file"),
        (lambda p: None, "{p}", "no such file"),
    ],
)  # fmt: skip
def test_files_that_cannot_be_run_are_refused_with_the_reason(tmp_path, make, source, message):
    path = tmp_path / "file.qpy"
    make(path)
    out = genqsim("run", source.format(p=path))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert message.format(p=path) in out.stderr, out.stderr


def test_load_refuses_a_damaged_file_and_a_missing_qiskit_typed(tmp_path, monkeypatch):
    damaged = tmp_path / "damaged.qpy"
    good = write(tmp_path / "good.qpy", dynamic_circuit())
    damaged.write_bytes(open(good, "rb").read()[:-9])
    with pytest.raises(gq.CircuitSourceError, match="QPY reader refuses it"):
        gq.qpy.load(damaged)
    monkeypatch.setitem(sys.modules, "qiskit", None)  # Qiskit not installed
    with pytest.raises(gq.CircuitSourceError, match=r"pip install 'genqsim\[interop\]'"):
        gq.qpy.load(good)


def test_dump_writes_what_qiskit_and_load_read_back(tmp_path):
    """A genqsim circuit with a free parameter, a mid-circuit measurement and a condition,
    written by ``gq.qpy.dump`` beside a plain one: Qiskit's reader gets the parameter by its
    name and the state genqsim gives, and ``gq.qpy.load`` the same circuits."""
    (t,) = gq.parameters("t")
    swept = gq.Circuit(2).ry(t, 0).cx(0, 1)
    dynamic = gq.Circuit(2, n_clbits=2).ry(0.6, 0).measure(0, 0)
    dynamic.if_(0, 1, gq.Circuit(2).h(1)).measure(1, 1)
    path = tmp_path / "written.qpy"
    gq.qpy.dump([swept, dynamic], path)

    with open(path, "rb") as f:
        theirs = qpy.load(f)
    assert [p.name for p in theirs[0].parameters] == ["t"]
    np.testing.assert_allclose(
        Statevector(theirs[0].assign_parameters([0.8])).data,
        gq.simulate(swept.bind({t: 0.8})).amplitudes,
        atol=1e-12,
    )
    swept_back, dynamic_back = gq.qpy.load(path)
    assert [str(p) for p in swept_back.parameters] == ["t"]
    np.testing.assert_allclose(
        gq.simulate(swept_back.bind({"t": 0.8})).amplitudes,
        gq.simulate(swept.bind({t: 0.8})).amplitudes,
        atol=1e-12,
    )
    c, s = math.cos(0.3) ** 2, math.sin(0.3) ** 2
    assert exact(dynamic_back) == pytest.approx({"00": c, "01": s / 2, "11": s / 2}, abs=1e-12)


def test_dump_refuses_what_has_no_qiskit_form_and_writes_nothing(tmp_path):
    path = tmp_path / "never.qpy"
    noisy = gq.Circuit(1).h(0).depolarizing(0.1, 0)
    with pytest.raises(gq.ArgumentValueError, match="depolarizing has no QuantumCircuit form"):
        gq.qpy.dump([gq.Circuit(1).x(0), noisy], path)
    with pytest.raises(gq.ArgumentTypeError, match="a genqsim Circuit or a non-empty list"):
        gq.qpy.dump([], path)
    with pytest.raises(gq.ArgumentTypeError, match="a genqsim Circuit or a non-empty list"):
        gq.qpy.dump(["h q[0];"], path)
    assert not path.exists()
