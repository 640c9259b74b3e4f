"""``gq.expectation`` and ``gq.probabilities`` of circuits with mid-circuit measurements,
resets, conditionals and channels: the mean over their outcomes, checked against an
independent reference, the density matrix's ensemble (which keeps every branch of every
measurement and channel), and closed forms. Before, a state vector ran one history drawn
at random, and both returned that run's values (``+1`` or ``-1`` where the mean is 0).
Terminal measurements stay read-out, left to sampling: the state before them is read."""

from __future__ import annotations

import numpy as np
import pytest
from dynamic_circuits import dynamic_circuit

import genqsim as gq
from genqsim.errors import ArgumentValueError
from genqsim.states import histories

OBSERVABLES = ["Z0", "Z1 Z2", "0.5*X0 X3 + Y1 - 0.25*Z3", "X1 Y2 + Z0 Z1 Z2 Z3"]


def _coin_then_copy() -> gq.Circuit:
    """A fair coin measured on q0, copied onto q1 by a conditional X."""
    c = gq.Circuit(2, n_clbits=1).h(0).measure(0, 0)
    return c.if_(0, 1, gq.Circuit(2).x(1))


def _ensemble(circuit: gq.Circuit, observable: str) -> float:
    state = gq.simulate(circuit, method="density_matrix")
    return float(np.real(complex(state.expectation(observable))))


@pytest.mark.parametrize("seed", range(6))
def test_the_mean_over_every_history_equals_the_density_matrix(seed):
    """Random circuits with mid-circuit measurements, resets, conditionals, a classical
    store and channels (general Kraus and a Pauli mixture): ``"auto"`` and
    ``"statevector"`` follow every history and give the density matrix's value to 1e-10,
    the same on every call, for one observable and for a list."""
    circuit = dynamic_circuit(seed)
    expected = [_ensemble(circuit, o) for o in OBSERVABLES]
    for method in ("auto", "statevector"):
        found = gq.expectation(circuit, OBSERVABLES, method=method)
        np.testing.assert_allclose(found, expected, atol=1e-10)
        for _ in range(2):
            assert gq.expectation(circuit, OBSERVABLES[2], method=method) == pytest.approx(
                expected[2], abs=1e-10
            )


def test_a_coin_copied_by_a_condition_against_closed_forms():
    """The coin and its copy: <Z1> = 0, <Z0 Z1> = 1 (they agree), <X0> = 0 after the
    measurement (every call: no history is drawn); at a point of a parametrised circuit
    (ry(t), measured mid-circuit, then H): <X0> = cos t, as a sweep and bound; in exact
    numbers the same mean, exactly. A terminal measurement is read-out: H then a final
    measurement reads <X0> = 1, the state before it."""
    c = _coin_then_copy()
    for _ in range(3):
        assert gq.expectation(c, ["Z1", "Z0 Z1", "X0"]) == pytest.approx([0, 1, 0], abs=1e-12)
    swept = gq.Circuit(1, n_clbits=1).ry("t", 0).measure(0, 0).h(0)
    for value in (0.3, 1.2):
        expected = np.cos(value)  # P(0) - P(1) after the measurement, then H turns Z to X
        assert gq.expectation(swept, "X0", values={"t": value}) == pytest.approx(expected)
        assert gq.expectation(swept.bind({"t": value}), "X0") == pytest.approx(expected)
    swept_many = gq.expectation(swept, "X0", values={"t": np.array([0.3, 1.2])})
    np.testing.assert_allclose(swept_many, np.cos([0.3, 1.2]), atol=1e-12)
    assert gq.expectation(_coin_then_copy(), "Z0 Z1 + Z1", numbers="sympy") == 1
    for keywords in ({"seed": 1}, {"threads": 1}):  # simulate's own keywords pass through
        assert gq.expectation(c, "Z0 Z1", **keywords) == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_allclose(gq.probabilities(c, **keywords), [0.5, 0, 0, 0.5])
    read_out = gq.Circuit(1, n_clbits=1).h(0).measure(0, 0)
    assert gq.expectation(read_out, "X0") == pytest.approx(1.0, abs=1e-12)


def test_methods_that_run_one_history_are_refused_and_the_count_of_histories_is_bounded(
    monkeypatch,
):
    """MPS runs one history of a measuring circuit: refused, with the methods that
    average; a density matrix, trajectories and Pauli propagation are handed the circuit;
    a circuit with more histories than ``MAX_HISTORIES`` is refused, naming the
    alternatives."""
    c = _coin_then_copy()
    with pytest.raises(ArgumentValueError, match="method='mps' runs one history"):
        gq.expectation(c, "Z1", method="mps")
    assert gq.expectation(c, "Z0 Z1", method="density_matrix") == pytest.approx(1.0, abs=1e-12)
    measured = gq.Circuit(1, n_clbits=1).h(0).measure(0, 0).h(0)  # no conditional
    assert gq.expectation(measured, "X0", method="pauli") == pytest.approx(0.0, abs=1e-12)
    estimate = gq.expectation(c, "Z0 Z1", method="trajectories", trajectories=50, seed=3)
    assert float(getattr(estimate, "mean", estimate)) == pytest.approx(1.0, abs=1e-9)
    monkeypatch.setattr(histories, "MAX_HISTORIES", 1)
    with pytest.raises(ArgumentValueError, match="more than 1 histories"):
        gq.expectation(c, "Z1")


def test_an_empty_observable_reads_zero_on_light_cones_and_whole():
    """An observable with no term is 0 on the light-cone path too (it gave ``None``)."""
    c = gq.Circuit(3).h(0).cx(0, 1).ry(0.4, 2)
    assert gq.expectation(c, gq.PauliSum([])) == 0.0
    assert gq.expectation(c, gq.PauliSum([]), light_cone=False) == 0.0
    assert gq.expectation(c, gq.PauliSum([]), numbers="sympy") == 0


@pytest.mark.parametrize("seed", range(3))
def test_probabilities_are_the_mean_over_every_history(seed):
    """The same random circuits: the probabilities of every qubit and of a subset (in the
    order asked) equal the density matrix's to 1e-10; a parametrised circuit's sweep gives
    each point's mean, and the coin copied by a condition gives 1/2 on |00> and |11>."""
    circuit = dynamic_circuit(seed)
    reference = gq.simulate(circuit, method="density_matrix")
    for qubits in (None, [3, 1]):
        np.testing.assert_allclose(
            gq.probabilities(circuit, qubits, method="statevector"),
            np.asarray(reference.probabilities(qubits), dtype=float),
            atol=1e-10,
        )
    np.testing.assert_allclose(gq.probabilities(_coin_then_copy()), [0.5, 0, 0, 0.5], atol=1e-12)
    swept = gq.Circuit(1, n_clbits=1).ry("t", 0).measure(0, 0).ry(0.5, 0)
    t = np.array([0.3, 1.2])
    found = gq.probabilities(swept, values={"t": t})
    stay = np.cos(0.25) ** 2  # the outcome kept by ry(0.5)
    p0 = np.cos(t / 2) ** 2 * stay + np.sin(t / 2) ** 2 * (1 - stay)
    np.testing.assert_allclose(found, np.stack([p0, 1 - p0], axis=-1), atol=1e-12)
