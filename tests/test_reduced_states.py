"""Reduced density matrices and entanglement entropy of state vectors, against closed forms
and a partial trace written out with ``einsum``."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq

from strategies import random_circuit


def partial_trace(psi: np.ndarray, n: int, keep: list[int]) -> np.ndarray:
    """``Tr_rest |psi><psi|`` by ``einsum`` over the traced axes (qubit ``keep[0]`` the
    lowest bit of the result)."""
    t = psi.reshape((2,) * n)  # axis a is qubit n-1-a
    letters = "abcdefghijklmnopqrstuvwxyz"
    rows = [letters[a] for a in range(n)]
    cols = [letters[a] if (n - 1 - a) not in keep else letters[a].upper() for a in range(n)]
    kept_rows = "".join(rows[n - 1 - q] for q in reversed(keep))
    kept_cols = "".join(cols[n - 1 - q] for q in reversed(keep))
    m = np.einsum(f"{''.join(rows)},{''.join(cols)}->{kept_rows}{kept_cols}", t, t.conj())
    return m.reshape(1 << len(keep), 1 << len(keep))


def h2(p: float) -> float:
    return -sum(x * math.log2(x) for x in (p, 1 - p) if x > 0)


@settings(max_examples=25, deadline=None)
@given(random_circuit(n_min=2, n_max=6), st.data())
def test_reduced_state_is_the_partial_trace(circuit, data):
    n = circuit.n_qubits
    keep = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    psi = gq.simulate(circuit)
    rho = psi.reduced_density_matrix(keep)
    assert rho.n_qubits == len(keep)
    np.testing.assert_allclose(rho.to_numpy(), partial_trace(psi.to_numpy(), n, keep), atol=1e-12)
    rest = [q for q in range(n) if q not in keep]
    if rest:  # a pure state's two sides are equally entangled
        assert psi.entanglement_entropy(keep) == pytest.approx(
            psi.entanglement_entropy(rest), abs=1e-9
        )


@pytest.mark.parametrize("theta", [0.0, 0.4, math.pi / 2, 2.5])
def test_entropy_of_a_partly_entangled_pair(theta):
    """``Ry(theta)`` then CX: the Schmidt weights are cos^2(theta/2) and sin^2(theta/2)."""
    psi = gq.simulate(gq.Circuit(3).ry(theta, 0).cx(0, 2))
    p = math.cos(theta / 2) ** 2
    np.testing.assert_allclose(
        psi.reduced_density_matrix(0).to_numpy(), np.diag([p, 1 - p]), atol=1e-15
    )
    assert psi.entanglement_entropy([0]) == pytest.approx(h2(p), abs=1e-12)
    assert psi.entanglement_entropy([1]) == pytest.approx(0.0, abs=1e-12)  # untouched qubit
    assert psi.entanglement_entropy([0, 2]) == pytest.approx(0.0, abs=1e-12)


def test_ghz_and_product_states():
    ghz = gq.simulate(gq.library.ghz(5))
    for keep in ([0], [1, 3], [0, 1, 2, 4]):
        assert ghz.entanglement_entropy(keep) == pytest.approx(1.0, abs=1e-12)
        assert ghz.entanglement_entropy(keep, base=math.e) == pytest.approx(math.log(2), abs=1e-12)
    rho = ghz.reduced_density_matrix([4, 0])
    np.testing.assert_allclose(rho.to_numpy(), np.diag([0.5, 0, 0, 0.5]), atol=1e-15)
    assert rho.purity() == pytest.approx(0.5)
    product = gq.simulate(gq.Circuit(4).h(0).ry(0.3, 1).rx(1.1, 3))
    assert product.entanglement_entropy([0, 1]) == pytest.approx(0.0, abs=1e-9)
    assert ghz.entanglement_entropy(range(5)) == 0.0


def test_qubit_order_of_the_reduced_state():
    """``|q2 q1 q0> = |001>``: kept as [0, 2], qubit 0 is the low bit (index 1); as [2, 0],
    the high bit (index 2)."""
    psi = gq.simulate(gq.Circuit(3).x(0))
    assert psi.reduced_density_matrix([0, 2]).to_numpy()[1, 1] == pytest.approx(1)
    assert psi.reduced_density_matrix([2, 0]).to_numpy()[2, 2] == pytest.approx(1)


def test_symbolic_reduced_state_is_exact():
    (theta,) = gq.parameters("theta")
    psi = gq.simulate(gq.Circuit(2).ry(theta, 0).cx(0, 1), numbers="sympy")
    rho = psi.reduced_density_matrix([1]).to_numpy()
    expected = [[sympy.cos(theta / 2) ** 2, 0], [0, sympy.sin(theta / 2) ** 2]]
    for i in range(2):
        for j in range(2):
            assert sympy.simplify(rho[i, j] - expected[i][j]) == 0


def test_bad_qubits_are_refused():
    psi = gq.simulate(gq.Circuit(3).h(0))
    with pytest.raises(gq.QubitIndexError):
        psi.reduced_density_matrix([3])
    with pytest.raises(gq.DuplicateQubitError):
        psi.reduced_density_matrix([0, 0])
    with pytest.raises(gq.ArgumentValueError, match="at least one"):
        psi.reduced_density_matrix([])
