"""Qiskit interop: states agree with Qiskit's Statevector, qubit order and symbolic
parameters survive both directions."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq

from reference import embed, random_state, reference_matrix
from strategies import random_circuit

qiskit = pytest.importorskip("qiskit")
from qiskit.circuit import Parameter  # noqa: E402
from qiskit.quantum_info import Statevector  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(random_circuit(n_max=5), st.integers(0, 2**31))
def test_to_qiskit_gives_the_same_state(circuit, seed):
    psi0 = random_state(circuit.n_qubits, np.random.default_rng(seed))
    qc = gq.to_qiskit(circuit)
    expected = Statevector(psi0).evolve(qc).data
    ours = gq.simulate(circuit, initial=psi0).amplitudes
    np.testing.assert_allclose(ours, expected, atol=1e-10)
    back = gq.from_qiskit(qc)
    np.testing.assert_allclose(gq.simulate(back, initial=psi0).amplitudes, ours, atol=1e-10)


@pytest.mark.parametrize("values", [(0, 0), (1, 0), (1, 1)])
def test_a_controlled_matrix_gate_reaches_qiskit_exactly(values):
    """Qiskit runs its own controlled ``UnitaryGate`` through a synthesised definition (4e-6
    off for this diagonal under two open controls); the export hands it the whole matrix."""
    diagonal = np.diag(np.exp(1j * np.array([0.48145631, -1.64018819, 1.99206716, -0.83326444])))
    rng = np.random.default_rng(4)
    c = gq.Circuit(4).append(gq.MatrixGate(diagonal), [0, 1], [2, 3], values)
    psi0 = random_state(4, rng)
    expected = embed(diagonal, 4, (0, 1), (2, 3), values) @ psi0
    np.testing.assert_allclose(Statevector(psi0).evolve(gq.to_qiskit(c)).data, expected,
                               atol=1e-12)  # fmt: skip
    back = gq.simulate(gq.from_qiskit(gq.to_qiskit(c)), initial=psi0).amplitudes
    np.testing.assert_allclose(back, expected, atol=1e-12)


def test_from_qiskit_keeps_order_and_parameters():
    theta = Parameter("theta")
    qc = qiskit.QuantumCircuit(3, 2)
    qc.h(0)
    qc.cx(0, 2)
    qc.rz(2 * theta + 0.5, 1)
    qc.cu(0.1, 0.2, 0.3, 0.4, 2, 1)
    qc.ccx(0, 1, 2)
    qc.measure(2, 1)
    c = gq.from_qiskit(qc)
    (sym,) = c.parameters
    assert sym.name == "theta" and sym.is_real
    assert c.n_clbits == 2
    _, terminal = c.split_terminal_measurements()
    assert terminal == [(2, 1)]
    qc.remove_final_measurements()
    expected = Statevector(qc.assign_parameters({theta: 0.37})).data
    ours = gq.simulate(c.bind({"theta": 0.37})).amplitudes
    np.testing.assert_allclose(ours, expected, atol=1e-12)


def test_to_qiskit_turns_symbols_into_parameters():
    a, b = gq.parameters("a b")
    c = gq.Circuit(2).rx(a, 0).crz(2 * a - b, 0, 1).p(a * b, 1)
    qc = gq.to_qiskit(c)
    assert sorted(p.name for p in qc.parameters) == ["a", "b"]
    values = {"a": 0.3, "b": -1.2}
    bound = qc.assign_parameters({p: values[p.name] for p in qc.parameters})
    np.testing.assert_allclose(
        gq.simulate(c.bind(values)).amplitudes, Statevector(bound).data, atol=1e-12
    )


def test_custom_qiskit_gates_are_expanded():
    sub = qiskit.QuantumCircuit(2, name="bell")
    sub.h(0)
    sub.cx(0, 1)
    qc = qiskit.QuantumCircuit(3)
    qc.append(sub.to_gate(), [2, 0])
    np.testing.assert_allclose(
        gq.simulate(gq.from_qiskit(qc)).amplitudes, Statevector(qc).data, atol=1e-12
    )


def _principal_power(u: np.ndarray, x: float) -> np.ndarray:
    values, vectors = np.linalg.eig(u)
    return vectors @ np.diag(values.astype(complex) ** x) @ np.linalg.inv(vectors)


@pytest.mark.parametrize(
    "base, modifiers, expected",
    [
        # S under one control, then inverted: a controlled S-dagger
        ("s", [("control", 1, 1), ("inverse",)], lambda u: embed(u.conj().T, 5, [4], [1])),
        # RX(0.3) raised to 2.5, then under two controls, open on the second
        ("rx", [("power", 2.5), ("control", 2, 0b01)],
         lambda u: embed(_principal_power(u, 2.5), 5, [3], [1, 4], [1, 0])),
        # inverse, an open control, then a power of the controlled gate
        ("rx", [("inverse",), ("control", 1, 0), ("power", -3)],
         lambda u: embed(np.linalg.matrix_power(u.conj().T, -3), 5, [4], [1], [0])),
    ],
)  # fmt: skip
def test_qiskit_annotated_operations_run_as_their_modifiers_say(base, modifiers, expected):
    """An ``AnnotatedOperation`` (also as QPY stores it) is its base gate under its
    modifiers in order, against a kron-built matrix of that gate; new controls come first."""
    from qiskit.circuit import AnnotatedOperation, ControlModifier, InverseModifier, PowerModifier
    from qiskit.circuit.library import RXGate, SGate

    gate, u = (SGate(), reference_matrix("s")) if base == "s" else (
        RXGate(0.3), reference_matrix("rx", (0.3,)))  # fmt: skip
    made = {
        "control": lambda k, state: ControlModifier(k, ctrl_state=state),
        "inverse": InverseModifier,
        "power": PowerModifier,
    }
    op = AnnotatedOperation(gate, [made[m[0]](*m[1:]) for m in modifiers])
    placed = [1, 4, 3][: op.num_qubits]
    qc = qiskit.QuantumCircuit(5)
    qc.append(op, placed)
    initial = random_state(5, np.random.default_rng(7))
    for read in (qc, _through_qpy(qc)):
        got = gq.simulate(gq.from_qiskit(read), initial=initial).amplitudes
        np.testing.assert_allclose(got, expected(u) @ initial, atol=1e-12)


def test_a_qiskit_clifford_runs_as_its_tableau_says():
    """A ``Clifford`` appended to a circuit runs as Qiskit's operator of its tableau."""
    from qiskit.quantum_info import Operator, random_clifford

    tableau = random_clifford(3, seed=11)
    qc = qiskit.QuantumCircuit(4)
    qc.append(tableau, [3, 0, 2])
    initial = random_state(4, np.random.default_rng(3))
    want = embed(Operator(tableau).data, 4, [3, 0, 2]) @ initial
    for read in (qc, _through_qpy(qc)):
        got = gq.simulate(gq.from_qiskit(read), initial=initial).amplitudes
        np.testing.assert_allclose(got, want, atol=1e-12)


