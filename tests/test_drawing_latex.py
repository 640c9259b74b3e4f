"""``circuit.draw("latex")``: quantikz source read back by an independent decoder (every
operation's controls, control values, targets and order per qubit recovered from the cells
and their vertical lines), angles against SymPy's own typesetting, and, where ``pdflatex``
and quantikz are installed, compiled."""

from __future__ import annotations

import math
import re
import shutil
import subprocess

import numpy as np
import pytest
import sympy
from hypothesis import given, settings

import genqsim as gq
from genqsim.circuit.drawing_latex import latex_value
from genqsim.circuit.gates import NamedGate

from strategies import random_circuit

HEADS = {
    "x": "X", "y": "Y", "z": "Z", "h": "H", "s": "S", "t": "T", "sx": "\\sqrt{X}",
    "rx": "R_{X}", "ry": "R_{Y}", "rz": "R_{Z}", "p": "P", "u": "U", "iswap": "\\mathrm{iSWAP}",
    "rxx": "R_{XX}", "ryy": "R_{YY}", "rzz": "R_{ZZ}", "unitary": "U", "sdg": "S^{\\dagger}",
}  # fmt: skip


def _split_cells(row: str) -> list[str]:
    """A quantikz row's cells (``&`` outside braces)."""
    cells, depth, start = [], 0, 0
    for i, ch in enumerate(row):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "&" and depth == 0:
            cells.append(row[start:i].strip())
            start = i + 1
    cells.append(row[start:].strip())
    return cells


def decode(source: str) -> list[list[dict]]:
    """Per quantikz environment, its operations in column order: each a dict of controls
    (qubit -> value), targets (set of qubits) and the first target cell's text."""
    blocks = re.findall(r"\\begin\{quantikz\}\n(.*?)\n\\end\{quantikz\}", source, re.S)
    decoded = []
    for block in blocks:
        rows = [_split_cells(r) for r in block.split(" \\\\\n")]
        assert all(r[0] == f"\\lstick{{$q_{{{q}}}$}}" for q, r in enumerate(rows))
        width = {len(r) for r in rows}
        assert len(width) == 1, "ragged quantikz rows"
        ops = []
        for col in range(1, width.pop() - 1):
            cells = [r[col] for r in rows]
            owner: dict[int, int] = {}  # row -> index of its group in this column
            groups: list[dict] = []
            for q, cell in enumerate(cells):
                if q in owner or cell == "\\qw":
                    continue
                line = re.search(r"\\vqw\{(\d+)\}$", cell)
                span = int(line.group(1)) + 1 if line else 1
                group = {"controls": {}, "targets": set(), "cells": []}
                covered_to = -1  # last row under a box over several wires
                r = q
                while r < q + span or r <= covered_to:
                    assert r not in owner, f"two operations claim row {r} in column {col}"
                    owner[r] = len(groups)
                    text = cells[r]
                    wide = re.match(r"\\gate\[(\d+)", text)
                    if wide:
                        covered_to = r + int(wide.group(1)) - 1
                    if text.startswith("\\control{}"):
                        group["controls"][r] = 1
                    elif text.startswith("\\ocontrol{}"):
                        group["controls"][r] = 0
                    elif text != "\\qw" or r <= covered_to:
                        group["targets"].add(r)
                        group["cells"].append(text)
                    r += 1
                groups.append(group)
            ops.extend(groups)
        decoded.append(ops)
    return decoded


def per_qubit(ops, n: int) -> list[list[tuple]]:
    """Each qubit's sequence of (controls, targets) of the operations that involve it."""
    seqs: list[list[tuple]] = [[] for _ in range(n)]
    for controls, targets in ops:
        for q in {*controls, *targets}:
            seqs[q].append((tuple(sorted(controls.items())), tuple(sorted(targets))))
    return seqs


@settings(max_examples=40, deadline=None)
@given(random_circuit(n_max=6))
def test_latex_drawing_decodes_to_the_circuits_operations(circuit):
    (ops,) = decode(circuit.draw("latex"))
    expected = [
        (dict(zip(op.controls, op.control_values)), set(op.targets)) for op in circuit.operations
    ]
    found = [(g["controls"], g["targets"]) for g in ops]
    assert per_qubit(found, circuit.n_qubits) == per_qubit(expected, circuit.n_qubits)
    unused = list(circuit.operations)
    for group in ops:  # same places in the same order per qubit: the first unused one is it
        op = next(
            o for o in unused
            if dict(zip(o.controls, o.control_values)) == group["controls"]
            and set(o.targets) == group["targets"]
        )  # fmt: skip
        unused.remove(op)
        assert group["cells"][0].startswith(expected_cell(op)), (group["cells"], op)


def expected_cell(op) -> str:
    """How the lowest-numbered target's cell must begin."""
    name, targets = op.gate.name, list(op.targets)
    if name == "swap" and isinstance(op.gate, NamedGate):
        return "\\targX{}"
    if name == "x" and op.controls and isinstance(op.gate, NamedGate):
        return "\\targ{}"
    head = "e^{-i\\frac{" if name == "pauli_rotation" else HEADS[name]
    if len(targets) == 1:
        return "\\gate{" + head
    if targets == list(range(targets[0], targets[0] + len(targets))):
        return f"\\gate[{len(targets)}]{{" + head
    return "\\gate{" + head


