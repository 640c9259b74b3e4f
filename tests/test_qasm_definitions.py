"""A file's own gate definitions: names of the gate table that the includes do not declare
are the file's to define, and a definition whose unitary equals a table gate (a plain one, or
a multi-controlled family Qiskit writes: ``mcx``, ``mcphase``, ``cs``, ``ccz``, ...) runs as
that one gate. References: Qiskit's own reader and ``Statevector`` of the same text, and
dense ``kron``-built matrices."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim.io.qasm import QasmError
from genqsim.io.qasm.parser import Parser
from genqsim.io.qasm.recognize import _applied

from strategies import random_circuit

qiskit = pytest.importorskip("qiskit")


def qiskit_state(text: str) -> np.ndarray:
    """Qiskit's state of an OpenQASM 2.0 text (little-endian, like genqsim), its gates
    decomposed first (a wide custom gate makes ``Statevector`` build its dense matrix)."""
    from qiskit import qasm2, transpile
    from qiskit.quantum_info import Statevector

    qc = qasm2.loads(text, custom_instructions=qasm2.LEGACY_CUSTOM_INSTRUCTIONS)
    qc = transpile(qc, basis_gates=["u", "cx"], optimization_level=0)
    return Statevector(qc).data


def library_circuit():
    """A circuit of the Qiskit library gates that OpenQASM 2.0 export writes definitions for."""
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import (
        C3SXGate,
        CCZGate,
        CSdgGate,
        CSGate,
        DCXGate,
        MCPhaseGate,
        MCXGate,
        RYYGate,
        iSwapGate,
    )  # fmt: skip

    qc = QuantumCircuit(6)
    for q in range(6):
        qc.ry(0.3 + 0.2 * q, q)
    qc.append(MCXGate(4), [0, 1, 2, 3, 4])
    qc.append(MCPhaseGate(np.pi / 4, 3), [1, 2, 3, 5])
    qc.append(DCXGate(), [0, 5])
    qc.append(iSwapGate(), [2, 4])
    qc.append(RYYGate(0.3), [1, 3])
    qc.append(C3SXGate(), [0, 1, 2, 3])
    qc.append(CSGate(), [4, 5])
    qc.append(CSdgGate(), [5, 1])
    qc.append(CCZGate(), [0, 2, 4])
    qc.append(MCXGate(5), [5, 4, 3, 2, 1, 0])
    return qc


def test_qiskit_definitions_of_table_gates_run_as_one_operation_each():
    from qiskit import qasm2

    text = qasm2.dumps(library_circuit())
    for name in ("gate mcx ", "gate mcphase(", "gate dcx ", "gate iswap ", "gate ryy(", "gate cs "):
        assert name in text  # the file defines them
    for simple in (True, False):
        c = Parser(text, simple_statements=simple).parse()
        ops = [op for op in c.operations if op.gate.name != "ry"]
        got = [(op.gate.name, op.controls, op.targets) for op in ops]
        assert got == [
            ("x", (0, 1, 2, 3), (4,)), ("p", (1, 2, 3), (5,)), ("x", (0,), (5,)),
            ("x", (5,), (0,)), ("iswap", (), (2, 4)), ("ryy", (), (1, 3)),
            ("sx", (0, 1, 2), (3,)), ("s", (4,), (5,)), ("sdg", (5,), (1,)), ("z", (0, 2), (4,)),
            ("x", (5, 4, 3, 2, 1), (0,)),
        ]  # fmt: skip
        np.testing.assert_allclose(gq.simulate(c).amplitudes, qiskit_state(text), atol=1e-12)
    phase = next(op for op in c.operations if op.gate.name == "p")
    assert phase.gate.params[0] == sympy.pi / 4  # exact, as the call writes it


def test_a_definition_that_differs_from_the_table_gate_is_the_files_gate():
    """``iswap`` is not in qelib1.inc: a file may define it as anything, and that runs."""
    text = (
        'OPENQASM 2.0;\ninclude "qelib1.inc";\ngate iswap a, b { h a; cx a, b; }\n'
        "qreg q[2];\niswap q[0], q[1];\n"
    )
    for simple in (True, False):
        c = Parser(text, simple_statements=simple).parse()
        assert [op.gate.name for op in c.operations] == ["h", "x"]
    bell = np.array([1, 0, 0, 1]) / np.sqrt(2)
    np.testing.assert_allclose(gq.simulate(gq.qasm.loads(text)).amplitudes, bell, atol=1e-15)


def test_dcx_defined_in_the_file_gives_qiskits_state():
    text = (
        'OPENQASM 2.0; include "qelib1.inc"; gate dcx a,b { cx a,b; cx b,a; }\n'
        "qreg q[2]; x q[0]; dcx q[0],q[1];"
    )
    c = gq.qasm.loads(text)
    np.testing.assert_allclose(gq.simulate(c).amplitudes, qiskit_state(text), atol=1e-15)
    # |q1 q0> = |01> -> cx(0->1) |11> -> cx(1->0) |10>
    np.testing.assert_allclose(gq.simulate(c).amplitudes, [0, 0, 1, 0], atol=1e-15)


def test_a_definition_is_recognised_only_at_the_parameters_it_equals_the_gate():
    """Qiskit writes ``mcphase(param0)`` with a body for one angle that ignores ``param0``:
    called with that angle it is the controlled phase; called with another, the file's body
    (the angle it was written for) is what runs."""
    body = "cp(pi/4) a, b;"
    text = (
        f'OPENQASM 2.0;\ninclude "qelib1.inc";\ngate mcphase(param0) a, b {{ {body} }}\n'
        "qreg q[2];\nh q;\nmcphase(pi/4) q[0], q[1];\nmcphase(pi/2) q[0], q[1];\n"
    )
    c = gq.qasm.loads(text)
    got = [(op.gate.name, op.gate.params) for op in c.operations[2:]]
    assert got == [("p", (sympy.pi / 4,)), ("p", (sympy.pi / 4,))]  # the file's angle, twice
    np.testing.assert_allclose(gq.simulate(c).amplitudes, qiskit_state(text), atol=1e-14)


def test_an_ancilla_variant_is_native_only_where_it_leaves_the_ancilla_alone():
    """Qiskit's v-chain needs its ancilla in ``|0>``: on other ancilla states it is not the
    plain multi-controlled X, so it keeps its body; a body that is the plain gate on the
    controls and target (the ancilla untouched) runs natively."""
    from qiskit import QuantumCircuit, qasm2

    qc = QuantumCircuit(5)
    qc.h(range(5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        qc.mcx([0, 1, 2], 4, ancilla_qubits=[3], mode="v-chain")
    text = qasm2.dumps(qc)
    assert "gate mcx_vchain" in text
    c = gq.qasm.loads(text)
    assert len(c.operations) > 6  # expanded
    np.testing.assert_allclose(gq.simulate(c).amplitudes, qiskit_state(text), atol=1e-12)
    plain = (
        'OPENQASM 2.0;\ninclude "qelib1.inc";\n'
        "gate mcx_recursive a, b, c, t, anc { ccx a, b, anc; ccx anc, c, t; ccx a, b, anc; "
        "ccx anc, c, t; ccx a, b, c; ccx a, b, c; }\n"
        "qreg q[5];\nh q;\nmcx_recursive q[0], q[1], q[2], q[3], q[4];\n"
    )
    c = gq.qasm.loads(plain)
    assert [(op.gate.name, op.controls, op.targets) for op in c.operations[5:]] == [
        ("x", (0, 1, 2), (3,))
    ]
    np.testing.assert_allclose(gq.simulate(c).amplitudes, qiskit_state(plain), atol=1e-12)


def test_recognised_gates_keep_exact_parameters_for_symbolic_runs():
    """Read exactly, a recognised ``ryy(pi/3)`` is the table's exact gate, so an exact run
    gives the closed form: after ``ry(a)`` on qubit 0, ``ryy(t)`` gives ``<Z0> = cos(a)
    cos(t)``, 1/4 at ``a = t = pi/3``."""
    text = (
        'OPENQASM 2.0;\ninclude "qelib1.inc";\n'
        "gate ryy(param0) q0,q1 { sxdg q0; sxdg q1; cx q0,q1; rz(param0) q1; cx q0,q1; sx q0; "
        "sx q1; }\nqreg q[2];\nry(pi/3) q[0];\nryy(pi/3) q[0], q[1];\n"
    )
    c = gq.qasm.loads(text)
    assert c.operations[1].gate.name == "ryy"
    assert c.operations[1].gate.params == (sympy.pi / 3,)
    value = gq.expectation(c, "Z0", numbers="sympy")
    # ryy(t) on ry(a)|0>|0>: <Z0> = cos(a) cos(t)
    assert sympy.simplify(sympy.sympify(value) - sympy.Rational(1, 4)) == 0


@pytest.mark.parametrize(
    "text, message",
    [
        ('include "qelib1.inc";\ngate rzz(t) a, b { cx a, b; }\n', "gate 'rzz' is declared by"),
        ('include "qelib1.inc";\ngate rccx a, b, c { x a; }\n', "gate 'rccx' is declared by"),
        ("gate U(a, b, c) q { }\n", "gate 'U' is built into OpenQASM"),
    ],
)
def test_gates_an_include_or_the_language_declares_cannot_be_redefined(text, message):
    with pytest.raises(QasmError, match=message) as info:
        gq.qasm.loads(text)
    assert info.value.line == text.count("\n")
    assert info.value.column == 6


def test_without_the_include_a_file_may_define_qelib_names():
    """OpenQASM's rule: only an include declares ``h``; a file without it may define ``h``."""
    text = "OPENQASM 2.0;\ngate h a { U(pi/2, 0, pi) a; }\ngate cx a, b { CX a, b; }\n"
    text += "qreg q[2];\nh q[0];\ncx q[0], q[1];\n"
    c = gq.qasm.loads(text)
    assert [op.gate.name for op in c.operations] == ["h", "x"]
    bell = np.array([1, 0, 0, 1]) / np.sqrt(2)
    np.testing.assert_allclose(gq.simulate(c).amplitudes, bell, atol=1e-15)


