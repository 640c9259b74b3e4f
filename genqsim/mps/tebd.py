"""Time evolution by TEBD: ``exp(-i H t)`` for a nearest-neighbour Hamiltonian on an MPS.

The Hamiltonian (a Pauli sum, real coefficients) is split into bond terms ``h_b`` on qubits
``b, b+1`` (a one-qubit term goes to one bond that holds its qubit); the even bonds commute
with each other, as do the odd ones, so ``exp(-i dt H)`` is approximated by products of
layers ``exp(-i tau sum_{b even} h_b)`` and ``exp(-i tau sum_{b odd} h_b)``, each one
two-site gate per bond: order 1 (even, odd), order 2 (Strang: half even, odd, half even) and
order 4 (Suzuki's fractal of five order-2 steps). Neighbouring layers of the same parity are
merged, so an order-2 run costs one layer per half step like a hand-written TEBD loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import ArgumentValueError, MatrixShapeError
from ..linalg.pauli import PAULI_MATRICES, PauliSum
from ..support.progress import bar_for
from .charges import charge_groups, gate_blocks
from .state import MPSState

ORDERS = (1, 2, 4)
_SUZUKI = 1.0 / (4.0 - 4.0 ** (1.0 / 3.0))


def bond_hamiltonians(
    hamiltonian: str | PauliSum | Sequence[np.ndarray], n_qubits: int
) -> list[np.ndarray]:
    """The ``4 x 4`` term of every bond ``b = 0 .. n-2`` (qubit ``b`` the slow index), from a
    Pauli sum or given as such matrices; raises :class:`~genqsim.errors.ArgumentValueError`
    for a term beyond nearest neighbours or one that is not Hermitian."""
    if n_qubits < 2:
        raise ArgumentValueError("TEBD needs at least two qubits")
    if not isinstance(hamiltonian, (str, PauliSum)):
        return _checked_bond_matrices(hamiltonian, n_qubits)
    h = PauliSum.for_state(hamiltonian, n_qubits)
    bonds = [np.zeros((4, 4), dtype=complex) for _ in range(n_qubits - 1)]
    for coeff, pauli in h.terms:
        value = complex(coeff)
        if value.imag != 0:
            raise ArgumentValueError(f"Hamiltonian coefficient {coeff} is not real")
        qubits = sorted(q for q, _ in pauli)
        letters = dict(pauli)
        if len(qubits) > 2 or (len(qubits) == 2 and qubits[1] - qubits[0] != 1):
            term = " ".join(f"{letters[q]}{q}" for q in qubits)
            raise ArgumentValueError(
                f"TEBD takes nearest-neighbour Hamiltonians; the term {term} is not (run "
                "library.trotter(...) circuits for longer-range terms)"
            )
        if not qubits:  # a constant: a global phase, nothing to evolve
            continue
        b = min(qubits[0], n_qubits - 2)
        left, right = PAULI_MATRICES[letters.get(b, "I")], PAULI_MATRICES[letters.get(b + 1, "I")]
        bonds[b] += value.real * np.kron(left, right)
    return bonds


def _checked_bond_matrices(matrices: Sequence[np.ndarray], n_qubits: int) -> list[np.ndarray]:
    bonds = [np.asarray(m, dtype=complex) for m in matrices]
    if len(bonds) != n_qubits - 1:
        raise ArgumentValueError(
            f"{n_qubits} qubits have {n_qubits - 1} bonds, got {len(bonds)} terms"
        )
    for b, m in enumerate(bonds):
        if m.shape != (4, 4):
            raise MatrixShapeError(
                f"the bond ({b}, {b + 1}) term must be 4 x 4, got shape {m.shape}"
            )
        if not np.all(np.isfinite(m)) or not np.allclose(m, m.conj().T, atol=1e-12):
            raise ArgumentValueError(
                f"the bond ({b}, {b + 1}) term is not a finite Hermitian matrix"
            )
    return bonds


def layer_schedule(dt: float, steps: int, order: int) -> list[tuple[int, float]]:
    """The layers of ``steps`` steps of size ``dt`` as ``(parity, tau)``, neighbours of the
    same parity merged."""
    if order not in ORDERS:
        raise ArgumentValueError(f"order must be one of {ORDERS}, got {order!r}")
    if order == 1:
        one = [(0, dt), (1, dt)]
    else:
        fractions = [1.0] if order == 2 else [_SUZUKI, _SUZUKI, 1 - 4 * _SUZUKI, _SUZUKI, _SUZUKI]
        one = []
        for f in fractions:
            one += [(0, f * dt / 2), (1, f * dt), (0, f * dt / 2)]
    merged: list[tuple[int, float]] = []
    for parity, tau in one * steps:
        if merged and merged[-1][0] == parity:
            merged[-1] = (parity, merged[-1][1] + tau)
        else:
            merged.append((parity, tau))
    return merged


def tebd(
    state: MPSState,
    hamiltonian: str | PauliSum | Sequence[np.ndarray],
    dt: float,
    steps: int,
    order: int = 2,
    observe: Callable[[MPSState, float], Any] | None = None,
    every: int = 1,
) -> list[Any]:
    """Evolve ``state`` in place by ``steps`` TEBD steps of size ``dt`` (``order`` 1, 2 or 4)
    under ``hamiltonian`` (a Pauli sum, or one ``4 x 4`` matrix per bond); the state's
    truncation settings apply to every gate. With
    ``observe``, ``observe(state, t)`` is called at ``t = 0`` and after every ``every`` steps,
    and its results are returned (layers are merged only between observations)."""
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise ArgumentValueError(f"steps must be a non-negative integer, got {steps!r}")
    if isinstance(every, bool) or not isinstance(every, int) or every < 1:
        raise ArgumentValueError(f"every must be a positive integer, got {every!r}")
    if not np.isfinite(dt):
        raise ArgumentValueError(f"dt must be a finite number, got {dt!r}")
    terms = bond_hamiltonians(hamiltonian, state.n_qubits)
    eigen = [np.linalg.eigh(h) for h in terms]
    group = charge_groups(state._net.charges, 2)
    name = "exp(-i dt h) of a bond term"
    for b, h in enumerate(terms):
        gate_blocks(h, group, f"the bond ({b}, {b + 1}) term")  # conserves what the state keeps
    cache: dict[tuple[int, float], dict[int, np.ndarray]] = {}

    def gate(bond: int, tau: float) -> dict[int, np.ndarray]:
        key = (bond, tau)
        if key not in cache:
            w, v = eigen[bond]
            u = (v * np.exp(-1j * tau * w)) @ v.conj().T
            cache[key] = gate_blocks(u.astype(state.numbers.dtype), group, name)
        return cache[key]

    chunks = [every] * (steps // every) + ([steps % every] if steps % every else [])
    records = [] if observe is None else [observe(state, 0.0)]
    chi = state.truncation.max_bond or 256
    bar = bar_for(state.progress, steps, steps * len(terms) * float(chi) ** 3, "tebd")
    done, n_bonds = 0, len(terms)
    for chunk in chunks:
        for parity, tau in layer_schedule(dt, chunk, order):
            for bond in range(parity, n_bonds, 2):
                state._net.apply(bond, 2, gate(bond, tau), state.truncation)
        state._touched()
        done += chunk
        if observe is not None:
            records.append(observe(state, done * dt))
        if bar is not None:
            bar.update(done)
    if bar is not None:
        bar.close()
    return records
