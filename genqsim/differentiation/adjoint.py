"""The adjoint sweep of one circuit, planned once and run at any parameter values.

An optimiser asks for the gradient of the same circuit again and again at new angles.
:class:`AdjointProgram` does the structural work once per circuit and parameter order: the
gate calls of the fixed gates, the forward and backward plans (the whole state as one block
when it fits a tile, else tiles over any qubits) with the backend's encoding of every block
run, and the affine map from the parameters to the rotation angles. A run then computes every
rotation matrix at once, ``U(theta) = exp(-i a theta) (cos(b theta) U(0) + sin(b theta) K U(0))``
for a generator ``G = a I + b (n . sigma)`` with ``K = -i n . sigma``, writes them into the
encoded runs in place (:meth:`~genqsim.backends.AdjointSteps.update_run_matrices`) and takes
the sweep with no Python per gate. The closed form keeps what is exact exact: RY's matrices
are real and RZ's diagonal, so the backend still picks its real and diagonal step kernels.

It serves complex128 sweeps on a backend with :class:`~genqsim.backends.AdjointSteps` whose
parametrised gates are all one-target gates with a Pauli generator (rotations, phase gates,
controlled or not) and angles affine in the parameters; :mod:`genqsim.differentiation.gradients`
takes every other sweep gate by gate.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from ..backends import AdjointSteps, SweepRunner, capability
from ..circuit.circuit import Operation
from ..circuit.gates import pauli_generator, with_parameters
from ..linalg.pauli import PAULI_MATRICES
from ..numbers import NumberSystem
from ..plan import (
    BlockRun,
    GateCall,
    MatrixCall,
    PlanItem,
    block_layout_of,
    call_for,
    group_tile_runs,
)
from ..plan.build import run_item
from ..plan.grouping import RunCall, group_block_runs
from ..states.tangent import apply_pauli_sum, pauli_sum_rows, real_inner
from ..support.lazysympy import is_sympy

EXACT_TOLERANCE = 1e-12
"""The closed form of a rotation must match the gate library's matrix to this at a test angle,
or the circuit is swept gate by gate."""


def affine_angle(angle: Any, index: dict[Any, int]) -> tuple[float, list[tuple[int, float]]] | None:
    """``(c, [(k, a_k)])`` with ``angle = c + sum a_k p_k`` over the parameters ``p_k`` (their
    positions in ``index``), or ``None`` when the angle is not affine in them."""
    if angle in index:
        return 0.0, [(index[angle], 1.0)]
    if not is_sympy(angle) or not angle.free_symbols <= set(index):
        return None
    own = sorted(angle.free_symbols, key=lambda p: index[p])
    slopes = []
    try:
        for p in own:
            slope = angle.diff(p)
            if slope.free_symbols:
                return None
            slopes.append((index[p], float(slope)))
        return float(angle.subs({p: 0 for p in own})), slopes
    except TypeError:  # a complex coefficient: not an angle
        return None


def _dense(op: Operation, theta: float, numbers: NumberSystem) -> np.ndarray:
    """The 2x2 matrix of ``op``'s gate at angle ``theta`` (controls not included)."""
    gate = with_parameters(op.gate, [theta])
    call = None if gate is None else call_for(Operation(gate, op.targets), numbers)
    if not isinstance(call, GateCall):
        return np.eye(2, dtype=np.complex128)  # the identity gate
    return np.asarray(call.dense(), dtype=np.complex128)


