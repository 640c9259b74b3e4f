"""OpenQASM 2.0: a corpus of files against Qiskit's own state vectors (when Qiskit is
installed) and exact properties, malformed files with their line and column, round trips and
fuzzing."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim.io.qasm import QasmError

HERE = Path(__file__).parent / "qasm"
VALID = sorted((HERE / "valid").glob("*.qasm"))
MALFORMED = sorted((HERE / "malformed").glob("*.qasm"))


def test_corpus_sizes():
    assert len(VALID) >= 20 and len(MALFORMED) >= 15


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_file_loads_and_round_trips(path):
    c = gq.qasm.load(path)
    assert c.n_qubits >= 1 and c.size >= 1
    psi = gq.simulate(c, seed=1)
    assert psi.norm_squared() == pytest.approx(1.0)
    again = gq.qasm.loads(gq.qasm.dumps(c))
    assert again == c
    if not c.has_non_unitary:
        psi2 = gq.simulate(again, seed=1)
        np.testing.assert_allclose(psi.amplitudes, psi2.amplitudes, atol=1e-12)


@pytest.mark.parametrize(
    "path", [p for p in VALID if "genqsim-only" not in p.read_text()], ids=lambda p: p.stem
)
def test_valid_file_matches_qiskit_statevector(path):
    qiskit = pytest.importorskip("qiskit")
    from qiskit.quantum_info import Statevector

    qc = qiskit.QuantumCircuit.from_qasm_file(str(path))
    qc.remove_final_measurements()
    expected = Statevector(qc).data  # little-endian, like genqsim
    ours = gq.simulate(gq.qasm.load(path)).amplitudes
    np.testing.assert_allclose(ours, expected, atol=1e-10)


@pytest.mark.parametrize("path", MALFORMED, ids=lambda p: p.stem)
def test_malformed_file_names_line_and_column(path):
    header = path.read_text().splitlines()[0]
    expected = re.match(r"// expect: (line \d+, column \d+: .*)", header).group(1)
    with pytest.raises(QasmError) as info:
        gq.qasm.load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert message[len(f"{path}: ") :].startswith(expected)
    line, column = map(int, re.match(r"line (\d+), column (\d+)", expected).groups())
    assert (info.value.line, info.value.column) == (line, column)


def test_register_order_and_broadcast():
    c = gq.qasm.loads('qreg a[2]; qreg b[1]; include "qelib1.inc"; x a[1]; x b;')
    assert c.n_qubits == 3
    assert gq.simulate(c).probabilities()[0b110] == pytest.approx(1)


def test_parameters_stay_exact():
    c = gq.qasm.loads('include "qelib1.inc"; qreg q[1]; ry(pi/2) q[0];')
    assert c.operations[0].gate.params == (sympy.pi / 2,)
    psi = gq.simulate(c, numbers="sympy")
    assert list(psi.amplitudes) == [sympy.sqrt(2) / 2, sympy.sqrt(2) / 2]


def test_precedence_follows_the_specification():
    c = gq.qasm.loads('include "qelib1.inc"; qreg q[1]; rz(-pi^2/4 + 2^-1) q[0];')
    (value,) = c.operations[0].gate.params
    assert sympy.simplify(value - (-(sympy.pi**2) / 4 + sympy.Rational(1, 2))) == 0


def test_measurements_feed_sampling_and_mid_circuit_reset_collapses():
    c = gq.qasm.load(HERE / "valid" / "15_reset_mid_circuit.qasm")
    psi = gq.simulate(c, seed=3)
    # x; cx -> |11>; reset q0 -> |10>; h q0 -> (|10> + |11>)/sqrt2
    np.testing.assert_allclose(psi.probabilities(), [0, 0, 0.5, 0.5], atol=1e-12)
    rest, terminal = c.split_terminal_measurements()
    assert terminal == [(1, 1)] and rest.has_non_unitary  # the reset stays


def test_include_of_a_local_gate_file(tmp_path):
    (tmp_path / "mygates.inc").write_text("gate flip a { x a; }")
    (tmp_path / "main.qasm").write_text('include "mygates.inc"; qreg q[1]; flip q[0];')
    c = gq.qasm.load(tmp_path / "main.qasm")
    assert gq.simulate(c).probabilities()[1] == pytest.approx(1)


def test_export_of_controls_with_value_zero_and_pauli_rotations():
    c = gq.Circuit(3).mcx([0, 1], 2, [0, 1]).pauli_rotation("XYZ", 0.7, [0, 1, 2]).crz(0.2, 2, 0)
    text = gq.qasm.dumps(c)
    assert "ccx q[0], q[1], q[2];" in text and text.count("x q[0];") == 2
    psi0 = gq.basis("000")
    np.testing.assert_allclose(
        gq.simulate(gq.qasm.loads(text), initial=psi0).amplitudes,
        gq.simulate(c, initial=psi0).amplitudes,
        atol=1e-12,
    )


def test_export_refuses_what_qasm2_cannot_say():
    with pytest.raises(QasmError, match=r"no OpenQASM 2\.0 form"):
        gq.qasm.dumps(gq.Circuit(1).unitary(np.eye(2), [0]))
    (t,) = gq.parameters("t")
    with pytest.raises(QasmError, match="bind t first"):
        gq.qasm.dumps(gq.Circuit(1).rx(t, 0))


QASM_ALPHABET = st.sampled_from(
    list(
        "qreg creg gate h x cx rx measure barrier reset include pi sin ; , ( ) [ ] { } -> + - "
        '* / ^ 0 1 2 3.5 q c a b " \n // /*'
    )
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(QASM_ALPHABET, max_size=40).map("".join))
def test_fuzzed_text_raises_only_qasm_errors(text):
    try:
        gq.qasm.loads(text)
    except QasmError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(VALID), st.data())
def test_mutated_files_raise_only_qasm_errors(path, data):
    text = path.read_text()
    i = data.draw(st.integers(0, len(text)))
    j = data.draw(st.integers(i, min(len(text), i + 8)))
    insert = data.draw(st.text(alphabet=";,()[]{}-+*/^qh0123.\n ", max_size=4))
    try:
        gq.qasm.loads(text[:i] + insert + text[j:])
    except QasmError:
        pass


# -- OpenQASM 3 subset ----------------------------------------------------------------------------

QASM3 = """OPENQASM 3.0;
include "stdgates.inc";
qubit[3] q;
bit[2] c;
gate zz(theta) a, b { cx a, b; rz(theta) b; cx a, b; }
h q;
zz(pi/3) q[0], q[2];
phase(2**-1) q[1];
cphase(0.25) q[1], q[2];
c[0] = measure q[0];
"""

QASM2_EQUIVALENT = """OPENQASM 2.0;
include "qelib1.inc";
qreg q[3];
creg c[2];
gate zz(theta) a, b { cx a, b; rz(theta) b; cx a, b; }
h q;
zz(pi/3) q[0], q[2];
p(0.5) q[1];
cp(0.25) q[1], q[2];
measure q[0] -> c[0];
"""


def test_qasm3_subset_equals_its_qasm2_form(tmp_path):
    pytest.importorskip("openqasm3")
    three = gq.qasm.loads3(QASM3)
    two = gq.qasm.loads(QASM2_EQUIVALENT)
    np.testing.assert_allclose(
        gq.simulate(three).amplitudes, gq.simulate(two).amplitudes, atol=1e-14
    )
    assert three.split_terminal_measurements()[1] == [(0, 0)]
    path = tmp_path / "prog.qasm"
    path.write_text(QASM3)
    assert gq.qasm.load(path) == three  # the header selects the OpenQASM 3 reader


@pytest.mark.parametrize(
    "text,line,message",
    [
        ("OPENQASM 3.0;\nqubit q;\nangle[20] a = 1.5;", 3, "variables of type AngleType"),
        ('OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit q;\nfoo q;', 4, "unknown gate 'foo'"),
        (
            "OPENQASM 3.0;\nqubit q;\nbit b;\nwhile (b) { x q; }",
            4,
            r"changes nothing its condition reads \(bits \[0\]\)",
        ),
        ("OPENQASM 3.0;\ndef f() { }", 2, "subroutines \\(def\\) are outside"),
        ("OPENQASM 3.0;\nextern f(int) -> int;", 2, "extern declarations are outside"),
        ("OPENQASM 3.0;\nbit b;\nb = 0.5;", 3, "a float \\(0.5\\) is stored into classical"),
        ('OPENQASM 3.0;\ninclude "nowhere.inc";', 2, "cannot include 'nowhere.inc'"),
        ("OPENQASM 3.0;\nqubit q;\nrx(theta) q;", 3, "unknown identifier 'theta'"),
    ],
)
def test_qasm3_outside_the_subset_names_the_line(text, line, message):
    pytest.importorskip("openqasm3")
    with pytest.raises(QasmError, match=message) as info:
        gq.qasm.loads3(text)
    assert info.value.line == line


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_float_parameters_give_the_same_state(path):
    """``exact=False`` reads every angle as a Python float: the same circuit, numerically."""
    exact, floats = gq.qasm.load(path), gq.qasm.load(path, exact=False)
    assert len(exact) == len(floats)
    for a, b in zip(exact.operations, floats.operations):
        assert a.targets == b.targets and a.controls == b.controls
        for p, q in zip(getattr(a.gate, "params", ()), getattr(b.gate, "params", ())):
            assert not isinstance(q, sympy.Basic)
            assert complex(q) == pytest.approx(complex(sympy.N(p, 30)), rel=1e-15, abs=1e-15)
    if not exact.has_non_unitary:
        np.testing.assert_allclose(
            gq.simulate(floats).amplitudes, gq.simulate(exact).amplitudes, atol=1e-13
        )


def test_decimal_angles_are_floats_and_exact_ones_stay_exact():
    text = (
        'include "qelib1.inc"; qreg q[2]; rx(pi*0.35) q[0]; rz(1/2) q[0]; rz(-3) q[1];'
        "gate g(a, b) x { rz(a + b) x; u2(0, pi) x; } g(pi/4, 0.5) q[0]; g(pi/4, 1) q[1];"
    )
    params = [op.gate.params for op in gq.qasm.loads(text).operations]
    assert params[0] == (pytest.approx(np.pi * 0.35, rel=1e-16),)
    assert isinstance(params[0][0], float)
    assert params[1] == (sympy.Rational(1, 2),) and params[2] == (-3,)
    assert isinstance(params[3][0], float) and params[3][0] == pytest.approx(np.pi / 4 + 0.5)
    assert params[4] == (sympy.pi / 2, 0, sympy.pi)  # the float argument does not reach u2
    assert params[5] == (sympy.pi / 4 + 1,)
    again = gq.qasm.loads(
        'include "qelib1.inc"; qreg q[1]; gate g(a) x { rz(a) x; } g(1) q[0]; g(1.0) q[0];'
    )
    (one,), (one_float,) = (op.gate.params for op in again.operations)
    assert one == 1 and isinstance(one, sympy.Integer) and isinstance(one_float, float)


def test_a_malformed_stream_fails_at_its_first_error_without_reading_on():
    """Lines are read as they are parsed: an error on line 3 of a million-line stream is
    reported having read a handful of lines."""
    read = 0

    def lines():
        nonlocal read
        yield from ("OPENQASM 2.0;\n", "qreg q[2];\n", "h q[0] q[1];\n")
        for _ in range(10**6):
            read += 1
            yield "x q[0];\n"

    with pytest.raises(QasmError, match=r"line 3, column 8: expected ';'") as info:
        gq.qasm.loads(lines())
    assert info.value.line == 3 and read <= 2


def test_a_file_that_is_not_utf8_names_the_problem(tmp_path, monkeypatch):
    path = tmp_path / "bad.qasm"
    path.write_bytes(b"OPENQASM 2.0;\nqreg q[1];\n// \xff\xfe\nx q[0];\n")
    with pytest.raises(QasmError, match="byte 28 is not UTF-8") as info:
        gq.qasm.load(path)  # read whole: the line of the byte is known
    assert (info.value.line, info.value.source) == (3, str(path))
    monkeypatch.setattr(gq.qasm, "WHOLE_FILE_MAX_BYTES", 0)  # read line by line
    with pytest.raises(QasmError, match="not UTF-8"):
        gq.qasm.load(path)


def outcome_of_load(path: Path) -> object:
    """The operations ``load`` reads from ``path``, or the error it raises (message)."""
    try:
        return list(gq.qasm.load(path).operations)
    except QasmError as exc:
        return str(exc)


@pytest.mark.parametrize("path", VALID + MALFORMED, ids=lambda p: p.stem)
def test_a_file_read_whole_reads_as_one_read_line_by_line(path, monkeypatch):
    """Files up to ``WHOLE_FILE_MAX_BYTES`` are parsed as one text (statements read across
    lines), larger ones streamed: the circuit, or the error and its place, is the same."""
    whole = outcome_of_load(path)
    monkeypatch.setattr(gq.qasm, "WHOLE_FILE_MAX_BYTES", 0)
    assert outcome_of_load(path) == whole


@pytest.mark.parametrize("simple", [True, False])
def test_barriers_in_gate_bodies_are_sorted_and_count_a_repeated_qubit_once(simple):
    """A barrier in a gate body lands on the caller's qubits, sorted; a repeated argument
    counts once there as it does outside gate bodies (Qiskit reads both the same way)."""
    from genqsim.io.qasm.parser import Parser

    text = (
        'OPENQASM 2.0;\ninclude "qelib1.inc";\n'
        "gate g a, b, c { h a; barrier c, a, c; x b; }\n"
        "gate outer a, b, c { g c, a, b; barrier b, b; }\n"
        "qreg q[4];\nbarrier q[3], q[3], q[1];\nouter q[3], q[0], q[2];\n"
    )
    circuit = Parser(text, simple_statements=simple).parse()
    got = [(op.gate.name, op.targets) for op in circuit.operations]
    # outer(a=3, b=0, c=2) calls g(a=2, b=3, c=0): h 2, barrier {0, 2}, x 3; then barrier {0}
    assert got == [("barrier", (1, 3)), ("h", (2,)), ("barrier", (0, 2)), ("x", (3,)),
                   ("barrier", (0,))]  # fmt: skip
    assert [op.gate.n_qubits for op in circuit.operations if op.gate.name == "barrier"] == [2, 2, 1]


@pytest.mark.parametrize("exact", [True, False])
def test_qelib_decompositions_equal_the_circuit_methods(exact):
    """u2, u0, cu3 and dcx (qelib1 gates that are decompositions, appended without the
    circuit's checks) give the operations the checked ``Circuit`` methods give."""
    half_pi = sympy.pi / 2 if exact else np.pi / 2
    pi = sympy.pi if exact else np.pi
    text = (
        'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[3];\n'
        "u2(0.25, pi) q[2];\nu0(1) q[1];\ncu3(0.5, -0.25, pi) q[2], q[0];\ndcx q[1], q[2];\n"
        "gate g a, b { u2(0, 0.5) b; cu3(1, 2, 3) b, a; dcx a, b; u0(2) a; }\ng q[0], q[2];\n"
    )
    want = gq.Circuit(3)
    want.u(half_pi, 0.25, pi, 2).id(1).cu(0.5, -0.25, pi, 0, 2, 0).cx(1, 2).cx(2, 1)
    want.u(half_pi, 0, 0.5, 2).cu(1, 2, 3, 0, 2, 0).cx(0, 2).cx(2, 0).id(0)
    got = gq.qasm.loads(text, exact=exact)
    assert got.operations == want.operations
