"""Sweeps on executors: a 2,000-point sweep on a real Dask ``LocalCluster`` of 2 worker
processes equals the serial sweep, and seeded shots do not depend on workers or chunks."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

import genqsim as gq
from genqsim.errors import ArgumentTypeError, ArgumentValueError, UnknownOptionError


def test_two_thousand_points_on_a_local_cluster_equal_the_serial_sweep():
    distributed = pytest.importorskip("distributed")
    circuit = gq.library.qaoa_ring(6)
    values = {"gamma0": np.linspace(-1.5, 1.5, 50)[:, None], "beta0": np.linspace(-1, 1, 40)}
    observables = ["Z0 Z1", "X3 + 0.5*Y2 Y3"]
    serial = gq.expectation(circuit, observables, values=values)
    assert serial.shape == (50, 40, 2)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster, timeout=60) as client,
    ):
        executor = client.get_executor()
        swept = gq.expectation(circuit, observables, values=values, executor=executor)
        shots_circuit = gq.library.qaoa_ring(6).measure_all()
        few = {"gamma0": values["gamma0"][:5], "beta0": values["beta0"][:4]}
        on_cluster = gq.counts(shots_circuit, 200, seed=11, values=few, executor=executor)
    np.testing.assert_allclose(swept, serial, atol=1e-12)
    here = gq.counts(shots_circuit, 200, seed=11, values=few)
    assert on_cluster.shape == here.shape == (5, 4)
    assert all(a == b for a, b in zip(on_cluster.ravel(), here.ravel()))


def test_seeded_counts_do_not_depend_on_workers_or_chunks():
    circuit = gq.library.qaoa_ring(4).measure_all()
    values = {"gamma0": np.linspace(0, 1, 6), "beta0": 0.3}
    here = gq.counts(circuit, 300, seed=5, values=values)
    with ProcessPoolExecutor(2) as pool:
        pooled = gq.counts(circuit, 300, seed=5, values=values, executor=pool, chunk_size=4)
    with ThreadPoolExecutor(3) as threads:
        threaded = gq.counts(circuit, 300, seed=5, values=values, executor=threads)
    assert list(here) == list(pooled) == list(threaded)
    assert all(sum(c.values()) == 300 for c in here)
    single = gq.counts(circuit, 300, seed=5, values={"gamma0": 0.2, "beta0": 0.3})
    assert isinstance(single, dict) and sum(single.values()) == 300  # no arrays: plain counts
    # each point's counts follow its own distribution (an independent check of the binding)
    for gamma, tally in zip(values["gamma0"], here):
        bound = circuit.bind({"gamma0": gamma, "beta0": 0.3})
        exact = gq.simulate(bound.split_terminal_measurements()[0]).probabilities()
        for key, n in tally.items():
            p = exact[int(key, 2)]
            assert abs(n - 300 * p) <= 5 * np.sqrt(max(300 * p * (1 - p), 1.0))


def test_sweep_errors_are_clear():
    circuit = gq.library.qaoa_ring(3)
    with pytest.raises(ArgumentTypeError, match="Executor"):
        gq.expectation(circuit, "Z0", values={"gamma0": [0, 1], "beta0": 0}, executor=4)
    with pytest.raises(ArgumentValueError, match="chunk_size"):
        with ThreadPoolExecutor(1) as ex:
            gq.expectation(
                circuit, "Z0", values={"gamma0": [0, 1], "beta0": 0}, executor=ex, chunk_size=0
            )
    with pytest.raises(UnknownOptionError, match="trajectories"):  # the only one with it
        with ThreadPoolExecutor(1) as ex:
            gq.expectation(
                circuit.bind({"gamma0": 0, "beta0": 0}), "Z0", method="statevector", executor=ex
            )
    with pytest.raises(ArgumentValueError, match="broadcast"):
        gq.expectation(circuit, "Z0", values={"gamma0": [0, 1, 2], "beta0": [0, 1]})


def test_trajectories_in_chunks_on_an_executor_equal_the_serial_run():
    """Each trajectory keeps its seed, so chunks on workers give the serial estimates."""
    noisy = (
        gq.Circuit(4).h(0).cx(0, 1).depolarizing(0.1, 1).cx(1, 2).amplitude_damping(0.2, 2)
        .ry(0.4, 3).measure(3).x(3)
    )  # fmt: skip
    observables = ["Z0 Z1", "Z2", "X0 X1 + Z3"]
    serial = gq.simulate(noisy, method="trajectories", trajectories=300, seed=8)
    with ProcessPoolExecutor(2) as pool:
        chunked = gq.simulate(noisy, method="trajectories", trajectories=300, seed=8, executor=pool)
        estimates = chunked.estimates(observables)
        probabilities = chunked.probabilities()
        through_expectation = gq.expectation(
            noisy.split_terminal_measurements()[0], "Z2", method="trajectories",
            trajectories=300, seed=8, executor=pool,
        )  # fmt: skip
    for a, b in zip(estimates, serial.estimates(observables)):
        assert a.mean == pytest.approx(b.mean, abs=1e-12) and a.stderr == pytest.approx(b.stderr)
    np.testing.assert_allclose(probabilities, serial.probabilities(), atol=1e-12)
    exact = gq.expectation(noisy.split_terminal_measurements()[0], "Z2", method="density_matrix")
    assert abs(through_expectation - exact) <= 5 * 0.05
    with pytest.raises(ArgumentTypeError, match="Executor"):
        gq.simulate(noisy, method="trajectories", trajectories=10, executor="pool")
