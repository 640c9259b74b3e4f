"""Circuits, gates, observables and plans pickle and deep-copy, so parameter sweeps run in
process pools (multiprocessing, joblib, Dask); a sweep through ProcessPoolExecutor equals the
serial sweep."""

from __future__ import annotations

import copy
import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

import genqsim as gq
from genqsim.plan import BlockRun, build_plan, plan_for_backend, run_plan


def ansatz() -> gq.Circuit:
    a, b = gq.parameters("a b")
    c = gq.Circuit(4).h(0).ry(a, 1).cx(0, 1).crz(b, 1, 2).rzz(a + b, 2, 3)
    c.pauli_rotation("XYZ", b, [0, 2, 3]).unitary(np.eye(2)[::-1], 3, controls=0)
    c.swap(0, 3).iswap(1, 2).u(a, b, 0.3, 3).measure(0, 1).reset(2).barrier()
    return c


@pytest.mark.parametrize("copier", [lambda x: pickle.loads(pickle.dumps(x)), copy.deepcopy],
                         ids=["pickle", "deepcopy"])  # fmt: skip
def test_circuits_gates_and_observables_survive_a_round_trip(copier):
    c = ansatz()
    assert copier(c) == c
    assert copier(c).parameters == c.parameters  # real symbols keep their assumptions
    assert all(copier(op.gate) == op.gate for op in c.operations)
    obs = gq.PauliSum.coerce("Z0 Z1 + 0.5*X2")
    assert copier(obs) == obs
    bound = c.bind({"a": 0.2, "b": -0.4})
    psi = gq.simulate(copier(bound), seed=5)
    np.testing.assert_allclose(psi.amplitudes, gq.simulate(bound, seed=5).amplitudes)


def test_plans_pickle_without_their_backend_caches():
    c = gq.library.qft(18)
    ns = gq.get_number_system("complex128")
    psi = gq.zeros(18)
    plan = plan_for_backend(c, ns, psi.backend)
    assert any(isinstance(item, BlockRun) for item in plan)
    run_plan(plan, psi.backend, psi.amplitudes)  # fills the block runs' encodings
    again = pickle.loads(pickle.dumps(plan))
    assert all(item.encoded == {} for item in again if isinstance(item, BlockRun))
    other = gq.zeros(18)
    run_plan(again, other.backend, other.amplitudes)
    np.testing.assert_allclose(other.amplitudes, psi.amplitudes, atol=1e-12)
    assert copy.deepcopy(build_plan(gq.Circuit(2).h(0).cx(0, 1), ns)) is not None


def energy(args: tuple[gq.Circuit, float]) -> float:
    circuit, theta = args
    return gq.expectation(circuit, "Z0 Z1 + 0.5*X2", values={"theta": theta})


def test_a_parameter_sweep_in_a_process_pool_equals_the_serial_sweep():
    (theta,) = gq.parameters("theta")
    c = gq.Circuit(3).h(0).ry(theta, 1).cx(1, 2).crx(2 * theta, 0, 2).rzz(theta, 0, 1)
    points = [(c, t) for t in np.linspace(-np.pi, np.pi, 9)]
    serial = [energy(p) for p in points]
    spawn = multiprocessing.get_context("spawn")  # workers get everything by pickling
    with ProcessPoolExecutor(max_workers=2, mp_context=spawn) as pool:
        parallel = list(pool.map(energy, points))
    np.testing.assert_allclose(parallel, serial, atol=1e-12)
    # and the closed form of one point: theta = 0 leaves |0>|0>|+> (qubit 0 in |+>), where
    # <Z0 Z1> = <Z0><Z1> = 0 and <X2> = 0
    assert abs(energy((c, 0.0))) < 1e-12
