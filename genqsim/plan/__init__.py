"""Plans: circuits turned into typed primitive calls, fused and grouped for a backend.

``calls`` holds the call vocabulary (what backends see), ``fusion`` merges neighbouring
gates, ``grouping`` forms cache blocks and GPU tiles, ``build`` validates a circuit and
assembles its plan, and runs plans on a backend.
"""

from __future__ import annotations

from .build import (
    DEFAULT_DENSE_FUSED_QUBITS,
    DEFAULT_FUSED_QUBITS,
    block_layout_of,
    build_plan,
    call_for,
    channel_call,
    check_bound,
    fusion_widths,
    group_calls,
    kept_on,
    plan_for_backend,
    plan_to_apply,
    run_item,
    run_plan,
    run_restricted,
)
from .calls import (
    GATE_CALLS,
    BlockRun,
    Call,
    CallKind,
    ChannelCall,
    CollapseContext,
    ConditionalCall,
    DiagonalCall,
    GateCall,
    LoopCall,
    MatrixCall,
    MeasureCall,
    MonomialRun,
    PermutationCall,
    PlanItem,
    ResetCall,
    StoreCall,
    is_gate_call,
)
from .grouping import group_block_runs, group_monomial_runs, group_tile_runs

__all__ = [
    "DEFAULT_DENSE_FUSED_QUBITS",
    "DEFAULT_FUSED_QUBITS",
    "GATE_CALLS",
    "BlockRun",
    "Call",
    "CallKind",
    "ChannelCall",
    "CollapseContext",
    "ConditionalCall",
    "DiagonalCall",
    "GateCall",
    "LoopCall",
    "MatrixCall",
    "MeasureCall",
    "MonomialRun",
    "PermutationCall",
    "PlanItem",
    "ResetCall",
    "StoreCall",
    "block_layout_of",
    "build_plan",
    "call_for",
    "channel_call",
    "check_bound",
    "fusion_widths",
    "group_block_runs",
    "group_calls",
    "group_monomial_runs",
    "group_tile_runs",
    "is_gate_call",
    "kept_on",
    "plan_for_backend",
    "plan_to_apply",
    "run_item",
    "run_plan",
    "run_restricted",
]
