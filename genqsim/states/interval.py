"""Vectorised interval states: rigorous enclosures of a circuit's exact state at the speed of
the complex128 kernels.

An :class:`IntervalState` is a complex midpoint array ``m`` and a real radius array ``r`` with
``|psi_exact[j] - m[j]| <= r[j]`` for every amplitude. Each gate ``U`` is first enclosed in
complex balls (``U_mid``, ``U_rad``, computed at 128 bits), then applied midpoint-radius style
(Rump): ``m <- fl(U_mid m)`` and

    r <- |U_mid| (r + gamma |m|) + U_rad (|m| + r),

where ``gamma = n u / (1 - n u)`` bounds the rounding of a length-``K`` complex dot product
(``n = 2K + 4``, ``u = 2**-53``), and every floating-point step of the radius update is
inflated by its own rounding so the radius is an upper bound whatever the rounding did. All four
products run on the backend's kernels; there is no object arithmetic. Assumes IEEE binary64
arithmetic in round-to-nearest (what NumPy and Numba use).

As a :class:`~genqsim.states.State` (``method="interval"``) its results are complex balls of
the ``ball`` number system that contain the exact values: probabilities, marginals and
expectation values of Pauli sums, each with a rigorous radius. Sampling draws from the
midpoint distribution; a measurement collapses the enclosure onto the outcome and keeps it
rigorous through the renormalisation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..backends import Backend, select_backend
from ..circuit.circuit import Circuit, Operation
from ..circuit.gates import NON_UNITARY
from ..errors import (
    InvalidProbabilityError,
    NotUnitaryError,
    NumberTypeError,
    QubitIndexError,
)
from ..linalg.generic import marginalize
from ..linalg.observables import pauli_sum_of
from ..linalg.pauli import PauliSum, pauli_masks
from ..numbers import Number, NumberSystem, get_number_system, to_python_complex
from ..plan import GateCall, PermutationCall, call_for, check_bound, run_restricted
from ..support.memory import check_state_fits
from ..support.validation import as_qubit_tuple
from . import sampling
from .base import StateBase
from .protocol import Seed

if TYPE_CHECKING:
    from .registry import SimulationRequest

UNIT_ROUNDOFF = 2.0**-53
TINY = np.finfo(np.float64).tiny  # covers underflow in products of tiny amplitudes
ENCLOSURE_BITS = 128


def _gamma(n: int) -> float:
    """Higham's ``gamma_n = n u / (1 - n u)``, itself rounded up."""
    nu = n * UNIT_ROUNDOFF
    return nu / (1 - nu) * (1 + 4 * UNIT_ROUNDOFF)


def _up(x: np.ndarray, n_ops: int = 2) -> np.ndarray:
    """``x`` inflated, in place, past the rounding of the ``n_ops`` float operations that
    produced it; returns ``x``."""
    x *= 1 + _gamma(n_ops)
    x += TINY
    return x


class _EnclosedCall:
    """One gate call with its entries enclosed: midpoint call, ``|midpoint|`` call, and
    radius call (``None`` when every entry is exact in binary64)."""

    def __init__(self, ball_call: GateCall, balls: Any) -> None:
        self.size = 1
        self.mid: GateCall
        self.abs: GateCall
        if isinstance(ball_call, PermutationCall):
            if ball_call.phases is None:
                self.mid = self.abs = ball_call
                self.rad: GateCall | None = None
                self.exact = True
                return
            mid, rad = _split_balls(ball_call.phases, balls)
        else:
            mid, rad = _split_balls(ball_call.data, balls)
            if ball_call.data.ndim == 2:  # a dense matrix: K = its row length
                self.size = mid.shape[0]
        self.mid = ball_call.with_data(mid)
        self.abs = ball_call.with_data(np.abs(mid).astype(np.complex128))
        self.rad = ball_call.with_data(rad.astype(np.complex128)) if rad.any() else None
        self.exact = False


def _split_balls(values: np.ndarray, balls: Any) -> tuple[np.ndarray, np.ndarray]:
    """Nearest complex128 midpoints and radii (rounded up) with ``|ball - mid| <= rad``."""
    acb = balls.flint.acb
    mid = np.empty(values.shape, dtype=np.complex128)
    rad = np.empty(values.shape, dtype=np.float64)
    with balls.context():
        for idx, ball in np.ndenumerate(values):
            m = complex(ball.mid())
            mid[idx] = m
            distance = (ball - acb(m.real, m.imag)).abs_upper()
            rad[idx] = np.nextafter(float(distance.upper()), np.inf) if distance != 0 else 0.0
    return mid, rad


