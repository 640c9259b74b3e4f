"""Tangent states: a state and its derivative with respect to every circuit parameter, on
the fast kernels (``method="tangent"``).

A :class:`TangentState` is a primal complex128 array ``psi`` plus one tangent array
``t_k = d psi / d p_k`` per parameter, unallocated (and free) until the parameter's first
gate. A gate ``U(p)`` maps ``t_k -> U t_k + (dU/dp_k) psi`` and ``psi -> U psi``. Results are
dual numbers (:class:`~genqsim.Dual`) of the state's :class:`~genqsim.DualNumbers`: a value
and its partials, so ``state.expectation(H)`` is ``<H>`` together with its exact gradient.

Gate derivatives come from the gate library itself evaluated on dual numbers
(:class:`DerivativeCalls`); the gradient routines of :mod:`genqsim.differentiation.gradients` use
the same machinery for the adjoint sweep.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..backends import Backend, backend_for, select_backend
from ..circuit.circuit import Circuit, Operation
from ..circuit.gates import NON_UNITARY, GateKind
from ..errors import (
    ArgumentTypeError,
    ArgumentValueError,
    NotUnitaryError,
    NumberTypeError,
    QubitIndexError,
    UnboundParameterError,
)
from ..linalg.generic import marginalize, pauli_signs
from ..linalg.observables import pauli_sum_of
from ..linalg.pauli import PauliSum, pauli_masks
from ..numbers import NumberSystem, get_number_system, to_python_complex
from ..numbers.dual import Dual, DualNumbers, split
from ..plan import GateCall, PermutationCall, call_for, run_restricted
from ..support.validation import as_qubit_tuple
from . import sampling
from .base import StateBase
from .protocol import Seed

if TYPE_CHECKING:
    import sympy

    from .registry import SimulationRequest

_FLIP = np.array([1, 0])


class DerivativeCalls:
    """Builds each operation's gate call and its derivative calls ``dU/dp_k`` in
    ``values_ns`` (plain complex numbers, or dual numbers along a direction for second
    derivatives), by evaluating the gate on dual numbers seeded at ``seeds``: only the
    parameters the gate depends on are seeded, so a gate costs the same however many
    parameters the circuit has."""

    def __init__(self, params: Sequence[sympy.Symbol], values_ns: NumberSystem, seeds: Any) -> None:
        self.params = tuple(params)
        self.values_ns = values_ns
        self.seeds = seeds
        self.nested = isinstance(values_ns, DualNumbers)
        self.dtype: Any = object if self.nested else np.complex128
        self.param_set = set(self.params)
        self.index = {p: k for k, p in enumerate(self.params)}
        self._outer: dict[tuple[int, ...], DualNumbers] = {}

    def own_parameters(self, op: Operation) -> tuple[int, ...]:
        """Positions (in ``params``) of the parameters ``op`` depends on, ascending."""
        return tuple(sorted(self.index[p] for p in op.gate.free_symbols & self.param_set))

    def seeded(self, own: tuple[int, ...]) -> DualNumbers:
        """Dual numbers seeding the parameters at positions ``own`` only."""
        if own not in self._outer:
            values = {self.params[k]: self.seeds[self.params[k]] for k in own}
            self._outer[own] = DualNumbers(values, base=self.values_ns if self.nested else None)
        return self._outer[own]

    def calls(self, op: Operation) -> tuple[GateCall | None, list[tuple[int, GateCall]]]:
        """The operation's call and ``[(k, dU/dp_k call)]`` for the parameters it depends on
        (``None`` for barriers and identities)."""
        own = self.own_parameters(op)
        if not own:
            return _gate_call(call_for(op, self.values_ns)), []
        dual_call = _gate_call(call_for(op, self.seeded(own)))
        if dual_call is None:
            return None, []
        if isinstance(dual_call, PermutationCall) and dual_call.phases is None:
            return dual_call, []
        value, partials = split(dual_call.data, len(own), self.dtype)
        derivatives = [
            (own[i], dual_call.with_data(d)) for i, d in enumerate(partials) if _nonzero(d)
        ]
        return dual_call.with_data(value), derivatives

    def angle(self, op: Operation) -> tuple[Any, list[tuple[int, Any]]]:
        """The value of the first parameter (the angle) of ``op``'s gate and its partials
        ``[(k, d theta / d p_k)]``; a bare parameter needs no dual evaluation."""
        theta = op.gate.params[0]
        if theta in self.index:
            return self.seeds[theta], [(self.index[theta], 1.0)]
        own = self.own_parameters(op)
        dual = Dual.lift(self.seeded(own).real_scalar(theta))
        partials = [] if dual.partials is None else zip(own, dual.partials)
        return dual.value, [(k, d) for k, d in partials if d != 0]


def _real_if_real(value: Any) -> Any:
    z = complex(value)
    return z.real if z.imag == 0 else z


def _gate_call(call: Any) -> GateCall | None:
    if call is not None and not isinstance(call, GateCall):
        raise ArgumentTypeError(f"expected a gate, got {call!r}")
    return call


def _nonzero(data: Any) -> bool:
    return any(x != 0 for x in np.asarray(data).reshape(-1))


def real_terms(observable: str | PauliSum, n_qubits: int) -> list[tuple[float, Any]]:
    """The Pauli terms of a Hermitian observable with real float coefficients, checked to act
    within ``n_qubits`` qubits."""
    obs = pauli_sum_of(observable)
    if obs.n_qubits > n_qubits:
        raise QubitIndexError(
            f"observable acts on qubit {obs.n_qubits - 1} but the circuit has {n_qubits} qubits"
        )
    terms = []
    for coeff, pauli in obs.terms:
        z = to_python_complex(coeff, "observable coefficient")
        if z.imag != 0:
            raise NumberTypeError(f"observable coefficients must be real (Hermitian), got {coeff}")
        terms.append((z.real, pauli))
    return terms


def pauli_sum_rows(terms: list[tuple[float, Any]], states: np.ndarray) -> np.ndarray:
    """``H |psi_p>`` for every row ``p`` of ``states`` (``(points, 2**n)`` machine numbers),
    a new array: each term's ``i**n_y X^x Z^z`` as a signed, permuted copy of the rows."""
    n_qubits = states.shape[1].bit_length() - 1
    index = np.arange(states.shape[1], dtype=np.int64)
    out = np.zeros_like(states)
    for coeff, pauli in terms:
        x, z, n_y = pauli_masks(pauli)
        signed = states * pauli_signs(n_qubits, z) if z else states
        out += (coeff * 1j ** (n_y % 4)) * (signed[:, index ^ x] if x else signed)
    return out


