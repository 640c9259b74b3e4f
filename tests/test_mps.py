"""Matrix-product states (``method="mps"``): against the generic dense state vector on random
circuits, with and without a conserved charge; truncation error against the true discarded
weight; TEBD error orders against the exact ``expm``; readout against dense references."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim import library
from genqsim.errors import (
    ArgumentValueError,
    ChargeViolationError,
    NumberTypeError,
    QubitIndexError,
    StateShapeError,
)
from genqsim.mps import MPSState, Truncation
from genqsim.mps.tebd import tebd

from reference import kron_all
from strategies import random_circuit

X = np.array([[0, 1], [1, 0]], dtype=complex)
Y = np.array([[0, -1j], [1j, 0]], dtype=complex)
Z = np.diag([1.0, -1.0]).astype(complex)
LETTERS = {"I": np.eye(2), "X": X, "Y": Y, "Z": Z}


def dense_reference(circuit: gq.Circuit, initial=None) -> np.ndarray:
    return gq.simulate(circuit, backend="numpy", initial=initial).to_numpy()


def dense_operator(hamiltonian: str | gq.PauliSum, n: int) -> np.ndarray:
    """A Pauli sum as a ``kron``-built matrix (highest qubit first in the products)."""
    out = np.zeros((1 << n, 1 << n), dtype=complex)
    for coeff, pauli in gq.PauliSum.coerce(hamiltonian).terms:
        letters = dict(pauli)
        out += complex(coeff) * kron_all([LETTERS[letters.get(q, "I")] for q in reversed(range(n))])
    return out


def excitation_preserving(theta: float, phi: float) -> np.ndarray:
    """``exp(-i theta (XX + YY) / 2)`` then a controlled phase: an fSim gate."""
    xy = np.kron(X, X) + np.kron(Y, Y)
    return scipy.linalg.expm(-0.5j * theta * xy) @ np.diag([1, 1, 1, np.exp(1j * phi)])


@st.composite
def conserving_circuit(draw, n_min=2, n_max=8):
    """Random circuits of particle-conserving gates on any qubits (neighbours or not)."""
    n = draw(st.integers(n_min, n_max))
    c = gq.Circuit(n)
    angle = st.floats(-3.2, 3.2, allow_nan=False)
    for _ in range(draw(st.integers(1, 14))):
        a, b, e = draw(st.permutations(range(n)))[:3] if n >= 3 else (0, 1, None)
        kind = draw(
            st.sampled_from(["fsim", "iswap", "swap", "rz", "cp", "rzz", "cswap", "givens"])
        )
        if kind == "fsim":
            c.unitary(excitation_preserving(draw(angle), draw(angle)), [a, b])
        elif kind == "iswap":
            c.iswap(a, b)
        elif kind == "swap":
            c.swap(a, b)
        elif kind == "rz":
            c.rz(draw(angle), a)
        elif kind == "cp":
            c.cp(draw(angle), a, b)
        elif kind == "rzz":
            c.rzz(draw(angle), a, b)
        elif kind == "cswap" and e is not None:
            c.cswap(e, a, b)
        elif kind == "givens":
            t = draw(angle)
            g = np.eye(4, dtype=complex)
            g[1:3, 1:3] = [[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]
            c.unitary(g, [a, b])
    return c


@settings(max_examples=40, deadline=None)
@given(random_circuit(n_min=1, n_max=7))
def test_mps_equals_the_dense_state_on_random_circuits(circuit):
    """Every gate kind (dense, diagonal, permutation, multi-target, controlled, Pauli
    rotations) on any qubits, without truncation: the same state to 1e-10."""
    mps = gq.simulate(circuit, method="mps")
    np.testing.assert_allclose(mps.to_numpy(), dense_reference(circuit), atol=1e-10)
    assert mps.truncation_error < 1e-20


@settings(max_examples=15, deadline=None)
@given(random_circuit(n_min=2, n_max=6))
def test_complex64_mps_follows_the_dense_state(circuit):
    mps = gq.simulate(circuit, method="mps", numbers="complex64")
    assert mps.to_numpy().dtype == np.complex64
    np.testing.assert_allclose(mps.to_numpy(), dense_reference(circuit), atol=2e-5)


@settings(max_examples=40, deadline=None)
@given(conserving_circuit(), st.data(), st.sampled_from(["N", "Sz"]))
def test_charge_conserving_mps_equals_the_dense_state(circuit, data, conserve):
    """With a conserved charge: the same state, the total charge of the initial bits, and
    each bond's charge sectors carrying exactly the weight the dense state has there."""
    n = circuit.n_qubits
    bits = "".join(data.draw(st.lists(st.sampled_from("01"), min_size=n, max_size=n)))
    mps = gq.simulate(circuit, method="mps", conserve=conserve, initial=bits)
    psi = dense_reference(circuit, initial=bits)
    np.testing.assert_allclose(mps.to_numpy(), psi, atol=1e-10)
    ones = bits.count("1")
    assert mps.total_charge == (ones if conserve == "N" else n - 2 * ones)
    weights = np.abs(psi) ** 2
    for cut in range(1, n):
        # the charge of the first ``cut`` qubits of every basis state, and its weight
        left_ones = np.array([bin(i & ((1 << cut) - 1)).count("1") for i in range(1 << n)])
        left_charge = left_ones if conserve == "N" else cut - 2 * left_ones
        sectors = mps.bond_charges(cut)
        values = mps._net.schmidt[cut]
        for q in set(left_charge[weights > 1e-20]):
            expected = weights[left_charge == q].sum()
            assert abs(float(np.sum(values.get(q, np.zeros(1)) ** 2)) - expected) < 1e-10
        assert set(sectors) <= set(left_charge)


