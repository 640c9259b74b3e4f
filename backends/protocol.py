"""The backend protocol, the optional capabilities a backend may declare, and the generic
base every backend extends.

The primitives act in place on a flat state array of length ``2**n`` (qubit 0 = least
significant bit of the index). ``numbers`` is the state's number system; complex backends may
ignore it, object-array routines need it for conjugates and ``|z|**2``.

Capabilities (:class:`BlockRunner`, :class:`DeviceSampler`, :class:`IQPEncoder`,
:class:`BatchPrimitives`, :class:`SweepRunner`, :class:`ThreadScoped`, :class:`KernelCache`,
:class:`DeviceInfo`, ...) are Protocols whose methods are abstract, or, for
:class:`PauliPropagator` and :class:`SegmentRunner`, the reference a compiled backend
overrides. A backend declares one by
subclassing it, and the core asks with :func:`capability` — a nominal check, never an
attribute probe: a backend that declares a capability but misspells one of its methods
cannot even be constructed.
"""

from __future__ import annotations

import contextlib
from abc import abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from ..errors import NumberTypeError, QubitCountMismatchError
from ..linalg import generic as kernels
from ..linalg import packed_paulis
from ..numbers import NumberSystem
from ..support.memory import check_state_fits

if TYPE_CHECKING:
    from ..plan.calls import BlockRun, GateCall, MonomialRun
    from ..plan.shot_program import ShotProgram

DEVICES = ("cpu", "gpu")
"""Where a backend's arrays live; ``device="cuda"`` is accepted as another name of ``"gpu"``."""


@runtime_checkable
class Backend(Protocol):
    """What every backend provides. ``priority`` orders automatic selection (higher first);
    ``device`` says where its arrays live (``"cpu"`` or ``"gpu"``)."""

    name: str
    priority: int
    device: str

    def supports(self, array: Any) -> bool: ...

    def holds(self, numbers: NumberSystem) -> bool:
        """Whether this backend can hold states of ``numbers``."""
        ...

    def apply_matrix(
        self,
        state: Any,
        matrix: Any,
        targets: Sequence[int],
        controls: Sequence[int] = (),
        control_values: Sequence[int] = (),
    ) -> None: ...

    def apply_diagonal(
        self,
        state: Any,
        diagonal: Any,
        targets: Sequence[int],
        controls: Sequence[int] = (),
        control_values: Sequence[int] = (),
    ) -> None: ...

    def apply_permutation(
        self,
        state: Any,
        permutation: Any,
        phases: Any,
        targets: Sequence[int],
        controls: Sequence[int] = (),
        control_values: Sequence[int] = (),
    ) -> None: ...

    def probabilities(
        self, state: Any, qubits: Sequence[int] | None, numbers: NumberSystem
    ) -> Any: ...

    def inner(self, a: Any, b: Any, numbers: NumberSystem) -> Any: ...

    def norm_squared(self, state: Any, numbers: NumberSystem) -> Any: ...

    def expectation_pauli(
        self, state: Any, x_mask: int, z_mask: int, numbers: NumberSystem
    ) -> Any: ...

    def pauli_transition(
        self,
        bra: Any,
        ket: Any,
        x_mask: int,
        z_mask: int,
        numbers: NumberSystem,
        controls: Sequence[int] = (),
        control_values: Sequence[int] = (),
    ) -> Any:
        """``<bra| X^x Z^z |ket>`` summed over the indices where each control qubit holds its
        value (the caller applies ``i**(number of Y)``); no copy of either state."""
        ...

    def zeros(self, n_qubits: int, numbers: NumberSystem) -> Any: ...

    def asarray(self, array: Any, numbers: NumberSystem) -> Any: ...

    def to_numpy(self, state: Any) -> np.ndarray:
        """A new host array with the state's values (never a view of the state)."""
        ...


# -- capabilities --------------------------------------------------------------------------------


