"""Pauli sums: parsing, and expectation values against dense Pauli matrices."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq

from reference import _paulis, kron_all, random_state

I2, X, Y, Z = _paulis(exact=False)
LETTER = {"I": I2, "X": X, "Y": Y, "Z": Z}


def dense_pauli(word: dict[int, str], n: int) -> np.ndarray:
    return kron_all([LETTER[word.get(q, "I")] for q in reversed(range(n))])


def test_parse_forms():
    P = gq.PauliSum.parse
    assert P("Z0 Z1 + 0.5*X2") == gq.PauliSum([(1, {0: "Z", 1: "Z"}), (0.5, {2: "X"})])
    assert P("Z0*Z1 + 0.5 X2") == P("Z0 Z1 + 0.5*X2")
    assert P("-X0 Y3") == gq.PauliSum([(-1, {0: "X", 3: "Y"})])
    assert P("0.5*(X0 + Z1) - 0.5*Z1") == gq.PauliSum([(0.5, {0: "X"})])
    assert P("X0 X0 + Z1") == gq.PauliSum([(1, {}), (1, {1: "Z"})])  # X^2 = I
    assert P("2 + I3") == gq.PauliSum([(3, {})])
    assert P("1e-3*Z10").n_qubits == 11


def test_symbolic_coefficients_are_real_symbols():
    h = gq.PauliSum.parse("g*Z0 Z1 + h^2*X0")
    (g_sym,) = [c for c, p in h.terms if p == ((0, "Z"), (1, "Z"))]
    assert g_sym == sympy.Symbol("g", real=True)
    assert h.free_symbols == {sympy.Symbol("g", real=True), sympy.Symbol("h", real=True)}


@pytest.mark.parametrize(
    "text",
    ["Z0 +", "Q1", "Z0 Z", "X0 Z0", "sin(X0)", "", "   ", "Z0 ** X1", "Y1 Z1"],
)
def test_parse_errors(text):
    with pytest.raises(gq.PauliSyntaxError):
        gq.PauliSum.parse(text)


words = st.dictionaries(st.integers(0, 4), st.sampled_from("IXYZ"), max_size=5)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(st.floats(-2, 2, allow_nan=False), words), min_size=1, max_size=5),
    st.integers(0, 2**32 - 1),
)
def test_expectation_matches_dense_operator(terms, seed):
    n = 5
    psi0 = random_state(n, np.random.default_rng(seed))
    observable = gq.PauliSum(terms)
    H = sum((c * dense_pauli(w, n) for c, w in terms), np.zeros((2**n, 2**n)))
    expected = np.vdot(psi0, H @ psi0).real
    for dtype, tol in (("complex128", 1e-12), ("complex64", 2e-5)):
        value = gq.StateVector(psi0.astype(dtype)).expectation(observable)
        assert isinstance(value, float)
        assert value == pytest.approx(expected, abs=tol * (1 + sum(abs(c) for c, _ in terms)))
    # the textual form parses back to the same observable
    assert gq.PauliSum.parse(str(observable)) == observable


def test_expectation_of_string_with_y_terms():
    psi = gq.simulate(gq.Circuit(2).h(0).s(0).h(1).sdg(1))  # |+i> (x) |-i>
    assert psi.expectation("Y0") == pytest.approx(1)
    assert psi.expectation("Y1") == pytest.approx(-1)
    assert psi.expectation("Y0 Y1 + 2*X0") == pytest.approx(-1)


def test_complex_coefficients_give_complex_expectation():
    psi = gq.simulate(gq.Circuit(1))
    assert psi.expectation(gq.PauliSum([(1j, {0: "Z"})])) == pytest.approx(1j)


def test_imaginary_decimal_literals_are_python_complex_numbers():
    """``0.5j`` is Python's imaginary literal, not 0.5 times a coefficient named ``j``."""
    for text, value in [
        ("0.5j*Z0", 0.5j),
        ("(0.5-1.04j)*Z0", 0.5 - 1.04j),
        ("-2.5e-1J Z0", -0.25j),
    ]:
        ((coeff, pauli),) = gq.PauliSum.parse(text).terms
        assert not coeff.free_symbols and complex(coeff) == value and pauli == ((0, "Z"),)
    state = gq.simulate(gq.Circuit(1))
    assert state.expectation("0.5j*Z0 + 0.25*Z0") == 0.25 + 0.5j
