"""Pauli strings packed in machine words, with real coefficients: the NumPy reference for
propagating thousands to millions of strings (compiled backends specialise each routine).

``strings`` is a ``uint64`` array of shape ``(terms, 2*words)``: the ``x`` bits of qubit ``q``
in word ``q // 64`` of the first half, the ``z`` bits in the second half (a qubit holds ``I``,
``X``, ``Z`` or ``Y`` as in :mod:`genqsim.pauli_propagation.strings`). A *table* is one operation's
transfer matrix in compressed columns: the image of local code ``c`` is the entries
``start[c]:start[c+1]`` of ``codes`` and ``values``.

The routines take their array module as ``xp`` (NumPy by default; a GPU backend passes its
device array module): written on the functions both offer alike, the reference on the CPU
and the GPU propagator are one source.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import ModuleType
from typing import Any

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


def to_host(array: Any) -> np.ndarray:
    """``array`` as a NumPy array (copied from the device where it lives on one)."""
    return array.get() if hasattr(array, "get") else array  # a device array: copied to the host


def local_codes(strings: Any, qubits: Sequence[int], xp: ModuleType = np) -> Any:
    """Each row's local code on ``qubits`` (``qubits[0]`` the lowest two bits)."""
    w = strings.shape[1] // 2
    codes = xp.zeros(strings.shape[0], dtype=xp.int64)
    for i, q in enumerate(qubits):
        word, bit = divmod(q, WORD_BITS)
        x = (strings[:, word] >> xp.uint64(bit)) & xp.uint64(1)
        z = (strings[:, w + word] >> xp.uint64(bit)) & xp.uint64(1)
        codes |= (x.astype(xp.int64) | z.astype(xp.int64) << 1) << (2 * i)
    return codes


def _set_local(strings: Any, codes: Any, qubits: Sequence[int], xp: ModuleType) -> None:
    """Overwrite each row's bits on ``qubits`` with its local code, in place."""
    w = strings.shape[1] // 2
    for i, q in enumerate(qubits):
        word, bit = divmod(q, WORD_BITS)
        keep = ~xp.uint64(1 << bit)
        x = (codes >> (2 * i) & 1).astype(xp.uint64) << xp.uint64(bit)
        z = (codes >> (2 * i + 1) & 1).astype(xp.uint64) << xp.uint64(bit)
        strings[:, word] = strings[:, word] & keep | x
        strings[:, w + word] = strings[:, w + word] & keep | z


def apply_table(
    strings: Any,
    coefficients: Any,
    codes: Any,
    qubits: Sequence[int],
    start: Any,
    image_codes: Any,
    image_values: Any,
    xp: ModuleType = np,
) -> tuple[Any, Any]:
    """Every row replaced by the image of its local code (rows may repeat afterwards: a
    merge combines them). Row ``r``'s images come out consecutively, in its column's order:
    output row ``k`` belongs to the source row whose cumulative image count first exceeds
    ``k`` (a search, where NumPy alone could repeat by counts)."""
    counts = start[codes + 1] - start[codes]
    ends = xp.cumsum(counts)
    total = int(ends[-1]) if len(ends) else 0
    slots = xp.arange(total, dtype=xp.int64)
    source = xp.searchsorted(ends, slots, side="right")
    entry = start[codes[source]] + (slots - (ends[source] - counts[source]))
    out = strings[source]
    _set_local(out, image_codes[entry], qubits, xp)
    return out, coefficients[source] * image_values[entry]


def merge(strings: Any, coefficients: Any, xp: ModuleType = np) -> tuple[Any, Any]:
    """Equal rows combined (coefficients summed), in first-appearance order: the rows are
    sorted by their words with the row index last (so each run of equal rows starts at its
    first appearance), runs are summed, and the runs put back in order of those starts."""
    if len(strings) < 2:
        return strings, coefficients
    index = xp.arange(len(strings), dtype=xp.int64)
    keys = [index.astype(xp.uint64)] + [strings[:, j] for j in range(strings.shape[1] - 1, -1, -1)]
    order = xp.lexsort(xp.stack(keys))
    ordered = strings[order]
    starts = xp.ones(len(order), dtype=bool)
    starts[1:] = xp.any(ordered[1:] != ordered[:-1], axis=1)
    run = xp.cumsum(starts) - 1
    summed = xp.bincount(run, weights=coefficients[order])
    first = order[starts]
    by_appearance = xp.argsort(first)
    return strings[first[by_appearance]], summed[by_appearance]


def _popcounts(words: Any, xp: ModuleType) -> Any:
    """Set bits of each ``uint64`` (SWAR, elementwise: no table, on either module)."""
    u = words - ((words >> xp.uint64(1)) & xp.uint64(0x5555555555555555))
    u = (u & xp.uint64(0x3333333333333333)) + ((u >> xp.uint64(2)) & xp.uint64(0x3333333333333333))
    u = (u + (u >> xp.uint64(4))) & xp.uint64(0x0F0F0F0F0F0F0F0F)
    return ((u * xp.uint64(0x0101010101010101)) >> xp.uint64(56)).astype(xp.int64)


def weights(strings: Any, xp: ModuleType = np) -> Any:
    """The Pauli weight (qubits not ``I``) of each row."""
    w = strings.shape[1] // 2
    return _popcounts(strings[:, :w] | strings[:, w:], xp).sum(axis=1)


def truncate(
    strings: Any, coefficients: Any, min_abs: float, max_weight: int, xp: ModuleType = np
) -> tuple[Any, Any, float, int]:
    """Rows kept (``|c| >= min_abs`` and weight ``<= max_weight``; exact zeros always go)
    and the sum of ``|c|`` and the count of those dropped (``max_weight < 0``: no limit)."""
    keep = xp.abs(coefficients) >= min_abs
    keep &= coefficients != 0
    if 0 <= max_weight < strings.shape[1] // 2 * WORD_BITS:
        keep &= weights(strings, xp) <= max_weight
    dropped = float(xp.abs(coefficients[~keep]).sum())
    return strings[keep], coefficients[keep], dropped, int(len(keep) - int(keep.sum()))


def diagonal_value(strings: Any, coefficients: Any, bits: int, xp: ModuleType = np) -> float:
    """``<b| sum c P |b>`` on the basis state ``bits``: strings without ``X`` or ``Y``
    contribute ``c (-1)**|z & b|``."""
    w = strings.shape[1] // 2
    diagonal = ~xp.any(strings[:, :w], axis=1)
    if not bool(diagonal.any()):
        return 0.0
    b = xp.asarray(pack([(0, bits)], w * WORD_BITS)[0, w:])
    parity = _popcounts(strings[diagonal][:, w:] & b, xp).sum(axis=1) & 1
    return float(xp.sum(coefficients[diagonal] * (1 - 2 * parity.astype(xp.float64))))
