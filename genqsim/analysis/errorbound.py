"""How far can a float run be from the exact state? A rigorous answer.

:func:`error_bound` runs the circuit the way a user would (``complex64`` or ``complex128``, the
default backend, fusion on) and encloses the exact state, either in complex balls (tight, object
arrays) or in a vectorised interval state (fast kernels). Every amplitude's distance from the
float result to the exact one is then bounded above, rigorously:
``|float - exact| <= |float - mid| + rad``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..circuit.circuit import Circuit
from ..errors import ArgumentValueError
from ..numbers import get_number_system
from ..states import simulate
from ..support.renamed import renamed_argument

BALL_BITS = 128


@dataclass(frozen=True)
class ErrorBound:
    """Rigorous bounds on the error of one float run of a circuit."""

    dtype: str
    n_qubits: int
    enclosure: str
    """How the exact state was enclosed: ``"ball"`` or ``"interval"``."""
    max_amplitude_error: float
    """Upper bound on ``max_j |float_j - exact_j|``."""
    norm_error: float
    """Upper bound on ``|| float - exact ||_2``."""
    enclosure_radius: float
    """The largest radius of the exact state's enclosure (how much of the bound is ours)."""

    def __str__(self) -> str:
        return (
            f"{self.dtype} run of {self.n_qubits} qubits: every amplitude within "
            f"{self.max_amplitude_error:.3g} of the exact state, 2-norm error <= "
            f"{self.norm_error:.3g} (enclosure by {self.enclosure}, radius <= "
            f"{self.enclosure_radius:.3g})"
        )


def error_bound(
    circuit: Circuit,
    dtype: str = "complex64",
    enclosure: str | None = None,
    bits: int = BALL_BITS,
    *,
    method: str | None = None,
) -> ErrorBound:
    """Bound the error of running ``circuit`` (from ``|0...0>``) in ``dtype``.

    ``enclosure="ball"`` (the default) encloses the exact state in ``bits``-bit complex balls
    (python-flint; tightest), ``enclosure="interval"`` in a midpoint-radius state on the
    complex128 kernels (fast; its radius grows with the gate count at about the float64
    rounding level, so it bounds complex64 runs tightly and complex128 runs within a small
    factor). ``method=`` is the deprecated old name of ``enclosure=``.
    """
    method = renamed_argument("error_bound", "enclosure", enclosure, "method", method) or "ball"
    if dtype not in ("complex64", "complex128"):
        raise ArgumentValueError(f"dtype must be 'complex64' or 'complex128', got {dtype!r}")
    floats = simulate(circuit, numbers=dtype).to_numpy().astype(np.complex128)
    if method == "ball":
        per_amp, radius = _ball_distances(circuit, floats, bits)
    elif method == "interval":
        from ..states.interval import enclose

        enclosed = enclose(circuit)
        diff = np.abs(floats - enclosed.midpoint)
        per_amp = (diff + enclosed.radius) * (1 + 8 * 2.0**-53)
        radius = enclosed.max_radius
    else:
        raise ArgumentValueError(f"enclosure must be 'ball' or 'interval', got {method!r}")
    norm = math.sqrt(math.fsum(float(x) * float(x) for x in per_amp)) * (1 + 2.0**-50)
    return ErrorBound(dtype, circuit.n_qubits, method, float(per_amp.max()), norm, radius)


def _ball_distances(circuit: Circuit, floats: np.ndarray, bits: int) -> tuple[np.ndarray, float]:
    balls: Any = get_number_system(f"ball:{bits}")
    exact = simulate(circuit, numbers=balls).amplitudes
    acb = balls.flint.acb
    out = np.empty(floats.size, dtype=np.float64)
    radius = 0.0
    with balls.context():
        for j, (f, ball) in enumerate(zip(floats, exact)):
            upper = (acb(f.real, f.imag) - ball).abs_upper().upper()
            out[j] = np.nextafter(float(upper), np.inf)
            radius = max(radius, balls.radius(ball))
    return out, radius
