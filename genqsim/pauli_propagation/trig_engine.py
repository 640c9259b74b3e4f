"""Exact propagation for ``numbers="trig"`` on cos/sin polynomials.

A trig number expands every product of ``m`` cosines and sines into ``2**m`` Laurent terms;
Pauli propagation multiplies one such factor per rotation a string passes, so coefficients
are kept instead as polynomials in ``cos`` and ``sin`` of the parameters
(:class:`~genqsim.numbers.trig.cossin.CosSinRing`) and turned into trig numbers once, at the
end. Circuits this form does not hold (rotation angles with pi/8, transfer entries that are
not rational: a ``u`` gate with symbolic angles) run on trig numbers directly.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from ..linalg.pauli import PauliSum
from ..numbers import NumberSystem
from ..numbers.trig.angles import Angle
from ..numbers.trig.cossin import CosSinRing
from ..numbers.trig.laurent import rational_value
from ..numbers.trig.system import TrigNumbers
from ..support.progress import ProgressBar
from .dictionary import basis_value, dictionary_step
from .result import HeisenbergResult
from .strings import masks_of
from .transfer import Transfer


class _NotPolynomial(Exception):
    """A transfer entry the cos/sin form does not hold."""


def is_trig(ns: NumberSystem) -> bool:
    return isinstance(ns, TrigNumbers)


def trig_run(
    obs: PauliSum,
    transfers: Sequence[Transfer],
    n_qubits: int,
    bits: int,
    ns: NumberSystem,
    bar: ProgressBar | None,
) -> HeisenbergResult | None:
    """The propagation on cos/sin polynomials, or ``None`` where they do not apply."""
    angles: dict[int, Angle] = {}
    multiples: dict[Any, list[Fraction]] = defaultdict(list)
    for i, t in enumerate(transfers):
        if t.rotation is not None:
            angle = t.rotation[1]
            if not isinstance(angle, Angle):
                return None
            angles[i] = angle
            for generator, a in angle.terms:
                multiples[generator].append(a)
    ring = CosSinRing(ns, multiples)  # type: ignore[arg-type]
    if any((2 * u).denominator != 1 for u in ring.units.values()):
        return None
    try:
        columns = [_columns(t, ring) for t in transfers]
        pairs = [_cos_sin(angles.get(i), ring) for i in range(len(transfers))]
        terms: dict[tuple[int, int], Any] = {}
        for c, pauli in obs.terms:
            q = rational_value(c)
            if q is None:
                return None
            terms[masks_of(pauli)] = ring.rational(q)
        peak = len(terms)
        for done, i in enumerate(range(len(transfers) - 1, -1, -1)):
            terms = dictionary_step(
                terms, transfers[i], ns, columns[i], ring.mul, ring.one, pairs[i]
            )
            peak = max(peak, len(terms))
            if bar is not None:
                bar.update(done + 1)
    except _NotPolynomial:
        return None
    if bar is not None:
        bar.close()
    total = basis_value(terms, bits, ring.zero)
    snapshot = list(terms.items())
    result = HeisenbergResult(
        ring.to_trig(total),
        None,
        0,
        peak,
        n_qubits,
        lambda: [(ring.to_trig(c), x, z) for (x, z), c in snapshot],
        ns,
    )
    result.closed_form = ring.to_sympy(total)
    return result


def _cos_sin(angle: Angle | None, ring: CosSinRing) -> tuple[Any, Any] | None:
    """A rotation's cos and sin as polynomials (``None`` for other operations)."""
    if angle is None:
        return None
    pair = ring.cos_sin(angle)
    if pair is None:
        raise _NotPolynomial
    return pair


def _columns(transfer: Transfer, ring: CosSinRing) -> Any:
    """The columns of a transfer other than a rotation, with rational entries as cos/sin
    polynomials, made on first use."""
    made: dict[int, list[tuple[int, Any]]] = {0: [(0, ring.one)]}

    def column(code: int) -> list[tuple[int, Any]]:
        found = made.get(code)
        if found is None:
            found = []
            for image, coefficient in transfer.column(code):
                q = rational_value(coefficient)
                if q is None:
                    raise _NotPolynomial
                found.append((image, ring.rational(q)))
            made[code] = found
        return found

    return column
