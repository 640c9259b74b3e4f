"""Exact symbolic simulation with SymPy numbers."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import genqsim as gq


def test_blog_example_diagonal_on_symbolic_state():
    """X.-Z. Luo, Build your own top performance quantum circuit simulator in one day: state
    [1, a, 0, 0] with diag(exp(-i theta), exp(i theta)) on qubit 0."""
    a, theta = sympy.symbols("a theta")
    psi = gq.StateVector(np.array([1, a, 0, 0], dtype=object), numbers="sympy")
    psi.apply(
        gq.Circuit(2).unitary(
            sympy.diag(sympy.exp(-sympy.I * theta), sympy.exp(sympy.I * theta)), [0]
        )
    )
    expected = [sympy.exp(-sympy.I * theta), a * sympy.exp(sympy.I * theta), 0, 0]
    assert [sympy.simplify(x - y) for x, y in zip(psi.amplitudes, expected)] == [0, 0, 0, 0]
    # the diagonal matrix was recognised as diagonal and applied with the diagonal primitive
    assert psi.backend.name == "numpy"
    assert gq.MatrixGate(sympy.diag(sympy.exp(-sympy.I * theta), 1)).kind is gq.GateKind.DIAGONAL


def test_hadamard_is_exact():
    psi = gq.simulate(gq.Circuit(1).h(0), numbers="sympy")
    assert list(psi.amplitudes) == [sympy.sqrt(2) / 2, sympy.sqrt(2) / 2]
    assert list(psi.probabilities()) == [sympy.Rational(1, 2), sympy.Rational(1, 2)]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_qft_exact_on_every_basis_state(n):
    N = 2**n
    c = gq.library.qft(n)
    for j in range(N):
        psi = gq.simulate(c, numbers="sympy", initial=j)
        for k, amp in enumerate(psi.amplitudes):
            expected = sympy.exp(2 * sympy.pi * sympy.I * j * k / N) / sympy.sqrt(N)
            assert sympy.simplify(sympy.expand(amp - expected, complex=True)) == 0, (j, k, amp)


def test_symbolic_rotation_amplitudes_and_expectation():
    (theta,) = gq.parameters("theta")
    c = gq.Circuit(2).ry(theta, 0).cx(0, 1)
    psi = gq.simulate(c, numbers="sympy")
    assert sympy.simplify(psi.amplitudes[0] - sympy.cos(theta / 2)) == 0
    assert sympy.simplify(psi.amplitudes[3] - sympy.sin(theta / 2)) == 0
    assert sympy.simplify(psi.expectation("Z0") - sympy.cos(theta)) == 0
    assert sympy.simplify(psi.expectation("Z0 Z1") - 1) == 0
    assert sympy.simplify(psi.expectation("X0 X1") - sympy.sin(theta)) == 0
    # probabilities are real expressions that simplify to the textbook ones
    p = psi.probabilities([0])
    assert sympy.simplify(p[1] - sympy.sin(theta / 2) ** 2) == 0


def test_symbolic_coefficients_in_observable():
    g, theta = gq.parameters("g theta")
    psi = gq.simulate(gq.Circuit(1).rx(theta, 0), numbers="sympy")
    value = psi.expectation("g*Z0 + 2*Y0")
    assert sympy.simplify(value - (g * sympy.cos(theta) - 2 * sympy.sin(theta))) == 0


def test_symbolic_result_evaluates_to_numeric_run():
    a, b = gq.parameters("a b")
    c = gq.Circuit(3).h(0).crx(a, 0, 1).rzz(b, 1, 2).u(a, b, a + b, 2).iswap(0, 2)
    exact = gq.simulate(c, numbers="sympy")
    values = {a: 0.37, b: -1.21}
    evaluated = np.array([complex(x.subs(values)) for x in exact.amplitudes])
    np.testing.assert_allclose(evaluated, gq.simulate(c.bind(values)).amplitudes, atol=1e-13)


def test_bind_exact_values_keep_exactness():
    (theta,) = gq.parameters("theta")
    c = gq.Circuit(1).ry(theta, 0).bind({"theta": sympy.pi / 2})
    psi = gq.simulate(c, numbers="sympy")
    assert list(psi.amplitudes) == [sympy.sqrt(2) / 2, sympy.sqrt(2) / 2]


def test_measure_collapses_symbolic_state_exactly():
    psi = gq.simulate(gq.library.ghz(3), numbers="sympy")
    outcome = psi.measure([1], seed=3)
    assert outcome in ("0", "1")
    idx = 0 if outcome == "0" else 7
    assert psi.amplitudes[idx] == 1
    assert sum(1 for a in psi.amplitudes if a != 0) == 1


def test_simplify_gives_one_canonical_form_with_cancelled_angles_gone():
    """An angle whose terms cancel (the RZ before a measurement in Z) leaves the simplified
    expectation value; mathematically equal inputs simplify to identical expressions; and a
    value outside the trig polynomials still goes to SymPy."""
    alpha, beta = gq.parameters("alpha beta")
    c = gq.Circuit(2).ry(beta, 0).rz(alpha, 0).cx(0, 1).rz(alpha, 1)
    value = gq.simulate(c, numbers="sympy").expectation("Z0 + Z1")
    got = gq.simplify(value)
    assert got.free_symbols == {beta}
    assert got == gq.simplify(2 - 4 * sympy.sin(beta / 2) ** 2)
    assert sympy.simplify(got - 2 * sympy.cos(beta)) == 0
    # the issue's own example: SymPy's simplify keeps a cancelling angle at times
    a, b = sympy.symbols("a b", real=True)
    spurious = sympy.cos(a) ** 2 / 2 - sympy.cos(2 * a) / 4 + sympy.cos(b) ** 2 - sympy.S(1) / 4
    assert gq.simplify(spurious) == gq.simplify(1 - sympy.sin(b) ** 2)
    assert gq.simplify(spurious).free_symbols == {b}
    # SymEngine entries take the same route
    assert gq.to_sympy(gq.simplify(gq.to_symengine(spurious))) == gq.simplify(spurious)
    # floats, non-trig functions and moduli of complex symbols are SymPy's to simplify
    x = sympy.Symbol("x")
    assert gq.simplify(sympy.sqrt(x) ** 2) == x
    assert gq.simplify(sympy.Abs(sympy.exp(sympy.I * x)) ** 2) == sympy.simplify(
        sympy.Abs(sympy.exp(sympy.I * x)) ** 2
    )
