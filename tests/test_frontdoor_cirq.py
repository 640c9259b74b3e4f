"""genqsim.cirq.Simulator against cirq.Simulator: final states, expectation values and samples
on random circuits and parameter sweeps, qubit orders, initial states and measurement keys."""

from __future__ import annotations

import numpy as np
import pytest

cirq = pytest.importorskip("cirq")
sympy = pytest.importorskip("sympy")

import genqsim as gq  # noqa: E402
from genqsim.cirq import Simulator  # noqa: E402
from genqsim.errors import (  # noqa: E402
    ArgumentTypeError,
    ArgumentValueError,
    UnknownOptionError,
    WhileLoopLimitError,
)

QUBITS = cirq.LineQubit.range(4)


def random_circuit(seed: int) -> cirq.Circuit:
    return cirq.testing.random_circuit(QUBITS, n_moments=12, op_density=0.8, random_state=seed)


def within_five_sigma(samples: np.ndarray, probabilities: np.ndarray) -> None:
    shots = len(samples)
    found = np.bincount(samples, minlength=probabilities.size)
    sigma = np.sqrt(np.maximum(shots * probabilities * (1 - probabilities), 1.0))
    assert np.all(np.abs(found - shots * probabilities) <= 5 * sigma)


@pytest.mark.parametrize("seed", range(8))
def test_final_states_equal_cirq_on_random_circuits(seed):
    circuit = random_circuit(seed)
    theirs = cirq.Simulator(dtype=np.complex128).simulate(circuit).final_state_vector
    ours = Simulator(dtype=np.complex128).simulate(circuit).final_state_vector
    np.testing.assert_allclose(ours, theirs, atol=1e-12)
    single = Simulator().simulate(circuit).final_state_vector
    assert single.dtype == np.complex64
    np.testing.assert_allclose(single, theirs, atol=2e-6)


def test_qubit_order_and_initial_state():
    a, b, c = cirq.LineQubit.range(3)
    circuit = cirq.Circuit(cirq.H(a), cirq.CNOT(a, c), cirq.ry(0.4).on(b), cirq.CZ(b, c))
    for order in ([c, a, b], [b, c, a]):
        for initial in (0, 5, cirq.testing.random_superposition(8, random_state=1)):
            kwargs = dict(qubit_order=order, initial_state=initial)
            theirs = cirq.Simulator(dtype=np.complex128).simulate(circuit, **kwargs)
            ours = Simulator(dtype=np.complex128).simulate(circuit, **kwargs)
            np.testing.assert_allclose(
                ours.final_state_vector, theirs.final_state_vector, atol=1e-12
            )
            assert ours.qubit_map == theirs.qubit_map


def parametrised_circuit():
    t, s = sympy.Symbol("t"), sympy.Symbol("s")
    a, b, c = cirq.LineQubit.range(3)
    circuit = cirq.Circuit(
        cirq.H(a),
        cirq.rx(t).on(b),
        cirq.CNOT(a, b),
        cirq.ZPowGate(exponent=s).on(c),
        cirq.ry(2 * t).on(c),
        cirq.CZPowGate(exponent=s).on(b, c),
        cirq.XPowGate(exponent=t / 3).on(a),
    )
    sweep = cirq.Linspace("t", -1.0, 2.0, 5) * cirq.Points("s", [0.25, 0.7])
    return circuit, sweep, (a, b, c)


def test_sweeps_of_final_states_and_expectation_values_equal_cirq():
    circuit, sweep, (a, b, c) = parametrised_circuit()
    theirs = cirq.Simulator(dtype=np.complex128).simulate_sweep(circuit, sweep)
    ours = Simulator(dtype=np.complex128).simulate_sweep(circuit, sweep)
    assert len(ours) == len(theirs) == 10
    for x, y in zip(ours, theirs):
        assert x.params == y.params
        np.testing.assert_allclose(x.final_state_vector, y.final_state_vector, atol=1e-12)
    observables = [cirq.Z(a) * cirq.Z(b), 0.5 * cirq.X(c) - 0.25 * cirq.Y(a) * cirq.X(b)]
    want = cirq.Simulator(dtype=np.complex128).simulate_expectation_values_sweep(
        circuit, observables, sweep
    )
    got = Simulator().simulate_expectation_values_sweep(circuit, observables, sweep)
    np.testing.assert_allclose(np.array(got), np.array(want), atol=1e-12)