@dataclass(frozen=True)
class BlockLayout:
    """How a :class:`BlockRunner` wants gate runs grouped: tiles of ``tile_qubits`` qubits
    that always hold the lowest ``low_qubits`` (equal numbers: contiguous cache blocks), on
    states of at least ``min_state_qubits`` qubits."""

    tile_qubits: int
    low_qubits: int
    min_state_qubits: int
    min_gathered_work: float = 0.0
    """A run over gathered tiles (not the lowest qubits only) is formed only where its calls,
    applied one by one, would move at least this many states' worth of amplitudes (a call
    under ``c`` controls moves ``2**-c``): a gather costs more than a plain pass, so a short
    run of cheap calls is faster one by one."""
    gathered: BlockLayout | None = None
    """Tiles over any qubits for the calls these (contiguous) blocks leave out, grouped
    after them: the gates on high qubits, in fewer passes over the state."""
    min_series_qubits: int | None = None
    """Runs of permutation and diagonal calls that the tiles leave out, on this qubit and
    above, are grouped into :class:`~genqsim.plan.MonomialRun` s (series of at least
    ``2**min_series_qubits`` amplitudes moved whole; the backend is a
    :class:`MonomialRunner`); ``None``: not grouped."""
    merged_diagonal_qubits: int = 0
    """Where fusion is on, consecutive diagonal calls that act on at most this many qubits
    together become one diagonal call (:func:`~genqsim.plan.diagonals.merge_diagonals`):
    one pass over the amplitudes they change in place of one per call; 0: never."""
    merged_diagonal_bands: tuple[int, ...] = ()
    """Qubit boundaries (ascending) that part a stretch of diagonal calls before it is
    merged, by each call's highest qubit (:func:`~genqsim.plan.diagonals.merge_diagonals`)."""
    split_unitary_layers: bool = True
    """Where diagonals merge, whether layers of complex one-qubit gates are also split into
    real gates between diagonal ones (:func:`~genqsim.plan.layers.split_unitary_layers`):
    for kernels where a real gate costs half a complex one, not for those that treat both
    alike."""
    repeated_whole_state_runs: bool = False
    """Whether a plan kept on a circuit and applied again and again
    (:data:`~genqsim.plan.build.WHOLE_STATE_RUNS_FROM` applies) on a state smaller than
    ``min_state_qubits`` runs its stretches of gate calls as runs over the whole state
    (:func:`~genqsim.plan.grouping.whole_state_runs`): one compiled call a stretch instead
    of one a gate, where a small state's gates cost more to call than to run. Encoding a
    run costs a few applies' worth, so only a plan applied repeatedly gets them."""


class BlockRunner(Protocol):
    """Applies a whole :class:`~genqsim.plan.BlockRun` one block (cache block, shared-memory
    tile) of the state at a time."""

    @abstractmethod
    def block_layout(self, dtype: np.dtype) -> BlockLayout:
        """The grouping this backend runs best for states of ``dtype``."""

    def tile_layout(self, dtype: np.dtype) -> BlockLayout:
        """The grouping for circuits whose gates mostly touch high qubits (a density
        matrix's row qubits): tiles over any qubits. By default :meth:`block_layout`."""
        return self.block_layout(dtype)

    @abstractmethod
    def apply_block_run(self, state: Any, run: BlockRun) -> None:
        """Apply every call of ``run`` to ``state``, in order."""


class MonomialRunner(Protocol):
    """Applies a whole :class:`~genqsim.plan.MonomialRun` in one pass over the series of
    amplitudes it changes (each moved whole, along the cycles of the run's map)."""

    @abstractmethod
    def apply_monomial_run(self, state: Any, run: MonomialRun) -> None:
        """Apply every call of ``run`` to ``state`` (of ``run.n_qubits`` qubits), in order."""


class GateCallRunner(Protocol):
    """Runs a plan's gate calls whole, rather than through ``apply_matrix``,
    ``apply_diagonal`` and ``apply_permutation``, so it may keep per call what it derives
    from the call: a plan kept on a circuit and applied again then launches each gate
    without deriving it anew (a GPU backend's host work per launch, which shows on small
    states)."""

    @abstractmethod
    def apply_gate_call(self, state: Any, call: GateCall) -> None:
        """Apply ``call`` to ``state``: the same result as its primitive."""


