"""Observables given as matrices: a Hermitian matrix on a few qubits, or a sparse matrix over
the whole register, beside the Pauli sums of :mod:`.pauli`.

State vectors apply them directly (``<psi| H |psi>`` from one matrix application on a copy,
or one sparse product); density matrices take ``Tr(rho H)`` from the matching entries. Every
other kind of state gets them as their exact Pauli decomposition
(:meth:`Hermitian.to_pauli_sum`), so any state that takes a Pauli sum takes a matrix.

The decomposition groups entries by the X part of the Pauli string: ``H[l, l ^ x]`` over
``l`` is one vector per ``x``, and a Walsh-Hadamard transform of it gives the coefficients
of every Z part at once: ``O(k 4**k)`` operations for ``k`` qubits instead of ``16**k``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ..errors import ArgumentTypeError, MatrixShapeError, NotNumericError, QubitIndexError
from ..support.lazysympy import is_sympy_matrix
from ..support.validation import as_qubit_tuple
from .pauli import PauliSum

HERMITIAN_TOLERANCE = 1e-10
"""How far ``H - H^dagger`` (largest entry, relative to the largest of ``H``) may stray from
zero for a numeric matrix to count as Hermitian."""

_LETTERS = {(1, 0): "X", (0, 1): "Z", (1, 1): "Y"}


def _check_square(shape: tuple[int, ...], what: str) -> int:
    """The number of qubits of a ``2**k x 2**k`` shape."""
    if len(shape) != 2 or shape[0] != shape[1] or shape[0] < 2 or shape[0] & (shape[0] - 1):
        raise MatrixShapeError(f"{what} must be a 2**k x 2**k matrix (k >= 1), got shape {shape}")
    return int(shape[0]).bit_length() - 1


def _entries(matrix: Any) -> np.ndarray:
    """A complex or SymPy object array of the matrix's entries."""
    if is_sympy_matrix(matrix):
        return np.array(matrix.tolist(), dtype=object)
    array = np.asarray(matrix)
    if array.dtype == object:
        import sympy

        return np.vectorize(sympy.sympify, otypes=[object])(array)
    if array.dtype.kind not in "biufc":
        raise NotNumericError(f"an observable's entries must be numbers, got dtype {array.dtype}")
    return array.astype(np.complex128)


def _check_hermitian(entries: np.ndarray, what: str) -> None:
    if entries.dtype == object:
        import sympy

        difference = sympy.Matrix(entries) - sympy.Matrix(entries).H
        if not all(sympy.simplify(d) == 0 for d in difference):
            raise ArgumentTypeError(f"{what} is not Hermitian (H != H^dagger)")
        return
    if not np.all(np.isfinite(entries)):
        raise NotNumericError(f"{what} has entries that are not finite")
    scale = max(float(np.abs(entries).max()), 1e-300)
    if float(np.abs(entries - entries.conj().T).max()) > HERMITIAN_TOLERANCE * scale:
        raise ArgumentTypeError(f"{what} is not Hermitian (H != H^dagger)")


class Hermitian:
    """A Hermitian ``2**k x 2**k`` matrix acting on ``qubits`` (``qubits[0]`` is the matrix
    index's least-significant bit, as for gates): ``psi.expectation(gq.Hermitian(M, [0, 2]))``.

    Entries are numbers or SymPy expressions; numeric matrices are checked Hermitian (to
    :data:`HERMITIAN_TOLERANCE`), symbolic ones exactly, unless ``check_hermitian=False``."""

    def __init__(
        self, matrix: Any, qubits: int | Sequence[int], *, check_hermitian: bool = True
    ) -> None:
        entries = _entries(matrix)
        k = _check_square(entries.shape, "a Hermitian observable")
        qs = as_qubit_tuple(qubits, 1 << 30)
        if len(qs) != k:
            raise MatrixShapeError(
                f"a {entries.shape[0]}x{entries.shape[0]} observable acts on {k} qubit(s), "
                f"got {len(qs)}: {qs}"
            )
        if check_hermitian:
            _check_hermitian(entries, "the observable")
        self.matrix = entries
        self.qubits = qs
        self.hermitian = check_hermitian

    @property
    def n_qubits(self) -> int:
        """Smallest number of qubits the observable fits on."""
        return max(self.qubits) + 1

    def __repr__(self) -> str:
        return f"Hermitian({self.matrix.shape[0]}x{self.matrix.shape[0]} on qubits {self.qubits})"

    def to_pauli_sum(self) -> PauliSum:
        """The same observable as an exact sum of Pauli strings."""
        k = len(self.qubits)
        rows = np.arange(1 << k)
        by_x = ((x, self.matrix[rows, rows ^ x]) for x in range(1 << k))
        return _pauli_sum(by_x, self.qubits, symbolic=self.matrix.dtype == object)


