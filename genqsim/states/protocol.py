"""The State protocol: what every kind of state offers, whatever it stores.

A state kind (a dense state vector, a density matrix, trajectories, an interval enclosure,
a tangent state, an MPI-distributed vector, a matrix-product state, or a plugin's) is one
module that implements this protocol and one registration
(:func:`genqsim.states.register_method` with a :class:`~genqsim.states.MethodSpec`, or the
``genqsim.states`` entry-point group). The built-in kinds share their implementation through
:class:`~genqsim.states.base.StateBase`. Results come in the state's number system: floats
for machine numbers, expressions for SymPy, balls for interval states, dual numbers
for tangent states.

Required (every state kind):

=========================================  ===========================================
``n_qubits``                               the number of qubits
``numbers``                                the :class:`~genqsim.NumberSystem` results are in
``apply(circuit)``                         apply a circuit (or one operation) in place
``probabilities(qubits=None)``             all basis probabilities, or a marginal
``sample(shots, seed=None, qubits=None)``  counts ``{"011": k}`` (qubit n-1 leftmost)
``measure(qubits=None, seed=None)``        measure and collapse; returns the outcome
``expectation(observable)``                ``<H>`` for a Pauli sum (or its string form)
``copy()``                                 an independent copy
``clbits``                                 outcomes of mid-circuit measurements
=========================================  ===========================================

Optional (where they make sense; check with ``isinstance(state, HasAmplitudes)`` etc.):

* :class:`HasAmplitudes`: ``amplitudes`` (the stored array) and ``to_numpy()``.
* :class:`HasOverlap`: ``inner(other)`` and ``fidelity(other)``.

Every method validates its whole input before it changes anything: a rejected call leaves
the state as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from ..numbers import Number, NumberSystem

if TYPE_CHECKING:
    from ..circuit.circuit import Circuit, Operation
    from ..linalg.pauli import PauliSum

Seed = int | np.random.Generator | None
"""A seed for sampling and collapse: an integer, a generator (shared across calls), or None."""


@runtime_checkable
class State(Protocol):
    """The required part of every state kind (see the module docs)."""

    n_qubits: int

    @property
    def clbits(self) -> dict[int, int]: ...

    @property
    def numbers(self) -> NumberSystem: ...

    def apply(self, circuit: Circuit | Operation) -> State: ...

    def probabilities(self, qubits: Sequence[int] | None = None) -> Any: ...

    def sample(
        self, shots: int, seed: Seed = None, qubits: Sequence[int] | None = None
    ) -> dict[str, int]: ...

    def measure(self, qubits: Sequence[int] | None = None, seed: Seed = None) -> str: ...

    def expectation(self, observable: str | PauliSum) -> Number: ...

    def copy(self) -> State: ...


@runtime_checkable
class HasAmplitudes(Protocol):
    """States that store amplitudes: the array itself, and a NumPy copy."""

    @property
    def amplitudes(self) -> Any: ...

    def to_numpy(self) -> np.ndarray: ...


@runtime_checkable
class HasRecordDistribution(Protocol):
    """Mixed states that keep every branch of mid-circuit measurements: the exact
    distribution of the classical record (``{"01": p, ...}``, bit ``n_clbits-1`` leftmost),
    with terminal measurements ``[(qubit, clbit), ...]`` added."""

    def record_distribution(
        self, terminal: Sequence[tuple[int, int]], n_clbits: int
    ) -> dict[str, float]: ...


@runtime_checkable
class HasOverlap(Protocol):
    """States with an overlap: ``<self|other>`` and ``|<self|other>|**2``."""

    def inner(self, other: Any) -> Number: ...

    def fidelity(self, other: Any) -> Number: ...


@runtime_checkable
class Storable(Protocol):
    """States :func:`genqsim.save_state` can write: ``stored()`` gives the kind's name and
    its members (``{classical record: array}``; one member ``{(): array}`` for a pure
    state), or ``None`` where this state cannot be saved."""

    def stored(self) -> tuple[str, dict[Any, Any]] | None: ...


@runtime_checkable
class HasEstimate(Protocol):
    """States whose results are averages over samples (trajectories): ``estimate(obs)``
    gives the mean with its standard error."""

    def estimate(self, observable: Any) -> Any: ...
