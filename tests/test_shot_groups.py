"""Counts of dynamic and noisy circuits drawn in groups of shots (``genqsim.states.branching``)
against the exact distribution of a density matrix, which keeps every measurement and Kraus
branch: mid-circuit measurements, resets, conditionals, Pauli and general Kraus channels, on
random circuits. And the point of the groups: the gates run per group, not per shot."""

from __future__ import annotations

import numpy as np
import pytest
from dynamic_circuits import assert_drawn_from, dynamic_circuit, exact

import genqsim as gq
from genqsim.plan.build import plan_for_backend
from genqsim.states.branching import grouped_runs
from genqsim.states.statevector import initial_state


@pytest.mark.parametrize("seed", range(4))
def test_grouped_counts_follow_the_exact_distribution(seed):
    c = dynamic_circuit(seed)
    shots = 6000
    counts = gq.counts(c, shots, seed=seed, method="statevector")
    assert sum(counts.values()) == shots
    assert_drawn_from(counts, exact(c), shots)


def test_counts_of_a_teleportation_are_exact_in_law_for_every_seed():
    """Teleport ry(0.8)|0>: Bob's qubit reads 1 with probability sin(0.4)^2 whatever Alice's
    outcomes, each 1/4."""
    c = gq.Circuit(3, n_clbits=3)
    c.ry(0.8, 0).h(1).cx(1, 2).cx(0, 1).h(0).measure(0, 0).measure(1, 1)
    c.if_(1, 1, gq.Circuit(3).x(2)).if_(0, 1, gq.Circuit(3).z(2)).measure(2, 2)
    p1 = np.sin(0.4) ** 2
    expected = {f"{b}{a:02b}": (p1 if b else 1 - p1) / 4 for a in range(4) for b in (0, 1)}
    for seed in range(3):
        assert_drawn_from(gq.counts(c, 8000, seed=seed), expected, 8000)


def test_gates_run_once_per_group_not_per_shot():
    """20,000 shots of a coin flipped until it shows 0 (with a spectator register) end in a
    few dozen groups: the number of distinct histories the shots took, not the shots."""
    n = 6
    c = gq.Circuit(n, n_clbits=2)
    for q in range(2, n):
        c.ry(0.3 * q, q)
    c.h(0).measure(0, 0)
    c.while_(0, 1, gq.Circuit(n).h(0).measure(0, 0).ry(0.7, 1))
    rest, _ = c.split_terminal_measurements()
    numbers = gq.get_number_system("complex128")
    start = initial_state(n, None, numbers)
    plan = plan_for_backend(rest, numbers, start.backend)
    groups = [(state.clbits[0], k) for state, k in
              grouped_runs(plan, start, 20_000, np.random.default_rng(0))]  # fmt: skip
    assert sum(k for _, k in groups) == 20_000
    assert len(groups) < 60
    assert all(bit == 0 for bit, _ in groups)


def test_past_the_memory_for_states_groups_run_one_shot_at_a_time(monkeypatch):
    """With room for two states only, the parts of each split beyond them run one shot at a
    time; the counts still follow the exact distribution."""
    import genqsim.states.branching as branching

    c = dynamic_circuit(1)
    monkeypatch.setattr(branching, "GROUP_MEMORY_BYTES", 2 * 16 * 2**c.n_qubits)
    shots = 3000
    counts = gq.counts(c, shots, seed=9, method="statevector")
    assert sum(counts.values()) == shots
    assert_drawn_from(counts, exact(c), shots)


def test_a_shot_count_of_one_and_a_certain_outcome_take_no_split():
    c = gq.Circuit(2, n_clbits=2).x(0).measure(0, 0).if_(0, 1, gq.Circuit(2).x(1)).measure(1, 1)
    assert gq.counts(c, 1, seed=4) == {"11": 1}
    assert gq.counts(c, 500, seed=4) == {"11": 500}
