"""The compiled shot loop: every shot of a small state's dynamic circuit (mid-circuit
measurements, resets, channels, conditionals, while loops, classical stores) run from a shot program
(:mod:`genqsim.plan.shot_program`) without Python between operations.

Shots run in groups as :mod:`genqsim.states.branching` runs them: all start as one group on
one state; at a measurement the group's shots are shared between the outcomes by one
binomial draw (at a channel, by a multinomial one over its branches), each part going on
with its own collapsed copy of the state; at the end a group's record (its classical bits)
is counted for all its shots. The parts not being run wait on a stack (depth first), in at
most ``max_pending`` states; past that, the parts of a split run one shot at a time from a
copy of their state. Draws come from the caller's NumPy ``Generator``, so a seed gives the
same counts every time.

Here the per-operation Python of the grouped runner (its frames, contexts and state wrappers:
about 50 microseconds a measurement) is gone, which is what a circuit whose every shot takes
its own path costs on a state of a few qubits. Gates on one uncontrolled target run as runs
of pairs, any other as one generic loop over the subspaces of their qubits; on states this
small it is not the kernels that cost.
"""

from __future__ import annotations

import numpy as np

from ..plan.calls import ShotOp as Op
from . import numba_cache  # noqa: F401  (first: where Numba keeps this module's kernels)
from .numba_common import _base, _inline, _shared
from .numba_slp import vector_njit

MATRIX, DIAGONAL, PERMUTATION = int(Op.MATRIX), int(Op.DIAGONAL), int(Op.PERMUTATION)
MEASURE, RESET, IF, JUMP = int(Op.MEASURE), int(Op.RESET), int(Op.IF), int(Op.JUMP)
LOOP_ENTER, LOOP_TEST = int(Op.LOOP_ENTER), int(Op.LOOP_TEST)
MIXTURE, KRAUS, STORE = int(Op.MIXTURE), int(Op.KRAUS), int(Op.STORE)

PC, SHOTS, BITS_AT, COUNTERS_AT = 0, 1, 2, 3
"""A group's registers: its next row, its shots, where its classical bits start, and from
``COUNTERS_AT`` the iterations of each while loop, then its bits."""

STOPPED = 1
"""The status of a run stopped early by its caller (``control[0]`` set)."""

ENDED, SPLIT_MEASURE, SPLIT_BRANCHES = 0, 1, 2
"""What :func:`_advance` stopped at: the program's end, a measurement or reset whose shots
went both ways, a channel whose shots went to several branches."""

_jit = _shared  # helpers: called from compiled code only, no entry point of their own


@_jit
def _apply_gate(row, ints, data, state, gather):
    """Apply the gate of a MATRIX, DIAGONAL or PERMUTATION row to ``state`` (``gather``:
    scratch of at least ``2**k`` entries). One uncontrolled target runs as runs of
    consecutive pairs (what most gates of a circuit are); any other as subspaces."""
    op = row[0]
    if row[1] == 1 and row[2] == 1:
        bit = np.int64(1) << ints[row[3]]
        if op == MATRIX:
            _one_qubit_matrix(state, bit, data[row[6] : row[6] + 4])
        elif op == DIAGONAL:
            _one_qubit_diagonal(state, bit, data[row[6]], data[row[6] + 1])
        elif row[6] < 0 and ints[row[7]] == 1:
            _one_qubit_exchange(state, bit)
        else:
            _subspaces(row, ints, data, state, gather)
    else:
        _subspaces(row, ints, data, state, gather)


@_jit
def _one_qubit_matrix(state, bit, m):
    m00, m01, m10, m11 = m[0], m[1], m[2], m[3]
    for start in range(0, state.size, 2 * bit):
        for j in range(start, start + bit):
            a = state[j]
            b = state[j + bit]
            state[j] = m00 * a + m01 * b
            state[j + bit] = m10 * a + m11 * b


@_jit
def _one_qubit_diagonal(state, bit, d0, d1):
    for start in range(0, state.size, 2 * bit):
        for j in range(start, start + bit):
            state[j] *= d0
            state[j + bit] *= d1


@_jit
def _one_qubit_exchange(state, bit):
    for start in range(0, state.size, 2 * bit):
        for j in range(start, start + bit):
            a = state[j]
            state[j] = state[j + bit]
            state[j + bit] = a


