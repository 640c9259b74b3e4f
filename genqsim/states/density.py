"""Density matrices (``method="density_matrix"``): mixed states, noise channels applied
exactly, and classically controlled operations without sampling.

``rho`` is stored as ``vec(rho)``, a vector on ``2n`` qubits (:mod:`.doubling`), so every
backend primitive, number system, fusion and tiling applies unchanged: compiled CPU and GPU kernels
for machine numbers, exact SymPy density matrices with symbolic noise rates, dual numbers for
derivatives with respect to rates and angles, ``uncertainties`` values, balls. Long linear
runs of machine numbers on the Numba backend go through real Pauli coordinates instead
(:mod:`.pauli_basis`): half the memory traffic, a quarter of the arithmetic.

Mid-circuit measurements split the state into an *ensemble* keyed by the classical bits:
one unnormalised ``rho`` per classical record, whose traces are the records' probabilities.
Conditionals act on the members whose bits hold their value, so counts over classical bits
and expectation values come out exactly, without sampling noise.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import numbers as _abc
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..backends import Backend, backend_for
from ..circuit.circuit import Circuit, Operation
from ..circuit.conditional import WHILE_NEEDS_SHOTS
from ..errors import (
    ArgumentTypeError,
    ArgumentValueError,
    MatrixShapeError,
    NumberTypeError,
    StateTooLargeError,
    UnsupportedOperationError,
)
from ..linalg.generic import marginalize, pauli_signs
from ..linalg.observables import (
    Hermitian,
    SparseObservable,
    matrix_expectation_value,
)
from ..linalg.pauli import PauliSum
from ..numbers import Number, NumberSystem, get_number_system
from ..plan import (
    ConditionalCall,
    LoopCall,
    MeasureCall,
    PlanItem,
    StoreCall,
    check_bound,
    kept_on,
    plan_for_backend,
    run_item,
)
from ..support.progress import bar_for
from ..support.validation import as_qubit_tuple, check_n_qubits
from . import sampling
from .base import StateBase, check_qubit_count, check_same_size
from .display import density_matrix_html, density_matrix_latex
from .doubling import doubled_circuit
from .options import RunOptions, option, run_threads
from .pauli_basis import PauliRun, pauli_run
from .protocol import Seed
from .statevector import StateVector, basis, kept_first

if TYPE_CHECKING:
    from .registry import SimulationRequest

Record = tuple[tuple[int, int], ...]
"""A classical record: ``((clbit, bit), ...)`` sorted by clbit (``()`` before any
mid-circuit measurement)."""


@dataclass(frozen=True)
class DensityOptions(RunOptions):
    """``pauli_basis``: whether a density matrix runs its gates and channels on real Pauli
    coordinates (:mod:`genqsim.states.pauli_basis`; ``None``: where it pays, ``True``:
    wherever it can, ``False``: never)."""

    pauli_basis: bool | None = option(
        None, "run gates and channels on real Pauli coordinates (default: where it pays)"
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        p = self.pauli_basis
        if p is not None and not isinstance(p, bool):
            raise ArgumentValueError(f"pauli_basis must be None or a bool, got {p!r}")


class DensityMatrix(StateBase):
    """A mixed state of ``n_qubits`` qubits; qubit 0 is the least-significant index bit.

    Build one with ``gq.simulate(circuit, method="density_matrix")``,
    :meth:`from_statevector`, :meth:`zeros` or ``DensityMatrix(matrix)``.
    """

    def __init__(
        self,
        matrix: Any,
        numbers: str | NumberSystem | None = None,
        backend: str | Backend | None = None,
        options: RunOptions | None = None,
    ) -> None:
        """Wrap a ``2**n x 2**n`` matrix (copied into the number system's array type)."""
        ns = _numbers_of(matrix, numbers)
        arr = np.asarray(matrix, dtype=object if ns.dtype == object else None)
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] & (arr.shape[0] - 1):
            raise MatrixShapeError(f"a density matrix is 2**n x 2**n, got shape {tuple(arr.shape)}")
        n = check_n_qubits(arr.shape[0].bit_length() - 1)
        chosen = _backend(ns, None, backend)
        vec = chosen.asarray(ns.array(arr).reshape(-1), ns)
        self._init(n, {(): vec}, ns, chosen, options)

    def _init(
        self,
        n_qubits: int,
        members: dict[Record, Any],
        numbers: NumberSystem,
        backend: Backend,
        options: RunOptions | None,
    ) -> None:
        self.n_qubits = n_qubits
        self.numbers: NumberSystem = numbers
        self.backend = backend
        self.options = DensityOptions.of(options)
        self._members = members

    @classmethod
    def _make(
        cls,
        n_qubits: int,
        members: dict[Record, Any],
        numbers: NumberSystem,
        backend: Backend,
        options: RunOptions | None = None,
    ) -> DensityMatrix:
        rho = cls.__new__(cls)
        rho._init(n_qubits, members, numbers, backend, options)
        return rho

    @classmethod
    def zeros(
        cls,
        n_qubits: int,
        numbers: str | NumberSystem = "complex128",
        backend: str | None = None,
        device: str | None = None,
        options: RunOptions | None = None,
    ) -> DensityMatrix:
        """``|0...0><0...0|``; refuses a matrix larger than the free memory, before
        allocating."""
        n = check_n_qubits(n_qubits)
        ns = get_number_system(numbers)
        chosen = _backend(ns, device, backend)
        try:
            vec = chosen.zeros(2 * n, ns)  # vec(|0><0|) is the basis vector 0
        except StateTooLargeError as exc:
            raise StateTooLargeError(
                f"a density matrix of {n} qubits holds 4**{n} numbers: {exc}"
            ) from exc
        return cls._make(n, {(): vec}, ns, chosen, options)

    @classmethod
    def from_statevector(cls, psi: StateVector) -> DensityMatrix:
        """``|psi><psi|`` in the state's numbers, on its backend's device."""
        if not isinstance(psi, StateVector):
            raise ArgumentTypeError(f"expected a StateVector, got {type(psi).__name__}")
        ns = psi.numbers
        amps = psi.to_numpy()
        outer = np.multiply.outer(amps, ns.conj_array(amps)).reshape(-1)
        chosen = _backend(ns, psi.backend.device, None)
        return cls._make(psi.n_qubits, {(): chosen.asarray(outer, ns)}, ns, chosen, psi.options)

    # -- access --------------------------------------------------------------------------------
    @property
    def clbits(self) -> dict[int, int]:
        """Classical bits that hold the same value in every member of the ensemble."""
        records = [dict(r) for r in self._members]
        first = records[0]
        return {b: v for b, v in first.items() if all(r.get(b) == v for r in records[1:])}

    @property
    def vector(self) -> Any:
        """``vec(rho)`` of the whole ensemble (summed over classical records): the array
        itself when there is one record, else a new array."""
        members = list(self._members.values())
        if len(members) == 1:
            return members[0]
        total = members[0].copy()
        for m in members[1:]:
            total += m
        return total

    def to_numpy(self) -> np.ndarray:
        """``rho`` as a NumPy ``2**n x 2**n`` matrix (a copy, from the device for GPU states)."""
        size = 1 << self.n_qubits
        return self.backend.to_numpy(self.vector).reshape(size, size)  # already a copy

    @property
    def matrix(self) -> np.ndarray:
        """Same as :meth:`to_numpy`."""
        return self.to_numpy()

    def ensemble(self) -> dict[str, tuple[Number, DensityMatrix]]:
        """The ensemble by classical record: ``{bits: (probability, normalised rho)}``, with
        bits written as ``c[m-1]...c[0]`` (``-`` for bits never written)."""
        width = max((b for r in self._members for b, _ in r), default=-1) + 1
        out: dict[str, tuple[Number, DensityMatrix]] = {}
        for record, vec in self._members.items():
            member = DensityMatrix._make(
                self.n_qubits, {(): vec.copy()}, self.numbers, self.backend, self.options
            )
            weight = member.trace()
            bits = dict(record)
            key = "".join(str(bits.get(b, "-")) for b in reversed(range(width)))
            if not self.numbers.is_zero(weight):
                member._scale(self.numbers.one / weight)
            out[key] = (weight, member)
        return out

    def __repr__(self) -> str:
        extra = f", {len(self._members)} classical records" if len(self._members) > 1 else ""
        return (
            f"<DensityMatrix: {self.n_qubits} qubits, numbers={self.numbers.name!r}, "
            f"backend={self.backend.name!r}{extra}>"
        )

    def copy(self) -> DensityMatrix:
        """An independent copy on the same backend, numbers and run options."""
        members = {r: v.copy() for r, v in self._members.items()}
        return DensityMatrix._make(self.n_qubits, members, self.numbers, self.backend, self.options)

    def _threads(self) -> contextlib.AbstractContextManager[None]:
        return run_threads(self.backend, self.options, blas=True)

    # -- evolution -----------------------------------------------------------------------------
    def apply(
        self,
        circuit: Circuit | Operation,
        fuse: int | bool | None = None,
        seed: Seed = None,
        progress: bool | None = None,
    ) -> DensityMatrix:
        """Apply ``circuit`` in place and return ``self``: gates as ``U rho U^dagger``,
        channels exactly, resets as the reset channel; mid-circuit measurements split the
        ensemble by outcome and conditionals act on the members whose bits match (``seed`` is
        accepted for the protocol's sake: nothing here is random). Terminal measurements are
        left to :meth:`sample`. The whole circuit is checked before anything changes."""
        circuit = self.check_circuit(circuit)
        fuse = self.options.fuse if fuse is None else fuse
        progress = self.options.progress if progress is None else progress
        with self.numbers.context():
            doubled, in_pauli_basis = self._doubled_run(circuit, fuse)
        records = list(self._members)
        if in_pauli_basis is not None:
            records = self._run_in_pauli_basis(in_pauli_basis, bool(progress))
            if not records:
                return self
        with self.numbers.context():
            # every gate touches a row qubit, in the high half of vec(rho): tiles over any
            # qubits hold runs of them where blocks of the lowest qubits would hold none
            plan = plan_for_backend(
                doubled, self.numbers, self.backend, fuse=False, tiles=True, keep=True
            )
        label = f"density matrix, {self.n_qubits} qubits"
        bar = bar_for(bool(progress), len(plan), len(plan) * 4**self.n_qubits, label)
        with self.numbers.context(), self._threads():
            for done, item in enumerate(plan, 1):
                records = self._run(item, records)
                if bar is not None:
                    bar.update(done)
        if bar is not None:
            bar.close()
        return self

    def _doubled_run(
        self, circuit: Circuit, fuse: int | bool | None
    ) -> tuple[Circuit, PauliRun | None]:
        """The circuit on ``vec(rho)`` and its run in Pauli coordinates (``None`` where it
        stays in the computational basis), kept on ``circuit`` until it grows for machine
        numbers (with their plan, see :func:`~genqsim.plan.kept_on`): a circuit applied
        again, a Trotter step say, is not checked, doubled, fused and compiled again."""

        def build() -> tuple[Circuit, PauliRun | None]:
            check_bound(circuit, self.numbers)  # a kept run was checked when it was built
            doubled = doubled_circuit(circuit, self.numbers, fuse)
            mode = self.options.pauli_basis
            return doubled, pauli_run(doubled, self.n_qubits, self.numbers, self.backend, mode)

        key = ("density run", self.backend, self.numbers.name, fuse, self.options.pauli_basis)
        return kept_on(circuit, self.numbers, key, build)

    def _run_in_pauli_basis(self, run: PauliRun, progress: bool) -> list[Record]:
        """A linear run (gates, channels, resets) on every member in Pauli coordinates;
        returns the members it left alone (not Hermitian: a matrix given as ``rho`` may be
        any operator), for the computational basis."""
        label = f"density matrix, {self.n_qubits} qubits, Pauli basis"
        members = len(self._members)
        bar = bar_for(progress, len(run) * members, len(run) * members * 4**self.n_qubits, label)
        left: list[Record] = []
        with self.numbers.context(), self._threads():
            for i, (record, vec) in enumerate(self._members.items()):
                if not run.run(vec, None if bar is None else _Offset(bar, i * len(run))):
                    left.append(record)
        if bar is not None:
            bar.close()
        return left

    def _run(self, item: PlanItem, records: list[Record]) -> list[Record]:
        """Run one plan item on the members ``records``; returns what they became."""
        if isinstance(item, MeasureCall):
            return self._split(item, records)
        if isinstance(item, StoreCall):
            return self._stored(item, records)
        if isinstance(item, LoopCall):
            raise UnsupportedOperationError(WHILE_NEEDS_SHOTS)
        if isinstance(item, ConditionalCall):
            taken = [r for r in records if item.holds(dict(r))]
            others = [r for r in records if not item.holds(dict(r))]
            parts = [self._branch(item.body, taken), self._branch(item.orelse, others)]
            out: list[Record] = []
            for part in parts:  # merged once both branches ran
                for record, vec in part.items():
                    if record in self._members:  # the same bits reached by both branches
                        self._members[record] += vec
                    else:
                        self._members[record] = vec
                        out.append(record)
            return out
        for record in records:
            run_item(item, self.backend, self._members[record])
        return records

    def _branch(self, calls: Sequence[PlanItem], records: list[Record]) -> dict[Record, Any]:
        """Run ``calls`` on the members ``records`` alone and take what they became out of
        the ensemble: a member a branch's measurement gives the bits of a member outside it
        is merged with that one only after both branches ran (merged earlier, the rest of
        the branch would miss it, or the other branch would run on it)."""
        if not records:
            return {}
        inside = set(records)
        outside = {r: v for r, v in self._members.items() if r not in inside}
        self._members = {r: self._members[r] for r in records}
        try:
            for call in calls:
                records = self._run(call, records)
            return self._members
        finally:  # the branch's members are out of the ensemble until the caller merges them
            self._members = outside

    def _stored(self, call: StoreCall, records: list[Record]) -> list[Record]:
        """Rewrite the bits of every member's record; members whose records become equal
        are one member (their matrices summed)."""
        out: list[Record] = []
        taken = [(record, self._members.pop(record)) for record in records]  # all out first:
        for record, vec in taken:  # a new record may be another member's old one
            bits = dict(record)
            bits.update(call.written(bits))
            self._add_member(tuple(sorted(bits.items())), vec, out)
        return out

    def _add_member(self, record: Record, vec: Any, new: list[Record]) -> None:
        """Add ``vec`` to the member of ``record`` (a new member, noted in ``new``, where
        there is none)."""
        if record in self._members:
            self._members[record] += vec
        else:
            self._members[record] = vec
            new.append(record)

    def _split(self, call: MeasureCall, records: list[Record]) -> list[Record]:
        """Project every member on outcome 0 and 1 of the qubit, recording the bit."""
        n, ns = self.n_qubits, self.numbers
        projectors = {
            bit: ns.array([ns.one if i == 3 * bit else ns.zero for i in range(4)]) for bit in (0, 1)
        }  # diagonal on (column qubit, row qubit): |b><b| on both sides
        out: list[Record] = []
        for record in records:
            vec = self._members.pop(record)
            halves = {0: vec, 1: vec.copy()}
            for bit, half in halves.items():
                self.backend.apply_diagonal(half, projectors[bit], (call.qubit, call.qubit + n))
                bits = dict(record)
                bits[call.clbit] = bit
                key: Record = tuple(sorted(bits.items()))
                if ns.dtype.kind == "c" and not bool(_array_module(half).any(half)):
                    continue  # an impossible outcome: no member for it
                self._add_member(key, half, out)
        if not self._members and records:  # a zero rho: every outcome impossible; keep one
            self._members[key] = half
            out.append(key)
        return out

    def _scale(self, factor: Number) -> None:
        if self.numbers.dtype.kind == "c":
            factor = np.asarray(factor).astype(self.numbers.dtype)[()]
        for vec in self._members.values():
            vec *= factor

    # -- reductions ----------------------------------------------------------------------------
    def _diagonal(self) -> Any:
        """The real diagonal of rho (summed over the ensemble)."""
        stride = (1 << self.n_qubits) + 1
        diag = None
        for vec in self._members.values():
            d = vec[::stride]
            diag = d.copy() if diag is None else diag + d
        assert diag is not None
        if self.numbers.dtype.kind == "c":
            return diag.real.copy()
        return np.array([self.numbers.real(v) for v in diag], dtype=object)

    def probabilities(self, qubits: Sequence[int] | None = None) -> Any:
        """Probabilities of every basis state (the diagonal), or the marginal distribution of
        ``qubits`` (``qubits[0]`` the least-significant bit)."""
        qs = None if qubits is None else as_qubit_tuple(qubits, self.n_qubits)
        with self.numbers.context():
            p = self._diagonal()
            return marginalize(p, qs)

    def trace(self) -> Number:
        """``Tr(rho)`` (one, unless the state came from a trace-decreasing map)."""
        with self.numbers.context():
            p = self._diagonal()
            return p.sum() if self.numbers.dtype.kind != "c" else float(p.sum())

    def purity(self) -> Number:
        """``Tr(rho**2)``: one for pure states, ``1/2**n`` for the maximally mixed state."""
        with self.numbers.context():
            vec = self.vector
            if self.numbers.dtype.kind == "c":
                return float(_array_module(vec).vdot(vec, vec).real)
            size = 1 << self.n_qubits
            m = vec.reshape(size, size)
            return sum((self.numbers.abs2(v) for v in m.reshape(-1)), self.numbers.zero)

    def entropy(self, base: float = 2) -> float:
        """The von Neumann entropy ``-Tr(rho log rho)`` (log base ``base``; machine numbers:
        it needs eigenvalues)."""
        w = self._eigenvalues()
        w = w[w > 1e-15]
        return float(-(w * np.log(w)).sum() / math.log(base)) + 0.0

    def _eigenvalues(self) -> np.ndarray:
        return np.linalg.eigvalsh(_hermitian(self._numeric_matrix()))

    def _numeric_matrix(self) -> np.ndarray:
        m = self.to_numpy()
        if m.dtype == object:
            try:
                m = np.array([self.numbers.to_complex(v) for v in m.reshape(-1)]).reshape(m.shape)
            except Exception as exc:
                raise NumberTypeError(
                    f"this needs the eigenvalues of rho, which symbolic entries do not give: {exc}"
                ) from exc
        return m.astype(np.complex128)

    def reduced_density_matrix(self, qubits: int | Sequence[int]) -> DensityMatrix:
        """The reduced density matrix of ``qubits`` (the others traced out); its qubit ``i``
        is ``qubits[i]``. The same name on every kind of state that gives one."""
        qs = as_qubit_tuple(qubits, self.n_qubits)
        if not qs:
            raise ArgumentValueError("keep at least one qubit")
        n, k = self.n_qubits, len(qs)
        rows = kept_first(n, qs)  # vec(rho): row bit q is axis n-1-q, column bit q axis 2n-1-q
        order = rows + [n + a for a in rows]
        with self.numbers.context():
            t = self.vector.reshape((2,) * (2 * n)).transpose(order)
            t = t.reshape(1 << k, 1 << (n - k), 1 << k, 1 << (n - k))
            if self.numbers.dtype.kind == "c":
                reduced = _array_module(t).trace(t, axis1=1, axis2=3)
            else:
                reduced = np.zeros((1 << k, 1 << k), dtype=object)
                reduced[...] = self.numbers.zero
                for j in range(1 << (n - k)):
                    reduced = reduced + t[:, j, :, j]
        vec = self.backend.asarray(reduced.reshape(-1), self.numbers)
        return DensityMatrix._make(k, {(): vec}, self.numbers, self.backend, self.options)

    partial_trace = reduced_density_matrix

    def reduced(self, qubits: Sequence[int]) -> DensityMatrix:
        """Deprecated name of :meth:`reduced_density_matrix` (the name every kind uses)."""
        warnings.warn(
            "DensityMatrix.reduced is deprecated: use reduced_density_matrix (the name every "
            "kind of state uses)",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.reduced_density_matrix(qubits)

    def entanglement_entropy(self, qubits: int | Sequence[int], base: float = 2) -> float:
        """The von Neumann entropy of ``qubits``' reduced state (in bits by default). For a
        mixed state this counts classical mixing too; :meth:`entropy` is the whole state's."""
        return self.reduced_density_matrix(qubits).entropy(base)

    def expectation(self, observable: str | PauliSum | Hermitian | SparseObservable) -> Number:
        """``Tr(rho H)`` for a Pauli sum (term by term without building ``H``), a
        :class:`~genqsim.Hermitian` matrix on some qubits (against their reduced state) or a
        sparse matrix over all of them (the entries of ``rho`` at its nonzeros)."""
        return super().expectation(observable)

    def _matrix_expectation(self, obs: Hermitian | SparseObservable) -> Number:
        if isinstance(obs, Hermitian):
            rho = self.reduced_density_matrix(obs.qubits).to_numpy()
            with self.numbers.context():
                value = np.sum(rho.T * self.numbers.array(obs.matrix))
            return matrix_expectation_value(value, obs, self.numbers)
        rho = self.to_numpy()
        coo = obs.matrix.tocoo()
        with self.numbers.context():
            entries = rho[coo.col, coo.row]
            value = np.sum(entries * self.numbers.array(coo.data.astype(complex)))
        return matrix_expectation_value(value, obs, self.numbers)

    def _pauli_value(self, x_mask: int, z_mask: int) -> Number:
        """``Tr(rho X^x Z^z) = sum_i sign(i) rho[i, i ^ x]``."""
        n = self.n_qubits
        i = np.arange(1 << n, dtype=np.int64)
        index = (i << n) | (i ^ x_mask)
        signs = pauli_signs(n, z_mask)
        total: Any = None
        for vec in self._members.values():
            xp = _array_module(vec)
            if self.numbers.dtype.kind == "c":
                value = xp.dot(vec[xp.asarray(index)], xp.asarray(signs).astype(vec.dtype))
                value = complex(value)
            else:
                value = np.sum(vec[index] * signs.astype(object))
            total = value if total is None else total + value
        return total

    def fidelity(self, other: StateVector | DensityMatrix) -> Number:
        """``<psi|rho|psi>`` with a pure state, or Uhlmann's ``(Tr sqrt(sqrt(rho) sigma
        sqrt(rho)))**2`` with another density matrix (machine numbers)."""
        if isinstance(other, StateVector):
            check_same_size(self, other)
            psi = other.to_numpy()
            size = 1 << self.n_qubits
            m = self.backend.to_numpy(self.vector).reshape(size, size)
            if self.numbers.dtype.kind == "c":
                return float(np.vdot(psi, m @ psi).real)
            value = np.dot(self.numbers.conj_array(psi.astype(object)), m.dot(psi))
            return self.numbers.real(value)
        if not isinstance(other, DensityMatrix):
            raise ArgumentTypeError(
                f"fidelity() takes a StateVector or a DensityMatrix, got {type(other).__name__}"
            )
        check_same_size(self, other)
        root = _psd_sqrt(_hermitian(self._numeric_matrix()))
        inner = root @ _hermitian(other._numeric_matrix()) @ root
        w = np.clip(np.linalg.eigvalsh(_hermitian(inner)), 0.0, None)
        return float(np.sqrt(w).sum() ** 2)

    # -- sampling and measurement --------------------------------------------------------------
    def _to_host(self, values: Any) -> np.ndarray:
        return self.backend.to_numpy(values)

    def _collapse(self, qubits: tuple[int, ...], outcome: int) -> None:
        """Project rho onto ``outcome`` of ``qubits`` and renormalise."""
        exact = self._outcome_probability(qubits, outcome)
        ns = self.numbers
        k = len(qubits)
        diagonal = [ns.zero] * (1 << (2 * k))
        diagonal[outcome | (outcome << k)] = ns.one  # |o><o| on columns and rows
        targets = qubits + tuple(q + self.n_qubits for q in qubits)
        with ns.context(), self._threads():
            for vec in self._members.values():
                self.backend.apply_diagonal(vec, ns.array(diagonal), targets)
        self._scale(ns.one / exact)

    def stored(self) -> tuple[str, dict[Any, Any]]:
        """What :func:`genqsim.save_state` writes: the kind and its members."""
        return "density_matrix", self._members

    def _html(self) -> str | None:
        return density_matrix_html(self)

    def _latex(self) -> str | None:
        return density_matrix_latex(self)

    def record_distribution(
        self, terminal: Sequence[tuple[int, int]], n_clbits: int
    ) -> dict[str, float]:
        """The exact distribution of the classical bits (``c[n_clbits-1]`` leftmost): each
        member's record, completed by the terminal measurements ``[(qubit, clbit), ...]``
        drawn from its diagonal. Probabilities as floats (what counts are drawn from)."""
        out: dict[str, float] = {}
        qubits, columns = sampling.terminal_columns(terminal)
        for record, vec in self._members.items():
            member = DensityMatrix._make(self.n_qubits, {(): vec}, self.numbers, self.backend)
            p = member.probabilities(qubits) if qubits else np.array([member.trace()])
            if not isinstance(p, np.ndarray):
                p = self.backend.to_numpy(p)
            values = [self.numbers.to_complex(v).real for v in p]
            for index, weight in enumerate(values):
                if weight <= 0:
                    continue
                bits = dict(record)
                for j, c in columns:
                    bits[c] = (index >> j) & 1
                key = "".join(str(bits.get(c, 0)) for c in reversed(range(n_clbits)))
                out[key] = out.get(key, 0.0) + weight
        total = sum(out.values())
        sampling.check_normalised(total)
        return {k: v / total for k, v in sorted(out.items())}


# -- helpers -------------------------------------------------------------------------------------


class _Offset:
    """A progress bar seen from one member of an ensemble: its steps start at ``offset``."""

    def __init__(self, bar: Any, offset: int) -> None:
        self.bar = bar
        self.offset = offset

    def update(self, done: int) -> None:
        self.bar.update(self.offset + done)


def _numbers_of(matrix: Any, numbers: str | NumberSystem | None) -> NumberSystem:
    if numbers is not None:
        return get_number_system(numbers)
    dtype = getattr(matrix, "dtype", None)
    if dtype is not None and np.dtype(dtype).kind == "c":
        return get_number_system(np.dtype(dtype).name)
    arr = np.asarray(matrix)
    if arr.dtype.kind in "iuf":
        return get_number_system("complex128")
    return get_number_system("complex128" if arr.dtype.kind == "c" else "sympy")


def _backend(ns: NumberSystem, device: str | None, backend: str | Backend | None) -> Backend:
    if backend is not None and not isinstance(backend, str):
        return backend
    return backend_for(ns, device, backend)


def _array_module(array: Any) -> Any:
    """NumPy for host arrays, the array's own library for device arrays."""
    if isinstance(array, np.ndarray):
        return np
    return importlib.import_module(type(array).__module__.split(".")[0])


def _hermitian(m: np.ndarray) -> np.ndarray:
    return (m + m.conj().T) / 2


def _psd_sqrt(m: np.ndarray) -> np.ndarray:
    w, v = np.linalg.eigh(m)
    return (v * np.sqrt(np.clip(w, 0.0, None))) @ v.conj().T


def initial_density(
    n_qubits: int,
    initial: Any,
    numbers: NumberSystem,
    backend: str | None = None,
    device: str | None = None,
    options: RunOptions | None = None,
) -> DensityMatrix:
    """The starting state of a density-matrix run: ``|0...0><0...0|`` (``None``), a
    bitstring or basis index, a StateVector or state-vector array (made ``|psi><psi|``), a
    ``2**n x 2**n`` matrix, or a DensityMatrix (copied)."""
    if initial is None:
        return DensityMatrix.zeros(n_qubits, numbers, backend, device, options)
    if isinstance(initial, DensityMatrix):
        rho = initial.copy()
        check_qubit_count("initial state", rho.n_qubits, n_qubits, "the circuit")
        if rho.numbers is not numbers:
            rho = DensityMatrix(rho.to_numpy(), numbers, backend, options)
        return rho
    if isinstance(initial, str) or (
        isinstance(initial, (_abc.Integral, np.integer)) and not isinstance(initial, bool)
    ):
        psi = basis(
            initial if isinstance(initial, str) else int(initial), n_qubits, numbers, "numpy"
        )
        rho = DensityMatrix.zeros(n_qubits, numbers, backend, device, options)
        index = int(np.flatnonzero(psi.probabilities())[0])
        vec = rho._members[()]
        vec[0] = numbers.zero
        vec[index * ((1 << n_qubits) + 1)] = numbers.one
        return rho
    if isinstance(initial, StateVector):
        psi = initial
    else:
        arr = np.asarray(initial, dtype=object if numbers.dtype == object else None)
        if arr.ndim == 2:
            rho = DensityMatrix(arr, numbers, backend, options)
            check_qubit_count("initial state", rho.n_qubits, n_qubits, "the circuit")
            return rho
        psi = StateVector(arr, numbers, "numpy")
    check_qubit_count("initial state", psi.n_qubits, n_qubits, "the circuit")
    if psi.numbers is not numbers:
        psi = StateVector(psi.to_numpy(), numbers, "numpy")
    rho = DensityMatrix.from_statevector(psi)
    chosen = _backend(numbers, device, backend)
    if chosen is not rho.backend:
        rho = DensityMatrix._make(
            n_qubits, {(): chosen.asarray(rho.backend.to_numpy(rho.vector), numbers)},
            numbers, chosen,
        )  # fmt: skip
    rho.options = DensityOptions.of(options)
    return rho


def run_density_matrix(request: SimulationRequest) -> DensityMatrix:
    """``method="density_matrix"``: ``vec(rho)`` on ``2n`` qubits on the backend the request
    implies; noise channels exact, mid-circuit measurements as an ensemble."""
    numbers = request.numbers or get_number_system("complex128")
    check_bound(request.circuit, numbers)
    rho = initial_density(
        request.circuit.n_qubits, request.initial, numbers, request.backend, request.device,
        request.options,
    )  # fmt: skip
    return rho.apply(request.circuit, seed=request.seed)
