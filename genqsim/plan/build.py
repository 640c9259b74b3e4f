"""Plans: a circuit turned into primitive backend calls for one number system.

Building a plan validates the whole circuit (free parameters where the numbers cannot carry
symbols, non-finite values) and builds every gate's data before any amplitude changes, so a
rejected circuit leaves the state untouched. Plans depend only on the circuit and the number
system, never on the state's values, so they can be built once and replayed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from ..backends.protocol import BlockRunner, GateCallRunner, MonomialRunner, capability
from ..circuit.channels import QuantumChannel
from ..circuit.circuit import Circuit, Operation
from ..circuit.conditional import Conditional, WhileLoop
from ..circuit.gates import GateKind, NamedGate
from ..circuit.store import Store
from ..errors import ArgumentValueError, NotNumericError, UnboundParameterError
from ..numbers import NumberSystem
from .calls import (
    GATE_CALLS,
    BlockRun,
    Call,
    ChannelCall,
    CollapseContext,
    ConditionalCall,
    DiagonalCall,
    GateCall,
    LoopCall,
    MatrixCall,
    MeasureCall,
    MonomialRun,
    PermutationCall,
    PlanItem,
    ResetCall,
    StoreCall,
)
from .diagonals import merge_diagonals
from .grouping import (
    group_block_runs,
    group_monomial_runs,
    group_tile_runs,
    whole_state_runs,
)
from .layers import split_unitary_layers

if TYPE_CHECKING:
    from ..backends.protocol import Backend, BlockLayout

T = TypeVar("T")


def call_for(op: Operation, numbers: NumberSystem) -> Call | None:
    """The primitive call for one operation (``None`` for barriers and identities)."""
    gate = op.gate
    args = (op.targets, op.controls, op.control_values)
    if gate.kind is GateKind.BARRIER or gate.name == "id":
        return None
    if gate.kind is GateKind.MEASURE:
        return MeasureCall(op.targets[0], gate.clbit)  # type: ignore[attr-defined]
    if gate.kind is GateKind.RESET:
        return ResetCall(op.targets[0])
    if isinstance(gate, Store):
        return StoreCall(gate.clbits, gate.sources, gate.table)
    if isinstance(gate, QuantumChannel):
        return channel_call(gate, op.targets, numbers)
    if isinstance(gate, Conditional):  # an if (with its else), or a while loop
        body, orelse = (
            _calls_for(gate.operations_on(op.targets, branch), numbers) for branch in (0, 1)
        )
        if isinstance(gate, WhileLoop):
            return LoopCall(gate.clbits, frozenset(gate.values), body, op.targets)
        return ConditionalCall(gate.clbits, frozenset(gate.values), body, op.targets, orelse)
    if gate.kind is GateKind.DIAGONAL:
        return DiagonalCall(gate.diagonal(numbers), *args)
    if gate.kind is GateKind.PERMUTATION:
        perm, phases = gate.permutation(numbers)
        return PermutationCall(perm, phases, *args)
    return MatrixCall(gate.matrix(numbers), *args)


def _calls_for(ops: list[Operation], numbers: NumberSystem) -> tuple[Call, ...]:
    """The calls of a branch's operations, barriers and identities left out."""
    return tuple(c for c in (call_for(op, numbers) for op in ops) if c is not None)


def channel_call(
    channel: QuantumChannel, targets: tuple[int, ...], numbers: NumberSystem
) -> ChannelCall:
    """A channel as a trajectory draws it: its Kraus operators, and for Pauli mixtures the
    branch probabilities (as floats: a draw needs numbers) and the gate calls of each branch."""
    if channel.free_symbols:
        names = ", ".join(sorted(map(str, channel.free_symbols)))
        raise NotNumericError(
            f"a state vector draws Kraus branches of {channel.name}, which needs numeric "
            f"rates, not symbols ({names}): bind them, or use method='density_matrix' for an "
            "exact symbolic result"
        )
    kraus = tuple(MatrixCall(k, targets) for k in channel.kraus(numbers))
    mixture = channel.mixture(numbers)
    if mixture is None:
        return ChannelCall(targets, kraus)
    probabilities = np.array([numbers.to_complex(w).real for w, _ in mixture])
    branches = tuple(
        tuple(_pauli_call(letter, q, numbers) for q, letter in zip(targets, pauli) if letter != "I")
        for _, pauli in mixture
    )
    return ChannelCall(targets, kraus, (probabilities, branches))


