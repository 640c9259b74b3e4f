"""State vectors: an array of amplitudes, its number system and the backend that acts on it
(``method="statevector"``, the default kind of state).

Every method that changes the state validates its whole input first, so a rejected call leaves
the amplitudes exactly as they were.
"""

from __future__ import annotations

import contextlib
import numbers as _abc
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..backends import Backend, DeviceSampler, backend_for, capability
from ..backends import select_backend as _select_backend
from ..circuit.circuit import Circuit, Operation
from ..circuit.growth import EXACT_TERM_COST, trig_growth_log2, warn_if_explosive
from ..errors import (
    ArgumentTypeError,
    ArgumentValueError,
    GenqsimError,
    InvalidProbabilityError,
    MatrixShapeError,
    NonFiniteError,
    NormalizationError,
    NumberTypeError,
    QubitCountMismatchError,
    QubitIndexError,
    StateShapeError,
)
from ..linalg.observables import (
    Hermitian,
    SparseObservable,
    matrix_expectation_value,
    sparse_quadratic_form,
)
from ..linalg.pauli import PauliSum
from ..numbers import Number, NumberSystem, get_number_system, number_system_for_array
from ..plan import (
    ChannelCall,
    MeasureCall,
    ResetCall,
    check_bound,
    plan_to_apply,
    run_plan,
)
from ..support.progress import ProgressBar, bar_for
from ..support.validation import as_qubit_tuple, check_n_qubits, check_operation_qubits
from . import sampling
from .base import StateBase, check_qubit_count, check_same_size
from .display import state_vector_html, state_vector_latex
from .options import RunOptions, run_threads
from .protocol import Seed
from .registry import mixed_state

if TYPE_CHECKING:
    from .density import DensityMatrix
    from .registry import SimulationRequest


def _n_qubits_of_length(length: int) -> int:
    if length < 1 or length & (length - 1):
        raise StateShapeError(f"a state has 2**n amplitudes; length {length} is not a power of two")
    return length.bit_length() - 1


