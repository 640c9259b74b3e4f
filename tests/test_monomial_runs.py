"""Monomial runs (permutations and diagonals on high qubits that move whole series of
amplitudes) and permutation tables inside block runs, against the calls one by one on the
generic routine, a state built from basis vectors, and the GHZ closed form."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_numba_backend import assert_plan_matches_generic

import genqsim as gq
from genqsim.errors import QubitCountMismatchError
from genqsim.plan import (
    BlockRun,
    MatrixCall,
    MonomialRun,
    build_plan,
    group_monomial_runs,
    group_tile_runs,
    run_item,
)
from genqsim.plan.grouping import gate_by_gate_work

from strategies import monomial_circuit

DTYPES = st.sampled_from(["complex128", "complex64"])


def numba_backend():
    pytest.importorskip("numba")
    return gq.get_backend("numba")


@settings(max_examples=60, deadline=None)
@given(monomial_circuit(n_min=4, n_max=9), st.integers(0, 4), st.integers(0, 2**31))
def test_a_series_map_is_what_the_calls_do_to_each_series_first_amplitude(circuit, low, seed):
    """For every series ``s`` of ``2**k`` amplitudes, the calls in order (generic routine)
    send the basis state at the series' first amplitude to ``phases[s]`` times the basis
    state at the first amplitude of series ``destination[s]``; and so any amplitude of the
    series, with the same map."""
    numbers = gq.get_number_system("complex128")
    calls = [
        c
        for c in build_plan(circuit, numbers, fuse=False)
        if not isinstance(c, MatrixCall) and min(c.qubits) >= low
    ]
    n = circuit.n_qubits
    if not calls or low >= n:
        return
    k = min(q for c in calls for q in c.qubits)
    run = MonomialRun(calls, k, n)
    generic = gq.get_backend("numpy")
    offset = int(np.random.default_rng(seed).integers(0, 2**k))
    for s in range(2 ** (n - k)):
        state = np.zeros(2**n, dtype=complex)
        state[(s << k) + offset] = 1
        for call in calls:
            call.run(generic, state)
        want = np.zeros(2**n, dtype=complex)
        phase = 1 if run.phases is None else run.phases[s]
        want[(int(run.destination[s]) << k) + offset] = phase
        np.testing.assert_allclose(state, want, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    monomial_circuit(n_min=5, n_max=10, low_min=2),
    st.integers(0, 4),
    DTYPES,
    st.integers(0, 2**31),
)
def test_numba_monomial_runs_equal_the_calls_in_order(circuit, min_series, dtype, seed):
    """Runs grouped from any lowest qubit, both dtypes, on the Numba backend (whole series
    moved along cycles, one piece at a time) equal the calls one by one; every run holds
    calls on its series' qubits and above only, and the plan keeps the calls' order."""
    numba_backend()
    numbers = gq.get_number_system(dtype)
    calls = build_plan(circuit, numbers, fuse=False)
    plan = group_monomial_runs(calls, circuit.n_qubits, min_series)
    flattened = []
    for item in plan:
        if isinstance(item, MonomialRun):
            assert len(item.calls) >= 2
            assert min(q for c in item.calls for q in c.qubits) == item.series_qubits
            assert item.series_qubits >= min_series
            flattened.extend(item.calls)
        else:
            flattened.append(item)
    assert flattened == calls
    assert_plan_matches_generic(calls, plan, circuit.n_qubits, dtype, seed)


def test_a_run_that_changes_as_much_as_its_calls_stays_plain():
    """Two Toffoli-like X on qubit 19 under opposite values of controls 16-18 move disjoint
    eighths of the state: as much as the calls one by one, so no run; a CX chain on 14-17
    (1.5 states' worth, changing 7/8 of the series) becomes one."""
    n = 20
    c = gq.Circuit(n)
    c.append(gq.gate("x"), [19], [16, 17, 18], [1, 1, 1])
    c.append(gq.gate("x"), [19], [16, 17, 18], [0, 0, 0])
    calls = build_plan(c, gq.get_number_system("complex128"), fuse=False)
    assert gate_by_gate_work(calls) == 0.25
    assert group_monomial_runs(calls, n, 6) == calls

    chain = gq.Circuit(n).cx(14, 15).cx(15, 16).cx(16, 17)
    calls = build_plan(chain, gq.get_number_system("complex128"), fuse=False)
    (run,) = group_monomial_runs(calls, n, 6)
    assert isinstance(run, MonomialRun) and run.series_qubits == 14
    assert np.count_nonzero(run.changed) == 56  # all 64 series but those with 14-16 at 0


def test_the_default_numba_plan_of_ghz_is_one_block_pass_and_one_series_pass():
    """GHZ on 19 qubits: H and the CX ladder on the lowest ``b`` qubits in contiguous blocks
    (b = 16 at complex128, 17 at complex64; the ladder as one permutation table, every call
    keeping its position in the encoding), then the CX above as one monomial run over series
    of ``2**(b - 1)``; the state is the closed form (|0...0> + |1...1>)/sqrt(2)."""
    from genqsim.backends import numba_block_runs as K

    backend = numba_backend()
    n = 19
    for dtype, b in (("complex128", 16), ("complex64", 17)):
        numbers = gq.get_number_system(dtype)
        plan = gq.plan.plan_for_backend(gq.library.ghz(n), numbers, backend)
        block, run = plan
        assert isinstance(block, BlockRun) and block.contiguous and len(block.calls) == b
        assert isinstance(run, MonomialRun) and run.series_qubits == b - 1
        assert len(run.calls) == n - b
        state = backend.zeros(n, numbers)
        gq.plan.run_plan(plan, backend, state)
        kinds = block.encoded[np.dtype(dtype)][0][0]
        assert kinds[1] == K.KIND_PERMUTE and list(kinds[2:]) == [K.KIND_SKIP] * (b - 2)
        want = np.zeros(2**n)
        want[0] = want[-1] = 2**-0.5
        np.testing.assert_allclose(state, want, atol=1e-15 if dtype == "complex128" else 1e-7)


@settings(max_examples=40, deadline=None)
@given(
    monomial_circuit(n_min=6, n_max=9),
    st.integers(3, 5),
    st.integers(0, 3),
    st.sampled_from([0.0, 1.0, 99.0]),
    DTYPES,
    st.integers(0, 2**31),
)
def test_permutation_tables_in_block_and_tile_runs_equal_the_calls(
    circuit, tile, low, table_cost, dtype, seed
):
    """Stretches of permutations inside contiguous and gathered runs, applied as one table
    (always, at the default cost, never) equal the calls one by one, in both dtypes."""
    import genqsim.backends.numba_backend as nb_backend

    numba_backend()
    numbers = gq.get_number_system(dtype)
    calls = build_plan(circuit, numbers, fuse=False)
    plan = group_tile_runs(calls, circuit.n_qubits, tile, min(low, tile - 1))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(nb_backend, "PERMUTE_TABLE_COST", table_cost)
        assert_plan_matches_generic(calls, plan, circuit.n_qubits, dtype, seed)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 7), st.integers(0, 3), st.data())
