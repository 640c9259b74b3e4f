"""The compiled shot loop (``genqsim.backends.numba_shots`` running a
``genqsim.plan.shot_program``): its gates against the generic NumPy routine on random circuits,
its collapses against projectors, its counts against the exact distribution of a density
matrix and against the grouped runner in Python, and its limits (while loops, memory for
waiting groups, records too wide) against what the grouped runner does."""

from __future__ import annotations

import numpy as np
import pytest
from dynamic_circuits import assert_drawn_from, dynamic_circuit, exact
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq
import genqsim.states.branching as branching
from genqsim.backends.numba_shots import run_shot_groups
from genqsim.circuit import channels
from genqsim.plan import calls
from genqsim.plan.build import plan_for_backend
from genqsim.plan.calls import ShotOp
from genqsim.plan.shot_program import shot_program

from reference import embed, random_state
from strategies import random_circuit


def _run(c: gq.Circuit, start: np.ndarray, seed: int = 0):
    """One shot of ``c`` (its plan as the NumPy backend builds it, then its terminal
    measurements) from ``start`` by the compiled loop: the final state and the record."""
    numbers = gq.get_number_system("complex64" if start.dtype == np.complex64 else "complex128")
    rest, terminal = c.split_terminal_measurements()
    plan = plan_for_backend(rest, numbers, gq.get_backend("numpy"))
    program = shot_program(plan, terminal, max(c.n_clbits, 1), np.complex128)
    assert program is not None
    state = start.astype(np.complex128)  # the loop runs in double precision, as counting does
    records, counts, status = run_shot_groups(
        program.code, program.ints, program.reals, program.data, state, 1, program.record_bits,
        program.n_loops, program.max_targets, program.max_branches, 8, 1000,
        np.random.default_rng(seed), True, np.zeros(2, dtype=np.int64),
    )  # fmt: skip
    assert status == 0 and counts.tolist() == [1]
    return state, int(records[0])


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@settings(max_examples=60, deadline=None)
@given(c=random_circuit(n_max=7), seed=st.integers(0, 2**16))
def test_gates_of_random_circuits_match_the_generic_routine(dtype, c, seed):
    """Dense, diagonal and permutation rows under controls of either value, on up to four
    targets, from a random state."""
    start = random_state(c.n_qubits, np.random.default_rng(seed)).astype(dtype)
    numbers = "complex64" if dtype == np.complex64 else "complex128"
    expected = gq.simulate(c, initial=start, numbers=numbers, backend="numpy").to_numpy()
    state, _ = _run(c, start)
    tolerance = 2e-5 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(state, expected, atol=tolerance)


def test_every_gate_row_kind_is_encoded_and_checked():
    """The random circuits above reach all three gate rows: a circuit with one of each."""
    c = gq.Circuit(3).h(0).cx(0, 2).t(1).append(gq.MatrixGate(np.eye(4)[:, [2, 0, 3, 1]]), [1, 2])
    numbers = gq.get_number_system("complex128")
    program = shot_program(plan_for_backend(c, numbers, gq.get_backend("numpy")), (), 1,
                           np.complex128)  # fmt: skip
    assert {ShotOp.MATRIX, ShotOp.DIAGONAL, ShotOp.PERMUTATION} <= set(program.code[:, 0].tolist())
    start = random_state(3, np.random.default_rng(3))
    U = embed(np.eye(4)[:, [2, 0, 3, 1]], 3, (1, 2))
    U = U @ embed(np.diag([1, np.exp(1j * np.pi / 4)]), 3, (1,))
    U = U @ embed(np.array([[0, 1], [1, 0]]), 3, (2,), (0,), (1,))
    U = U @ embed(np.array([[1, 1], [1, -1]]) / np.sqrt(2), 3, (0,))
    np.testing.assert_allclose(_run(c, start)[0], U @ start, atol=1e-12)