def test_expectation_of_idle_qubit_and_terminal_measurements():
    a, b = cirq.LineQubit.range(2)
    circuit = cirq.Circuit(cirq.X(a), cirq.measure(a, key="m"))
    with pytest.raises(ValueError, match="terminal measurements"):
        Simulator().simulate_expectation_values(circuit, cirq.Z(a))
    got = Simulator().simulate_expectation_values(
        circuit, [cirq.Z(a), cirq.Z(b)], permit_terminal_measurements=True
    )
    assert np.allclose(got, [-1, 1])


def test_expectation_values_after_a_mid_circuit_measurement_are_the_exact_mean():
    """A coin measured mid-circuit and copied by a classical control: <Z1> is the mean
    over the outcomes, 0, and <Z0 Z1> is 1, on every call (``cirq.Simulator`` gives one
    run's value, +1 or -1)."""
    a, b = cirq.LineQubit.range(2)
    circuit = cirq.Circuit(
        cirq.H(a), cirq.measure(a, key="m"), cirq.X(b).with_classical_controls("m"), cirq.H(a)
    )
    for _ in range(3):
        got = Simulator().simulate_expectation_values(circuit, [cirq.Z(b), cirq.X(a)])
        assert np.allclose(got, [0, 0], atol=1e-12)
    copied = cirq.Circuit(
        cirq.H(a), cirq.measure(a, key="m"), cirq.X(b).with_classical_controls("m")
    )
    got = Simulator().simulate_expectation_values(
        copied, [cirq.Z(a) * cirq.Z(b)], permit_terminal_measurements=True
    )
    assert np.allclose(got, [1], atol=1e-12)


def test_samples_equal_cirq_distribution_on_a_sweep():
    circuit, sweep, qubits = parametrised_circuit()
    measured = circuit + cirq.measure(*qubits, key="m")
    results = Simulator(seed=4).run_sweep(measured, sweep, repetitions=3000)
    states = cirq.Simulator(dtype=np.complex128).simulate_sweep(circuit, sweep)
    for result, state in zip(results, states):
        assert result.measurements["m"].shape == (3000, 3)
        p = np.abs(state.final_state_vector) ** 2
        within_five_sigma(result.data["m"].to_numpy(), p)


def test_measurement_keys_invert_masks_and_repeated_keys():
    a, b, c = cirq.LineQubit.range(3)
    circuit = cirq.Circuit(
        cirq.X(a),
        cirq.measure(a, b, key="ab", invert_mask=(False, True)),  # a=1, b=0 -> 1, 1
        cirq.X(c),
        cirq.measure(c, key="c"),
        cirq.X(c),
        cirq.measure(c, key="c"),  # measured again: a second instance
    )
    ours = Simulator(seed=1).run(circuit, repetitions=5)
    theirs = cirq.Simulator(seed=1).run(circuit, repetitions=5)
    np.testing.assert_array_equal(ours.records["ab"], theirs.records["ab"])
    np.testing.assert_array_equal(ours.records["c"], theirs.records["c"])
    assert ours.records["c"].shape == (5, 2, 1)


def test_mid_circuit_measurement_collapses_in_simulate():
    a, b = cirq.LineQubit.range(2)
    circuit = cirq.Circuit(cirq.H(a), cirq.measure(a, key="m"), cirq.CNOT(a, b))
    for seed in range(6):
        result = Simulator(seed=seed, dtype=np.complex128).simulate(circuit)
        bit = int(result.measurements["m"][0])
        expected = np.zeros(4)
        expected[3 * bit] = 1
        np.testing.assert_allclose(np.abs(result.final_state_vector), expected, atol=1e-12)
    twice = cirq.Circuit(cirq.X(a), cirq.measure(a, key="m"), cirq.X(a), cirq.measure(a, key="m"))
    for simulator in (cirq.Simulator(), Simulator()):  # a key measured twice: its latest value
        assert simulator.simulate(twice).measurements["m"].tolist() == [0]


