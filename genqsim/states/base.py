"""One base under every kind of state: what the kinds share, written once.

A kind implements a small interface (the model is Cirq's ``SimulationState`` over a
``QuantumStateRepresentation``):

=============================================  ==============================================
required                                       what it is
=============================================  ==============================================
``n_qubits``, ``numbers``, ``clbits``           size, number system, mid-circuit outcomes
``apply(circuit)``                              run a circuit; begins with
                                                ``self.check_circuit(circuit)``
``probabilities(qubits=None)``                  all basis probabilities, or a marginal
``_pauli_value(x_mask, z_mask)``                ``<X^x Z^z>`` of one Pauli string
``_collapse(qubits, outcome)``                  project onto an outcome and renormalise
``copy()``                                      an independent copy
=============================================  ==============================================

and the base gives, once for all kinds: the check of a circuit against the state
(:meth:`StateBase.check_circuit`, the one place a qubit-count mismatch is raised for a
circuit), Pauli sums term by term (:meth:`StateBase.expectation`, every string checked before
the first is evaluated), sampling from the probabilities (:meth:`StateBase.sample`), measuring
with collapse (:meth:`StateBase.measure`), saving (where the kind is
:class:`~genqsim.states.protocol.Storable`), Jupyter displays (``_html``/``_latex`` of the
kind), and the name of the method that made the state (``state.method``).

Kinds whose numbers need their own arithmetic for a reduction (interval balls, dual numbers)
override the method concerned; optional abilities stay declared protocols
(:mod:`genqsim.states.protocol`).
"""

from __future__ import annotations

import dataclasses
import numbers as _abc
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..circuit.circuit import Circuit, Operation
from ..errors import ArgumentTypeError, NumberTypeError, QubitCountMismatchError, ShotsError
from ..linalg.observables import Hermitian, SparseObservable, observable_for_state
from ..linalg.pauli import PauliSum, pauli_masks
from ..numbers import Number, NumberSystem, to_python_complex
from ..support.lazysympy import is_sympy
from ..support.validation import as_qubit_tuple
from . import sampling
from .protocol import Seed
from .saving import save_state

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

_PHASE_OF_Y_COUNT = (1, 1j, -1, -1j)


def check_qubit_count(what: str, n_qubits: int, expected: int, of: str = "the state") -> None:
    """Refuse ``what`` of ``n_qubits`` qubits where ``of`` has ``expected``: the one check of
    matching sizes (circuits, initial states, other states)."""
    if n_qubits != expected:
        raise QubitCountMismatchError(f"{what} has {n_qubits} qubits but {of} has {expected}")


def check_same_size(state: Any, other: Any) -> None:
    """Refuse a pair of states of different sizes (overlaps, fidelities)."""
    if other.n_qubits != state.n_qubits:
        raise QubitCountMismatchError(f"states have {state.n_qubits} and {other.n_qubits} qubits")


def as_circuit(item: Any, n_qubits: int) -> Circuit:
    """What ``apply`` takes: a circuit, or one operation (run as a circuit of one)."""
    if isinstance(item, Operation):
        return Circuit(n_qubits, [item])
    if not isinstance(item, Circuit):
        raise ArgumentTypeError(
            f"apply() takes a Circuit, got {type(item).__name__} (or pass one Operation)"
        )
    return item


