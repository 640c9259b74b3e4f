"""Exact second derivatives of an expectation value on the fast kernels: tangents carried
forward through one run, read against the adjoint states of one backward run.

For a circuit :class:`~genqsim.differentiation.adjoint.AdjointProgram` serves (its
parametrised gates are rotations ``U_r(theta) = exp(-i theta G_r) U_r(0)`` on one target,
under controls or not, with angles affine in the parameters), the Hessian of
``E = <psi| H |psi>`` in the rotation angles is, for rotations ``k <= l`` in circuit order,

    d2E / dtheta_k dtheta_l = 2 Im <mu_l | t_k(l)> + 2 Re <a_k| H |a_l>

where ``mu_l = G_l lambda_l`` is rotation ``l``'s generator (restricted by its controls)
times the adjoint state ``lambda_l = U_end ... U_(l+1)^dagger H psi`` just after it,
``t_k(l)`` the tangent ``d psi / d theta_k`` carried from ``t_k(k) = -i G_k psi_k`` to just
after gate ``l``, and ``a_k`` that tangent at the end of the circuit. The first term is the
derivative of the adjoint gradient ``2 Im <mu_l| psi_l>`` with ``lambda`` held fixed (with
``l = k`` it is ``-2 Re <lambda_k| G_k^2 |psi_k>``); the second is what moving ``lambda``
adds. A parameter Hessian follows by the chain rule through the affine angle map
(``A^T H_theta A``), with no second-derivative term.

One backward run of ``lambda`` gives every ``mu_l``. One forward run then carries every
tangent at once: the state and every tangent started so far are rows taken together as one
state of more qubits, so each gate between two rotations is one pass of the backend's
kernels over all of them. The work is about ``R / 2`` runs of the circuit for ``R``
rotations, and ``<a_k| H |a_l>`` for all pairs is one real matrix product. Forward over
reverse (:func:`~genqsim.differentiation.gradients.hessian` on dual numbers) takes ``R``
sweeps on object arrays instead. Memory: three states per rotation.
"""

from __future__ import annotations

import threading
from typing import Any, cast

import numpy as np

from ..errors import StateTooLargeError
from ..linalg.generic import pauli_signs
from ..linalg.pauli import pauli_masks
from ..plan import DiagonalCall
from ..plan.grouping import RunCall
from ..states.tangent import apply_pauli_sum
from ..support.blas import BlasThreads
from ..support.memory import check_state_fits
from .adjoint import AdjointProgram, _with_matrix

STATES_PER_ROTATION = 3
"""States of memory the sweep keeps per rotation: its tangent, its ``mu`` and ``H`` times its
tangent at the end."""


KEPT_BYTES = 256 << 20
"""Each thread keeps its last rows of states between runs up to this size (an optimiser
asks again and again, and fresh memory costs a page fault per page on first touch: 9.8 ->
5.8 ms at 12 qubits, 212 -> 180 ms at 16); larger ones are taken anew each run."""

_KEPT = threading.local()


