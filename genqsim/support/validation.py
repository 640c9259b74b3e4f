"""Checks on qubit lists, shared by circuits and states, so every entry point rejects bad
input with the same typed, explicit errors before anything is changed."""

from __future__ import annotations

import numbers as _abc
from typing import Any

import numpy as np

from ..errors import (
    ArgumentTypeError,
    ControlTargetOverlapError,
    ControlValueError,
    DuplicateQubitError,
    MatrixShapeError,
    QubitIndexError,
)


def as_qubit(q: Any, n_qubits: int, role: str = "qubit") -> int:
    """``q`` as a Python int in ``range(n_qubits)``; bools and floats are refused."""
    if type(q) is int and 0 <= q < n_qubits:  # the common case, before the general checks
        return q
    if isinstance(q, (bool, np.bool_)) or not isinstance(q, (_abc.Integral, np.integer)):
        raise QubitIndexError(f"{role} index must be an integer, got {q!r} ({type(q).__name__})")
    q = int(q)
    if not 0 <= q < n_qubits:
        raise QubitIndexError(
            f"{role} index {q} out of range for {n_qubits} qubit{'s' if n_qubits != 1 else ''} "
            f"(valid: 0..{n_qubits - 1})"
        )
    return q


def as_qubit_tuple(qubits: Any, n_qubits: int, role: str = "qubit") -> tuple[int, ...]:
    """A tuple of distinct valid qubit indices (a single int is accepted as one qubit)."""
    if type(qubits) is int or (
        isinstance(qubits, (_abc.Integral, np.integer)) and not isinstance(qubits, bool)
    ):
        qubits = (qubits,)
    try:
        items = tuple(qubits)
    except TypeError:
        raise QubitIndexError(f"{role}s must be a sequence of integers, got {qubits!r}") from None
    out = tuple([as_qubit(q, n_qubits, role) for q in items])
    if len(out) > 1 and len(set(out)) != len(out):
        dup = sorted({q for q in out if out.count(q) > 1})
        raise DuplicateQubitError(f"duplicate {role} {dup} in {list(out)}")
    return out


def check_operation_qubits(
    n_qubits: int,
    targets: Any,
    controls: Any = (),
    control_values: Any = None,
    n_targets: int | None = None,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Validate targets, controls and control values of one operation.

    Returns normalised ``(targets, controls, control_values)``; control values default to all
    ones. ``n_targets`` (the gate's arity) is checked when given.
    """
    t = as_qubit_tuple(targets, n_qubits, "target")
    c = as_qubit_tuple(controls, n_qubits, "control")
    if n_targets is not None and len(t) != n_targets:
        raise MatrixShapeError(
            f"gate acts on {n_targets} qubit(s) but {len(t)} target(s) were given: {list(t)}"
        )
    overlap = sorted(set(t) & set(c))
    if overlap:
        raise ControlTargetOverlapError(f"qubit(s) {overlap} used as both control and target")
    if control_values is None:
        v: tuple[int, ...] = (1,) * len(c)
    else:
        v = _control_values(control_values, len(c))
    return t, c, v


def _control_values(values: Any, n_controls: int) -> tuple[int, ...]:
    if isinstance(values, (_abc.Integral, np.integer)) and not isinstance(values, bool):
        values = (values,)
    try:
        items = tuple(values)
    except TypeError:
        raise ControlValueError(
            f"control_values must be a sequence of 0/1, got {values!r}"
        ) from None
    if len(items) != n_controls:
        raise ControlValueError(f"{len(items)} control value(s) given for {n_controls} control(s)")
    out = []
    for v in items:
        if isinstance(v, (bool, np.bool_)):
            v = int(v)
        if not isinstance(v, (_abc.Integral, np.integer)) or int(v) not in (0, 1):
            raise ControlValueError(f"control values must be 0 or 1, got {v!r}")
        out.append(int(v))
    return tuple(out)


MAX_CIRCUIT_QUBITS = 1 << 24
"""The widest circuit genqsim builds (16,777,216 qubits: far past any state, and past what
Pauli propagation's light cones meet; a larger count is a mistake, and an index beyond
machine integers would fail later with no name)."""


def check_n_qubits(n_qubits: Any) -> int:
    """A qubit count: a non-negative integer (``bool`` is not one), at most
    :data:`MAX_CIRCUIT_QUBITS`."""
    if isinstance(n_qubits, bool) or not isinstance(n_qubits, (_abc.Integral, np.integer)):
        raise ArgumentTypeError(f"n_qubits must be an integer, got {n_qubits!r}")
    if n_qubits < 0:
        raise QubitIndexError(f"n_qubits must be non-negative, got {n_qubits}")
    if n_qubits > MAX_CIRCUIT_QUBITS:
        raise QubitIndexError(
            f"n_qubits {n_qubits} is more than a circuit holds (at most {MAX_CIRCUIT_QUBITS})"
        )
    return int(n_qubits)