@_jit
def _subspaces(row, ints, data, state, gather):
    """A gate row on each subspace of its targets (the controls holding their values), the
    subspace's base index made from the loop counter (:func:`~.numba_common._base`)."""
    op, k, at, fixed_value = row[0], row[1], row[6], row[4]
    size = np.int64(1) << k
    fixed = ints[row[3] : row[3] + row[2]]
    offsets = ints[row[5] : row[5] + size]
    count = state.size >> row[2]
    if op == MATRIX:
        for i in range(count):
            base = _base(np.int64(i), fixed, fixed_value)
            for j in range(size):
                gather[j] = state[base + offsets[j]]
            for r in range(size):
                acc = data[at + r * size] * gather[0]
                for c in range(1, size):
                    acc += data[at + r * size + c] * gather[c]
                state[base + offsets[r]] = acc
    elif op == DIAGONAL:
        for i in range(count):
            base = _base(np.int64(i), fixed, fixed_value)
            for j in range(size):
                state[base + offsets[j]] *= data[at + j]
    else:
        for i in range(count):
            base = _base(np.int64(i), fixed, fixed_value)
            for j in range(size):
                gather[j] = state[base + offsets[j]]
            for j in range(size):
                value = gather[j]
                if at >= 0:
                    value *= data[at + j]
                state[base + offsets[ints[row[7] + j]]] = value


@_jit
def _halves(state, qubit):
    """``(p0, p1)``: the squared norms of the parts of ``state`` with ``qubit`` 0 and 1."""
    bit = np.int64(1) << qubit
    p0 = 0.0
    p1 = 0.0
    for start in range(0, state.size, 2 * bit):
        for j in range(start, start + bit):
            a = state[j]
            b = state[j + bit]
            p0 += np.float64(a.real) * a.real + np.float64(a.imag) * a.imag
            p1 += np.float64(b.real) * b.real + np.float64(b.imag) * b.imag
    return p0, p1


@_jit
def _settle(state, qubit, outcome, probability, reset):
    """Collapse ``state`` onto ``outcome`` of ``qubit`` (whose probability, as a squared norm,
    is ``probability``), renormalised; for a reset, outcome 1 is then flipped back to 0."""
    bit = np.int64(1) << qubit
    scale = 1.0 / np.sqrt(probability)
    for start in range(0, state.size, 2 * bit):
        for j in range(start, start + bit):
            kept = state[j + bit] if outcome else state[j]
            if reset or not outcome:
                state[j] = kept * scale
                state[j + bit] = 0
            else:
                state[j] = 0
                state[j + bit] = kept * scale


@_inline
def _bits_value(ints, at, n, bits):
    """The unsigned value of the ``n`` classical bits listed at ``ints[at:]`` (the first the
    lowest); inlined: conditions and while loops read it at every row they test."""
    value = np.int64(0)
    for i in range(n):
        value |= np.int64(bits[ints[at + i]]) << i
    return value


@_jit
def _holds(row, ints, bits):
    """Whether the classical bits of an IF or LOOP_TEST row hold one of its values."""
    value = _bits_value(ints, row[1], row[2], bits)
    for i in range(row[4]):
        if ints[row[3] + i] == value:
            return True
    return False


@_jit
def _binomial(shots, chance, generator):
    """How many of ``shots`` draws of a uniform number fall below ``chance``: a binomial
    draw, by counting (a group's shots are drawn once each at a split, as many draws as
    running them one by one would take; Numba's own binomial took seconds to compile)."""
    ones = np.int64(0)
    for _ in range(shots):
        if generator.random() < chance:
            ones += 1
    return ones


@_jit
def _shares(weights, total, shots, generator, drawn):
    """Share ``shots`` between branches of ``weights`` (summing to ``total``) into ``drawn``,
    each shot's branch drawn by one uniform number (a multinomial draw); returns how many
    branches got shots and the last of them."""
    for b in range(weights.size):
        drawn[b] = 0
    for _ in range(shots):
        u = generator.random() * total
        b = 0
        while b < weights.size - 1 and u >= weights[b]:
            u -= weights[b]
            b += 1
        drawn[b] += 1
    got = 0
    last = 0
    for b in range(weights.size):
        if drawn[b]:
            got += 1
            last = b
    return got, last


@_jit
def _copy(destination, source):
    """``destination[:] = source`` as a loop (a slice assignment lowers to far more code:
    seconds of compiling for this module)."""
    for j in range(source.size):
        destination[j] = source[j]


@_jit
def _norm_squared(state):
    total = 0.0
    for a in state:
        total += np.float64(a.real) * a.real + np.float64(a.imag) * a.imag
    return total


@_jit
def _scale(state, factor):
    for j in range(state.size):
        state[j] *= factor


