"""Files Qiskit writes that break OpenQASM: the exports of library gates whose definitions
hold fixed numbers (``StatePreparation``, ``Initialize``, ``DiagonalGate``, ``PauliGate``) pass
the gates' own parameters, complex numbers and labels, as arguments. genqsim reads them as
Qiskit runs the circuits (``qiskit_files.check``), passing those arguments over."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from dynamic_circuits import exact
from qiskit_files import (
    aer_counts,
    check,
    coin_switch,
    exported,
    genqsim_records,
    random_dynamic_circuit,
)
from qiskit_library import library_gates, standard_gates

import genqsim as gq

pytest.importorskip("qiskit")


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
    once-per-gate warned, and the file runs as Qiskit runs the circuit (Initialize's
    OpenQASM 2.0 definition holds ``reset``s, which the language keeps out of gate bodies:
    its calls run as their operations in place)."""
    qc = _library_circuits()[name]
    texts = exported(qc)
    assert texts, f"Qiskit wrote no OpenQASM file of {name}"
    for kind, text in texts:
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
    with pytest.raises(gq.qasm.QasmError, match="line 5, column 3: expected an argument of 'g'"):
        gq.qasm.loads(defined + "g(, 0.5) q[0];")


def test_switch_blocks_in_qiskits_draft_syntax_read_as_the_final_ones():
    """``qasm3.dumps(..., experimental=SWITCH_CASE_V1)`` writes ``case 0: { ... } break;``, a
    draft of the language's ``switch``: read as the final syntax, the file runs as Qiskit
    runs the circuit; an error elsewhere in such a file keeps its line."""
    from qiskit import qasm3
    from qiskit.qasm3 import ExperimentalFeatures

    qc = coin_switch(2, [((0,), "x", ()), ((1, 2), "ry", (0.7,)), ("default", "h", ())])
    text = qasm3.dumps(qc, experimental=ExperimentalFeatures.SWITCH_CASE_V1)
    assert "case 0: {" in text and "break;" in text
    assert check("switch_v1", qc, "qasm3", text) is None
    broken = text.replace("h q[0];", "h q[0]")
    line = text.splitlines().index("h q[0];") + 1
    with pytest.raises(gq.qasm.QasmError, match=f"line {line + 1}, column 1"):
        gq.qasm.loads3(broken)


def test_a_switch_inside_a_case_in_qiskits_draft_syntax_reads_too():
    """A ``switch`` in a case of another, both in the draft syntax: the inner one is
    rewritten too (it was left as written, which the reference parser refused at its
    ``case 1: {``). Two coins; where they read 2, the inner switch on them flips q2; the
    records match Aer's."""
    from qiskit import QuantumCircuit, qasm3
    from qiskit.qasm3 import ExperimentalFeatures

    qc = QuantumCircuit(3, 3)
    qc.h([0, 1])
    qc.measure([0, 1], [0, 1])
    with qc.switch(qc.cregs[0]) as outer:
        with outer(0):
            qc.x(2)
        with outer(outer.DEFAULT):
            with qc.switch(qc.cregs[0]) as inner:
                with inner(2):
                    qc.x(2)
                with inner(inner.DEFAULT):
                    qc.h(2)
    qc.measure(2, 2)
    text = qasm3.dumps(qc, experimental=ExperimentalFeatures.SWITCH_CASE_V1)
    assert text.count("default: {") == 2
    assert check("nested_switch_v1", qc, "qasm3", text) is None


def test_unread_arguments_on_the_reference_parsers_path_leave_definitions_alone():
    """A file the plain reader does not take (an ``if``): arguments are mended for the
    reference parser in calls only, never in a definition's header (however it is spaced),
    and the file runs as written: ``h`` then a measurement, whose 1 flips q1 back from 1."""
    text = (
        'OPENQASM 3.0;\ninclude "stdgates.inc";\ngate  sp(_p0, _p1) a, b {\n  h a;\n  x b;\n}\n'
        "bit[2] c;\nqubit[2] q;\nsp(0.5+0.1j, +) q[0], q[1];\nc[0] = measure q[0];\n"
        "if (c[0]) {\n  x q[1];\n}\nc[1] = measure q[1];\n"
    )
    with pytest.warns(gq.qasm.QasmArgumentWarning, match=r"column 4: '0\.5\+0\.1j'") as caught:
        circuit = gq.qasm.loads3(text)
    assert len(caught) == 1 and caught[0].lineno == 9
    assert exact(circuit) == pytest.approx({"10": 0.5, "01": 0.5}, abs=1e-12)


