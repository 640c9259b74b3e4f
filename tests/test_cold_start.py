"""The command line's first run after installing: a small run answers on NumPy, then compiles
the Numba kernels for later runs, which then run on them; what decides it is the kernel
cache's marker per precision and CPU."""

from __future__ import annotations

import io

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from genqsim.backends import (  # noqa: E402
    KernelCache,
    capability,
    get_backend,
    numba_cache,
    numba_common,
)
from genqsim.cli import cold_start  # noqa: E402
from genqsim.cli.main import main  # noqa: E402
from genqsim.numbers import get_number_system  # noqa: E402

RUN = ["run", "qpe:10", "--bind", "phi=0.3", "--top", "3", "--shots", "200", "--seed", "4"]


@pytest.fixture
def markers(tmp_path, monkeypatch):
    """The markers in a folder of their own (the kernels stay where they are)."""
    monkeypatch.setattr(numba_cache, "compiled_marker", lambda dtype: tmp_path / f"done-{dtype}")
    return tmp_path


def _body(out: str) -> list[str]:
    """The printed result without its first line (which names the backend)."""
    return out.splitlines()[1:]


def test_a_first_small_run_answers_on_numpy_then_compiles_for_later(markers, capsys):
    assert main(RUN) == 0
    first = capsys.readouterr()
    assert "backend=numpy" in first.out.splitlines()[0]
    err = first.err.splitlines()
    assert err[0].startswith("genqsim: first complex128 run with these kernels on this machine")
    assert err[-1].startswith("genqsim: compiling kernels for complex128 for later runs: ")
    assert err[-1].endswith("later runs load them from the cache")
    assert (markers / "done-complex128").is_file()
    assert main(RUN) == 0  # later runs: the compiled backend, nothing said, the same answer
    second = capsys.readouterr()
    assert "backend=numba" in second.out.splitlines()[0]
    assert second.err == ""
    assert _body(second.out) == _body(first.out)
    assert not (markers / "done-complex64").exists()


@pytest.mark.parametrize(
    "extra",
    [["--backend", "numba"], ["--threads", "1"], ["--method", "density_matrix"]],
    ids=["backend", "threads", "method"],
)
def test_a_run_that_chose_its_backend_threads_or_method_compiles_first(markers, capsys, extra):
    """It runs on the compiled kernels at once, and having completed, marks them compiled."""
    assert main([*RUN, *extra]) == 0
    captured = capsys.readouterr()
    assert "first complex128 run" not in captured.err
    assert "backend=numba" in captured.out.splitlines()[0]
    assert (markers / "done-complex128").is_file()


def test_a_run_on_numpy_marks_nothing(markers, capsys):
    assert main([*RUN, "--backend", "numpy"]) == 0
    assert "backend=numpy" in capsys.readouterr().out.splitlines()[0]
    assert not (markers / "done-complex128").exists()