@_jit
def _advance(code, ints, reals, data, state, scratch, gather, group, generator, drawn, weights,
             max_iterations):  # fmt: skip
    """Run a group on ``state`` until its shots go more than one way or the program ends.
    ``group`` is its registers (see :func:`run_shot_groups`), updated as it runs. Returns
    ``(what, ones)``: ``ENDED``; ``SPLIT_MEASURE`` at the measurement or reset of row ``pc``,
    ``ones`` of the shots having drawn outcome 1 (the state not yet collapsed; the two
    outcomes' squared norms in ``weights[:2]``);
    ``SPLIT_BRANCHES`` at the channel of row ``pc``, the shots per branch in ``drawn`` (for
    Kraus channels, their weights in ``weights``); or ``-1 - slot`` for a while loop about
    to start iteration ``max_iterations + 1`` of a shot."""
    end = code.shape[0]
    shots = group[SHOTS]
    bits = group[group[BITS_AT] :]
    pc = group[PC]
    while pc < end:
        row = code[pc]
        op = row[0]
        if op <= PERMUTATION:
            _apply_gate(row, ints, data, state, gather)
            pc += 1
        elif op == MEASURE or op == RESET:
            p0, p1 = _halves(state, row[1])
            chance = min(max(p1 / (p0 + p1), 0.0), 1.0)
            ones = _binomial(shots, chance, generator)
            if 0 < ones < shots:
                group[PC] = pc
                weights[0], weights[1] = p0, p1  # for the collapses of both parts
                return SPLIT_MEASURE, ones
            outcome = np.int64(1) if ones else np.int64(0)
            _settle(state, row[1], outcome, p1 if outcome else p0, op == RESET)
            if op == MEASURE:
                bits[row[2]] = outcome
            pc += 1
        elif op == IF:
            pc = pc + 1 if _holds(row, ints, bits) else row[5]
        elif op == JUMP:
            pc = row[1]
        elif op == STORE:  # the table's entry for the sources' value, into the bits
            value = ints[row[5] + _bits_value(ints, row[3], row[4], bits)]
            for i in range(row[2]):
                bits[ints[row[1] + i]] = (value >> i) & 1
            pc += 1
        elif op == LOOP_ENTER:
            group[COUNTERS_AT + row[1]] = 0
            pc += 1
        elif op == LOOP_TEST:
            if _holds(row, ints, bits):
                group[COUNTERS_AT + row[6]] += 1
                if group[COUNTERS_AT + row[6]] > max_iterations:
                    group[PC] = pc
                    return -1 - row[6], np.int64(0)
                pc += 1
            else:
                pc = row[5]
        elif op == MIXTURE:
            n = row[1]
            got, last = _shares(reals[row[2] : row[2] + n], 1.0, shots, generator, drawn)
            if got > 1:
                group[PC] = pc
                return SPLIT_BRANCHES, np.int64(0)
            pc = ints[row[3] + last]
        else:  # KRAUS: each operator tried on a copy, its squared norm its weight
            n = row[1]
            total = 0.0
            for b in range(n):
                _copy(scratch, state)
                _apply_gate(code[pc + 1 + b], ints, data, scratch, gather)
                weights[b] = _norm_squared(scratch)
                total += weights[b]
            got, last = _shares(weights[:n], total, shots, generator, drawn)
            if got > 1:
                group[PC] = pc
                return SPLIT_BRANCHES, np.int64(0)
            _apply_gate(code[pc + 1 + last], ints, data, state, gather)
            _scale(state, 1.0 / np.sqrt(weights[last]))
            pc += 1 + n
    group[PC] = pc
    return ENDED, np.int64(0)


@_jit
def _record(bits):
    key = np.int64(0)
    for c in range(bits.size):
        key |= np.int64(bits[c]) << c
    return key


@_jit
def _grown(rows, needed, most):
    """A copy of ``rows`` with room for at least ``needed`` rows (doubling, at most
    ``most``)."""
    size = rows.shape[0]
    while size < needed:
        size = min(2 * size, most)
    out = np.empty((size, rows.shape[1]), dtype=rows.dtype)
    for r in range(rows.shape[0]):
        _copy(out[r], rows[r])
    return out