def test_bad_input_is_refused():
    with pytest.raises(ArgumentTypeError, match=r"complex64 or np\.complex128"):
        Simulator(dtype=np.float64)
    with pytest.raises(UnknownOptionError):
        Simulator(bond=3)
    with pytest.raises(ArgumentValueError, match="basis state"):
        Simulator().simulate(cirq.Circuit(cirq.H(QUBITS[0])), initial_state=2)
    for call in (Simulator().simulate, Simulator().run, Simulator().simulate_expectation_values):
        with pytest.raises(ArgumentTypeError, match=r"cirq\.Circuit"):
            call("circuit", *([cirq.Z(QUBITS[0])] if "expectation" in call.__name__ else []))


def test_noise_channels_sample_the_distribution_of_cirqs_density_matrix():
    """Cirq's channels (mixtures and general Kraus channels, on one and two qubits) run as
    their Kraus operators: counts within five sigma of the diagonal of the final density
    matrix ``cirq.DensityMatrixSimulator`` gives."""
    a, b, c = cirq.LineQubit.range(3)
    noisy = cirq.Circuit(
        cirq.H(a), cirq.ry(0.7).on(b), cirq.X(c),
        cirq.depolarize(0.15).on(a), cirq.amplitude_damp(0.3).on(c),
        cirq.CNOT(a, b), cirq.depolarize(0.2, n_qubits=2).on(a, c),
        cirq.asymmetric_depolarize(0.1, 0.05, 0.2).on(b),
        cirq.generalized_amplitude_damp(0.4, 0.3).on(a), cirq.phase_damp(0.5).on(b),
        cirq.H(b), cirq.bit_flip(0.1).on(c),
        cirq.KrausChannel([np.kron(k, np.eye(2)) for k in cirq.kraus(cirq.amplitude_damp(0.6))]
                          ).on(c, a),  # damps its first qubit, c
    )  # fmt: skip
    rho = cirq.DensityMatrixSimulator(dtype=np.complex128).simulate(noisy).final_density_matrix
    result = Simulator(seed=8).run(noisy + cirq.measure(a, b, c, key="m"), repetitions=4000)
    within_five_sigma(result.data["m"].to_numpy(), np.real(np.diag(rho)))


def test_simulate_of_a_noisy_circuit_returns_one_trajectory_as_cirq_does():
    """``simulate`` of a circuit with channels draws one Kraus operator per channel, as
    ``cirq.Simulator`` does: each final state is a normalised pure state, and their mean
    projector is Cirq's final density matrix (within five sigma per entry)."""
    a, b = cirq.LineQubit.range(2)
    noisy = cirq.Circuit(
        cirq.H(a), cirq.amplitude_damp(0.4).on(a), cirq.CNOT(a, b), cirq.depolarize(0.2).on(b)
    )
    rho = cirq.DensityMatrixSimulator(dtype=np.complex128).simulate(noisy).final_density_matrix
    simulator = Simulator(seed=4, dtype=np.complex128)
    runs = 1500
    states = np.array([simulator.simulate(noisy).final_state_vector for _ in range(runs)])
    np.testing.assert_allclose(np.linalg.norm(states, axis=1), 1, atol=1e-12)
    projectors = np.einsum("ri,rj->rij", states, states.conj())
    mean = projectors.mean(axis=0)
    spread = projectors.std(axis=0) / np.sqrt(runs)
    assert np.all(np.abs(mean - rho) <= 5 * spread + 1e-9)
    with pytest.raises(ArgumentValueError, match="gives a DensityMatrix"):
        Simulator(method="density_matrix").simulate(noisy)


