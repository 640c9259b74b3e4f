"""Circuits of Qiskit's circuit library, as a user builds them, for checks of genqsim's
readings of them (:func:`genqsim.from_qiskit`, and the OpenQASM files Qiskit writes of
them) against Qiskit's own ``Statevector``: every standard gate (from Qiskit's own table,
``get_standard_gate_name_mapping``), then the library's larger gates and circuits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

NOT_UNITARY = frozenset({"measure", "reset", "delay"})


def _on_a_state(n: int, gate: Any, qubits: Any = None, prepared: Any = None) -> Any:
    """``gate`` after H on ``prepared`` (all qubits by default) and two rotations: a state
    with no basis-state symmetry, on which a wrong reading shows."""
    from qiskit import QuantumCircuit

    qc = QuantumCircuit(n)
    qc.h(range(n) if prepared is None else prepared)
    qc.ry(0.3, 0)
    qc.rz(0.7, n - 1)
    qc.append(gate, list(range(gate.num_qubits)) if qubits is None else qubits)
    return qc


def standard_gates() -> dict[str, Callable[[], Any]]:
    """Each unitary gate of Qiskit's table, its parameters bound to values of its own."""
    from qiskit.circuit.library import get_standard_gate_name_mapping

    out: dict[str, Callable[[], Any]] = {}
    for name, gate in sorted(get_standard_gate_name_mapping().items()):
        if name in NOT_UNITARY:
            continue
        values = [0.37 + 0.29 * i for i in range(len(gate.params))]
        bound = gate
        if values:
            bound = gate.to_mutable()
            bound.params = values
        width = max(bound.num_qubits, 1)
        qubits = list(range(bound.num_qubits))[::-1]  # read in the other order too
        out[f"standard_{name}"] = lambda b=bound, w=width, q=qubits: _on_a_state(w, b, q)
    return out


