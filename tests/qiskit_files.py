"""Files Qiskit writes or reads, and how genqsim's reading of one is checked against
Qiskit's: the same state (Qiskit's ``Statevector``) for unitary circuits, and for dynamic ones
(mid-circuit measurements, ``if``/``else``) the exact distribution of classical records
genqsim's density matrix gives, checked against Qiskit Aer's counts."""

from __future__ import annotations

from typing import Any

import numpy as np

import genqsim as gq
from genqsim.io.qasm.qasm3 import _as_qasm2, _read

SHOTS = 20_000
SAMPLED_SHOTS = 1_000
EXACT_RECORDS_MAX_QUBITS = 10
"""Dynamic circuits up to this width are compared through genqsim's exact distribution of
classical records (a density matrix); wider ones through genqsim's own shots."""
FIDELITY_TOLERANCE = 1e-9


def exported(qc: Any) -> list[tuple[str, str]]:
    """The OpenQASM texts Qiskit writes of ``qc`` (2.0 only where it can say the circuit)."""
    from qiskit import qasm2, qasm3
    from qiskit.qasm2 import QASM2ExportError
    from qiskit.qasm3 import QASM3ExporterError

    out = []
    try:
        out.append(("qasm3", qasm3.dumps(qc)))
    except TypeError:  # Qiskit 2.6's exporter fails on matrix-valued parameters (ae)
        pass
    except QASM3ExporterError:  # and on instructions that are no gates (Initialize, ...)
        pass
    try:
        out.append(("qasm2", qasm2.dumps(qc)))
    except (QASM2ExportError, TypeError):  # conditions on single bits: OpenQASM 2 has none
        pass
    return out


def is_dynamic(qc: Any) -> bool:
    body = qc.remove_final_measurements(inplace=False)
    return any(i.operation.name in ("measure", "reset", "if_else", "switch_case", "while_loop")
               for i in body.data)  # fmt: skip


def qiskit_state(qc: Any) -> np.ndarray:
    from qiskit import transpile
    from qiskit.quantum_info import Statevector

    body = qc.remove_final_measurements(inplace=False)
    return Statevector(transpile(body, basis_gates=["u", "cx"], optimization_level=0)).data


def aer_counts(qc: Any, shots: int) -> dict[int, int]:
    """Aer's counts of ``qc`` keyed by the integer of all classical bits (bit ``i`` of the
    key is ``qc.clbits[i]``, as genqsim numbers the bits a file declares)."""
    from qiskit import transpile
    from qiskit_aer import AerSimulator

    sim = AerSimulator(method="statevector", seed_simulator=11)
    counts = sim.run(transpile(qc, sim, optimization_level=0), shots=shots).result().get_counts()
    return {int(key.replace(" ", ""), 2): v for key, v in counts.items()}


def genqsim_records(circuit: gq.Circuit) -> dict[int, float]:
    """The exact probability of each classical record (bits never written read 0)."""
    return {int(key, 2): p for key, p in gq.record_distribution(circuit).items()}


def genqsim_counts(circuit: gq.Circuit, shots: int) -> dict[int, int]:
    counts = gq.counts(circuit, shots, seed=5, method="statevector")
    return {int(key.replace(" ", ""), 2): v for key, v in counts.items()}


def read(kind: str, text: str) -> gq.Circuit:
    return gq.qasm.loads3(text) if kind == "qasm3" else gq.qasm.loads(text)


def check(label: str, qc: Any, kind: str, text: str) -> str | None:
    """What is wrong with genqsim's reading and run of ``text``, or ``None``."""
    try:
        circuit = read(kind, text)
    except gq.qasm.QasmError as exc:
        return f"{label}.{kind} refused: {exc}"
    if kind == "qasm3" and _as_qasm2(text) is not None and circuit != _read(text, None):
        return f"{label}.{kind}: the plain-export reader and the reference parser's differ"
    if circuit.n_qubits != qc.num_qubits:
        return f"{label}.{kind}: {circuit.n_qubits} qubits, Qiskit {qc.num_qubits}"
    if not is_dynamic(qc):
        body, _ = circuit.split_terminal_measurements()
        ours = gq.simulate(body).to_numpy()
        fidelity = abs(np.vdot(qiskit_state(qc), ours)) ** 2
        if not fidelity > 1 - FIDELITY_TOLERANCE:
            return f"{label}.{kind}: fidelity {fidelity} with Qiskit's state"
        return None
    if circuit.n_qubits <= EXACT_RECORDS_MAX_QUBITS:
        expected = genqsim_records(circuit)
        counts = aer_counts(qc, SHOTS)
        for value in set(expected) | set(counts):
            p = expected.get(value, 0.0)
            f = counts.get(value, 0) / SHOTS
            if abs(f - p) > 5 * np.sqrt(max(p * (1 - p), 0.0) / SHOTS) + 2e-3:
                return f"{label}.{kind}: record {value:b} has probability {p}, Aer {f}"
        return None
    ours, theirs = genqsim_counts(circuit, SAMPLED_SHOTS), aer_counts(qc, SAMPLED_SHOTS)
    for value in set(ours) | set(theirs):
        a, b = ours.get(value, 0) / SAMPLED_SHOTS, theirs.get(value, 0) / SAMPLED_SHOTS
        p = (a + b) / 2
        if abs(a - b) > 5 * np.sqrt(2 * p * (1 - p) / SAMPLED_SHOTS) + 2e-3:
            return f"{label}.{kind}: record {value:b} in {a} of genqsim's shots, Aer's {b}"
    return None