class SparseObservable:
    """A Hermitian matrix over every qubit of the register, held sparse (any
    ``scipy.sparse`` matrix, or anything with ``tocoo()``): a Hamiltonian too large to write
    densely. Row ``i``, column ``j`` in the basis order of the state (qubit 0 the
    least-significant bit)."""

    def __init__(self, matrix: Any, *, check_hermitian: bool = True) -> None:
        if not hasattr(matrix, "tocoo"):
            raise ArgumentTypeError(
                f"SparseObservable takes a scipy.sparse matrix, got {type(matrix).__name__}"
            )
        coo = matrix.tocoo()
        self.n_qubits = _check_square(tuple(coo.shape), "a sparse observable")
        if np.dtype(coo.dtype).kind not in "biufc":
            raise NotNumericError(f"a sparse observable must be numeric, got dtype {coo.dtype}")
        coo = coo.astype(np.complex128)
        coo.sum_duplicates()
        if not np.all(np.isfinite(coo.data)):
            raise NotNumericError("the sparse observable has entries that are not finite")
        if check_hermitian and coo.nnz:
            difference = abs(coo - coo.conj().T).max()
            if difference > HERMITIAN_TOLERANCE * abs(coo).max():
                raise ArgumentTypeError("the sparse observable is not Hermitian (H != H^dagger)")
        self.matrix = coo.tocsr()
        self.hermitian = check_hermitian

    def __repr__(self) -> str:
        size = 1 << self.n_qubits
        return f"SparseObservable({size}x{size}, {self.matrix.nnz} nonzeros)"

    def to_pauli_sum(self) -> PauliSum:
        """The same observable as a sum of Pauli strings: one transform of ``2**n`` entries
        for each distinct ``row ^ column`` among the nonzeros."""
        coo = self.matrix.tocoo()
        x_of = coo.row ^ coo.col
        size = 1 << self.n_qubits

        def by_x() -> Iterator[tuple[int, np.ndarray]]:
            for x in np.unique(x_of):
                vector = np.zeros(size, dtype=np.complex128)
                chosen = x_of == x
                vector[coo.row[chosen]] = coo.data[chosen]
                yield int(x), vector

        return _pauli_sum(by_x(), tuple(range(self.n_qubits)), symbolic=False)


def _walsh_hadamard(vector: np.ndarray) -> np.ndarray:
    """``w[z] = sum_l (-1)**popcount(l & z) v[l]``, in place of ``k`` butterfly passes (any
    dtype, object arrays of expressions included)."""
    k = vector.size.bit_length() - 1
    w = vector.reshape((2,) * k) if k else vector
    for axis in range(k):
        low = np.take(w, 0, axis=axis)
        high = np.take(w, 1, axis=axis)
        w = np.stack([low + high, low - high], axis=axis)
    return w.reshape(-1)


