"""Bad input: each case asserts the error type, a message that names the problem, and that
the state is bit-for-bit what it was before the call."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import genqsim as gq

from reference import random_state

theta = gq.parameters("theta")[0]


@pytest.fixture
def psi():
    return gq.StateVector(random_state(3, np.random.default_rng(0)))


@pytest.fixture
def sym_psi():
    a = sympy.Symbol("a")
    return gq.StateVector(np.array([1, a, 0, 0, 0, 0, 0, 0], dtype=object))


def _nan_bound_circuit():
    return gq.Circuit(3).h(0).rz(theta, 1).bind({theta: sympy.nan})


STATE_CASES = [
    # (id, call, error type, message pattern)
    ("circuit-too-big", lambda s: s.apply(gq.Circuit(4).h(0)),
     gq.QubitCountMismatchError, r"circuit has 4 qubits but the state has 3"),
    ("unbound-after-valid-gates", lambda s: s.apply(gq.Circuit(3).h(0).x(1).rz(theta, 2)),
     gq.UnboundParameterError, r"free parameters \(theta\)"),
    ("nan-parameter-found-at-plan", lambda s: s.apply(_nan_bound_circuit()),
     gq.NonFiniteError, r"finite"),
    ("target-out-of-range", lambda s: s.apply_matrix(np.eye(2), [3]),
     gq.QubitIndexError, r"target index 3 out of range for 3 qubits"),
    ("negative-target", lambda s: s.apply_matrix(np.eye(2), [-1]),
     gq.QubitIndexError, r"target index -1 out of range"),
    ("duplicate-target", lambda s: s.apply_matrix(np.eye(4), [1, 1]),
     gq.DuplicateQubitError, r"duplicate target \[1\]"),
    ("control-is-target", lambda s: s.apply_matrix(np.eye(2), [1], controls=[1]),
     gq.ControlTargetOverlapError, r"both control and target"),
    ("control-values-length", lambda s: s.apply_matrix(np.eye(2), [0], [1, 2], [1]),
     gq.ControlValueError, r"1 control value\(s\) given for 2 control\(s\)"),
    ("control-value-two", lambda s: s.apply_matrix(np.eye(2), [0], [1], [2]),
     gq.ControlValueError, r"must be 0 or 1, got 2"),
    ("matrix-3x3", lambda s: s.apply_matrix(np.eye(3), [0]),
     gq.MatrixShapeError, r"need a 2x2 matrix, got shape \(3, 3\)"),
    ("matrix-too-small-for-targets", lambda s: s.apply_matrix(np.eye(2), [0, 1]),
     gq.MatrixShapeError, r"2 target\(s\) need a 4x4 matrix"),
    ("matrix-nan", lambda s: s.apply_matrix(np.array([[np.nan, 0], [0, 1]]), [0]),
     gq.NonFiniteError, r"finite"),
    ("matrix-inf", lambda s: s.apply_matrix(np.array([[np.inf, 0], [0, 1]]), [0]),
     gq.NonFiniteError, r"finite"),
    ("float-qubit", lambda s: s.apply_matrix(np.eye(2), [1.0]),
     gq.QubitIndexError, r"must be an integer, got 1.0"),
    ("bool-qubit", lambda s: s.apply_matrix(np.eye(2), [True]),
     gq.QubitIndexError, r"must be an integer, got True"),
    ("observable-syntax", lambda s: s.expectation("Z0 + + * X1"),
     gq.PauliSyntaxError, r"cannot parse Pauli sum"),
    ("observable-qubit-out-of-range", lambda s: s.expectation("Z0 Z7"),
     gq.QubitIndexError, r"observable acts on qubit 7 but the state has 3"),
    ("observable-noncommuting-product", lambda s: s.expectation("X0 Z0"),
     gq.PauliSyntaxError, r"two different Paulis"),
    ("observable-symbolic-coefficient-numeric-state", lambda s: s.expectation("g*Z0"),
     gq.UnboundParameterError, r"free parameters \(g\)"),
    ("probabilities-duplicate", lambda s: s.probabilities([0, 0]),
     gq.DuplicateQubitError, r"duplicate qubit \[0\]"),
    ("measure-out-of-range", lambda s: s.measure([5]),
     gq.QubitIndexError, r"qubit index 5 out of range"),
    ("negative-shots", lambda s: s.sample(-1),
     ValueError, r"shots must be a non-negative integer"),
    ("inner-size-mismatch", lambda s: s.inner(gq.zeros(2)),
     gq.QubitCountMismatchError, r"states have 3 and 2 qubits"),
    ("apply-non-circuit", lambda s: s.apply("h 0"),
     TypeError, r"apply\(\) takes a Circuit, got str"),
]  # fmt: skip


@pytest.mark.parametrize("case", STATE_CASES, ids=[c[0] for c in STATE_CASES])
def test_rejected_call_leaves_state_untouched(psi, case):
    _, call, error, pattern = case
    before = psi.amplitudes.tobytes()
    with pytest.raises(error, match=pattern):
        call(psi)
    assert psi.amplitudes.tobytes() == before
    assert isinstance(error, type) and (
        error is ValueError or error is TypeError or issubclass(error, gq.GenqsimError)
    )


def test_unnormalised_state_refuses_to_sample():
    s = gq.StateVector(np.array([1, 1, 0, 0], dtype=complex))
    before = s.amplitudes.tobytes()
    with pytest.raises(gq.InvalidProbabilityError, match=r"not normalised .*normalize\(\)"):
        s.sample(10)
    assert s.amplitudes.tobytes() == before


def test_symbolic_state_with_free_symbols_cannot_be_sampled(sym_psi):
    before = list(sym_psi.amplitudes)
    with pytest.raises(gq.NotNumericError, match=r"still depends on a"):
        sym_psi.sample(10)
    assert list(sym_psi.amplitudes) == before


def test_symbolic_state_rejects_nan_parameter(sym_psi):
    before = list(sym_psi.amplitudes)
    with pytest.raises(gq.NonFiniteError, match="must be finite"):  # refused at the bind
        c = gq.Circuit(3).h(0).rx(theta, 1).bind({"theta": sympy.zoo})
        sym_psi.apply(c)
    assert list(sym_psi.amplitudes) == before


# -- construction-time errors (no state involved) ------------------------------------------------

CONSTRUCTION_CASES = [
    ("circuit-qubit-out-of-range", lambda: gq.Circuit(3).h(5),
     gq.QubitIndexError, r"target index 5 out of range for 3 qubits"),
    ("circuit-cx-same-qubit", lambda: gq.Circuit(3).cx(1, 1),
     gq.ControlTargetOverlapError, r"\[1\] used as both control and target"),
    ("swap-same-qubit", lambda: gq.Circuit(3).swap(2, 2),
     gq.DuplicateQubitError, r"duplicate target \[2\]"),
    ("nan-angle", lambda: gq.Circuit(1).rz(float("nan"), 0),
     gq.NonFiniteError, r"finite"),
    ("inf-angle", lambda: gq.Circuit(1).rx(float("inf"), 0),
     gq.NonFiniteError, r"finite"),
    ("not-unitary", lambda: gq.Circuit(1).unitary([[1, 1], [0, 1]], [0]),
     gq.NotUnitaryError, r"not unitary: max \|U\^dagger U - I\| = 1"),
    ("unitary-3x3", lambda: gq.Circuit(2).unitary(np.eye(3), [0]),
     gq.MatrixShapeError, r"2\*\*k x 2\*\*k .* got shape \(3, 3\)"),
    ("unitary-1d", lambda: gq.Circuit(2).unitary(np.ones(4), [0]),
     gq.MatrixShapeError, r"2-dimensional"),
    ("unitary-wrong-target-count", lambda: gq.Circuit(3).unitary(np.eye(4), [0]),
     gq.MatrixShapeError, r"acts on 2 qubit\(s\) but 1 target\(s\)"),
    ("unknown-gate", lambda: gq.gate("hadamard"),
     gq.UnknownGateError, r"unknown gate 'hadamard'; known gates: .*\bh\b"),
    ("wrong-param-count", lambda: gq.gate("rx"),
     TypeError, r"gate 'rx' takes 1 parameter\(s\), got 0"),
    ("bad-pauli-rotation", lambda: gq.PauliRotation("XQ", 0.1),
     gq.UnknownGateError, r"only I, X, Y, Z"),
    ("unknown-number-system", lambda: gq.zeros(3, numbers="quaternion"),
     gq.UnknownNumberSystemError, r"unknown number system 'quaternion'; available: .*sympy"),
    ("unknown-backend", lambda: gq.zeros(3, backend="tpu"),
     gq.UnknownBackendError, r"unknown backend 'tpu'; available: .*numpy"),
    ("state-not-power-of-two", lambda: gq.StateVector(np.zeros(3, dtype=complex)),
     gq.StateShapeError, r"length 3 is not a power of two"),
    ("state-2d", lambda: gq.StateVector(np.zeros((2, 2), dtype=complex)),
     gq.StateShapeError, r"1-D array, got shape \(2, 2\)"),
    ("state-int-dtype", lambda: gq.StateVector(np.array([1, 0])),
     gq.NumberTypeError, r"complex numbers or objects, got dtype int64.*numbers='complex128'"),
    ("state-too-large", lambda: gq.zeros(45),
     gq.StateTooLargeError, r"45-qubit state needs 512.0 TiB .* but only .* is available"),
    ("bind-unknown-parameter", lambda: gq.Circuit(1).rx(theta, 0).bind({"phi": 1.0}),
     gq.UnknownParameterError, r"no parameter 'phi' \(its parameters: theta\)"),
    ("bind-nan", lambda: gq.Circuit(1).rx(theta, 0).bind({"theta": float("nan")}),
     gq.NonFiniteError, r"value for parameter theta must be finite"),
    ("bind-string-value", lambda: gq.Circuit(1).rx(theta, 0).bind({"theta": "0.3"}),
     TypeError, r"value for parameter theta must be a number"),
    ("compose-size-mismatch", lambda: gq.Circuit(2) + gq.Circuit(3),
     gq.QubitCountMismatchError, r"cannot compose a 3-qubit circuit onto 2 qubits"),
    ("basis-bad-bits", lambda: gq.basis("0120"),
     ValueError, r"only 0 and 1"),
    ("basis-index-out-of-range", lambda: gq.basis(8, n_qubits=3),
     gq.QubitIndexError, r"basis index 8 out of range for 3 qubits"),
]  # fmt: skip


@pytest.mark.parametrize("case", CONSTRUCTION_CASES, ids=[c[0] for c in CONSTRUCTION_CASES])
def test_bad_construction_raises_typed_error(case):
    _, call, error, pattern = case
    with pytest.raises(error, match=pattern):
        call()


def test_rejected_circuit_append_leaves_circuit_unchanged():
    c = gq.Circuit(2).h(0)
    with pytest.raises(gq.QubitIndexError):
        c.cx(0, 2)
    assert len(c) == 1


def test_state_too_large_respects_configured_limit(monkeypatch):
    monkeypatch.setenv("GENQSIM_MEMORY_LIMIT", str(1024))
    gq.zeros(6)  # 64 amplitudes x 16 bytes = 1 KiB: fits exactly
    with pytest.raises(gq.StateTooLargeError, match=r"7-qubit state needs 2.0 KiB"):
        gq.zeros(7)


def test_errors_are_also_builtin_exceptions():
    assert issubclass(gq.QubitIndexError, IndexError)
    assert issubclass(gq.MatrixShapeError, ValueError)
    assert issubclass(gq.NumberTypeError, TypeError)
    assert issubclass(gq.StateTooLargeError, MemoryError)
    assert issubclass(gq.UnknownParameterError, KeyError)
