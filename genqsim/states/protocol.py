"""The State protocol: what every kind of state offers, whatever it stores.

A state kind (a dense state vector, an interval enclosure, a tangent state, and later a
density matrix, an MPI-distributed vector or a matrix-product state) is one module that
implements this protocol and one registration (:func:`genqsim.states.register_method`, or
the ``genqsim.states`` entry-point group). Results come in the state's number system:
floats for machine numbers, expressions for SymPy, balls for interval states, dual numbers
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

from ..errors import ArgumentTypeError
from ..numbers import Number, NumberSystem

if TYPE_CHECKING:
    from ..circuit import Circuit, Operation
    from ..pauli import PauliSum

Seed = int | np.random.Generator | None
"""A seed for sampling and collapse: an integer, a generator (shared across calls), or None."""


def as_circuit(item: Any, n_qubits: int) -> Circuit:
    """What ``State.apply`` takes: a circuit, or one operation (run as a circuit of one)."""
    from ..circuit import Circuit, Operation

    if isinstance(item, Operation):
        return Circuit(n_qubits, [item])
    if not isinstance(item, Circuit):
        raise ArgumentTypeError(
            f"apply() takes a Circuit, got {type(item).__name__} (or pass one Operation)"
        )
    return item


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
class HasOverlap(Protocol):
    """States with an overlap: ``<self|other>`` and ``|<self|other>|**2``."""

    def inner(self, other: Any) -> Number: ...

    def fidelity(self, other: Any) -> Number: ...
