"""Typed plan calls: the one vocabulary shared by the planner, fusion, every backend and the
kernels' operation codes (and :class:`ShotOp`, those of a compiled shot loop).

A plan is a list of calls. Gate calls (:class:`MatrixCall`, :class:`DiagonalCall`,
:class:`PermutationCall`) name a backend primitive; :class:`MeasureCall` and
:class:`ResetCall` collapse the state and need a :class:`CollapseContext`; a
:class:`BlockRun` groups consecutive gate calls whose qubits fit in one cache block or
shared-memory tile. :class:`ChannelCall` draws a Kraus branch of a noise channel (state
vectors; density matrices apply a channel's superoperator as a matrix call) and
:class:`ConditionalCall` runs calls when classical bits hold a value, :class:`LoopCall` while
they hold one of some values, and :class:`StoreCall` writes classical bits.

:class:`CallKind` gives every gate call its integer code; the Numba kernels and the CUDA
sources read their operation codes from it, so the four vocabularies of old are one.

This module sits at the protocol level: backends import it, and it imports nothing of
genqsim's above the number systems.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar, Union, cast

import numpy as np

from ..errors import WhileLoopLimitError

if TYPE_CHECKING:  # for annotations only: backends import this module, not the reverse
    from ..backends.protocol import Backend


class CallKind(enum.IntEnum):
    """Operation codes of gate calls, as the compiled kernels know them."""

    MATRIX = 0
    DIAGONAL = 1
    PERMUTATION = 2


class ShotOp(enum.IntEnum):
    """Operation codes of the rows of a shot program (column 0 of each row), which a
    compiled shot loop runs (:mod:`genqsim.plan.shot_program` writes them). ``@`` marks an
    offset into the program's ``ints`` table (``data@``: into its ``data``; for MIXTURE, the
    probabilities' offset into ``reals``)."""

    MATRIX = 0  # [op, k, n_fixed, fixed@, fixed_value, offsets@, data@, -]
    DIAGONAL = 1  # as MATRIX, data holding the diagonal
    PERMUTATION = 2  # as MATRIX, data@ the phases (-1: none), column 7 the permutation@
    MEASURE = 3  # [op, qubit, clbit]
    RESET = 4  # [op, qubit]
    IF = 5  # [op, clbits@, n_clbits, values@, n_values, row to go to when none holds]
    JUMP = 6  # [op, row]
    LOOP_ENTER = 7  # [op, slot]: the loop's iteration count set to 0
    LOOP_TEST = 8  # [op, clbits@, n_clbits, values@, n_values, exit row, slot]
    MIXTURE = 9  # [op, n_branches, probabilities@ (reals), first rows@]
    KRAUS = 10  # [op, n]: the next n rows are the Kraus operators' MATRIX rows
    STORE = 11  # [op, clbits@, n_clbits, sources@, n_sources, table@]


class CollapseContext(Protocol):
    """What the calls that are not gates need while a plan runs: a state that can collapse
    (measurements, resets, a Kraus branch of a channel) and the classical bits written so far
    (conditionals read them, stores write them)."""

    @property
    def clbits(self) -> MutableMapping[int, int]: ...

    def collapse(self, call: MeasureCall | ResetCall | ChannelCall) -> None: ...


_G = TypeVar("_G", bound="GateCall")


class GateCall:
    """Shared behaviour of the gate calls: where they act, renaming, the controlled subspace."""

    kind: ClassVar[CallKind]
    targets: tuple[int, ...]
    controls: tuple[int, ...]
    control_values: tuple[int, ...]

    @property
    def qubits(self) -> tuple[int, ...]:
        """Every qubit involved: targets, then controls."""
        return self.targets + self.controls

    @property
    def data(self) -> Any:
        """The call's numbers: the matrix, the diagonal, or the phases (``None`` for a pure
        permutation)."""
        raise NotImplementedError

    def with_data(self: _G, data: Any) -> _G:
        """The same call on the same qubits with other numbers (see :attr:`data`)."""
        raise NotImplementedError

    def renamed(self: _G, position: Mapping[int, int]) -> _G:
        """The call with each qubit ``q`` renamed ``position[q]`` (a gathered tile's view).
        Made as a copy of the call's fields with the qubits replaced: the calls are frozen
        dataclasses without ``__post_init__``, and ``dataclasses.replace`` (which builds
        through ``__init__``) took two thirds of grouping a circuit into tile runs, which
        renames every call it places."""
        clone = object.__new__(type(self))
        clone.__dict__.update(
            self.__dict__,
            targets=tuple(position[q] for q in self.targets),
            controls=tuple(position[q] for q in self.controls),
        )
        return clone

    def run(self, backend: Backend, state: Any, context: CollapseContext | None = None) -> None:
        """Apply the call to ``state`` with ``backend``'s primitive."""
        raise NotImplementedError

    def adjoint(self: _G) -> _G:
        """The call of the adjoint gate on the same qubits, from the numbers alone (the
        inverse of a unitary call; the adjoint sweep un-applies gates with it)."""
        raise NotImplementedError

    def dense(self) -> Any:
        """The call's ``2**k x 2**k`` matrix on its targets (controls not included)."""
        raise NotImplementedError


