"""The distributed state vector against the single-process one, on however many ranks run
this file: 1 under plain ``pytest``; ``tests/test_distributed.py`` runs it again under
``mpiexec -n 2`` and ``-n 4``.

Every rank draws the same hypothesis examples (derandomised, no database, no health checks
that depend on timing), so the collective calls line up and a failure fails on every rank.
"""

from __future__ import annotations

import numpy as np
import pytest
from gpu_marks import on_gpu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim.distributed import DistributedStateVector, world
from genqsim.errors import ArgumentValueError, NumberTypeError, QubitCountMismatchError

from strategies import random_circuit

pytest.importorskip("mpi4py")

COMM = world()
RANKS = COMM.Get_size()
SAME_ON_EVERY_RANK = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=25,
    suppress_health_check=list(HealthCheck),
)
CHUNKS = st.sampled_from([16, 64, None])  # 2**4 amplitudes per message, up to the default


@st.composite
def circuits_with_collapse(draw):
    """Random circuits of every gate kind (n >= 6, so four ranks leave room for four-qubit
    gates), with mid-circuit measurements, resets, a conditioned gate and classical stores
    (a random function of another bit) mixed in."""
    c = draw(random_circuit(n_min=6, n_max=9))
    n = c.n_qubits
    out = gq.Circuit(n, n_clbits=3)
    for op in c.operations:
        out.append(op.gate, op.targets, op.controls, op.control_values)
        roll = draw(st.integers(0, 9))
        q = draw(st.integers(0, n - 1))
        if roll == 0:
            out.measure(q, draw(st.integers(0, 2)))
        elif roll == 1:
            out.reset(q)
        elif roll == 2:
            out.if_(draw(st.integers(0, 2)), 1, gq.Circuit(n).h(q).cx(q, (q + 1) % n))
        elif roll == 3:
            table = draw(st.lists(st.integers(0, 1), min_size=2, max_size=2))
            out.store(draw(st.integers(0, 2)), table, sources=draw(st.integers(0, 2)))
    return out


def single_process(circuit: gq.Circuit, seed: int, numbers: str = "complex128") -> np.ndarray:
    """One process's state vector (noise drawn as one trajectory), the reference of a rank's."""
    return gq.simulate(circuit, numbers=numbers, seed=seed, method="statevector").to_numpy()


@SAME_ON_EVERY_RANK
@given(circuits_with_collapse(), CHUNKS, st.booleans(), st.integers(0, 2**16))
def test_equals_single_process_state(circuit, chunk, remap, seed):
    """Every gate class (local, diagonal on rank bits, controlled by rank bits, dense and
    permutations on one or more rank bits), measurement and reset: the gathered state equals
    the single-process state run with the same seed."""
    state = gq.simulate(circuit, method="mpi", exchange_chunk=chunk, remap=remap, seed=seed)
    full = state.to_numpy()
    np.testing.assert_allclose(full, single_process(circuit, seed), atol=1e-12)
    alone = gq.simulate(circuit, seed=seed, method="statevector")
    assert state.clbits == alone.clbits  # measured and stored bits
    gathered = state.gather()
    if COMM.Get_rank() == 0:
        np.testing.assert_array_equal(gathered, full)
    else:
        assert gathered is None


