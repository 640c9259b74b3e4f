"""Composite gates: a gate defined in an OpenQASM file (or built from a circuit) is one
instruction, shown and exported by its name, that runs as its body. References: Qiskit's
reader and ``Statevector`` of the same text, dense ``kron``-built matrices, and the same
circuit written gate by gate."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim.errors import ArgumentTypeError, ArgumentValueError

from reference import embed, random_state, reference_matrix
from strategies import grouped_in_composites, random_circuit

DEFINED = """OPENQASM 2.0;
include "qelib1.inc";
gate bell a, b { h a; cx a, b; }
gate spin(t) a { rz(t) a; sx a; rz(-t) a; }
gate ladder a, b, c { bell a, b; spin(0.3) c; cx b, c; }
qreg q[4];
creg c[4];
ladder q[0], q[1], q[2];
bell q[3], q[1];
spin(0.7) q[2];
spin(0.7) q[0];
spin(1.1) q[3];
rccx q[0], q[3], q[2];
measure q[2] -> c[2];
"""


def qiskit_state(text: str, version: int = 2) -> np.ndarray:
    """Qiskit's state of an OpenQASM text (little-endian, like genqsim), measurements left
    out."""
    from qiskit import qasm2, qasm3
    from qiskit.quantum_info import Statevector

    if version == 2:
        qc = qasm2.loads(text, custom_instructions=qasm2.LEGACY_CUSTOM_INSTRUCTIONS)
    else:
        qc = qasm3.loads(text)
    return Statevector(qc.remove_final_measurements(inplace=False)).data


def state_of(circuit: gq.Circuit) -> np.ndarray:
    body, _ = circuit.split_terminal_measurements()
    return gq.simulate(body).to_numpy()


def test_a_defined_gate_is_one_instruction_by_its_name():
    pytest.importorskip("qiskit")
    c = gq.qasm.loads(DEFINED)
    assert c.count_ops() == {"spin": 3, "ladder": 1, "bell": 1, "rccx": 1, "measure": 1}
    assert [op.gate.name for op in c.instructions] == [
        "ladder", "bell", "spin", "spin", "spin", "rccx", "measure",
    ]  # fmt: skip
    # what runs: every body placed on its call's qubits (ladder's own bell and spin inside)
    assert len(c.operations) == 6 + 2 + 3 * 3 + 9 + 1 == len(c)
    assert {op.gate.name for op in c.operations} >= {"h", "x", "rz", "sx", "measure"}
    assert "ladder" in c.draw() and "spin(0.7)" in c.draw() and "bell" in c.draw("latex")
    np.testing.assert_allclose(state_of(c), qiskit_state(DEFINED), atol=1e-12)


def test_calls_with_the_same_values_share_one_composite_gate():
    c = gq.qasm.loads(DEFINED, exact=False)
    spins = [op.gate for op in c.instructions if op.gate.name == "spin"]
    assert spins[0] is spins[1] and spins[1] is not spins[2]
    assert spins[0].params == (0.7,) and spins[2].params == (1.1,)


@pytest.mark.parametrize("version", [2, 3])
def test_exports_define_each_composite_once_and_read_back_by_name(version):
    """``dumps``/``dumps3`` write one definition per distinct composite (a second body under
    one name gets ``name_1``) and call it by name; genqsim and Qiskit read it back to the
    same state."""
    pytest.importorskip("qiskit")
    if version == 3:
        pytest.importorskip("qiskit_qasm3_import")
    c = gq.qasm.loads(DEFINED)
    text = gq.qasm.dumps(c) if version == 2 else gq.qasm.dumps3(c)
    assert text.count("gate spin ") == 1 and text.count("gate spin_1 ") == 1
    assert text.count("gate ladder ") == 1 and text.count("bell q[3], q[1];") == 1
    back = gq.qasm.loads(text) if version == 2 else gq.qasm.loads3(text)
    assert back == c  # the same operations run
    assert back.count_ops()["spin"] == 2 and back.count_ops()["spin_1"] == 1
    np.testing.assert_allclose(qiskit_state(text, version), state_of(c), atol=1e-12)


def test_a_composite_is_its_bodys_kron_built_matrix():
    rng = np.random.default_rng(5)
    u = np.linalg.qr(rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4)))[0]
    body = gq.Circuit(3).h(2).cx(2, 0).rz(0.4, 1).unitary(u, [1, 0], controls=2)
    gate = gq.Composite("block", body)
    want = np.eye(8, dtype=complex)
    for op in body.operations:
        m = u if op.gate.name == "unitary" else reference_matrix(op.gate.name, op.gate.params)
        want = embed(m, 3, op.targets, op.controls, op.control_values) @ want
    np.testing.assert_allclose(gate.matrix(), want, atol=1e-12)
    np.testing.assert_allclose(gate.inverse().matrix(), want.conj().T, atol=1e-12)


@pytest.mark.parametrize("values", [(1,), (0,), (1, 0)])
def test_a_controlled_composite_is_its_controlled_matrix(values):
    """Controls on a composite control every gate of its body (barriers dropped)."""
    body = gq.Circuit(2).h(0).barrier().cx(0, 1).p(0.3, 1)
    gate = gq.Composite("pair", body)
    controls = (4, 0)[: len(values)]
    c = gq.Circuit(5).append(gate, [3, 1], controls, values)
    assert c.count_ops() == {"c" * len(values) + "pair": 1}
    assert all(op.controls[-len(values) :] == controls for op in c.operations)
    psi = random_state(5, np.random.default_rng(11))
    want = embed(gate.matrix(), 5, (3, 1), controls, values) @ psi
    got = gq.StateVector(psi.copy()).apply(c).to_numpy()
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_planned_fusion_runs_a_narrow_composite_as_one_block_built_once():
    """With fusion on, each narrow composite is one block whose matrix is made once per
    composite gate (shared by its calls); the state equals the gate-by-gate run."""
    c = gq.qasm.loads(DEFINED, exact=False)
    body, _ = c.split_terminal_measurements()
    fused = gq.simulate(body, fuse=3).to_numpy()
    plain = gq.simulate(body, fuse=False).to_numpy()
    np.testing.assert_allclose(fused, plain, atol=1e-12)
    spin = next(op.gate for op in c.instructions if op.gate.name == "spin")
    assert list(spin._blocks) == ["complex128"]
    kept = spin._blocks["complex128"]
    assert kept.gate.name == "spin" and kept.targets == (0,)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), circuit=random_circuit(n_min=2, n_max=5))
def test_operations_read_between_appends_are_the_bodies_placed(data, circuit):
    """The operations are made when first read and again after a composite is appended:
    reading them at any point gives the flat list built eagerly."""
    grouped = data.draw(grouped_in_composites(circuit))
    built = gq.Circuit(circuit.n_qubits)
    for op in grouped.instructions:
        built.append(op.gate, op.targets, op.controls, op.control_values)
        if data.draw(st.booleans()):
            assert built.operations == tuple(_flat(built.instructions))
    assert built.operations == circuit.operations
    assert built.instructions == grouped.instructions
    assert pickle.loads(pickle.dumps(built)).instructions == grouped.instructions
    again = built.copy().compose(built)
    assert again.instructions == grouped.instructions * 2
    assert again.operations == circuit.operations * 2


def _flat(instructions):
    for op in instructions:
        if isinstance(op.gate, gq.Composite):
            placed = [inner.remapped(op.targets) for inner in op.gate.body]
            yield from _flat(placed)
        else:
            yield op


def test_inverse_and_powers_keep_composites():
    c = gq.qasm.loads(DEFINED, exact=False)
    body, _ = c.split_terminal_measurements()
    inverse = body.inverse()
    assert inverse.count_ops()["spin_dg"] == 3
    assert inverse.inverse().instructions == body.instructions
    assert "gate spin_dg q0 {" in gq.qasm.dumps(inverse)
    psi = random_state(4, np.random.default_rng(2))
    back = gq.StateVector(psi.copy()).apply(body + inverse).to_numpy()
    np.testing.assert_allclose(back, psi, atol=1e-12)
    assert body.power(2).count_ops()["ladder"] == 2


def test_composite_bodies_with_parameters_bind():
    (a,) = gq.parameters("a")
    gate = gq.Composite("turn", gq.Circuit(2).rx(a, 0).cx(0, 1))
    c = gq.Circuit(2).append(gate, [1, 0])
    assert c.parameters == (a,)
    bound = c.bind({"a": 0.5})
    want = gq.Circuit(2).rx(0.5, 1).cx(1, 0)
    np.testing.assert_allclose(
        gq.simulate(bound).to_numpy(), gq.simulate(want).to_numpy(), atol=1e-12
    )


@pytest.mark.parametrize(
    ("name", "body", "error", "message"),
    [
        ("2x", gq.Circuit(1).h(0), ArgumentValueError, "identifier"),
        ("m", gq.Circuit(1).h(0).measure(0), ArgumentTypeError, "unitary gates only"),
        ("n", "h 0", ArgumentTypeError, "Circuit or a sequence"),
        (
            "q",
            [gq.Operation(gq.gate("h"), (-1,))],
            gq.QubitIndexError,
            r"its own qubits 0, 1, \.\.\.; 'q' has \[-1\]",
        ),
    ],
)
def test_bad_composites_are_refused(name, body, error, message):
    with pytest.raises(error, match=message):
        gq.Composite(name, body)


def test_a_body_read_again_is_shared_but_never_across_a_redefined_library_name():
    """A body of library gates is built once for the process (Qiskit writes one ``mcx``
    body under many names); a file that defines a library name of its own (here ``sx``,
    without the include) gets its own meaning, not the kept body."""
    first = gq.qasm.loads("OPENQASM 2.0;\ngate g a { sx a; }\nqreg q[1];\ng q[0];\n")
    again = gq.qasm.loads("OPENQASM 2.0;\ngate k a { sx a; }\nqreg q[1];\nk q[0];\n")
    assert first.instructions[0].gate.body is again.instructions[0].gate.body
    own = gq.qasm.loads(
        "OPENQASM 2.0;\ngate sx a { h a; }\ngate g a { sx a; }\nqreg q[1];\ng q[0];\n"
    )
    assert [op.gate.name for op in own.operations] == ["h"]
    np.testing.assert_allclose(gq.simulate(own).to_numpy(), [2**-0.5, 2**-0.5], atol=1e-15)


def test_a_qiskit_gate_with_a_definition_is_one_composite():
    """``gq.from_qiskit`` keeps a gate it knows only by its definition (a circuit made a gate,
    a library gate outside genqsim's table) as one composite by its name; an instruction
    that measures runs as its operations. Reference: Qiskit's ``Statevector``."""
    qiskit = pytest.importorskip("qiskit")
    from qiskit.circuit.library import QFTGate
    from qiskit.quantum_info import Statevector

    sub = qiskit.QuantumCircuit(2, name="my-bell")
    sub.h(0)
    sub.cx(0, 1)
    qc = qiskit.QuantumCircuit(4)
    qc.append(sub.to_gate(), [2, 0])
    qc.append(QFTGate(3), [0, 1, 3])
    qc.append(sub.to_gate().control(1), [1, 3, 2])
    c = gq.from_qiskit(qc)
    assert {"my_bell", "qft"} <= set(c.count_ops())
    np.testing.assert_allclose(gq.simulate(c).to_numpy(), Statevector(qc).data, atol=1e-12)
    measuring = qiskit.QuantumCircuit(1, 1, name="m")
    measuring.x(0)
    measuring.measure(0, 0)
    outer = qiskit.QuantumCircuit(2, 1)
    outer.append(measuring.to_instruction(), [1], [0])
    assert [op.gate.name for op in gq.from_qiskit(outer).instructions] == ["x", "measure"]


def test_calls_of_a_body_that_ignores_its_parameter_show_their_own_values():
    """Qiskit writes ``mcphase(param0)`` bodies for one angle; each call's composite shows
    the values it was called with, though they share one body."""
    text = (
        'OPENQASM 2.0;\ninclude "qelib1.inc";\ngate twist(a) q { h q; }\nqreg r[1];\n'
        "twist(0.1) r[0];\ntwist(0.2) r[0];\n"
    )
    first, second = (op.gate for op in gq.qasm.loads(text, exact=False).instructions)
    assert first.params == (0.1,) and second.params == (0.2,)
    assert first.body is second.body
