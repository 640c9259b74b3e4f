"""The OpenQASM 3 reader against Qiskit's (``qiskit.qasm3.loads``, the reference parser's
importer) and ``Statevector`` on the same text, and against textbook matrices, for what Qiskit
exports and the quantum core of the language: modifiers, ``gphase``, physical qubits, ``for``
loops, ``input`` parameters, ``if``/``else`` on bits, registers and parities."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy
from hypothesis import given, settings

import genqsim as gq
from genqsim.io.qasm import QasmError, QasmTimingWarning
from genqsim.io.qasm.qasm3 import _as_qasm2, _read

from strategies import random_circuit

pytest.importorskip("openqasm3")
qiskit = pytest.importorskip("qiskit")

HEADER = 'OPENQASM 3.0;\ninclude "stdgates.inc";\n'


def qiskit_state(text: str, bind: dict[str, float] | None = None) -> np.ndarray:
    from qiskit import qasm3, transpile
    from qiskit.quantum_info import Statevector

    qc = qasm3.loads(text)
    if bind:
        qc = qc.assign_parameters({p: bind[p.name] for p in qc.parameters})
    return Statevector(transpile(qc, basis_gates=["u", "cx"], optimization_level=0)).data


UNITARY_PROGRAMS = {
    "modifiers": """qubit[4] q;
h q;
ctrl @ x q[0], q[1];
negctrl @ ry(0.7) q[1], q[2];
ctrl(2) @ rz(0.3) q[0], q[1], q[3];
negctrl(2) @ h q[3], q[0], q[2];
inv @ s q[2];
inv @ ctrl @ rx(0.4) q[3], q[1];
pow(2) @ t q[0];
pow(-3) @ sx q[1];
ctrl @ negctrl @ inv @ u3(0.1, 0.2, 0.3) q[0], q[1], q[2];
""",
    "definitions_under_modifiers": """qubit[3] q;
gate bell a, b { h a; cx a, b; }
gate turn(t) a { rx(t) a; gphase(t / 2); }
h q[2];
ctrl @ bell q[2], q[0], q[1];
inv @ bell q[0], q[1];
ctrl @ turn(0.9) q[2], q[0];
turn(0.4) q[1];
negctrl @ inv @ turn(0.3) q[0], q[2];
""",
    "gphase": """qubit[2] q;
h q;
gphase(0.25);
ctrl @ gphase(0.5) q[1];
negctrl @ gphase(0.75) q[0];
""",
    "broadcast_and_ranges": """qubit[3] a;
qubit[3] b;
h a;
cx a, b;
rz(0.2) b[0:1];
ry(-0.3) a[{0, 2}];
cz a[2], b[-1];
""",
    "physical_qubits": """h $0;
cx $0, $2;
ry(0.25) $1;
cp(0.5) $2, $1;
""",
}


@pytest.mark.parametrize("name", list(UNITARY_PROGRAMS))
def test_unitary_programs_give_qiskits_state(name):
    text = HEADER + UNITARY_PROGRAMS[name]
    ours = gq.simulate(gq.qasm.loads3(text)).to_numpy()
    np.testing.assert_allclose(ours, qiskit_state(text), atol=1e-12)


def test_loops_unroll_to_their_statements_written_out():
    """Ranges (a step, a negative step), sets, index arithmetic and ``const`` values: the
    loops equal their statements written out, whose state is Qiskit's (Qiskit's importer
    indexes with no loop variable and reads no ``const``)."""
    looped = (
        HEADER
        + """qubit[4] q;
for int i in [0:3] { h q[i]; }
for int i in [0:2:3] { rz(pi / (i + 1)) q[i]; }
for int i in [1:3] { cx q[i - 1], q[i]; }
for int i in {3, 1} { ry(0.1 * i) q[i]; }
for int i in [2:-1:0] { rx(0.2 * i) q[i]; }
const int k = 2;
rx(k * 0.3) q[k];
"""
    )
    written = (
        HEADER
        + """qubit[4] q;