class StateVector(StateBase):
    """A pure state of ``n_qubits`` qubits; qubit 0 is the least-significant index bit.

    ``StateVector(array)`` wraps an existing array without copying when its dtype matches the
    number system (``numbers`` inferred from the dtype when omitted: complex dtypes are machine
    numbers, object arrays SymPy). Giving ``numbers`` that differ from the array's dtype is an
    explicit request to convert, and copies.
    """

    def __init__(
        self,
        array: Any,
        numbers: str | NumberSystem | None = None,
        backend: str | Backend | None = None,
        options: RunOptions | None = None,
    ) -> None:
        if not hasattr(array, "shape") or not hasattr(array, "dtype"):
            array = np.asarray(array, dtype=object if numbers is None else None)
            if numbers is None and array.dtype == object:
                numbers = get_number_system("sympy")
        if len(array.shape) != 1:
            raise StateShapeError(f"a state is a 1-D array, got shape {tuple(array.shape)}")
        self.n_qubits = _n_qubits_of_length(int(array.shape[0]))
        ns = number_system_for_array(array) if numbers is None else get_number_system(numbers)
        if np.dtype(array.dtype) != ns.dtype:
            if np.dtype(array.dtype).kind == "b":
                raise NumberTypeError("a boolean array is not a state; convert it explicitly")
            array = ns.array(np.asarray(array))
        if ns.dtype.kind == "c" and not np.isfinite(complex(array.sum())):
            # one pass, no temporary: a sum of finite amplitudes is finite
            raise NonFiniteError("state amplitudes must be finite (found NaN or inf)")
        self.numbers: NumberSystem = ns
        if isinstance(backend, str) or backend is None:
            self.backend: Backend = _select_backend(array, backend)
        else:
            if not backend.supports(array):
                raise NumberTypeError(f"backend {backend.name!r} cannot work on this array")
            self.backend = backend
        self._amplitudes = array
        self.options = RunOptions() if options is None else options
        self.clbits: dict[int, int] = {}

    # -- access --------------------------------------------------------------------------------
    @property
    def amplitudes(self) -> Any:
        """The amplitude array itself (not a copy)."""
        return self._amplitudes

    def to_numpy(self) -> np.ndarray:
        """A NumPy copy of the amplitudes (from the device for GPU states)."""
        return self.backend.to_numpy(self._amplitudes)

    def __len__(self) -> int:
        return int(self._amplitudes.shape[0])

    def __repr__(self) -> str:
        return (
            f"<StateVector: {self.n_qubits} qubits, numbers={self.numbers.name!r}, "
            f"backend={self.backend.name!r}>"
        )

    def copy(self) -> StateVector:
        """An independent copy on the same backend, numbers and run options."""
        return StateVector(self._amplitudes.copy(), self.numbers, self.backend, self.options)

    def _threads(self) -> contextlib.AbstractContextManager[None]:
        return run_threads(self.backend, self.options)

    # -- evolution -----------------------------------------------------------------------------
    def apply(
        self,
        circuit: Circuit | Operation,
        fuse: int | bool | None = None,
        seed: Seed = None,
        progress: bool | None = None,
    ) -> StateVector:
        """Apply ``circuit`` in place and return ``self``.

        ``progress=True`` draws a progress bar on standard error for large runs (default: the
        state's run options).

        Terminal measurements are not applied (they feed :meth:`sample`); mid-circuit
        measurements and resets collapse the state with a generator seeded by ``seed``, and
        their outcomes are stored in ``self.clbits`` (classical bit -> 0/1).

        ``fuse`` sets how many qubits fused gate blocks may span (default: the run options',
        which default to on for machine numbers, off for symbolic ones; ``False`` runs gate by
        gate).

        The whole circuit is checked and turned into primitive calls before the first amplitude
        changes: a circuit with unbound parameters (for non-symbolic numbers), non-finite
        values or the wrong qubit count is rejected with the state untouched. For machine
        numbers that plan is kept on the circuit until the circuit grows, so applying the same
        circuit again (a Trotter step, one circuit on many states) skips the planning.
        """
        circuit = self.check_circuit(circuit)
        fuse = self.options.fuse if fuse is None else fuse
        progress = self.options.progress if progress is None else progress
        with self.numbers.context():
            plan = plan_to_apply(circuit, self.numbers, self.backend, fuse)
        context = StateVectorContext(self, sampling.rng(seed)) if circuit.has_non_unitary else None
        growth = trig_growth_log2(circuit, self.numbers)  # terms per amplitude, exact runs
        warn_if_explosive(circuit, self.numbers, growth)
        bar = self._progress_bar(len(plan), growth) if progress else None
        with self.numbers.context(), self._threads():
            run_plan(plan, self.backend, self._amplitudes, context, bar)
        if bar is not None:
            bar.close()
        return self

    def _progress_bar(self, steps: int, growth: float) -> ProgressBar | None:
        """The bar of a run of ``steps`` plan items whose amplitudes hold about
        ``2**growth`` terms each, if the run is large enough to show one."""
        work = steps * len(self) * (EXACT_TERM_COST * 2.0 ** min(growth, 60) if growth else 1)
        return bar_for(True, steps, work, f"{self.n_qubits} qubits")

    def apply_matrix(
        self,
        matrix: Any,
        targets: int | Sequence[int],
        controls: int | Sequence[int] = (),
        control_values: int | Sequence[int] | None = None,
    ) -> StateVector:
        """Apply any ``2**k x 2**k`` matrix (unitary or not: projectors, Kraus operators) to
        ``targets`` under controls, in place. ``targets[0]`` is the matrix index's lowest bit."""
        t, c, v = check_operation_qubits(self.n_qubits, targets, controls, control_values)
        arr = np.asarray(matrix, dtype=object) if _is_sympy_matrix(matrix) else np.asarray(matrix)
        size = 1 << len(t)
        if arr.shape != (size, size):
            raise MatrixShapeError(
                f"{len(t)} target(s) need a {size}x{size} matrix, got shape {arr.shape}"
            )
        data = self.numbers.array(arr)
        with self.numbers.context(), self._threads():
            self.backend.apply_matrix(self._amplitudes, data, t, c, v)
        return self

    # -- reductions ----------------------------------------------------------------------------
    def probabilities(self, qubits: Sequence[int] | None = None) -> np.ndarray:
        """Probabilities of every basis state, or the marginal distribution of ``qubits``
        (indexed with ``qubits[0]`` as the least-significant bit)."""
        qs = None if qubits is None else as_qubit_tuple(qubits, self.n_qubits)
        with self.numbers.context(), self._threads():
            return self.backend.probabilities(self._amplitudes, qs, self.numbers)

    def norm_squared(self) -> Number:
        """``<psi|psi>``."""
        with self.numbers.context(), self._threads():
            return self.backend.norm_squared(self._amplitudes, self.numbers)

    def normalize(self) -> StateVector:
        """Scale to unit norm in place (exactly, for symbolic numbers)."""
        n2 = self.norm_squared()
        if self.numbers.symbolic:
            n2 = self.numbers.simplify(n2)
        elif not n2 > 0:
            raise InvalidProbabilityError("cannot normalise a zero state")
        scale = self.numbers.one / self.numbers.sqrt(n2)
        if self.numbers.dtype.kind == "c":
            scale = np.asarray(scale).astype(self.numbers.dtype)[()]  # a scalar, for GPU arrays too
        with self.numbers.context():
            self._amplitudes *= scale
        return self

    def inner(self, other: StateVector) -> Number:
        """``<self|other>``."""
        self._check_same_size(other)
        with self.numbers.context(), self._threads():
            return self.backend.inner(self._amplitudes, other._amplitudes, self.numbers)

    def fidelity(self, other: StateVector) -> Number:
        """``|<self|other>|**2`` (for normalised states)."""
        return self.numbers.abs2(self.inner(other))

    def reduced_density_matrix(self, qubits: int | Sequence[int]) -> DensityMatrix:
        """The state of ``qubits`` with the others traced out, as a
        :class:`~genqsim.states.DensityMatrix` in this state's numbers (exact for symbolic
        ones); its qubit ``i`` is ``qubits[i]``. Built as ``A A^dagger`` from the amplitudes
        arranged as a ``2**k x 2**(n-k)`` matrix, never as the ``4**n`` density matrix."""
        qs = as_qubit_tuple(qubits, self.n_qubits)
        if not qs:
            raise ArgumentValueError("keep at least one qubit")
        n, k = self.n_qubits, len(qs)
        order = kept_first(n, qs)
        psi = self.to_numpy().reshape((2,) * n).transpose(order).reshape(1 << k, 1 << (n - k))
        with self.numbers.context():
            if self.numbers.dtype.kind == "c":
                rho = psi @ psi.conj().T
            else:
                conj = np.vectorize(self.numbers.conj, otypes=[object])(psi)
                rho = np.dot(psi, conj.T)
        return mixed_state(rho, self.numbers, self.options)  # type: ignore[return-value]

    def entanglement_entropy(self, qubits: int | Sequence[int], base: float = 2) -> float:
        """The von Neumann entropy of ``qubits``' reduced state (in bits by default): how
        entangled they are with the rest, for a normalised pure state. The smaller side is
        traced out (both sides have the same entropy), so the matrix has at most
        ``2**(n//2)`` rows."""
        return pure_state_entropy(self, qubits, base)

    def expectation(self, observable: str | PauliSum | Hermitian | SparseObservable) -> Number:
        """``<psi|H|psi>`` for a Pauli sum such as ``"Z0 Z1 + 0.5*X2"``, a
        :class:`~genqsim.Hermitian` matrix on some qubits, or a sparse matrix over all of them
        (:class:`~genqsim.SparseObservable`, or a ``scipy.sparse`` matrix as it is).

        Numeric states return a float (complex if a coefficient is complex); symbolic states
        an expression. Coefficients may be symbols when the numbers are symbolic.
        """
        return super().expectation(observable)

    def _matrix_expectation(self, obs: Hermitian | SparseObservable) -> Number:
        if isinstance(obs, Hermitian):  # one application of the matrix to a copy
            image = self.copy().apply_matrix(obs.matrix, obs.qubits)
            return matrix_expectation_value(self.inner(image), obs, self.numbers)
        psi = self.to_numpy()
        with self.numbers.context():
            value = sparse_quadratic_form(obs, psi, psi, self.numbers)
        return matrix_expectation_value(value, obs, self.numbers)

    def _reduction(self) -> contextlib.AbstractContextManager[Any]:
        stack = contextlib.ExitStack()
        stack.enter_context(self.numbers.context())
        stack.enter_context(self._threads())
        return stack

    def _pauli_value(self, x_mask: int, z_mask: int) -> Number:
        return self.backend.expectation_pauli(self._amplitudes, x_mask, z_mask, self.numbers)

    # -- sampling and measurement --------------------------------------------------------------
    def _to_host(self, values: Any) -> np.ndarray:
        return self.backend.to_numpy(values)

    def sample(
        self, shots: int, seed: Seed = None, qubits: Sequence[int] | None = None
    ) -> dict[str, int]:
        """Counts of ``shots`` measurements, as :meth:`StateBase.sample
        <genqsim.states.base.StateBase.sample>`; on a backend that samples on its device (a
        GPU) the shots are drawn there, unless ``seed`` is a generator shared with host code."""
        on_device = capability(self.backend, DeviceSampler)
        if on_device is None or isinstance(seed, np.random.Generator):
            return super().sample(shots, seed, qubits)
        shots = sampling.check_shots(shots)
        qs = None if qubits is None else as_qubit_tuple(qubits, self.n_qubits)
        sampling.check_normalised(float(self.norm_squared()))  # one number to the host
        drawn = on_device.sample_counts(self._amplitudes, qs, shots, seed)
        return sampling.keyed_counts(drawn, self.n_qubits if qs is None else len(qs))

    def _collapse(
        self, qubits: tuple[int, ...], outcome: int, probability: float | None = None
    ) -> None:
        """Keep the amplitudes that read ``outcome`` on ``qubits``, scaled by ``1/sqrt(p)``
        (exactly, for symbolic numbers; ``probability``: ``p`` where the caller has it, for
        machine numbers)."""
        exact = self._outcome_probability(qubits, outcome) if probability is None else probability
        diagonal = [self.numbers.zero] * (1 << len(qubits))
        diagonal[outcome] = self.numbers.one / self.numbers.sqrt(exact)
        with self.numbers.context(), self._threads():
            self.backend.apply_diagonal(self._amplitudes, self.numbers.array(diagonal), qubits)

    def stored(self) -> tuple[str, dict[Any, Any]]:
        """What :func:`genqsim.save_state` writes: the kind and its members."""
        return "statevector", {(): self._amplitudes}

    def _html(self) -> str | None:
        return state_vector_html(self)

    def _latex(self) -> str | None:
        return state_vector_latex(self)

    def _check_same_size(self, other: StateVector) -> None:
        if not isinstance(other, StateVector):
            raise ArgumentTypeError(f"expected a StateVector, got {type(other).__name__}")
        check_same_size(self, other)


