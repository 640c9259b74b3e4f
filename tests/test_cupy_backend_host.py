"""The host side of the CuPy backend, on any machine (CuPy is imported only when a kernel
runs): it implements every capability it declares, and typed calls encode into the struct
the kernels read with the codes of CallKind."""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import genqsim as gq


def test_the_cupy_backend_implements_every_capability_it_declares():
    """Constructible (no abstract method left) and its layout and capabilities as documented;
    needs no GPU: CuPy is only imported when a kernel runs."""
    from genqsim.backends import capabilities_of
    from genqsim.backends.cupy_backend import LOW_BITS, CupyBackend

    assert not CupyBackend.__abstractmethods__
    assert CupyBackend.device == "gpu"
    backend = object.__new__(CupyBackend)  # skips the CuPy presence check of __init__
    assert capabilities_of(backend) == [
        "ArrayNamespace", "BlockRunner", "GateCallRunner", "DeviceSampler", "IQPEncoder",
        "BatchPrimitives", "DeviceInfo", "DeviceSelector", "PauliCoordinates", "PauliPropagator",
    ]  # fmt: skip
    for dtype, bits in ((np.complex64, 12), (np.complex128, 11), (np.float64, 12)):  # 32 KiB
        layout = backend.block_layout(np.dtype(dtype))
        assert (layout.tile_qubits, layout.low_qubits, layout.min_state_qubits) == (
            bits, LOW_BITS, bits + 1
        )  # fmt: skip


def test_typed_calls_encode_with_their_call_codes():
    from genqsim.backends.cupy_backend import encode_op, kernel_source
    from genqsim.plan import CallKind, DiagonalCall, MatrixCall, PermutationCall

    h = np.array([[1, 1], [1, -1]]) / np.sqrt(2)
    dense = encode_op(MatrixCall(h, (3,), (0,), (0,)), np.dtype(np.complex128))[0]
    assert dense["kind"] == CallKind.MATRIX and dense["active"] == 0b11 and dense["dim"] == 2
    assert dense["control_value"] == 0 and list(dense["fixed"][:2]) == [0, 3]
    np.testing.assert_allclose(dense["data"][:8:2], h.reshape(-1))  # real parts, row-major
    diag = encode_op(DiagonalCall(np.array([1, 1j]), (2,), (1,)), np.dtype(np.complex64))[0]
    assert diag["kind"] == CallKind.DIAGONAL and diag["active"] == 0b10
    assert diag["control_value"] == 0b10  # control qubit 1 at its default value 1
    swap = encode_op(PermutationCall([0, 2, 1, 3], None, (0, 1)), np.dtype(np.complex128))[0]
    assert swap["kind"] == CallKind.PERMUTATION and swap["active"] == 0b0110
    assert list(swap["perm"][:4]) == [0, 2, 1, 3] and list(swap["offsets"][:4]) == [0, 1, 2, 3]
    wide = MatrixCall(np.eye(16), (0, 1, 2, 3))
    assert encode_op(wide, np.dtype(np.complex128)) is None  # too wide to travel by value
    codes = "enum OpKind { OP_DENSE = 0, OP_DIAGONAL = 1, OP_PERMUTATION = 2 };"
    assert codes in kernel_source("complex64")  # the CUDA enum comes from CallKind


def test_a_tile_with_too_many_qubits_above_its_series_is_refused():
    """The kernel places at most 2 * SPREAD_BITS tile qubits above the lowest series."""
    from genqsim.backends.cupy_backend import SPREAD_BITS, tile_record

    assert SPREAD_BITS == 6
    with pytest.raises(ValueError, match="13 qubits above its lowest series"):
        tile_record([0, 1, 2, *range(5, 18)], 20)
    record = tile_record([0, 1, *range(4, 16)], 20)  # 12 above a series of 2: the most
    assert record["n"][0] == 14 and list(record["q"][0, :3]) == [0, 1, 4]


def test_tiles_that_do_not_fit_run_call_by_call():
    """A tile runs in the kernel only within the state, within the shared memory a block
    gets without opting in (48 KiB), and with at most 12 qubits above its series."""
    from genqsim.backends.cupy_backend import tile_fits

    assert tile_fits(range(10), 20, 16)
    assert not tile_fits(range(10), 9, 16)  # more tile than state
    assert tile_fits(range(11), 20, 16) and not tile_fits(range(12), 20, 16)  # 32 / 64 KiB
    assert tile_fits(range(12), 20, 8) and not tile_fits(range(13), 20, 8)
    assert not tile_fits([0, *range(2, 15)], 20, 1)  # 13 above a series of 1


