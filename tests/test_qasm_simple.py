"""The OpenQASM reader's simple-statement path (whole ``name(params) reg[i], ...;`` statements
read by one regular expression) against the token parser alone, on random programs and on
random corruptions of them: equal circuits, parameter for parameter (type and bits), and the
same error at the same line and column."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim.circuit.conditional import Conditional
from genqsim.io.qasm import QasmError
from genqsim.io.qasm.fast_reader import product_value
from genqsim.io.qasm.parser import Parser


def token_parser_only(text: str | list[str], exact: bool) -> gq.Circuit:
    return Parser(text, exact=exact, simple_statements=False).parse()


def strict(circuit: gq.Circuit) -> list[tuple]:
    """Each operation with its parameters' types and exact text (so 0.5, 1/2 and 0.5 as a
    SymPy Float differ, and so do 0.0 and -0.0), conditional bodies included."""

    def param(p: Any) -> tuple[str, str]:
        return type(p).__name__, sympy.srepr(p) if isinstance(p, sympy.Basic) else repr(p)

    out = []
    for op in circuit.operations:
        g = op.gate
        body = strict(g.body) if isinstance(g, Conditional) else None
        clbits = (g.clbits, g.value) if isinstance(g, Conditional) else getattr(g, "clbit", None)
        out.append(
            (
                g.name,
                g.n_qubits,
                tuple(map(param, g.params)),
                op.targets,
                op.controls,
                op.control_values,
                body,
                clbits,
            )
        )
    return [(circuit.n_qubits, circuit.n_clbits), *out]


def outcome(read: Any, text: str, exact: bool) -> Any:
    """The circuit read, strictly described, or the error raised (type and message)."""
    try:
        return strict(read(text, exact))
    except Exception as exc:  # both readers must fail alike, whatever the error
        return type(exc).__name__, str(exc)


def lines_of(text: str) -> list[str]:
    """``text`` cut after each newline, as a file read as text gives it line by line."""
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def simple_and_token_agree(text: str) -> None:
    """The simple reader over the whole text and over lines given one at a time, and the
    token parser alone over both, read ``text`` alike."""
    for exact in (True, False):
        slow = outcome(token_parser_only, text, exact)
        fast = outcome(lambda t, e: gq.qasm.loads(t, exact=e), text, exact)
        assert fast == slow, text
        by_line = outcome(lambda t, e: gq.qasm.loads(lines_of(t), exact=e), text, exact)
        assert by_line == slow, text
        slow_by_line = outcome(lambda t, e: token_parser_only(lines_of(t), e), text, exact)
        assert slow_by_line == slow, text


# -- random programs ------------------------------------------------------------------------------

NUMBERS = ["0", "1", "2", "3", "0.5", "1.", ".25", "1e-3", "2E2", "0.1234567890123", "1e400"]
OPERANDS = st.sampled_from(["pi", *NUMBERS])
SIGNS = st.sampled_from(["", "-", " - "])
OTHER_FORMS = "pi -pi +0.5 1-2 --1 sin(0.3) (pi)/2 2^-1 pi*(0.5) cos(pi/4)*2 ln(0) sqrt(-1) x"
ANGLES = st.one_of(
    st.sampled_from(NUMBERS),
    st.builds("{}{}*{}{}".format, SIGNS, OPERANDS, st.sampled_from(["", "-"]), OPERANDS),
    st.builds("{}pi/{}".format, SIGNS, st.sampled_from(["2", "4", "0", "3.0"])),
    st.builds("{}*pi/{}".format, st.sampled_from(NUMBERS), st.sampled_from(["2", "8", "0.5"])),
    st.sampled_from([*OTHER_FORMS.split(), "", "pi 2", "0.5.1"]),
    st.floats(-10, 10, allow_nan=False).map(repr),
)
SPACE = st.sampled_from(["", " ", "  ", "\t", "\n", " \n\t"])  # a statement may span lines
# name: (parameters, qubits); library gates, decompositions and the program's own gates
CALLS = {
    "h": (0, 1), "x": (0, 1), "t": (0, 1), "rx": (1, 1), "rz": (1, 1), "p": (1, 1),
    "u": (3, 1), "u3": (3, 1), "u1": (1, 1), "U": (3, 1), "cx": (0, 2), "CX": (0, 2),
    "cz": (0, 2), "crz": (1, 2), "cu": (4, 2), "ccx": (0, 3), "swap": (0, 2),
    "u2": (2, 1), "cu3": (3, 2), "dcx": (0, 2), "rccx": (0, 3),
    "mine": (2, 2), "flip": (0, 1), "twice": (0, 2), "consts": (0, 2), "fixed": (0, 3),
}  # fmt: skip
PRELUDE = """OPENQASM 2.0;
include "qelib1.inc";
gate mine(a, b) x, y { rz(a/2) x; cx x, y; ry(-b*pi) y; u2(a, 0.5) x; }
gate twice a, b { h b; cx a, a; }
gate consts a, b { u1(pi/4) a; rz(0.5) b; cx b, a; u(1e-3, -pi/2, 2*pi) a; ccx a, b, b; }
gate fixed a, b, c { u1(-pi/4) c; crz(0.25) a, b; ccx a, b, c; rx(1/3) b; }
"""


@st.composite
def gate_call(draw: st.DrawFn, registers: list[tuple[str, int]]) -> str:
    name = draw(st.sampled_from(sorted(CALLS)))
    n_params, n_qubits = CALLS[name]
    n_params = draw(st.sampled_from([n_params] * 4 + [n_params + 1, max(n_params - 1, 0)]))
    sp = draw(SPACE)
    params = ""
    if n_params or draw(st.integers(0, 9)) == 0:  # sometimes "()" with nothing in it
        params = f"({','.join(draw(SPACE) + draw(ANGLES) + draw(SPACE) for _ in range(n_params))})"
    n_args = draw(st.sampled_from([n_qubits] * 6 + [n_qubits + 1, max(n_qubits - 1, 1)]))
    args = []
    for _ in range(n_args):
        reg, size = draw(st.sampled_from(registers))
        if draw(st.integers(0, 7)) == 0:
            args.append(reg)  # a whole register, broadcast
        else:
            index = draw(st.integers(0, size))  # size itself is out of range
            args.append(f"{reg}{draw(SPACE)}[{draw(SPACE)}{index}{draw(SPACE)}]")
    comment = draw(st.sampled_from(["", " // note", " /* note */", "/* a\nb */"]))
    joined = f",{draw(SPACE)}".join(args)
    return f"{sp}{name}{draw(SPACE)}{params}{draw(SPACE)}{joined}{draw(SPACE)};{comment}"


BODY_CALLS = [
    *("h a", "cx a, b", "rz(t/2) a", "u(t, s*pi, 0) b", "barrier a, b", "barrier a", "u1(pi-t) c"),
    *("rx(x) a", "measure a", "cx a,a", "rz(1/0) a", "g0 a", "x d", "barrier(t) a"),
]
GAP = st.sampled_from([" ", "\n", "\n  ", " // a comment }\n", "/* c */", "", "\t"])


@st.composite
def gate_definition(draw: st.DrawFn) -> str:
    """``gate g...`` over one or more lines, sometimes with an error the parser reports."""
    name = draw(st.sampled_from(["g0", "g1", "h", "measure"]))
    params = draw(st.sampled_from(["", "()", "(t)", "(t, s)", "(t,t)", "(1)"]))
    qargs = draw(st.sampled_from(["a", "a, b", "a,b,c", "a, a"]))
    body = []
    for _ in range(draw(st.integers(0, 3))):
        call = draw(st.sampled_from(BODY_CALLS))
        body.append(call + draw(st.sampled_from([";", ";", " ;", ""])))
    text = f"gate{draw(GAP)} {name}{params}{draw(GAP)}{qargs}{draw(GAP)}{{"
    return text + draw(GAP).join(body) + draw(GAP) + "}" + draw(st.sampled_from(["", " // end"]))


@st.composite
def program(draw: st.DrawFn) -> str:
    sizes = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    registers = [(f"r{i}", size) for i, size in enumerate(sizes)]
    lines = [PRELUDE] + [f"qreg {reg}[{size}];" for reg, size in registers] + ["creg c[2];"]
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.integers(0, 19))
        if kind == 0:
            reg, size = draw(st.sampled_from(registers))
            where = draw(st.sampled_from(["", f"[{size - 1}]", f"[{size}]"]))
            sp = draw(st.sampled_from([" ", "\n", " \n  "]))
            clbit = draw(st.sampled_from(["", "[1]", "[2]"]))
            lines.append(f"measure{sp}{reg}{where}{draw(SPACE)}->{draw(SPACE)}c{clbit};")
        elif kind == 4:
            sp = draw(st.sampled_from([" ", "\n", " \n  "]))
            name, size = draw(st.integers(0, 1)), draw(st.integers(0, 2))
            lines.append(f"qreg{sp}extra{name}{draw(SPACE)}[{size}]{draw(SPACE)};")
        elif kind == 5:
            lines.append(draw(st.sampled_from(["creg c[1];", "creg d[1];", "reset r0[0];"])))
        elif kind == 1:
            lines.append(f"if (c == 1) {draw(gate_call(registers))}")
        elif kind == 2:
            (reg, size), (other, _) = registers[0], registers[-1]
            forms = [f"barrier {reg};", f"barrier {reg}[{size - 1}], {other};", f"reset {reg};",
                     f"barrier {reg}[{size}];", f"reset {reg}[0];", f"reset {reg}[0], {other};",
                     f"barrier({reg}) {reg};", f"reset {reg}[{size}];"]  # fmt: skip
            lines.append(draw(st.sampled_from(forms)))
        elif kind == 3:
            # defined after a use above, or again (calls after it take the new body)
            lines.append(draw(st.sampled_from(["gate flip a { x a; }", "gate flip a { h a; }"])))
        elif kind == 6:
            lines.append(draw(gate_definition()))
        elif kind in (7, 8, 9):  # a call of a definition above, on distinct qubits
            qubits = [f"{reg}[{i}]" for reg, size in registers for i in range(size)]
            args = ", ".join(qubits[: draw(st.integers(1, 3))])
            params = draw(st.sampled_from(["", "(0.5)", "(0.5, pi)"]))
            lines.append(f"{draw(st.sampled_from(['g0', 'g1']))}{params} {args};")
        else:
            lines.append(draw(gate_call(registers)))
    separator = draw(st.sampled_from(["\n", " ", "\n\n", "\n  "]))
    return separator.join(lines) + draw(st.sampled_from(["", "\n"]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program())
def test_simple_statements_read_as_the_token_parser_reads_them(text):
    simple_and_token_agree(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program(), st.data())
def test_corrupted_programs_fail_alike_at_the_same_place(text, data):
    i = data.draw(st.integers(0, len(text)))
    j = data.draw(st.integers(i, min(len(text), i + 6)))
    insert = data.draw(st.text(alphabet=";,()[]{}-+*/^qr0123.\n \t/", max_size=4))
    simple_and_token_agree(text[:i] + insert + text[j:])


def test_the_corpus_reads_alike(tmp_path):
    here = __import__("pathlib").Path(__file__).parent / "qasm"
    for path in sorted(here.rglob("*.qasm")):
        if "include" in path.read_text() and "qelib1" not in path.read_text():
            continue  # needs its neighbouring files
        simple_and_token_agree(path.read_text())


def test_errors_in_gate_bodies_name_their_place():
    text = (
        'include "qelib1.inc";\nqreg q[2];\ngate g(t) a, b // a comment }\n{\n  h a;\n'
        "  rz(t) b; cx a,\n     a;\n}\ng(0.5) q[0], q[1];\n"
    )
    for read in (gq.qasm.loads, lambda t: token_parser_only(t, True)):
        with pytest.raises(QasmError) as info:
            read(text)
        assert (info.value.line, info.value.column) == (6, 12)  # the cx
        assert "gate 'cx' is given one qubit twice" in str(info.value)


def test_a_call_before_its_definition_takes_that_definition():
    text = """OPENQASM 2.0;