def test_initialize_on_part_of_an_entangled_register_reads_from_openqasm2_as_qiskit_runs_it():
    """Initialize on three of four qubits after entangling qubit 0 with 3, then on two:
    Qiskit's OpenQASM 2.0 file defines ``initialize`` with ``reset``s in its body. Read
    back, the calls run as resets then the preparation, in place: the final density matrix
    equals ``qiskit.quantum_info.DensityMatrix`` of the circuit (the resets leave qubit 3
    mixed). A defined gate that calls a resetting gate resets too, also under an ``if``."""
    from qiskit import QuantumCircuit, qasm2
    from qiskit.quantum_info import DensityMatrix, random_statevector

    qc = QuantumCircuit(4)
    qc.h(0)
    qc.cx(0, 3)
    qc.initialize(random_statevector(8, seed=5), [0, 1, 2])
    qc.initialize("01", [2, 3])
    with pytest.warns(gq.qasm.QasmArgumentWarning, match="is no OpenQASM expression"):
        circuit = gq.qasm.loads(qasm2.dumps(qc))
    assert "reset" in {op.gate.name for op in circuit.instructions}
    ours = gq.simulate(circuit, method="density_matrix").to_numpy()
    np.testing.assert_allclose(ours, DensityMatrix(qc).data, atol=1e-12)

    head = (
        'OPENQASM 2.0;\ninclude "qelib1.inc";\ngate zero a { reset a; }\n'
        "gate fresh_plus a, b { zero a; h a; cx a, b; }\nqreg q[2];\ncreg c[1];\n"
        "x q[0];\nx q[1];\nfresh_plus q[0], q[1];\n"
    )
    # q0 = |1> reset, H, CNOT onto q1 = |1>: (|10> + |01>)/sqrt2 (q1 the high bit)
    final = gq.simulate(gq.qasm.loads(head), method="density_matrix").to_numpy()
    expected = np.zeros((4, 4))
    expected[np.ix_([1, 2], [1, 2])] = 0.5
    np.testing.assert_allclose(final, expected, atol=1e-12)
    measured = gq.qasm.loads(head + "measure q[0] -> c[0];\nif (c == 0) zero q[1];\n")
    assert exact(measured) == pytest.approx({"0": 0.5, "1": 0.5}, abs=1e-12)
    assert gq.counts(measured.copy().measure(1, 0), 2000, seed=1) == {"0": 2000}  # q1 reset
    with pytest.raises(gq.qasm.QasmError, match="'b' is not an argument of gate 'g'"):
        gq.qasm.loads("OPENQASM 2.0;\ngate g a { reset b; }\nqreg q[1];\ng q[0];\n")
    with pytest.raises(gq.qasm.QasmError, match="'measure' is not allowed inside a gate"):
        gq.qasm.loads("OPENQASM 2.0;\ngate g a { measure a; }\nqreg q[1];\n")


def test_qiskits_global_phase_gates_read_from_openqasm3():
    """Qiskit writes ``GlobalPhaseGate`` as a gate on no qubits (``gate global_phase(p0)
    {}``, ``global_phase(0.3) ;``), which the grammar has no rule for; genqsim reads it, also
    inverted, with an ``input`` angle and controlled (which Qiskit writes as a phase gate),
    and the file runs as Qiskit runs the circuit."""
    from qiskit import QuantumCircuit, qasm3
    from qiskit.circuit import Parameter
    from qiskit.circuit.library import GlobalPhaseGate

    t = Parameter("t")
    qc = QuantumCircuit(2)
    qc.h(0)
    qc.append(GlobalPhaseGate(t), [])
    qc.append(GlobalPhaseGate(0.3).control(1), [0])
    qc.append(GlobalPhaseGate(0.5).inverse(), [])
    qc.cry(0.8, 0, 1)
    text = qasm3.dumps(qc)
    assert "global_phase(" in text.split("qubit[2] q;")[1] and "{\n}" in text
    with warnings.catch_warnings():
        warnings.simplefilter("error", gq.qasm.QasmArgumentWarning)  # the input is a name
        assert gq.qasm.loads3(text).n_qubits == 2  # the input angle read (the body is empty)
    bound = qc.assign_parameters([0.4])
    assert check("global_phase", bound, "qasm3", qasm3.dumps(bound)) is None


