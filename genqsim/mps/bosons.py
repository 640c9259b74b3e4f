"""Bosonic modes on a matrix-product state: Fock inputs, beam splitters, phase shifters,
whole interferometers, and photon-count sampling (boson sampling, as in Liu et al., Supercomputing
tensor networks for U(1) symmetric quantum many-body systems).

Each mode is a site of local dimension ``cutoff + 1`` holding ``0 .. cutoff`` photons, and
the photon number is the conserved charge, so every update works on the blocks of fixed
photon numbers only. A linear-optical unitary ``U`` (``m x m``) acts on creation operators
as ``a_j^dagger -> sum_k U[k, j] a_k^dagger``; it is decomposed into beam splitters on
neighbouring modes (Givens rotations) and one phase per mode, and each beam splitter is the
exact Fock-space matrix of its ``2 x 2`` transfer matrix on every photon number. With
``cutoff`` at least the total photon number (the default) the simulation is exact up to the
bond truncation; a smaller cutoff drops the weight above it, which is added to
:attr:`ModeMPS.truncation_error`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from ..errors import ArgumentValueError, MatrixShapeError, NotUnitaryError, QubitIndexError
from ..numbers import NumberSystem
from ..states import sampling
from ..states.protocol import Seed
from . import readout
from .charges import charge_groups, gate_blocks, site_charges
from .network import HostCopy, Network
from .state import array_module, machine_numbers
from .truncation import Truncation

UNITARITY_TOLERANCE = 1e-10


def two_mode_matrix(transfer: np.ndarray, cutoff: int) -> np.ndarray:
    """The Fock-space matrix (index ``n_a (cutoff+1) + n_b``) of the two-mode unitary whose
    ``2 x 2`` transfer matrix maps ``a^dagger -> T[0,0] a^dagger + T[1,0] b^dagger`` and
    ``b^dagger -> T[0,1] a^dagger + T[1,1] b^dagger``, on every photon number up to
    ``cutoff`` per mode (exact where ``n_a + n_b <= cutoff``)."""
    return _two_mode_matrix(tuple(np.asarray(transfer, dtype=complex).reshape(-1)), cutoff)


@lru_cache(maxsize=256)
def _two_mode_matrix(t: tuple[complex, ...], cutoff: int) -> np.ndarray:
    t00, t01, t10, t11 = t
    d = cutoff + 1
    out = np.zeros((d * d, d * d), dtype=complex)
    fact = [math.factorial(k) for k in range(2 * d)]
    for j in range(d):
        for i in range(d):  # input |j, i>: (a^+)^j (b^+)^i / sqrt(j! i!)
            # polynomials in x = a^+ (coefficient index = power of a^+), b^+ implicit
            first = np.array([math.comb(j, p) * t00**p * t10 ** (j - p) for p in range(j + 1)])
            second = np.array([math.comb(i, p) * t01**p * t11 ** (i - p) for p in range(i + 1)])
            coefficients = np.convolve(first, second)
            total = i + j
            for p, c in enumerate(coefficients):
                q = total - p
                if p <= cutoff and q <= cutoff:
                    out[p * d + q, j * d + i] = c * math.sqrt(
                        fact[p] * fact[q] / (fact[j] * fact[i])
                    )
    return out


def beam_splitter(theta: float, phi: float = 0.0) -> np.ndarray:
    """The transfer matrix ``[[cos t, -e^{-i phi} sin t], [e^{i phi} sin t, cos t]]``
    (``theta = pi/4``: a 50:50 splitter)."""
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -np.exp(-1j * phi) * s], [np.exp(1j * phi) * s, c]])


def givens_decomposition(unitary: np.ndarray) -> tuple[list[tuple[int, np.ndarray]], np.ndarray]:
    """``U = T_1 T_2 ... T_K D``: ``T_k`` a transfer matrix on modes ``(r, r+1)``, returned
    as ``(r, 2 x 2 matrix)``, and ``D`` the diagonal of phases. The state is then evolved by
    ``D`` first and ``T_K ... T_1`` after."""
    u = np.array(unitary, dtype=complex)
    m = u.shape[0]
    rotations: list[tuple[int, np.ndarray]] = []
    for col in range(m - 1):
        for row in range(m - 1, col, -1):
            a, b = u[row - 1, col], u[row, col]
            norm = math.hypot(abs(a), abs(b))
            if abs(b) < 1e-300:
                continue
            g = np.array([[a.conjugate(), b.conjugate()], [-b, a]]) / norm
            u[[row - 1, row], :] = g @ u[[row - 1, row], :]
            rotations.append((row - 1, g.conj().T))
    return rotations, np.diag(u).copy()


def check_unitary(matrix: Any, n_modes: int) -> np.ndarray:
    u = np.asarray(matrix, dtype=complex)
    if u.shape != (n_modes, n_modes):
        raise MatrixShapeError(
            f"an interferometer on {n_modes} modes is {n_modes} x {n_modes}, got {u.shape}"
        )
    if not np.all(np.isfinite(u)):
        raise ArgumentValueError("the interferometer has entries that are not finite")
    if not np.allclose(u.conj().T @ u, np.eye(n_modes), atol=UNITARITY_TOLERANCE):
        raise NotUnitaryError("the interferometer matrix is not unitary")
    return u


class ModeMPS:
    """Bosonic modes as a charge-conserving MPS (see the module docs)."""

    def __init__(
        self, network: Network, numbers: NumberSystem, truncation: Truncation, cutoff: int
    ):
        self._net = network
        self._readable = HostCopy()
        self._numbers = numbers
        self.truncation = truncation
        self.cutoff = cutoff

    @classmethod
    def fock(
        cls,
        photons: Sequence[int],
        cutoff: int | None = None,
        truncation: Truncation | None = None,
        numbers: str | NumberSystem = "complex128",
        device: str = "cpu",
    ) -> ModeMPS:
        """The Fock state with ``photons[k]`` photons in mode ``k``; ``cutoff`` (photons per
        mode) defaults to the total, which keeps every update exact; ``device="gpu"`` keeps
        the blocks on a GPU."""
        counts = [int(p) for p in photons]
        if len(counts) < 2 or any(p < 0 for p in counts):
            raise ArgumentValueError(
                f"give at least two modes and non-negative photon numbers, got {list(photons)!r}"
            )
        total = sum(counts)
        cut = max(total, 1) if cutoff is None else cutoff
        if isinstance(cut, bool) or not isinstance(cut, int) or cut < max(max(counts), 1):
            raise ArgumentValueError(
                f"cutoff must be an integer >= the largest input photon number, got {cutoff!r}"
            )
        ns = machine_numbers(numbers)
        net = Network.product(counts, site_charges("N", cut + 1), ns.dtype, array_module(device))
        return cls(net, ns, truncation or Truncation(), cut)

    @property
    def n_modes(self) -> int:
        return self._net.n_sites

    @property
    def total_photons(self) -> int:
        return self._net.total_charge

    @property
    def truncation_error(self) -> float:
        """Discarded weight of every truncation, plus any weight lost above the cutoff."""
        return self._net.truncation_error

    @property
    def bond_dimensions(self) -> list[int]:
        return [sum(b.values()) for b in self._net.bonds[1:-1]]

    def copy(self) -> ModeMPS:
        return ModeMPS(self._net.copy(), self._numbers, self.truncation, self.cutoff)

    def _mode(self, mode: Any) -> int:
        if (
            isinstance(mode, bool)
            or not isinstance(mode, (int, np.integer))
            or not 0 <= mode < self.n_modes
        ):
            raise QubitIndexError(f"mode {mode!r} is out of range for {self.n_modes} modes")
        return int(mode)

    def two_mode(self, transfer: Any, a: int, b: int) -> ModeMPS:
        """Apply the two-mode unitary with ``2 x 2`` transfer matrix ``transfer`` on modes
        ``a`` and ``b`` (row/column 0 is mode ``a``)."""
        a, b = self._mode(a), self._mode(b)
        if a == b:
            raise ArgumentValueError(f"a two-mode gate needs two different modes, got {a} twice")
        t = check_unitary(transfer, 2)
        if a > b:  # the matrix is written with the lower mode first
            a, b, t = b, a, t[::-1, ::-1]
        matrix = two_mode_matrix(t, self.cutoff).astype(self._numbers.dtype)
        blocks = gate_blocks(matrix, charge_groups(self._net.charges, 2), "the two-mode gate")
        self._readable.touched()
        norm2 = self._net.apply_on((a, b), blocks, self.truncation)
        if abs(norm2 - 1.0) > 1e-12:  # weight went above the cutoff
            self._net.truncation_error += max(1.0 - norm2, 0.0)
            self._net.canonicalize(self.truncation)
        return self

    def beam_splitter(self, theta: float, a: int, b: int, phi: float = 0.0) -> ModeMPS:
        """A beam splitter of angle ``theta`` (:func:`beam_splitter`) on modes ``a``, ``b``."""
        return self.two_mode(beam_splitter(theta, phi), a, b)

    def phase_shift(self, phi: float, mode: int) -> ModeMPS:
        """``exp(i phi n)`` on one mode."""
        mode = self._mode(mode)
        if not math.isfinite(phi):
            raise ArgumentValueError(f"phase must be finite, got {phi!r}")
        d = self.cutoff + 1
        diag = np.diag(np.exp(1j * phi * np.arange(d))).astype(self._numbers.dtype)
        blocks = gate_blocks(diag, charge_groups(self._net.charges, 1), "phase shift")
        self._readable.touched()
        self._net.apply(mode, 1, blocks, self.truncation)
        return self

    def interferometer(self, unitary: Any) -> ModeMPS:
        """The linear-optical unitary ``U`` on all modes (``a_j^dagger -> sum_k U[k, j]
        a_k^dagger``), as neighbouring beam splitters and phases."""
        u = check_unitary(unitary, self.n_modes)
        rotations, phases = givens_decomposition(u)
        for mode, phase in enumerate(phases):
            self.phase_shift(float(np.angle(phase)), mode)
        for mode, transfer in reversed(rotations):
            self.two_mode(transfer, mode, mode + 1)
        return self

    def _pattern(self, pattern: Sequence[int]) -> list[int]:
        counts = [int(p) for p in pattern]
        if len(counts) != self.n_modes or any(not 0 <= p <= self.cutoff for p in counts):
            raise ArgumentValueError(
                f"a photon pattern has {self.n_modes} entries in 0 .. {self.cutoff}, "
                f"got {list(pattern)!r}"
            )
        return counts

    def amplitude(self, pattern: Sequence[int]) -> complex:
        """``<pattern|psi>`` for photon numbers by mode."""
        return readout.amplitude(self._readable.of(self._net), self._pattern(pattern))

    def probability(self, pattern: Sequence[int]) -> float:
        return abs(self.amplitude(pattern)) ** 2

    def sample(self, shots: int, seed: Seed = None) -> dict[tuple[int, ...], int]:
        """Photon counts of ``shots`` detections (no collapse), drawn exactly mode by mode:
        ``{(n_0, n_1, ...): count}``."""
        shots = sampling.check_shots(shots)
        if shots == 0:
            return {}
        drawn = readout.sample_sites(
            self._readable.of(self._net), shots, self.n_modes - 1, sampling.rng(seed)
        )
        patterns, counts = np.unique(drawn, axis=0, return_counts=True)
        return {tuple(int(v) for v in p): int(c) for p, c in zip(patterns, counts)}

    def mean_photons(self) -> np.ndarray:
        """``<n_k>`` for every mode."""
        number = np.diag(np.arange(self.cutoff + 1, dtype=float))
        return np.array(
            [
                readout.operator_expectation(self._readable.of(self._net), {k: number}).real
                for k in range(self.n_modes)
            ]
        )

    def entanglement_entropy(self, cut: int | None = None, base: float = 2) -> Any:
        values = readout.entropies(self._readable.of(self._net), base)
        return values if cut is None else float(values[cut - 1])


def boson_sampling(
    unitary: Any,
    photons: Sequence[int],
    shots: int,
    seed: Seed = None,
    truncation: Truncation | None = None,
) -> dict[tuple[int, ...], int]:
    """Photon-count samples at the outputs of the interferometer ``unitary`` fed with the
    Fock state ``photons``: ``{(n_0, ..., n_{m-1}): count}``."""
    state = ModeMPS.fock(photons, truncation=truncation)
    return state.interferometer(unitary).sample(shots, seed)
