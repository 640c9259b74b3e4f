"""A stand-in CuPy that runs genqsim's CUDA kernels on the CPU, so the CuPy backend's kernels,
launch geometry and planning are checked against the generic NumPy routine on any machine
(a GPU is lent to few sessions, and ``nvcc`` only checks that the sources compile).

The kernels are the same sources the GPU compiles (:func:`kernel_source`), built with g++
behind ``cuda_on_cpu.h``: each block's threads run as fibers that hand over at
``__syncthreads()``, blocks one after another. Device arrays are NumPy arrays of a subclass
whose module is ``cupy`` (what the backend recognises as a GPU state); ``cupy.asarray`` of a
host array copies it, ``cupy.empty`` fills with NaN so a kernel that reads what it never wrote
shows, and every device array ends where a page no access may touch begins, so a kernel that
writes or reads past an array's end fails with CUDA's illegal address. Both launch paths run:
CuPy's ``RawKernel.__call__`` and the driver's ``launchKernel`` with a table of argument
addresses (:mod:`genqsim.backends.cupy_launch`).

What it cannot show: speed, device limits (registers, the shared memory a block may take is
checked against the 48 KiB a block gets without opting in) and races the barriers do not
order; :func:`threads_reversed` runs each block's threads in reverse order, which changes
the result of a kernel with such a race.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.machinery
import mmap
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import types
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

GXX = shutil.which("g++")
HEADER = Path(__file__).with_name("cuda_on_cpu.h")
SHARED_BYTES = 48 * 1024
"""The dynamic shared memory a block may take (the most without opting in;
``EMU_SHARED_BYTES`` in the header)."""

_KERNEL = re.compile(r'extern "C" __attribute__\(\(used\)\) void\s+(\w+)\s*\(([^()]*)\)\s*\{')


class ndarray(np.ndarray):  # CuPy's name: the backend recognises GPU states by it
    """A device array: NumPy memory, CuPy's ``data.ptr``."""

    @property
    def data(self) -> Any:  # type: ignore[override]
        return types.SimpleNamespace(ptr=self.ctypes.data)

    def get(self) -> np.ndarray:
        return np.array(self, copy=True).view(np.ndarray)


ndarray.__module__ = "cupy"


def _device(value: Any) -> Any:
    """``value`` as a device array where it is a host array (NumPy's results)."""
    if type(value) is np.ndarray:
        return value.view(ndarray)
    return value


PROT_NONE = 0  # not in Python's mmap module
_LIBC = ctypes.CDLL(None, use_errno=True)
_LIBC.mmap.restype = ctypes.c_void_p
_LIBC.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                       ctypes.c_int, ctypes.c_long]  # fmt: skip
_LIBC.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_LIBC.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


