"""A state vector spread over MPI ranks (``method="mpi"``).

Under ``mpiexec -n R`` (``R = 2**k``) every rank holds ``2**(n-k)`` contiguous amplitudes and
runs the same program; every method of :class:`DistributedStateVector` is collective (all
ranks call it, in the same order) and returns the same result on every rank.

How a gate runs depends on where its qubits sit (:class:`~.layout.QubitLayout`):

* targets and controls on local positions: the backend's own kernel on the local slice;
* a diagonal gate with targets on rank bits: never communicates (each rank fixes those bits
  and applies the rest of the diagonal, or a constant factor);
* controls on rank bits: ranks whose bits fail them skip the gate, the others drop them;
* a SWAP gate: the layout records that its qubits traded places (no data moves);
* a dense or permutation gate with a target on a rank bit: that rank bit trades places with
  the local position whose qubit is needed again furthest in the future (each rank exchanges
  half of its slice with one partner), and the gate runs locally. With ``remap=False``, or for
  a one-target gate with local controls whose target is not needed again soon, the two
  partner ranks instead exchange just the amplitudes that satisfy the local controls and each
  combines its own row of the gate.

Mid-circuit measurement, reset, noise channels (one Kraus branch per run, as trajectories
draw them) and classically conditioned gates work as on a single process: outcomes are drawn
on rank 0 and broadcast.
"""

from __future__ import annotations

import contextlib
import numbers as _abc
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..backends import Backend, DeviceSelector, ThreadScoped, backend_for, capability
from ..circuit.circuit import Circuit, Operation
from ..errors import (
    ArgumentTypeError,
    ArgumentValueError,
    InvalidProbabilityError,
    NumberTypeError,
    QubitCountMismatchError,
    QubitIndexError,
    StateShapeError,
    StateTooLargeError,
)
from ..linalg.pauli import PauliSum
from ..numbers import Number, NumberSystem, get_number_system
from ..plan import (
    DiagonalCall,
    PlanItem,
    build_plan,
    check_bound,
)
from ..plan.fusion import fuse_circuit
from ..states import sampling
from ..states.base import StateBase, check_qubit_count
from ..states.options import RunOptions, run_threads
from ..states.protocol import Seed
from ..states.statevector import StateVector, kept_first, pure_state_entropy
from ..support.cpus import node_cpus, usable_cpus
from ..support.memory import check_state_fits
from ..support.optional import require
from ..support.progress import bar_for
from ..support.validation import as_qubit_tuple, check_n_qubits
from .collective import collective
from .exchange import DEFAULT_CHUNK, CommunicationStats, Exchanger, subspace
from .layout import QubitLayout, initial_layout
from .options import MPIOptions
from .runner import PlanRun
from .schedule import Swap, schedule

if TYPE_CHECKING:
    from ..states.density import DensityMatrix
    from ..states.registry import SimulationRequest

MACHINE_NUMBERS = ("complex128", "complex64")


def world() -> Any:
    """``MPI.COMM_WORLD`` (importing mpi4py initialises MPI), or a clear error without it."""
    mpi = require("mpi4py.MPI", "mpi", "method='mpi'", ArgumentValueError)
    return mpi.COMM_WORLD


def _rank_bits(size: int) -> int:
    if size < 1 or size & (size - 1):
        raise ArgumentValueError(
            f"method='mpi' needs a power-of-two number of ranks, got {size} "
            "(run under mpiexec -n 1, 2, 4, 8, ...)"
        )
    return size.bit_length() - 1