@settings(max_examples=60, deadline=None)
@given(random_circuit(n_max=6), st.integers(0, 2**32 - 1))
def test_the_comparison_applies_gates_as_the_simulator_does(circuit, seed):
    """The recognition's own small applier (dense matrices on the slices controls select)
    against ``gq.simulate`` on random circuits of every gate kind, under controls."""
    rng = np.random.default_rng(seed)
    n = circuit.n_qubits
    v = rng.normal(size=1 << n) + 1j * rng.normal(size=1 << n)
    v /= np.linalg.norm(v)
    expected = gq.simulate(circuit, initial=v).to_numpy()
    np.testing.assert_allclose(_applied(circuit.operations, v, n), expected, atol=1e-12)


def test_dumps_writes_multi_controlled_gates_as_qiskit_reads_them():
    """OpenQASM 2.0 has names up to ``c4x``: wider multi-controlled X, Y, Z, phase and
    rotations are written as definitions of their families (``mcx_5``, ...), which Qiskit
    runs as written and genqsim reads back as the one gate."""
    c = gq.Circuit(7)
    for q in range(7):
        c.ry(0.3 + 0.1 * q, q)
    c.mcx([0, 1, 2, 3, 4], 6, control_values=[1, 0, 1, 1, 1])
    c.append(gq.gate("p", 0.7), [5], [0, 1, 2]).append("z", [0], [3, 4])
    c.append("y", [2], [1, 6]).mcx([0, 1, 2, 3, 4, 5], 6)
    c.append(gq.gate("rx", 0.4), [3], [0, 1]).append(gq.gate("ry", -0.9), [0], [6, 2, 5])
    c.append(gq.gate("rz", 1.3), [1], [3, 4, 6])
    text = gq.qasm.dumps(c)
    for name in (
        "gate mcx_5 ",
        "gate mcx_6 ",
        "gate mcphase_3(lam) ",
        "gate mcz_2 ",
        "gate mcy_2 ",
    ):
        assert name in text
    np.testing.assert_allclose(qiskit_state(text), gq.simulate(c).to_numpy(), atol=1e-12)
    back = [(op.gate.name, op.controls, op.targets) for op in gq.qasm.loads(text).operations]
    assert back[7:] == [
        ("x", (), (1,)), ("x", (0, 1, 2, 3, 4), (6,)), ("x", (), (1,)), ("p", (0, 1, 2), (5,)),
        ("z", (3, 4), (0,)), ("y", (1, 6), (2,)), ("x", (0, 1, 2, 3, 4, 5), (6,)),
        ("rx", (0, 1), (3,)), ("ry", (6, 2, 5), (0,)), ("rz", (3, 4, 6), (1,)),
    ]  # fmt: skip
    with pytest.raises(QasmError, match=r"h with 2 control\(s\) has no OpenQASM 2.0 name; Op"):
        gq.qasm.dumps(gq.Circuit(3).append("h", [0], [1, 2]))