class IntervalState(StateBase):
    """A rigorous enclosure of a pure state: midpoint array and radius array (see module)."""

    clbits: dict[int, int]

    def __init__(
        self,
        midpoint: np.ndarray,
        radius: np.ndarray | None = None,
        backend: Backend | None = None,
    ) -> None:
        self.midpoint = np.ascontiguousarray(midpoint, dtype=np.complex128)
        self.radius = (
            np.zeros(self.midpoint.shape, dtype=np.float64)
            if radius is None
            else np.ascontiguousarray(radius, dtype=np.float64)
        )
        self.n_qubits = int(self.midpoint.size).bit_length() - 1
        self.backend = select_backend(self.midpoint) if backend is None else backend
        self._balls = get_number_system(f"ball:{ENCLOSURE_BITS}")
        self._complex = get_number_system("complex128")
        self.clbits = {}

    @property
    def numbers(self) -> NumberSystem:
        """Results are complex balls (python-flint ``acb``) that contain the exact values."""
        return get_number_system("ball")

    @classmethod
    def zeros(cls, n_qubits: int, backend: Backend | None = None) -> IntervalState:
        """The exact ``|0...0>`` (radius zero)."""
        check_state_fits(n_qubits, 16 + 8 + 16 + 8)  # midpoint, radius and two temporaries
        m = np.zeros(1 << n_qubits, dtype=np.complex128)
        m[0] = 1
        return cls(m, backend=backend)

    def apply(self, circuit: Circuit | Operation) -> IntervalState:
        """Apply ``circuit`` (or one operation) in place, gate by gate, keeping the enclosure;
        returns ``self``."""
        circuit = self.check_circuit(circuit)
        check_bound(circuit, self._balls)
        calls: list[_EnclosedCall] = []
        with self._balls.context():
            for op in circuit.operations:
                if op.gate.kind in NON_UNITARY:
                    raise NotUnitaryError(
                        f"interval states support unitary circuits only (found {op.gate.name}); "
                        "for noise and conditionals use method='density_matrix', numbers='ball'"
                    )
                ball_call = call_for(op, self._balls)
                if isinstance(ball_call, GateCall):
                    calls.append(_EnclosedCall(ball_call, self._balls))
        for call in calls:  # all enclosed before any amplitude changes
            self._apply(call)
        return self

    def _apply(self, call: _EnclosedCall) -> None:
        be, m, r = self.backend, self.midpoint, self.radius
        if call.exact:  # a pure permutation moves numbers without arithmetic
            call.mid.run(be, m)
            radius = r.astype(np.complex128)
            call.mid.run(be, radius)
            r[...] = radius.real
            return
        abs_m = _up(np.abs(m), 4)
        w = None
        if call.rad is not None:  # U_rad (|m| + r), zero outside the controlled subspace
            w = np.zeros(m.shape, dtype=np.complex128)  # the kernels act on complex arrays
            w_real = w.real
            np.add(abs_m, r, out=w_real)
            _up(w_real, 1)
            run_restricted(call.rad, be, w, self._complex)
        s = np.zeros(m.shape, dtype=np.complex128)
        s_real = s.real
        np.multiply(abs_m, _gamma(2 * call.size + 4), out=s_real)
        del abs_m
        s_real += r
        _up(s_real, 3)
        call.abs.run(be, s)  # |U_mid| (r + gamma |m|)
        _up(s_real, call.size + 2)
        if w is not None:
            s_real += _up(w.real, call.size + 2)
            _up(s_real, 1)
        r[...] = s_real  # the new radius, in place
        call.mid.run(be, m)

    # -- results -------------------------------------------------------------------------------
    def copy(self) -> IntervalState:
        """An independent copy."""
        out = IntervalState(self.midpoint.copy(), self.radius.copy(), self.backend)
        out.clbits = dict(self.clbits)
        return out

    def to_numpy(self) -> np.ndarray:
        """A copy of the midpoints (the nearest complex128 values; :attr:`radius` bounds the
        distance of each to the exact amplitude)."""
        return self.midpoint.copy()

    @property
    def amplitudes(self) -> np.ndarray:
        """Every amplitude as a complex ball that contains it (an object array)."""
        return np.array(
            [_ball(complex(m), float(r)) for m, r in zip(self.midpoint, self.radius)], dtype=object
        )

    def probabilities(self, qubits: Sequence[int] | None = None) -> np.ndarray:
        """Balls that contain every basis probability, or the marginal probabilities of
        ``qubits`` (``qubits[0]`` the least-significant bit of the index)."""
        qs = None if qubits is None else as_qubit_tuple(qubits, self.n_qubits)
        lower, upper = self.probability_bounds()
        if qs is not None:
            terms = 1 << (self.n_qubits - len(qs))
            lower = marginalize(lower, qs) * (1 - _gamma(terms))
            upper = _up(marginalize(upper, qs), terms)
        return np.array([_real_ball(lo, hi) for lo, hi in zip(lower, upper)], dtype=object)

    def expectation(self, observable: str | PauliSum) -> Number:
        """A complex ball that contains ``<psi|H|psi>`` for the exact state: the midpoint's
        value plus, per term ``c P``, ``|c| (2 |m| |r| + |r|**2 + rounding)`` (``P`` is
        unitary, so a perturbation ``d`` of the state moves ``<P>`` by at most
        ``2 |d| |m| + |d|**2`` in 2-norms)."""
        obs = pauli_sum_of(observable)
        if obs.n_qubits > self.n_qubits:
            raise QubitIndexError(
                f"observable acts on qubit {obs.n_qubits - 1} but the state has "
                f"{self.n_qubits} qubits"
            )
        coeffs = []
        for c, _ in obs.terms:
            try:
                coeffs.append(to_python_complex(c, "observable coefficient"))
            except Exception as exc:
                raise NumberTypeError(
                    f"interval states take numeric observable coefficients, got {c}"
                ) from exc
        norm_m = float(_up(np.array([np.linalg.norm(self.midpoint)]), self.midpoint.size + 2)[0])
        norm_r = float(_up(np.array([np.linalg.norm(self.radius)]), self.radius.size + 2)[0])
        per_term = 2 * norm_m * norm_r + norm_r**2 + _gamma(2 * self.midpoint.size + 4) * norm_m**2
        total, radius = 0j, 0.0
        for c, (_, pauli) in zip(coeffs, obs.terms):
            x, z, n_y = pauli_masks(pauli)
            raw = complex(self.backend.expectation_pauli(self.midpoint, x, z, self._complex))
            value = ((1, 1j, -1, -1j)[n_y % 4] * raw).real
            total += c * value
            radius += abs(c) * (per_term + abs(value) * _gamma(4))
        radius = float(_up(np.array([radius]), 3 * len(coeffs) + 4)[0])
        return _ball(total, radius)

    def sample(
        self, shots: int, seed: Seed = None, qubits: Sequence[int] | None = None
    ) -> dict[str, int]:
        """Counts of ``shots`` measurements drawn from the midpoint distribution."""
        return sampling.sample_distribution(
            self._midpoint_distribution, self.n_qubits, shots, seed, qubits
        )

    def measure(self, qubits: Sequence[int] | None = None, seed: Seed = None) -> str:
        """Measure ``qubits`` (all when omitted) with the midpoint's probabilities, collapse
        the enclosure onto the outcome and renormalise it rigorously. Refused when the
        outcome's exact probability is not provably positive."""
        qs = (
            tuple(range(self.n_qubits)) if qubits is None else as_qubit_tuple(qubits, self.n_qubits)
        )
        outcome = sampling.draw_outcome(self._midpoint_distribution(qs), seed)
        keep = _pattern_mask(self.n_qubits, qs, outcome)
        norm_m = float(np.linalg.norm(self.midpoint[keep]))
        norm_r = float(np.linalg.norm(self.radius[keep]))
        slack = 1 + _gamma(self.midpoint.size + 2)
        p_low = (max(norm_m / slack - norm_r * slack, 0.0)) ** 2 * (1 - _gamma(2))
        p_high = (norm_m * slack + norm_r * slack) ** 2 * (1 + _gamma(2))
        if not p_low > 0:
            raise InvalidProbabilityError(
                f"outcome {sampling.bitstring(outcome, len(qs))} has a probability that the "
                "enclosure does not bound away from zero; cannot renormalise rigorously"
            )
        inv_low, inv_high, inv_mid = 1 / np.sqrt(p_low), 1 / np.sqrt(p_high), 1 / norm_m
        scale_error = max(inv_low - inv_mid, inv_mid - inv_high, 0.0)
        m = np.where(keep, self.midpoint, 0) * inv_mid
        r = np.where(keep, self.radius * inv_low + np.abs(self.midpoint) * scale_error, 0.0)
        r += np.abs(m) * _gamma(4)
        self.midpoint[...] = m
        self.radius[...] = _up(r, 6)
        return sampling.bitstring(outcome, len(qs))

    def _midpoint_distribution(self, qubits: tuple[int, ...] | None) -> np.ndarray:
        p = self.backend.probabilities(self.midpoint, qubits, self._complex)
        return sampling.host_distribution(np.asarray(p, dtype=np.float64))

    @property
    def max_radius(self) -> float:
        """The largest radius: every amplitude is known to within this distance."""
        return float(self.radius.max())

    def contains(self, amplitudes: Any) -> bool:
        """Whether each given amplitude lies in its disc (allowing for the check's rounding)."""
        a = np.asarray(amplitudes, dtype=np.complex128)
        return bool(np.all(np.abs(a - self.midpoint) * (1 - _gamma(4)) <= self.radius))

    def probability_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(lower, upper)`` bounds on every basis-state probability ``|psi_j|**2``."""
        absm = np.abs(self.midpoint)
        lower = np.maximum(absm * (1 - _gamma(2)) - self.radius, 0.0) ** 2 * (1 - _gamma(2))
        upper = _up((absm + self.radius) ** 2, 4)
        return lower, upper

    def __repr__(self) -> str:
        return f"<IntervalState: {self.n_qubits} qubits, max radius {self.max_radius:.3g}>"


def _ball(value: complex, radius: float) -> Any:
    """The complex ball (``flint.acb``) of centre ``value`` with both parts widened by
    ``radius``."""
    import flint

    z = complex(value)
    return flint.acb(flint.arb(z.real, radius), flint.arb(z.imag, radius))


def _real_ball(lower: float, upper: float) -> Any:
    """The smallest ball that contains ``[lower, upper]`` (as an ``acb``)."""
    import flint

    return flint.acb(flint.arb(float(lower)).union(flint.arb(float(upper))))


def _pattern_mask(n_qubits: int, qubits: tuple[int, ...], outcome: int) -> np.ndarray:
    """Which basis indices show ``outcome`` on ``qubits`` (``qubits[0]`` its lowest bit)."""
    index = np.arange(1 << n_qubits, dtype=np.int64)
    keep = np.ones(index.size, dtype=bool)
    for pos, q in enumerate(qubits):
        keep &= ((index >> q) & 1) == ((outcome >> pos) & 1)
    return keep


def run_interval(request: SimulationRequest) -> IntervalState:
    """``method="interval"``: a rigorous enclosure of the exact state, on complex128 midpoints
    and float64 radii (``numbers`` does not apply; results are balls)."""
    if request.numbers is not None and request.numbers.name != "complex128":
        raise NumberTypeError(
            f"method='interval' computes complex128 midpoints with rigorous radii; "
            f"numbers={request.numbers.name!r} does not apply"
        )
    from .registry import cpu_backend

    backend = cpu_backend(request, "interval")
    initial = request.initial
    if initial is not None and not isinstance(initial, IntervalState):
        from .statevector import initial_state

        ns = get_number_system("complex128")
        psi = initial_state(request.circuit.n_qubits, initial, ns, backend.name)
        initial = IntervalState(psi.to_numpy(), backend=backend)
    return enclose(request.circuit, initial, backend)


def enclose(
    circuit: Circuit, initial: IntervalState | None = None, backend: Backend | None = None
) -> IntervalState:
    """A rigorous enclosure of the exact state ``circuit |0...0>`` (or of ``circuit`` applied
    to a copy of ``initial``), computed on the fast kernels (of ``backend``, when given)."""
    if initial is None:
        state = IntervalState.zeros(circuit.n_qubits, backend)
    else:
        chosen = initial.backend if backend is None else backend
        state = IntervalState(initial.midpoint.copy(), initial.radius.copy(), chosen)
    return state.apply(circuit)
