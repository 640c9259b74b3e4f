"""Gradients, Jacobians and Hessians: every method against SymPy's exact derivative of the
symbolic expectation value, and against central finite differences on larger circuits."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim.differentiation.gradients import (
    _adjoint_program,
    _hvp,
    _parameter_values,
    value_and_gradient,
    value_gradient_hessian,
)
from genqsim.states.tangent import real_terms

A, B, C = gq.parameters("a b c")
ROTATIONS = ["rx", "ry", "rz", "p", "u", "rzz", "rxx", "pauli", "cp", "crx", "cry", "open"]
OBSERVABLE = "Z0 Z1 - 0.7*X1 + 0.4*Y0 Y2 + 0.25*Z2"


PLANNED = ["rx", "ry", "rz", "p", "pauli1", "cp", "crx", "cry", "open"]
"""Gates the planned sweep (genqsim.differentiation.adjoint.AdjointProgram) serves: one
target, affine angle."""


@st.composite
def parametrised_circuit(draw, n_qubits=3, rotations=ROTATIONS):
    """Random 3-qubit circuits whose angles are random linear forms in a, b, c, mixed with
    fixed gates; some gates are controlled."""
    c = gq.Circuit(n_qubits)
    for _ in range(draw(st.integers(2, 9))):
        qubits = draw(st.permutations(range(n_qubits)))
        coeffs = draw(st.lists(st.integers(-2, 2), min_size=3, max_size=3))
        offset = draw(st.sampled_from([0, sympy.Rational(1, 3), sympy.pi / 5]))
        angle = coeffs[0] * A + coeffs[1] * B + coeffs[2] * C + offset
        name = draw(st.sampled_from([*rotations, "h", "cx", "ccx", "swap"]))
        if name == "u":
            c.u(angle, A * B, -angle, qubits[0])
        elif name in ("rzz", "rxx"):
            getattr(c, name)(angle, qubits[0], qubits[1])
        elif name.startswith("pauli"):
            word = "XYZ"[: draw(st.integers(1, 1 if name == "pauli1" else 3))]
            c.pauli_rotation(word, angle, qubits[: len(word)])
        elif name in ("cp", "crx", "cry"):
            getattr(c, name)(angle, qubits[0], qubits[1])
        elif name == "open":  # a rotation under a control on |0> and a control on |1>
            gate = draw(st.sampled_from(["ry", "rz", "p"]))
            c.append(gq.gate(gate, angle), qubits[0], qubits[1:], control_values=(0, 1))
        elif name == "h":
            c.h(qubits[0])
        elif name == "cx":
            c.cx(qubits[0], qubits[1])
        elif name == "ccx":
            c.ccx(qubits[0], qubits[1], qubits[2])
        elif name == "swap":
            c.swap(qubits[0], qubits[1])
        else:
            getattr(c, name)(angle, qubits[0])
    return c


def _sympy_gradient(circuit, values):
    """The exact symbolic <H> differentiated by a central difference evaluated to 40 digits
    at exact rational points (truncation ~h**2 = 1e-24, rounding ~1e-28): as exact as
    ``sympy.diff`` to the tolerance used, without differentiating ``re`` of large trees."""
    energy = gq.simulate(circuit, numbers="sympy").expectation(OBSERVABLE)
    point = {p: sympy.Rational(v) for p, v in values.items()}
    h = sympy.Rational(1, 10**12)

    def at(p, shift):
        return sympy.re(energy.xreplace({**point, p: point[p] + shift}).evalf(40))

    return {p: float((at(p, h) - at(p, -h)) / (2 * h)) for p in values}


VALUES = {A: 0.37, B: -1.21, C: 2.05}


@settings(max_examples=25, deadline=None)
@given(parametrised_circuit(), st.sampled_from(["forward", "adjoint", "dual"]))
def test_gradient_methods_equal_the_exact_symbolic_derivative(circuit, method):
    got = gq.gradient(circuit, OBSERVABLE, VALUES, mode=method)
    want = _sympy_gradient(circuit, VALUES)
    assert set(got) == set(VALUES)
    for p in VALUES:
        assert abs(got[p] - want[p]) < 1e-11, (p, got[p], want[p])


@settings(max_examples=25, deadline=None)
@given(parametrised_circuit(rotations=PLANNED), st.lists(st.floats(-3, 3), min_size=3, max_size=3))
def test_planned_sweep_equals_the_exact_derivative_at_every_call(circuit, second):
    """The planned sweep (every angle affine, every rotation on one target, controlled or
    not) against SymPy's exact derivative, then at new values against forward mode: the
    second call reuses the plan with new matrices written into it."""
    parameters = list(VALUES)
    if circuit.parameters:  # a circuit with no parameter is never swept
        assert _adjoint_program(circuit, parameters) is not None
    got = gq.gradient(circuit, OBSERVABLE, VALUES, mode="adjoint")
    want = _sympy_gradient(circuit, VALUES)
    for p in VALUES:
        assert abs(got[p] - want[p]) < 1e-11, (p, got[p], want[p])
    values = dict(zip(parameters, second))
    value, again = value_and_gradient(circuit, OBSERVABLE, values, mode="adjoint")
    forward_value, forward = value_and_gradient(circuit, OBSERVABLE, values, mode="forward")
    assert abs(value - forward_value) < 1e-12
    for p in VALUES:
        assert abs(again[p] - forward[p]) < 1e-11, (p, again[p], forward[p])


def test_planned_sweep_follows_a_growing_circuit_and_serves_only_what_it_can():
    """A gradient plans the sweep once; a gate appended later gives a new plan (the kept one
    no longer describes the circuit); a non-affine angle or a two-target rotation is swept
    gate by gate; a sweep already running on another thread sends a second call gate by
    gate; a pickled circuit leaves its plans behind."""
    c = gq.Circuit(2).ry(A, 0).cx(0, 1).rz(2 * B + 0.5, 1)
    first = _adjoint_program(c, [A, B])
    assert first is not None and _adjoint_program(c, [A, B]) is first
    c.rx(A - B, 0)
    grown = _adjoint_program(c, [A, B])
    assert grown is not None and grown is not first
    a, b = 0.4, -0.7  # <Z0> = cos(a) cos(a - b): the rz and cx leave qubit 0's Z alone
    got = gq.gradient(c, "Z0", {A: a, B: b}, mode="adjoint")
    d_a = -np.sin(a) * np.cos(a - b) - np.cos(a) * np.sin(a - b)
    assert got[A] == pytest.approx(d_a, abs=1e-14)
    assert got[B] == pytest.approx(np.cos(a) * np.sin(a - b), abs=1e-14)
    with grown.lock:  # as if another thread were running it
        assert gq.gradient(c, "Z0", {A: a, B: b}, mode="adjoint") == pytest.approx(got)
    assert pickle.loads(pickle.dumps(c))._derived == {}
    for unserved in (gq.Circuit(2).ry(A * B, 0), gq.Circuit(2).rzz(A, 0, 1).ry(B, 1)):
        assert _adjoint_program(unserved, [A, B]) is None
        forward = gq.gradient(unserved, "Z0 + X1", VALUES, mode="forward")
        adjoint = gq.gradient(unserved, "Z0 + X1", VALUES, mode="adjoint")
        assert adjoint == pytest.approx(forward, abs=1e-13)


def test_planned_rotations_keep_real_and_diagonal_matrices_exact():
    """RY's matrices come out real and RZ's and P's diagonal to the last bit, so the
    backend keeps its real and diagonal step kernels; each equals the gate library's."""
    c = gq.Circuit(1).ry(A, 0).rz(B, 0).p(C, 0).rx(A, 0)
    program = _adjoint_program(c, [A, B, C])
    program.rotations.evaluate(np.array([0.3, 1.1, -2.0]))
    ry, rz, p, rx = program.rotations.matrices
    assert not np.any(ry.imag) and rz[0, 1] == rz[1, 0] == p[0, 1] == p[1, 0] == 0
    for m, name, theta in ((ry, "ry", 0.3), (rz, "rz", 1.1), (p, "p", -2.0), (rx, "rx", 0.3)):
        np.testing.assert_allclose(m, gq.gate(name, theta).matrix(), atol=1e-15)


