"""Sampling, shared by every state kind: seeds, bitstring keys, counts drawn from a
distribution, and counts over a circuit's classical bits.

Bitstrings put the highest qubit (or classical bit) leftmost, as Qiskit prints them; with
``qubits`` given, ``qubits[0]`` is the rightmost character.
"""

from __future__ import annotations

import numbers as _abc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ArgumentTypeError, ArgumentValueError, InvalidProbabilityError, ShotsError
from ..support.validation import as_qubit_tuple

if TYPE_CHECKING:
    from .protocol import Seed

NORMALISATION_TOLERANCE = 1e-4
"""How far a distribution's total may stray from one before sampling refuses it."""


def rng(seed: Seed) -> np.random.Generator:
    """A generator from a seed (a generator passes through, so draws continue its stream)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or _is_seed_integer(seed) or isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if isinstance(seed, (list, tuple, np.ndarray)) and all(_is_seed_integer(s) for s in seed):
        return np.random.default_rng(seed)
    if _is_integer(seed):
        raise ArgumentValueError(f"seed must be a non-negative integer, got {seed!r}")
    raise ArgumentTypeError(
        "seed must be a non-negative integer, a sequence of them, a numpy Generator or None, "
        f"got {seed!r}"
    )


def _is_integer(value: Any) -> bool:
    return isinstance(value, (_abc.Integral, np.integer)) and not isinstance(value, bool)


def _is_seed_integer(value: Any) -> bool:
    """A non-negative integer, as NumPy's seed sequences take."""
    return _is_integer(value) and value >= 0


def check_shots(shots: Any) -> int:
    """``shots`` as an int, or :class:`~genqsim.ShotsError` for a negative or non-integer."""
    if isinstance(shots, bool) or not isinstance(shots, (_abc.Integral, np.integer)) or shots < 0:
        raise ShotsError(f"shots must be a non-negative integer, got {shots!r}")
    return int(shots)


def bitstring(index: int, width: int) -> str:
    """Basis index as a bitstring of ``width`` characters, bit 0 rightmost."""
    return format(int(index), f"0{width}b") if width else ""


def check_normalised(total: float) -> None:
    """Refuse a distribution whose total is not one (to :data:`NORMALISATION_TOLERANCE`)."""
    if not abs(total - 1.0) <= NORMALISATION_TOLERANCE:
        raise InvalidProbabilityError(
            f"state is not normalised (total probability {total:.6g}); call normalize() first"
        )


def host_distribution(p: Any, to_float: Callable[[Any], float] | None = None) -> np.ndarray:
    """A float64 distribution from a host array of probabilities (``to_float`` turns entries
    of other number systems into floats), checked finite, non-negative and normalised, then
    scaled to sum to one."""
    if p.dtype == object:
        convert = to_float or float
        p = np.array([convert(v) for v in p], dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    if not np.all(np.isfinite(p)) or np.any(p < -1e-12):
        raise InvalidProbabilityError("probabilities are negative or not finite")
    total = float(p.sum())
    check_normalised(total)
    return np.asarray(np.clip(p, 0.0, None) / total)


def draw_counts(p: np.ndarray, shots: int, seed: Seed, width: int) -> dict[str, int]:
    """Counts of ``shots`` draws from the normalised distribution ``p``, keyed by bitstring."""
    counts = rng(seed).multinomial(shots, p)
    return {bitstring(int(i), width): int(counts[i]) for i in np.flatnonzero(counts)}


def sample_distribution(
    distribution: Callable[[tuple[int, ...] | None], np.ndarray],
    n_qubits: int,
    shots: Any,
    seed: Seed,
    qubits: Sequence[int] | None,
) -> dict[str, int]:
    """``State.sample`` for a state with a host distribution: checks ``shots`` and
    ``qubits``, asks ``distribution(qubits)`` for the normalised probabilities (all, or the
    marginal), and draws."""
    shots = check_shots(shots)
    qs = None if qubits is None else as_qubit_tuple(qubits, n_qubits)
    width = n_qubits if qs is None else len(qs)
    return draw_counts(distribution(qs), shots, seed, width)


def terminal_columns(
    terminal: Sequence[tuple[int, int]],
) -> tuple[list[int], list[tuple[int, int]]]:
    """The distinct qubits that terminal measurements ``[(qubit, clbit), ...]`` read, in
    order, and each measurement as ``(position of its qubit among them, clbit)``: a qubit
    measured twice at the end (into two bits) is drawn once, and both bits get its
    outcome, as measuring it again gives the same."""
    qubits: dict[int, int] = {}
    columns = [(qubits.setdefault(q, len(qubits)), c) for q, c in terminal]
    return list(qubits), columns


def keyed_counts(drawn: Mapping[int, int], width: int) -> dict[str, int]:
    """``{basis index: count}`` as ``{bitstring: count}``, in index order."""
    return {bitstring(i, width): c for i, c in sorted(drawn.items())}


def draw_outcome(p: np.ndarray, seed: Seed) -> int:
    """One index drawn from the normalised distribution ``p``."""
    return int(rng(seed).choice(p.size, p=p))


@dataclass(frozen=True)
class ShotEstimate:
    """An expectation value estimated from shots: ``value`` and its ``standard_error``, from
    ``shots`` measurements of each of ``settings`` measurement settings (one per Pauli term
    that is not the identity)."""

    value: float
    standard_error: float
    shots: int
    settings: int

    def __float__(self) -> float:
        return self.value

    def __repr__(self) -> str:
        return (
            f"{self.value:.6g} ± {self.standard_error:.2g} "
            f"({self.shots} shots x {self.settings} settings)"
        )


def pauli_term_estimate(
    coefficients: Sequence[float], means: Sequence[float], shots: int, generator: Any
) -> ShotEstimate:
    """Each term ``c_k P_k`` measured ``shots`` times in ``P_k``'s eigenbasis: outcomes
    ``+-1`` with probabilities ``(1 +- <P_k>)/2``, their average ``m_k``; the estimate is
    ``sum c_k m_k`` and its standard error ``sqrt(sum c_k**2 (1 - m_k**2) / (shots - 1))``
    (the sample variance of each setting; terms measured separately are independent)."""
    value, variance = 0.0, 0.0
    for c, mean in zip(coefficients, means, strict=True):
        plus = min(max((1.0 + mean) / 2.0, 0.0), 1.0)
        m = 2.0 * generator.binomial(shots, plus) / shots - 1.0
        value += c * m
        variance += c * c * (1.0 - m * m) / max(shots - 1, 1)
    return ShotEstimate(value, float(np.sqrt(variance)), shots, len(means))