def test_classical_controls_run_on_the_latest_recorded_value_of_their_keys():
    """``with_classical_controls``: an operation runs where each key's latest recorded value
    (after its invert mask) is nonzero; checked against the closed-form probabilities."""
    a, b, c, d, e = cirq.LineQubit.range(5)
    t1, t2, t3 = 0.9, 1.7, 2.3
    circuit = cirq.Circuit(
        cirq.ry(t1).on(a), cirq.ry(t2).on(c), cirq.ry(t3).on(e),
        cirq.measure(a, c, key="m", invert_mask=(True, False)),  # records 0 iff a=1, c=0
        cirq.measure(e, key="k"),
        cirq.X(b).with_classical_controls("m"),
        cirq.X(d).with_classical_controls("m", "k"),
        cirq.measure(b, d, key="out"),
    )  # fmt: skip
    shots = 6000
    out = Simulator(seed=2).run(circuit, repetitions=shots).measurements["out"]
    p_m = 1 - np.sin(t1 / 2) ** 2 * np.cos(t2 / 2) ** 2
    p_k = np.sin(t3 / 2) ** 2
    for column, p in ((0, p_m), (1, p_m * p_k)):
        found = out[:, column].sum()
        assert abs(found - shots * p) <= 5 * np.sqrt(shots * p * (1 - p)), (column, found, p)
    assert not np.any(out[:, 1] > out[:, 0])  # d flips only where b did


def test_a_global_phase_gate_keeps_cirqs_state_and_symbols_are_refused():
    a, b = cirq.LineQubit.range(2)
    circuit = cirq.Circuit(cirq.H(a), cirq.GlobalPhaseGate(1j**0.3).on(), cirq.CNOT(a, b))
    theirs = cirq.Simulator(dtype=np.complex128).simulate(circuit).final_state_vector
    ours = Simulator(dtype=np.complex128).simulate(circuit).final_state_vector
    np.testing.assert_allclose(ours, theirs, atol=1e-14)
    with pytest.raises(ArgumentValueError, match="is not measured before it"):
        Simulator().run(cirq.Circuit(cirq.X(b).with_classical_controls("z"), cirq.measure(a)))
    late = cirq.KeyCondition(cirq.MeasurementKey("m"), index=-2)
    with pytest.raises(ArgumentValueError, match="measured 1 time"):
        Simulator().run(
            cirq.Circuit(cirq.measure(a, key="m"), cirq.X(b).with_classical_controls(late))
        )


def test_every_kind_of_cirq_condition_runs_as_cirq_resolves_it():
    """``SympyCondition`` (on a key's value and on one of its digits),
    ``BitMaskKeyCondition``, a ``KeyCondition`` on an earlier measurement of its key, and a
    channel under a classical control: each shot's outputs follow from its recorded keys
    exactly as they do in ``cirq.Simulator``'s shots; the channel flips at its rate."""
    a, b, c, d, e, f, g, h = cirq.LineQubit.range(8)
    m = sympy.Symbol("m")
    either = cirq.SympyCondition(sympy.Or(sympy.Eq(m, 1), sympy.Eq(m, 2)))
    digit = cirq.SympyCondition(sympy.Eq(sympy.IndexedBase("m")[1], 1))
    circuit = cirq.Circuit(
        cirq.ry(1.1).on(a), cirq.ry(2.0).on(b), cirq.H(c),
        cirq.measure(a, b, key="m", invert_mask=(False, True)),  # m = 2 a + (1 - b)
        cirq.measure(c, key="k"), cirq.X(c), cirq.measure(c, key="k"),  # k: c, then 1 - c
        cirq.X(d).with_classical_controls(either),
        cirq.X(e).with_classical_controls(
            cirq.BitMaskKeyCondition("m", bitmask=2, target_value=2, equal_target=True)
        ),
        cirq.X(f).with_classical_controls(cirq.KeyCondition(cirq.MeasurementKey("k"), index=-2)),
        cirq.bit_flip(0.3).on(g).with_classical_controls("k"),
        cirq.X(h).with_classical_controls(digit),
        cirq.measure(d, e, f, g, h, key="out"),
    )  # fmt: skip
    shots = 4000
    for simulator, repetitions in ((cirq.Simulator(seed=3), 300), (Simulator(seed=3), shots)):
        result = simulator.run(circuit, repetitions=repetitions)
        recorded_m, k = result.records["m"][:, 0, :], result.records["k"][:, :, 0]
        out = result.records["out"][:, 0, :]
        value = 2 * recorded_m[:, 0] + recorded_m[:, 1]
        np.testing.assert_array_equal(out[:, 0], np.isin(value, [1, 2]))
        np.testing.assert_array_equal(out[:, 1], recorded_m[:, 0])
        np.testing.assert_array_equal(out[:, 2], k[:, 0])
        np.testing.assert_array_equal(out[:, 4], recorded_m[:, 1])
        assert not np.any(out[k[:, 1] == 0, 3])
    flipped = out[k[:, 1] == 1, 3]  # genqsim's shots, the last run
    assert abs(flipped.sum() - 0.3 * flipped.size) <= 5 * np.sqrt(flipped.size * 0.21)
    p_a = np.sin(0.55) ** 2
    assert abs(recorded_m[:, 0].sum() - shots * p_a) <= 5 * np.sqrt(shots * p_a * (1 - p_a))


