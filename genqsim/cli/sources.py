"""What ``genqsim run`` reads: the circuit (an OpenQASM file or a built-in), the ``--bind``
values, and the numbers they imply (uncertain or dual bindings choose their own), checked
before anything runs."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..circuit.circuit import Circuit
from ..circuit.noise import NoiseModel
from ..errors import CircuitSourceError, GenqsimError
from ..io import qasm, qpy
from ..library import BUILTIN_USAGE, BUILTINS
from ..numbers import NumberSystem, get_number_system
from ..numbers.dual import DualNumbers
from ..numbers.uncertain import UncertainNumbers, is_uncertain_value

if TYPE_CHECKING:
    import sympy


class UsageError(GenqsimError, ValueError):
    """Bad command-line input."""


@dataclass(frozen=True)
class Job:
    """A ``genqsim run`` as read: the circuit as written and as it runs (bound where its
    numbers need values, noise added), its numbers, and the bindings."""

    circuit: Circuit
    run_circuit: Circuit
    numbers: NumberSystem
    values: dict[str, Any]
    """Bindings in the run's terms (uncertain and dual ones moved into the numbers)."""
    given: dict[str, Any]
    """Bindings as typed."""
    model: NoiseModel | None


def read_job(args: argparse.Namespace) -> Job:
    """The circuit, numbers and bindings of ``args``, every binding checked against the
    circuit's parameters."""
    numbers = get_number_system(args.numbers)
    # machine numbers round every angle to a double anyway: read the file's as floats
    circuit = parse_source(args.source, exact=numbers.dtype.kind != "c")
    values = given = parse_bindings(args.bind or [])
    unknown = set(values) - {str(p) for p in circuit.parameters}
    if unknown:
        known = ", ".join(str(p) for p in circuit.parameters) or "none"
        raise UsageError(
            f"--bind: no parameter named {', '.join(sorted(unknown))} (known: {known})"
        )
    numbers, values = _uncertain_bindings(numbers, values)
    numbers, values = _dual_bindings(numbers, values, circuit)
    missing = sorted(str(p) for p in numbers.unbound(circuit.parameters) if str(p) not in values)
    if missing:
        raise UsageError(
            f"circuit has free parameters ({', '.join(missing)}): give them values with "
            + " ".join(f"--bind {m}=VALUE" for m in missing)
            + ", or keep them symbolic with --numbers sympy"
        )
    # Symbolic numbers keep parameters free in the amplitudes; bindings are then used only to
    # evaluate probabilities. Numeric numbers need them bound before the run.
    run_circuit = circuit if numbers.symbolic else circuit.bind(values)
    model = NoiseModel.from_spec(args.noise) if args.noise else None
    if model is not None:
        run_circuit = model.apply(run_circuit)
    return Job(circuit, run_circuit, numbers, values, given, model)


def sampled_circuit(job: Job) -> Circuit:
    """The circuit ``--shots`` samples: bound to the plain values (symbols and values with
    +/- are not sampled), its noise added."""
    plain = {k: v for k, v in job.given.items() if not is_uncertain_value(v)}
    to_sample = job.circuit.bind(plain)
    unsampled = sorted(str(p) for p in to_sample.parameters)
    if unsampled:
        raise UsageError(
            "--shots draws samples from a numeric run: give "
            + " ".join(f"--bind {m}=VALUE" for m in unsampled)
            + " (plain values; symbols and values with +/- are not sampled)"
        )
    return to_sample if job.model is None else job.model.apply(to_sample)


SOURCES_HELP = ", ".join(usage for usage, _, _ in BUILTIN_USAGE.values())
"""The built-in circuits' command-line forms, for help texts and errors."""


def parse_source(source: str, exact: bool = True) -> Circuit:
    """An OpenQASM file (``*.qasm``: 2.0, its parameters as floats with ``exact=False``, or 3
    when its header says so), a QPY file (``*.qpy``, or any file that starts as one; one of
    several circuits as ``FILE:INDEX``) or a built-in circuit: ``qft:3``, ``ghz:20``,
    ``qaoa-3reg:100:2``, ... (:data:`SOURCES_HELP`)."""
    if (qpy_source := _qpy_source(source)) is not None:
        return _qpy_circuit(*qpy_source)
    if source.endswith(".qasm") or Path(source).is_file():
        return qasm.load(source, exact=exact)
    if Path(source).is_dir():
        raise CircuitSourceError(
            f"{source!r} is a directory: give an OpenQASM or QPY file, or a built-in: "
            + SOURCES_HELP
        )
    name, *args = source.split(":")
    if name not in BUILTINS:
        raise CircuitSourceError(f"unknown circuit {source!r}; built-ins: {SOURCES_HELP}")
    usage, least, most = BUILTIN_USAGE[name]
    if not least <= len(args) <= most:
        raise CircuitSourceError(f"{source!r}: the form is {usage}")
    fields = usage.replace("[", "").replace("]", "").split(":")[1:]
    for field, value in zip(fields, args):
        if not value.isdigit():
            raise CircuitSourceError(
                f"{source!r}: {field} must be a non-negative integer, got {value!r} "
                f"(the form is {usage})"
            )
    if int(args[0]) < 1:
        raise CircuitSourceError(f"{source!r}: the number of qubits must be at least 1")
    build: Any = BUILTINS[name]
    return build(*(int(a) for a in args))


