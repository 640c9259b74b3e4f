"""Shots in groups: the counts of a circuit with mid-circuit measurements, resets, noise
channels, conditionals or while loops, drawn without running it once per shot.

All the shots start as one group on one state vector. At a measurement the group splits
into one group per outcome, the shots shared out by one binomial draw (a channel: one
multinomial draw over its Kraus branches), and each part goes on with its own collapsed
copy of the state; conditionals and while loops are decided per group, on its bits. At the
end each group samples its terminal measurements from its state. Every shot thus follows
the law it would follow on its own (the draws are the same random experiment, grouped), while
the gates run once per group instead of once per shot: a repeat-until-success loop over
20,000 shots runs a few dozen groups. Groups are run depth first, and their states held at
once stay within :data:`GROUP_MEMORY_BYTES`: past it, the parts of a split are run to the end
one shot at a time (each from a copy of their state), as a run per shot would.

States of at most :data:`COMPILED_SHOTS_MAX_QUBITS` qubits on the CPU run the same groups in
one compiled loop instead, where a backend offers one (:func:`compiled_records`, a
:class:`~genqsim.backends.ShotGroupRunner`): there the Python around each operation, not the
operation, is what a shot costs, and a circuit whose every shot takes its own path (a
measurement in every branch) pays it shot by shot.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..backends import ShotGroupRunner
from ..plan import calls
from ..plan.build import run_item
from ..plan.calls import (
    ChannelCall,
    ConditionalCall,
    LoopCall,
    MeasureCall,
    PlanItem,
    ResetCall,
    StoreCall,
)
from ..plan.shot_program import shot_program
from ..support.progress import bar_for
from .statevector import StateVector


@dataclass
class _Frame:
    """A list of plan items being run: the plan, or the body of a conditional or loop."""

    items: Sequence[PlanItem]
    index: int = 0
    loop: LoopCall | None = None
    iterations: int = 0


class _Draws:
    """How a group's shots are shared out where they part: by random draws (the shots of
    :func:`grouped_runs`, whole numbers), or exactly (:class:`_Exact`)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def outcomes(self, shots: float, p0: float, p1: float) -> tuple[float, float]:
        """The shots that read 0 and 1 of a qubit whose outcomes have those probabilities."""
        ones = int(self.rng.binomial(int(shots), min(max(p1, 0.0), 1.0)))
        return int(shots) - ones, ones

    def branches(self, shots: float, weights: np.ndarray) -> list[float]:
        """The shots each Kraus branch of a channel takes, its weight one of ``weights``."""
        return [int(k) for k in self.rng.multinomial(int(shots), weights / weights.sum())]


class _Exact(_Draws):
    """Every branch, its probability in place of a count of shots (:func:`exact_branches`)."""

    def __init__(self) -> None:  # nothing is drawn: no generator
        pass

    def outcomes(self, shots: float, p0: float, p1: float) -> tuple[float, float]:
        return shots * p0, shots * p1

    def branches(self, shots: float, weights: np.ndarray) -> list[float]:
        return [float(w) for w in shots * weights / weights.sum()]


@dataclass
class _Group:
    """Shots that have met the same outcomes so far, on one state (for
    :func:`exact_branches`, ``shots`` is the probability of those outcomes)."""

    state: StateVector
    shots: float
    frames: list[_Frame] = field(default_factory=list)

    def split(self, state: StateVector, shots: float) -> _Group:
        """A group of ``shots`` of these on ``state``, at the same place in the plan."""
        frames = [_Frame(f.items, f.index, f.loop, f.iterations) for f in self.frames]
        return _Group(state, shots, frames)


GROUP_MEMORY_BYTES = 1 << 30
"""The most bytes of group states held at once (pending splits): past it, groups run one shot
at a time."""


COMPILED_SHOTS_MAX_QUBITS = 14
"""The largest state whose shot groups run in the compiled loop (:func:`compiled_records`).
Its gates are generic loops, so on larger states the grouped runner's kernels win where the
shots share few histories (a repeat-until-success loop at 16 qubits: 1.32x the grouped
runner's time; at 14, 0.98x): chosen with ``python benchmarks/dynamic_bench.py --runners``
(docs/performance.md)."""


