"""One propagation step on a dictionary ``{(x, z): coefficient}`` of strings, in any
number system (or in the cos/sin polynomials of trig runs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..numbers import Number, NumberSystem
from .strings import local_code, local_masks
from .transfer import Transfer


def dictionary_step(
    terms: dict[tuple[int, int], Number],
    transfer: Transfer,
    ns: NumberSystem,
    column: Callable[[int], Any] | None = None,
    mul: Callable[[Any, Any], Any] | None = None,
    one: Any = None,
) -> dict[tuple[int, int], Number]:
    """One operation on a dictionary of strings: each string touching the operation's
    qubits becomes its column's strings (coefficients multiplied by ``mul``), equal strings
    are summed and exact zeros dropped. ``column``, ``mul`` and ``one`` default to the
    transfer's own columns in ``ns``; the cos/sin polynomials of trig runs give their own."""
    qubits = transfer.qubits
    support = sum(1 << q for q in qubits)
    column = column or transfer.column
    one = ns.one if one is None else one
    out: dict[tuple[int, int], Number] = {}
    merged: set[tuple[int, int]] = set()
    unital = transfer.unital
    for (x, z), c in terms.items():
        if unital and not (x | z) & support:
            images: Any = (((x, z), None),)
        else:
            bx, bz = x & ~support, z & ~support
            images = []
            for code, coef in column(local_code(x, z, qubits)):
                lx, lz = local_masks(code, qubits)
                images.append(((bx | lx, bz | lz), coef))
        for key, coef in images:
            if coef is None or coef is one:
                value = c
            else:
                value = c * coef if mul is None else mul(c, coef)
            if key in out:
                out[key] = out[key] + value
                merged.add(key)
            else:
                out[key] = value
    for key in merged:
        if out[key] == 0 if mul is not None else ns.is_zero(out[key]):
            del out[key]
    return out
