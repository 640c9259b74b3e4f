"""Linear error propagation on the fast kernels: uncertain gate angles become tangent
directions of one machine-number run, instead of ``uncertainties`` objects in every
amplitude.

``gq.propagate(circuit)`` takes a circuit whose angles are ``uncertainties`` values (given in
the gate calls or through ``circuit.bind``). Each distinct uncertain angle ``u_k`` becomes a
real parameter at its nominal value. A scalar result (an expectation value) takes its value
and all ``d/du_k`` from one adjoint sweep (three states of memory for any number of angles);
vector results (probabilities) take theirs from forward tangents. The results are
``uncertainties`` values whose linear part is ``sum_k d/du_k * u_k``: they depend on the
user's own variables, so correlations with anything else computed from them are kept, exactly
as the object path (``numbers="uncertain"``) gives them, at the speed of a gradient.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..circuit.circuit import Circuit, Operation
from ..circuit.gates import with_parameters
from ..errors import ArgumentTypeError, NumberTypeError, UnboundParameterError
from ..linalg.generic import marginalize
from ..linalg.pauli import PauliSum
from ..numbers.uncertain import is_uncertain_value
from ..support.optional import require
from ..support.renamed import renamed_argument
from ..support.validation import as_qubit_tuple
from .gradients import _forward, too_wide_for_states, value_and_gradient, value_gradient_hessian

if TYPE_CHECKING:
    import sympy


@dataclass(frozen=True)
class SecondOrder:
    """A second-order estimate: ``mean`` and ``std_dev`` of a result for normally
    distributed angles, and ``linear``, the first-order ``uncertainties`` value."""

    mean: float
    std_dev: float
    linear: Any

    def __str__(self) -> str:
        return f"{self.mean:.6g}+/-{self.std_dev:.2g} (second order)"


class Propagation:
    """The uncertain angles of a circuit as parameters of one fast run; see
    :func:`propagate`. ``angles`` are the distinct uncertain values, in the order of the
    ``symbols`` that stand for them in ``circuit``."""

    def __init__(self, circuit: Circuit, symbols: Sequence[sympy.Symbol], angles: Sequence[Any]):
        self.circuit = circuit
        self.symbols = tuple(symbols)
        self.angles = tuple(angles)
        self.nominal = {s: float(a.nominal_value) for s, a in zip(self.symbols, self.angles)}

    def __repr__(self) -> str:
        return f"<Propagation: {self.circuit.n_qubits} qubits, {len(self.angles)} uncertain angles>"

    def expectation(
        self, observable: str | PauliSum, mode: str | None = None, *, method: str | None = None
    ) -> Any:
        """``<observable>`` as an ``uncertainties`` value: nominal value and every derivative
        from one adjoint sweep (``mode="forward"`` uses tangents instead, ``mode="pauli"``
        dual coefficients propagated in the Heisenberg picture, the default for circuits too
        wide for a state vector: 100-qubit shallow circuits; ``method=`` is the deprecated
        old name of ``mode=``)."""
        mode = renamed_argument("expectation", "mode", mode, "method", method)
        if mode is None:
            mode = "pauli" if too_wide_for_states(self.circuit) else "adjoint"
        value, gradient = value_and_gradient(self.circuit, observable, self.nominal, mode)
        return _combine(value, [gradient[s] for s in self.symbols], self.angles)

    def second_order(self, observable: str | PauliSum) -> SecondOrder:
        """Mean and spread of ``<observable>`` to second order, for angles normally
        distributed with the covariance ``uncertainties`` gives them: ``mean = f + tr(H S)/2``
        and ``variance = g^T S g + tr(H S H S)/2``. Linear propagation says nothing of the
        shift of the mean and is biased near extrema, where ``g`` vanishes and the spread
        comes from curvature alone. Costs one Hessian: on the fast kernels about half a
        circuit run per uncertain rotation (:func:`~genqsim.hessian`)."""
        values = {s: self.nominal[s] for s in self.symbols}
        value, g, h = value_gradient_hessian(self.circuit, observable, values)
        linear = _combine(value, g, self.angles)
        sigma = _covariance(self.angles)
        hs = h @ sigma
        mean = value + 0.5 * float(np.trace(hs))
        variance = float(g @ sigma @ g) + 0.5 * float(np.trace(hs @ hs))
        return SecondOrder(mean, float(np.sqrt(max(variance, 0.0))), linear)

    def probabilities(self, qubits: Sequence[int] | None = None) -> np.ndarray:
        """Probabilities of every basis state (or the marginal of ``qubits``, ``qubits[0]``
        the lowest bit) as an object array of ``uncertainties`` values, from forward
        tangents: ``dp/du_k = 2 Re(conj(psi) dpsi/du_k)``."""
        n = self.circuit.n_qubits
        qs = None if qubits is None else as_qubit_tuple(qubits, n)
        state = _forward(self.circuit, self.nominal)
        psi = state.primal
        p = marginalize((psi.conj() * psi).real, qs)
        derivatives = np.zeros((len(self.symbols), p.size))
        for k, tangent in enumerate(state.tangents):
            if tangent is not None:
                derivatives[k] = marginalize(2 * (psi.conj() * tangent).real, qs)
        out = np.empty(p.size, dtype=object)
        out[:] = [_combine(p[i], derivatives[:, i], self.angles) for i in range(p.size)]
        return out


def propagate(circuit: Circuit) -> Propagation:
    """Prepare ``circuit``, whose gate angles include ``uncertainties`` values, for linear
    error propagation on the fast kernels (:class:`Propagation`). Named gates and Pauli
    rotations may carry uncertain angles; one value used by several gates is one variable.
    The circuit must be otherwise numeric and unitary."""
    import sympy

    require("uncertainties", "uncertain", "gq.propagate")
    if not isinstance(circuit, Circuit):
        raise ArgumentTypeError(f"propagate() takes a Circuit, got {type(circuit).__name__}")
    if circuit.parameters:
        names = ", ".join(sorted(str(p) for p in circuit.parameters))
        raise UnboundParameterError(
            f"circuit has free parameters ({names}): bind them (uncertain values too) first"
        )
    symbols: dict[int, sympy.Symbol] = {}
    angles: list[Any] = []
    ops = []
    for op in circuit.operations:
        params = getattr(op.gate, "params", ())
        if not any(is_uncertain_value(p) for p in params):
            ops.append(op)
            continue
        new_params = []
        for p in params:
            if is_uncertain_value(p):
                if id(p) not in symbols:
                    symbols[id(p)] = sympy.Dummy(f"u{len(angles)}", real=True)
                    angles.append(p)
                new_params.append(symbols[id(p)])
            else:
                new_params.append(p)
        gate = with_parameters(op.gate, new_params)
        if gate is None:
            raise NumberTypeError(
                f"{op.gate.name}: only gate angles propagate on the fast kernels; use "
                "numbers='uncertain' for uncertain matrices or channel rates"
            )
        ops.append(Operation(gate, op.targets, op.controls, op.control_values))
    run = Circuit(circuit.n_qubits, ops, n_clbits=circuit.n_clbits)
    return Propagation(run, list(symbols.values()), angles)


def _combine(value: float, derivatives: Sequence[float] | np.ndarray, angles: Sequence[Any]) -> Any:
    """``value + sum_k d_k (u_k - nominal_k)`` as one ``uncertainties`` value, built as the
    package builds results of its own functions (a lazy linear combination of the angles'
    linear parts), so it costs one object however many angles there are."""
    from uncertainties.core import AffineScalarFunc, LinearCombination

    terms = [(float(d), a._linear_part) for d, a in zip(derivatives, angles) if d]
    return AffineScalarFunc(float(value), LinearCombination(terms))


def _covariance(angles: Sequence[Any]) -> np.ndarray:
    """The covariance matrix of ``uncertainties`` values, ``J diag(s**2) J^T`` over the
    independent variables they depend on (``J`` their derivatives, ``s`` the variables'
    standard deviations, read now), as ``uncertainties.covariance_matrix`` defines it."""
    derivatives = [a.derivatives for a in angles]
    column: dict[Any, int] = {}
    for found in derivatives:
        for variable in found:
            column.setdefault(variable, len(column))
    jacobian = np.zeros((len(angles), len(column)))
    for i, found in enumerate(derivatives):
        for variable, slope in found.items():
            jacobian[i, column[variable]] = slope
    spread = np.array([variable.std_dev for variable in column], dtype=float)
    return (jacobian * spread**2) @ jacobian.T