class StateVectorContext:
    """What measurement, reset, channel and conditional calls need while a plan runs: the
    state, a generator, and a scratch buffer for trial Kraus branches (allocated once)."""

    def __init__(self, state: StateVector, rng: np.random.Generator) -> None:
        self.state = state
        self.rng = rng
        self.scratch: Any = None

    @property
    def clbits(self) -> dict[int, int]:
        return self.state.clbits

    def collapse(self, call: MeasureCall | ResetCall | ChannelCall) -> None:
        if isinstance(call, ChannelCall):
            self._draw_branch(call)
            return
        outcome = self.state.measure([call.qubit], seed=self.rng)
        if isinstance(call, MeasureCall):
            self.state.clbits[call.clbit] = int(outcome)
        elif outcome == "1":  # reset: flip back to |0>
            self.state.backend.apply_permutation(self.state.amplitudes, [1, 0], None, (call.qubit,))

    def _draw_branch(self, call: ChannelCall) -> None:
        """Apply one Kraus operator ``K_k``, drawn with probability ``||K_k psi||**2``, and
        renormalise (Pauli mixtures: drawn from their fixed probabilities, no trials)."""
        state, backend = self.state, self.state.backend
        amplitudes = state.amplitudes
        if call.mixture is not None:
            probabilities, branches = call.mixture
            k = int(self.rng.choice(len(probabilities), p=probabilities / probabilities.sum()))
            for gate_call in branches[k]:
                gate_call.run(backend, amplitudes)
            return
        threshold = self.rng.random()
        reached = 0.0
        best: tuple[float, int] = (-1.0, 0)
        for k, kraus_call in enumerate(call.kraus[:-1]):
            if self.scratch is None:
                self.scratch = amplitudes.copy()
            else:
                self.scratch[...] = amplitudes
            kraus_call.run(backend, self.scratch)
            weight = state.numbers.to_complex(
                backend.norm_squared(self.scratch, state.numbers)
            ).real
            best = max(best, (weight, k))
            reached += weight
            if threshold < reached:
                amplitudes[...] = self.scratch
                state.normalize()
                return
        if 1.0 - reached <= 1e-14 * max(1.0, reached) and best[0] > 0:
            call.kraus[best[1]].run(backend, amplitudes)  # rounding left the last branch empty
        else:
            call.kraus[-1].run(backend, amplitudes)
        state.normalize()