class _Rotations:
    """The parametrised gates of a circuit, all evaluated at once: each a one-target gate
    ``U(theta) = exp(-i theta G) U(0)`` with ``theta`` affine in the parameters."""

    def __init__(self, n_parameters: int) -> None:
        self.n_parameters = n_parameters
        self.generators: list[np.ndarray] = []
        self.start: list[np.ndarray] = []  # U(0)
        self.turned: list[np.ndarray] = []  # K U(0)
        self.phase_rates: list[float] = []  # a
        self.rates: list[float] = []  # b
        self.offsets: list[float] = []
        self.rows: list[int] = []  # (rotation, parameter, slope) of the angle map
        self.columns: list[int] = []
        self.slopes: list[float] = []

    def add(self, op: Operation, angle: tuple[float, list[tuple[int, float]]],
            numbers: NumberSystem) -> int | None:  # fmt: skip
        """Register ``op`` (angle ``(c, [(k, a_k)])``); its index, or ``None`` when its
        matrix is not of the closed form (then the circuit is swept gate by gate)."""
        terms = pauli_generator(op.gate)
        if terms is None or len(op.targets) != 1:
            return None
        g = np.sum(
            [c * np.asarray(PAULI_MATRICES[p], dtype=np.complex128) for c, p in terms], axis=0
        )
        a = float(np.real(np.trace(g))) / 2
        axis = np.array([np.real(g[0, 1]), np.imag(g[1, 0]), np.real(g[0, 0] - g[1, 1]) / 2])
        b = float(np.linalg.norm(axis))
        turn = np.zeros((2, 2), dtype=np.complex128)
        if b > 0:
            sigma = sum(x * PAULI_MATRICES[p] for x, p in zip(axis / b, "XYZ") if x != 0)
            turn = -1j * np.asarray(sigma, dtype=np.complex128)
        u0 = _dense(op, 0.0, numbers)
        test = 1.3
        closed = np.exp(-1j * a * test) * (np.cos(b * test) * u0 + np.sin(b * test) * turn @ u0)
        if not np.allclose(closed, _dense(op, test, numbers), rtol=0, atol=EXACT_TOLERANCE):
            return None
        r = len(self.generators)
        self.generators.append(g)
        self.start.append(u0)
        self.turned.append(turn @ u0)
        self.phase_rates.append(a)
        self.rates.append(b)
        self.offsets.append(angle[0])
        for k, slope in angle[1]:
            self.rows.append(r)
            self.columns.append(k)
            self.slopes.append(slope)
        return r

    def freeze(self) -> None:
        """Stack the registered gates; :attr:`matrices` and :attr:`inverses` are the
        buffers every call of the plans reads (views of them)."""
        count = len(self.generators)
        shape = (count, 2, 2)
        stack = lambda items: np.array(items, dtype=np.complex128).reshape(shape)  # noqa: E731
        self.g = stack(self.generators)
        self.u0 = stack(self.start)
        self.ku0 = stack(self.turned)
        self.a = np.array(self.phase_rates)
        self.b = np.array(self.rates)
        self.c = np.array(self.offsets)
        self.row = np.array(self.rows, dtype=np.int64)
        self.column = np.array(self.columns, dtype=np.int64)
        self.slope = np.array(self.slopes)
        self.matrices = np.empty(shape, dtype=np.complex128)
        self.inverses = np.empty(shape, dtype=np.complex128)

    def evaluate(self, parameters: np.ndarray) -> None:
        """Every matrix and inverse at ``parameters``, in the buffers."""
        weights = self.slope * parameters[self.column]
        theta = self.c + np.bincount(self.row, weights, minlength=self.c.size)
        cos = np.cos(self.b * theta)[:, None, None]
        sin = np.sin(self.b * theta)[:, None, None]
        phase = np.exp(-1j * self.a * theta)[:, None, None]
        np.multiply(phase, cos * self.u0 + sin * self.ku0, out=self.matrices)
        np.conjugate(self.matrices.transpose(0, 2, 1), out=self.inverses)

    def gradient(self, imag: np.ndarray) -> np.ndarray:
        """``dE/dp_k = sum_r 2 Im <lam| G_r |psi> d theta_r / d p_k``."""
        weights = 2 * imag[self.row] * self.slope
        return np.bincount(self.column, weights, minlength=self.n_parameters)

    def at_points(self, parameters: np.ndarray) -> np.ndarray:
        """Every matrix at every row of ``parameters``: ``(points, rotations, 2, 2)``."""
        to_angle = np.zeros((self.row.size, self.c.size))
        to_angle[np.arange(self.row.size), self.row] = 1
        theta = self.c + (self.slope * parameters[:, self.column]) @ to_angle
        cos = np.cos(self.b * theta)[..., None, None]
        sin = np.sin(self.b * theta)[..., None, None]
        phase = np.exp(-1j * self.a * theta)[..., None, None]
        return phase * (cos * self.u0 + sin * self.ku0)

    def gradient_at_points(self, imag: np.ndarray) -> np.ndarray:
        """:meth:`gradient` of every row of ``imag`` (``(points, rotations)``)."""
        to_parameter = np.zeros((self.row.size, self.n_parameters))
        to_parameter[np.arange(self.row.size), self.column] = 1
        return (2 * imag[:, self.row] * self.slope) @ to_parameter


