"""LaTeX drawing of circuits (``circuit.draw("latex")``): quantikz source for papers.

The columns are the text drawing's (:mod:`.drawing`); each cell is a quantikz command:
``\\gate{...}`` for gates (one box over consecutive targets in order, else a box per wire
labelled ``:i``, the bit of the matrix index, as in the text drawing), ``\\control{}`` /
``\\ocontrol{}`` for controls of value 1 / 0, ``\\targ{}`` for a controlled X, ``\\targX{}``
for SWAP, ``\\meter{}`` for measurements, a dashed box for channels, ``\\slice{}`` for a
barrier over every qubit. The topmost cell of an operation draws the vertical line to its
lowest qubit (``\\vqw``). Angles are typeset by SymPy (``\\frac{\\theta}{2}``); floats that are
small rational multiples of pi are written as such. The source compiles with quantikz 0.9.6
(TeX Live 2022) and later: https://ctan.org/pkg/quantikz.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..errors import ArgumentValueError
from ..support.lazysympy import is_sympy
from .channels import QuantumChannel
from .conditional import Conditional
from .drawing import _layers
from .gates import GateKind, MatrixGate, NamedGate, PauliRotation
from .store import Store

if TYPE_CHECKING:
    from .circuit import Circuit, Operation

PI_DENOMINATOR_MAX = 16
"""Floats equal to ``k*pi/d`` with ``d`` up to this are written with ``\\pi``."""

PREAMBLE = (
    "\\documentclass[border=6pt]{standalone}\n"
    "\\usepackage{tikz}\n"
    "\\usetikzlibrary{quantikz}\n"
    "\\begin{document}\n"
)

_TEX_SPECIALS = {c: "\\" + c for c in "_&%$#{}"}
_TEX_SPECIALS.update({"^": "\\^{}", "~": "\\~{}", "\\": "\\backslash{}"})


def _escaped(text: str) -> str:
    """Plain text made safe inside ``\\mathrm{}``."""
    return "".join(_TEX_SPECIALS.get(c, c) for c in text)


def latex_value(value: Any) -> str:
    """One gate parameter as LaTeX math: SymPy's typesetting for expressions, ``\\pi``
    fractions for floats that are (to 1e-12) small rational multiples of pi, else 4
    significant digits.

    >>> latex_value(0.7853981633974483), latex_value(-3.141592653589793), latex_value(0.1)
    ('\\\\frac{\\\\pi}{4}', '- \\\\pi', '0.1')
    """
    import sympy

    if is_sympy(value):
        return str(sympy.latex(value))
    number = float(value)
    if number != 0 and math.isfinite(number):
        ratio = Fraction(number / math.pi).limit_denominator(PI_DENOMINATOR_MAX)
        if ratio and abs(number - float(ratio) * math.pi) <= 1e-12 * max(1.0, abs(number)):
            exact = sympy.Rational(ratio.numerator, ratio.denominator) * sympy.pi
            return str(sympy.latex(exact))
    return f"{number:.4g}"


def _head(label: str) -> str:
    """A table label (``Rx``, ``RZZ``, ``S†``, ``√X``, ``iSWAP``) as LaTeX math."""
    dagger = label.endswith("†")
    core = label.rstrip("†")
    if core.startswith("√"):
        text = f"\\sqrt{{{_head(core[1:])}}}"
    elif len(core) == 1:
        text = core
    elif core[0] == "R" and core[1:].isalpha():
        text = f"R_{{{core[1:].upper()}}}"
    else:
        text = f"\\mathrm{{{_escaped(core)}}}"
    return text + "^{\\dagger}" if dagger else text


def gate_latex(gate: Any) -> str:
    """The math written in a gate's box: ``R_{X}(\\frac{\\theta}{2})``,
    ``e^{-i\\frac{\\theta}{2}XZ}``, ``\\mathrm{depolarizing}(0.1)``."""
    if isinstance(gate, Conditional):
        bits = ",".join(str(b) for b in gate.clbits)
        inner = [
            ";\\ ".join("C" * len(op.controls) + gate_latex(op.gate) for op in body.operations)
            for body in gate.bodies
        ]
        values = "|".join(map(str, gate.values))
        orelse = f"\\ \\mathrm{{else}}{{:}}\\,{inner[1]}" if len(inner) > 1 else ""
        head = f"\\mathrm{{{gate.keyword}}}\\,c_{{{bits}}}{{=}}{values}{{:}}"  # quantikz
        return f"{head}\\,{inner[0]}{orelse}"
    if isinstance(gate, Store):
        target = ",".join(map(str, gate.clbits))
        value = str(gate.table[0]) if len(set(gate.table)) == 1 else (
            f"f(c_{{{','.join(map(str, gate.sources))}}})"
        )  # fmt: skip
        return f"c_{{{target}}}{{=}}{value}"
    if isinstance(gate, PauliRotation):
        return f"e^{{-i\\frac{{{latex_value(gate.params[0])}}}{{2}}{gate.pauli}}}"
    if isinstance(gate, NamedGate):
        head = _head(gate.spec.label)
    elif isinstance(gate, MatrixGate):
        head = "U" if gate.name == "unitary" else f"\\mathrm{{{_escaped(gate.name)}}}"
    elif gate.kind is GateKind.RESET:
        return "|0\\rangle"
    else:
        head = f"\\mathrm{{{_escaped(gate.name)}}}"
    params = tuple(gate.params) if not isinstance(gate, MatrixGate) else ()
    if not params:
        return head
    return f"{head}({', '.join(latex_value(p) for p in params)})"


def _cells(op: Operation, n_qubits: int) -> dict[int, str]:
    """The quantikz command on each qubit an operation involves, its vertical line on the
    topmost one."""
    cells: dict[int, str] = {}
    gate = op.gate
    if op.kind is GateKind.BARRIER:
        top = min(op.targets)
        if sorted(op.targets) == list(range(n_qubits)):
            return {top: "\\qw \\slice{}"}
        span = max(op.targets) - top + 1
        return {top: f"\\qw \\gategroup[{span},steps=1,style={{dashed,inner sep=2pt}}]{{}}"}
    if op.kind is GateKind.MEASURE:
        return {op.targets[0]: f"\\meter{{$c_{{{gate.clbit}}}$}}"}  # type: ignore[attr-defined]
    if not op.qubits:  # a store (or a conditional of stores): on the classical row
        return {n_qubits: f"\\gate{{{gate_latex(gate)}}}"}
    targets = list(op.targets)
    style = "[style={dashed}]" if isinstance(gate, QuantumChannel) else ""
    if gate.name == "swap" and not isinstance(gate, MatrixGate):
        cells.update(dict.fromkeys(targets, "\\targX{}"))
    elif gate.name == "x" and op.controls and isinstance(gate, NamedGate):
        cells[targets[0]] = "\\targ{}"
    elif len(targets) == 1:
        cells[targets[0]] = f"\\gate{style}{{{gate_latex(gate)}}}"
    elif targets == list(range(targets[0], targets[0] + len(targets))):
        wide = f"[{len(targets)}]" if not style else f"[{len(targets)},style={{dashed}}]"
        cells[targets[0]] = f"\\gate{wide}{{{gate_latex(gate)}}}"
        cells.update(dict.fromkeys(targets[1:], "\\qw"))
    else:
        label = gate_latex(gate)
        for i, q in enumerate(targets):
            cells[q] = f"\\gate{style}{{{label}{{:}}{i}}}"
    for q, value in zip(op.controls, op.control_values):
        cells[q] = "\\control{}" if value else "\\ocontrol{}"
    lo, hi = min(op.qubits), max(op.qubits)
    covered = len(targets) > 1 and not op.controls and cells[lo].startswith("\\gate[")
    if hi > lo and not covered:
        cells[lo] += f" \\vqw{{{hi - lo}}}"
    return cells


def draw_latex(circuit: Circuit, *, standalone: bool = True, fold: int | None = None) -> str:
    """The circuit as quantikz source: a whole ``standalone`` document (compile it with
    ``pdflatex``), or with ``standalone=False`` the ``quantikz`` environment alone, to paste
    into a paper that loads ``\\usetikzlibrary{quantikz}``. ``fold``: at most this many
    columns per row of the drawing; the rest continue in further rows below."""
    if fold is not None and (isinstance(fold, bool) or not isinstance(fold, int) or fold < 1):
        raise ArgumentValueError(f"fold must be a positive number of columns, got {fold!r}")
    n = circuit.n_qubits
    if n == 0:
        raise ArgumentValueError("a circuit on 0 qubits has no wires to draw in LaTeX")
    columns = [[_cells(op, n) for op in column] for column in _layers(circuit)]
    classical = any(not op.qubits for op in circuit.instructions)  # a row for stores
    step = fold or max(len(columns), 1)
    blocks = [
        _environment(columns[start : start + step], n, classical)
        for start in range(0, max(len(columns), 1), step)
    ]
    body = blocks[0] if len(blocks) == 1 else _stacked(blocks)
    return PREAMBLE + body + "\\end{document}\n" if standalone else body


def _environment(
    columns: list[list[dict[int, str]]], n_qubits: int, classical: bool = False
) -> str:
    """One ``quantikz`` environment: a row per qubit (and with ``classical`` a classical
    row ``c`` for stores), a cell per column."""
    rows = [[f"\\lstick{{$q_{{{q}}}$}}"] for q in range(n_qubits)]
    rows += [["\\lstick{$c$}"]] * classical
    wires = ["\\qw"] * n_qubits + ["\\cw"] * classical
    for column in columns:
        merged: dict[int, str] = {}
        for cells in column:
            merged.update(cells)
        for q, row in enumerate(rows):
            row.append(merged.get(q, wires[q]))
    lines = [" & ".join([*row, wire]) for row, wire in zip(rows, wires)]
    return "\\begin{quantikz}\n" + " \\\\\n".join(lines) + "\n\\end{quantikz}\n"


def _stacked(blocks: list[str]) -> str:
    """Folded rows one below the other (``\\vbox`` keeps quantikz's ``&`` out of tables)."""
    rows = "\\vskip 1.5em\n".join(f"\\hbox{{%\n{block}}}\n" for block in blocks)
    return "\\vbox{%\n" + rows + "}\n"
