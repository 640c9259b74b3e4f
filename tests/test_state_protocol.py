"""Conformance of every state kind to the State protocol, against a dense reference.

Each kind is one entry of KINDS: a function that runs a circuit with one free parameter
``theta`` at a value and returns the state. The reference state comes from Kronecker-built
operators (tests/reference.py) of the bound circuit. A new kind of state joins by adding one
line to KINDS.
"""

from __future__ import annotations

import numpy as np
import pytest
from gpu_marks import EMULATED, ON_DEVICE
from gpu_marks import cupy as gpu_marks_cupy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import genqsim as gq

from reference import embed, pauli_rotation_reference, reference_matrix
from strategies import grouped_in_composites, random_circuit

(THETA,) = gq.parameters("theta")
VALUE = 0.7
GPU_KIND = "statevector-cupy"
GPU_KIND_MARKS = (
    [pytest.mark.gpu] if ON_DEVICE else [] if EMULATED else [pytest.mark.skip(reason="no GPU")]
)
"""On a device, ``-m gpu`` selects the GPU kind; elsewhere it runs on the CPU emulation of the
CUDA kernels (``gpu_marks``), installed for its tests alone (:func:`_gpu_kind_emulated`)."""


KINDS = {
    "statevector-numpy": lambda c, **kw: gq.simulate(c.bind({THETA: VALUE}), backend="numpy", **kw),
    "statevector-numba": lambda c, **kw: gq.simulate(c.bind({THETA: VALUE}), backend="numba", **kw),
    GPU_KIND: pytest.param(
        lambda c, **kw: gq.simulate(c.bind({THETA: VALUE}), device="gpu", **kw),
        marks=GPU_KIND_MARKS,
    ),
    "density_matrix": lambda c, **kw: gq.simulate(
        c.bind({THETA: VALUE}), method="density_matrix", **kw
    ),
    "trajectories": lambda c, **kw: gq.simulate(
        c.bind({THETA: VALUE}), method="trajectories", trajectories=3, seed=7, **kw
    ),
    "interval": lambda c, **kw: gq.simulate(c.bind({THETA: VALUE}), method="interval", **kw),
    "mpi": lambda c, **kw: gq.simulate(c.bind({THETA: VALUE}), method="mpi", **kw),
    "mps": lambda c, **kw: gq.simulate(c.bind({THETA: VALUE}), method="mps", **kw),
    "tangent": lambda c, **kw: gq.simulate(
        c, method="tangent", numbers=gq.DualNumbers({THETA: VALUE}), **kw
    ),
}
REGISTERED = gq.available_methods()
for _name in REGISTERED:  # a method without a line of its own runs with its defaults
    if not any(kind.split("-")[0] == _name for kind in KINDS):
        KINDS[_name] = lambda c, _m=_name, **kw: gq.simulate(
            c.bind({THETA: VALUE}), method=_m, **kw
        )
kinds = pytest.mark.parametrize("make", list(KINDS.values()), ids=list(KINDS))
SETTINGS = settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
OBSERVABLE = "Z0 Z1 + 0.5*X2 - 0.25*Y0 Y2 + 0.125"


def value(x) -> complex:
    """A result as a complex number: a float, a ball's midpoint, a dual's value."""
    if isinstance(x, gq.Dual):
        return complex(x.value)
    if type(x).__module__.startswith("flint"):
        return complex(x.mid())
    return complex(x)


def values(arr) -> np.ndarray:
    if type(arr).__module__.startswith("cupy"):
        arr = arr.get()
    return np.array([value(x) for x in np.asarray(arr).reshape(-1)])


def with_theta(circuit: gq.Circuit) -> gq.Circuit:
    """The random circuit after a layer that depends on theta (so tangents are not zero)."""
    c = gq.Circuit(circuit.n_qubits).rx(THETA, 0).ry(2 * THETA, circuit.n_qubits - 1)
    return c + circuit


def reference(circuit: gq.Circuit) -> np.ndarray:
    """The state from |0...0>, each operation a Kronecker-built operator."""
    bound = circuit.bind({THETA: VALUE}) if THETA in circuit.parameters else circuit
    n = bound.n_qubits
    psi = np.zeros(1 << n, dtype=complex)
    psi[0] = 1
    for op in bound.operations:
        gate = op.gate
        if isinstance(gate, gq.MatrixGate):
            m = np.asarray(gate.entries, dtype=complex)
        elif isinstance(gate, gq.PauliRotation):
            m = pauli_rotation_reference(gate.pauli, float(gate.params[0]))
        else:
            m = reference_matrix(gate.name, tuple(float(p) for p in gate.params))
        psi = embed(m, n, op.targets, op.controls, op.control_values) @ psi
    return psi


def pauli(letter: str) -> np.ndarray:
    return {"I": np.eye(2), "X": np.array([[0, 1], [1, 0]]), "Y": np.array([[0, -1j], [1j, 0]]),
            "Z": np.diag([1, -1])}[letter]  # fmt: skip


