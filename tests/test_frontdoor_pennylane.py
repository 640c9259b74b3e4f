"""The ``genqsim.qubit`` PennyLane device against ``default.qubit``: expectation values,
variances, probabilities and states to 1e-10, adjoint and device gradients on
StronglyEntanglingLayers and a QAOA template, shots within 5 sigma, mid-circuit measurements,
and 20 steps of training that land on the same parameters."""

from __future__ import annotations

import numpy as np
import pytest

qml = pytest.importorskip("pennylane")

from pennylane import numpy as pnp  # noqa: E402

from genqsim.errors import UnknownOptionError, UnsupportedOperationError  # noqa: E402
from genqsim.pennylane import GenqsimQubit  # noqa: E402

WIRES = 4


def devices(**kwargs):
    return qml.device("genqsim.qubit", wires=WIRES, **kwargs), qml.device(
        "default.qubit", wires=WIRES
    )


def strongly_entangling(weights):
    qml.StronglyEntanglingLayers(weights, wires=range(WIRES))
    return qml.expval(qml.PauliZ(0) @ qml.PauliZ(1) + 0.4 * qml.PauliX(2) - 0.3 * qml.PauliY(3))


RING = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)]
COST = qml.Hamiltonian([1.0] * len(RING), [qml.PauliZ(a) @ qml.PauliZ(b) for a, b in RING])
MIXER = qml.Hamiltonian([1.0] * WIRES, [qml.PauliX(q) for q in range(WIRES)])


def qaoa(params):
    for q in range(WIRES):
        qml.Hadamard(q)
    for gamma, beta in params:
        qml.qaoa.cost_layer(gamma, COST)
        qml.qaoa.mixer_layer(beta, MIXER)
    return qml.expval(COST)


def weights_and_qaoa_params():
    rng = np.random.default_rng(3)
    shape = qml.StronglyEntanglingLayers.shape(n_layers=2, n_wires=WIRES)
    return (
        pnp.array(rng.uniform(-np.pi, np.pi, shape), requires_grad=True),
        pnp.array(rng.uniform(-1, 1, (2, 2)), requires_grad=True),
    )


@pytest.mark.parametrize("template", ["strongly_entangling", "qaoa"])
@pytest.mark.parametrize("diff_method", ["adjoint", "device"])
def test_values_and_gradients_equal_default_qubit(template, diff_method):
    fn = {"strongly_entangling": strongly_entangling, "qaoa": qaoa}[template]
    weights, params = weights_and_qaoa_params()
    x = weights if template == "strongly_entangling" else params
    ours_dev, ref_dev = devices()
    ours = qml.QNode(fn, ours_dev, diff_method=diff_method)
    ref = qml.QNode(fn, ref_dev, diff_method="backprop")
    assert abs(float(ours(x)) - float(ref(x))) <= 1e-10
    np.testing.assert_allclose(qml.grad(ours)(x), qml.grad(ref)(x), atol=1e-10)


def test_many_measurements_equal_default_qubit():
    def circuit(x):
        qml.RX(x, 0)
        qml.CRY(0.7, wires=[0, 2])
        qml.Toffoli(wires=[0, 2, 1])
        qml.PauliRot(0.3, "XYZ", wires=[3, 1, 0])
        qml.QubitUnitary(qml.matrix(qml.Hadamard(0) @ qml.S(1)), wires=[3, 2])
        qml.MultiControlledX(wires=[0, 1, 3], control_values=[1, 0])
        return (
            qml.expval(qml.PauliX(1) @ qml.PauliZ(3)),
            qml.var(qml.PauliZ(0) + qml.PauliX(2)),
            qml.probs(wires=[2, 0]),
            qml.expval(qml.Hermitian(np.array([[1, 1j], [-1j, 2]]), wires=1)),
            qml.state(),
        )

    ours_dev, ref_dev = devices()
    ours = qml.QNode(circuit, ours_dev)(0.9)
    ref = qml.QNode(circuit, ref_dev)(0.9)
    for a, b in zip(ours, ref):
        np.testing.assert_allclose(a, b, atol=1e-10)


