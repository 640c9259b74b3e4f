"""An audit of the public API's errors: each bad input of the table raises a GenqsimError
that is also the matching built-in exception, with a message naming the problem, and leaves
the state it was called on exactly as it was."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import sympy

import genqsim as gq
from genqsim.circuit import channels
from genqsim.circuit.noise import NoiseModel

T = sympy.Symbol("t", real=True)


def _store_of_a_wide_register() -> object:
    """A Qiskit circuit that stores a value of 17 classical bits (a store reads at most 16:
    its table holds a value per value of them)."""
    from qiskit import QuantumCircuit
    from qiskit.circuit import ClassicalRegister
    from qiskit.circuit.classical import expr

    qc = QuantumCircuit(1)
    register = ClassicalRegister(17, "c")
    qc.add_register(register)
    qc.store(register, expr.bit_xor(register, 5))
    return qc


def fresh_state() -> gq.StateVector:
    return gq.simulate(gq.Circuit(2).h(0).cx(0, 1))


# (id, call taking a state, error class, built-in it must also be, message pattern)
CASES = [
    ("pauli lower case", lambda s: s.expectation("z0"), gq.PauliSyntaxError, ValueError,
     r"'z0' is not a Pauli factor: Pauli letters are upper case, 'Z0'"),
    ("pauli fused factors", lambda s: s.expectation("Z0Z1"), gq.PauliSyntaxError, ValueError,
     r"'Z0Z1' is not one Pauli factor: separate factors with spaces, 'Z0 Z1'"),
    ("observable of a number", lambda s: s.expectation(3), gq.ArgumentTypeError, TypeError,
     r"an observable is a Pauli-sum string, a PauliSum, a gq.Hermitian or a scipy.sparse "
     r"matrix, got 3"),
    ("gate parameter None", lambda s: gq.Circuit(1).rx(None, 0), gq.NumberTypeError, TypeError,
     r"a gate parameter must be a number or symbol, got None"),
    ("fractional qubit count", lambda s: gq.Circuit(2.5), gq.ArgumentTypeError, TypeError,
     r"n_qubits must be an integer, got 2.5"),
    ("bind a string", lambda s: gq.Circuit(1).rx(T, 0).bind({T: "abc"}), gq.NumberTypeError,
     TypeError, r"value for parameter t must be a number, got 'abc'"),
    ("negative shots", lambda s: s.sample(-1), gq.ShotsError, ValueError,
     r"shots must be a non-negative integer, got -1"),
    ("fractional shots", lambda s: s.sample(2.5), gq.ShotsError, ValueError,
     r"shots must be a non-negative integer, got 2.5"),
    ("basis bitstring digit", lambda s: gq.simulate(gq.Circuit(3), initial="012"),
     gq.ArgumentValueError, ValueError, r"a basis bitstring holds only 0 and 1, got '012'"),
    ("basis index without size", lambda s: gq.basis(5), gq.ArgumentTypeError, TypeError,
     r"basis\(index\) needs n_qubits"),
    ("qasm of a number", lambda s: gq.qasm.loads(123), gq.ArgumentTypeError, TypeError,
     r"expected OpenQASM text, got int"),
    ("empty qasm", lambda s: gq.qasm.loads("  // nothing\n"), gq.qasm.QasmError, ValueError,
     r"line \d+, column \d+: empty program"),
    ("zero threads", lambda s: gq.set_num_threads(0), gq.ThreadCountError, ValueError,
     r"thread count must be an integer in 1\.\.\d+"),
    ("state threads", lambda s: gq.simulate(gq.Circuit(1), threads=-1), gq.ThreadCountError,
     ValueError, r"threads must be a positive integer or None, got -1"),
    ("NaN amplitudes", lambda s: gq.StateVector(np.array([np.nan, 0], dtype=complex)),
     gq.NonFiniteError, ValueError, r"state amplitudes must be finite"),
    ("composite with a measurement",
     lambda s: gq.Composite("m", gq.Circuit(1).measure(0)), gq.ArgumentTypeError, TypeError,
     r"a composite gate's body holds unitary gates only; 'm' has a measure operation"),
    ("composite name not an identifier", lambda s: gq.Composite("a b", gq.Circuit(1).h(0)),
     gq.ArgumentValueError, ValueError, r"a composite gate's name is an identifier"),
    ("composite body of a string", lambda s: gq.Composite("g", "h q;"), gq.ArgumentTypeError,
     TypeError, r"a composite gate's body is a Circuit or a sequence of Operations, got str"),
    ("parameter names of a number", lambda s: gq.parameters(1), gq.ArgumentTypeError,
     TypeError, r"parameter names are a string"),
    ("library size zero", lambda s: gq.library.qft(0), gq.ArgumentValueError, ValueError,
     r"number of qubits must be an integer >= 1, got 0"),
    ("simulate a string", lambda s: gq.simulate("h q[0];"), gq.ArgumentTypeError, TypeError,
     r"simulate\(\) takes a Circuit, got str"),
    ("apply a string", lambda s: s.apply("h q[0];"), gq.ArgumentTypeError, TypeError,
     r"apply\(\) takes a Circuit, got str"),
    ("iqp of text", lambda s: gq.iqp_encode("abc"), gq.ArgumentValueError, ValueError,
     r"IQP data must be real numbers"),
    ("negative fusion width", lambda s: gq.simulate(gq.Circuit(1), fuse=-2),
     gq.ArgumentValueError, ValueError, r"fuse must be None, a bool or a non-negative int"),
    ("error bound dtype", lambda s: gq.error_bound(gq.Circuit(1).h(0), "float16"),
     gq.ArgumentValueError, ValueError, r"dtype must be 'complex64' or 'complex128'"),
    ("unknown method", lambda s: gq.simulate(gq.Circuit(1), method="mps_typo"),
     gq.UnknownMethodError, ValueError, r"unknown method 'mps_typo'"),
    ("no gpu backend holds sympy", lambda s: gq.zeros(1, numbers="sympy", backend="numba"),
     gq.UnknownBackendError, ValueError, r"backend 'numba' cannot work on sympy states"),
    ("measure a qubit twice", lambda s: s.measure([0, 0]), gq.DuplicateQubitError, ValueError,
     r"duplicate qubit"),
    ("marginal of a missing qubit", lambda s: s.probabilities([2]), gq.QubitIndexError,
     IndexError, r"qubit index 2 out of range for 2 qubits \(valid: 0\.\.1\)"),
    ("matrix of text", lambda s: s.apply_matrix("ab", 0), gq.MatrixShapeError, ValueError,
     r"1 target\(s\) need a 2x2 matrix"),
    ("compose with text", lambda s: gq.Circuit(1).compose("x"), gq.ArgumentTypeError,
     TypeError, r"can only compose with a Circuit, got str"),
    ("inverse of a measurement", lambda s: gq.Circuit(1).measure(0).inverse(),
     gq.ArgumentTypeError, TypeError, r"has no inverse"),
    ("device of a typo", lambda s: gq.simulate(gq.Circuit(1), device="tpu"),
     gq.ArgumentValueError, ValueError, r"device must be one of cpu, gpu .*got 'tpu'"),
    ("seed of text", lambda s: s.sample(10, seed="abc"), gq.ArgumentTypeError, TypeError,
     r"seed must be a non-negative integer, a sequence of them, a numpy Generator or None, "
     r"got 'abc'"),
    ("negative seed", lambda s: s.sample(10, seed=-1), gq.ArgumentValueError, ValueError,
     r"seed must be a non-negative integer, got -1"),
    ("no parameter names", lambda s: gq.parameters(""), gq.ArgumentValueError, ValueError,
     r"no parameter names given \(''\)"),
    ("parameter name of a digit", lambda s: gq.parameters("a 1abc"), gq.ArgumentValueError,
     ValueError, r"'1abc' is not a parameter name: a name is a Python identifier"),
    ("register past any circuit",
     lambda s: gq.qasm.loads("OPENQASM 2.0;\nqreg q[99999999999999999999];"),
     gq.qasm.QasmError, ValueError,
     r"line 2, column 8: register size 99999999999999999999 takes the qregs past"),
    ("circuit past any size", lambda s: gq.Circuit(10**30), gq.QubitIndexError, IndexError,
     r"is more than a circuit holds \(at most 16777216\)"),
    ("lambdify without a parameter", lambda s: gq.lambdify(sympy.cos(T), "nosuch"),
     gq.ArgumentValueError, ValueError, r"the expression depends on t, which params"),
    ("observable coefficient nan", lambda s: s.expectation("nan*Z0"), gq.NonFiniteError,
     ValueError, r"the observable has a coefficient nan .*not finite"),
    ("unnormalised initial vector",
     lambda s: gq.simulate(gq.Circuit(2).h(0), initial=[1, 1, 1, 1]), gq.NormalizationError,
     ValueError, r"the initial state has squared norm 4, not 1"),
    ("condition on a bit nothing writes",
     lambda s: gq.Circuit(2).if_([5], 1, gq.Circuit(2).x(0)), gq.QubitIndexError, IndexError,
     r"classical bit\(s\) 5 outside this circuit's register of 0 bit\(s\)"),
    ("one-qubit channel after cx",
     lambda s: NoiseModel().add_all_qubit_error(channels.depolarizing(0.1), ["cx"]),
     gq.NoiseModelError, ValueError, r"a 1-qubit channel \(depolarizing\) cannot follow cx, "
     r"which acts on 2 qubit\(s\): pass each_qubit=True"),
    ("qelib1 gate defined again",
     lambda s: gq.qasm.loads('include "qelib1.inc";\ngate rzz(t) a, b { cx a, b; }'),
     gq.qasm.QasmError, ValueError, r"line 2, column 6: gate 'rzz' is declared by qelib1.inc"),
    ("gate defined twice",
     lambda s: gq.qasm.loads("gate g a { U(0, 0, 0) a; }\ngate g a { U(0, 0, 0) a; }"),
     gq.qasm.QasmError, ValueError, r"line 2, column 6: gate 'g' is already defined \(line 1"),
    ("OpenQASM 3 subroutine",
     lambda s: gq.qasm.loads3("OPENQASM 3.0;\nqubit q;\ndef f(qubit a) { x a; }"),
     gq.qasm.QasmError, ValueError, r"line 3, column 1: subroutines \(def\) are outside"),
    ("OpenQASM 3 endless while loop",
     lambda s: gq.qasm.loads3("OPENQASM 3.0;\nqubit q;\nwhile (true) { x q; }"),
     gq.qasm.QasmError, ValueError, r"line 3, column 1: a while loop whose condition reads no"),
    ("while_ on an outside bit",
     lambda s: gq.Circuit(1).while_(0, 1, gq.Circuit(1).x(0)), gq.QubitIndexError, IndexError,
     r"classical bit\(s\) 0 outside this circuit's register"),
    ("while_ whose body measures nothing into its bits",
     lambda s: gq.Circuit(1, n_clbits=1).while_(0, 1, gq.Circuit(1).x(0)),
     gq.errors.ArgumentValueError, ValueError, r"measures or stores into none of them"),
    ("Qiskit store of a 17-bit value", lambda s: gq.from_qiskit(_store_of_a_wide_register()),
     gq.errors.ArgumentValueError, ValueError, r"'store': a store of a value that reads 17 "),
    ("OpenQASM 3 syntax error",
     lambda s: gq.qasm.loads3("OPENQASM 3.0;\nqubit q;\nh q\nx q;"), gq.qasm.QasmError,
     ValueError, r"line 4, column 1: OpenQASM 3 syntax error at 'x'"),
    ("OpenQASM 3 mixed qubits",
     lambda s: gq.qasm.loads3("OPENQASM 3.0;\nqubit[2] q;\nU(0, 0, 0) $0;"), gq.qasm.QasmError,
     ValueError, r"line 3, column 1: declared qubits and physical qubits \(\$n\) cannot be"),
    ("OpenQASM 3 condition on an imaginary number",
     lambda s: gq.qasm.loads3("OPENQASM 3.0;\nqubit q;\nbit b;\nif (b == 1.5im) { }"),
     gq.qasm.QasmError, ValueError, r"line 4, column 10: '1.5im' in a classical expression"),
    ("dumps3 of a matrix gate",
     lambda s: gq.qasm.dumps3(gq.Circuit(1).unitary([[0, 1], [1, 0]], 0)), gq.qasm.QasmError,
     ValueError, r"has no OpenQASM form \(only library gates and Pauli rotations do\)"),
    ("rule of the wrong width",
     lambda s: NoiseModel().add_error(channels.depolarizing(0.1), "h", [0, 1]),
     gq.NoiseModelError, ValueError, r"h acts on 1 qubit\(s\), but the rule names 2"),
    ("PauliSum of a dict", lambda s: gq.PauliSum({"Z0": 1.0}), gq.ArgumentTypeError, TypeError,
     r"PauliSum takes \(coefficient, pauli\) pairs, got dict .*gq.PauliSum.parse"),
    ("PauliSum term of three", lambda s: gq.PauliSum([(1.0, {0: "Z"}, 2)]),
     gq.ArgumentTypeError, TypeError, r"a PauliSum term is a \(coefficient, pauli\) pair"),
    ("PauliSum coefficient of text", lambda s: gq.PauliSum([("Z0", {0: "Z"})]),
     gq.ArgumentTypeError, TypeError, r"a PauliSum coefficient must be a number or SymPy"),
    ("PauliSum qubit of a float", lambda s: gq.PauliSum([(1.0, {0.5: "Z"})]),
     gq.PauliSyntaxError, ValueError, r"a Pauli string maps qubit indices to 'X', 'Y', 'Z'"),
    ("PauliSum negative qubit", lambda s: gq.PauliSum([(1.0, {-1: "Z"})]), gq.QubitIndexError,
     IndexError, r"qubit index -1 in a Pauli string is negative"),
    ("drawing of a typo", lambda s: gq.Circuit(1).draw("tikz"), gq.ArgumentValueError,
     ValueError, r"output must be 'text', 'mpl' or 'latex', got 'tikz'"),
    ("latex fold of text", lambda s: gq.Circuit(1).h(0).draw("latex", fold="3"),
     gq.ArgumentValueError, ValueError, r"fold must be a positive number of columns, got '3'"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "error", "builtin", "pattern"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])  # fmt: skip
def test_bad_input_raises_a_typed_error_and_leaves_the_state_alone(call, error, builtin, pattern):
    state = fresh_state()
    before = state.amplitudes.copy()
    with pytest.raises(error, match=pattern) as info:
        call(state)
    assert isinstance(info.value, gq.GenqsimError) and isinstance(info.value, builtin)
    np.testing.assert_array_equal(state.amplitudes, before)


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "genqsim", *args], capture_output=True,
                          text=True, timeout=120)  # fmt: skip


def test_command_line_errors_advise_command_line_options(tmp_path):
    out = cli("run", "qpe:2", "--numbers", "sympy", "--shots", "10")
    assert out.returncode == 2 and "--bind phi=VALUE" in out.stderr
    assert "circuit.bind" not in out.stderr
    out = cli("run", "qpe:2", "--shots", "10")
    assert out.returncode == 2 and "--bind phi=VALUE" in out.stderr
    assert "--numbers sympy" in out.stderr and "circuit.bind" not in out.stderr


def test_command_line_refuses_empty_and_binary_files(tmp_path):
    empty = tmp_path / "empty.qasm"
    empty.write_text("")
    out = cli("run", str(empty))
    assert out.returncode == 2 and "empty program" in out.stderr
    binary = tmp_path / "data.qasm"
    binary.write_bytes(b"\x00\xff\xfe binary")
    out = cli("run", str(binary))
    assert out.returncode == 2  # the file, the line and the byte named
    assert f"{binary}: line 1, column 1: not an OpenQASM text file: byte 1 is" in out.stderr


def test_an_unclosed_gate_body_is_named_where_the_error_surfaces():
    text = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ngate g a {\n  h a;\nh q[0];\n'
    with pytest.raises(gq.qasm.QasmError) as info:
        gq.qasm.loads(text)
    message = str(info.value)
    assert message.startswith("line 6, column 4: expected ';', found '['")
    assert "in the body of gate 'g' opened at line 4, column 10: is its '}' missing?" in message


def test_a_noise_rule_for_a_name_no_gate_has_warns_and_each_qubit_is_explicit():
    with pytest.warns(gq.NoiseModelWarning, match=r"no gate genqsim knows is named 'nosuchgate'"):
        NoiseModel().add_all_qubit_error(channels.depolarizing(0.1), ["nosuchgate"])
    model = NoiseModel().add_all_qubit_error(channels.bit_flip(0.1), ["cx"], each_qubit=True)
    assert model.apply(gq.Circuit(2).cx(0, 1)).count_ops() == {"cx": 1, "bit_flip": 2}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "qft:3", "--shots", "-5"], "argument --shots: must be an integer >= 0, got -5"),
        (["run", "qft:3", "--top", "0"], "argument --top: must be an integer >= 1, got 0"),
        (["run", "qft:3", "--seed", "-1"], "argument --seed: must be an integer >= 0, got -1"),
        (["run", "random:5:-1"], "'random:5:-1': DEPTH must be a non-negative integer, got '-1'"),
        (["run", "."], "'.' is a directory: give an OpenQASM or QPY file, or a built-in"),
        (["run", "qft:3", "--method", "trajectories", "--trajectories", "5"],
         "--trajectories 5: the circuit has no noise, measurements or resets"),
    ],
)  # fmt: skip
def test_command_line_names_the_flag_or_field_at_fault(argv, message, capsys):
    from genqsim.cli.main import EXIT_USAGE, main

    assert main(argv) == EXIT_USAGE
    assert message in capsys.readouterr().err
