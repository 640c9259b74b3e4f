"""Matrix-product states with their blocks on a GPU (CuPy): the same states, truncations and
TEBD results as the host blocks, for both dtypes and with a conserved charge.

On a machine with an NVIDIA GPU and CuPy, ``pytest -m gpu`` runs them on the device;
elsewhere on the CPU stand-in of CuPy (``gpu_marks``), where the blocks' linear algebra is
NumPy's: that checks genqsim's side of the GPU route (placement, transfers, the namespace it
calls), not CuPy's solvers."""

from __future__ import annotations

import numpy as np
import pytest
from gpu_marks import GPU_MARKS
from hypothesis import given, settings

import genqsim as gq
from genqsim.mps import ModeMPS, MPSState, Truncation, tebd

from strategies import random_circuit

pytestmark = GPU_MARKS


@settings(max_examples=30, deadline=None)
@given(random_circuit(n_min=2, n_max=7))
def test_gpu_blocks_equal_host_blocks(circuit):
    for numbers, tol in (("complex128", 1e-10), ("complex64", 2e-5)):
        host = gq.simulate(circuit, method="mps", numbers=numbers)
        gpu = gq.simulate(circuit, method="mps", numbers=numbers, device="gpu")
        assert gpu.device == "gpu"
        np.testing.assert_allclose(gpu.to_numpy(), host.to_numpy(), atol=tol)
        assert gpu.expectation("Z0") == pytest.approx(host.expectation("Z0"), abs=10 * tol)


def test_gpu_tebd_with_charges_and_truncation():
    n = 24
    h = " + ".join(
        f"0.25*X{i} X{i + 1} + 0.25*Y{i} Y{i + 1} + 0.25*Z{i} Z{i + 1}" for i in range(n - 1)
    )
    runs = []
    for device in ("cpu", "gpu"):
        state = MPSState.basis("01" * (n // 2), conserve="Sz", truncation=Truncation(max_bond=32),
                               device=device)  # fmt: skip
        tebd(state, h, 0.05, 40)
        runs.append(state)
    host, gpu = runs
    assert gpu.entanglement_entropy(n // 2) == pytest.approx(
        host.entanglement_entropy(n // 2), abs=1e-8
    )
    assert gpu.truncation_error == pytest.approx(host.truncation_error, rel=1e-6, abs=1e-14)
    assert gpu.bond_dimensions == host.bond_dimensions


def test_gpu_measurement_and_boson_sampling():
    c = gq.Circuit(6).h(0).cx(0, 3).measure(3, 0).ry(0.4, 5).cx(5, 1)
    for seed in range(3):
        host = gq.simulate(c, method="mps", seed=seed)
        gpu = gq.simulate(c, method="mps", seed=seed, device="gpu")
        np.testing.assert_allclose(gpu.to_numpy(), host.to_numpy(), atol=1e-12)
    u = np.linalg.qr(np.random.default_rng(1).normal(size=(6, 6)) + 1j)[0]
    a = ModeMPS.fock([1, 1, 1, 0, 0, 0]).interferometer(u)
    b = ModeMPS.fock([1, 1, 1, 0, 0, 0], device="gpu").interferometer(u)
    for pattern in [(1, 1, 1, 0, 0, 0), (0, 0, 0, 1, 1, 1), (3, 0, 0, 0, 0, 0)]:
        assert b.probability(pattern) == pytest.approx(a.probability(pattern), abs=1e-12)