def test_charge_conserving_and_plain_mps_agree_on_a_hardcore_boson_walk():
    n = 10
    c = gq.Circuit(n)
    for layer in range(6):
        for q in range(layer % 2, n - 1, 2):
            c.unitary(excitation_preserving(0.4 + 0.1 * q, 0.2), [q, q + 1])
    plain = gq.simulate(c, method="mps", initial="0000110000")
    kept = gq.simulate(c, method="mps", initial="0000110000", conserve="N")
    np.testing.assert_allclose(plain.to_numpy(), kept.to_numpy(), atol=1e-12)
    assert kept.bond_dimensions == plain.bond_dimensions


def test_a_gate_that_breaks_the_charge_is_refused_and_nothing_changes():
    state = MPSState.basis("0101", conserve="N")
    before = state.to_numpy()
    with pytest.raises(ChargeViolationError, match=r"gate h on \[2\]"):
        state.apply(gq.Circuit(4).iswap(0, 1).h(2))
    np.testing.assert_array_equal(state.to_numpy(), before)
    with pytest.raises(ChargeViolationError, match="rx"):
        gq.simulate(gq.Circuit(3).rx(0.3, 1), method="mps", conserve="Sz")


def test_truncation_error_is_the_discarded_weight():
    """One truncated SVD: the reported error equals 1 - |<exact|truncated>|**2 (1e-12)."""
    n = 8
    rng = np.random.default_rng(5)
    c = gq.Circuit(n)
    for layer in range(6):
        for q in range(layer % 2, n - 1, 2):
            c.unitary(
                np.linalg.qr(rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4)))[0], [q, q + 1]
            )
    state = gq.simulate(c, method="mps")
    assert state.truncation_error < 1e-20
    gate = gq.Circuit(n).unitary(
        np.linalg.qr(rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4)))[0], [3, 4]
    )
    exact = dense_reference(c + gate)
    state.truncation = Truncation(max_bond=3)
    state.apply(gate)
    assert state.bond_dimensions[3] == 3
    fidelity = abs(np.vdot(exact, state.to_numpy())) ** 2
    assert abs((1 - fidelity) - state.truncation_error) < 1e-12
    assert state.truncation_error > 1e-3  # the test truncates something real