def test_state_preparation_and_wire_labels():
    dev = qml.device("genqsim.qubit", wires=["a", "b", 7])
    ref_dev = qml.device("default.qubit", wires=["a", "b", 7])
    vector = np.random.default_rng(1).normal(size=8) + 1j * np.random.default_rng(2).normal(size=8)
    vector /= np.linalg.norm(vector)

    def circuit():
        qml.StatePrep(vector, wires=["a", "b", 7])
        qml.CNOT(wires=[7, "a"])
        qml.RY(0.3, wires="b")
        return qml.state(), qml.expval(qml.PauliY("a") @ qml.PauliZ(7))

    for a, b in zip(qml.QNode(circuit, dev)(), qml.QNode(circuit, ref_dev)()):
        np.testing.assert_allclose(a, b, atol=1e-12)

    def basis():
        qml.BasisState(np.array([1, 0, 1]), wires=["a", "b", 7])
        return qml.probs(wires=["a", "b", 7])

    np.testing.assert_allclose(qml.QNode(basis, dev)(), qml.QNode(basis, ref_dev)(), atol=0)


def test_shots_within_five_sigma_samples_and_counts():
    def circuit():
        qml.Hadamard(0)
        qml.RY(1.1, 1)
        qml.CNOT([0, 2])
        return (
            qml.sample(wires=[0, 1, 2]),
            qml.counts(wires=[0, 1]),
            qml.expval(qml.PauliZ(1)),
            qml.expval(qml.PauliX(1)),  # sampled in X's eigenbasis
        )

    shots = 4000
    dev = qml.device("genqsim.qubit", wires=3, seed=5)
    samples, counts, ev, x1 = qml.set_shots(qml.QNode(circuit, dev), shots=shots)()
    sigma = np.sqrt((1 - np.sin(1.1) ** 2) / shots)
    assert abs(x1 - np.sin(1.1)) <= 5 * sigma
    assert samples.shape == (shots, 3)
    assert np.all(samples[:, 0] == samples[:, 2])  # the CNOT copies wire 0 onto wire 2
    p1 = np.sin(1.1 / 2) ** 2
    ones = samples[:, 1].sum()
    assert abs(ones - shots * p1) <= 5 * np.sqrt(shots * p1 * (1 - p1))
    assert sum(counts.values()) == shots and set(counts) <= {"00", "01", "10", "11"}
    assert abs(ev - np.cos(1.1)) <= 5 * np.sqrt((1 - np.cos(1.1) ** 2) / shots)
    first, second = qml.set_shots(qml.QNode(circuit, dev), shots=[100, 200])()
    assert first[0].shape == (100, 3) and second[0].shape == (200, 3)


def test_mid_circuit_measurements_equal_default_qubit():
    def circuit(x):
        qml.RX(x, 0)
        m = qml.measure(0)
        qml.cond(m, qml.RY)(0.8, wires=1)
        qml.cond(~m, qml.Hadamard)(wires=1)
        return qml.expval(qml.PauliZ(1)), qml.probs(wires=[0, 1])

    dev, ref_dev = devices()
    full = qml.device("genqsim.qubit", wires=[0, 1])  # no spare wire: the tree traversal
    expected = qml.QNode(circuit, ref_dev)(0.6)
    for device, method in ((dev, "deferred"), (dev, None), (full, "tree-traversal")):
        for a, b in zip(qml.QNode(circuit, device, mcm_method=method)(0.6), expected):
            np.testing.assert_allclose(a, b, atol=1e-12)
    with pytest.raises(qml.wires.WireError, match=r"create the device with 1 more \(wires=3\)"):
        qml.QNode(circuit, full, mcm_method="deferred")(0.6)


def _dynamic(x):
    """RX(x) on wire 0, measured (m, then reset); RY(0.8) on wire 1 where m, else H; wire 1
    measured (m2); X on wire 0 where m and m2."""
    qml.RX(x, 0)
    m = qml.measure(0, reset=True)
    qml.cond(m, qml.RY)(0.8, wires=1)
    qml.cond(~m, qml.Hadamard)(wires=1)
    m2 = qml.measure(1)
    qml.cond(m & m2, qml.PauliX)(wires=0)
    return (
        qml.expval(qml.PauliZ(1)), qml.probs(wires=[0, 1]), qml.expval(m), qml.counts(m2),
        qml.var(qml.PauliX(0)), qml.sample(m),
    )  # fmt: skip