def test_latex_drawing_of_every_kind_of_operation():
    theta = gq.parameters("theta")[0]
    c = gq.Circuit(4, n_clbits=2).h(0).cx(0, 1).rx(theta, 2).measure(0, 0).reset(1)
    c.barrier().ccx(0, 2, 1).swap(0, 3).u(0.1, 0.2, 0.3, 1).rzz(theta / 2, 0, 2)
    c.depolarizing(0.1, 0).mcx([0, 2], 1, control_values=[0, 1]).barrier(1, 2)
    c.if_(0, 1, gq.Circuit(4).x(2)).unitary(np.eye(4), [2, 0]).unitary(np.eye(4), [2, 3])
    c.pauli_rotation("XZ", theta, [0, 2]).cp(np.pi / 4, 2, 0).sdg(1).sx(2).measure(2, 1)
    source = c.draw("latex")
    assert source.startswith("\\documentclass[border=6pt]{standalone}")
    for piece in [
        "\\gate{H}", "\\control{} \\vqw{1}", "\\targ{}", "\\gate{R_{X}(\\theta)}",
        "\\meter{$c_{0}$}", "\\gate{|0\\rangle}", "\\qw \\slice{}", "\\targX{} \\vqw{3}",
        "\\gate{U(0.1, 0.2, 0.3)}", "\\gate{R_{ZZ}(\\frac{\\theta}{2}){:}0} \\vqw{2}",
        "\\gate[style={dashed}]{\\mathrm{depolarizing}(0.1)}", "\\ocontrol{} \\vqw{2}",
        "\\gategroup[2,steps=1,style={dashed,inner sep=2pt}]{}",
        "\\gate{\\mathrm{if}\\,c_{0}{=}1{:}\\,X}", "\\gate{U{:}1} \\vqw{2}", "\\gate[2]{U}",
        "\\gate{e^{-i\\frac{\\theta}{2}XZ}{:}0} \\vqw{2}", "\\gate{P(\\frac{\\pi}{4})} \\vqw{2}",
        "\\gate{S^{\\dagger}}", "\\gate{\\sqrt{X}}", "\\meter{$c_{1}$}",
    ]:  # fmt: skip
        assert piece in source, piece
    assert len(decode(source)[0]) == len(c.operations)  # a barrier is a cell too


def test_latex_angles_are_sympys_typesetting():
    for k in range(-32, 33):
        for d in (1, 2, 3, 4, 6, 8, 16):
            if k == 0:
                continue
            exact = sympy.Rational(k, d) * sympy.pi
            assert latex_value(float(exact)) == latex_value(exact) == sympy.latex(exact)
    assert latex_value(0.1) == "0.1" and latex_value(math.pi / 17) == "0.1848"
    assert latex_value(0.0) == "0" and latex_value(np.float64(1.5)) == "1.5"
    a, b = sympy.symbols("alpha b_1", real=True)
    assert latex_value(2 * a + b) == sympy.latex(2 * a + b)


def test_latex_folds_and_writes_its_source(tmp_path):
    c = gq.library.qft(4)
    columns = len(decode(c.draw("latex"))[0])
    folded = c.draw("latex", fold=3, standalone=False, filename=str(tmp_path / "qft.tex"))
    blocks = decode(folded)
    assert len(blocks) > 1 and sum(len(b) for b in blocks) == columns
    assert folded.startswith("\\vbox{") and "\\documentclass" not in folded
    assert (tmp_path / "qft.tex").read_text() == folded
    for bad, message in [
        (dict(fold=0), "fold"), (dict(fold=2.5), "fold"), (dict(ax=object()), "ax="),
    ]:  # fmt: skip
        with pytest.raises(gq.ArgumentValueError, match=message):
            c.draw("latex", **bad)
    with pytest.raises(gq.ArgumentValueError, match="fold= is for"):
        c.draw("text", fold=3)
    with pytest.raises(gq.ArgumentValueError, match="'text', 'mpl' or 'latex'"):
        c.draw("tikz")
    with pytest.raises(gq.ArgumentValueError, match="0 qubits"):
        gq.Circuit(0).draw("latex")


def _quantikz_installed() -> bool:
    if shutil.which("pdflatex") is None or shutil.which("kpsewhich") is None:
        return False
    found = subprocess.run(["kpsewhich", "quantikz.sty"], capture_output=True, text=True)
    return bool(found.stdout.strip())


@pytest.mark.skipif(not _quantikz_installed(), reason="needs pdflatex and quantikz (TeX Live)")
def test_latex_drawings_compile_with_pdflatex(tmp_path):
    theta = gq.parameters("theta")[0]
    c = gq.Circuit(3, n_clbits=1).h(0).mcx([0, 2], 1, control_values=[0, 1]).cswap(1, 0, 2)
    c.measure(1, 0).if_(0, 1, gq.Circuit(3).x(2)).barrier().rzz(theta, 0, 2).barrier(0, 1)
    c.depolarizing(0.01, 0, 1).kraus([np.eye(2)], 2).unitary(np.eye(8), [2, 0, 1])
    for name, source in [
        ("kinds", c.draw("latex")),
        ("folded", gq.library.qft(5).draw("latex", fold=4)),
        ("random", gq.library.random_circuit(4, 6, seed=1).draw("latex")),
    ]:
        (tmp_path / f"{name}.tex").write_text(source)
        run = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"],
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout[-2000:]
        assert (tmp_path / f"{name}.pdf").stat().st_size > 1000