def dense_observable(n: int) -> np.ndarray:
    """OBSERVABLE as a dense matrix (qubit 0 the rightmost Kronecker factor)."""

    def term(letters: dict[int, str]) -> np.ndarray:
        out = np.eye(1)
        for q in reversed(range(n)):
            out = np.kron(out, pauli(letters.get(q, "I")))
        return out

    return (term({0: "Z", 1: "Z"}) + 0.5 * term({2: "X"}) - 0.25 * term({0: "Y", 2: "Y"})
            + 0.125 * term({}))  # fmt: skip


def marginal(p: np.ndarray, n: int, qubits: list[int]) -> np.ndarray:
    out = np.zeros(1 << len(qubits))
    for index, weight in enumerate(p):
        out[sum(((index >> q) & 1) << pos for pos, q in enumerate(qubits))] += weight
    return out


circuits = random_circuit(n_min=3, n_max=5).map(with_theta)


@pytest.fixture(autouse=True)
def _gpu_kind_emulated(request):
    """The GPU kind's tests with the emulated CuPy installed, where no GPU is visible."""
    callspec = getattr(request.node, "callspec", None)
    if not EMULATED or callspec is None or GPU_KIND not in callspec.id:
        yield
        return
    import emulated_cupy

    with emulated_cupy.installed(gpu_marks_cupy):
        yield


@kinds
@SETTINGS
@given(circuit=circuits)
def test_results_match_the_dense_reference(make, circuit):
    psi_ref = reference(circuit)
    n = circuit.n_qubits
    state = make(circuit)
    assert isinstance(state, gq.State)
    assert state.n_qubits == n and isinstance(state.numbers, gq.NumberSystem)
    p_ref = np.abs(psi_ref) ** 2
    np.testing.assert_allclose(values(state.probabilities()).real, p_ref, atol=1e-9)
    np.testing.assert_allclose(
        values(state.probabilities([2, 0])).real, marginal(p_ref, n, [2, 0]), atol=1e-9
    )
    want = np.vdot(psi_ref, dense_observable(n) @ psi_ref).real
    assert abs(value(state.expectation(OBSERVABLE)) - want) < 1e-9
    if isinstance(state, gq.HasAmplitudes):
        np.testing.assert_allclose(values(state.to_numpy()), psi_ref, atol=1e-9)


@kinds
@SETTINGS
@given(data=st.data(), circuit=circuits)
def test_composites_run_as_their_bodies(make, data, circuit):
    """Every kind of state runs a circuit whose gates are grouped into composites (nested
    too) as the circuit itself: compared with the dense reference of the ungrouped one."""
    grouped = data.draw(grouped_in_composites(circuit))
    assert len(grouped.instructions) <= len(circuit.instructions)
    psi_ref = reference(circuit)
    state = make(grouped)
    p_ref = np.abs(psi_ref) ** 2
    np.testing.assert_allclose(values(state.probabilities()).real, p_ref, atol=1e-9)
    want = np.vdot(psi_ref, dense_observable(circuit.n_qubits) @ psi_ref).real
    assert abs(value(state.expectation(OBSERVABLE)) - want) < 1e-9
    if isinstance(state, gq.HasAmplitudes):
        np.testing.assert_allclose(values(state.to_numpy()), psi_ref, atol=1e-9)


@kinds
@SETTINGS
@given(circuit=circuits, seed=st.integers(0, 2**31))
def test_sampling_is_seeded_and_follows_the_distribution(make, circuit, seed):
    state = make(circuit)
    shots = 20_000
    counts = state.sample(shots, seed=seed)
    assert counts == state.sample(shots, seed=seed)
    assert sum(counts.values()) == shots and all(len(k) == circuit.n_qubits for k in counts)
    p = np.abs(reference(circuit)) ** 2
    for key, count in counts.items():
        expected = p[int(key, 2)] * shots
        assert abs(count - expected) <= 5 * np.sqrt(expected * (1 - p[int(key, 2)])) + 3
    marginal_counts = state.sample(1000, seed=seed, qubits=[1])
    assert set(marginal_counts) <= {"0", "1"} and sum(marginal_counts.values()) == 1000


@kinds
@SETTINGS
@given(circuit=circuits, seed=st.integers(0, 2**31))
def test_measurement_collapses_onto_the_outcome(make, circuit, seed):
    psi_ref = reference(circuit)
    n = circuit.n_qubits
    state = make(circuit)
    before = values(state.probabilities()).real
    copy = state.copy()
    p1 = marginal(np.abs(psi_ref) ** 2, n, [1])
    if min(p1) < 1e-6:  # an outcome of (near) zero probability: nothing to renormalise
        return
    outcome = copy.measure([1], seed=seed)
    assert outcome in ("0", "1")
    keep = np.array([((i >> 1) & 1) == int(outcome) for i in range(1 << n)])
    post = np.where(keep, np.abs(psi_ref) ** 2, 0) / p1[int(outcome)]
    np.testing.assert_allclose(values(copy.probabilities()).real, post, atol=1e-8)
    np.testing.assert_allclose(values(state.probabilities()).real, before, atol=0)  # untouched


