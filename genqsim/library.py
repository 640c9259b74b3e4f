"""Standard circuits, every one usable with symbolic parameters.

Conventions follow the rest of genqsim: qubit 0 is the least-significant bit, so
``qft(n)`` maps ``|j>`` to ``sum_k exp(2 pi i j k / 2**n) |k> / sqrt(2**n)`` with ``j`` and ``k``
read as ordinary binary numbers of the qubits.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .circuit.circuit import Circuit, parameters
from .errors import ArgumentValueError
from .linalg.observables import pauli_sum_of
from .linalg.pauli import PAULI_MATRICES, PauliSum


def _check_size(n: int, least: int = 1) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < least:
        raise ArgumentValueError(f"number of qubits must be an integer >= {least}, got {n!r}")
    return n


def qft(n: int, inverse: bool = False, swaps: bool = True) -> Circuit:
    """The quantum Fourier transform on ``n`` qubits (exact phases ``pi/2**k``).

    With ``swaps=False`` the output comes in bit-reversed qubit order, as in hardware QFTs that
    leave the reversal to relabelling.
    """
    import sympy

    _check_size(n)
    c = Circuit(n)
    for j in reversed(range(n)):
        c.h(j)
        for k in reversed(range(j)):
            c.cp(sympy.pi / 2 ** (j - k), k, j)
    if swaps:
        for q in range(n // 2):
            c.swap(q, n - 1 - q)
    return c.inverse() if inverse else c


def ghz(n: int) -> Circuit:
    """``(|0...0> + |1...1>)/sqrt(2)``: H on qubit 0, then a CNOT chain."""
    _check_size(n)
    c = Circuit(n).h(0)
    for q in range(n - 1):
        c.cx(q, q + 1)
    return c


def walsh(n: int) -> Circuit:
    """H on every qubit (the Walsh-Hadamard transform)."""
    _check_size(n)
    c = Circuit(n)
    for q in range(n):
        c.h(q)
    return c


def phase_estimation(n: int, phase: Any = None) -> Circuit:
    """Phase estimation of ``exp(2 pi i phase)`` with ``n`` counting qubits.

    The eigenphase is kicked back directly (``P(2 pi phase 2**k)`` on qubit ``k`` after a
    Hadamard layer), then an inverse QFT reads it out: for ``phase = m / 2**n`` the result is
    exactly ``|m>``, otherwise the distribution peaks at the nearest ``m``. ``phase`` defaults
    to the real symbol ``phi``, so the circuit can run symbolically.
    """
    import sympy

    _check_size(n)
    if phase is None:
        (phase,) = parameters("phi")
    c = walsh(n)
    for k in range(n):
        c.p(2 * sympy.pi * phase * 2**k, k)
    return c + qft(n, inverse=True)


def random_circuit(n: int, depth: int, seed: int | None = None) -> Circuit:
    """``depth`` layers of random ``U(theta, phi, lam)`` on every qubit, each followed by CZ
    on neighbouring pairs in a brick pattern (pairs start at qubit 0 on even layers, 1 on odd
    ones). The benchmarks use it; the same seed gives the same circuit."""
    import numpy as np

    _check_size(n)
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise ArgumentValueError(f"depth must be a non-negative integer, got {depth!r}")
    rng = np.random.default_rng(seed)
    c = Circuit(n)
    for layer in range(depth):
        angles = rng.uniform(0, 2 * np.pi, size=(n, 3))
        for q in range(n):
            theta, phi, lam = (float(a) for a in angles[q])
            c.u(theta, phi, lam, q)
        for q in range(layer % 2, n - 1, 2):
            c.cz(q, q + 1)
    return c


def _iqp_size(n_values: int, zz: bool) -> int:
    if not zz:
        return n_values
    n = int((np.sqrt(8 * n_values + 1) - 1) / 2)  # n + n(n-1)/2 = n(n+1)/2 values
    if n * (n + 1) // 2 != n_values:
        raise ArgumentValueError(
            f"IQP data with zz=True holds n singles and n(n-1)/2 pairs (n(n+1)/2 values); "
            f"{n_values} is not of that form"
        )
    return n


def iqp(data: Sequence[Any], zz: bool = True) -> Circuit:
    """The IQP feature map ``H^n diag(exp(i theta(x))) H^n`` as gates, with
    ``theta(x) = sum_i x_i d_i + sum_{i<j} x_i x_j d_ij`` over basis bitstrings ``x``
    (``x_i`` = bit i). ``data`` lists the n singles, then (if ``zz``) the pairs in
    ``(0,1), (0,2), ..., (n-2,n-1)`` order. Entries may be symbols."""
    values = list(data)
    n = _iqp_size(len(values), zz)
    c = walsh(n)
    for i in range(n):
        c.p(values[i], i)
    if zz:
        for k, (i, j) in enumerate(itertools.combinations(range(n), 2)):
            c.cp(values[n + k], i, j)
    return c + walsh(n)


def iqp_phases(data: np.ndarray, zz: bool = True) -> np.ndarray:
    """``theta(x)`` for every basis index ``x`` (vectorised; last axis of ``data`` = values)."""
    data = np.asarray(data, dtype=np.float64)
    n = _iqp_size(data.shape[-1], zz)
    x = (np.arange(1 << n)[:, None] >> np.arange(n)[None, :]) & 1  # (2^n, n) bits
    theta = data[..., :n] @ x.T
    if zz:
        pairs = list(itertools.combinations(range(n), 2))
        if pairs:
            i, j = np.array(pairs).T
            theta = theta + data[..., n:] @ (x[:, i] * x[:, j]).T
    return theta


def walsh_hadamard_transform(values: np.ndarray) -> np.ndarray:
    """The unnormalised fast Walsh-Hadamard transform along the last axis, in place, in
    ``O(n 2**n)``: ``out[y] = sum_x (-1)**(x.y) values[x]``."""
    size = values.shape[-1]
    if size & (size - 1):
        raise ArgumentValueError(f"length {size} is not a power of two")
    h = 1
    while h < size:
        view = values.reshape(*values.shape[:-1], size // (2 * h), 2, h)
        low, high = view[..., 0, :], view[..., 1, :]
        a = low.copy()  # the one half-size scratch of the stage
        low += high
        high *= -1
        high += a
        h *= 2
    return values


def iqp_encode(
    data: Sequence[float] | np.ndarray,
    zz: bool = True,
    numbers: str = "complex128",
    device: str | None = None,
):
    """The IQP state ``H^n diag(exp(i theta)) H^n |0...0> = FWT(exp(i theta)) / 2**n`` in
    ``O(n 2**n)`` (phase vector, fast Walsh-Hadamard transform, normalise). One sample
    (1-D ``data``) gives a :class:`StateVector`; a batch (2-D, one sample per row) gives an
    array of shape ``(batch, 2**n)``. ``device="gpu"``: computed on the GPU backend (its
    fused IQP kernel, one launch for n <= 10), returning that backend's arrays."""
    from .backends import IQPEncoder, backend_for, capability
    from .numbers import get_number_system
    from .states.statevector import StateVector

    ns = get_number_system(numbers)
    if ns.dtype.kind != "c":
        raise ArgumentValueError("iqp_encode computes numerically; use gq.library.iqp for symbols")
    try:
        arr = np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ArgumentValueError(f"IQP data must be real numbers: {exc}") from None
    if arr.ndim not in (1, 2):
        raise ArgumentValueError(
            f"data must be 1-D (one sample) or 2-D (a batch), got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        raise ArgumentValueError("IQP data must be finite")
    n = _iqp_size(arr.shape[-1], zz)  # a clear error before touching any device
    backend = backend_for(ns, device)
    if backend.device != "cpu":
        encoder = capability(backend, IQPEncoder)
        if encoder is not None:
            out = encoder.iqp_encode(np.atleast_2d(arr), n, zz, ns)
        else:  # computed on the host, then moved
            out = backend.asarray(_iqp_host(arr, zz, ns.dtype).reshape(-1, 1 << n), ns)
        return StateVector(out[0], ns, backend) if arr.ndim == 1 else out
    state = _iqp_host(arr, zz, ns.dtype)
    return StateVector(state, ns) if arr.ndim == 1 else state


def _iqp_host(arr: np.ndarray, zz: bool, dtype: np.dtype) -> np.ndarray:
    """IQP states on the host: phase vector, in-place FWT, normalisation."""
    theta = iqp_phases(arr, zz)
    state = np.exp(1j * theta).astype(dtype)
    walsh_hadamard_transform(state)
    state /= state.shape[-1]
    return state


def trotter(
    hamiltonian: str | PauliSum,
    time: Any,
    steps: int = 1,
    order: int = 1,
    n_qubits: int | None = None,
) -> Circuit:
    """``exp(-i H t)`` by Trotter-Suzuki product formulas: ``order=1`` applies each term's
    ``exp(-i c P t/steps)`` in turn, ``order=2`` the symmetric (Strang) splitting, ``order=4``
    Suzuki's fractal of five Strang steps of sizes ``p, p, 1 - 4p, p, p`` (``p = 1/(4 -
    4**(1/3))``). Error falls as ``steps**-order``. Identity terms become the global phase
    they are."""
    import sympy

    h = pauli_sum_of(hamiltonian)
    if order not in (1, 2, 4):
        raise ArgumentValueError(f"order must be 1, 2 or 4, got {order!r}")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ArgumentValueError(f"steps must be a positive integer, got {steps!r}")
    n = max(h.n_qubits, 1) if n_qubits is None else n_qubits
    if h.n_qubits > n:
        raise ArgumentValueError(f"the Hamiltonian acts on {h.n_qubits} qubits, more than {n}")
    dt = sympy.sympify(time) / steps

    def term_rotation(c: Circuit, coeff: Any, pauli: tuple, fraction: Any) -> None:
        angle = 2 * coeff * dt * fraction
        if isinstance(angle, sympy.Basic) and not angle.free_symbols:
            angle = float(angle) if angle.is_real else angle
        if not pauli:
            c.pauli_rotation("I", angle, [0])
        else:
            qubits = [q for q, _ in pauli]
            c.pauli_rotation("".join(letter for _, letter in pauli), angle, qubits)

    c = Circuit(n)
    half = sympy.Rational(1, 2)
    p = 1 / (4 - sympy.cbrt(4))
    strang = [sympy.Integer(1)] if order == 2 else [p, p, 1 - 4 * p, p, p]
    for _ in range(steps):
        if order == 1:
            for coeff, pauli in h.terms:
                term_rotation(c, coeff, pauli, 1)
            continue
        for size in strang:
            for coeff, pauli in h.terms:
                term_rotation(c, coeff, pauli, half * size)
            for coeff, pauli in reversed(h.terms):
                term_rotation(c, coeff, pauli, half * size)
    return c


def pauli_matrix(hamiltonian: str | PauliSum, n_qubits: int) -> np.ndarray:
    """The dense ``2**n x 2**n`` matrix of a numeric Pauli sum (for small n)."""
    h = pauli_sum_of(hamiltonian)
    out = np.zeros((1 << n_qubits, 1 << n_qubits), dtype=complex)
    for coeff, pauli in h.terms:
        word = dict(pauli)
        m = np.ones((1, 1), dtype=complex)
        for q in reversed(range(n_qubits)):
            m = np.kron(m, PAULI_MATRICES[word.get(q, "I")])
        out += complex(coeff) * m
    return out


def exact_evolution(hamiltonian: str | PauliSum, time: float, n_qubits: int) -> np.ndarray:
    """``exp(-i H t)`` exactly, by diagonalising the Hermitian matrix of ``H`` (small n)."""
    m = pauli_matrix(hamiltonian, n_qubits)
    if not np.allclose(m, m.conj().T):
        raise ArgumentValueError("the Hamiltonian is not Hermitian (complex coefficients)")
    energies, vectors = np.linalg.eigh(m)
    return (vectors * np.exp(-1j * energies * time)) @ vectors.conj().T


def qaoa_maxcut(graph: Iterable[tuple[int, int]] | Any, p: int = 1) -> Circuit:
    """QAOA for MaxCut on ``graph`` (edges as pairs, or a networkx graph): ``p`` layers of
    ``exp(-i gamma_k C)`` (``RZZ(-gamma_k)`` per edge, up to a global phase) and
    ``exp(-i beta_k sum X)`` (``RX(2 beta_k)``), from ``|+>^n``; parameters ``gamma_k``,
    ``beta_k`` are real symbols."""
    edges = [tuple(e) for e in (graph.edges() if hasattr(graph, "edges") else graph)]
    if not edges:
        raise ArgumentValueError("the graph has no edges")
    n = max(max(e) for e in edges) + 1
    if isinstance(p, bool) or not isinstance(p, int) or p < 1:
        raise ArgumentValueError(f"p must be a positive integer, got {p!r}")
    gammas = parameters(f"gamma0:{p}")
    betas = parameters(f"beta0:{p}")
    c = walsh(n)
    for k in range(p):
        for i, j in edges:
            c.rzz(-gammas[k], i, j)
        for q in range(n):
            c.rx(2 * betas[k], q)
    return c


def maxcut_observable(graph: Iterable[tuple[int, int]] | Any) -> PauliSum:
    """``C = sum_{(i,j)} (1 - Z_i Z_j) / 2``: the number of cut edges."""
    import sympy

    edges = [tuple(e) for e in (graph.edges() if hasattr(graph, "edges") else graph)]
    return PauliSum(
        [(sympy.Rational(len(edges), 2), {})]
        + [(-sympy.Rational(1, 2), {i: "Z", j: "Z"}) for i, j in edges]
    )


def random_regular_graph(n: int, degree: int = 3, seed: int = 0) -> list[tuple[int, int]]:
    """The edges of a random ``degree``-regular simple graph on ``n`` vertices (the
    configuration model, redrawn until no loop or repeated edge is left; seeded)."""
    _check_size(n, 2)
    if isinstance(degree, bool) or not isinstance(degree, int) or not 1 <= degree < n:
        raise ArgumentValueError(f"degree must be an integer in 1..{n - 1}, got {degree!r}")
    if n * degree % 2:
        raise ArgumentValueError(f"no {degree}-regular graph has {n} vertices (n*degree is odd)")
    rng = np.random.default_rng(seed)
    for _ in range(10_000):
        stubs = np.repeat(np.arange(n), degree)
        rng.shuffle(stubs)
        edges = {tuple(sorted(e)) for e in stubs.reshape(-1, 2).tolist()}
        if len(edges) == n * degree // 2 and all(a != b for a, b in edges):
            return sorted((int(a), int(b)) for a, b in edges)
    raise ArgumentValueError(
        f"no simple {degree}-regular graph on {n} vertices drawn in 10000 tries"
    )


def qaoa_ring(n: int, p: int = 1) -> Circuit:
    """:func:`qaoa_maxcut` on the ring of ``n`` vertices."""
    _check_size(n, 3)
    return qaoa_maxcut([(i, (i + 1) % n) for i in range(n)], p)


def qaoa_regular(n: int, p: int = 1, seed: int = 0) -> Circuit:
    """:func:`qaoa_maxcut` on a random 3-regular graph (:func:`random_regular_graph`)."""
    return qaoa_maxcut(random_regular_graph(n, 3, seed), p)


def hardware_efficient(n: int, layers: int) -> Circuit:
    """``layers`` of ``RY(theta)`` and ``RZ(theta)`` on every qubit followed by a CNOT ring
    (``i -> i+1 mod n``); ``2 n layers`` real parameters ``theta0, theta1, ...``."""
    _check_size(n)
    if isinstance(layers, bool) or not isinstance(layers, int) or layers < 1:
        raise ArgumentValueError(f"layers must be a positive integer, got {layers!r}")
    thetas = iter(parameters(f"theta0:{2 * n * layers}"))
    c = Circuit(n)
    for _ in range(layers):
        for q in range(n):
            c.ry(next(thetas), q)
            c.rz(next(thetas), q)
        if n > 1:
            for q in range(n if n > 2 else 1):
                c.cx(q, (q + 1) % n)
    return c


BUILTINS = {
    "qft": qft,
    "ghz": ghz,
    "walsh": walsh,
    "qpe": phase_estimation,
    "random": random_circuit,
    "qaoa-ring": qaoa_ring,
    "qaoa-3reg": qaoa_regular,
    "hea": hardware_efficient,
}
"""Circuits the command line knows by name (``qft:3``)."""

BUILTIN_USAGE = {
    "qft": ("qft:N", 1, 1),
    "ghz": ("ghz:N", 1, 1),
    "walsh": ("walsh:N", 1, 1),
    "qpe": ("qpe:N", 1, 1),
    "random": ("random:N:DEPTH[:SEED]", 2, 3),
    "qaoa-ring": ("qaoa-ring:N[:P]", 1, 2),
    "qaoa-3reg": ("qaoa-3reg:N[:P[:SEED]]", 1, 3),
    "hea": ("hea:N:LAYERS", 2, 2),
}
"""Each built-in's command-line form and its least and most integer arguments."""
