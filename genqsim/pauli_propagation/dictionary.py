"""One propagation step on a dictionary ``{(x, z): coefficient}`` of strings, in any
number system (or in the cos/sin polynomials of trig runs)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..numbers import Number, NumberSystem
from .strings import local_code, local_masks, product
from .transfer import Transfer

Terms = dict[tuple[int, int], Number]


def dictionary_step(
    terms: Terms,
    transfer: Transfer,
    ns: NumberSystem,
    column: Callable[[int], Any] | None = None,
    mul: Callable[[Any, Any], Any] | None = None,
    one: Any = None,
    cos_sin: tuple[Any, Any] | None = None,
) -> Terms:
    """One operation on a dictionary of strings: each string touching the operation's
    qubits becomes its column's strings (coefficients multiplied by ``mul``), equal strings
    are summed and exact zeros dropped. ``column``, ``mul`` and ``one`` default to the
    transfer's own columns in ``ns``; the cos/sin polynomials of trig runs give their own,
    and for a rotation its ``cos_sin`` (default: the transfer's), which a rotation step
    uses on whole masks instead of local codes."""
    mul = mul or _times
    if transfer.rotation is not None:
        cos, sin = cos_sin or transfer.cos_sin  # type: ignore[misc]
        return _merged(_rotated(terms, transfer, cos, sin, mul), mul is _times, ns)
    qubits = transfer.qubits
    support = sum(1 << q for q in qubits)
    column = column or transfer.column
    one = ns.one if one is None else one
    unital = transfer.unital

    def images() -> Iterable[tuple[tuple[int, int], Number]]:
        for (x, z), c in terms.items():
            if unital and not (x | z) & support:
                yield (x, z), c
                continue
            bx, bz = x & ~support, z & ~support
            for code, coef in column(local_code(x, z, qubits)):
                lx, lz = local_masks(code, qubits)
                yield (bx | lx, bz | lz), c if coef is one else mul(c, coef)

    return _merged(images(), mul is _times, ns)


def _times(a: Any, b: Any) -> Any:
    return a * b


def _rotated(
    terms: Terms, transfer: Transfer, cos: Any, sin: Any, mul: Callable[[Any, Any], Any]
) -> Iterable[tuple[tuple[int, int], Number]]:
    """``Q -> cos Q + sin (i P Q)`` for the strings anticommuting with the generator
    ``P``; the others pass unchanged."""
    gx, gz = local_masks(transfer.rotation[0], transfer.qubits)  # type: ignore[index]
    minus_sin = -sin
    for (x, z), c in terms.items():
        if not ((x & gz).bit_count() + (z & gx).bit_count()) & 1:
            yield (x, z), c
            continue
        nx, nz, phase = product(gx, gz, x, z)  # P Q = i**phase R with phase odd
        yield (x, z), mul(c, cos)
        yield (nx, nz), mul(c, sin if phase == 3 else minus_sin)


def _merged(
    images: Iterable[tuple[tuple[int, int], Number]], in_ns: bool, ns: NumberSystem
) -> Terms:
    """The images with equal strings summed and exact zeros among the sums dropped
    (``in_ns``: coefficients are numbers of ``ns``, else polynomials compared with 0)."""
    out: Terms = {}
    merged: set[tuple[int, int]] = set()
    for key, value in images:
        if key in out:
            out[key] = out[key] + value
            merged.add(key)
        else:
            out[key] = value
    for key in merged:
        if ns.is_zero(out[key]) if in_ns else out[key] == 0:
            del out[key]
    return out


def basis_value(terms: Terms, bits: int, zero: Any) -> Any:
    """``<b| sum c P |b>`` on the basis state ``bits``: the strings without ``X`` or ``Y``,
    each signed by ``(-1)**|z & b|``."""
    total = zero
    for (x, z), c in terms.items():
        if not x:
            total = total - c if (z & bits).bit_count() & 1 else total + c
    return total