class _Products:
    """The forward pass's products of adjacent one-target gates on the same qubit under the
    same controls (a layer's RY then RZ), each with at least one rotation: one pass over the
    state per product instead of one per gate (the backward sweep needs every gate alone, for
    its gradient term). All products are evaluated at once, position by position."""

    def __init__(self) -> None:
        self.chains: list[list[tuple[int | None, np.ndarray]]] = []  # (rotation, or a matrix)
        self.matrices = np.empty((0, 2, 2), dtype=np.complex128)
        self.positions: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def add(self, chain: list[tuple[int | None, np.ndarray]]) -> int:
        """Register a chain (in circuit order); its index in :attr:`matrices`."""
        self.chains.append(chain)
        return len(self.chains) - 1

    def freeze(self) -> None:
        """The buffer, and per position: (chains that long, their rotations, which of them
        are rotations, the fixed matrices)."""
        self.matrices = np.empty((len(self.chains), 2, 2), dtype=np.complex128)
        for j in range(max((len(c) for c in self.chains), default=0)):
            at = [i for i, chain in enumerate(self.chains) if len(chain) > j]
            sources = [self.chains[i][j] for i in at]
            self.positions.append((
                np.array(at, dtype=np.int64),
                np.array([0 if r is None else r for r, _ in sources], dtype=np.int64),
                np.array([r is not None for r, _ in sources]),
                np.array([m for _, m in sources], dtype=np.complex128).reshape(-1, 2, 2),
            ))  # fmt: skip

    def at_points(self, rotations: np.ndarray) -> np.ndarray:
        """Every product at every point, from ``(points, rotations, 2, 2)`` matrices."""
        out = np.empty((rotations.shape[0], len(self.chains), 2, 2), dtype=np.complex128)
        out[:] = np.eye(2)
        for at, rotation, is_rotation, fixed in self.positions:
            factor = np.where(is_rotation[:, None, None], rotations[:, rotation], fixed)
            out[:, at] = factor @ out[:, at]
        return out

    def evaluate(self, rotations: np.ndarray) -> None:
        """Every product, from the rotations' current matrices."""
        self.matrices[...] = np.eye(2)
        for at, rotation, is_rotation, fixed in self.positions:
            factor = np.where(is_rotation[:, None, None], rotations[rotation], fixed)
            self.matrices[at] = factor @ self.matrices[at]