def _through_qpy(qc):
    """``qc`` written to QPY and read back by Qiskit."""
    import io

    from qiskit import qpy

    buffer = io.BytesIO()
    qpy.dump(qc, buffer)
    buffer.seek(0)
    return qpy.load(buffer)[0]


# -- Cirq ------------------------------------------------------------------------------------------


def _bit_reversed(amplitudes: np.ndarray) -> np.ndarray:
    n = amplitudes.size.bit_length() - 1
    return amplitudes.reshape((2,) * n).transpose(range(n - 1, -1, -1)).reshape(-1)


def test_from_cirq_matches_cirq_state_vector():
    cirq = pytest.importorskip("cirq")
    q = cirq.LineQubit.range(4)
    circuit = cirq.Circuit(
        cirq.H(q[0]), cirq.CNOT(q[0], q[2]), cirq.rz(0.3)(q[1]), cirq.ISWAP(q[1], q[3]),
        cirq.X(q[2]) ** 0.37, cirq.CZ(q[0], q[3]) ** 0.5, cirq.TOFFOLI(q[0], q[1], q[2]),
        cirq.PhasedXPowGate(phase_exponent=0.2, exponent=0.7)(q[3]), cirq.SWAP(q[0], q[1]),
    )  # fmt: skip
    expected = circuit.final_state_vector(qubit_order=q, dtype=np.complex128)
    ours = gq.simulate(gq.from_cirq(circuit)).amplitudes
    np.testing.assert_allclose(_bit_reversed(ours), expected, atol=1e-7)


