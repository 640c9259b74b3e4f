"""Classical stores (``Circuit.store``; Qiskit's ``store`` into bits and registers, OpenQASM
3's ``c[1] = !c[0];``): checked against closed forms on every runner (the compiled shot
loop, the grouped runner, the density matrix's exact distribution, MPS, MPI, trajectories),
against Aer on the circuits Qiskit builds and the OpenQASM 3 it writes, and through the
exports."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from dynamic_circuits import assert_drawn_from, exact

import genqsim as gq
from genqsim.errors import ArgumentTypeError, ArgumentValueError

T0, T1 = 1.1, 0.7


def _chain() -> gq.Circuit:
    """c0 reads ry(T0)|0>; c1 = !c0; q1 turns by T1 where c1 holds, and c2 reads it; then
    bits 0 and 1 take (c0 + 2 c2) ^ 1, a function of bits 0 and 2 that rewrites bit 0."""
    c = gq.Circuit(2, n_clbits=3)
    c.ry(T0, 0).measure(0, 0)
    c.store(1, lambda v: 1 - v, sources=0)
    c.if_(1, 1, gq.Circuit(2).ry(T1, 1))
    c.measure(1, 2)
    c.store([0, 1], lambda v: v ^ 1, sources=[0, 2])
    return c


def _chain_law() -> dict[str, float]:
    p0, p1 = np.sin(T0 / 2) ** 2, np.sin(T1 / 2) ** 2
    return {"000": p0, "111": (1 - p0) * p1, "001": (1 - p0) * (1 - p1)}


def test_the_exact_distribution_is_the_closed_form():
    found = exact(_chain())
    expected = _chain_law()
    assert set(found) == set(expected)
    for key, p in expected.items():
        assert found[key] == pytest.approx(p, abs=1e-12)


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
def test_shots_follow_the_closed_form(compiled, monkeypatch):
    if not compiled:  # no compiled loop: the grouped runner
        import genqsim.states.counting as counting

        monkeypatch.setattr(counting, "_shot_loop", lambda *args: None)
    shots = 6000
    counts = gq.counts(_chain(), shots, seed=5, method="statevector")
    assert_drawn_from(counts, _chain_law(), shots)


def test_the_compiled_loop_runs_a_store_row():
    from genqsim.plan import plan_for_backend
    from genqsim.plan.calls import ShotOp
    from genqsim.plan.shot_program import shot_program
    from genqsim.states.statevector import initial_state

    rest, terminal = _chain().split_terminal_measurements()
    numbers = gq.get_number_system("complex128")
    plan = plan_for_backend(rest, numbers, initial_state(2, None, numbers).backend)
    program = shot_program(plan, terminal, 3, np.complex128)
    assert program is not None
    assert (program.code[:, 0] == ShotOp.STORE).sum() == 2


@pytest.mark.parametrize("method", ["statevector", "density_matrix", "mps", "mpi",
                                    "trajectories"])  # fmt: skip
def test_every_state_kind_writes_the_bits(method):
    """A deterministic history: c0 = 1, c1 = !c0 = 0, so q1 stays; c2 = 1 stored; the
    conditional on c2 flips q1, measured into c3; c[0,1] = 2."""
    c = gq.Circuit(2, n_clbits=4)
    c.x(0).measure(0, 0).store(1, lambda v: 1 - v, sources=0)
    c.if_(1, 1, gq.Circuit(2).x(1)).store(2, 1)
    c.if_(2, 1, gq.Circuit(2).x(1)).measure(1, 3).h(1).store([0, 1], 2)
    state = gq.simulate(c, method=method, seed=3)
    if method != "trajectories":  # an average over runs keeps no record
        assert {b: state.clbits.get(b, 0) for b in range(4)} == {0: 0, 1: 1, 2: 1, 3: 1}
    assert gq.counts(c.copy().measure(0, 0), 50, seed=1) == {"1111": 50}  # q0 reads 1


def test_a_store_after_a_measurement_of_its_bit_keeps_that_measurement_in_place():
    """Measured into c0, then c0 = 0 stored: the measurement is no terminal one (sampled at
    the end it would overwrite the store)."""
    c = gq.Circuit(1, n_clbits=1).x(0).measure(0, 0).store(0, 0)
    assert c.split_terminal_measurements()[1] == []
    assert gq.counts(c, 100, seed=1) == {"0": 100}
    assert exact(c) == {"0": 1.0}


def test_a_while_loop_may_end_by_a_store():
    """Retry a coin until it reads 0, the loop's bit a copy of it stored in the body."""
    c = gq.Circuit(2, n_clbits=2).h(0).measure(0, 0).store(1, lambda v: v, sources=0)
    c.while_(1, 1, gq.Circuit(2).h(0).measure(0, 0).ry(0.5, 1).store(1, lambda v: v, 0))
    counts = gq.counts(c, 400, seed=3)
    assert set(counts) == {"00"}


