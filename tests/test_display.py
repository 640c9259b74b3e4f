"""The matplotlib circuit drawer and the Jupyter displays of circuits and states: the same
gates, labels and values as the text drawing and the states' own numbers."""

from __future__ import annotations

import re

import matplotlib
import numpy as np
import pytest
import sympy

import genqsim as gq
from genqsim.circuit.drawing import _cells

matplotlib.use("Agg")


def sample_circuit() -> gq.Circuit:
    c = gq.Circuit(4, n_clbits=1).h(0).cx(0, 1).ccx(0, 1, 2).swap(2, 3).barrier()
    c.rzz(0.3, 0, 3).append(gq.MatrixGate(np.eye(4)), [1, 2], [0], [0]).measure(3, 0)
    return c


def test_mpl_drawing_shows_every_label_of_the_text_drawing(tmp_path):
    c = sample_circuit()
    path = tmp_path / "circuit.png"
    fig = c.draw("mpl", filename=str(path))
    texts = sorted(t.get_text() for t in fig.axes[0].texts)
    expected = sorted(
        [f"q{q}" for q in range(4)]
        + [
            text
            for op in c.operations
            if op.gate.name not in ("swap", "barrier") and not (op.controls and op.gate.name == "x")
            for q, text in _cells(op).items()
            if q in op.targets
        ]
    )
    assert texts == expected
    assert path.stat().st_size > 1000 and path.read_bytes()[:4] == b"\x89PNG"
    # control dots: one filled per control with value 1, one hollow per value 0, plus the two
    # CNOT/Toffoli target circles
    circles = [p for p in fig.axes[0].patches if type(p).__name__ == "Circle"]
    facecolours = [tuple(p.get_facecolor()) for p in circles]
    white = (1.0, 1.0, 1.0, 1.0)
    assert facecolours.count(white) == 1 + 2  # one hollow control, two ⊕ targets
    assert len(circles) - facecolours.count(white) == 3  # cx, and ccx's two controls


def test_mpl_drawing_on_given_axes_and_folded():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    c = gq.library.qft(3)
    assert c.draw("mpl", ax=ax) is fig
    folded = c.draw("mpl", fold=2)
    assert any(t.get_text().startswith("... ") for t in folded.axes[0].texts)
    with pytest.raises(gq.ArgumentValueError, match="fold"):
        c.draw("mpl", fold=0)
    with pytest.raises(gq.ArgumentValueError, match="'text', 'mpl' or 'latex'"):
        c.draw("svg")
    assert c.draw() == str(c)


def test_circuit_html_is_the_text_drawing():
    c = sample_circuit()
    html = c._repr_html_()
    assert "4 qubits, 8 operations" in html
    assert "RZZ(0.3):0" in html and "M→c0" in html
    (theta,) = gq.parameters("theta")
    assert "parameters theta" in gq.Circuit(1).rx(theta, 0)._repr_html_()


def test_numeric_state_html_lists_the_most_likely_basis_states():
    psi = gq.simulate(gq.Circuit(3).ry(0.3, 0).cx(0, 2))
    html = psi._repr_html_()
    rows = re.findall(r"<tr><td><code>\|(\d+)⟩</code></td><td><code>(.*?)</code></td>"
                      r"<td><code>(.*?)</code></td></tr>", html)  # fmt: skip
    amplitudes = psi.to_numpy()
    assert [r[0] for r in rows] == ["000", "101"]  # the nonzero ones, the larger first
    for bits, amplitude, probability in rows:
        i = int(bits, 2)
        assert complex(amplitude) == pytest.approx(amplitudes[i], abs=1e-6)
        assert float(probability) == pytest.approx(abs(amplitudes[i]) ** 2, rel=1e-5)
    assert psi._repr_latex_() is None
    many = gq.simulate(gq.library.qft(6))._repr_html_()
    assert "the 16 most likely of 64" in many and many.count("<tr>") == 17


def test_symbolic_state_latex_is_the_exact_ket_sum():
    (theta,) = gq.parameters("theta")
    psi = gq.simulate(gq.Circuit(2).ry(theta, 0).cx(0, 1), numbers="sympy")
    latex = psi._repr_latex_()
    c, s = sympy.latex(sympy.cos(theta / 2)), sympy.latex(sympy.sin(theta / 2))
    assert latex == rf"${c} \left|00\right\rangle + {s} \left|11\right\rangle$"
    assert psi._repr_html_() is None


def test_density_matrix_displays():
    rho = gq.simulate(gq.Circuit(2).h(0).depolarizing(0.2, 0), method="density_matrix")
    html = rho._repr_html_()
    populations = dict(re.findall(r"\|(\d+)⟩</code></td><td><code>(.*?)</code>", html))
    assert {k: float(v) for k, v in populations.items()} == pytest.approx({"00": 0.5, "01": 0.5})
    exact = gq.simulate(gq.Circuit(1).h(0), numbers="sympy", method="density_matrix")
    half = sympy.latex(sympy.Rational(1, 2))
    assert exact._repr_latex_().count(half) == 4
