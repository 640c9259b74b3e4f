"""The matrix of a circuit, in any number system, from one run of the circuit.

The ``2n``-qubit vector ``vec(I) = sum_j |j> (x) |j>`` holds the identity's columns on the
high qubits; running the circuit on the low ``n`` qubits turns it into
``sum_j U|j> (x) |j> = vec(U)``. So the whole matrix costs one simulation of ``4**n``
amplitudes on the state's own kernels (compiled for machine numbers, exact for symbolic
ones) instead of ``2**n`` separate runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..circuit.circuit import Circuit
from ..errors import ArgumentTypeError, NotUnitaryError
from ..numbers import NumberSystem, get_number_system
from ..plan.build import check_bound
from .statevector import zeros


def unitary(
    circuit: Circuit,
    numbers: str | NumberSystem = "complex128",
    *,
    backend: str | None = None,
    device: str | None = None,
) -> Any:
    """The ``2**n x 2**n`` matrix of ``circuit``: column ``j`` is the circuit applied to the
    basis state ``j`` (qubit 0 the least-significant index bit, as Qiskit's ``Operator``).

    A NumPy array of ``numbers`` (``complex128`` by default; an object array of exact
    expressions for ``"sympy"``, of dual numbers, balls, ... for the others), on the host.
    Circuits with measurements, resets, noise channels, conditionals or classical stores
    have no unitary and are refused; so are matrices larger than the free memory (``4**n``
    amplitudes)."""
    if not isinstance(circuit, Circuit):
        raise ArgumentTypeError(f"unitary() takes a Circuit, got {type(circuit).__name__}")
    if circuit.has_non_unitary:
        raise NotUnitaryError(
            "the circuit holds measurements, resets, noise channels, conditionals or classical "
            "stores, so it has no unitary; simulate it, or take a density matrix "
            "(method='density_matrix')"
        )
    ns = get_number_system(numbers)
    check_bound(circuit, ns)
    n = circuit.n_qubits
    dim = 1 << n
    wide = Circuit(2 * n).compose(circuit, qubits=range(n))
    psi = zeros(2 * n, ns, backend, device)  # checks that 4**n amplitudes fit
    psi.amplitudes[:: dim + 1] = ns.one  # |j>|j> for every j: a strided slice, on any device
    psi.apply(wide)
    # amplitude index row + col * 2**n: rows of the reshaped array are the columns of U
    return np.ascontiguousarray(psi.to_numpy().reshape(dim, dim).T)