@kinds
def test_rejected_calls_leave_the_state_untouched(make):
    circuit = with_theta(gq.Circuit(3).h(0).cx(0, 2))
    state = make(circuit)
    before = values(state.probabilities())
    with pytest.raises(gq.QubitIndexError):
        state.probabilities([3])
    with pytest.raises(gq.ShotsError):
        state.sample(-1)
    with pytest.raises(gq.QubitIndexError):
        state.measure([7])
    with pytest.raises(gq.QubitCountMismatchError):
        state.apply(gq.Circuit(4).h(0))
    with pytest.raises(gq.QubitIndexError):
        state.expectation("Z5")
    np.testing.assert_array_equal(values(state.probabilities()), before)


def test_interval_results_contain_the_exact_values():
    circuit = with_theta(gq.library.qft(4))
    psi_ref = reference(circuit)
    state = KINDS["interval"](circuit)
    exact_p = np.abs(psi_ref) ** 2
    assert all(ball.contains(float(p)) for ball, p in zip(state.probabilities(), exact_p))
    want = np.vdot(psi_ref, dense_observable(4) @ psi_ref).real
    assert state.expectation(OBSERVABLE).contains(want)
    state.measure([0], seed=3)  # still an enclosure after the rigorous renormalisation
    assert abs(sum(value(b) for b in state.probabilities()) - 1) < 1e-12


def test_tangent_results_are_exact_derivatives():
    circuit = with_theta(gq.Circuit(3).h(0).cx(0, 1).crz(THETA, 1, 2).cx(2, 0))
    state = KINDS["tangent"](circuit)
    h = 1e-6

    def at(t: float) -> float:
        psi = reference(circuit.bind({THETA: t}))
        return float(np.vdot(psi, dense_observable(3) @ psi).real)

    fd = (at(VALUE + h) - at(VALUE - h)) / (2 * h)
    result = state.expectation(OBSERVABLE)
    assert abs(result.value - at(VALUE)) < 1e-12
    assert abs(result.partials[0] - fd) < 1e-7
    probs = state.probabilities([0])

    def p0(t: float) -> np.ndarray:
        return marginal(np.abs(reference(circuit.bind({THETA: t}))) ** 2, 3, [0])

    fd_p = (p0(VALUE + h) - p0(VALUE - h)) / (2 * h)
    np.testing.assert_allclose([p.partials[0] for p in probs], fd_p, atol=1e-7)


def test_every_registered_method_is_in_the_conformance_suite():
    """Every method registered when the suite is collected (built in, or a plugin's entry
    point) has a line in KINDS: its own above, or the plain one added for it."""
    covered = {name.split("-")[0] for name in KINDS}
    assert set(REGISTERED) <= covered, set(REGISTERED) - covered


def test_methods_are_listed_and_unknown_ones_refused():
    assert {"statevector", "interval", "tangent"} <= set(gq.available_methods())
    with pytest.raises(gq.UnknownMethodError, match="unknown method 'mps_typo'"):
        gq.simulate(gq.Circuit(1), method="mps_typo")
    with pytest.raises(gq.NumberTypeError, match="DualNumbers"):
        gq.simulate(gq.Circuit(1), method="tangent")


@kinds
def test_apply_takes_one_operation_as_a_circuit_of_one(make):
    circuit = with_theta(gq.Circuit(3).h(0).cx(0, 2))
    op = gq.Circuit(3).cry(0.4, 2, 1).operations[0]
    one = make(circuit).apply(op)
    whole = make(circuit + gq.Circuit(3).cry(0.4, 2, 1))
    np.testing.assert_allclose(
        values(one.probabilities()).real, values(whole.probabilities()).real, atol=1e-12
    )
    with pytest.raises(TypeError, match="takes a Circuit, got str \\(or pass one Operation"):
        make(circuit).apply("h q[0];")


@pytest.mark.parametrize(
    ("method", "extra"),
    [("interval", {}), ("tangent", {"numbers": gq.DualNumbers({THETA: VALUE})})],
)
def test_host_methods_run_on_the_backend_the_request_names(method, extra):
    circuit = with_theta(gq.Circuit(2).h(0)) if method == "tangent" else gq.Circuit(2).h(0)
    state = gq.simulate(circuit, method=method, backend="numpy", **extra)
    assert state.backend.name == "numpy"
    reference_state = gq.simulate(circuit, method=method, **extra)
    np.testing.assert_allclose(
        values(state.probabilities()).real, values(reference_state.probabilities()).real
    )
    with pytest.raises(gq.GenqsimError):  # a GPU backend, or none on this machine
        gq.simulate(circuit, method=method, device="gpu", **extra)