@SAME_ON_EVERY_RANK
@given(random_circuit(n_min=6, n_max=8), CHUNKS, st.booleans())
def test_results_equal_single_process(circuit, chunk, remap):
    """Probabilities, marginals, Pauli expectations, sampling and overlaps agree with the
    single-process state; results are the same on every rank."""
    n = circuit.n_qubits
    state = gq.simulate(circuit, method="mpi", exchange_chunk=chunk, remap=remap)
    ref = gq.simulate(circuit)
    np.testing.assert_allclose(state.probabilities(), ref.probabilities(), atol=1e-12)
    marginal = [n - 1, 0, n // 2]
    np.testing.assert_allclose(
        state.probabilities(marginal), ref.probabilities(marginal), atol=1e-12
    )
    observable = f"X{n - 1} Y0 + 0.5*Z{n - 2} X1 - Y{n - 1} Z{n // 2} X2 + 0.25*X{n - 1} X{n - 2}"
    assert state.expectation(observable) == pytest.approx(ref.expectation(observable), abs=1e-12)
    np.testing.assert_allclose(state.to_numpy(), ref.to_numpy(), atol=1e-12)  # layout moves only
    assert state.norm_squared() == pytest.approx(1.0, abs=1e-12)
    assert state.sample(500, seed=7) == ref.sample(500, seed=7)
    assert state.sample(300, seed=3, qubits=[n - 1, 1]) == ref.sample(
        300, seed=3, qubits=[n - 1, 1]
    )
    other = gq.simulate(gq.Circuit(n).h(n - 1).cx(n - 1, 0), method="mpi", remap=not remap)
    reference_other = gq.simulate(gq.Circuit(n).h(n - 1).cx(n - 1, 0))
    assert state.inner(other) == pytest.approx(ref.inner(reference_other), abs=1e-12)
    assert state.fidelity(other) == pytest.approx(ref.fidelity(reference_other), abs=1e-12)
    values = COMM.allgather((state.expectation("Z0"), state.sample(10, seed=1)))
    assert all(v == values[0] for v in values)


@SAME_ON_EVERY_RANK
@given(random_circuit(n_min=6, n_max=8), st.booleans(), st.data())
def test_reduced_states_equal_single_process(circuit, remap, data):
    """Reduced density matrices of any qubits (rank qubits included) and entanglement
    entropies equal the single-process state's."""
    n = circuit.n_qubits
    keep = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4, unique=True))
    state = gq.simulate(circuit, method="mpi", remap=remap, exchange_chunk=16)
    ref = gq.simulate(circuit)
    layout = list(state.layout.position)
    rho = state.reduced_density_matrix(keep)
    np.testing.assert_allclose(
        rho.to_numpy(), ref.reduced_density_matrix(keep).to_numpy(), atol=1e-12
    )
    if not remap:
        assert state.layout.position == layout
    assert state.entanglement_entropy(keep) == pytest.approx(
        ref.entanglement_entropy(keep), abs=1e-9
    )
    np.testing.assert_allclose(state.to_numpy(), ref.to_numpy(), atol=1e-12)  # state unchanged


@SAME_ON_EVERY_RANK
@given(random_circuit(n_min=6, n_max=8), st.integers(0, 2**16))
def test_complex64(circuit, seed):
    state = gq.simulate(circuit, numbers="complex64", method="mpi", exchange_chunk=16, seed=seed)
    assert state.to_numpy().dtype == np.complex64
    np.testing.assert_allclose(
        state.to_numpy(), single_process(circuit, seed, "complex64"), atol=2e-5
    )


def test_noise_channels_draw_like_trajectories():
    """Pauli mixtures draw their branches as a single-process trajectory does (same seed, same
    branches); a general channel's branch weights come from the targets' reduced state."""
    n = 6
    c = gq.Circuit(n).h(0).cx(0, n - 1).ry(0.7, n - 2)
    for q in (0, n - 1, n - 2):
        c.depolarizing(0.3, q)
    c.depolarizing(0.2, n - 1, 1)
    for seed in range(5):
        state = gq.simulate(c, method="mpi", seed=seed, exchange_chunk=16)
        np.testing.assert_allclose(state.to_numpy(), single_process(c, seed), atol=1e-12)
    damped = gq.Circuit(n).h(n - 1).ry(1.1, 0).cx(n - 1, 0).amplitude_damping(0.4, n - 1)
    for seed in range(4):
        state = gq.simulate(damped, method="mpi", seed=seed)
        psi = state.to_numpy()
        assert np.vdot(psi, psi).real == pytest.approx(1.0, abs=1e-12)
        # the outcome is one of the two normalised Kraus branches of the pre-channel state
        before = single_process(gq.Circuit(n).h(n - 1).ry(1.1, 0).cx(n - 1, 0), 0)
        branches = []
        for k in gq.channels.amplitude_damping(0.4).kraus(gq.get_number_system("complex128")):
            out = gq.StateVector(before.copy()).apply_matrix(np.asarray(k, dtype=complex), n - 1)
            branch = out.to_numpy()
            branches.append(branch / np.linalg.norm(branch))
        assert min(np.abs(psi - b).max() for b in branches) < 1e-12


def test_reduced_state_of_targets():
    """The reduced density matrix a channel's weights use, against a partial trace of the
    gathered state."""
    from genqsim.distributed.runner import PlanRun

    n = 6
    circuit = gq.library.random_circuit(n, depth=3, seed=5)
    state = gq.simulate(circuit, method="mpi", exchange_chunk=16)
    for targets in [(n - 1,), (0, n - 1), (n - 2, 1)]:
        rho = PlanRun(state, None)._reduced(targets)
        psi = state.to_numpy().reshape((2,) * n)  # axis a is qubit n-1-a
        keep = [n - 1 - q for q in reversed(targets)]  # highest target first, as kron orders
        rest = [a for a in range(n) if a not in keep]
        m = np.transpose(psi, keep + rest).reshape(1 << len(targets), -1)
        np.testing.assert_allclose(rho, m @ m.conj().T, atol=1e-12)


