"""What ``genqsim run`` reports: the result dictionary (the JSON output) built section by
section from the state (probabilities, amplitudes, an expectation value, counts), and its
text and plot renderings."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from ..analysis.symbolic import _is_trig, simplify, to_sympy
from ..states import StateVector, counted_register, counts
from ..states.base import StateBase
from ..states.protocol import HasEstimate
from .sources import Job, UsageError, sampled_circuit


def header(args: argparse.Namespace, job: Job, psi: Any) -> dict[str, Any]:
    """What ran: the circuit, its size, numbers, method and kernels, the bindings, and the
    facts the state's kind reports (an MPS's bonds, the trajectories, the MPI ranks)."""
    built_in = isinstance(psi, StateBase)
    result: dict[str, Any] = {
        "circuit": args.source,
        "n_qubits": psi.n_qubits,
        "numbers": job.numbers.name,
        "method": getattr(psi, "method", args.method),
        "backend": psi.backend_name if built_in else type(psi).__name__,
        "parameters": [str(p) for p in job.circuit.parameters],
        "bound": {k: str(v) for k, v in job.given.items()},
    }
    if args.noise:
        result["noise"] = list(args.noise)
    if built_in:
        result.update(psi.summary())
    if isinstance(psi, StateVector) and job.run_circuit.runs_before_read_out:
        result["history"] = (
            "one history of the mid-circuit measurements, drawn at random (--seed fixes it); "
            "their statistics: --shots, or --method density_matrix for the ensemble"
        )
    return result


def distribution(args: argparse.Namespace, job: Job, psi: Any) -> dict[str, Any]:
    """The largest probabilities (exact forms, numbers of the run's system, or floats), and
    the amplitudes of small pure states."""
    numbers, values, n = job.numbers, job.values, psi.n_qubits
    pure = isinstance(psi, StateVector)
    limit = psi.dense_limit if isinstance(psi, StateBase) else None
    if limit is not None and n > limit:  # 2**n probabilities: sample with --shots
        return {}
    probs = psi.probabilities()
    result: dict[str, Any] = {}
    numeric: np.ndarray | None
    if numbers.symbolic:
        if pure:
            amps = [_tidy(a) for a in psi.amplitudes]
            result["amplitudes"] = {_bitstring(i, n): str(a) for i, a in enumerate(amps) if a != 0}
        evaluated = [_at(p, values) for p in probs]
        if any(e.free_symbols for e in evaluated):
            result["probabilities_symbolic"] = {
                _bitstring(i, n): str(to_sympy(simplify(p))) for i, p in enumerate(probs) if p != 0
            }
            return result
        numeric = np.array([_real_number(e) for e in evaluated])
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
    order = np.argsort(-numeric, kind="stable")[: args.top]
    result["probabilities"] = {
        _bitstring(int(i), n): float(numeric[i]) for i in order if numeric[i] > PROBABILITY_FLOOR
    }
    result["nonzero_probabilities"] = int(np.count_nonzero(numeric > PROBABILITY_FLOOR))
    return result


def expectation(
    args: argparse.Namespace, job: Job, psi: Any, derivatives: dict[str, Any] | None
) -> dict[str, Any]:
    """``<observable>``: a closed form (and its value at the bindings), an estimate with its
    standard error, a float, or a number of the run's system (with its derivatives, which
    are added to ``derivatives``)."""
    numbers, observable = job.numbers, args.observable
    if isinstance(psi, HasEstimate):  # an average over samples: the mean and its error
        estimate = psi.estimate(observable)
        return {"observable": observable, "value": estimate.mean, "stderr": estimate.stderr}
    value = psi.expectation(observable)
    if numbers.symbolic:
        exact = to_sympy(simplify(value))
        out: dict[str, Any] = {"observable": observable, "value": str(exact)}
        closed = _at(exact, job.values)
        if not closed.free_symbols:
            out["numeric"] = _real_number(closed)
        return out
    if numbers.dtype.kind == "c":
        return {"observable": observable, "value": value}
    if derivatives is not None:
        derivatives["expectation"] = _partials(value, numbers)
    return {
        "observable": observable,
        "value": numbers.display(value),
        "numeric": numbers.to_complex(value).real,
    }


def shot_counts(
    args: argparse.Namespace, job: Job, psi: Any, options: dict[str, Any],
    backend: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    """``--shots`` measurements of the circuit, run by the same method on the same
    ``backend`` (``None``: the default), with the noise model's readout errors applied."""
    to_sample = sampled_circuit(job)
    tally = counts(
        to_sample, args.shots, args.seed, readout=job.model, initial=args.initial,
        method=psi.method, threads=args.threads, backend=backend, **options,
    )  # fmt: skip
    frequent = sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))[: args.top]
    return {
        "counts": dict(frequent),
        "distinct_outcomes": len(tally),
        "counts_over": counted_register(to_sample),
        "shots": args.shots,
        "seed": args.seed,
    }


AMPLITUDE_DISPLAY_FLOOR = 5e-7
"""Machine-number amplitudes smaller than this print as zero at six decimals; they are
counted, not listed."""


PROBABILITY_FLOOR = 1e-15
"""Probabilities at or below this are rounding noise of a zero and are not listed."""


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


def _complex_text(z: complex) -> str:
    """Six decimals, with no ``-0.000000`` for a part that rounds to zero."""
    z = complex(z)
    return f"{round(z.real, 6) + 0.0:+.6f}{round(z.imag, 6) + 0.0:+.6f}j"


def render_text(result: dict[str, Any], circuit_text: str | None) -> str:
    lines = [
        f"circuit {result['circuit']}: {result['n_qubits']} qubits, numbers={result['numbers']}, "
        f"method={result['method']}, backend={result['backend']}"
    ]
    if "noise" in result:
        lines.append(f"noise: {', '.join(result['noise'])}")
    if "trajectories" in result:
        lines.append(f"averaged over {result['trajectories']} trajectories")
    if "history" in result:
        lines.append(result["history"])
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
