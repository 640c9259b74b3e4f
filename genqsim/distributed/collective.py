"""Every rank must make the same collective calls in the same order; a call made on some
ranks only (a method called under ``if rank == 0:``) would otherwise hang the job.

Each public method of a distributed state that communicates first passes
:func:`agreed`: a non-blocking barrier polled until every rank has arrived or
:data:`timeout` seconds have passed (then :class:`~genqsim.errors.CollectiveMismatchError`
on the ranks that arrived; MPI's launcher ends the others when those exit), followed by an
exchange of the call's name, so ranks that arrived at different methods all fail with a
message naming each rank's call. Calls made inside a guarded call are not guarded again.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import ArgumentValueError, CollectiveMismatchError

TIMEOUT_VARIABLE = "GENQSIM_MPI_TIMEOUT"
DEFAULT_TIMEOUT = 300.0
"""Seconds a rank waits at a collective call for the others (``GENQSIM_MPI_TIMEOUT``
overrides it): long enough for the slowest rank's local work before the call (planning,
compiling kernels), short enough that a mistake ends the job."""

Method = TypeVar("Method", bound=Callable[..., Any])


def timeout() -> float:
    """The wait, from ``GENQSIM_MPI_TIMEOUT`` or :data:`DEFAULT_TIMEOUT`."""
    text = os.environ.get(TIMEOUT_VARIABLE)
    if text is None:
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise ArgumentValueError(
            f"{TIMEOUT_VARIABLE} must be a positive number of seconds, got {text!r}"
        )
    return value


def agreed(comm: Any, name: str, wait: float) -> None:
    """Return once every rank has reached the collective call ``name``; else raise."""
    request = comm.Ibarrier()
    deadline = time.monotonic() + wait
    pause = 1e-5
    while not request.Test():
        if time.monotonic() > deadline:
            raise CollectiveMismatchError(
                f"rank {comm.Get_rank()} of {comm.Get_size()} called {name} and waited {wait:g} s "
                "for the other ranks, which did not call it: every rank must make the same "
                "collective calls in the same order (a distributed state's methods are "
                "collective; a call under `if rank == 0:` hangs the job). Raise "
                f"{TIMEOUT_VARIABLE} if a rank's own work before the call takes longer"
            )
        time.sleep(pause)
        pause = min(2 * pause, 0.01)
    names = comm.allgather(name)
    if len(set(names)) > 1:
        calls = "; ".join(f"rank {rank}: {call}" for rank, call in enumerate(names))
        raise CollectiveMismatchError(
            f"the ranks made different collective calls ({calls}): every rank must make the "
            "same calls in the same order"
        )


def collective(method: Method) -> Method:
    """Guard a state method with :func:`agreed` (once per outermost call)."""

    @functools.wraps(method)
    def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
        if self.size == 1 or getattr(self, "_in_collective", False):
            return method(self, *args, **kwargs)
        agreed(self.comm, f"{type(self).__name__}.{method.__name__}", timeout())
        self._in_collective = True
        try:
            return method(self, *args, **kwargs)
        finally:
            self._in_collective = False

    return guarded  # type: ignore[return-value]