def test_gates_on_no_qubits_run_as_the_global_phase_their_bodies_give():
    """A gate defined on no qubits holds ``gphase`` (and other such gates), called without
    operands, from another gate's body, inverted and under ``ctrl @``/``negctrl @``; the
    amplitudes are the closed form with the global phase: H on q0, then phases 0.3 (call),
    0.7 on q0 = 1 (ctrl), 0.5 - 0.25 (``ph2``), 0.25 where q1 = 0 (negctrl, always):
    ``e^{0.8i} (|0> + e^{0.7i} |1>) / sqrt2`` on q0."""
    text = (
        'OPENQASM 3.0;\ninclude "stdgates.inc";\ngate ph(a) { gphase(a); }\n'
        "gate ph2 { ph(0.5); inv @ ph(0.25); }\nqubit[2] q;\nh q[0];\nph(0.3);\n"
        "ctrl @ ph(0.7) q[0];\nph2;\nnegctrl @ ph2 q[1];\n"
    )
    amplitudes = gq.simulate(gq.qasm.loads3(text)).to_numpy()
    expected = np.exp(0.8j) * np.array([1, np.exp(0.7j), 0, 0]) / np.sqrt(2)
    np.testing.assert_allclose(amplitudes, expected, atol=1e-12)
    for broken, column in (("ph(0.3) q[;", 11), ("ph(0.3); x q[;", 14)):  # other errors
        with pytest.raises(gq.qasm.QasmError, match=f"line 7, column {column}: .* at ';'"):
            gq.qasm.loads3(text.replace("ph(0.3);", broken))  # keep their places


def test_opaque_gates_are_declared_and_refused_only_where_called():
    """Qiskit writes a gate it synthesises only when it transpiles (``WeightedSumGate``) as
    ``opaque`` in OpenQASM 2.0: a call is refused naming the declaration's line and the way
    out; an opaque gate nothing calls leaves the file running. ``gq.from_qiskit`` of the
    gate says the same."""
    from qiskit import QuantumCircuit, qasm2
    from qiskit.circuit.library import WeightedSumGate

    qc = QuantumCircuit(4)
    qc.h([0, 1])
    qc.append(WeightedSumGate(2, [1, 2]), range(4))
    text = qasm2.dumps(qc)
    declared = next(i for i, line in enumerate(text.splitlines(), 1) if "opaque" in line)
    with pytest.raises(gq.qasm.QasmError, match=rf"is declared opaque \(line {declared}\).*"
                       r"qiskit\.transpile"):  # fmt: skip
        gq.qasm.loads(text)
    with pytest.raises(gq.ArgumentValueError, match="neither a definition nor a matrix"):
        gq.from_qiskit(qc)
    unused = text.splitlines()
    unused = "\n".join(line for line in unused if not line.startswith("gate_WeightedSum"))
    amplitudes = gq.simulate(gq.qasm.loads(unused)).to_numpy()
    np.testing.assert_allclose(amplitudes[:4], 0.5, atol=1e-12)
    with pytest.raises(gq.qasm.QasmError, match="line 3, column 1: expected ';', found 'qreg'"):
        gq.qasm.loads("OPENQASM 2.0;\nopaque g(a) q\nqreg r[1];")


LIBRARY = {**standard_gates(), **library_gates()}


@pytest.mark.parametrize("name", LIBRARY)
def test_qiskit_library_circuits_read_as_qiskit_runs_them(name):
    """Every standard gate of Qiskit's table and the library's larger gates and circuits:
    ``gq.from_qiskit`` (the QPY path too) gives Qiskit's ``Statevector``, global phase
    included, and each OpenQASM file Qiskit writes of the circuit reads back to its state."""
    from qiskit.quantum_info import Statevector

    qc = LIBRARY[name]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        expected = Statevector(qc).data
        texts = exported(qc)
    np.testing.assert_allclose(gq.simulate(gq.from_qiskit(qc)).to_numpy(), expected, atol=1e-10)
    for kind, text in texts:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", gq.qasm.QasmArgumentWarning)
            problem = check(name, qc, kind, text)
        assert problem is None, problem


