"""The host side of the CuPy backend, on any machine (CuPy is imported only when a kernel
runs): it implements every capability it declares, and typed calls encode into the struct
the kernels read with the codes of CallKind."""

from __future__ import annotations

import numpy as np


def test_the_cupy_backend_implements_every_capability_it_declares():
    """Constructible (no abstract method left) and its layout and capabilities as documented;
    needs no GPU: CuPy is only imported when a kernel runs."""
    from genqsim.backends import capabilities_of
    from genqsim.backends.cupy_backend import LOW_BITS, TILE_BITS, CupyBackend

    assert not CupyBackend.__abstractmethods__
    assert CupyBackend.device == "gpu"
    backend = object.__new__(CupyBackend)  # skips the CuPy presence check of __init__
    assert capabilities_of(backend) == [
        "ArrayNamespace", "BlockRunner", "DeviceSampler", "IQPEncoder", "BatchPrimitives",
        "DeviceInfo", "DeviceSelector",
    ]  # fmt: skip
    layout = backend.block_layout(np.dtype(np.complex64))
    assert (layout.tile_qubits, layout.low_qubits, layout.min_state_qubits) == (
        TILE_BITS, LOW_BITS, TILE_BITS + 1
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
