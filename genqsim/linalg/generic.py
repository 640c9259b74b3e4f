"""The generic routines: apply a k-qubit operator with controls to a state of *any* dtype.

This is the index arithmetic of the generic subspace routine (bit masks over the non-target
qubits, offsets over the 2**k target patterns), vectorised with NumPy: gather a
``(2**k, 2**m)`` block of amplitudes, transform it, scatter it back. No ``2**n x 2**n`` matrix
is ever formed and no Python loop runs over amplitudes, so the same code serves complex128,
complex64 and object arrays of SymPy expressions, dual numbers or intervals.

Conventions: qubit ``q`` is bit ``q`` of a basis index (qubit 0 least significant); for a
matrix acting on ``targets``, ``targets[0]`` is the least-significant bit of the matrix index.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ..numbers import NumberSystem

_INDEX_CACHE_MAX_QUBITS = 16
"""Index tables are cached up to this size (2**16 int64 = 512 KiB each)."""


def deposit_bits(values: np.ndarray, positions: Sequence[int]) -> np.ndarray:
    """Scatter bit ``i`` of each value to bit ``positions[i]`` (a software PDEP)."""
    out = np.zeros_like(values)
    for i, pos in enumerate(positions):
        out |= ((values >> i) & 1) << pos
    return out


def _subspace_indices(
    n_qubits: int,
    targets: tuple[int, ...],
    controls: tuple[int, ...],
    control_values: tuple[int, ...],
) -> np.ndarray:
    """Basis indices touched by an operator, shape ``(2**k, 2**m)``.

    Row ``r`` holds the indices whose target bits spell ``r`` (``targets[0]`` lowest); column
    ``c`` enumerates the free qubits (neither target nor control), with every control bit set to
    its required value. Rows therefore line up with the rows of the operator's matrix.
    """
    used = set(targets) | set(controls)
    free = [q for q in range(n_qubits) if q not in used]
    base = deposit_bits(np.arange(1 << len(free), dtype=np.int64), free)
    for q, v in zip(controls, control_values):
        if v:
            base |= np.int64(1) << q
    offsets = deposit_bits(np.arange(1 << len(targets), dtype=np.int64), targets)
    return offsets[:, None] + base[None, :]


_cached_subspace_indices = lru_cache(maxsize=256)(_subspace_indices)


def subspace_indices(
    n_qubits: int,
    targets: Sequence[int],
    controls: Sequence[int] = (),
    control_values: Sequence[int] = (),
) -> np.ndarray:
    """Index table of an operator on ``targets`` under ``controls`` (see ``_subspace_indices``)."""
    key = (n_qubits, tuple(targets), tuple(controls), tuple(control_values))
    if n_qubits <= _INDEX_CACHE_MAX_QUBITS:
        table = _cached_subspace_indices(*key)
        table.flags.writeable = False
        return table
    return _subspace_indices(*key)


def n_qubits_of(state: np.ndarray) -> int:
    """Number of qubits of a flat state (its length is checked to be a power of two elsewhere)."""
    return int(state.shape[-1]).bit_length() - 1


def apply_matrix(
    state: np.ndarray,
    matrix: np.ndarray,
    targets: Sequence[int],
    controls: Sequence[int] = (),
    control_values: Sequence[int] = (),
) -> None:
    """``state <- (controlled matrix on targets) @ state``, in place, any dtype."""
    idx = subspace_indices(n_qubits_of(state), targets, controls, control_values)
    state[idx] = matrix @ state[idx]


def apply_diagonal(
    state: np.ndarray,
    diagonal: np.ndarray,
    targets: Sequence[int],
    controls: Sequence[int] = (),
    control_values: Sequence[int] = (),
) -> None:
    """Multiply amplitudes by ``diagonal[pattern of target bits]``; rows whose entry is exactly
    one are not touched (CZ and P touch a quarter and a half of the state)."""
    active = [r for r, d in enumerate(diagonal) if not _is_exactly_one(d)]
    if not active:
        return
    factors = np.asarray(diagonal, dtype=state.dtype)
    if len(targets) == 1 and not controls and state.ndim == 1 and state.flags.c_contiguous:
        # one qubit: its two halves as a strided view, no index table (a collapse, a phase)
        halves = state.reshape(-1, 2, 1 << targets[0])
        for r in active:
            halves[:, r] *= factors[r]
        return
    idx = subspace_indices(n_qubits_of(state), targets, controls, control_values)
    rows = idx[active]
    state[rows] = state[rows] * factors[active][:, None]


def apply_permutation(
    state: np.ndarray,
    permutation: Sequence[int],
    phases: np.ndarray | None,
    targets: Sequence[int],
    controls: Sequence[int] = (),
    control_values: Sequence[int] = (),
) -> None:
    """Apply ``|j> -> phases[j] |permutation[j]>`` on the targets (phases ``None``: all one)."""
    perm = np.asarray(permutation, dtype=np.int64)
    idx = subspace_indices(n_qubits_of(state), targets, controls, control_values)
    moved = perm != np.arange(perm.size)
    if phases is not None:
        phases = np.asarray(phases, dtype=state.dtype)
        moved |= np.array([not _is_exactly_one(p) for p in phases])
    if not moved.any():
        return
    src_rows = idx[moved]
    block = state[src_rows]
    if phases is not None:
        block = block * phases[moved][:, None]
    state[idx[perm[moved]]] = block


def _is_exactly_one(value: object) -> bool:
    try:
        return bool(value == 1)
    except TypeError:
        return False


# -- reductions --------------------------------------------------------------------------------


def abs2(state: np.ndarray, numbers: NumberSystem) -> np.ndarray:
    """Elementwise ``|amplitude|**2`` (a real array for complex dtypes)."""
    if state.dtype.kind == "c":
        return state.real * state.real + state.imag * state.imag
    return numbers.abs2_array(state)


def marginalize(weights: np.ndarray, qubits: Sequence[int] | None) -> np.ndarray:
    """Sum a full distribution over every qubit not in ``qubits``.

    The result is indexed like a basis index of the kept qubits, ``qubits[0]`` the least
    significant bit; ``qubits=None`` returns ``weights`` itself.
    """
    if qubits is None:
        return weights
    if len(qubits) == 1 and weights.ndim == 1:  # one qubit: sum each half of a strided view
        return weights.reshape(-1, 2, 1 << qubits[0]).sum(axis=(0, 2))
    n = n_qubits_of(weights)
    tensor = weights.reshape((2,) * n) if n else weights.reshape(())
    axis_of = {q: n - 1 - q for q in range(n)}
    dropped = tuple(axis_of[q] for q in range(n) if q not in set(qubits))
    reduced = tensor.sum(axis=dropped) if dropped else tensor
    kept_axes_in_order = [axis_of[q] for q in range(n) if q in set(qubits)]  # descending q
    # reduced's axes are the kept ones in increasing axis order, i.e. decreasing qubit number;
    # reorder so that qubits[-1] is the first (most significant) axis.
    position = {ax: i for i, ax in enumerate(sorted(kept_axes_in_order))}
    order = [position[axis_of[q]] for q in reversed(list(qubits))]
    return np.transpose(reduced, order).reshape(-1)


def probabilities(
    state: np.ndarray, qubits: Sequence[int] | None, numbers: NumberSystem
) -> np.ndarray:
    """Probabilities of all basis states, or the marginal over ``qubits``."""
    return marginalize(abs2(state, numbers), qubits)


def inner(a: np.ndarray, b: np.ndarray, numbers: NumberSystem) -> object:
    """``<a|b>`` (conjugating ``a``)."""
    if a.dtype.kind == "c" and b.dtype.kind == "c":
        return np.vdot(a, b)
    return np.sum(numbers.conj_array(a) * b)


def norm_squared(state: np.ndarray, numbers: NumberSystem) -> object:
    """``<psi|psi>`` as a real number of the state's system."""
    if state.dtype.kind == "c":
        return float(np.vdot(state, state).real)
    return np.sum(abs2(state, numbers))


