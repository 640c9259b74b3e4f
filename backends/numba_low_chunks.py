"""Exchanges (X, CX, SWAP and their controlled forms) and single phases (T, S, Z, P, CZ, CP)
with one fixed qubit among the four lowest, in straight chunks of 16 amplitudes on the
interleaved floats of a complex state; and, in the same chunks, complex products the loop
vectoriser leaves scalar: a series times one factor, and a series times a repeating pattern
of factors (diagonal gates).

Where a gate's lowest fixed qubit is 0 to 3, the amplitudes it moves or scales come in runs
of 1 to 8 (X on qubit 2: four amplitudes, then four of its partners); a loop over such
short runs is left scalar by the compiler. Here a chunk of 16 consecutive amplitudes is
done in straight code, every load first and then every store, which LLVM's SLP vectoriser
packs into full-width moves and multiply-adds (:mod:`backends.numba_slp`). A complex128
state, one thread, before -> after: X on qubit 2 of 20 qubits 1.2-1.4 -> 0.6-1.1 ms, of 26
85-87 -> 55-74 ms; CX with control 0 and target 24 of 26 204-221 -> 61-70 ms; T on qubit 2
of 20 1.3 -> 0.4 ms, of 26 69 -> 53 ms.

The gate's other fixed qubits (4 and above) pick the stretches of whole chunks it touches
(:func:`~backends.numba_diagonal_permutation._low_chunk_walk`). In a chunk, the low fixed
qubit ``q`` and the bit that a side of the gate has there say which amplitudes take part:

* an exchange of side ``a`` with side ``b`` (bits ``a`` and ``b`` at ``q``): the
  amplitudes ``j`` of a chunk of ``x`` with bit ``q`` equal to ``a`` trade places with the
  amplitudes ``j ^ ((a ^ b) << q)`` of the chunk of ``y`` at the same place. ``x`` and ``y``
  are the same series where both sides lie in one chunk (X on qubit 2; ``a != b`` there),
  different series otherwise (CX with control 0 and a high target: ``a == b == 1``).
  ``variant = 4 q + 2 a + b``.
* a phase on side ``a``: the amplitudes with bit ``q`` equal to ``a`` are multiplied by it.
  ``variant = 2 q + a``.

Kernels are kept on disk stamped with every kernel module's source
(:mod:`backends.numba_cache`), so an edit here compiles the kernels that call these loops
again.
"""

from __future__ import annotations

from typing import Any

from . import numba_cache  # noqa: F401  (first: where Numba keeps this module's kernels)
from .numba_slp import vector_njit
from .numba_straight import compiled_loop

CHUNK = 16
"""Amplitudes per straight chunk: the four lowest qubits."""

LOW_QUBITS = 4
"""Gates whose lowest fixed qubit is below this (and whose other fixed qubits are not) run
in chunks."""

FLOATS = 2
"""Floats per amplitude: the chunks serve complex states (real states keep their loops)."""

SWAP_VARIANTS = tuple((q, a, b) for q in range(LOW_QUBITS) for a in (0, 1) for b in (0, 1))
"""``(q, a, b)`` of each exchange variant, in variant order."""

PHASE_VARIANTS = tuple((q, a) for q in range(LOW_QUBITS) for a in (0, 1))
"""``(q, a)`` of each phase variant, in variant order."""


def _side(qubit: int, bit: int) -> list[int]:
    """The amplitudes of a chunk whose bit ``qubit`` is ``bit``."""
    return [j for j in range(CHUNK) if (j >> qubit) & 1 == bit]


def _swap_loop_source(qubit: int, a: int, b: int) -> str:
    """Python source of ``swap_chunks_<variant>(x, y)``: see the module's docstring."""
    flip = (a ^ b) << qubit
    floats = [(FLOATS * j + r, FLOATS * (j ^ flip) + r) for j in _side(qubit, a) for r in (0, 1)]
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