def test_registers_that_share_bits_read_from_qiskits_aliases():
    """Registers that share bits need ``qasm3.dumps(qc, allow_aliasing=True)``, which writes
    ``let c = {_bit0, _bit1, _bit2};`` (braces the grammar has no rule for) and ``let ca =
    {c[2], c[0]};``. Read back, as from the circuit itself: q0 turns by ry(1.1) and is
    measured into ``ca[1]`` (that is c0); where ``ca == 2`` (c0 = 1, c2 = 0) q2, which is
    ``qa[0]``, flips; q1 flips always; so c reads 111 with probability sin^2(0.55), else
    010. (Aer 0.18 gives a wrong record for such circuits where a loose qubit is added.)"""
    from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister, qasm3

    q, c = QuantumRegister(3, "q"), ClassicalRegister(3, "c")
    qa = QuantumRegister(bits=[q[2], q[0]], name="qa")
    ca = ClassicalRegister(bits=[c[2], c[0]], name="ca")
    qc = QuantumCircuit(q, qa, c, ca)
    qc.ry(1.1, qa[1])
    qc.measure(qa[1], ca[1])
    with qc.if_test((ca, 2)):
        qc.x(qa[0])
    qc.x(q[1])
    qc.measure(q[1], c[1])
    qc.measure(qa[0], ca[0])
    text = qasm3.dumps(qc, allow_aliasing=True)
    assert "let ca = {" in text
    p = np.sin(0.55) ** 2
    for circuit in (gq.qasm.loads3(text), gq.from_qiskit(qc)):
        assert exact(circuit) == pytest.approx({"111": p, "010": 1 - p}, abs=1e-12)


def test_aliases_of_ranges_and_concatenations_and_their_refusals():
    """``let`` names qubits or bits in the value's order: ``let pair = q[2] ++ q[0:1];`` is
    (q2, q0, q1), so ``x pair[0]; cx pair[0], pair[2];`` leaves q2 = q1 = 1; a bit alias is
    measured into. Mixed or repeated bits are refused with the reason."""
    head = 'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[3] q;\nbit[3] c;\n'
    text = head + "let pair = q[2] ++ q[0:1];\nlet out = c[{2, 0}] ++ c[1];\n"
    text += "x pair[0];\ncx pair[0], pair[2];\nout = measure pair;\n"
    # out = (c2, c0, c1) receives (q2, q0, q1) = (1, 0, 1): c2 = 1, c0 = 0, c1 = 1
    assert exact(gq.qasm.loads3(text)) == pytest.approx({"110": 1.0}, abs=1e-12)
    for value, message in (("q[0] ++ c[1]", "qubits and classical bits at once"),
                           ("c[1] ++ c[0:1]", "names one bit or qubit twice"),
                           ("k", "names no qubits or classical bits")):  # fmt: skip
        with pytest.raises(gq.qasm.QasmError, match=f"line 5, column 1: let a: .*{message}"):
            gq.qasm.loads3(head + f"let a = {value};\n")


