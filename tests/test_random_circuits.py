"""Hypothesis: random circuits of every gate kind on up to 8 qubits agree with a dense
reference built from textbook matrices; norms are preserved; inverse circuits undo."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq

from reference import embed, pauli_rotation_reference, random_state, reference_matrix
from registries import CPU_BACKENDS

NAMED = {
    # name: (arity, number of angles)
    "id": (1, 0), "x": (1, 0), "y": (1, 0), "z": (1, 0), "h": (1, 0), "s": (1, 0),
    "sdg": (1, 0), "t": (1, 0), "tdg": (1, 0), "sx": (1, 0), "sxdg": (1, 0),
    "rx": (1, 1), "ry": (1, 1), "rz": (1, 1), "p": (1, 1), "u": (1, 3),
    "swap": (2, 0), "iswap": (2, 0), "iswapdg": (2, 0),
    "rxx": (2, 1), "ryy": (2, 1), "rzz": (2, 1),
}  # fmt: skip

angles = st.floats(-2 * np.pi, 2 * np.pi, allow_nan=False, allow_infinity=False)


@st.composite
def operations(draw, n: int):
    """One random operation with its independent dense reference."""
    kind = draw(st.sampled_from(["named", "named", "pauli", "dense", "diagonal", "permutation"]))
    if kind == "named":
        name = draw(st.sampled_from(sorted(NAMED)))
        arity, n_angles = NAMED[name]
        params = tuple(draw(angles) for _ in range(n_angles))
        gate, U = gq.gate(name, *params), reference_matrix(name, params)
    elif kind == "pauli":
        arity = draw(st.integers(1, min(3, n)))
        pauli = "".join(draw(st.lists(st.sampled_from("IXYZ"), min_size=arity, max_size=arity)))
        theta = draw(angles)
        gate, U = gq.PauliRotation(pauli, theta), pauli_rotation_reference(pauli, theta)
    else:
        arity = draw(st.integers(1, min(3, n)))
        dim = 2**arity
        seed = draw(st.integers(0, 2**32 - 1))
        rng = np.random.default_rng(seed)
        if kind == "dense":
            z = rng.normal(size=(dim, dim)) + 1j * rng.normal(size=(dim, dim))
            U = np.linalg.qr(z)[0]
        elif kind == "diagonal":
            U = np.diag(np.exp(1j * rng.uniform(0, 2 * np.pi, dim)))
        else:
            phases = np.exp(1j * rng.uniform(0, 2 * np.pi, dim)) if rng.random() < 0.5 else 1
            U = np.eye(dim)[:, rng.permutation(dim)] * phases
        gate = gq.MatrixGate(U)
    if arity > n:
        arity, gate, U = 1, gq.gate("h"), reference_matrix("h")
    qubits = draw(st.permutations(range(n)))
    targets = tuple(qubits[:arity])
    n_controls = draw(st.integers(0, min(2, n - arity)))
    controls = tuple(qubits[arity : arity + n_controls])
    values = tuple(draw(st.lists(st.integers(0, 1), min_size=n_controls, max_size=n_controls)))
    return gate, targets, controls, values, embed(U, n, targets, controls, values)


@st.composite
def circuits(draw):
    n = draw(st.integers(1, 8))
    ops = draw(st.lists(operations(n), min_size=1, max_size=12))
    c = gq.Circuit(n)
    full = np.eye(2**n, dtype=complex)
    for gate, targets, controls, values, dense in ops:
        c.append(gate, targets, controls, values)
        full = dense @ full
    return c, full


@settings(max_examples=60, deadline=None)
@given(circuits(), st.integers(0, 2**32 - 1))
def test_random_circuit_matches_dense_reference(circuit_and_matrix, seed):
    circuit, full = circuit_and_matrix
    psi0 = random_state(circuit.n_qubits, np.random.default_rng(seed))
    for backend in CPU_BACKENDS:  # named: small states default to the NumPy backend
        for dtype, atol in (("complex128", 1e-10), ("complex64", 2e-5)):
            psi = gq.simulate(circuit, numbers=dtype, initial=psi0.astype(dtype), backend=backend)
            np.testing.assert_allclose(psi.amplitudes, full @ psi0, atol=atol, rtol=0)
            assert abs(psi.norm_squared() - 1) < 10 * atol


@settings(max_examples=40, deadline=None)
@given(circuits(), st.integers(0, 2**32 - 1))
def test_inverse_returns_initial_state(circuit_and_matrix, seed):
    circuit, _ = circuit_and_matrix
    psi0 = random_state(circuit.n_qubits, np.random.default_rng(seed))
    psi = gq.simulate(circuit, initial=psi0)
    psi.apply(circuit.inverse())
    np.testing.assert_allclose(psi.amplitudes, psi0, atol=1e-10)


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_symbolic_random_circuit_matches_numeric(n, seed):
    """The same random circuit with symbolic angles, run on SymPy and then evaluated, equals
    the complex128 run at those angles."""
    rng = np.random.default_rng(seed)
    names = sorted(NAMED)
    symbols = gq.parameters("a0:20")
    c = gq.Circuit(n)
    used = 0
    for _ in range(6):
        name = names[rng.integers(len(names))]
        arity, n_angles = NAMED[name]
        if arity > n:
            continue
        params = symbols[used : used + n_angles]
        used += n_angles
        qubits = rng.permutation(n)
        controls = tuple(int(q) for q in qubits[arity : arity + rng.integers(0, n - arity + 1)])
        c.append(gq.gate(name, *params), tuple(int(q) for q in qubits[:arity]), controls)
    values = {s: float(v) for s, v in zip(c.parameters, rng.uniform(-3, 3, len(c.parameters)))}
    exact = gq.simulate(c, numbers="sympy", initial=0)
    evaluated = np.array([complex(a.subs(values).evalf(20)) for a in exact.amplitudes])
    numeric = gq.simulate(c.bind(values)).amplitudes
    np.testing.assert_allclose(evaluated, numeric, atol=1e-12)
