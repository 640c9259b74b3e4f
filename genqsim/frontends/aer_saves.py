"""Qiskit Aer's save instructions (``qc.save_statevector()``, ``save_probabilities``,
``save_expectation_value``, ...) for :class:`~genqsim.qiskit.GenqsimBackend`, so results read
as Aer's do (``result.get_statevector()``, ``result.data()["probabilities"]``).

genqsim reads them where they end a circuit (before its final measurements): their values are
those of the state the circuit leaves, computed once, exactly, not averaged over shots. A
noisy circuit leaves a density matrix, whose averaged quantities (probabilities, expectation
values, density matrices) are exact there too. Saves between gates, saves after mid-circuit
measurements or resets, and per-shot saves are refused with a message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from qiskit import QuantumCircuit
from qiskit.quantum_info import DensityMatrix, Statevector
from qiskit.result import ProbDistribution

from ..errors import ArgumentValueError
from ..linalg.pauli import PauliSum

SAVED_AFTER = frozenset({"barrier", "measure"})
"""What may follow a save on its qubits: other saves, barriers and the final measurements
(operations on other qubits do not change what it saves)."""


def split_saves(qc: QuantumCircuit) -> tuple[QuantumCircuit, list[Any]]:
    """``qc`` without its save instructions, and those instructions (``CircuitInstruction``),
    in order; raises ``ArgumentValueError`` for a save a gate or reset on its qubits follows,
    or one that saves per shot."""
    saves = [item for item in qc.data if item.operation.name.startswith("save_")]
    if not saves:
        return qc, []
    later: dict[Any, str] = {}  # a qubit -> the first operation on it after the point reached
    for item in reversed(qc.data):
        name = item.operation.name
        if not name.startswith("save_"):
            if name not in SAVED_AFTER:
                later.update(dict.fromkeys(item.qubits, name))
            continue
        after = [later[q] for q in item.qubits if q in later]
        if after:
            raise ArgumentValueError(
                f"Aer's {name!r} is followed by {after[0]!r} on its qubits: genqsim reads save "
                "instructions at the end of a circuit (before its final measurements)"
            )
    for item in saves:
        if getattr(item.operation, "_subtype", "") in ("list", "c_list", "accum", "c_accum"):
            raise ArgumentValueError(
                f"Aer's {item.operation.name!r} with pershot=True or conditional=True is not "
                "read: genqsim saves the state the circuit leaves, once"
            )
    rest = qc.copy_empty_like()
    for item in qc.data:
        if not item.operation.name.startswith("save_"):
            rest.append(item)
    return rest, saves


def saved_values(saves: list[Any], qc: QuantumCircuit, state: Any) -> dict[str, Any]:
    """What each save instruction of ``qc`` keeps, by its label, from the final ``state``."""
    out: dict[str, Any] = {}
    for item in saves:
        op = item.operation
        qubits = [qc.find_bit(q).index for q in item.qubits]
        kind = op.name
        if kind not in _SAVED:
            raise ArgumentValueError(
                f"Aer's {kind!r} is not read (genqsim reads {', '.join(sorted(_SAVED))})"
            )
        label = op.label
        if label == "_method_":  # save_state's own: named after the kind of state, as in Aer
            label = "statevector" if _is_pure(state) else "density_matrix"
        if label in out:
            raise ArgumentValueError(f"two save instructions keep {label!r}: label them apart")
        out[label] = _SAVED[kind](state, op, qubits)
    return out


def _is_pure(state: Any) -> bool:
    return getattr(state, "amplitudes", None) is not None


def _amplitudes(state: Any, what: str) -> np.ndarray:
    if not _is_pure(state):
        raise ArgumentValueError(
            f"Aer's {what} needs a pure state; this circuit leaves a density matrix (noise): "
            "save probabilities, expectation values or the density matrix instead"
        )
    return np.asarray(state.amplitudes, dtype=complex)


def _density_matrix(state: Any, qubits: list[int]) -> DensityMatrix:
    reduced = state.reduced_density_matrix(qubits) if qubits else state
    return DensityMatrix(np.asarray(reduced.to_numpy(), dtype=complex))


def _pauli_sum(terms: Any, qubits: list[int], which: int) -> PauliSum:
    """Aer's ``(label, (mean coefficient, square coefficient))`` terms on ``qubits`` (label
    character ``-1 - i`` on ``qubits[i]``) as a genqsim Pauli sum of one coefficient."""
    out = []
    for label, coefficients in terms:
        word = {qubits[i]: letter for i, letter in enumerate(reversed(label)) if letter != "I"}
        out.append((complex(coefficients[which]), word))
    return PauliSum(out)


def _mean(state: Any, op: Any, qubits: list[int], which: int = 0) -> float:
    return float(np.real(complex(state.expectation(_pauli_sum(op.params, qubits, which)))))


_SAVED: dict[str, Callable[[Any, Any, list[int]], Any]] = {
    "save_statevector": lambda s, op, q: Statevector(_amplitudes(s, "save_statevector")),
    "save_state": lambda s, op, q: (
        Statevector(_amplitudes(s, "save_state")) if _is_pure(s) else _density_matrix(s, [])
    ),
    "save_probabilities": lambda s, op, q: np.asarray(s.probabilities(q), dtype=float),
    "save_probabilities_dict": lambda s, op, q: ProbDistribution(
        {i: float(p) for i, p in enumerate(s.probabilities(q)) if p > 0}
    ),
    "save_density_matrix": lambda s, op, q: _density_matrix(s, q),
    "save_amplitudes": lambda s, op, q: _amplitudes(s, "save_amplitudes")[list(op.params)],
    "save_amplitudes_sq": lambda s, op, q: np.asarray(s.probabilities(), dtype=float)[
        list(op.params)
    ],
    "save_expval": lambda s, op, q: _mean(s, op, q),
    "save_expval_var": lambda s, op, q: np.array(
        [(m := _mean(s, op, q)), _mean(s, op, q, which=1) - m**2]
    ),
}
"""Each save instruction's value from the final state, its qubits and the instruction."""

AER_CLASSES = {
    "save_statevector": "SaveStatevector", "save_state": "SaveState",
    "save_probabilities": "SaveProbabilities", "save_probabilities_dict": "SaveProbabilitiesDict",
    "save_density_matrix": "SaveDensityMatrix", "save_amplitudes": "SaveAmplitudes",
    "save_amplitudes_sq": "SaveAmplitudesSquared", "save_expval": "SaveExpectationValue",
    "save_expval_var": "SaveExpectationValueVariance",
}  # fmt: skip
"""The classes in ``qiskit_aer.library`` of the save instructions read, by name."""


def aer_save_classes() -> dict[str, type]:
    """The save instruction classes, by name, for a transpiler target (none without Aer)."""
    try:
        from qiskit_aer import library
    except ImportError:
        return {}
    return {name: getattr(library, cls) for name, cls in AER_CLASSES.items()}
