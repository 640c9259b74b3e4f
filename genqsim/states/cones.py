"""Light cones of an expectation's terms: which terms share a backward light cone
(:meth:`~genqsim.circuit.circuit.Circuit.light_cone`), each group's cone as a circuit of its
own and the basis state it starts from, and when cones give the same value as the whole
circuit. The groups of a template are kept on it, so a sweep or an optimiser's loop works
them out once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..circuit.circuit import Circuit
from ..circuit.gates import GateKind
from ..circuit.growth import TRIG_STATE_LOG2_TERMS, trig_growth_log2
from ..errors import ArgumentValueError
from ..linalg.pauli import PauliSum
from ..numbers import NumberSystem, get_number_system
from .registry import (
    AUTO,
    WIDE_EXACT_QUBITS,
    WIDE_METHOD,
    WIDE_QUBITS,
    available_methods,
    method_spec,
    simulate,
)


def has_narrower_cone(circuit: Circuit, observable: str | PauliSum) -> bool:
    """Whether a term of ``observable`` has a light cone narrower than the circuit (else
    one state of the whole circuit serves every observable of a list)."""
    obs = PauliSum.for_state(observable, circuit.n_qubits)
    return any(
        circuit.light_cone(tuple(q for q, _ in pauli) or (0,)).size < circuit.n_qubits
        for _, pauli in obs.terms
    )


def cone_applies(circuit: Circuit, observable: Any, initial: Any, method: str) -> bool:
    """Light cones give the same value: a Pauli sum, a circuit whose operations are gates and
    channels (no collapse, nothing classical), a basis state to start from, a method whose
    values are exact functions of the state."""
    if not isinstance(observable, (str, PauliSum)):
        return False
    if initial is not None and not (
        isinstance(initial, str)
        or (isinstance(initial, (int, np.integer)) and not isinstance(initial, bool))
    ):
        return False
    if method != AUTO and not method_spec(method).light_cone:
        return False
    return circuit.n_qubits > 1 and not circuit.derived(
        "collapses or reads bits",  # kept: asked at every point of an optimiser's loop
        lambda: any(op.kind in NO_CONES for op in circuit.operations),
    )


NO_CONES = (
    GateKind.MEASURE, GateKind.RESET, GateKind.CONDITIONAL, GateKind.LOOP, GateKind.STORE
)  # fmt: skip
"""Operations whose circuits are run whole (a cone would change what they do)."""


@dataclass(frozen=True)
class ConeGroup:
    """Terms of an observable that share a light cone: the cone as a circuit of its own
    (the circuit itself where the cone spans it), the terms on its qubits, and the basis
    state it starts from."""

    circuit: Circuit
    terms: PauliSum
    initial: Any

    @property
    def work(self) -> int:
        """Amplitude updates of one run: gates times amplitudes."""
        return len(self.circuit.operations) << self.circuit.n_qubits


def cone_groups(circuit: Circuit, observable: str | PauliSum, initial: Any) -> list[ConeGroup]:
    """The terms of ``observable`` grouped by light cone (:meth:`Circuit.light_cone`), kept
    on ``circuit`` with the cones' circuits, so a sweep's template makes them once (an
    observable given as a :class:`PauliSum` is kept by identity, and alive with them)."""
    key = observable if isinstance(observable, str) else id(observable)
    kept = circuit.derived(
        ("light cone groups", key, initial),
        lambda: (observable, _grouped(circuit, observable, initial)),
    )
    if kept[0] is observable or isinstance(observable, str):
        return kept[1]
    return _grouped(circuit, observable, initial)


def _grouped(circuit: Circuit, observable: str | PauliSum, initial: Any) -> list[ConeGroup]:
    """:func:`cone_groups`, worked out."""
    obs = PauliSum.for_state(observable, circuit.n_qubits)
    bits = basis_index(initial, circuit.n_qubits)
    grouped: dict[tuple[int, ...], list[tuple[Any, Any]]] = {}
    cones = {}
    for coeff, pauli in obs.terms:
        cone = circuit.light_cone(tuple(q for q, _ in pauli) or (0,))
        cones[cone.qubits] = cone
        grouped.setdefault(cone.qubits, []).append((coeff, pauli))
    groups = []
    for qubits, terms in grouped.items():
        cone = cones[qubits]
        if cone.size == circuit.n_qubits:
            groups.append(ConeGroup(circuit, PauliSum(terms), initial))
            continue
        position = {q: i for i, q in enumerate(qubits)}
        sub = circuit.derived(("light cone circuit", qubits), cone.compact)
        sub_terms = [(c, {position[q]: p for q, p in pauli}) for c, pauli in terms]
        sub_initial = sum((bits >> q & 1) << i for i, q in enumerate(qubits))
        groups.append(ConeGroup(sub, PauliSum(sub_terms), sub_initial))
    return groups


def basis_index(initial: Any, n_qubits: int) -> int:
    """The basis index of ``None``, an index or a bitstring (checked by the full run's rules
    when they are wrong: the state of the whole circuit reports them)."""
    if initial is None:
        return 0
    if isinstance(initial, str):
        from .base import check_qubit_count

        check_qubit_count("initial bitstring", len(initial), n_qubits)
        if set(initial) - {"0", "1"}:
            raise ArgumentValueError(f"initial bitstring must hold 0 and 1 only, got {initial!r}")
        return int(initial, 2)
    if not 0 <= int(initial) < 1 << n_qubits:
        raise ArgumentValueError(f"initial basis index {initial} is outside 0..2**{n_qubits}-1")
    return int(initial)


CONE_GROUP_WORK = 1 << 16
"""A light cone group's own cost in a sweep, as amplitude updates (planning its sweep,
calling the kernels, reading its terms: some tens of microseconds), weighed against the
amplitude updates the cones save over one sweep of the whole circuit."""


def narrower_groups(
    circuit: Circuit, observable: Any, options: Mapping[str, Any]
) -> list[list[ConeGroup]] | None:
    """Each observable's light cone groups, where light cones apply to all of them and one
    is narrower than the circuit; ``None`` otherwise."""
    initial, method = options.get("initial"), options.get("method", AUTO)
    listed = list(observable) if isinstance(observable, (list, tuple)) else [observable]
    if not all(cone_applies(circuit, o, initial, method) for o in listed):
        return None
    groups = [cone_groups(circuit, o, initial) for o in listed]
    if all(g.circuit is circuit for gs in groups for g in gs):
        return None  # no narrower cone: one sweep of the whole circuit
    return groups


def cones_cost_less(circuit: Circuit, groups: list[list[ConeGroup]], points: int) -> bool:
    """Whether sweeping ``points`` points on the light cone groups updates fewer amplitudes
    than on the whole circuit, with :data:`CONE_GROUP_WORK` for each group's own cost."""
    whole = points * (len(circuit.operations) << circuit.n_qubits)
    return sum(points * g.work + CONE_GROUP_WORK for gs in groups for g in gs) < whole


