"""Pauli strings as bit masks, for the Heisenberg picture.

A Hermitian Pauli string on any number of qubits is a pair of integers ``(x, z)``: qubit
``q`` holds ``I`` (neither bit), ``X`` (bit ``q`` of ``x``), ``Z`` (bit ``q`` of ``z``) or
``Y`` (both). Python integers have no width, so one representation serves 5 qubits and 500.
A string restricted to the ``k`` qubits of an operation is a *local code* in ``0 .. 4**k-1``:
two bits per qubit, ``x`` low and ``z`` high (``I=0, X=1, Z=2, Y=3``), the operation's first
qubit lowest (its matrices are indexed the same way).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ..linalg.pauli import PauliString, pauli_masks

LETTER_OF_CODE = "IXZY"
"""The one-qubit Pauli named by each two-bit code (``x`` the low bit, ``z`` the high bit)."""


def masks_of(pauli: PauliString) -> tuple[int, int]:
    """``(x, z)`` of a :class:`~genqsim.PauliSum` term's ``((qubit, letter), ...)``."""
    x, z, _ = pauli_masks(pauli)
    return x, z


def string_of(x: int, z: int) -> PauliString:
    """The ``((qubit, letter), ...)`` form of ``(x, z)`` (sorted by qubit)."""
    out = []
    support, q = x | z, 0
    while support:
        if support & 1:
            out.append((q, LETTER_OF_CODE[(x >> q & 1) | (z >> q & 1) << 1]))
        support >>= 1
        q += 1
    return tuple(out)


def product(x1: int, z1: int, x2: int, z2: int) -> tuple[int, int, int]:
    """``(x, z, k)`` with ``P1 P2 = i**k P`` for Hermitian strings (``k`` mod 4).

    Each Hermitian string is ``i**|x&z| X^x Z^z``; moving ``Z^z1`` past ``X^x2`` gives
    ``(-1)**|z1&x2|``, and the product's own ``i**|x&z|`` is divided out.
    """
    x, z = x1 ^ x2, z1 ^ z2
    k = (x1 & z1).bit_count() + (x2 & z2).bit_count() + 2 * (z1 & x2).bit_count()
    return x, z, (k - (x & z).bit_count()) % 4


def anticommute(x1: int, z1: int, x2: int, z2: int) -> bool:
    """Whether two strings anticommute (an odd symplectic product)."""
    return bool(((x1 & z2).bit_count() + (z1 & x2).bit_count()) & 1)


def rotation_image(generator: int, code: int, k: int) -> tuple[int, int] | None:
    """For a rotation ``exp(-i theta P/2)`` with ``P`` the local string ``generator``: where
    an anticommuting string ``Q`` (local ``code``) sends its sine part, ``(code of R, sign)``
    with ``i P Q = sign R``; ``None`` where ``Q`` commutes with ``P`` (it is kept)."""
    gx, gz = code_string(generator, k)
    qx, qz = code_string(code, k)
    if not anticommute(gx, gz, qx, qz):
        return None
    x, z, phase = product(gx, gz, qx, qz)  # P Q = i**phase R, phase odd
    return local_code(x, z, range(k)), 1 if (phase + 1) % 4 == 0 else -1


def local_code(x: int, z: int, qubits: Sequence[int]) -> int:
    """The local code of ``(x, z)`` on ``qubits`` (``qubits[0]`` the lowest two bits)."""
    code = 0
    for i, q in enumerate(qubits):
        code |= ((x >> q & 1) | (z >> q & 1) << 1) << (2 * i)
    return code


def local_masks(code: int, qubits: Sequence[int]) -> tuple[int, int]:
    """The ``(x, z)`` masks of a local code placed on ``qubits``."""
    x = z = 0
    for i, q in enumerate(qubits):
        c = code >> (2 * i) & 3
        x |= (c & 1) << q
        z |= (c >> 1) << q
    return x, z


def code_string(code: int, k: int) -> tuple[int, int]:
    """``(x, z)`` of a local code on qubits ``0 .. k-1``."""
    return local_masks(code, range(k))


@lru_cache(maxsize=64)
def signed_permutation(code: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``P|j> = phase[j] |perm[j]>`` for the Hermitian string of ``code`` on ``k`` qubits
    (phases are powers of ``i`` as exponents mod 4)."""
    x, z = code_string(code, k)
    j = np.arange(1 << k)
    n_y = (x & z).bit_count()
    # Y = i X Z: the phase is i**n_y (-1)**popcount(z & j), then X flips the bits of x
    parity = np.array([(z & int(v)).bit_count() & 1 for v in j])
    return j ^ x, (n_y + 2 * parity) % 4
