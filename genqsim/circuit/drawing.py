"""Text drawing of circuits (``print(circuit)``): qubit 0 on top, one column per layer.

Controls show as ``●`` (control value 1) or ``○`` (value 0); a gate on several targets shows
its label on each with ``:i`` naming which bit of the gate's matrix index that qubit is.
Classical stores, on no qubit, show on a row ``c`` below the qubits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .gates import GateKind

if TYPE_CHECKING:
    from .circuit import Circuit, Operation


def _cells(op: Operation) -> dict[int, str]:
    """What to write on each involved qubit's wire."""
    cells: dict[int, str] = {}
    if op.kind is GateKind.BARRIER:
        return dict.fromkeys(op.targets, "░")
    label = op.gate.label
    if op.gate.name == "swap":
        cells.update(dict.fromkeys(op.targets, "×"))
    elif len(op.targets) == 1:
        cells[op.targets[0]] = label
    else:
        for i, q in enumerate(op.targets):
            cells[q] = f"{label}:{i}"
    for q, v in zip(op.controls, op.control_values):
        cells[q] = "●" if v else "○"
    return cells


def _layers(circuit: Circuit) -> list[list[Operation]]:
    """Greedy left-packing: an operation goes one column after the last one touching its span,
    and after the last one writing a classical bit it reads or writes (or reading one it
    writes)."""
    columns: list[list[Operation]] = []
    free_from = [0] * circuit.n_qubits
    written_by: dict[int, int] = {}  # classical bit -> column after the last write of it
    read_by: dict[int, int] = {}  # classical bit -> column after the last read of it
    for op in circuit.instructions:
        span = range(min(op.qubits), max(op.qubits) + 1) if op.qubits else range(0)
        reads, writes = op.gate.bits_read, op.gate.bits_written
        col = max(
            [0, *(free_from[q] for q in span), *(written_by.get(b, 0) for b in reads | writes),
             *(read_by.get(b, 0) for b in writes)]
        )  # fmt: skip
        if col == len(columns):
            columns.append([])
        columns[col].append(op)
        for q in span:
            free_from[q] = col + 1
        written_by.update(dict.fromkeys(writes, col + 1))
        read_by.update({b: max(read_by.get(b, 0), col + 1) for b in reads})
    return columns


def draw(circuit: Circuit) -> str:
    """The circuit as text: one wire row per qubit, connector rows between them."""
    n = circuit.n_qubits
    if n == 0:
        return "(empty circuit on 0 qubits)"
    # stores act on no qubit: they are written on a classical row below the qubits ("c")
    rows = n + any(not op.qubits for op in circuit.instructions)
    name_width = len(f"q{n - 1}")
    wires = [f"q{q}".rjust(name_width) + ": ─" for q in range(n)]
    wires += ["c".rjust(name_width) + ": ═"] * (rows - n)
    gaps = [" " * (name_width + 3) for _ in range(rows)]
    for column in _layers(circuit):
        cells: dict[int, str] = {}
        links: set[int] = set()  # gap rows below qubit q carrying a vertical line
        crossings: set[int] = set()
        for op in column:
            if not op.qubits:
                cells[n] = " ".join(filter(None, (cells.get(n), op.gate.label)))
                continue
            c = _cells(op)
            cells.update(c)
            lo, hi = min(op.qubits), max(op.qubits)
            links.update(range(lo, hi))
            crossings.update(q for q in range(lo + 1, hi) if q not in c)
        width = max([len(s) for s in cells.values()] + [1])
        for q in range(rows):
            line = "─" if q < n else "═"
            if q in cells:
                text = cells[q].center(width, line)
            elif q in crossings:
                text = "┼".center(width, "─")
            else:
                text = line * width
            wires[q] += text + line * 2
            gaps[q] += ("│" if q in links else " ").center(width) + "  "
    lines = []
    for q in range(rows):
        lines.append(wires[q].rstrip())
        if q < rows - 1:
            lines.append(gaps[q].rstrip())
    return "\n".join(line for line in lines)