def test_subcircuits_with_measurements_and_pauli_measurements_run_as_cirq_records_them():
    """A ``CircuitOperation`` repeated with measurements and classical controls inside runs
    inline with Cirq's keys and instances; a ``PauliMeasurementGate`` through its
    decomposition: P(XZ = -1) = (1 - cos t) / 2 on |+> (x) ry(t)|0>."""
    a, b = cirq.LineQubit.range(2)
    inner = cirq.FrozenCircuit(
        cirq.ry(1.2).on(a), cirq.measure(a, key="m"), cirq.X(b).with_classical_controls("m")
    )
    circuit = cirq.Circuit(cirq.CircuitOperation(inner, repetitions=3, use_repetition_ids=False))
    circuit += cirq.measure(b, key="r")
    shots = 4000
    result = Simulator(seed=5).run(circuit, repetitions=shots)
    theirs = cirq.Simulator(seed=5).run(circuit, repetitions=10)
    assert result.records["m"].shape == (shots, 3, 1) and theirs.records["m"].shape[1:] == (3, 1)
    m = result.records["m"][:, :, 0]
    np.testing.assert_array_equal(result.records["r"][:, 0, 0], m.sum(axis=1) % 2)
    p = np.sin(0.6) ** 2  # each instance after a fresh ry(1.2) on a collapsed qubit
    first = m[:, 0].sum()
    assert abs(first - shots * p) <= 5 * np.sqrt(shots * p * (1 - p))

    t = 0.4
    pauli = cirq.PauliMeasurementGate(cirq.DensePauliString("XZ"), key="p").on(a, b)
    measured = Simulator(seed=6).run(
        cirq.Circuit(cirq.H(a), cirq.ry(t).on(b), pauli), repetitions=shots
    )
    p = (1 - np.cos(t)) / 2
    found = measured.records["p"].sum()
    assert abs(found - shots * p) <= 5 * np.sqrt(shots * p * (1 - p))


def _until(body: cirq.FrozenCircuit, key: str, **options) -> cirq.CircuitOperation:
    return cirq.CircuitOperation(
        body,
        use_repetition_ids=False,
        repeat_until=cirq.KeyCondition(cirq.MeasurementKey(key)),
        **options,
    )


def test_repeat_until_records_each_iteration_as_cirq_does():
    """A repeat-until-success subcircuit (H, measure into m, flip b where m = 1; until m)
    between two measurements of c into the same key: each shot records m as 1, then the
    loop's zeros and its final 1, then 1, padded with zeros to the most any shot recorded,
    as ``cirq.Simulator`` records it; the loop runs k times with probability 2^-k, and b
    ends 1. ``genqsim.from_cirq`` reads the loop as a while loop on the same bits."""
    a, b, c = cirq.LineQubit.range(3)
    body = cirq.FrozenCircuit(
        cirq.H(a), cirq.measure(a, key="m"), cirq.X(b).with_classical_controls("m")
    )
    circuit = cirq.Circuit(
        cirq.X(c), cirq.measure(c, key="m"), _until(body, "m"),
        cirq.measure(c, key="m"), cirq.measure(b, key="b"),
    )  # fmt: skip
    shots = 4000
    for simulator, repetitions in ((cirq.Simulator(seed=1), 300), (Simulator(seed=1), shots)):
        result = simulator.run(circuit, repetitions=repetitions)
        m = result.records["m"][:, :, 0]
        ones = [np.flatnonzero(row) for row in m]
        loops = np.array([found[1] for found in ones])  # the loop's last measurement
        for found, k in zip(ones, loops):
            np.testing.assert_array_equal(found, [0, k, k + 1])
        assert m.shape[1] == loops.max() + 2
        assert np.all(result.records["b"] == 1)
    for k in (1, 2, 3):
        p = 0.5**k
        found = np.count_nonzero(loops == k)
        assert abs(found - shots * p) <= 5 * np.sqrt(shots * p * (1 - p)), (k, found)
    assert gq.counts(gq.from_cirq(circuit), 500, seed=2) == {"1111": 500}


