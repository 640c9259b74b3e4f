"""Linear error propagation on the fast kernels (gq.propagate) against the object path
(numbers="uncertain", the reference), against Monte Carlo sampling of the angles, and for
the correlations it must keep with the user's own variables."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from uncertainties import ufloat, umath

import genqsim as gq

GATES = ["rx", "ry", "rz", "p", "rzz", "rxx", "crx", "pauli"]


@st.composite
def uncertain_circuit(draw, max_qubits=5, max_gates=12):
    """A random circuit whose angles are ufloats (some shared, some functions of others)."""
    n = draw(st.integers(1, max_qubits))
    pool = [ufloat(draw(st.floats(-3, 3)), draw(st.floats(0.001, 0.05))) for _ in range(4)]
    pool.append(2 * pool[0] - pool[1])  # a correlated angle: a function of two others
    c = gq.Circuit(n)
    for _ in range(draw(st.integers(1, max_gates))):
        name = draw(st.sampled_from(GATES if n > 1 else ["rx", "ry", "rz", "p"]))
        angle = draw(st.sampled_from(pool)) if draw(st.booleans()) else draw(st.floats(-3, 3))
        qubits = draw(st.permutations(range(n)))
        if name in ("rzz", "rxx"):
            getattr(c, name)(angle, qubits[0], qubits[1])
        elif name == "crx":
            c.crx(angle, qubits[0], qubits[1])
        elif name == "pauli":
            c.pauli_rotation("XY"[: min(2, n)], angle, qubits[: min(2, n)])
        else:
            getattr(c, name)(angle, qubits[0])
        if n > 1 and draw(st.booleans()):
            c.cx(qubits[0], qubits[1])
    return c


def assert_same_uncertain(fast, reference, tol=1e-12):
    if not hasattr(reference, "std_dev"):  # the object path gives a float when nothing varies
        assert fast.nominal_value == pytest.approx(reference, abs=tol) and fast.std_dev == 0
        return
    assert fast.nominal_value == pytest.approx(reference.nominal_value, abs=tol)
    assert fast.std_dev == pytest.approx(reference.std_dev, rel=1e-9, abs=tol)
    assert (fast - reference).std_dev < 1e-10  # the same linear dependence on the same variables


@settings(max_examples=30, deadline=None)
@given(uncertain_circuit(), st.data())
def test_expectation_matches_the_object_path(circuit, data):
    n = circuit.n_qubits
    observable = data.draw(st.sampled_from(
        ["Z0", "X0"] + ["Z0 Y1 + 0.3*X0"] * (n > 1) + ["Z0 Z1 Z2"] * (n > 2)
    ))  # fmt: skip
    reference = gq.simulate(circuit, numbers="uncertain").expectation(observable)
    run = gq.propagate(circuit)
    assert_same_uncertain(run.expectation(observable), reference)
    assert_same_uncertain(run.expectation(observable, mode="forward"), reference)


@settings(max_examples=20, deadline=None)
@given(uncertain_circuit())
def test_probabilities_match_the_object_path(circuit):
    reference = gq.simulate(circuit, numbers="uncertain")
    run = gq.propagate(circuit)
    for fast, ref in zip(run.probabilities(), reference.probabilities()):
        assert_same_uncertain(fast, ref)
    qubits = list(range(circuit.n_qubits))[::-1][:2]
    for fast, ref in zip(run.probabilities(qubits), reference.probabilities(qubits)):
        assert_same_uncertain(fast, ref)


def test_spread_agrees_with_monte_carlo_sampling_of_the_angles():
    rng = np.random.default_rng(7)
    nominal = rng.uniform(-2, 2, 6)
    sigma = 0.01
    angles = [ufloat(v, sigma) for v in nominal]

    def build(values):
        c = gq.Circuit(3)
        for q in range(3):
            c.ry(values[q], q)
        c.cx(0, 1).cx(1, 2)
        for q in range(3):
            c.rx(values[3 + q], q)
        return c

    propagated = gq.propagate(build(angles)).expectation("Z0 Z1 + X2")
    samples = [
        gq.simulate(build(nominal + sigma * rng.standard_normal(6))).expectation("Z0 Z1 + X2")
        for _ in range(4000)
    ]
    assert np.std(samples) == pytest.approx(propagated.std_dev, rel=0.05)
    assert np.mean(samples) == pytest.approx(propagated.nominal_value, abs=5 * sigma**2 + 1e-3)


def test_results_stay_correlated_with_the_users_variables():
    theta = ufloat(0.7, 0.02)
    run = gq.propagate(gq.Circuit(1).ry(theta, 0))
    z = run.expectation("Z0")
    assert (z - umath.cos(theta)).std_dev < 1e-15  # <Z0> = cos(theta): no spread left
    p0, p1 = run.probabilities()
    assert (p0 + p1).std_dev < 1e-15  # anticorrelated: the total is exactly one


def test_bound_and_shared_angles_are_one_variable():
    (t,) = gq.parameters("t")
    theta = ufloat(0.4, 0.03)
    c = gq.Circuit(2).ry(t, 0).rz(t, 1).crx(t / 2, 0, 1).bind({t: theta})
    run = gq.propagate(c)
    reference = gq.simulate(c, numbers="uncertain").expectation("Z0 X1")
    assert_same_uncertain(run.expectation("Z0 X1"), reference)
    assert len(run.angles) == 2  # theta itself, and theta/2 (its own linear function of theta)


def test_refused_circuits_say_why():
    (t,) = gq.parameters("t")
    with pytest.raises(gq.UnboundParameterError, match="free parameters"):
        gq.propagate(gq.Circuit(1).ry(t, 0))
    noisy = gq.Circuit(1).h(0).depolarizing(ufloat(0.1, 0.01), 0)
    with pytest.raises(gq.NumberTypeError, match="numbers='uncertain'"):
        gq.propagate(noisy)
    with pytest.raises(gq.ArgumentTypeError, match="takes a Circuit"):
        gq.propagate("ry(0.3) q[0];")
    measured = gq.Circuit(1, n_clbits=1).ry(ufloat(0.2, 0.01), 0).measure(0, 0)
    with pytest.raises(gq.NotUnitaryError):
        gq.propagate(measured).expectation("Z0")


@pytest.mark.parametrize("sigma", [0.02, 0.05, 0.1])
def test_second_order_at_an_extremum_matches_the_closed_form(sigma):
    # <Z0> = cos(theta) at theta ~ N(0, sigma^2): E = exp(-s^2/2),
    # Var = (1 + exp(-2 s^2))/2 - exp(-s^2); linear propagation gives no spread at all
    estimate = gq.propagate(gq.Circuit(1).ry(ufloat(0.0, sigma), 0)).second_order("Z0")
    assert estimate.linear.std_dev == 0
    mean = np.exp(-(sigma**2) / 2)
    std = np.sqrt((1 + np.exp(-2 * sigma**2)) / 2 - np.exp(-(sigma**2)))
    assert estimate.mean == pytest.approx(mean, abs=sigma**4)
    assert estimate.std_dev == pytest.approx(std, rel=sigma**2)


def test_second_order_agrees_with_monte_carlo_for_correlated_angles():
    a, b = ufloat(0.05, 0.1), ufloat(np.pi / 2, 0.08)
    angles = [a, b, a + b]  # the third is correlated with the first two

    def build(values):
        return gq.Circuit(2).ry(values[0], 0).rx(values[1], 1).cx(0, 1).ry(values[2], 1)

    estimate = gq.propagate(build(angles)).second_order("Z0 Z1 + X1")
    rng = np.random.default_rng(3)
    draws = rng.normal([a.nominal_value, b.nominal_value], [a.std_dev, b.std_dev], (4000, 2))
    samples = [gq.simulate(build([x, y, x + y])).expectation("Z0 Z1 + X1") for x, y in draws]
    standard_error = np.std(samples) / np.sqrt(len(samples))
    assert estimate.mean == pytest.approx(np.mean(samples), abs=4 * standard_error)
    assert estimate.std_dev == pytest.approx(np.std(samples), rel=0.05)
    assert abs(estimate.linear.nominal_value - estimate.mean) > 3 * standard_error  # a bias


def test_wide_circuits_propagate_in_the_heisenberg_picture():
    """On 100 qubits no state fits: the default mode is Pauli propagation with dual
    coefficients, and the result (value and derivatives with respect to the user's own
    ufloats) equals the adjoint sweep on the observable's light cone, run as a small
    circuit."""
    rng = np.random.default_rng(3)
    angles = [ufloat(rng.uniform(-3, 3), 0.01 + 0.02 * rng.random()) for _ in range(6)]
    n = 100
    c = gq.Circuit(n)
    for q in range(n):
        c.ry(angles[q % 6], q)
    for start in (0, 1):
        for q in range(start, n - 1, 2):
            c.cx(q, q + 1)
    for q in range(n):
        c.rx(angles[(q + 3) % 6] * 0.5 + 0.2, q)
    c.rzz(angles[2], 50, 51)
    wide = gq.propagate(c).expectation("Z50 Z51")
    cone = c.light_cone([50, 51])
    position = {q: i for i, q in enumerate(cone.qubits)}
    small = gq.propagate(cone.compact()).expectation(f"Z{position[50]} Z{position[51]}")
    assert cone.size < 10
    assert wide.nominal_value == pytest.approx(small.nominal_value, abs=1e-12)
    for a in angles:
        assert wide.derivatives.get(a, 0.0) == pytest.approx(
            small.derivatives.get(a, 0.0), abs=1e-12
        )
    assert wide.std_dev == pytest.approx(small.std_dev, rel=1e-10)
    with pytest.raises(gq.GenqsimError):
        gq.propagate(c).probabilities([50])  # a 100-qubit state: refused, typed


def test_second_order_covariance_is_the_packages_own():
    """The covariance the second-order terms use equals ``uncertainties.covariance_matrix``
    for angles that share variables (sums, scaled copies, one value used twice)."""
    from uncertainties import covariance_matrix

    from genqsim.differentiation.propagation import _covariance

    a, b, c = ufloat(0.1, 0.02), ufloat(0.4, 0.05), ufloat(-1.0, 0.3)
    angles = [a, b, a + 2 * b, 3 * c - a, a]
    want = np.array(covariance_matrix(angles), dtype=float)
    np.testing.assert_allclose(_covariance(angles), want, rtol=1e-14, atol=1e-18)
    b.std_dev = 0.5  # read when asked, not kept
    np.testing.assert_allclose(
        _covariance(angles), np.array(covariance_matrix(angles), dtype=float), rtol=1e-14
    )
