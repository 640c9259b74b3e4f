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
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .backends import select_backend
from .circuit import Circuit
from .errors import NotUnitaryError, QubitCountMismatchError
from .gates import GateKind
from .memory import check_state_fits
from .numbers import get_number_system
from .plan import Call, call_for, check_bound, run_restricted

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
    """One primitive call with its entries enclosed: midpoint call, ``|midpoint|`` call, and
    radius call (``None`` when every entry is exact in binary64)."""

    def __init__(self, ball_call: Call, balls: Any) -> None:
        where = (ball_call.targets, ball_call.controls, ball_call.control_values)
        self.kind = ball_call.kind
        if self.kind == "permutation":
            perm, phases = ball_call.data
            self.size = 1
            if phases is None:
                self.mid = Call(self.kind, (perm, None), *where)
                self.abs = self.mid
                self.rad = None
                self.exact = True
                return
            mid, rad = _split_balls(phases, balls)
            self.mid = Call(self.kind, (perm, mid), *where)
            self.abs = Call(self.kind, (perm, np.abs(mid).astype(np.complex128)), *where)
            self.rad = (
                Call(self.kind, (perm, rad.astype(np.complex128)), *where) if rad.any() else None
            )
            self.exact = False
            return
        mid, rad = _split_balls(ball_call.data, balls)
        self.size = 1 if self.kind == "diagonal" else mid.shape[0]
        self.mid = Call(self.kind, mid, *where)
        self.abs = Call(self.kind, np.abs(mid).astype(np.complex128), *where)
        self.rad = Call(self.kind, rad.astype(np.complex128), *where) if rad.any() else None
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


class IntervalState:
    """A rigorous enclosure of a pure state: midpoint array and radius array (see module)."""

    def __init__(self, midpoint: np.ndarray, radius: np.ndarray | None = None) -> None:
        self.midpoint = np.ascontiguousarray(midpoint, dtype=np.complex128)
        self.radius = (
            np.zeros(self.midpoint.shape, dtype=np.float64)
            if radius is None
            else np.ascontiguousarray(radius, dtype=np.float64)
        )
        self.n_qubits = int(self.midpoint.size).bit_length() - 1
        self.backend = select_backend(self.midpoint)
        self._balls = get_number_system(f"ball:{ENCLOSURE_BITS}")
        self._complex = get_number_system("complex128")

    @classmethod
    def zeros(cls, n_qubits: int) -> IntervalState:
        """The exact ``|0...0>`` (radius zero)."""
        check_state_fits(n_qubits, 16 + 8 + 16 + 8)  # midpoint, radius and two temporaries
        m = np.zeros(1 << n_qubits, dtype=np.complex128)
        m[0] = 1
        return cls(m)

    def apply(self, circuit: Circuit) -> IntervalState:
        """Apply ``circuit`` in place, gate by gate, keeping the enclosure; returns ``self``."""
        if circuit.n_qubits != self.n_qubits:
            raise QubitCountMismatchError(
                f"circuit has {circuit.n_qubits} qubits but the state has {self.n_qubits}"
            )
        check_bound(circuit, self._balls)
        calls = []
        with self._balls.context():
            for op in circuit.operations:
                if op.gate.kind in (GateKind.MEASURE, GateKind.RESET):
                    raise NotUnitaryError("interval states support unitary circuits only")
                call = call_for(op, self._balls)
                if call is not None:
                    calls.append(_EnclosedCall(call, self._balls))
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


def enclose(circuit: Circuit, initial: IntervalState | None = None) -> IntervalState:
    """A rigorous enclosure of the exact state ``circuit |0...0>`` (or of ``circuit`` applied
    to a copy of ``initial``), computed on the fast kernels."""
    if initial is None:
        state = IntervalState.zeros(circuit.n_qubits)
    else:
        state = IntervalState(initial.midpoint.copy(), initial.radius.copy())
    return state.apply(circuit)