def _product_loop_source(name: str, amplitudes: list[int], pattern: bool) -> str:
    """Python source of ``name(x, ...)``: the ``amplitudes`` of every chunk of the
    interleaved floats ``x`` times a complex factor: ``pr + i pi`` (arguments ``x, pr, pi``),
    or, with ``pattern`` (arguments ``x, p``), the factor at the same place of the repeating
    pattern ``p`` (interleaved floats too, a power of two of them, at least a chunk's), every
    load before every store so that the pattern's loads need not wait on the state's
    stores."""
    size = CHUNK * FLOATS
    lines = (
        [f"def {name}(x, p):", "    mask = p.size - 1"] if pattern else [f"def {name}(x, pr, pi):"]
    )
    lines += [f"    for c in range(x.size // {size}):", f"        o = c * {size}"]
    if pattern:
        lines.append("        q = o & mask")
    for j in amplitudes:
        re, im = FLOATS * j, FLOATS * j + 1
        lines += [f"        r{j} = x[o + {re}]", f"        i{j} = x[o + {im}]"]
        if pattern:
            lines += [f"        a{j} = p[q + {re}]", f"        b{j} = p[q + {im}]"]
    for j in amplitudes:
        re, im = FLOATS * j, FLOATS * j + 1
        a, b = (f"a{j}", f"b{j}") if pattern else ("pr", "pi")
        lines += [
            f"        x[o + {re}] = {a} * r{j} - {b} * i{j}",
            f"        x[o + {im}] = {a} * i{j} + {b} * r{j}",
        ]
    return "\n".join(lines) + "\n"


def _compiled(source: str, name: str, cache: bool = True) -> Any:
    """:func:`~backends.numba_straight.compiled_loop` for a loop this module generated."""
    return compiled_loop(source, name, __name__, __file__, cache)


def swap_loop(qubit: int, a: int, b: int, cache: bool = True) -> Any:
    """The compiled exchange loop of one variant."""
    source = _swap_loop_source(qubit, a, b)
    return _compiled(source, f"swap_chunks_{4 * qubit + 2 * a + b}", cache)


def phase_loop(qubit: int, a: int, cache: bool = True) -> Any:
    """The compiled phase loop of one variant: side ``a`` of qubit ``qubit`` times
    ``pr + i pi``."""
    name = f"phase_chunks_{2 * qubit + a}"
    return _compiled(_product_loop_source(name, _side(qubit, a), False), name, cache)


def product_loop(pattern: bool, cache: bool = True) -> Any:
    """The compiled loop that multiplies every amplitude of a series of whole chunks by one
    factor (``scale_chunks(x, pr, pi)``) or, with ``pattern``, by a repeating pattern
    (``pattern_chunks(x, p)``)."""
    name = "pattern_chunks" if pattern else "scale_chunks"
    return _compiled(_product_loop_source(name, list(range(CHUNK)), pattern), name, cache)


REAL_PAIRS = ((1, 2), (4, 8))
"""``(lower, higher)`` amplitude bits of the pairs of real one-qubit gates on the lowest
qubits that one sweep applies together (qubits 0 and 1, qubits 2 and 3): in a 1 MiB row,
one thread, 0.39 and 0.20 ns per amplitude and gate, against 0.4-0.6 one gate a sweep.
Qubits 1 and 2, or pairs further apart, were no faster together (0.42-0.65). Written out
with direct indexing rather than as :func:`~backends.numba_block_runs._mix22_quads` (which the
longer pairs use): over slices of 2 and 8 floats the SLP vectoriser packed that loop into
128-bit registers only, 0.87 and 0.83 ns against 0.52 and 0.27 here (same session)."""