def coin_switch(n_clbits: int, cases: list[tuple[Any, str, tuple]]) -> Any:
    """Two fair coins (qubits 0 and 1, measured into bits 0 and 1), a ``switch`` on those bits
    whose cases (``(labels, gate name, its parameters)``, labels a tuple or ``"default"``)
    act on qubit 2, and qubit 2 measured into the last bit."""
    from qiskit import QuantumCircuit

    qc = QuantumCircuit(3, n_clbits)
    qc.h([0, 1])
    qc.measure([0, 1], [0, 1])
    with qc.switch(qc.cregs[0]) as case:
        for labels, gate, params in cases:
            with case(*((case.DEFAULT,) if labels == "default" else labels)):
                getattr(qc, gate)(*params, 2)
    qc.measure(2, n_clbits - 1)
    return qc


def repeat_until_zero(angle: float) -> Any:
    """Flip a coin until it shows 0, turning ``q1`` by ``ry(angle)`` on every retry: ``k``
    retries (probability ``2^-(k+1)``) leave ``P(q1 = 1) = sin(k angle / 2)^2``."""
    from qiskit import QuantumCircuit

    qc = QuantumCircuit(2, 2)
    qc.h(0)
    qc.measure(0, 0)
    with qc.while_loop((qc.clbits[0], 1)):
        qc.h(0)
        qc.measure(0, 0)
        qc.ry(angle, 1)
    qc.measure(1, 1)
    return qc


def random_dynamic_circuit(seed: int, while_loops: bool, for_jumps: bool = True) -> Any:
    """A random dynamic circuit on 3 qubits and 3 classical bits, as a Qiskit user builds one:
    gates, mid-circuit measurements, nested ``if_test``/``else`` and ``switch`` (a case and a
    default) on what was measured, ``for_loop`` (with ``break_loop`` and ``continue_loop``
    under conditions where ``for_jumps``), and with ``while_loops`` loops on a measured bit
    (``break_loop``, ``continue_loop`` too) whose body starts by tossing that bit afresh
    and writes it nowhere else, so every loop ends; no ``for_loop`` inside a
    ``while_loop``. Aer 0.18.2 gives wrong
    counts for some jumps in a ``for_loop`` (docs/qiskit.md): compare with Aer only
    circuits made without them."""
    import random

    from qiskit import QuantumCircuit

    rng = random.Random(seed)
    n = 3
    qc = QuantumCircuit(n, n)

    def gates(k: int = 2) -> None:
        for _ in range(k):
            kind, q = rng.choice(["h", "x", "ry", "cx", "t"]), rng.randrange(n)
            if kind == "ry":
                qc.ry(rng.uniform(0.2, 2.8), q)
            elif kind == "cx":
                qc.cx(*rng.sample(range(n), 2))
            else:
                getattr(qc, kind)(q)

    def block(depth: int, loop: str | None, kept: int | None = None) -> None:
        kinds = ["gates", "measure", "jump"]
        if depth < 2:
            kinds += ["if", "switch", "for"] if loop != "while" else ["if", "switch"]
            kinds += ["while"] if while_loops and loop is None else []
        for _ in range(rng.randint(1, 3)):
            kind = rng.choice(kinds)
            if kind == "gates":
                gates()
            elif kind == "measure":  # never into ``kept``, the enclosing while's bit
                qc.measure(rng.randrange(n), rng.choice([b for b in range(n) if b != kept]))
            elif kind == "jump" and (loop == "while" or (loop == "for" and for_jumps)):
                with qc.if_test((qc.clbits[rng.randrange(n)], rng.randrange(2))):
                    qc.break_loop() if rng.random() < 0.5 else qc.continue_loop()
            elif kind == "if":
                with qc.if_test((qc.clbits[rng.randrange(n)], rng.randrange(2))) as other:
                    block(depth + 1, loop, kept)
                if rng.random() < 0.5:
                    with other:
                        block(depth + 1, loop, kept)
            elif kind == "switch":
                with qc.switch(qc.cregs[0]) as case:
                    with case(rng.randrange(8)):
                        block(depth + 1, loop, kept)
                    with case(case.DEFAULT):
                        block(depth + 1, loop, kept)
            elif kind == "for":
                with qc.for_loop(range(rng.randint(1, 3))):
                    block(depth + 1, "for")
            elif kind == "while":
                while_loop(depth)

    def while_loop(depth: int) -> None:
        bit = rng.randrange(n)
        with qc.while_loop((qc.clbits[bit], rng.randrange(2))):
            qc.reset(bit)
            qc.ry(rng.uniform(0.6, 2.4), bit)
            qc.measure(bit, bit)
            block(depth + 1, "while", bit)

    gates(3)
    qc.measure(range(n), range(n))
    if while_loops:  # at least one, where it is reached
        while_loop(0)
    block(0, None)
    qc.measure(range(n), range(n))
    return qc