@settings(max_examples=15, deadline=None)
@given(parametrised_circuit())
def test_jacobian_equals_the_derivative_of_the_symbolic_amplitudes(circuit):
    amps = gq.simulate(circuit, numbers="sympy").amplitudes
    forward, dual = gq.jacobian(circuit, VALUES), gq.jacobian(circuit, VALUES, mode="dual")
    for p in VALUES:
        want = np.array([complex(sympy.diff(x, p).subs(VALUES).evalf(30)) for x in amps])
        np.testing.assert_allclose(forward[p], want, atol=1e-12)
        np.testing.assert_allclose(dual[p], want, atol=1e-12)


def test_hessian_equals_the_symbolic_second_derivatives():
    c = (
        gq.Circuit(3)
        .ry(A, 0)
        .rx(2 * B - A, 1)
        .cx(0, 1)
        .crz(C + B, 1, 2)
        .u(A, B, C, 2)
        .rzz(A * C, 0, 2)
        .h(1)
        .cp(B, 2, 0)
    )
    energy = gq.simulate(c, numbers="sympy").expectation(OBSERVABLE)
    params = list(VALUES)
    want = np.array(
        [[float(sympy.re(sympy.diff(energy, p, q).subs(VALUES).evalf(30))) for q in params]
         for p in params]
    )  # fmt: skip
    hessian = gq.hessian(c, OBSERVABLE, VALUES)
    np.testing.assert_allclose(hessian, want, atol=1e-11)
    np.testing.assert_allclose(hessian, hessian.T, atol=1e-12)
    v = np.array([0.3, -1.0, 2.0])
    np.testing.assert_allclose(gq.hessian(c, OBSERVABLE, VALUES, direction=v), want @ v, atol=1e-11)
    by_name = gq.hessian(c, OBSERVABLE, VALUES, direction={"b": 1.0})
    np.testing.assert_allclose(by_name, want[:, 1], atol=1e-11)
    # the planned sweep does not serve rzz(a c): value, gradient and Hessian the other way
    assert _adjoint_program(c, params) is None
    value, gradient, again = value_gradient_hessian(c, OBSERVABLE, VALUES)
    np.testing.assert_allclose(again, want, atol=1e-11)
    exact = [float(sympy.re(sympy.diff(energy, p).subs(VALUES).evalf(30))) for p in params]
    np.testing.assert_allclose(gradient, exact, atol=1e-11)
    assert abs(value - float(sympy.re(energy.subs(VALUES).evalf(30)))) < 1e-12


