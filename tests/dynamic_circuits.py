"""Dynamic circuits for the tests of shot groups, and what their counts are checked against:
the exact distribution of a density matrix (which keeps every measurement and Kraus branch)
and a five-standard-error bound on each outcome's frequency."""

from __future__ import annotations

import numpy as np

import genqsim as gq
from genqsim.circuit import channels


def exact(c: gq.Circuit) -> dict[str, float]:
    return {k: v for k, v in gq.record_distribution(c).items() if v > 1e-15}


def assert_drawn_from(counts: dict[str, int], expected: dict[str, float], shots: int) -> None:
    """Every outcome's frequency within five standard errors of its probability (and none
    outside the support)."""
    assert set(counts) <= set(expected), set(counts) - set(expected)
    for key, p in expected.items():
        frequency = counts.get(key, 0) / shots
        assert abs(frequency - p) <= 5 * np.sqrt(p * (1 - p) / shots) + 1e-9, (key, frequency, p)


def dynamic_circuit(seed: int) -> gq.Circuit:
    """Rotations, CXs, mid-circuit measurements, resets, conditionals on what was measured,
    a classical store each layer (bit 3 a random function of itself and the layer's bit,
    read by the last layer's conditional), an amplitude-damping channel (general Kraus) and
    a depolarizing one (a Pauli mixture)."""
    rng = np.random.default_rng(seed)
    n = 4
    c = gq.Circuit(n, n_clbits=6)
    bit = 0
    for layer in range(3):
        for q in range(n):
            c.ry(float(rng.uniform(0, np.pi)), q)
        for q in range(layer % 2, n - 1, 2):
            c.cx(q, q + 1)
        q = int(rng.integers(n))
        c.measure(q, bit)
        target = int(rng.integers(n))
        c.if_(bit, 1, gq.Circuit(n).x(target).rz(0.4, target))
        c.store(3, [int(v) for v in rng.integers(0, 2, 4)], sources=[bit, 3])
        if layer == 2:
            c.if_(3, 1, gq.Circuit(n).h(int(rng.integers(n))))
        if layer == 1:
            c.reset(int(rng.integers(n)))
            c.append(channels.amplitude_damping(0.3), int(rng.integers(n)))
            c.depolarizing(0.1, int(rng.integers(n)))
        bit += 1
    c.measure(0, 4).measure(3, 5)
    return c
