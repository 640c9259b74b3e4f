"""Operations: a gate placed on qubits of a circuit, under controls."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .gates import Barrier, Gate, GateKind


@dataclass(frozen=True)
class Operation:
    """A gate on ``targets``, applied where every control qubit holds its control value."""

    gate: Gate
    targets: tuple[int, ...]
    controls: tuple[int, ...] = ()
    control_values: tuple[int, ...] = ()

    @property
    def qubits(self) -> tuple[int, ...]:
        """Every qubit the operation involves: controls, then targets."""
        return self.controls + self.targets

    @property
    def kind(self) -> GateKind:
        return self.gate.kind

    def inverse(self) -> Operation:
        return Operation(self.gate.inverse(), self.targets, self.controls, self.control_values)

    def bind(self, mapping: Mapping) -> Operation:
        return Operation(self.gate.bind(mapping), self.targets, self.controls, self.control_values)

    def remapped(self, qubit_map: Sequence[int]) -> Operation:
        """The operation with each qubit ``q`` renamed ``qubit_map[q]``."""
        at = qubit_map.__getitem__
        return Operation(
            self.gate, tuple(map(at, self.targets)), tuple(map(at, self.controls)),
            self.control_values,
        )  # fmt: skip

    def __str__(self) -> str:
        ctrl = ""
        if self.controls:
            pairs = ", ".join(f"{q}={v}" for q, v in zip(self.controls, self.control_values))
            ctrl = f" if [{pairs}]"
        return f"{self.gate!r} on {list(self.targets)}{ctrl}"


def new_operation(
    gate: Gate,
    targets: tuple[int, ...],
    controls: tuple[int, ...] = (),
    control_values: tuple[int, ...] = (),
) -> Operation:
    """``Operation(gate, targets, controls, control_values)`` at about a third of the cost:
    the frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``, this
    fills the instance's dictionary directly. For readers that build one per gate they read
    (the OpenQASM parser); the fields are exactly those ``__init__`` would set."""
    op = _new_instance(Operation)
    fields = op.__dict__
    fields["gate"] = gate
    fields["targets"] = targets
    fields["controls"] = controls
    fields["control_values"] = control_values
    return op


_new_instance = object.__new__


def place_operations(ops: Sequence[Operation], qubits: Sequence[int]) -> list[Operation]:
    """``ops`` (on their own qubits 0, 1, ...) with each qubit ``q`` renamed ``qubits[q]``:
    distinct, checked qubits, so nothing is checked again; a barrier keeps its qubits sorted.
    On the own qubits in order (a call on ``q[0], q[1], ...``, as exported gates are often
    called), the operations themselves (they are immutable)."""
    if tuple(qubits) == tuple(range(len(qubits))):
        return list(ops)
    out = []
    for op in ops:
        gate, targets, controls = op.gate, op.targets, op.controls
        # most gates have one target and at most one control: no generator for those
        if len(targets) == 1:
            targets = (qubits[targets[0]],)
        else:
            targets = tuple([qubits[q] for q in targets])
            if gate.__class__ is Barrier:
                targets = tuple(sorted(targets))
        if len(controls) == 1:
            controls = (qubits[controls[0]],)
        elif controls:
            controls = tuple([qubits[q] for q in controls])
        out.append(new_operation(gate, targets, controls, op.control_values))
    return out
