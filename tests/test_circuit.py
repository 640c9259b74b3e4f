"""Circuit building: parameters, bind, inverse, compose, counts, depth and drawing."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest
import sympy

import genqsim as gq

from reference import embed, random_state, reference_matrix


def test_builders_chain_and_record_operations():
    c = gq.Circuit(3).h(0).cx(0, 1).rz(0.5, 2)
    assert [op.gate.name for op in c] == ["h", "x", "rz"]
    assert c.operations[1].controls == (0,) and c.operations[1].targets == (1,)
    assert c.operations[1].control_values == (1,)
    assert len(c) == 3 and c.size == 3


def test_parameters_in_order_of_first_appearance():
    a, b, g = gq.parameters("a b g")
    c = gq.Circuit(2).rx(b, 0).rz(a + g, 1).ry(b, 1).rx("z", 0)
    assert c.parameters == (b, a, g, sympy.Symbol("z", real=True))
    assert all(p.is_real for p in c.parameters)


def test_bind_by_symbol_or_name_and_partial_binding():
    a, b = gq.parameters("a b")
    c = gq.Circuit(1).rx(a, 0).rz(2 * b, 0)
    half = c.bind({"a": 0.25})
    assert half.parameters == (b,)
    full = half.bind({b: 0.5})
    assert full.parameters == ()
    psi = gq.simulate(full)
    expected = reference_matrix("rz", (1.0,)) @ reference_matrix("rx", (0.25,)) @ [1, 0]
    np.testing.assert_allclose(psi.amplitudes, expected, atol=1e-14)
    assert c.parameters == (a, b)  # binding returns a new circuit


def test_repeated_parameter_binds_everywhere():
    (t,) = gq.parameters("t")
    c = gq.Circuit(2).ry(t, 0).cry(-t, 0, 1).bind({t: 0.8})
    psi0 = random_state(2, np.random.default_rng(1))
    expected = (
        embed(reference_matrix("ry", (-0.8,)), 2, (1,), (0,))
        @ embed(reference_matrix("ry", (0.8,)), 2, (0,))
        @ psi0
    )
    np.testing.assert_allclose(gq.simulate(c, initial=psi0).amplitudes, expected, atol=1e-14)


def test_binding_machine_numbers_equals_binding_exact_values():
    """Floats take a fast path (symbols looked up, expressions compiled once); it agrees with
    binding the same values as exact SymPy numbers, which go through SymPy."""
    a, b = gq.parameters("a b")
    c = (
        gq.Circuit(3).rx(a, 0).rz(2 * b + a, 1).ry(a**2 - sympy.sin(b), 2).cp(b / 3, 0, 2)
        .u(a, b, a * b, 1).pauli_rotation("XZ", sympy.cos(a) * b, [0, 2]).rzz(-a, 1, 2)
        .depolarizing(0.1, 0).h(2)
    )  # fmt: skip
    rng = np.random.default_rng(4)
    for _ in range(5):
        x, y = rng.uniform(-3, 3, 2)
        fast = c.bind({"a": x, b: np.float64(y)})
        exact = c.bind({a: sympy.Rational(x), b: sympy.Rational(y)})
        assert fast.parameters == () and len(fast) == len(c)
        for f, e in zip(fast.operations, exact.operations):
            assert (f.targets, f.controls) == (e.targets, e.controls)
            if f.gate.kind is gq.GateKind.CHANNEL:
                continue
            assert all(isinstance(p, float) for p in f.gate.params)
            np.testing.assert_allclose(
                f.gate.matrix("complex128"), e.gate.matrix("complex128"), atol=1e-13
            )
    assert c.bind({"a": 1}).parameters == (b,)  # an int binds as a number, b stays free
    with pytest.raises(gq.UnknownParameterError, match="no parameter 'c'"):
        c.bind({"c": 0.5})
    with pytest.raises(gq.NonFiniteError):
        c.bind({"a": float("nan"), "b": 0.0})


def test_a_bound_circuit_has_the_light_cones_of_its_own_operations():
    """A bound circuit borrows the light cones of the circuit it was bound from (computed
    once per sweep); they hold its own, bound operations, as computing them afresh does."""
    from genqsim.circuit.lightcone import light_cone

    a, b = gq.parameters("a b")
    c = gq.Circuit(5).rx(a, 0).cx(0, 1).rz(b, 2).cx(2, 3).ry(a + b, 4).cz(3, 4).measure(1, 0)
    for values in ({"a": 0.3, "b": -1.2}, {"a": sympy.Rational(1, 3), "b": sympy.pi}):
        bound = c.bind(values)
        for qubits in ([0], [3], [1, 4], [2]):
            borrowed, fresh = bound.light_cone(qubits), light_cone(bound, tuple(qubits))
            assert (borrowed.qubits, borrowed.indices) == (fresh.qubits, fresh.indices)
            assert borrowed.circuit.operations == fresh.circuit.operations
            assert not borrowed.circuit.parameters
    bound = c.bind({"a": 0.3, "b": -1.2})
    c.cx(0, 4)  # the source grows: the bound circuit no longer borrows its cones
    assert bound.light_cone([4]).qubits == light_cone(bound, (4,)).qubits == (2, 3, 4)
    assert pickle.loads(pickle.dumps(bound)).light_cone([4]).qubits == (2, 3, 4)


def test_inverse_reverses_and_inverts_every_gate():
    rng = np.random.default_rng(2)
    U = np.linalg.qr(rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4)))[0]
    c = (
        gq.Circuit(3).h(0).s(1).t(2).sx(0).iswap(0, 2).u(0.1, 0.2, 0.3, 1)
        .cu(0.4, 0.5, 0.6, 0.7, 0, 2).rxx(0.3, 1, 2).pauli_rotation("XYZ", 0.9, [2, 0, 1])
        .unitary(U, [2, 0], [1], [0])
    )  # fmt: skip
    inv = c.inverse()
    assert [op.gate.name for op in inv] == [
        "unitary†", "pauli_rotation", "rxx", "u", "u", "iswapdg", "sxdg", "tdg", "sdg", "h",
    ]  # fmt: skip
    assert inv.operations[2].gate.params == (-0.3,)
    psi0 = random_state(3, rng)
    psi = gq.simulate(c + inv, initial=psi0)
    np.testing.assert_allclose(psi.amplitudes, psi0, atol=1e-12)
    assert inv.inverse() == c


def test_compose_with_qubit_map():
    sub = gq.Circuit(2).h(0).cx(0, 1)
    c = gq.Circuit(3).x(0).compose(sub, qubits=[2, 1])
    assert [(op.gate.name, op.targets, op.controls) for op in c] == [
        ("x", (0,), ()), ("h", (2,), ()), ("x", (1,), (2,)),
    ]  # fmt: skip
    assert (gq.Circuit(2).h(0) + gq.Circuit(2).h(1)) == gq.Circuit(2).h(0).h(1)


def test_count_ops_and_depth():
    c = gq.Circuit(3).h(0).h(1).cx(0, 1).ccx(0, 1, 2).barrier().x(2).x(2)
    assert c.count_ops() == {"h": 2, "x": 2, "cx": 1, "ccx": 1, "barrier": 1}
    assert c.depth() == 5  # h | cx | ccx | x | x on qubit 2
    assert c.size == 6
    assert gq.Circuit(4).h(0).h(1).h(2).h(3).depth() == 1
    assert gq.Circuit(2).depth() == 0


def test_barrier_does_not_change_the_state():
    psi0 = random_state(2, np.random.default_rng(3))
    a = gq.simulate(gq.Circuit(2).h(0).barrier().cx(0, 1), initial=psi0)
    b = gq.simulate(gq.Circuit(2).h(0).cx(0, 1), initial=psi0)
    np.testing.assert_array_equal(a.amplitudes, b.amplitudes)


def test_drawing_shows_gates_controls_and_wires():
    text = str(gq.Circuit(3).h(0).cx(0, 2).cp(0.5, 1, 0).mcx([0, 1], 2, [0, 1]).swap(0, 1))
    lines = text.splitlines()
    assert (
        lines[0].startswith("q0: ") and lines[2].startswith("q1: ") and lines[4].startswith("q2: ")
    )
    assert "H" in lines[0] and "●" in lines[0] and "○" in lines[0]
    assert "┼" in lines[2]  # the cx(0, 2) line crosses qubit 1
    assert "P(0.5)" in lines[0] and "X" in lines[4]
    assert lines[0].count("×") == 1 and lines[2].count("×") == 1
    assert "│" in lines[1] and "│" in lines[3]


def test_equality_compares_gates_and_parameters():
    (t,) = gq.parameters("t")
    assert gq.Circuit(1).rx(t, 0) == gq.Circuit(1).rx(t, 0)
    assert gq.Circuit(1).rx(t, 0) != gq.Circuit(1).rx(2 * t, 0)
    assert gq.Circuit(1).rx(0.5, 0) != gq.Circuit(1).ry(0.5, 0)
    assert gq.Circuit(2).cx(0, 1) != gq.Circuit(2).cx(1, 0)


def test_string_parameter_names_become_real_symbols():
    c = gq.Circuit(1).rz("alpha", 0)
    (alpha,) = c.parameters
    assert alpha.name == "alpha" and alpha.is_real
    assert c.bind({"alpha": np.float64(0.5)}).parameters == ()


def test_new_operation_is_the_operation_init_builds():
    from genqsim.circuit.circuit import Operation, new_operation
    from genqsim.circuit.gates import NamedGate

    for fields in [(NamedGate("x"), (1,)), (NamedGate("u", 0.1, 0.2, 0.3), (0,), (2, 1), (1, 0))]:
        fast, plain = new_operation(*fields), Operation(*fields)
        assert fast == plain and hash(fast) == hash(plain) and vars(fast) == vars(plain)
        assert pickle.loads(pickle.dumps(fast)) == plain and fast.qubits == plain.qubits
        with pytest.raises(dataclasses.FrozenInstanceError):
            fast.targets = (3,)  # type: ignore[misc]