@dataclass(frozen=True, eq=False)
class MatrixCall(GateCall):
    """A dense ``2**k x 2**k`` matrix on ``targets`` (``targets[0]`` its index's lowest bit)."""

    matrix: Any
    targets: tuple[int, ...]
    controls: tuple[int, ...] = ()
    control_values: tuple[int, ...] = ()
    kind: ClassVar[CallKind] = CallKind.MATRIX

    @property
    def data(self) -> Any:
        return self.matrix

    def with_data(self, data: Any) -> MatrixCall:
        return replace(self, matrix=data)

    def run(self, backend: Backend, state: Any, context: CollapseContext | None = None) -> None:
        backend.apply_matrix(state, self.matrix, self.targets, self.controls, self.control_values)

    def adjoint(self) -> MatrixCall:
        return replace(self, matrix=np.ascontiguousarray(np.conj(self.matrix).T))

    def dense(self) -> Any:
        return self.matrix


@dataclass(frozen=True, eq=False)
class DiagonalCall(GateCall):
    """A diagonal gate: ``|j> -> diagonal[j] |j>`` on the target pattern ``j``."""

    diagonal: Any
    targets: tuple[int, ...]
    controls: tuple[int, ...] = ()
    control_values: tuple[int, ...] = ()
    kind: ClassVar[CallKind] = CallKind.DIAGONAL

    @property
    def data(self) -> Any:
        return self.diagonal

    def with_data(self, data: Any) -> DiagonalCall:
        return replace(self, diagonal=data)

    def run(self, backend: Backend, state: Any, context: CollapseContext | None = None) -> None:
        backend.apply_diagonal(
            state, self.diagonal, self.targets, self.controls, self.control_values
        )

    def adjoint(self) -> DiagonalCall:
        return replace(self, diagonal=np.conj(self.diagonal))

    def dense(self) -> Any:
        return np.diag(self.diagonal)


@dataclass(frozen=True, eq=False)
class PermutationCall(GateCall):
    """A phased permutation: ``|j> -> phases[j] |permutation[j]>`` (``phases`` ``None``
    when every phase is one)."""

    permutation: Any  # an int array or sequence: |j> -> |permutation[j]>
    phases: Any
    targets: tuple[int, ...]
    controls: tuple[int, ...] = ()
    control_values: tuple[int, ...] = ()
    kind: ClassVar[CallKind] = CallKind.PERMUTATION

    @property
    def data(self) -> Any:
        return self.phases

    def with_data(self, data: Any) -> PermutationCall:
        return replace(self, phases=data)

    def run(self, backend: Backend, state: Any, context: CollapseContext | None = None) -> None:
        backend.apply_permutation(
            state, self.permutation, self.phases, self.targets, self.controls, self.control_values
        )

    def adjoint(self) -> PermutationCall:
        """``|permutation[j]> -> conj(phases[j]) |j>``."""
        forward = np.asarray(self.permutation)
        backward = np.empty_like(forward)
        backward[forward] = np.arange(forward.size, dtype=forward.dtype)
        phases = None
        if self.phases is not None:
            phases = np.empty_like(self.phases)
            phases[forward] = np.conj(self.phases)
        return replace(self, permutation=backward, phases=phases)

    def dense(self) -> Any:
        forward = np.asarray(self.permutation)
        phases = np.ones(forward.size) if self.phases is None else self.phases
        out = np.zeros((forward.size, forward.size), dtype=np.result_type(phases, complex))
        out[forward, np.arange(forward.size)] = phases
        return out


@dataclass(frozen=True)
class MeasureCall:
    """Measure ``qubit`` into classical bit ``clbit``, collapsing the state (mid-circuit)."""

    qubit: int
    clbit: int

    @property
    def targets(self) -> tuple[int, ...]:
        return (self.qubit,)

    def run(self, backend: Any, state: Any, context: CollapseContext | None = None) -> None:
        _collapse(self, context)