class DeviceSampler(Protocol):
    """Draws measurement samples where the state lives, so only counts travel to the host."""

    @abstractmethod
    def sample_counts(
        self, state: Any, qubits: Sequence[int] | None, shots: int, seed: int | None
    ) -> dict[int, int]:
        """``{basis index: count}`` of ``shots`` draws (of ``qubits``, or all)."""


class IQPEncoder(Protocol):
    """Computes IQP-encoded states ``FWT(exp(i theta)) / 2**n`` itself (a fused kernel)."""

    @abstractmethod
    def iqp_encode(self, data: np.ndarray, n_qubits: int, zz: bool, numbers: NumberSystem) -> Any:
        """IQP states of the rows of ``data`` (float64, shape (batch, features)) as an array
        of shape ``(batch, 2**n_qubits)`` in this backend's arrays."""


class BatchPrimitives(Protocol):
    """The gate primitives also act on every row of a ``(batch, 2**n)`` array, in one call."""

    @abstractmethod
    def supports_batch(self, array: Any) -> bool:
        """Whether ``array`` is a batch of states this backend runs whole."""


class SweepRunner(Protocol):
    """Runs one :class:`~genqsim.plan.BlockRun` over many whole states in one call, each
    with its own numbers for the run's calls: a circuit at many parameter points from one
    plan (:mod:`genqsim.plan.sweep`)."""

    @abstractmethod
    def sweep_layout(
        self, run: BlockRun, dtype: np.dtype, positions: Sequence[int]
    ) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
        """The numbers of ``run`` as this backend encodes them for ``dtype`` (a 1-D copy),
        and for each call at ``positions`` a pair ``(where, entries)``: the places of its
        numbers in that array and which entries of the call's flattened ``data`` they
        hold. The calls' data must be generic there (no entry that is zero or one only at
        these values), so that every other point fits the same encoding."""

    @abstractmethod
    def closed_form_numbers(
        self,
        values: np.ndarray,
        extra: np.ndarray,
        columns: np.ndarray,
        rates: tuple[np.ndarray, np.ndarray],
        entries: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        data: np.ndarray,
    ) -> None:
        """Write the numbers of a sweep's closed-form gates at every point into ``data``
        (host arrays, ``(points, numbers of the run)``): for each entry ``e`` of
        ``entries = (slot_of_entry, d0, d1, where)``, ``data[p, where[e]] = exp(-i a t)
        (cos(b t) d0[e] + sin(b t) d1[e])``, with ``(a, b) = rates[.][slot]`` of its slot
        and ``t`` the slot's angle at point ``p``: column ``columns[slot]`` of ``values``,
        or of ``extra`` past the columns of ``values`` (the generic routine:
        :func:`~genqsim.linalg.generic.closed_form_numbers`)."""

    @abstractmethod
    def apply_block_run_points(self, states: Any, run: BlockRun, data: Any) -> None:
        """Apply ``run`` (over every qubit of the states) to each row ``p`` of ``states``
        (shape ``(points, 2**n)``) with the run's numbers replaced by ``data[p]``."""

    @abstractmethod
    def adjoint_block_run_points(
        self, psi: Any, lam: Any, run: BlockRun, generators: Sequence[Any], data: Any
    ) -> np.ndarray:
        """The backward steps of :meth:`AdjointSteps.adjoint_block_run` (``run`` over every
        qubit) on each row ``p`` of ``psi`` and ``lam`` with the run's numbers ``data[p]``:
        the ``(points, steps)`` values ``Im <lam| G |psi>`` of its gradient steps."""

    @abstractmethod
    def pauli_strings_points(self, states: Any, x_masks: Any, z_masks: Any) -> np.ndarray:
        """``<psi_p| X^x_t Z^z_t |psi_p>`` for every row ``p`` of ``states`` and every
        string ``t`` of the masks, as a ``(points, strings)`` complex array on the host (the
        generic routine: :func:`~genqsim.linalg.generic.pauli_strings_points`)."""