def test_a_tile_run_without_wide_dense_or_permutation_calls_takes_the_narrow_kernel():
    """Only dense and permutation calls of 3 targets hold 8 amplitudes a thread; a run of
    narrower ones, or with 8-row diagonals, takes the kernel compiled without them."""
    from genqsim.backends.cupy_backend import tile_kernel_name
    from genqsim.plan.calls import DiagonalCall, MatrixCall, PermutationCall

    h = MatrixCall(np.eye(2), (0,))
    two = MatrixCall(np.eye(4), (0, 3), (5,), (1,))
    diagonal8 = DiagonalCall(np.ones(8), (0, 1, 2))
    dense8 = MatrixCall(np.eye(8), (1, 2, 4))
    permutation8 = PermutationCall(list(range(8))[::-1], None, (0, 2, 3))
    assert tile_kernel_name([h, two, diagonal8]) == "apply_tile_run_narrow"
    assert tile_kernel_name([h, dense8]) == "apply_tile_run"
    assert tile_kernel_name([permutation8, h]) == "apply_tile_run"
    permutation16 = PermutationCall(list(range(16))[::-1], None, (0, 2, 3, 7))
    diagonal16 = DiagonalCall(np.ones(16), (0, 1, 2, 5))
    assert tile_kernel_name([h, permutation16]) == "apply_tile_run_wide"
    assert tile_kernel_name([diagonal16, dense8]) == "apply_tile_run_wide"
    assert tile_kernel_name([two, diagonal16]) == "apply_tile_run_narrow"  # one row at a time


def test_sixteen_row_diagonals_and_permutations_travel_by_value_and_dense_ones_do_not():
    """A density matrix's two-qubit channel in Pauli coordinates is a signed permutation of
    16 rows: it travels by value (offsets and permutation of 16 rows), a dense matrix of 16
    rows does not, nor does a permutation of 32."""
    from genqsim.backends.cupy_backend import encode_op
    from genqsim.plan.calls import DiagonalCall, MatrixCall, PermutationCall

    rng = np.random.default_rng(3)
    perm = rng.permutation(16)
    signs = rng.choice([-1.0, 1.0], size=16) * 0.9
    record = encode_op(PermutationCall(perm, signs, (1, 4, 6, 9)), np.dtype(np.float64))[0]
    assert record["dim"] == 16 and list(record["perm"]) == list(perm)
    assert record["offsets"][15] == (1 << 1) + (1 << 4) + (1 << 6) + (1 << 9)
    np.testing.assert_array_equal(record["data"][:32:2], signs)
    np.testing.assert_array_equal(record["data"][1:32:2], 0)
    assert encode_op(DiagonalCall(np.arange(16.0), (0, 1, 2, 3)), np.dtype(np.complex64))
    assert encode_op(MatrixCall(np.eye(16), (0, 1, 2, 3)), np.dtype(np.float64)) is None
    assert encode_op(PermutationCall(list(range(32)), None, (0, 1, 2, 3, 4)),
                     np.dtype(np.complex128)) is None  # fmt: skip


def test_real_states_compile_without_the_complex_kernels_and_refuse_complex_numbers():
    """Real states (Pauli coordinates) get their own module (REAL_AMPLITUDES, no reductions
    or IQP, which are complex), and a call with imaginary parts is refused before any launch,
    as on the Numba backend."""
    from genqsim.backends.cupy_backend import encode_op, kernel_source
    from genqsim.errors import NumberTypeError
    from genqsim.plan.calls import DiagonalCall

    real = kernel_source("float64")
    assert real.startswith("typedef double real_t;\n#define REAL_AMPLITUDES\n")
    assert "iqp" not in real.lower() and kernel_source("float32").startswith("typedef float")
    assert "REAL_AMPLITUDES\n" not in kernel_source("complex128").split("enum")[0]
    with pytest.raises(NumberTypeError, match="complex entries"):
        encode_op(DiagonalCall(np.array([1, 1j]), (0,)), np.dtype(np.float64))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_remembered_gate_records_equal_fresh_ones_and_tell_calls_apart(dtype):
    """encode_op remembers records by content: the same call gives the record built anew,
    and calls that differ in numbers, qubits, controls or permutation get their own."""
    from genqsim.backends.cupy_backend import _encode_op, encode_op
    from genqsim.plan.calls import DiagonalCall, MatrixCall, PermutationCall

    h = np.array([[1, 1], [1, -1]]) / np.sqrt(2)
    calls = [
        MatrixCall(h, (3,)),
        MatrixCall(-h, (3,)),
        MatrixCall(h, (4,)),
        MatrixCall(h, (3,), (1,), (0,)),
        DiagonalCall(np.array([1, 1j]), (5,), (2,), (1,)),
        DiagonalCall(np.array([1, -1j]), (5,), (2,), (1,)),
        PermutationCall([1, 0], None, (4,), (1,)),
        PermutationCall([1, 0], np.array([1j, -1j]), (4,)),
        PermutationCall([0, 2, 3, 1], None, (4, 6)),
        PermutationCall([0, 3, 1, 2], None, (4, 6)),
    ]
    records = [encode_op(c, np.dtype(dtype)) for c in calls]
    for call, record in zip(calls, records):
        assert encode_op(call, np.dtype(dtype)).tobytes() == record.tobytes()
        assert _encode_op(call, np.dtype(dtype)).tobytes() == record.tobytes()
    assert len({r.tobytes() for r in records}) == len(calls)