def kept_first(n_qubits: int, kept: Sequence[int]) -> list[int]:
    """The axis order of a ``(2,)*n`` amplitude tensor (axis ``a`` is qubit ``n-1-a``) that
    puts ``kept`` first, highest first, then the others: reshaped to ``(2**k, 2**(n-k))``, its
    row index has ``kept[i]`` as bit ``i``. Reduced states of every kind are built on it."""
    rest = [q for q in range(n_qubits) if q not in kept]
    return [n_qubits - 1 - q for q in reversed(kept)] + [n_qubits - 1 - q for q in reversed(rest)]


def pure_state_entropy(state: Any, qubits: int | Sequence[int], base: float) -> float:
    """The entanglement entropy of ``qubits`` in a normalised pure ``state`` (anything with
    ``n_qubits`` and ``reduced_density_matrix``), from the smaller side of the cut: a pure
    state's two sides have the same entropy."""
    qs = as_qubit_tuple(qubits, state.n_qubits)
    rest = [q for q in range(state.n_qubits) if q not in qs]
    if not qs or not rest:
        return 0.0  # the whole state, or nothing of it: a pure state has no entropy
    smaller = qs if len(qs) <= len(rest) else tuple(rest)
    return float(state.reduced_density_matrix(smaller).entropy(base))