def test_maps_of_controlled_exchanges_are_where_each_pattern_goes(bits, low, data):
    """X, CX and CCX under controls of either value (a CX ladder's table takes the affine
    shortcut, more controls flip one bit where they hold) map each pattern where the calls,
    followed pattern by pattern in Python, send it."""
    from genqsim.plan import PermutationCall
    from genqsim.plan.calls import monomial_map

    qubits = list(range(low, low + bits))
    calls = []
    for _ in range(data.draw(st.integers(1, 10))):
        target = data.draw(st.sampled_from(qubits))
        others = [q for q in qubits if q != target]
        controls = (
            data.draw(st.lists(st.sampled_from(others), unique=True, max_size=3)) if others else []
        )
        values = data.draw(st.lists(st.integers(0, 1), min_size=len(controls),
                                    max_size=len(controls)))  # fmt: skip
        calls.append(PermutationCall(np.array([1, 0]), None, (target,), tuple(controls),
                                     tuple(values)))  # fmt: skip
    expected = []
    for pattern in range(1 << bits):
        for call in calls:
            held = all(
                pattern >> (q - low) & 1 == v for q, v in zip(call.controls, call.control_values)
            )
            pattern ^= held << (call.targets[0] - low)
        expected.append(pattern)
    destination, phases = monomial_map(calls, low, bits)
    assert phases is None
    assert destination.tolist() == expected