def apply_pauli_sum(
    terms: list[tuple[float, Any]], state: np.ndarray, backend: Backend, ns: NumberSystem
) -> np.ndarray:
    """``H |state>`` as a new array, each Pauli factor applied with the backend's primitives
    (the first term in the result itself, later ones in one scratch state)."""
    y_phases, z_diag = ns.array([ns.I, -ns.I]), ns.array([ns.one, -ns.one])
    out: np.ndarray | None = None
    tmp: np.ndarray | None = None
    for coeff, pauli in terms:
        if out is None:
            term = out = state.copy()
        else:
            tmp = np.empty_like(state) if tmp is None else tmp
            tmp[...] = state
            term = tmp
        for q, letter in pauli:
            if letter == "X":
                backend.apply_permutation(term, _FLIP, None, (q,))
            elif letter == "Y":
                backend.apply_permutation(term, _FLIP, y_phases, (q,))
            elif letter == "Z":
                backend.apply_diagonal(term, z_diag, (q,))
        if coeff != 1:
            term *= coeff
        if term is not out:
            out += term
    if out is None:  # no terms: H = 0
        out = np.zeros_like(state)
        if state.dtype == object:
            out[:] = [ns.zero] * state.size
    return out


def real_inner(a: np.ndarray, b: np.ndarray, backend: Backend, ns: NumberSystem) -> Any:
    """``Re <a|b>``."""
    value = backend.inner(a, b, ns)
    return ns.real(value) if a.dtype == object else float(np.real(value))