def _is_sympy_matrix(matrix: Any) -> bool:
    import sympy

    return isinstance(matrix, sympy.MatrixBase)


# -- constructors ------------------------------------------------------------------------------


def zeros(
    n_qubits: int,
    numbers: str | NumberSystem = "complex128",
    backend: str | None = None,
    device: str | None = None,
    options: RunOptions | None = None,
) -> StateVector:
    """``|0...0>`` on ``n_qubits`` qubits, on the backend that ``device`` (``"cpu"``,
    ``"gpu"``) and the numbers imply, or on ``backend``; refuses states larger than the free
    (host or device) memory, before allocating."""
    n = check_n_qubits(n_qubits)
    ns = get_number_system(numbers)
    chosen = backend_for(ns, device, backend, 1 << n)
    return StateVector(chosen.zeros(n, ns), ns, chosen, options)


def basis(
    state: int | str,
    n_qubits: int | None = None,
    numbers: str | NumberSystem = "complex128",
    backend: str | None = None,
    device: str | None = None,
    options: RunOptions | None = None,
) -> StateVector:
    """A computational basis state: ``basis("011")`` (qubit n-1 leftmost) or
    ``basis(3, n_qubits=3)`` (a basis index, qubit 0 the least-significant bit)."""
    if isinstance(state, str):
        if not state or set(state) - {"0", "1"}:
            raise ArgumentValueError(f"a basis bitstring holds only 0 and 1, got {state!r}")
        if n_qubits is not None and n_qubits != len(state):
            raise QubitCountMismatchError(
                f"bitstring {state!r} has {len(state)} bits, not {n_qubits}"
            )
        n_qubits, index = len(state), int(state, 2)
    else:
        if n_qubits is None:
            raise ArgumentTypeError("basis(index) needs n_qubits")
        if isinstance(state, bool) or not isinstance(state, (_abc.Integral, np.integer)):
            raise ArgumentTypeError(f"a basis index must be an integer, got {state!r}")
        index = int(state)
    n = check_n_qubits(n_qubits)
    if not 0 <= index < 1 << n:
        raise QubitIndexError(f"basis index {index} out of range for {n} qubits")
    psi = zeros(n, numbers, backend, device, options)
    if index:
        psi.amplitudes[0] = psi.numbers.zero
        psi.amplitudes[index] = psi.numbers.one
    return psi


