"""One circuit, many states: apply a circuit to every row of a ``(batch, 2**n)`` array.

On a backend with batch primitives (the GPU's) each gate is a single kernel launch over the
whole batch; elsewhere the rows are run one after the other with the same prepared plan
(built once)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backends import BatchPrimitives, backend_for, capability, select_backend
from ..circuit.circuit import Circuit
from ..errors import (
    ArgumentTypeError,
    NotUnitaryError,
    NumberTypeError,
    QubitCountMismatchError,
    StateShapeError,
)
from ..numbers import get_number_system
from ..plan import check_bound, plan_for_backend, run_plan


def apply_batch(circuit: Circuit, states: Any, fuse: int | bool | None = None) -> Any:
    """Apply ``circuit`` in place to each row of ``states`` (complex64/complex128, shape
    ``(batch, 2**n)``, NumPy arrays or a GPU backend's) and return ``states``."""
    if not isinstance(circuit, Circuit):
        raise ArgumentTypeError(f"apply_batch() takes a Circuit, got {type(circuit).__name__}")
    shape = getattr(states, "shape", None)
    if shape is None or len(shape) != 2:
        raise StateShapeError(f"a batch of states has shape (batch, 2**n), got {shape}")
    if shape[1] != 1 << circuit.n_qubits:
        raise QubitCountMismatchError(
            f"states have {shape[1]} amplitudes but the circuit acts on {circuit.n_qubits} qubits"
        )
    dtype = np.dtype(states.dtype)
    if dtype.kind != "c":
        raise NumberTypeError(f"batched states hold complex64 or complex128, not {dtype}")
    if circuit.has_non_unitary:
        raise NotUnitaryError("apply_batch runs unitary circuits (no measurement or reset)")
    numbers = get_number_system(dtype.name)
    check_bound(circuit, numbers)
    whole = capability(select_backend(states), BatchPrimitives)
    if whole is not None and whole.supports_batch(states):
        backend = select_backend(states)
        run_plan(plan_for_backend(circuit, numbers, backend, fuse), backend, states)
        return states
    if not isinstance(states, np.ndarray):
        raise StateShapeError(
            f"no backend runs batches of {type(states).__name__} arrays; use NumPy arrays"
        )
    backend = backend_for(numbers)
    plan = plan_for_backend(circuit, numbers, backend, fuse)
    for b in range(shape[0]):
        if states[b].flags.c_contiguous:
            run_plan(plan, backend, states[b])
        else:  # a strided row: run on a copy and write it back
            tmp = np.ascontiguousarray(states[b])
            run_plan(plan, backend, tmp)
            states[b] = tmp
    return states