include "qelib1.inc";
qreg q[2];
early q[1];
gate flip a { x a; }
gate early a { s a; }
flip q[0];
flip /* read by the token parser */ q[0];
flip q;
"""
    for simple in (True, False):
        c = Parser(text, simple_statements=simple).parse()
        got = [(op.gate.name, op.targets[0]) for op in c.operations]
        assert got == [("s", 1), ("x", 0), ("x", 0), ("x", 0), ("x", 1)], simple


@pytest.mark.parametrize("second", ["gate flip a { h a; }", "gate flip(t) a { rx(t) a; }"])
def test_a_gate_defined_twice_is_refused_where_it_is_defined_again(second):
    """OpenQASM names one gate once (Qiskit's reader refuses it too): the second definition
    is an error at its name, pointing to the first."""
    text = f'OPENQASM 2.0;\ninclude "qelib1.inc";\ngate flip a {{ x a; }}\n{second}\n'
    for simple in (True, False):
        with pytest.raises(QasmError) as info:
            Parser(text, simple_statements=simple).parse()
        assert (info.value.line, info.value.column) == (4, 6)
        assert "already defined (line 3, column 6)" in str(info.value)


def test_a_conditional_takes_only_its_own_statement():
    c = gq.qasm.loads(
        'include "qelib1.inc"; qreg q[2]; creg c[1];\nif (c == 1) x q[0];\nh q[1];\ncx q[0], q[1];'
    )
    names = [op.gate.name for op in c.operations]
    assert names == ["if", "h", "x"]  # cx is x under one control
    assert [op.gate.name for op in c.operations[0].gate.body.operations] == ["x"]


def test_many_statements_on_a_line_and_one_over_lines_keep_their_columns():
    text = 'include "qelib1.inc"; qreg q[2];\nh q[0]; x q[1]; cx q[0], q[1]; rz(0.5) q[2];'
    with pytest.raises(QasmError) as info:
        gq.qasm.loads(text)
    assert (info.value.line, info.value.column) == (2, 40)  # q[2]: index out of range
    c = gq.qasm.loads('include "qelib1.inc"; qreg q[2];\nrz(\n0.5) q[0]; cx q[0],\nq[1];')
    assert [op.gate.name for op in c.operations] == ["rz", "x"]


# -- the angles read without the expression parser ------------------------------------------------


@pytest.mark.parametrize(
    "text,value",
    [
        ("pi*0.35", math.pi * 0.35),
        ("pi*-0.5", math.pi * -0.5),
        ("-pi*0.5", -math.pi * 0.5),
        (" 0.5 * pi / 2 ", 0.5 * math.pi / 2),
        ("-1.5e-3", -1.5e-3),
        ("3*pi/4.", 3 * math.pi / 4),
    ],
)
def test_products_equal_the_float_of_their_expression(text, value):
    assert product_value(text, exact=True) == value
    assert product_value(text, exact=False) == value
    (op,) = gq.qasm.loads(f'include "qelib1.inc"; qreg q[1]; rz({text}) q[0];').operations
    assert op.gate.params == (value,) and isinstance(op.gate.params[0], float)


@pytest.mark.parametrize("text", ["pi/2", "3*pi", "2", "pi/0.0", "1e400*pi", "pi*pi*2", "2pi"])
def test_products_left_to_the_expression_parser(text):
    """Exact products (no decimal literal), divisions by zero, overflow and other forms."""
    assert product_value(text, exact=True) is None
    if re.fullmatch(r"pi/2|3\*pi|2", text):  # plain floats when exactness is not asked for
        assert product_value(text, exact=False) == float(sympy.sympify(text))
    else:
        assert product_value(text, exact=False) is None


def test_the_garbage_collector_is_paused_while_parsing_a_long_text_and_left_as_found():
    import gc

    from genqsim.io.qasm.parser import COLLECTOR_PAUSE_MIN_CHARS

    short = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\nh q[0];\nfoo q[1];\n'
    long = short.replace("h q[0];", "h q[0];\n" * (COLLECTOR_PAUSE_MIN_CHARS // 8))
    gq.qasm.loads(short.replace("foo", "x"))  # qelib1's definitions read before the spy
    seen: list[bool] = []
    real = Parser.statement

    def spy(self: Parser, many: bool = True) -> None:
        seen.append(gc.isenabled())
        real(self, many)

    try:
        Parser.statement = spy  # type: ignore[method-assign]
        assert gc.isenabled()
        with pytest.raises(QasmError, match="unknown gate 'foo'"):
            gq.qasm.loads(long)
        assert seen and not any(seen) and gc.isenabled()  # paused, then back on an error
        seen.clear()
        gq.qasm.loads(short.replace("foo", "x"))
        assert seen and all(seen)  # a short text: not paused
        gc.disable()
        gq.qasm.loads(long.replace("foo", "x"))
        assert not gc.isenabled()  # a collector switched off stays off
    finally:
        gc.enable()
        Parser.statement = real  # type: ignore[method-assign]


@pytest.mark.parametrize(
    "header",
    ["OPENQASM 2.0;", "OPENQASM 2;", "OPENQASM\t2.0 ;", "OPENQASM 2.1;", "OPENQASM\n2.0\n;",
     "  OPENQASM 2.0; // a note", "OPENQASM 2.0;/* a\nb */", "OPENQASM 2.0; OPENQASM 2.0;",
     "OPENQASM 2.0", "OPENQASM 2.0e;", "OPENQASM 3.0;", "OPENQASM pi;", "OPENQASM 2.0 2;"],
)  # fmt: skip
def test_headers_read_as_the_token_parser_reads_them(header):
    """The usual header is matched whole; any other form, valid or not, goes token by
    token, and either way the program reads (or fails, at the same place) alike."""
    simple_and_token_agree(f'{header}\ninclude "qelib1.inc";\nqreg q[2];\nh q[0];\n')


def qiskit_exports() -> dict[str, Any]:
    """Circuits as Qiskit writes them out: its library gates become gate definitions whose
    bodies call qelib1 gates with constant parameters, nested, on permuted qubits."""
    qiskit = pytest.importorskip("qiskit")
    from qiskit.circuit.library import QFTGate, efficient_su2, quantum_volume

    qft = qiskit.QuantumCircuit(4)
    qft.h(0)
    qft.append(QFTGate(4), range(4))
    qft.append(QFTGate(3).inverse(), [3, 1, 0])
    mcx = qiskit.QuantumCircuit(5)
    mcx.x(1)
    mcx.h(range(5))
    mcx.mcx([0, 1, 2, 3], 4)
    mcx.barrier()
    mcx.mcx([4, 2, 1], 0)
    ansatz = efficient_su2(3, reps=1)
    bound = ansatz.assign_parameters([0.1 * (i + 1) for i in range(ansatz.num_parameters)])
    two = qiskit.QuantumCircuit(3)
    two.append(bound.to_gate(), [2, 0, 1])
    two.append(bound.to_gate(), [0, 1, 2])
    volume = quantum_volume(4, seed=3)
    return {"qft": qft, "mcx": mcx, "bound_ansatz": two, "quantum_volume": volume}


@pytest.mark.parametrize("name", ["qft", "mcx", "bound_ansatz", "quantum_volume"])
def test_qiskit_exports_read_alike_and_match_its_statevector(name):
    """Gate definitions as Qiskit exports them (kept as their expansion when read) give
    the state Qiskit computes from the same text (the text drops the global phase of its
    unitary gates), and both readers read them alike."""
    from qiskit import QuantumCircuit, qasm2
    from qiskit.quantum_info import Statevector

    circuit = qiskit_exports()[name]
    text = qasm2.dumps(circuit)
    assert "gate " in text
    simple_and_token_agree(text)
    ours = gq.simulate(gq.qasm.loads(text, exact=False)).amplitudes
    expected = Statevector(QuantumCircuit.from_qasm_str(text)).data
    np.testing.assert_allclose(ours, expected, atol=1e-10)


def test_a_gate_body_calls_a_gate_defined_after_it():
    """A body may call a gate defined after it: the call is looked up when the body is
    expanded."""
    text = """OPENQASM 2.0;
include "qelib1.inc";
qreg q[2];
gate inner a { h a; }
gate outer a, b { inner b; u2(0, pi) a; later a; }
gate later a { s a; }
outer q[0], q[1];
inner q[0];
outer q[1], q[0];
"""
    for simple in (True, False):
        c = Parser(text, simple_statements=simple).parse()
        got = [(op.gate.name, op.targets[0]) for op in c.operations]
        assert got == [("h", 1), ("u", 0), ("s", 0), ("h", 0), ("h", 0), ("u", 1), ("s", 1)]
    simple_and_token_agree(text)