def numbers_of(options: Mapping[str, Any]) -> NumberSystem | None:
    """The number system named in ``options`` (``None``: the default)."""
    numbers = options.get("numbers")
    return None if numbers is None else get_number_system(numbers)


def cone_method(method: str, circuit: Circuit, numbers: NumberSystem | None) -> str:
    """``method``, or :data:`WIDE_METHOD` where ``"auto"`` meets a cone too wide for a
    state (machine numbers) or for exact expressions (symbolic numbers), or trig numbers
    whose amplitudes would pass :data:`~genqsim.circuit.growth.TRIG_STATE_LOG2_TERMS`."""
    if method != AUTO or WIDE_METHOD not in available_methods():
        return method
    limit = WIDE_EXACT_QUBITS if numbers is not None and numbers.symbolic else WIDE_QUBITS
    if circuit.n_qubits > limit:
        return WIDE_METHOD
    if numbers is not None and trig_growth_log2(circuit, numbers) > TRIG_STATE_LOG2_TERMS:
        return WIDE_METHOD  # exact amplitudes would explode; Pauli coefficients stay small
    return method


def group_value(group: ConeGroup, options: Mapping[str, Any]) -> Any:
    """``<terms>`` of ``group``, run once on its cone's circuit from its own start, with
    :func:`genqsim.expectation`'s ``options`` (``numbers``, ``backend``, ``method``, run
    options; :func:`cone_method` picks the method of a cone too wide for a state)."""
    run = {k: v for k, v in options.items() if k not in ("initial", "method")}
    method = cone_method(options.get("method", AUTO), group.circuit, numbers_of(options))
    state = simulate(group.circuit, initial=group.initial, method=method, **run)
    return state.expectation(group.terms)
