"""Gate fusion: merge neighbouring operations into fewer, larger ones before running.

Each memory pass over a large state costs the same whether it applies a 1-qubit or a 4-qubit
matrix, so merging gates whose qubits (targets and controls) together number at most
``max_qubits`` cuts the number of passes. Operations on disjoint qubits commute, so several
blocks stay open at once, each on its own qubit set; an operation joins the block(s) it
touches when the union stays small enough, otherwise those blocks are closed (emitted) first.
Barriers close every block they touch, so nothing is fused across them.

A fused block's matrix is the product of its members' matrices in the state's number system;
blocks whose product has only diagonal (or one-per-column) nonzeros become diagonal (or
permutation) calls, and products equal to the identity are dropped. A block made only of
plain exchanges (X, CX, SWAP, CCX: one swap of two basis states each) is emitted as its
members: their swap kernels cost less than one cycle walk of the fused permutation.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..circuit.circuit import Circuit, Operation
from ..circuit.composite import Composite, operations_matrix
from ..circuit.gates import NON_UNITARY, GateKind, MatrixGate
from ..numbers import NumberSystem, get_number_system


@dataclass
class _Block:
    qubits: set[int] = field(default_factory=set)
    ops: list[Operation] = field(default_factory=list)
    structured: bool = True  # only diagonal / permutation members: the product stays cheap


def _structured(op: Operation) -> bool:
    return op.kind in (GateKind.DIAGONAL, GateKind.PERMUTATION)


def _unitary(op: Operation) -> bool:
    return op.kind not in NON_UNITARY


def fuse_operations(
    ops: Sequence[Operation],
    max_qubits: int,
    max_dense_qubits: int | None = None,
    structured: Callable[[Operation], bool] = _structured,
    fusable: Callable[[Operation], bool] = _unitary,
) -> list[list[Operation]]:
    """Group operations into blocks, preserving the order of every pair of operations that
    share a qubit; returns the blocks in a valid order.

    Blocks of ``structured`` operations (by default diagonal and permutation gates, whose
    product is again a cheap phased permutation) may span ``max_qubits``; blocks with another
    member at most ``max_dense_qubits`` (default: the same), since a dense ``2**k`` matrix
    costs ``2**k`` multiply-adds per amplitude. Operations that are not ``fusable`` (by
    default measurements, resets, channels and conditionals) stand alone and nothing is fused
    across them.
    """
    dense_limit = max_qubits if max_dense_qubits is None else max_dense_qubits
    out: list[list[Operation]] = []
    open_blocks: list[_Block] = []

    def close(block: _Block) -> None:
        open_blocks.remove(block)
        if block.ops:
            out.append(block.ops)

    for op in ops:
        qs = set(op.qubits)
        touched = [b for b in open_blocks if b.qubits & qs]
        if op.kind is GateKind.BARRIER:
            for b in touched:
                close(b)
            continue
        if not fusable(op):  # nothing crosses it
            for b in touched:
                close(b)
            out.append([op])
            continue
        union = qs.union(*(b.qubits for b in touched))
        cheap = structured(op)
        block_cheap = cheap and all(b.structured for b in touched)
        limit = max_qubits if block_cheap else dense_limit
        if len(qs) > (max_qubits if cheap else dense_limit):
            for b in touched:  # too big to fuse with anything: emit on its own
                close(b)
            out.append([op])
            continue
        if len(union) <= limit:
            merged = _Block(union, [o for b in touched for o in b.ops] + [op], block_cheap)
            for b in touched:
                open_blocks.remove(b)
            open_blocks.append(merged)
            # relative order of the merged blocks' ops is fine: blocks were disjoint
        else:
            for b in touched:
                close(b)
            open_blocks.append(_Block(qs, [op], cheap))
    for b in list(open_blocks):
        close(b)
    return out


def fuse_circuit(
    circuit: Circuit,
    numbers: NumberSystem,
    max_qubits: int,
    max_dense_qubits: int | None = None,
) -> Circuit:
    """An equivalent circuit whose operations are fused blocks (each a ``MatrixGate``, named
    ``fused``) or the original operations where a block holds only one. A composite on at
    most the dense width is one block from the start (named after it, built once per
    composite gate), which may fuse further with its neighbours."""
    if len(circuit) < 2:
        return circuit  # nothing to fuse with
    dense_limit = max_qubits if max_dense_qubits is None else max_dense_qubits
    fused = Circuit(circuit.n_qubits)
    ops = _composites_as_blocks(circuit, numbers, dense_limit)
    for block in fuse_operations(ops, max_qubits, max_dense_qubits):
        if len(block) == 1:
            fused._ops.append(block[0])
            continue
        op = fused_block(block, numbers)
        if op is None:
            continue
        if all(_is_exchange(member, numbers) for member in block):
            fused._ops.extend(block)  # a chain of plain swaps runs faster unfused
        else:
            fused._ops.append(op)
    return fused


def _composites_as_blocks(
    circuit: Circuit, numbers: NumberSystem, max_qubits: int
) -> list[Operation]:
    """The circuit's operations, each uncontrolled composite on at most ``max_qubits``
    qubits as the one block its body fuses to (kept on the composite gate, so every call of
    it shares one matrix), other composites as their bodies."""
    items = circuit.instructions
    if not any(op.gate.kind is GateKind.COMPOSITE for op in items):
        return list(circuit.operations)
    out: list[Operation] = []
    for op in items:
        gate = op.gate
        if not isinstance(gate, Composite):
            out.append(op)
        elif op.controls or gate.n_qubits > max_qubits:
            out.extend(gate.operations_on(op.targets, op.controls, op.control_values))
        else:
            local = gate.kept_block(numbers, functools.partial(_composite_block, gate, numbers))
            if local is not None:  # None: the body is the identity
                out.append(local.remapped(op.targets))
    return out


def _composite_block(gate: Composite, numbers: NumberSystem) -> Operation | None:
    """The block a composite's body fuses to, on its own qubits, named after it."""
    return fused_block(gate.operations_on(range(gate.n_qubits)), numbers, gate.name)