def test_repeat_until_with_key_maps_inside_repeated_subcircuits_names_keys_as_cirq():
    """A loop whose key ``m`` is mapped to ``z``, inside a subcircuit repeated twice with
    and without repetition ids: the keys (``z``, or ``0:z`` and ``1:z``) are Cirq's, and
    each repetition's loop ends on a 1 (ry(1.2) then measure: the first run succeeds with
    probability sin^2(0.6), later runs of a collapsed qubit alike)."""
    a, b = cirq.LineQubit.range(2)
    body = cirq.FrozenCircuit(cirq.ry(1.2).on(a), cirq.measure(a, key="m"))
    loop = _until(body, "m", measurement_key_map={"m": "z"})
    for ids in (False, True):
        outer = cirq.CircuitOperation(
            cirq.FrozenCircuit(loop, cirq.X(b).with_classical_controls("z")),
            repetitions=2, use_repetition_ids=ids,
        )  # fmt: skip
        circuit = cirq.Circuit(outer, cirq.measure(b, key="b"))
        theirs = cirq.Simulator(seed=3).run(circuit, repetitions=50)
        ours = Simulator(seed=3).run(circuit, repetitions=2000)
        assert set(ours.records) == set(theirs.records)
        for key in set(ours.records) - {"b"}:
            ended = ours.records[key][:, :, 0].sum(axis=1)
            np.testing.assert_array_equal(ended, 2 if not ids else 1)
        np.testing.assert_array_equal(ours.records["b"], 0)  # flipped twice


def test_a_repeat_until_that_never_ends_is_stopped_with_a_typed_error():
    a = cirq.LineQubit(0)
    never = cirq.Circuit(_until(cirq.FrozenCircuit(cirq.measure(a, key="m")), "m"))
    with pytest.raises(WhileLoopLimitError, match="had not ended after 100 iterations"):
        Simulator().run(never, repetitions=3)
    with pytest.raises(WhileLoopLimitError, match="ran 100,000 times"):
        gq.counts(gq.from_cirq(never), 3)


def test_an_earlier_measurement_of_a_looped_key_is_refused_where_no_iteration_is_recorded():
    """After a repeat_until loop on ``m``, ``m[-2]`` is the loop's previous iteration: the
    Simulator, recording each, reads it (it is always 0: a failed iteration, or the
    measurement of |0> before the loop); ``from_cirq``, keeping the latest, refuses it."""
    a, b = cirq.LineQubit.range(2)
    body = cirq.FrozenCircuit(cirq.H(a), cirq.measure(a, key="m"))
    earlier = cirq.KeyCondition(cirq.MeasurementKey("m"), index=-2)
    circuit = cirq.Circuit(
        cirq.measure(a, key="m"), _until(body, "m"),
        cirq.X(b).with_classical_controls(earlier), cirq.measure(b, key="b"),
    )  # fmt: skip
    for simulator in (cirq.Simulator(seed=1), Simulator(seed=1)):
        assert not simulator.run(circuit, repetitions=200).records["b"].any()
    with pytest.raises(ArgumentValueError, match="reads an earlier measurement of the key 'm'"):
        gq.from_cirq(circuit)


