"""The backend protocol and the generic base every backend extends.

The primitives act in place on a flat state array of length ``2**n`` (qubit 0 = least
significant bit of the index). ``numbers`` is the state's number system; complex backends may
ignore it, object-array routines need it for conjugates and ``|z|**2``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .. import kernels
from ..numbers import NumberSystem


@runtime_checkable
class Backend(Protocol):
    """What a backend provides. ``priority`` orders automatic selection (higher first)."""

    name: str
    priority: int

    def supports(self, array: Any) -> bool: ...

    def apply_matrix(
        self,
        state: Any,
        matrix: np.ndarray,
        targets: Sequence[int],
        controls: Sequence[int] = (),
        control_values: Sequence[int] = (),
    ) -> None: ...

    def apply_diagonal(
        self,
        state: Any,
        diagonal: np.ndarray,
        targets: Sequence[int],
        controls: Sequence[int] = (),
        control_values: Sequence[int] = (),
    ) -> None: ...

    def apply_permutation(
        self,
        state: Any,
        permutation: Sequence[int],
        phases: np.ndarray | None,
        targets: Sequence[int],
        controls: Sequence[int] = (),
        control_values: Sequence[int] = (),
    ) -> None: ...

    def probabilities(
        self, state: Any, qubits: Sequence[int] | None, numbers: NumberSystem
    ) -> Any: ...

    def inner(self, a: Any, b: Any, numbers: NumberSystem) -> Any: ...

    def norm_squared(self, state: Any, numbers: NumberSystem) -> Any: ...

    def expectation_pauli(
        self, state: Any, x_mask: int, z_mask: int, numbers: NumberSystem
    ) -> Any: ...

    def zeros(self, n_qubits: int, numbers: NumberSystem) -> Any: ...

    def asarray(self, array: Any, numbers: NumberSystem) -> Any: ...

    def to_numpy(self, state: Any) -> np.ndarray: ...


class GenericBackend:
    """The generic routines of :mod:`genqsim.kernels`, for NumPy arrays of any dtype.

    Fast backends subclass it and override the primitives they specialise; the rest fall back
    to these.
    """

    name = "generic"
    priority = 0

    def supports(self, array: Any) -> bool:
        return isinstance(array, np.ndarray)

    def apply_matrix(self, state, matrix, targets, controls=(), control_values=()) -> None:
        kernels.apply_matrix(state, matrix, targets, controls, control_values)

    def apply_diagonal(self, state, diagonal, targets, controls=(), control_values=()) -> None:
        kernels.apply_diagonal(state, diagonal, targets, controls, control_values)

    def apply_permutation(
        self, state, permutation, phases, targets, controls=(), control_values=()
    ) -> None:
        kernels.apply_permutation(state, permutation, phases, targets, controls, control_values)

    def probabilities(self, state, qubits, numbers):
        return kernels.probabilities(state, qubits, numbers)

    def inner(self, a, b, numbers):
        return kernels.inner(a, b, numbers)

    def norm_squared(self, state, numbers):
        return kernels.norm_squared(state, numbers)

    def expectation_pauli(self, state, x_mask, z_mask, numbers):
        return kernels.expectation_pauli(state, x_mask, z_mask, numbers)

    def zeros(self, n_qubits: int, numbers: NumberSystem) -> np.ndarray:
        """``|0...0>`` in the given numbers (object arrays filled with the system's own 0, 1)."""
        if numbers.dtype.kind == "c":
            state = np.zeros(1 << n_qubits, dtype=numbers.dtype)
            state[0] = 1
            return state
        state = np.full(1 << n_qubits, numbers.zero, dtype=object)
        state[0] = numbers.one
        return state

    def asarray(self, array: Any, numbers: NumberSystem) -> np.ndarray:
        return numbers.array(np.asarray(array))

    def to_numpy(self, state: Any) -> np.ndarray:
        return np.array(state, copy=True)

    def __repr__(self) -> str:
        return f"<genqsim backend {self.name!r}>"
