"""Where Numba keeps genqsim's compiled kernels: one folder per kernel source, shared by every
installation of the same genqsim on the machine.

Every kernel module imports this one first, so the locator below is in place before its
first ``cache=True`` function is decorated (Numba picks a function's cache location then).
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numba as nb
from numba.core import caching


def cache_folder() -> Path:
    """genqsim's own cache: ``$GENQSIM_CACHE_DIR``, else ``genqsim`` under
    ``$XDG_CACHE_HOME`` or ``~/.cache`` (the measured thread switch, the shared kernels)."""
    folder = os.environ.get("GENQSIM_CACHE_DIR")
    if not folder:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(base, "genqsim")
    return Path(folder)


KERNELS_DIR = Path(__file__).resolve().parent


NOT_COMPILED = frozenset(
    ("numba_backend.py", "numba_cache.py", "numba_switch.py", "numba_phase_rewrite.py")
)
"""Modules of the kernel folder that Numba compiles nothing from (the backend class, this
cache, the measurements of kernel choices): editing them leaves every kernel valid."""


@functools.cache
def kernel_sources_digest() -> str:
    """A hash of the source of every module here that holds compiled code (``numba_*.py``
    but :data:`NOT_COMPILED`) and the Numba version: a kernel's machine code depends on the
    helpers it calls from other modules too."""
    return _digest(name for name in _kernel_folder_modules() if name not in NOT_COMPILED)


@functools.cache
def all_sources_digest() -> str:
    """:func:`kernel_sources_digest` over every ``numba_*.py`` here, the measurements of
    kernel choices included (a measured choice is redone when how it is measured changes)."""
    return _digest(_kernel_folder_modules())


def _kernel_folder_modules() -> list[str]:
    return sorted(path.name for path in KERNELS_DIR.glob("numba_*.py"))


def _digest(names: Iterable[str]) -> str:
    digest = hashlib.sha1(nb.__version__.encode())
    for name in names:
        digest.update(name.encode() + b"\0" + (KERNELS_DIR / name).read_bytes())
    return digest.hexdigest()[:16]


def target_cpu() -> str:
    """The CPU Numba compiles for (``NUMBA_CPU_NAME``, else this machine's): a kernel cache
    holds code per CPU, so a home folder shared by several machines keeps each one's."""
    from numba.core import config

    cpu = getattr(config, "CPU_NAME", None)
    if not cpu:
        import llvmlite.binding as llvm

        cpu = llvm.get_host_cpu_name()
    return str(cpu)


def compiled_marker(dtype: str) -> Path:
    """The file that says the common kernels for states of ``dtype`` are in the cache for
    this CPU and these kernel sources (written once a run or ``genqsim warmup`` in that
    precision has completed)."""
    return cache_folder() / "numba" / kernel_sources_digest() / f"compiled-{dtype}-{target_cpu()}"


def kernels_compiled(dtype: str) -> bool:
    """Whether :func:`compiled_marker` is there."""
    return compiled_marker(dtype).is_file()


def mark_kernels_compiled(dtype: str) -> None:
    """Write :func:`compiled_marker` (nothing where the cache folder cannot be written: then
    every first run of a process compiles, and says so)."""
    marker = compiled_marker(dtype)
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:
        pass


_IMPL = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
"""Numba's cache implementation class, whose locator list is searched in order (its name
changed across Numba versions; without it, Numba's default locations hold)."""


class SharedKernelCache(caching._CacheLocator):
    """Numba's cache locator for genqsim's kernels: ``numba/<digest>`` under
    :func:`cache_folder`, shared by every virtual environment and clone of the same genqsim
    on the machine (Numba's default keeps them in ``__pycache__`` beside each installed
    copy, so each new environment compiled them all again). A kernel stays valid while
    every kernel module is unchanged (Numba's default stamp is the kernel's own file only,
    so an edited helper in another module went unnoticed). Numba's own choice holds where
    ``NUMBA_CACHE_DIR`` is set or this folder cannot be written."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        self._lineno = py_func.__code__.co_firstlineno
        self._path = cache_folder() / "numba" / kernel_sources_digest()

    def get_cache_path(self) -> str:
        return str(self._path)

    def get_source_stamp(self) -> str:
        return kernel_sources_digest()

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> SharedKernelCache | None:
        if os.environ.get("NUMBA_CACHE_DIR"):
            return None
        path = Path(py_file)
        if path.parent.resolve() != KERNELS_DIR or not path.name.startswith("numba_"):
            return None
        found = cls(py_func, py_file)
        try:
            found.ensure_cache_path()
        except OSError:
            return None
        return found


_LOCATORS = getattr(_IMPL, "_locator_classes", None)
if isinstance(_LOCATORS, list) and SharedKernelCache not in _LOCATORS:
    _LOCATORS.insert(0, SharedKernelCache)