# -- what is kept for the process by a definition's identity (genqsim.io.qasm.kept) -------------


def _gates(text: str, simple: bool = True) -> list[tuple]:
    """``(name, params, controls, targets)`` of each operation ``text`` runs."""
    c = Parser(text, exact=False, simple_statements=simple).parse()
    return [(op.gate.name, op.gate.params, op.controls, op.targets) for op in c.operations]


HEADER = 'OPENQASM 2.0;\ninclude "qelib1.inc";\n'


def test_nested_definitions_read_again_or_elsewhere_mean_what_their_file_defines():
    """``outer``'s body of constants calls the file's ``inner``: a second file with the same
    ``outer`` text but another ``inner`` runs its own ``inner``, read before or after the
    first (the kept expansion is keyed by the callees' texts too)."""
    outer = (
        "gate outer a, b { inner(pi/2) a; cx a, b; inner(0.25) b; }\n"
        "qreg q[2];\nouter q[1], q[0];\n"
    )
    with_rx = HEADER + "gate inner(t) a { rx(t) a; }\n" + outer
    with_ry = HEADER + "gate inner(t) a { ry(2*t) a; h a; }\n" + outer
    expect_rx = [("rx", (np.pi / 2,), (), (1,)), ("x", (), (1,), (0,)), ("rx", (0.25,), (), (0,))]
    expect_ry = [
        ("ry", (np.pi,), (), (1,)), ("h", (), (), (1,)), ("x", (), (1,), (0,)),
        ("ry", (0.5,), (), (0,)), ("h", (), (), (0,)),
    ]  # fmt: skip
    for _ in range(2):  # each read again, after the other
        assert _gates(with_rx) == expect_rx
        assert _gates(with_ry) == expect_ry
    assert _gates(with_ry, simple=False) == expect_ry  # the token parser agrees


