"""Exchanges (X, CX, SWAP and their controlled forms) with one fixed qubit among the four
lowest, in straight chunks of 16 amplitudes on the interleaved floats of a complex state.

An exchange swaps the amplitudes at ``base + a`` and ``base + b``. Where its lowest fixed
qubit is 0 to 3, the amplitudes it moves come in runs of 1 to 8 (X on qubit 2: four
amplitudes, then four of its partners); a loop over such short runs is left scalar by the
compiler. Here a chunk of 16 consecutive amplitudes is exchanged in straight code, every
load first and then every store, which LLVM's SLP vectoriser packs into full-width moves
(:mod:`backends.numba_slp`). A 20-qubit complex128 state, one thread: X on qubit 2 1.3 ->
0.8-1.0 ms, CX with control 0 and target 18 1.1-1.2 -> 0.5-0.65 ms; at 26 qubits 88-95 ->
63-66 ms and 204-208 -> 63-66 ms.

A chunk loop is named by the low fixed qubit ``q`` and the bits ``a`` and ``b`` that the
two sides of the exchange have there: in each chunk of ``x`` the amplitudes ``j`` with bit
``q`` equal to ``a`` trade places with the amplitudes ``j ^ ((a ^ b) << q)`` of the chunk
of ``y`` at the same place. ``x`` and ``y`` are the same series when both sides lie in one
chunk (X on qubit 2; ``a != b`` there), different series otherwise (CX with control 0 and a
high target: ``a == b == 1``). ``variant = 4 q + 2 a + b`` picks the loop.

Numba's on-disk cache stamps a compiled kernel with its own file only: after editing this
module, touch ``numba_kernels.py`` (or clear ``__pycache__``) so the kernels that call
these loops are compiled again.
"""

from __future__ import annotations

from typing import Any

import numba as nb

from .numba_slp import slp_njit

CHUNK = 16
"""Amplitudes per straight chunk: the four lowest qubits."""

LOW_QUBITS = 4
"""Exchanges whose lowest fixed qubit is below this (and whose other fixed qubits are not)
run in chunks."""

FLOATS = 2
"""Floats per amplitude: the chunks serve complex states (real states keep the run loop)."""


def _chunk_loop_source(qubit: int, a: int, b: int) -> str:
    """Python source of ``swap_chunks_<variant>(x, y)``: see the module's docstring."""
    flip = (a ^ b) << qubit
    moved = [j for j in range(CHUNK) if (j >> qubit) & 1 == a]
    floats = [(FLOATS * j + r, FLOATS * (j ^ flip) + r) for j in moved for r in range(FLOATS)]
    size = CHUNK * FLOATS
    lines = [
        f"def swap_chunks_{4 * qubit + 2 * a + b}(x, y):",
        f"    for c in range(x.size // {size}):",
        f"        o = c * {size}",
    ]
    lines += [f"        x{u} = x[o + {u}]" for u, _ in floats]
    lines += [f"        y{v} = y[o + {v}]" for _, v in floats]
    lines += [f"        x[o + {u}] = y{v}" for u, v in floats]
    lines += [f"        y[o + {v}] = x{u}" for u, v in floats]
    return "\n".join(lines) + "\n"


def _chunk_loop(qubit: int, a: int, b: int, cache: bool = True) -> Any:
    """:func:`_chunk_loop_source` compiled with the SLP vectoriser (its code object names
    this file, so Numba caches it here; ``cache=False`` to read its assembly)."""
    namespace: dict[str, Any] = {"__name__": __name__}
    exec(compile(_chunk_loop_source(qubit, a, b), __file__, "exec"), namespace)
    return slp_njit(namespace[f"swap_chunks_{4 * qubit + 2 * a + b}"], cache)


VARIANTS = tuple((q, a, b) for q in range(LOW_QUBITS) for a in (0, 1) for b in (0, 1))
"""``(q, a, b)`` of each variant, in variant order."""

_LOOPS = tuple(_chunk_loop(q, a, b) for q, a, b in VARIANTS)


def _dispatch_source() -> str:
    """``swap_chunks(x, y, variant)``: one branch per variant, calling its loop."""
    lines = ["def swap_chunks(x, y, variant):"]
    for v in range(len(VARIANTS)):
        lines.append(f"    {'if' if v == 0 else 'elif'} variant == {v}:")
        lines.append(f"        _loop_{v}(x, y)")
    return "\n".join(lines) + "\n"


def _dispatcher() -> Any:
    namespace: dict[str, Any] = {"__name__": __name__}
    namespace.update({f"_loop_{v}": loop for v, loop in enumerate(_LOOPS)})
    exec(compile(_dispatch_source(), __file__, "exec"), namespace)
    return nb.njit(cache=True, nogil=True)(namespace["swap_chunks"])


swap_chunks = _dispatcher()
"""``swap_chunks(x, y, variant)``: exchange the chunks of two series of interleaved floats
(the same series where both sides lie in one chunk) as ``variant`` says."""