@pytest.mark.parametrize("reset", [False, True])
def test_a_collapse_is_the_projected_state_renormalised(reset):
    """One shot of a measurement (or reset) of qubit 1 of a random 3-qubit state: the final
    state is the projection onto what was recorded (a reset's outcome 1 then flipped back to
    0), divided by its norm; over seeds both outcomes come up."""
    start = random_state(3, np.random.default_rng(5))
    seen = set()
    for seed in range(12):
        c = gq.Circuit(3, n_clbits=1)
        if reset:
            c.reset(1).measure(1, 0)
        else:
            c.measure(1, 0)
        state, record = _run(c, start, seed)
        index = np.arange(8)
        if reset:  # which outcome the reset saw: the one whose projection is parallel
            outcomes = [o for o in (0, 1) if _parallel(state, _reset_image(start, o))]
            assert outcomes, state
            seen.add(outcomes[0])
        else:
            projected = np.where((index >> 1) & 1 == record, start, 0)
            np.testing.assert_allclose(state, projected / np.linalg.norm(projected), atol=1e-12)
            seen.add(record)
    assert seen == {0, 1}


def _reset_image(start: np.ndarray, outcome: int) -> np.ndarray:
    index = np.arange(8)
    kept = np.where((index >> 1) & 1 == outcome, start, 0)
    moved = np.zeros_like(kept)
    np.add.at(moved, index & ~2, kept)  # |..o.> -> |..0.>
    return moved / np.linalg.norm(moved)


def _parallel(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.allclose(a, b, atol=1e-12))


def _with_runner(compiled: bool, monkeypatch) -> None:
    if not compiled:
        monkeypatch.setattr(branching, "COMPILED_SHOTS_MAX_QUBITS", 0)


def _verify(n: int) -> gq.Circuit:
    """Each qubit measured, then an if/else on its bit whose branches both measure into that
    bit again (every shot its own history), three rounds."""
    c = gq.Circuit(n, n_clbits=n)
    for _ in range(3):
        for q in range(n):
            c.ry(0.7, q).measure(q, q)
            flip = gq.Circuit(n).x(q).measure(q, q)
            c.if_(q, 1, flip, orelse=gq.Circuit(n).h(q).measure(q, q))
    return c


def _repeat_until_success() -> gq.Circuit:
    """A coin flipped until it reads 0, a counter turned each retry, a reset and a switch."""
    c = gq.Circuit(3, n_clbits=3)
    c.ry(1.1, 2).h(0).measure(0, 0)
    c.while_(0, 1, gq.Circuit(3).h(0).measure(0, 0).ry(0.7, 1))
    c.measure(2, 2).reset(2)
    c.switch_([2], [(0, gq.Circuit(3).ry(0.4, 2)), (1, gq.Circuit(3).x(2).measure(2, 2))])
    c.measure(1, 1)
    return c


def _noisy() -> gq.Circuit:
    c = gq.Circuit(3, n_clbits=3)
    c.h(0).cx(0, 1).append(channels.amplitude_damping(0.35), 1).depolarizing(0.2, 0)
    c.measure(1, 0).if_(0, 1, gq.Circuit(3).x(2)).append(channels.phase_damping(0.3), 2)
    c.h(2).measure(0, 1).measure(2, 2)
    return c


CASES = {
    "verify": lambda: _verify(3),
    "repeat until success": _repeat_until_success,
    "noise": _noisy,
    "dynamic 0": lambda: dynamic_circuit(0),
    "dynamic 3": lambda: dynamic_circuit(3),
}


def _repeat_until_success_law() -> dict[str, float]:
    """Bit 0 ends 0; bit 2 reads ry(1.1)|0> (the switch's case 1 measures the flipped reset
    qubit: 1 again); bit 1 reads ry(0.7 k)|0> after k retries, k with probability 2**-(k+1)."""
    c2 = np.sin(0.55) ** 2
    c1 = sum(2.0 ** -(k + 1) * np.sin(0.35 * k) ** 2 for k in range(80))
    return {f"{b2}{b1}0": (c2 if b2 else 1 - c2) * (c1 if b1 else 1 - c1)
            for b2 in (0, 1) for b1 in (0, 1)}  # fmt: skip