def test_bytes_sent_match_each_class_minimum():
    """Zero bytes for local and diagonal calls and for controls on rank bits; half of the local
    slice for one dense gate on a rank bit; a quarter with two local controls and
    ``remap=False`` (only the controlled amplitudes cross)."""
    n = 8
    state = gq.simulate(gq.library.random_circuit(n, depth=2, seed=1), method="mpi",
                        exchange_chunk=16)  # fmt: skip
    slice_bytes = (1 << state.local_qubits) * 16

    def sent(op_circuit: gq.Circuit, on: DistributedStateVector) -> int:
        before = on.communication.bytes_sent
        on.apply(op_circuit)
        return on.communication.bytes_sent - before

    local = [q for q in range(n) if state.layout.is_local(q)]
    ranked = state.layout.rank_qubits()
    assert (
        sent(gq.Circuit(n).h(local[0]).cx(local[1], local[2]).u(0.1, 0.2, 0.3, local[3]), state)
        == 0
    )
    if not ranked:  # one rank: nothing is ever sent
        assert state.communication.bytes_sent == 0
        return
    top = ranked[-1]
    assert sent(gq.Circuit(n).rz(0.3, top).cz(top, local[0]).p(0.2, top), state) == 0
    assert sent(gq.Circuit(n).cx(top, local[0]).append(gq.gate("h"), local[1], top), state) == 0
    assert sent(gq.Circuit(n).swap(top, local[0]), state) == 0  # the layout absorbs it
    top = state.layout.rank_qubits()[-1]
    assert sent(gq.Circuit(n).h(top), state) == slice_bytes // 2
    assert state.layout.is_local(top)
    fixed = state.copy()
    fixed.options = gq.MPIOptions(remap=False, exchange_chunk=16)
    top = fixed.layout.rank_qubits()[0]
    local = [q for q in range(n) if fixed.layout.is_local(q)]
    controlled_h = gq.Circuit(n).append(gq.gate("h"), top, local[:2], [1, 0])
    layout = list(fixed.layout.position)
    assert sent(controlled_h, fixed) == slice_bytes // 4
    assert fixed.layout.position == layout
    reference = gq.simulate(gq.Circuit(n), initial=state.to_numpy()).apply(controlled_h)
    np.testing.assert_allclose(fixed.to_numpy(), reference.to_numpy(), atol=1e-12)


def test_cli_prints_once(capsys):
    """``genqsim run ... --method mpi`` computes on every rank and prints on rank 0 only."""
    from genqsim.cli.main import main

    assert (
        main(["run", "ghz:5", "--method", "mpi", "--quiet", "--shots", "100", "--seed", "1"]) == 0
    )
    out = capsys.readouterr().out
    if COMM.Get_rank() == 0:
        assert "method=mpi" in out and "|11111>" in out and "counts" in out
    else:
        assert out == ""


def test_bad_input_is_refused_before_any_change():
    with pytest.raises(NumberTypeError, match="complex128 or complex64"):
        gq.simulate(gq.Circuit(3).h(0), method="mpi", numbers="sympy")
    with pytest.raises(ArgumentValueError, match="power of two"):
        gq.simulate(gq.Circuit(3).h(0), method="mpi", exchange_chunk=24)
    state = gq.simulate(gq.Circuit(4).h(3).cx(3, 0), method="mpi")
    before = state.to_numpy()
    with pytest.raises(QubitCountMismatchError):
        state.apply(gq.Circuit(5).h(0))
    with pytest.raises(gq.errors.UnboundParameterError):
        state.apply(gq.Circuit(4).rx(gq.parameters("a")[0], 3))
    np.testing.assert_array_equal(state.to_numpy(), before)


@on_gpu
@pytest.mark.parametrize("numbers", ["complex128", "complex64"])
def test_gpu_slices(numbers):
    """Slices on GPUs (one per rank, staged through host buffers) give the CPU result (on
    the CPU emulation of the kernels where no GPU is visible: see ``gpu_marks``)."""
    circuit = gq.library.random_circuit(9, depth=4, seed=2).h(8).cx(8, 0).swap(7, 1)
    tolerance = 1e-12 if numbers == "complex128" else 2e-5
    for remap in (True, False):
        state = gq.simulate(circuit, numbers=numbers, device="gpu", method="mpi",
                            exchange_chunk=16, remap=remap)  # fmt: skip
        assert state.backend.device == "gpu"
        np.testing.assert_allclose(
            state.to_numpy(), single_process(circuit, 0, numbers), atol=tolerance
        )
        assert state.expectation("X8 Y0") == pytest.approx(
            gq.simulate(circuit, numbers=numbers).expectation("X8 Y0"), abs=tolerance
        )
