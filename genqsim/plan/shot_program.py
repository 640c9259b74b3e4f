"""Shot programs: a plan with mid-circuit measurements, resets, channels, conditionals,
while loops and classical stores written out as flat operation rows and tables of numbers,
so that a compiled loop can run every shot of a small state without Python between
operations (a backend's :class:`~genqsim.backends.ShotGroupRunner`).

A program is a table ``code`` of rows of :data:`ROW_WIDTH` integers, one per operation
(:class:`~genqsim.plan.calls.ShotOp` gives each row's layout); the operation's numbers live
in three tables: ``ints`` (qubit positions, offsets, permutations, classical bits, condition
values, store tables), ``reals`` (branch probabilities) and ``data`` (matrices, diagonals
and phases, in the state's complex type). Branches and loops are jumps between
rows: a conditional tests its bits and jumps to its else branch (or past its body), a body
ends with a jump past the else branch, a loop tests its bits at its head and its body jumps
back there. After the plan come the terminal measurements, so a shot ends with its whole
record in its classical bits.

Gate rows name the qubits a kernel walks the way every kernel of genqsim does: ``fixed``,
the targets and controls in ascending order (the zero bits inserted into a loop counter to
reach a subspace's base index), ``fixed_value`` (the controls' values set in it) and
``offsets``, the distance from the base to each pattern of the targets (pattern ``j``, bit
``i`` of ``j`` the ``i``-th target).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .calls import (
    BlockRun,
    ChannelCall,
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
    ShotOp,
    StoreCall,
)

ROW_WIDTH = 8
"""Integers per row of ``code``."""

MAX_RECORD_BITS = 62
"""The most classical bits a shot program records (a shot's record is one int64)."""


@dataclass(frozen=True, eq=False)
class ShotProgram:
    """A plan and its terminal measurements as rows and tables (see the module's text).
    ``record_bits``: the classical bits a shot's record holds (bit ``c`` of the record is
    classical bit ``c``); ``loops``: the plan's while loops, by slot, for their error
    messages."""

    code: np.ndarray
    ints: np.ndarray
    reals: np.ndarray
    data: np.ndarray
    record_bits: int
    loops: tuple[LoopCall, ...]
    max_targets: int

    @property
    def n_loops(self) -> int:
        return len(self.loops)

    @property
    def max_branches(self) -> int:
        """The most branches of one channel (at least 2)."""
        op = self.code[:, 0]
        channels = self.code[(op == ShotOp.MIXTURE) | (op == ShotOp.KRAUS)]
        return max(2, int(channels[:, 1].max(initial=0)))


class NotEncodable(Exception):
    """A plan item a shot program has no row for (then the shots run in Python groups)."""


class _Writer:
    """Appends rows and table entries while a plan is walked."""

    def __init__(self, dtype: np.dtype) -> None:
        self.rows: list[list[int]] = []
        self.ints: list[int] = []
        self.reals: list[float] = []
        self.data: list[np.ndarray] = []
        self.data_size = 0
        self.dtype = dtype
        self.loops: list[LoopCall] = []
        self.max_targets = 1

    def row(self, op: ShotOp, *fields: int) -> int:
        """Append a row, returning its index (its pc)."""
        self.rows.append([int(op), *fields] + [0] * (ROW_WIDTH - 1 - len(fields)))
        return len(self.rows) - 1

    def ints_at(self, values: Iterable[int]) -> int:
        at = len(self.ints)
        self.ints.extend(int(v) for v in values)
        return at

    def data_at(self, values: Any) -> int:
        block = np.ascontiguousarray(values, dtype=self.dtype).ravel()
        if not np.all(np.isfinite(block)):
            raise NotEncodable("non-finite gate data")
        at = self.data_size
        self.data.append(block)
        self.data_size += block.size
        return at


def shot_program(
    plan: Sequence[PlanItem],
    terminal: Sequence[tuple[int, int]],
    record_bits: int,
    dtype: Any,
) -> ShotProgram | None:
    """The program of ``plan`` followed by the ``terminal`` measurements (qubit, classical
    bit) for states of complex type ``dtype``, recording ``record_bits`` classical bits;
    ``None`` where the plan holds an item no row encodes or the record is wider than
    :data:`MAX_RECORD_BITS`."""
    if record_bits > MAX_RECORD_BITS:
        return None
    writer = _Writer(np.dtype(dtype))
    try:
        _write(writer, plan)
    except NotEncodable:
        return None
    for qubit, clbit in terminal:
        writer.row(ShotOp.MEASURE, qubit, clbit)
    data = np.concatenate(writer.data) if writer.data else np.zeros(1, writer.dtype)
    return ShotProgram(
        code=np.array(writer.rows, dtype=np.int64).reshape(-1, ROW_WIDTH),
        ints=np.array(writer.ints or [0], dtype=np.int64),
        reals=np.array(writer.reals or [0.0], dtype=np.float64),
        data=data,
        record_bits=record_bits,
        loops=tuple(writer.loops),
        max_targets=writer.max_targets,
    )


def _write(writer: _Writer, items: Sequence[Any]) -> None:
    for item in items:
        if isinstance(item, (BlockRun, MonomialRun)):
            _write(writer, item.calls)
        elif isinstance(item, (MatrixCall, DiagonalCall, PermutationCall)):
            _gate(writer, item)
        elif isinstance(item, MeasureCall):
            writer.row(ShotOp.MEASURE, item.qubit, item.clbit)
        elif isinstance(item, ResetCall):
            writer.row(ShotOp.RESET, item.qubit)
        elif isinstance(item, ConditionalCall):
            _conditional(writer, item)
        elif isinstance(item, LoopCall):
            _loop(writer, item)
        elif isinstance(item, ChannelCall):
            _channel(writer, item)
        elif isinstance(item, StoreCall):
            writer.row(ShotOp.STORE, writer.ints_at(item.clbits), len(item.clbits),
                       writer.ints_at(item.sources), len(item.sources),
                       writer.ints_at(item.table))  # fmt: skip
        else:
            raise NotEncodable(type(item).__name__)


def _gate(writer: _Writer, call: GateCall) -> None:
    targets = call.targets
    k = len(targets)
    writer.max_targets = max(writer.max_targets, k)
    fixed = sorted(targets + call.controls)
    fixed_value = sum(v << q for q, v in zip(call.controls, call.control_values))
    offsets = [sum(((j >> i) & 1) << q for i, q in enumerate(targets)) for j in range(1 << k)]
    fixed_at, offsets_at = writer.ints_at(fixed), writer.ints_at(offsets)
    if isinstance(call, MatrixCall):
        writer.row(ShotOp.MATRIX, k, len(fixed), fixed_at, fixed_value, offsets_at,
                   writer.data_at(call.matrix))  # fmt: skip
    elif isinstance(call, DiagonalCall):
        writer.row(ShotOp.DIAGONAL, k, len(fixed), fixed_at, fixed_value, offsets_at,
                   writer.data_at(call.diagonal))  # fmt: skip
    else:
        assert isinstance(call, PermutationCall)
        phases = -1 if call.phases is None else writer.data_at(call.phases)
        permutation = writer.ints_at(np.asarray(call.permutation, dtype=np.int64))
        writer.row(ShotOp.PERMUTATION, k, len(fixed), fixed_at, fixed_value, offsets_at, phases,
                   permutation)  # fmt: skip


def _condition(writer: _Writer, clbits: Sequence[int], values: Iterable[int]) -> list[int]:
    """The four condition fields: the bits' and the values' offsets and counts."""
    ordered = sorted(values)
    return [writer.ints_at(clbits), len(clbits), writer.ints_at(ordered), len(ordered)]


def _conditional(writer: _Writer, call: ConditionalCall) -> None:
    test = writer.row(ShotOp.IF, *_condition(writer, call.clbits, call.values), 0)
    _write(writer, call.body)
    if call.orelse:
        past_body = writer.row(ShotOp.JUMP, 0)
        writer.rows[test][5] = len(writer.rows)
        _write(writer, call.orelse)
        writer.rows[past_body][1] = len(writer.rows)
    else:
        writer.rows[test][5] = len(writer.rows)


def _loop(writer: _Writer, call: LoopCall) -> None:
    slot = len(writer.loops)
    writer.loops.append(call)
    writer.row(ShotOp.LOOP_ENTER, slot)
    head = writer.row(ShotOp.LOOP_TEST, *_condition(writer, call.clbits, call.values), 0, slot)
    _write(writer, call.body)
    writer.row(ShotOp.JUMP, head)
    writer.rows[head][5] = len(writer.rows)


def _channel(writer: _Writer, call: ChannelCall) -> None:
    if call.mixture is None:
        writer.row(ShotOp.KRAUS, len(call.kraus))
        for kraus in call.kraus:
            _gate(writer, kraus)
        return
    probabilities, branches = call.mixture
    weights = np.asarray(probabilities, dtype=np.float64)
    if not np.all(np.isfinite(weights)) or np.any(weights < 0) or weights.sum() <= 0:
        raise NotEncodable("channel probabilities")
    reals_at = len(writer.reals)
    writer.reals.extend(float(w) for w in weights / weights.sum())
    starts_at = writer.ints_at([0] * len(branches))
    writer.row(ShotOp.MIXTURE, len(branches), reals_at, starts_at)
    ends = []
    for b, branch in enumerate(branches):
        writer.ints[starts_at + b] = len(writer.rows)
        for gate_call in branch:
            _gate(writer, gate_call)
        ends.append(writer.row(ShotOp.JUMP, 0))
    for end in ends:
        writer.rows[end][1] = len(writer.rows)