@pytest.mark.parametrize("runner", ["compiled", "python", "mps"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_counts_follow_the_exact_distribution(case, runner, monkeypatch):
    """Against a density matrix, which keeps every branch (for the while loop, which it
    cannot run, against the law worked out by hand); state vectors in the compiled loop and
    the grouped runner, and MPS in groups of their own."""
    c = CASES[case]()
    expected = _repeat_until_success_law() if case == "repeat until success" else exact(c)
    _with_runner(runner == "compiled", monkeypatch)
    shots = 6000
    method = "mps" if runner == "mps" else "statevector"
    counts = gq.counts(c, shots, seed=11, method=method)
    assert sum(counts.values()) == shots
    assert_drawn_from(counts, expected, shots)


def test_the_compiled_loop_is_what_runs_small_states(monkeypatch):
    """Counting takes the compiled loop for a 14-qubit state and not for 15."""
    import genqsim.backends.numba_shots as numba_shots

    seen = []
    real = numba_shots.run_shot_groups

    def spy(*args):
        seen.append(args[4].size)
        return real(*args)

    monkeypatch.setattr(numba_shots, "run_shot_groups", spy)
    for n in (14, 15):
        c = gq.Circuit(n, n_clbits=1).h(0).measure(0, 0).if_(0, 1, gq.Circuit(n).x(n - 1))
        c.measure(n - 1, 0)
        assert sum(gq.counts(c, 50, seed=1).values()) == 50
    assert seen == [2**14]


def test_counts_over_qubits_when_the_circuit_has_no_classical_bits():
    """A reset and a channel but no measurement: the counts are over every qubit, bit 0
    rightmost, as the grouped runner gives them."""
    c = gq.Circuit(3).x(0).h(2).reset(0).x(1).append(channels.amplitude_damping(0.5), 1)
    counts = gq.counts(c, 4000, seed=2, method="statevector")
    assert set(counts) == {"000", "010", "100", "110"}
    assert_drawn_from(counts, {"000": 0.25, "010": 0.25, "100": 0.25, "110": 0.25}, 4000)


def _shift_loop(iterations: int, register: int = 7) -> gq.Circuit:
    """A while loop that runs exactly ``iterations`` times: each iteration rotates a register
    of ones (then a zero) by one qubit and measures its first qubit into the tested bit."""
    c = gq.Circuit(register, n_clbits=1)
    for q in range(1, iterations):
        c.x(q)
    body = gq.Circuit(register)
    for q in range(register - 1):
        body.swap(q, q + 1)
    c.x(0).measure(0, 0).while_(0, 1, body.measure(0, 0))
    return c


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
def test_a_shot_may_start_the_iteration_limit_and_no_more(compiled, monkeypatch):
    _with_runner(compiled, monkeypatch)
    monkeypatch.setattr(calls, "MAX_WHILE_ITERATIONS", 5)
    assert gq.counts(_shift_loop(5), 20, seed=1, method="statevector") == {"0": 20}
    with pytest.raises(gq.WhileLoopLimitError, match=r"ran 5 times in one shot"):
        gq.counts(_shift_loop(6), 20, seed=1, method="statevector")


def test_with_room_for_two_states_the_waiting_groups_run_one_shot_at_a_time(monkeypatch):
    """The compiled loop's stack of waiting groups full: the parts of a split run one shot at
    a time, and the counts still follow the exact distribution."""
    c = _verify(3)
    monkeypatch.setattr(branching, "GROUP_MEMORY_BYTES", 2 * 16 * 2**c.n_qubits)
    counts = gq.counts(c, 3000, seed=4, method="statevector")
    assert sum(counts.values()) == 3000
    assert_drawn_from(counts, exact(c), 3000)


def test_a_record_wider_than_62_bits_is_counted_by_the_grouped_runner():
    c = gq.Circuit(2, n_clbits=64).x(1).measure(0, 63).if_(63, 0, gq.Circuit(2).h(0))
    c.measure(0, 0).measure(1, 62)
    counts = gq.counts(c, 2000, seed=3, method="statevector")
    zeros = "0" * 61
    assert set(counts) == {"01" + zeros + "0", "01" + zeros + "1"}
    assert_drawn_from(counts, {"01" + zeros + "0": 0.5, "01" + zeros + "1": 0.5}, 2000)


def test_a_named_numpy_backend_keeps_the_grouped_runner(monkeypatch):
    import genqsim.backends.numba_shots as numba_shots

    def refuse(*args):
        raise AssertionError("the compiled loop ran")

    monkeypatch.setattr(numba_shots, "run_shot_groups", refuse)
    c = _verify(2)
    counts = gq.counts(c, 500, seed=1, method="statevector", backend="numpy")
    assert sum(counts.values()) == 500
    with pytest.raises(AssertionError, match="compiled loop ran"):
        gq.counts(c, 500, seed=1, method="statevector")


def test_the_same_seed_gives_the_same_counts():
    c = _verify(4)
    assert gq.counts(c, 3000, seed=8) == gq.counts(c, 3000, seed=8)
    assert gq.counts(c, 3000, seed=8) != gq.counts(c, 3000, seed=9)


def test_counts_do_not_depend_on_the_thread_count():
    """The loop runs serially on a thread of its own: the same draws whatever ``threads``."""
    c = _verify(3)
    one = gq.counts(c, 6000, seed=21, method="statevector", threads=1)
    assert gq.counts(c, 6000, seed=21, method="statevector", threads=2) == one
    assert_drawn_from(one, exact(c), 6000)


def test_a_long_run_shows_its_shots_on_a_progress_bar(monkeypatch, capsys):
    import genqsim.support.progress as progress

    monkeypatch.setattr(progress, "wanted", lambda work, quiet, threshold=0: True)
    counts = gq.counts(_verify(3), 2000, seed=1, method="statevector", progress=True)
    assert sum(counts.values()) == 2000
    err = capsys.readouterr().err
    assert "shots [" in err and "2000/2000" in err


def test_a_run_stopped_by_its_caller_ends_at_a_group(monkeypatch):
    """``control[0]`` set before the loop starts: it stops after the first group that ends,
    having counted its shots in ``control[1]``; a Ctrl-C in counting sets it."""
    c = _verify(3)
    numbers = gq.get_number_system("complex128")
    rest, terminal = c.split_terminal_measurements()
    program = shot_program(plan_for_backend(rest, numbers, gq.get_backend("numpy")), terminal,
                           c.n_clbits, np.complex128)  # fmt: skip
    start = np.zeros(8, dtype=np.complex128)
    start[0] = 1
    control = np.array([1, 0], dtype=np.int64)
    records, counts, status = gq.get_backend("numba").run_shot_groups(
        program, start, 1000, 64, 100, np.random.default_rng(0), control
    )
    assert status == 1 and len(records) == 1 and control[1] == counts[0] < 1000

    import genqsim.backends.numba_shots as numba_shots

    seen = []
    real = numba_shots.run_shot_groups

    def interrupted(*args):
        seen.append(args[-1])
        raise KeyboardInterrupt

    monkeypatch.setattr(numba_shots, "run_shot_groups", interrupted)
    with pytest.raises(KeyboardInterrupt):
        gq.counts(c, 100, seed=1, method="statevector")
    assert seen and seen[0][0] == 1  # the caller set the stop flag on its way out
    monkeypatch.setattr(numba_shots, "run_shot_groups", real)
