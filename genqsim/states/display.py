"""Rich display of states in Jupyter: an HTML table of the most likely basis states for
machine numbers, LaTeX (``cos(theta/2)|00> + ...``) for symbolic ones.

IPython calls ``_repr_html_`` and ``_repr_latex_``; a method that returns ``None`` is
skipped, so each state offers the one that suits its numbers.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .density import DensityMatrix
    from .statevector import StateVector

DISPLAY_ROWS = 16
"""Basis states listed in a state's HTML table (the most likely first)."""

LATEX_MAX_QUBITS = 6
"""Symbolic states up to this size are written out in LaTeX; larger ones show their repr."""


def _ket(index: int, n: int) -> str:
    return format(index, f"0{n}b") if n else ""


def _top(probabilities: np.ndarray) -> np.ndarray:
    """Indices of the largest nonzero probabilities, largest first."""
    k = min(DISPLAY_ROWS, probabilities.size)
    top = np.argpartition(-probabilities, k - 1)[:k]
    top = top[np.argsort(-probabilities[top], kind="stable")]
    return top[probabilities[top] > 0]


def _table(title: str, header: list[str], rows: list[list[str]], note: str) -> str:
    cells = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td><code>{escape(c)}</code></td>" for c in row) + "</tr>"
        for row in rows
    )
    return (
        f"<div><b>{escape(title)}</b><table><tr>{cells}</tr>{body}</table>"
        f"<small>{escape(note)}</small></div>"
    )


def _host_probabilities(state: Any) -> np.ndarray:
    p = state.probabilities()
    if not isinstance(p, np.ndarray):
        p = state.backend.to_numpy(p)
    if p.dtype == object:
        p = np.array([state.numbers.to_complex(v).real for v in p])
    return np.asarray(p, dtype=np.float64)


def _amplitude_text(psi: StateVector, index: int) -> str:
    value = psi.amplitudes[index]
    if psi.numbers.dtype.kind == "c":
        z = complex(value)
        return f"{round(z.real, 6) + 0.0:+.6f}{round(z.imag, 6) + 0.0:+.6f}j"
    return str(value)


def state_vector_html(psi: StateVector) -> str | None:
    """The most likely basis states with amplitude and probability (not for symbolic
    numbers, which show as LaTeX)."""
    if psi.numbers.symbolic:
        return None
    p = _host_probabilities(psi)
    top = _top(p)
    rows = [  # sixteen scalar reads, so a device state is not copied to the host
        [f"|{_ket(int(i), psi.n_qubits)}⟩", _amplitude_text(psi, int(i)), f"{p[i]:.6g}"]
        for i in top
    ]
    nonzero = int(np.count_nonzero(p))
    shown = f"the {len(rows)} most likely of {nonzero}; " if nonzero > len(rows) else ""
    note = f"{shown}qubit {psi.n_qubits - 1} leftmost"
    return _table(repr(psi)[1:-1], ["basis state", "amplitude", "probability"], rows, note)


def state_vector_latex(psi: StateVector) -> str | None:
    """``$a_0 |00⟩ + ...$`` of the nonzero amplitudes, for symbolic numbers on at most
    :data:`LATEX_MAX_QUBITS` qubits."""
    if not psi.numbers.symbolic or psi.n_qubits > LATEX_MAX_QUBITS:
        return None
    import sympy

    terms = []
    for i, a in enumerate(psi.to_numpy()):
        a = sympy.sympify(a)
        if a == 0:
            continue
        coefficient = sympy.latex(a)
        if isinstance(a, sympy.Add):
            coefficient = rf"\left({coefficient}\right)"
        terms.append(rf"{coefficient} \left|{_ket(i, psi.n_qubits)}\right\rangle")
    return "$" + (" + ".join(terms) or "0").replace("+ -", "- ") + "$"


def density_matrix_html(rho: DensityMatrix) -> str | None:
    """The largest populations (diagonal entries) of a numeric density matrix."""
    if rho.numbers.symbolic:
        return None
    p = _host_probabilities(rho)
    rows = [[f"|{_ket(int(i), rho.n_qubits)}⟩", f"{p[i]:.6g}"] for i in _top(p)]
    note = f"qubit {rho.n_qubits - 1} leftmost"
    return _table(repr(rho)[1:-1], ["basis state", "population"], rows, note)


def density_matrix_latex(rho: DensityMatrix) -> str | None:
    """The matrix in LaTeX, for symbolic numbers on at most 3 qubits."""
    if not rho.numbers.symbolic or rho.n_qubits > 3:
        return None
    import sympy

    return "$\\rho = " + sympy.latex(sympy.Matrix(rho.to_numpy())) + "$"