def test_basis_gates_qiskit_writes_without_definitions_read_as_qiskits_gates():
    """``qasm3.dumps(qc, basis_gates=[..., "ecr"])`` writes calls of Qiskit's standard gates
    that no include declares with no definition: each reads as Qiskit's gate, its matrix
    equal to Qiskit's ``Operator`` (global phase included), as a call in the program and
    inside a gate the file defines; a file's own definition of the name comes first."""
    from qiskit import QuantumCircuit, qasm3
    from qiskit.circuit import library as lib
    from qiskit.quantum_info import Operator

    gates = {
        "ecr": lib.ECRGate(), "rzx": lib.RZXGate(0.7), "cs": lib.CSGate(),
        "csdg": lib.CSdgGate(), "ccz": lib.CCZGate(), "c3sx": lib.C3SXGate(),
        "r": lib.RGate(0.7, -0.4), "xx_plus_yy": lib.XXPlusYYGate(0.7, 0.3),
        "xx_minus_yy": lib.XXMinusYYGate(-0.9, 1.2), "rccx": lib.RCCXGate(),
        "rcccx": lib.RC3XGate(),
    }  # fmt: skip
    assert set(gates) == gq.qasm.qasm3.QISKIT_UNDEFINED_STANDARD_GATES
    for name, gate in gates.items():
        n = gate.num_qubits
        qc = QuantumCircuit(n)
        qc.h(0)
        qc.append(gate, list(range(n))[::-1])
        text = qasm3.dumps(qc, basis_gates=("U", name))
        assert f"gate {name}" not in text and f"{name}" in text
        want = Operator(qc).data
        np.testing.assert_allclose(gq.unitary(gq.qasm.loads3(text)), want, atol=1e-12)
    body = 'OPENQASM 3.0;\ninclude "stdgates.inc";\n'
    inside = body + "gate pair a, b { ecr a, b; cs b, a; }\nqubit[2] q;\npair q[0], q[1];\n"
    qc = QuantumCircuit(2)
    qc.append(lib.ECRGate(), [0, 1])
    qc.append(lib.CSGate(), [1, 0])
    np.testing.assert_allclose(gq.unitary(gq.qasm.loads3(inside)), Operator(qc).data,
                               atol=1e-12)  # fmt: skip
    own = body + "gate ecr a, b { cx a, b; }\nqubit[2] q;\necr q[0], q[1];\n"
    qc = QuantumCircuit(2)
    qc.cx(0, 1)
    np.testing.assert_allclose(gq.unitary(gq.qasm.loads3(own)), Operator(qc).data, atol=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_random_dynamic_circuits_match_aer_from_the_object_and_from_its_openqasm3(seed):
    """Random dynamic circuits without while loops (``random_dynamic_circuit``): genqsim's
    exact distribution of records (a density matrix) for the Qiskit object and for the
    OpenQASM 3 Qiskit writes of it (draft switch syntax) agree to 1e-12, with jumps in the
    for loops and without; without them, Aer's counts lie within five standard errors of
    it (with them Aer 0.18.2 can be wrong: docs/qiskit.md)."""
    from qiskit import qasm3
    from qiskit.qasm3 import ExperimentalFeatures

    for for_jumps in (True, False):
        qc = random_dynamic_circuit(seed, while_loops=False, for_jumps=for_jumps)
        text = qasm3.dumps(qc, experimental=ExperimentalFeatures.SWITCH_CASE_V1)
        ours = genqsim_records(gq.from_qiskit(qc))
        assert genqsim_records(gq.qasm.loads3(text)) == pytest.approx(ours, abs=1e-12)
        if not for_jumps:
            assert check(f"random_dynamic_{seed}", qc, "qasm3", text) is None


@pytest.mark.parametrize("seed", range(8))
def test_random_dynamic_circuits_with_while_loops_match_aers_counts(seed):
    """Random dynamic circuits with while loops (run shot by shot): genqsim's counts for the
    Qiskit object and for its OpenQASM 3 against Aer's, each record within five standard
    errors of the two-sample difference. A ``break`` whose tested bits the body measures
    again before it ends, where its flag cannot be kept in a scratch bit, is refused with
    that reason; such a seed checks the refusal instead."""
    from qiskit import qasm3
    from qiskit.qasm3 import ExperimentalFeatures

    qc = random_dynamic_circuit(seed + 100, while_loops=True)
    text = qasm3.dumps(qc, experimental=ExperimentalFeatures.SWITCH_CASE_V1)
    shots = 4000
    try:
        circuits = [gq.from_qiskit(qc), gq.qasm.loads3(text)]
    except (gq.qasm.QasmError, gq.ArgumentValueError) as exc:
        assert "a break inside a while loop is read where the bits" in str(exc)
        return
    theirs = aer_counts(qc, shots)
    for circuit in circuits:
        counts = gq.counts(circuit, shots, seed=seed)
        ours = {int(key, 2): v for key, v in counts.items()}
        for value in set(ours) | set(theirs):
            a, b = ours.get(value, 0) / shots, theirs.get(value, 0) / shots
            p = (a + b) / 2
            assert abs(a - b) <= 5 * np.sqrt(2 * p * (1 - p) / shots) + 2e-3, (value, a, b)
