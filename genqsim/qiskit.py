"""genqsim behind Qiskit's interfaces (needs ``pip install 'genqsim[interop]'``).

- :class:`Sampler` and :class:`Estimator`: Qiskit's V2 primitives (``BaseSamplerV2``,
  ``BaseEstimatorV2``), a one-line swap for ``StatevectorSampler`` / ``StatevectorEstimator``.
- :class:`GenqsimBackend`: a ``BackendV2`` for ``transpile(qc, backend)`` and
  ``backend.run(circuits, shots=...)``.

Every other setting goes to :func:`genqsim.simulate` (``method``, ``numbers``, ``device``,
``noise_model`` from Aer or genqsim, ...).
"""

from __future__ import annotations

try:
    import qiskit as _qiskit  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError("genqsim.qiskit needs Qiskit: pip install 'genqsim[interop]'") from exc

from .frontends.qiskit_backend import GenqsimBackend, GenqsimJob
from .frontends.qiskit_primitives import Estimator, Sampler

__all__ = ["Estimator", "GenqsimBackend", "GenqsimJob", "Sampler"]