h q[0];
h q[1];
h q[2];
h q[3];
rz(pi) q[0];
rz(pi / 3) q[2];
cx q[0], q[1];
cx q[1], q[2];
cx q[2], q[3];
ry(0.30000000000000004) q[3];
ry(0.1) q[1];
rx(0.4) q[2];
rx(0.2) q[1];
rx(0.0) q[0];
rx(0.6) q[2];
"""
    )
    ours = gq.qasm.loads3(looped)
    assert ours == gq.qasm.loads3(written)
    np.testing.assert_allclose(gq.simulate(ours).to_numpy(), qiskit_state(written), atol=1e-12)


def test_modifiers_against_kron_built_matrices():
    """``negctrl @ inv @ s`` on (q0 control, q1 target) is ``|0><0| (x) Sdg + |1><1| (x) I``."""
    text = HEADER + "qubit[2] q;\nnegctrl @ inv @ s q[0], q[1];\npow(0.5) @ x q[0];\n"
    c = gq.qasm.loads3(text)
    sdg = np.diag([1, -1j])
    p0, p1 = np.diag([1, 0]), np.diag([0, 1])
    sqrt_x = np.array([[1 + 1j, 1 - 1j], [1 - 1j, 1 + 1j]]) / 2
    # genqsim is little-endian: qubit 1 is the left factor
    expected = np.kron(np.eye(2), sqrt_x) @ (np.kron(sdg, p0) + np.kron(np.eye(2), p1))
    np.testing.assert_allclose(gq.unitary(c), expected, atol=1e-12)


def test_inputs_are_free_parameters_bound_like_symbols():
    text = HEADER + "input float[64] theta;\ninput angle phi;\nqubit[2] q;\n"
    text += "rx(2 * theta) q[0];\ncrz(phi - theta) q[0], q[1];\nry(phi) q[1];\n"
    c = gq.qasm.loads3(text)
    assert sorted(map(str, c.parameters)) == ["phi", "theta"]
    values = {"theta": 0.3, "phi": -1.1}
    bound = c.bind({sympy.Symbol(k, real=True): v for k, v in values.items()})
    np.testing.assert_allclose(
        gq.simulate(bound).to_numpy(), qiskit_state(text, values), atol=1e-12
    )
    # exact: <Z0> after rx(2 theta) is cos(2 theta)
    z0 = gq.expectation(c, "Z0", numbers="sympy")
    theta = sympy.Symbol("theta", real=True)
    assert sympy.simplify(sympy.sympify(z0) - sympy.cos(2 * theta)) == 0


def _library_circuits() -> dict[str, object]:
    """Qiskit's parameterised library circuits with their parameters free, and a Trotter
    evolution of a time parameter (its definitions multiply the time by decimal weights)."""
    from qiskit import QuantumCircuit, transpile
    from qiskit.circuit import Parameter
    from qiskit.circuit.library import (
        PauliEvolutionGate,
        efficient_su2,
        excitation_preserving,
        pauli_feature_map,
        qaoa_ansatz,
    )
    from qiskit.quantum_info import SparsePauliOp
    from qiskit.synthesis import SuzukiTrotter

    hamiltonian = SparsePauliOp(["ZZI", "IZZ", "XII", "IYI", "XYZ"], [1.0, 0.7, 0.5, 0.4, 0.3])
    evolution = QuantumCircuit(3)
    evolution.h(range(3))
    evolution.append(
        PauliEvolutionGate(hamiltonian, time=Parameter("t"), synthesis=SuzukiTrotter(reps=2)),
        range(3),
    )
    circuits = {
        "efficient_su2": efficient_su2(3, reps=2),
        "excitation_preserving": excitation_preserving(3, reps=1),
        "pauli_feature_map": pauli_feature_map(3, reps=1, paulis=["X", "ZY"]),
        "qaoa": qaoa_ansatz(SparsePauliOp(["ZZI", "IZZ"]), reps=2),
        "suzuki_trotter": evolution,
    }
    for name, qc in list(circuits.items()):
        circuits[f"{name}_transpiled"] = transpile(
            qc, basis_gates=["rz", "sx", "x", "cx"], optimization_level=1, seed_transpiler=1
        )
    return circuits


@pytest.mark.parametrize("name", sorted(_library_circuits()))
def test_parameterised_library_circuits_as_qiskit_writes_them(name):
    """``qasm3.dumps`` of a circuit with free parameters declares them ``input float[64]``,
    in the circuit's parameter order, and its definitions scale them by decimals
    (``rz(0.6*t)``): read, bound, the state is Qiskit's of the same circuit bound (decomposed:
    ``Statevector`` of a ``PauliEvolutionGate`` is the exact exponential, not the file's
    Trotter steps)."""
    import re

    from qiskit import qasm3
    from qiskit.quantum_info import Statevector

    qc = _library_circuits()[name]
    text = qasm3.dumps(qc)
    c = gq.qasm.loads3(text)
    inputs = re.findall(r"input float\[64\] (\w+);", text)
    assert len(inputs) == len(qc.parameters) == len(c.parameters)
    values = np.random.default_rng(7).uniform(-2, 2, len(inputs))
    symbols = {str(s): s for s in c.parameters}
    bound = c.bind({symbols[i]: float(v) for i, v in zip(inputs, values)})
    reference = qc.assign_parameters(dict(zip(qc.parameters, values))).decompose(reps=4)
    overlap = np.vdot(Statevector(reference).data, gq.simulate(bound).to_numpy())
    assert abs(overlap) == pytest.approx(1, abs=1e-10)


def records(text: str) -> dict[str, float]:
    """genqsim's exact distribution of the classical bits (density matrix)."""
    return {k: v for k, v in gq.record_distribution(gq.qasm.loads3(text)).items() if v > 1e-12}


