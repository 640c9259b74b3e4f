"""One circuit, many states: apply a circuit to every row of a ``(batch, 2**n)`` array.

On the GPU (CuPy arrays) each gate is a single kernel launch over the whole batch; on the CPU
the rows are run one after the other with the same prepared plan (built once)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .backends import select_backend
from .circuit import Circuit
from .errors import NotUnitaryError, NumberTypeError, QubitCountMismatchError, StateShapeError
from .numbers import get_number_system
from .plan import check_bound, plan_for_backend, run_plan


def apply_batch(circuit: Circuit, states: Any, fuse: int | bool | None = None) -> Any:
    """Apply ``circuit`` in place to each row of ``states`` (complex64/complex128, shape
    ``(batch, 2**n)``, NumPy or CuPy) and return ``states``."""
    if not isinstance(circuit, Circuit):
        raise TypeError(f"apply_batch() takes a Circuit, got {type(circuit).__name__}")
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
    if type(states).__module__.startswith("cupy"):
        backend = select_backend(states, "cupy")
        run_plan(plan_for_backend(circuit, numbers, backend, fuse), backend, states)
        return states
    backend = select_backend(np.empty(0, dtype=dtype))
    plan = plan_for_backend(circuit, numbers, backend, fuse)
    for b in range(shape[0]):
        if states[b].flags.c_contiguous:
            run_plan(plan, backend, states[b])
        else:  # a strided row: run on a copy and write it back
            tmp = np.ascontiguousarray(states[b])
            run_plan(plan, backend, tmp)
            states[b] = tmp
    return states