def test_from_cirq_keeps_the_names_of_table_gates():
    """H, CNOT, CZ, TOFFOLI, CCZ, T, S, Y, X**0.5, Z**e, Rx(t), SWAP, ISWAP, ZZ rotations come
    back as the table's gates (names and fast kernels), and the state is still Cirq's."""
    cirq = pytest.importorskip("cirq")
    a, b, c = cirq.LineQubit.range(3)
    circuit = cirq.Circuit(
        cirq.H(a), cirq.CNOT(a, b), cirq.CZ(b, c), cirq.T(c), cirq.S(a), cirq.X(b) ** 0.5,
        cirq.rx(0.3).on(c), cirq.Z(a) ** 0.37, cirq.SWAP(a, c), cirq.ISWAP(b, c),
        cirq.TOFFOLI(a, b, c), cirq.ZZPowGate(exponent=0.2, global_shift=-0.5).on(a, b),
        cirq.Y(c), cirq.CCZ(c, a, b), cirq.PhasedXPowGate(phase_exponent=0.3).on(b),
    )  # fmt: skip
    ours = gq.from_cirq(circuit)
    assert ours.count_ops() == {
        "h": 1, "cx": 1, "cz": 1, "t": 1, "s": 1, "sx": 1, "rx": 1, "p": 1, "swap": 1,
        "iswap": 1, "ccx": 1, "rzz": 1, "y": 1, "ccz": 1, "unitary": 1,
    }  # fmt: skip
    expected = cirq.Simulator(dtype=np.complex128).simulate(circuit).final_state_vector
    np.testing.assert_allclose(_bit_reversed(gq.simulate(ours).amplitudes), expected, atol=1e-12)


def test_from_cirq_keeps_symbols():
    cirq = pytest.importorskip("cirq")
    import sympy

    a, t = sympy.Symbol("a"), sympy.Symbol("t")
    q = cirq.LineQubit.range(2)
    circuit = cirq.Circuit(
        cirq.rx(a)(q[0]), cirq.CNOT(q[0], q[1]), cirq.Z(q[1]) ** t, cirq.X(q[0]) ** t,
        cirq.CZ(q[0], q[1]) ** t, cirq.CNOT(q[1], q[0]) ** t, cirq.measure(*q, key="m"),
    )  # fmt: skip
    c = gq.from_cirq(circuit)
    assert {str(p) for p in c.parameters} == {"a", "t"}
    assert all(p.is_real for p in c.parameters)
    values = {"a": 0.8, "t": 0.3}
    resolved = cirq.resolve_parameters(circuit[:-1], values)
    expected = resolved.final_state_vector(qubit_order=q, dtype=np.complex128)
    ours = gq.simulate(c.bind(values)).amplitudes
    np.testing.assert_allclose(_bit_reversed(ours), expected, atol=1e-7)
    assert c.split_terminal_measurements()[1] == [(0, 0), (1, 1)]


def _cirq_state(cirq_circuit, n: int, psi0: np.ndarray) -> np.ndarray:
    """Cirq's final state from ``psi0``, as a genqsim array (Cirq's first qubit is the most
    significant bit, genqsim's qubit 0 the least)."""
    import cirq

    def flip(v: np.ndarray) -> np.ndarray:
        return v.reshape((2,) * n).transpose(tuple(reversed(range(n)))).reshape(-1)

    result = cirq.Simulator(dtype=np.complex128).simulate(
        cirq_circuit, qubit_order=cirq.LineQubit.range(n), initial_state=flip(psi0)
    )
    return flip(result.final_state_vector)


@settings(max_examples=40, deadline=None)
@given(random_circuit(n_max=5), st.integers(0, 2**31))
def test_to_cirq_gives_the_same_state_global_phase_included(circuit, seed):
    pytest.importorskip("cirq")
    psi0 = random_state(circuit.n_qubits, np.random.default_rng(seed))
    expected = _cirq_state(gq.to_cirq(circuit), circuit.n_qubits, psi0)
    ours = gq.simulate(circuit, initial=psi0).amplitudes
    np.testing.assert_allclose(ours, expected, atol=1e-10)
    back = gq.from_cirq(gq.to_cirq(circuit))
    if back.n_qubits == circuit.n_qubits:  # Cirq drops qubits no operation touches
        np.testing.assert_allclose(gq.simulate(back, initial=psi0).amplitudes, ours, atol=1e-10)