def _pauli_call(letter: str, qubit: int, numbers: NumberSystem) -> GateCall:
    gate = NamedGate(letter.lower())
    if gate.kind is GateKind.DIAGONAL:
        return DiagonalCall(gate.diagonal(numbers), (qubit,))
    perm, phases = gate.permutation(numbers)
    return PermutationCall(perm, phases, (qubit,))


def check_bound(circuit: Circuit, numbers: NumberSystem) -> None:
    """Raise ``UnboundParameterError`` if the circuit has parameters the numbers cannot hold."""
    free = numbers.unbound(circuit.parameters)
    if free:
        names = ", ".join(str(p) for p in sorted(free, key=str))
        raise UnboundParameterError(
            f"circuit has free parameters ({names}) but numbers={numbers.name!r} cannot hold "
            "symbols: bind them first (circuit.bind({...})) or use numbers='sympy'"
        )


DEFAULT_FUSED_QUBITS = 3
"""Default width of fused blocks of diagonal/permutation gates (machine numbers)."""
DEFAULT_DENSE_FUSED_QUBITS = 1
"""Default width of fused blocks holding a dense gate: 1 merges runs of one-qubit gates on
the same qubit only. Chosen with ``benchmarks/``: on the reference machine the compiled
dense kernels are compute-bound from two qubits on (docs/performance.md)."""


DEFAULT_FUSION_MIN_QUBITS = 22
"""``fuse=None`` fuses states of at least this many qubits. Below, a pass over the state
costs less than building the fused blocks' matrices (Python per gate), so gate by gate is
faster: on the reference machine (``python benchmarks/startup_bench.py``) fused / gate by
gate is 2.6 / 1.6 / 1.1 for QFT at 12 / 16 / 20 qubits and 0.96 at 22."""


def fusion_widths(
    numbers: NumberSystem, fuse: int | bool | None, n_qubits: int | None = None
) -> tuple[int, int]:
    """``(structured, dense)`` block widths. ``fuse=None`` picks the defaults for the numbers
    (off for object arrays, where products of expressions grow, and for states of fewer than
    ``DEFAULT_FUSION_MIN_QUBITS`` qubits), ``False``/``0`` disables, an int sets both
    widths."""
    if fuse is None:
        if numbers.dtype.kind != "c":
            return 0, 0
        if n_qubits is not None and n_qubits < DEFAULT_FUSION_MIN_QUBITS:
            return 0, 0
        return DEFAULT_FUSED_QUBITS, DEFAULT_DENSE_FUSED_QUBITS
    if fuse is True:
        return DEFAULT_FUSED_QUBITS, DEFAULT_DENSE_FUSED_QUBITS
    if fuse is False:
        return 0, 0
    if isinstance(fuse, bool) or not isinstance(fuse, int) or fuse < 0:
        raise ArgumentValueError(f"fuse must be None, a bool or a non-negative int, got {fuse!r}")
    return fuse, fuse


def build_plan(
    circuit: Circuit,
    numbers: NumberSystem,
    fuse: int | bool | None = None,
    block_qubits: int | None = None,
    layout: BlockLayout | None = None,
) -> list[PlanItem]:
    """Validate ``circuit`` for ``numbers`` and turn it into typed calls, fusing
    neighbouring gates into blocks (widths from ``fusion_widths(numbers, fuse)``) and grouping
    runs of gates into :class:`BlockRun` s: on the lowest ``block_qubits`` qubits (cache
    blocks), or over the tiles a backend's :class:`~genqsim.backends.BlockLayout` describes."""
    check_bound(circuit, numbers)
    circuit, _ = circuit.split_terminal_measurements()  # those only feed sampling
    width, dense_width = fusion_widths(numbers, fuse, circuit.n_qubits)
    if width >= 2:
        from .fusion import fuse_circuit

        circuit = fuse_circuit(circuit, numbers, width, dense_width)
    calls: list[PlanItem] = [
        c for c in (call_for(op, numbers) for op in circuit.operations) if c is not None
    ]
    if width >= 2 and layout is not None and numbers.dtype.kind == "c":  # factors: complex128
        if layout.merged_diagonal_qubits:
            if layout.split_unitary_layers:
                calls = split_unitary_layers(calls)
            calls = merge_diagonals(calls, layout.merged_diagonal_qubits,
                                    layout.merged_diagonal_bands)  # fmt: skip
    return group_calls(calls, circuit.n_qubits, layout, block_qubits)