def test_a_table_name_defined_after_a_body_that_calls_it_changes_that_body():
    """``foo``'s body (with a parameter: expanded when called) calls ``dcx``, the table gate
    when ``foo`` is defined; the file then defines ``dcx`` itself, so a later call of ``foo``
    runs the file's ``dcx``, while the same ``foo`` in a file without that definition runs
    the table gate, whichever file is read first."""
    foo = "gate foo(t) a, b { dcx a, b; rz(t) b; }\n"
    plain = HEADER + foo + "qreg q[2];\nfoo(0.5) q[0], q[1];\n"
    redefined = HEADER + foo + "gate dcx a, b { h a; }\nqreg q[2];\nfoo(0.5) q[0], q[1];\n"
    table = [("x", (), (0,), (1,)), ("x", (), (1,), (0,)), ("rz", (0.5,), (), (1,))]
    files = [("h", (), (), (0,)), ("rz", (0.5,), (), (1,))]
    for _ in range(2):
        assert _gates(plain) == table
        assert _gates(redefined) == files
    assert _gates(redefined, simple=False) == files


def test_a_kept_table_decision_belongs_to_the_family_that_made_it():
    """One body under three names: ``rzz`` is that table gate at every angle, ``rxx`` is not
    (its table gate acts otherwise) and ``foo`` is no candidate; each file reads as its own,
    in any order."""
    body = "(t) a, b { cx a, b; rz(t) b; cx a, b; }\n"
    call = "qreg q[2];\n{}(0.7) q[0], q[1];\n"
    for _ in range(2):
        for name in ("rzz", "rxx", "foo"):
            got = _gates(HEADER.replace('include "qelib1.inc";\n', "") + f"gate {name}{body}"
                         + call.format(name))  # fmt: skip
            if name == "rzz":
                assert got == [("rzz", (0.7,), (), (0, 1))]
            else:
                assert [g[0] for g in got] == ["x", "rz", "x"]


