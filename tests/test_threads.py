"""Default thread counts from the CPUs a process may use: cgroup CPU quotas (v1 and v2, read
from fake hierarchies laid out as the kernel lays them out), the affinity mask (set by the
OS in a child process), and ``NUMBA_NUM_THREADS`` where the user sets it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np
import pytest

import genqsim as gq
from genqsim.backends import get_backend
from genqsim.support.cpus import cgroup_cpu_quota, node_cpus, usable_cpus


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_cgroup_v2_quota_is_the_smallest_on_the_path(tmp_path):
    proc = tmp_path / "proc_cgroup"
    write(proc, "0::/user.slice/job.scope\n")
    root = tmp_path / "cgroup"
    write(root / "user.slice" / "job.scope" / "cpu.max", "max 100000\n")
    write(root / "user.slice" / "cpu.max", "150000 100000\n")  # 1.5 CPUs for the slice
    assert cgroup_cpu_quota(root, proc) == pytest.approx(1.5)
    assert usable_cpus(root, proc) == min(2, len(os.sched_getaffinity(0)))
    write(root / "user.slice" / "cpu.max", "max 100000\n")
    assert cgroup_cpu_quota(root, proc) is None


def test_cgroup_v1_quota_in_a_container_whose_path_is_not_mounted(tmp_path):
    proc = tmp_path / "proc_cgroup"
    write(proc, "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n")
    root = tmp_path / "cgroup"
    write(root / "cpu,cpuacct" / "cpu.cfs_quota_us", "50000\n")  # the container's own cgroup
    write(root / "cpu,cpuacct" / "cpu.cfs_period_us", "100000\n")
    assert cgroup_cpu_quota(root, proc) == pytest.approx(0.5)
    assert usable_cpus(root, proc) == 1  # at least one
    write(root / "cpu,cpuacct" / "cpu.cfs_quota_us", "-1\n")
    assert cgroup_cpu_quota(root, proc) is None
    assert node_cpus(root, proc) == os.cpu_count()


def test_unreadable_cgroup_files_mean_no_quota(tmp_path):
    assert cgroup_cpu_quota(tmp_path, tmp_path / "missing") is None
    proc = tmp_path / "proc_cgroup"
    write(proc, "0::/a\nnot a cgroup line\n")
    write(tmp_path / "a" / "cpu.max", "garbage\n")
    assert cgroup_cpu_quota(tmp_path, proc) is None


def child(code: str, env: dict[str, str] | None = None, cpus: set[int] | None = None) -> str:
    """``code`` run in a fresh interpreter, pinned to ``cpus`` before it starts."""
    pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus is not None else None
    environment = {**os.environ, **(env or {})}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=environment, preexec_fn=pin, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


PROBE = (
    "import genqsim as gq, numba\n"
    "from genqsim.backends import get_backend\n"
    "with get_backend('numba').threads(None):\n"
    "    inside = numba.get_num_threads()\n"
    "print(gq.get_num_threads(), inside, numba.config.NUMBA_NUM_THREADS)\n"
)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to pin to one")
def test_a_process_pinned_to_one_cpu_runs_one_thread():
    default, inside, numba_start = child(PROBE, cpus={min(os.sched_getaffinity(0))}).split()
    assert default == inside == "1"
    assert int(numba_start) >= 1
    env = {"NUMBA_NUM_THREADS": "2"}  # the user's own setting wins
    assert child(PROBE, env=env, cpus={min(os.sched_getaffinity(0))}).split() == ["2", "2", "2"]


def test_explicit_counts_override_the_default_and_are_restored():
    backend = get_backend("numba")
    before = numba.get_num_threads()
    with backend.threads(1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == before
    gq.set_num_threads(1)
    try:
        assert gq.get_num_threads() == 1
        with backend.threads(None):
            assert numba.get_num_threads() == 1
    finally:
        gq.set_num_threads(min(usable_cpus(), numba.config.NUMBA_NUM_THREADS))


def blas_counts() -> dict[str, int]:
    """Each loaded BLAS library's thread count (NumPy's; SciPy's and peers' own copies)."""
    from threadpoolctl import threadpool_info

    return {lib["filepath"]: lib["num_threads"] for lib in threadpool_info()
            if lib["user_api"] == "blas"}  # fmt: skip


def blas_threads_now() -> int:
    """NumPy's BLAS thread count (the library genqsim's products and SVDs call; a peer's
    own copy may be built single-threaded and stay at 1)."""
    counts = blas_counts()
    numpys = {n for path, n in counts.items() if "numpy" in path} or set(counts.values())
    assert len(numpys) == 1, counts
    return numpys.pop()


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_mps_gates_on_small_bonds_use_one_blas_thread_and_large_ones_the_runs(monkeypatch):
    from genqsim.mps import state as mps_state
    from genqsim.mps.network import Network

    seen: list[tuple[int, int]] = []
    original = Network.apply_on

    def recording(self, sites, blocks, truncation):
        inner = self.bonds[sites[0] + 1 : sites[-1] + 1]
        seen.append((max((sum(b.values()) for b in inner), default=0), blas_threads_now()))
        return original(self, sites, blocks, truncation)

    monkeypatch.setattr(Network, "apply_on", recording)
    before = blas_counts()
    circuit = gq.library.random_circuit(8, 6, seed=2)
    gq.simulate(circuit, method="mps", threads=2)
    assert seen and {threads for _, threads in seen} == {1}  # bonds of at most 16
    assert blas_counts() == before  # each library's own count back
    seen.clear()
    monkeypatch.setattr(mps_state, "THREADED_BLAS_BOND", 4)
    gq.simulate(circuit, method="mps", threads=2)
    assert {threads for bond, threads in seen if bond >= 4} == {2}
    assert {threads for bond, threads in seen if bond < 4} == {1}
    assert blas_counts() == before


def test_density_matrix_runs_use_the_runs_thread_count_for_blas():
    rho = gq.simulate(gq.Circuit(2).h(0), method="density_matrix", threads=1)
    before = blas_counts()
    with rho._threads():
        assert blas_threads_now() == 1
    assert blas_counts() == before


def test_the_switch_is_measured_once_and_kept_per_machine(tmp_path, monkeypatch):
    """The measurement returns a size in (or just past) the candidates, writes it to the
    cache file under the machine's key, and a later process reads it back instead of
    measuring (its stderr stays silent)."""
    from genqsim.backends import numba_switch as switch

    monkeypatch.setenv("GENQSIM_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("GENQSIM_PARALLEL_MIN_QUBITS")
    monkeypatch.setattr(switch, "_known", {})
    monkeypatch.setattr(switch, "CANDIDATE_QUBITS", range(12, 15))
    monkeypatch.setattr(switch, "BUSY_CORES", float("inf"))  # kept even beside other tests
    found = switch.parallel_min_qubits(2)
    assert 12 <= found <= 15
    kept = json.loads((tmp_path / "calibration.json").read_text())
    assert kept == {switch._machine_key(): {"2": found}}
    assert switch.known_switches()[2] == found
    code = "from genqsim.backends import numba_switch as s; print(s.parallel_min_qubits(2))"
    env = {"GENQSIM_CACHE_DIR": str(tmp_path), "GENQSIM_PARALLEL_MIN_QUBITS": ""}
    assert child(code, env=env) == str(found)  # read back, not measured again
    (tmp_path / "calibration.json").write_text("{not json")
    monkeypatch.setattr(switch, "_known", {})
    assert 12 <= switch.parallel_min_qubits(2) <= 15  # a broken cache is measured over


def test_the_switch_is_the_smallest_size_won_at_every_larger_one():
    """A threaded build that wins (at most MARGIN of the serial time) at a size and every
    larger one measured starts there; a lucky low size does not pull the switch down, a
    slow top size keeps it above, and no win at the top puts it past the candidates."""
    from genqsim.backends.numba_switch import MARGIN, switch_from_ratios

    win, lose = MARGIN - 0.05, MARGIN + 0.05
    assert switch_from_ratios({12: 1.9, 13: lose, 14: win, 15: win, 16: win}) == 14
    assert switch_from_ratios({12: win, 13: lose, 14: win, 15: win}) == 14
    assert switch_from_ratios({12: win, 13: win, 14: lose}) == 15
    assert switch_from_ratios({12: lose, 13: lose}) == 14
    assert switch_from_ratios({12: win, 13: win}) == 12
    assert switch_from_ratios({12: MARGIN, 13: MARGIN}) == 12  # at most MARGIN: a win


def test_the_ratios_are_measured_for_every_candidate(monkeypatch):
    """Each candidate size gets one finite positive threaded/serial ratio, the worse of the
    two qubits timed."""
    from genqsim.backends import numba_switch as switch

    monkeypatch.setattr(switch, "PASSES", 2)
    saved = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        ratios = switch.measure_ratios(range(8, 11))
    finally:
        numba.set_num_threads(saved)
    assert sorted(ratios) == [8, 9, 10]
    assert all(np.isfinite(r) and r > 0 for r in ratios.values())


def test_other_processes_busy_on_this_processs_cpus_are_seen():
    """A process spinning on the CPUs this one may use shows as about one core's worth; this
    process's own threads are not counted."""
    from genqsim.backends.numba_switch import OtherProcesses

    cpus = sorted(os.sched_getaffinity(0))
    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"],
                            preexec_fn=lambda: os.sched_setaffinity(0, {cpus[0]}))  # fmt: skip
    try:
        time.sleep(0.3)  # started
        with OtherProcesses() as others:
            time.sleep(0.6)
    finally:
        spin.kill()
        spin.wait()
    assert others.cpus == len(cpus)
    assert others.cores >= 0.6