def test_cutoff_keeps_the_discarded_weight_below_it():
    rng = np.random.default_rng(2)
    vector = rng.normal(size=256) + 1j * rng.normal(size=256)
    vector /= np.linalg.norm(vector)
    state = MPSState.from_vector(vector, truncation=Truncation(cutoff=1e-2))
    spectrum = MPSState.from_vector(vector).schmidt_values(4) ** 2
    kept = state.bond_dimensions[3]
    assert spectrum[kept:].sum() <= 1e-2 < spectrum[kept - 1 :].sum()
    assert 0 < state.truncation_error


@pytest.mark.parametrize("order, slope", [(1, 1), (2, 2), (4, 4)])
def test_tebd_error_falls_with_its_order(order, slope):
    """XXZ chain with a field, from a Neel state: the error against ``expm`` halves ``order``
    times per halving of the step (slope of log error over log step)."""
    n = 8
    h = (
        " + ".join(f"X{i} X{i + 1} + Y{i} Y{i + 1} + 0.7*Z{i} Z{i + 1}" for i in range(n - 1))
        + " + 0.3*Z2"
    )
    psi0 = np.zeros(1 << n, dtype=complex)
    psi0[int("01010101", 2)] = 1
    exact = scipy.linalg.expm(-1j * dense_operator(h, n)) @ psi0
    errors = []
    for steps in (4, 8, 16):
        state = MPSState.basis("01010101", conserve="Sz")
        tebd(state, h, 1.0 / steps, steps, order)
        errors.append(np.linalg.norm(state.to_numpy() - exact))
    slopes = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(np.abs(slopes - slope) < 0.1), slopes


def test_tebd_observes_and_refuses_long_range_terms():
    state = MPSState.basis("0110")
    seen = tebd(
        state,
        "Z0 Z1 + X1 X2 + Y2 Y3",
        0.1,
        4,
        observe=lambda s, t: (t, s.expectation("Z0")),
        every=2,
    )
    assert [t for t, _ in seen] == pytest.approx([0.0, 0.2, 0.4])
    with pytest.raises(ArgumentValueError, match="X0 X2"):
        tebd(state, "X0 X2", 0.1, 1)
    with pytest.raises(ChargeViolationError):
        tebd(MPSState.basis("0110", conserve="N"), "X0 + Z0 Z1", 0.1, 1)


def test_trotter_circuits_run_unchanged_on_mps():
    h = "X0 X1 + Y0 Y1 + Z1 Z2 + 0.5*X2 X3 + 0.5*Y2 Y3 + 0.2*Z3"
    c = library.trotter(h, 0.7, steps=3, order=2, n_qubits=5)
    kept = gq.simulate(c, method="mps", conserve="N", initial="00101")
    np.testing.assert_allclose(kept.to_numpy(), dense_reference(c, "00101"), atol=1e-10)