def test_to_cirq_keeps_symbols_and_every_table_gate():
    cirq = pytest.importorskip("cirq")
    import sympy

    a, b = gq.parameters("a b")
    c = gq.Circuit(3)
    for name, spec in gq.gates.GATE_SPECS.items():
        params = (a, b, 0.25)[: min(spec.n_params)] if name == "u" else (a,) * min(spec.n_params)
        c.append(gq.gate(name, *params), [0, 2][: spec.n_qubits] if spec.n_qubits > 1 else [1])
        c.append(gq.gate(name, *params), [2, 1][: spec.n_qubits] if spec.n_qubits > 1 else [2],
                 controls=[0], control_values=[0])  # fmt: skip
    c.pauli_rotation("XZY", b, [0, 1, 2]).h(1)
    cc = gq.to_cirq(c)
    assert cirq.is_parameterized(cc)
    values = {"a": 0.37, "b": -1.21}
    resolved = cirq.resolve_parameters(cc, {sympy.Symbol(k): v for k, v in values.items()})
    psi0 = random_state(3, np.random.default_rng(7))
    expected = _cirq_state(resolved, 3, psi0)
    ours = gq.simulate(c.bind(values), initial=psi0).amplitudes
    np.testing.assert_allclose(ours, expected, atol=1e-10)


def test_to_cirq_measurements_resets_and_errors():
    cirq = pytest.importorskip("cirq")
    cc = gq.to_cirq(gq.Circuit(2).h(0).measure(0, 1).reset(0).barrier().x(1))
    assert [str(k) for k in cirq.measurement_key_names(cc)] == ["c1"]
    assert any(isinstance(op.gate, cirq.ResetChannel) for op in cc.all_operations())
    with pytest.raises(ValueError, match="free parameters has no Cirq form"):
        gq.to_cirq(gq.Circuit(1).unitary([[1, 0], [0, sympy_exp_i()]], 0, check_unitary=False))
    with pytest.raises(TypeError, match="to_cirq\\(\\) takes a Circuit"):
        gq.to_cirq("h q[0];")


def sympy_exp_i():
    import sympy

    return sympy.exp(sympy.I * sympy.Symbol("t", real=True))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_control_and_power_equal_qiskits(seed):
    """Circuit.control(k) and Circuit.power(x) against Qiskit's QuantumCircuit.control and
    .power (matrix_power=True for fractional exponents), compared as Operators."""
    from qiskit.quantum_info import Operator

    c = gq.library.random_circuit(3, 4, seed=seed)
    qc = gq.to_qiskit(c)
    for k, values, state in [(1, None, None), (2, None, None), (2, [1, 0], 1)]:
        ours = gq.unitary(c.control(k, control_values=values))
        theirs = Operator(qc.control(k, ctrl_state=state, annotated=False)).data
        np.testing.assert_allclose(ours, theirs, atol=1e-12)
    for x in (3, -2, 0, 0.5, -1.3, 2.7):
        ours = gq.unitary(c.power(x))
        theirs = Operator(qc.power(x, matrix_power=True)).data
        np.testing.assert_allclose(ours, theirs, atol=1e-11)


def test_power_keeps_symbols_for_integer_exponents_and_refuses_what_it_cannot_raise():
    (t,) = gq.parameters("t")
    c = gq.Circuit(1).rx(t, 0)
    assert c.power(3).count_ops() == {"rx": 3} and c.power(-1).operations[0].gate.params == (-t,)
    with pytest.raises(gq.UnboundParameterError, match="bind its parameters"):
        c.power(0.5)
    with pytest.raises(gq.ArgumentTypeError, match="a circuit power is a real number"):
        c.power(1j)
    with pytest.raises(gq.ArgumentTypeError, match="no power"):
        gq.Circuit(1).measure(0).power(2)
    with pytest.raises(gq.ArgumentValueError, match="n_controls must be an integer >= 1"):
        c.control(0)


