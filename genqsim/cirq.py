"""genqsim behind Cirq's simulator interfaces (needs ``pip install 'genqsim[interop]'``):
:class:`Simulator` samples, returns final states and exact expectation values, with
parameter sweeps, so ``cirq.Simulator()`` can be swapped for ``genqsim.cirq.Simulator()``.
"""

from __future__ import annotations

try:
    import cirq as _cirq  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError("genqsim.cirq needs Cirq: pip install 'genqsim[interop]'") from exc

from .frontends.cirq_simulator import Simulator

__all__ = ["Simulator"]