def test_mid_circuit_measurements_with_shots_run_in_genqsim_without_extra_wires():
    """With shots, mid-circuit measurements (with reset, conditions on several of them)
    run in genqsim (``mcm_method="one-shot"``, the default with shots), on a device with no
    spare wire: every statistic within five sigma of its closed form, p = sin^2(x/2) the
    chance of m = 1; the same kinds of results as ``default.qubit`` gives. Postselection
    (``postselect_mode="hw-like"``) keeps the shots whose outcome is the one asked for."""
    x, shots = 0.6, 20000
    p, q = np.sin(x / 2) ** 2, np.sin(0.4) ** 2
    m2 = p * q + (1 - p) / 2  # P(m2 = 1)
    dev = qml.device("genqsim.qubit", wires=2, seed=7)
    ev, probs, mean_m, counts_m2, var_x, samples_m = qml.set_shots(qml.QNode(_dynamic, dev), shots)(
        x
    )

    def close(found, expected, variance):
        assert abs(found - expected) <= 5 * np.sqrt(variance / shots) + 1e-12, (found, expected)

    close(ev, 1 - 2 * m2, 1 - (1 - 2 * m2) ** 2)
    for found, expected in zip(probs, [1 - m2, (1 - p) / 2, 0.0, p * q]):
        close(found, expected, expected * (1 - expected))
    close(mean_m, p, p * (1 - p))
    close(counts_m2[1] / shots, m2, m2 * (1 - m2))
    close(var_x, 1.0, 4.0)  # wire 0 ends |0> or |1>: <X> = 0
    assert samples_m.shape == (shots,) and abs(samples_m.mean() - mean_m) < 1e-12
    theirs = qml.set_shots(qml.QNode(_dynamic, qml.device("default.qubit", wires=2)), 200)(x)
    ours = qml.set_shots(qml.QNode(_dynamic, dev), 200)(x)
    for a, b in zip(ours, theirs):
        assert type(a) is type(b) and np.shape(a) == np.shape(b)

    def postselected(angle):
        qml.RX(angle, 0)
        qml.CNOT([0, 1])
        qml.measure(0, postselect=1)
        return qml.expval(qml.PauliZ(1)), qml.counts(wires=[0, 1])

    node = qml.QNode(postselected, dev, mcm_method="one-shot", postselect_mode="hw-like")
    ev, counts = qml.set_shots(node, 4000)(1.1)
    kept = np.sin(0.55) ** 2
    assert ev == -1.0 and set(counts) == {"11"}
    assert abs(counts["11"] - 4000 * kept) <= 5 * np.sqrt(4000 * kept * (1 - kept))
    traversed = qml.set_shots(qml.QNode(_dynamic, dev, mcm_method="tree-traversal"), 200)(x)
    for a, b in zip(traversed, theirs):  # with shots: run as one-shot, the same law
        assert type(a) is type(b) and np.shape(a) == np.shape(b)
    config = qml.devices.ExecutionConfig(
        mcm_config=qml.devices.MCMConfig(mcm_method="single-branch-statistics")
    )  # what PennyLane passes on only under qjit: refused with the methods that run
    with pytest.raises(qml.exceptions.QuantumFunctionError, match="'tree-traversal' \\(exact"):
        dev.setup_execution_config(config)


def _branching(x, y):
    """Two measurements (the second reset), conditions on one and on an expression of both,
    and statistics of observables and of the measurements' values."""
    qml.RY(x, 0)
    m0 = qml.measure(0)
    qml.cond(m0, qml.RX)(y, 1)
    qml.CNOT([1, 2])
    m1 = qml.measure(2, reset=True)
    qml.cond(m0 & ~m1, qml.Hadamard)(0)
    qml.RY(0.3, 2)
    return (
        qml.expval(qml.PauliZ(0) @ qml.PauliX(2)), qml.var(qml.PauliZ(1)),
        qml.probs(wires=[0, 1]), qml.expval(m0), qml.var(m0 + 2 * m1),
        qml.probs(op=[m0, m1]), qml.probs(op=m1),
    )  # fmt: skip