class StateBase:
    """What every built-in kind of state shares (see the module docs)."""

    method: str = ""
    """The simulation method that made the state (set by :func:`genqsim.simulate`)."""

    dense_limit: int | None = None
    """Kinds that hold far fewer than ``2**n`` numbers: above this many qubits a report lists
    no full distribution (sample instead). ``None``: no such limit."""

    n_qubits: int

    if TYPE_CHECKING:  # each kind stores these as attributes or offers them as properties

        @property
        def numbers(self) -> NumberSystem: ...

        @property
        def clbits(self) -> dict[int, int]: ...

    # -- what a kind provides ------------------------------------------------------------------
    def probabilities(self, qubits: Sequence[int] | None = None) -> Any:
        raise NotImplementedError

    def _pauli_value(self, x_mask: int, z_mask: int) -> Number:
        """``<X^x Z^z>`` of the state (``X`` on the bits of ``x_mask``, ``Z`` on ``z_mask``)."""
        raise NotImplementedError

    def _collapse(self, qubits: tuple[int, ...], outcome: int) -> None:
        """Project onto ``qubits`` reading ``outcome`` (``qubits[0]`` its lowest bit) and
        renormalise."""
        raise NotImplementedError

    def _matrix_expectation(self, observable: Hermitian | SparseObservable) -> Number:
        """``<H>`` of a matrix observable, for kinds that evaluate one."""
        raise ArgumentTypeError(
            f"{type(self).__name__} evaluates Pauli sums, not {type(observable).__name__} "
            "observables: write the observable as a Pauli sum, or use a state vector or a "
            "density matrix"
        )

    def _reduction(self) -> AbstractContextManager[Any]:
        """Entered around a reduction (the numbers' context; threaded kinds add threads)."""
        return self.numbers.context()

    # -- shared --------------------------------------------------------------------------------
    @property
    def backend_name(self) -> str:
        """The kernels that ran: the backend's name (kinds without one say what runs them)."""
        return str(self.backend.name)  # type: ignore[attr-defined]

    def _to_host(self, values: Any) -> np.ndarray:
        """A result array on the host (kinds on a device backend copy it from there)."""
        return np.asarray(values)

    def check_circuit(self, item: Circuit | Operation) -> Circuit:
        """``item`` as a circuit on this state's qubits (one operation becomes a circuit of
        one), or a typed error before anything changes."""
        circuit = as_circuit(item, self.n_qubits)
        check_qubit_count("circuit", circuit.n_qubits, self.n_qubits)
        return circuit

    def expectation(self, observable: Any) -> Number:
        """``<H>`` for a Pauli sum such as ``"Z0 Z1 + 0.5*X2"`` (each term evaluated on the
        state, none built as a matrix), or a matrix observable where the kind takes one
        (:class:`~genqsim.Hermitian`, :class:`~genqsim.SparseObservable`).

        A Pauli sum with complex coefficients (``"1j*Z0"``: not Hermitian) gives
        ``<psi|A|psi>``, a complex number, as Qiskit's ``Statevector.expectation_value``
        does; gradients and estimators take Hermitian observables only."""
        obs = observable_for_state(observable, self.n_qubits)
        if not isinstance(obs, PauliSum):
            return self._matrix_expectation(obs)
        with self._reduction():
            return pauli_sum_value(obs, self.numbers, self._pauli_value)

    def variance(self, observable: Any) -> Number:
        """``<H**2> - <H>**2`` for a Hermitian observable: the spread of single-shot
        outcomes of ``H`` (Pauli sums through their square ``H @ H``, matrix observables
        through their Pauli decomposition); exact in exact numbers, a float (never below 0)
        in machine numbers."""
        obs = _hermitian_terms(observable, self.n_qubits)
        mean = self.expectation(obs)
        value = self.expectation(obs @ obs) - mean * mean
        if self.numbers.dtype.kind == "c":
            return max(complex(value).real, 0.0)  # an eigenstate rounds to -1e-17
        return self.numbers.simplify(value) if self.numbers.symbolic else value

    def shot_estimate(
        self, observable: Any, shots: int, seed: Seed = None
    ) -> sampling.ShotEstimate:
        """``<H>`` as ``shots`` measurements per Pauli term would give it on a device: each
        term measured in its own eigenbasis (outcomes drawn with this state's exact
        probabilities, seeded by ``seed``), averaged and weighted by its coefficient, with
        the standard error of that average (:class:`~genqsim.states.sampling.ShotEstimate`;
        the identity term is exact). The state is not changed."""
        obs = _hermitian_terms(observable, self.n_qubits)
        count = sampling.check_shots(shots)
        if count < 1:
            raise ShotsError(f"an estimate needs at least one shot, got {shots!r}")
        generator = sampling.rng(seed)
        constant, coefficients, means = 0.0, [], []
        for c, pauli in obs.terms:
            weight = to_python_complex(c, "observable coefficient").real
            if not pauli:
                constant += weight
                continue
            mean = self.expectation(PauliSum([(1, pauli)]))
            coefficients.append(weight)
            means.append(complex(self.numbers.to_complex(mean)).real)
        found = sampling.pauli_term_estimate(coefficients, means, count, generator)
        return dataclasses.replace(found, value=found.value + constant)

    def _numeric_distribution(self, qubits: tuple[int, ...] | None) -> np.ndarray:
        """The (marginal) distribution as host floats, for drawing outcomes."""
        p = self.probabilities(qubits)
        if not isinstance(p, np.ndarray):
            p = self._to_host(p)  # a device array: the distribution comes to the host
        return sampling.host_distribution(p, lambda v: self.numbers.to_complex(v).real)

    def sample(
        self, shots: int, seed: Seed = None, qubits: Sequence[int] | None = None
    ) -> dict[str, int]:
        """Counts of ``shots`` measurements in the computational basis, without collapsing.

        Keys are bitstrings with the highest qubit leftmost (as Qiskit prints them); with
        ``qubits`` given, only those are measured and ``qubits[0]`` is the rightmost character.
        The same ``seed`` gives the same counts.
        """
        return sampling.sample_distribution(
            self._numeric_distribution, self.n_qubits, shots, seed, qubits
        )

    def measure(self, qubits: Sequence[int] | None = None, seed: Seed = None) -> str:
        """Measure ``qubits`` (all when omitted), collapse the state onto the outcome
        (renormalised) and return the outcome as a bitstring (``qubits[0]`` rightmost)."""
        qs = self._measured(qubits)
        outcome = sampling.draw_outcome(self._numeric_distribution(qs), seed)
        if qs:
            self._collapse(qs, outcome)
        return sampling.bitstring(outcome, len(qs))

    def _outcome_probability(self, qubits: tuple[int, ...], outcome: int) -> Number:
        """The probability of ``outcome`` on ``qubits``, the number a collapse divides by: a
        host float for machine numbers, simplified for symbolic ones (so the renormalised
        state stays exact)."""
        exact = self.probabilities(qubits)[outcome]
        if self.numbers.dtype.kind == "c":
            return float(exact)  # also brings a device scalar to the host
        return self.numbers.simplify(exact) if self.numbers.symbolic else exact

    def _measured(self, qubits: Sequence[int] | None) -> tuple[int, ...]:
        if qubits is None:
            return tuple(range(self.n_qubits))
        return as_qubit_tuple(qubits, self.n_qubits)

    def stored(self) -> tuple[str, dict[Any, Any]] | None:
        """What :func:`genqsim.save_state` writes (``None``: this kind is not saved)."""
        return None

    def save(self, path: str | os.PathLike[str], metadata: dict[str, Any] | None = None) -> None:
        """Write the state and what it is to ``path`` (:func:`genqsim.save_state`)."""
        save_state(self, path, metadata)

    def summary(self) -> dict[str, Any]:
        """Facts of this kind worth reporting beside the results (none by default)."""
        return {}

    def _html(self) -> str | None:
        return None

    def _latex(self) -> str | None:
        return None

    def _repr_html_(self) -> str | None:
        """Jupyter: a table of the most likely basis states (machine numbers)."""
        return self._html()

    def _repr_latex_(self) -> str | None:
        """Jupyter: the state written out in LaTeX (symbolic numbers, small states)."""
        return self._latex()


