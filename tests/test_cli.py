"""The command line, through real subprocess calls."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys

import mpmath
import numpy as np
import pytest

import genqsim as gq


def genqsim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "genqsim", *args], capture_output=True, text=True, timeout=120
    )


def test_symbolic_quick_start_prints_exact_amplitudes_and_numeric_probabilities():
    out = genqsim("run", "qpe:3", "--numbers", "sympy", "--bind", "phi=0.3")
    assert out.returncode == 0, out.stderr
    assert "exp(2*I*pi*phi)/8" in out.stdout  # exact symbolic amplitude terms
    assert "probabilities of the qubits at phi=0.3 (all 8 nonzero; qubit 2 leftmost):" in out.stdout
    # phase estimation of 0.3 with 3 bits peaks at |010> (2/8), with the textbook probability
    m, n, phi = 2, 3, 0.3
    k = np.arange(2**n)
    exact = abs(np.exp(2j * np.pi * k * (phi - m / 2**n)).sum() / 2**n) ** 2
    assert f"|010>  {exact:.6f}" in out.stdout


def test_json_output_parses_and_holds_counts():
    out = genqsim(
        "run",
        "ghz:4",
        "--shots",
        "2000",
        "--seed",
        "7",
        "--format",
        "json",
        "--observable",
        "Z0 Z3 + 0.5*X0 X1 X2 X3",
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["n_qubits"] == 4 and data["backend"] in ("numpy", "numba")
    assert set(data["counts"]) == {"0000", "1111"} and sum(data["counts"].values()) == 2000
    assert data["probabilities"]["0000"] == pytest.approx(0.5)
    assert data["expectation"]["value"] == pytest.approx(1.5)
    again = json.loads(
        genqsim("run", "ghz:4", "--shots", "2000", "--seed", "7", "--format", "json").stdout
    )
    assert again["counts"] == data["counts"]


def test_text_output_is_grouped_and_top_limits_the_counts():
    out = genqsim("run", "qpe:3", "--bind", "phi=0.3", "--shots", "400", "--top", "3")
    assert out.returncode == 0, out.stderr
    sections = out.stdout.split("\n\n")
    counts = next(s for s in sections if s.startswith("counts"))
    header, *rows = counts.splitlines()
    assert header.startswith("counts of the qubits (400 shots, unseeded; 3 most frequent of ")
    assert len(rows) == 3
    values = [int(r.split()[1]) for r in rows]
    assert values == sorted(values, reverse=True)
    probabilities = next(s for s in sections if s.startswith("probabilities"))
    assert "(3 largest of 8; qubit 2 leftmost)" in probabilities
    assert len(probabilities.splitlines()) == 4


def test_counts_over_classical_bits_say_so(tmp_path):
    source = tmp_path / "measure.qasm"
    source.write_text(
        'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[3];\ncreg c[2];\n'
        "x q[2];\nmeasure q[2] -> c[1];\nmeasure q[0] -> c[0];\n"
    )
    out = genqsim("run", str(source), "--shots", "10", "--seed", "3")
    assert out.returncode == 0, out.stderr
    assert (
        "counts of the classical bits (10 shots, seed 3; all 1 outcomes; bit 1 leftmost):\n  10  10"
        in out.stdout
    )


def test_amplitudes_that_print_as_zero_are_counted_not_listed():
    out = genqsim("run", "qpe:4", "--bind", "phi=3/16", "--format", "json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["amplitudes"] == {"0011": "+1.000000+0.000000j"}
    assert result["amplitudes_not_shown"] == 15
    text = genqsim("run", "qpe:4", "--bind", "phi=3/16").stdout
    assert "amplitudes (qubit 3 leftmost; 15 below 5e-07 not shown):" in text
    assert "-0.000000" not in text


def test_a_reader_that_stops_early_is_not_an_error():
    reader_gone = subprocess.Popen(
        [sys.executable, "-m", "genqsim", "run", "qft:6", "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    reader_gone.stdout.close()  # as `| head -0` would
    stderr = reader_gone.stderr.read().decode()
    assert reader_gone.wait(timeout=120) == 0, stderr
    assert stderr == ""


def test_numeric_run_with_bound_parameter():
    out = genqsim("run", "qpe:4", "--bind", "phi=3/16", "--format", "json")
    assert out.returncode == 0, out.stderr
    probs = json.loads(out.stdout)["probabilities"]
    assert probs["0011"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    "args,message",
    [
        (("run", "nope:3"), "unknown circuit 'nope:3'"),
        (
            ("run", "qft:x"),
            "'qft:x': N must be a non-negative integer, got 'x' (the form is qft:N)",
        ),
        (("run", "qpe:3"), "free parameters (phi)"),
        (("run", "qpe:3", "--bind", "theta=1"), "no parameter named theta"),
        (("run", "qpe:3", "--bind", "phi"), "expects NAME=VALUE"),
        (("run", "qft:3", "--numbers", "octonion"), "unknown number system 'octonion'"),
        (("run", "qft:3", "--observable", "Z9"), "observable acts on qubit 9"),
        (("run", "qft:50"), "50-qubit state needs"),
        (("frobnicate",), "invalid choice"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, message):
    out = genqsim(*args)
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr


def test_info_lists_numbers_and_backends():
    out = genqsim("info")
    assert out.returncode == 0
    assert "sympy" in out.stdout and "numpy" in out.stdout and "memory available" in out.stdout


def test_info_marks_number_systems_whose_extra_is_missing(monkeypatch):
    import importlib.util

    from genqsim.cli.main import _number_systems

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "flint" else real(name, *a)
    )
    listed = _number_systems()
    assert "trig (missing: pip install 'genqsim[interval]')" in listed
    assert "ball (missing: pip install 'genqsim[interval]')" in listed
    assert "sympy," in listed and "sympy (" not in listed


def test_console_script_is_installed():
    import shutil

    exe = shutil.which("genqsim")
    if exe is None:
        pytest.fail("the genqsim console script is not on PATH; install the package first")
    out = subprocess.run([exe, "run", "qft:2", "--initial", "01"], capture_output=True, text=True)
    assert out.returncode == 0 and "|00>  0.250000" in out.stdout


def test_qasm_file_with_measurements_gives_classical_counts(tmp_path):
    path = tmp_path / "bell.qasm"
    path.write_text(
        'OPENQASM 2.0; include "qelib1.inc"; qreg q[2]; creg c[3];'
        "h q[0]; cx q[0], q[1]; measure q[0] -> c[0]; measure q[1] -> c[2];"
    )
    out = genqsim("run", str(path), "--shots", "4000", "--seed", "3", "--format", "json")
    assert out.returncode == 0, out.stderr
    counts = json.loads(out.stdout)["counts"]
    assert set(counts) == {"000", "101"}  # c[2] leftmost, c[1] never written
    assert abs(counts["101"] - 2000) < 5 * np.sqrt(4000 * 0.25)


def test_mid_circuit_reset_runs_one_trajectory_per_shot(tmp_path):
    path = tmp_path / "reset.qasm"
    path.write_text(
        'include "qelib1.inc"; qreg q[1]; creg c[2];'
        "h q[0]; measure q[0] -> c[0]; reset q[0]; x q[0]; measure q[0] -> c[1];"
    )
    out = genqsim("run", str(path), "--shots", "400", "--seed", "1", "--format", "json")
    assert out.returncode == 0, out.stderr
    counts = json.loads(out.stdout)["counts"]
    assert set(counts) == {"10", "11"} and sum(counts.values()) == 400  # c[1] always 1
    assert abs(counts["11"] - 200) < 5 * 10


def test_mid_circuit_measurements_report_their_ensemble_or_say_one_history_ran(tmp_path):
    """A coin measured mid-circuit and copied by a condition: the run reports the ensemble
    of its outcomes (|00> and |11> at 0.5 each, <Z1> = 0; a density matrix, chosen for it),
    on every run; with --method statevector it says that one history ran, drawn at random."""
    path = tmp_path / "copy.qasm"
    path.write_text(
        'OPENQASM 2.0; include "qelib1.inc"; qreg q[2]; creg c[1];'
        "h q[0]; measure q[0] -> c[0]; if (c == 1) x q[1];"
    )
    for _ in range(2):
        out = genqsim("run", str(path), "--observable", "Z1", "--format", "json")
        assert out.returncode == 0, out.stderr
        result = json.loads(out.stdout)
        assert result["method"] == "density_matrix" and "history" not in result
        assert result["probabilities"] == pytest.approx({"00": 0.5, "11": 0.5}, abs=1e-12)
        assert abs(result["expectation"]["value"]) < 1e-12
    out = genqsim("run", str(path), "--method", "statevector", "--seed", "2")
    assert out.returncode == 0, out.stderr
    assert "one history of the mid-circuit measurements, drawn at random" in out.stdout


def test_malformed_qasm_file_exits_2_with_position(tmp_path):
    path = tmp_path / "bad.qasm"
    path.write_text("OPENQASM 2.0;\nqreg q[1];\nh q[0]\n")
    out = genqsim("run", str(path))
    assert out.returncode == 2
    assert "line 4, column 1: expected ';', found end of input" in out.stderr


def test_plot_file_is_written(tmp_path):
    target = tmp_path / "hist.png"
    out = genqsim("run", "ghz:3", "--shots", "100", "--seed", "1", "--plot", str(target))
    assert out.returncode == 0, out.stderr
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and target.stat().st_size > 1000


def test_threads_and_quiet_options():
    out = genqsim("run", "qft:4", "--threads", "1", "--quiet", "--format", "json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["probabilities"]["0000"] == pytest.approx(1 / 16)
    bad = genqsim("run", "qft:4", "--threads", "0")
    assert bad.returncode == 2 and "argument --threads: must be an integer >= 1" in bad.stderr


def test_info_reports_gpu_status():
    out = genqsim("info")
    assert out.returncode == 0 and "GPU: " in out.stdout
    assert "numba kernels: threaded kernels from 14 qubits (GENQSIM_PARALLEL_MIN_QUBITS)" in (
        out.stdout
    )  # the test session fixes the switch (tests/conftest.py)
    assert f"(CPUs this process may use: {len(os.sched_getaffinity(0))})" in out.stdout


@pytest.mark.slow
def test_bench_quick_runs_and_prints_a_ratio_table():
    out = genqsim("bench", "--quick", "--sims", "genqsim", "genqsim-nofuse", "--threads", "1",
                  "--repeat", "1")  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "memory bandwidth" in out.stdout and "| qft n=14 |" in out.stdout


def test_ball_and_mpmath_numbers_print_their_own_numbers():
    out = genqsim("run", "qft:2", "--numbers", "ball:128", "--format", "json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["numbers"] == "ball:128"
    assert all("+/-" in v for v in result["probabilities_detail"].values())  # balls, with radii
    assert result["probabilities"] == pytest.approx({b: 0.25 for b in ("00", "01", "10", "11")})
    out = genqsim("run", "qpe:2", "--numbers", "mpmath:40", "--bind", "phi=1/4")
    assert out.returncode == 0, out.stderr
    # phi = 1/4 is exact in 2 bits: all probability on |01>; the other amplitudes vanish to
    # the working precision (a double run leaves ~1e-17 there)
    assert "|01>  1.0\n" in out.stdout

    exponents = [int(e) for e in re.findall(r"e-(\d+)j?\)", out.stdout)]
    assert exponents and min(exponents) > 35


def test_uncertain_bindings_propagate_to_probabilities():
    from uncertainties import ufloat_fromstr

    out = genqsim(
        "run", "qpe:2", "--numbers", "uncertain", "--bind", "phi=0.3+/-0.01",
        "--observable", "Z0", "--format", "json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    spread = ufloat_fromstr(result["probabilities_detail"]["01"]).std_dev
    assert 0 < spread < 0.1
    # reference: complex128 runs of the same circuit, sigma = |d<Z0>/dphi| * 0.01 (central
    # difference); the printed value keeps two significant digits of sigma
    import genqsim as gq

    c = gq.library.phase_estimation(2)
    (phi,) = c.parameters
    z_at = lambda v: gq.simulate(c.bind({phi: v})).expectation("Z0")  # noqa: E731
    slope = (z_at(0.3 + 1e-6) - z_at(0.3 - 1e-6)) / 2e-6
    assert result["expectation"]["numeric"] == pytest.approx(z_at(0.3), abs=1e-12)
    z = ufloat_fromstr(result["expectation"]["value"])
    assert z.std_dev == pytest.approx(abs(slope) * 0.01, rel=0.1)
    wrong = genqsim("run", "qpe:2", "--bind", "phi=0.3+/-0.01")
    assert wrong.returncode == 2 and "--numbers uncertain" in wrong.stderr


def qpe2_reference(phi: float):
    """Probabilities and <Z0> of qpe:2 at ``phi`` on complex128, and their central
    differences in ``phi``."""
    import genqsim as gq

    c = gq.library.phase_estimation(2)
    (symbol,) = c.parameters

    def at(v):
        psi = gq.simulate(c.bind({symbol: v}))
        return psi.probabilities(), psi.expectation("Z0")

    h = 1e-6
    (p, z), (p_up, z_up), (p_down, z_down) = at(phi), at(phi + h), at(phi - h)
    return p, z, (p_up - p_down) / (2 * h), (z_up - z_down) / (2 * h)


def test_dual_numbers_print_the_derivative_by_each_bound_parameter():
    out = genqsim("run", "qpe:2", "--numbers", "dual", "--bind", "phi=0.3", "--observable", "Z0",
                  "--format", "json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    _, z, dp, dz = qpe2_reference(0.3)
    derivatives = result["derivatives"]
    assert derivatives["by"] == ["phi"]
    assert derivatives["expectation"] == pytest.approx([dz], abs=1e-6)
    for bits, (d,) in derivatives["probabilities"].items():
        assert d == pytest.approx(dp[int(bits, 2)], abs=1e-6)
    assert result["expectation"]["numeric"] == pytest.approx(z, abs=1e-12)
    text = genqsim("run", "qpe:2", "--numbers", "dual", "--bind", "phi=0.3").stdout
    assert re.search(r"\|01>  0\.88237\d* \(d/dphi: -4\.4808\d*\)", text)


def test_symengine_numbers_honour_bind():
    out = genqsim("run", "qpe:2", "--numbers", "symengine", "--bind", "phi=0.3", "--observable",
                  "Z0", "--format", "json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    p, z, _, _ = qpe2_reference(0.3)
    assert "probabilities_symbolic" not in result
    assert result["probabilities"] == pytest.approx(
        {format(i, "02b"): p[i] for i in range(4)}, abs=1e-12
    )
    assert result["expectation"]["value"] == "cos(4*pi*phi)"
    assert result["expectation"]["numeric"] == pytest.approx(z, abs=1e-12)


def test_balls_print_the_digits_their_radius_justifies_and_the_true_radius():
    import genqsim as gq

    out = genqsim("run", "qft:2", "--numbers", "ball:128", "--observable", "X0", "--format", "json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    numbers = gq.get_number_system("ball:128")
    psi = gq.simulate(gq.library.qft(2), numbers=numbers)
    for bits, text in result["probabilities_detail"].items():
        mid, radius = text.split(" +/- ")
        ball = psi.probabilities()[int(bits, 2)]
        assert float(radius) == pytest.approx(float(ball.real.rad()), rel=0.05)  # 2 digits
        digits = len(mid.replace("0.", "", 1).replace(".", ""))
        # one digit per decade between the value (0.25) and the radius (about 1e-38)
        assert digits == -1 - math.floor(math.log10(float(ball.real.rad())))
        assert abs(float(mid) - 0.25) <= float(radius)
    # <X0> = 1 after the QFT of |00>: the midpoint may sit just below 1, within its radius
    mid, radius = result["expectation"]["value"].split(" +/- ")
    assert float(radius) < 1e-36 and len(mid) >= 38
    assert abs(mpmath.mpf(mid) - 1) <= mpmath.mpf(radius)


def test_trig_numbers_print_exact_closed_forms_and_values_at_the_bound_parameter():
    out = genqsim(
        "run",
        "qpe:3",
        "--numbers",
        "trig",
        "--bind",
        "phi=0.3",
        "--observable",
        "Z0",
        "--format",
        "json",
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    numeric = json.loads(
        genqsim(
            "run", "qpe:3", "--bind", "phi=0.3", "--observable", "Z0", "--format", "json"
        ).stdout
    )
    assert "exp(2*I*pi*phi)/8" in data["amplitudes"]["000"]
    for key, p in numeric["probabilities"].items():
        assert abs(data["probabilities"][key] - p) < 1e-12
    assert abs(data["expectation"]["numeric"] - numeric["expectation"]["value"]) < 1e-12


@pytest.mark.slow
def test_warmup_compiles_every_workload_for_both_precisions():
    """``genqsim warmup`` runs each workload family in both machine precisions on the serial
    and the threaded/fused state sizes (the kernels then load from Numba's cache), and its
    command prints the same report."""
    pytest.importorskip("numba")
    from genqsim.backends import COMPILED_MIN_STATE_QUBITS, get_backend
    from genqsim.cli.warmup import warmup
    from genqsim.plan.build import DEFAULT_FUSION_MIN_QUBITS

    lines: list[str] = []
    total = warmup(lines.append, processes=1)  # in this process: its kernels are checked
    choices = [line for line in lines if line.startswith("numba kernels: ")]
    assert choices == [f"numba kernels: {c}" for c in get_backend("numba").kernel_choices()]
    rows = [line.split() for line in lines[:-1] if line not in choices]
    # "<workload> <numbers> <n> qubits <seconds> s"
    seen = {(" ".join(r[:-5]), r[-5], int(r[-4])) for r in rows}
    for n in (COMPILED_MIN_STATE_QUBITS, DEFAULT_FUSION_MIN_QUBITS):
        for numbers in ("complex128", "complex64"):
            for name in ("gates", "fused blocks", "measurements", "sweeps"):
                assert (name, numbers, n) in seen
        assert ("adjoint gradients", "complex128", n) in seen
    from genqsim.backends import numba_kernels as K

    for name in ("apply_block_run_points", "pauli_strings_points"):  # both precisions
        assert len(K.BUILDS[name].signatures) >= 2
    assert sum(float(r[-2]) for r in rows) <= total + 0.1
    assert lines[-1].startswith("kernels ready in")
    out = subprocess.run(  # the precisions in worker processes where two CPUs are usable
        [sys.executable, "-m", "genqsim", "warmup", "--quiet"], capture_output=True, text=True
    )
    assert out.returncode == 0 and out.stdout == ""
    side_by_side = warmup(lines.append, processes=2)
    assert side_by_side > 0 and lines[-1].startswith("kernels ready in")
    from genqsim.backends import KernelCache, capability
    from genqsim.numbers import get_number_system

    cache = capability(get_backend("numba"), KernelCache)
    assert cache is not None  # so that the command line's first runs compile no more
    assert all(cache.kernels_compiled(get_number_system(p)) for p in ("complex128", "complex64"))
    later = lines[len(rows) + len(choices) + 1 : -1]
    assert [line for line in later if line.startswith("numba kernels: ")] == choices
    rows = [line.split() for line in later if line not in choices]
    assert {(" ".join(r[:-5]), r[-5], int(r[-4])) for r in rows} == seen


def _fake_cupy(runtime: int, driver: int, capability: tuple[int, int]):
    """A stand-in for CuPy's runtime API: versions and one device."""
    import types

    api = types.SimpleNamespace(
        runtimeGetVersion=lambda: runtime,
        driverGetVersion=lambda: driver,
        getDeviceCount=lambda: 1,
        getDeviceProperties=lambda i: {"name": b"Test GPU", "major": capability[0],
                                       "minor": capability[1]},
    )  # fmt: skip
    return types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=api))