@settings(max_examples=20, deadline=None)
@given(random_circuit(n_min=2, n_max=6), st.data())
def test_readout_matches_the_dense_state(circuit, data):
    """Marginals (any qubit order), Pauli sums, amplitudes, entropies, overlaps."""
    n = circuit.n_qubits
    mps = gq.simulate(circuit, method="mps")
    psi = gq.simulate(circuit, backend="numpy")
    qubits = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    np.testing.assert_allclose(mps.probabilities(qubits), psi.probabilities(qubits), atol=1e-10)
    np.testing.assert_allclose(mps.probabilities(), psi.probabilities(), atol=1e-10)
    words = data.draw(st.lists(st.text("IXYZ", min_size=n, max_size=n), min_size=1, max_size=3))
    obs = gq.PauliSum(
        (k + 1, {q: w for q, w in enumerate(word) if w != "I"}) for k, word in enumerate(words)
    )
    expected = np.vdot(psi.to_numpy(), dense_operator(obs, n) @ psi.to_numpy()).real
    assert mps.expectation(obs) == pytest.approx(expected, abs=1e-10)
    bits = "".join(data.draw(st.lists(st.sampled_from("01"), min_size=n, max_size=n)))
    assert mps.amplitude(bits) == pytest.approx(psi.to_numpy()[int(bits, 2)], abs=1e-10)
    for cut in range(1, n):
        assert mps.entanglement_entropy(cut) == pytest.approx(
            psi.entanglement_entropy(list(range(cut))), abs=1e-8
        )
    other = gq.simulate(library.qft(n), method="mps")
    assert mps.inner(other) == pytest.approx(np.vdot(psi.to_numpy(), other.to_numpy()), abs=1e-10)


def test_local_operators_and_correlations():
    c = gq.Circuit(5).h(0).cx(0, 3).ry(0.4, 2).cx(2, 4).rx(0.3, 1)
    mps = gq.simulate(c, method="mps")
    psi = dense_reference(c)
    number = np.diag([0.0, 1.0])
    corr = mps.correlation(number, Z)
    for i in range(5):
        for j in range(5):
            ops = [np.eye(2)] * 5
            if i == j:
                ops[i] = number @ Z
            else:
                ops[i], ops[j] = number, Z
            expected = np.vdot(psi, kron_all(ops[::-1]) @ psi)
            assert corr[i, j] == pytest.approx(expected, abs=1e-12)
    with pytest.raises(StateShapeError):
        mps.expectation_local({0: np.eye(3)})
    with pytest.raises(QubitIndexError):
        mps.expectation_local({7: Z})


def test_sampling_follows_the_probabilities():
    c = gq.Circuit(6).h(0).cx(0, 1).ry(1.1, 2).cx(2, 5).h(4).cz(4, 5).ry(0.5, 3)
    mps = gq.simulate(c, method="mps")
    psi = gq.simulate(c, backend="numpy")
    shots = 20000
    for qubits in (None, [5, 2], [3]):
        counts = mps.sample(shots, seed=3, qubits=qubits)
        p = psi.probabilities(qubits)
        width = 6 if qubits is None else len(qubits)
        freq = np.zeros(p.size)
        for key, k in counts.items():
            assert len(key) == width
            freq[int(key, 2)] = k / shots
        assert np.abs(freq - p).sum() < 0.03
    assert mps.sample(50, seed=7) == mps.sample(50, seed=7)


def test_measurement_collapses_onto_the_projected_state():
    rng = np.random.default_rng(4)
    vector = rng.normal(size=64) + 1j * rng.normal(size=64)
    vector /= np.linalg.norm(vector)
    for seed in range(4):
        mps = MPSState.from_vector(vector)
        outcome = mps.measure([4, 1], seed=seed)
        index = np.arange(64)
        # qubits[0] (qubit 4) is the rightmost character
        keep = ((index >> 4) & 1 == int(outcome[1])) & ((index >> 1) & 1 == int(outcome[0]))
        projected = np.where(keep, vector, 0)
        projected /= np.linalg.norm(projected)
        np.testing.assert_allclose(mps.to_numpy(), projected, atol=1e-10)
        whole = MPSState.from_vector(vector)
        bits = whole.measure(seed=seed)
        assert abs(whole.amplitude(bits)) == pytest.approx(1.0)