def test_moment_steps_and_amplitudes_equal_cirqs():
    """``simulate_moment_steps``: on a random unitary circuit every step's state equals
    ``cirq.Simulator``'s; with a mid-circuit measurement and a control on it, each run's
    steps collapse as its logged outcome says (the steps of a run share one history), and
    an empty circuit gives the initial state. ``compute_amplitudes`` picks Cirq's
    amplitudes."""
    circuit = random_circuit(3)
    ours = Simulator(dtype=np.complex128).simulate_moment_steps(circuit)
    theirs = cirq.Simulator(dtype=np.complex128).simulate_moment_steps(circuit)
    steps = 0
    for x, y in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(x.state_vector(), y.state_vector(), atol=1e-12)
        steps += 1
    assert steps == len(circuit.moments)
    a, b, c = cirq.LineQubit.range(3)
    measured = cirq.Circuit(
        cirq.H(a), cirq.CNOT(a, b), cirq.measure(a, key="m"),
        cirq.X(c).with_classical_controls("m"), cirq.ry(0.3).on(b),
    )  # fmt: skip
    for seed in range(6):
        run = list(Simulator(seed=seed, dtype=np.complex128).simulate_moment_steps(measured))
        assert [s.measurements for s in run[:2]] == [{}, {}]
        m = run[-1].measurements["m"][0]
        expected = np.zeros(8, dtype=complex)  # a, b, c with a the highest bit
        expected[7 * m] = np.cos(0.15)  # b = m, then ry(0.3) on it
        expected[4 * m + 2 * (1 - m) + m] = (1 - 2 * m) * np.sin(0.15)
        np.testing.assert_allclose(run[-1].state_vector(), expected, atol=1e-12)
        collapsed = np.abs(run[2].state_vector()) ** 2  # the moment that measures a
        assert abs(collapsed[4 * m : 4 * m + 4].sum() - 1) < 1e-12
    (only,) = Simulator().simulate_moment_steps(cirq.Circuit(), qubit_order=[a], initial_state=1)
    np.testing.assert_allclose(only.state_vector(), [0, 1])
    bell = cirq.Circuit(cirq.H(a), cirq.CNOT(a, b), cirq.ry(0.4).on(c))
    ours = Simulator(dtype=np.complex128).compute_amplitudes(bell, [0, 1, 6, 7])
    theirs = cirq.Simulator(dtype=np.complex128).compute_amplitudes(bell, [0, 1, 6, 7])
    np.testing.assert_allclose(ours, theirs, atol=1e-12)
    with pytest.raises(ArgumentValueError, match=r"bitstrings \[8\] are no basis states"):
        Simulator().compute_amplitudes(bell, [8])


def test_confusion_maps_draw_the_record_and_leave_the_qubits_measured():
    """A measurement with confusion maps on qubit a (2x2) and on b, c (4x4), and an invert
    mask on d: every joint frequency of the record and a later measurement of the same
    qubits is within five sigma of the closed form P(state) M1[a][a'] M2[bc][b'c'] with d
    flipped, for genqsim's shots and for ``cirq.Simulator``'s; the later measurement shows
    the qubits kept what they held. What Cirq runs two ways is refused; ``gq.from_cirq``,
    which has no records apart from the circuit's bits, refuses confusion maps."""
    import itertools

    import genqsim as gq

    a, b, c, d = cirq.LineQubit.range(4)
    m1 = np.array([[0.9, 0.1], [0.3, 0.7]])
    m2 = np.array([[0.7, 0.1, 0.1, 0.1], [0.0, 1.0, 0.0, 0.0],
                   [0.2, 0.2, 0.6, 0.0], [0.0, 0.0, 0.5, 0.5]])  # fmt: skip
    confused = cirq.measure(a, b, c, d, key="m", invert_mask=(False, False, False, True),
                            confusion_map={(0,): m1, (1, 2): m2})  # fmt: skip
    circuit = cirq.Circuit(cirq.ry(1.1).on(a), cirq.H(b), cirq.CNOT(b, c), cirq.H(d), confused,
                           cirq.measure(a, b, c, d, key="after"))  # fmt: skip
    p_a = np.sin(0.55) ** 2
    expected = {}
    for ta, tbc, td, ra, rbc in itertools.product((0, 1), (0, 3), (0, 1), (0, 1), range(4)):
        p = (p_a if ta else 1 - p_a) * 0.5 * 0.5 * m1[ta, ra] * m2[tbc, rbc]
        if p:
            key = ((ra, rbc >> 1, rbc & 1, 1 - td), (ta, tbc >> 1, tbc & 1, td))
            expected[key] = p
    for simulator, shots in ((cirq.Simulator(seed=2), 4000), (Simulator(seed=2), 20000)):
        result = simulator.run(circuit, repetitions=shots)
        found: dict = {}
        for x, y in zip(result.records["m"][:, 0].tolist(), result.records["after"][:, 0].tolist()):
            found[(tuple(x), tuple(y))] = found.get((tuple(x), tuple(y)), 0) + 1
        assert set(found) <= set(expected)
        for key, p in expected.items():
            sigma = np.sqrt(max(shots * p * (1 - p), 1.0))
            assert abs(found.get(key, 0) - shots * p) <= 5 * sigma, (key, found.get(key), p)
    inverted = cirq.measure(a, key="x", invert_mask=(True,), confusion_map={(0,): m1})
    overlapping = cirq.measure(a, b, key="y", confusion_map={(0,): m1, (0, 1): m2})
    for measurement, message in ((inverted, "inverts and confuses"), (overlapping, "overlap")):
        with pytest.raises(ArgumentValueError, match=message):
            Simulator().run(cirq.Circuit(measurement))
    with pytest.raises(ArgumentValueError, match=r"which genqsim\.cirq\.Simulator runs"):
        gq.from_cirq(circuit)