def test_doctor_names_the_first_thing_to_fix(monkeypatch, capsys):
    """What a machine lacks, in order: driver, wheel, a runtime newer than the driver, a
    device older than the wheel's CUDA; each failing line carries its fix."""
    import ctypes.util
    import sys
    import types

    from genqsim.backends import gpu_doctor as doctor
    from genqsim.cli.main import main

    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    monkeypatch.setattr(doctor.shutil, "which", lambda name: None)
    monkeypatch.setattr(doctor, "_distributions", lambda: [])
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "--  NVIDIA driver: no libcuda and no nvidia-smi: install the NVIDIA driver" in out
    assert "--  CuPy: not installed: pip install 'genqsim[cuda]'" in out
    assert out.rstrip().endswith("GPU: not usable; fix first: NVIDIA driver (its line says how)")

    wheel = types.SimpleNamespace(metadata={"Name": "cupy-cuda13x"}, version="13.6.0")
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: "libcuda.so.1")
    monkeypatch.setattr(doctor, "_distributions", lambda: [wheel])
    monkeypatch.setattr(doctor, "_backend", lambda: doctor.Check("genqsim cupy backend", True, ""))
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(13000, 12040, (9, 0)))
    text = doctor.report()
    assert "ok  CuPy: cupy-cuda13x 13.6.0" in text
    assert "--  CUDA: runtime 13.0, driver supports up to 12.4: update the driver" in text

    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(13000, 13000, (6, 1)))
    text = doctor.report()
    assert "--  device 0: Test GPU, compute capability 6.1: CUDA 13 needs 7.5 or newer" in text