def test_if_else_on_a_bit_as_textbook_teleportation():
    """Teleport ry(0.8)|0>: Bob's qubit then measures 1 with probability sin(0.4)^2,
    whatever Alice's outcomes (each 1/4)."""
    text = (
        HEADER
        + """qubit[3] q;
bit[2] m;
bit out;
ry(0.8) q[0];
h q[1];
cx q[1], q[2];
cx q[0], q[1];
h q[0];
m[0] = measure q[0];
m[1] = measure q[1];
if (m[1]) { x q[2]; }
if (m[0] == 1) { z q[2]; } else { id q[2]; }
out = measure q[2];
"""
    )
    got = records(text)
    p1 = np.sin(0.4) ** 2
    for bits in ("00", "01", "10", "11"):
        assert got.get("0" + bits, 0) == pytest.approx((1 - p1) / 4, abs=1e-12)
        assert got.get("1" + bits, 0) == pytest.approx(p1 / 4, abs=1e-12)


def test_register_values_else_and_parities():
    """``if (c == 2)``, ``else``, ``!``, ``!=`` and Qiskit's parity conditions
    ``(a ^ b) == true``: each flips a fresh qubit exactly where its condition holds."""
    text = (
        HEADER
        + """qubit[7] q;
bit[2] c;
bit[5] r;
h q[0];
h q[1];
c[0] = measure q[0];
c[1] = measure q[1];
if (c == 2) { x q[2]; } else { x q[3]; }
if (!c[0]) { x q[4]; }
if ((c[0] ^ c[1]) == true) { x q[5]; }
if (c != 3) { x q[6]; }
r[0] = measure q[2];
r[1] = measure q[3];
r[2] = measure q[4];
r[3] = measure q[5];
r[4] = measure q[6];
"""
    )
    got = records(text)
    expected = {}
    for c in range(4):
        c0, c1 = c & 1, c >> 1
        r = [c == 2, c != 2, not c0, c0 ^ c1 == 1, c != 3]
        key = "".join(str(int(b)) for b in reversed(r)) + f"{c:02b}"
        expected[key] = 0.25
    assert got == pytest.approx(expected, abs=1e-12)


