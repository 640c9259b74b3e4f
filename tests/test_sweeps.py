"""Parameter sweeps from one plan (genqsim.plan.sweep, genqsim.states.swept): every point's
state against the generic NumPy routine run on the bound circuit, the values expectation,
probabilities and counts read from them against the point-by-point path (an option a
sweep does not take sends it there) and Qiskit, the batched kernels' serial and threaded
builds against one state at a time, and the sweeps a plan does not serve going point by
point with their errors."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim.backends import get_backend
from genqsim.backends import numba_kernels as K
from genqsim.circuit.noise import NoiseModel
from genqsim.linalg import generic
from genqsim.plan import BlockRun
from genqsim.plan import sweep as sweep_module
from genqsim.plan.sweep import SweepPlan
from genqsim.states.base import pauli_sum_values
from genqsim.states.registry import swept_states
from genqsim.states.swept import sweep_for

from strategies import angles, random_circuit

A, B, C = gq.parameters("a b c")
EXPRESSIONS = [A, B, C, 2 * A - 0.3, A * B, sympy.sin(A) + C / 2, -B]
"""Angles of the swept gates: bare parameters, affine and non-affine expressions."""

SWEPT_GATES = {"rx": 1, "ry": 1, "rz": 1, "p": 1, "u": 1, "rxx": 2, "ryy": 2, "rzz": 2}
"""Parametrised library gates and their widths (``u`` built point by point, the others in
closed form)."""


@st.composite
def swept_circuit(draw):
    """A random circuit of fixed gates of every kind with parametrised gates (library gates
    and Pauli rotations, under up to two controls) put between them."""
    base = draw(random_circuit(n_min=1, n_max=6))
    n = base.n_qubits
    ops = list(base.operations)
    for _ in range(draw(st.integers(1, 8))):
        qubits = draw(st.permutations(range(n)))
        if draw(st.booleans()):
            name = draw(st.sampled_from(sorted(SWEPT_GATES)))
            arity = SWEPT_GATES[name]
            count = 3 if name == "u" else 1
            params = [draw(st.sampled_from(EXPRESSIONS)) for _ in range(count)]
            gate = gq.gate(name, *params)
        else:
            arity = draw(st.integers(1, min(3, n)))
            word = "".join(draw(st.lists(st.sampled_from("XYZ"), min_size=arity, max_size=arity)))
            gate = gq.PauliRotation(word, draw(st.sampled_from(EXPRESSIONS)))
        if arity > n:
            continue
        controls = qubits[arity : arity + draw(st.integers(0, min(2, n - arity)))]
        values = [draw(st.integers(0, 1)) for _ in controls]
        at = draw(st.integers(0, len(ops)))
        ops.insert(at, gq.Circuit(n).append(gate, qubits[:arity], controls, values).operations[0])
    return gq.Circuit(n, ops)


def _bound_state(circuit, point, dtype="complex128"):
    """The reference: the circuit bound at ``point`` and run by the generic NumPy routine."""
    bound = circuit.bind(dict(zip(circuit.parameters, point)))
    return gq.simulate(bound, numbers=dtype, backend="numpy").to_numpy()


@settings(max_examples=40)
@given(
    swept_circuit(),
    st.sampled_from(["complex128", "complex64"]),
    st.lists(st.tuples(angles, angles, angles), min_size=1, max_size=5),
)
def test_every_points_state_is_the_bound_circuits(circuit, dtype, points):
    values = np.array(points)[:, : len(circuit.parameters)]
    sweep = sweep_for(circuit, {p: values[:, k] for k, p in enumerate(circuit.parameters)},
                      numbers=dtype)  # fmt: skip
    if not circuit.parameters:
        assert sweep is None  # nothing swept: one run
        return
    assert sweep is not None and sweep.shape == (len(points),)
    states = np.concatenate(list(sweep.chunks()))
    tolerance = 1e-12 if dtype == "complex128" else 2e-5
    for state, point in zip(states, values):
        np.testing.assert_allclose(state, _bound_state(circuit, point, dtype), atol=tolerance)


def test_closed_forms_cover_the_rotations_and_u_goes_point_by_point():
    c = gq.Circuit(3).rx(A, 0).crz(2 * B, 1, 2).rzz(A * B, 0, 2).p(C, 1).u(A, B, C, 2)
    c.pauli_rotation("XYZ", -A, [0, 1, 2])
    plan = SweepPlan.build(c, gq.get_number_system("complex128"), get_backend("numba"))
    assert plan is not None
    closed = {slot.operation.gate.name: slot.closed is not None for slot in plan.slots}
    assert closed == {"rx": True, "rz": True, "rzz": True, "p": True, "u": False,
                      "pauli_rotation": True}  # fmt: skip


def test_the_batched_kernel_builds_equal_one_state_at_a_time():
    """apply_block_run_points in its serial and threaded builds (the switch picks either)
    gives each row what apply_block_run gives that state alone with the row's numbers."""
    rng = np.random.default_rng(3)
    c = gq.Circuit(6)
    for q in range(6):
        c.ry(A * (q + 1), q).rz(B - q, q)
    for q in range(5):
        c.cx(q, q + 1).rzz(C, q, q + 1)
    c.h(3).swap(0, 5).ccx(0, 1, 2)
    backend = get_backend("numba")
    for dtype in (np.complex128, np.complex64):
        plan = SweepPlan.build(c, gq.get_number_system(np.dtype(dtype).name), backend)
        data = plan.numbers_at(rng.uniform(-3, 3, (9, 3)))
        start = rng.normal(size=(9, 64)) + 1j * rng.normal(size=(9, 64))
        arrays, max_dim = backend._encoded(plan.run, np.dtype(dtype))
        scratch = backend._scratch_for(np.dtype(dtype), max_dim)
        expected = start.astype(dtype)
        for row, numbers in zip(expected, data):
            one = BlockRun(plan.run.calls, 6)
            encoded, dim = backend._encoded(one, np.dtype(dtype))
            encoded[7][:] = numbers
            K.SERIAL.apply_block_run(row, np.int64(64), *encoded,
                                     backend._scratch_for(np.dtype(dtype), dim))  # fmt: skip
        for build in (K.SERIAL, K.PARALLEL):
            states = start.astype(dtype)
            build.apply_block_run_points(states, *arrays[:7], data, scratch)
            tolerance = 1e-5 if dtype == np.complex64 else 1e-12
            np.testing.assert_allclose(states, expected, atol=tolerance)


