"""The ``genqsim`` command line: run built-in circuits on any number system.

``genqsim run qpe:3 --numbers sympy --bind phi=0.3`` prints exact symbolic amplitudes and the
probabilities at ``phi = 0.3``. Exit codes: 0 success, 2 usage or input error (one line, no
traceback), 1 internal error.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import __version__
from ..analysis.symbolic import _is_trig, simplify, to_sympy
from ..backends import (
    ThreadScoped,
    available_backends,
    capability,
    get_backend,
    unavailable_backends,
)
from ..circuit.circuit import Circuit
from ..errors import CircuitSourceError, GenqsimError, UnknownOptionError
from ..io import qasm
from ..library import BUILTINS
from ..methods import DENSITY_MATRIX_MAX_QUBITS
from ..numbers import NumberSystem, available_number_systems, get_number_system
from ..numbers.uncertain import is_uncertain_value
from ..states import (
    AUTO,
    StateVector,
    TrajectoryState,
    available_methods,
    choose_method,
    counted_register,
    counts,
    method_spec,
    simulate,
)
from ..states.base import StateBase
from ..states.options import method_fields
from ..support.memory import available_memory, format_bytes

if TYPE_CHECKING:
    import sympy

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE = 0, 1, 2


class UsageError(GenqsimError, ValueError):
    """Bad command-line input."""


def parse_source(source: str, exact: bool = True) -> Circuit:
    """An OpenQASM 2.0 file (``*.qasm``; its parameters as floats with ``exact=False``) or a
    built-in circuit: ``qft:3``, ``ghz:20``, ``walsh:5``, ``qpe:3``, ``random:N:DEPTH[:SEED]``."""
    if source.endswith(".qasm") or Path(source).is_file():
        return qasm.load(source, exact=exact)
    name, *args = source.split(":")
    if name not in BUILTINS:
        raise CircuitSourceError(
            f"unknown circuit {source!r}; built-ins: qft:N, ghz:N, walsh:N, qpe:N, "
            "random:N:DEPTH[:SEED]"
        )
    wanted = 2 if name == "random" else 1
    usage = f"{name}:N:DEPTH[:SEED]" if name == "random" else f"{name}:N"
    if not (wanted <= len(args) <= wanted + (name == "random")) or not all(
        a.isdigit() for a in args
    ):
        raise CircuitSourceError(f"{source!r}: give the number of qubits as {usage}")
    if int(args[0]) < 1:
        raise CircuitSourceError(f"{source!r}: the number of qubits must be at least 1")
    build: Any = BUILTINS[name]
    return build(*(int(a) for a in args))


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


def _bitstring(index: int, n: int) -> str:
    return format(index, f"0{n}b") if n else ""


def _tidy(expr: Any) -> Any:
    """A symbolic amplitude to print: SymPy's and SymEngine's expanded with their
    exponentials combined; trig numbers in their own shorter form."""
    import sympy

    if _is_trig(expr):
        return to_sympy(expr)
    return sympy.powsimp(sympy.expand(expr), combine="exp")


def _real_number(expr: Any) -> float:
    """The real part of a closed symbolic expression, as a float."""
    import sympy

    return float(sympy.re(sympy.N(expr)))


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Simulate and collect everything to print; the same dict is the JSON output."""
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
    sampled_values = {k: v for k, v in values.items() if not is_uncertain_value(v)}
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
    model = None
    if args.noise:
        from ..circuit.noise import NoiseModel

        model = NoiseModel.from_spec(args.noise)
        run_circuit = model.apply(run_circuit)
    method, options = _method_and_options(args, run_circuit, numbers)
    psi = simulate(
        run_circuit,
        numbers=numbers,
        backend=args.backend,
        initial=args.initial,
        progress=not args.quiet,
        method=method,
        seed=args.seed,
        threads=args.threads,
        **options,
    )
    n = psi.n_qubits
    pure = isinstance(psi, StateVector)
    result: dict[str, Any] = {
        "circuit": args.source,
        "n_qubits": n,
        "numbers": numbers.name,
        "method": psi.method,
        "backend": psi.backend_name if isinstance(psi, StateBase) else type(psi).__name__,
        "parameters": [str(p) for p in circuit.parameters],
        "bound": {k: str(v) for k, v in given.items()},
    }
    if args.noise:
        result["noise"] = list(args.noise)
    built_in = isinstance(psi, StateBase)
    if built_in:
        result.update(psi.summary())
    limit = psi.dense_limit if built_in else None
    if limit is not None and n > limit:  # 2**n probabilities: sample with --shots
        probs = np.zeros(0)
    else:
        probs = psi.probabilities()
    if numbers.symbolic:
        if pure:
            amps = [_tidy(a) for a in psi.amplitudes]
            result["amplitudes"] = {_bitstring(i, n): str(a) for i, a in enumerate(amps) if a != 0}
        evaluated = [_at(p, values) for p in probs]
        if any(e.free_symbols for e in evaluated):
            result["probabilities_symbolic"] = {
                _bitstring(i, n): str(to_sympy(simplify(p))) for i, p in enumerate(probs) if p != 0
            }
            numeric = None
        else:
            numeric = np.array([_real_number(e) for e in evaluated])
    elif probs.size == 0:
        numeric = None
    elif numbers.dtype.kind == "c":
        numeric = np.asarray(probs, dtype=np.float64)
        if n <= 6 and pure:
            machine = psi.to_numpy()
            shown_amps = np.flatnonzero(np.abs(machine) >= AMPLITUDE_DISPLAY_FLOOR)
            result["amplitudes"] = {
                _bitstring(int(i), n): _complex_text(machine[i]) for i in shown_amps
            }
            result["amplitudes_not_shown"] = int(machine.size - shown_amps.size)
    else:  # balls, mpmath, uncertain, dual: show the numbers themselves, sort by their value
        numeric = np.array([numbers.to_complex(p).real for p in probs])
        shown = np.argsort(-numeric, kind="stable")[: args.top]
        result["probabilities_detail"] = {
            _bitstring(int(i), n): numbers.display(probs[i])
            for i in shown
            if numeric[i] > PROBABILITY_FLOOR
        }
        if n <= 6 and pure:
            result["amplitudes"] = {
                _bitstring(i, n): numbers.display(a)
                for i, a in enumerate(psi.amplitudes)
                if not numbers.is_zero(a)
            }
        seeded = getattr(numbers, "parameters", ())
        if seeded:  # dual numbers: the derivatives as numbers too
            result["derivatives"] = {
                "by": [str(p) for p in seeded],
                "probabilities": {
                    key: _partials(probs[int(key, 2)], numbers)
                    for key in result["probabilities_detail"]
                },
            }
    if numeric is not None:
        order = np.argsort(-numeric, kind="stable")[: args.top]
        result["probabilities"] = {
            _bitstring(int(i), n): float(numeric[i])
            for i in order
            if numeric[i] > PROBABILITY_FLOOR
        }
        result["nonzero_probabilities"] = int(np.count_nonzero(numeric > PROBABILITY_FLOOR))
    if args.observable:
        value = psi.expectation(args.observable)
        if numbers.symbolic:
            exact = to_sympy(simplify(value))
            result["expectation"] = {"observable": args.observable, "value": str(exact)}
            closed = _at(exact, values)
            if not closed.free_symbols:
                result["expectation"]["numeric"] = _real_number(closed)
        elif isinstance(psi, TrajectoryState):
            estimate = psi.estimate(args.observable)
            result["expectation"] = {
                "observable": args.observable,
                "value": estimate.mean,
                "stderr": estimate.stderr,
            }
        elif numbers.dtype.kind == "c":
            result["expectation"] = {"observable": args.observable, "value": value}
        else:
            result["expectation"] = {
                "observable": args.observable,
                "value": numbers.display(value),
                "numeric": numbers.to_complex(value).real,
            }
            if "derivatives" in result:
                result["derivatives"]["expectation"] = _partials(value, numbers)
    if args.shots:
        to_sample = circuit.bind(sampled_values)  # plain numbers, noise added below
        unsampled = sorted(str(p) for p in to_sample.parameters)
        if unsampled:
            raise UsageError(
                "--shots draws samples from a numeric run: give "
                + " ".join(f"--bind {m}=VALUE" for m in unsampled)
                + " (plain values; symbols and values with +/- are not sampled)"
            )
        if model is not None:
            to_sample = model.apply(to_sample)
        tally = counts(
            to_sample, args.shots, args.seed, readout=model, initial=args.initial,
            method=psi.method, threads=args.threads, **options,
        )  # fmt: skip
        frequent = sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))[: args.top]
        result["counts"] = dict(frequent)
        result["distinct_outcomes"] = len(tally)
        result["counts_over"] = counted_register(to_sample)
        result["shots"], result["seed"] = args.shots, args.seed
    return result