@dataclass(frozen=True)
class ResetCall:
    """Reset ``qubit`` to ``|0>``: measure it, then flip it back on outcome 1."""

    qubit: int

    @property
    def targets(self) -> tuple[int, ...]:
        return (self.qubit,)

    def run(self, backend: Any, state: Any, context: CollapseContext | None = None) -> None:
        _collapse(self, context)


@dataclass(frozen=True, eq=False)
class ChannelCall:
    """A noise channel on a state vector: one Kraus branch is drawn per run (a quantum
    trajectory). ``kraus`` holds one matrix call per Kraus operator; for a mixture of Pauli
    strings ``mixture`` holds the branch probabilities (fixed, whatever the state) and the
    gate calls of each branch, so drawing one needs no trial applications."""

    targets: tuple[int, ...]
    kraus: tuple[MatrixCall, ...]
    mixture: tuple[Any, tuple[tuple[GateCall, ...], ...]] | None = None

    def run(self, backend: Any, state: Any, context: CollapseContext | None = None) -> None:
        _collapse(self, context)


def clbits_value(bits: Sequence[int], clbits: Mapping[int, int]) -> int:
    """The unsigned value of the classical bits ``bits`` (the first the lowest) in the
    record ``clbits`` (bits not yet written read 0): what conditions and loops compare."""
    return sum(clbits.get(b, 0) << i for i, b in enumerate(bits))


@dataclass(frozen=True, eq=False)
class ConditionalCall:
    """Calls that run only when the classical bits ``clbits`` (``clbits[0]`` lowest) hold
    one of ``values`` (bits not yet written read 0), and ``orelse`` calls when they hold
    none; the bits are read once, before either branch runs."""

    clbits: tuple[int, ...]
    values: frozenset[int]
    body: tuple[Any, ...]  # calls, run in order
    targets: tuple[int, ...] = ()
    orelse: tuple[Any, ...] = ()  # calls of the else branch, run in order

    def holds(self, clbits: Mapping[int, int]) -> bool:
        return clbits_value(self.clbits, clbits) in self.values

    def branch(self, clbits: Mapping[int, int]) -> tuple[Any, ...]:
        """The calls that run on the bits ``clbits``: the body's or the else branch's."""
        return self.body if self.holds(clbits) else self.orelse

    @property
    def branches(self) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """The calls of both branches (the else branch's empty where it has none)."""
        return (self.body, self.orelse)

    def run(self, backend: Any, state: Any, context: CollapseContext | None = None) -> None:
        if context is None:
            raise TypeError("ConditionalCall needs a state context (its classical bits) to run")
        for call in self.branch(context.clbits):
            call.run(backend, state, context)


@dataclass(frozen=True)
class StoreCall:
    """Write ``table[v]`` into the classical bits ``clbits`` (``clbits[0]`` lowest), ``v``
    the value of the bits ``sources`` (``sources[0]`` lowest; bits not yet written read 0)
    when it runs: a classical store, on no qubit."""

    clbits: tuple[int, ...]
    sources: tuple[int, ...]
    table: tuple[int, ...]

    @property
    def targets(self) -> tuple[int, ...]:
        return ()

    def written(self, clbits: Mapping[int, int]) -> dict[int, int]:
        """The new value of each written bit, from the bits ``clbits`` before the store."""
        value = self.table[clbits_value(self.sources, clbits)]
        return {b: (value >> i) & 1 for i, b in enumerate(self.clbits)}

    def run(self, backend: Any, state: Any, context: CollapseContext | None = None) -> None:
        if context is None:
            raise TypeError("StoreCall needs a state context (its classical bits) to run")
        bits = context.clbits
        bits.update(self.written(bits))


MAX_WHILE_ITERATIONS = 100_000
"""Iterations one while loop may run in one shot before it is stopped with an error."""