def pauli_strings_points(
    states: np.ndarray, x_masks: Sequence[int] | np.ndarray, z_masks: Sequence[int] | np.ndarray
) -> np.ndarray:
    """``<psi_p| X^x_t Z^z_t |psi_p>`` for every row ``p`` of ``states`` (``(points, 2**n)``
    machine numbers) and string ``t``: ``sum_j conj(psi[j ^ x]) (-1)**popcount(j & z)
    psi[j]``, a ``(points, strings)`` complex array."""
    n_qubits = states.shape[1].bit_length() - 1
    index = np.arange(states.shape[1], dtype=np.int64)
    out = np.empty((states.shape[0], len(x_masks)), dtype=np.complex128)
    for t, (x, z) in enumerate(zip(x_masks, z_masks)):
        product = np.conj(states[:, index ^ int(x)]) * states
        out[:, t] = product @ pauli_signs(n_qubits, int(z))
    return out


def closed_form_numbers(
    values: np.ndarray,
    extra: np.ndarray,
    columns: np.ndarray,
    rates: tuple[np.ndarray, np.ndarray],
    entries: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    data: np.ndarray,
) -> None:
    """The numbers of a sweep's closed-form gates at every point, written into ``data``:
    ``data[p, where[e]] = exp(-i a t) (cos(b t) d0[e] + sin(b t) d1[e])`` for each entry
    ``e`` of ``entries = (slot_of_entry, d0, d1, where)``, with ``(a, b)`` its slot's rates
    and ``t`` its slot's angle: column ``columns[slot]`` of ``[values | extra]``."""
    slot_of_entry, d0, d1, where = entries
    theta = np.concatenate([values, extra], axis=1)[:, columns]
    rate_phase, rate = rates
    phase = np.exp(-1j * rate_phase * theta)[:, slot_of_entry]
    turned = rate * theta
    cos, sin = np.cos(turned)[:, slot_of_entry], np.sin(turned)[:, slot_of_entry]
    data[:, where] = phase * (cos * d0 + sin * d1)