def group_calls(
    calls: list[PlanItem],
    n_qubits: int,
    layout: BlockLayout | None = None,
    block_qubits: int | None = None,
) -> list[PlanItem]:
    """Runs of ``calls`` grouped into :class:`BlockRun` s over the tiles of ``layout`` (none
    for states smaller than its minimum), then what is left over its ``gathered`` tiles;
    without a layout, on the lowest ``block_qubits`` qubits."""
    if layout is None:
        return group_block_runs(calls, n_qubits, block_qubits)
    grouped = calls
    series_qubits = layout.min_series_qubits
    if n_qubits < layout.min_state_qubits:
        return grouped
    while layout is not None and n_qubits >= layout.min_state_qubits:
        grouped = group_tile_runs(grouped, n_qubits, layout.tile_qubits, layout.low_qubits,
                                  layout.min_gathered_work)  # fmt: skip
        layout = layout.gathered
    if series_qubits is not None:
        grouped = group_monomial_runs(_unwrap_monomial_tiles(grouped, series_qubits), n_qubits,
                                      series_qubits)  # fmt: skip
    return grouped


def _unwrap_monomial_tiles(items: list[PlanItem], series_qubits: int) -> list[PlanItem]:
    """``items`` with each gathered run of only permutation and diagonal calls on qubits
    ``series_qubits`` and above back as plain calls: as a monomial run they cost one pass
    over the series they change at most, a gathered tile about two and a half."""
    out: list[PlanItem] = []
    for item in items:
        if (
            isinstance(item, BlockRun)
            and not item.contiguous
            and all(isinstance(c, (PermutationCall, DiagonalCall)) for c in item.calls)
            and min(q for c in item.calls for q in c.qubits) >= series_qubits
        ):
            out.extend(item.calls)
        else:
            out.append(item)
    return out


def block_layout_of(backend: Backend, dtype: Any, tiles: bool = False) -> BlockLayout | None:
    """The backend's :class:`~genqsim.backends.BlockRunner` block layout (its tile layout
    with ``tiles``), or ``None`` for a backend that runs calls one by one."""
    runner = capability(backend, BlockRunner)
    if runner is None:
        return None
    return runner.tile_layout(dtype) if tiles else runner.block_layout(dtype)


WHOLE_STATE_RUNS_FROM = 3
"""The apply of a kept plan from which a state smaller than its backend's blocks runs the
plan's gate calls as runs over the whole state (where the backend's layout asks for them:
:attr:`~genqsim.backends.BlockLayout.repeated_whole_state_runs`). With the encoding of the
runs, that apply takes 1.3-4 times an apply gate by gate, and every later one 0.15-0.65 of
it (a 4-layer ansatz on 9-16 qubits, ``python benchmarks/apply_overhead.py --small``); a
plan applied a third time is likely applied many times (a Trotter step, one circuit on many
starting states), and one applied once or twice never pays for the encoding."""


def plan_for_backend(
    circuit: Circuit,
    numbers: NumberSystem,
    backend: Backend,
    fuse: int | bool | None = None,
    tiles: bool = False,
    keep: bool = False,
) -> list[PlanItem]:
    """:func:`build_plan` with the blocks the backend runs (its
    :class:`~genqsim.backends.BlockRunner` block layout, or its tile layout with ``tiles``),
    or none. With ``keep``, the plan is kept on ``circuit`` until it grows (see
    :func:`kept_on`): a circuit applied again (a Trotter step, a fixed circuit sampled from
    many starting states) is not checked, fused and grouped again, and its runs keep their
    backend encodings (on a GPU, already on the device)."""

    def build() -> list[PlanItem]:
        layout = block_layout_of(backend, numbers.dtype, tiles)
        return build_plan(circuit, numbers, fuse, layout=layout)

    if not keep:
        return build()
    return kept_on(circuit, numbers, ("plan", backend, numbers.name, fuse, tiles), build)