class _StandInCupy:
    """What of CuPy the gate launches touch, on NumPy arrays: kernels that record their
    launches instead of running."""

    def __init__(self) -> None:
        self.launches: list[tuple[str, tuple, tuple]] = []
        self.lookups: list[str] = []

    def RawModule(self, code: str, options: tuple = ()) -> Any:
        standin = self

        class Module:
            def get_function(self, name: str) -> Any:
                standin.lookups.append(name)
                return lambda grid, block, args, shared_mem=0: standin.launches.append(
                    (name, grid, args)
                )

        return Module()


@pytest.fixture
def standin_cupy(monkeypatch):
    """A stand-in CuPy in ``sys.modules``, and the backend's kept kernels and modules
    forgotten before and after (they would hold stand-in functions)."""
    import importlib.machinery
    import types

    from genqsim.backends import cupy_backend

    standin = _StandInCupy()
    module = types.ModuleType("cupy")
    module.__spec__ = importlib.machinery.ModuleSpec("cupy", None)
    module.RawModule = standin.RawModule
    module.empty, module.asarray = np.empty, np.asarray  # the wide kernel's buffers
    runtime = types.SimpleNamespace(
        getDevice=lambda: 0, getDeviceProperties=lambda device: {"multiProcessorCount": 4}
    )
    module.cuda = types.SimpleNamespace(runtime=runtime)
    monkeypatch.setitem(sys.modules, "cupy", module)
    monkeypatch.setattr(cupy_backend, "_kernels", {})
    cupy_backend._module.cache_clear()
    cupy_backend._multiprocessors.cache_clear()
    yield standin
    cupy_backend._module.cache_clear()
    cupy_backend._multiprocessors.cache_clear()


BY_VALUE = ("apply_op", "apply_op_narrow")
"""The kernels of gate calls whose records travel by value (one target: the narrow one)."""


def test_a_kept_plan_launches_each_gate_from_what_it_kept_with_the_records_built_anew(
    standin_cupy, monkeypatch
):
    """The plan kept on a circuit goes to the backend call by call
    (``GateCallRunner.apply_gate_call``): the first run derives each call's launch, a second
    derives nothing and launches the same records, and those equal records built anew for
    each call; a diagonal of ones launches nothing, a dense gate on 4 targets the wide
    kernel. Kernels are looked up once each."""
    from genqsim.backends import cupy_backend
    from genqsim.backends.cupy_backend import CupyBackend, _encode_op
    from genqsim.numbers import get_number_system
    from genqsim.plan.build import plan_for_backend, run_plan
    from genqsim.plan.calls import DiagonalCall, MatrixCall

    backend = object.__new__(CupyBackend)  # skips the CuPy presence check of __init__
    numbers = get_number_system("complex128")
    circuit = gq.Circuit(6).h(0).cx(0, 3).u(0.3, 0.2, 0.1, 5).t(4).swap(1, 2).rz(0.0, 2)
    rng = np.random.default_rng(5)
    dense = np.linalg.qr(rng.normal(size=(16, 16)) + 1j * rng.normal(size=(16, 16)))[0]
    circuit.unitary(dense, [0, 1, 2, 4])
    plan = plan_for_backend(circuit, numbers, backend, fuse=False, keep=True)
    assert plan_for_backend(circuit, numbers, backend, fuse=False, keep=True) is plan
    state = np.zeros((3, 64), dtype=np.complex128)  # a batch: the kernels' last axis
    derived = []
    encode_op = cupy_backend.encode_op
    monkeypatch.setattr(
        cupy_backend,
        "encode_op",
        lambda call, dtype: derived.append(call) or encode_op(call, dtype),
    )
    run_plan(plan, backend, state)
    first = list(standin_cupy.launches)
    assert len(derived) == len(plan) and derived == list(plan)
    standin_cupy.launches.clear()
    run_plan(plan, backend, state)
    assert len(derived) == len(plan)  # nothing derived again, not even a content key
    assert [(name, grid) for name, grid, _ in standin_cupy.launches] == [
        (name, grid) for name, grid, _ in first
    ]
    by_value = [(call, launch) for call, launch in zip(plan, first) if launch[0] in BY_VALUE]
    assert len(by_value) == len(plan) - 2
    for call, (name, _, args) in by_value:
        assert name == ("apply_op_narrow" if len(call.targets) == 1 else "apply_op")
        assert args[0] is state
        assert args[1].tobytes() == _encode_op(call, np.dtype(np.complex128)).tobytes()
        n_iter = 64 >> len(call.qubits)
        assert [int(a) for a in args[2:]] == [n_iter, 64, 3]
    assert [name for name, _, _ in first if name not in BY_VALUE] == ["apply_dense_wide"]
    assert sum(isinstance(c, DiagonalCall) and np.all(c.diagonal == 1) for c in plan) == 1
    assert sum(isinstance(c, MatrixCall) and len(c.targets) == 4 for c in plan) == 1
    assert sorted(standin_cupy.lookups) == ["apply_dense_wide", "apply_op", "apply_op_narrow"]
    single = np.zeros(64, dtype=np.complex128)  # another shape: launches of its own
    standin_cupy.launches.clear()
    run_plan(plan, backend, single)
    assert len(derived) == 2 * len(plan)
    launched = [args for name, _, args in standin_cupy.launches if name in BY_VALUE]
    assert [[int(a) for a in args[2:]] for args in launched] == [
        [64 >> len(call.qubits), 64, 1] for call, _ in by_value
    ]
    assert all(args[0] is single for args in launched)