class TangentState(StateBase):
    """A state and its tangents ``d psi / d p_k`` (see the module docs)."""

    def __init__(
        self,
        primal: np.ndarray,
        tangents: Sequence[np.ndarray | None],
        numbers: DualNumbers,
        backend: Backend | None = None,
    ) -> None:
        if not isinstance(numbers, DualNumbers):
            raise NumberTypeError("a tangent state needs numbers=gq.DualNumbers({param: value})")
        if len(tangents) != len(numbers.parameters):
            raise ArgumentValueError(
                f"{len(tangents)} tangents for {len(numbers.parameters)} parameters"
            )
        self.primal = np.ascontiguousarray(primal, dtype=np.complex128)
        self.tangents: list[np.ndarray | None] = list(tangents)
        self.n_qubits = int(self.primal.size).bit_length() - 1
        self.backend = select_backend(self.primal) if backend is None else backend
        self.clbits: dict[int, int] = {}
        self._numbers = numbers
        self._complex = get_number_system("complex128")

    @classmethod
    def zeros(
        cls, n_qubits: int, numbers: DualNumbers, backend: Backend | None = None
    ) -> TangentState:
        """``|0...0>``, whose tangents are all zero (on ``backend``, or the default CPU one)."""
        ns = get_number_system("complex128")
        chosen = backend_for(ns) if backend is None else backend
        return cls(chosen.zeros(n_qubits, ns), [None] * len(numbers.parameters), numbers, chosen)

    @property
    def numbers(self) -> DualNumbers:
        """The dual numbers the state is seeded with; results are their :class:`Dual` s."""
        return self._numbers

    def copy(self) -> TangentState:
        """An independent copy of the primal state and its tangents."""
        out = TangentState(
            self.primal.copy(),
            [None if t is None else t.copy() for t in self.tangents],
            self._numbers,
            self.backend,
        )
        out.clbits = dict(self.clbits)
        return out

    # -- evolution -----------------------------------------------------------------------------
    def apply(self, circuit: Circuit | Operation, seed: Seed = None) -> TangentState:
        """Apply ``circuit`` in place (every gate's calls and derivatives are built before any
        amplitude changes); mid-circuit measurements and resets collapse the state and its
        tangents onto the drawn outcome."""
        circuit = self.check_circuit(circuit)
        free = self._numbers.unbound(circuit.parameters)
        if free:
            names = ", ".join(sorted(map(str, free)))
            raise UnboundParameterError(
                f"circuit has parameters ({names}) the tangent state has no values for"
            )
        values = {p: _real_if_real(self._numbers.scalar(p).value) for p in self._numbers.parameters}
        sweep = DerivativeCalls(self._numbers.parameters, self._complex, values)
        rest, _ = circuit.split_terminal_measurements()
        steps: list[Any] = []
        for op in rest.operations:
            if op.gate.kind in (GateKind.MEASURE, GateKind.RESET):
                steps.append(op)
            elif op.gate.kind in NON_UNITARY:
                raise NotUnitaryError(
                    f"tangent states run gates, measurements and resets, not {op.gate.name}; "
                    "gq.gradient differentiates noisy circuits through a density matrix"
                )
            elif op.gate.kind is not GateKind.BARRIER:
                steps.append(sweep.calls(op))
        generator = sampling.rng(seed)
        scratch: np.ndarray | None = None  # dU/dp_k psi, one buffer for the whole run
        for step in steps:
            if isinstance(step, Operation):
                self._collapse_operation(step, generator)
                continue
            call, derivatives = step
            if call is None:
                continue
            for t in self.tangents:
                if t is not None:
                    call.run(self.backend, t)
            for k, dcall in derivatives:
                current = self.tangents[k]
                if current is None:  # the parameter's first gate: its tangent starts here
                    d = self.primal.copy()
                    run_restricted(dcall, self.backend, d, self._complex)
                    self.tangents[k] = d
                    continue
                if scratch is None:
                    scratch = np.empty_like(self.primal)
                scratch[...] = self.primal
                run_restricted(dcall, self.backend, scratch, self._complex)
                current += scratch
            call.run(self.backend, self.primal)
        return self

    def _collapse_operation(self, op: Operation, generator: np.random.Generator) -> None:
        (qubit,) = op.targets
        outcome = self.measure([qubit], seed=generator)
        if op.gate.kind is GateKind.MEASURE:
            self.clbits[op.gate.clbit] = int(outcome)  # type: ignore[attr-defined]
        elif outcome == "1":
            for arr in (self.primal, *(t for t in self.tangents if t is not None)):
                self.backend.apply_permutation(arr, _FLIP, None, (qubit,))

    # -- results -------------------------------------------------------------------------------
    @property
    def amplitudes(self) -> np.ndarray:
        """Every amplitude as a :class:`Dual` (value and its partials), an object array."""
        return self.to_numpy()

    def to_numpy(self) -> np.ndarray:
        """Every amplitude as a :class:`Dual` (value and partials), an object array."""
        zero = np.zeros(self.primal.size, dtype=np.complex128)
        columns = (
            np.stack([zero if t is None else t for t in self.tangents], axis=1)
            if (self.tangents)
            else np.zeros((self.primal.size, 0), dtype=np.complex128)
        )
        out = np.empty(self.primal.size, dtype=object)
        out[:] = [Dual(complex(v), columns[i]) for i, v in enumerate(self.primal)]
        return out

    def probabilities(self, qubits: Sequence[int] | None = None) -> np.ndarray:
        """Every basis probability (or the marginal over ``qubits``) as a :class:`Dual` with
        its derivatives ``2 Re(conj(psi) t_k)``."""
        qs = None if qubits is None else as_qubit_tuple(qubits, self.n_qubits)
        p = np.asarray(self.backend.probabilities(self.primal, qs, self._complex), np.float64)
        partials = np.zeros((p.size, len(self.tangents)))
        for k, t in enumerate(self.tangents):
            if t is not None:
                partials[:, k] = marginalize(2 * np.real(np.conj(self.primal) * t), qs)
        out = np.empty(p.size, dtype=object)
        out[:] = [Dual(float(v), partials[i]) for i, v in enumerate(p)]
        return out

    def expectation(self, observable: str | PauliSum) -> Dual:
        """``<psi|H|psi>`` and its gradient ``2 Re <H psi|t_k>``, as a :class:`Dual`
        (Hermitian observables: real coefficients)."""
        terms = real_terms(observable, self.n_qubits)
        h_psi = apply_pauli_sum(terms, self.primal, self.backend, self._complex)
        value = real_inner(self.primal, h_psi, self.backend, self._complex)
        partials = np.array([
            0.0 if t is None else 2 * real_inner(h_psi, t, self.backend, self._complex)
            for t in self.tangents
        ])  # fmt: skip
        return Dual(value, partials)

    def sample(
        self, shots: int, seed: Seed = None, qubits: Sequence[int] | None = None
    ) -> dict[str, int]:
        """Counts of ``shots`` measurements, drawn from the primal state."""
        return sampling.sample_distribution(self._distribution, self.n_qubits, shots, seed, qubits)

    def _distribution(self, qubits: tuple[int, ...] | None) -> np.ndarray:
        p = self.backend.probabilities(self.primal, qubits, self._complex)
        return sampling.host_distribution(p)

    def measure(self, qubits: Sequence[int] | None = None, seed: Seed = None) -> str:
        """Measure ``qubits`` (all when omitted) and collapse the state and its tangents onto
        the outcome: ``psi' = P psi / sqrt(p)``, ``t' = P t / sqrt(p) - P psi dp / (2 p^1.5)``
        with ``dp = 2 Re <P psi|P t>``."""
        qs = (
            tuple(range(self.n_qubits)) if qubits is None else as_qubit_tuple(qubits, self.n_qubits)
        )
        outcome = sampling.draw_outcome(self._distribution(qs), seed)
        indicator = np.zeros(1 << len(qs), dtype=np.complex128)
        indicator[outcome] = 1
        ns, be = self._complex, self.backend
        be.apply_diagonal(self.primal, indicator, qs)
        p = float(be.norm_squared(self.primal, ns))
        scale = 1 / np.sqrt(p)
        for k, t in enumerate(self.tangents):
            if t is None:
                continue
            be.apply_diagonal(t, indicator, qs)
            dp = 2 * real_inner(self.primal, t, be, ns)
            t *= scale
            t -= self.primal * (dp / (2 * p**1.5))
            self.tangents[k] = t
        self.primal *= scale
        return sampling.bitstring(outcome, len(qs))


def run_tangent(request: SimulationRequest) -> TangentState:
    """``method="tangent"``: ``numbers`` must be ``gq.DualNumbers({param: value, ...})``,
    which names the parameters to differentiate and their values."""
    numbers = request.numbers
    if not isinstance(numbers, DualNumbers) or numbers.base.name != "complex128":
        raise NumberTypeError(
            "method='tangent' needs numbers=gq.DualNumbers({param: value, ...}) (plain duals)"
        )
    from .registry import cpu_backend

    state = TangentState.zeros(request.circuit.n_qubits, numbers, cpu_backend(request, "tangent"))
    if request.initial is not None:
        from .statevector import initial_state

        start = initial_state(
            request.circuit.n_qubits, request.initial, get_number_system("complex128"),
            state.backend.name,
        )  # fmt: skip
        state.primal[...] = start.to_numpy()
    return state.apply(request.circuit, seed=request.seed)
