"""Real powers of unitary matrices, on the principal branch (as Qiskit's ``Gate.power`` and
SciPy's ``fractional_matrix_power`` take them)."""

from __future__ import annotations

import numpy as np

DEGENERATE = 1e-9
"""Eigenvalues closer than this share one eigenspace, orthonormalised together."""


def unitary_power(u: np.ndarray, exponent: float) -> np.ndarray:
    """``u**exponent`` for a unitary ``u``: ``V diag(exp(i*exponent*phi_k)) V^dagger`` with
    ``u = V diag(exp(i*phi_k)) V^dagger``, each ``phi_k`` in ``(-pi, pi]``. A unitary is
    normal, so its eigenvectors can be chosen orthonormal; ``numpy.linalg.eig`` only
    guarantees that between distinct eigenvalues, so each cluster of equal eigenvalues is
    orthonormalised by a QR step."""
    values, vectors = np.linalg.eig(np.asarray(u, dtype=np.complex128))
    angles = np.angle(values)
    angles[angles <= -np.pi + DEGENERATE] = np.pi  # -1 rounded below the cut is still -1
    order = np.argsort(angles)
    angles, vectors = angles[order], vectors[:, order]
    start = 0
    for end in range(1, len(angles) + 1):
        if end == len(angles) or angles[end] - angles[start] > DEGENERATE:
            if end - start > 1:
                vectors[:, start:end] = np.linalg.qr(vectors[:, start:end])[0]
            start = end
    return (vectors * np.exp(1j * exponent * angles)) @ vectors.conj().T
