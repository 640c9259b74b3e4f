"""The CuPy backend: complex64/complex128 states on NVIDIA GPUs, run by the CUDA kernels in
``backends/cuda/*.cu``. Chosen automatically for ``cupy.ndarray`` states
(``gq.zeros(n, numbers="complex64", device="gpu")``, or ``gq.StateVector(cupy_array)``).

Kernels compile lazily, one CuPy ``RawModule`` per precision with ``typedef ... real_t;``
prepended to the same source, so each compiled module lands in CuPy's on-disk cache and the
next process loads it instead of compiling. Gate data travels by value in an ``OpParams``
struct (a NumPy structured scalar laid out like the C struct): no device allocation and no
synchronisation per gate. Runs of gates on the lowest qubits (the planner's block runs) are
applied in shared-memory tiles. A state of shape ``(batch, 2**n)`` is a batch: every primitive
acts on all its rows in one launch.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Sequence
from functools import cache, lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from ..numbers import NumberSystem
from ..plan.calls import BlockRun, CallKind, DiagonalCall, GateCall, MatrixCall, PermutationCall
from .cupy_launch import PackedLaunch, packed_launch
from .pauli_coordinates import GatePauliCoordinates
from .protocol import (
    ArrayNamespace,
    BatchPrimitives,
    BlockLayout,
    BlockRunner,
    DeviceInfo,
    DeviceSampler,
    DeviceSelector,
    GateCallRunner,
    GenericBackend,
    IQPEncoder,
    PauliPropagator,
    real_entries,
)

CUDA_DIR = Path(__file__).resolve().parent / "cuda"
SOURCES = ("statevector.cu", "iqp.cu")
REAL_SOURCES = ("statevector.cu",)
"""What a module for real states (Pauli coordinates) compiles: the gate and tile kernels."""
MAX_DIM = 8
"""Dense operations travel by value up to this many rows."""
MAX_ROWS = 16
"""Diagonals and permutations travel by value up to this many rows (a density matrix's
two-qubit channel in Pauli coordinates is a signed permutation of 16 rows)."""
MAX_FIXED = 24
TILE_BITS = 10
"""Shared-memory tiles of 2**10 amplitudes for the IQP transform's low stages."""
RUN_TILE_BYTES = 32 * 1024
"""Shared-memory tiles of block runs: 32 KiB, 2**12 amplitudes in complex64 and 2**11 in
complex128 (more gates a run, so fewer passes over the state)."""
LOW_BITS = 5
"""Every tile holds the lowest 5 qubits: global accesses come in series of 32 amplitudes."""
MAX_TILE_BITS = 16
MAX_TILE_BYTES = 48 * 1024
"""Dynamic shared memory a block may take without opting in: a larger tile runs call by call."""
TILE_GROUP_BYTES = 32 * 1024
"""A block holds up to 2**MAX_GROUP_BITS consecutive tiles at once, up to this many bytes, so
each operation's set-up is paid once per group. The plan's own tiles are already 32 KiB (one
a group); smaller ones, such as a run built on fewer qubits, come in groups (tiles of 10
qubits: 4 in complex64, 2 in complex128, which took QFT 28 from 270 to 183 ms on an H200)."""
MAX_GROUP_BITS = 3
TILE_BLOCKS_PER_SM = 16
"""The tile kernel's grid: this many blocks per multiprocessor, each looping over groups."""
SPREAD_BITS = 6
"""Tile bits above the lowest series are placed by two look-up tables of 2**6 entries."""
THREADS = 256
NARROW_SERIES = 1
"""Series of 32 subspaces a thread of ``apply_op_narrow`` (one-target calls) takes at once,
loading all their amplitudes before it stores any. On an H200 (``gpu_bench.py --launches``,
which also times 2 and 4) one was the fastest or within 2 % of it on H, U and CNOT at 24
and 28 qubits in both precisions, and on T on qubit 2; two was 4-9 % faster on T on qubit
n - 2."""
PAIRED_ONE_TARGET = False
"""Whether a one-target call that leaves qubit 0 free runs on ``apply_op_pairs`` (a thread
takes two neighbouring subspaces and moves each row's two amplitudes in one access) instead of
``apply_op_narrow``. A candidate, off until an H200 run of ``gpu_bench.py --launches`` (its
"pairs" column) shows it faster; the tests run it either way."""
MAX_BLOCKS = 65536
"""Grid cap: grid-stride loops cover the rest (the Apache Mahout QDP IQP-encoding kernel-fusion
design)."""
OP_NAMES = {CallKind.MATRIX: "OP_DENSE", CallKind.DIAGONAL: "OP_DIAGONAL",
            CallKind.PERMUTATION: "OP_PERMUTATION"}  # fmt: skip
