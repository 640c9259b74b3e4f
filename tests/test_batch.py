"""apply_batch: one circuit on every row of a (batch, 2**n) array, equal to running each row
alone through the generic routine."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq

from reference import random_state
from strategies import random_circuit


@settings(max_examples=30, deadline=None)
@given(random_circuit(n_max=6), st.integers(1, 4), st.sampled_from(["complex64", "complex128"]))
def test_batch_equals_each_row_alone(circuit, batch, dtype):
    rng = np.random.default_rng(batch)
    states = np.stack([random_state(circuit.n_qubits, rng) for _ in range(batch)]).astype(dtype)
    want = np.stack(
        [gq.StateVector(row.copy(), backend="numpy").apply(circuit, fuse=False).to_numpy()
         for row in states]
    )  # fmt: skip
    got = gq.apply_batch(circuit, states)
    assert got is states  # in place
    np.testing.assert_allclose(got, want, atol=1e-5 if dtype == "complex64" else 1e-12)


def test_strided_rows_are_handled_and_errors_are_clear():
    c = gq.library.qft(3)
    base = np.zeros((4, 8), dtype=np.complex128)
    base[:, 0] = 1
    view = base[::2]  # rows of a strided view are still contiguous; columns view is not
    gq.apply_batch(c, view)
    np.testing.assert_allclose(base[0], np.full(8, 8**-0.5), atol=1e-12)
    columns = np.zeros((8, 2), dtype=np.complex128).T  # each row strided
    columns[:, 0] = 1
    gq.apply_batch(c, columns)
    np.testing.assert_allclose(columns[1], np.full(8, 8**-0.5), atol=1e-12)
    with pytest.raises(gq.StateShapeError):
        gq.apply_batch(c, np.zeros(8, dtype=complex))
    with pytest.raises(gq.QubitCountMismatchError):
        gq.apply_batch(c, np.zeros((2, 16), dtype=complex))
    with pytest.raises(gq.NumberTypeError):
        gq.apply_batch(c, np.zeros((2, 8), dtype=object))
    with pytest.raises(gq.NotUnitaryError):
        gq.apply_batch(gq.Circuit(3).h(0).reset(0), np.zeros((2, 8), dtype=complex))
    with pytest.raises(gq.UnboundParameterError):
        gq.apply_batch(gq.Circuit(3).rx("a", 0), np.zeros((2, 8), dtype=complex))
