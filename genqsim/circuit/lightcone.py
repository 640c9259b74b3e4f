"""Backward light cones: the part of a circuit that can change what some qubits show.

Walking the circuit from its end, an operation belongs to the cone of ``qubits`` when it
touches a qubit already in the cone, which then grows by the operation's qubits. A
conditional or store in the cone brings in the measurements and stores that write the bits
it reads. Everything
else acts on qubits the observable never sees, and trace-preserving maps there leave any
observable on the cone unchanged: for an observable on ``qubits``, the cone's circuit on the
cone's qubits (started from the same product state) gives the same value.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .gates import GateKind

if TYPE_CHECKING:
    from .circuit import Circuit


@dataclass(frozen=True)
class LightCone:
    """``circuit``: the cone's operations in order, on the original qubits; ``qubits``: every
    qubit they touch and the qubits asked for, sorted; ``indices``: the operations'
    positions in the original circuit."""

    circuit: Circuit
    qubits: tuple[int, ...]
    indices: tuple[int, ...]

    def compact(self) -> Circuit:
        """The cone on ``len(qubits)`` qubits, qubit ``i`` standing for ``qubits[i]``."""
        position = {q: i for i, q in enumerate(self.qubits)}
        qubit_map = [position.get(q, 0) for q in range(self.circuit.n_qubits)]
        out = type(self.circuit)(len(self.qubits), n_clbits=self.circuit.n_clbits)
        for op in self.circuit.operations:  # every qubit of the cone maps into it
            out._push_checked(op.remapped(qubit_map))
        return out

    @property
    def size(self) -> int:
        """How many qubits the cone holds."""
        return len(self.qubits)


def light_cone(circuit: Circuit, qubits: Iterable[int]) -> LightCone:
    """The backward light cone of ``qubits`` in ``circuit`` (see the module docs)."""
    live = set(qubits)
    bits: set[int] = set()
    kept: list[int] = []
    ops = circuit.operations
    for index in range(len(ops) - 1, -1, -1):
        op = ops[index]
        gate = op.gate
        if gate.kind is GateKind.BARRIER:
            continue
        # in the cone: on a qubit of it, or writing a bit it reads (a measurement, a store,
        # a conditional's branch)
        touches = not live.isdisjoint(op.qubits) or not bits.isdisjoint(gate.bits_written)
        if not touches:
            continue
        kept.append(index)
        live.update(op.qubits)
        bits.update(gate.bits_read)
    kept.reverse()
    cone = type(circuit)(circuit.n_qubits, [ops[i] for i in kept], n_clbits=circuit.n_clbits)
    return LightCone(cone, tuple(sorted(live)), tuple(kept))
