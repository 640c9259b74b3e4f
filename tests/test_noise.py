"""Density matrices, noise channels, trajectories and classically controlled operations,
against independent references: dense Kraus sums built with np.kron, closed forms, Qiskit
Aer, and the density matrix itself for trajectory averages."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim.circuit import channels
from genqsim.circuit.noise import NoiseModel, ReadoutError

from reference import embed
from strategies import random_circuit

HERE = Path(__file__).parent
CONDITIONAL = sorted((HERE / "qasm" / "conditional").glob("*.qasm"))

ONE_QUBIT = [
    channels.depolarizing(0.13),
    channels.bit_flip(0.2),
    channels.phase_flip(0.3),
    channels.bit_phase_flip(0.15),
    channels.pauli_channel(0.05, 0.1, 0.2),
    channels.amplitude_damping(0.35),
    channels.generalized_amplitude_damping(0.3, 0.4),
    channels.phase_damping(0.45),
    channels.thermal_relaxation(50.0, 70.0, 12.0),
    channels.reset_error(0.2, 0.1),
]


def _kraus_reference(channel, n, targets, rho):
    """sum_k K rho K^dagger with each K embedded densely (np.kron) on ``targets``."""
    out = np.zeros_like(rho)
    for k in channel.kraus("complex128"):
        full = embed(k, n, targets)
        out = out + full @ rho @ full.conj().T
    return out


def _random_rho(n, rng):
    a = rng.normal(size=(2**n, 2**n)) + 1j * rng.normal(size=(2**n, 2**n))
    rho = a @ a.conj().T
    return rho / np.trace(rho)


# -- channels ------------------------------------------------------------------------------------


@pytest.mark.parametrize("channel", ONE_QUBIT, ids=lambda c: c.name)
def test_one_qubit_channels_on_every_placement(channel):
    rng = np.random.default_rng(1)
    n = 3
    rho0 = _random_rho(n, rng)
    for q in range(n):
        c = gq.Circuit(n).channel(channel, q)
        rho = gq.simulate(c, method="density_matrix", initial=rho0)
        np.testing.assert_allclose(
            rho.to_numpy(), _kraus_reference(channel, n, (q,), rho0), atol=1e-13
        )


def test_two_qubit_channels_on_every_ordered_pair():
    rng = np.random.default_rng(2)
    n = 4
    rho0 = _random_rho(n, rng)
    general = channels.kraus([np.sqrt(0.7) * np.eye(4), np.sqrt(0.3) * np.kron(
        np.array([[0, 1], [1, 0]]), np.array([[1, 0], [0, -1j]]))])  # fmt: skip
    for channel in (channels.depolarizing(0.21, 2), general):
        for pair in itertools.permutations(range(n), 2):
            c = gq.Circuit(n).channel(channel, pair)
            rho = gq.simulate(c, method="density_matrix", initial=rho0)
            np.testing.assert_allclose(
                rho.to_numpy(), _kraus_reference(channel, n, pair, rho0), atol=1e-13
            )


@pytest.mark.parametrize(
    "make",
    [
        lambda p: channels.depolarizing(p),
        lambda p: channels.amplitude_damping(p),
        lambda p: channels.phase_damping(p),
        lambda p: channels.generalized_amplitude_damping(sympy.Rational(1, 3), p),
        lambda p: channels.depolarizing(p, 2),
    ],
    ids=["depolarizing", "amplitude_damping", "phase_damping", "gad", "depolarizing2"],
)
def test_exact_sympy_channels_match_kraus_sums(make):
    p = sympy.Rational(1, 5)
    channel = make(p)
    n = channel.n_qubits + 1
    psi = np.array([sympy.Rational(1, 2), sympy.I / 2, -sympy.Rational(1, 2), sympy.I / 2] * (
        2 ** (n - 2)), dtype=object)[: 2**n] / sympy.sqrt(2 ** (n - 2))  # fmt: skip
    rho0 = np.outer(psi, np.conj(psi))
    for targets in itertools.permutations(range(n), channel.n_qubits):
        rho = gq.simulate(
            gq.Circuit(n).channel(channel, targets), method="density_matrix", numbers="sympy",
            initial=rho0,
        )  # fmt: skip
        expected = np.zeros((2**n, 2**n), dtype=object)
        for k in channel.kraus("sympy"):
            full = embed(k, n, targets, exact=True)
            expected = expected + full.dot(rho0).dot(np.conj(full).T)
        diff = [sympy.simplify(a - b) for a, b in zip(rho.to_numpy().ravel(), expected.ravel())]
        assert all(d == 0 for d in diff)


def test_kraus_channels_are_checked_trace_preserving():
    with pytest.raises(gq.NotTracePreservingError, match="trace preserving"):
        channels.kraus([np.eye(2) * 0.9])
    t = sympy.Symbol("t", real=True)
    channels.kraus([np.array([[1, 0], [0, sympy.cos(t)]], dtype=object)])  # symbolic: accepted
    assert channels.kraus([np.eye(2) * 0.9], check_trace=False).n_qubits == 1


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: channels.depolarizing(1.5), "not a probability"),
        (lambda: channels.pauli_channel(0.5, 0.4, 0.3), "exceeds 1"),
        (lambda: channels.thermal_relaxation(10, 30, 1), "exceeds 2 T1"),
        (lambda: channels.thermal_relaxation(-1, 1, 1), "T1 must be positive"),
        (lambda: channels.depolarizing(0.1, 3), "1 or 2 qubits"),
    ],
)
def test_channel_parameters_are_checked(make, message):
    with pytest.raises(gq.GenqsimError, match=message):
        make()


def test_channels_cannot_be_controlled_or_inverted():
    c = gq.Circuit(2).depolarizing(0.1, 0)
    with pytest.raises(gq.ArgumentTypeError, match="cannot be controlled"):
        gq.Circuit(2).append(channels.depolarizing(0.1), 0, controls=1)
    with pytest.raises(gq.ArgumentTypeError, match="no inverse"):
        c.inverse()


# -- density matrices ----------------------------------------------------------------------------


_X_TIMES_S_DAGGER = np.kron(np.array([[0, 1], [1, 0]]), np.array([[1, 0], [0, -1j]]))
TWO_QUBIT = [
    channels.depolarizing(0.21, 2),
    channels.kraus([np.sqrt(0.6) * np.eye(4), np.sqrt(0.4) * _X_TIMES_S_DAGGER]),
]


@st.composite
def noisy_circuits(draw):
    base = draw(random_circuit(n_min=1, n_max=4))
    n = base.n_qubits
    out = gq.Circuit(n)
    for op in base.operations:
        out.append(op.gate, op.targets, op.controls, op.control_values)
        if draw(st.booleans()):
            channel = draw(st.sampled_from(ONE_QUBIT + (TWO_QUBIT if n > 1 else [])))
            qubits = draw(st.permutations(range(n)))[: channel.n_qubits]
            out.channel(channel, qubits)
    return out


def _dense_reference(circuit):
    n = circuit.n_qubits
    rho = np.zeros((2**n, 2**n), dtype=complex)
    rho[0, 0] = 1
    for op in circuit.operations:
        if op.kind is gq.GateKind.CHANNEL:
            rho = _kraus_reference(op.gate, n, op.targets, rho)
        else:
            u = embed(op.gate.matrix(), n, op.targets, op.controls, op.control_values)
            rho = u @ rho @ u.conj().T
    return rho


@settings(max_examples=60, deadline=None)
@given(noisy_circuits(), st.sampled_from(["numpy", None]), st.sampled_from([None, False, 1, 2]))
def test_density_matrix_matches_dense_kraus_construction(circuit, backend, fuse):
    """Plain doubling (fuse=False) and fused superoperators of every width agree with
    sum_k K rho K^dagger built densely."""
    rho = gq.simulate(circuit, method="density_matrix", backend=backend, fuse=fuse)
    np.testing.assert_allclose(rho.to_numpy(), _dense_reference(circuit), atol=1e-12)
    probs = np.real(np.diag(_dense_reference(circuit)))
    np.testing.assert_allclose(rho.probabilities(), probs, atol=1e-12)


def test_gates_and_their_noise_fuse_into_one_superoperator_per_block():
    """A gate, its conjugate and the channel after it are one pass over vec(rho); a CX with
    two-qubit depolarizing noise is one sparse superoperator; measurements stay apart."""
    from genqsim.numbers import get_number_system
    from genqsim.states.doubling import doubled_circuit

    c = (
        gq.Circuit(3)
        .u(0.3, 0.2, 0.1, 0)
        .depolarizing(0.01, 0)
        .cx(0, 1)
        .depolarizing(0.02, 0, 1)
        .measure(2, 0)
        .h(2)
    )
    doubled = doubled_circuit(c, get_number_system("complex128"), None)
    shapes = [(op.gate.name, op.qubits) for op in doubled.operations]
    assert shapes == [  # the measurement on qubit 2 commutes with the open block on 0, 1
        ("superoperator", (0, 3)),
        ("barrier", (2, 5)),
        ("measure", (2,)),
        ("superoperator", (0, 1, 3, 4)),
        ("superoperator", (2, 5)),
    ]
    noisy_cx = doubled.operations[3].gate.matrix()
    assert np.count_nonzero(noisy_cx) == 28  # 4 populations mix, 12 entries scale
    assert [op.kind for op in doubled_circuit(c, get_number_system("sympy"), None).operations][
        :2
    ] == [gq.GateKind.DENSE, gq.GateKind.DENSE]  # symbolic: the plain doubling, U then conj(U)


@settings(max_examples=15, deadline=None)
@given(noisy_circuits(), st.integers(0, 2**32 - 1))
def test_density_matrix_expectations_match_trace(circuit, seed):
    rng = np.random.default_rng(seed)
    n = circuit.n_qubits
    word = "".join(rng.choice(list("IXYZ"), size=n))
    obs = gq.PauliSum.coerce(" ".join(f"{p}{q}" for q, p in enumerate(word) if p != "I") or "1")
    matrix = np.eye(1)
    for letter in word:  # qubit 0 is the lowest bit: kron(new, out)
        pauli = {
            "I": np.eye(2),
            "X": [[0, 1], [1, 0]],
            "Y": [[0, -1j], [1j, 0]],
            "Z": [[1, 0], [0, -1]],
        }
        matrix = np.kron(np.array(pauli[letter]), matrix)
    expected = np.trace(_dense_reference(circuit) @ matrix).real
    value = gq.simulate(circuit, method="density_matrix").expectation(obs)
    assert value == pytest.approx(expected, abs=1e-12)


def test_density_matrix_agrees_with_aer_density_matrix_method():
    aer = pytest.importorskip("qiskit_aer")
    from qiskit import transpile

    rng = np.random.default_rng(5)
    n = 4
    model = NoiseModel()
    aer_model = aer.noise.NoiseModel()
    one = aer.noise.depolarizing_error(0.06, 1).compose(aer.noise.amplitude_damping_error(0.1))
    two = aer.noise.depolarizing_error(0.08, 2)
    aer_model.add_all_qubit_quantum_error(one, ["h", "rx", "rz"])
    aer_model.add_all_qubit_quantum_error(two, ["cx"])
    model = NoiseModel.from_aer(aer_model)
    for _ in range(5):
        c = gq.Circuit(n)
        for _ in range(12):
            kind = rng.integers(3)
            q = int(rng.integers(n))
            if kind == 0:
                c.h(q)
            elif kind == 1:
                c.rx(float(rng.uniform(0, 6)), q).rz(float(rng.uniform(0, 6)), q)
            else:
                c.cx(q, int((q + 1 + rng.integers(n - 1)) % n))
        ours = gq.simulate(model.apply(c), method="density_matrix").to_numpy()
        qc = gq.to_qiskit(c)
        qc.save_density_matrix()
        sim = aer.AerSimulator(method="density_matrix", noise_model=aer_model)
        theirs = np.asarray(sim.run(transpile(qc, sim, optimization_level=0)).result().data()[
            "density_matrix"])  # fmt: skip
        np.testing.assert_allclose(ours, theirs, atol=1e-10)


def test_depolarizing_closed_form_and_its_gradient():
    theta, p = gq.parameters("theta p")
    c = gq.Circuit(1).ry(theta, 0).depolarizing(p, 0)
    value = gq.simulate(c, method="density_matrix", numbers="sympy").expectation("Z0")
    assert sympy.simplify(value - (1 - 4 * p / 3) * sympy.cos(theta)) == 0
    at = {theta: 0.7, p: 0.05}
    grads = gq.gradient(c, "Z0", at)
    assert grads[p] == pytest.approx(-4 / 3 * np.cos(0.7), abs=1e-12)
    assert grads[theta] == pytest.approx(-(1 - 4 * 0.05 / 3) * np.sin(0.7), abs=1e-12)
    at0 = {theta: 0.7, p: 0.0}  # at zero noise: the derivative exists (no sqrt(p) in the way)
    assert gq.gradient(c, "Z0", at0)[p] == pytest.approx(-4 / 3 * np.cos(0.7), abs=1e-12)


def test_noisy_ghz_fidelity_in_closed_form():
    p = gq.parameters("p")[0]
    c = gq.Circuit(3).h(0).cx(0, 1).cx(1, 2)
    for q in range(3):
        c.depolarizing(p, q)
    rho = gq.simulate(c, method="density_matrix", numbers="sympy")
    ghz = gq.simulate(gq.Circuit(3).h(0).cx(0, 1).cx(1, 2), numbers="sympy")
    fidelity = sympy.factor(sympy.simplify(rho.fidelity(ghz)))
    # each qubit: no error with 1-p; X or Y flips the GHZ parity, Z flips its phase: only
    # an even number of Z-type errors (Z, Y count as phase flips) keeps the state
    for value in (0.0, 0.1, 0.3):
        numeric = gq.simulate(c.bind({p: value}), method="density_matrix").fidelity(
            gq.simulate(gq.Circuit(3).h(0).cx(0, 1).cx(1, 2))
        )
        assert float(fidelity.subs(p, value)) == pytest.approx(numeric, abs=1e-12)
    assert fidelity.subs(p, 0) == 1


def test_dual_and_uncertain_noise_rates():
    uncertainties = pytest.importorskip("uncertainties")
    t1 = uncertainties.ufloat(50.0, 5.0)
    c = gq.Circuit(1).x(0).thermal_relaxation(t1, 70.0, 10.0, 0)
    value = gq.simulate(c, method="density_matrix", numbers="uncertain").expectation("Z0")
    # <Z> = 1 - 2 exp(-t/T1): d<Z>/dT1 = -2 exp(-t/T1) t / T1**2
    assert value.nominal_value == pytest.approx(1 - 2 * np.exp(-10 / 50), abs=1e-12)
    slope = -2 * np.exp(-10 / 50) * 10 / 50**2
    assert value.std_dev == pytest.approx(abs(slope) * 5.0, rel=1e-9)
    balls = gq.simulate(
        gq.Circuit(1).h(0).depolarizing(0.1, 0), method="density_matrix", numbers="ball"
    ).expectation("X0")
    import flint

    assert (flint.arb(13) / 15) in balls  # the exact 1 - 4p/3 at p = 1/10


def test_density_matrix_tools_against_closed_forms():
    bell = gq.simulate(gq.Circuit(2).h(0).cx(0, 1))
    rho = gq.DensityMatrix.from_statevector(bell)
    assert rho.purity() == pytest.approx(1.0)
    assert rho.entropy() == pytest.approx(0.0, abs=1e-12)
    half = rho.reduced_density_matrix([1])
    np.testing.assert_allclose(half.to_numpy(), np.eye(2) / 2, atol=1e-15)
    assert half.entropy() == pytest.approx(1.0)
    assert half.purity() == pytest.approx(0.5)
    assert rho.fidelity(bell) == pytest.approx(1.0)
    mixed = gq.DensityMatrix(np.eye(8) / 8)
    assert mixed.entropy() == pytest.approx(3.0)
    # Uhlmann fidelity of two commuting diagonal states: (sum sqrt(p q))**2
    a = gq.DensityMatrix(np.diag([0.7, 0.3]))
    b = gq.DensityMatrix(np.diag([0.2, 0.8]))
    assert a.fidelity(b) == pytest.approx((np.sqrt(0.14) + np.sqrt(0.24)) ** 2)
    # a 3-qubit reduction keeps qubit order: qubits [2, 0] of |q2 q1 q0> = |1 0 1>
    basis = gq.simulate(gq.Circuit(3), method="density_matrix", initial="101")
    assert basis.reduced_density_matrix([2, 0]).probabilities().tolist() == [0, 0, 0, 1]
    assert basis.reduced_density_matrix([1, 0]).probabilities().tolist() == [0, 0, 1, 0]


def test_density_matrix_measure_and_sample():
    rho = gq.simulate(gq.Circuit(2).h(0).cx(0, 1).depolarizing(0.2, 0), method="density_matrix")
    counts = rho.sample(4000, seed=3)
    assert set(counts) <= {"00", "01", "10", "11"}
    outcome = rho.measure([0], seed=4)
    p = rho.probabilities([0])
    assert p[int(outcome)] == pytest.approx(1.0)
    assert rho.trace() == pytest.approx(1.0)


def test_bad_input_leaves_density_matrix_untouched():
    rho = gq.simulate(gq.Circuit(2).h(0), method="density_matrix")
    before = rho.to_numpy()
    with pytest.raises(gq.UnboundParameterError):
        rho.apply(gq.Circuit(2).x(1).rx(gq.parameters("a")[0], 0))
    with pytest.raises(gq.QubitCountMismatchError):
        rho.apply(gq.Circuit(3).x(0))
    np.testing.assert_array_equal(rho.to_numpy(), before)
    with pytest.raises(gq.MatrixShapeError):
        gq.DensityMatrix(np.eye(3))


# -- trajectories --------------------------------------------------------------------------------


def test_trajectory_averages_within_five_standard_errors():
    c = gq.Circuit(3).h(0).cx(0, 1).cx(1, 2).ry(0.4, 2)
    c.depolarizing(0.1, 0).amplitude_damping(0.3, 1).depolarizing(0.05, 1, 2)
    c.thermal_relaxation(40.0, 60.0, 8.0, 2).reset_error(0.05, 0.02, 0)
    exact = gq.simulate(c, method="density_matrix")
    state = gq.simulate(c, method="trajectories", trajectories=3000, seed=11)
    for obs in ("Z0 Z1", "X0 X1 X2", "Z2", "0.5*Y0 Y1 + Z1"):
        estimate = state.estimate(obs)
        assert abs(estimate.mean - exact.expectation(obs)) <= 5 * estimate.stderr + 1e-12
    p = state.probabilities()
    np.testing.assert_allclose(p, exact.probabilities(), atol=5 * np.sqrt(0.25 / 3000))
    again = gq.simulate(c, method="trajectories", trajectories=3000, seed=11)
    assert again.expectation("Z0 Z1") == state.expectation("Z0 Z1")  # seeded


def test_symbolic_noise_on_a_state_vector_is_refused_clearly():
    p = gq.parameters("p")[0]
    with pytest.raises(gq.NotNumericError, match="density_matrix"):
        gq.simulate(gq.Circuit(1).depolarizing(p, 0), numbers="sympy", method="statevector")
    auto = gq.simulate(gq.Circuit(1).depolarizing(p, 0), numbers="sympy")  # exact channels
    assert auto.method == "density_matrix"
    assert gq.simplify(auto.probabilities()[1] - 2 * p / 3) == 0


# -- classically controlled operations ------------------------------------------------------------


def test_if_runs_on_matching_bits_only():
    c = gq.Circuit(2).x(0).measure(0, 0).if_(0, 1, gq.Circuit(2).x(1)).if_(0, 0, gq.Circuit(2).h(1))
    psi = gq.simulate(c, seed=1)
    assert psi.clbits == {0: 1}
    assert psi.probabilities().tolist() == pytest.approx([0, 0, 0, 1])
    rho = gq.simulate(c, method="density_matrix")
    assert rho.probabilities().tolist() == pytest.approx([0, 0, 0, 1])
    with pytest.raises(gq.ArgumentValueError, match="does not fit"):
        gq.Circuit(2).if_([0, 1], 4, gq.Circuit(2).x(0))


@pytest.mark.parametrize("path", CONDITIONAL, ids=lambda p: p.stem)
def test_conditional_qasm_counts_match_the_exact_distribution(path):
    circuit = gq.qasm.load(path)
    assert circuit.has_non_unitary
    rest, terminal = circuit.split_terminal_measurements()
    exact = gq.simulate(rest, method="density_matrix").record_distribution(
        terminal, circuit.n_clbits
    )
    shots = 2000
    counts = gq.counts(circuit, shots, seed=7)  # per shot, state vectors
    for key in set(exact) | set(counts):
        p = exact.get(key, 0.0)
        sigma = np.sqrt(shots * p * (1 - p)) + 1
        assert abs(counts.get(key, 0) - shots * p) <= 5 * sigma, key
    back = gq.qasm.loads(gq.qasm.dumps(circuit))
    assert gq.simulate(
        back.split_terminal_measurements()[0], method="density_matrix"
    ).record_distribution(terminal, circuit.n_clbits) == pytest.approx(exact)


def test_known_outcomes_of_the_conditional_circuits():
    qec = gq.qasm.load(HERE / "qasm" / "conditional" / "qec_sm_n5.qasm")
    rest, terminal = qec.split_terminal_measurements()
    dist = gq.simulate(rest, method="density_matrix").record_distribution(terminal, 5)
    # syndrome 3 (bits 11) flags qubit 1; after correction out is 000 or 111
    p1 = np.sin(0.35) ** 2
    assert dist == pytest.approx({"00011": 1 - p1, "11111": p1})
    iqft = gq.qasm.load(HERE / "qasm" / "conditional" / "inverseqft_n4.qasm")
    rest, terminal = iqft.split_terminal_measurements()
    dist = gq.simulate(rest, method="density_matrix").record_distribution(terminal, 4)
    dist = {k: v for k, v in dist.items() if v > 1e-12}
    assert dist == pytest.approx({"0101": 1.0})  # the 5 = 0101 the Fourier state encodes


def test_qiskit_if_test_round_trip_matches_aer():
    aer = pytest.importorskip("qiskit_aer")
    from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister

    q, cr = QuantumRegister(3), ClassicalRegister(3)
    qc = QuantumCircuit(q, cr)
    qc.h(0)
    qc.ry(0.8, 1)
    qc.measure(0, 0)
    qc.measure(1, 1)
    with qc.if_test((cr[0], 1)) as otherwise:
        qc.x(2)
    with otherwise:
        qc.h(2)
    reg = ClassicalRegister(bits=[cr[0], cr[1]], name="pair")
    qc.add_register(reg)
    with qc.if_test((reg, 3)):
        qc.z(2)
        qc.h(2)
    qc.measure(2, 2)
    ours = gq.from_qiskit(qc)
    rest, terminal = ours.split_terminal_measurements()
    exact = gq.simulate(rest, method="density_matrix").record_distribution(terminal, 3)
    shots = 20000
    theirs = aer.AerSimulator().run(gq.to_qiskit(ours), shots=shots, seed_simulator=3)
    got: dict[str, int] = {}
    for key, count in theirs.result().get_counts().items():  # a space marks the extra register
        got[key.replace(" ", "")] = got.get(key.replace(" ", ""), 0) + count
    for key in set(exact) | set(got):
        p = exact.get(key, 0.0)
        assert abs(got.get(key, 0) - shots * p) <= 5 * np.sqrt(shots * p * (1 - p)) + 1, key


# -- noise models and readout ---------------------------------------------------------------------


def test_noise_model_rules_and_files(tmp_path):
    model = NoiseModel().add_all_qubit_error(channels.depolarizing(0.01), ["h"])
    model.add_error(channels.amplitude_damping(0.2), "cx", [0, 1], each_qubit=True)
    noisy = model.apply(gq.Circuit(2).h(0).cx(0, 1).cx(1, 0).measure_all())
    assert noisy.count_ops() == {"measure": 2, "h": 1, "depolarizing": 1, "cx": 2,
                                 "amplitude_damping": 2}  # fmt: skip
    spec = NoiseModel.from_spec("depolarizing:0.02")
    ops = spec.apply(gq.Circuit(3).h(0).cx(0, 1).ccx(0, 1, 2)).count_ops()
    assert ops["depolarizing"] == 4 and ops["depolarizing2"] == 1
    path = tmp_path / "noise.json"
    path.write_text(json.dumps({
        "errors": [{"channel": "bit_flip", "params": [0.1], "gates": ["x"]}],
        "readout": [{"probabilities": [[0.9, 0.1], [0.2, 0.8]], "qubits": [0]}],
    }))  # fmt: skip
    from_file = NoiseModel.from_spec(str(path))
    assert from_file.apply(gq.Circuit(1).x(0)).count_ops() == {"x": 1, "bit_flip": 1}
    assert from_file.readout.for_qubit(0) == ReadoutError([[0.9, 0.1], [0.2, 0.8]])
    with pytest.raises(gq.NoiseModelError, match="unknown noise"):
        NoiseModel.from_spec("depolarising:0.1")
    with pytest.raises(gq.NoiseModelError, match="line 1"):
        bad = tmp_path / "bad.json"
        bad.write_text("{oops")
        NoiseModel.from_file(bad)


def test_readout_error_exact_and_sampled():
    model = NoiseModel().add_readout_error([[0.9, 0.1], [0.25, 0.75]], 0)
    c = gq.Circuit(2).x(0).measure_all()
    exact = gq.counts(c, 40000, seed=1, method="density_matrix", readout=model)
    sampled = gq.counts(c, 40000, seed=2, readout=model)
    for counts in (exact, sampled):
        assert set(counts) == {"00", "01"}
        assert counts["00"] / 40000 == pytest.approx(0.25, abs=0.01)


def test_cli_noise_and_methods(capsys):
    from genqsim.cli.main import main

    assert main(["run", "ghz:3", "--noise", "depolarizing:0.02", "--observable", "Z0 Z1",
                 "--format", "json"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "density_matrix"
    expected = gq.simulate(
        NoiseModel.from_spec("depolarizing:0.02").apply(gq.library.ghz(3)),
        method="density_matrix",
    ).expectation("Z0 Z1")
    assert out["expectation"]["value"] == pytest.approx(expected)
    assert main(["run", "ghz:3", "--noise", "depolarizing:0.02", "--method", "trajectories",
                 "--trajectories", "200", "--seed", "1", "--observable", "Z0 Z1",
                 "--format", "json"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert abs(out["expectation"]["value"] - expected) <= 5 * out["expectation"]["stderr"] + 1e-9


@pytest.mark.parametrize("method", ["interval", "tangent"])
def test_unitary_only_methods_refuse_noise_and_conditionals(method):
    numbers = gq.DualNumbers({}) if method == "tangent" else None
    noisy = gq.Circuit(1).x(0).amplitude_damping(1.0, 0)
    conditional = gq.Circuit(1).measure(0, 0).if_(0, 1, gq.Circuit(1).x(0))
    for circuit in (noisy, conditional):
        with pytest.raises(gq.NotUnitaryError):
            gq.simulate(circuit, method=method, numbers=numbers)