class AdjointProgram:
    """``(<H>, dE/dp)`` of one unitary circuit at any parameter values (see the module's
    text). Built by :meth:`plan`, which says ``None`` for circuits it does not serve."""

    def __init__(self, n_qubits: int, backend: Any, numbers: NumberSystem) -> None:
        self.n_qubits = n_qubits
        self.backend = backend
        self.numbers = numbers
        self.steps: Any = capability(backend, AdjointSteps)
        self.forward: list[Any] = []
        self.backward: list[Any] = []
        # per block run: (positions of its rotations, their indices), and for backward runs
        # the generator of each call (None: un-apply only)
        self.updates: dict[int, tuple[tuple[int, ...], np.ndarray]] = {}
        self.generators: dict[int, list[Any]] = {}
        self.rotation_of: dict[int, int] = {}  # id(call) -> rotation, for lone calls
        # the circuit's calls in order, each with its rotation (rotations as matrix calls
        # with no matrix yet): what other sweeps over the same circuit are planned from
        self.calls: list[tuple[RunCall, int | None]] = []
        self.rotations = _Rotations(0)
        self.products = _Products()
        self.lock = threading.Lock()  # one run at a time: the rotations' buffers are shared

    @classmethod
    def plan(
        cls,
        n_qubits: int,
        operations: Sequence[Operation],
        parameters: Sequence[Any],
        backend: Any,
        numbers: NumberSystem,
    ) -> AdjointProgram | None:
        """The program for ``operations`` (unitary, barriers removed) differentiated in
        ``parameters``, or ``None`` when it does not serve them (see the module's text)."""
        layout = block_layout_of(backend, np.dtype(np.complex128), tiles=True)
        if capability(backend, AdjointSteps) is None or layout is None:
            return None
        program = cls(n_qubits, backend, numbers)
        index = {p: k for k, p in enumerate(parameters)}
        rotations = _Rotations(len(parameters))
        calls: list[tuple[RunCall, int | None]] = []
        for op in operations:
            if not op.gate.free_symbols.isdisjoint(index):
                angle = affine_angle(op.gate.params[0], index)
                r = None if angle is None else rotations.add(op, angle, numbers)
                if r is None:
                    return None
                calls.append((MatrixCall(None, op.targets, op.controls, op.control_values), r))
                continue
            call = call_for(op, numbers)
            if isinstance(call, GateCall):
                calls.append((cast(RunCall, call), None))
            elif call is not None:
                return None
        rotations.freeze()
        program.rotations = rotations
        program.calls = calls
        forward, product_at = program._forward_products(calls)
        backward = [
            call.adjoint() if r is None else _with_matrix(call, rotations.inverses, r)
            for call, r in reversed(calls)
        ]
        rotation_at = {
            id(call): r for (_, r), call in zip(reversed(calls), backward) if r is not None
        }
        tile = layout.tile_qubits
        if n_qubits <= tile:  # the whole state is one block, of either sweep
            program.forward = [BlockRun(forward, n_qubits)] if len(forward) > 1 else forward
            program.backward = [BlockRun(backward, n_qubits)] if len(backward) > 1 else backward
        else:  # forward in cache blocks (of at most a quarter of the state), backward in
            # tiles over any qubits
            blocks = block_layout_of(backend, np.dtype(np.complex128))
            block = min(tile if blocks is None else blocks.tile_qubits, n_qubits - 2)
            program.forward = group_block_runs(cast(list[PlanItem], forward), n_qubits, block)
            program.backward = group_tile_runs(backward, n_qubits, tile, layout.low_qubits)
        for plan, matrices, source in (
            (program.forward, None, product_at),
            (program.backward, rotations.g, rotation_at),
        ):
            for item in plan:
                if not isinstance(item, BlockRun):
                    if matrices is not None and id(item) in source:  # a lone gradient step
                        program.rotation_of[id(item)] = source[id(item)]
                    continue
                owned = [(g, source[id(c)]) for g, c in enumerate(item.calls) if id(c) in source]
                program.updates[id(item)] = (
                    tuple(g for g, _ in owned),
                    np.array([r for _, r in owned], dtype=np.int64),
                )
                if matrices is not None:
                    of = dict(owned)
                    program.generators[id(item)] = [
                        None if g not in of else matrices[of[g]] for g in range(len(item.calls))
                    ]
        return program

    def _forward_products(
        self, calls: list[tuple[RunCall, int | None]]
    ) -> tuple[list[RunCall], dict[int, int]]:
        """The forward pass's calls, adjacent one-target gates on one qubit (under the same
        controls) with a rotation among them taken as one product (see :class:`_Products`),
        and ``{id(call): product}`` for those."""
        out: list[RunCall | tuple[int, RunCall]] = []  # calls, or (product, its first call)
        chain: list[tuple[RunCall, int | None]] = []

        def close() -> None:
            if not any(r is not None for _, r in chain):
                out.extend(call for call, _ in chain)
            else:
                f = self.products.add([
                    (r, np.eye(2) if r is not None else np.asarray(call.dense(), complex))
                    for call, r in chain
                ])  # fmt: skip
                out.append((f, chain[0][0]))
            chain.clear()

        for call, r in calls:
            if len(call.targets) == 1 and chain and _same_place(chain[0][0], call):
                chain.append((call, r))
                continue
            close()
            if len(call.targets) == 1:
                chain.append((call, r))
            else:
                out.append(call)
        close()
        self.products.freeze()
        forward: list[RunCall] = []
        product_at: dict[int, int] = {}
        for item in out:
            if isinstance(item, tuple):
                f, first = item
                item = _with_matrix(first, self.products.matrices, f)
                product_at[id(item)] = f
            forward.append(item)
        return forward, product_at

    def run(self, parameters: np.ndarray, terms: Any) -> tuple[float, np.ndarray]:
        """``(<H>, [dE/dp_k])`` at ``parameters`` (in the planned order) for ``H`` the sum
        of real-weighted Pauli ``terms``."""
        rotations = self.rotations
        psi = self.final_state(parameters)
        backend, numbers = self.backend, self.numbers
        lam = apply_pauli_sum(terms, psi, backend, numbers)
        energy = float(np.real(real_inner(psi, lam, backend, numbers)))
        imag = np.zeros(rotations.c.size)
        for item in self.backward:
            if isinstance(item, BlockRun):
                indices = self._refresh(item, rotations.inverses)
                generators = self.generators[id(item)]
                imag[indices] = self.steps.adjoint_block_run(psi, lam, item, generators)
            elif id(item) in self.rotation_of:
                r = self.rotation_of[id(item)]
                imag[r] = self.steps.adjoint_step_1q(
                    psi, lam, rotations.inverses[r], rotations.g[r], item.targets[0],
                    item.controls, item.control_values,
                )  # fmt: skip
            else:
                item.run(backend, psi)
                item.run(backend, lam)
        return energy, rotations.gradient(imag)

    def final_state(self, parameters: np.ndarray) -> np.ndarray:
        """The circuit's state at ``parameters`` (in the planned order), the rotations'
        matrices and inverses left evaluated there."""
        rotations = self.rotations
        rotations.evaluate(np.asarray(parameters, dtype=float))
        self.products.evaluate(rotations.matrices)
        psi = self.backend.zeros(self.n_qubits, self.numbers)
        for item in self.forward:
            self._refresh(item, self.products.matrices)
            run_item(item, self.backend, psi)
        return cast(np.ndarray, psi)

    def run_points(
        self, parameters: np.ndarray, terms: Any
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """``(<H>, dE/dp)`` at every row of ``parameters`` (``(points, parameters)``, in the
        planned order) at once: every rotation and product for every point computed
        together, the forward run and the backward steps of all points each in one kernel
        call (a backend's :class:`~genqsim.backends.SweepRunner`, the threads taking the
        points). ``None`` where the sweep is not one run over the whole state each way or the
        backend does not run sweeps (then :meth:`run` serves each point)."""
        runner = capability(self.backend, SweepRunner)
        forward, backward = self.forward, self.backward
        if runner is None or not (len(forward) == len(backward) == 1):
            return None
        run_f, run_b = forward[0], backward[0]
        if not (isinstance(run_f, BlockRun) and isinstance(run_b, BlockRun)):
            return None
        if run_f.block_qubits != self.n_qubits or run_b.block_qubits != self.n_qubits:
            return None
        points = parameters.shape[0]
        matrices = self.rotations.at_points(np.asarray(parameters, dtype=float))
        inverses = np.conj(matrices).swapaxes(-1, -2)
        products = self.products.at_points(matrices)
        dtype = np.dtype(np.complex128)
        psi = np.zeros((points, 1 << self.n_qubits), dtype=dtype)
        psi[:, 0] = 1
        runner.apply_block_run_points(psi, run_f, self._numbers_of(runner, run_f, products))
        lam = pauli_sum_rows(terms, psi)
        energies = np.einsum("pj,pj->p", np.conj(psi), lam).real
        data = self._numbers_of(runner, run_b, inverses)
        generators = self.generators[id(run_b)]
        steps = runner.adjoint_block_run_points(psi, lam, run_b, generators, data)
        imag = np.zeros((points, self.rotations.c.size))
        imag[:, self.updates[id(run_b)][1]] = steps
        return energies, self.rotations.gradient_at_points(imag)

    def _numbers_of(self, runner: Any, run: BlockRun, matrices: np.ndarray) -> np.ndarray:
        """The encoded numbers of ``run`` at every point: its fixed calls' as encoded, its
        rotations' (or products') 2x2 ``matrices[p]`` in their places."""
        positions, indices = self.updates.get(id(run), ((), np.zeros(0, dtype=np.int64)))
        base, places = runner.sweep_layout(run, np.dtype(np.complex128), positions)
        data = np.empty((matrices.shape[0], base.size), dtype=np.complex128)
        data[:] = base
        if places:
            where = np.concatenate([w for w, _ in places])
            data[:, where] = matrices[:, indices].reshape(matrices.shape[0], -1)
        return data

    def _refresh(self, item: Any, matrices: np.ndarray) -> np.ndarray:
        """Write the current matrices of a block run's rotations (or products) into its
        encoding; their indices in ``matrices``, in the run's order."""
        positions, indices = self.updates.get(id(item), ((), np.zeros(0, dtype=np.int64)))
        if positions:
            self.steps.update_run_matrices(item, positions, matrices[indices])
        return indices


def _same_place(a: GateCall, b: GateCall) -> bool:
    """Whether two one-target calls act on the same qubit under the same controls."""
    return (a.targets, a.controls, a.control_values) == (b.targets, b.controls, b.control_values)


def _with_matrix(call: RunCall, buffer: np.ndarray, r: int | None) -> RunCall:
    """``call`` itself, or a matrix call on its qubits reading ``buffer[r]`` (a view: the
    call sees every new evaluation)."""
    if r is None:
        return call
    return MatrixCall(buffer[r], call.targets, call.controls, call.control_values)
