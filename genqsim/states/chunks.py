"""One circuit at many parameter points: the points from arrays broadcast as NumPy broadcasts
them, and the runs, serially or split into chunks on any ``concurrent.futures.Executor`` (a
``ProcessPoolExecutor``, a Dask ``distributed`` client's ``get_executor()``, an MPI pool's).

Each chunk binds and runs its points one after the other in one task, so a task is long
enough to pay for its trip; the circuit travels once per chunk (on a Dask executor, once
per worker: it is scattered to every worker first). Results come back in point order, and
any randomness is seeded per point from one ``SeedSequence``, so it does not depend on the
number of workers or chunks."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

import numpy as np

from ..circuit.circuit import Circuit
from ..errors import ArgumentTypeError, ArgumentValueError

CHUNKS_PER_WORKER = 4
"""Chunks a sweep is split into per worker of the executor: a few, so a slow worker does
not hold the others up at the end."""

DEFAULT_WORKERS = 8
"""Workers assumed for an executor that does not say how many it has."""

Task = Callable[[Circuit, Any], Any]
"""What a sweep runs at each point: ``task(bound_circuit, seed)``."""

ChunkTask = Callable[[Circuit, Mapping[Any, Any]], "list[Any] | None"]
"""What a sweep may run on a whole chunk at once: ``chunk_task(circuit, values)`` with the
chunk's points as arrays (:func:`chunk_values`), the results in point order, or ``None``
where it does not serve them (then :data:`Task` runs at each point)."""


def broadcast_points(values: Mapping[Any, Any]) -> tuple[tuple[int, ...], list[dict[Any, Any]]]:
    """The broadcast shape of the array-valued entries of ``values`` and, in C order, the
    mapping that binds each point (scalar entries bound at every point)."""
    swept = {k: np.asarray(v) for k, v in values.items() if np.ndim(v) > 0}
    try:  # broadcast_shapes takes any number of arrays (np.broadcast at most 64)
        shape = np.broadcast_shapes(*(a.shape for a in swept.values()))
    except ValueError:
        shapes = ", ".join(f"{k}: {np.shape(v)}" for k, v in swept.items())
        raise ArgumentValueError(
            f"parameter arrays do not broadcast together ({shapes}); give arrays of one shape "
            "or shapes NumPy broadcasts (a row and a column give a grid)"
        ) from None
    arrays = {k: np.broadcast_to(v, shape) for k, v in swept.items()}
    fixed = {k: v for k, v in values.items() if k not in swept}
    points = [
        {**fixed, **{k: _scalar(a[point]) for k, a in arrays.items()}}
        for point in np.ndindex(shape)
    ]
    return shape, points


def _scalar(value: Any) -> Any:
    """One entry of a swept array as a Python number (a symbol of an object array as is)."""
    return value.item() if isinstance(value, np.generic) else value


def run_points(
    task: Task,
    circuit: Circuit,
    points: Sequence[Mapping[Any, Any]],
    seeds: Sequence[Any] | None = None,
    executor: Executor | None = None,
    chunk_size: int | None = None,
    chunk_task: ChunkTask | None = None,
) -> list[Any]:
    """``task(circuit.bind(point), seed)`` at every point, in order: here, or in chunks of
    ``chunk_size`` points on ``executor`` (default: a few chunks per worker); a chunk goes
    whole to ``chunk_task`` first where one is given (a broadcast sweep of its points)."""
    seeded = list(zip(points, seeds if seeds is not None else [None] * len(points)))
    if executor is None:
        return run_chunk(task, circuit, seeded, chunk_task)
    if not isinstance(executor, Executor):
        raise ArgumentTypeError(
            "executor takes a concurrent.futures.Executor (a ProcessPoolExecutor, or a Dask "
            f"client's client.get_executor()), got {type(executor).__name__}"
        )
    size = chunk_size_for(len(seeded), executor, chunk_size)
    sent = shipped(circuit, executor)
    futures = [
        executor.submit(run_chunk, task, sent, seeded[start : start + size], chunk_task)
        for start in range(0, len(seeded), size)
    ]
    return [value for future in futures for value in future.result()]


def run_chunk(
    task: Task,
    circuit: Circuit,
    seeded: Sequence[tuple[Mapping, Any]],
    chunk_task: ChunkTask | None = None,
) -> list[Any]:
    """One chunk (run in a worker): ``chunk_task`` on all its points at once where given and
    it serves them, else the task at each point."""
    if chunk_task is not None and seeded:
        found = chunk_task(circuit, chunk_values([point for point, _ in seeded]))
        if found is not None:
            return found
    return [task(circuit.bind(point) if point else circuit, seed) for point, seed in seeded]


def chunk_values(points: Sequence[Mapping[Any, Any]]) -> dict[Any, np.ndarray]:
    """The points of a chunk as one array per key, in point order (every point of a sweep
    binds the same keys)."""
    return {key: np.array([point[key] for point in points]) for key in points[0]}


def chunk_size_for(n_points: int, executor: Executor, chunk_size: int | None = None) -> int:
    """Points per chunk: ``chunk_size`` if given, else enough for :data:`CHUNKS_PER_WORKER`
    chunks per worker of ``executor``."""
    if chunk_size is not None:
        if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
            raise ArgumentValueError(f"chunk_size is a positive integer, got {chunk_size!r}")
        return chunk_size
    chunks = CHUNKS_PER_WORKER * _workers(executor)
    return max(1, math.ceil(n_points / chunks))


def _workers(executor: Executor) -> int:
    """How many workers ``executor`` runs tasks on (a process or thread pool's
    ``max_workers``, a Dask cluster's workers), or :data:`DEFAULT_WORKERS`."""
    client = getattr(executor, "_client", None)
    if client is not None and hasattr(client, "scheduler_info"):
        return max(1, len(client.scheduler_info().get("workers", ())))
    return int(getattr(executor, "_max_workers", DEFAULT_WORKERS) or DEFAULT_WORKERS)


def shipped(value: Any, executor: Executor) -> Any:
    """``value`` (a circuit, an initial state) as tasks receive it: on a Dask executor, a
    future of a copy scattered to every worker (sent once per worker, not once per chunk);
    elsewhere the value itself."""
    client = getattr(executor, "_client", None)
    if client is not None and hasattr(client, "scatter"):
        return client.scatter(value, broadcast=True, hash=False)  # a fresh key per sweep
    return value