def test_dynamic_circuit_counts_match_aer():
    """Iterative phase estimation of a phase pi/4, as Qiskit writes a dynamic circuit."""
    from qiskit import qasm3
    from qiskit_aer import AerSimulator

    text = (
        HEADER
        + """qubit[2] q;
bit[3] c;
x q[1];
h q[0];
cp(pi) q[0], q[1];
h q[0];
c[0] = measure q[0];
reset q[0];
h q[0];
cp(pi / 2) q[0], q[1];
if (c[0]) { p(-pi / 2) q[0]; }
h q[0];
c[1] = measure q[0];
reset q[0];
h q[0];
cp(pi / 4) q[0], q[1];
if (c[0]) { p(-pi / 4) q[0]; }
if (c[1]) { p(-pi / 2) q[0]; }
h q[0];
c[2] = measure q[0];
"""
    )
    got = records(text)
    assert got == pytest.approx({"001": 1.0}, abs=1e-12)  # phase 1/8 = 0.001 read backwards
    counts = AerSimulator(seed_simulator=3).run(qasm3.loads(text), shots=2000).result()
    assert counts.get_counts() == {"001": 2000}


def test_reset_barrier_box_and_delay():
    text = HEADER + "qubit[2] q;\nx q;\nbarrier;\nreset q[0];\nbox { h q[1]; }\n"
    text += "delay[20ns] q[0];\nbarrier q[0], q[1];\n"
    with pytest.warns(QasmTimingWarning, match="delay and durations are ignored"):
        c = gq.qasm.loads3(text)
    names = [op.gate.name for op in c.operations]
    assert names == ["x", "x", "barrier", "reset", "h", "barrier"]
    minus = np.array([1, 0, -1, 0]) / np.sqrt(2)  # q0 = |0>, q1 = |-> (little-endian)
    state = gq.simulate(c, method="density_matrix")
    np.testing.assert_allclose(state.to_numpy(), np.outer(minus, minus), atol=1e-12)


def test_definitions_of_non_standard_table_names_run_as_table_gates():
    """Qiskit's OpenQASM 3 export defines rzz, rxx, cu1, sxdg, dcx: the file's definitions,
    run as the table's gates where equal."""
    from qiskit import QuantumCircuit, qasm3

    qc = QuantumCircuit(3)
    qc.h(range(3))
    qc.rzz(0.3, 0, 1)
    qc.rxx(0.5, 1, 2)
    qc.cp(0.7, 0, 2)
    qc.sxdg(1)
    qc.dcx(2, 0)
    qc.mcx([0, 1], 2)
    text = qasm3.dumps(qc)
    assert "gate rzz" in text and "gate rxx" in text
    c = gq.qasm.loads3(text)
    names = [op.gate.name for op in c.operations]
    assert names[3:6] == ["rzz", "rxx", "p"]
    assert names[-1] == "x" and c.operations[-1].controls == (0, 1)
    # Qiskit's reader takes ``sxdg`` by its name; the file's body (s h s) is sxdg times a
    # global phase, which the file's own definition carries: equal up to that phase
    overlap = np.vdot(qiskit_state(text), gq.simulate(c).to_numpy())
    assert abs(overlap) == pytest.approx(1, abs=1e-12)


@pytest.mark.parametrize(
    "body, line, message",
    [
        ("qubit q;\ngate x a { h a; }", 4, "gate 'x' is declared by stdgates.inc"),
        ("qubit q;\ngate g a { h a; }\ngate g a { x a; }", 5, "gate 'g' is already defined"),
        ("qubit q;\ngate gphase a { h a; }", 4, "syntax error at 'gphase'"),
        ("qubit q;\nh q\nx q;", 5, "syntax error at 'x'"),
        ("qubit[2] q;\nh $0;", 4, "declared qubits and physical qubits"),
        ("qubit[2] q;\nh q[2];", 4, "index 2 out of range for 'q' of size 2"),
        ("qubit[2] q;\ncx q[0], q[0];", 4, "a qubit is used twice"),
        ("qubit[2] q;\nbit[2] c;\nif (c == 4) { x q[0]; }", 5, "value 4 does not fit"),
        ("qubit q;\nfor int i in [0:2000000] { x q; }", 4, "unroll to more than"),
        ("qubit q;\nctrl @ x q;", 4, "gate 'x' acts on 1 qubit"),
        ("qubit q;\nangle[32] a;", 4, "variables of type AngleType"),
    ],
)
def test_refusals_name_the_construct_and_line(body, line, message):
    with pytest.raises(QasmError, match=message) as info:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", QasmTimingWarning)
            gq.qasm.loads3(HEADER + body)
    assert info.value.line == line