@dataclass(frozen=True, eq=False)
class LoopCall:
    """Calls that run again and again while the classical bits ``clbits`` (``clbits[0]``
    lowest) hold one of ``values``: a while loop, run on one shot's bits."""

    clbits: tuple[int, ...]
    values: frozenset[int]
    body: tuple[Any, ...]  # calls, run in order
    targets: tuple[int, ...] = ()

    def holds(self, clbits: Mapping[int, int]) -> bool:
        return clbits_value(self.clbits, clbits) in self.values

    @property
    def branches(self) -> tuple[tuple[Any, ...]]:
        """The calls of its one branch, the body."""
        return (self.body,)

    def repeat(self, clbits: Callable[[], Mapping[int, int]], once: Callable[[], None]) -> None:
        """Call ``once`` while the bits ``clbits()`` holds (read afresh each time) hold a
        value (see :meth:`check_iterations`)."""
        done = 0
        while self.holds(clbits()):
            done += 1
            self.check_iterations(done)
            once()

    def check_iterations(self, iteration: int) -> None:
        """Refuse to start iteration ``iteration`` (from 1) of one shot past
        :data:`MAX_WHILE_ITERATIONS`: :class:`~genqsim.errors.WhileLoopLimitError`."""
        if iteration > MAX_WHILE_ITERATIONS:
            raise WhileLoopLimitError(
                f"a while loop on classical bits {list(self.clbits)} (values "
                f"{sorted(self.values)}) ran {MAX_WHILE_ITERATIONS:,} times in one shot "
                "without its condition failing: stopped rather than left to run on"
            )

    def run(self, backend: Any, state: Any, context: CollapseContext | None = None) -> None:
        if context is None:
            raise TypeError("LoopCall needs a state context (its classical bits) to run")
        live = context

        def once() -> None:
            for call in self.body:
                call.run(backend, state, live)

        self.repeat(lambda: live.clbits, once)


def _collapse(call: MeasureCall | ResetCall | ChannelCall, context: CollapseContext | None) -> None:
    if context is None:
        raise TypeError(f"{type(call).__name__} needs a state context to run")
    context.collapse(call)


Call = Union[  # noqa: UP007
    MatrixCall,
    DiagonalCall,
    PermutationCall,
    MeasureCall,
    ResetCall,
    ChannelCall,
    ConditionalCall,
    LoopCall,
    StoreCall,
]
"""One primitive call of a plan."""

GATE_CALLS = (MatrixCall, DiagonalCall, PermutationCall)


@dataclass(eq=False)
class BlockRun:
    """A run of gate calls that all act on the ``block_qubits`` qubits of ``qubits`` (by
    default the lowest ones): a backend that runs blocks (``genqsim.backends.BlockRunner``)
    applies the whole run to one block of the state at a time — the amplitudes that differ
    only on those qubits, held in cache or shared memory; any other backend runs the calls
    in order. ``local_calls`` are the calls with each qubit renamed to its position in
    ``qubits`` (what a kernel working on a gathered block sees). ``encoded`` caches a
    backend's own encoding of the run; it is not pickled."""

    calls: list[MatrixCall | DiagonalCall | PermutationCall]
    block_qubits: int
    qubits: tuple[int, ...] = ()
    local_calls: list[MatrixCall | DiagonalCall | PermutationCall] = field(init=False)
    encoded: dict[Any, Any] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.calls = list(self.calls)
        self.qubits = tuple(sorted(self.qubits)) if self.qubits else tuple(range(self.block_qubits))
        if len(self.qubits) != self.block_qubits:
            raise ValueError(f"a block of {self.block_qubits} qubits cannot span {self.qubits}")
        if self.contiguous:  # the lowest qubits: every call already names its own
            self.local_calls = list(self.calls)
        else:
            position = {q: i for i, q in enumerate(self.qubits)}
            self.local_calls = [c.renamed(position) for c in self.calls]
        self.encoded = {}

    @property
    def contiguous(self) -> bool:
        """Whether the block is the lowest qubits (a block is a run of consecutive amplitudes)."""
        return self.qubits == tuple(range(self.block_qubits))

    def run_in_order(self, backend: Backend, state: Any) -> None:
        """Apply the calls one by one (for backends that do not run blocks)."""
        for call in self.calls:
            call.run(backend, state)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "encoded": {}}  # device buffers and caches stay behind

    def __repr__(self) -> str:
        return f"<BlockRun of {len(self.calls)} calls on qubits {list(self.qubits)}>"


MonomialMember = DiagonalCall | PermutationCall


def monomial_map(
    calls: Sequence[MonomialMember], low: int, bits: int
) -> tuple[np.ndarray, np.ndarray | None]:
    """``(destination, phases)`` of permutation and diagonal ``calls`` on qubits ``low`` to
    ``low + bits - 1``, over the ``2**bits`` patterns of those qubits: together the calls
    send pattern ``s`` to ``destination[s]`` times ``phases[s]`` (``None`` when every phase
    is one)."""
    if all(_is_plain_exchange(call) and len(call.controls) <= 1 for call in calls):
        return _affine_exchange_map(cast(Sequence[PermutationCall], calls), low, bits), None
    where = np.arange(1 << bits, dtype=np.int64)  # where each pattern's amplitude now is
    phases: np.ndarray | None = None
    for call in calls:
        on = np.ones(where.size, dtype=bool)
        for q, v in zip(call.controls, call.control_values):
            on &= ((where >> (q - low)) & 1) == v
        pattern = np.zeros(where.size, dtype=np.int64)
        for i, q in enumerate(call.targets):
            pattern |= ((where >> (q - low)) & 1) << i
        if isinstance(call, PermutationCall):
            image = np.asarray(call.permutation, dtype=np.int64)[pattern]
            moved = where
            for i, q in enumerate(call.targets):
                moved = (moved & ~(np.int64(1) << (q - low))) | (((image >> i) & 1) << (q - low))
            where = np.where(on, moved, where)
        if call.data is not None:
            step = np.where(on, np.asarray(call.data, dtype=np.complex128)[pattern], 1)
            phases = step if phases is None else phases * step
    return where, phases