def test_a_kept_plan_launches_its_tile_runs_from_what_each_run_kept(standin_cupy, monkeypatch):
    """A block run keeps its launch per dtype, device and state shape: a second run of the
    plan builds no record and no tile again, and launches the same arguments; those are
    the run's records, call count, tile, tile count and group of tiles a block holds
    (a 14-qubit complex64 state: 4 tiles of 12 qubits; a batch of two: 8)."""
    from genqsim.backends import cupy_backend
    from genqsim.backends.cupy_backend import CupyBackend, tile_record
    from genqsim.numbers import get_number_system
    from genqsim.plan.build import plan_for_backend, run_plan
    from genqsim.plan.calls import BlockRun

    backend = object.__new__(CupyBackend)  # skips the CuPy presence check of __init__
    circuit = gq.library.random_circuit(14, 6, seed=3)
    plan = plan_for_backend(circuit, get_number_system("complex64"), backend, keep=True)
    runs = [item for item in plan if isinstance(item, BlockRun)]
    assert runs
    built = []
    for name in ("tile_record", "encode_op"):
        original = getattr(cupy_backend, name)
        monkeypatch.setattr(
            cupy_backend, name, lambda *a, _f=original, _n=name: built.append(_n) or _f(*a)
        )
    for state, n_tiles in ((np.zeros(1 << 14, np.complex64), 4),
                           (np.zeros((2, 1 << 14), np.complex64), 8)):  # fmt: skip
        standin_cupy.launches.clear()
        run_plan(plan, backend, state)
        first = [launch for launch in standin_cupy.launches if launch[0].startswith("apply_tile")]
        assert len(first) == len(runs) and built.count("tile_record") > 0
        for run, (_, grid, args) in zip(runs, first):
            assert args[0] is state and int(args[2]) == len(run.calls)
            assert args[3].tobytes() == tile_record(run.qubits, 14).tobytes()
            assert int(args[4]) == n_tiles and grid == (min(16 * 4, n_tiles >> int(args[5])),)
        built.clear()
        standin_cupy.launches.clear()
        run_plan(plan, backend, state)
        again = [launch for launch in standin_cupy.launches if launch[0].startswith("apply_tile")]
        assert built == []  # nothing built again
        assert [(n, g) for n, g, _ in again] == [(n, g) for n, g, _ in first]
        for (_, _, args), (_, _, kept) in zip(again, first):
            assert all(a is b for a, b in zip(args, kept))