def _value_terms(obs: PauliSum, ns: NumberSystem) -> tuple[bool, list[Any], list[Any]]:
    """Whether every coefficient is real, the coefficients in ``ns`` and each string's
    masks: what :func:`pauli_sum_value` needs, made once per observable and number system."""
    real_coeffs = all(_is_real_number(c) for c, _ in obs.terms)
    convert = ns.real_scalar if real_coeffs else ns.scalar
    coeffs = [convert(c) for c, _ in obs.terms]
    return real_coeffs, coeffs, [pauli_masks(pauli) for _, pauli in obs.terms]


def pauli_sum_value(obs: PauliSum, ns: NumberSystem, raw: Callable[[int, int], Number]) -> Number:
    """``sum_k c_k <P_k>`` from ``raw(x_mask, z_mask)`` = the value of ``X^x Z^z`` (each
    string is ``i**n_y X^x Z^z``): a float for machine numbers (complex if a coefficient is),
    the system's number otherwise. Every coefficient and string is checked before the first
    ``raw`` call (a distributed state exchanges nothing for a sum it will refuse)."""
    if ns.dtype.kind == "c":  # machine numbers: converted once per observable
        real_coeffs, coeffs, masks = obs.derived(("terms", ns.name), lambda: _value_terms(obs, ns))
    else:  # other systems may depend on a context (a precision): converted each time
        real_coeffs, coeffs, masks = _value_terms(obs, ns)
    numeric = ns.dtype.kind == "c"
    total: Any = 0.0 if numeric else ns.zero
    for coeff, (x, z, n_y) in zip(coeffs, masks):
        value = raw(x, z)
        if numeric:
            total += coeff * (_PHASE_OF_Y_COUNT[n_y % 4] * complex(value)).real
        else:
            total += coeff * ns.real(ns.I ** (n_y % 4) * value)
    if numeric:
        total = complex(total)
        return total.real if total.imag == 0 else total
    return total if ns.symbolic or not real_coeffs else ns.real(total)


