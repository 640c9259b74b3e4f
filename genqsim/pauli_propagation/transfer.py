"""The Heisenberg action of one operation on the Pauli strings of its qubits.

Conjugating an observable backwards through a gate ``U`` maps each Pauli string ``Q`` on the
gate's qubits to ``U^dagger Q U``, and a channel maps it to its adjoint ``sum K^dagger Q K``;
either is a real combination of strings: one column of the operation's Pauli transfer matrix.
Columns are made on first use, in the run's number system, and kept:

- Pauli rotations ``exp(-i theta P/2)`` (``rx``, ``rzz``, ``p``, :class:`~genqsim.PauliRotation`)
  keep a commuting string and split an anticommuting one into ``cos(theta) Q + sin(theta) iPQ``,
  with ``cos`` and ``sin`` of the angle taken by the number system itself (exact trig
  polynomials, dual numbers, uncertain values);
- Pauli mixtures (depolarizing, bit and phase flips) scale each string by
  ``sum_m p_m (+-1)``;
- every other gate (controls included) and channel by ``c_a = Tr(P_a M) / 2**k`` of
  ``M = U^dagger Q U``, which for a Clifford gate is one string with a sign;
- measurements dephase (strings with ``X`` or ``Y`` on the qubit vanish) and resets keep
  ``<0|Q|0>`` times the identity.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..circuit.channels import QuantumChannel
from ..circuit.circuit import Operation
from ..circuit.conditional import Conditional
from ..circuit.gates import GateKind, NamedGate, PauliRotation, pauli_generator
from ..errors import UnsupportedOperationError
from ..numbers import Number, NumberSystem
from .strings import anticommute, code_string, rotation_image, signed_permutation

Column = tuple[tuple[int, Number], ...]
"""The image of one local string: ``((code, coefficient), ...)``."""

MACHINE_ZERO = 1e-14
"""Transfer-matrix entries of machine numbers below this are rounding of exact zeros
(``cos(pi/2)``, the off-diagonal entries of a Clifford gate's ``U^dagger Q U``)."""

LETTER_CODE = {"I": 0, "X": 1, "Z": 2, "Y": 3}


def _code_of_letters(letters: str) -> int:
    """The local code of a Pauli word (``letters[i]`` on the operation's qubit ``i``)."""
    return sum(LETTER_CODE[c] << (2 * i) for i, c in enumerate(letters))


class Transfer:
    """The columns of one operation's Pauli transfer matrix, made on first use.

    ``qubits``: the operation's qubits (controls first), the order of the local codes.
    """

    def __init__(
        self,
        qubits: tuple[int, ...],
        ns: NumberSystem,
        column: Callable[[int], list[tuple[int, Number]]],
        unital: bool = True,
    ) -> None:
        self.qubits = qubits
        self.ns = ns
        self._make = column
        self.unital = unital
        """The adjoint map keeps the identity (a trace-preserving operation): strings that
        are the identity on its qubits pass unchanged. A projection is not."""
        one = 1.0 if ns.dtype.kind == "c" else ns.one
        self._columns: dict[int, Column] = {0: ((0, one),)} if unital else {}
        self.rotation: tuple[int, Any] | None = None
        """``(generator code, angle)`` of a rotation ``exp(-i angle P/2)``, else ``None``."""
        self.cos_sin: tuple[Number, Number] | None = None
        """A rotation's ``(cos(angle), sin(angle))`` in ``ns`` (real floats for machine
        numbers, as the columns hold them)."""

    def column(self, code: int) -> Column:
        """The image of the local string ``code``, nonzero coefficients only."""
        found = self._columns.get(code)
        if found is None:
            found = self._columns[code] = tuple(_nonzero(self._make(code), self.ns))
        return found


def _nonzero(entries: list[tuple[int, Number]], ns: NumberSystem) -> list[tuple[int, Number]]:
    if ns.dtype.kind == "c":
        out = []
        for code, c in entries:
            value = complex(c).real
            if abs(value) > MACHINE_ZERO:
                out.append((code, value))
        return out
    return [(code, c) for code, c in entries if not ns.is_zero(c)]


def transfer_of(op: Operation, ns: NumberSystem, dephase: bool = True) -> Transfer | None:
    """The Heisenberg action of ``op`` in ``ns``; ``None`` for barriers and classical
    stores (which change no qubit). Measurements dephase (the ensemble over outcomes, as a
    density matrix keeps it); conditionals are refused (they read classical bits a Pauli
    string does not carry)."""
    gate = op.gate
    kind = gate.kind
    if kind is GateKind.BARRIER or kind is GateKind.STORE:
        return None
    if isinstance(gate, Conditional):
        raise UnsupportedOperationError(
            "method='pauli' propagates observables through gates, channels, measurements and "
            f"resets, not through classically conditioned operations ({gate.name}); use "
            "method='density_matrix' or 'statevector'"
        )
    qubits = op.qubits
    if kind is GateKind.MEASURE:
        return Transfer(qubits, ns, lambda code: [] if code & 1 else [(code, ns.one)])
    if kind is GateKind.RESET:
        return Transfer(qubits, ns, lambda code: [] if code & 1 else [(0, ns.one)])
    if isinstance(gate, QuantumChannel):
        return _channel_transfer(gate, qubits, ns)
    if not op.controls:
        rotation = _rotation(gate)
        if rotation is not None:
            letters, angle = rotation
            return _rotation_transfer(_code_of_letters(letters), angle, qubits, ns)
    matrix = _full_matrix(op, ns)
    return Transfer(qubits, ns, lambda code: _conjugated(matrix, code, ns))


def _rotation(gate: Any) -> tuple[str, Any] | None:
    """``(pauli letters, theta)`` for gates ``exp(-i theta P/2)`` up to a global phase."""
    generator = pauli_generator(gate)
    if generator is None or not isinstance(gate, (NamedGate, PauliRotation)):
        return None
    strings = [(c, p) for c, p in generator if set(p) != {"I"}]  # a global phase drops out
    if len(strings) != 1 or strings[0][0] != 0.5:
        return None
    return strings[0][1], gate.params[0]


def _rotation_transfer(
    generator: int, angle: Any, qubits: tuple[int, ...], ns: NumberSystem
) -> Transfer:
    """``Q -> cos(theta) Q + sin(theta) i P Q`` for ``Q`` anticommuting with ``P``."""
    k = len(qubits)
    theta = ns.real_scalar(angle)
    cos, sin = ns.cos(theta), ns.sin(theta)

    def column(code: int) -> list[tuple[int, Number]]:
        image = rotation_image(generator, code, k)
        if image is None:
            return [(code, ns.one)]
        new, sign = image
        return [(code, cos), (new, sin if sign > 0 else -sin)]

    transfer = Transfer(qubits, ns, column)
    transfer.rotation = (generator, theta)
    if ns.dtype.kind == "c":
        transfer.cos_sin = (complex(cos).real, complex(sin).real)
    else:
        transfer.cos_sin = (cos, sin)
    return transfer


def _channel_transfer(
    channel: QuantumChannel, qubits: tuple[int, ...], ns: NumberSystem
) -> Transfer:
    """A Pauli mixture scales each string; other channels decompose ``sum K^dagger Q K``."""
    mixture = channel.mixture(ns)
    if mixture is not None:
        k = len(qubits)
        branches = [(p, code_string(_code_of_letters(word), k)) for p, word in mixture]

        def scaled(code: int) -> list[tuple[int, Number]]:
            qx, qz = code_string(code, k)
            total = ns.zero
            for p, (bx, bz) in branches:
                total = total - p if anticommute(bx, bz, qx, qz) else total + p
            return [(code, total)]

        return Transfer(qubits, ns, scaled)
    kraus = channel.kraus(ns)

    def adjoint(code: int) -> Any:
        total: Any = None
        for op in kraus:
            term = _conjugated(op, code, ns, decompose=False)
            total = term if total is None else total + term
        return total

    return Transfer(
        qubits,
        ns,
        lambda code: _decomposed(adjoint(code), len(qubits), ns),
        unital=channel.trace_preserving,
    )


def _pauli_matrix(code: int, k: int, ns: NumberSystem) -> np.ndarray:
    perm, phase = signed_permutation(code, k)
    if ns.dtype.kind == "c":
        out = np.zeros((1 << k, 1 << k), dtype=np.complex128)
        out[perm, np.arange(1 << k)] = np.array([1, 1j, -1, -1j])[phase]
        return out
    powers = [ns.one, ns.I, -ns.one, -ns.I]
    size = 1 << k
    out = ns.array(np.zeros((size, size)))
    for j in range(size):
        out[perm[j], j] = powers[phase[j]]
    return out


def _conjugated(matrix: np.ndarray, code: int, ns: NumberSystem, decompose: bool = True) -> Any:
    """``M^dagger P_code M`` (decomposed into strings unless ``decompose`` is false)."""
    k = matrix.shape[0].bit_length() - 1
    adjoint = ns.conj_array(matrix).T
    conjugated = adjoint @ _pauli_matrix(code, k, ns) @ matrix
    return _decomposed(conjugated, k, ns) if decompose else conjugated


def _decomposed(matrix: np.ndarray, k: int, ns: NumberSystem) -> list[tuple[int, Number]]:
    """``[(a, Tr(P_a M)/2**k), ...]``: a Hermitian matrix in the Hermitian Pauli basis."""
    if ns.dtype.kind == "c":
        values = _machine_decomposition(np.asarray(matrix, dtype=np.complex128), k)
        return [(a, v) for a, v in enumerate(values.tolist())]
    powers = [ns.one, ns.I, -ns.one, -ns.I]
    scale = ns.one / ns.integer(1 << k)
    out = []
    for a in range(4**k):
        perm, phase = signed_permutation(a, k)
        trace = ns.zero
        for j in range(1 << k):
            trace = trace + powers[phase[j]] * matrix[j, perm[j]]
        value = ns.real(trace * scale)
        if ns.symbolic:
            value = ns.simplify(value)
        out.append((a, value))
    return out


def _machine_decomposition(matrix: np.ndarray, k: int) -> np.ndarray:
    """All ``4**k`` coefficients at once, indexed by local code: for each ``x``, the
    entries ``M[j, j^x]`` under a Walsh-Hadamard sum over ``j`` give every ``z``."""
    size = 1 << k
    j = np.arange(size)
    shifted = matrix[j[None, :], j[None, :] ^ j[:, None]]  # [x, j] = M[j, j^x]
    hadamard = _walsh(k)
    sums = shifted @ hadamard  # [x, z] = sum_j (-1)**|z&j| M[j, j^x]
    x, z = np.meshgrid(j, j, indexing="ij")
    phase = (1j) ** _popcounts(x & z)
    values = (phase * sums).real / size
    out = np.zeros(4**k)
    out[_code_index(k)] = values.reshape(-1)
    return out


def _popcounts(a: np.ndarray) -> np.ndarray:
    return np.bitwise_count(a.astype(np.uint64)).astype(np.int64)


_WALSH: dict[int, np.ndarray] = {}
_CODES: dict[int, np.ndarray] = {}


def _walsh(k: int) -> np.ndarray:
    if k not in _WALSH:
        j = np.arange(1 << k)
        _WALSH[k] = 1.0 - 2.0 * (_popcounts(j[:, None] & j[None, :]) & 1)
    return _WALSH[k]


def _code_index(k: int) -> np.ndarray:
    """The local code of each ``(x, z)`` pair, flattened row by row."""
    if k not in _CODES:
        j = np.arange(1 << k)
        x, z = np.meshgrid(j, j, indexing="ij")
        code = np.zeros_like(x)
        for i in range(k):
            code |= ((x >> i & 1) | (z >> i & 1) << 1) << (2 * i)
        _CODES[k] = code.reshape(-1)
    return _CODES[k]


def _full_matrix(op: Operation, ns: NumberSystem) -> np.ndarray:
    """The unitary of ``op`` on ``op.qubits`` (controls the low bits, as in local codes)."""
    gate_matrix = op.gate.matrix(ns)
    if not op.controls:
        return gate_matrix
    n_controls, n_targets = len(op.controls), len(op.targets)
    size = 1 << (n_controls + n_targets)
    out = ns.array(np.zeros((size, size)))
    want = sum(v << i for i, v in enumerate(op.control_values))
    low = (1 << n_controls) - 1
    for j in range(size):
        if j & low != want:
            out[j, j] = ns.one
            continue
        tj = j >> n_controls
        for ti in range(1 << n_targets):
            out[(ti << n_controls) | want, j] = gate_matrix[ti, tj]
    return out


def transfers(operations: Sequence[Operation], ns: NumberSystem) -> list[Transfer]:
    """The transfers of ``operations`` (barriers dropped), in circuit order."""
    found = (transfer_of(op, ns) for op in operations)
    return [t for t in found if t is not None]