def _dual_hessian(circuit, observable, values):
    """The Hessian by forward over reverse: the adjoint sweep on dual numbers in object
    arrays (the generic routine), one sweep per parameter."""
    vals = _parameter_values(circuit, values)
    terms = real_terms(observable, circuit.n_qubits)
    return np.column_stack([_hvp(circuit, terms, vals, row) for row in np.eye(len(vals))]).real


@settings(max_examples=25, deadline=None)
@given(parametrised_circuit(rotations=PLANNED), st.lists(st.floats(-3, 3), min_size=3, max_size=3))
def test_planned_hessian_equals_forward_over_reverse_at_every_call(circuit, second):
    """The curvature sweep (tangents of one forward run read against one backward run, every
    angle affine, rotations on one target under controls of either value) against the
    dual-number sweep, at two points: the second call reuses the plan with new matrices."""
    parameters = list(VALUES)
    if circuit.parameters:
        assert _adjoint_program(circuit, parameters) is not None
    for values in (VALUES, dict(zip(parameters, second))):
        value, gradient, hessian = value_gradient_hessian(circuit, OBSERVABLE, values)
        want = _dual_hessian(circuit, OBSERVABLE, values)
        np.testing.assert_allclose(hessian, want, atol=1e-11)
        np.testing.assert_allclose(hessian, hessian.T, atol=1e-12)
        forward_value, forward = value_and_gradient(circuit, OBSERVABLE, values, mode="forward")
        assert abs(value - forward_value) < 1e-12
        np.testing.assert_allclose(gradient, [forward[p] for p in parameters], atol=1e-11)
        v = np.array([0.3, -1.0, 2.0])
        np.testing.assert_allclose(gq.hessian(circuit, OBSERVABLE, values, direction=v),
                                   want @ v, atol=1e-11)  # fmt: skip