@settings(max_examples=30)
@given(st.integers(1, 6), st.integers(0, 3), st.integers(0, 2**32 - 1))
def test_closed_form_numbers_kernel_builds_equal_the_generic_routine(points, n_extra, seed):
    """The closed-form numbers of a sweep (serial and threaded builds, complex64 and
    complex128 outputs) equal the generic routine's, angles read from the values and from
    the extra columns alike; the entries not written keep their numbers."""
    rng = np.random.default_rng(seed)
    n_values, slots, entries = 3, 5, 12
    values = rng.uniform(-4, 4, (points, n_values))
    extra = rng.uniform(-4, 4, (points, n_extra))
    columns = rng.integers(0, n_values + n_extra, slots).astype(np.int64)
    rates = (rng.normal(size=slots), rng.normal(size=slots))
    d0 = rng.normal(size=entries) + 1j * rng.normal(size=entries)
    d1 = rng.normal(size=entries) + 1j * rng.normal(size=entries)
    where = rng.permutation(20)[:entries].astype(np.int64)
    laid = (rng.integers(0, slots, entries).astype(np.int64), d0, d1, where)
    base = rng.normal(size=(points, 20)) + 1j * rng.normal(size=(points, 20))
    expected = base.copy()
    generic.closed_form_numbers(values, extra, columns, rates, laid, expected)
    theta = np.concatenate([values, extra], axis=1)[:, columns[laid[0]]]
    direct = np.exp(-1j * rates[0][laid[0]] * theta) * (
        np.cos(rates[1][laid[0]] * theta) * d0 + np.sin(rates[1][laid[0]] * theta) * d1
    )
    np.testing.assert_allclose(expected[:, where], direct, atol=1e-12)
    for dtype, tolerance in ((np.complex128, 1e-12), (np.complex64, 1e-5)):
        for build in (K.SERIAL, K.PARALLEL):
            data = base.astype(dtype)
            build.closed_form_numbers(values, extra, columns, *rates, *laid, data)
            np.testing.assert_allclose(data, expected.astype(dtype), atol=tolerance)


