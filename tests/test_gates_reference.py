"""Every library gate, on every placement of targets and controls, against a dense operator
built independently from textbook matrices with ``kron`` and projectors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy

import genqsim as gq

from reference import (
    embed,
    pauli_rotation_reference,
    random_state,
    reference_matrix,
)
from registries import CPU_BACKENDS

ANGLES = (0.7312, -1.234, 2.468, 0.3141)
PARAM_COUNT = {"rx": 1, "ry": 1, "rz": 1, "p": 1, "rxx": 1, "ryy": 1, "rzz": 1}
ARITY = {"swap": 2, "iswap": 2, "iswapdg": 2, "rxx": 2, "ryy": 2, "rzz": 2}
GATE_CASES = [(name, PARAM_COUNT.get(name, 0)) for name in gq.gates.gate_names() if name != "u"]
GATE_CASES += [("u", 3), ("u", 4)]
PAULI_STRINGS = ("X", "Y", "Z", "XY", "ZZ", "YZ", "XZY", "ZIZ")


def placements(n: int, arity: int, max_controls: int):
    """All ordered target tuples, with every subset of up to ``max_controls`` other qubits as
    controls and every pattern of control values."""
    for targets in itertools.permutations(range(n), arity):
        rest = [q for q in range(n) if q not in targets]
        for n_controls in range(min(max_controls, len(rest)) + 1):
            for controls in itertools.combinations(rest, n_controls):
                for values in itertools.product((0, 1), repeat=n_controls):
                    yield targets, controls, values


def _all_cases(n_max: int, max_controls: int):
    for name, n_params in GATE_CASES:
        arity = ARITY.get(name, 1)
        for n in range(arity, n_max + 1):
            yield name, n_params, n


NUMERIC_BACKENDS = CPU_BACKENDS


@pytest.mark.parametrize("backend", NUMERIC_BACKENDS)
@pytest.mark.parametrize("dtype,atol", [("complex128", 1e-12), ("complex64", 1e-6)])
@pytest.mark.parametrize("name,n_params,n", list(_all_cases(5, 4)))
def test_named_gate_every_placement(name, n_params, n, dtype, atol, backend):
    rng = np.random.default_rng(hash((name, n_params, n)) % 2**32)
    params = ANGLES[:n_params]
    gate = gq.gate(name, *params)
    U = reference_matrix(name, params)
    psi0 = random_state(n, rng)
    checked = 0
    for targets, controls, values in placements(n, gate.n_qubits, n):
        psi = gq.StateVector(psi0.astype(dtype), backend=backend)
        psi.apply(gq.Circuit(n).append(gate, targets, controls, values))
        expected = embed(U, n, targets, controls, values) @ psi0
        np.testing.assert_allclose(psi.amplitudes, expected, atol=atol, rtol=0)
        checked += 1
    assert checked > 0


@pytest.mark.parametrize("backend", NUMERIC_BACKENDS)
@pytest.mark.parametrize("dtype,atol", [("complex128", 1e-12), ("complex64", 1e-6)])
@pytest.mark.parametrize("pauli", PAULI_STRINGS)
def test_pauli_rotation_every_placement(pauli, dtype, atol, backend):
    theta = 0.913
    U = pauli_rotation_reference(pauli, theta)
    rng = np.random.default_rng(7)
    for n in range(len(pauli), 5):
        psi0 = random_state(n, rng)
        for targets, controls, values in placements(n, len(pauli), 2):
            psi = gq.StateVector(psi0.astype(dtype), backend=backend)
            op = gq.PauliRotation(pauli, theta)
            psi.apply(gq.Circuit(n).append(op, targets, controls, values))
            expected = embed(U, n, targets, controls, values) @ psi0
            np.testing.assert_allclose(psi.amplitudes, expected, atol=atol, rtol=0)


@pytest.mark.parametrize("backend", NUMERIC_BACKENDS)
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("structure", ["dense", "diagonal", "permutation"])
def test_unitary_every_placement(k, structure, backend):
    """User matrices (detected as dense, diagonal or phased permutation) on every placement."""
    rng = np.random.default_rng(k * 10 + len(structure))
    dim = 2**k
    if structure == "dense":
        U = np.linalg.qr(rng.normal(size=(dim, dim)) + 1j * rng.normal(size=(dim, dim)))[0]
    elif structure == "diagonal":
        U = np.diag(np.exp(1j * rng.uniform(0, 2 * np.pi, dim)))
    else:
        U = np.eye(dim)[:, rng.permutation(dim)] * np.exp(1j * rng.uniform(0, 2 * np.pi, dim))
    gate = gq.MatrixGate(U)
    assert gate.kind.value == structure
    for n in range(k, 6):
        psi0 = random_state(n, rng)
        for targets, controls, values in placements(n, k, 2 if n == 5 else n):
            psi = gq.StateVector(psi0.copy(), backend=backend)
            psi.apply(gq.Circuit(n).unitary(U, targets, controls, values))
            np.testing.assert_allclose(
                psi.amplitudes, embed(U, n, targets, controls, values) @ psi0, atol=1e-12
            )


def test_cx_equals_unitary_with_reversed_targets():
    """The documented convention: cx(0, 1) == unitary(CX4, [1, 0]) (targets[0] = LSB)."""
    cx4 = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]])
    psi0 = random_state(2, np.random.default_rng(3))
    a = gq.simulate(gq.Circuit(2).cx(0, 1), initial=psi0)
    b = gq.simulate(gq.Circuit(2).unitary(cx4, [1, 0]), initial=psi0)
    np.testing.assert_allclose(a.amplitudes, b.amplitudes, atol=1e-15)
    # and on basis states: |q1 q0> = |01> (index 1, control set) -> |11>
    assert gq.simulate(gq.Circuit(2).cx(0, 1), initial=1).probabilities()[3] == pytest.approx(1)


@pytest.mark.parametrize(
    "builder,name,params,targets,controls",
    [
        (lambda c: c.cx(2, 0), "x", (), (0,), (2,)),
        (lambda c: c.cy(0, 1), "y", (), (1,), (0,)),
        (lambda c: c.cz(1, 2), "z", (), (2,), (1,)),
        (lambda c: c.ch(2, 1), "h", (), (1,), (2,)),
        (lambda c: c.cp(0.4, 0, 2), "p", (0.4,), (2,), (0,)),
        (lambda c: c.crx(0.5, 1, 0), "rx", (0.5,), (0,), (1,)),
        (lambda c: c.cry(0.6, 0, 1), "ry", (0.6,), (1,), (0,)),
        (lambda c: c.crz(0.7, 2, 0), "rz", (0.7,), (0,), (2,)),
        (lambda c: c.cu(0.1, 0.2, 0.3, 0.4, 1, 2), "u", (0.1, 0.2, 0.3, 0.4), (2,), (1,)),
        (lambda c: c.ccx(0, 2, 1), "x", (), (1,), (0, 2)),
        (lambda c: c.cswap(1, 0, 2), "swap", (), (0, 2), (1,)),
        (lambda c: c.mcx([0, 1], 2, [0, 1]), "x", (), (2,), (0, 1)),
    ],
)
def test_controlled_builders(builder, name, params, targets, controls):
    """Builder methods for controlled gates put controls and targets where documented."""
    c = builder(gq.Circuit(3))
    op = c.operations[0]
    values = op.control_values
    psi0 = random_state(3, np.random.default_rng(11))
    expected = embed(reference_matrix(name, params), 3, targets, controls, values) @ psi0
    np.testing.assert_allclose(gq.simulate(c, initial=psi0).amplitudes, expected, atol=1e-12)


def test_controlled_any_gate_and_subcircuit():
    psi0 = random_state(4, np.random.default_rng(5))
    c = gq.Circuit(4).controlled(
        gq.gate("rxx", 0.3), targets=[3, 1], controls=[0], control_values=[0]
    )
    expected = embed(reference_matrix("rxx", (0.3,)), 4, (3, 1), (0,), (0,)) @ psi0
    np.testing.assert_allclose(gq.simulate(c, initial=psi0).amplitudes, expected, atol=1e-12)
    # a whole sub-circuit under a control: each of its operations gains the control
    sub = gq.Circuit(2).h(0).cx(0, 1)
    c = gq.Circuit(4).controlled(sub, targets=[2, 3], controls=[1])
    expected = (
        embed(reference_matrix("x", ()), 4, (3,), (2, 1))
        @ embed(reference_matrix("h", ()), 4, (2,), (1,))
        @ psi0
    )
    np.testing.assert_allclose(gq.simulate(c, initial=psi0).amplitudes, expected, atol=1e-12)


# -- exact SymPy ------------------------------------------------------------------------------

theta, phi, lam, gam = gq.parameters("theta phi lam gamma")
SYMBOLIC_PARAMS = (theta, phi, lam, gam)


def _exact_equal(a, b) -> bool:
    diff = sympy.expand(a - b)
    if diff == 0:
        return True
    return sympy.expand(diff.rewrite(sympy.exp)) == 0 or sympy.simplify(diff) == 0


@pytest.mark.parametrize("name,n_params", GATE_CASES)
def test_gate_matrices_exact(name, n_params):
    params = SYMBOLIC_PARAMS[:n_params]
    ours = gq.gate(name, *params).matrix("sympy")
    ref = reference_matrix(name, params, exact=True)
    assert all(_exact_equal(x, y) for x, y in zip(ours.reshape(-1), ref.reshape(-1)))


@pytest.mark.parametrize("pauli", PAULI_STRINGS)
def test_pauli_rotation_matrices_exact(pauli):
    ours = gq.PauliRotation(pauli, theta).matrix("sympy")
    ref = pauli_rotation_reference(pauli, theta, exact=True)
    assert all(_exact_equal(x, y) for x, y in zip(ours.reshape(-1), ref.reshape(-1)))


def _gaussian_integer_state(n: int, rng: np.random.Generator) -> np.ndarray:
    re, im = rng.integers(-3, 4, size=(2, 2**n))
    return np.array([sympy.Integer(a) + sympy.I * b for a, b in zip(re, im)], dtype=object)


def _sympy_placements(n: int, arity: int, rng: np.random.Generator, full: bool):
    """Every placement (``full``, or n <= 3); otherwise, for n = 4, 5, every target placement
    without controls plus a seeded sample of six controlled ones (the complete set runs in
    the slow suite: about three minutes of SymPy arithmetic)."""
    every = list(placements(n, arity, n))
    if full or n <= 3:
        return every
    plain = [p for p in every if not p[1]]
    controlled = [p for p in every if p[1]]
    picks = rng.choice(len(controlled), size=min(len(controlled), 6), replace=False)
    return plain + [controlled[i] for i in picks]


def _check_exact_placements(name: str, n_params: int, n: int, full: bool) -> None:
    rng = np.random.default_rng(hash((name, n, "exact")) % 2**32)
    params = SYMBOLIC_PARAMS[:n_params]
    gate = gq.gate(name, *params)
    U = reference_matrix(name, params, exact=True)
    psi0 = _gaussian_integer_state(n, rng)
    for targets, controls, values in _sympy_placements(n, gate.n_qubits, rng, full):
        psi = gq.StateVector(psi0.copy())
        psi.apply(gq.Circuit(n).append(gate, targets, controls, values))
        expected = embed(U, n, targets, controls, values, exact=True).dot(psi0)
        for got, want in zip(psi.amplitudes, expected):
            assert _exact_equal(got, want), (targets, controls, values, got, want)


@pytest.mark.parametrize("name,n_params,n", list(_all_cases(5, 2)))
def test_named_gate_placements_exact(name, n_params, n):
    _check_exact_placements(name, n_params, n, full=False)


@pytest.mark.slow
@pytest.mark.parametrize("name,n_params,n", [c for c in _all_cases(5, 2) if c[2] >= 4])
def test_named_gate_every_placement_exact(name, n_params, n):
    _check_exact_placements(name, n_params, n, full=True)


def test_machine_number_gate_arrays_are_built_once(monkeypatch):
    """A gate such as ``rz(pi/2)`` is evaluated once per machine-number system and reused by
    equal gates (each call gets its own copy, equal to the textbook matrix); symbolic gates
    and other number systems are built anew each time."""
    built = []
    original = gq.gates.NamedGate._built

    def counting(self, numbers):
        built.append((self.name, numbers.name))
        return original(self, numbers)

    monkeypatch.setattr(gq.gates.NamedGate, "_built", counting)
    angle = sympy.pi / 7  # an angle no other test uses, so the first build happens here
    a = gq.gate("rz", angle).diagonal(gq.get_number_system("complex128"))
    b = gq.gate("rz", angle).diagonal(gq.get_number_system("complex128"))
    assert built == [("rz", "complex128")]
    assert a is not b
    np.testing.assert_allclose(np.diag(a), reference_matrix("rz", (np.pi / 7,)), atol=1e-15)
    a[0] = 0  # a caller's copy: the next build is unaffected
    np.testing.assert_array_equal(
        gq.gate("rz", angle).diagonal(gq.get_number_system("complex128")), b
    )
    single = gq.gate("rz", angle).diagonal(gq.get_number_system("complex64"))
    assert single.dtype == np.complex64 and built[-1] == ("rz", "complex64")
    theta = sympy.Symbol("theta", real=True)
    gq.gate("rz", theta).matrix("sympy")
    gq.gate("rz", theta).matrix("sympy")
    gq.gate("rz", angle).matrix("sympy")
    gq.gate("rz", angle).matrix("sympy")
    assert built[-4:] == [("rz", "sympy")] * 4


@pytest.mark.parametrize(
    ("matrix", "kind"),
    [
        (np.diag([1, 1j, -1, np.exp(0.3j)]), "DIAGONAL"),
        (np.array([[0, 1j], [1, 0]]), "PERMUTATION"),
        (np.array([[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, -1], [0, 1, 0, 0]]), "PERMUTATION"),
        (np.array([[1, 1], [1, -1]]) / np.sqrt(2), "DENSE"),
        (np.array([[1, 0], [1e-300, 1]]), "DENSE"),  # tiny is not zero: only exact zeros count
    ],
)
def test_a_matrix_gate_is_classified_by_its_exact_zeros(matrix, kind):
    """Numeric matrices (compared with zero in one array operation) and the same entries as
    Python objects (compared one by one, the symbolic path) get the same structure."""
    expected = getattr(gq.GateKind, kind)
    assert gq.MatrixGate(matrix, check_unitary=False).kind is expected
    as_objects = np.array([[complex(v) for v in row] for row in matrix], dtype=object)
    assert gq.MatrixGate(as_objects, check_unitary=False).kind is expected


@pytest.mark.parametrize("name", [name for name, n_params in GATE_CASES if n_params == 0])
def test_checked_gates_without_parameters_are_built_once_and_match_the_textbook(name):
    """``NamedGate.checked`` (the OpenQASM reader's constructor) keeps one gate per name
    when there are no parameters: it must be the gate the checked constructor builds."""
    first = gq.gates.NamedGate.checked(name, ())
    assert gq.gates.NamedGate.checked(name, ()) is first
    assert first == gq.gates.NamedGate(name)
    np.testing.assert_allclose(first.matrix(), reference_matrix(name, ()), atol=1e-12)


def test_checked_gates_with_parameters_are_built_per_call():
    a, b = (gq.gates.NamedGate.checked("rz", (0.5,)) for _ in range(2))
    assert a is not b and a == b
    np.testing.assert_allclose(a.matrix(), reference_matrix("rz", (0.5,)), atol=1e-12)


def test_gate_arrays_remembered_past_the_memo_size_stay_the_textbook_ones(monkeypatch):
    """The memo of gate arrays in machine numbers forgets everything when it fills: gates
    built past its size (a loop binding new angles each time) still give the textbook
    matrices, twice over, and the memo never holds more than its size."""
    from genqsim.circuit import gates

    monkeypatch.setattr(gates, "MACHINE_MEMO_SIZE", 8)
    monkeypatch.setattr(gates, "_MACHINE_MEMO", {})
    numbers = gq.get_number_system("complex128")
    angles = np.linspace(-3, 3, 21)
    for _ in range(2):
        for theta in angles:
            got = gates.NamedGate("ry", float(theta)).matrix(numbers)
            np.testing.assert_allclose(got, reference_matrix("ry", (theta,)), atol=1e-15)
            got[0, 0] = 99  # a caller's copy: the memo's array stays as it was
            assert len(gates._MACHINE_MEMO) <= 8
    assert 0 < len(gates._MACHINE_MEMO) <= 8
