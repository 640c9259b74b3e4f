"""The command line's method flags, made from the registry: one flag per option of a
method's options class (``--max-bond``, ``--trajectories``, ...), with its help, type and
choices, so a registered method gets its flags without an edit here; and the method a run
uses (``--method``, or the registry's choice)."""

from __future__ import annotations

import argparse
import dataclasses
import typing
from typing import Any

from ..circuit.circuit import Circuit
from ..errors import UnknownOptionError
from ..methods import DENSITY_MATRIX_MAX_QUBITS
from ..numbers import NumberSystem
from ..states import AUTO, available_methods, choose_method, method_spec
from ..states.options import method_fields
from ..states.registry import FALLBACK_METHOD
from .sources import UsageError


def method_and_options(
    args: argparse.Namespace, circuit: Circuit, numbers: NumberSystem
) -> tuple[str, dict[str, Any]]:
    """The method to run (``--method``, or the registry's choice for the circuit) and the
    method flags given, refusing a flag the method does not have."""
    flags = {name: value for name, value in vars(args).items()
             if name in _option_flags() and value is not None}  # fmt: skip
    method = args.method or AUTO
    if method == AUTO:
        try:
            method = choose_method(circuit, numbers, flags)
        except UnknownOptionError:
            method = choose_method(circuit, numbers)  # the flag is refused just below
        if method == FALLBACK_METHOD and not flags and holds_ensemble(circuit, numbers):
            method = "density_matrix"  # every history of the mid-circuit outcomes, not one
    has = set(method_spec(method).option_names())
    for name in flags:
        if name not in has:
            owners = " or ".join(f"--method {m}" for m in _option_flags()[name])
            raise UsageError(f"--{name.replace('_', '-')} applies to {owners}")
    if "trajectories" in flags and not circuit.has_non_unitary:
        raise UsageError(
            f"--trajectories {flags['trajectories']}: the circuit has no noise, measurements or "
            "resets, so every trajectory is the same run; drop --trajectories, or add --noise"
        )
    return method, flags


def holds_ensemble(circuit: Circuit, numbers: NumberSystem) -> bool:
    """Whether a run of ``circuit`` should report the ensemble of its mid-circuit outcomes
    (a density matrix: measurements, resets or conditionals before the read-out, no while
    loop, a size a density matrix holds), rather than one history drawn at random."""
    machine = numbers.dtype.kind == "c"
    return (
        circuit.runs_before_read_out
        and not circuit.has_loops
        and (circuit.n_qubits <= DENSITY_MATRIX_MAX_QUBITS or not machine)
    )


def _option_flags() -> dict[str, list[str]]:
    """Every method option that is not shared, and the methods that have it."""
    owners: dict[str, list[str]] = {}
    for name in available_methods():
        for f in method_fields(method_spec(name).options, cli_only=True):
            owners.setdefault(f.name, []).append(name)
    return owners


def add_method_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per method option (``--max-bond``), built from the options' declarations,
    so a registered method gets its flags without an edit here."""
    seen: dict[str, tuple[type, dataclasses.Field[Any]]] = {}
    for name in available_methods():
        options = method_spec(name).options
        for f in method_fields(options, cli_only=True):
            seen.setdefault(f.name, (options, f))
    for name, (options, f) in seen.items():
        owners = ", ".join(_option_flags()[name])
        kind = _flag_type(options, name)
        extra: dict[str, Any] = (
            {"action": argparse.BooleanOptionalAction} if kind is bool else {"type": kind}
        )
        if f.metadata.get("choices"):
            extra["choices"] = f.metadata["choices"]
        parser.add_argument(
            f"--{name.replace('_', '-')}",
            default=None,
            help=f"{f.metadata.get('help', '')} (--method {owners}; default: {f.default})",
            **extra,
        )


def _flag_type(options: type, name: str) -> type:
    """The command-line type of an option: its annotation without ``None``."""
    hint = typing.get_type_hints(options)[name]
    kinds = [k for k in typing.get_args(hint) if k is not type(None)] or [hint]
    return kinds[0] if kinds[0] in (bool, int, float) else str
