"""Run options: the settings that travel with a state through its runs."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from ..backends import ThreadScoped, capability
from ..errors import ArgumentValueError, ThreadCountError


@dataclass(frozen=True)
class RunOptions:
    """How a state runs circuits.

    ``threads``: CPU threads for large states on a threaded backend, entered once around each
    run (``None``: the calling thread's setting, see :func:`genqsim.set_num_threads`).
    ``fuse``: width of fused gate blocks (``None``: the default for the numbers; ``False``:
    gate by gate). ``progress``: draw a progress bar on standard error for long runs.
    ``trajectories``: how many quantum trajectories ``method="trajectories"`` averages.
    ``pauli_basis``: whether a density matrix runs its gates and channels on real Pauli
    coordinates (:mod:`genqsim.states.pauli_basis`; ``None``: where it pays, ``True``:
    wherever it can, ``False``: never).
    ``exchange_chunk``: amplitudes per MPI message of a distributed state (a power of two;
    ``None``: :data:`genqsim.distributed.DEFAULT_CHUNK`). ``remap``: whether a distributed
    state moves qubits between local and rank positions as the circuit needs them (``False``
    keeps one layout and exchanges for every gate on a rank qubit).
    ``max_bond``, ``cutoff`` and ``conserve``: a matrix-product state's bond limit, largest
    discarded weight per truncation, and conserved charge (``None``, ``"N"`` or ``"Sz"``;
    :mod:`genqsim.mps`).
    """

    threads: int | None = None
    fuse: int | bool | None = None
    progress: bool = False
    trajectories: int = 1000
    pauli_basis: bool | None = None
    exchange_chunk: int | None = None
    remap: bool = True
    max_bond: int | None = None
    cutoff: float = 0.0
    conserve: str | None = None

    def __post_init__(self) -> None:
        t = self.threads
        if t is not None and (isinstance(t, bool) or not isinstance(t, int) or t < 1):
            raise ThreadCountError(f"threads must be a positive integer or None, got {t!r}")
        f = self.fuse
        if f is not None and not isinstance(f, bool) and (not isinstance(f, int) or f < 0):
            raise ArgumentValueError(f"fuse must be None, a bool or a non-negative int, got {f!r}")
        p = self.pauli_basis
        if p is not None and not isinstance(p, bool):
            raise ArgumentValueError(f"pauli_basis must be None or a bool, got {p!r}")
        c = self.exchange_chunk
        if c is not None and (
            isinstance(c, bool) or not isinstance(c, int) or c < 1 or c & (c - 1)
        ):
            raise ArgumentValueError(f"exchange_chunk must be a power of two, got {c!r}")
        if not isinstance(self.remap, bool):
            raise ArgumentValueError(f"remap must be a bool, got {self.remap!r}")
        n = self.trajectories
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ArgumentValueError(f"trajectories must be a positive integer, got {n!r}")


def run_threads(backend: Any, options: RunOptions) -> contextlib.AbstractContextManager[None]:
    """The run's thread count on ``backend``, entered once around a whole operation (a
    backend without thread settings gets a no-op)."""
    scoped = capability(backend, ThreadScoped)
    return contextlib.nullcontext() if scoped is None else scoped.threads(options.threads)