# -- writing OpenQASM 3 --------------------------------------------------------------------------

NAMED3 = {
    "x": (1, 0), "y": (1, 0), "z": (1, 0), "h": (1, 0), "s": (1, 0), "sdg": (1, 0),
    "t": (1, 0), "tdg": (1, 0), "sx": (1, 0), "sxdg": (1, 0), "rx": (1, 1), "ry": (1, 1),
    "rz": (1, 1), "p": (1, 1), "u": (1, 3), "swap": (2, 0), "iswap": (2, 0),
    "iswapdg": (2, 0), "rxx": (2, 1), "ryy": (2, 1), "rzz": (2, 1),
}  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(random_circuit(n_max=5, kinds=("named", "pauli"), named=NAMED3, u_phase=True))
def test_dumps3_reads_back_and_into_qiskit_as_the_same_state(c):
    text = gq.qasm.dumps3(c)
    ours = gq.simulate(c).to_numpy()
    np.testing.assert_allclose(gq.simulate(gq.qasm.loads3(text)).to_numpy(), ours, atol=1e-10)
    np.testing.assert_allclose(qiskit_state(text), ours, atol=1e-10)


def test_dumps3_keeps_table_gates_and_free_parameters():
    theta, phi = gq.parameters("theta phi")
    c = gq.Circuit(4, n_clbits=2)
    c.h(0).rzz(theta, 0, 1).mcx([0, 1, 2], 3, control_values=[1, 0, 1]).ryy(phi / 2, 2, 3)
    c.sxdg(1).iswap(2, 0).measure(0, 0).if_(0, 1, gq.Circuit(4).x(3)).measure(3, 1)
    text = gq.qasm.dumps3(c)
    assert "input float[64] phi;" in text and "input float[64] theta;" in text
    assert "ctrl @ negctrl @ ctrl @ x q[0], q[1], q[2], q[3];" in text
    assert "if (c[0] == 1) {" in text
    back = gq.qasm.loads3(text)
    assert back == c  # the same operations: definitions read back as the table gates


def test_dumps3_names_parameter_vectors_and_passes_parameters_to_definitions():
    """A Qiskit ``ParameterVector`` element (``θ[0]``) is no identifier: it is written under the
    name Qiskit's own exporter gives it (``_θ_0_``); a composite whose body holds free
    parameters takes them as its definition's parameters (a gate body sees no ``input``).
    Both Qiskit's reader and genqsim's read the text, and bound they give Qiskit's state."""
    from qiskit import QuantumCircuit, qasm3
    from qiskit.circuit import ParameterVector
    from qiskit.circuit.library import efficient_su2
    from qiskit.quantum_info import Statevector

    phi = ParameterVector("φ", 2)
    inner = QuantumCircuit(2, name="entangle")
    inner.rzz(0.5 * phi[0], 0, 1)
    inner.ry(phi[1], 1)
    qc = efficient_su2(2, reps=1)
    qc.append(inner.to_gate(), [1, 0])
    text = gq.qasm.dumps3(gq.from_qiskit(qc))
    assert "input float[64] _θ_0_;" in text and "gate entangle(_φ_0_, _φ_1_)" in text
    values = np.random.default_rng(3).uniform(-2, 2, len(qc.parameters))
    by_name = {p.name.replace("[", "_").replace("]", "_"): v for p, v in zip(qc.parameters, values)}
    expected = Statevector(qc.assign_parameters(dict(zip(qc.parameters, values)))).data
    ours = gq.qasm.loads3(text)
    bound = ours.bind({s: by_name[str(s).removeprefix("_")] for s in ours.parameters})
    np.testing.assert_allclose(gq.simulate(bound).to_numpy(), expected, atol=1e-10)
    theirs = qasm3.loads(text)
    theirs = theirs.assign_parameters(
        {p: by_name[p.name.removeprefix("_")] for p in theirs.parameters}
    )
    np.testing.assert_allclose(Statevector(theirs).data, expected, atol=1e-10)