def _pauli_sum(
    by_x: Iterator[tuple[int, np.ndarray]] | Any, qubits: Sequence[int], symbolic: bool
) -> PauliSum:
    """Coefficients ``Tr(P H) / 2**k`` of every Pauli string ``P`` from the vectors
    ``H[l, l ^ x]``: with ``P = i**popcount(x & z) X**x Z**z``, ``Tr(X**x Z**z H)`` is the
    Walsh-Hadamard transform of the vector at ``z``."""
    k = len(qubits)
    scale: Any
    tidy: Callable[[Any], Any]
    if symbolic:
        import sympy

        scale, unit, tidy = sympy.Rational(1, 1 << k), sympy.I, sympy.simplify
    else:
        scale, unit = 1.0 / (1 << k), 1j
        tidy = lambda c: _real_if_real(complex(c))  # noqa: E731
    collected: list[tuple[Any, dict[int, str]]] = []
    for x, vector in by_x:
        transformed = _walsh_hadamard(vector)
        for z in range(1 << k):
            coeff = unit ** bin(x & z).count("1") * transformed[z] * scale
            coeff = tidy(coeff)
            if coeff == 0:
                continue
            letters = {
                q: _LETTERS[(x >> b) & 1, (z >> b) & 1]
                for b, q in enumerate(qubits)
                if (x >> b) & 1 or (z >> b) & 1
            }
            collected.append((coeff, letters))
    if not symbolic and collected:  # rounding noise of the transform is not a term
        largest = max(abs(c) for c, _ in collected)
        collected = [(c, p) for c, p in collected if abs(c) > 1e-14 * largest]
    return PauliSum(collected)


def _real_if_real(value: complex) -> complex | float:
    """A float where the imaginary part is rounding noise (Hermitian matrices give real
    coefficients); the complex number otherwise."""
    return value.real if abs(value.imag) <= 1e-14 * max(abs(value), 1e-300) else value


def as_matrix_observable(observable: Any) -> Hermitian | SparseObservable | None:
    """A matrix observable from ``observable``: a :class:`Hermitian` or
    :class:`SparseObservable` as it is, a NumPy array or SymPy matrix as a
    :class:`Hermitian` on the qubits ``0..k-1``, a ``scipy.sparse`` matrix as a
    :class:`SparseObservable`; ``None`` for anything else (Pauli sums, strings)."""
    if isinstance(observable, (Hermitian, SparseObservable)):
        return observable
    if isinstance(observable, np.ndarray) or is_sympy_matrix(observable):
        k = _check_square(tuple(np.shape(observable)), "a matrix observable")
        return Hermitian(observable, range(k))
    if hasattr(observable, "tocoo"):
        return SparseObservable(observable)
    return None


def pauli_sum_of(observable: Any) -> PauliSum:
    """Any observable as a Pauli sum: a string or ``PauliSum`` as it is, a matrix observable
    (``gq.Hermitian``, ``gq.SparseObservable`` or a bare ``scipy.sparse`` matrix) by its exact
    Pauli decomposition."""
    matrix = as_matrix_observable(observable)
    return PauliSum.coerce(observable if matrix is None else matrix)


def observable_for_state(observable: Any, n_qubits: int) -> PauliSum | Hermitian | SparseObservable:
    """The observable a state of ``n_qubits`` qubits evaluates: a matrix observable that
    fits it, or a Pauli sum (parsed from text)."""
    matrix = as_matrix_observable(observable)
    if matrix is None:
        return PauliSum.for_state(observable, n_qubits)
    if isinstance(matrix, SparseObservable) and matrix.n_qubits != n_qubits:
        raise MatrixShapeError(
            f"a sparse observable over {matrix.n_qubits} qubits, on a {n_qubits}-qubit state"
        )
    if matrix.n_qubits > n_qubits:
        raise QubitIndexError(
            f"observable acts on qubit {matrix.n_qubits - 1} but the state has {n_qubits} qubits"
        )
    return matrix


def matrix_expectation_value(value: Any, observable: Hermitian | SparseObservable, ns: Any) -> Any:
    """The expectation as the state kinds return it: real (a float for machine numbers) for
    a checked Hermitian observable, as computed otherwise."""
    if not observable.hermitian:
        return complex(value) if ns.dtype.kind == "c" else value
    return float(complex(value).real) if ns.dtype.kind == "c" else ns.real(value)


def sparse_quadratic_form(
    observable: SparseObservable, left: np.ndarray, right: np.ndarray, ns: Any
) -> Any:
    """``sum_{r,c} conj(left[r]) H[r, c] right[c]`` over the nonzeros: one sparse product for
    machine numbers, the entries one by one in the numbers' own arithmetic otherwise."""
    if ns.dtype.kind == "c":
        return complex(np.vdot(left, observable.matrix @ right))
    coo = observable.matrix.tocoo()
    total = ns.zero
    for r, c, h in zip(coo.row, coo.col, coo.data):
        total = total + ns.conj(left[r]) * ns.scalar(complex(h)) * right[c]
    return total
