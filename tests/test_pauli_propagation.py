"""Pauli propagation (``gq.heisenberg``, ``method="pauli"``) and light cones, against
independent references: density matrices and state vectors on random circuits (hypothesis),
the trig state vector exactly, the closed form of QAOA p=1 on triangle-free graphs (Wang,
Hadfield, Jiang, Rieffel, PRA 97, 022304 (2018)), finite differences, and light-cone state
vectors of 100-qubit circuits."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim.backends import ReferencePauliPropagator, get_backend
from genqsim.linalg import packed_paulis
from genqsim.pauli_propagation import propagation

from strategies import random_circuit

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


def _noisy(circuit: gq.Circuit, rng: np.random.Generator) -> gq.Circuit:
    """``circuit`` with channels, resets and mid-circuit measurements (each followed by an
    RX(0.7), so it stays mid-circuit: the density matrix counts a measurement whose later
    gates fuse to the identity as terminal) sprinkled in."""
    out = gq.Circuit(circuit.n_qubits)
    for op in circuit.operations:
        out.append(op.gate, op.targets, op.controls, op.control_values)
        r, q = rng.random(), int(rng.integers(circuit.n_qubits))
        if r < 0.15:
            out.depolarizing(0.1, q)
        elif r < 0.25:
            out.amplitude_damping(0.2, q)
        elif r < 0.3:
            out.reset(q)
        elif r < 0.35:
            out.measure(q).rx(0.7, q)
    return out


def _random_observable(n: int, rng: np.random.Generator, terms: int = 3) -> str:
    out = []
    for _ in range(terms):
        word = " ".join(f"{p}{q}" for q in range(n) if (p := rng.choice(list("IXYZ"))) != "I")
        out.append(f"{rng.normal():.3f}*({word or 'I0'})")
    return " + ".join(out)


@SETTINGS
@given(random_circuit(n_max=6), st.integers(0, 2**31))
def test_equals_the_density_matrix_on_random_noisy_circuits(circuit, seed):
    rng = np.random.default_rng(seed)
    c = _noisy(circuit, rng)
    obs = _random_observable(c.n_qubits, rng)
    expected = gq.simulate(c, method="density_matrix").expectation(obs)
    assert gq.heisenberg(c, obs).value == pytest.approx(expected, abs=1e-10)


@SETTINGS
@given(random_circuit(n_max=5), st.integers(0, 2**31))
def test_the_reference_and_the_compiled_propagator_give_the_same_strings(circuit, seed):
    rng = np.random.default_rng(seed)
    obs = _random_observable(circuit.n_qubits, rng)
    compiled = gq.heisenberg(circuit, obs)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            propagation, "_propagator", lambda ns, backend, device: ReferencePauliPropagator()
        )
        reference = gq.heisenberg(circuit, obs)
    assert compiled.value == pytest.approx(reference.value, abs=1e-12)
    mine = {(x, z): c for c, x, z in compiled._terms()}
    theirs = {(x, z): c for c, x, z in reference._terms()}
    assert mine.keys() == theirs.keys()
    assert all(abs(mine[k] - theirs[k]) < 1e-12 for k in mine)


class DeviceArray(np.ndarray):
    """An array as a GPU module keeps it: NumPy's functions refuse it (``np.asarray``,
    ``np.unique``, ...), as they refuse a CuPy array, so a routine that slips off its array
    module fails here; ``get()`` copies it to the host."""

    def __array_function__(self, func, types, args, kwargs):  # type: ignore[no-untyped-def]
        raise TypeError(f"NumPy's {func.__name__} was called on a device array")

    def get(self) -> np.ndarray:
        return np.asarray(self.view(np.ndarray))


class DeviceModule:
    """The functions the packed routines may call, as CuPy has them, on :class:`DeviceArray`
    (each unwraps its arguments, runs NumPy's function, and wraps its result)."""

    uint64, int64, float64 = np.uint64, np.int64, np.float64
    NAMES = (
        "zeros ones arange asarray cumsum searchsorted lexsort stack any bincount argsort abs "
        "sum sort argpartition"
    ).split()

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        if name not in self.NAMES:
            raise AttributeError(f"the device module has no {name!r} here")
        function = getattr(np, name)

        def host(a):  # type: ignore[no-untyped-def]
            if isinstance(a, (list, tuple)):
                return type(a)(map(host, a))
            return a.get() if isinstance(a, DeviceArray) else a

        def on_device(*args, **kwargs):  # type: ignore[no-untyped-def]
            out = function(*map(host, args), **{k: host(v) for k, v in kwargs.items()})
            return out.view(DeviceArray) if isinstance(out, np.ndarray) else out

        return on_device


class DevicePropagator(ReferencePauliPropagator):
    def pauli_namespace(self):  # type: ignore[no-untyped-def]
        return DeviceModule()


@SETTINGS
@given(random_circuit(n_max=5), st.integers(0, 2**31))
def test_the_packed_routines_run_on_a_device_array_module(circuit, seed):
    """The GPU propagator's routines (the reference ones, on CuPy's arrays) run on arrays
    that only their own module may touch, and give the compiled propagator's strings."""
    rng = np.random.default_rng(seed)
    obs = _random_observable(circuit.n_qubits, rng)
    compiled = gq.heisenberg(circuit, obs, max_terms=6)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(propagation, "_propagator", lambda ns, backend, dev: DevicePropagator())
        on_device = gq.heisenberg(circuit, obs, max_terms=6)
    assert on_device.value == pytest.approx(compiled.value, abs=1e-12)
    assert on_device.truncated_weight == pytest.approx(compiled.truncated_weight, abs=1e-12)
    mine = {(x, z): c for c, x, z in on_device._terms()}
    theirs = {(x, z): c for c, x, z in compiled._terms()}
    assert mine.keys() == theirs.keys()
    assert all(abs(mine[k] - theirs[k]) < 1e-12 for k in mine)


def test_merge_keeps_first_appearance_order_and_sums():
    rows = packed_paulis.pack([(1, 0), (0, 2), (1, 0), (3, 1), (0, 2), (1, 0)], 70)
    strings, coefficients = packed_paulis.merge(rows, np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
    assert packed_paulis.unpack(strings) == [(1, 0), (0, 2), (3, 1)]
    assert coefficients.tolist() == [10.0, 7.0, 4.0]


def test_method_pauli_on_a_gpu_needs_one():
    """``device="gpu"`` propagates in GPU memory where CuPy sees a device (the GPU tests
    compare it with the CPU), and is refused by name where none is."""
    from genqsim.backends import available_backends

    c = gq.library.random_circuit(6, 3, seed=4)
    if "cupy" in available_backends():
        state = gq.simulate(c, method="pauli", device="gpu")
        assert state.expectation("Z0 Z1") == pytest.approx(
            gq.simulate(c).expectation("Z0 Z1"), abs=1e-12
        )
    else:
        with pytest.raises(gq.UnknownBackendError, match="no backend for device 'gpu'"):
            gq.simulate(c, method="pauli", device="gpu")


def test_the_compiled_backend_declares_the_propagator():
    from genqsim.backends import PauliPropagator, capability

    assert capability(get_backend("numba"), PauliPropagator) is not None


@pytest.mark.parametrize("n_qubits", [3, 4])
def test_trig_closed_forms_equal_the_trig_state_vector_exactly(n_qubits):
    a, b, c = gq.parameters("a b c")
    circuit = gq.Circuit(n_qubits).h(0).ry(a, 0).cx(0, 1).rzz(b, 1, 2).rx(2 * c, 2)
    circuit.t(1).cz(0, 2).ry(a - b, n_qubits - 1).s(0).cx(2, 0)
    for obs in ["Z0 Z1", "X0 Y2 + Z1", f"Y{n_qubits - 1} X0"]:
        expected = gq.simulate(circuit, numbers="trig").expectation(obs)
        got = gq.heisenberg(circuit, obs, numbers="trig")
        assert got.value == expected  # canonical forms: equal exactly, no simplification
        assert sympy.simplify(got.closed_form - expected.to_sympy()) == 0


def test_symbolic_gates_outside_the_cos_sin_form_fall_back_to_trig_numbers():
    a, b = gq.parameters("a b")
    circuit = gq.Circuit(2).u(a, b, 0, 0).cx(0, 1).rx(a, 1)  # u: entries not rational
    expected = gq.simulate(circuit, numbers="trig").expectation("Z1 + X0 X1")
    result = gq.heisenberg(circuit, "Z1 + X0 X1", numbers="trig")
    assert result.value == expected


def test_sympy_numbers_give_the_same_closed_form():
    a, b = gq.parameters("a b")
    circuit = gq.Circuit(3).ry(a, 0).cx(0, 1).rx(b, 1).cx(1, 2).h(2)
    got = gq.heisenberg(circuit, "X2 + Z0 Z1", numbers="sympy").value
    expected = gq.simulate(circuit, numbers="sympy").expectation("X2 + Z0 Z1")
    assert sympy.simplify(got - expected) == 0


def _regular3(n: int, seed: int) -> list[tuple[int, int]]:
    rng = np.random.default_rng(seed)
    while True:
        stubs = np.repeat(np.arange(n), 3)
        rng.shuffle(stubs)
        edges = {tuple(sorted(e)) for e in stubs.reshape(-1, 2).tolist()}
        if len(edges) == 3 * n // 2 and all(a != b for a, b in edges):
            return sorted(edges)


def _triangle_free_edge(edges):
    nbrs: dict[int, set[int]] = {}
    for a, b in edges:
        nbrs.setdefault(a, set()).add(b)
        nbrs.setdefault(b, set()).add(a)
    for u, v in edges:
        if not nbrs[u] & nbrs[v]:
            return u, v, len(nbrs[u]) - 1, len(nbrs[v]) - 1
    raise AssertionError("no edge outside a triangle")


@pytest.mark.parametrize("n", [10, 100])
def test_qaoa_p1_matches_the_triangle_free_closed_form(n):
    edges = _regular3(n, 7)
    u, v, du, dv = _triangle_free_edge(edges)
    circuit = gq.library.qaoa_maxcut(edges, 1)
    result = gq.heisenberg(circuit, f"Z{u} Z{v}", numbers="trig")
    gamma, beta = sympy.Symbol("gamma0", real=True), sympy.Symbol("beta0", real=True)
    # Wang et al., no triangles: <C_uv> = 1/2 + sin(4b) sin(g) (cos^du g + cos^dv g) / 4
    cut = (
        sympy.Rational(1, 2)
        + sympy.sin(4 * beta)
        * sympy.sin(gamma)
        * (sympy.cos(gamma) ** du + sympy.cos(gamma) ** dv)
        / 4
    )
    expected = 1 - 2 * cut  # <Z_u Z_v> = 1 - 2 <C_uv>
    assert sympy.simplify(sympy.expand_trig(result.closed_form - expected)) == 0
    if n <= 14:
        sv = gq.simulate(circuit, numbers="trig").expectation(f"Z{u} Z{v}")
        assert result.value == sv


def test_dual_coefficients_give_gradients_equal_to_finite_differences():
    a, b = gq.parameters("a b")
    c = gq.Circuit(40)
    for q in range(40):
        c.ry(a, q)
    for q in range(39):
        c.rzz(b, q, q + 1)
    c.depolarizing(0.02, 20)
    values = {a: 0.4, b: -0.9}
    grad = gq.gradient(c, "Z20 + X19 X20", values, mode="pauli")
    h = 1e-6
    for p in (a, b):
        up = gq.heisenberg(c.bind({**values, p: values[p] + h}), "Z20 + X19 X20").value
        down = gq.heisenberg(c.bind({**values, p: values[p] - h}), "Z20 + X19 X20").value
        assert grad[p] == pytest.approx((up - down) / (2 * h), abs=1e-7)


def test_uncertain_coefficients_propagate():
    unc = pytest.importorskip("uncertainties")
    theta = unc.ufloat(0.3, 0.01)
    c = gq.Circuit(30).ry(theta, 0).cx(0, 29)
    ns = gq.get_number_system("uncertain")
    value = gq.heisenberg(c, "Z0 Z29", numbers="uncertain").value
    assert ns.to_complex(value) == pytest.approx(1.0)
    x = gq.heisenberg(c, "X0 X29", numbers="uncertain").value
    assert x.nominal_value == pytest.approx(np.sin(0.3))
    assert x.std_dev == pytest.approx(np.cos(0.3) * 0.01, rel=1e-9)


@SETTINGS
@given(random_circuit(n_min=3, n_max=6), st.integers(0, 2**31), st.sampled_from([0.02, 0.1, 0.3]))
def test_the_truncated_weight_bounds_the_error(circuit, seed, cutoff):
    rng = np.random.default_rng(seed)
    obs = _random_observable(circuit.n_qubits, rng, terms=4)
    exact = gq.simulate(circuit).expectation(obs)
    for options in ({"min_abs_coeff": cutoff}, {"max_terms": 3}, {"max_weight": 2}):
        r = gq.heisenberg(circuit, obs, **options)
        assert abs(r.value - exact) <= r.truncated_weight + 1e-9
        if r.truncated_weight == 0:
            assert r.value == pytest.approx(exact, abs=1e-10)


def _kicked_ising(n: int, steps: int, theta: float) -> gq.Circuit:
    c = gq.Circuit(n)
    for _ in range(steps):
        for q in range(n):
            c.rx(theta, q)
        for q in range(0, n - 1, 2):
            c.rzz(-np.pi / 2, q, q + 1)
        for q in range(1, n - 1, 2):
            c.rzz(-np.pi / 2, q, q + 1)
    return c


def test_a_100_qubit_circuit_equals_its_light_cone_state_vector():
    c = _kicked_ising(100, 5, 0.7)
    cone = c.light_cone([50])
    assert cone.size <= 22
    exact = gq.simulate(cone.compact(), method="statevector").expectation(
        f"Z{cone.qubits.index(50)}"
    )
    assert gq.heisenberg(c, "Z50").value == pytest.approx(exact, abs=1e-10)
    assert gq.expectation(c, "Z50", method="pauli") == pytest.approx(exact, abs=1e-10)
    assert gq.expectation(c, "Z50") == pytest.approx(exact, abs=1e-10)  # light cone, statevector


def test_method_pauli_reads_probabilities_and_samples():
    c = gq.Circuit(3).h(0).cx(0, 1).ry(0.4, 2).depolarizing(0.1, 1)
    state = gq.simulate(c, method="pauli")
    assert state.method == "pauli"
    expected = gq.simulate(c, method="density_matrix").probabilities([0, 2])
    assert np.allclose(state.probabilities([0, 2]), expected, atol=1e-12)
    counts = state.sample(4000, seed=3, qubits=[0, 1])
    p = gq.simulate(c, method="density_matrix").probabilities([0, 1])
    for outcome in range(4):
        seen = counts.get(format(outcome, "02b"), 0) / 4000
        assert abs(seen - p[outcome]) <= 5 * np.sqrt(p[outcome] * (1 - p[outcome]) / 4000) + 1e-9
    assert gq.expectation(c, "Z0 Z1 + X2", method="pauli") == pytest.approx(
        gq.simulate(c, method="density_matrix").expectation("Z0 Z1 + X2"), abs=1e-12
    )
    assert state.truncated_weight == 0.0


def test_a_collapsed_state_reads_the_post_measurement_values():
    c = gq.Circuit(3).h(0).cx(0, 1).ry(0.7, 2).cx(2, 0)
    pauli, dense = gq.simulate(c, method="pauli"), gq.simulate(c)
    outcome = pauli.measure([0], seed=5)
    dense._collapse((0,), int(outcome))
    for obs in ("Z1", "X2 Z0", "Z0 Z1 + 0.5*Y2"):
        assert pauli.expectation(obs) == pytest.approx(dense.expectation(obs), abs=1e-12)
    pauli.apply(gq.Circuit(3).h(1))
    dense.apply(gq.Circuit(3).h(1))
    assert pauli.expectation("X1 Z2") == pytest.approx(dense.expectation("X1 Z2"), abs=1e-12)


def test_initial_basis_states():
    c = gq.Circuit(3).cx(0, 1).h(2)
    for initial in ("011", 5):
        got = gq.heisenberg(c, "Z0 + Z1 + X2 + Z2", initial=initial).value
        assert got == pytest.approx(
            gq.simulate(c, initial=initial).expectation("Z0 + Z1 + X2 + Z2")
        )


def test_light_cone_of_a_circuit():
    c = gq.Circuit(5).h(0).cx(0, 1).cx(2, 3).measure(4, 0).if_(0, 1, gq.Circuit(5).x(3))
    cone = c.light_cone([3])
    assert cone.qubits == (2, 3, 4)  # the conditional brings in the measurement of qubit 4
    assert len(cone.indices) == 3
    assert c.light_cone(1).qubits == (0, 1)


@SETTINGS
@given(random_circuit(n_min=2, n_max=7), st.integers(0, 2**31))
def test_light_cone_expectations_equal_the_whole_circuit(circuit, seed):
    rng = np.random.default_rng(seed)
    obs = _random_observable(circuit.n_qubits, rng)
    whole = gq.expectation(circuit, obs, light_cone=False)
    assert gq.expectation(circuit, obs) == pytest.approx(whole, abs=1e-10)
    assert gq.expectation(circuit, obs, method="density_matrix") == pytest.approx(whole, abs=1e-10)


def test_light_cones_keep_exact_numbers_exact():
    (a,) = gq.parameters("a")
    c = gq.Circuit(6).ry(a, 0).cx(0, 1).h(4).cx(4, 5)
    got = gq.expectation(c, "Z1 + X4 X5", numbers="trig")
    assert got == gq.expectation(c, "Z1 + X4 X5", numbers="trig", light_cone=False)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda c: gq.heisenberg(c, "Z7"), gq.QubitIndexError),
        (lambda c: gq.heisenberg(c, "Z0", max_terms=0), gq.ArgumentValueError),
        (lambda c: gq.heisenberg(c, "Z0", min_abs_coeff=-1.0), gq.ArgumentValueError),
        (lambda c: gq.heisenberg(c, "Z0", max_weight=1.5), gq.ArgumentValueError),
        (
            lambda c: gq.heisenberg(c, "Z0", numbers="trig", min_abs_coeff=0.1),
            gq.ArgumentValueError,
        ),
        (lambda c: gq.heisenberg(c, "Z0", initial=np.ones(8)), gq.ArgumentTypeError),
        (lambda c: gq.heisenberg(c, "Z0", initial="01"), gq.ArgumentValueError),
        (lambda c: gq.simulate(c, method="pauli", max_bond=3), gq.UnknownOptionError),
        (
            lambda c: gq.simulate(c, method="pauli", device="gpu", numbers="trig"),
            gq.NumberTypeError,
        ),
        (lambda c: gq.heisenberg(c, "Z0", numbers="sympy", device="gpu"), gq.NumberTypeError),
        (
            lambda c: gq.heisenberg(
                gq.Circuit(3).measure(0).if_(0, 1, gq.Circuit(3).x(1)).h(1), "Z1"
            ),
            gq.UnsupportedOperationError,
        ),
    ],
)
def test_bad_input_gets_typed_errors(call, error):
    with pytest.raises(error):
        call(gq.Circuit(3).h(0).cx(0, 1))


