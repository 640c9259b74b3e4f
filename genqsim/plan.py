"""Plans: a circuit turned into primitive backend calls for one number system.

Building a plan validates the whole circuit (free parameters where the numbers cannot carry
symbols, non-finite values) and builds every gate's data before any amplitude changes, so a
rejected circuit leaves the state untouched. Plans depend only on the circuit and the number
system, never on the state's values, so they can be built once and replayed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .circuit import Circuit, Operation
from .errors import UnboundParameterError
from .gates import GateKind
from .numbers import NumberSystem


@dataclass(frozen=True)
class Call:
    """One primitive call: ``kind`` is ``"matrix"``, ``"diagonal"`` or ``"permutation"``;
    ``data`` the matrix, the diagonal, or ``(permutation, phases)``."""

    kind: str
    data: Any
    targets: tuple[int, ...]
    controls: tuple[int, ...] = ()
    control_values: tuple[int, ...] = ()

    def run(self, backend: Any, state: Any, context: Any = None) -> None:
        """Execute this call on ``state`` with ``backend``; measurements and resets need the
        ``context`` (a state's collapse routine and random generator)."""
        args = (self.targets, self.controls, self.control_values)
        if self.kind in ("measure", "reset"):
            if context is None:
                raise TypeError(f"a {self.kind} needs a state context to run")
            context.collapse(self)
        elif self.kind == "diagonal":
            backend.apply_diagonal(state, self.data, *args)
        elif self.kind == "permutation":
            perm, phases = self.data
            backend.apply_permutation(state, perm, phases, *args)
        else:
            backend.apply_matrix(state, self.data, *args)


def run_restricted(call: Call, backend: Any, state: Any, numbers: NumberSystem) -> None:
    """Apply ``call`` as the operator ``P_c (x) M`` that is *zero* outside the controlled
    subspace (a controlled gate leaves that part alone instead). Derivatives of controlled gates
    and radius bounds of their entries are of this form."""
    call.run(backend, state)
    if call.controls:
        pattern = sum(v << i for i, v in enumerate(call.control_values))
        size = 1 << len(call.controls)
        indicator = [numbers.one if j == pattern else numbers.zero for j in range(size)]
        backend.apply_diagonal(state, numbers.array(indicator), call.controls)


class BlockRun:
    """A run of calls that all act on the ``block_qubits`` qubits of ``qubits`` (by default the
    lowest ones): a backend with ``apply_block_run`` applies the whole run to one block of the
    state at a time — the amplitudes that differ only on those qubits, held in cache or shared
    memory; any other backend simply runs the calls in order. ``local_calls`` are the calls
    with each qubit renamed to its position in ``qubits`` (what a kernel working on a gathered
    block sees)."""

    kind = "block_run"

    def __init__(
        self, calls: Sequence[Call], block_qubits: int, qubits: Sequence[int] | None = None
    ) -> None:
        self.calls = list(calls)
        self.block_qubits = block_qubits
        self.qubits = tuple(range(block_qubits)) if qubits is None else tuple(sorted(qubits))
        if len(self.qubits) != block_qubits:
            raise ValueError(f"a block of {block_qubits} qubits cannot span {self.qubits}")
        position = {q: i for i, q in enumerate(self.qubits)}
        self.local_calls = [
            Call(c.kind, c.data, tuple(position[q] for q in c.targets),
                 tuple(position[q] for q in c.controls), c.control_values)
            for c in self.calls
        ]  # fmt: skip
        self.encoded: dict = {}  # backend-specific encodings, filled on first use

    @property
    def contiguous(self) -> bool:
        """Whether the block is the lowest qubits (a block is a run of consecutive amplitudes)."""
        return self.qubits == tuple(range(self.block_qubits))

    def run(self, backend: Any, state: Any, context: Any = None) -> None:
        apply = getattr(backend, "apply_block_run", None)
        if apply is None:
            for call in self.calls:
                call.run(backend, state)
        else:
            apply(state, self)

    def __repr__(self) -> str:
        return f"<BlockRun of {len(self.calls)} calls on qubits {list(self.qubits)}>"


def group_block_runs(
    calls: Sequence[Call], n_qubits: int, block_qubits: int | None
) -> list[Call | BlockRun]:
    """Wrap maximal runs of at least two consecutive calls on qubits below ``block_qubits``
    into :class:`BlockRun` s (only when the state spans at least four blocks): the tiles of
    :func:`group_tile_runs` made of the lowest qubits only."""
    if block_qubits is None or n_qubits < block_qubits + 2:
        return list(calls)
    return group_tile_runs(calls, n_qubits, block_qubits, block_qubits)


def group_tile_runs(
    calls: Sequence[Call], n_qubits: int, tile_qubits: int, low_qubits: int
) -> list[Call | BlockRun]:
    """Group consecutive gate calls into :class:`BlockRun` s over tiles of ``tile_qubits``
    qubits that always include the lowest ``low_qubits`` (so each tile is read as series of
    ``2**low_qubits`` consecutive amplitudes, coalesced on a GPU) plus up to
    ``tile_qubits - low_qubits`` others, high ones included (seed 001's MSB scheme). A run
    grows while its calls' qubits fit in one tile; it is padded with the lowest free qubits."""
    if n_qubits < tile_qubits + 1:
        return list(calls)
    low = set(range(low_qubits))
    out: list[Call | BlockRun] = []
    run: list[Call] = []
    extra: set[int] = set()

    def flush() -> None:
        if len(run) >= 2:
            qubits = low | extra
            for q in range(n_qubits):  # pad with the lowest free qubits
                if len(qubits) == tile_qubits:
                    break
                qubits.add(q)
            out.append(BlockRun(run.copy(), tile_qubits, sorted(qubits)))
        else:
            out.extend(run)
        run.clear()
        extra.clear()

    for call in calls:
        involved = set(call.targets + call.controls)
        is_gate = call.kind in ("matrix", "diagonal", "permutation")
        wanted = extra | (involved - low)
        if is_gate and len(low) + len(wanted) <= tile_qubits:
            run.append(call)
            extra.update(wanted)
            continue
        flush()
        if is_gate and len(low | involved) <= tile_qubits:
            run.append(call)
            extra.update(involved - low)
        else:
            out.append(call)
    flush()
    return out


def call_for(op: Operation, numbers: NumberSystem) -> Call | None:
    """The primitive call for one operation (``None`` for barriers and identities)."""
    gate = op.gate
    args = (op.targets, op.controls, op.control_values)
    if gate.kind is GateKind.BARRIER or gate.name == "id":
        return None
    if gate.kind is GateKind.MEASURE:
        return Call("measure", gate.clbit, op.targets)
    if gate.kind is GateKind.RESET:
        return Call("reset", None, op.targets)
    if gate.kind is GateKind.DIAGONAL:
        return Call("diagonal", gate.diagonal(numbers), *args)
    if gate.kind is GateKind.PERMUTATION:
        return Call("permutation", gate.permutation(numbers), *args)
    return Call("matrix", gate.matrix(numbers), *args)


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


def fusion_widths(numbers: NumberSystem, fuse: int | bool | None) -> tuple[int, int]:
    """``(structured, dense)`` block widths. ``fuse=None`` picks the defaults for the numbers
    (off for object arrays, where products of expressions grow), ``False``/``0`` disables,
    an int sets both widths."""
    if fuse is None:
        if numbers.dtype.kind != "c":
            return 0, 0
        return DEFAULT_FUSED_QUBITS, DEFAULT_DENSE_FUSED_QUBITS
    if fuse is True:
        return DEFAULT_FUSED_QUBITS, DEFAULT_DENSE_FUSED_QUBITS
    if fuse is False:
        return 0, 0
    if isinstance(fuse, bool) or not isinstance(fuse, int) or fuse < 0:
        raise ValueError(f"fuse must be None, a bool or a non-negative int, got {fuse!r}")
    return fuse, fuse


def build_plan(
    circuit: Circuit,
    numbers: NumberSystem,
    fuse: int | bool | None = None,
    block_qubits: int | None = None,
    grouping: Any = None,
) -> list[Call | BlockRun]:
    """Validate ``circuit`` for ``numbers`` and turn it into primitive calls, fusing
    neighbouring gates into blocks (widths from ``fusion_widths(numbers, fuse)``) and grouping
    runs on the lowest ``block_qubits`` qubits for cache-blocked execution — or with
    ``grouping(calls, n_qubits)`` where a backend brings its own (GPU tiles)."""
    check_bound(circuit, numbers)
    circuit, _ = circuit.split_terminal_measurements()  # those only feed sampling
    width, dense_width = fusion_widths(numbers, fuse)
    if width >= 2:
        from .fusion import fuse_circuit

        circuit = fuse_circuit(circuit, numbers, width, dense_width)
    calls = [c for c in (call_for(op, numbers) for op in circuit.operations) if c is not None]
    if grouping is not None:
        return grouping(calls, circuit.n_qubits)
    return group_block_runs(calls, circuit.n_qubits, block_qubits)


def plan_for_backend(
    circuit: Circuit, numbers: NumberSystem, backend: Any, fuse: int | bool | None = None
) -> list[Call | BlockRun]:
    """:func:`build_plan` with the blocking the backend asks for: its own grouping
    (``group_runs``, GPU tiles) or cache blocks of ``preferred_block_qubits`` qubits."""
    grouping = getattr(backend, "group_runs", None)
    preferred = getattr(backend, "preferred_block_qubits", None)
    block_qubits = preferred(numbers.dtype) if preferred and grouping is None else None
    return build_plan(circuit, numbers, fuse, block_qubits, grouping)


def run_plan(
    plan: Sequence[Call | BlockRun],
    backend: Any,
    state: np.ndarray,
    context: Any = None,
    progress: Any = None,
) -> None:
    """Execute every call of a plan in order (``context``: see :meth:`Call.run`;
    ``progress``: an object with ``update(done)``, called after each call)."""
    for done, call in enumerate(plan, 1):
        call.run(backend, state, context)
        if progress is not None:
            progress.update(done)
