"""The Numba backend against the generic NumPy routine: every primitive, both dtypes, random
circuits (hypothesis), reductions, the multithreaded path and thread settings."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq

from reference import random_state
from strategies import random_circuit

pytest.importorskip("numba")


@settings(max_examples=80, deadline=None)
@given(random_circuit(), st.sampled_from(["complex128", "complex64"]), st.integers(0, 2**31))
def test_random_circuits_match_generic_routine(circuit, dtype, seed):
    psi0 = random_state(circuit.n_qubits, np.random.default_rng(seed)).astype(dtype)
    fast = gq.simulate(circuit, numbers=dtype, backend="numba", initial=psi0)
    generic = gq.simulate(circuit, numbers=dtype, backend="numpy", initial=psi0)
    assert fast.backend.name == "numba" and generic.backend.name == "numpy"
    tol = 1e-12 if dtype == "complex128" else 2e-6
    np.testing.assert_allclose(fast.amplitudes, generic.amplitudes, atol=tol, rtol=0)
    n = circuit.n_qubits
    qubits = list(np.random.default_rng(seed).permutation(n)[: max(1, n // 2)])
    np.testing.assert_allclose(
        fast.probabilities(qubits), generic.probabilities(qubits), atol=tol, rtol=0
    )
    np.testing.assert_allclose(fast.probabilities(), generic.probabilities(), atol=tol, rtol=0)
    assert fast.norm_squared() == pytest.approx(generic.norm_squared(), abs=tol * 10)
    assert fast.inner(generic) == pytest.approx(generic.inner(generic), abs=tol * 10)
    observable = " + ".join(f"{0.5 + i}*{'XYZ'[i % 3]}{i} Z{(i + 1) % n}" for i in range(n - 1))
    observable = observable or "X0"
    assert fast.expectation(observable) == pytest.approx(
        generic.expectation(observable), abs=tol * 50
    )


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_multithreaded_path_matches_generic(dtype):
    """States above the parallel threshold run the prange loops on several threads."""
    from genqsim.backends.numba_backend import PARALLEL_MIN_QUBITS

    n = PARALLEL_MIN_QUBITS + 1
    rng = np.random.default_rng(1)
    U3 = np.linalg.qr(rng.normal(size=(8, 8)) + 1j * rng.normal(size=(8, 8)))[0]
    c = (
        gq.library.qft(n)
        .ccx(0, 5, n - 1)
        .iswap(2, n - 2)
        .unitary(U3, [1, n - 1, 7], [3], [0])
        .rzz(0.3, 0, n - 1)
        .cy(n - 1, 0)
    )
    psi0 = random_state(n, rng).astype(dtype)
    fast = gq.simulate(c, numbers=dtype, backend="numba", initial=psi0)
    generic = gq.simulate(c, numbers=dtype, backend="numpy", initial=psi0)
    tol = 1e-12 if dtype == "complex128" else 1e-5
    np.testing.assert_allclose(fast.amplitudes, generic.amplitudes, atol=tol, rtol=0)
    np.testing.assert_allclose(
        fast.probabilities([n - 1, 2]), generic.probabilities([n - 1, 2]), atol=tol
    )


def test_set_num_threads_validates_and_applies():
    import numba

    limit = numba.config.NUMBA_NUM_THREADS
    gq.set_num_threads(1)
    assert gq.get_num_threads() == 1
    gq.set_num_threads(limit)
    assert gq.get_num_threads() == limit
    with pytest.raises(ValueError, match=f"1..{limit}"):
        gq.set_num_threads(limit + 1)
    with pytest.raises(ValueError):
        gq.set_num_threads(0)


def test_numba_num_threads_environment_is_respected():
    code = (
        "import genqsim as gq; psi = gq.simulate(gq.library.qft(15), initial=5);"
        "print(gq.get_num_threads(), psi.backend.name, round(psi.norm_squared(), 12))"
    )
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "numba", "1.0"]


def test_non_contiguous_or_object_arrays_fall_back_to_generic():
    strided = np.zeros(8, dtype=complex)[::2]
    strided[0] = 1
    assert gq.StateVector(strided).backend.name == "numpy"
    with pytest.raises(gq.UnknownBackendError):
        gq.StateVector(np.array([1, 0], dtype=object), backend="numba")


@settings(max_examples=40, deadline=None)
@given(
    st.integers(3, 4),
    st.booleans(),
    st.sampled_from([0, 2]),
    st.sampled_from(["complex128", "complex64"]),
    st.integers(0, 2**31),
)
def test_sparse_matrices_match_generic_alone_and_in_block_runs(k, controlled, low, dtype, seed):
    """Matrices of 3+ qubits with few nonzeros (noisy superoperators) run as sparse rows,
    empty rows included, on their own and inside a cache-blocked run; group by group, or in
    lanes of neighbouring groups where the lowest target leaves 4+ consecutive amplitudes
    (``low=2``)."""
    from genqsim.backends.numba_backend import _sparse_form
    from genqsim.plan.calls import BlockRun, MatrixCall

    rng = np.random.default_rng(seed)
    dim = 1 << k
    mask = rng.random((dim, dim)) < 0.12
    mask[rng.integers(dim)] = False
    m = np.where(mask, rng.normal(size=(dim, dim)) + 1j * rng.normal(size=(dim, dim)), 0)
    assert _sparse_form(m.astype(dtype)) is not None
    targets = tuple(int(q) for q in rng.choice(np.arange(low, 6), k, replace=False))
    controls, values = ((6,), (1,)) if controlled else ((), ())
    psi0 = random_state(8, rng).astype(dtype)
    expected = psi0.copy()
    gq.get_backend("numpy").apply_matrix(expected, m.astype(dtype), targets, controls, values)
    numba_backend = gq.get_backend("numba")
    alone = psi0.copy()
    numba_backend.apply_matrix(alone, m, targets, controls, values)
    blocked = psi0.copy()
    numba_backend.apply_block_run(blocked, BlockRun([MatrixCall(m, targets, controls, values)], 7))
    tol = 1e-12 if dtype == "complex128" else 1e-5
    np.testing.assert_allclose(alone, expected, atol=tol, rtol=0)
    np.testing.assert_allclose(blocked, expected, atol=tol, rtol=0)
