"""StateVector methods against direct NumPy computations."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import genqsim as gq

from reference import random_state
from registries import CPU_BACKENDS


def test_inner_fidelity_and_norm_against_numpy():
    rng = np.random.default_rng(4)
    a, b = random_state(4, rng), random_state(4, rng)
    pa, pb = gq.StateVector(a.copy()), gq.StateVector(b.copy())
    assert pa.inner(pb) == pytest.approx(np.vdot(a, b))
    assert pa.fidelity(pb) == pytest.approx(abs(np.vdot(a, b)) ** 2)
    assert pa.norm_squared() == pytest.approx(1.0)


def test_normalize_numeric_and_exact():
    psi = gq.StateVector(np.array([3, 4j, 0, 0], dtype=complex))
    psi.normalize()
    np.testing.assert_allclose(psi.amplitudes, [0.6, 0.8j, 0, 0], atol=1e-15)
    exact = gq.StateVector([1, 1, 1, 0], numbers="sympy").normalize()
    assert list(exact.amplitudes) == [sympy.sqrt(3) / 3] * 3 + [0]
    with pytest.raises(gq.InvalidProbabilityError, match="zero state"):
        gq.StateVector(np.zeros(2, dtype=complex)).normalize()


def test_copy_is_independent_and_to_numpy_copies():
    psi = gq.simulate(gq.library.ghz(3))
    twin = psi.copy()
    twin.apply(gq.Circuit(3).x(0))
    assert psi.amplitudes[0] == pytest.approx(2**-0.5) and twin.amplitudes[0] == 0
    host = psi.to_numpy()
    host[0] = 0
    assert psi.amplitudes[0] != 0


def test_basis_states_and_initial_forms():
    assert gq.basis("110").probabilities()[6] == 1
    assert gq.basis(5, n_qubits=3, numbers="sympy").amplitudes[5] == 1
    c = gq.Circuit(2).x(0)
    for initial in ("10", 2, np.array([0, 0, 1, 0], dtype=complex), gq.basis("10")):
        assert gq.simulate(c, initial=initial).probabilities()[3] == pytest.approx(1)


def test_simulate_does_not_modify_the_initial_state_object():
    start = gq.basis("00")
    gq.simulate(gq.Circuit(2).h(0), initial=start)
    assert start.amplitudes[0] == 1


def test_expectation_function_binds_values():
    (t,) = gq.parameters("t")
    value = gq.expectation(gq.Circuit(1).rx(t, 0), "Z0", values={t: 0.4})
    assert value == pytest.approx(np.cos(0.4))


def test_complex64_state_stays_complex64():
    psi = gq.simulate(gq.library.qft(4), numbers="complex64", initial=3)
    assert psi.amplitudes.dtype == np.complex64
    assert psi.probabilities().dtype == np.float32
    np.testing.assert_allclose(psi.probabilities(), np.full(16, 1 / 16), atol=1e-6)


def test_zero_qubit_state():
    psi = gq.zeros(0)
    assert psi.n_qubits == 0 and psi.amplitudes.tolist() == [1]
    assert psi.sample(3, seed=0) == {"": 3}


@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_a_circuit_applied_again_keeps_its_plan_until_it_grows(backend):
    from genqsim.plan import plan_for_backend

    from reference import embed, reference_matrix

    n = 4
    ops = [("h", (), [0]), ("cx", (), [0, 2]), ("rz", (0.3,), [1]), ("t", (), [3]),
           ("cx", (), [3, 1]), ("ry", (1.1,), [2])]  # fmt: skip
    c = gq.Circuit(n)
    u = np.eye(2**n, dtype=complex)
    for name, params, qubits in ops:
        getattr(c, name)(*params, *qubits)
        base = "x" if name == "cx" else name
        targets, controls = (qubits[1:], qubits[:1]) if name == "cx" else (qubits, ())
        u = embed(reference_matrix(base, params), n, targets, controls) @ u
    v = random_state(n, np.random.default_rng(5))
    psi = gq.StateVector(v.copy(), backend=backend)
    psi.apply(c, fuse=True)
    plan = plan_for_backend(c, psi.numbers, psi.backend, True, keep=True)
    psi.apply(c, fuse=True)  # the kept plan, run again: U U v
    np.testing.assert_allclose(psi.to_numpy(), u @ u @ v, atol=1e-12)
    assert plan_for_backend(c, psi.numbers, psi.backend, True, keep=True) is plan
    assert (
        plan_for_backend(c, psi.numbers, psi.backend, False, keep=True) is not plan
    )  # another fusion
    c.h(2)  # the circuit grows: planned anew, with the new gate
    u = embed(reference_matrix("h"), n, [2]) @ u
    assert plan_for_backend(c, psi.numbers, psi.backend, True, keep=True) is not plan
    psi = gq.StateVector(v.copy(), backend=backend).apply(c, fuse=True)
    np.testing.assert_allclose(psi.to_numpy(), u @ v, atol=1e-12)


def test_symbolic_numbers_are_planned_anew_each_time():
    from genqsim.plan import plan_for_backend

    c = gq.Circuit(2).h(0).cx(0, 1)
    psi = gq.zeros(2, numbers="sympy")
    kept = [plan_for_backend(c, psi.numbers, psi.backend, keep=True) for _ in range(2)]
    assert kept[0] is not kept[1]


def test_a_state_of_another_kind_as_initial_continues_as_that_kind():
    """A density matrix given as ``initial`` runs on as one (``method="auto"``), against
    ``H rho H``; a state vector cannot start from it and says which method can."""
    noisy = gq.Circuit(2).h(0).cx(0, 1).depolarizing(0.2, 0)
    rho = gq.simulate(noisy)
    later = gq.simulate(gq.Circuit(2).h(1), initial=rho)
    h1 = np.kron(np.array([[1, 1], [1, -1]]) / np.sqrt(2), np.eye(2))  # H on qubit 1
    assert later.method == "density_matrix"
    np.testing.assert_allclose(later.to_numpy(), h1 @ rho.to_numpy() @ h1, atol=1e-12)
    with pytest.raises(gq.ArgumentTypeError, match="run with method='density_matrix'"):
        gq.simulate(gq.Circuit(2).h(1), initial=rho, method="statevector")
    vector = gq.simulate(gq.Circuit(2).h(0))
    assert gq.simulate(gq.Circuit(2).x(1), initial=vector).method == "statevector"
