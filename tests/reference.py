"""Independent references for the tests: textbook gate matrices and dense operators built with
``kron`` and projectors. Nothing here imports genqsim's gate library or index arithmetic.

Conventions (from the docs): qubit q is bit q of a basis index; in ``kron`` products the
highest qubit comes first. A k-qubit matrix on ``targets`` has ``targets[0]`` as the least
significant bit of its index.
"""

from __future__ import annotations

import cmath
import math
from functools import reduce

import numpy as np
import sympy

# -- textbook matrices, written out by hand, in two flavours: numeric and exact -------------


def _paulis(exact: bool):
    if exact:
        i = sympy.I
        return (
            np.array([[1, 0], [0, 1]], dtype=object) * sympy.Integer(1),
            np.array([[0, 1], [1, 0]], dtype=object) * sympy.Integer(1),
            np.array([[0, -i], [i, 0]], dtype=object),
            np.array([[1, 0], [0, -1]], dtype=object) * sympy.Integer(1),
        )
    return (
        np.eye(2, dtype=complex),
        np.array([[0, 1], [1, 0]], dtype=complex),
        np.array([[0, -1j], [1j, 0]], dtype=complex),
        np.array([[1, 0], [0, -1]], dtype=complex),
    )


def kron_all(factors):
    return reduce(np.kron, factors)


def reference_matrix(name: str, params=(), exact: bool = False) -> np.ndarray:
    """The textbook matrix of a library gate (numeric, or exact SymPy when ``exact``)."""
    if exact:
        exp, cos, sin, sqrt, i, pi = sympy.exp, sympy.cos, sympy.sin, sympy.sqrt, sympy.I, sympy.pi
        dtype = object
    else:
        exp, cos, sin, sqrt, i, pi = cmath.exp, math.cos, math.sin, math.sqrt, 1j, math.pi
        dtype = complex
    I2, X, Y, Z = _paulis(exact)

    def arr(rows):
        return np.array(rows, dtype=dtype)

    def rot(pauli_kron, theta):
        eye = np.eye(pauli_kron.shape[0], dtype=int).astype(dtype)
        return cos(theta / 2) * eye - i * sin(theta / 2) * pauli_kron

    p = params
    table = {
        "id": lambda: I2,
        "x": lambda: X,
        "y": lambda: Y,
        "z": lambda: Z,
        "h": lambda: arr([[1, 1], [1, -1]]) / sqrt(2),
        "s": lambda: arr([[1, 0], [0, i]]),
        "sdg": lambda: arr([[1, 0], [0, -i]]),
        "t": lambda: arr([[1, 0], [0, exp(i * pi / 4)]]),
        "tdg": lambda: arr([[1, 0], [0, exp(-i * pi / 4)]]),
        "sx": lambda: arr([[1 + i, 1 - i], [1 - i, 1 + i]]) / 2,
        "sxdg": lambda: arr([[1 - i, 1 + i], [1 + i, 1 - i]]) / 2,
        "rx": lambda: rot(X, p[0]),
        "ry": lambda: rot(Y, p[0]),
        "rz": lambda: rot(Z, p[0]),
        "p": lambda: arr([[1, 0], [0, exp(i * p[0])]]),
        "u": lambda: (
            (exp(i * p[3]) if len(p) == 4 else 1)
            * arr(
                [
                    [cos(p[0] / 2), -exp(i * p[2]) * sin(p[0] / 2)],
                    [exp(i * p[1]) * sin(p[0] / 2), exp(i * (p[1] + p[2])) * cos(p[0] / 2)],
                ]
            )
        ),
        "swap": lambda: arr([[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]]),
        "iswap": lambda: arr([[1, 0, 0, 0], [0, 0, i, 0], [0, i, 0, 0], [0, 0, 0, 1]]),
        "iswapdg": lambda: arr([[1, 0, 0, 0], [0, 0, -i, 0], [0, -i, 0, 0], [0, 0, 0, 1]]),
        "rxx": lambda: rot(np.kron(X, X), p[0]),
        "ryy": lambda: rot(np.kron(Y, Y), p[0]),
        "rzz": lambda: rot(np.kron(Z, Z), p[0]),
    }
    return table[name]()


def pauli_rotation_reference(pauli: str, theta, exact: bool = False) -> np.ndarray:
    """``exp(-i theta P/2)`` with ``pauli[i]`` on bit i (so it is the *last* kron factor)."""
    I2, X, Y, Z = _paulis(exact)
    by = {"I": I2, "X": X, "Y": Y, "Z": Z}
    P = kron_all([by[ch] for ch in reversed(pauli)])
    if exact:
        eye = np.eye(P.shape[0], dtype=int).astype(object)
        return sympy.cos(theta / 2) * eye - sympy.I * sympy.sin(theta / 2) * P
    return math.cos(theta / 2) * np.eye(P.shape[0]) - 1j * math.sin(theta / 2) * P


def embed(U, n, targets, controls=(), control_values=None, exact: bool = False) -> np.ndarray:
    """The ``2**n x 2**n`` operator: ``U`` on ``targets`` where every control qubit holds its
    value, identity elsewhere — a sum of Kronecker products of |a><b| and projectors."""
    dtype = object if exact else complex
    one = sympy.Integer(1) if exact else 1.0
    zero = sympy.Integer(0) if exact else 0.0
    control_values = (1,) * len(controls) if control_values is None else tuple(control_values)
    k = len(targets)
    eye2 = np.array([[one, zero], [zero, one]], dtype=dtype)

    def outer(a, b):
        m = np.array([[zero, zero], [zero, zero]], dtype=dtype)
        m[a, b] = one
        return m

    full = np.array(np.zeros((2**n, 2**n)), dtype=dtype)
    if exact:
        full[:] = zero
    for a in range(2**k):
        for b in range(2**k):
            entry = U[a, b]
            if entry == 0:
                continue
            factors = [eye2] * n
            for pos, t in enumerate(targets):
                factors[t] = outer(a >> pos & 1, b >> pos & 1)
            for c, v in zip(controls, control_values):
                factors[c] = outer(v, v)
            full = full + entry * kron_all(factors[::-1])
    if controls:
        factors = [eye2] * n
        for c, v in zip(controls, control_values):
            factors[c] = outer(v, v)
        eye = np.array(np.eye(2**n), dtype=dtype)
        if exact:
            eye = np.vectorize(sympy.Integer, otypes=[object])(np.eye(2**n, dtype=int))
        full = full + (eye - kron_all(factors[::-1]))
    return full


def random_state(n: int, rng: np.random.Generator) -> np.ndarray:
    v = rng.normal(size=2**n) + 1j * rng.normal(size=2**n)
    return v / np.linalg.norm(v)


def random_unitary(dim: int, rng: np.random.Generator) -> np.ndarray:
    z = rng.normal(size=(dim, dim)) + 1j * rng.normal(size=(dim, dim))
    q, r = np.linalg.qr(z)
    return q * (np.diagonal(r) / np.abs(np.diagonal(r)))
