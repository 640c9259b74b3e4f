"""The ``genqsim`` command line: run built-in circuits on any number system.

``genqsim run qpe:3 --numbers sympy --bind phi=0.3`` prints exact symbolic amplitudes and the
probabilities at ``phi = 0.3``. Exit codes: 0 success, 2 usage or input error (one line, no
traceback), 1 internal error. What a run reads is in :mod:`.sources`, its method flags in
:mod:`.flags`, what it reports in :mod:`.report`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .. import __version__
from ..backends import (
    ThreadScoped,
    available_backends,
    capability,
    get_backend,
    unavailable_backends,
)
from ..errors import GenqsimError
from ..methods import DENSITY_MATRIX_MAX_QUBITS
from ..numbers import available_number_systems, missing_number_systems
from ..states import AUTO, available_methods, method_spec, simulate
from ..support.cpus import usable_cpus
from ..support.memory import available_memory, format_bytes
from . import cold_start, report
from .expect import add_expect_parser, expect, print_expect
from .flags import add_method_flags, method_and_options
from .sources import SOURCES_HELP, UsageError, parse_source, read_job

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE = 0, 1, 2

__all__ = ["UsageError", "build_parser", "info", "main", "run"]


def run(
    args: argparse.Namespace, after: list[Callable[[], object]] | None = None
) -> dict[str, Any]:
    """Simulate and collect everything to print; the same dict is the JSON output. With
    ``after``, a first run that must compile kernels may answer on NumPy and leave the
    compiling there, for the caller to do once the answer is printed, and a run on compiled
    kernels that completes marks them compiled (:mod:`.cold_start`)."""
    job = read_job(args)
    method, options = method_and_options(args, job.run_circuit, job.numbers)
    cold = None if after is None else cold_start.cold_backend(args, job, method)
    backend = args.backend if cold is None else "numpy"
    if cold is not None and after is not None:
        cold_start.announce(job.numbers)
        after.append(lambda: cold_start.compile_for_later(
            cold, job.numbers, lambda name: run(cold_start.on_backend(args, name), [])
        ))  # fmt: skip
    psi = simulate(
        job.run_circuit, numbers=job.numbers, backend=backend, initial=args.initial,
        progress=not args.quiet, method=method, seed=args.seed, threads=args.threads,
        **options,
    )  # fmt: skip
    result = report.header(args, job, psi)
    result.update(report.distribution(args, job, psi))
    if args.observable:
        result["expectation"] = report.expectation(args, job, psi, result.get("derivatives"))
    if args.shots:
        result.update(report.shot_counts(args, job, psi, options, backend))
    if after is not None and cold is None:
        cold_start.mark_compiled(getattr(psi, "backend", None), job.numbers)
    return result


def info() -> str:
    backends = available_backends()
    lines = [
        f"genqsim {__version__}",
        f"number systems: {_number_systems()}",
        f"backends: {', '.join(backends)}",
        f"memory available for states: {format_bytes(available_memory())}",
    ]
    threaded = [(name, capability(get_backend(name), ThreadScoped)) for name in backends]
    for name, b in threaded:
        if b is not None:
            lines.append(f"{name} threads: {b.default_threads()} (CPUs this process may use: "
                         f"{usable_cpus()})")  # fmt: skip
            lines += [f"{name} kernels: {choice}" for choice in b.kernel_choices()]
    if not any(b is not None for _, b in threaded):
        lines.append("no threaded CPU backend could load (see unavailable backends)")
    missing = unavailable_backends()
    if missing:
        why = "; ".join(f"{name} ({reason})" for name, reason in missing.items())
        lines.append(f"unavailable backends: {why}")
    lines.append(f"GPU: {_gpu_status()}")
    return "\n".join(lines)


def _number_systems() -> str:
    """The number systems, each one whose extra is not installed marked with its install
    command."""
    missing = missing_number_systems()
    return ", ".join(
        f"{name} (missing: {missing[name]})" if name in missing else name
        for name in available_number_systems()
    )


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
    return "no GPU backend available (genqsim doctor says why)"


def integer_at_least(least: int) -> Callable[[str], int]:
    """An argparse type: an integer ``>= least`` (argparse names the flag in its error)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be an integer >= {least}, got {text!r}"
            ) from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be an integer >= {least}, got {value}")
        return value

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="genqsim", description="Simulate quantum circuits on any kind of numbers."
    )
    parser.add_argument("--version", action="version", version=f"genqsim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="simulate a circuit and print its state")
    p.add_argument(
        "source",
        help="an OpenQASM file (2.0 or 3), a QPY file (FILE.qpy, or FILE.qpy:INDEX for one of "
        f"its circuits), or a built-in: {SOURCES_HELP}",
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
    p.add_argument(
        "--shots", type=integer_at_least(0), default=0, help="sample this many measurements"
    )
    p.add_argument("--seed", type=integer_at_least(0), default=None, help="random seed for --shots")
    p.add_argument(
        "--top",
        type=integer_at_least(1),
        default=16,
        help="list the K largest probabilities and the K most frequent counts",
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--draw", action="store_true", help="print the circuit drawing")
    p.add_argument(
        "--threads", type=integer_at_least(1), default=None, help="threads for compiled kernels"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--plot", metavar="FILE.png", help="write a probability histogram")
    p.add_argument(
        "--latex", metavar="FILE.tex", help="write the circuit drawing as LaTeX (quantikz)"
    )
    add_expect_parser(sub)
    sub.add_parser("info", help="version, number systems, backends, memory")
    sub.add_parser("doctor", help="why a GPU is or is not used: each check, with its fix")
    w = sub.add_parser(
        "warmup",
        help="compile the common kernels now, so the first run after install starts fast",
    )
    w.add_argument("--quiet", action="store_true", help="print nothing")
    w.add_argument(
        "--processes",
        type=integer_at_least(1),
        default=None,
        help="precisions compiled at once, each in its own process (default: as many as the "
        "usable CPUs allow; 1: one after the other, in this process)",
    )
    sub.add_parser("bench", help="CPU benchmark against peers (genqsim bench --help)")
    return parser


def write_latex(source: str, path: str) -> None:
    """``--latex``: the circuit's quantikz document, written to ``path``."""
    try:
        parse_source(source).draw("latex", filename=path)
    except OSError as exc:
        raise UsageError(f"--latex: cannot write {path!r}: {exc.strerror}") from None


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
        if args.command == "doctor":
            from ..backends.gpu_doctor import report as doctor_report

            print(doctor_report())
            return EXIT_OK
        if args.command == "warmup":
            from .warmup import warmup

            if not args.quiet:  # the workloads report as they finish, the first in seconds
                print("genqsim: compiling the common kernels for complex128 and complex64, once "
                      "per machine (later runs load them from the kernel cache) ...",
                      file=sys.stderr, flush=True)  # fmt: skip
            warmup(None if args.quiet else print, args.processes)
            return EXIT_OK
        if args.command == "expect":
            found = expect(args)
            if args.format == "json":
                print(json.dumps(found, indent=2, default=str))
            else:
                print_expect(found)
            return EXIT_OK
        later: list[Callable[[], object]] = []
        result = run(args, later)
        if "ranks" in result and _mpi_rank() != 0:
            return EXIT_OK  # every rank computed; rank 0 reports
        if args.plot:
            report.write_plot(result, args.plot)
        if args.latex:
            write_latex(args.source, args.latex)
        if args.format == "json":
            print(json.dumps(result, indent=2))
        else:
            drawing = str(parse_source(args.source)) if args.draw else None
            print(report.render_text(result, drawing))
        sys.stdout.flush()
        for step in later:
            step()
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