def _is_plain_exchange(call: MonomialMember) -> bool:
    """Whether ``call`` exchanges the two values of its one target and does nothing else."""
    return (
        isinstance(call, PermutationCall)
        and call.phases is None
        and len(call.targets) == 1
        and int(call.permutation[0]) == 1
    )


def _affine_exchange_map(calls: Sequence[PermutationCall], low: int, bits: int) -> np.ndarray:
    """:func:`monomial_map`'s destinations for X and singly controlled X calls (a CX ladder),
    which map bit patterns affinely over GF(2): ``s -> M s ^ offset``. The calls update the
    columns of ``M`` and the offset, and the table is built by doubling, one array operation
    per bit, instead of several per call over every pattern."""
    columns = [1 << j for j in range(bits)]  # M's column j: where bit j of a pattern goes
    offset = 0
    for call in calls:
        flip = 1 << (call.targets[0] - low)
        if not call.controls:
            offset ^= flip
            continue
        control = call.controls[0] - low
        columns = [col ^ flip if col >> control & 1 else col for col in columns]
        if (offset >> control & 1) == call.control_values[0]:
            offset ^= flip
    where = np.empty(1 << bits, dtype=np.int64)
    where[0] = offset
    for j, col in enumerate(columns):
        where[1 << j : 2 << j] = where[: 1 << j] ^ col
    return where


@dataclass(eq=False)
class MonomialRun:
    """A run of permutation and diagonal calls on qubits ``series_qubits`` and above, of a
    state of ``n_qubits``: together they move each series of ``2**series_qubits``
    consecutive amplitudes whole onto another series, times one phase (a monomial matrix on
    the series). A backend that runs such maps (``genqsim.backends.MonomialRunner``) applies
    the run in one pass over the series it changes; any other backend runs the calls in
    order. ``destination`` and ``phases`` are the map (:meth:`series_map`); ``encoded``
    caches a backend's own encoding of the run, and is not pickled."""

    calls: list[MonomialMember]
    series_qubits: int
    n_qubits: int
    destination: np.ndarray = field(init=False, repr=False)
    phases: np.ndarray | None = field(init=False, repr=False)
    encoded: dict[Any, Any] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.calls = list(self.calls)
        low = min((q for c in self.calls for q in c.qubits), default=self.n_qubits)
        if not 0 <= self.series_qubits <= low or low >= self.n_qubits:
            raise ValueError(
                f"calls on qubits from {low} up do not move series of "
                f"{self.series_qubits} qubits of a {self.n_qubits}-qubit state"
            )
        self.destination, self.phases = self.series_map()
        self.encoded = {}

    @property
    def changed(self) -> np.ndarray:
        """Which series the run changes (moves, or multiplies by a phase other than one)."""
        changed = self.destination != np.arange(self.destination.size)
        return changed if self.phases is None else changed | (self.phases != 1)

    def series_map(self) -> tuple[np.ndarray, np.ndarray | None]:
        """``(destination, phases)`` over the ``2**(n_qubits - series_qubits)`` series: the
        calls together send series ``s`` to series ``destination[s]`` times ``phases[s]``
        (``None`` when every phase is one)."""
        return monomial_map(self.calls, self.series_qubits, self.n_qubits - self.series_qubits)

    def run_in_order(self, backend: Backend, state: Any) -> None:
        """Apply the calls one by one (for backends that do not run monomial maps)."""
        for call in self.calls:
            call.run(backend, state)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "encoded": {}}

    def __repr__(self) -> str:
        return (
            f"<MonomialRun of {len(self.calls)} calls moving series of {self.series_qubits} qubits>"
        )


PlanItem = Union[Call, BlockRun, MonomialRun]  # noqa: UP007
"""What a plan holds: calls, block runs and monomial runs."""


def is_gate_call(item: object) -> bool:
    """Whether ``item`` is a unitary gate call (matrix, diagonal or permutation)."""
    return isinstance(item, GATE_CALLS)