def library_gates() -> dict[str, Callable[[], Any]]:
    """Larger gates and circuits of the library (arithmetic gates on their input registers,
    with their outputs in |0>, where their action is defined)."""
    from qiskit.circuit import library as lib
    from qiskit.quantum_info import SparsePauliOp, random_clifford, random_unitary

    def unitary(k: int, seed: int) -> Any:
        return lib.UnitaryGate(random_unitary(2**k, seed=seed))

    def mc(method: str, *args: Any) -> Any:
        qc = _on_a_state(4, lib.IGate(), [0])
        getattr(qc, method)(*args)
        return qc

    mapping: dict[str, Callable[[], Any]] = {
        "qft": lambda: _on_a_state(4, lib.QFTGate(4)),
        "qft_inverse": lambda: _on_a_state(3, lib.QFTGate(3).inverse()),
        "qft_approximate": lambda: lib.QFT(
            4, approximation_degree=1, do_swaps=False, insert_barriers=True
        ),
        "mcx": lambda: _on_a_state(5, lib.MCXGate(4)),
        "mcx_open_controls": lambda: _on_a_state(5, lib.MCXGate(4, ctrl_state="0101")),
        "mcphase": lambda: _on_a_state(4, lib.MCPhaseGate(0.4, 3)),
        "mcu1": lambda: _on_a_state(4, lib.MCU1Gate(0.4, 3)),
        "mcmt": lambda: _on_a_state(5, lib.MCMTGate(lib.YGate(), 3, 2)),
        "mcrx": lambda: mc("mcrx", 0.3, [0, 1], 2),
        "mcry": lambda: mc("mcry", 0.3, [0, 1, 2], 3),
        "mcrz": lambda: mc("mcrz", 0.3, [0, 1], 2),
        "unitary_3": lambda: _on_a_state(3, unitary(3, 1)),
        "unitary_1": lambda: _on_a_state(2, unitary(1, 1), [1]),
        "controlled_unitary": lambda: _on_a_state(3, unitary(1, 9).control(2, ctrl_state=1)),
        "controlled_sdg_open": lambda: _on_a_state(3, lib.SdgGate().control(2, ctrl_state="01")),
        "controlled_rzz": lambda: _on_a_state(3, lib.RZZGate(0.3).control(1)),
        "controlled_ch_open": lambda: _on_a_state(3, lib.CHGate().control(1, ctrl_state=0)),
        "sqrt_cx": lambda: _on_a_state(2, lib.CXGate().power(0.5)),
        "t_cubed": lambda: _on_a_state(1, lib.TGate().power(3)),
        "pauli_evolution": lambda: _on_a_state(
            3, lib.PauliEvolutionGate(SparsePauliOp(["XXY", "ZIZ"], [0.3, 0.2]), time=0.5)
        ),
        "hamiltonian": lambda: _on_a_state(
            2,
            lib.HamiltonianGate(
                np.array([[1, 0.2, 0, 0], [0.2, 0, 0, 0], [0, 0, 1, 0.5j], [0, 0, -0.5j, 2]]), 0.3
            ),
        ),
        "isometry": lambda: _on_a_state(
            3, lib.Isometry(random_unitary(4, seed=2).data[:, :2], 0, 0), [0, 1]
        ),
        "ucry": lambda: _on_a_state(3, lib.UCRYGate([0.1, 0.2, 0.3, 0.4])),
        "ucrz": lambda: _on_a_state(3, lib.UCRZGate([0.1, 0.2, 0.3, 0.4])),
        "uc": lambda: _on_a_state(
            2, lib.UCGate([random_unitary(2, seed=3).data, random_unitary(2, seed=4).data])
        ),
        "diagonal": lambda: _on_a_state(2, lib.DiagonalGate([1, 1j, -1, np.exp(0.3j)])),
        "linear_function": lambda: _on_a_state(
            3, lib.LinearFunction([[1, 1, 0], [0, 1, 0], [0, 1, 1]])
        ),
        "permutation": lambda: _on_a_state(4, lib.PermutationGate([2, 0, 3, 1])),
        "clifford": lambda: _on_a_state(3, random_clifford(3, seed=5).to_instruction()),
        "ms": lambda: _on_a_state(3, lib.MSGate(3, 0.3)),
        "gms": lambda: _on_a_state(
            3, lib.GMS(3, [[0, 0.3, 0.2], [0, 0, 0.4], [0, 0, 0]]).to_gate()
        ),
        "gr": lambda: _on_a_state(3, lib.GR(3, 0.3, 0.4).to_gate()),
        "rv": lambda: _on_a_state(1, lib.RVGate(0.1, 0.2, 0.3)),
        "global_phase_controlled": lambda: _on_a_state(2, lib.GlobalPhaseGate(0.4).control(1)),
        "and": lambda: _on_a_state(4, lib.AndGate(3)),
        "or": lambda: _on_a_state(4, lib.OrGate(3, [1, 0, 1])),
        "bitwise_xor": lambda: _on_a_state(4, lib.BitwiseXorGate(2, 3)),
        "inner_product": lambda: _on_a_state(4, lib.InnerProductGate(2)),
        "phase_oracle": lambda: _on_a_state(3, lib.PhaseOracleGate("(a & b) | c")),
        "integer_comparator": lambda: _on_a_state(
            5, lib.IntegerComparatorGate(2, 3), prepared=[0, 1]
        ),
        "modular_adder": lambda: _on_a_state(4, lib.ModularAdderGate(2)),
        "half_adder": lambda: _on_a_state(5, lib.HalfAdderGate(2), prepared=[0, 1, 2, 3]),
        "full_adder": lambda: _on_a_state(6, lib.FullAdderGate(2), prepared=[0, 1, 2, 3, 4]),
        "multiplier": lambda: _on_a_state(8, lib.MultiplierGate(2), prepared=[0, 1, 2, 3]),
        "exact_reciprocal": lambda: _on_a_state(3, lib.ExactReciprocalGate(2, 0.25)),
        "polynomial_rotations": lambda: _on_a_state(
            4, lib.PolynomialPauliRotationsGate(3, [0.1, 0.2, 0.3])
        ),
        "linear_rotations": lambda: _on_a_state(3, lib.LinearPauliRotationsGate(2, 0.1, 0.3)),
        "iqp": lambda: lib.iqp([[6, 5, 3], [5, 4, 5], [3, 5, 1]]),
        "quantum_volume": lambda: lib.quantum_volume(4, seed=7),
        "hidden_linear_function": lambda: lib.hidden_linear_function(
            [[1, 1, 0], [1, 0, 1], [0, 1, 1]]
        ),
        "fourier_checking": lambda: lib.fourier_checking([1, -1, -1, -1], [1, 1, -1, -1]),
        "efficient_su2": lambda: _bound(lib.efficient_su2(3, reps=2)),
        "real_amplitudes": lambda: _bound(lib.real_amplitudes(3, reps=2)),
        "n_local_full": lambda: _bound(lib.n_local(3, ["ry", "rz"], "cz", "full", reps=1)),
        "zz_feature_map": lambda: _bound(lib.zz_feature_map(3)),
        "pauli_feature_map": lambda: _bound(lib.pauli_feature_map(3, paulis=["X", "YZ"])),
    }
    return mapping


def _bound(qc: Any) -> Any:
    """``qc`` with its parameters bound to values of their own."""
    return qc.assign_parameters(np.linspace(0.1, 1.3, qc.num_parameters))