def test_planned_hessian_has_the_closed_form_of_two_rotations():
    """<Z0> after RY(a) then RX(b) on one qubit is cos(a) cos(b): Hessian
    [[-cos a cos b, sin a sin b], [sin a sin b, -cos a cos b]]; a shared angle (RZ(a) on a
    second qubit, under a control) adds through the chain rule."""
    a, b = 0.7, -1.3
    c = gq.Circuit(1).ry(A, 0).rx(B, 0)
    want = [[-np.cos(a) * np.cos(b), np.sin(a) * np.sin(b)],
            [np.sin(a) * np.sin(b), -np.cos(a) * np.cos(b)]]  # fmt: skip
    np.testing.assert_allclose(gq.hessian(c, "Z0", {A: a, B: b}), want, atol=1e-14)
    # <X0> after RY(a) RY(b) = sin(a + b): every entry -sin(a + b)
    c = gq.Circuit(1).ry(A, 0).ry(B, 0)
    got = gq.hessian(c, "X0", {A: a, B: b})
    np.testing.assert_allclose(got, np.full((2, 2), -np.sin(a + b)), atol=1e-14)
    # <X0> after RY(a) RY(2a - b + 0.4): sin(3a - b + 0.4), Hessian -sin(.) [[9, -3], [-3, 1]]
    c = gq.Circuit(1).ry(A, 0).ry(2 * A - B + 0.4, 0)
    s = np.sin(3 * a - b + 0.4)
    np.testing.assert_allclose(gq.hessian(c, "X0", {A: a, B: b}),
                               -s * np.array([[9, -3], [-3, 1]]), atol=1e-13)  # fmt: skip
    assert gq.hessian(gq.Circuit(2).h(0), "Z0", {}).shape == (0, 0)


def test_planned_hessian_wider_than_a_tile_matches_finite_differences():
    """Above one cache tile (15 qubits) the sweep runs its segments state by state; against
    central differences of the adjoint gradient (step 1e-4, truncation ~1e-9)."""
    rng = np.random.default_rng(7)
    n = 15
    params = gq.parameters("w0:5")
    c = gq.Circuit(n)
    for layer in range(3):
        for q in range(n):
            angle = params[(q + layer) % 5]
            [c.ry, c.rz, c.rx][(q + layer) % 3](angle * (1 + layer) - 0.1 * q, q)
        for q in range(layer % 2, n - 1, 2):
            c.cx(q, q + 1)
        c.crx(params[layer], 0, n - 1).append(gq.gate("p", params[4]), 3, [5], control_values=(0,))
    values = dict(zip(params, rng.uniform(-2, 2, 5)))
    observable = "Z0 Z14 + 0.5 X7 - 0.25 Y3 Y4"
    got = gq.hessian(c, observable, values)
    h = 1e-4
    columns = []
    for p in params:
        up = gq.gradient(c, observable, {**values, p: values[p] + h}, mode="adjoint")
        down = gq.gradient(c, observable, {**values, p: values[p] - h}, mode="adjoint")
        columns.append([(up[q] - down[q]) / (2 * h) for q in params])
    np.testing.assert_allclose(got, np.array(columns).T, atol=1e-7)
    np.testing.assert_allclose(got, got.T, atol=1e-12)


def test_planned_hessians_on_threads_equal_the_serial_ones():
    """Sweeps of one circuit on several threads wait for each other (the program's lock);
    sweeps of circuits of other sizes keep their own rows (one set a thread)."""
    from concurrent.futures import ThreadPoolExecutor

    circuits = []
    for n in (3, 5, 6):
        c = gq.Circuit(n)
        for q in range(n):
            c.ry(A * (q + 1) - B, q).rz(B + C * q, q).cx(q, (q + 1) % n)
        circuits.append(c)
    values = {A: 0.4, B: -0.9, C: 1.3}
    serial = [gq.hessian(c, "Z0 X1 + 0.5 Y2", values) for c in circuits]
    with ThreadPoolExecutor(4) as pool:
        found = list(pool.map(lambda c: gq.hessian(c, "Z0 X1 + 0.5 Y2", values), circuits * 4))
    for k, got in enumerate(found):
        np.testing.assert_allclose(got, serial[k % 3], atol=1e-13)
    np.testing.assert_allclose(serial[1], _dual_hessian(circuits[1], "Z0 X1 + 0.5 Y2", values),
                               atol=1e-12)  # fmt: skip