def test_latex_drawing_file_is_written(tmp_path):
    target = tmp_path / "qft.tex"
    out = genqsim("run", "qft:3", "--quiet", "--latex", str(target))
    assert out.returncode == 0, out.stderr
    assert target.read_text() == gq.library.qft(3).draw("latex")
    bad = genqsim("run", "qft:3", "--quiet", "--latex", str(tmp_path / "no" / "such.tex"))
    assert bad.returncode == 2 and "--latex: cannot write" in bad.stderr


def test_bench_busy_neighbour_spins_only_while_it_measures():
    """--busy-neighbour starts a CPU-bound process on this process's last CPU, measures
    beside it, and stops it (no spinner is left behind)."""
    out = genqsim("bench", "--quick", "--sims", "genqsim", "--threads", "1", "--repeat", "1",
                  "--only", "h", "--busy-neighbour")  # fmt: skip
    assert out.returncode == 0, out.stderr
    found = re.search(r"busy neighbour: pid (\d+) spinning on CPU (\d+)", out.stdout)
    assert found and "| H low n=16 |" in out.stdout
    assert int(found.group(2)) == max(os.sched_getaffinity(0))
    with pytest.raises(ProcessLookupError):
        os.kill(int(found.group(1)), 0)  # reaped: the pid no longer exists