class CurvatureSweep:
    """Value, gradient and exact Hessian of ``<H>`` for one
    :class:`~genqsim.differentiation.adjoint.AdjointProgram`, planned once (see the
    module's text) and run at any parameter values under the program's lock."""

    def __init__(self, program: AdjointProgram) -> None:
        self.program = program
        rotations = program.rotations
        # per rotation: its target, controls and control values
        self.places = [
            (call.targets[0], call.controls, call.control_values)
            for call, r in program.calls
            if r is not None
        ]
        # the calls from just after one rotation to the next (inclusive), and to the end
        pieces = _pieces(program.calls)
        self.forward = [
            [self._rotation_call(call, rotations.matrices, r) for call, r in piece]
            for piece in pieces
        ]
        self.backward = [
            [
                call.adjoint() if r is None else self._rotation_call(call, rotations.inverses, r)
                for call, r in reversed(piece)
            ]
            for piece in pieces
        ]
        if len(self.places) != rotations.c.size:
            raise ValueError("the program's calls and rotations disagree")
        self.slopes = np.zeros((rotations.c.size, rotations.n_parameters))
        np.add.at(self.slopes, (rotations.row, rotations.column), rotations.slope)
        self._masks: dict[tuple[tuple[int, ...], tuple[int, ...]], np.ndarray] = {}
        self._weights: dict[tuple[tuple[float, str], ...], dict[int, Any]] = {}

    def run(self, parameters: np.ndarray, terms: Any) -> tuple[float, np.ndarray, np.ndarray]:
        """``(<H>, gradient, Hessian)`` at ``parameters`` (in the program's order) for ``H``
        the sum of real-weighted Pauli ``terms``; the Hessian is symmetric. Its products of
        rows (a few rows by one state) run on one BLAS thread: more save nothing there, and
        idle BLAS threads that spin would hold the cores the kernels' threads wait for."""
        with BlasThreads() as blas:
            blas.use(1)
            return self._run(parameters, terms)

    def _run(self, parameters: np.ndarray, terms: Any) -> tuple[float, np.ndarray, np.ndarray]:
        """:meth:`run`'s work (see the module's text)."""
        program = self.program
        rotations = program.rotations
        count = rotations.c.size
        size = 1 << program.n_qubits
        psi = program.final_state(parameters)  # the rotations are evaluated here too
        lam = apply_pauli_sum(terms, psi, program.backend, program.numbers)
        energy = float(np.vdot(psi, lam).real)
        if count == 0:
            zero = np.zeros(rotations.n_parameters)
            return energy, zero, np.zeros((zero.size, zero.size))
        # i mu_l = i G_l lambda_l, last rotation first: Im <mu_l| x> = Re <i mu_l| x>, the
        # dot product of the two as real vectors (their interleaved floats)
        rows, readers, scratch = self._blocks(count, size)
        row = lam.reshape(1, size)
        for r in range(count - 1, -1, -1):
            self._apply(self.backward[r + 1], row)
            readers[r] = row[0]
            self._generator_times(r, readers[r], 1j * rotations.g[r])
        reader = readers.view(np.float64)
        # the state (row 0) and every tangent started so far (row 1 + k), carried forward
        rows[0] = 0
        rows[0, 0] = 1
        floats = rows.view(np.float64)
        first_term = np.zeros((count, count))
        gradient_theta = np.zeros(count)
        for r in range(count):
            self._apply(self.forward[r], rows[: r + 1])
            rows[r + 1] = rows[0]
            self._generator_times(r, rows[r + 1], -1j * rotations.g[r])
            reads = 2 * (floats[: r + 2] @ reader[r])  # 2 Im <mu_r| row>
            gradient_theta[r] = reads[0]
            first_term[: r + 1, r] = reads[1:]
        self._apply(self.forward[count], rows)
        second_term = 2 * self._real_gram(terms, rows[1:], scratch)
        upper = np.triu(first_term)
        hessian_theta = second_term + upper + np.triu(upper, 1).T
        a = self.slopes
        return energy, a.T @ gradient_theta, a.T @ hessian_theta @ a

    def _blocks(self, count: int, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rows of states a run fills: state and tangents, readers, scratch (the last
        two ``count`` rows). The calling thread keeps its last set up to
        :data:`KEPT_BYTES`, for the next run of this or another sweep of that shape."""
        kept = getattr(_KEPT, "blocks", None)
        if kept is not None and kept[0].shape == (count + 1, size):
            return cast("tuple[np.ndarray, np.ndarray, np.ndarray]", kept)
        _KEPT.blocks = None  # given back before the new ones are taken
        self._check_memory(count)
        rows = np.empty((count + 1, size), dtype=np.complex128)
        blocks = (rows, np.empty((count, size), rows.dtype), np.empty((count, size), rows.dtype))
        if 3 * rows.nbytes <= KEPT_BYTES:
            _KEPT.blocks = blocks
        return blocks

    def _real_gram(self, terms: Any, states: np.ndarray, scratch: np.ndarray) -> np.ndarray:
        """``Re <a_k| H |a_l>`` for every pair of rows of ``states``, as products of real
        matrices on the floats: per distinct X mask of the terms one product
        ``(A permuted * conj(d)) @ A^T``, ``d`` the terms' signs and weights summed
        (``X^x Z^z`` maps ``|j>`` to ``(-1)^{|j & z|} |j ^ x>``) and made once per
        observable."""
        n_qubits = states.shape[1].bit_length() - 1
        key = tuple((float(c), str(p)) for c, p in terms)
        if key not in self._weights:
            weights: dict[int, Any] = {}
            for coeff, pauli in terms:
                x, z, n_y = pauli_masks(pauli)
                signs = pauli_signs(n_qubits, z) if z else 1
                weights[x] = weights.get(x, 0) + (coeff * (-1j) ** (n_y % 4)) * signs
            self._weights = {key: weights}  # the last observable's only
        index = np.arange(states.shape[1], dtype=np.int64)
        floats = states.view(np.float64)
        total = np.zeros((states.shape[0], states.shape[0]))
        for x, d in self._weights[key].items():
            if x:
                np.take(states, index ^ x, axis=1, out=scratch)
                np.multiply(scratch, d, out=scratch)
            else:
                np.multiply(states, d, out=scratch)
            # Re(conj(u) v) = u_re v_re + u_im v_im: one real product on the floats
            total += scratch.view(np.float64) @ floats.T
        return total

    def _rotation_call(self, call: RunCall, buffer: np.ndarray, r: int | None) -> RunCall:
        """``call``, or for rotation ``r`` a call reading its matrix in ``buffer`` as it is
        evaluated: a diagonal call for a rotation diagonal at every angle (RZ, phases), whose
        kernel moves no amplitudes, else a matrix call."""
        if r is None:
            return call
        rotations = self.program.rotations
        if not (np.any(_off_diagonal(rotations.u0[r])) or np.any(_off_diagonal(rotations.ku0[r]))):
            return DiagonalCall(
                np.diagonal(buffer[r]), call.targets, call.controls, call.control_values
            )
        return _with_matrix(call, buffer, r)

    def _apply(self, calls: list[RunCall], rows: np.ndarray) -> None:
        """Run ``calls`` on every row of ``rows``: the rows in blocks of a power of two,
        each block one state of more qubits (the row number its highest bits), so every
        call is one pass of the backend's kernels over the block, threaded as any state of
        that size."""
        backend = self.program.backend
        start, left = 0, rows.shape[0]
        while left:
            chunk = 1 << (left.bit_length() - 1)
            block = rows[start : start + chunk].reshape(-1)
            for call in calls:
                call.run(backend, block)
            start, left = start + chunk, left - chunk

    def _generator_times(self, r: int, state: np.ndarray, matrix: np.ndarray) -> None:
        """``state <- matrix state`` on rotation ``r``'s target, zero where its controls
        are not met (its generator, restricted as the derivative of a controlled gate is)."""
        target, controls, values = self.places[r]
        self.program.backend.apply_matrix(state, matrix, (target,))
        if controls:
            key = (controls, values)
            if key not in self._masks:
                index = np.arange(state.size)
                met = np.ones(state.size, dtype=bool)
                for c, v in zip(controls, values):
                    met &= ((index >> c) & 1) == v
                self._masks[key] = met.astype(np.float64)
            state *= self._masks[key]

    def _check_memory(self, count: int) -> None:
        n = self.program.n_qubits
        try:
            check_state_fits(n, 16 * STATES_PER_ROTATION * count)
        except StateTooLargeError as error:
            raise StateTooLargeError(
                f"the exact Hessian keeps {STATES_PER_ROTATION} states of {n} qubits for each "
                f"of the circuit's {count} rotations, more than is free ({error}); ask for "
                "Hessian-vector products instead (hessian(..., direction=v))"
            ) from None


def _pieces(calls: list[tuple[RunCall, int | None]]) -> list[list[tuple[RunCall, int | None]]]:
    """``calls`` cut just after each rotation (the last piece may be empty)."""
    pieces: list[list[tuple[RunCall, int | None]]] = [[]]
    for call, r in calls:
        pieces[-1].append((call, r))
        if r is not None:
            pieces.append([])
    return pieces


def _off_diagonal(matrix: np.ndarray) -> np.ndarray:
    """The entries of a square matrix off its diagonal."""
    return matrix[~np.eye(matrix.shape[0], dtype=bool)]