def test_stores_in_light_cones_and_pauli_propagation():
    c = _chain()
    cone = c.light_cone([1])
    assert [op.gate.name for op in cone.circuit.operations] == [
        "ry",
        "measure",
        "store",
        "if",
        "measure",
    ]
    # Pauli propagation sees no classical bits: a store changes no observable
    plain = gq.Circuit(2).h(0).cx(0, 1).ry(0.3, 1)
    stored = gq.Circuit(2, n_clbits=1).h(0).store(0, 1).cx(0, 1).ry(0.3, 1)
    z = "Z1"
    a = gq.simulate(plain, method="pauli").expectation(z)
    b = gq.simulate(stored, method="pauli").expectation(z)
    assert complex(a) == pytest.approx(complex(b))
    assert complex(a) == pytest.approx(complex(gq.simulate(plain).expectation(z)))


def test_a_stored_bit_gets_no_readout_error():
    from genqsim.circuit.noise import NoiseModel

    model = NoiseModel()
    model.add_readout_error([[0.0, 1.0], [1.0, 0.0]])  # every reading flipped
    c = gq.Circuit(1, n_clbits=2).measure(0, 0).store(1, 1)
    assert gq.counts(c, 50, seed=1, readout=model) == {"11": 50}


def test_the_table_and_its_checks():
    from genqsim.circuit.store import MAX_STORE_SOURCES, Store

    s = Store([2, 0], lambda v: 3 - v, sources=[1, 3])
    assert s.table == (3, 2, 1, 0) and s.bits_read == {1, 3} and s.bits_written == {0, 2}
    assert Store(0, [0, 1], 0) == Store(0, lambda v: v, 0) != Store(0, [1, 0], 0)
    assert pickle.loads(pickle.dumps(_chain())) == _chain()
    with pytest.raises(ArgumentValueError, match="one value per value"):
        Store(0, [0, 1, 0], 0)
    with pytest.raises(ArgumentValueError, match="does not fit in 1"):
        Store(0, 2)
    with pytest.raises(ArgumentTypeError, match="an integer"):
        Store(0, 0.5)
    with pytest.raises(ArgumentValueError, match=f"at most {MAX_STORE_SOURCES}"):
        Store(0, 0, sources=list(range(1, MAX_STORE_SOURCES + 2)))
    with pytest.raises(ArgumentTypeError, match="no inverse"):
        _chain().inverse()
    c = gq.Circuit(1).store([0, 4], 3)
    assert c.n_clbits == 5  # the register grows to the bits named


def test_drawings_show_stores_on_a_classical_row():
    text = str(_chain())
    assert text.splitlines()[-1].lstrip().startswith("c: ")
    assert "c1=f(c0)" in text and "c[0, 1]=f(c[0, 2])" in text
    latex = _chain().draw("latex", standalone=False)
    assert "\\lstick{$c$}" in latex and "c_{1}{=}f(c_{0})" in latex