def test_tree_traversal_without_shots_equals_default_qubits_and_needs_no_spare_wire():
    """Without shots, mid-circuit measurements run as PennyLane's tree traversal does
    (the default here): every history of outcomes on a state vector of the device's own
    wires, weighted by its probability. Every statistic (observables, and the values of
    the measurements and expressions of them) equals ``default.qubit``'s tree traversal to
    1e-12, and postselection renormalises as there."""
    reference = qml.device("default.qubit")
    dev = qml.device("genqsim.qubit", wires=3)
    for x, y in ((0.8, 1.3), (np.pi, 0.0), (0.0, 2.0)):  # (pi, 0): outcomes of probability 1
        expected = qml.QNode(_branching, reference, mcm_method="tree-traversal")(x, y)
        for a, b in zip(qml.QNode(_branching, dev)(x, y), expected):
            np.testing.assert_allclose(np.real(a), np.real(b), atol=1e-12)

    def postselected(x):
        qml.RY(x, 0)
        qml.CNOT([0, 1])
        m = qml.measure(0, postselect=1)
        qml.RX(0.4, 1)
        return qml.expval(qml.PauliZ(1)), qml.probs(wires=[1]), qml.expval(m)

    expected = qml.QNode(postselected, reference, mcm_method="tree-traversal")(0.9)
    found = qml.QNode(postselected, qml.device("genqsim.qubit", wires=2))(0.9)
    for a, b in zip(found, expected):
        np.testing.assert_allclose(a, b, atol=1e-12)
    assert found[0] == pytest.approx(-np.cos(0.4), abs=1e-12)  # wire 1 is |1>, then RX(0.4)


def test_tree_traversal_of_a_channel_and_its_refusals():
    """A noise channel among mid-circuit measurements is followed through its Kraus
    branches: a bit flip of probability 0.2 before measuring |1> gives P(m = 1) = 0.8 and,
    with the outcome copied onto wire 1 by a condition, <Z1> = 1 - 2 * 0.8. A state, samples
    or counts of such a circuit without shots are refused with the reason."""
    dev = qml.device("genqsim.qubit", wires=2)

    def noisy():
        qml.PauliX(0)
        qml.BitFlip(0.2, wires=0)
        m = qml.measure(0)
        qml.cond(m, qml.PauliX)(1)
        return qml.expval(m), qml.expval(qml.PauliZ(1))

    mean, z1 = qml.QNode(noisy, dev)()
    assert mean == pytest.approx(0.8, abs=1e-12) and z1 == pytest.approx(-0.6, abs=1e-12)

    def state():
        qml.Hadamard(0)
        qml.measure(0)
        return qml.state()

    with pytest.raises(UnsupportedOperationError, match="StateMP of a circuit with mid-circuit"):
        qml.QNode(state, dev)()


def test_training_reaches_the_same_parameters_as_default_qubit():
    weights, _ = weights_and_qaoa_params()
    ours_dev, ref_dev = devices()
    trained = []
    for dev, diff_method in ((ours_dev, "adjoint"), (ref_dev, "backprop")):
        cost = qml.QNode(strongly_entangling, dev, diff_method=diff_method)
        opt = qml.GradientDescentOptimizer(stepsize=0.2)
        x = pnp.array(weights, requires_grad=True)
        for _ in range(20):
            x = opt.step(cost, x)
        trained.append((x, float(cost(x))))
    (ours, ours_cost), (ref, ref_cost) = trained
    np.testing.assert_allclose(ours, ref, atol=1e-9)
    assert abs(ours_cost - ref_cost) <= 1e-10
    assert ours_cost < float(qml.QNode(strongly_entangling, ref_dev)(weights))  # it trained


def test_methods_and_numbers_pass_through_and_bad_options_fail():
    weights, _ = weights_and_qaoa_params()
    ref = qml.QNode(strongly_entangling, qml.device("default.qubit", wires=WIRES))(weights)
    for options in ({"method": "density_matrix"}, {"method": "mps"}, {"numbers": "complex64"}):
        dev = qml.device("genqsim.qubit", wires=WIRES, **options)
        value = qml.QNode(strongly_entangling, dev)(weights)
        atol = 1e-5 if options.get("numbers") == "complex64" else 1e-10
        assert abs(float(value) - float(ref)) <= atol
    with pytest.raises(UnknownOptionError):
        GenqsimQubit(wires=2, max_bonds=3)


