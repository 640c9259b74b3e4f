"""Number systems beyond machine complex: SymEngine, mpmath, complex balls, dual numbers and
``uncertainties`` values, each checked against the generic complex128 routine on random
circuits and against an independent reference of its own (closed forms, mpmath at higher
precision, textbook error propagation)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq

from registries import FLOAT_ANGLE_OBJECT_NUMBERS
from strategies import random_circuit

OBJECT_SYSTEMS = FLOAT_ANGLE_OBJECT_NUMBERS


@settings(max_examples=30, deadline=None)
@given(random_circuit(n_max=5), st.sampled_from(OBJECT_SYSTEMS))
def test_every_number_system_matches_the_generic_complex128_routine(circuit, numbers):
    reference = gq.simulate(circuit, backend="numpy", fuse=False).to_numpy()
    psi = gq.simulate(circuit, numbers=numbers)
    got = np.array([psi.numbers.to_complex(a) for a in psi.amplitudes])
    np.testing.assert_allclose(got, reference, atol=1e-10)


def test_names_with_precision_and_bad_names():
    assert gq.get_number_system("mpmath:60").digits == 60
    assert gq.get_number_system("ball:128").bits == 128
    for bad in ("mpmath:abc", "ball:0", "sympy:5", "quaternion"):
        with pytest.raises(gq.UnknownNumberSystemError):
            gq.get_number_system(bad)


# -- SymEngine -----------------------------------------------------------------------------------


def test_symengine_expectation_equals_the_sympy_one():
    a, b = gq.parameters("a b")
    c = gq.Circuit(3).ry(a, 0).rx(b, 1).cx(0, 1).rzz(a + b, 1, 2).h(2).cp(a, 2, 0)
    obs = "Z0 Z1 + 0.5*X2 - Y1 Y2"
    se = gq.simulate(c, numbers="symengine").expectation(obs)
    sp = gq.simulate(c, numbers="sympy").expectation(obs)
    assert gq.to_sympy(se).free_symbols == {a, b}  # the real symbols come back
    difference = gq.lambdify(gq.to_sympy(se) - sp, [a, b])
    grid = np.random.default_rng(3).uniform(-4, 4, size=(2, 50))
    np.testing.assert_allclose(difference(*grid), 0, atol=1e-13)


def test_symengine_conjugates_complex_initial_amplitudes():
    alpha, beta = sympy.symbols("alpha beta")  # complex: no assumptions
    psi = gq.StateVector(np.array([alpha, beta], dtype=object), "symengine")
    norm = gq.to_sympy(psi.norm_squared())
    expected = alpha * sympy.conjugate(alpha) + beta * sympy.conjugate(beta)
    assert sympy.simplify(norm - expected) == 0
    psi.apply(gq.Circuit(1).h(0))
    assert sympy.simplify(gq.to_sympy(psi.norm_squared()) - norm) == 0


def test_lambdify_turns_a_closed_form_into_a_vectorised_function():
    (theta,) = gq.parameters("theta")
    c = gq.Circuit(2).ry(theta, 0).cx(0, 1).rx(theta, 1)
    for numbers in ("sympy", "symengine"):
        psi = gq.simulate(c, numbers=numbers)
        f = gq.lambdify(psi, "theta")
        grid = np.linspace(-3, 3, 7)
        want = np.array([gq.simulate(c.bind({theta: t})).to_numpy() for t in grid])
        np.testing.assert_allclose(f(grid), want, atol=1e-14)
        e = gq.lambdify(psi.expectation("Z0 + X1"), [theta])
        want_e = [gq.simulate(c.bind({theta: t})).expectation("Z0 + X1") for t in grid]
        np.testing.assert_allclose(np.real(e(grid)), want_e, atol=1e-14)


# -- mpmath and balls ----------------------------------------------------------------------------


def _qft_closed_form(n: int, k: int, digits: int) -> list:
    """QFT|k> = sum_j exp(2 pi i j k / 2**n) |j> / sqrt(2**n), at ``digits`` digits."""
    with mpmath.workdps(digits):
        size = 2**n
        return [mpmath.exp(2j * mpmath.pi * j * k / size) / mpmath.sqrt(size) for j in range(size)]


def test_mpmath_qft_agrees_with_the_closed_form_to_its_precision():
    n, k = 5, 11
    psi = gq.simulate(gq.library.qft(n), numbers="mpmath:50", initial=k)
    exact = _qft_closed_form(n, k, 80)
    with mpmath.workdps(80):
        worst = max(abs(mpmath.mpc(a) - e) for a, e in zip(psi.amplitudes, exact))
    assert worst < mpmath.mpf("1e-47")


def test_balls_enclose_the_exact_amplitudes_and_tighten_with_precision():
    import flint

    n, k = 4, 5
    size = 2**n
    saved, flint.ctx.prec = flint.ctx.prec, 400
    try:  # the closed form, itself enclosed in 400-bit balls
        exact = [
            (flint.acb(0, 2 * j * k) * flint.acb.pi() / size).exp() / flint.acb(size).sqrt()
            for j in range(size)
        ]
    finally:
        flint.ctx.prec = saved
    widths = []
    for bits in (53, 200):
        psi = gq.simulate(gq.library.qft(n), numbers=f"ball:{bits}", initial=k)
        # the exact value lies in e (radius 1e-120), so overlapping it means containing it
        assert all(ball.overlaps(e) for ball, e in zip(psi.amplitudes, exact))
        widths.append(max(psi.numbers.radius(a) for a in psi.amplitudes))
    assert widths[1] < 1e-50 < 1e-20 < widths[0] < 1e-13


def test_ball_symbolic_angles_are_enclosed_exactly():
    psi = gq.simulate(gq.Circuit(1).rx(sympy.pi / 3, 0), numbers="ball:128")
    # Rx(pi/3)|0> = cos(pi/6)|0> - i sin(pi/6)|1> = sqrt(3)/2 |0> - i/2 |1>
    with psi.numbers.context():
        import flint

        assert flint.acb(flint.arb(3).sqrt() / 2) in psi.amplitudes[0]
        assert flint.acb(0, -0.5) in psi.amplitudes[1]
    assert psi.numbers.radius(psi.amplitudes[0]) < 1e-35


# -- error bounds and interval states ------------------------------------------------------------


def _max_true_error(circuit, dtype: str) -> float:
    floats = gq.simulate(circuit, numbers=dtype).to_numpy()
    exact = gq.simulate(circuit, numbers="mpmath:40").amplitudes
    with mpmath.workdps(40):
        return float(max(abs(mpmath.mpc(complex(f)) - e) for f, e in zip(floats, exact)))


@pytest.mark.parametrize("method", ["ball", "interval"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_error_bound_holds_and_is_tight_for_a_qft(method, dtype):
    c = gq.library.qft(6)
    bound = gq.error_bound(c, dtype, enclosure=method)
    true = _max_true_error(c, dtype)
    assert true <= bound.max_amplitude_error
    if dtype == "complex64":  # the float32 error dominates: the bound is nearly exact
        assert bound.max_amplitude_error <= 1.01 * true + 1e-13
    assert bound.norm_error >= bound.max_amplitude_error
    assert "complex" in str(bound)


@settings(max_examples=25, deadline=None)
@given(random_circuit(n_max=5))
def test_interval_state_encloses_the_exact_state(circuit):
    enclosure = gq.enclose(circuit)
    exact = gq.simulate(circuit, numbers="mpmath:40").amplitudes
    with mpmath.workdps(40):
        for m, r, e in zip(enclosure.midpoint, enclosure.radius, exact):
            assert abs(mpmath.mpc(complex(m)) - e) <= mpmath.mpf(float(r))
    lower, upper = enclosure.probability_bounds()
    p = np.array([abs(complex(e)) ** 2 for e in exact])
    assert np.all(lower <= p + 1e-300) and np.all(p <= upper)


def test_interval_state_rejects_unbound_parameters_and_measurements():
    with pytest.raises(gq.UnboundParameterError):
        gq.enclose(gq.Circuit(1).rx("a", 0))
    with pytest.raises(gq.NotUnitaryError):
        gq.enclose(gq.Circuit(1).h(0).reset(0))
    with pytest.raises(ValueError, match="dtype"):
        gq.error_bound(gq.Circuit(1).h(0), "float16")


# -- uncertainties ---------------------------------------------------------------------------------


def test_uncertain_angle_propagates_like_the_textbook_formula():
    from uncertainties import ufloat

    theta, sigma = 0.7, 0.02
    psi = gq.simulate(gq.Circuit(1).ry(ufloat(theta, sigma), 0), numbers="uncertain")
    p0, p1 = psi.probabilities()
    # P1 = sin^2(theta/2): dP1/dtheta = sin(theta)/2
    assert math.isclose(p1.nominal_value, math.sin(theta / 2) ** 2, rel_tol=1e-14)
    assert math.isclose(p1.std_dev, abs(math.sin(theta)) / 2 * sigma, rel_tol=1e-12)
    total = p0 + p1  # fully anticorrelated: the sum is exactly 1 with no spread
    assert math.isclose(total.nominal_value, 1.0) and total.std_dev < 1e-15
    z = psi.expectation("Z0")  # <Z> = cos(theta)
    assert math.isclose(z.std_dev, math.sin(theta) * sigma, rel_tol=1e-12)


def test_uncertain_parameters_need_the_uncertain_numbers():
    from uncertainties import ufloat

    c = gq.Circuit(1).rx(ufloat(0.3, 0.01), 0)
    with pytest.raises(gq.NumberTypeError, match="uncertain"):
        gq.simulate(c)


# -- dual numbers ----------------------------------------------------------------------------------


def test_dual_amplitudes_carry_exact_derivatives():
    a, b = gq.parameters("a b")
    c = gq.Circuit(2).ry(a, 0).crx(b, 0, 1).p(a * b, 1)
    values = {a: 0.4, b: -1.3}
    psi = gq.simulate(c, numbers=gq.DualNumbers(values))
    symbolic = gq.simulate(c, numbers="sympy").amplitudes
    for amp, expr in zip(psi.amplitudes, symbolic):
        for k, p in enumerate((a, b)):
            want = complex(sympy.diff(expr, p).subs(values).evalf(20))
            got = 0 if gq.Dual.lift(amp).partials is None else amp.partials[k]
            assert abs(got - want) < 1e-13


def test_dual_numbers_refuse_parameters_they_were_not_seeded_with():
    a, b = gq.parameters("a b")
    with pytest.raises(gq.UnboundParameterError, match="b"):
        gq.simulate(gq.Circuit(1).rx(a, 0).ry(b, 0), numbers=gq.DualNumbers({a: 0.1}))


def test_uncertain_values_for_the_symbols_of_a_symbolic_circuit():
    from uncertainties import ufloat

    from genqsim.numbers.uncertain import UncertainNumbers

    (theta,) = gq.parameters("theta")
    c = gq.Circuit(2).ry(2 * theta + sympy.pi / 8, 0).cx(0, 1)
    numbers = UncertainNumbers({theta: ufloat(0.4, 0.01)})
    psi = gq.simulate(c, numbers=numbers)
    zz = psi.expectation("X0 X1")  # sin(2 theta + pi/8): sigma = |2 cos(2 theta + pi/8)| * 0.01
    angle = 0.8 + math.pi / 8
    assert math.isclose(zz.nominal_value, math.sin(angle), rel_tol=1e-13)
    assert math.isclose(zz.std_dev, abs(2 * math.cos(angle)) * 0.01, rel_tol=1e-12)
    with pytest.raises(gq.UnboundParameterError, match="theta"):
        gq.simulate(c, numbers="uncertain")


def test_bind_takes_uncertain_values_and_keeps_their_correlations():
    from uncertainties import ufloat, umath

    t, s = gq.parameters("t s")
    angle = ufloat(0.3, 0.01)
    bound = gq.Circuit(2).ry(t, 0).rz(t / 2 + s, 1).cx(0, 1).bind({t: angle, s: 0.1})
    direct = gq.Circuit(2).ry(angle, 0).rz(angle / 2 + 0.1, 1).cx(0, 1)
    z_bound = gq.simulate(bound, numbers="uncertain").expectation("Z0")
    z_direct = gq.simulate(direct, numbers="uncertain").expectation("Z0")
    assert z_bound.nominal_value == pytest.approx(z_direct.nominal_value, abs=1e-15)
    assert z_bound.std_dev == pytest.approx(z_direct.std_dev, rel=1e-12)
    # <Z0> = cos(t) exactly here: the difference from the user's own cos(angle) has no spread,
    # because the result depends on the very variable the user made
    difference = z_bound - umath.cos(angle)
    assert abs(difference.nominal_value) < 1e-15 and difference.std_dev < 1e-15
    with pytest.raises(gq.NumberTypeError, match="s left unbound"):
        gq.Circuit(1).rz(t * s, 0).bind({t: angle})
    with pytest.raises(gq.NonFiniteError, match="not finite"):
        gq.Circuit(1).rz(t, 0).bind({t: ufloat(float("nan"), 0.1)})