def _partials(value: Any, numbers: Any) -> list[float]:
    """The real parts of a dual number's partial derivatives (of a real result)."""
    dual = numbers.scalar(value)
    if dual.partials is None:
        return [0.0] * len(numbers.parameters)
    return [complex(d).real for d in dual.partials]


def _at(expr: Any, values: dict[str, Any]) -> Any:
    """A SymPy form of ``expr`` with the bound parameters substituted by name (SymEngine
    results come back with symbols that have no assumptions, so names are what match)."""
    expr = to_sympy(expr)
    return expr.subs({s: values[s.name] for s in expr.free_symbols if s.name in values})


def _dual_bindings(
    numbers: Any, values: dict[str, Any], circuit: Circuit
) -> tuple[Any, dict[str, Any]]:
    """``--numbers dual``: every bound parameter is seeded, so the results carry their
    derivatives by each; the circuit then runs with its parameters free."""
    from ..numbers.dual import DualNumbers

    if not isinstance(numbers, DualNumbers) or numbers.parameters:
        return numbers, values
    seeds = {p: values[str(p)] for p in circuit.parameters if str(p) in values}
    return DualNumbers(seeds), {k: v for k, v in values.items() if k not in map(str, seeds)}


def _uncertain_bindings(numbers: Any, values: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Route ``--bind theta=0.3+/-0.01`` values into uncertain numbers; the plain ones stay
    bindings."""
    from ..numbers.uncertain import UncertainNumbers, is_uncertain_value

    uncertain = {k: v for k, v in values.items() if is_uncertain_value(v)}
    if not uncertain:
        return numbers, values
    if numbers.name != "uncertain":
        raise UsageError(
            f"--bind {', '.join(sorted(uncertain))}: values with +/- need --numbers uncertain"
        )
    plain = {k: v for k, v in values.items() if k not in uncertain}
    return UncertainNumbers(uncertain), plain


AMPLITUDE_DISPLAY_FLOOR = 5e-7
"""Machine-number amplitudes smaller than this print as zero at six decimals; they are
counted, not listed."""

PROBABILITY_FLOOR = 1e-15
"""Probabilities at or below this are rounding noise of a zero and are not listed."""


def _complex_text(z: complex) -> str:
    """Six decimals, with no ``-0.000000`` for a part that rounds to zero."""
    z = complex(z)
    return f"{round(z.real, 6) + 0.0:+.6f}{round(z.imag, 6) + 0.0:+.6f}j"


def _method_and_options(
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
    has = set(method_spec(method).option_names())
    for name in flags:
        if name not in has:
            owners = " or ".join(f"--method {m}" for m in _option_flags()[name])
            raise UsageError(f"--{name.replace('_', '-')} applies to {owners}")
    return method, flags


def _option_flags() -> dict[str, list[str]]:
    """Every method option that is not shared, and the methods that have it."""
    owners: dict[str, list[str]] = {}
    for name in available_methods():
        for f in method_fields(method_spec(name).options):
            owners.setdefault(f.name, []).append(name)
    return owners


def add_method_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per method option (``--max-bond``), built from the options' declarations,
    so a registered method gets its flags without an edit here."""
    seen: dict[str, tuple[type, dataclasses.Field[Any]]] = {}
    for name in available_methods():
        options = method_spec(name).options
        for f in method_fields(options):
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


def render_text(result: dict[str, Any], circuit_text: str | None) -> str:
    lines = [
        f"circuit {result['circuit']}: {result['n_qubits']} qubits, numbers={result['numbers']}, "
        f"method={result['method']}, backend={result['backend']}"
    ]
    if "noise" in result:
        lines.append(f"noise: {', '.join(result['noise'])}")
    if "trajectories" in result:
        lines.append(f"averaged over {result['trajectories']} trajectories")
    if "ranks" in result:
        lines.append(f"distributed over {result['ranks']} MPI ranks")
    if "mps" in result:
        m = result["mps"]
        kept = f", conserving {m['conserve']}" if m["conserve"] else ""
        lines.append(
            f"matrix-product state: largest bond {m['max_bond']}, truncation error "
            f"{m['truncation_error']:.3g}, middle-cut entropy {m['entropy_middle']:.6g} bits{kept}"
        )
    if result["parameters"]:
        lines.append(f"parameters: {', '.join(result['parameters'])}")
    if circuit_text:
        lines += ["", circuit_text]
    n = result["n_qubits"]
    qubit_order = f"qubit {n - 1} leftmost" if n > 1 else "one qubit"
    if "amplitudes" in result:
        hidden = result.get("amplitudes_not_shown", 0)
        note = f"; {hidden} below {AMPLITUDE_DISPLAY_FLOOR:g} not shown" if hidden else ""
        lines += ["", f"amplitudes ({qubit_order}{note}):"]
        lines += [f"  |{k}>  {v}" for k, v in result["amplitudes"].items()]
    if "probabilities_symbolic" in result:
        lines += ["", "probabilities (bind the parameters with --bind for numbers):"]
        lines += [f"  |{k}>  {v}" for k, v in result["probabilities_symbolic"].items()]
    shown = result.get("probabilities_detail") or {
        k: f"{v:.6f}" for k, v in result.get("probabilities", {}).items()
    }
    if "probabilities_detail" in result or "probabilities" in result:
        at = ", ".join(f"{k}={v}" for k, v in result["bound"].items())
        total = result.get("nonzero_probabilities", len(shown))
        which = (
            f"all {total} nonzero" if total <= len(shown) else f"{len(shown)} largest of {total}"
        )
        lines += [
            "",
            f"probabilities of the qubits{' at ' + at if at else ''} ({which}; {qubit_order}):",
        ]
        lines += [f"  |{k}>  {v}" for k, v in shown.items()]
    if "expectation" in result:
        e = result["expectation"]
        text = f"<{e['observable']}> = {e['value']}"
        if "stderr" in e:
            text = f"<{e['observable']}> = {e['value']:.6g} ± {e['stderr']:.2g} (standard error)"
        if "numeric" in e:
            text += f" = {e['numeric']:.10g}"
        lines += ["", text]
    if "counts" in result:
        seed = "unseeded" if result["seed"] is None else f"seed {result['seed']}"
        distinct, listed = result["distinct_outcomes"], len(result["counts"])
        which = (
            f"all {distinct} outcomes"
            if listed >= distinct
            else f"{listed} most frequent of {distinct}"
        )
        over = result["counts_over"]
        width = len(next(iter(result["counts"]), ""))
        order = f"bit {width - 1} leftmost" if width > 1 else "one bit"
        if over == "qubits":
            order = qubit_order
        lines += ["", f"counts of the {over} ({result['shots']} shots, {seed}; {which}; {order}):"]
        lines += [f"  {k}  {v}" for k, v in result["counts"].items()]
    return "\n".join(lines)


def write_plot(result: dict[str, Any], path: str) -> None:
    """A bar chart of the largest probabilities (or of the counts, when sampled)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install 'genqsim[bench]'") from None
    data = result.get("counts") or result.get("probabilities")
    if not data:
        raise UsageError("--plot: nothing numeric to plot (bind the parameters with --bind)")
    keys = sorted(data)
    fig, ax = plt.subplots(figsize=(max(4, 0.35 * len(keys)), 3.5))
    ax.bar(range(len(keys)), [data[k] for k in keys])
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels(keys, rotation=90, fontsize=7, family="monospace")
    ax.set_ylabel("counts" if "counts" in result else "probability")
    ax.set_title(result["circuit"])
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=120)
    except OSError as exc:
        raise UsageError(f"--plot: cannot write {path!r}: {exc.strerror}") from None
    finally:
        plt.close(fig)


def info() -> str:
    backends = available_backends()
    lines = [
        f"genqsim {__version__}",
        f"number systems: {', '.join(available_number_systems())}",
        f"backends: {', '.join(backends)}",
        f"memory available for states: {format_bytes(available_memory())}",
    ]
    threaded = [(name, capability(get_backend(name), ThreadScoped)) for name in backends]
    lines += [f"{name} threads: {b.default_threads()}" for name, b in threaded if b is not None]
    if not any(b is not None for _, b in threaded):
        lines.append("no threaded CPU backend could load (see unavailable backends)")
    missing = unavailable_backends()
    if missing:
        why = "; ".join(f"{name} ({reason})" for name, reason in missing.items())
        lines.append(f"unavailable backends: {why}")
    lines.append(f"GPU: {_gpu_status()}")
    return "\n".join(lines)


def _gpu_status() -> str:
    """What the GPU backends see, or why none is usable (the registry knows; the command
    line names no backend)."""
    from ..backends import DeviceInfo, get_backend

    seen = []
    for name in available_backends():
        backend = get_backend(name)
        info = capability(backend, DeviceInfo)
        if backend.device == "gpu" and info is not None:
            seen.append(f"{name}: {info.describe_devices()}")
    if seen:
        return "; ".join(seen)
    return "no GPU backend available (pip install 'genqsim[cuda]' on a machine with CUDA)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="genqsim", description="Simulate quantum circuits on any kind of numbers."
    )
    parser.add_argument("--version", action="version", version=f"genqsim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="simulate a circuit and print its state")
    p.add_argument(
        "source",
        help="an OpenQASM 2.0 file, or a built-in: qft:N, ghz:N, walsh:N, qpe:N, "
        "random:N:DEPTH[:SEED]",
    )
    p.add_argument(
        "--numbers",
        default="complex128",
        help=f"number system ({', '.join(available_number_systems())})",
    )
    p.add_argument("--backend", default=None, help="backend name (default: chosen automatically)")
    p.add_argument(
        "--bind",
        action="append",
        metavar="NAME=VALUE",
        help="value of a free parameter (repeatable); with symbolic numbers the "
        "amplitudes stay symbolic and probabilities are evaluated at it",
    )
    p.add_argument("--initial", default=None, help="initial basis state as a bitstring")
    p.add_argument(
        "--method",
        choices=(AUTO, *available_methods()),
        default=None,
        help="kind of state (default: auto, the registry's choice: noise runs as a density "
        f"matrix up to {DENSITY_MATRIX_MAX_QUBITS} qubits, as trajectories above; several "
        "MPI ranks as mpi; otherwise statevector); "
        + "; ".join(f"{n}: {method_spec(n).summary}" for n in available_methods()),
    )
    add_method_flags(p)
    p.add_argument(
        "--noise",
        action="append",
        metavar="SPEC",
        help="noise after every gate: depolarizing:P, amplitude_damping:G, phase_damping:L, "
        "thermal_relaxation:T1,T2,TIME, readout:P (repeatable), or a JSON/YAML noise model file",
    )
    p.add_argument("--observable", default=None, help='Pauli sum, e.g. "Z0 Z1 + 0.5*X2"')
    p.add_argument("--shots", type=int, default=0, help="sample this many measurements")
    p.add_argument("--seed", type=int, default=None, help="random seed for --shots")
    p.add_argument(
        "--top",
        type=int,
        default=16,
        help="list the K largest probabilities and the K most frequent counts",
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--draw", action="store_true", help="print the circuit drawing")
    p.add_argument("--threads", type=int, default=None, help="threads for compiled kernels")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--plot", metavar="FILE.png", help="write a probability histogram")
    sub.add_parser("info", help="version, number systems, backends, memory")
    w = sub.add_parser(
        "warmup",
        help="compile the common kernels now, so the first run after install starts fast",
    )
    w.add_argument("--quiet", action="store_true", help="print nothing")
    sub.add_parser("bench", help="CPU benchmark against peers (genqsim bench --help)")
    return parser


def _mpi_rank() -> int:
    from ..distributed import world

    return int(world().Get_rank())


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:
        from .bench import main as bench_main

        bench_main(argv[1:])
        return EXIT_OK
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse prints its own message
        return EXIT_OK if exc.code == 0 else EXIT_USAGE
    try:
        if args.command == "info":
            print(info())
            return EXIT_OK
        if args.command == "warmup":
            from .warmup import warmup

            warmup(None if args.quiet else print)
            return EXIT_OK
        if args.shots < 0 or args.top < 1:
            raise UsageError("--shots must be >= 0 and --top >= 1")
        if args.threads is not None and args.threads < 1:
            raise UsageError("--threads must be >= 1")
        result = run(args)
        if "ranks" in result and _mpi_rank() != 0:
            return EXIT_OK  # every rank computed; rank 0 reports
        if args.plot:
            write_plot(result, args.plot)
        if args.format == "json":
            print(json.dumps(result, indent=2))
        else:
            drawing = str(parse_source(args.source)) if args.draw else None
            print(render_text(result, drawing))
        sys.stdout.flush()
        return EXIT_OK
    except BrokenPipeError:  # the reader stopped early (| head): not an error of the run
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except (GenqsimError, ValueError, TypeError, KeyError) as exc:
        print(f"genqsim: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # internal error: say so, keep the traceback for reports
        import traceback

        traceback.print_exc()
        print(f"genqsim: internal error: {exc}", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