def plan_to_apply(
    circuit: Circuit, numbers: NumberSystem, backend: Backend, fuse: int | bool | None = None
) -> list[PlanItem]:
    """The plan an ``apply`` of ``circuit`` runs: its plan kept on the circuit
    (:func:`plan_for_backend`), counting the applies; from the
    :data:`WHOLE_STATE_RUNS_FROM`-th on, on a state smaller than the backend's blocks whose
    layout asks for it (:attr:`~genqsim.backends.BlockLayout.repeated_whole_state_runs`),
    that plan with its stretches of gate calls as runs over the whole state
    (:func:`~genqsim.plan.grouping.whole_state_runs`), kept too."""
    plan = plan_for_backend(circuit, numbers, backend, fuse, keep=True)
    if numbers.dtype.kind != "c":  # nothing kept: the plan is built anew each time
        return plan
    layout = block_layout_of(backend, numbers.dtype)
    if (
        layout is None
        or not layout.repeated_whole_state_runs
        or circuit.n_qubits >= layout.min_state_qubits
    ):
        return plan
    key = ("applies", backend, numbers.name, fuse)
    applies: list[int] = circuit.derived(key, lambda: [0])
    applies[0] += 1
    if applies[0] < WHOLE_STATE_RUNS_FROM:
        return plan
    whole: list[PlanItem] = circuit.derived(
        ("whole-state plan", backend, numbers.name, fuse),
        lambda: whole_state_runs(plan, circuit.n_qubits),
    )
    return whole


def kept_on(circuit: Circuit, numbers: NumberSystem, key: tuple, build: Callable[[], T]) -> T:
    """``build()``, kept on ``circuit`` under ``key`` until the circuit grows, for machine
    numbers; other numbers build anew each time, since their values may depend on the number
    system's context."""
    if numbers.dtype.kind != "c":
        return build()
    kept: T = circuit.derived(key, build)
    return kept


def run_item(
    item: PlanItem, backend: Backend, state: Any, context: CollapseContext | None = None
) -> None:
    """Execute one plan item: block and monomial runs go whole to a backend that runs them,
    else call by call; gate calls go whole to a backend that runs them
    (:class:`~genqsim.backends.GateCallRunner`); everything else runs its own primitive."""
    apply: Any
    if isinstance(item, GATE_CALLS):
        caller = capability(backend, GateCallRunner)
        if caller is not None:
            caller.apply_gate_call(state, item)
            return
        item.run(backend, state)
        return
    if isinstance(item, BlockRun):
        runner = capability(backend, BlockRunner)
        apply = None if runner is None else runner.apply_block_run
    elif isinstance(item, MonomialRun):
        mover = capability(backend, MonomialRunner)
        apply = None if mover is None else mover.apply_monomial_run
    else:
        item.run(backend, state, context)
        return
    if apply is None:
        item.run_in_order(backend, state)
    else:
        apply(state, item)


def run_plan(
    plan: Sequence[PlanItem],
    backend: Backend,
    state: Any,
    context: CollapseContext | None = None,
    progress: Any = None,
) -> None:
    """Execute every item of a plan in order (``context``: what measurements and resets
    collapse; ``progress``: an object with ``update(done)``, called after each item)."""
    for done, item in enumerate(plan, 1):
        run_item(item, backend, state, context)
        if progress is not None:
            progress.update(done)


def run_restricted(call: GateCall, backend: Backend, state: Any, numbers: NumberSystem) -> None:
    """Apply ``call`` as the operator ``P_c (x) M`` that is *zero* outside the controlled
    subspace (a controlled gate leaves that part alone instead). Derivatives of controlled gates
    and radius bounds of their entries are of this form."""
    call.run(backend, state)
    if call.controls:
        pattern = sum(v << i for i, v in enumerate(call.control_values))
        size = 1 << len(call.controls)
        indicator = [numbers.one if j == pattern else numbers.zero for j in range(size)]
        backend.apply_diagonal(state, numbers.array(indicator), call.controls)