KEPT_SIGNS_QUBITS = 14
"""States up to this many qubits keep the signs of each Z mask (16 KiB each, at most
:data:`KEPT_SIGNS` of them): a Pauli sum on a small state, evaluated again and again in an
optimiser's loop, spent most of its time making them."""

KEPT_SIGNS = 512
"""How many sign arrays are kept (the last used)."""


def pauli_signs(n_qubits: int, z_mask: int) -> np.ndarray:
    """``(-1)**popcount(j & z_mask)`` for every basis index ``j`` (int8, read-only where
    kept)."""
    if n_qubits <= KEPT_SIGNS_QUBITS:
        return _kept_signs(n_qubits, z_mask)
    return _signs(n_qubits, z_mask)


@lru_cache(maxsize=KEPT_SIGNS)
def _kept_signs(n_qubits: int, z_mask: int) -> np.ndarray:
    """:func:`pauli_signs`, kept (read-only: every caller shares it)."""
    signs = _signs(n_qubits, z_mask)
    signs.setflags(write=False)
    return signs


def _signs(n_qubits: int, z_mask: int) -> np.ndarray:
    """:func:`pauli_signs`, worked out."""
    j = np.arange(1 << n_qubits, dtype=np.int64)
    parity = np.zeros(j.shape, dtype=np.int64)
    for q in range(n_qubits):
        if z_mask >> q & 1:
            parity ^= (j >> q) & 1
    return (1 - 2 * parity).astype(np.int8)


def pauli_transition(
    bra: np.ndarray,
    ket: np.ndarray,
    x_mask: int,
    z_mask: int,
    numbers: NumberSystem,
    controls: Sequence[int] = (),
    control_values: Sequence[int] = (),
) -> object:
    """``<bra| X^x_mask Z^z_mask |ket>`` over the indices where every control qubit holds its
    value: a Pauli string up to its factor ``i**(number of Y)``, which the caller applies
    (``Y = i X Z``). An expectation value is ``bra is ket`` with no controls; the adjoint
    sweep takes ``Im <lambda| P |psi>`` of a rotation from it. One gather, no operator."""
    n = n_qubits_of(ket)
    if not controls and ket.dtype.kind == "c":  # an expectation's term: no subset to gather
        flipped = bra[np.arange(1 << n, dtype=np.int64) ^ x_mask] if x_mask else bra
        return np.vdot(flipped, pauli_signs(n, z_mask) * ket if z_mask else ket)
    j = np.arange(1 << n, dtype=np.int64)
    for q, v in zip(controls, control_values):
        j = j[(j >> q & 1) == v]
    signs = pauli_signs(n, z_mask)[j]
    flipped = bra[j ^ x_mask]
    if ket.dtype.kind == "c":
        return np.vdot(flipped, signs * ket[j])
    return np.sum(numbers.conj_array(flipped) * (signs.astype(object) * ket[j]))
