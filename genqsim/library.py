"""Standard circuits, every one usable with symbolic parameters.

Conventions follow the rest of genqsim: qubit 0 is the least-significant bit, so
``qft(n)`` maps ``|j>`` to ``sum_k exp(2 pi i j k / 2**n) |k> / sqrt(2**n)`` with ``j`` and ``k``
read as ordinary binary numbers of the qubits.
"""

from __future__ import annotations

from typing import Any

import sympy

from .circuit import Circuit, parameters


def _check_size(n: int, least: int = 1) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < least:
        raise ValueError(f"number of qubits must be an integer >= {least}, got {n!r}")
    return n


def qft(n: int, inverse: bool = False, swaps: bool = True) -> Circuit:
    """The quantum Fourier transform on ``n`` qubits (exact phases ``pi/2**k``).

    With ``swaps=False`` the output comes in bit-reversed qubit order, as in hardware QFTs that
    leave the reversal to relabelling.
    """
    _check_size(n)
    c = Circuit(n)
    for j in reversed(range(n)):
        c.h(j)
        for k in reversed(range(j)):
            c.cp(sympy.pi / 2 ** (j - k), k, j)
    if swaps:
        for q in range(n // 2):
            c.swap(q, n - 1 - q)
    return c.inverse() if inverse else c


def ghz(n: int) -> Circuit:
    """``(|0...0> + |1...1>)/sqrt(2)``: H on qubit 0, then a CNOT chain."""
    _check_size(n)
    c = Circuit(n).h(0)
    for q in range(n - 1):
        c.cx(q, q + 1)
    return c


def walsh(n: int) -> Circuit:
    """H on every qubit (the Walsh-Hadamard transform)."""
    _check_size(n)
    c = Circuit(n)
    for q in range(n):
        c.h(q)
    return c


def phase_estimation(n: int, phase: Any = None) -> Circuit:
    """Phase estimation of ``exp(2 pi i phase)`` with ``n`` counting qubits.

    The eigenphase is kicked back directly (``P(2 pi phase 2**k)`` on qubit ``k`` after a
    Hadamard layer), then an inverse QFT reads it out: for ``phase = m / 2**n`` the result is
    exactly ``|m>``, otherwise the distribution peaks at the nearest ``m``. ``phase`` defaults
    to the real symbol ``phi``, so the circuit can run symbolically.
    """
    _check_size(n)
    if phase is None:
        (phase,) = parameters("phi")
    c = walsh(n)
    for k in range(n):
        c.p(2 * sympy.pi * phase * 2**k, k)
    return c + qft(n, inverse=True)


def random_circuit(n: int, depth: int, seed: int | None = None) -> Circuit:
    """``depth`` layers of random ``U(theta, phi, lam)`` on every qubit, each followed by CZ
    on neighbouring pairs in a brick pattern (pairs start at qubit 0 on even layers, 1 on odd
    ones). The benchmarks use it; the same seed gives the same circuit."""
    import numpy as np

    _check_size(n)
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise ValueError(f"depth must be a non-negative integer, got {depth!r}")
    rng = np.random.default_rng(seed)
    c = Circuit(n)
    for layer in range(depth):
        angles = rng.uniform(0, 2 * np.pi, size=(n, 3))
        for q in range(n):
            c.u(*(float(a) for a in angles[q]), q)
        for q in range(layer % 2, n - 1, 2):
            c.cz(q, q + 1)
    return c


BUILTINS = {
    "qft": qft,
    "ghz": ghz,
    "walsh": walsh,
    "qpe": phase_estimation,
    "random": random_circuit,
}
"""Circuits the command line knows by name (``qft:3``)."""
