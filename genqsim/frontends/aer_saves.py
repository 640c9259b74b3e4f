"""Qiskit Aer's save instructions (``qc.save_statevector()``, ``save_probabilities``,
``save_expectation_value``, ...) for :class:`~genqsim.qiskit.GenqsimBackend`, so results read
as Aer's do (``result.get_statevector()``, ``result.data()["probabilities"]``).

A save keeps what the state holds where it stands: the circuit is cut at its saves, and each
part runs from the state the one before left (:class:`SavedParts`), once, exactly, not
averaged over shots. A noisy circuit leaves a density matrix, whose averaged quantities
(probabilities, expectation values, density matrices) are exact there too. After a
mid-circuit measurement, reset or condition the parts run on a density matrix that keeps
every classical record: the averaged saves are then the exact means over the records (Aer's
average over shots estimates them), and with ``conditional=True`` one value per value of
the classical memory, by its hex (``"0x1"``), as Aer keys them. Saves of one shot's state
there (a state vector, amplitudes: Aer's ``"single"`` saves), and state vectors of noisy
runs, are the last shot's, as in Aer: that shot runs on a state vector of its own, its
measurements collapsing and its channels drawing as it goes, and its record is the last
of the memory; after a while loop, which no density matrix runs, only such saves are
read. Per-shot saves, and one shot's state per value of the memory, are refused with a
message."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from qiskit import QuantumCircuit
from qiskit.quantum_info import DensityMatrix, Statevector
from qiskit.result import ProbDistribution

from ..errors import ArgumentValueError
from ..linalg.pauli import PauliSum

PER_SHOT = ("list", "c_list", "accum", "c_accum")
"""Aer's subtypes of saves kept per shot (``pershot=True``)."""

ONE_SHOT = ("single", "c_single")
"""Aer's subtypes of saves of one shot's state (a state vector, amplitudes)."""

PURE_ONLY = ("save_statevector", "save_amplitudes")
"""Saves that read a state vector: of a noisy run, one shot's (the last, as in Aer)."""

CONDITIONAL = ("c_single", "c_average")
"""Aer's subtypes of saves kept per value of the classical memory (``conditional=True``)."""


@dataclass(frozen=True)
class SavedParts:
    """A circuit cut at its save instructions: ``rest``, the circuit without them (what its
    shots run), and ``parts``, each a circuit of the operations since the cut before and the
    saves (``CircuitInstruction``) that follow them."""

    rest: QuantumCircuit
    parts: list[tuple[QuantumCircuit, list[Any]]]


def split_saves(qc: QuantumCircuit) -> SavedParts:
    """``qc`` cut at its save instructions; raises ``ArgumentValueError`` for a per-shot
    save."""
    rest = qc.copy_empty_like()
    parts: list[tuple[QuantumCircuit, list[Any]]] = []
    part = qc.copy_empty_like()
    saves: list[Any] = []
    for item in qc.data:
        op = item.operation
        if not op.name.startswith("save_"):
            if saves:  # a new part starts after the saves
                parts.append((part, saves))
                part, saves = qc.copy_empty_like(), []
            part.append(item)
            rest.append(item)
            continue
        if getattr(op, "_subtype", "") in PER_SHOT:
            raise ArgumentValueError(
                f"Aer's {op.name!r} with pershot=True is not read: genqsim saves the state "
                "where the save stands, once (exact means over the shots' records)"
            )
        saves.append(item)
    if saves:
        parts.append((part, saves))
    return SavedParts(rest if parts else qc, parts)


def save_values(
    saves: list[Any],
    qc: QuantumCircuit,
    state: Any,
    out: dict[str, Any],
    shot_by_shot: bool = False,
) -> list[Any]:
    """Put into ``out`` what each save instruction of ``qc`` keeps, by its label, from the
    ``state`` where it stands (``shot_by_shot``: a density matrix after a mid-circuit
    measurement, reset or condition, whose members are the classical records); a label
    already there is an error. Returns the saves of one shot's state that ``state`` cannot
    give (after a mid-circuit measurement, reset or condition, or a state vector of a noisy
    run: :func:`one_shot_values` gives them, from the run of the last shot, as Aer does)."""
    left = []
    for item in saves:
        op = item.operation
        qubits = [qc.find_bit(q).index for q in item.qubits]
        kind = op.name
        _check_kind(kind)
        subtype = getattr(op, "_subtype", "single")
        if subtype == "single" and (shot_by_shot or (kind in PURE_ONLY and not _is_pure(state))):
            left.append(item)
            continue
        if shot_by_shot and subtype in ONE_SHOT:
            raise ArgumentValueError(
                f"Aer's {kind!r} with conditional=True after a mid-circuit measurement, reset "
                "or condition keeps one shot's state per value of the memory: genqsim reads "
                "the averaged conditional saves there (probabilities, expectation values, "
                "density matrices, squared amplitudes)"
            )
        label = _new_label(op, state, out)
        if subtype in CONDITIONAL:
            out[label] = {memory: _mean_over(members, op, qubits)
                          for memory, members in _by_memory(state).items()}  # fmt: skip
        elif shot_by_shot:
            out[label] = _mean_over(_records(state), op, qubits)
        else:
            out[label] = _SAVED[kind](state, op, qubits)
    return left