class DistributedStateVector(StateBase):
    """A pure state of ``n_qubits`` qubits spread over the ranks of ``comm`` (see the module
    docs). ``local_amplitudes`` is this rank's slice, in the current :attr:`layout`'s order."""

    def __init__(
        self,
        n_qubits: int,
        numbers: str | NumberSystem = "complex128",
        comm: Any = None,
        backend: str | None = None,
        device: str | None = None,
        options: RunOptions | None = None,
        initial: Any = None,
    ) -> None:
        n = check_n_qubits(n_qubits)
        ns = get_number_system(numbers)
        if ns.name not in MACHINE_NUMBERS:
            raise NumberTypeError(
                f"method='mpi' runs {' or '.join(MACHINE_NUMBERS)} amplitudes, not {ns.name!r}"
            )
        self.comm = world() if comm is None else comm
        self.rank, self.size = int(self.comm.Get_rank()), int(self.comm.Get_size())
        k = _rank_bits(self.size)
        if k >= n:
            raise ArgumentValueError(
                f"{self.size} ranks are too many for {n} qubits: each rank needs at least one "
                f"local qubit (at most {1 << (n - 1)} ranks)"
            )
        self.n_qubits = n
        self.numbers: NumberSystem = ns
        self.options = MPIOptions.of(options)
        self.local_qubits = n - k
        self.backend: Backend = backend_for(ns, device, backend)
        self._share_node()
        self._fits_everywhere(self.local_qubits, ns.dtype.itemsize)  # this rank's slice
        self.layout = QubitLayout(n, self.local_qubits)
        self._local = self.backend.zeros(self.local_qubits, ns)
        chunk = self.options.exchange_chunk or DEFAULT_CHUNK
        self._exchanger = Exchanger(self.comm, self.backend, ns, chunk)
        self.clbits: dict[int, int] = {}
        self._basis: int | None = None  # the basis index while the state is still one
        self._set_initial(initial)

    # -- construction ----------------------------------------------------------------------------
    def _set_initial(self, initial: Any) -> None:
        if initial is None:
            self._place_basis(0)
        elif isinstance(initial, str):
            if not initial or set(initial) - {"0", "1"} or len(initial) != self.n_qubits:
                raise ArgumentValueError(
                    f"an initial bitstring has {self.n_qubits} characters 0/1, got {initial!r}"
                )
            self._place_basis(int(initial, 2))
        elif isinstance(initial, (_abc.Integral, np.integer)) and not isinstance(initial, bool):
            if not 0 <= int(initial) < 1 << self.n_qubits:
                raise QubitIndexError(f"basis index {initial} out of range for {self.n_qubits}")
            self._place_basis(int(initial))
        else:
            full = initial.to_numpy() if isinstance(initial, StateVector) else np.asarray(initial)
            if full.shape != (1 << self.n_qubits,):
                raise StateShapeError(
                    f"an initial state of {self.n_qubits} qubits has {1 << self.n_qubits} "
                    f"amplitudes, got shape {full.shape}"
                )
            if not np.all(np.isfinite(full)):
                raise ArgumentValueError("initial amplitudes must be finite")
            size = 1 << self.local_qubits
            mine = full[self.rank * size : (self.rank + 1) * size]
            self._local[...] = self.backend.asarray(mine, self.numbers)

    def _place_basis(self, index: int) -> None:
        """Make the state ``|index>`` (logical), in the current layout."""
        self._basis = index
        self._local[...] = 0
        physical = self._physical_index(index)
        if physical >> self.local_qubits == self.rank:
            self._local[physical & ((1 << self.local_qubits) - 1)] = 1

    def _share_node(self) -> None:
        """Ranks on one node share it: each takes the GPU ``(rank on node) mod (GPUs)``,
        and, unless ``threads`` was given, an equal share of the node's cores."""
        if self.size == 1:
            return
        mpi = require("mpi4py.MPI", "mpi", "method='mpi'", ArgumentValueError)
        node = self.comm.Split_type(mpi.COMM_TYPE_SHARED)
        on_node, here = int(node.Get_rank()), int(node.Get_size())
        selector = capability(self.backend, DeviceSelector)
        if selector is not None:
            selector.use_device(on_node % max(1, selector.device_count()))
        scoped = capability(self.backend, ThreadScoped)
        if scoped is not None and self.options.threads is None:
            node = node_cpus()  # ranks bound by mpiexec see their own cores in usable_cpus
            share = max(1, min(scoped.max_threads(), usable_cpus(), node // here))
            self.options = replace(self.options, threads=share)

    def _fits_everywhere(self, n_qubits: int, itemsize: int, only: int | None = None) -> None:
        """:func:`~genqsim.support.memory.check_state_fits` on every rank (or on rank ``only``), and
        the same error on all of them if it fails on one: a rank that raised alone would
        leave the others waiting in the next collective."""
        problem = None
        if only is None or only == self.rank:
            try:
                check_state_fits(n_qubits, itemsize)
            except StateTooLargeError as exc:
                problem = f"rank {self.rank}: {exc}"
        failed = [m for m in self.comm.allgather(problem) if m is not None]
        if failed:
            raise StateTooLargeError(failed[0])

    def _physical_index(self, logical: int) -> int:
        return self.layout.physical_mask(logical)

    # -- access ----------------------------------------------------------------------------------
    @property
    def local_amplitudes(self) -> Any:
        """This rank's slice (positions of :attr:`layout`, not logical order)."""
        return self._local

    @property
    def communication(self) -> CommunicationStats:
        """What this rank has sent so far (bytes, messages, seconds, calls by class)."""
        return self._exchanger.stats

    def __repr__(self) -> str:
        return (
            f"<DistributedStateVector: {self.n_qubits} qubits on {self.size} ranks "
            f"({self.local_qubits} local), numbers={self.numbers.name!r}, "
            f"backend={self.backend.name!r}>"
        )

    def copy(self) -> DistributedStateVector:
        """An independent copy (collective only in that every rank copies its slice)."""
        other = object.__new__(DistributedStateVector)
        other.__dict__.update(self.__dict__)
        other._local = self._local.copy()
        other.layout = self.layout.copy()
        other.clbits = dict(self.clbits)
        other._exchanger = Exchanger(self.comm, self.backend, self.numbers, self._exchanger.chunk)
        return other

    @collective
    def gather(self, root: int = 0) -> np.ndarray | None:
        """The whole state, in logical order, on rank ``root`` (``None`` on the others);
        checks that it fits there first."""
        self._fits_everywhere(self.n_qubits, self.numbers.dtype.itemsize, only=root)
        local = self.backend.to_numpy(self._local)
        full = np.empty(1 << self.n_qubits, dtype=local.dtype) if self.rank == root else None
        self.comm.Gather(local, full, root=root)
        return None if full is None else self._logical_order(full)

    @collective
    def to_numpy(self) -> np.ndarray:
        """The whole state, in logical order, on every rank."""
        self._fits_everywhere(self.n_qubits, self.numbers.dtype.itemsize)
        local = self.backend.to_numpy(self._local)
        full = np.empty(1 << self.n_qubits, dtype=local.dtype)
        self.comm.Allgather(local, full)
        return self._logical_order(full)

    def _logical_order(self, physical: np.ndarray) -> np.ndarray:
        if self.layout.is_identity:
            return physical
        n = self.n_qubits
        # axis a of the (2,)*n tensor is bit n-1-a; logical bit q lives at bit position[q]
        axes = [n - 1 - self.layout.position[n - 1 - a] for a in range(n)]
        return np.ascontiguousarray(physical.reshape((2,) * n).transpose(axes)).reshape(-1)

    # -- evolution -------------------------------------------------------------------------------
    @collective
    def apply(
        self, circuit: Circuit | Operation, seed: Seed = None, progress: bool | None = None
    ) -> DistributedStateVector:
        """Apply ``circuit`` in place (collective) and return ``self``. The whole circuit is
        validated and planned before any amplitude changes. ``seed`` drives mid-circuit
        measurements and channel branches (drawn on rank 0)."""
        circuit = self.check_circuit(circuit)
        with self.numbers.context():
            plan = self._plan(circuit)
        self._check_widths(plan)
        if self.options.remap:
            if self._basis is not None:
                self.layout = initial_layout(self.n_qubits, self.local_qubits, plan)
                self._place_basis(self._basis)
            steps: Sequence[int | Swap] = schedule(plan, self.layout.copy())
        else:
            steps = range(len(plan))
        if plan:
            self._basis = None
        run = PlanRun(self, sampling.rng(seed) if self.rank == 0 else None)
        progress = self.options.progress if progress is None else progress
        bar = bar_for(
            bool(progress) and self.rank == 0, len(plan), len(plan) * 2.0**self.n_qubits,
            f"{self.n_qubits} qubits on {self.size} ranks",
        )  # fmt: skip
        with self.numbers.context(), self._threads():
            done = 0
            for step in steps:
                if isinstance(step, Swap):
                    run.flush()
                    self._swap_positions(step.local, step.rank)
                    continue
                run.item(plan[step], step)
                done += 1
                if bar is not None:
                    bar.update(done)
            run.flush()
        if bar is not None:
            bar.close()
        return self

    def _plan(self, circuit: Circuit) -> list[PlanItem]:
        """The circuit's calls. By default only runs of one-qubit gates on one qubit are fused:
        a wider fused block would turn a control on a rank bit (free) into a target (an
        exchange). An explicit ``fuse`` width is honoured, capped at the local qubits."""
        fuse = self.options.fuse
        if fuse is None or fuse is True:
            check_bound(circuit, self.numbers)
            return build_plan(fuse_circuit(circuit, self.numbers, 1, 1), self.numbers, False)
        width = fuse if fuse is False else min(int(fuse), self.local_qubits)
        return build_plan(circuit, self.numbers, width)

    def _check_widths(self, plan: Sequence[PlanItem]) -> None:
        for item in plan:
            width = len(item.targets)  # type: ignore[union-attr]
            if width > self.local_qubits:
                raise ArgumentValueError(
                    f"a {width}-qubit gate needs {width} local qubits, but {self.size} ranks "
                    f"leave {self.local_qubits} of {self.n_qubits}: use fewer ranks"
                )

    def _threads(self) -> contextlib.AbstractContextManager[None]:
        return run_threads(self.backend, self.options)

    # -- layout changes (collective, invisible to results) ---------------------------------------
    def _swap_positions(self, p: int, r: int) -> None:
        """Trade the qubits at positions ``p`` and ``r``: the amplitudes move as a SWAP gate
        on those positions moves them, and the layout records the trade, so the state itself
        is unchanged."""
        self._swap_amplitudes(p, r)
        self.layout.swap_positions(p, r)

    def _swap_amplitudes(self, p: int, r: int) -> None:
        """A SWAP gate on positions ``p`` and ``r`` (collective): local positions swap within
        a slice; a local and a rank position trade half of each slice with one partner; two
        rank positions trade whole slices between the ranks whose two bits differ."""
        if p > r:
            p, r = r, p
        L = self.local_qubits
        if r < L:
            self.backend.apply_permutation(self._local, [0, 2, 1, 3], None, (p, r))
        elif p < L:
            bit = (self.rank >> (r - L)) & 1
            view = subspace(self._local, L, {p: 1 - bit})
            self._exchanger.swap(view, self.rank ^ (1 << (r - L)))
            self._exchanger.stats.count("swap")
        else:
            mask = (1 << (p - L)) | (1 << (r - L))
            if bin(self.rank & mask).count("1") == 1:
                self._exchanger.swap(self._local, self.rank ^ mask)
            self._exchanger.stats.count("swap")

    def _make_local(self, qubits: Sequence[int]) -> None:
        """Bring ``qubits`` onto local positions, each trading places with the qubit on the
        highest local position that is not one of them."""
        for q in qubits:
            if not self.layout.is_local(q):
                at = self.layout.qubit_at
                victim = max(p for p in range(self.local_qubits) if at[p] not in qubits)
                self._swap_positions(victim, self.layout.position[q])

    def _restore(self, layout: QubitLayout) -> None:
        """Move qubits back to ``layout``'s positions (``remap=False`` keeps one layout)."""
        for q in range(self.n_qubits):
            here, there = self.layout.position[q], layout.position[q]
            if here != there:
                self._swap_positions(here, there)

    @collective
    def relayout(self, layout: QubitLayout) -> DistributedStateVector:
        """Move the amplitudes to ``layout`` (collective; the state itself is unchanged)."""
        if layout.n_qubits != self.n_qubits or layout.local_qubits != self.local_qubits:
            raise ArgumentValueError("the layout is for another shape of distributed state")
        self._restore(layout)
        return self

    # -- reductions (collective) -----------------------------------------------------------------
    def _allreduce_array(self, values: np.ndarray) -> np.ndarray:
        out = np.empty_like(values)
        self.comm.Allreduce(values, out)
        return out

    def _allreduce(self, value: complex) -> complex:
        return complex(self._allreduce_array(np.array([value], dtype=np.complex128))[0])

    @collective
    def norm_squared(self) -> float:
        """``<psi|psi>``."""
        with self._threads():
            mine = self.numbers.to_complex(self.backend.norm_squared(self._local, self.numbers))
        return self._allreduce(mine).real

    @collective
    def normalize(self) -> DistributedStateVector:
        """Scale to unit norm in place."""
        n2 = self.norm_squared()
        if not n2 > 0:
            raise InvalidProbabilityError("cannot normalise a zero state")
        self._local *= self.numbers.dtype.type(1 / np.sqrt(n2))
        return self

    @collective
    def probabilities(self, qubits: Sequence[int] | None = None) -> np.ndarray:
        """Probabilities of every basis state, or the marginal of ``qubits`` (``qubits[0]``
        the least-significant bit), on every rank."""
        qs = (
            tuple(range(self.n_qubits)) if qubits is None else as_qubit_tuple(qubits, self.n_qubits)
        )
        self._fits_everywhere(len(qs), 8)
        L = self.local_qubits
        local_bits = [i for i, q in enumerate(qs) if self.layout.position[q] < L]
        fixed = 0
        for i, q in enumerate(qs):
            p = self.layout.position[q]
            if p >= L and (self.rank >> (p - L)) & 1:
                fixed |= 1 << i
        with self._threads():
            mine = self.backend.probabilities(
                self._local, tuple(self.layout.position[qs[i]] for i in local_bits), self.numbers
            )
        mine = np.asarray(self.backend.to_numpy(mine), dtype=np.float64)
        index = np.full(mine.size, fixed, dtype=np.int64)
        j = np.arange(mine.size, dtype=np.int64)
        for t, i in enumerate(local_bits):
            index |= ((j >> t) & 1) << i
        out = np.zeros(1 << len(qs), dtype=np.float64)
        out[index] = mine
        return self._allreduce_array(out)

    @collective
    def expectation(self, observable: str | PauliSum) -> Number:
        """``<psi|H|psi>`` for a Pauli sum; a term with X or Y on rank qubits first brings those
        qubits onto local positions (a change of layout, not of the state). Collective."""
        return super().expectation(observable)

    def summary(self) -> dict[str, Any]:
        """What the command line reports beside the results."""
        return {"ranks": self.size}

    def _pauli_value(self, x_mask: int, z_mask: int) -> complex:
        """``<psi| X^x Z^z |psi>`` (logical masks)."""
        x_qubits = [q for q in range(self.n_qubits) if x_mask >> q & 1]
        saved = None if self.options.remap else self.layout.copy()
        self._make_local(x_qubits)
        L = self.local_qubits
        x, z = self.layout.physical_mask(x_mask), self.layout.physical_mask(z_mask)
        sign = -1 if bin((z >> L) & self.rank).count("1") & 1 else 1
        with self._threads():
            value = self.backend.expectation_pauli(
                self._local, x & ((1 << L) - 1), z & ((1 << L) - 1), self.numbers
            )
        total = self._allreduce(sign * self.numbers.to_complex(value))
        if saved is not None:
            self._restore(saved)
        return total

    @collective
    def reduced_density_matrix(self, qubits: int | Sequence[int]) -> DensityMatrix:
        """The state of ``qubits`` with the others traced out (its qubit ``i`` is
        ``qubits[i]``), on every rank: the kept qubits are brought onto local positions, each
        rank traces its slice, and one ``Allreduce`` sums the ranks' parts. Each rank needs
        room for a second copy of its slice and the ``4**k`` matrix."""
        from ..states.density import DensityMatrix

        qs = as_qubit_tuple(qubits, self.n_qubits)
        if not qs:
            raise ArgumentValueError("keep at least one qubit")
        k, L = len(qs), self.local_qubits
        if k > L:
            raise ArgumentValueError(
                f"{k} qubits do not fit on the {L} local positions of {self.size} ranks"
            )
        self._fits_everywhere(L, self.numbers.dtype.itemsize)  # the rearranged slice
        self._fits_everywhere(2 * k, 16)
        saved = None if self.options.remap else self.layout.copy()
        self._make_local(qs)
        order = kept_first(L, [self.layout.position[q] for q in qs])
        local = self.backend.to_numpy(self._local).reshape((2,) * L).transpose(order)
        part = local.reshape(1 << k, 1 << (L - k)).astype(np.complex128)
        rho = self._allreduce_array(part @ part.conj().T)
        if saved is not None:
            self._restore(saved)
        return DensityMatrix(rho.astype(self.numbers.dtype), self.numbers)

    @collective
    def entanglement_entropy(self, qubits: int | Sequence[int], base: float = 2) -> float:
        """The von Neumann entropy of ``qubits``' reduced state (bits by default), from the
        smaller side of the cut (a pure state's two sides have the same entropy)."""
        return pure_state_entropy(self, qubits, base)

    @collective
    def inner(self, other: DistributedStateVector) -> complex:
        """``<self|other>`` (moves ``other`` to this state's layout first)."""
        if not isinstance(other, DistributedStateVector):
            raise ArgumentTypeError(
                f"expected a DistributedStateVector, got {type(other).__name__}"
            )
        if other.n_qubits != self.n_qubits or other.size != self.size:
            raise QubitCountMismatchError(
                f"states have {self.n_qubits} and {other.n_qubits} qubits on {self.size} and "
                f"{other.size} ranks"
            )
        other.relayout(self.layout)
        with self._threads():
            mine = self.backend.inner(self._local, other._local, self.numbers)
        return self._allreduce(self.numbers.to_complex(mine))

    @collective
    def fidelity(self, other: DistributedStateVector) -> float:
        """``|<self|other>|**2`` (for normalised states)."""
        return abs(self.inner(other)) ** 2

    # -- sampling and measurement (outcomes drawn on rank 0, broadcast) --------------------------
    def _distribution(self, qubits: tuple[int, ...] | None) -> np.ndarray:
        return sampling.host_distribution(self.probabilities(qubits))

    @collective
    def sample(
        self, shots: int, seed: Seed = None, qubits: Sequence[int] | None = None
    ) -> dict[str, int]:
        """Counts of ``shots`` measurements (no collapse), the same on every rank and, for
        one seed, the same as a single-process state's."""
        shots = sampling.check_shots(shots)
        qs = None if qubits is None else as_qubit_tuple(qubits, self.n_qubits)
        p = self._distribution(qs)
        drawn = (
            sampling.draw_counts(p, shots, seed, self.n_qubits if qs is None else len(qs))
            if self.rank == 0
            else None
        )
        return dict(self.comm.bcast(drawn, root=0))

    @collective
    def measure(self, qubits: Sequence[int] | None = None, seed: Seed = None) -> str:
        """Measure ``qubits`` (all when omitted), collapse onto the outcome and return it
        (``qubits[0]`` rightmost)."""
        qs = (
            tuple(range(self.n_qubits)) if qubits is None else as_qubit_tuple(qubits, self.n_qubits)
        )
        return self._measure(qs, sampling.rng(seed) if self.rank == 0 else None)

    def _measure(self, qs: tuple[int, ...], rng: np.random.Generator | None) -> str:
        p = self._distribution(qs)
        outcome = int(self.comm.bcast(sampling.draw_outcome(p, rng) if self.rank == 0 else None))
        diagonal = np.zeros(p.size, dtype=self.numbers.dtype)
        diagonal[outcome] = 1 / np.sqrt(self.probabilities(qs)[outcome])
        run = PlanRun(self, None)
        run.gate(DiagonalCall(diagonal, qs), 0)
        run.flush()
        return sampling.bitstring(outcome, len(qs))


def run_mpi(request: SimulationRequest) -> DistributedStateVector:
    """``method="mpi"``: the state spread over ``MPI.COMM_WORLD``'s ranks."""
    numbers = request.numbers or get_number_system("complex128")
    initial = request.initial
    if isinstance(initial, StateVector):
        n = request.circuit.n_qubits
        check_qubit_count("initial state", initial.n_qubits, n, "the circuit")
    state = DistributedStateVector(
        request.circuit.n_qubits, numbers, None, request.backend, request.device,
        request.options, initial,
    )  # fmt: skip
    return state.apply(request.circuit, seed=request.seed)


__all__ = ["DistributedStateVector", "run_mpi"]
