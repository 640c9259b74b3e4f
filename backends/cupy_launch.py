"""Kernel launches with their arguments packed once, made through CUDA's driver API.

CuPy's ``RawKernel.__call__`` turns every argument into a C pointer again on each launch (a
NumPy record's address through its ``__array_interface__`` dictionary, each NumPy scalar boxed
anew) and asks for the device, the stream and the context on the way: microseconds of host
work per launch, which show where the kernel itself streams a state in tens of microseconds
(one gate on 24 qubits). A launch kept on a plan packs its arguments once instead: each at a
fixed host address, the state's device pointer in a slot written at each launch, and the table
of those addresses that ``cuLaunchKernel`` reads. Each launch then writes one pointer and makes
one call to CuPy's own binding of ``cuLaunchKernel``, on CuPy's current device and stream.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np


def _address(array: np.ndarray) -> int:
    """The host address of ``array``'s first byte."""
    return int(array.__array_interface__["data"][0])


def _packed_value(argument: Any) -> np.ndarray | None:
    """``argument`` as host bytes the kernel receives by value: a device array as its
    pointer, a one-element NumPy array (a struct record) as itself, a NumPy scalar as a
    zero-dimensional array of its type; ``None`` for anything else."""
    if type(argument).__module__.startswith("cupy") and hasattr(argument, "data"):
        return np.array([argument.data.ptr], dtype=np.uint64)
    if isinstance(argument, np.ndarray) and argument.size == 1:
        return np.ascontiguousarray(argument)
    if isinstance(argument, np.generic):
        return np.array(argument)
    return None


class PackedLaunch:
    """One kernel's launch on any state of one shape and dtype: the grid, the block, the
    shared memory and the arguments after the state, packed once (see the module's
    docstring). Calling it with a state launches the kernel on that state. Launches from
    several threads take turns (the state's slot is shared); a thread that has no CUDA
    context yet, or any launch the driver refuses, goes through CuPy's own launch, which sets
    up the context or raises CuPy's error."""

    __slots__ = ("_arguments", "_block", "_current_stream", "_driver_error", "_grid", "_kernel",
                 "_launch_kernel", "_lock", "_shared_mem", "_slot", "_table", "_table_address",
                 "_values")  # fmt: skip

    def __init__(
        self,
        cupy: ModuleType,
        kernel: Any,
        grid: int,
        block: int,
        arguments: Sequence[Any],
        shared_mem: int = 0,
    ) -> None:
        packed = [_packed_value(argument) for argument in arguments]
        values = [value for value in packed if value is not None]
        if len(values) < len(packed):
            raise TypeError("a kernel argument that cannot be packed (device arrays, one-element "
                            "NumPy arrays and NumPy scalars can)")  # fmt: skip
        driver = cupy.cuda.driver
        self._launch_kernel = driver.launchKernel
        self._driver_error = driver.CUDADriverError
        self._current_stream = cupy.cuda.get_current_stream
        self._kernel, self._grid, self._block = kernel, int(grid), int(block)
        self._arguments, self._shared_mem = tuple(arguments), int(shared_mem)
        self._slot = np.zeros(1, dtype=np.uint64)
        self._values = values  # the packed bytes live as long as the launch
        self._table = np.array([_address(v) for v in (self._slot, *values)], dtype=np.uintp)
        self._table_address = _address(self._table)
        self._lock = threading.Lock()

    def __call__(self, state: Any) -> None:
        with self._lock:
            self._slot[0] = state.data.ptr
            try:
                self._launch_kernel(
                    self._kernel.kernel.ptr, self._grid, 1, 1, self._block, 1, 1,
                    self._shared_mem, self._current_stream().ptr, self._table_address, 0,
                )  # fmt: skip
                return
            except self._driver_error:
                pass  # CuPy's launch below: it sets up this thread's context, or raises
        self._kernel((self._grid,), (self._block,), (state, *self._arguments),
                     shared_mem=self._shared_mem)  # fmt: skip


def packed_launch(
    cupy: ModuleType, kernel: Any, grid: int, block: int, arguments: Sequence[Any],
    shared_mem: int = 0,
) -> PackedLaunch | None:  # fmt: skip
    """A :class:`PackedLaunch`, or ``None`` where this CuPy offers no driver launch (a build
    without it, a stand-in) or an argument cannot be packed: CuPy's own launch serves then."""
    cuda = getattr(cupy, "cuda", None)
    driver = getattr(cuda, "driver", None)
    if not (
        hasattr(driver, "launchKernel")
        and hasattr(cuda, "get_current_stream")
        and hasattr(type(kernel), "kernel")  # CuPy's RawKernel: its function per device
    ):
        return None
    try:
        return PackedLaunch(cupy, kernel, grid, block, arguments, shared_mem)
    except TypeError:
        return None