@settings(max_examples=30)
@given(st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_pauli_sums_over_many_states_equal_each_states_value(n, seed):
    """The batched strings kernel (serial and threaded builds) and the generic routine give
    every row's ``<X^x Z^z>``, and the sums built from them are each state's own value."""
    rng = np.random.default_rng(seed)
    states = rng.normal(size=(4, 2**n)) + 1j * rng.normal(size=(4, 2**n))
    states /= np.linalg.norm(states, axis=1, keepdims=True)
    terms = []
    for _ in range(rng.integers(1, 6)):
        qubits = rng.permutation(n)[: rng.integers(1, n + 1)]
        word = " ".join(f"{rng.choice(list('XYZ'))}{q}" for q in qubits)
        coeff = rng.normal() + (1j * rng.normal() if rng.random() < 0.3 else 0)
        terms.append(f"({coeff.real!r} + {coeff.imag!r}j)*{word}")
    obs = gq.PauliSum.parse(" + ".join(terms))
    x = rng.integers(0, 2**n, 6)
    z = rng.integers(0, 2**n, 6)
    dense = np.array([[np.vdot(s, _string(n, a, b) @ s) for a, b in zip(x, z)] for s in states])
    np.testing.assert_allclose(generic.pauli_strings_points(states, x, z), dense, atol=1e-12)
    numba_backend = get_backend("numba")
    for build in (K.SERIAL, K.PARALLEL):
        out = np.zeros((4, 6), dtype=np.complex128)
        build.pauli_strings_points(states, x.astype(np.int64), z.astype(np.int64), out)
        np.testing.assert_allclose(out, dense, atol=1e-12)
    ns = gq.get_number_system("complex128")
    found = pauli_sum_values(obs, ns, lambda a, b: numba_backend.pauli_strings_points(states, a, b))
    for state, value in zip(states, found):
        expected = gq.StateVector(state.copy()).expectation(obs)
        assert type(value) is type(expected)
        assert value == pytest.approx(expected, abs=1e-12)


def _string(n, x, z):
    """The matrix of ``X^x Z^z`` on ``n`` qubits, from Kronecker products (qubit 0 last)."""
    X, Z, one = np.array([[0, 1], [1, 0]]), np.diag([1, -1]), np.eye(2)
    out = np.eye(1)
    for q in reversed(range(n)):
        factor = (X if x >> q & 1 else one) @ (Z if z >> q & 1 else one)
        out = np.kron(out, factor)
    return out


def _grid_circuit():
    c = gq.Circuit(4, n_clbits=2).ry(A, 0).cx(0, 1).rzz(B, 1, 2).u(A, B, 0.3, 3).crx(A + B, 3, 0)
    return c.h(2).measure(0, 0).measure(2, 1)


def test_expectation_probabilities_and_counts_equal_the_point_by_point_path():
    """The sweep, the point-by-point path (``fuse=False``, an option a sweep does not take)
    and a thread pool's chunks (each a sweep of its points) give the same values, the same
    distributions and, from the same seed, the same counts (readout errors included)."""
    c = _grid_circuit()
    grid = {A: np.linspace(-1, 2, 3)[:, None], B: np.linspace(0, 3, 4)[None, :]}
    observables = ["Z0 Z1 + 0.5*X2", "Y3", gq.Hermitian(np.diag([1.0, -1.0]), [1])]
    noise = NoiseModel().add_readout_error([[0.9, 0.1], [0.2, 0.8]], 0)
    unmeasured = gq.Circuit(4, c.operations[:-2])
    assert swept_states(c, grid, {"fuse": False}) is None
    with ThreadPoolExecutor(2) as pool:
        for run in (
            lambda **kw: gq.expectation(c, observables, values=grid, **kw),
            lambda **kw: gq.expectation(c, "1j*Z0 + X1", values=grid, **kw),
            lambda **kw: gq.probabilities(c, [3, 1], values=grid, **kw),
            lambda **kw: gq.counts(c, 200, seed=5, readout=noise, values=grid, **kw),
            lambda **kw: gq.counts(unmeasured, 100, seed=2, values=grid, **kw),
        ):
            swept = run()
            for other in (run(fuse=False), run(executor=pool, chunk_size=5)):
                assert swept.shape == other.shape
                if swept.dtype == object:
                    assert swept.tolist() == other.tolist()
                else:
                    np.testing.assert_allclose(swept, other, atol=1e-12)


def test_sweeps_read_as_qiskits_estimator_reads_them():
    from qiskit.primitives import StatevectorEstimator
    from qiskit.quantum_info import SparsePauliOp

    c = gq.Circuit(4).ry(A, 0).cx(0, 1).rzz(B, 1, 2).u(A, B, 0.3, 3).crx(A + B, 3, 0)
    qc = gq.to_qiskit(c)
    a = np.linspace(-1, 2, 5)[:, None]
    b = np.linspace(0, 3, 3)[None, :]
    ours = gq.expectation(c, "Z0 Z1 + 0.5*X2 Y3", values={A: a, B: b})
    bindings = np.stack(np.broadcast_arrays(a, b), axis=-1)  # Qiskit orders them by name
    op = SparsePauliOp.from_list([("IIZZ", 1.0), ("YXII", 0.5)])
    evs = StatevectorEstimator().run([(qc, op, bindings)]).result()[0].data.evs
    np.testing.assert_allclose(ours, evs, atol=1e-12)


def test_chunks_and_threads_give_the_same_values(monkeypatch):
    c = _grid_circuit()
    grid = {A: np.linspace(-1, 2, 7), B: 0.4}
    whole = gq.expectation(c, "Z0 Z1 + X2", values=grid)
    monkeypatch.setattr(sweep_module, "SWEEP_CHUNK_BYTES", 3 * 16 * 16)  # 3 points a chunk
    chunked = gq.expectation(c, "Z0 Z1 + X2", values=grid, threads=1)
    np.testing.assert_allclose(chunked, whole, atol=1e-12)


def test_initial_states_and_complex64_sweeps():
    c = gq.Circuit(2).ry(A, 0).cx(0, 1)
    values = {A: [0.0, np.pi]}
    from_one = gq.expectation(c, "Z0", values=values, initial="01")
    np.testing.assert_allclose(from_one, [-1.0, 1.0], atol=1e-12)
    single = gq.probabilities(c, values=values, numbers="complex64")
    np.testing.assert_allclose(single, [[1, 0, 0, 0], [0, 0, 0, 1]], atol=1e-6)


def test_one_point_is_a_sweep_of_one_that_reads_as_the_bound_circuit():
    """Values without arrays (an optimiser's loop) run as a sweep of one point: the same
    state as the bound circuit (generic NumPy routine), and expectation, probabilities and
    counts of the same types and values as the bound circuit's, counts drawn from the same
    seed as the bound circuit's draws."""
    c = _grid_circuit()
    point = {A: 0.7, "b": -1.1}
    bound = c.bind(point)
    sweep = sweep_for(c, point)
    assert sweep is not None and sweep.shape == ()
    (state,) = sweep.states()
    reference = gq.simulate(gq.Circuit(4, bound.operations[:-2]), backend="numpy")
    np.testing.assert_allclose(state.to_numpy(), reference.to_numpy(), atol=1e-12)
    for observable in ("Z0 Z1 + 0.5*X2", ["Y3", "X0 X1 X2 X3"]):
        swept = gq.expectation(c, observable, values=point, light_cone=False)
        alone = gq.expectation(bound, observable, light_cone=False)
        assert type(swept) is type(alone)
        np.testing.assert_allclose(swept, alone, atol=1e-12)
    swept_p = gq.probabilities(c, [3, 1], values=point)
    assert swept_p.shape == (4,)
    np.testing.assert_allclose(swept_p, gq.probabilities(bound, [3, 1]), atol=1e-12)
    noise = NoiseModel().add_readout_error([[0.9, 0.1], [0.2, 0.8]], 0)
    assert gq.counts(c, 300, seed=4, readout=noise, values=point) == gq.counts(
        bound, 300, seed=4, readout=noise
    )


def test_one_point_keeps_light_cones_narrower_than_the_circuit():
    """A point whose terms' light cones are narrower than the circuit is run on the cones
    (smaller states), a point whose cones span the circuit as a sweep of one: both give
    the value of the bound circuit run whole."""
    c = gq.Circuit(6).ry(A, 0).ry(B, 5).cx(0, 1).rzz(C, 4, 5)
    point = {A: 0.3, B: 1.2, C: -0.8}
    whole = gq.simulate(c.bind(point), backend="numpy")
    for observable in ("Z0 Z1", "Z0 Z1 + X4 + Z2", ["X5", "Z1"]):
        expected = (
            [whole.expectation(o) for o in observable]
            if isinstance(observable, list) else whole.expectation(observable)
        )  # fmt: skip
        np.testing.assert_allclose(gq.expectation(c, observable, values=point), expected,
                                   atol=1e-12)  # fmt: skip


def test_a_bound_circuit_runs_on_its_templates_plan(monkeypatch):
    """``simulate(template.bind(point))`` runs the template's sweep plan at the point: the
    generic routine's state, on the backend and with the options a plain run has; a bound
    circuit that grew since, one whose template grew, one unpickled and runs with options a
    sweep does not take go the plain way, with their own operations."""
    import pickle

    from genqsim.states import swept

    template = gq.Circuit(5).ry(A, 0).cx(0, 1).rzz(B, 1, 2).u(A, B, 0.3, 3).crx(A + B, 3, 0)
    template.pauli_rotation("XYZ", C - A, [2, 3, 4]).h(4)
    point = {A: 0.4, B: -1.3, C: 2.2}
    plain = []
    real_run = swept.run_statevector
    monkeypatch.setattr(swept, "run_statevector", lambda r: plain.append(1) or real_run(r))

    def run(circuit, **options):
        """The state of ``simulate`` and whether it ran the plain way."""
        plain.clear()
        state = gq.simulate(circuit, **options)
        return state, bool(plain)

    for numbers, tolerance in (("complex128", 1e-12), ("complex64", 2e-6)):
        bound = template.bind(point)
        state, was_plain = run(bound, numbers=numbers, initial="00101", threads=1)
        assert not was_plain
        reference = gq.simulate(bound, numbers=numbers, initial="00101", backend="numpy")
        np.testing.assert_allclose(state.to_numpy(), reference.to_numpy(), atol=tolerance)
        assert state.numbers.name == numbers and state.options.threads == 1
        fused, was_plain = run(bound, numbers=numbers, fuse=2)
        assert was_plain and type(state.backend) is type(fused.backend)
        from_zero, was_plain = run(bound, numbers=numbers)
        assert not was_plain and type(from_zero.backend) is type(fused.backend)
        reference = gq.simulate(bound, numbers=numbers, backend="numpy")
        np.testing.assert_allclose(from_zero.to_numpy(), reference.to_numpy(), atol=tolerance)
    grown = template.bind(point).x(2)
    also_grown_template = template.bind(point)
    unpickled = pickle.loads(pickle.dumps(template.bind(point)))
    template.x(1)  # the template grows: its plan no longer describes the bound circuit
    for circuit in (grown, unpickled, also_grown_template):
        expected = gq.simulate(circuit, backend="numpy").to_numpy()
        state, was_plain = run(circuit)
        assert was_plain
        np.testing.assert_allclose(state.to_numpy(), expected, atol=1e-12)


def test_an_optimisers_loop_reads_points_from_a_kept_reader():
    """One point at a time goes through a reader kept on the template: the value of the
    bound circuit run whole by the generic routine, for the whole circuit and for light
    cones (a cone without parameters included), lists of observables, a start other than
    zero, complex64, names as keys; the same reader for the same arguments, a new one
    after the template grows; mistakes explained as the general path explains them."""
    from genqsim.errors import NonFiniteError, UnboundParameterError, UnknownParameterError
    from genqsim.states.point_reader import point_reader

    c = _local_circuit(8)
    observables = ["Z0 Z1 + 0.5*X3", "X7 + Z2 Z3", gq.PauliSum.parse("Y4 Y5")]
    rng = np.random.default_rng(5)
    for options in ({}, {"initial": "00010110"}, {"numbers": "complex64"},
                    {"light_cone": False, "threads": 1}):  # fmt: skip
        tolerance = 2e-6 if options.get("numbers") == "complex64" else 1e-12
        for _ in range(3):
            point = {A: float(rng.normal()), B: float(rng.normal()), C: float(rng.normal())}
            found = gq.expectation(c, observables, values=point, **options)
            start = options.get("initial")
            state = gq.simulate(c.bind(point), backend="numpy", initial=start)
            expected = [state.expectation(o) for o in observables]
            np.testing.assert_allclose(found, expected, atol=tolerance)
            named = gq.expectation(c, "X7 + Z2 Z3", values={str(k): v for k, v in point.items()},
                                   **options)  # fmt: skip
            assert named == pytest.approx(expected[1], abs=tolerance)
    settings_ = {"numbers": None, "backend": None, "initial": None, "method": "auto"}
    reader = point_reader(c, "Z0 Z1", settings_, True)
    assert reader is not None and point_reader(c, "Z0 Z1", settings_, True) is reader
    wide = _local_circuit(20)  # no sweep of the whole: the reader sweeps the cones
    on_wide = ["Z0 Z1 + 0.5*X3", "X19 + Z2 Z3", gq.PauliSum.parse("Y10 Y11")]
    cones = point_reader(wide, on_wide, settings_, True)
    assert cones is not None and len(cones.parts) > 1 and cones.fixed[1] is not None
    point = {A: -0.4, B: 1.1, C: 0.6}
    state = gq.simulate(wide.bind(point), backend="numba")
    np.testing.assert_allclose(gq.expectation(wide, on_wide, values=point),
                               [state.expectation(o) for o in on_wide], atol=1e-12)  # fmt: skip
    point = {A: 0.3, B: 0.2, C: 0.1}
    before = gq.expectation(c, "Z0", values=point)
    c.x(0)
    assert point_reader(c, "Z0 Z1", settings_, True) is not reader
    assert gq.expectation(c, "Z0", values=point) == pytest.approx(-before, abs=1e-12)
    with pytest.raises(UnboundParameterError):
        gq.expectation(c, "Z0", values={A: 0.3, B: 0.2})
    with pytest.raises(UnknownParameterError):
        gq.expectation(c, "Z0", values={A: 0.3, B: 0.2, C: 0.1, "nosuch": 1.0})
    with pytest.raises(NonFiniteError):
        gq.expectation(c, "Z0", values={A: 0.3, B: float("nan"), C: 0.1})


def _local_circuit(n):
    """Rotations and neighbouring entanglers on ``n`` qubits, with cones of a few qubits:
    ``A`` on the low half, ``B`` on the high half, qubit ``n - 1`` fixed."""
    c = gq.Circuit(n)
    for q in range(n - 1):
        c.ry(A * (q + 1) if q < n // 2 else B - 0.1 * q, q)
    c.h(n - 1)
    for q in range(0, n - 2, 2):
        c.cx(q, q + 1)
    for q in range(n - 1):
        c.rz(C if q % 3 == 0 else 0.2 * q, q)
    return c


def test_sweeps_over_light_cones_equal_each_bound_circuit_run_whole():
    """Terms with narrow light cones are swept on their cones: at 20 qubits (wider than a
    sweep of the whole circuit serves), over broadcast arrays where a cone holds only some
    of the parameters, with a cone without parameters (run once) and complex coefficients,
    every value is the bound circuit's run whole by the Numba state vector."""
    from genqsim.states.expectations import _swept_expectations

    n = 20
    c = _local_circuit(n)
    a, b = np.linspace(-1, 2, 3)[:, None], np.linspace(0, 3, 2)[None, :]
    values = {A: a, B: b, "c": 0.4}
    observables = ["Z0 Z1 + 0.5*X3", "X19 + 1j*Z12", "Y10 Y11"]
    options = {"numbers": None, "backend": None, "initial": None, "method": "auto"}
    assert _swept_expectations(c, observables, values, options, True) is not None
    swept = gq.expectation(c, observables, values=values)
    assert swept.shape == (3, 2, 3)
    for i, j in np.ndindex(3, 2):
        point = {A: float(a[i, 0]), B: float(b[0, j]), C: 0.4}
        state = gq.simulate(c.bind(point), backend="numba")
        expected = [state.expectation(o) for o in observables]
        np.testing.assert_allclose(swept[i, j], expected, atol=1e-12)
    one = gq.expectation(c, "X19 + 1j*Z12", values={A: 0.3, B: -0.2, C: 1.0})
    state = gq.simulate(c.bind({A: 0.3, B: -0.2, C: 1.0}), backend="numba")
    assert one == pytest.approx(state.expectation("X19 + 1j*Z12"), abs=1e-12)


def test_cones_are_swept_where_they_cost_less_than_the_whole_circuit(monkeypatch):
    """A circuit a sweep of the whole serves goes to its cones where they update fewer
    amplitudes (:data:`CONE_GROUP_WORK` a group), to the whole circuit otherwise; the same
    values either way, and from a basis state other than zero."""
    from genqsim.states import cones as cone_module
    from genqsim.states import expectations as E

    c = _local_circuit(12)
    values = {A: np.linspace(0, 1, 4), B: 0.3, C: -0.5}
    chosen = []
    real = E._swept_cones
    monkeypatch.setattr(E, "_swept_cones", lambda *a: chosen.append(1) or real(*a))
    cones = gq.expectation(c, "Z0 Z1 + X5", values=values, initial="000000010011")
    assert chosen
    chosen.clear()
    monkeypatch.setattr(cone_module, "CONE_GROUP_WORK", 1 << 40)
    whole = gq.expectation(c, "Z0 Z1 + X5", values=values, initial="000000010011")
    assert not chosen
    np.testing.assert_allclose(cones, whole, atol=1e-12)
    for k, x in enumerate(values[A]):
        bound = c.bind({A: float(x), B: 0.3, C: -0.5})
        state = gq.simulate(bound, backend="numpy", initial="000000010011")
        assert cones[k] == pytest.approx(state.expectation("Z0 Z1 + X5"), abs=1e-12)


@pytest.mark.parametrize(
    "circuit, options",
    [
        (gq.Circuit(2).ry(A, 0).measure(0, 0).cx(0, 1), {}),  # a mid-circuit measurement
        (gq.Circuit(2).ry(A, 0), {"numbers": "sympy"}),
        (gq.Circuit(2).ry(A, 0), {"backend": "numpy"}),
        (gq.Circuit(2).ry(A, 0), {"options": {"fuse": 2}}),
        (gq.Circuit(20).ry(A, 0), {}),  # wider than one block
        (gq.Circuit(2).ry(A, 0), {"values": {A: [1, np.nan]}}),  # not a finite value
        (gq.Circuit(2).ry(A, 0).rz(B, 1), {"values": {A: [1, 2]}}),  # an unbound parameter
        (gq.Circuit(2).ry(A, 0), {"values": {A: [1, 2], "nosuch": 1}}),
        (gq.Circuit(2).ry(A, 0), {"values": {A: [1j, 2]}}),
        (gq.Circuit(2).ry(sympy.sqrt(A), 0), {"values": {A: [1, -1]}}),  # a complex angle
    ],
)
def test_sweeps_a_plan_does_not_serve_go_point_by_point(circuit, options):
    options = dict(options)
    values = options.pop("values", {A: [0.1, 0.2]})
    assert sweep_for(circuit, values, **options) is None


def test_mistakes_in_a_sweep_get_the_point_by_point_errors():
    c = gq.Circuit(2).ry(A, 0).rz(B, 1)
    with pytest.raises(gq.UnknownParameterError):
        gq.expectation(c, "Z0", values={A: [1, 2], B: 0.1, "nosuch": [1, 2]})
    with pytest.raises(gq.UnboundParameterError):
        gq.expectation(c, "Z0 + X1", values={A: [1, 2]})
    with pytest.raises(gq.NonFiniteError):
        gq.expectation(c, "Z0", values={A: [1, np.inf], B: 0.1})
    with pytest.raises(gq.ArgumentValueError, match="do not broadcast together"):
        gq.expectation(c, "Z0", values={A: [1, 2, 3], B: [1, 2]})
    with pytest.raises(gq.QubitIndexError):
        gq.expectation(c, "Z5", values={A: [1, 2], B: 0.1})


def test_methods_without_a_sweep_run_every_point():
    """A named method other than the state vector, and a noisy circuit that "auto" runs as
    a density matrix, have no sweep: their points run one by one, with their own values."""
    from genqsim.circuit import channels

    c = gq.Circuit(2).ry(A, 0).cx(0, 1)
    values = {A: np.array([0.3, 1.1])}
    assert swept_states(c, values, {"method": "density_matrix"}) is None
    assert swept_states(c, values, {"method": "statevector"}) is not None
    noisy = gq.Circuit(2).ry(A, 0).cx(0, 1).append(channels.depolarizing(0.2), [0])
    assert swept_states(noisy, values, {}) is None
    found = gq.expectation(noisy, "Z0 Z1", values=values)
    # <Z0 Z1> = 1 before the channel; X and Y errors (p/3 each) flip it: 1 - 4p/3
    np.testing.assert_allclose(found, [1 - 4 * 0.2 / 3] * 2, atol=1e-12)


def test_a_sweep_of_more_parameters_than_numpy_broadcasts_at_once():
    """100 swept parameters (``np.broadcast`` takes at most 64 arrays): the sweep and the
    point-by-point path both take them."""
    thetas = gq.parameters(" ".join(f"t{k}" for k in range(100)))
    c = gq.Circuit(4)
    for k, t in enumerate(thetas):
        c.ry(t, k % 4)
    table = np.random.default_rng(2).uniform(-3, 3, (3, 100))
    values = {t: table[:, k] for k, t in enumerate(thetas)}
    expected = [np.cos(table[:, q::4].sum(axis=1)) for q in range(4)]  # RYs on a qubit add up
    found = gq.expectation(c, ["Z0", "Z1", "Z2", "Z3"], values=values)
    np.testing.assert_allclose(found, np.array(expected).T, atol=1e-12)
    with ThreadPoolExecutor(1) as pool:
        pooled = gq.expectation(c, ["Z0", "Z1", "Z2", "Z3"], values=values, executor=pool)
    np.testing.assert_allclose(pooled, found, atol=1e-12)


@pytest.mark.parametrize("points", [3, 600])  # the kernels' serial and threaded builds
def test_gradients_over_parameter_arrays_run_all_points_at_once(points):
    """The planned adjoint sweep run on every point at once gives each point's value and
    gradient as the sweep at that point alone does, and central differences agree."""
    from genqsim.differentiation.adjoint import AdjointProgram
    from genqsim.differentiation.gradients import value_and_gradient

    c = gq.Circuit(6)
    for q in range(6):
        c.ry(A * (q + 1), q).rz(B - q, q).rx(0.3, q)
    for q in range(5):
        c.cx(q, q + 1).crz(C, q + 1, q)
    c.p(2 * A + B, 3).h(2)
    observable = "Z0 Z1 + 0.5*X2 Y3 - 0.25*Y5"
    table = np.random.default_rng(points).uniform(-3, 3, (points, 3))
    values = {A: table[:, 0], B: table[:, 1], C: table[:, 2]}
    calls = []
    original = AdjointProgram.run_points

    def counted(self, parameters, terms):
        calls.append(len(parameters))
        return original(self, parameters, terms)

    AdjointProgram.run_points = counted
    try:
        energies, grads = value_and_gradient(c, observable, values)
    finally:
        AdjointProgram.run_points = original
    assert calls == [points]  # one batched run
    for k in list(range(points))[:: max(1, points // 5)]:
        point = {A: table[k, 0], B: table[k, 1], C: table[k, 2]}
        energy, grad = value_and_gradient(c, observable, point)
        assert energies[k] == pytest.approx(energy, abs=1e-10)
        for p in (A, B, C):
            assert grads[p][k] == pytest.approx(grad[p], abs=1e-10)
            step = {**point, p: point[p] + 1e-6}, {**point, p: point[p] - 1e-6}
            difference = (gq.expectation(c, observable, values=step[0])
                          - gq.expectation(c, observable, values=step[1])) / 2e-6  # fmt: skip
            assert grads[p][k] == pytest.approx(difference, abs=1e-6)