"""The CUDA names of the call codes; the enum is generated from :class:`CallKind`."""
_REAL: dict[np.dtype, np.dtype] = {
    np.dtype(np.complex64): np.dtype(np.float32),
    np.dtype(np.complex128): np.dtype(np.float64),
}
REAL_STATES = frozenset((np.dtype(np.float32), np.dtype(np.float64)))
"""Real states the gate and tile kernels run (a density matrix's Pauli coordinates; not
states a user holds: :meth:`CupyBackend.supports` stays complex)."""


def real_of(dtype: np.dtype | str) -> np.dtype:
    """The real type of ``dtype``'s numbers (itself for a real state)."""
    dtype = np.dtype(dtype)
    return dtype if dtype in REAL_STATES else _REAL[dtype]


def _cupy() -> Any:
    """CuPy, imported on first use (this module loads on machines without it); once
    imported, taken from ``sys.modules`` directly, as ``import`` would, since launches ask
    for it (the device to run on)."""
    module = sys.modules.get("cupy")
    if module is not None:
        return module
    from ..errors import UnknownBackendError
    from ..support.optional import require

    return require("cupy", "cuda", "the cupy backend (an NVIDIA GPU)", UnknownBackendError)


def kernel_source(dtype: np.dtype | str) -> str:
    """The CUDA source compiled for one state dtype: the ``real_t`` typedef (and
    ``REAL_AMPLITUDES`` for a real state), the operation codes of :class:`CallKind`,
    ``SPREAD_BITS``, the block size and ``MAX_GROUP_BITS``, then the files."""
    dtype = np.dtype(dtype)
    real = "float" if real_of(dtype) == np.dtype(np.float32) else "double"
    codes = ", ".join(f"{OP_NAMES[kind]} = {int(kind)}" for kind in CallKind)
    is_real = dtype in REAL_STATES
    files = REAL_SOURCES if is_real else SOURCES
    body = "\n".join((CUDA_DIR / name).read_text() for name in files)
    real_states = "#define REAL_AMPLITUDES\n" if is_real else ""
    return (
        f"typedef {real} real_t;\n{real_states}"
        f"enum OpKind {{ {codes} }};\n#define SPREAD_BITS {SPREAD_BITS}\n"
        f"#define BLOCK_THREADS {THREADS}\n#define MAX_GROUP_BITS {MAX_GROUP_BITS}\n"
        f"#define NARROW_SERIES {NARROW_SERIES}\n"
        f"{body}"
    )


@lru_cache(maxsize=4)
def _module(dtype_name: str) -> Any:
    cupy = _cupy()
    return cupy.RawModule(code=kernel_source(dtype_name), options=("--std=c++14",))


_kernels: dict[tuple[np.dtype, str], Any] = {}


def _kernel(dtype: np.dtype, name: str) -> Any:
    """Kernel ``name`` of ``dtype``'s module, kept: CuPy's ``get_function`` builds a new
    ``RawKernel`` and looks the function up in the module each time, host work a launch
    need not repeat (a kept ``RawKernel`` finds each device's function itself)."""
    kernel = _kernels.get((dtype, name))
    if kernel is None:
        kernel = _kernels[dtype, name] = _module(np.dtype(dtype).name).get_function(name)
    return kernel


@lru_cache(maxsize=2)
def op_dtype(real: np.dtype | str) -> np.dtype:
    """The NumPy layout of the C ``OpParams`` struct for ``real_t`` = ``real``."""
    return np.dtype(
        [
            ("control_value", np.int64),
            ("offsets", np.int64, (MAX_ROWS,)),
            ("data", np.dtype(real), (2 * MAX_DIM * MAX_DIM,)),
            ("fixed", np.int32, (MAX_FIXED,)),
            ("perm", np.int32, (MAX_ROWS,)),
            ("n_fixed", np.int32),
            ("dim", np.int32),
            ("kind", np.int32),
            ("active", np.int32),
        ],
        align=True,
    )