def _random_dynamic_circuit(seed: int) -> tuple[cirq.Circuit, list[str]]:
    """Five layers on three qubits: random rotations, H and CNOTs, then a measurement
    (inverted or not) into a key of its own, then one of: an X under that key, a rotation
    under a SymPy condition on the last two keys, a bit flip under that key, or a reset."""
    rng = np.random.default_rng(seed)
    qubits = cirq.LineQubit.range(3)
    ops: list = []
    keys: list[str] = []
    for layer in range(5):
        for i, q in enumerate(qubits):
            kind = rng.integers(4)
            if kind == 0:
                ops.append(cirq.ry(float(rng.uniform(0, 3))).on(q))
            elif kind == 1:
                ops.append(cirq.H(q))
            elif kind == 2:
                ops.append(cirq.CNOT(q, qubits[(i + 1) % 3]))
        key = f"k{layer}"
        measured = qubits[rng.integers(3)]
        ops.append(cirq.measure(measured, key=key, invert_mask=(bool(rng.integers(2)),)))
        keys.append(key)
        target = qubits[rng.integers(3)]
        kind = rng.integers(4)
        if kind == 0:
            ops.append(cirq.X(target).with_classical_controls(key))
        elif kind == 1 and len(keys) > 1:
            sum_is_one = sympy.Eq(sympy.Symbol(keys[-1]) + sympy.Symbol(keys[-2]), 1)
            condition = cirq.SympyCondition(sum_is_one)
            ops.append(cirq.ry(0.7).on(target).with_classical_controls(condition))
        elif kind == 2:
            ops.append(cirq.bit_flip(0.3).on(target).with_classical_controls(key))
        else:
            ops.append(cirq.reset(target))
    ops.append(cirq.measure(*qubits, key="out"))
    return cirq.Circuit(ops), keys


@pytest.mark.parametrize("seed", [508082495, 883629044])
def test_random_dynamic_circuits_sample_as_cirq_samples_them(seed):
    """Random circuits of mid-circuit measurements with invert masks, classical controls
    (keys, SymPy conditions), controlled channels and resets: the joint frequencies of
    every key's record in genqsim's shots and in ``cirq.Simulator``'s agree within five
    two-sample sigma."""
    circuit, keys = _random_dynamic_circuit(seed)
    shots = 1000  # cirq.Simulator runs these shot by shot: about 1 s per 1,000

    def frequencies(simulator) -> dict:
        result = simulator.run(circuit, repetitions=shots)
        rows = np.concatenate([result.records[k][:, 0, :] for k in [*keys, "out"]], axis=1)
        values, counts = np.unique(rows, axis=0, return_counts=True)
        return {tuple(v): int(c) for v, c in zip(values.tolist(), counts)}

    ours, theirs = frequencies(Simulator(seed=seed)), frequencies(cirq.Simulator(seed=seed))
    for outcome in set(ours) | set(theirs):
        a, b = ours.get(outcome, 0), theirs.get(outcome, 0)
        p = (a + b) / (2 * shots)
        assert abs(a - b) <= 5 * np.sqrt(2 * shots * p * (1 - p)) + 1, (outcome, a, b)
