"""Qiskit interop: states agree with Qiskit's Statevector, qubit order and symbolic
parameters survive both directions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq

from reference import random_state
from strategies import random_circuit

qiskit = pytest.importorskip("qiskit")
from qiskit.circuit import Parameter  # noqa: E402
from qiskit.quantum_info import Statevector  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(random_circuit(n_max=5), st.integers(0, 2**31))
def test_to_qiskit_gives_the_same_state(circuit, seed):
    psi0 = random_state(circuit.n_qubits, np.random.default_rng(seed))
    qc = gq.to_qiskit(circuit)
    expected = Statevector(psi0).evolve(qc).data
    ours = gq.simulate(circuit, initial=psi0).amplitudes
    np.testing.assert_allclose(ours, expected, atol=1e-10)
    back = gq.from_qiskit(qc)
    np.testing.assert_allclose(gq.simulate(back, initial=psi0).amplitudes, ours, atol=1e-10)


def test_from_qiskit_keeps_order_and_parameters():
    theta = Parameter("theta")
    qc = qiskit.QuantumCircuit(3, 2)
    qc.h(0)
    qc.cx(0, 2)
    qc.rz(2 * theta + 0.5, 1)
    qc.cu(0.1, 0.2, 0.3, 0.4, 2, 1)
    qc.ccx(0, 1, 2)
    qc.measure(2, 1)
    c = gq.from_qiskit(qc)
    (sym,) = c.parameters
    assert sym.name == "theta" and sym.is_real
    assert c.n_clbits == 2
    _, terminal = c.split_terminal_measurements()
    assert terminal == [(2, 1)]
    qc.remove_final_measurements()
    expected = Statevector(qc.assign_parameters({theta: 0.37})).data
    ours = gq.simulate(c.bind({"theta": 0.37})).amplitudes
    np.testing.assert_allclose(ours, expected, atol=1e-12)


def test_to_qiskit_turns_symbols_into_parameters():
    a, b = gq.parameters("a b")
    c = gq.Circuit(2).rx(a, 0).crz(2 * a - b, 0, 1).p(a * b, 1)
    qc = gq.to_qiskit(c)
    assert sorted(p.name for p in qc.parameters) == ["a", "b"]
    values = {"a": 0.3, "b": -1.2}
    bound = qc.assign_parameters({p: values[p.name] for p in qc.parameters})
    np.testing.assert_allclose(
        gq.simulate(c.bind(values)).amplitudes, Statevector(bound).data, atol=1e-12
    )


def test_custom_qiskit_gates_are_expanded():
    sub = qiskit.QuantumCircuit(2, name="bell")
    sub.h(0)
    sub.cx(0, 1)
    qc = qiskit.QuantumCircuit(3)
    qc.append(sub.to_gate(), [2, 0])
    np.testing.assert_allclose(
        gq.simulate(gq.from_qiskit(qc)).amplitudes, Statevector(qc).data, atol=1e-12
    )