class ShotGroupRunner(Protocol):
    """Runs every shot of a dynamic circuit on a small state in one compiled loop, from its
    shot program (:mod:`genqsim.plan.shot_program`): the shots in groups that split at each
    measurement and channel, as :mod:`genqsim.states.branching` runs them in Python, with no
    Python between operations."""

    @abstractmethod
    def run_shot_groups(
        self,
        program: ShotProgram,
        start: np.ndarray,
        shots: int,
        max_pending: int,
        max_iterations: int,
        generator: np.random.Generator,
        control: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """Run ``shots`` shots of ``program`` from the complex128 state ``start`` (left as
        it was), drawing from ``generator``, with at most ``max_pending`` states waiting
        (past that, a split group's shots run one at a time). ``control``, two int64 shared
        with a caller on another thread while it runs: set ``control[0]`` to stop it early;
        ``control[1]`` counts the shots that have ended. Returns ``(records, counts,
        status)``: each ended group's record (bit ``c`` classical bit ``c``) and shots, and
        0; 1 where it was stopped; ``-1 - slot`` where a shot's while loop of that slot
        would have started iteration ``max_iterations + 1``."""


class ThreadScoped(Protocol):
    """Runs on several CPU threads; the count travels with a state's run options and is
    entered once around a run, never toggled per primitive."""

    @abstractmethod
    def max_threads(self) -> int:
        """The largest thread count allowed."""

    @abstractmethod
    def threads(self, count: int | None) -> contextlib.AbstractContextManager[None]:
        """A context that runs this thread's calls on ``count`` threads (``None``: as set)."""

    @abstractmethod
    def default_threads(self) -> int:
        """The calling thread's thread count for runs that set none."""

    @abstractmethod
    def set_default_threads(self, count: int) -> None:
        """Set :meth:`default_threads` for the calling thread."""

    @abstractmethod
    def warmup_qubits(self) -> tuple[int, ...]:
        """State sizes at which its kernel builds differ (serial, threaded): what
        ``genqsim warmup`` runs to compile each build once, whatever :meth:`calibrate`
        measures."""

    @abstractmethod
    def calibrate(self) -> None:
        """Measure this machine's kernel choices now, or read them back (each is kept for
        later processes). ``genqsim warmup`` calls it once its compiling processes have
        finished: the kernels it times are compiled by then, and nothing of its own runs
        beside the measurement."""

    @abstractmethod
    def choices_deferred(self) -> contextlib.AbstractContextManager[None]:
        """A context in which kernel choices not yet kept for this machine take their
        defaults instead of being measured (nothing is kept): ``genqsim warmup``'s
        compiling processes run in it, where a measurement would time the other's
        compiling."""

    @abstractmethod
    def kernel_choices(self) -> list[str]:
        """How it picks among its kernel builds on this machine, a line each (for
        ``genqsim info``): the measured serial/threaded switch, say."""


class KernelCache(Protocol):
    """Compiles its kernels the first time a process needs them and keeps them on disk for
    every later process on the machine: the first run after installing pays for compiling
    (tens of seconds), later runs load them. The command line asks, before a small run,
    whether that cost is still ahead, and if so answers on the generic backend first and
    compiles afterwards (:mod:`genqsim.cli.cold_start`)."""

    @abstractmethod
    def kernels_compiled(self, numbers: NumberSystem) -> bool:
        """Whether a run or ``genqsim warmup`` in ``numbers`` has completed on this machine
        (this CPU) since these kernels last changed, so that its kernels are in the cache."""

    @abstractmethod
    def mark_kernels_compiled(self, numbers: NumberSystem) -> None:
        """Record that the common kernels in ``numbers`` are now in the cache (nothing where
        the cache cannot be written)."""

    @abstractmethod
    def compile_progress(
        self, report: Callable[[int], None]
    ) -> contextlib.AbstractContextManager[None]:
        """A context in which every kernel this process compiles calls ``report`` with the
        count so far, in place of the one-line notice a first compilation prints."""


class DeviceInfo(Protocol):
    """Describes the devices it can see (for ``genqsim info``)."""

    @abstractmethod
    def describe_devices(self) -> str:
        """A one-line description of the devices this backend can use."""


class DeviceSelector(Protocol):
    """Runs on one of several devices of a machine, chosen per process (a distributed state
    gives each MPI rank of a node its own GPU)."""

    @abstractmethod
    def device_count(self) -> int:
        """How many devices this process can see."""

    @abstractmethod
    def use_device(self, index: int) -> None:
        """Make device ``index`` the one this process allocates and runs on."""


def real_entries(values: Any) -> np.ndarray:
    """An operation's numbers for a real state (a density matrix's Pauli coordinates): their
    real parts, refused where any is not real, so no backend drops imaginary parts
    silently."""
    array = np.asarray(values)
    if array.dtype.kind == "c":
        if np.any(array.imag != 0):
            raise NumberTypeError("a matrix with complex entries cannot act on a real state")
        return array.real
    return array


PAULI_HERMITIAN_TOLERANCE = 1024
"""A density matrix goes into real Pauli coordinates when the imaginary parts they would
drop are within this many units of rounding of the largest coordinate."""


class PauliCoordinates(Protocol):
    """Runs a density matrix on its real Pauli coordinates (:mod:`genqsim.states.pauli_basis`):
    changes ``vec(rho)`` into them and back in place, and applies gate calls and block runs
    with real matrices to real states."""

    @abstractmethod
    def to_pauli_coordinates(self, vec: Any, n_qubits: int) -> Any | None:
        """The real coordinates, in ``vec``'s own memory; ``None`` (``vec`` unchanged) where
        ``rho`` is not Hermitian."""

    @abstractmethod
    def from_pauli_coordinates(self, vec: Any, n_qubits: int) -> None:
        """``vec(rho)`` again, from the coordinates :meth:`to_pauli_coordinates` left."""


class AdjointSteps(Protocol):
    """Runs backward steps of the adjoint sweep (:mod:`genqsim.differentiation.gradients`) in one
    pass over ``psi`` and ``lambda``: a one-target gradient step reads ``Im <lambda| G |psi>`` for
    the gate's generator ``G`` and un-applies the gate from both states, and a run of steps is
    taken a block (or tile) at a time."""

    @abstractmethod
    def adjoint_step_1q(
        self,
        psi: Any,
        lam: Any,
        inverse: Any,
        generator: Any,
        target: int,
        controls: Sequence[int] = (),
        control_values: Sequence[int] = (),
    ) -> float:
        """``Im <lam| G |psi>`` over the pairs the gate changes (``G`` the 2x2 Hermitian
        ``generator``, before the update), then the 2x2 ``inverse`` applied to both
        states."""

    @abstractmethod
    def adjoint_block_run(
        self, psi: Any, lam: Any, run: BlockRun, generators: Sequence[Any]
    ) -> np.ndarray:
        """Many backward steps in one pass over both states, a block (or gathered tile) at a
        time: call ``g`` of ``run`` with a 2x2 ``generators[g]`` (not ``None``) is a
        one-target gradient step (its call the gate's inverse) as in
        :meth:`adjoint_step_1q`; the others are un-applied from both states. Returns the
        ``Im <lam| G |psi>`` of the gradient steps, in order."""

    @abstractmethod
    def update_run_matrices(self, run: BlockRun, positions: Any, matrices: Any) -> None:
        """Give the dense calls at ``positions`` of ``run`` the ``matrices`` (same shapes)
        in the backend's encoding of the run, in place: a sweep planned once
        (:class:`~genqsim.differentiation.adjoint.AdjointProgram`) runs its block runs at new angles
        without encoding them again. The calls' own ``matrix`` arrays are the caller's to update."""


class ArrayNamespace(Protocol):
    """Keeps its arrays outside NumPy and offers their module (``zeros``, ``vstack``,
    ``linalg.svd``, ``linalg.qr``, ``asarray``, ...), so state kinds that do their own dense
    algebra (a matrix-product state's blocks) run on this backend's device."""

    @abstractmethod
    def array_namespace(self) -> ModuleType:
        """The array module of this backend's arrays."""


class PauliPropagator(Protocol):
    """Propagates Pauli strings packed in machine words, with real coefficients, through
    one operation's transfer matrix at a time (the Heisenberg picture,
    :mod:`genqsim.pauli_propagation`). The methods here are the NumPy reference of
    :mod:`genqsim.linalg.packed_paulis`; compiled backends override them with kernels that
    give the same rows in the same order. The routines take NumPy or CuPy arrays alike, so a
    GPU backend declares this capability with :meth:`pauli_namespace` alone."""

    def pauli_namespace(self) -> ModuleType:
        """The array module the strings live in while they propagate (NumPy: host memory;
        CuPy on a GPU backend)."""
        return np

    def pauli_local_codes(self, strings: np.ndarray, qubits: Sequence[int]) -> np.ndarray:
        """Each string's local code on ``qubits``."""
        return packed_paulis.local_codes(strings, qubits, self.pauli_namespace())

    def pauli_apply_table(
        self,
        strings: np.ndarray,
        coefficients: np.ndarray,
        codes: np.ndarray,
        qubits: Sequence[int],
        table: tuple[np.ndarray, np.ndarray, np.ndarray],
    ) -> tuple[np.ndarray, np.ndarray]:
        """Every string replaced by the image of its local code (``table``: the column
        starts, image codes and image values)."""
        return packed_paulis.apply_table(
            strings, coefficients, codes, qubits, *table, self.pauli_namespace()
        )

    def pauli_merge(
        self, strings: np.ndarray, coefficients: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Equal strings combined, in order of first appearance."""
        return packed_paulis.merge(strings, coefficients, self.pauli_namespace())

    def pauli_truncate(
        self, strings: np.ndarray, coefficients: np.ndarray, min_abs: float, max_weight: int
    ) -> tuple[np.ndarray, np.ndarray, float, int]:
        """Strings kept, and the sum of ``|c|`` and the count of those dropped."""
        return packed_paulis.truncate(
            strings, coefficients, min_abs, max_weight, self.pauli_namespace()
        )

    def pauli_diagonal_value(
        self, strings: np.ndarray, coefficients: np.ndarray, bits: int
    ) -> float:
        """The sum's value on the basis state ``bits``."""
        return packed_paulis.diagonal_value(strings, coefficients, bits, self.pauli_namespace())


class ReferencePauliPropagator(PauliPropagator):
    """The NumPy reference, for runs whose backend has no compiled propagator."""


def _segment_positions(values: Any, what: str) -> np.ndarray:
    """``values`` as a 1-D array of call or segment positions (int64)."""
    positions = np.asarray(values)
    if positions.ndim != 1 or (positions.size and positions.dtype.kind not in "iu"):
        raise ValueError(f"{what} {positions.tolist()} are not a list of positions")
    return positions.astype(np.int64, copy=False)


def _check_segment_rows(run: BlockRun, *arrays: np.ndarray) -> None:
    """Every array holds rows of the run: ``2**run.block_qubits`` complex128 amplitudes,
    C-contiguous (a compiled runner indexes them without checks)."""
    size = 1 << run.block_qubits
    for array in arrays:
        if array.shape[-1] != size or not run.contiguous:
            raise QubitCountMismatchError(
                f"{run!r} runs rows of {size} amplitudes, not of shape {array.shape}"
            )
        if array.dtype != np.complex128 or not array.flags.c_contiguous:
            raise NumberTypeError(
                f"segment runs take C-contiguous complex128 rows, not {array.dtype} "
                f"({'contiguous' if array.flags.c_contiguous else 'strided'})"
            )


def _segment_cuts(run: BlockRun, values: Any) -> np.ndarray:
    """``values`` as ascending call positions of ``run`` (segment bounds, copy marks)."""
    cut = _segment_positions(values, "segment bounds")
    if cut.size == 0 or np.any(np.diff(cut) < 0):
        raise ValueError(f"segment bounds {cut.tolist()} are not ascending positions")
    if cut[0] < 0 or cut[-1] > len(run.calls):
        raise ValueError(f"segment bounds {cut.tolist()} leave {run!r}")
    return cut


class SegmentRunner(Protocol):
    """Carries rows through consecutive segments of one :class:`~genqsim.plan.BlockRun` (its
    calls cut into stretches at ``bounds``: segment ``s`` is calls ``bounds[s]`` to
    ``bounds[s + 1] - 1``), copying or reading them between segments: the sweeps of the exact
    Hessian (:mod:`genqsim.differentiation.curvature`). Rows are complex128 NumPy arrays of
    ``2**run.block_qubits`` amplitudes, the run's calls on those qubits. The two public
    methods check their arguments (a compiled runner indexes without checks) and hand them,
    as int64 arrays, to ``_snapshots`` and ``_reads``: here the reference, on the backend's
    gate primitives (the rows of a segment in blocks of a power of two, each one state of
    more qubits); a compiled backend overrides those two with kernels that keep each row in
    cache for all its segments."""

    def segment_backend(self) -> Any:
        """The backend whose primitives the reference methods run the calls with."""
        return self

    def run_segment_snapshots(
        self, row: np.ndarray, run: BlockRun, bounds: Any, out: np.ndarray, where: Any, marks: Any
    ) -> None:
        """``row`` through every segment in turn; after segment ``p < len(where)`` a copy
        goes to ``out[where[p]]`` and that copy through calls ``marks[p]`` to
        ``marks[p + 1] - 1``."""
        _check_segment_rows(run, row, out)
        bounds, marks = _segment_cuts(run, bounds), _segment_cuts(run, marks)
        where = _segment_positions(where, "copies to rows")
        if where.size and (where.min() < 0 or where.max() >= out.shape[0]):
            raise ValueError(f"copies to rows {where.tolist()} of {out.shape[0]}")
        if where.size and where.size >= min(marks.size, bounds.size):
            raise ValueError(f"{where.size} copies need a segment and a transform each")
        self._snapshots(row, run, bounds, out, where, marks)

    def run_segment_reads(
        self, rows: np.ndarray, run: BlockRun, bounds: Any, starts: Any, readers: np.ndarray
    ) -> np.ndarray:
        """Row ``p`` of ``rows`` stands at the end of segment ``starts[p]`` (-1: before the
        first; ``starts`` non-decreasing). It is read against ``readers[s]`` at the end of
        every segment ``s >= starts[p]`` that has a reader, and carried through every later
        segment. Returns ``reads[p, s] = Re <readers[s]| row p>`` there, zero elsewhere."""
        _check_segment_rows(run, rows, readers)
        bounds = _segment_cuts(run, bounds)
        starts = _segment_positions(starts, "starts")
        if starts.shape != (rows.shape[0],) or np.any(np.diff(starts) < 0):
            raise ValueError(f"starts {starts.tolist()}: one per row, ascending")
        if starts.size and (starts[0] < -1 or starts[-1] >= bounds.size - 1):
            raise ValueError(f"starts {starts.tolist()} outside segments -1 to {bounds.size - 2}")
        return self._reads(rows, run, bounds, starts, readers)

    def _snapshots(
        self,
        row: np.ndarray,
        run: BlockRun,
        bounds: np.ndarray,
        out: np.ndarray,
        where: np.ndarray,
        marks: np.ndarray,
    ) -> None:
        """:meth:`run_segment_snapshots` on checked arguments: the reference."""
        backend = self.segment_backend()
        for p in range(len(bounds) - 1):
            for call in run.calls[bounds[p] : bounds[p + 1]]:
                call.run(backend, row)
            if p < len(where):
                copy = out[where[p]]
                copy[:] = row
                for call in run.calls[marks[p] : marks[p + 1]]:
                    call.run(backend, copy)

    def _reads(
        self,
        rows: np.ndarray,
        run: BlockRun,
        bounds: np.ndarray,
        starts: np.ndarray,
        readers: np.ndarray,
    ) -> np.ndarray:
        """:meth:`run_segment_reads` on checked arguments: the reference."""
        backend = self.segment_backend()
        count, n_readers = rows.shape[0], readers.shape[0]
        reads = np.zeros((count, n_readers))
        if count == 0:
            return reads
        floats, reader_floats = rows.view(np.float64), readers.view(np.float64)
        for s in range(int(starts[0]), len(bounds) - 1):
            active = int(np.searchsorted(starts, s, side="left"))  # rows started before s
            if s >= 0:
                segment = run.calls[bounds[s] : bounds[s + 1]]
                begin = 0
                while begin < active:
                    block = 1 << ((active - begin).bit_length() - 1)
                    state = rows[begin : begin + block].reshape(-1)
                    for call in segment:
                        call.run(backend, state)
                    begin += block
            if 0 <= s < n_readers:
                ready = int(np.searchsorted(starts, s, side="right"))
                reads[:ready, s] = floats[:ready] @ reader_floats[s]
        return reads


class ReferenceSegmentRunner(SegmentRunner):
    """The reference segment runs on the primitives of a backend that has no compiled ones."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend

    def segment_backend(self) -> Any:
        return self.backend


CAPABILITIES = (
    AdjointSteps,
    ArrayNamespace,
    BlockRunner,
    MonomialRunner,
    GateCallRunner,
    DeviceSampler,
    IQPEncoder,
    BatchPrimitives,
    SweepRunner,
    ShotGroupRunner,
    ThreadScoped,
    KernelCache,
    DeviceInfo,
    DeviceSelector,
    PauliCoordinates,
    PauliPropagator,
    SegmentRunner,
)

_C = TypeVar("_C")


def capability(backend: object, protocol: type[_C]) -> _C | None:
    """``backend`` as a ``protocol`` if it declares that capability (subclasses it), else
    ``None``."""
    return backend if protocol in type(backend).__mro__ else None  # type: ignore[return-value]


def capabilities_of(backend: object) -> list[str]:
    """Names of the capabilities ``backend`` declares."""
    return [c.__name__ for c in CAPABILITIES if capability(backend, c) is not None]


# -- the generic base ----------------------------------------------------------------------------


class GenericBackend:
    """The generic routines of :mod:`genqsim.linalg.generic`, for NumPy arrays of any dtype.

    Fast backends subclass it and override the primitives they specialise; the rest fall back
    to these.
    """

    name = "generic"
    priority = 0
    device = "cpu"

    def supports(self, array: Any) -> bool:
        return isinstance(array, np.ndarray)

    def holds(self, numbers: NumberSystem) -> bool:
        return self.supports(np.empty(0, dtype=numbers.dtype))

    def apply_matrix(self, state, matrix, targets, controls=(), control_values=()) -> None:
        kernels.apply_matrix(state, matrix, targets, controls, control_values)

    def apply_diagonal(self, state, diagonal, targets, controls=(), control_values=()) -> None:
        kernels.apply_diagonal(state, diagonal, targets, controls, control_values)

    def apply_permutation(
        self, state, permutation, phases, targets, controls=(), control_values=()
    ) -> None:
        kernels.apply_permutation(state, permutation, phases, targets, controls, control_values)

    def probabilities(self, state, qubits, numbers):
        return kernels.probabilities(state, qubits, numbers)

    def inner(self, a, b, numbers):
        return kernels.inner(a, b, numbers)

    def norm_squared(self, state, numbers):
        return kernels.norm_squared(state, numbers)

    def expectation_pauli(self, state, x_mask, z_mask, numbers):
        return self.pauli_transition(state, state, x_mask, z_mask, numbers)

    def pauli_transition(self, bra, ket, x_mask, z_mask, numbers, controls=(), control_values=()):
        return kernels.pauli_transition(bra, ket, x_mask, z_mask, numbers, controls, control_values)

    def zeros(self, n_qubits: int, numbers: NumberSystem) -> np.ndarray:
        """``|0...0>`` in the given numbers (object arrays filled with the system's own 0, 1);
        refuses a state larger than the free memory, before allocating."""
        check_state_fits(n_qubits, numbers.dtype.itemsize)
        if numbers.dtype.kind == "c":
            state = np.zeros(1 << n_qubits, dtype=numbers.dtype)
            state[0] = 1
            return state
        state = np.full(1 << n_qubits, numbers.zero, dtype=object)
        state[0] = numbers.one
        return state

    def asarray(self, array: Any, numbers: NumberSystem) -> np.ndarray:
        return numbers.array(np.asarray(array))

    def to_numpy(self, state: Any) -> np.ndarray:
        return np.array(state, copy=True)

    def __repr__(self) -> str:
        return f"<genqsim backend {self.name!r}>"