def _guarded(nbytes: int) -> Any:
    """``nbytes`` of memory that end where a page no access may touch begins (16-byte
    aligned, so up to 15 bytes of slack; a page no access may touch lies before the pages
    that hold them too): a kernel's access past the end of a device array faults, and the
    launch reports CUDA's illegal address instead of writing over other memory. Unmapped
    once nothing holds it."""
    page = mmap.PAGESIZE
    pages = max(1, -(-nbytes // page))
    total = (pages + 2) * page
    base = _LIBC.mmap(None, total, mmap.PROT_READ | mmap.PROT_WRITE,
                      mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)  # fmt: skip
    if base in (None, ctypes.c_void_p(-1).value):
        raise MemoryError(f"out of emulated device memory ({nbytes} bytes)")
    _LIBC.mprotect(base, page, PROT_NONE)
    _LIBC.mprotect(base + (pages + 1) * page, page, PROT_NONE)
    start = base + (pages + 1) * page - (-(-nbytes // 16) * 16)  # 16-byte aligned
    buffer = (ctypes.c_char * nbytes).from_address(start)
    weakref.finalize(buffer, _LIBC.munmap, base, total)
    return buffer


def empty(shape: Any, dtype: Any = float) -> ndarray:
    """Uninitialised device memory: NaN (all bits set), so unwritten reads show, and
    guarded past its end (:func:`_guarded`)."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    out = np.frombuffer(_guarded(count * dtype.itemsize), dtype=dtype, count=count)
    out.view(np.uint8)[...] = 0xFF
    return out.reshape(shape).view(ndarray)


def zeros(shape: Any, dtype: Any = float) -> ndarray:
    out = empty(shape, dtype)
    out[...] = 0
    return out


def asarray(value: Any, dtype: Any = None) -> ndarray:
    """A device copy of a host array, or the device array itself."""
    if isinstance(value, ndarray) and (dtype is None or np.dtype(dtype) == value.dtype):
        return value
    host = np.asarray(value, dtype=dtype)
    out = empty(host.shape, host.dtype)
    out[...] = host
    return out


def asnumpy(value: Any) -> np.ndarray:
    return np.array(value, copy=True).view(np.ndarray)


def _source_of_kernels(code: str) -> tuple[str, list[tuple[str, list[str]]]]:
    """The source as g++ compiles it and each kernel's name and parameter types (from the
    preprocessed text, so kernels left out by ``#ifdef`` are left out here too)."""
    text = code.replace("extern __shared__", "extern")
    marked = (
        f'#include "{HEADER}"\n#undef __global__\n#define __global__ __attribute__((used))\n{text}'
    )
    pre = subprocess.run(
        [GXX, "-std=c++17", "-E", "-P", "-x", "c++", "-"],
        input=marked, capture_output=True, text=True, check=True,
    )  # fmt: skip
    kernels = []
    for name, params in _KERNEL.findall(pre.stdout):
        types_ = []
        for param in filter(None, (p.strip() for p in params.split(","))):
            types_.append(re.sub(r"\s*\b\w+$", "", param))
        kernels.append((name, types_))
    return text, kernels


@lru_cache(maxsize=8)
def _build(code: str) -> tuple[ctypes.CDLL, list[str]]:
    """Compile ``code`` for the CPU (kept by content in the temporary directory, and
    loaded once a process)."""
    text, kernels = _source_of_kernels(code)
    wrappers = []
    for name, param_types in kernels:
        args = ", ".join(f"*({t}*)a[{i}]" for i, t in enumerate(param_types))
        wrappers.append(f'extern "C" void emu__{name}(void* const* a) {{ {name}({args}); }}')
    source = f'#include "{HEADER}"\n{text}\n' + "\n".join(wrappers) + "\n"
    key = hashlib.sha256((source + HEADER.read_text()).encode()).hexdigest()[:24]
    folder = Path(tempfile.gettempdir()) / "genqsim-emulated-cuda"
    folder.mkdir(exist_ok=True)
    library = folder / f"{key}.so"
    if not library.exists():
        src = folder / f"{key}.{os.getpid()}.cpp"
        src.write_text(source)
        partial = folder / f"{key}.{os.getpid()}.so"
        subprocess.run(
            [GXX, "-std=c++17", "-O1", "-shared", "-fPIC", "-w", str(src), "-o", str(partial)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        os.replace(partial, library)
        src.unlink()
    lib = ctypes.PyDLL(str(library))  # holds the GIL: one launch at a time
    lib.emu_run.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p,
                            ctypes.c_size_t, ctypes.c_int]  # fmt: skip
    lib.emu_run.restype = ctypes.c_int
    return lib, [name for name, _ in kernels]


class CUDADriverError(RuntimeError):
    """The driver refused a launch."""


class _Function:
    """A kernel as the driver knows it: ``ptr`` is the address of its unpacking wrapper."""

    def __init__(self, library: ctypes.CDLL, name: str) -> None:
        self.library = library
        self.ptr = ctypes.cast(getattr(library, f"emu__{name}"), ctypes.c_void_p).value


def _run(function: _Function, grid: int, block: int, shared_mem: int, table: int) -> None:
    """Launch ``function`` with the arguments at the addresses in the table at ``table``."""
    status = function.library.emu_run(function.ptr, grid, block, table, shared_mem,
                                      int(_reversed[0]))  # fmt: skip
    if status == 3:
        raise CUDADriverError(
            "CUDA_ERROR_ILLEGAL_ADDRESS: the kernel accessed memory outside every device array"
        )
    if status == 2:
        raise CUDADriverError(
            f"a launch asked for {shared_mem} bytes of shared memory; a block gets "
            f"{SHARED_BYTES} without opting in"
        )
    if status != 0:
        raise CUDADriverError(f"a block of {block} threads, or a grid of {grid} blocks")


def _argument_bytes(argument: Any) -> np.ndarray:
    """What a kernel receives for ``argument``, as CuPy passes it: the bytes the backend's
    packed launch writes (:func:`genqsim.backends.cupy_launch._packed_value`)."""
    from genqsim.backends.cupy_launch import _packed_value

    packed = _packed_value(argument)
    if packed is None:
        raise TypeError(f"a kernel argument of type {type(argument).__name__} (a host array?)")
    return packed


class RawKernel:
    """One kernel of a module: called as CuPy's ``RawKernel`` is."""

    def __init__(self, function: _Function, name: str, code: str) -> None:
        self._function = function
        self.name, self.code, self.options = name, code, ()

    @property
    def kernel(self) -> _Function:
        """The function for the driver (CuPy's per device; the packed launch reads it)."""
        return self._function

    def __call__(self, grid: tuple, block: tuple, args: tuple, shared_mem: int = 0) -> None:
        if tuple(grid[1:]) not in ((), (1,), (1, 1)) or tuple(block[1:]) not in ((), (1,), (1, 1)):
            raise ValueError("the emulator runs one-dimensional grids and blocks")
        values = [_argument_bytes(a) for a in args]
        table = np.array([v.ctypes.data for v in values], dtype=np.uintp)
        _run(self._function, int(grid[0]), int(block[0]), int(shared_mem), table.ctypes.data)


class RawModule:
    """CuPy's ``RawModule``: compiles ``code`` (for the CPU, here)."""

    def __init__(self, code: str, options: tuple = ()) -> None:
        self._library, self.kernel_names = _build(code)
        self._code = code

    def get_function(self, name: str) -> RawKernel:
        if name not in self.kernel_names:
            raise AttributeError(f"no kernel {name!r} in the module")
        return RawKernel(_module_function(self._library, name), name, self._code)


def _launch_kernel(function_ptr: int, gx: int, gy: int, gz: int, bx: int, by: int, bz: int,
                   shared_mem: int, stream: int, table: int, extra: int) -> None:  # fmt: skip
    """The driver's ``cuLaunchKernel``: the function is found by its wrapper's address."""
    function = _FUNCTIONS_BY_ADDRESS.get(function_ptr)
    if function is None or (gy, gz, by, bz) != (1, 1, 1, 1):
        raise CUDADriverError("CUDA_ERROR_INVALID_HANDLE")
    _run(function, gx, bx, shared_mem, table)


_FUNCTIONS_BY_ADDRESS: dict[int, _Function] = {}


def _module_function(library: ctypes.CDLL, name: str) -> _Function:
    function = _Function(library, name)
    _FUNCTIONS_BY_ADDRESS[function.ptr] = function
    return function


_reversed = [False]


@contextmanager
def threads_reversed() -> Iterator[None]:
    """Every block's threads run in reverse order between barriers for the duration: a
    kernel whose threads race (share memory no barrier orders) gives another result."""
    _reversed[0] = True
    try:
        yield
    finally:
        _reversed[0] = False


class _OnDevice:
    """A NumPy function or ufunc whose array results are device arrays (``reduce``,
    ``accumulate`` and the like too)."""

    def __init__(self, function: Any) -> None:
        self._function = function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _device(self._function(*args, **kwargs))

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._function, name)
        return _OnDevice(value) if callable(value) else value


def _numpy_attribute(name: str) -> Any:
    """What the stand-in module does not define: NumPy's, its functions on device arrays
    (types, such as ``cupy.int64``, as they are)."""
    value = getattr(np, name)
    return _OnDevice(value) if callable(value) and not isinstance(value, type) else value


def module() -> types.ModuleType:
    """A fresh stand-in ``cupy`` module (not installed; see :func:`installed`)."""
    cupy = types.ModuleType("cupy")
    cupy.__spec__ = importlib.machinery.ModuleSpec("cupy", None)
    cupy.__version__ = "emulated on the CPU"
    cupy.__getattr__ = _numpy_attribute  # type: ignore[attr-defined]
    cupy.ndarray, cupy.asarray, cupy.asnumpy = ndarray, asarray, asnumpy
    cupy.empty, cupy.zeros = empty, zeros
    cupy.RawModule = RawModule

    class RandomState(np.random.RandomState):
        def random_sample(self, size: Any = None) -> Any:
            return _device(super().random_sample(size))

    cupy.random = types.SimpleNamespace(RandomState=RandomState)
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    runtime = types.SimpleNamespace(
        getDevice=lambda: 0,
        getDeviceCount=lambda: 1,
        getDeviceProperties=lambda device: {"multiProcessorCount": 2, "name": b"emulated"},
        memGetInfo=lambda: (memory // 2, memory),
    )
    stream = types.SimpleNamespace(ptr=0)
    driver = types.SimpleNamespace(launchKernel=_launch_kernel, CUDADriverError=CUDADriverError)

    class Device:
        def __init__(self, index: int = 0) -> None:
            if index != 0:
                raise RuntimeError(f"no device {index}: the emulator has one")

        def use(self) -> None:
            pass

        def synchronize(self) -> None:
            pass

    class Event:
        """A CUDA event: the host's clock when recorded (launches here run at once)."""

        def record(self) -> None:
            self.at = time.perf_counter()

        def synchronize(self) -> None:
            pass

    def get_elapsed_time(start: Event, stop: Event) -> float:
        return (stop.at - start.at) * 1e3  # milliseconds, as CUDA's

    pool = types.SimpleNamespace(free_all_blocks=lambda: None, used_bytes=lambda: 0)
    cupy.get_default_memory_pool = lambda: pool
    cupy.cuda = types.SimpleNamespace(
        runtime=runtime, driver=driver, Device=Device, Event=Event,
        get_elapsed_time=get_elapsed_time, get_current_stream=lambda: stream,
    )  # fmt: skip
    return cupy


@contextmanager
def installed(cupy: types.ModuleType | None = None) -> Iterator[types.ModuleType]:
    """The stand-in (``cupy``, or a new one) as ``cupy`` in ``sys.modules`` and the CuPy
    backend registered anew (its kept kernels and modules forgotten) for the duration; as
    before afterwards."""
    from genqsim.backends import cupy_backend, register_backend

    if GXX is None:
        raise RuntimeError("the CUDA emulator needs g++")
    saved = sys.modules.get("cupy")
    cupy = cupy or module()

    def forget() -> None:
        cupy_backend._kernels.clear()
        cupy_backend._module.cache_clear()
        cupy_backend._multiprocessors.cache_clear()
        cupy_backend._kept_launches.clear()
        register_backend("cupy", cupy_backend.CupyBackend)

    sys.modules["cupy"] = cupy
    forget()
    try:
        yield cupy
    finally:
        if saved is None:
            sys.modules.pop("cupy", None)
        else:
            sys.modules["cupy"] = saved
        forget()