def test_expectation_broadcasts_parameter_arrays_as_qiskits_estimator():
    """values={a: (3, 1) array, b: (1, 4) array} gives the (3, 4) grid Qiskit's
    StatevectorEstimator gives for the same bindings; several observables add a last axis."""
    from qiskit.primitives import StatevectorEstimator
    from qiskit.quantum_info import SparsePauliOp

    a, b = gq.parameters("a b")
    c = gq.Circuit(2).ry(a, 0).cx(0, 1).rz(b, 1).rx(a * 0.5, 1)
    qc = gq.to_qiskit(c)
    grid_a = np.linspace(-1, 2, 3)[:, None]
    grid_b = np.linspace(0, 3, 4)[None, :]
    ours = gq.expectation(c, ["Z0 Z1", "0.5*X1 + Y1"], values={a: grid_a, b: grid_b})
    assert ours.shape == (3, 4, 2)
    names = [p.name for p in qc.parameters]  # Qiskit orders parameters by name
    point = {"a": np.broadcast_to(grid_a, (3, 4)), "b": np.broadcast_to(grid_b, (3, 4))}
    bindings = np.stack([point[n] for n in names], axis=-1)
    for k, label in enumerate([[("ZZ", 1.0)], [("XI", 0.5), ("YI", 1.0)]]):
        op = SparsePauliOp.from_list(label)
        evs = StatevectorEstimator().run([(qc, op, bindings)]).result()[0].data.evs
        assert evs.shape == (3, 4)
        np.testing.assert_allclose(ours[..., k], evs, atol=1e-12)
    # a scalar beside an array, and one observable: the array's shape
    line = gq.expectation(c, "Z0 Z1", values={a: [0.1, 0.2, 0.3], b: 0.7})
    assert line.shape == (3,)
    assert line[1] == pytest.approx(gq.expectation(c, "Z0 Z1", values={a: 0.2, b: 0.7}))
    with pytest.raises(gq.ArgumentValueError, match="do not broadcast together"):
        gq.expectation(c, "Z0", values={a: [1, 2, 3], b: [1, 2]})


def test_probabilities_broadcast_parameter_arrays_as_qiskits_statevector():
    """gq.probabilities(values={a: (3, 1), b: (1, 4)}) is the (3, 4, 2**k) grid of Qiskit's
    Statevector.probabilities at each binding; terminal measurements leave it as it is, a
    thread pool gives the same grid, and symbolic numbers give exact objects."""
    from concurrent.futures import ThreadPoolExecutor

    from qiskit.quantum_info import Statevector

    a, b = gq.parameters("a b")
    c = gq.Circuit(3, n_clbits=3).ry(a, 0).cx(0, 1).rz(b, 1).rx(a * 0.5, 2).h(1).measure(1, 0)
    qc = gq.to_qiskit(gq.Circuit(3, c.operations[:-1]))
    grid_a, grid_b = np.linspace(-1, 2, 3)[:, None], np.linspace(0, 3, 4)[None, :]
    for qubits in (None, [2, 0]):
        ours = gq.probabilities(c, qubits, values={a: grid_a, b: grid_b})
        assert ours.shape == (3, 4, 8 if qubits is None else 4) and ours.dtype == np.float64
        for i, j in np.ndindex(3, 4):
            bound = qc.assign_parameters({"a": grid_a[i, 0], "b": grid_b[0, j]}, strict=False)
            theirs = Statevector(bound).probabilities(qubits)
            np.testing.assert_allclose(ours[i, j], theirs, atol=1e-12)
    with ThreadPoolExecutor(2) as pool:
        pooled = gq.probabilities(c, values={a: grid_a, b: grid_b}, executor=pool, chunk_size=5)
    swept = gq.probabilities(c, values={a: grid_a, b: grid_b})  # one plan: the same to rounding
    np.testing.assert_allclose(pooled, swept, rtol=0, atol=1e-15)
    exact = gq.probabilities(gq.Circuit(1).ry(a, 0), numbers="sympy", values={a: [0, b]})
    assert exact.dtype == object and exact.shape == (2, 2)
    assert sympy.simplify(exact[1, 1] - sympy.sin(b / 2) ** 2) == 0 and exact[0, 0] == 1


def _evolution_reference(labels, coefficients, time, n):
    """exp(-i t H) by scipy's expm of a kron-built H (label letter i acts on qubit n-1-i)."""
    from scipy.linalg import expm

    pauli = {"I": np.eye(2), "X": np.array([[0, 1], [1, 0]]),
             "Y": np.array([[0, -1j], [1j, 0]]), "Z": np.diag([1.0, -1.0])}  # fmt: skip
    h = sum(c * np.array(functools.reduce(np.kron, [pauli[x] for x in label]), complex)
            for label, c in zip(labels, coefficients))  # fmt: skip
    return expm(-1j * time * h)


