"""Matplotlib drawing of circuits (``circuit.draw("mpl")``): the same columns and labels as
the text drawing (:mod:`.drawing`), as a figure for notebooks, papers and slides.

Qubit 0 is the top wire. A gate is a box with its label (``label:i`` on each wire of a
multi-qubit gate, ``i`` the bit of the matrix index); controls are dots (filled for value 1,
hollow for 0) joined to their targets; a controlled X target is drawn as ``⊕``, a SWAP as two
crosses, a barrier as a shaded band.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ArgumentValueError
from ..support.optional import require
from .drawing import _cells, _layers
from .gates import GateKind

if TYPE_CHECKING:
    from .circuit import Circuit, Operation

BOX_HEIGHT = 0.62
"""Height of a gate box, in wire spacings."""

GATE_COLOUR = "#dce9f7"
WIRE_COLOUR = "#333333"


def _label_cells(op: Operation) -> dict[int, str]:
    """What each target wire shows (controls are drawn as dots, not text)."""
    cells = _cells(op)
    return {q: text for q, text in cells.items() if q in op.targets}


def draw_mpl(circuit: Circuit, ax: Any = None, *, filename: str | None = None,
             fold: int | None = None) -> Any:  # fmt: skip
    """Draw ``circuit`` on a matplotlib ``ax`` (a new figure when omitted) and return the
    figure; ``filename`` also saves it (any format matplotlib writes). ``fold``: at most this
    many columns (the rest are cut, with a note), so huge circuits stay drawable."""
    require("matplotlib", "bench", "circuit.draw('mpl')", ArgumentValueError)
    import matplotlib.pyplot as plt

    columns = _layers(circuit)
    if fold is not None:
        if fold < 1:
            raise ArgumentValueError(f"fold must be a positive number of columns, got {fold}")
        cut = len(columns) - fold if len(columns) > fold else 0
        columns = columns[:fold]
    else:
        cut = 0
    n = circuit.n_qubits
    widths = [
        max([0.9, *(0.18 * len(t) + 0.35 for op in col for t in _label_cells(op).values())])
        for col in columns
    ]
    total = sum(widths) + 1.2
    if ax is None:
        fig, ax = plt.subplots(figsize=(min(1.0 + 0.75 * total, 60), 0.3 + 0.6 * max(n, 1)))
    else:
        fig = ax.figure
    y_of = {q: -float(q) for q in range(n)}
    for q in range(n):
        ax.plot([0.2, total], [y_of[q], y_of[q]], color=WIRE_COLOUR, lw=1, zorder=0)
        ax.text(0.1, y_of[q], f"q{q}", ha="right", va="center", fontsize=10)
    x = 0.8
    for column, width in zip(columns, widths):
        centre = x + width / 2
        for op in column:
            _draw_operation(ax, op, centre, y_of)
        x += width
    if cut:
        ax.text(total, 0.55, f"... {cut} more columns", ha="right", va="bottom", fontsize=8)
    ax.set_xlim(-0.4, total + 0.1)
    ax.set_ylim(-(n - 1) - 0.7, 0.8)
    ax.set_aspect("equal")
    ax.axis("off")
    if filename is not None:
        fig.savefig(filename, bbox_inches="tight")
    return fig


def _draw_operation(ax: Any, op: Operation, x: float, y_of: dict[int, float]) -> None:
    """One operation in the column centred at ``x``."""
    from matplotlib.patches import Circle as circle
    from matplotlib.patches import FancyBboxPatch as box
    from matplotlib.patches import Rectangle as band

    if op.kind is GateKind.BARRIER:
        lo, hi = min(op.targets), max(op.targets)
        ax.add_patch(band((x - 0.12, y_of[hi] - 0.4), 0.24, y_of[lo] - y_of[hi] + 0.8,
                          color="#bbbbbb", alpha=0.5, lw=0))  # fmt: skip
        return
    ys = [y_of[q] for q in op.qubits]
    if len(ys) > 1:
        ax.plot([x, x], [min(ys), max(ys)], color=WIRE_COLOUR, lw=1.2, zorder=1)
    for q, value in zip(op.controls, op.control_values):
        ax.add_patch(circle((x, y_of[q]), 0.09, facecolor=WIRE_COLOUR if value else "white",
                            edgecolor=WIRE_COLOUR, lw=1.2, zorder=3))  # fmt: skip
    cells = _label_cells(op)
    if op.gate.name == "swap":
        for q in op.targets:
            ax.plot([x - 0.12, x + 0.12], [y_of[q] - 0.12, y_of[q] + 0.12], color=WIRE_COLOUR)
            ax.plot([x - 0.12, x + 0.12], [y_of[q] + 0.12, y_of[q] - 0.12], color=WIRE_COLOUR)
        return
    if op.controls and op.gate.name == "x":
        (q,) = op.targets
        ax.add_patch(circle((x, y_of[q]), 0.2, facecolor="white", edgecolor=WIRE_COLOUR,
                            lw=1.2, zorder=3))  # fmt: skip
        ax.plot([x - 0.2, x + 0.2], [y_of[q], y_of[q]], color=WIRE_COLOUR, lw=1.2, zorder=4)
        ax.plot([x, x], [y_of[q] - 0.2, y_of[q] + 0.2], color=WIRE_COLOUR, lw=1.2, zorder=4)
        return
    for q, text in cells.items():
        width = 0.18 * len(text) + 0.25
        ax.add_patch(box((x - width / 2, y_of[q] - BOX_HEIGHT / 2), width, BOX_HEIGHT,
                         boxstyle="round,pad=0.02", facecolor=GATE_COLOUR,
                         edgecolor=WIRE_COLOUR, lw=1, zorder=2))  # fmt: skip
        ax.text(x, y_of[q], text, ha="center", va="center", fontsize=9, zorder=5)
