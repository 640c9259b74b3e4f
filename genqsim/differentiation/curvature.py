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

One backward run of ``lambda`` gives every ``mu_l`` and one forward run of the state every
tangent's start; then each tangent is carried alone from its start to the end of the
circuit, read against ``mu_l`` after each rotation ``l``. The work is about ``R / 2`` runs of
the circuit for ``R`` rotations, and ``<a_k| H |a_l>`` for all pairs is one real matrix
product. The runs are segments of two :class:`~genqsim.plan.BlockRun` (the circuit's calls
cut after each rotation) on a backend's
:class:`~genqsim.backends.SegmentRunner`: compiled, a tangent stays in cache, on one thread,
for all its segments and reads. Forward over reverse
(:func:`~genqsim.differentiation.gradients.hessian` on dual numbers) takes ``R`` sweeps on
object arrays instead. Memory: three states per rotation.
"""

from __future__ import annotations

import threading
from typing import Any, cast

import numpy as np

from ..backends import ReferenceSegmentRunner, SegmentRunner, capability
from ..errors import StateTooLargeError
from ..linalg.generic import pauli_signs
from ..linalg.pauli import pauli_masks
from ..plan import BlockRun, DiagonalCall, MatrixCall
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
        backend = program.backend
        self.runner = capability(backend, SegmentRunner) or ReferenceSegmentRunner(backend)
        rotations = program.rotations
        count = rotations.c.size
        # per rotation: its target, controls and control values
        places = [
            (call.targets[0], call.controls, call.control_values)
            for call, r in program.calls
            if r is not None
        ]
        if len(places) != count:
            raise ValueError("the program's calls and rotations disagree")
        # the calls from just after one rotation to the next (inclusive), and to the end:
        # forward the state and the tangents (started as -i G_r psi_r), backward lambda (its
        # copies i G_r lambda_r: the readers), from the end to just after rotation 0
        pieces = _pieces(program.calls)
        self.forward = _Segments(
            pieces,
            [_generator_calls(-1j * rotations.g[r], places[r]) for r in range(count)],
            rotations.matrices,
            program.n_qubits,
        )
        self.backward = _Segments(
            [
                [(call.adjoint() if r is None else call, r) for call, r in reversed(piece)]
                for piece in reversed(pieces[1:])
            ],
            [_generator_calls(1j * rotations.g[r], places[r]) for r in reversed(range(count))],
            rotations.inverses,
            program.n_qubits,
        )
        self.tangent_rows = np.arange(1, count + 1, dtype=np.int64)
        self.reader_rows = np.arange(count - 1, -1, -1, dtype=np.int64)
        self.starts = np.arange(-1, count, dtype=np.int64)  # the state, then each tangent
        self.slopes = np.zeros((count, rotations.n_parameters))
        np.add.at(self.slopes, (rotations.row, rotations.column), rotations.slope)
        self._weights: dict[tuple[tuple[float, str], ...], dict[int, Any]] = {}

    def run(self, parameters: np.ndarray, terms: Any) -> tuple[float, np.ndarray, np.ndarray]:
        """``(<H>, gradient, Hessian)`` at ``parameters`` (in the program's order) for ``H``
        the sum of real-weighted Pauli ``terms``; the Hessian is symmetric. Its products of
        rows run on one BLAS thread: more save nothing there, and idle BLAS threads that
        spin would hold the cores the kernels' threads wait for."""
        with BlasThreads() as blas:
            blas.use(1)
            return self._run(parameters, terms)

    def _run(self, parameters: np.ndarray, terms: Any) -> tuple[float, np.ndarray, np.ndarray]:
        """:meth:`run`'s work (see the module's text)."""
        program = self.program
        rotations = program.rotations
        count = rotations.c.size
        size = 1 << program.n_qubits
        rotations.evaluate(np.asarray(parameters, dtype=float))
        self.forward.update(program, rotations.matrices)
        self.backward.update(program, rotations.inverses)
        rows, readers, scratch = self._blocks(count, size)
        # the state (row 0) through the circuit; after rotation r, -i G_r psi_r into row 1 + r
        psi = rows[0]
        psi[:] = 0
        psi[0] = 1
        forward = self.forward
        self.runner.run_segment_snapshots(
            psi, forward.run, forward.bounds, rows, self.tangent_rows, forward.marks
        )
        lam = apply_pauli_sum(terms, psi, program.backend, program.numbers)
        energy = float(np.vdot(psi, lam).real)
        if count == 0:
            zero = np.zeros(rotations.n_parameters)
            return energy, zero, np.zeros((zero.size, zero.size))
        # lambda backward; just after rotation r, i mu_r = i G_r lambda_r into readers[r]:
        # Im <mu_r| x> = Re <i mu_r| x>, the dot product of the two as real vectors
        backward = self.backward
        self.runner.run_segment_snapshots(
            lam, backward.run, backward.bounds, readers, self.reader_rows, backward.marks
        )
        # the state (row 0, from the start) and each tangent (row 1 + k, from rotation k)
        # carried to the end, read against every reader on the way: 2 Im <mu_r| row>
        rows[0] = 0
        rows[0, 0] = 1
        reads = self.runner.run_segment_reads(
            rows, forward.run, forward.bounds, self.starts, readers
        )
        gradient_theta = 2 * reads[0]
        upper = 2 * reads[1:]  # [k, r]: tangent k read after rotation r >= k
        second_term = 2 * self._real_gram(terms, rows[1:], scratch)
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


def _generator_calls(
    matrix: np.ndarray, place: tuple[int, tuple[int, ...], tuple[int, ...]]
) -> list[RunCall]:
    """``matrix`` (a rotation's generator times a phase) on its target, then zero where its
    controls are not met: the generator as the derivative of the controlled gate has it."""
    target, controls, values = place
    calls: list[RunCall] = [MatrixCall(np.ascontiguousarray(matrix), (target,))]
    if controls:
        met = np.zeros(1 << len(controls), dtype=np.complex128)
        met[sum(v << i for i, v in enumerate(values))] = 1
        calls.append(DiagonalCall(met, tuple(controls)))
    return calls


class _Segments:
    """One sweep's calls as a :class:`~genqsim.plan.BlockRun`: the pieces in order (segment
    ``s`` is calls ``bounds[s]`` to ``bounds[s + 1] - 1``; rotations as matrix calls reading
    ``buffer``), then each copy's transform (calls ``marks[p]`` to ``marks[p + 1] - 1``)."""

    def __init__(
        self,
        pieces: list[list[tuple[RunCall, int | None]]],
        transforms: list[list[RunCall]],
        buffer: np.ndarray,
        n_qubits: int,
    ) -> None:
        calls: list[RunCall] = []
        bounds = [0]
        at: list[int] = []
        rotations: list[int] = []
        for piece in pieces:
            for call, r in piece:
                if r is not None:
                    at.append(len(calls))
                    rotations.append(r)
                calls.append(_with_matrix(call, buffer, r))
            bounds.append(len(calls))
        marks = [len(calls)]
        for transform in transforms:
            calls.extend(transform)
            marks.append(len(calls))
        self.run = BlockRun(cast(Any, calls), n_qubits)
        self.bounds = np.array(bounds, dtype=np.int64)
        self.marks = np.array(marks, dtype=np.int64)
        self.at = tuple(at)
        self.rotations = np.array(rotations, dtype=np.int64)

    def update(self, program: AdjointProgram, matrices: np.ndarray) -> None:
        """The rotations' current matrices into the backend's encoding of the run (its calls
        read ``buffer`` itself)."""
        program.steps.update_run_matrices(self.run, self.at, matrices[self.rotations])