def test_a_monomial_run_checks_its_qubits_and_its_state():
    c = gq.Circuit(10).cx(6, 7).x(9)
    calls = build_plan(c, gq.get_number_system("complex128"), fuse=False)
    with pytest.raises(ValueError, match="do not move series of 7 qubits"):
        MonomialRun(calls, 7, 10)
    run = MonomialRun(calls, 6, 10)
    backend = numba_backend()
    state = np.arange(2**11, dtype=np.complex128)
    before = state.copy()
    with pytest.raises(QubitCountMismatchError, match="planned for 10 qubits"):
        backend.apply_monomial_run(state, run)
    np.testing.assert_array_equal(state, before)


def test_a_monomial_run_pickles_its_map_but_not_its_encoding():
    backend = numba_backend()
    c = gq.Circuit(10).cx(6, 7).x(9).t(8)
    calls = build_plan(c, gq.get_number_system("complex128"), fuse=False)
    run = MonomialRun(calls, 6, 10)
    state = np.ones(2**10, dtype=np.complex128)
    run_item(run, backend, state)
    assert run.encoded
    copy = pickle.loads(pickle.dumps(run))
    assert copy.encoded == {}
    np.testing.assert_array_equal(copy.destination, run.destination)
    np.testing.assert_array_equal(copy.phases, run.phases)


def test_a_gathered_run_of_permutations_only_joins_a_monomial_run():
    """Blocks of 6 qubits, gathered tiles of 6 (2 low, 4 high) from 1.5 states' worth, series
    from qubit 2: a CX ladder on 12 qubits fills the block, then two gathered tiles of three
    of the ladder's CX each (1.5 states' worth) that hold nothing but permutations; they go
    back to plain calls and the whole rest of the ladder is one monomial run. The plan equals
    the calls one by one on the Numba backend and on the generic one (the GHZ state)."""
    from genqsim.backends import BlockLayout
    from genqsim.plan import group_calls

    n = 12
    gathered = BlockLayout(tile_qubits=6, low_qubits=2, min_state_qubits=8, min_gathered_work=1.5)
    layout = BlockLayout(6, 6, 8, gathered=gathered, min_series_qubits=2)
    numbers = gq.get_number_system("complex128")
    calls = build_plan(gq.library.ghz(n), numbers, fuse=False)
    without_series = group_calls(calls, n, BlockLayout(6, 6, 8, gathered=gathered))
    assert [len(i.calls) for i in without_series] == [6, 3, 3]
    assert not without_series[1].contiguous and not without_series[2].contiguous
    plan = group_calls(calls, n, layout)
    assert [type(i).__name__ for i in plan] == ["BlockRun", "MonomialRun"]
    assert plan[1].series_qubits == 5 and len(plan[1].calls) == n - 6
    assert_plan_matches_generic(calls, plan, n, "complex128", 7)
    generic = gq.get_backend("numpy")
    state = generic.zeros(n, numbers)
    gq.plan.run_plan(plan, generic, state)
    want = np.zeros(2**n)
    want[0] = want[-1] = 2**-0.5
    np.testing.assert_allclose(state, want, atol=1e-15)