@vector_njit(cache=True, nogil=True, error_model="numpy")
def run_shot_groups(code, ints, reals, data, start, shots, n_bits, n_loops, max_targets,
                    max_branches, max_pending, max_iterations, generator, keep_final,
                    control):  # fmt: skip
    """Run ``shots`` shots of the program from ``start`` (see the module's text). Returns
    ``(records, counts, status)``: each group's record (bit ``c`` classical bit ``c``) and
    its shots, and 0, or ``-1 - slot`` for a while loop of a shot that would have started
    iteration ``max_iterations + 1``. With ``keep_final`` the state of the last group to end
    is copied into ``start`` (a unitary program's final state). ``control`` (two int64) is
    shared with the caller while the loop runs: where ``control[0]`` is set, the loop stops
    at the end of the next group with status ``STOPPED``; ``control[1]`` counts the shots
    that have ended.

    A group is a state and its registers: its row ``PC``, its ``SHOTS``, the iterations of
    each while loop from ``COUNTERS_AT`` and its classical bits from ``group[BITS_AT]``."""
    dim = start.size
    width = COUNTERS_AT + n_loops + max(n_bits, 1)
    work = start.copy()
    group = np.zeros(width, dtype=np.int64)
    group[SHOTS] = shots
    group[BITS_AT] = COUNTERS_AT + n_loops
    scratch = np.empty_like(start)
    gather = np.empty(np.int64(1) << max_targets, dtype=start.dtype)
    drawn = np.zeros(max(max_branches, 2), dtype=np.int64)
    weights = np.zeros(max(max_branches, 2), dtype=np.float64)
    # groups waiting their turn: a stack grown by doubling up to max_pending
    waiting = np.empty((min(4, max_pending), dim), dtype=start.dtype)
    waiting_groups = np.empty((min(4, max_pending), width), dtype=np.int64)
    top = 0
    # the group whose shots run one at a time (no room to wait): its state and registers
    kept = np.empty_like(start)
    kept_group = np.empty_like(group)
    single_left = 0
    out = np.empty((64, 2), dtype=np.int64)  # (record, shots) of each group that ended
    n_out = 0
    while True:
        what, ones = _advance(code, ints, reals, data, work, scratch, gather, group, generator,
                              drawn, weights, max_iterations)  # fmt: skip
        if what < 0:
            return out[:n_out, 0].copy(), out[:n_out, 1].copy(), what
        if what == ENDED:
            if n_out == out.shape[0]:
                out = _grown(out, n_out + 1, 1 << 62)
            out[n_out, 0] = _record(group[group[BITS_AT] : group[BITS_AT] + n_bits])
            out[n_out, 1] = group[SHOTS]
            n_out += 1
            control[1] += group[SHOTS]
            if control[0]:
                return out[:n_out, 0].copy(), out[:n_out, 1].copy(), STOPPED
            if keep_final:
                _copy(start, work)
            if single_left:
                single_left -= 1
                _copy(work, kept)
                _copy(group, kept_group)
                continue
            if top == 0:
                return out[:n_out, 0].copy(), out[:n_out, 1].copy(), 0
            top -= 1
            _copy(work, waiting[top])
            _copy(group, waiting_groups[top])
            continue
        pc = group[PC]
        row = code[pc]
        parts = 2 if what == SPLIT_MEASURE else np.count_nonzero(drawn[: row[1]])
        if top + parts - 1 > max_pending:  # no room: the group's shots one at a time
            _copy(kept, work)
            _copy(kept_group, group)
            kept_group[SHOTS] = 1
            single_left = group[SHOTS] - 1
            group[SHOTS] = 1
            continue
        if top + parts - 1 > waiting.shape[0]:
            waiting = _grown(waiting, top + parts - 1, max_pending)
            waiting_groups = _grown(waiting_groups, top + parts - 1, max_pending)
        if what == SPLIT_MEASURE:  # outcome 1 waits; outcome 0 goes on here
            p0, p1 = weights[0], weights[1]  # as the draw had them
            reset = row[0] == RESET
            _copy(waiting[top], work)
            _settle(waiting[top], row[1], np.int64(1), p1, reset)
            _copy(waiting_groups[top], group)
            waiting_groups[top, PC] = pc + 1
            waiting_groups[top, SHOTS] = ones
            if not reset:
                waiting_groups[top, group[BITS_AT] + row[2]] = 1
            top += 1
            _settle(work, row[1], np.int64(0), p0, reset)
            if not reset:
                group[group[BITS_AT] + row[2]] = 0
            group[SHOTS] -= ones
            group[PC] = pc + 1
            continue
        n = row[1]
        last = n - 1
        while drawn[last] == 0:
            last -= 1
        for b in range(last):  # every branch but the last waits; the last goes on here
            if drawn[b] == 0:
                continue
            _copy(waiting[top], work)
            _copy(waiting_groups[top], group)
            waiting_groups[top, SHOTS] = drawn[b]
            if row[0] == KRAUS:
                _apply_gate(code[pc + 1 + b], ints, data, waiting[top], gather)
                _scale(waiting[top], 1.0 / np.sqrt(weights[b]))
                waiting_groups[top, PC] = pc + 1 + n
            else:
                waiting_groups[top, PC] = ints[row[3] + b]
            top += 1
        if row[0] == KRAUS:
            _apply_gate(code[pc + 1 + last], ints, data, work, gather)
            _scale(work, 1.0 / np.sqrt(weights[last]))
            group[PC] = pc + 1 + n
        else:
            group[PC] = ints[row[3] + last]
        group[SHOTS] = drawn[last]
