"""Compiled kernels for packed Pauli strings (:mod:`genqsim.linalg.packed_paulis` gives the
layout and the NumPy reference each kernel matches): local codes, the expansion of every
string by its transfer-matrix column, and a hash merge of equal strings in one pass."""

from __future__ import annotations

import numba as nb
import numpy as np

from . import numba_cache  # noqa: F401  (first: where Numba keeps this module's kernels)
from .numba_slp import vector_njit


def _compiled(fn):  # type: ignore[no-untyped-def]
    """A kernel: cached, releasing the GIL, NumPy's error model."""
    return vector_njit(cache=True, nogil=True, error_model="numpy")(fn)


@nb.njit(cache=True, nogil=True, inline="always")
def _popcount(v: np.uint64) -> np.int64:
    v = v - ((v >> np.uint64(1)) & np.uint64(0x5555555555555555))
    v = (v & np.uint64(0x3333333333333333)) + ((v >> np.uint64(2)) & np.uint64(0x3333333333333333))
    v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((v * np.uint64(0x0101010101010101)) >> np.uint64(56))


@_compiled
def local_codes(strings, words, bits):
    n, w = strings.shape[0], strings.shape[1] // 2
    codes = np.zeros(n, dtype=np.int64)
    one = np.uint64(1)
    for r in range(n):
        code = 0
        for i in range(len(words)):
            b = np.uint64(bits[i])
            x = np.int64((strings[r, words[i]] >> b) & one)
            z = np.int64((strings[r, w + words[i]] >> b) & one)
            code |= (x | (z << 1)) << (2 * i)
        codes[r] = code
    return codes


@_compiled
def apply_table(strings, coefficients, codes, words, bits, start, image_codes, image_values):
    n, cols = strings.shape
    w = cols // 2
    total = 0
    for r in range(n):
        total += start[codes[r] + 1] - start[codes[r]]
    out = np.empty((total, cols), dtype=np.uint64)
    out_c = np.empty(total, dtype=np.float64)
    one = np.uint64(1)
    m = 0
    for r in range(n):
        c = codes[r]
        for e in range(start[c], start[c + 1]):
            for j in range(cols):
                out[m, j] = strings[r, j]
            new = image_codes[e]
            for i in range(len(words)):
                b = np.uint64(bits[i])
                keep = ~(one << b)
                x = np.uint64(new >> (2 * i) & 1)
                z = np.uint64(new >> (2 * i + 1) & 1)
                out[m, words[i]] = (out[m, words[i]] & keep) | (x << b)
                out[m, w + words[i]] = (out[m, w + words[i]] & keep) | (z << b)
            out_c[m] = coefficients[r] * image_values[e]
            m += 1
    return out, out_c


@nb.njit(cache=True, nogil=True, inline="always")
def _hash(strings, r):
    h = np.uint64(0x9E3779B97F4A7C15)
    for j in range(strings.shape[1]):
        h ^= (
            strings[r, j]
            + np.uint64(0x9E3779B97F4A7C15)
            + (h << np.uint64(6))
            + (h >> np.uint64(2))
        )
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    return h


@_compiled
def merge(strings, coefficients):
    n, cols = strings.shape
    size = 1
    while size < 2 * n:
        size *= 2
    mask = np.uint64(size - 1)
    table = np.full(size, -1, dtype=np.int64)
    out = np.empty((n, cols), dtype=np.uint64)
    out_c = np.empty(n, dtype=np.float64)
    m = 0
    for r in range(n):
        slot = _hash(strings, r) & mask
        while True:
            t = table[slot]
            if t < 0:
                table[slot] = m
                for j in range(cols):
                    out[m, j] = strings[r, j]
                out_c[m] = coefficients[r]
                m += 1
                break
            same = True
            for j in range(cols):
                if out[t, j] != strings[r, j]:
                    same = False
                    break
            if same:
                out_c[t] += coefficients[r]
                break
            slot = (slot + np.uint64(1)) & mask
    return out[:m], out_c[:m]


@_compiled
def truncate(strings, coefficients, min_abs, max_weight):
    n, cols = strings.shape
    w = cols // 2
    keep = np.empty(n, dtype=np.bool_)
    dropped = 0.0
    count = 0
    for r in range(n):
        c = coefficients[r]
        ok = c != 0.0 and abs(c) >= min_abs
        if ok and max_weight >= 0:
            weight = 0
            for j in range(w):
                weight += _popcount(strings[r, j] | strings[r, w + j])
            ok = weight <= max_weight
        keep[r] = ok
        if not ok:
            dropped += abs(c)
            count += 1
    out = np.empty((n - count, cols), dtype=np.uint64)
    out_c = np.empty(n - count, dtype=np.float64)
    m = 0
    for r in range(n):
        if keep[r]:
            for j in range(cols):
                out[m, j] = strings[r, j]
            out_c[m] = coefficients[r]
            m += 1
    return out, out_c, dropped, count


@_compiled
def diagonal_value(strings, coefficients, bits):
    n, cols = strings.shape
    w = cols // 2
    total = 0.0
    for r in range(n):
        diagonal = True
        for j in range(w):
            if strings[r, j] != 0:
                diagonal = False
                break
        if not diagonal:
            continue
        parity = 0
        for j in range(w):
            parity += _popcount(strings[r, w + j] & bits[j])
        total += -coefficients[r] if parity & 1 else coefficients[r]
    return total