def test_a_pauli_evolution_of_non_commuting_terms_is_its_exact_exponential():
    """Qiskit's ``PauliEvolutionGate`` is ``exp(-i t H)``, as Qiskit's ``Statevector`` applies
    it (its definition is a one-step product formula): for numeric and parameter times, for
    an operator given as a list and as a ``SparseObservable``, against scipy's ``expm``."""
    from qiskit.circuit.library import PauliEvolutionGate
    from qiskit.quantum_info import SparseObservable, SparsePauliOp

    labels, coefficients = ["XZI", "ZZY", "IYX"], [0.5, 0.2, -0.7]
    h = SparsePauliOp(labels, coefficients)
    initial = random_state(4, np.random.default_rng(2))
    t = Parameter("t")
    for operator in (h, [h[:2], h[2:]], SparseObservable.from_sparse_pauli_op(h)):
        for time in (0.8, 2 * t):
            qc = qiskit.QuantumCircuit(4)
            qc.append(PauliEvolutionGate(operator, time=time), [3, 0, 2])
            circuit = gq.from_qiskit(qc)
            assert [str(p) for p in circuit.parameters] == ([] if time == 0.8 else ["t"])
            ran = circuit.bind({"t": 0.4}) if circuit.parameters else circuit
            want = embed(_evolution_reference(labels, coefficients, 0.8, 3), 4, [3, 0, 2])
            got = gq.simulate(ran, initial=initial).amplitudes
            np.testing.assert_allclose(got, want @ initial, atol=1e-12)


def test_a_pauli_evolution_of_commuting_terms_keeps_its_definition_and_a_wide_one_warns():
    from qiskit.circuit.library import PauliEvolutionGate
    from qiskit.quantum_info import SparsePauliOp

    commuting = qiskit.QuantumCircuit(3)
    commuting.append(PauliEvolutionGate(SparsePauliOp(["ZZI", "IZZ", "XXX"], [0.3, 0.5, 0.2]),
                                        time=Parameter("t")), [0, 1, 2])  # fmt: skip
    circuit = gq.from_qiskit(commuting)
    assert circuit.instructions[0].gate.name == "PauliEvolution"  # the definition, a composite
    np.testing.assert_allclose(
        gq.unitary(circuit.bind({"t": 1.3})),
        _evolution_reference(["ZZI", "IZZ", "XXX"], [0.3, 0.5, 0.2], 1.3, 3),
        atol=1e-12,
    )
    n = gq.io.interop.EXACT_EVOLUTION_MAX_QUBITS + 1
    wide = qiskit.QuantumCircuit(n)
    wide.append(PauliEvolutionGate(SparsePauliOp(["X" * n, "Z" + "I" * (n - 1)], [0.4, 0.9]),
                                   time=0.5), range(n))  # fmt: skip
    with pytest.warns(gq.ProductFormulaWarning, match=f"on {n} qubits runs as its product"):
        circuit = gq.from_qiskit(wide)
    theirs = Statevector(wide.decompose(reps=3)).data  # Qiskit's product formula
    np.testing.assert_allclose(gq.simulate(circuit).amplitudes, theirs, atol=1e-12)


def test_noise_instructions_in_a_qiskit_circuit_run_as_qiskits_density_matrix_evolves_them():
    """Aer's ``QuantumError`` and quantum_info's ``Kraus`` appended to a circuit (as Aer runs
    them) are channels: genqsim's density matrix equals Qiskit's ``DensityMatrix`` of the
    circuit."""
    from qiskit.quantum_info import DensityMatrix, Kraus

    aer_noise = pytest.importorskip("qiskit_aer.noise")
    qc = qiskit.QuantumCircuit(3)
    qc.h(0)
    qc.ry(0.8, 2)
    qc.append(aer_noise.depolarizing_error(0.3, 1), [0])
    qc.cx(0, 1)
    qc.append(aer_noise.amplitude_damping_error(0.4), [1])
    qc.append(aer_noise.pauli_error([("XZ", 0.25), ("II", 0.75)]), [2, 0])
    damp = [np.diag([1, np.sqrt(0.5)]), np.array([[0, np.sqrt(0.5)], [0, 0]])]
    qc.append(Kraus([np.kron(k, np.eye(2)) for k in damp]), [0, 2])  # damps qubit 2
    ours = gq.simulate(gq.from_qiskit(qc), method="density_matrix").to_numpy()
    np.testing.assert_allclose(ours, DensityMatrix(qc).data, atol=1e-12)
