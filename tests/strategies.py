"""Hypothesis strategies shared by the tests: random circuits of every gate kind."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import genqsim as gq

NAMED = {
    "x": (1, 0), "y": (1, 0), "z": (1, 0), "h": (1, 0), "s": (1, 0), "t": (1, 0),
    "sx": (1, 0), "rx": (1, 1), "ry": (1, 1), "rz": (1, 1), "p": (1, 1), "u": (1, 3),
    "swap": (2, 0), "iswap": (2, 0), "rxx": (2, 1), "ryy": (2, 1), "rzz": (2, 1),
}  # fmt: skip
angles = st.floats(-6.3, 6.3, allow_nan=False)


KINDS = ("named", "pauli", "dense", "diagonal", "permutation")


@st.composite
def random_circuit(draw, n_min=1, n_max=8, kinds=KINDS, named=None, u_phase=False):
    """Up to 15 gates of ``kinds`` (library gates from ``named``, default :data:`NAMED`:
    name -> (qubits, angles); with ``u_phase``, a ``u`` may take its fourth, global-phase
    angle), each under up to three controls of either value."""
    named = NAMED if named is None else named
    n = draw(st.integers(n_min, n_max))
    c = gq.Circuit(n)
    for _ in range(draw(st.integers(1, 15))):
        qubits = draw(st.permutations(range(n)))
        kind = draw(st.sampled_from(kinds))
        if kind == "named":
            name = draw(st.sampled_from(sorted(named)))
            arity, n_angles = named[name]
            params = [draw(angles) for _ in range(n_angles)]
            if name == "u" and u_phase and draw(st.booleans()):
                params.append(draw(angles))
            gate = gq.gate(name, *params)
        elif kind == "pauli":
            arity = draw(st.integers(1, min(4, n)))
            word = "".join(draw(st.lists(st.sampled_from("IXYZ"), min_size=arity, max_size=arity)))
            gate = gq.PauliRotation(word, draw(angles))
        else:
            arity = draw(st.integers(1, min(4, n)))
            rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
            dim = 2**arity
            if kind == "dense":
                U = np.linalg.qr(rng.normal(size=(dim, dim)) + 1j * rng.normal(size=(dim, dim)))[0]
            elif kind == "diagonal":
                U = np.diag(np.exp(1j * rng.uniform(0, 6.3, dim)))
            else:
                phases = np.exp(1j * rng.uniform(0, 6.3, dim)) if rng.random() < 0.5 else 1
                U = np.eye(dim)[:, rng.permutation(dim)] * phases
            gate = gq.MatrixGate(U)
        if arity > n:
            continue
        n_controls = draw(st.integers(0, min(3, n - arity)))
        controls = qubits[arity : arity + n_controls]
        values = draw(st.lists(st.integers(0, 1), min_size=n_controls, max_size=n_controls))
        c.append(gate, qubits[:arity], controls, values)
    return c


@st.composite
def monomial_circuit(draw, n_min=4, n_max=9, low_min=0):
    """Mostly permutations and diagonals (X, CX, Toffoli, SWAP, Y, CZ, T, random phased
    permutations and diagonals, any controls and control values), now and then a dense gate
    that ends a run of them; every qubit ``low_min`` or above except the dense gates'."""
    n = draw(st.integers(n_min, n_max))
    c = gq.Circuit(n)
    high = list(range(low_min, n))
    for _ in range(draw(st.integers(1, 14))):
        kind = draw(st.sampled_from(["x", "y", "z", "t", "s", "swap", "perm", "diag", "dense"]))
        qubits = draw(st.permutations(range(n) if kind == "dense" else high))
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        if kind in ("perm", "diag"):
            arity = draw(st.integers(1, min(3, len(qubits))))
            dim = 2**arity
            phases = np.exp(1j * rng.uniform(0, 6.3, dim)) if rng.random() < 0.5 else 1
            if kind == "perm":
                gate = gq.MatrixGate(np.eye(dim)[:, rng.permutation(dim)] * phases)
            else:
                gate = gq.MatrixGate(np.diag(np.exp(1j * rng.uniform(0, 6.3, dim))))
        elif kind == "dense":
            arity = 1
            gate = gq.gate("u", *rng.uniform(0, 6.3, 3))
        else:
            arity = 2 if kind == "swap" else 1
            gate = gq.gate(kind)
        if arity > len(qubits):
            continue
        n_controls = draw(st.integers(0, min(2, len(qubits) - arity)))
        values = draw(st.lists(st.integers(0, 1), min_size=n_controls, max_size=n_controls))
        c.append(gate, qubits[:arity], qubits[arity : arity + n_controls], values)
    return c


@st.composite
def grouped_in_composites(draw, circuit: gq.Circuit, depth: int = 2) -> gq.Circuit:
    """``circuit`` with runs of 1-4 consecutive instructions each made one
    :class:`~genqsim.Composite` on the qubits they touch (in a drawn order), and with
    ``depth`` > 1 possibly grouped again (composites of composites): the same unitary, so
    its results must be those of ``circuit``."""
    ops = list(circuit.instructions)
    out = gq.Circuit(circuit.n_qubits, n_clbits=circuit.n_clbits)
    i = 0
    while i < len(ops):
        chunk = ops[i : i + draw(st.integers(1, 4))]
        i += len(chunk)
        qubits = draw(st.permutations(sorted({q for op in chunk for q in op.qubits})))
        position = [0] * circuit.n_qubits
        for j, q in enumerate(qubits):
            position[q] = j
        body = gq.Circuit(len(qubits), [op.remapped(position) for op in chunk])
        out.append(gq.Composite(f"block{i}", body), qubits)
    if depth > 1 and draw(st.booleans()):
        return draw(grouped_in_composites(out, depth - 1))
    return out