def test_planned_hessian_refuses_what_does_not_fit(monkeypatch):
    """Three states per rotation past the memory there is: a typed error that says so and
    names Hessian-vector products as the way out, which then run forward over reverse."""
    n = 12

    def build():
        c = gq.Circuit(n)
        for q in range(n):
            c.ry(A * (q + 1), q).cx(q, (q + 1) % n)
        return c

    want = gq.hessian(build(), "Z0", {A: 0.3})
    gq.hessian(gq.Circuit(1).ry(A, 0), "Z0", {A: 0.3})  # the thread keeps these rows now
    c = build()
    monkeypatch.setenv("GENQSIM_MEMORY_LIMIT", str(1 << 20))
    with pytest.raises(gq.StateTooLargeError, match="3 states of 12 qubits for each of"):
        gq.hessian(c, "Z0", {A: 0.3})
    np.testing.assert_allclose(gq.hessian(c, "Z0", {A: 0.3}, direction=[2.0]), 2 * want[:, 0])


def test_gradient_of_a_larger_ansatz_matches_finite_differences():
    n, layers = 8, 3
    c = gq.library.hardware_efficient(n, layers)
    params = c.parameters
    rng = np.random.default_rng(7)
    values = dict(zip(params, rng.uniform(-np.pi, np.pi, len(params))))
    obs = " + ".join(f"Z{q} Z{q + 1}" for q in range(n - 1)) + " + 0.5*X0"
    forward = gq.gradient(c, obs, values, mode="forward")
    adjoint = gq.gradient(c, obs, values)  # many parameters: adjoint by default
    h = 1e-5
    for p in params[:: max(1, len(params) // 6)]:
        plus = gq.simulate(c.bind({**values, p: values[p] + h})).expectation(obs)
        minus = gq.simulate(c.bind({**values, p: values[p] - h})).expectation(obs)
        fd = (plus - minus) / (2 * h)
        assert abs(adjoint[p] - fd) < 1e-7
        assert abs(forward[p] - adjoint[p]) < 1e-11


@settings(max_examples=15, deadline=None)
@given(parametrised_circuit())
def test_the_adjoint_on_a_chosen_backend_equals_the_exact_derivative(circuit):
    """``backend=`` runs the unplanned sweep on that backend's primitives (here the generic
    NumPy one: every gate kind, the third state for gates without a Pauli generator)."""
    want = _sympy_gradient(circuit, VALUES)
    value, got = value_and_gradient(circuit, OBSERVABLE, VALUES, backend="numpy")
    bound = circuit.bind({p: v for p, v in VALUES.items() if p in circuit.parameters})
    energy = gq.simulate(bound, backend="numpy").expectation(OBSERVABLE)
    assert abs(value - energy) < 1e-12
    for p in VALUES:
        assert abs(got[p] - want[p]) < 1e-11, (p, got[p], want[p])
    assert gq.gradient(circuit, OBSERVABLE, VALUES, device="cpu") == pytest.approx(got, abs=1e-11)


def test_backend_and_device_choose_the_adjoint_and_nothing_else():
    from genqsim.differentiation.gradients import _sweep_backend

    c = gq.Circuit(2).rx(A, 0).cry(B, 0, 1)
    values = {A: 0.3, B: -0.8}
    assert _sweep_backend(c, None, "numpy", None).name == "numpy"
    assert _sweep_backend(c, "adjoint", None, "cpu") is None  # the default (planned) sweep
    with pytest.raises(gq.ArgumentValueError, match="adjoint"):
        gq.gradient(c, "Z1", values, mode="forward", device="gpu")
    with pytest.raises(gq.ArgumentValueError, match="adjoint"):
        gq.gradient(c, "Z1", values, mode="dual", backend="numpy")
    with pytest.raises(ValueError, match="device"):
        gq.gradient(c, "Z1", values, device="tpu")
    with pytest.raises(ValueError, match="runs on the cpu"):
        gq.gradient(c, "Z1", values, backend="numpy", device="gpu")
    with pytest.raises(gq.GenqsimError, match="nonexistent"):
        gq.gradient(c, "Z1", values, backend="nonexistent")


def test_parameters_absent_from_the_circuit_get_zero_and_names_work():
    c = gq.Circuit(1).rx(A, 0)
    grad = gq.gradient(c, "Z0", {"a": 0.5, B: 1.0})
    assert grad[B] == 0.0
    assert abs(grad[A] + np.sin(0.5)) < 1e-14  # <Z> = cos(a)


def test_gradient_input_errors():
    c = gq.Circuit(2).rx(A, 0).ry(B, 1)
    with pytest.raises(gq.UnboundParameterError, match="b"):
        gq.gradient(c, "Z0", {A: 0.1})
    with pytest.raises(gq.NonFiniteError):
        gq.gradient(c, "Z0", {A: float("nan"), B: 0.0})
    with pytest.raises(gq.NumberTypeError, match="real"):
        gq.gradient(c, "Z0", {A: 0.1j, B: 0.0})
    measured = gq.Circuit(1).rx(A, 0).measure(0).rx(A, 0)  # <Z> = cos(A)**2 (dephased)
    assert gq.gradient(measured, "Z0", {A: 0.1})[A] == pytest.approx(-np.sin(0.2), abs=1e-12)
    with pytest.raises(gq.NotUnitaryError, match="measure"):
        gq.gradient(measured, "Z0", {A: 0.1}, mode="adjoint")
    with pytest.raises(ValueError, match="mode"):
        gq.gradient(c, "Z0", {A: 0.1, B: 0.2}, mode="backprop")
    with pytest.raises(gq.QubitIndexError):
        gq.gradient(c, "Z5", {A: 0.1, B: 0.2})
    with pytest.raises(ValueError, match="entries"):
        gq.hessian(c, "Z0", {A: 0.1, B: 0.2}, direction=[1.0])


@pytest.mark.parametrize("planned", [False, True], ids=["gate-by-gate", "planned"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_adjoint_in_tiles_equals_forward_mode_on_a_large_state(seed, planned):
    """16 qubits: the backward sweep runs in gathered tiles (runs of un-applies and
    gradient steps, one pass over both states per run) with the real (ry), diagonal (rz, p)
    and general (rx, u) step kernels, controlled rotations, and multi-qubit rotations
    that end a run; against forward mode, which shares none of that code. Without ``u`` and
    ``rzz`` the circuit is served by the planned sweep, forward pass in tiles included."""
    n = 16
    rng = np.random.default_rng(seed)
    c = gq.Circuit(n)
    names = ["rx", "ry", "rz", "p", "crx", "cry", "crz", "h", "cx"]
    for _ in range(60):
        q = [int(x) for x in rng.choice(n, 3, replace=False)]
        angle = int(rng.integers(1, 3)) * [A, B, C][rng.integers(3)] + float(rng.normal())
        name = rng.choice(names if planned else [*names, "u", "rzz"])
        if name in ("rx", "ry", "rz", "p"):
            getattr(c, name)(angle, q[0])
        elif name in ("crx", "cry", "crz", "rzz"):
            getattr(c, name)(angle, q[0], q[1])
        elif name == "u":
            c.u(angle, B, 0.3, q[0])
        elif name == "h":
            c.h(q[0])
        else:
            c.cx(q[0], q[1])
    obs = "Z0 Z15 + 0.5*X3 - 0.25*Y9 Z12"
    assert (_adjoint_program(c, list(VALUES)) is not None) == planned
    adjoint = gq.gradient(c, obs, VALUES, mode="adjoint")
    forward = gq.gradient(c, obs, VALUES, mode="forward")
    for p in VALUES:
        assert abs(adjoint[p] - forward[p]) < 1e-10, (p, adjoint[p], forward[p])
    assert max(abs(g) for g in forward.values()) > 1e-3


def test_the_old_method_keyword_still_works_with_a_warning():
    """``method=`` names a kind of state in ``simulate``; the differentiation mode is
    ``mode=`` (and ``enclosure=`` for error bounds). The old keywords warn for one release."""
    c = gq.Circuit(1).ry(A, 0)
    with pytest.warns(DeprecationWarning, match="use mode="):
        old = gq.gradient(c, "Z0", {A: 0.3}, method="adjoint")
    assert old[A] == pytest.approx(-np.sin(0.3), abs=1e-12)
    assert gq.gradient(c, "Z0", {A: 0.3}, mode="adjoint")[A] == pytest.approx(old[A])
    with pytest.raises(gq.ArgumentTypeError, match="not both"):
        gq.gradient(c, "Z0", {A: 0.3}, mode="adjoint", method="adjoint")
    with pytest.warns(DeprecationWarning, match="use enclosure="):
        bound = gq.error_bound(gq.Circuit(1).h(0), "complex64", method="interval")
    assert bound.enclosure == "interval"


def test_wide_circuits_differentiate_in_the_heisenberg_picture_by_default():
    """60 qubits hold no state vector: gq.gradient takes mode='pauli' by itself; checked
    against central finite differences of the expectation value."""
    a, b = gq.parameters("a b")
    n = 60
    c = gq.Circuit(n)
    for q in range(n):
        c.ry(a, q)
    for q in range(n - 1):
        c.cx(q, q + 1)
    c.rz(b, 30).rx(b, 31)
    values = {a: 0.37, b: -1.1}
    grads = gq.gradient(c, "Z30 Z31 + 0.5*X31", values)
    h = 1e-6
    for p in (a, b):
        up = gq.expectation(c.bind({**values, p: values[p] + h}), "Z30 Z31 + 0.5*X31")
        down = gq.expectation(c.bind({**values, p: values[p] - h}), "Z30 Z31 + 0.5*X31")
        assert grads[p] == pytest.approx((up - down) / (2 * h), abs=1e-7)


@pytest.mark.parametrize("mode", ["forward", "adjoint"])
def test_gradients_broadcast_over_parameter_arrays(mode):
    """Arrays of values broadcast as NumPy's (a column and a row give a grid); each point's
    derivatives equal central finite differences of the expectation value there."""
    a, b = gq.parameters("a b")
    c = gq.Circuit(3).ry(a, 0).cx(0, 1).rz(b, 1).rx(a, 2).cx(1, 2).ry(b * a, 0)
    obs = "Z0 Z1 + 0.5*X2 - Y1 Y2"
    grid = {"a": np.linspace(-1, 1, 3)[:, None], b: np.linspace(0.2, 2, 4)}
    grads = gq.gradient(c, obs, grid, mode)
    assert set(grads) == {a, b} and all(g.shape == (3, 4) for g in grads.values())
    values = gq.expectation(c, obs, values=grid)
    h = 1e-6
    for i, x in enumerate(np.linspace(-1, 1, 3)):
        for j, y in enumerate(np.linspace(0.2, 2, 4)):
            da = (gq.expectation(c, obs, values={a: x + h, b: y})
                  - gq.expectation(c, obs, values={a: x - h, b: y})) / (2 * h)  # fmt: skip
            db = (gq.expectation(c, obs, values={a: x, b: y + h})
                  - gq.expectation(c, obs, values={a: x, b: y - h})) / (2 * h)  # fmt: skip
            assert grads[a][i, j] == pytest.approx(da, abs=1e-7)
            assert grads[b][i, j] == pytest.approx(db, abs=1e-7)
    from genqsim.differentiation.gradients import value_and_gradient

    energy, again = value_and_gradient(c, obs, grid, mode)
    np.testing.assert_allclose(energy, values, atol=1e-12)
    np.testing.assert_array_equal(again[a], grads[a])
    with pytest.raises(gq.ArgumentValueError, match="broadcast"):
        gq.gradient(c, obs, {"a": [0.1, 0.2, 0.3], "b": [0.1, 0.2]})
