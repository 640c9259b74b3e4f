"""Run options: the settings that travel with a state through its runs.

:class:`RunOptions` holds what every kind of state shares (threads, fusion, progress). A
method with settings of its own declares them in a subclass, one :func:`option` per field
with its help text (``MPSOptions(max_bond, cutoff, conserve)``, ``DensityOptions(
pauli_basis)``, ...). ``gq.simulate(circuit, method=name, **options)`` builds the method's
class from the keywords, so its ``__post_init__`` validates them, and the command line makes
one flag per field from the same declaration (:func:`method_fields`).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from ..backends import ThreadScoped, available_backends, capability, get_backend
from ..errors import ArgumentValueError, ThreadCountError
from ..support.blas import BlasThreads
from ..support.cpus import usable_cpus

OptionsT = TypeVar("OptionsT", bound="RunOptions")


def option(
    default: Any, help: str, *, choices: tuple[Any, ...] | None = None, cli: bool = True
) -> Any:
    """A field of a method's options: its default, a one-line help text (shown by
    ``--help`` and the docs), where the values are a short list the ``choices``, and
    whether the command line has a flag for it (not for Python objects such as an
    executor)."""
    return dataclasses.field(
        default=default, metadata={"help": help, "choices": choices, "cli": cli}
    )


@dataclass(frozen=True)
class RunOptions:
    """How a state runs circuits, for every kind of state.

    ``threads``: CPU threads for large states on a threaded backend, entered once around each
    run (``None``: the calling thread's setting, see :func:`genqsim.set_num_threads`).
    ``fuse``: width of fused gate blocks (``None``: the default for the numbers; ``False``:
    gate by gate). ``progress``: draw a progress bar on standard error for long runs.
    """

    threads: int | None = option(None, "CPU threads for compiled kernels")
    fuse: int | bool | None = option(None, "width of fused gate blocks (False: gate by gate)")
    progress: bool = option(False, "a progress bar on standard error for long runs")

    def __post_init__(self) -> None:
        t = self.threads
        if t is not None and (isinstance(t, bool) or not isinstance(t, int) or t < 1):
            raise ThreadCountError(f"threads must be a positive integer or None, got {t!r}")
        f = self.fuse
        if f is not None and not isinstance(f, bool) and (not isinstance(f, int) or f < 0):
            raise ArgumentValueError(f"fuse must be None, a bool or a non-negative int, got {f!r}")
        if not isinstance(self.progress, bool):
            raise ArgumentValueError(f"progress must be a bool, got {self.progress!r}")

    @classmethod
    def of(cls: type[OptionsT], options: RunOptions | None) -> OptionsT:
        """``options`` as this class: itself when it is one already, else the shared settings
        it holds with this class's defaults for the rest (a state handing its options to a
        state of another kind, as a reduced density matrix of a state vector)."""
        if isinstance(options, cls):
            return options
        if options is None:
            return cls()
        shared = {f.name: getattr(options, f.name) for f in dataclasses.fields(RunOptions)}
        return cls(**shared)


def method_fields(
    options: type[RunOptions], *, cli_only: bool = False
) -> list[dataclasses.Field[Any]]:
    """The fields a method's options add to the shared ones, in declaration order (with
    ``cli_only``, those the command line has flags for)."""
    shared = {f.name for f in dataclasses.fields(RunOptions)}
    return [
        f
        for f in dataclasses.fields(options)
        if f.name not in shared and (f.metadata.get("cli", True) or not cli_only)
    ]


def positive_int(name: str, value: Any, *, none_ok: bool = False) -> None:
    """Refuse ``value`` unless it is a positive integer (or ``None`` where allowed)."""
    if value is None and none_ok:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        allowed = "a positive integer or None" if none_ok else "a positive integer"
        raise ArgumentValueError(f"{name} must be {allowed}, got {value!r}")


_NO_THREAD_SETTINGS = contextlib.nullcontext()
"""What a backend without thread settings enters around a run (reusable: it holds nothing)."""


def run_threads(
    backend: Any, options: RunOptions, blas: bool = False
) -> contextlib.AbstractContextManager[None]:
    """The run's thread count on ``backend``, entered once around a whole operation (a
    backend without thread settings gets a no-op); with ``blas``, the BLAS library NumPy
    calls runs on the same count (:class:`~genqsim.support.blas.BlasThreads`), not on one
    thread per CPU of the machine."""
    scoped = capability(backend, ThreadScoped)
    kernels = _NO_THREAD_SETTINGS if scoped is None else scoped.threads(options.threads)
    if not blas:
        return kernels
    return _with_blas(kernels, run_thread_count(backend, options))


def run_thread_count(backend: Any, options: RunOptions) -> int:
    """The threads a run uses: its own ``threads``, else the default of ``backend`` (or,
    with ``None``, of the threaded CPU backends) for the calling thread
    (:func:`genqsim.set_num_threads`), else the CPUs this process may use."""
    if options.threads is not None:
        return options.threads
    candidates = [backend] if backend is not None else map(get_backend, available_backends())
    counts = [s.default_threads() for s in map(_thread_scoped, candidates) if s is not None]
    return max(counts, default=usable_cpus())


def _thread_scoped(backend: Any) -> ThreadScoped | None:
    return capability(backend, ThreadScoped)


@contextlib.contextmanager
def _with_blas(kernels: contextlib.AbstractContextManager[None], count: int) -> Iterator[None]:
    with kernels, BlasThreads() as blas:
        blas.use(count)
        yield