@lru_cache(maxsize=1)
def tile_dtype() -> np.dtype:
    """The NumPy layout of the C ``TileQubits`` struct."""
    return np.dtype([("q", np.int32, (MAX_TILE_BITS,)), ("n", np.int32), ("state_bits", np.int32)],
                    align=True)  # fmt: skip


def run_tile_bits(dtype: np.dtype | str) -> int:
    """Qubits of a block run's tile: ``RUN_TILE_BYTES`` of amplitudes of ``dtype``."""
    return (RUN_TILE_BYTES // np.dtype(dtype).itemsize).bit_length() - 1


@cache
def _block_layout(dtype: np.dtype) -> BlockLayout:
    """:meth:`CupyBackend.block_layout`, built once per dtype (every ``apply`` asks)."""
    bits = run_tile_bits(dtype)
    return BlockLayout(tile_qubits=bits, low_qubits=LOW_BITS, min_state_qubits=bits + 1)


def _above_series(qubits: Sequence[int]) -> int:
    """How many of a tile's sorted qubits lie above its lowest series 0, 1, 2, ..."""
    series = next((i for i, q in enumerate(qubits) if q != i), len(qubits))
    return len(qubits) - series


def _placeable(qubits: Sequence[int]) -> bool:
    """Whether the kernels can place a tile on ``qubits`` (sorted): at most
    ``MAX_TILE_BITS`` of them, at most ``2 * SPREAD_BITS`` above its lowest series."""
    return len(qubits) <= MAX_TILE_BITS and _above_series(qubits) <= 2 * SPREAD_BITS


def tile_fits(qubits: Sequence[int], state_bits: int, itemsize: int) -> bool:
    """Whether the tile kernel can run a tile on ``qubits`` (sorted) of a state of
    ``state_bits`` qubits: placeable, within the state, and in the shared memory a block gets
    without opting in."""
    return (
        _placeable(qubits)
        and len(qubits) <= state_bits
        and (itemsize << len(qubits)) <= MAX_TILE_BYTES
    )


def tile_record(qubits: Sequence[int], state_bits: int) -> np.ndarray:
    """A one-element ``TileQubits`` array (passed to the kernel by value). The kernel places
    a tile's elements by its lowest series (qubits 0, 1, ... in a row) plus two tables of
    ``SPREAD_BITS`` bits each, so at most ``2 * SPREAD_BITS`` tile qubits may lie above it."""
    qubits = sorted(int(q) for q in qubits)
    if not _placeable(qubits):
        raise ValueError(
            f"a tile on qubits {qubits} has {_above_series(qubits)} qubits above its lowest "
            f"series; the kernels place at most {2 * SPREAD_BITS} (and {MAX_TILE_BITS} in all)"
        )
    packed = np.zeros(1, dtype=tile_dtype())
    packed["q"][0, : len(qubits)] = qubits
    packed["n"], packed["state_bits"] = len(qubits), state_bits
    return packed


@cache
def _multiprocessors(device: int) -> int:
    """Device ``device``'s multiprocessor count (asked once per device)."""
    return int(_cupy().cuda.runtime.getDeviceProperties(device)["multiProcessorCount"])


def _launch_size(work: int) -> tuple[tuple[int], tuple[int]]:
    blocks = max(1, min(MAX_BLOCKS, -(-work // THREADS)))
    return (blocks,), (THREADS,)


def _as_complex(values: Any, dtype: np.dtype) -> np.ndarray:
    """``values`` as complex numbers of ``dtype``'s precision (a real state's operations keep
    the complex layout; the kernels read their real parts)."""
    return np.asarray(values, dtype=np.complex128).astype(np.result_type(dtype, np.complex64))


ENCODED_MEMO_SIZE = 4096
"""Gate records :func:`encode_op` remembers (a few hundred bytes each)."""

_encoded: dict[tuple, np.ndarray | None] = {}


def encode_op(call: GateCall, dtype: np.dtype) -> np.ndarray | None:
    """One gate call as a one-element ``OpParams`` array (CuPy passes it to the kernel by
    value, as a struct), or ``None`` when it is too wide to travel by value (a dense matrix on
    more than 3 targets, a diagonal or permutation on more than 4, or more than 24 involved
    qubits). Remembered by content (its data's bytes, qubits and kind): a plan applied again,
    or a gate applied to many states, launches without building its record anew (about 25
    us each). The record is shared: read it, never write it."""
    values = None if call.data is None else _as_complex(call.data, np.dtype(dtype))
    perm = tuple(map(int, call.permutation)) if isinstance(call, PermutationCall) else ()
    key = (int(call.kind), call.targets, call.controls, call.control_values, np.dtype(dtype).str,
           perm, None if values is None else values.tobytes())  # fmt: skip
    record = _encoded.get(key, False)
    if record is False:
        if len(_encoded) >= ENCODED_MEMO_SIZE:
            _encoded.clear()
        record = _encoded[key] = _encode_op(call, np.dtype(dtype))
    return record  # type: ignore[return-value]


def _encode_op(call: GateCall, dtype: np.dtype) -> np.ndarray | None:
    """:func:`encode_op`, built."""
    targets, controls = call.targets, call.controls
    control_values = call.control_values or (1,) * len(controls)
    k = len(targets)
    dim = 1 << k
    fixed = sorted(tuple(targets) + tuple(controls))
    widest = MAX_DIM if isinstance(call, MatrixCall) else MAX_ROWS
    if dim > widest or len(fixed) > MAX_FIXED:
        return None
    packed = np.zeros(1, dtype=op_dtype(real_of(dtype)))
    record = packed[0]  # a structured scalar is a view: writes land in `packed`
    record["control_value"] = sum(1 << c for c, v in zip(controls, control_values) if v)
    for r in range(dim):
        record["offsets"][r] = sum(1 << t for pos, t in enumerate(targets) if r >> pos & 1)
    record["fixed"][: len(fixed)] = fixed
    record["n_fixed"], record["dim"], record["kind"] = len(fixed), dim, int(call.kind)
    data = call.data
    values = np.ones(dim, dtype=dtype) if data is None else _as_complex(data, dtype).reshape(-1)
    if dtype in REAL_STATES:
        values = real_entries(values)
    if isinstance(call, MatrixCall):
        record["active"] = (1 << dim) - 1
    elif isinstance(call, DiagonalCall):
        record["active"] = sum(1 << r for r in range(dim) if values[r] != 1)
    else:
        assert isinstance(call, PermutationCall)
        perm = call.permutation
        record["perm"][:dim] = [int(p) for p in perm]
        record["active"] = sum(1 << r for r in range(dim) if int(perm[r]) != r or values[r] != 1)
    interleaved = np.empty(2 * values.size, dtype=real_of(dtype))
    interleaved[0::2], interleaved[1::2] = values.real, values.imag
    record["data"][: interleaved.size] = interleaved
    return packed


class GateLaunch(NamedTuple):
    """How one gate call launches on states of one dtype and shape, ready to go: the kernel
    (``None``: the call is too wide for its record to travel by value, so the wide kernel
    runs its dense matrix), the grid, the arguments after the state (the call's ``OpParams``
    record, the kernel's iterations, the state's length and its batch), and, for a launch
    kept on its call, the same packed for the driver (:mod:`.cupy_launch`)."""

    kernel: Any
    grid: tuple[int, ...]
    arguments: tuple
    packed: PackedLaunch | None = None


def launch_of(call: GateCall, dtype: np.dtype, shape: tuple[int, ...]) -> GateLaunch | None:
    """How ``call`` launches on states of ``dtype`` and ``shape`` (one state, or a batch of
    them along the first axis); ``None`` when it changes no amplitude (a diagonal of ones,
    an identity permutation), so nothing launches."""
    record = encode_op(call, dtype)
    if record is None:
        return GateLaunch(None, (), ())
    if record["active"][0] == 0:
        return None
    size = shape[-1]
    batch = shape[0] if len(shape) == 2 else 1
    n_iter = size >> (len(call.targets) + len(call.controls))
    name = gate_kernel_name(call)
    per_thread = {"apply_op_narrow": NARROW_SERIES, "apply_op_pairs": 2}.get(name, 1)
    grid, _ = _launch_size(-(-n_iter * batch // per_thread))
    kernel = _kernel(dtype, name)
    return GateLaunch(kernel, grid, (record, np.int64(n_iter), np.int64(size), np.int64(batch)))


def gate_kernel_name(call: GateCall) -> str:
    """The kernel of a gate call that travels by value: ``apply_op_narrow`` for one target
    (compiled without the wider cases, so more warps fit a multiprocessor; ``apply_op_pairs``
    where :data:`PAIRED_ONE_TARGET` is set and qubit 0 is free),
    ``apply_op`` for up to 3, ``apply_op_rows16`` for the 16-row diagonals and
    permutations."""
    targets = len(call.targets)
    if targets <= 1:
        paired = PAIRED_ONE_TARGET and min((*call.targets, *call.controls), default=0) > 0
        return "apply_op_pairs" if paired else "apply_op_narrow"
    return "apply_op" if targets <= 3 else "apply_op_rows16"


_kept_launches: weakref.WeakKeyDictionary[GateCall, dict[tuple, GateLaunch | None]] = (
    weakref.WeakKeyDictionary()
)


def kept_launch(call: GateCall, dtype: np.dtype, shape: tuple[int, ...]) -> GateLaunch | None:
    """:func:`launch_of`, kept on the call per dtype and shape for as long as the call lives
    (gate calls are immutable): a plan kept on a circuit launches each call again without
    rebuilding its record's key from its numbers (the content memo of :func:`encode_op`),
    its grid or its arguments, host time that shows on states a kernel streams in tens of
    microseconds."""
    per_state = _kept_launches.get(call)
    if per_state is None:
        per_state = _kept_launches[call] = {}
    key = (dtype, shape)
    launch = per_state.get(key, _NOT_KEPT)
    if launch is _NOT_KEPT:  # None is a kept answer: nothing to launch
        launch = launch_of(call, dtype, shape)
        if launch is not None and launch.kernel is not None:
            packed = packed_launch(_cupy(), launch.kernel, launch.grid[0], THREADS,
                                   launch.arguments)  # fmt: skip
            launch = launch._replace(packed=packed)
        per_state[key] = launch
    return launch  # type: ignore[return-value]


_NOT_KEPT = object()
"""What a table of kept launches gives for a launch not yet kept (``None`` is a kept
answer: nothing to launch, or a run's calls one by one)."""


class TileLaunch(NamedTuple):
    """A block run's tile kernel as launched on states of one dtype and shape on one device:
    the kernel, its grid, the arguments after the state (the run's records on the device,
    its call count, its tile, the tile count and the tiles a block holds), its shared
    memory, and the same packed for the driver (:mod:`.cupy_launch`)."""

    kernel: Any
    grid: tuple[int]
    arguments: tuple
    shared_mem: int
    packed: PackedLaunch | None


def tile_launch(
    run: BlockRun, dtype: np.dtype, device: int, shape: tuple[int, ...]
) -> TileLaunch | None:
    """How ``run`` launches on states of ``dtype`` and ``shape`` on GPU ``device``, or
    ``None`` where its calls run one by one (one too wide to travel by value, or tiles that
    do not fit). Its records go to the device once per dtype and device."""
    key = ("cupy", dtype.name, device)
    if key not in run.encoded:
        records = [encode_op(c, dtype) for c in run.local_calls]
        run.encoded[key] = (
            None
            if any(r is None for r in records)
            else _cupy().asarray(
                np.concatenate([r for r in records if r is not None]).view(np.uint8)
            ),
            tile_kernel_name(run.local_calls),
        )
    ops, kernel_name = run.encoded[key]
    size = int(np.prod(shape))
    state_bits = int(shape[-1]).bit_length() - 1
    if ops is None or not tile_fits(run.qubits, state_bits, dtype.itemsize):
        return None
    n_tiles = size >> run.block_qubits
    tile_bytes = dtype.itemsize << run.block_qubits
    group_bits = 0
    while (
        group_bits < MAX_GROUP_BITS
        and tile_bytes << (group_bits + 1) <= TILE_GROUP_BYTES
        and 1 << (group_bits + 1) <= n_tiles
    ):
        group_bits += 1
    grid = (max(1, min(TILE_BLOCKS_PER_SM * _multiprocessors(device), n_tiles >> group_bits)),)
    tiles = tile_record(run.qubits, state_bits)
    arguments = (ops, np.int32(len(run.calls)), tiles, np.int64(n_tiles), np.int32(group_bits))
    kernel = _kernel(dtype, kernel_name)
    shared_mem = tile_bytes << group_bits
    packed = packed_launch(_cupy(), kernel, grid[0], THREADS, arguments, shared_mem)
    return TileLaunch(kernel, grid, arguments, shared_mem, packed)


def tile_kernel_name(calls: Sequence[GateCall]) -> str:
    """The tile-run kernel for ``calls``, by the most amplitudes an operation holds per
    thread: ``apply_tile_run_narrow`` where no dense or permutation call has more than 4
    rows (diagonals, which change one row at a time, up to 16), which does not spill in
    complex128; ``apply_tile_run`` for dense or permutation calls of 8 rows and diagonals
    of at most 8; ``apply_tile_run_wide`` for the rest (permutations of 16 rows, or 8-row
    calls beside a 16-row diagonal). Each is compiled with only the cases it takes, so the
    narrower ones keep their registers."""
    held = max((len(c.targets) for c in calls if not isinstance(c, DiagonalCall)), default=0)
    widest = max((len(c.targets) for c in calls), default=0)
    if held > 3 or (held == 3 and widest > 3):
        return "apply_tile_run_wide"
    return "apply_tile_run" if held == 3 else "apply_tile_run_narrow"


def _dense_of(call: GateCall) -> np.ndarray:
    """The dense matrix of any gate call (for the wide fallback)."""
    if isinstance(call, MatrixCall):
        return np.asarray(call.matrix, dtype=np.complex128)
    dim = 1 << len(call.targets)
    out = np.zeros((dim, dim), dtype=np.complex128)
    if isinstance(call, DiagonalCall):
        np.fill_diagonal(out, np.asarray(call.diagonal, dtype=np.complex128))
        return out
    assert isinstance(call, PermutationCall)
    for j in range(dim):
        out[int(call.permutation[j]), j] = 1 if call.phases is None else call.phases[j]
    return out


class CupyBackend(
    GenericBackend,
    BlockRunner,
    GateCallRunner,
    DeviceSampler,
    IQPEncoder,
    BatchPrimitives,
    DeviceInfo,
    DeviceSelector,
    ArrayNamespace,
    PauliPropagator,
    GatePauliCoordinates,
):
    """CUDA kernels for complex64/complex128 CuPy arrays (1-D states or (batch, 2**n)), and
    for the real Pauli coordinates of a density matrix."""

    name = "cupy"
    priority = 20
    device = "gpu"

    def __init__(self) -> None:
        import importlib.util

        if importlib.util.find_spec("cupy") is None:  # unavailable, without importing CuPy
            raise ImportError("CuPy is not installed")

    def supports(self, array: Any) -> bool:
        return (
            type(array).__module__.startswith("cupy")
            and np.dtype(array.dtype) in _REAL
            and array.ndim in (1, 2)
        )

    def holds(self, numbers: NumberSystem) -> bool:
        return np.dtype(numbers.dtype) in _REAL

    def supports_batch(self, array: Any) -> bool:
        return self.supports(array) and array.ndim == 2

    def describe_devices(self) -> str:
        cupy = _cupy()
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except Exception as exc:  # no driver, no device: say why
            return f"none usable ({type(exc).__name__}: {exc})"
        return f"{count} CUDA device(s) seen by cupy {cupy.__version__}"

    def device_count(self) -> int:
        return int(_cupy().cuda.runtime.getDeviceCount())

    def use_device(self, index: int) -> None:
        _cupy().cuda.Device(index).use()

    def array_namespace(self) -> ModuleType:
        return _cupy()

    def pauli_namespace(self) -> ModuleType:
        """Packed Pauli strings propagate in GPU memory: the reference routines of
        :mod:`genqsim.linalg.packed_paulis` run on CuPy arrays as written (sorts, searches,
        bincounts), one launch each."""
        return _cupy()

    # -- gates ---------------------------------------------------------------------------------
    def apply_gate_call(self, state: Any, call: GateCall) -> None:
        """A plan's gate call, launched as kept on the call (:func:`kept_launch`)."""
        self._launch(state, call, kept_launch(call, state.dtype, state.shape))

    def _apply(self, state, call: GateCall) -> None:
        self._launch(state, call, launch_of(call, np.dtype(state.dtype), state.shape))

    def _launch(self, state, call: GateCall, launch: GateLaunch | None) -> None:
        if launch is None:
            return
        if launch.kernel is None:
            size = state.shape[-1]
            batch = state.shape[0] if state.ndim == 2 else 1
            control_values = call.control_values or (1,) * len(call.controls)
            self._apply_wide(state, _dense_of(call), call.targets, call.controls,
                             control_values, size >> len(call.qubits), batch)  # fmt: skip
            return
        if launch.packed is not None:
            launch.packed(state)
            return
        launch.kernel(launch.grid, (THREADS,), (state, *launch.arguments))

    def _apply_wide(self, state, matrix, targets, controls, control_values, n_iter, batch):
        cupy = _cupy()
        dtype = np.dtype(state.dtype)
        dim = 1 << len(targets)
        fixed = sorted(targets + controls)
        offsets = [sum(1 << t for pos, t in enumerate(targets) if r >> pos & 1) for r in range(dim)]
        grid, block = _launch_size(n_iter * batch)
        scratch = cupy.empty(grid[0] * block[0] * dim, dtype=dtype)
        value = sum(1 << c for c, v in zip(controls, control_values) if v)
        entries = real_entries(matrix) if dtype in REAL_STATES else matrix
        _kernel(dtype, "apply_dense_wide")(
            grid,
            block,
            (state, cupy.asarray(entries.astype(dtype)), cupy.asarray(offsets, dtype=np.int64),
             cupy.asarray(fixed, dtype=np.int32), np.int32(len(fixed)), np.int64(value),
             np.int32(dim), scratch, np.int64(n_iter), np.int64(state.shape[-1]),
             np.int64(batch)),
        )  # fmt: skip

    def apply_matrix(self, state, matrix, targets, controls=(), control_values=()) -> None:
        self._apply(state, MatrixCall(matrix, tuple(targets), tuple(controls),
                                      tuple(control_values)))  # fmt: skip

    def apply_diagonal(self, state, diagonal, targets, controls=(), control_values=()) -> None:
        self._apply(state, DiagonalCall(diagonal, tuple(targets), tuple(controls),
                                        tuple(control_values)))  # fmt: skip

    def apply_permutation(
        self, state, permutation, phases, targets, controls=(), control_values=()
    ) -> None:
        self._apply(state, PermutationCall(permutation, phases, tuple(targets), tuple(controls),
                                           tuple(control_values)))  # fmt: skip

    # -- block runs in shared memory -----------------------------------------------------------
    def block_layout(self, dtype: np.dtype) -> BlockLayout:
        """Tiles that always hold the lowest LOW_BITS qubits (coalesced series of 32
        amplitudes) plus any others, high ones included, so runs on high qubits are applied
        in shared memory too (MSB scheme). Diagonals are not merged: merged into diagonals of
        up to 4 qubits (16 rows travel by value) they ran no faster inside tiles, and QFT 28
        in complex128 slower (243 against 226 ms on an H200, ``gpu_bench.py``)."""
        return _block_layout(np.dtype(dtype))

    def apply_block_run(self, state, run: BlockRun) -> None:
        """Launch ``run``'s tile kernel as kept on the run for this dtype, device and state
        shape (:func:`tile_launch`), or run its calls one by one where its tiles do not fit."""
        device = int(_cupy().cuda.runtime.getDevice())
        key = ("cupy", state.dtype, device, state.shape)  # a kept plan may meet another GPU
        launch = run.encoded.get(key, _NOT_KEPT)
        if launch is _NOT_KEPT:
            launch = run.encoded[key] = tile_launch(run, np.dtype(state.dtype), device,
                                                    state.shape)  # fmt: skip
        if launch is None:
            run.run_in_order(self, state)
        elif launch.packed is not None:
            launch.packed(state)
        else:
            launch.kernel(launch.grid, (THREADS,), (state, *launch.arguments),
                          shared_mem=launch.shared_mem)  # fmt: skip

    # -- reductions ----------------------------------------------------------------------------
    def probabilities(self, state, qubits, numbers):
        from ..linalg.generic import marginalize

        cupy = _cupy()
        dtype = np.dtype(state.dtype)
        out = cupy.empty(state.shape, dtype=_REAL[dtype])
        grid, block = _launch_size(state.size)
        _kernel(dtype, "abs2")(grid, block, (state, out, np.int64(state.size)))
        return out if qubits is None else marginalize(out, qubits)

    def inner(self, a, b, numbers):
        return complex(_cupy().vdot(a, b))

    def norm_squared(self, state, numbers):
        return float(_cupy().vdot(state, state).real)

    def pauli_transition(self, bra, ket, x_mask, z_mask, numbers, controls=(), control_values=()):
        cupy = _cupy()
        dtype = np.dtype(ket.dtype)
        grid, block = _launch_size(ket.size)
        grid = (min(grid[0], 1024),)
        partial = cupy.empty(grid[0], dtype=dtype)
        control_mask = sum(1 << int(c) for c in controls)
        control_value = sum(int(v) << int(c) for c, v in zip(controls, control_values))
        masks = (x_mask, z_mask, control_mask, control_value)
        _kernel(dtype, "pauli_transition_partial")(
            grid, block, (bra, ket, np.int64(ket.size), *map(np.int64, masks), partial),
            shared_mem=THREADS * dtype.itemsize,
        )  # fmt: skip
        return complex(partial.sum())

    def sample_counts(
        self, state: Any, qubits: Sequence[int] | None, shots: int, seed: int | None
    ) -> dict[int, int]:
        """``{basis index: count}`` of ``shots`` draws, drawn on the device."""
        cupy = _cupy()
        p = self.probabilities(state, qubits, None).astype(np.float64)  # type: ignore[arg-type]
        cdf = cupy.cumsum(p)
        draws = cupy.random.RandomState(seed).random_sample(shots) * cdf[-1]
        picks = cupy.minimum(cupy.searchsorted(cdf, draws, side="right"), p.size - 1)
        counts = cupy.bincount(picks, minlength=p.size)
        found = cupy.flatnonzero(counts)
        return dict(zip(found.get().tolist(), counts[found].get().tolist()))

    # -- arrays --------------------------------------------------------------------------------
    def zeros(self, n_qubits: int, numbers) -> Any:
        cupy = _cupy()
        check_device_fits(n_qubits, numbers.dtype.itemsize)
        state = cupy.zeros(1 << n_qubits, dtype=numbers.dtype)
        state[0] = 1
        return state

    def asarray(self, array: Any, numbers) -> Any:
        return _cupy().asarray(numbers.array(np.asarray(array)))

    def to_numpy(self, state: Any) -> np.ndarray:
        return _cupy().asnumpy(state)

    def iqp_encode(self, data: np.ndarray, n_qubits: int, zz: bool, numbers: NumberSystem) -> Any:
        return iqp_encode_device(data, n_qubits, zz, numbers.dtype)


def check_device_fits(n_qubits: int, itemsize: int) -> None:
    """Refuse a state larger than the GPU's free memory, before allocating."""
    from ..errors import StateTooLargeError

    cupy = _cupy()
    free, _ = cupy.cuda.runtime.memGetInfo()
    need = itemsize << n_qubits
    if need > free:
        raise StateTooLargeError(
            f"a {n_qubits}-qubit state needs {need / 2**30:.2f} GiB of GPU memory but only "
            f"{free / 2**30:.2f} GiB is free"
        )


def iqp_encode_device(data: Any, n: int, zz: bool, dtype: np.dtype) -> Any:
    """IQP states of ``n`` qubits on the GPU: one sample (1-D data) or a batch (2-D), shape
    (batch, 2**n). n <= 10: phase, FWT and normalisation in one launch; larger n:
    phase+normalise, the low 10 FWT stages in shared memory, then one launch per higher
    stage."""
    cupy = _cupy()
    dtype = np.dtype(dtype)
    host = np.atleast_2d(np.asarray(data, dtype=np.float64))
    batch, n_data = host.shape
    size = 1 << n
    d = cupy.asarray(host.astype(_REAL[dtype]))
    out = cupy.empty((batch, size), dtype=dtype)
    args_tail = (np.int32(n), np.int32(n_data), np.int32(int(zz)), np.int64(batch))
    if n <= TILE_BITS:
        grid = (max(1, min(MAX_BLOCKS, batch)),)
        _kernel(dtype, "iqp_encode_small")(
            grid, (min(THREADS, max(32, size // 2)),), (out, d, *args_tail),
            shared_mem=size * dtype.itemsize,
        )  # fmt: skip
        return out
    grid, block = _launch_size(batch * size)
    _kernel(dtype, "iqp_phase_normalised")(grid, block, (out, d, *args_tail))
    n_tiles = (batch * size) >> TILE_BITS
    tile_grid = (max(1, min(MAX_BLOCKS, n_tiles)),)
    _kernel(dtype, "fwt_low_stages")(
        tile_grid, (THREADS,), (out, np.int32(TILE_BITS), np.int32(n), np.int64(n_tiles)),
        shared_mem=(1 << TILE_BITS) * dtype.itemsize,
    )  # fmt: skip
    pairs = batch * size // 2
    grid, block = _launch_size(pairs)
    for s in range(TILE_BITS, n):
        _kernel(dtype, "fwt_stage")(grid, block, (out, np.int32(s), np.int64(pairs)))
    return out