def _is_exchange(op: Operation, numbers: NumberSystem) -> bool:
    """Whether ``op`` exchanges two basis states and does nothing else (X, CX, SWAP, CCX,
    controlled or not). Backends run such a gate as one swap of two series, which costs
    less than the cycle walk of a fused permutation block: a CX chain (GHZ) fused into
    3-qubit blocks ran 1.6x slower than gate by gate on the reference machine."""
    if op.kind is not GateKind.PERMUTATION:
        return False
    perm, phases = op.gate.permutation(numbers)
    return phases is None and sum(int(p) != j for j, p in enumerate(perm)) == 2


def fused_block(
    block: Sequence[Operation], numbers: NumberSystem, name: str = "fused"
) -> Operation | None:
    """One operation doing what ``block`` does: the product of its matrices on the qubits
    they touch (structure detected from its zeros), or ``None`` where it is the identity.
    Machine numbers multiply in double precision and round once when the call is built."""
    build = get_number_system("complex128") if numbers.dtype.kind == "c" else numbers
    qubits = sorted({q for op in block for q in op.qubits})
    m = operations_matrix(block, qubits, build)
    if m.dtype.kind == "c":
        # rounding leaves ~1e-17 where products cancel exactly (H Z H): snap those to
        # zero so the block is recognised as diagonal or permutation
        m[np.abs(m) < _SNAP] = 0
    if _is_identity(m):
        return None
    return Operation(MatrixGate(m, name=name, check_unitary=False), tuple(qubits))


_SNAP = 8 * np.finfo(np.float64).eps
"""Entries of a fused double-precision matrix below this are rounding residue."""


def _is_identity(m: np.ndarray) -> bool:
    eye = np.eye(m.shape[0], dtype=bool)
    if m.dtype.kind == "c":
        return bool(np.max(np.abs(m - eye)) < _SNAP)
    try:
        return bool(np.all(m[eye] == 1) and np.all(m[~eye] == 0))
    except TypeError:
        return False