def test_dumps3_refuses_what_has_no_form():
    c = gq.Circuit(1).depolarizing(0.1, 0)
    with pytest.raises(QasmError, match="noise channel"):
        gq.qasm.dumps3(c)
    with pytest.raises(gq.errors.ArgumentTypeError, match="takes a Circuit"):
        gq.qasm.dumps3("h q[0];")


PLAIN_EXPORT = (
    HEADER
    + """gate rzz(_gate_p_0) _gate_q_0, _gate_q_1 {
  cx _gate_q_0, _gate_q_1;
  rz(_gate_p_0) _gate_q_1;
  cx _gate_q_0, _gate_q_1;
}
bit[2] c;
bit b;
qubit[3] q;
qubit r;
h q;
phase(2**-1) q[1];
cphase(pi/2**2) q[1], q[2];
rzz(0.25) q[0], r;  // a comment
barrier q[0], r;
c[0] = measure q[0];
b = measure r;
c = measure q[1:2];
"""
)


def test_plain_exports_read_as_openqasm_2_give_the_reference_parsers_circuit():
    """Qiskit's plain OpenQASM 3 (no control flow, modifiers, physical qubits, inputs or
    phases) is read line for line by the OpenQASM 2.0 reader: the same circuit as the
    reference parser's tree gives, and anything else goes to that parser."""
    plain = PLAIN_EXPORT.replace("c = measure q[1:2];\n", "")
    assert _as_qasm2(plain) is not None
    assert gq.qasm.loads3(plain) == _read(plain, None)
    assert _as_qasm2(PLAIN_EXPORT) is None  # a range: the reference parser reads it
    assert gq.qasm.loads3(PLAIN_EXPORT) == _read(PLAIN_EXPORT, None)
    for other in ("ctrl @ x q[0], q[1];", "if (c[0]) { x q[0]; }", "h $0;", "gphase(0.1);",
                  "rz(2 ^ 1) q[0];", "input float[64] t;", "measure q[0];"):  # fmt: skip
        assert _as_qasm2(HEADER + "qubit[2] q;\nbit[2] c;\n" + other + "\n") is None
    with pytest.raises(QasmError, match="line 4, column 1: unknown gate 'foo'"):
        gq.qasm.loads3(HEADER + "qubit q;\nfoo q;\n")  # refused in the reference's words


def test_a_program_that_declares_outputs_reports_only_those():
    """OpenQASM 3 reports a program's ``output`` variables where it declares some: the bit
    ``t`` steers the run but is no result. By hand: ``r`` copies a fair coin."""
    text = """OPENQASM 3.0;
include "stdgates.inc";
qubit[2] q;
output bit r;
bit t;
h q[0];
t = measure q[0];
if (t) x q[1];
r = measure q[1];
"""
    c = gq.qasm.loads3(text)
    assert c.result_clbits == (0,) and c.scratch_clbits == frozenset({1})
    assert gq.record_distribution(c) == pytest.approx({"0": 0.5, "1": 0.5}, abs=1e-12)
    assert set(gq.counts(c, 200, seed=4)) == {"0", "1"}
    plain = gq.qasm.loads3(text.replace("output bit r;", "bit r;"))  # no outputs: every bit
    assert gq.record_distribution(plain) == pytest.approx({"00": 0.5, "11": 0.5}, abs=1e-12)