def one_shot_saves_after_a_loop(saves: list[Any]) -> list[Any]:
    """``saves``, which stand after a while loop, where each keeps one shot's state (the
    last shot's, :func:`one_shot_values`); an averaged save there is refused: the exact
    mean over the records needs a density matrix, which cannot run the loop."""
    for item in saves:
        op = item.operation
        _check_kind(op.name)
        if getattr(op, "_subtype", "single") != "single":
            raise ArgumentValueError(
                f"Aer's {op.name!r} comes after a while loop and averages over the shots' "
                "records, which needs a density matrix, and a density matrix cannot run the "
                "loop (it has no last iteration): save before the loop, or save one shot's "
                "state (save_statevector, save_amplitudes, save_state)"
            )
    return saves


def one_shot_values(saves: list[Any], qc: QuantumCircuit, state: Any, out: dict[str, Any]) -> None:
    """Put into ``out`` what each save of one shot's state (``"single"``) keeps from
    ``state``, one shot's state vector where the save stands (as Aer keeps the last
    shot's)."""
    for item in saves:
        op = item.operation
        label = _new_label(op, state, out)
        # a copy: the shot's state runs on in place after the save
        qubits = [qc.find_bit(q).index for q in item.qubits]
        out[label] = _SAVED[op.name](state.copy(), op, qubits)


def _new_label(op: Any, state: Any, out: dict[str, Any]) -> str:
    """The label the save ``op`` keeps its value under (``save_state``'s own is named after
    the kind of state, as in Aer); one already in ``out`` is an error."""
    label = str(op.label)
    if label == "_method_":
        label = "statevector" if _is_pure(state) else "density_matrix"
    if label in out:
        raise ArgumentValueError(f"two save instructions keep {label!r}: label them apart")
    return label


def _check_kind(kind: str) -> None:
    if kind not in _SAVED:
        raise ArgumentValueError(
            f"Aer's {kind!r} is not read (genqsim reads {', '.join(sorted(_SAVED))})"
        )


def _records(state: Any) -> list[tuple[float, Any]]:
    """``(probability, normalised state)`` of each classical record of ``state`` (a pure
    state is one record)."""
    if _is_pure(state):
        return [(1.0, state)]
    return [(float(p), member) for p, member in state.ensemble().values()]


def _by_memory(state: Any) -> dict[str, list[tuple[float, Any]]]:
    """The records of ``state`` by the hex of the classical memory they hold (bits never
    written read 0), as Aer keys conditional saves."""
    if _is_pure(state):
        return {"0x0": [(1.0, state)]}
    out: dict[str, list[tuple[float, Any]]] = {}
    for bits, (p, member) in state.ensemble().items():
        memory = hex(int(bits.replace("-", "0") or "0", 2))
        out.setdefault(memory, []).append((float(p), member))
    return out


def _mean_over(records: list[tuple[float, Any]], op: Any, qubits: list[int]) -> Any:
    """The mean of what the save ``op`` keeps over ``records``, weighted by their
    probabilities (what Aer's average over shots estimates): arrays and numbers, Qiskit
    density matrices, and probability dictionaries entry by entry."""
    total = sum(p for p, _ in records)
    parts = [(p / total, _SAVED[op.name](member, op, qubits)) for p, member in records]
    if len(parts) == 1:
        return parts[0][1]
    first = parts[0][1]
    if isinstance(first, ProbDistribution):
        merged: dict[int, float] = {}
        for w, found in parts:
            for key, p in found.items():
                merged[key] = merged.get(key, 0.0) + w * p
        return ProbDistribution(merged)
    if isinstance(first, DensityMatrix):
        return DensityMatrix(sum(w * found.data for w, found in parts))
    return sum(w * np.asarray(found) for w, found in parts)


def _is_pure(state: Any) -> bool:
    return getattr(state, "amplitudes", None) is not None


def _amplitudes(state: Any, what: str) -> np.ndarray:
    if not _is_pure(state):
        raise ArgumentValueError(
            f"Aer's {what} needs a pure state; this circuit leaves a density matrix (noise): "
            "save probabilities, expectation values or the density matrix instead"
        )
    return np.asarray(state.amplitudes, dtype=complex)


def _squared_amplitudes(state: Any, indices: list[int]) -> np.ndarray:
    """The probabilities of the basis states ``indices`` (of a pure state, from those
    amplitudes alone; of a density matrix, its diagonal)."""
    if _is_pure(state):
        return np.abs(np.asarray(state.amplitudes)[indices]) ** 2
    return np.asarray(state.probabilities(), dtype=float)[indices]


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
    "save_amplitudes_sq": lambda s, op, q: _squared_amplitudes(s, list(op.params)),
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
