"""``genqsim expect``: one expectation value, as a closed form where the numbers are exact.

``genqsim expect qaoa-3reg:100:1 "Z0 Z5" --numbers trig`` propagates the observable through
the circuit in the Heisenberg picture (``method="pauli"``, the default here) and prints the
closed form in the circuit's parameters, then its value at each ``--bind``; other methods
(``--method statevector``, ``mps``, ...) run as :func:`genqsim.expectation`, on light cones.
"""

from __future__ import annotations

import argparse
from typing import Any

import sympy

from ..numbers import available_number_systems
from ..pauli_propagation import heisenberg
from ..states import AUTO, available_methods, expectation
from .flags import add_method_flags, method_and_options
from .sources import SOURCES_HELP, read_job


def add_expect_parser(sub: Any) -> None:
    e = sub.add_parser("expect", help="one expectation value (closed forms with exact numbers)")
    e.add_argument("source", help=f"an OpenQASM 2.0 file, or a built-in: {SOURCES_HELP}")
    e.add_argument("observable", help='Pauli sum, e.g. "Z0 Z1 + 0.5*X2"')
    e.add_argument(
        "--numbers",
        default="complex128",
        help=f"number system ({', '.join(available_number_systems())}); trig or sympy give "
        "closed forms",
    )
    e.add_argument(
        "--method",
        choices=(AUTO, *available_methods()),
        default="pauli",
        help="how to evaluate it (default: pauli, the Heisenberg picture)",
    )
    add_method_flags(e)
    e.add_argument(
        "--bind",
        action="append",
        metavar="NAME=VALUE",
        help="a parameter value (repeatable): the closed form is evaluated there",
    )
    e.add_argument("--initial", default=None, help="initial basis state as a bitstring")
    e.add_argument("--backend", default=None, help="backend name (default: chosen automatically)")
    e.add_argument("--format", choices=("text", "json"), default="text")
    e.add_argument("--quiet", action="store_true", help="no progress bar")


def expect(args: argparse.Namespace) -> dict[str, Any]:
    """The value (and closed form, propagation facts) ``genqsim expect`` prints."""
    args.noise = None
    job = read_job(args)
    method, options = method_and_options(args, job.run_circuit, job.numbers)
    out: dict[str, Any] = {"circuit": args.source, "qubits": job.circuit.n_qubits,
                           "observable": args.observable, "numbers": job.numbers.name,
                           "method": method}  # fmt: skip
    if method != "pauli":
        value = expectation(
            job.run_circuit, args.observable, job.numbers, args.backend, args.initial,
            method=method, **options,
        )  # fmt: skip
        out["value"] = _text(value, job.numbers)
        return out
    result = heisenberg(
        job.run_circuit, args.observable, job.numbers, args.initial, backend=args.backend,
        progress=not args.quiet, **options,
    )  # fmt: skip
    closed = result.closed_form
    if closed is None and job.numbers.symbolic:
        closed = sympy.sympify(job.numbers.display(result.value))
    out["value"] = str(closed) if closed is not None else _text(result.value, job.numbers)
    out["strings (peak)"] = result.peak_terms
    if result.truncated_weight:
        out["truncated weight (error bound)"] = result.truncated_weight
        out["strings dropped"] = result.dropped
    if closed is not None and job.given:
        names = {str(s): s for s in closed.free_symbols}
        at = {names[k]: sympy.sympify(v) for k, v in job.given.items() if k in names}
        out["value at bindings"] = float(sympy.N(closed.xreplace(at), 17))
    return out


def _text(value: Any, numbers: Any) -> Any:
    if numbers.dtype.kind == "c":
        z = complex(value)
        return z.real if z.imag == 0 else str(z)
    return numbers.display(value)


def print_expect(result: dict[str, Any]) -> None:
    for key, value in result.items():
        print(f"{key}: {value}")