def initial_state(
    n_qubits: int,
    initial: Any,
    numbers: NumberSystem,
    backend: str | None = None,
    device: str | None = None,
    options: RunOptions | None = None,
) -> StateVector:
    """The starting state of a run: ``|0...0>`` (``initial=None``), a bitstring, a basis
    index, an array, or a copy of a StateVector, in ``numbers`` on the chosen backend."""
    if initial is None:
        return zeros(n_qubits, numbers, backend, device, options)
    if isinstance(initial, StateVector):
        check_qubit_count("initial state", initial.n_qubits, n_qubits, "the circuit")
        psi = initial.copy()
        if psi.numbers is not numbers:
            psi = StateVector(psi.amplitudes, numbers, backend)
        psi.options = initial.options if options is None else options
        return psi
    if isinstance(initial, str):
        return basis(initial, n_qubits, numbers, backend, device, options)
    if isinstance(initial, (_abc.Integral, np.integer)) and not isinstance(initial, bool):
        return basis(int(initial), n_qubits, numbers, backend, device, options)
    if isinstance(initial, StateBase):  # a state of another kind: no vector to start from
        kind = getattr(initial, "method", type(initial).__name__)
        raise ArgumentTypeError(
            f"the initial state is a {kind} state, which a state vector cannot start from: "
            f"run with method={kind!r} (method='auto', the default, does)"
        )
    chosen = backend_for(numbers, device, backend)
    if chosen.device == "cpu":
        psi = StateVector(np.array(initial, copy=True), numbers, backend, options)
    else:
        psi = StateVector(chosen.asarray(initial, numbers), numbers, chosen, options)
    check_qubit_count("initial state", psi.n_qubits, n_qubits, "the circuit")
    check_unit_norm(psi)
    return psi


NORM_TOLERANCE = {"complex128": 1e-6, "complex64": 1e-3}
"""How far the squared norm of a machine-number initial state may stray from one (vectors
normalised in single precision pass as complex128); exact numbers must be exactly one."""


def check_unit_norm(psi: StateVector) -> None:
    """Refuse an initial state whose squared norm is not one (:class:`NormalizationError`):
    a run from it would give probabilities and expectation values scaled without notice.
    A norm that depends on free parameters is left to the user."""
    n2: Any = psi.norm_squared()
    if psi.numbers.dtype.kind == "c":
        value = complex(n2).real
        tolerance = NORM_TOLERANCE.get(psi.numbers.name, 1e-6)
    else:
        if psi.numbers.free_symbols(np.array([n2], dtype=object)):
            return
        try:
            value = complex(psi.numbers.to_complex(n2)).real
        except (TypeError, ValueError, GenqsimError):
            return  # a number system without a numeric value for it
        tolerance = 1e-12
    if abs(value - 1.0) > tolerance:
        raise NormalizationError(
            f"the initial state has squared norm {value:.6g}, not 1: divide it by its norm "
            "(v / numpy.linalg.norm(v)), or pass gq.StateVector(v).normalize()"
        )


def run_statevector(request: SimulationRequest) -> StateVector:
    """``method="statevector"``: a dense state vector on the backend the request implies."""
    numbers = request.numbers or get_number_system("complex128")
    check_bound(request.circuit, numbers)  # the common mistake, caught before allocating
    psi = initial_state(
        request.circuit.n_qubits, request.initial, numbers, request.backend, request.device,
        request.options,
    )  # fmt: skip
    return psi.apply(request.circuit, seed=request.seed)  # validates all before any change