def pauli_sum_values(
    obs: PauliSum, ns: NumberSystem, strings: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> list[Number]:
    """:func:`pauli_sum_value` at many points at once, from ``strings(x_masks, z_masks)``:
    the ``(points, strings)`` values of ``X^x Z^z`` (a backend's
    :meth:`~genqsim.backends.SweepRunner.pauli_strings_points` on a chunk of states). The
    same values as the points' states give one by one (machine numbers)."""
    arrays = obs.derived(("term arrays", ns.name), lambda: _term_arrays(obs, ns))
    if arrays is None:  # no term (an empty sum): 0 at every point
        none = np.zeros(0, dtype=np.int64)
        return [0.0] * np.shape(strings(none, none))[0]
    x_masks, z_masks, phases, weights = arrays
    total = (strings(x_masks, z_masks) * phases).real @ weights
    return [float(t.real) if t.imag == 0 else complex(t) for t in np.atleast_1d(total)]


def _term_arrays(
    obs: PauliSum, ns: NumberSystem
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The X and Z masks, the phases of the Y counts and the coefficients of the terms as
    arrays (``None`` for no term): what :func:`pauli_sum_values` reads, made once per
    observable (a sweep of one point in an optimiser's loop asks again and again)."""
    _, coeffs, masks = obs.derived(("terms", ns.name), lambda: _value_terms(obs, ns))
    if not masks:
        return None
    x_masks = np.array([x for x, _, _ in masks], dtype=np.int64)
    z_masks = np.array([z for _, z, _ in masks], dtype=np.int64)
    phases = np.array([_PHASE_OF_Y_COUNT[n_y % 4] for _, _, n_y in masks])
    weights = np.array([complex(c) for c in coeffs])
    return x_masks, z_masks, phases, weights


def _is_real_number(value: Any) -> bool:
    """A real coefficient: a Python/NumPy real or a closed real SymPy number."""
    if is_sympy(value):
        return bool(value.is_number and value.is_real)
    return isinstance(value, (_abc.Real, np.floating, np.integer)) and not isinstance(value, bool)


def _hermitian_terms(observable: Any, n_qubits: int) -> PauliSum:
    """``observable`` as a Pauli sum with real coefficients (matrix observables through
    their Pauli decomposition), or :class:`~genqsim.NumberTypeError`."""
    obs = observable_for_state(observable, n_qubits)
    if not isinstance(obs, PauliSum):
        obs = obs.to_pauli_sum()
    for c, _ in obs.terms:
        if is_sympy(c) and c.is_real is False:
            raise NumberTypeError(
                f"variances and shot estimates take Hermitian observables (real coefficients), "
                f"got the coefficient {c}"
            )
    return obs
