"""Pauli strings packed in machine words, with real coefficients: the NumPy reference for
propagating thousands to millions of strings (compiled backends specialise each routine).

``strings`` is a ``uint64`` array of shape ``(terms, 2*words)``: the ``x`` bits of qubit ``q``
in word ``q // 64`` of the first half, the ``z`` bits in the second half (a qubit holds ``I``,
``X``, ``Z`` or ``Y`` as in :mod:`genqsim.pauli_propagation.strings`). A *table* is one operation's
transfer matrix in compressed columns: the image of local code ``c`` is the entries
``start[c]:start[c+1]`` of ``codes`` and ``values``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

WORD_BITS = 64


def words_for(n_qubits: int) -> int:
    """Machine words per half of a packed string on ``n_qubits`` qubits."""
    return max(1, -(-n_qubits // WORD_BITS))


def pack(masks: Iterable[tuple[int, int]], n_qubits: int) -> np.ndarray:
    """``(x, z)`` integer masks as packed rows."""
    w = words_for(n_qubits)
    rows = []
    full = (1 << WORD_BITS) - 1
    for x, z in masks:
        rows.append([x >> (WORD_BITS * i) & full for i in range(w)]
                    + [z >> (WORD_BITS * i) & full for i in range(w)])  # fmt: skip
    return np.array(rows, dtype=np.uint64).reshape(len(rows), 2 * w)


def unpack(strings: np.ndarray) -> list[tuple[int, int]]:
    """Packed rows as ``(x, z)`` integer masks."""
    w = strings.shape[1] // 2
    out = []
    for row in strings.tolist():
        x = sum(int(v) << (WORD_BITS * i) for i, v in enumerate(row[:w]))
        z = sum(int(v) << (WORD_BITS * i) for i, v in enumerate(row[w:]))
        out.append((x, z))
    return out


def local_codes(strings: np.ndarray, qubits: Sequence[int]) -> np.ndarray:
    """Each row's local code on ``qubits`` (``qubits[0]`` the lowest two bits)."""
    w = strings.shape[1] // 2
    codes = np.zeros(strings.shape[0], dtype=np.int64)
    for i, q in enumerate(qubits):
        word, bit = divmod(q, WORD_BITS)
        x = (strings[:, word] >> np.uint64(bit)) & np.uint64(1)
        z = (strings[:, w + word] >> np.uint64(bit)) & np.uint64(1)
        codes |= (x.astype(np.int64) | z.astype(np.int64) << 1) << (2 * i)
    return codes


def _set_local(strings: np.ndarray, codes: np.ndarray, qubits: Sequence[int]) -> None:
    """Overwrite each row's bits on ``qubits`` with its local code, in place."""
    w = strings.shape[1] // 2
    for i, q in enumerate(qubits):
        word, bit = divmod(q, WORD_BITS)
        keep = ~np.uint64(1 << bit)
        x = (codes >> (2 * i) & 1).astype(np.uint64) << np.uint64(bit)
        z = (codes >> (2 * i + 1) & 1).astype(np.uint64) << np.uint64(bit)
        strings[:, word] = strings[:, word] & keep | x
        strings[:, w + word] = strings[:, w + word] & keep | z


def apply_table(
    strings: np.ndarray,
    coefficients: np.ndarray,
    codes: np.ndarray,
    qubits: Sequence[int],
    start: np.ndarray,
    image_codes: np.ndarray,
    image_values: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Every row replaced by the image of its local code (rows may repeat afterwards: a
    merge combines them)."""
    counts = start[codes + 1] - start[codes]
    source = np.repeat(np.arange(len(codes)), counts)
    first = np.repeat(np.cumsum(counts) - counts, counts)
    entry = start[codes[source]] + (np.arange(len(source)) - first)
    out = strings[source]
    _set_local(out, image_codes[entry], qubits)
    return out, coefficients[source] * image_values[entry]


def merge(strings: np.ndarray, coefficients: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Equal rows combined (coefficients summed), in first-appearance order."""
    if len(strings) < 2:
        return strings, coefficients
    rows = np.ascontiguousarray(strings).view(
        np.dtype((np.void, strings.dtype.itemsize * strings.shape[1]))
    )
    _, first, inverse = np.unique(rows.reshape(-1), return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    summed = np.bincount(rank[inverse], weights=coefficients, minlength=len(first))
    return strings[first[order]], summed


def weights(strings: np.ndarray) -> np.ndarray:
    """The Pauli weight (qubits not ``I``) of each row."""
    w = strings.shape[1] // 2
    support = strings[:, :w] | strings[:, w:]
    return np.bitwise_count(support).sum(axis=1, dtype=np.int64)


def truncate(
    strings: np.ndarray, coefficients: np.ndarray, min_abs: float, max_weight: int
) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Rows kept (``|c| >= min_abs`` and weight ``<= max_weight``; exact zeros always go)
    and the sum of ``|c|`` and the count of those dropped (``max_weight < 0``: no limit)."""
    keep = np.abs(coefficients) >= min_abs
    keep &= coefficients != 0
    if 0 <= max_weight < strings.shape[1] // 2 * WORD_BITS:
        keep &= weights(strings) <= max_weight
    dropped = float(np.abs(coefficients[~keep]).sum())
    return strings[keep], coefficients[keep], dropped, int(len(keep) - keep.sum())


def diagonal_value(strings: np.ndarray, coefficients: np.ndarray, bits: int) -> float:
    """``<b| sum c P |b>`` on the basis state ``bits``: strings without ``X`` or ``Y``
    contribute ``c (-1)**|z & b|``."""
    w = strings.shape[1] // 2
    diagonal = ~np.any(strings[:, :w], axis=1)
    if not diagonal.any():
        return 0.0
    b = pack([(0, bits)], w * WORD_BITS)[0, w:]
    parity = np.bitwise_count(strings[diagonal][:, w:] & b).sum(axis=1) & 1
    return float(np.sum(coefficients[diagonal] * (1 - 2 * parity.astype(np.float64))))