def test_a_large_state_compiles_first(markers, capsys):
    n = cold_start.COLD_START_MAX_QUBITS + 1
    assert main(["run", f"ghz:{n}", "--top", "2", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "backend=numba" in captured.out.splitlines()[0]
    assert "first complex128 run" not in captured.err
    assert (markers / "done-complex128").is_file()


def test_complex64_has_its_own_marker(markers, capsys):
    (markers / "done-complex128").touch()
    assert main([*RUN, "--numbers", "complex64"]) == 0
    captured = capsys.readouterr()
    assert "backend=numpy" in captured.out.splitlines()[0]
    assert (markers / "done-complex64").is_file()


def test_stopping_the_compilation_leaves_no_marker(markers, capsys, monkeypatch):
    """Ctrl-C while compiling for later: the answer stands, the exit is clean, the next run
    takes the same road."""

    def interrupted(self, report):
        raise KeyboardInterrupt

    monkeypatch.setattr(type(get_backend("numba")), "compile_progress", interrupted)
    assert main(RUN) == 0
    captured = capsys.readouterr()
    assert "backend=numpy" in captured.out.splitlines()[0]
    assert "stopped after 0 kernels" in captured.err.splitlines()[-1]
    assert not (markers / "done-complex128").exists()


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_line_is_rewritten_on_a_terminal_and_printed_once_elsewhere():
    numbers = get_number_system("complex64")
    terminal, log = _Terminal(), io.StringIO()
    for stream in (terminal, log):
        progress = cold_start.CompileProgress(numbers, stream)
        progress(1)
        progress(2)
        progress.finish(stopped=False)
    assert terminal.getvalue().count("\r") == 4
    assert ": 2 compiled, " in terminal.getvalue()
    assert log.getvalue().splitlines() == [
        "genqsim: compiling kernels for complex64 for later runs (Ctrl-C stops) ...",
        "genqsim: compiling kernels for complex64 for later runs: 2 kernels compiled in 0 s; "
        "later runs load them from the cache",
    ]


def test_compile_progress_counts_genqsim_kernels_instead_of_the_notice(capsys, monkeypatch):
    monkeypatch.setattr(numba_common.COMPILE_NOTICE, "said", set())
    seen: list[int] = []

    def double(a):
        for i in range(a.size):
            a[i] *= 2

    def other(a):
        return a.sum()

    double.__module__ = "genqsim.backends.test_fake"  # as a kernel module's function
    kernel, foreign = numba.njit(double), numba.njit(other)
    cache = capability(get_backend("numba"), KernelCache)
    assert cache is not None
    with cache.compile_progress(seen.append):
        kernel(np.ones(4, dtype=np.complex128))
        kernel(np.ones(4))
        foreign(np.ones(4))
    assert seen == [1, 2]
    assert capsys.readouterr().err == ""
    kernel(np.ones(4, dtype=np.complex64))  # outside: the notice again
    assert "compiling kernels for complex64" in capsys.readouterr().err


def test_the_marker_is_per_precision_and_cpu_and_survives_an_unwritable_cache(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("GENQSIM_CACHE_DIR", str(tmp_path))
    backend = get_backend("numba")
    cache = capability(backend, KernelCache)
    assert cache is not None
    c128, c64 = get_number_system("complex128"), get_number_system("complex64")
    assert not cache.kernels_compiled(c128)
    cache.mark_kernels_compiled(c128)
    assert cache.kernels_compiled(c128) and not cache.kernels_compiled(c64)
    marker = numba_cache.compiled_marker("complex128")
    assert marker.parent.parent == tmp_path / "numba"
    assert numba_cache.kernel_sources_digest() == marker.parent.name
    monkeypatch.setattr(numba.core.config, "CPU_NAME", "some-other-cpu")
    assert not cache.kernels_compiled(c128)
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("GENQSIM_CACHE_DIR", str(blocked))  # a file where a folder should be
    cache.mark_kernels_compiled(c128)  # nothing written, nothing raised
    assert not cache.kernels_compiled(c128)


def _qasm(tmp_path, body: str) -> str:
    path = tmp_path / "circuit.qasm"
    path.write_text('OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[10];\ncreg c[10];\n' + body)
    return str(path)


def test_shots_of_terminal_measurements_answer_first_and_shots_run_one_by_one_do_not(
    markers, capsys, tmp_path
):
    """Terminal measurements are drawn from one state (a second's work on NumPy); a reset
    after a measurement makes every shot a run of its own, which compiles first."""
    terminal = _qasm(tmp_path, "h q;\ncx q[0],q[9];\nmeasure q -> c;\n")
    assert main(["run", terminal, "--shots", "50", "--seed", "1", "--top", "2"]) == 0
    first = capsys.readouterr()
    assert "backend=numpy" in first.out.splitlines()[0]
    assert (markers / "done-complex128").is_file()
    (markers / "done-complex128").unlink()
    per_shot = _qasm(tmp_path, "h q;\nmeasure q[0] -> c[0];\nreset q[0];\nmeasure q -> c;\n")
    assert main(["run", per_shot, "--shots", "20", "--seed", "1", "--top", "2"]) == 0
    captured = capsys.readouterr()
    assert "first complex128 run" not in captured.err
    assert "backend=numba" in captured.out.splitlines()[0]
