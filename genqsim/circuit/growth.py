"""How large exact amplitudes may grow: the estimate that steers exact runs away from
expression explosions.

An amplitude of an exact trig run is a Laurent polynomial in ``z_k = exp(i*theta_k/2)``,
one variable per parameter. Each gate that uses ``theta_k`` multiplies by terms of degree
``-1 .. 1`` in ``z_k``, so after ``m_k`` such gates the degrees run over ``m_k + 1`` values,
and distinct parameters multiply: up to ``prod_k (m_k + 1)`` terms per amplitude. A
hardware-efficient ansatz with one angle per gate reaches ``2**angles``; a deep circuit
reusing two angles stays polynomial in its depth. In the Heisenberg picture the same
coefficients are polynomials in ``cos`` and ``sin`` of each angle, where a product of
distinct angles is one term, not ``2**m``.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter

from ..errors import ExpressionGrowthWarning
from ..numbers import NumberSystem
from .circuit import Circuit

TRIG_STATE_LOG2_TERMS = 12
"""Above ``2**12`` estimated terms per amplitude, ``method="auto"`` evaluates an exact
expectation value in the Heisenberg picture instead of on a trig state vector (measured:
4-qubit, 16-angle ansatz 6 s against 0.13 s; a 3-qubit circuit of 60 rotations on two
angles, ``~2**10`` terms, 0.7 s against 1.8 s)."""

TRIG_STATE_WARN_LOG2_TERMS = 16
"""Above ``2**16`` estimated terms per amplitude a trig state vector run warns
(:class:`~genqsim.errors.ExpressionGrowthWarning`): 20 s at that size, memory beyond."""

EXACT_TERM_COST = 100
"""Machine-number amplitude updates one Laurent term update costs, roughly: what a
progress bar counts as the work of an exact run, against the same threshold as a numeric one."""


def laurent_terms_log2(circuit: Circuit) -> float:
    """``log2`` of the estimated terms per amplitude of an exact trig run of ``circuit``
    (see the module docs): ``sum_k log2(m_k + 1)`` over its parameters."""
    uses: Counter = Counter()
    for op in circuit.operations:
        uses.update(op.gate.free_symbols)
    return sum(math.log2(m + 1) for m in uses.values())


def trig_growth_log2(circuit: Circuit, numbers: NumberSystem) -> float:
    """:func:`laurent_terms_log2` for trig numbers; 0 for every other number system (their
    expressions are not expanded Laurent polynomials, or they are not expressions)."""
    if not numbers.symbolic:
        return 0.0  # and no SymPy import for a numeric run
    from ..numbers.trig.system import TrigNumbers

    return laurent_terms_log2(circuit) if isinstance(numbers, TrigNumbers) else 0.0


def warn_if_explosive(circuit: Circuit, numbers: NumberSystem, growth: float) -> None:
    """Warn (:class:`~genqsim.errors.ExpressionGrowthWarning`) before a trig state run whose
    amplitudes are expected to pass ``2**TRIG_STATE_WARN_LOG2_TERMS`` terms."""
    if growth < TRIG_STATE_WARN_LOG2_TERMS:
        return
    warnings.warn(
        ExpressionGrowthWarning(
            f"the amplitudes of this {numbers.name} run may reach about 2**{growth:.0f} terms "
            f"each ({len(circuit.parameters)} parameters, each a factor of its uses + 1): it "
            "may take minutes and run out of memory. For expectation values the Heisenberg "
            f"picture keeps them small: gq.expectation(circuit, observable, numbers="
            f"{numbers.name!r}) takes it by itself, or gq.heisenberg(...); progress=True "
            "shows how far a state run has come"
        ),
        stacklevel=4,
    )