def compiled_records(
    plan: Sequence[PlanItem],
    initial: StateVector,
    terminal: Sequence[tuple[int, int]],
    record_bits: int,
    shots: int,
    rng: np.random.Generator,
    runner: ShotGroupRunner | None,
    memory: int | None = None,
) -> dict[int, int] | None:
    """The shots of ``plan`` then the ``terminal`` measurements (qubit, classical bit) from
    ``initial``, run in groups in ``runner``'s compiled loop: the number of shots that ended
    with each record (bit ``c`` the classical bit ``c``, of ``record_bits``). ``None`` where
    the loop does not serve: no runner, a state that is not a complex array on the CPU of
    at most :data:`COMPILED_SHOTS_MAX_QUBITS` qubits, a plan item without a program row, or
    a record wider than 62 bits. The loop runs in double precision whatever the state's
    numbers."""
    amplitudes = initial.amplitudes
    if (
        runner is None
        or not isinstance(amplitudes, np.ndarray)
        or amplitudes.dtype not in (np.complex64, np.complex128)
        or amplitudes.size > 1 << COMPILED_SHOTS_MAX_QUBITS
    ):
        return None
    # in double precision whatever the state's: one build of the loop to compile, and on
    # states this small the precision costs nothing
    program = shot_program(plan, terminal, record_bits, np.complex128)
    if program is None:
        return None
    start = np.asarray(amplitudes, dtype=np.complex128)
    budget = GROUP_MEMORY_BYTES if memory is None else memory
    control = np.zeros(2, dtype=np.int64)  # [stop, shots ended], shared with the loop
    bar = bar_for(initial.options.progress, shots, float(shots) * start.size * len(program.code),
                  "shots")  # fmt: skip
    # the loop runs on a thread of its own (it holds no GIL), so that this one stays free
    # for Ctrl-C, which stops it at the end of a group, and for the progress bar
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(
            runner.run_shot_groups, program, start, shots, max(2, budget // start.nbytes),
            calls.MAX_WHILE_ITERATIONS, rng, control,
        )  # fmt: skip
        try:
            while True:
                try:
                    records, counts, status = running.result(timeout=0.1)
                    break
                except FuturesTimeout:
                    if bar is not None:
                        bar.update(int(control[1]))
        except BaseException:
            control[0] = 1
            running.exception()  # the loop stops at the end of its group
            raise
    if bar is not None:
        bar.close()
    if status < 0:
        program.loops[-1 - status].check_iterations(calls.MAX_WHILE_ITERATIONS + 1)
    tally: dict[int, int] = {}
    for record, k in zip(records.tolist(), counts.tolist()):
        tally[record] = tally.get(record, 0) + k
    return tally


def grouped_runs(
    plan: Sequence[PlanItem],
    initial: StateVector,
    shots: int,
    rng: np.random.Generator,
    memory: int | None = None,
) -> Iterator[tuple[StateVector, int]]:
    """``(state, shots)`` at the end of ``plan`` for each group of the ``shots`` in turn
    (their classical bits in ``state.clbits``; a state is the group's own until the next
    one is asked for). ``memory``: the bytes of states held at once (default
    :data:`GROUP_MEMORY_BYTES`)."""
    draws = _Draws(rng)
    for group, ended in _depth_first(plan, initial, shots, draws, memory):
        if ended:
            yield group.state, int(group.shots)
        else:  # a part of a split past the memory: its shots one at a time
            yield from _one_shot_at_a_time(group, draws)


def exact_branches(
    plan: Sequence[PlanItem], initial: StateVector
) -> Iterator[tuple[StateVector, float]]:
    """``(state, probability)`` at the end of ``plan`` for each history of mid-circuit
    outcomes and Kraus branches that has a nonzero probability, depth first (the branch's
    classical bits in ``state.clbits``; a state is the branch's own until the next one is
    asked for): the exact mixture a density matrix would hold, as pure states, with at most
    one state per measurement pending at once. A while loop whose body measures is followed
    until :data:`genqsim.plan.calls.MAX_WHILE_ITERATIONS`, where it is refused."""
    for group, _ in _depth_first(plan, initial, 1.0, _Exact(), bounded=False):
        yield group.state, float(group.shots)


def _depth_first(
    plan: Sequence[PlanItem],
    initial: StateVector,
    shots: float,
    draws: _Draws,
    memory: int | None = None,
    bounded: bool = True,
) -> Iterator[tuple[_Group, bool]]:
    """``(group, True)`` for each group at the end of ``plan``, depth first, and (where
    ``bounded``) ``(group, False)`` for a part of a split that would take the states held
    past ``memory`` bytes (default :data:`GROUP_MEMORY_BYTES`), to be run shot by shot."""
    budget = GROUP_MEMORY_BYTES if memory is None else memory
    most = max(2, budget // max(1, int(initial.amplitudes.nbytes)))
    start = _copied(initial)
    start.clbits = {}
    pending = [_Group(start, shots, [_Frame(plan)])]
    while pending:
        group = pending.pop()
        parts = _run(group, draws)
        if parts is None:
            yield group, True
            continue
        while bounded and len(pending) + len(parts) > most and len(parts) > 1:
            yield parts.pop(0), False
        pending.extend(parts)


def _run(group: _Group, draws: _Draws) -> list[_Group] | None:
    with group.state.numbers.context(), group.state._threads():
        return _advance(group, draws)


def _one_shot_at_a_time(group: _Group, draws: _Draws) -> Iterator[tuple[StateVector, int]]:
    """The group's shots run to the end one by one, each from a copy of its state (a group
    of one shot never splits)."""
    count = int(group.shots)
    for i in range(count):
        last = i == count - 1
        single = group.split(group.state if last else _copied(group.state), 1)
        _run(single, draws)
        yield single.state, 1


def _copied(state: StateVector) -> StateVector:
    """A copy of ``state`` with its own classical bits."""
    copy = state.copy()
    copy.clbits = dict(state.clbits)
    return copy


def _advance(group: _Group, draws: _Draws) -> list[_Group] | None:
    """Run ``group`` on until it splits (its parts) or its plan ends (``None``)."""
    state = group.state
    while group.frames:
        frame = group.frames[-1]
        if frame.index == len(frame.items):
            if frame.loop is not None and frame.loop.holds(state.clbits):
                frame.iterations += 1
                frame.loop.check_iterations(frame.iterations)
                frame.index = 0
            else:
                group.frames.pop()
            continue
        item = frame.items[frame.index]
        frame.index += 1
        if isinstance(item, ConditionalCall):
            branch = item.branch(state.clbits)
            if branch:
                group.frames.append(_Frame(branch))
        elif isinstance(item, LoopCall):
            if item.holds(state.clbits):
                group.frames.append(_Frame(item.body, loop=item, iterations=1))
        elif isinstance(item, StoreCall):
            state.clbits.update(item.written(state.clbits))
        elif isinstance(item, (MeasureCall, ResetCall, ChannelCall)):
            if isinstance(item, ChannelCall):
                parts = _channel(group, item, draws)
            else:
                parts = _measured(group, item, draws)
            if parts is not None:
                return parts
            state = group.state  # all the shots went one way: on in place, or on a Kraus copy
        else:
            run_item(item, state.backend, state.amplitudes)
    return None


def _measured(group: _Group, call: MeasureCall | ResetCall, draws: _Draws) -> list[_Group] | None:
    """Share the group's shots between the outcomes of one qubit (``None``: all went one
    way, and the group goes on collapsed in place)."""
    state, qubit = group.state, (call.qubit,)
    machine = state.numbers.dtype.kind == "c"  # symbolic numbers divide by the exact value
    probabilities: list[float | None] = [None, None]
    if machine:  # both outcomes' probabilities from one pass (each accurate on its own)
        p0, p1 = (float(p) for p in state.probabilities(qubit))
        probabilities = [p0, p1]
    else:
        p1 = float(state._outcome_probability(qubit, 1))
        p0 = 1.0 - p1
    zeros, ones = draws.outcomes(group.shots, p0, p1)
    shares = [(outcome, k) for outcome, k in ((0, zeros), (1, ones)) if k > 0]
    parts = []
    for i, (outcome, k) in enumerate(shares):
        target = state if i == len(shares) - 1 else _copied(state)
        target._collapse(qubit, outcome, probabilities[outcome])
        if isinstance(call, MeasureCall):
            target.clbits[call.clbit] = outcome
        elif outcome == 1:  # reset: flip back to |0>
            target.backend.apply_permutation(target.amplitudes, [1, 0], None, qubit)
        parts.append(group.split(target, k))
    if len(parts) == 1:
        group.state = parts[0].state
        return None
    return parts


def _channel(group: _Group, call: ChannelCall, draws: _Draws) -> list[_Group] | None:
    """Share the group's shots between a channel's Kraus branches, in proportion drawn from
    their probabilities on the group's state (fixed ones for a Pauli mixture)."""
    state = group.state
    if call.mixture is not None:
        probabilities, branches = call.mixture
        weights = np.asarray(probabilities, dtype=float)
        results: list[Any] = [None] * len(branches)
    else:
        results = []
        for kraus in call.kraus:  # each branch applied to a copy: its norm is its weight
            trial = _copied(state)
            kraus.run(state.backend, trial.amplitudes)
            results.append(trial)
        weights = np.array([float(r.norm_squared().real) for r in results])
    drawn = draws.branches(group.shots, weights)
    chosen = [k for k in range(len(drawn)) if drawn[k] > 0]
    parts = []
    for i, k in enumerate(chosen):
        if results[k] is not None:
            target = results[k]
            target.normalize()
        else:
            target = state if i == len(chosen) - 1 else _copied(state)
            for gate_call in branches[k]:
                gate_call.run(state.backend, target.amplitudes)
        parts.append(group.split(target, drawn[k]))
    if len(parts) == 1:
        group.state = parts[0].state
        return None
    return parts