def test_a_measurement_under_load_is_kept_after_three_busy_tries(tmp_path, monkeypatch, capsys):
    """A switch measured while other processes kept the CPUs busy serves that process only
    (a later process measures again, said on stderr); after three busy tries their median is
    kept; a quiet measurement is kept at once and clears the busy tries."""
    from genqsim.backends import numba_switch as switch

    monkeypatch.setenv("GENQSIM_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("GENQSIM_PARALLEL_MIN_QUBITS")
    busy = {"cores": 1.0}

    class Seen:
        cpus = 2

        def __enter__(self):  # type: ignore[no-untyped-def]
            self.cores = busy["cores"]
            return self

        def __exit__(self, *exc):  # type: ignore[no-untyped-def]
            return None

    measured = iter([19, 21, 17, 16, 15])
    monkeypatch.setattr(switch, "OtherProcesses", Seen)
    monkeypatch.setattr(switch, "measure_switch", lambda threads: next(measured))
    calibration = tmp_path / "calibration.json"
    key = switch._machine_key()
    found = []
    for _ in range(3):  # three processes, each measuring afresh
        monkeypatch.setattr(switch, "_known", {})
        found.append(switch.parallel_min_qubits(2))
        kept = json.loads(calibration.read_text())[key]
        if len(found) < 3:
            assert kept == {"2 (measured busy)": [19, 21][: len(found)]}
    assert found == [19, 21, 19]  # the third process runs with what it kept
    assert kept == {"2": 19}  # the median of 19, 21 and 17
    err = capsys.readouterr().err
    assert "other processes used 1.0 of the 2 CPUs" in err
    assert "measured again by the next (try 2 of 3)" in err
    assert "kept the choice made under that load (3 tries)" in err
    calibration.unlink()
    monkeypatch.setattr(switch, "_known", {})
    assert switch.parallel_min_qubits(2) == 16
    busy["cores"] = 0.0
    monkeypatch.setattr(switch, "_known", {})
    calibration.write_text(json.dumps({key: {"2 (measured busy)": [21]}}))
    assert switch.parallel_min_qubits(2) == 15
    assert json.loads(calibration.read_text()) == {key: {"2": 15}}
    assert switch.known_switches() == {2: 15}


def test_choices_deferred_are_not_measured_nor_kept_until_calibrated(tmp_path, monkeypatch, capsys):
    """Within ``choices_deferred`` (genqsim warmup's compiling processes) a switch or phase
    choice not kept yet takes its default, unmeasured and unkept, and a kept one is used;
    ``calibrate`` afterwards measures both and keeps them."""
    from genqsim.backends import numba_backend
    from genqsim.backends import numba_phase_rewrite as phases
    from genqsim.backends import numba_switch as switch

    monkeypatch.setenv("GENQSIM_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("GENQSIM_PARALLEL_MIN_QUBITS")
    monkeypatch.delenv("GENQSIM_PHASE_REWRITE")
    monkeypatch.setattr(switch, "_known", {})
    monkeypatch.setattr(switch, "_provisional", {})
    monkeypatch.setattr(phases, "_known", [])
    monkeypatch.setattr(switch, "CANDIDATE_QUBITS", range(12, 15))
    monkeypatch.setattr(phases, "CANDIDATE_QUBITS", range(3, 5))
    monkeypatch.setattr(phases, "MEASURE_QUBITS", 14)
    monkeypatch.setattr(switch, "BUSY_CORES", float("inf"))
    backend = get_backend("numba")
    with backend.choices_deferred():
        assert switch.parallel_min_qubits(2) == 12
        assert phases.rewrite_run_bytes() == frozenset()
        assert backend.warmup_qubits() == (11, 15)  # below and above any switch measured
    assert not (tmp_path / "calibration.json").exists()
    assert "measuring" not in capsys.readouterr().err
    monkeypatch.setattr(numba_backend, "get_num_threads", lambda: 2)
    backend.calibrate()
    kept = json.loads((tmp_path / "calibration.json").read_text())[switch._machine_key()]
    assert 12 <= kept["2"] <= 15 and isinstance(kept[phases.KEY], list)
    with backend.choices_deferred():  # kept now: used as measured
        assert switch.parallel_min_qubits(2) == kept["2"]
        monkeypatch.setattr(phases, "_known", [])
        assert phases.rewrite_run_bytes() == frozenset(kept[phases.KEY])


def test_modules_left_out_of_the_kernel_digest_compile_nothing():
    """Editing a module that the kernel cache's digest leaves out cannot change a kernel:
    none of them defines a function Numba compiles."""
    import importlib

    from numba.core.dispatcher import Dispatcher

    from genqsim.backends import numba_cache

    for name in sorted(numba_cache.NOT_COMPILED):
        module = importlib.import_module(f"genqsim.backends.{name.removesuffix('.py')}")
        own = [
            attribute
            for attribute, value in vars(module).items()
            if isinstance(value, Dispatcher) and value.py_func.__module__ == module.__name__
        ]
        assert own == [], (name, own)
        source = (numba_cache.KERNELS_DIR / name).read_text()
        for marker in ("@nb.", "@numba.", "njit", "@_kernel", "@_shared", "@intrinsic", "cfunc"):
            assert marker not in source, (name, marker)


def test_one_thread_runs_the_serial_kernels_at_every_size(monkeypatch):
    from genqsim.backends import numba_backend, numba_kernels

    big = np.zeros(1 << 16, dtype=np.complex128)
    with get_backend("numba").threads(1):
        assert numba_backend._kernels(big) is numba_kernels.SERIAL
    if numba.config.NUMBA_NUM_THREADS >= 2:
        with get_backend("numba").threads(2):
            assert numba_backend._kernels(big) is numba_kernels.PARALLEL  # switch: 2**14 here
            assert numba_backend._kernels(big[: 1 << 13]) is numba_kernels.SERIAL


def test_compiling_a_kernel_is_said_once_per_number_type(capsys, monkeypatch):
    """A real compilation (Numba's numba:compile event) of a genqsim kernel prints one line
    on stderr per number type; other code's compilations print nothing."""
    from genqsim.backends import numba_common

    monkeypatch.setattr(numba_common.COMPILE_NOTICE, "said", set())

    def scale(a, k):
        for i in range(a.size):
            a[i] *= k

    def other(a):
        return a.sum()

    scale.__module__ = "genqsim.backends.test_fake"  # as a kernel module's function
    kernel, foreign = numba.njit(scale), numba.njit(other)
    kernel(np.ones(4, dtype=np.complex128), 2.0)
    kernel(np.ones(4, dtype=np.complex128), 2)  # a new signature, the same number type
    kernel(np.ones(4, dtype=np.complex64), 2.0)
    kernel(np.ones(4), 2.0)  # a real helper: covered by the lines already said
    foreign(np.ones(4))
    lines = [line for line in capsys.readouterr().err.splitlines() if line]
    assert lines == [
        f"genqsim: compiling kernels for {kind} (once after installing: later runs load them "
        "from Numba's cache; 'genqsim warmup' compiles them all ahead of time) ..."
        for kind in ("complex128", "complex64")
    ]
    monkeypatch.setattr(numba_common.COMPILE_NOTICE, "said", set())
    kernel(np.ones(3), 3.0)  # a real one first: one plain line
    kernel(np.ones(3, dtype=np.int64), 3)
    assert capsys.readouterr().err.splitlines() == [
        "genqsim: compiling kernels (once after installing: later runs load them from Numba's "
        "cache; 'genqsim warmup' compiles them all ahead of time) ..."
    ]


def test_the_phase_choice_is_measured_once_and_kept_per_machine(tmp_path, monkeypatch):
    """How one-qubit phases run is measured (run lengths in bytes, complex128: 16 << q, for
    the candidate qubits), kept beside the thread switch under the machine's key without
    touching it, shown by ``genqsim info``'s kernel choices, and read back by a later
    process without measuring again."""
    from genqsim.backends import numba_phase_rewrite as phases
    from genqsim.backends import numba_switch as switch

    monkeypatch.setenv("GENQSIM_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("GENQSIM_PHASE_REWRITE")
    monkeypatch.setattr(phases, "_known", [])
    monkeypatch.setattr(phases, "CANDIDATE_QUBITS", range(3, 6))
    monkeypatch.setattr(phases, "MEASURE_QUBITS", 16)
    monkeypatch.setattr(switch, "BUSY_CORES", float("inf"))  # kept even beside other tests
    found = phases.rewrite_run_bytes()
    assert found <= {128, 256, 512}
    kept = json.loads((tmp_path / "calibration.json").read_text())
    assert kept == {switch._machine_key(): {phases.KEY: sorted(found)}}
    assert switch.known_switches() == {}  # the switch's readers skip the phase entry
    lines = get_backend("numba").kernel_choices()
    expected = (
        f"one-qubit phases rewrite every amplitude for runs of {', '.join(map(str, sorted(found)))}"
        if found
        else "one-qubit phases store only the amplitudes they change, at every run length"
    )
    assert lines[-1].startswith(expected)
    assert lines[-1].endswith("(measured here)")
    code = (
        "from genqsim.backends import numba_phase_rewrite as p\n"
        "print(sorted(p.rewrite_run_bytes()))"
    )
    env = {"GENQSIM_CACHE_DIR": str(tmp_path), "GENQSIM_PHASE_REWRITE": ""}
    assert child(code, env=env) == str(sorted(found))  # read back, not measured again


@pytest.mark.parametrize(
    ("setting", "line"),
    [
        ("none", "one-qubit phases store only the amplitudes they change, at every run length"),
        ("512,128", "one-qubit phases rewrite every amplitude for runs of 128, 512 bytes"),
    ],
)
def test_a_phase_choice_set_in_the_environment_is_shown_as_set(monkeypatch, setting, line):
    """``GENQSIM_PHASE_REWRITE`` decides the runs and ``genqsim info`` names them, in order,
    as set rather than measured."""
    from genqsim.backends import numba_phase_rewrite as phases

    monkeypatch.setenv("GENQSIM_PHASE_REWRITE", setting)
    expected = frozenset() if setting == "none" else frozenset({128, 512})
    assert phases.rewrite_run_bytes() == expected
    assert phases.known_choice() == f"{line} (set)"
