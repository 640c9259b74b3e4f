"""genqsim as a PennyLane device (needs ``pip install 'genqsim[interop]'``):
``qml.device("genqsim.qubit", wires=..., shots=..., seed=..., method=..., numbers=...)``,
registered through PennyLane's ``pennylane.plugins`` entry point; :class:`GenqsimQubit` is
the class behind it.
"""

from __future__ import annotations

try:
    import pennylane as _pennylane  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError("genqsim.pennylane needs PennyLane: pip install 'genqsim[interop]'") from exc

from .frontends.pennylane_device import GenqsimQubit

__all__ = ["GenqsimQubit"]
