"""Exact derivatives of states and expectation values with respect to circuit parameters.

Three routes, one answer (to rounding):

* ``mode="dual"`` runs the circuit on dual numbers in object arrays (the generic routine):
  every amplitude carries its partials. Simple and general, slow for large states.
* ``mode="forward"`` keeps a dual state as a primal complex array plus one tangent array per
  parameter and runs the fast kernels: a gate ``U(theta)`` maps ``t_k -> U t_k + dU/dp_k psi``.
  A tangent stays unallocated, and costs nothing, until its parameter's first gate.
* ``mode="adjoint"`` is reverse mode by uncomputation: run forward once, then walk the circuit
  backwards un-applying each gate to both ``psi`` and ``lambda = H psi``, collecting
  ``2 Re <lambda| dU/dp_k |psi>`` on the way. Memory stays at three states for any number of
  parameters.

Gate derivatives come from the gate library itself, evaluated on dual numbers: no gate needs a
hand-written derivative. Running the adjoint sweep on dual numbers (seeded along a direction
``v``) differentiates the gradient along ``v``: :func:`hessian` gives Hessian-vector products
and whole Hessians that way (forward over reverse).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import isfinite
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..backends import (
    AdjointSteps,
    Backend,
    backend_for,
    capability,
    normalize_device,
    select_backend,
)
from ..circuit.circuit import Circuit, Operation
from ..circuit.gates import NON_UNITARY, GateKind, pauli_generator, with_parameters
from ..errors import (
    ArgumentTypeError,
    ArgumentValueError,
    NotUnitaryError,
    NumberTypeError,
    StateTooLargeError,
    UnboundParameterError,
)
from ..linalg.pauli import PAULI_MATRICES, PauliSum
from ..numbers import NumberSystem, get_number_system
from ..numbers.dual import Dual, DualNumbers, split
from ..numbers.numeric import to_python_complex
from ..plan import (
    BlockRun,
    GateCall,
    MatrixCall,
    block_layout_of,
    call_for,
    group_calls,
    group_tile_runs,
    run_plan,
    run_restricted,
)
from ..plan.grouping import RunCall
from ..states.chunks import broadcast_points
from ..states.swept import point_values
from ..states.tangent import (
    DerivativeCalls,
    TangentState,
    apply_pauli_sum,
    real_inner,
    real_terms,
)
from ..support.renamed import renamed_argument
from .adjoint import AdjointProgram

if TYPE_CHECKING:
    import sympy

FORWARD_MAX_PARAMETERS = 2
"""``mode=None`` uses forward mode up to this many parameters, adjoint mode above."""


# -- inputs --------------------------------------------------------------------------------------


def _parameter_values(circuit: Circuit, values: Mapping[Any, Any]) -> dict[sympy.Symbol, float]:
    """``values`` keyed by the circuit's own symbols (names accepted), checked real and finite;
    every free parameter of the circuit must have one."""
    import sympy

    circuit_parameters = circuit.parameters
    by_name = {p.name: p for p in circuit_parameters}
    out: dict[sympy.Symbol, float] = {}
    for key, value in values.items():
        if isinstance(key, str):
            symbol = by_name.get(key, sympy.Symbol(key, real=True))
        elif isinstance(key, sympy.Symbol):
            symbol = key
        else:
            raise ArgumentTypeError(f"parameters are SymPy symbols or names, got {key!r}")
        if isinstance(value, (float, int)) and not isinstance(value, bool) and isfinite(value):
            out[symbol] = float(value)  # the common case, without building a message
            continue
        z = to_python_complex(value, f"value of {symbol}")
        if z.imag != 0:
            raise NumberTypeError(f"parameter {symbol} must be real, got {value!r}")
        out[symbol] = z.real
    missing = set(circuit_parameters) - set(out)
    if missing:
        names = ", ".join(sorted(str(s) for s in missing))
        raise UnboundParameterError(f"no value given for circuit parameter(s) {names}")
    return out


def _unitary_operations(circuit: Circuit) -> list[Operation]:
    ops = []
    for op in circuit.operations:
        if op.gate.kind in NON_UNITARY:
            raise NotUnitaryError(
                "this derivative needs a unitary circuit; remove measurements, resets, noise "
                f"channels and conditionals (found {op.gate.name} on qubit {op.targets[0]}), "
                "or use gradient(), which differentiates noisy circuits through a density matrix"
            )
        if op.gate.kind is not GateKind.BARRIER:
            ops.append(op)
    return ops


def _forward(circuit: Circuit, values: dict) -> TangentState:
    """The tangent state of ``circuit`` at ``values`` (unitary circuits only)."""
    _unitary_operations(circuit)  # a clear error for measurements and resets
    return TangentState.zeros(circuit.n_qubits, DualNumbers(values)).apply(circuit)


def _adjoint(
    circuit: Circuit,
    terms,
    values: dict,
    values_ns: NumberSystem,
    seeds,
    backend: Backend | None = None,
) -> tuple:
    """Reverse mode by uncomputation: ``(expectation, [dE/dp_k])`` in ``values_ns``, on
    ``backend`` (by default the one for host arrays of the sweep's dtype).

    On complex states a rotation's gradient term is read off in one reduction,
    ``dE/dtheta = 2 Im <lambda| G |psi>`` with ``G`` its Pauli generator (controls restrict
    the sum), before the gate is un-applied: no derivative matrix, no third state. Other
    parametrised gates (and second derivatives, on dual numbers) apply ``dU/dp_k`` to a copy
    of ``psi``."""
    params = list(values)
    sweep = DerivativeCalls(params, values_ns, seeds)
    if backend is None:
        probe = np.empty(0, dtype=sweep.dtype)
        backend = select_backend(probe, None if sweep.dtype is np.complex128 else "numpy")
    ops = _unitary_operations(circuit)
    psi = backend.zeros(circuit.n_qubits, values_ns)
    forward: list[Any] = []  # gate calls, in order
    steps = []  # (inverse call, gradient terms), built on the way forward, used on the way back
    for op in ops:
        if not sweep.nested and pauli_generator(op.gate) and sweep.own_parameters(op):
            theta, partials = sweep.angle(op)
            numeric = with_parameters(op.gate, [float(np.real(theta))])
            assert numeric is not None  # gates with a Pauli generator are named or rotations
            gate_call = call_for(
                Operation(numeric, op.targets, op.controls, op.control_values), values_ns
            )
            call: GateCall | None = gate_call if isinstance(gate_call, GateCall) else None
            terms_of_op: Any = _GeneratorTerms(op, partials)
        else:
            call, terms_of_op = sweep.calls(op)
        if call is not None:
            forward.append(call)
            steps.append((call.adjoint(), terms_of_op))
    # the forward run as a plain simulation does it: runs of calls in cache blocks
    run_plan(
        group_calls(forward, circuit.n_qubits, block_layout_of(backend, psi.dtype)), backend, psi
    )
    lam = apply_pauli_sum(terms, psi, backend, values_ns)
    energy = real_inner(psi, lam, backend, values_ns)
    grads: list[Any] = [0.0] * len(params)
    # steps the backend takes in one pass over both states, a block or tile at a time:
    # un-applies with no gradient term, and one-target rotations (gradient sums, then
    # un-apply); any other step ends such a stretch and is taken on its own
    stretch: list[tuple[GateCall, _GeneratorTerms | None]] = []

    def take_stretch() -> None:
        if stretch:
            _adjoint_stretch(stretch, psi, lam, backend, values_ns, grads)
            stretch.clear()

    d = None  # the third state, dU/dp_k psi, only for gates without a Pauli generator
    for inverse, terms_of_op in reversed(steps):
        generator = terms_of_op if isinstance(terms_of_op, _GeneratorTerms) else None
        if not terms_of_op or (generator is not None and len(inverse.targets) == 1):
            stretch.append((inverse, generator))
            continue
        take_stretch()
        if generator is not None:
            generator.accumulate(grads, generator.transition(backend, lam, psi, values_ns))
        inverse.run(backend, psi)  # psi is now the state before the gate
        for k, dcall in () if generator else terms_of_op:
            d = np.empty_like(psi) if d is None else d
            d[...] = psi
            run_restricted(dcall, backend, d, values_ns)
            grads[k] = grads[k] + 2 * real_inner(lam, d, backend, values_ns)
        inverse.run(backend, lam)
    take_stretch()
    return energy, grads


def _adjoint_program(circuit: Circuit, params: list[Any]) -> AdjointProgram | None:
    """The circuit's planned complex128 sweep in ``params`` (kept on the circuit until it
    grows), or ``None`` where :class:`~genqsim.differentiation.adjoint.AdjointProgram` does not
    serve it."""
    numbers = get_number_system("complex128")
    backend = select_backend(np.empty(0, dtype=np.complex128), None)
    return cast(
        "AdjointProgram | None",
        circuit.derived(
            ("adjoint program", tuple(params), backend.name),
            lambda: AdjointProgram.plan(
                circuit.n_qubits, _unitary_operations(circuit), params, backend, numbers
            ),
        ),
    )


def _adjoint_stretch(
    steps: list[tuple[GateCall, _GeneratorTerms | None]],
    psi: Any,
    lam: Any,
    backend: Any,
    numbers: NumberSystem,
    grads: list[Any],
) -> None:
    """Backward steps with no gradient term or a one-target generator, in order. A backend
    with :class:`~genqsim.backends.AdjointSteps` takes them in block runs (the whole state
    as one block when it fits a tile, else tiles over any qubits: a run of steps per pass
    over both states), each step alone otherwise."""
    n_qubits = psi.size.bit_length() - 1
    fused = capability(backend, AdjointSteps)
    layout = block_layout_of(backend, psi.dtype, tiles=True)
    if fused is None or layout is None:
        for inverse, generator in steps:
            if generator is not None:
                generator.accumulate(grads, generator.transition(backend, lam, psi, numbers))
            inverse.run(backend, psi)
            inverse.run(backend, lam)
        return
    # a gradient step travels as its dense 2x2 inverse; its generator is found by identity
    calls: list[RunCall] = []  # inverses of gates: matrices, diagonals, permutations
    generator_of: dict[int, _GeneratorTerms] = {}
    for inverse, generator in steps:
        if generator is not None:
            inverse = MatrixCall(inverse.dense(), inverse.targets, inverse.controls,
                                 inverse.control_values)  # fmt: skip
            generator_of[id(inverse)] = generator
        calls.append(cast(RunCall, inverse))
    if n_qubits <= layout.tile_qubits:
        plan: list[Any] = [BlockRun(calls, n_qubits)] if len(calls) > 1 else calls
    else:
        plan = group_tile_runs(calls, n_qubits, layout.tile_qubits, layout.low_qubits)
    for item in plan:
        if isinstance(item, BlockRun):
            owners = [generator_of.get(id(call)) for call in item.calls]
            matrices = [None if o is None else o.one_qubit for o in owners]
            values = fused.adjoint_block_run(psi, lam, item, matrices)
            for owner, value in zip([o for o in owners if o is not None], values):
                owner.accumulate_imag(grads, value)
        elif id(item) in generator_of:
            owner = generator_of[id(item)]
            value = fused.adjoint_step_1q(psi, lam, item.dense(), owner.one_qubit,
                                          item.targets[0], item.controls,
                                          item.control_values)  # fmt: skip
            owner.accumulate_imag(grads, value)
        else:
            item.run(backend, psi)
            item.run(backend, lam)


class _GeneratorTerms:
    """A one-angle gate with ``dU/dtheta = -i G U`` (``G`` a sum of Pauli strings, see
    :func:`~genqsim.gates.pauli_generator`) on given qubits and controls, and the angle's
    partials ``[(k, d theta / d p_k)]``."""

    def __init__(self, op: Operation, angle_partials: list[tuple[int, Any]]) -> None:
        self.angle_partials = angle_partials
        self.controls, self.control_values = op.controls, op.control_values
        self.paulis = []  # (coefficient times i**(number of Y), x mask, z mask)
        for coefficient, pauli in pauli_generator(op.gate) or ():
            x = z = 0
            for letter, q in zip(pauli, op.targets):
                x |= (letter in "XY") << q
                z |= (letter in "YZ") << q
            self.paulis.append((coefficient * 1j ** pauli.count("Y"), x, z))

        self.one_qubit = None  # G as a 2x2 matrix, for one-target gates
        if len(op.targets) == 1:
            terms = pauli_generator(op.gate) or ()
            self.one_qubit = sum(c * PAULI_MATRICES[p] for c, p in terms)

    def transition(self, backend: Any, lam: Any, psi: Any, ns: NumberSystem) -> complex:
        """``<lambda| G |psi>`` (under the controls) at the state after the gate."""
        total = 0j
        for factor, x, z in self.paulis:
            transition = backend.pauli_transition(
                lam, psi, x, z, ns, self.controls, self.control_values
            )
            total += factor * complex(transition)
        return total

    def accumulate(self, grads: list[Any], transition: complex) -> None:
        """Adds ``dE/dtheta = 2 Im <lambda| G |psi>`` times ``d theta/dp_k`` to ``grads``."""
        self.accumulate_imag(grads, transition.imag)

    def accumulate_imag(self, grads: list[Any], imag: float) -> None:
        """As :meth:`accumulate`, from ``Im <lambda| G |psi>`` alone."""
        d_theta = 2 * imag
        for k, partial in self.angle_partials:
            grads[k] = grads[k] + d_theta * float(np.real(partial))


# -- public functions ----------------------------------------------------------------------------


def gradient(
    circuit: Circuit,
    observable: str | PauliSum,
    values: Mapping[Any, Any],
    mode: str | None = None,
    *,
    backend: str | None = None,
    device: str | None = None,
    method: str | None = None,
) -> dict[sympy.Symbol, float]:
    """``{parameter: d<observable>/d parameter}`` at ``values``, exact (no finite differences).

    ``values`` maps every free parameter of ``circuit`` (SymPy symbols or their names) to a
    real number; parameters listed but absent from the circuit get 0. Arrays of values
    broadcast as NumPy arrays do, one point each, and every derivative is then an array of
    their broadcast shape (as :func:`~genqsim.expectation` broadcasts its values).
    ``mode``: ``"forward"`` (vectorised dual state on the fast kernels), ``"adjoint"``
    (reverse mode by uncomputation, three states of memory), ``"dual"`` (dual numbers in
    object arrays), ``"density_matrix"``
    (dual numbers in a density matrix: circuits with noise channels, whose rates are
    parameters too, and with mid-circuit measurements), ``"pauli"`` (dual coefficients
    propagated in the Heisenberg picture, :func:`~genqsim.heisenberg`: wide shallow
    circuits, noise included); by default ``"pauli"`` for circuits wider than a state
    vector holds (:data:`~genqsim.states.registry.WIDE_QUBITS` qubits), the density matrix
    for noisy ones, else forward up to :data:`FORWARD_MAX_PARAMETERS` parameters, adjoint
    above.
    ``device`` (``"cpu"`` or ``"gpu"``) or ``backend`` (a backend's name) choose where the
    adjoint sweep's three complex128 states live, as for :func:`~genqsim.simulate`; with
    either, ``mode`` is the adjoint (the only one they apply to). ``method=`` is the old name
    of ``mode=`` (deprecated: ``method`` names a kind of state in :func:`~genqsim.simulate`).
    """
    mode = renamed_argument("gradient", "mode", mode, "method", method)
    return value_and_gradient(circuit, observable, values, mode, backend=backend, device=device)[1]


def _broadcast(
    circuit: Circuit,
    observable: str | PauliSum,
    values: Mapping[Any, Any],
    mode: str | None,
    backend: str | None,
    device: str | None,
) -> tuple[np.ndarray, dict[sympy.Symbol, np.ndarray]]:
    """:func:`value_and_gradient` at every point of array-valued ``values`` (broadcast as
    NumPy's): the values and each parameter's derivative as arrays of the broadcast shape.
    The observable is read once, and the circuit's adjoint program is planned once and
    serves every point."""
    shape, points = broadcast_points(values)
    terms = real_terms(observable, circuit.n_qubits)  # once, not once per point
    batched = _adjoint_points(circuit, terms, values, points, mode, backend, device)
    if batched is not None:
        return batched[0].reshape(shape), {p: g.reshape(shape) for p, g in batched[1].items()}
    found = [
        _value_and_gradient_at(circuit, terms, point, mode, backend, device) for point in points
    ]
    energies = np.array([v for v, _ in found]).reshape(shape)
    params = list(found[0][1]) if found else []
    grads = {p: np.array([g[p] for _, g in found]).reshape(shape) for p in params}
    return energies, grads


def _adjoint_points(
    circuit: Circuit,
    terms: list[tuple[float, Any]],
    values: Mapping[Any, Any],
    points: list[dict[Any, Any]],
    mode: str | None,
    backend: str | None,
    device: str | None,
) -> tuple[np.ndarray, dict[Any, np.ndarray]] | None:
    """Values and gradients at every point from the circuit's planned adjoint sweep run on
    all points at once (:meth:`~genqsim.differentiation.adjoint.AdjointProgram.run_points`),
    where the adjoint mode is chosen on the default backend and the program serves them;
    ``None`` otherwise (then point by point)."""
    if backend is not None or device is not None or len(points) < 2:
        return None
    first = _parameter_values(circuit, points[0])
    if _choose(mode, len(first), circuit) != "adjoint":
        return None
    params = list(first)
    program = _adjoint_program(circuit, params)
    if program is None:
        return None
    swept = point_values(circuit, values)  # the arrays as they are, where they are clean
    if swept is not None and set(params) == set(circuit.parameters):
        order = [circuit.parameters.index(q) for q in params]
        table = swept[1][:, order]
    else:
        rows = (_parameter_values(circuit, point) for point in points)
        table = np.array([[row[q] for q in params] for row in rows])
    with program.lock:
        found = program.run_points(table, terms)
    if found is None:
        return None
    energies, grads = found
    return energies, {p: grads[:, k] for k, p in enumerate(params)}


def value_and_gradient(
    circuit: Circuit,
    observable: str | PauliSum,
    values: Mapping[Any, Any],
    mode: str | None = None,
    *,
    backend: str | None = None,
    device: str | None = None,
    method: str | None = None,
) -> tuple[float, dict[sympy.Symbol, float]]:
    """``(<observable>, gradient)`` at ``values`` from one run of the chosen mode (the value
    comes free with every one of them); arguments as for :func:`gradient`."""
    method = renamed_argument("value_and_gradient", "mode", mode, "method", method)
    if any(np.ndim(v) > 0 for v in values.values()):
        swept = _broadcast(circuit, observable, values, method, backend, device)
        return cast("tuple[float, dict[sympy.Symbol, float]]", swept)  # arrays of values
    terms = real_terms(observable, circuit.n_qubits)
    return _value_and_gradient_at(circuit, terms, values, method, backend, device)


def _value_and_gradient_at(
    circuit: Circuit,
    terms: list[tuple[float, Any]],
    values: Mapping[Any, Any],
    method: str | None,
    backend: str | None,
    device: str | None,
) -> tuple[float, dict[sympy.Symbol, float]]:
    """:func:`value_and_gradient` at one point, the observable's ``terms`` read already
    (:func:`~genqsim.states.tangent.real_terms`)."""
    vals = _parameter_values(circuit, values)
    chosen = _sweep_backend(circuit, method, backend, device)
    method = "adjoint" if chosen is not None else _choose(method, len(vals), circuit)
    params = list(vals)
    if method == "adjoint":
        complex128 = get_number_system("complex128")
        program = None if chosen is not None else _adjoint_program(circuit, params)
        if program is not None and program.lock.acquire(blocking=False):
            try:  # planned once for this circuit: no Python per gate
                value, grads = program.run(np.array([vals[p] for p in params]), terms)
            finally:
                program.lock.release()
        else:  # a sweep the program does not serve, one on another backend or thread
            value, grads = _adjoint(circuit, terms, vals, complex128, vals, chosen)
        return float(np.real(value)), {p: float(g) for p, g in zip(params, grads)}
    if method == "forward":
        result = Dual.lift(_forward(circuit, vals).expectation(PauliSum(terms)))
    elif method == "pauli":
        from ..pauli_propagation import heisenberg

        result = Dual.lift(heisenberg(circuit, PauliSum(terms), DualNumbers(vals)).value)
    else:
        from ..states import simulate

        kind = "density_matrix" if method == "density_matrix" else "statevector"
        state = simulate(circuit, numbers=DualNumbers(vals), method=kind)
        result = Dual.lift(state.expectation(PauliSum(terms)))
    partials = result.partials
    gradient_by = {
        p: 0.0 if partials is None else float(np.real(partials[i])) for i, p in enumerate(params)
    }
    return float(np.real(complex(result.value))), gradient_by


def jacobian(
    circuit: Circuit,
    values: Mapping[Any, Any],
    mode: str | None = None,
    *,
    method: str | None = None,
) -> dict[sympy.Symbol, np.ndarray]:
    """``{parameter: d psi / d parameter}`` (complex arrays) at ``values``, for the circuit
    run from ``|0...0>``. ``mode``: ``"forward"`` (fast kernels, the default) or ``"dual"``
    (object arrays); ``method=`` is its deprecated old name."""
    method = renamed_argument("jacobian", "mode", mode, "method", method) or "forward"
    vals = _parameter_values(circuit, values)
    if method not in ("forward", "dual"):
        raise ArgumentValueError(f"jacobian mode must be 'forward' or 'dual', got {method!r}")
    params = list(vals)
    if method == "forward":
        state = _forward(circuit, vals)
        return {
            p: np.zeros_like(state.primal) if t is None else t
            for p, t in zip(params, state.tangents)
        }
    from ..states import simulate

    psi = simulate(circuit, numbers=DualNumbers(vals))
    _, partials = split(psi.amplitudes, len(params))
    return dict(zip(params, partials))


def hessian(
    circuit: Circuit,
    observable: str | PauliSum,
    values: Mapping[Any, Any],
    direction: Mapping[Any, float] | Sequence[float] | None = None,
) -> np.ndarray:
    """Second derivatives of ``<observable>`` at ``values``, exact.

    With ``direction`` (a vector ``v`` in the order of ``values``, or a mapping), the
    Hessian-vector product ``H v``; without, the whole Hessian. Rows and columns follow the
    order of ``values``. Circuits whose parametrised gates are one-target rotations (Pauli
    generators, controlled or not, angles affine in the parameters) take it from tangents of
    one forward run read against one backward run on the fast kernels
    (:class:`~genqsim.differentiation.curvature.CurvatureSweep`); others forward over
    reverse, the adjoint sweep on dual numbers seeded along ``v`` (one sweep per product).
    """
    vals = _parameter_values(circuit, values)
    terms = real_terms(observable, circuit.n_qubits)
    params = list(vals)
    v: np.ndarray | None = None
    if direction is not None:
        if isinstance(direction, Mapping):
            lookup = _parameter_values(circuit, {**{p: 0.0 for p in params}, **direction})
            v = np.array([lookup[p] for p in params], dtype=float)
        else:
            v = np.asarray(direction, dtype=float).reshape(-1)
            if v.size != len(params):
                raise ArgumentValueError(
                    f"direction has {v.size} entries for {len(params)} parameters"
                )
        if not np.all(np.isfinite(v)):
            raise ArgumentValueError("direction must be finite")
    try:
        found = _curvature_at(circuit, terms, vals)
    except StateTooLargeError:
        if v is None:
            raise
        found = None  # a product needs three states, not three per rotation
    if found is not None:
        whole = found[2]
        return whole if v is None else whole @ v
    if v is not None:
        return _hvp(circuit, terms, vals, v).real
    return _dual_hessian(circuit, terms, vals)


def value_gradient_hessian(
    circuit: Circuit, observable: str | PauliSum, values: Mapping[Any, Any]
) -> tuple[float, np.ndarray, np.ndarray]:
    """``(<observable>, gradient, Hessian)`` at ``values``, in the order of ``values``:
    from one planned curvature sweep where :func:`hessian` has one, else an adjoint
    gradient and forward-over-reverse Hessian."""
    vals = _parameter_values(circuit, values)
    terms = real_terms(observable, circuit.n_qubits)
    found = _curvature_at(circuit, terms, vals)
    if found is not None:
        return found
    value, grads = _value_and_gradient_at(circuit, terms, vals, "adjoint", None, None)
    g = np.array([grads[p] for p in vals])
    return value, g, _dual_hessian(circuit, terms, vals)


def _curvature_at(
    circuit: Circuit, terms: list[tuple[float, Any]], vals: dict[Any, float]
) -> tuple[float, np.ndarray, np.ndarray] | None:
    """Value, gradient and Hessian from the circuit's curvature sweep (planned once and
    kept with its adjoint program), or ``None`` where the program does not serve it."""
    from .curvature import CurvatureSweep

    params = list(vals)
    program = _adjoint_program(circuit, params)
    if program is None:
        return None
    sweep = cast(
        CurvatureSweep,
        circuit.derived(
            ("curvature sweep", tuple(params), program.backend.name),
            lambda: CurvatureSweep(program),
        ),
    )
    with program.lock:
        return sweep.run(np.array([vals[p] for p in params]), terms)


def _dual_hessian(circuit: Circuit, terms: list[tuple[float, Any]], vals: dict) -> np.ndarray:
    """The whole Hessian forward over reverse: one dual-number adjoint sweep per
    parameter."""
    eye = np.eye(len(vals))
    return np.column_stack([_hvp(circuit, terms, vals, row) for row in eye]).real


def _hvp(circuit: Circuit, terms, vals: dict, v: np.ndarray) -> np.ndarray:
    inner = DualNumbers(vals, tangents={p: [v[i]] for i, p in enumerate(vals)})
    seeds = {p: inner.scalar(p) for p in vals}
    _, grads = _adjoint(circuit, terms, vals, inner, seeds)
    out = []
    for g in grads:
        g = Dual.lift(g)
        out.append(0.0 if g.partials is None else complex(g.partials[0]).real)
    return np.array(out)


def _sweep_backend(
    circuit: Circuit, method: str | None, backend: str | None, device: str | None
) -> Backend | None:
    """The backend an adjoint sweep is asked to run on (``None``: the default one), checked:
    ``backend`` and ``device`` choose where the adjoint's states live, so another method
    named with them is an error rather than silently run elsewhere."""
    if backend is None and device is None:
        return None
    if method not in (None, "adjoint"):
        raise ArgumentValueError(
            f"backend= and device= choose where the adjoint sweep runs; mode={method!r} "
            "does not take them (use mode='adjoint' or leave mode out)"
        )
    if backend is None and normalize_device(device) == "cpu":
        return None
    chosen = backend_for(get_number_system("complex128"), device, backend, 1 << circuit.n_qubits)
    default = select_backend(np.empty(0, dtype=np.complex128), None)
    return None if chosen is default else chosen


def too_wide_for_states(circuit: Circuit) -> bool:
    """Whether ``circuit`` is wider than ``method="auto"`` runs as a state
    (:data:`~genqsim.states.registry.WIDE_QUBITS`)."""
    from ..states.registry import WIDE_QUBITS

    return circuit.n_qubits > WIDE_QUBITS


def _choose(method: str | None, n_params: int, circuit: Circuit | None = None) -> str:
    if method is None:
        if circuit is not None and too_wide_for_states(circuit):
            return "pauli"  # no state of that width fits: observables propagate instead
        if circuit is not None and circuit.has_non_unitary:
            return "density_matrix"  # noise rates and angles alike, exactly
        return "forward" if n_params <= FORWARD_MAX_PARAMETERS else "adjoint"
    if method not in ("forward", "adjoint", "dual", "density_matrix", "pauli"):
        raise ArgumentValueError(
            "mode must be 'forward', 'adjoint', 'dual', 'density_matrix' or 'pauli', "
            f"got {method!r}"
        )
    return method


__all__ = ["FORWARD_MAX_PARAMETERS", "gradient", "hessian", "jacobian"]
