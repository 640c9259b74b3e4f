"""numbers="trig": exact Laurent polynomials in exp(i*theta/2) over cyclotomic fields, checked
against SymPy runs of the same circuits (exactly and at random points), against complex128
runs of the bound circuits, and for canonical forms of circuits with equal unitaries."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim import library
from genqsim.errors import ArgumentValueError, NumberTypeError, UnknownNumberSystemError
from genqsim.numbers import get_number_system
from genqsim.numbers.trig import TrigNumber

pytest.importorskip("flint")

A, B, C = gq.parameters("a b c")
SYMBOLS = (A, B, C)
ONE_ANGLE = ("rx", "ry", "rz", "p", "rxx", "ryy", "rzz")
FIXED = ("x", "y", "z", "h", "s", "t", "sx", "swap", "iswap", "tdg", "sdg")

EXACT_MATRICES = [
    sympy.Matrix([[1, 1], [sympy.I, -sympy.I]]) / sympy.sqrt(2),
    sympy.diag(sympy.exp(sympy.I * sympy.pi / 4), sympy.I),
    sympy.Matrix([[0, -sympy.I], [1, 0]]),
    sympy.diag(1, -1, sympy.I, sympy.exp(-sympy.I * sympy.pi / 4)),
    sympy.Matrix([[0, 0, 0, 1], [0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, sympy.I, 0]]),
]


@st.composite
def angle(draw):
    """An exact angle: k*theta + m*pi/2 (gates halve it: eighth roots of unity, whose cosines
    SymPy writes as single square roots, so its results read back into the field)."""
    k = draw(st.integers(-2, 2))
    m = draw(st.integers(-3, 3))
    symbol = draw(st.sampled_from(SYMBOLS))
    return k * symbol + m * sympy.pi / 2


@st.composite
def parametrised_circuit(draw, n_max=4):
    n = draw(st.integers(1, n_max))
    c = gq.Circuit(n)
    for _ in range(draw(st.integers(1, 10))):
        qubits = draw(st.permutations(range(n)))
        kind = draw(st.sampled_from(["angle", "fixed", "matrix", "pauli", "u"]))
        if kind == "angle":
            name = draw(st.sampled_from(ONE_ANGLE))
            gate = gq.gate(name, draw(angle()))
        elif kind == "fixed":
            name = draw(st.sampled_from(FIXED))
            gate = gq.gate(name)
        elif kind == "u":
            gate = gq.gate("u", draw(angle()), draw(angle()), draw(angle()))
        elif kind == "pauli":
            word = "".join(draw(st.lists(st.sampled_from("IXYZ"), min_size=1, max_size=min(3, n))))
            gate = gq.PauliRotation(word, draw(angle()))
        else:
            gate = gq.MatrixGate(draw(st.sampled_from(EXACT_MATRICES)))
        arity = gate.n_qubits
        if arity > n:
            continue
        n_controls = draw(st.integers(0, min(2, n - arity)))
        values = draw(st.lists(st.integers(0, 1), min_size=n_controls, max_size=n_controls))
        c.append(gate, qubits[:arity], qubits[arity : arity + n_controls], values)
    return c


TRIG8 = "trig"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parametrised_circuit(), st.lists(st.floats(-3.2, 3.2), min_size=3, max_size=3))
def test_trig_equals_sympy_exactly_and_at_random_points(circuit, point):
    ns = get_number_system(TRIG8)
    trig = gq.simulate(circuit, numbers=TRIG8).amplitudes
    exact = gq.simulate(circuit, numbers="sympy").amplitudes
    values = dict(zip(SYMBOLS, point, strict=True))
    numeric = gq.simulate(circuit.bind({s: values[s] for s in circuit.parameters})).to_numpy()
    for t, s, z in zip(trig, exact, numeric, strict=True):
        assert isinstance(t, TrigNumber)
        assert t == ns.scalar(s)  # SymPy's expression read into the field: the same number
        assert abs(t.evaluate(values) - z) < 1e-12
        reference = complex(sympy.N(s.subs(values), 20))
        assert abs(complex(sympy.N(t.to_sympy().subs(values), 20)) - reference) < 1e-12


def test_closed_forms_read_back_exactly_and_match_sympy_at_30_digits():
    ns = get_number_system("trig")
    circuit = gq.Circuit(2).ry(A, 0).rz(B, 1).cx(0, 1).rx(A + B, 1).t(0).p(2 * C, 1)
    trig = gq.simulate(circuit, numbers="trig").amplitudes
    exact = gq.simulate(circuit, numbers="sympy").amplitudes
    rng = np.random.default_rng(7)
    points = [
        {s: sympy.Float(v, 40) for s, v in zip(SYMBOLS, rng.uniform(-4, 4, 3), strict=True)}
        for _ in range(5)
    ]
    for t, s in zip(trig, exact, strict=True):
        for form in ("sum", "product", "auto"):
            closed = t.to_sympy(form)
            assert ns.scalar(closed) == t
            for point in points:
                assert abs(sympy.N((closed - s).subs(point), 30)) < 1e-25


PAIRS = [
    ("HXH = Z", lambda c: c.h(0).x(0).h(0), lambda c: c.z(0)),
    ("Rz(a)Rz(b) = Rz(a+b)", lambda c: c.rz(A, 1).rz(B, 1), lambda c: c.rz(A + B, 1)),
    ("H CZ H = CX", lambda c: c.h(1).cz(0, 1).h(1), lambda c: c.cx(0, 1)),
    ("three CX = SWAP", lambda c: c.cx(0, 1).cx(1, 0).cx(0, 1), lambda c: c.swap(0, 1)),
    ("H Rz H = Rx", lambda c: c.h(0).rz(C, 0).h(0), lambda c: c.rx(C, 0)),
    ("S Rx S^dag = Ry", lambda c: c.sdg(0).rx(B, 0).s(0), lambda c: c.ry(B, 0)),
    ("T T = S", lambda c: c.t(1).t(1), lambda c: c.s(1)),
    ("Rzz = CX Rz CX", lambda c: c.cx(0, 1).rz(A, 1).cx(0, 1), lambda c: c.rzz(A, 0, 1)),
]


@pytest.mark.parametrize(("name", "first", "second"), PAIRS, ids=[p[0] for p in PAIRS])
def test_equal_unitaries_give_identical_numbers(name, first, second):
    prefix = gq.Circuit(2).ry(A, 0).ry(B, 1).rz(C, 0).cx(0, 1)
    one = gq.simulate(first(prefix.copy()), numbers="trig").amplitudes
    two = gq.simulate(second(prefix.copy()), numbers="trig").amplitudes
    for x, y in zip(one, two, strict=True):
        assert x == y
        assert x.canonical() == y.canonical()
        assert hash(x) == hash(y)
        assert repr(x) == repr(y)
    assert not (one[0] == one[0] + get_number_system("trig").one)


def test_hardware_efficient_expectation_is_sympys_simplified_form_or_shorter():
    circuit = library.hardware_efficient(4, layers=1)
    trig = gq.expectation(circuit, "Z0", numbers="trig")
    simplified = sympy.simplify(gq.expectation(circuit, "Z0", numbers="sympy"))
    ns = get_number_system("trig")
    assert trig == ns.scalar(simplified)
    closed = trig.to_sympy()
    assert sympy.count_ops(closed) <= sympy.count_ops(simplified)
    assert sympy.simplify(closed - simplified) == 0
    expected = sympy.cos(circuit.parameters[2]) * sympy.cos(circuit.parameters[4])
    assert closed == expected * sympy.cos(circuit.parameters[6])


def test_exact_qft_of_a_basis_state():
    n = 8
    circuit = gq.Circuit(n).x(0).x(2).compose(library.qft(n))
    ns = get_number_system(f"trig:{2**n}")
    amplitudes = gq.simulate(circuit, numbers=ns).amplitudes
    x = 0b101
    for k, amplitude in enumerate(amplitudes):
        # textbook closed form: exp(2 pi i x k / 2^n) / 2^(n/2)
        assert amplitude == ns.expi(ns.pi * sympy.Rational(2 * x * k, 2**n)) / 16
    numeric = gq.simulate(circuit).to_numpy()
    assert np.allclose([complex(a) for a in amplitudes], numeric, atol=1e-14)


def test_probabilities_expectations_and_lambdify():
    circuit = gq.Circuit(2).ry(A, 0).cx(0, 1).rz(B, 1).h(1)
    psi = gq.simulate(circuit, numbers="trig")
    total = sum(psi.probabilities(), get_number_system("trig").zero)
    assert total == 1  # |z|^2 = 1 holds with no simplification
    f = gq.lambdify(psi, "a b")
    reference = gq.simulate(circuit.bind({A: 0.3, B: -1.1})).to_numpy()
    assert np.allclose(f(0.3, -1.1), reference, atol=1e-14)
    value = gq.expectation(circuit, "X1 + 0.5*Z0", numbers="trig")
    numeric = gq.expectation(circuit.bind({A: 0.3, B: -1.1}), "X1 + 0.5*Z0")
    assert abs(value.evaluate({A: 0.3, B: -1.1}) - numeric) < 1e-14


def test_save_and_load_round_trip():
    ns = get_number_system("trig")
    psi = gq.simulate(gq.Circuit(2).ry(A, 0).t(0).cx(0, 1).rz(B, 1), numbers="trig")
    for a in psi.amplitudes:
        assert ns.decode(ns.encode(a)) == a


def test_more_parameters_than_the_first_context_holds():
    thetas = gq.parameters("q0:12")
    c = gq.Circuit(3)
    for k, theta in enumerate(thetas):
        c.ry(theta, k % 3)
    psi = gq.simulate(c, numbers="trig")
    values = {t: 0.1 * (k + 1) for k, t in enumerate(thetas)}
    reference = gq.simulate(c.bind(values)).to_numpy()
    assert np.allclose([a.evaluate(values) for a in psi.amplitudes], reference, atol=1e-13)


@pytest.mark.parametrize(
    ("circuit", "numbers", "message"),
    [
        (gq.Circuit(1).rz(0.3, 0), "trig", "not a rational multiple of pi"),
        (gq.Circuit(1).rz(sympy.pi / 4, 0), "trig", "trig:16"),
        (gq.Circuit(1).rz(A / 2, 0), "trig", "half-integer multiples"),
        (gq.Circuit(1).rz(A**2, 0), "trig", "not a linear form"),
        (
            gq.Circuit(1).unitary(sympy.Matrix([[1, sympy.sqrt(3)], [sympy.sqrt(3), -1]]) / 2, [0]),
            "trig",
            "trig:24",
        ),
    ],
)
def test_values_outside_the_field_are_refused_by_name(circuit, numbers, message):
    psi = gq.zeros(circuit.n_qubits, numbers=numbers)
    before = list(psi.amplitudes)
    with pytest.raises(NumberTypeError, match=message):
        psi.apply(circuit)
    assert list(psi.amplitudes) == before


def test_other_fields_and_bad_orders():
    psi = gq.simulate(
        gq.Circuit(1).unitary(sympy.Matrix([[1, sympy.sqrt(3)], [sympy.sqrt(3), -1]]) / 2, [0]),
        numbers="trig:24",
    )
    assert psi.amplitudes[1] == get_number_system("trig:24").sqrt(3) / 2
    with pytest.raises(NumberTypeError, match="multiple of 4"):
        get_number_system("trig:6")
    with pytest.raises(UnknownNumberSystemError):
        get_number_system("trig:x")
    with pytest.raises(ArgumentValueError, match="form"):
        psi.amplitudes[0].to_sympy("nice")


def test_division_only_by_monomials():
    ns = get_number_system("trig")
    x = ns.cos(ns.real_scalar(A))
    assert (ns.expi(ns.real_scalar(A)) / ns.expi(ns.real_scalar(A))) == 1
    with pytest.raises(NumberTypeError, match="monomials"):
        ns.one / x
    with pytest.raises(NumberTypeError, match="square roots of rational"):
        ns.sqrt(x)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parametrised_circuit(n_max=3), st.integers(0, 4))
def test_comparison_with_an_integer_agrees_with_the_difference(circuit, power):
    """``x == k`` reads a reduced, unshifted polynomial directly; on amplitudes of random
    circuits, their powers (whose degrees in zeta pass phi(N) and are reduced) and products
    with shifted numbers it agrees with ``(x - k).is_zero()``."""
    trig = get_number_system("trig")
    amplitudes = list(gq.simulate(circuit, numbers="trig").amplitudes)
    numbers = amplitudes + [a**power for a in amplitudes] + [trig.one, trig.zero]
    numbers += [a * b.conjugate() for a, b in itertools.pairwise(amplitudes)]
    numbers += [trig.scalar(sympy.exp(sympy.I * sympy.pi * k / 4)) ** 8 for k in range(4)]
    for x in numbers:
        for k in (-1, 0, 1, 2):
            assert (x == k) is (x - k).is_zero()


def test_angles_are_remembered_per_expression_and_assumptions():
    """A parsed SymPy angle is kept per expression: the same value each time, and symbols
    that differ only in their assumptions stay apart."""
    from genqsim.numbers.trig.angles import Angle

    theta = sympy.Symbol("theta", real=True)
    first = Angle.parse(3 * theta / 2 + sympy.pi / 4)
    again = Angle.parse(3 * theta / 2 + sympy.pi / 4)
    assert again is first and (first.pi_part, first.terms) == (
        sympy.Rational(1, 4),
        ((theta, 1.5),),
    )
    with pytest.raises(NumberTypeError, match="not real"):
        Angle.parse(sympy.Symbol("theta", real=False) + 1)


def _one_angle_per_gate(n_qubits: int, layers: int) -> gq.Circuit:
    """RY/RZ layers with a new angle in every gate and a CX chain (the expression growth of
    a hardware-efficient ansatz: ``2**angles`` Laurent terms per amplitude)."""
    angles = iter(gq.parameters(f"t0:{2 * n_qubits * layers}"))
    c = gq.Circuit(n_qubits)
    for _ in range(layers):
        for q in range(n_qubits):
            c.ry(next(angles), q).rz(next(angles), q)
        for q in range(n_qubits - 1):
            c.cx(q, q + 1)
    return c


def test_auto_takes_the_heisenberg_picture_where_trig_amplitudes_would_explode():
    from genqsim.circuit.growth import laurent_terms_log2
    from genqsim.states.cones import cone_method as _wide

    ns = gq.numbers.get_number_system("trig")
    wide = _one_angle_per_gate(3, 3)  # 18 angles used once: 2**18 terms per amplitude
    deep = gq.Circuit(3)
    a, b = gq.parameters("a b")
    for _ in range(20):
        deep.ry(a, 0).ry(b, 1).ry(a, 2).cx(0, 1).cx(1, 2)
    assert laurent_terms_log2(wide) == 18
    assert laurent_terms_log2(deep) == pytest.approx(np.log2(41) + np.log2(21))
    assert (_wide("auto", wide, ns), _wide("auto", deep, ns)) == ("pauli", "auto")
    assert _wide("statevector", wide, ns) == "statevector"  # a named method is kept
    # auto gives the propagated value, an exact function: at random angles its closed form
    # is the numeric state vector's value
    result = gq.heisenberg(wide, "Z0 Z1 + X1", numbers="trig")
    assert gq.expectation(wide, "Z0 Z1 + X1", numbers="trig") == result.value
    closed = gq.lambdify(result.closed_form, wide.parameters)
    rng = np.random.default_rng(7)
    for _ in range(3):
        point = dict(zip(wide.parameters, rng.uniform(-3, 3, 18)))
        numeric = gq.simulate(wide.bind(point)).expectation("Z0 Z1 + X1")
        assert closed(*point.values()) == pytest.approx(numeric, abs=1e-12)


def test_trig_state_vectors_warn_before_their_amplitudes_explode(monkeypatch):
    import warnings

    c = _one_angle_per_gate(2, 8)  # 2**32 terms per amplitude: never finishes
    state = gq.basis(0, n_qubits=2, numbers="trig")
    with warnings.catch_warnings():
        warnings.simplefilter("error", gq.ExpressionGrowthWarning)
        with pytest.raises(gq.ExpressionGrowthWarning, match=r"2\*\*32 terms.*gq.heisenberg"):
            state.apply(c)
    assert state.amplitudes[0] == state.numbers.one  # raised before the first gate
    # a run of modest size does not warn, and progress=True counts its work in expression
    # terms (2**8 of them per amplitude here), not in amplitudes alone
    from genqsim.support import progress

    asked = []
    monkeypatch.setattr(progress, "wanted", lambda work, quiet: asked.append(work) and False)
    small = _one_angle_per_gate(2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", gq.ExpressionGrowthWarning)
        gq.simulate(small, numbers="trig", progress=True, fuse=False)
    gq.simulate(small.bind(dict.fromkeys(small.parameters, 0.3)), progress=True, fuse=False)
    assert asked[0] >= 2**8 * asked[1] > 0