def test_exports():
    c = _chain()
    with pytest.raises(gq.qasm.QasmError, match="OpenQASM 3"):
        gq.qasm.dumps(c)
    with pytest.raises(ArgumentValueError, match="to_qiskit"):
        gq.to_cirq(c)
    again = gq.qasm.loads3(gq.qasm.dumps3(c))
    assert exact(again) == pytest.approx(_chain_law())
    assert exact(gq.from_qiskit(gq.to_qiskit(c))) == pytest.approx(_chain_law())


def test_openqasm3_assignments_to_bits():
    """``c = c ^ 5`` flips bits 0 and 2; ``bit[2] d = "10"`` stores 2; ``bit e = !c[0]``;
    ``c[1] ^= d[1]`` flips bit 1."""
    source = """OPENQASM 3.0;
include "stdgates.inc";
bit[3] c;
qubit[2] q;
h q[0];
ry(0.9) q[1];
c[0] = measure q[0];
c[1] = measure q[1];
c = c ^ 5;
bit[2] d = "10";
bit e = !c[0];
c[1] ^= d[1];
"""
    c = gq.qasm.loads3(source)
    p = np.sin(0.45) ** 2
    # bits (e, d1, d0, c2, c1, c0) = (c0, 1, 0, 1, !c1, !c0) of the measured c0, c1
    expected = {f"{a}101{1 - b}{1 - a}": 0.5 * (p if b else 1 - p) for a in (0, 1) for b in (0, 1)}
    assert exact(c) == pytest.approx(expected)
    with pytest.raises(gq.qasm.QasmError, match="line 5"):
        gq.qasm.loads3("OPENQASM 3.0;\nqubit q;\nbit[2] c;\nint x;\nc[2] = 1;\n")


qiskit = pytest.importorskip("qiskit")


def _qiskit_circuits():
    from qiskit import QuantumCircuit
    from qiskit.circuit import ClassicalRegister
    from qiskit.circuit.classical import expr

    bit = QuantumCircuit(2, 3)
    bit.ry(T0, 0)
    bit.measure(0, 0)
    bit.store(bit.clbits[1], expr.logic_not(bit.clbits[0]))
    with bit.if_test(expr.equal(bit.clbits[1], True)):
        bit.ry(T1, 1)
    bit.measure(1, 2)

    register = QuantumCircuit(2)
    cr = ClassicalRegister(3, "c")
    register.add_register(cr)
    register.h(0)
    register.ry(0.9, 1)
    register.measure(0, cr[0])
    register.measure(1, cr[1])
    register.store(cr, expr.bit_xor(cr, 5))
    with register.if_test(expr.equal(cr, 5)):
        register.x(1)
    register.measure(1, cr[1])
    return {"bit": bit, "register": register}


@pytest.mark.parametrize("name", ["bit", "register"])
def test_qiskit_stores_against_aer(name):
    from qiskit import qasm3
    from qiskit_aer import AerSimulator

    qc = _qiskit_circuits()[name]
    shots = 8000
    aer = AerSimulator(method="density_matrix").run(qc, shots=shots, seed_simulator=3)
    counts = {k.replace(" ", ""): v for k, v in aer.result().get_counts().items()}
    for c in (gq.from_qiskit(qc), gq.qasm.loads3(qasm3.dumps(qc))):
        assert_drawn_from(counts, exact(c), shots)


def test_qiskit_store_into_one_bit_of_a_register():
    """``store(expr.index(creg, 2), true)`` and ``store(expr.index(creg, 0), ~creg[0])``
    (Aer refuses an indexed store; the law is written out)."""
    from qiskit import QuantumCircuit
    from qiskit.circuit import ClassicalRegister
    from qiskit.circuit.classical import expr

    qc = QuantumCircuit(1)
    cr = ClassicalRegister(3, "c")
    qc.add_register(cr)
    qc.ry(T0, 0)
    qc.measure(0, cr[0])
    qc.store(expr.index(cr, 2), expr.lift(True))
    qc.store(expr.index(cr, 0), expr.bit_not(cr[0]))
    p = np.sin(T0 / 2) ** 2
    assert exact(gq.from_qiskit(qc)) == pytest.approx({"100": p, "101": 1 - p})