def _qpy_source(source: str) -> tuple[str, str | None] | None:
    """``(path, index text or None)`` where ``source`` names a QPY file (``*.qpy``, or a
    file that starts as QPY), with ``:INDEX`` or without; ``None`` for any other source."""
    candidates: list[tuple[str, str | None]] = [(source, None)]
    if ":" in source:
        head, tail = source.rsplit(":", 1)
        candidates.append((head, tail))
    for path, index in candidates:
        if path.endswith(".qpy") or (Path(path).is_file() and qpy.is_qpy(path)):
            return path, index
    return None


def _qpy_circuit(path: str, index: str | None) -> Circuit:
    """The circuit of a QPY file (the one at ``index`` where it holds several)."""
    circuits = qpy.load(path)
    if index is None and len(circuits) == 1:
        return circuits[0]
    count = f"{str(path)!r} holds {len(circuits)} circuits"
    if index is None:
        raise CircuitSourceError(
            f"{count}: choose one with {path}:INDEX (0 to {len(circuits) - 1})"
        )
    if not index.isdigit() or int(index) >= len(circuits):
        raise CircuitSourceError(
            f"{count}: the index after ':' must be 0 to {len(circuits) - 1}, got {index!r}"
        )
    return circuits[int(index)]


def parse_bindings(items: Sequence[str]) -> dict[str, sympy.Expr | float]:
    """``["phi=0.3", "t=pi/4"]`` -> values (a plain number stays a float, else exact SymPy)."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.strip() or not text.strip():
            raise UsageError(f"--bind expects NAME=VALUE, got {item!r}")
        value = _read_number(name, text)
        out[name.strip()] = value
    return out


def _read_number(name: str, text: str) -> Any:
    """A float where the text is one, an ``uncertainties`` value for ``0.3+/-0.01``, else an
    exact SymPy number (``pi/4``)."""
    import sympy

    try:
        return float(text)
    except ValueError:
        pass
    if "+/-" in text:
        try:
            from uncertainties import ufloat_fromstr

            return ufloat_fromstr(text)
        except ImportError:
            raise UsageError("uncertain values need: pip install 'genqsim[uncertain]'") from None
        except ValueError as exc:
            raise UsageError(f"--bind {name}: cannot read {text!r} ({exc})") from None
    try:
        value = sympy.sympify(text, locals={"pi": sympy.pi, "e": sympy.E})
    except (sympy.SympifyError, SyntaxError, TypeError) as exc:
        raise UsageError(f"--bind {name}: cannot read value {text!r} ({exc})") from None
    if not isinstance(value, sympy.Expr) or value.free_symbols:
        raise UsageError(f"--bind {name}: value {text!r} is not a number")
    return value


def _dual_bindings(
    numbers: Any, values: dict[str, Any], circuit: Circuit
) -> tuple[Any, dict[str, Any]]:
    """``--numbers dual``: every bound parameter is seeded, so the results carry their
    derivatives by each; the circuit then runs with its parameters free."""
    if not isinstance(numbers, DualNumbers) or numbers.parameters:
        return numbers, values
    seeds = {p: values[str(p)] for p in circuit.parameters if str(p) in values}
    return DualNumbers(seeds), {k: v for k, v in values.items() if k not in map(str, seeds)}


def _uncertain_bindings(numbers: Any, values: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Route ``--bind theta=0.3+/-0.01`` values into uncertain numbers; the plain ones stay
    bindings."""
    uncertain = {k: v for k, v in values.items() if is_uncertain_value(v)}
    if not uncertain:
        return numbers, values
    if numbers.name != "uncertain":
        raise UsageError(
            f"--bind {', '.join(sorted(uncertain))}: values with +/- need --numbers uncertain"
        )
    plain = {k: v for k, v in values.items() if k not in uncertain}
    return UncertainNumbers(uncertain), plain