def _real_pair_loop_source(low: int, high: int) -> str:
    """Python source of ``real_pairs_<low>_<high>(f, a0, a1, a2, a3, b0, b1, b2, b3)``: the
    real 2x2 matrix ``(a0, a1; a2, a3)`` on the pairs ``low`` amplitudes apart and
    ``(b0, b1; b2, b3)`` on those ``high`` apart, of the interleaved floats ``f`` of a complex
    row, lane by lane (real and imaginary parts alike), every quad in one loop."""
    run, far = FLOATS * low, FLOATS * high
    lines = [
        f"def real_pairs_{low}_{high}(f, a0, a1, a2, a3, b0, b1, b2, b3):",
        f"    for o in range(f.size // {4 * run}):",
        f"        i = o * {run}",
        f"        i = ((i // {run}) * {2 * run}) | (i & {run - 1})",
        f"        i = ((i // {far}) * {2 * far}) | (i & {far - 1})",
        f"        for k in range({run}):",
        "            p = i + k",
        "            x00 = f[p]",
        f"            x01 = f[p + {run}]",
        f"            x10 = f[p + {far}]",
        f"            x11 = f[p + {far + run}]",
        "            y00 = a0 * x00 + a1 * x01",
        "            y01 = a2 * x00 + a3 * x01",
        "            y10 = a0 * x10 + a1 * x11",
        "            y11 = a2 * x10 + a3 * x11",
        "            f[p] = b0 * y00 + b1 * y10",
        f"            f[p + {far}] = b2 * y00 + b3 * y10",
        f"            f[p + {run}] = b0 * y01 + b1 * y11",
        f"            f[p + {far + run}] = b2 * y01 + b3 * y11",
    ]
    return "\n".join(lines) + "\n"


def real_pair_loop(low: int, high: int, cache: bool = True) -> Any:
    """The compiled loop of one pair of :data:`REAL_PAIRS`."""
    return _compiled(_real_pair_loop_source(low, high), f"real_pairs_{low}_{high}", cache)


def _dispatcher(name: str, arguments: str, loops: tuple[Any, ...]) -> Any:
    """``name(arguments, variant)``: one branch per variant, calling its loop."""
    lines = [f"def {name}({arguments}, variant):"]
    for v in range(len(loops)):
        lines += [f"    {'if' if v == 0 else 'elif'} variant == {v}:", f"        _{v}({arguments})"]
    namespace: dict[str, Any] = {"__name__": __name__}
    namespace.update({f"_{v}": loop for v, loop in enumerate(loops)})
    exec(compile("\n".join(lines) + "\n", __file__, "exec"), namespace)
    return vector_njit(cache=True, nogil=True)(namespace[name])


swap_chunks = _dispatcher("swap_chunks", "x, y", tuple(swap_loop(*v) for v in SWAP_VARIANTS))
"""``swap_chunks(x, y, variant)``: exchange the chunks of two series of interleaved floats
(the same series where both sides lie in one chunk) as ``variant`` says."""

phase_chunks = _dispatcher(
    "phase_chunks", "x, pr, pi", tuple(phase_loop(*v) for v in PHASE_VARIANTS)
)
"""``phase_chunks(x, pr, pi, variant)``: one side of every chunk of a series of
interleaved floats times ``pr + i pi``."""

scale_chunks = product_loop(pattern=False)
"""``scale_chunks(x, pr, pi)``: a series of interleaved floats, whole chunks long, times
``pr + i pi`` (a diagonal's factor on a long series, a phase on a high qubit): in a 1 MiB
row, one thread, 0.31-0.45 ns per amplitude against 0.85-0.88 for the loop over amplitudes,
which the loop vectoriser leaves scalar."""

pattern_chunks = product_loop(pattern=True)
"""``pattern_chunks(x, p)``: a series of interleaved floats times the repeating complex
pattern ``p`` (a diagonal on the lowest qubits): 0.47-0.59 ns per amplitude against
1.06-1.14 for the loop in complex arithmetic."""

real_pairs = _dispatcher(
    "real_pairs",
    "f, a0, a1, a2, a3, b0, b1, b2, b3",
    tuple(real_pair_loop(*pair) for pair in REAL_PAIRS),
)
"""``real_pairs(f, a0, .., b3, variant)``: two real gates on the pair ``REAL_PAIRS[variant]``
of the lowest qubits, in one sweep of a complex row's floats."""
