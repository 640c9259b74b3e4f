"""Built-in circuits against independent references."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import genqsim as gq
from genqsim import library


def dense_of(circuit: gq.Circuit) -> np.ndarray:
    """The circuit's matrix, column by column, from basis-state runs."""
    return np.column_stack(
        [gq.simulate(circuit, initial=j).amplitudes for j in range(2**circuit.n_qubits)]
    )


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7])
def test_qft_is_the_dft_matrix(n):
    N = 2**n
    j, k = np.meshgrid(np.arange(N), np.arange(N))
    dft = np.exp(2j * np.pi * j * k / N) / np.sqrt(N)
    np.testing.assert_allclose(dense_of(library.qft(n)), dft, atol=1e-12)
    np.testing.assert_allclose(dense_of(library.qft(n, inverse=True)), dft.conj().T, atol=1e-12)


def test_qft_without_swaps_is_bit_reversed():
    n, N = 4, 16
    rev = [int(format(i, "04b")[::-1], 2) for i in range(N)]
    j, k = np.meshgrid(np.arange(N), np.arange(N))
    dft = np.exp(2j * np.pi * j * k / N) / np.sqrt(N)
    np.testing.assert_allclose(dense_of(library.qft(n, swaps=False)), dft[rev, :], atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 6])
def test_ghz_and_walsh(n):
    ghz = gq.simulate(library.ghz(n)).amplitudes
    expected = np.zeros(2**n)
    expected[[0, -1]] = 2**-0.5
    np.testing.assert_allclose(ghz, expected, atol=1e-14)
    hadamard = np.array([[1.0]])
    for _ in range(n):
        hadamard = np.kron(hadamard, np.array([[1, 1], [1, -1]]) / np.sqrt(2))
    np.testing.assert_allclose(dense_of(library.walsh(n)), hadamard, atol=1e-12)


@pytest.mark.parametrize("m", [0, 3, 5, 7])
def test_phase_estimation_exact_for_dyadic_phases(m):
    c = library.phase_estimation(3).bind({"phi": sympy.Rational(m, 8)})
    psi = gq.simulate(c, numbers="sympy")
    assert sympy.simplify(psi.probabilities()[m] - 1) == 0


def test_phase_estimation_peaks_at_nearest_fraction():
    p = gq.simulate(library.phase_estimation(5).bind({"phi": 0.3})).probabilities()
    assert int(np.argmax(p)) == round(0.3 * 32)
    assert p.sum() == pytest.approx(1)