def test_files_read_at_once_by_threads_with_tables_that_overflow(monkeypatch):
    """Threads reading files of shared definitions at once, with each kept table holding a
    few entries (so they drop entries while others read them), read each file as one
    thread alone does."""
    import threading

    from genqsim.io.qasm import kept

    texts = [
        HEADER
        + f"gate inner(t) a {{ rx(t) a; rz({k}*t) a; }}\n"
        + "gate outer a, b { inner(pi/3) a; cx a, b; inner(0.5) b; }\n"
        + "gate ryy(t) a, b { cx a, b; rz(t) b; cx a, b; }\n"
        + f"qreg q[3];\nouter q[0], q[1];\nryy({k}) q[1], q[2];\ninner({k}) q[2];\n"
        for k in range(1, 9)
    ]
    expected = [_gates(t) for t in texts]
    monkeypatch.setattr(kept, "KEPT_MAX", 3)
    tables = [kept.DEFINITION_PARTS, kept.BODY_STATEMENTS, kept.FIXED_BODIES]
    tables += [kept.EXPANSIONS, kept.CALL_RECORDS, kept.DECISIONS]
    for table in tables:  # built again by the threads, a few entries at a time
        table.clear()
    failures: list[str] = []

    def read(order: list[int]) -> None:
        for _ in range(30):
            for i in order:
                if _gates(texts[i]) != expected[i]:
                    failures.append(f"file {i}")

    threads = [
        threading.Thread(target=read, args=(list(range(8))[s:] + list(range(8))[:s],))
        for s in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    assert all(0 < len(table) <= 3 for table in tables)


def test_an_error_in_a_kept_body_is_reported_where_this_file_has_it():
    """How a body reads is kept by its text and first column; its tokens are placed again
    at each file's own line: one definition, met earlier in another file at other lines
    and columns, reports its body's error where this file has it, as the token parser does."""
    body = "gate g(t) a {\n  rx(1/t) a;\n}\n"
    for before in ("", "\n\n// two more lines\n", "qreg r[1];\n"):
        text = HEADER + before + body + "qreg q[1];\ng(0) q[0];\n"
        with pytest.raises(QasmError) as fast:
            Parser(text, exact=False).parse()
        with pytest.raises(QasmError) as token:
            Parser(text, exact=False, simple_statements=False).parse()
        line = text.splitlines().index("  rx(1/t) a;") + 1
        assert (fast.value.line, fast.value.column) == (line, 3)
        assert (token.value.line, token.value.column) == (line, 3)
        assert "division by zero in the body of gate 'g'" in str(fast.value)