def test_mid_circuit_measurement_reset_and_conditionals():
    c = gq.Circuit(4).h(0).cx(0, 1).measure(1, 0).if_([0], 1, gq.Circuit(4).x(3)).reset(0).reset(1)
    for seed in range(6):
        mps = gq.simulate(c, method="mps", seed=seed)
        bit = mps.clbits[0]
        expected = np.zeros(16)
        expected[8 * bit] = 1
        np.testing.assert_allclose(np.abs(mps.to_numpy()), expected, atol=1e-12)
    # a reset moves the charges of a conserving state with it
    walk = gq.Circuit(4).unitary(excitation_preserving(0.8, 0.0), [1, 2]).reset(2)
    outcomes = set()
    for seed in range(12):
        kept = gq.simulate(walk, method="mps", conserve="N", initial="0100", seed=seed)
        # the particle was found on qubit 2 and reset (charge 0) or is on qubit 1 (charge 1)
        expected = "0010" if kept.total_charge == 1 else "0000"
        assert abs(kept.amplitude(expected)) == pytest.approx(1.0)
        outcomes.add(kept.total_charge)
    assert outcomes == {0, 1}


def test_noise_channels_are_drawn_as_trajectories():
    flips = 0
    runs = 400
    for seed in range(runs):
        state = gq.simulate(gq.Circuit(3).bit_flip(0.3, 1), method="mps", seed=seed)
        flips += round(abs(state.amplitude("010")) ** 2)
    assert abs(flips / runs - 0.3) < 4 * np.sqrt(0.3 * 0.7 / runs)
    damped = gq.simulate(gq.Circuit(2).x(1).amplitude_damping(1.0, 1), method="mps", seed=0)
    assert abs(damped.amplitude("00")) == pytest.approx(1.0)


def test_construction_errors():
    with pytest.raises(NumberTypeError, match="machine numbers"):
        gq.simulate(gq.Circuit(2).h(0), method="mps", numbers="sympy")
    with pytest.raises(ArgumentValueError, match="conserve"):
        gq.simulate(gq.Circuit(2).h(0), method="mps", conserve="Q")
    with pytest.raises(ArgumentValueError, match="max_bond"):
        gq.simulate(gq.Circuit(2).h(0), method="mps", max_bond=0)
    with pytest.raises(ArgumentValueError, match="norm"):
        MPSState.from_vector(np.ones(8))
    with pytest.raises(ArgumentValueError, match="mixes charge sectors"):
        MPSState.from_vector(np.ones(4) / 2, conserve="N")
    with pytest.raises(ArgumentValueError, match="cut"):
        MPSState.basis("000").entanglement_entropy(3)
    with pytest.raises(ArgumentValueError, match="device"):
        MPSState.basis("01", device="tpu")


def test_dense_round_trip_with_charges():
    rng = np.random.default_rng(9)
    n = 8
    sector = np.array([bin(i).count("1") == 3 for i in range(1 << n)])
    vector = np.where(sector, rng.normal(size=1 << n) + 1j * rng.normal(size=1 << n), 0)
    vector /= np.linalg.norm(vector)
    state = MPSState.from_vector(vector, conserve="N")
    np.testing.assert_allclose(state.to_numpy(), vector, atol=1e-12)
    assert state.total_charge == 3
    assert set(state.bond_charges(4)) == {0, 1, 2, 3}


def test_tebd_takes_bond_matrices():
    """The same evolution from a Pauli sum and from its bond matrices; bad matrices refused."""
    h = "X0 X1 + Y0 Y1 + 0.5*Z1 Z2 + 0.2*Z2"
    xx_yy = np.kron(X, X) + np.kron(Y, Y)
    bonds = [xx_yy, 0.5 * np.kron(Z, Z) + 0.2 * np.kron(np.eye(2), Z)]
    a, b = MPSState.basis("001"), MPSState.basis("001")
    tebd(a, h, 0.1, 5)
    tebd(b, bonds, 0.1, 5)
    np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), atol=1e-12)
    with pytest.raises(ArgumentValueError, match="Hermitian"):
        tebd(b, [xx_yy, 1j * np.eye(4)], 0.1, 1)
    with pytest.raises(ArgumentValueError, match="2 bonds"):
        tebd(b, [xx_yy], 0.1, 1)