class _DriverStandIn:
    """CuPy's driver binding as a packed launch calls it: ``launchKernel`` reads the table of
    argument addresses it is given and the bytes at each, as ``cuLaunchKernel`` would, and
    refuses a launch while ``refuse`` is set (a thread without a CUDA context)."""

    class CUDADriverError(RuntimeError):
        pass

    def __init__(self, sizes: list[int]) -> None:
        self.sizes, self.launches, self.refuse = sizes, [], False

    def launchKernel(self, function, gx, gy, gz, bx, by, bz, shared, stream, table, extra):
        import ctypes

        if self.refuse:
            raise self.CUDADriverError("CUDA_ERROR_INVALID_CONTEXT")
        addresses = (ctypes.c_void_p * len(self.sizes)).from_address(table)
        values = [ctypes.string_at(a, n) for a, n in zip(addresses, self.sizes)]
        self.launches.append((function, (gx, gy, gz), (bx, by, bz), shared, stream, values))


class _RawKernelStandIn:
    """A RawKernel: its function on the current device (``.kernel.ptr``), and CuPy's own
    launch, recorded."""

    kernel = SimpleNamespace(ptr=0xF00)

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def __call__(self, grid, block, args, shared_mem=0) -> None:
        self.calls.append((grid, block, args, shared_mem))


def test_a_packed_launch_hands_the_driver_the_bytes_cupy_would_pass(standin_cupy):
    """A kept gate launch packed for the driver: the table of addresses ``cuLaunchKernel``
    reads holds the state's device pointer (written at each launch: a second state gets its
    own), the call's OpParams record byte for byte, and the iterations, length and batch as
    64-bit integers, on CuPy's current stream with the grid and block of CuPy's launch. A
    launch the driver refuses goes through CuPy's own launch with the same arguments."""
    from genqsim.backends.cupy_backend import THREADS, _encode_op, launch_of
    from genqsim.backends.cupy_launch import packed_launch
    from genqsim.plan.calls import MatrixCall

    dtype = np.dtype(np.complex128)
    call = MatrixCall(np.array([[0, 1j], [1, 0]]), (3,), (1,), (0,))
    kernel = _RawKernelStandIn()
    launch = launch_of(call, dtype, (1 << 20,))._replace(kernel=kernel)
    record = _encode_op(call, dtype)
    driver = _DriverStandIn([8, record.nbytes, 8, 8, 8])
    stream = SimpleNamespace(ptr=0x5EAD)
    cupy = SimpleNamespace(cuda=SimpleNamespace(driver=driver, get_current_stream=lambda: stream))
    packed = packed_launch(cupy, kernel, launch.grid[0], THREADS, launch.arguments)
    assert packed is not None
    states = [_DeviceArrayStandIn(0x7000_0000_1000), _DeviceArrayStandIn(0x7000_0040_0000)]
    for state in states:
        packed(state)
    assert [values[0] for *_, values in driver.launches] == [
        int(s.data.ptr).to_bytes(8, "little") for s in states
    ]
    for function, grid, block, shared, on, values in driver.launches:
        assert (function, grid, block, shared, on) == (0xF00, (launch.grid[0], 1, 1),
                                                       (THREADS, 1, 1), 0, 0x5EAD)  # fmt: skip
        assert values[1] == record.tobytes()
        n_iter = (1 << 20) >> 2
        assert [int.from_bytes(v, "little") for v in values[2:]] == [n_iter, 1 << 20, 1]
    assert kernel.calls == []
    driver.refuse = True
    packed(states[1])
    assert len(driver.launches) == 2
    ((grid, block, args, shared),) = kernel.calls
    assert (grid, block, shared) == (launch.grid, (THREADS,), 0)
    assert args[0] is states[1] and args[1:] == launch.arguments


def test_a_launch_is_packed_only_where_cupy_offers_the_driver_and_every_argument_packs():
    """A stand-in CuPy without a driver binding, a kernel that is no RawKernel, or an
    argument that is neither a device array, a one-element NumPy array nor a NumPy scalar:
    CuPy's own launch serves (no packed launch)."""
    from genqsim.backends.cupy_launch import packed_launch

    driver = _DriverStandIn([8])
    with_driver = SimpleNamespace(
        cuda=SimpleNamespace(driver=driver, get_current_stream=lambda: None)
    )
    kernel = _RawKernelStandIn()
    assert packed_launch(with_driver, kernel, 1, 32, (np.int64(3),)) is not None
    assert packed_launch(SimpleNamespace(cuda=SimpleNamespace()), kernel, 1, 32, ()) is None
    assert packed_launch(with_driver, lambda *a, **k: None, 1, 32, ()) is None
    assert packed_launch(with_driver, kernel, 1, 32, (np.zeros(4),)) is None
    assert packed_launch(with_driver, kernel, 1, 32, (3,)) is None


class _DeviceArrayStandIn:
    """A device array as a packed launch reads it: ``.data.ptr``, in a module named
    ``cupy``."""

    __module__ = "cupy"

    def __init__(self, pointer: int) -> None:
        self.data = SimpleNamespace(ptr=pointer)