def test_the_command_line_prints_closed_forms(capsys):
    from genqsim.cli.main import main

    assert main(["expect", "qaoa-ring:6:1", "Z0 Z1", "--numbers", "trig",
                 "--bind", "gamma0=0.3", "--bind", "beta0=0.2"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    closed = sympy.sympify(out.split("value: ")[1].splitlines()[0])
    ring = gq.library.qaoa_ring(6, 1).bind({"gamma0": 0.3, "beta0": 0.2})
    expected = gq.expectation(ring, "Z0 Z1", light_cone=False)
    assert float(out.split("value at bindings: ")[1].split()[0]) == pytest.approx(expected)
    g, b = sympy.symbols("gamma0 beta0", real=True)
    assert float(
        closed.subs({sympy.Symbol("gamma0"): 0.3, sympy.Symbol("beta0"): 0.2}).evalf(
            subs={g: 0.3, b: 0.2}
        )
    ) == pytest.approx(expected)
    assert main(["expect", "qaoa-ring:6:1", "Z0 Z1", "--max-bond", "3"]) == 2  # not a pauli flag


def test_auto_takes_the_heisenberg_route_on_wide_cones():
    c = gq.Circuit(80).h(0)
    for q in range(79):
        c.cx(q, q + 1)
    c.ry(0.3, 79)
    expected = gq.heisenberg(c, "Z79").value  # the cone is all 80 qubits, 2 strings
    assert expected == pytest.approx(0.0, abs=1e-12)  # a GHZ state's qubit, rotated: <Z> = 0
    assert c.light_cone([79]).size == 80
    assert gq.expectation(c, "Z79") == pytest.approx(expected, abs=1e-12)
    ring = gq.library.qaoa_ring(12, 1)
    exact = gq.expectation(ring, "Z0 Z1", numbers="trig")  # a 12-qubit cone: Heisenberg
    assert exact == gq.heisenberg(ring, "Z0 Z1", numbers="trig").value