def test_command_line_runs_mps(capsys):
    """``--method mps``: a 40-qubit GHZ state sampled, its settings printed; MPS options
    without the method are refused."""
    from genqsim.cli.main import main

    assert main(["run", "ghz:40", "--method", "mps", "--shots", "50", "--seed", "1",
                 "--observable", "Z0 Z39", "--format", "json"]) == 0  # fmt: skip
    import json

    result = json.loads(capsys.readouterr().out)
    assert result["mps"]["max_bond"] == 2
    assert set(result["counts"]) == {"0" * 40, "1" * 40}
    assert result["expectation"]["value"] == pytest.approx(1.0)
    assert main(["run", "ghz:3", "--max-bond", "2"]) == 2
    assert "--max-bond applies to --method mps" in capsys.readouterr().err


@pytest.mark.parametrize("conserve", [None, "N"])
def test_fourteen_qubit_random_circuits_without_truncation(conserve):
    """The acceptance size: 14 qubits, brick layers of random two-qubit gates (conserving
    ones with ``conserve="N"``) plus long-range ones, against the dense state (1e-10)."""
    n = 14
    rng = np.random.default_rng(14)
    c = gq.Circuit(n)
    for layer in range(8):
        for q in range(layer % 2, n - 1, 2):
            if conserve:
                c.unitary(excitation_preserving(*rng.uniform(-3, 3, 2)), [q, q + 1])
            else:
                c.unitary(np.linalg.qr(rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4)))[0],
                          [q, q + 1])  # fmt: skip
        if layer < 4:  # long-range gates (SWAP updates) while the bonds are still small
            a, b, e = (int(q) for q in rng.choice(n, 3, replace=False))
            c.cp(rng.uniform(-3, 3), a, b)
            if not conserve:
                c.ccx(a, b, e)
    bits = "01" * (n // 2)
    mps = gq.simulate(c, method="mps", conserve=conserve, initial=bits)
    np.testing.assert_allclose(mps.to_numpy(), dense_reference(c, bits), atol=1e-10)
    assert mps.max_bond_dimension > 16  # entangled enough to mean something


def test_counts_of_a_41_qubit_repetition_code_run_shot_by_shot():
    """21 data qubits turned by rx(0.3) (each reads 1 with probability sin^2(0.15)), two
    rounds of parity checks on 20 ancillas between them (measured, then reset): a state
    vector of 41 qubits would need 32 TiB. Z parities commute with the data's readout, so
    the data bits are independent coins, every syndrome bit is the parity of its two data
    bits, and the second round repeats the first."""
    n_data = 21
    n = 2 * n_data - 1  # data on even sites, the ancilla of each pair between them
    c = gq.Circuit(n, n_clbits=2 * (n_data - 1) + n_data)
    for d in range(n_data):
        c.rx(0.3, 2 * d)
    for round_ in range(2):
        for a in range(n_data - 1):
            ancilla = 2 * a + 1
            c.cx(ancilla - 1, ancilla).cx(ancilla + 1, ancilla)
            c.measure(ancilla, round_ * (n_data - 1) + a).reset(ancilla)
    for d in range(n_data):
        c.measure(2 * d, 2 * (n_data - 1) + d)
    shots = 1000
    counts = gq.counts(c, shots, seed=4, method="mps")
    assert sum(counts.values()) == shots
    ones = np.zeros(n_data)
    for key, k in counts.items():
        bits = [int(b) for b in reversed(key)]
        data = bits[2 * (n_data - 1) :]
        first, second = bits[: n_data - 1], bits[n_data - 1 : 2 * (n_data - 1)]
        assert first == second == [data[a] ^ data[a + 1] for a in range(n_data - 1)]
        ones += k * np.array(data)
    p = np.sin(0.15) ** 2
    assert np.all(np.abs(ones / shots - p) <= 5 * np.sqrt(p * (1 - p) / shots))
