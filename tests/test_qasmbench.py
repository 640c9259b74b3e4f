"""QASMBench's small and medium circuits (``tests/qasm/qasmbench``, see its README): files
nobody here wrote, by hand and by several tools. Each is read by genqsim and by Qiskit's
OpenQASM 2 reader (with the legacy ``qelib1.inc`` gates QASMBench uses):

- where Qiskit refuses a file (three of QASMBench's files measure a register they never
  declared), genqsim refuses it too, at the same line;
- otherwise genqsim reads the same number of qubits, and a file of up to
  ``UNITARY_MAX_QUBITS`` qubits without mid-circuit measurements (up to
  ``DYNAMIC_MAX_QUBITS`` with them) runs as Qiskit runs it (``qiskit_files.check``: Qiskit's
  ``Statevector``, or Aer's counts against genqsim's exact distribution of records)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from qiskit_files import check, is_dynamic

import genqsim as gq

qasm2 = pytest.importorskip("qiskit.qasm2")

FILES = sorted((Path(__file__).parent / "qasm" / "qasmbench").glob("*.qasm"))
UNITARY_MAX_QUBITS = 20
DYNAMIC_MAX_QUBITS = 14
"""Wider files are read (qubit count checked) but not run: an 18-qubit dynamic file takes
minutes of Aer shots to compare."""


def test_the_corpus_is_there():
    assert len(FILES) == 63, [p.name for p in FILES]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_a_qasmbench_file_reads_and_runs_as_qiskit_runs_it(path):
    text = path.read_text()
    try:
        qc = qasm2.loads(text, custom_instructions=qasm2.LEGACY_CUSTOM_INSTRUCTIONS)
    except qasm2.QASM2ParseError as exc:
        line = int(re.search(r":(\d+),\d+:", str(exc))[1])
        with pytest.raises(gq.qasm.QasmError) as refused:
            gq.qasm.load(path)
        assert refused.value.line == line, (str(exc), str(refused.value))
        return
    circuit = gq.qasm.load(path)
    assert circuit.n_qubits == qc.num_qubits
    widest = DYNAMIC_MAX_QUBITS if is_dynamic(qc) else UNITARY_MAX_QUBITS
    if qc.num_qubits <= widest:
        problem = check(path.stem, qc, "qasm2", text)
        assert problem is None, problem