def test_every_native_gate_has_pennylanes_matrix():
    """Each operation the device runs as a genqsim gate, with random parameters on a
    scrambled wire order, has the matrix PennyLane gives it."""
    import genqsim as gq
    from genqsim.frontends.pennylane_device import NATIVE, SPECIAL, tape_circuit

    rng = np.random.default_rng(7)
    wires = [2, 0, 3, 1]
    made = []
    for name in sorted(NATIVE) + sorted(SPECIAL):
        cls = getattr(qml, name)
        n_wires = {"MultiRZ": 3, "PauliRot": 3, "MultiControlledX": 3, "GlobalPhase": 4}.get(
            name, cls.num_wires if isinstance(cls.num_wires, int) else 1
        )
        on = [int(w) for w in rng.permutation(4)[:n_wires]]
        params = list(rng.uniform(-3, 3, cls.num_params))
        if name == "PauliRot":
            made.append(qml.PauliRot(params[0], "XYZ", wires=on))
        elif name == "MultiControlledX":
            made.append(qml.MultiControlledX(wires=on, control_values=[0, 1]))
        else:
            made.append(cls(*params, wires=on))
    for op in made:
        tape = qml.tape.QuantumScript([op])
        circuit, _ = tape_circuit(tape, qml.wires.Wires(wires))
        ours = gq.unitary(circuit)
        theirs = qml.matrix(op, wire_order=wires)
        np.testing.assert_allclose(np.asarray(ours, dtype=complex), theirs, atol=1e-12,
                                   err_msg=op.name)  # fmt: skip


def noisy(x):
    """Channels on one and two wires (a general QubitChannel among them) after a trainable
    rotation, measured several ways."""
    qml.RX(x, 0)
    qml.CNOT([0, 1])
    qml.RY(0.4, 2)
    qml.DepolarizingChannel(0.2, wires=0)
    qml.AmplitudeDamping(0.3, wires=1)
    qml.PhaseDamping(0.25, wires=2)
    flip = np.kron(np.array([[0, 1], [1, 0]]), np.eye(2))  # X on its first wire, 2
    qml.QubitChannel([np.sqrt(0.7) * np.eye(4), np.sqrt(0.3) * flip], wires=[2, 1])
    qml.ThermalRelaxationError(0.1, 100.0, 80.0, 20.0, wires=3)


def test_noise_channels_run_as_default_mixed_runs_them():
    """Noise channels run on a density matrix (``method="auto"`` picks it): every
    measurement equals ``default.mixed``'s to 1e-10, ``qml.state()`` is the density matrix
    as there, shots are within 5 sigma of its probabilities, and parameter-shift gradients
    equal its own; the adjoint method, which needs a pure state, is not offered."""

    def measured(x):
        noisy(x)
        return (
            qml.expval(qml.PauliZ(0) @ qml.PauliZ(1) + 0.5 * qml.PauliX(2)),
            qml.var(qml.PauliY(2)),
            qml.probs(wires=[2, 0]),
            qml.density_matrix(wires=[1, 3]),
            qml.purity(wires=[0, 1]),
            qml.vn_entropy(wires=[2]),
        )

    x = pnp.array(0.7, requires_grad=True)
    mixed = qml.device("default.mixed", wires=WIRES)
    want = qml.QNode(measured, mixed)(x)
    for options in ({}, {"method": "density_matrix"}):
        got = qml.QNode(measured, qml.device("genqsim.qubit", wires=WIRES, **options))(x)
        for ours, theirs in zip(got, want):
            np.testing.assert_allclose(ours, theirs, atol=1e-10)

    def state(x):
        noisy(x)
        return qml.state()

    np.testing.assert_allclose(
        qml.QNode(state, qml.device("genqsim.qubit", wires=WIRES))(x),
        qml.QNode(state, mixed)(x),
        atol=1e-10,
    )

    def probabilities(x):
        noisy(x)
        return qml.probs(wires=range(WIRES))

    shots = 20_000
    sampled = qml.QNode(probabilities, qml.device("genqsim.qubit", wires=WIRES, shots=shots,
                                                  seed=4))(x)  # fmt: skip
    p = qml.QNode(probabilities, mixed)(x)
    sigma = np.sqrt(np.maximum(p * (1 - p), 1 / shots) / shots)
    assert np.all(np.abs(sampled - p) <= 5 * sigma)

    def energy(x):
        noisy(x)
        return qml.expval(qml.PauliZ(0) @ qml.PauliZ(1) + 0.5 * qml.PauliZ(1))

    theirs = qml.grad(qml.QNode(energy, mixed))(x)
    ours = qml.grad(qml.QNode(energy, qml.device("genqsim.qubit", wires=WIRES),
                              diff_method="parameter-shift"))(x)  # fmt: skip
    np.testing.assert_allclose(ours, theirs, atol=1e-10)
    with pytest.raises(qml.exceptions.QuantumFunctionError, match="does not support adjoint"):
        qml.grad(qml.QNode(energy, qml.device("genqsim.qubit", wires=WIRES),
                           diff_method="adjoint"))(x)  # fmt: skip
