"""Backend protocol, registry, automatic selection and entry-point discovery."""

from __future__ import annotations

import subprocess
import sys
import warnings
from importlib import metadata

import numpy as np
import pytest

import genqsim as gq
from genqsim import backends
from genqsim.backends import Backend, GenericBackend


def test_numpy_backend_is_found_through_its_entry_point():
    names = [ep.name for ep in metadata.entry_points(group="genqsim.backends")]
    assert "numpy" in names
    ep = next(ep for ep in metadata.entry_points(group="genqsim.backends") if ep.name == "numpy")
    assert ep.load() is type(gq.get_backend("numpy"))


def test_numpy_backend_satisfies_protocol_and_supports_every_dtype():
    b = gq.get_backend("numpy")
    assert isinstance(b, Backend)
    for dtype in (np.complex128, np.complex64, object):
        assert b.supports(np.zeros(4, dtype=dtype))
    assert gq.zeros(2, numbers="sympy").backend.name == "numpy"
    # compiled kernels win for complex arrays from COMPILED_MIN_STATE_QUBITS on; below, the
    # generic backend is as fast and spares loading them
    large = backends.COMPILED_MIN_STATE_QUBITS
    expected = "numba" if "numba" in gq.available_backends() else "numpy"
    assert gq.zeros(large).backend.name == expected
    assert gq.zeros(large - 1).backend.name == "numpy"
    assert gq.StateVector(np.zeros(2**large, complex)).backend.name == expected
    assert gq.StateVector(np.zeros(2 ** (large - 1), complex)).backend.name == "numpy"
    assert gq.zeros(2, backend="numba").backend.name == expected


def test_numeric_start_imports_neither_sympy_nor_numba():
    """``import genqsim`` and a small numeric run load neither SymPy nor the compiled
    kernels (each costs most of a second at start); symbols load SymPy when used."""
    probe = (
        "import sys, genqsim as gq; gq.simulate(gq.library.ghz(3)).probabilities();"
        "gq.qasm.loads('qreg q[2]; u2(0, pi) q[0]; cx q[0], q[1];', exact=False);"
        "print('sympy' in sys.modules, 'numba' in sys.modules);"
        "gq.Circuit(1).rx('theta', 0); print('sympy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False", "True"]


class RecordingBackend(GenericBackend):
    """A third-party style backend that only specialises apply_diagonal and records calls."""

    name = "recording"
    priority = 50

    def __init__(self):
        self.calls = []

    def supports(self, array):
        return isinstance(array, np.ndarray) and array.dtype == np.complex64

    def apply_diagonal(self, state, diagonal, targets, controls=(), control_values=()):
        self.calls.append(("diagonal", targets))
        super().apply_diagonal(state, diagonal, targets, controls, control_values)


@pytest.fixture
def recording():
    backends.register_backend("recording", RecordingBackend)
    yield backends.get_backend("recording")
    backends._FACTORIES.pop("recording")
    backends._INSTANCES.pop("recording", None)


def test_registered_backend_is_selected_by_dtype_and_priority(recording):
    psi = gq.zeros(2, numbers="complex64")
    assert psi.backend is recording
    assert gq.zeros(2, numbers="complex128").backend.name != "recording"
    psi.apply(gq.Circuit(2).h(0).t(0).cz(0, 1), fuse=False)
    assert recording.calls == [("diagonal", (0,)), ("diagonal", (1,))]
    # primitives it lacks fell back to the generic routine and gave the right state
    ref = gq.simulate(gq.Circuit(2).h(0).t(0).cz(0, 1), numbers="complex64", backend="numpy")
    np.testing.assert_allclose(psi.amplitudes, ref.amplitudes, atol=1e-7)
    assert "recording" in gq.available_backends()


def test_explicit_backend_must_support_the_array(recording):
    with pytest.raises(
        gq.UnknownBackendError, match="cannot work on ndarray arrays of dtype object"
    ):
        gq.StateVector(np.array([1, 0], dtype=object), backend="recording")


def test_broken_entry_point_warns_instead_of_failing(monkeypatch):
    class BrokenEP:
        name = "broken"

        def load(self):
            raise RuntimeError("plugin import failed")

    monkeypatch.setattr(backends, "_entry_points_loaded", False)
    monkeypatch.setattr(backends.metadata, "entry_points", lambda group: [BrokenEP()])
    with pytest.warns(UserWarning, match="'broken' failed to load: plugin import failed"):
        names = backends.available_backends()
    assert "numpy" in names and "broken" not in names


def test_wrapping_an_array_works_in_place():
    arr = np.zeros(4, dtype=np.complex128)
    arr[0] = 1
    psi = gq.StateVector(arr)
    psi.apply(gq.Circuit(2).x(1))
    assert psi.amplitudes is arr and arr[2] == 1


def test_explicit_numbers_convert_a_copy():
    arr = np.array([1, 0], dtype=np.complex128)
    psi = gq.StateVector(arr, numbers="complex64")
    assert psi.amplitudes.dtype == np.complex64 and psi.amplitudes is not arr
    assert gq.StateVector([1, 0], numbers="sympy").amplitudes.dtype == object


def test_capabilities_are_declared_and_a_misspelt_one_cannot_be_built():
    from genqsim.backends import BlockRunner, ThreadScoped, capabilities_of, capability

    numba_backend = gq.get_backend("numba")
    assert capabilities_of(numba_backend) == [
        "AdjointSteps",
        "BlockRunner",
        "MonomialRunner",
        "SweepRunner",
        "ShotGroupRunner",
        "ThreadScoped",
        "KernelCache",
        "PauliCoordinates",
        "PauliPropagator",
        "SegmentRunner",
    ]
    assert capability(gq.get_backend("numpy"), BlockRunner) is None
    assert capability(numba_backend, ThreadScoped) is numba_backend

    class Misspelt(GenericBackend, BlockRunner):
        name = "misspelt"

        def block_layout(self, dtype):
            return backends.BlockLayout(4, 4, 6)

        def apply_blok_run(self, state, run):  # the typo
            pass

    with pytest.raises(TypeError, match="abstract"):
        Misspelt()


def test_block_runs_go_whole_to_a_block_runner_and_call_by_call_elsewhere():
    c = gq.library.qft(12)
    numba_state = gq.simulate(c, backend="numba")
    generic = gq.simulate(c, backend="numpy")
    np.testing.assert_allclose(numba_state.amplitudes, generic.amplitudes, atol=1e-12)


def test_devices_map_to_backends_through_the_registry():
    ns = gq.get_number_system("complex128")
    assert backends.backend_for(ns).device == "cpu"
    assert backends.backend_for(gq.get_number_system("sympy")).name == "numpy"
    with pytest.raises(ValueError, match="device must be one of cpu, gpu"):
        backends.backend_for(ns, "tpu")
    with pytest.raises(ValueError, match="runs on the cpu"):
        backends.backend_for(ns, "gpu", "numba")
    if "cupy" not in gq.available_backends():
        with pytest.raises(gq.UnknownBackendError, match="no backend for device 'gpu'"):
            gq.zeros(2, device="gpu")
        assert "cupy" in backends.unavailable_backends()


def test_thread_count_travels_with_the_state():
    import numba

    from genqsim.backends.numba_switch import parallel_min_qubits

    before = numba.get_num_threads()
    c = gq.library.qft(parallel_min_qubits(2) + 1)
    one = gq.simulate(c, threads=1)
    assert one.options.threads == 1 and numba.get_num_threads() == before  # restored
    np.testing.assert_allclose(one.amplitudes, gq.simulate(c).amplitudes, atol=1e-12)
    with pytest.raises(gq.ThreadCountError):
        gq.simulate(c, threads=0)
    with pytest.raises(gq.ThreadCountError):
        gq.simulate(c, threads=10_000)


def test_a_numba_that_cannot_load_is_said_once(monkeypatch):
    """Numba is a default dependency; if it still cannot load, complex states run on the
    generic backend and the user is told once why, not on every state."""

    def broken() -> Backend:
        raise ImportError("numba failed to load: RuntimeError: built for another NumPy")

    monkeypatch.setattr(backends, "_warned_fallback", False)
    backends.register_backend("numba", broken)
    try:
        with pytest.warns(gq.SlowFallbackWarning, match=r"built for another NumPy.*10-50x"):
            psi = gq.simulate(gq.Circuit(3).h(0).cx(0, 2))
        assert psi.backend.name == "numpy"
        np.testing.assert_allclose(psi.probabilities(), [0.5, 0, 0, 0, 0, 0.5, 0, 0])
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # said once per process
            gq.simulate(gq.Circuit(2).h(1), numbers="complex64")
            gq.simulate(gq.Circuit(2).h(1), numbers="sympy")  # object states never warned
    finally:  # as registered at import, with the smallest state it is picked for
        backends.register_backend(
            "numba", backends._numba_backend, min_state_qubits=backends.COMPILED_MIN_STATE_QUBITS
        )
    assert gq.zeros(backends.COMPILED_MIN_STATE_QUBITS).backend.name == "numba"
    assert gq.zeros(2).backend.name == "numpy"  # below it, as before the test


def test_bench_fails_when_genqsim_cannot_run(monkeypatch, capsys):
    from genqsim.cli import bench

    def spawn(sim, threads, repeat, quick, only):
        if sim == "genqsim":
            return {}, "genqsim: worker failed: ['ImportError: no numba']"
        return {"H 20 q0": 0.001}, None

    monkeypatch.setattr(bench, "spawn", spawn)
    monkeypatch.setattr(bench, "measure_bandwidth", lambda: 1e10)
    with pytest.raises(SystemExit, match=r"genqsim itself could not run.*no numba"):
        bench.main(["--quick", "--threads", "1", "--sims", "genqsim", "qulacs"])


def test_bench_rounds_keep_each_cases_best_time_and_median_ratio_in_turns(monkeypatch, capsys):
    from genqsim.cli import bench

    calls = []
    times = {  # (simulator, round) -> that round's time of H low n=20 (an error in one)
        ("genqsim", 0): 3e-3, ("genqsim", 1): 2e-3, ("genqsim", 2): "error: MemoryError",
        ("qulacs", 0): 5e-3, ("qulacs", 1): 5e-3, ("qulacs", 2): 1e-3,
    }  # fmt: skip

    def spawn(sim, threads, repeat, quick, only):
        done = sum(1 for s, _ in calls if s == sim)
        calls.append((sim, threads))
        return {"H low n=20": times[(sim, done)]}, None

    monkeypatch.setattr(bench, "spawn", spawn)
    monkeypatch.setattr(bench, "measure_bandwidth", lambda: 1e10)
    bench.main(["--only", "h", "--threads", "1", "--sims", "genqsim", "qulacs",
                "--rounds", "3"])  # fmt: skip
    assert [s for s, _ in calls] == ["genqsim", "qulacs", "qulacs", "genqsim", "genqsim", "qulacs"]
    row = next(line for line in capsys.readouterr().out.splitlines() if "H low n=20" in line)
    cells = [c.strip() for c in row.strip("|").split("|")]
    # the best time of each; the median of the rounds' ratios (0.6, 0.4: the third round
    # has no genqsim time), not the ratio of the bests (2.0)
    assert cells[1:4] == ["2.00 ms", "1.00 ms", "0.50"]
    with pytest.raises(SystemExit, match="--rounds"):
        bench.main(["--rounds", "0"])


def test_bench_only_runs_the_named_gates_and_circuits(capsys):
    import json

    from genqsim.cli import bench

    picked = bench.cases(False, ["ghz", "h"])
    assert {c.label for c in picked} == {
        "H low n=20", "H high n=20", "H low n=24", "H high n=24", "H low n=26",
        "H high n=26", "H low n=26 c64", "ghz n=26",
    }  # fmt: skip
    threads = gq.get_num_threads()
    try:  # the worker sets the process's thread count (its own process, run from the bench)
        bench.main(["--worker", "genqsim", "--threads", "1", "--repeat", "1", "--quick",
                    "--only", "walsh"])  # fmt: skip
    finally:
        gq.set_num_threads(threads)
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [item["case"] for item in lines] == ["walsh n=18"]
    assert isinstance(lines[0]["result"], float) and lines[0]["result"] > 0
    with pytest.raises(SystemExit):
        bench.main(["--only", "toffoli"])


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64, object])
def test_generic_one_qubit_diagonal_and_marginal_against_dense_references(dtype):
    """The one-qubit forms of the generic routines (strided halves, no index tables) against
    a diagonal built with ``kron`` and a marginal summed index by index, on every qubit of a
    random 5-qubit state, machine and exact (SymPy) numbers."""
    import sympy

    from genqsim.linalg import generic

    rng = np.random.default_rng(7)
    n = 5
    values = rng.normal(size=1 << n) + 1j * rng.normal(size=1 << n)
    for q in range(n):
        diagonal = [sympy.Rational(1, 3), sympy.I] if dtype is object else [0.5, 1j]
        state = np.array([sympy.nsimplify(round(v.real, 3)) for v in values], dtype=object) \
            if dtype is object else values.astype(dtype)  # fmt: skip
        kind = object if dtype is object else complex  # exact: identities of integers
        expected = np.kron(np.kron(np.eye(1 << (n - 1 - q), dtype=kind),
                                   np.diag(np.array(diagonal, dtype=kind))),
                           np.eye(1 << q, dtype=kind)) @ state  # fmt: skip
        generic.apply_diagonal(state, np.array(diagonal, dtype=state.dtype), (q,))
        if dtype is object:
            assert all(sympy.simplify(a - b) == 0 for a, b in zip(state, expected))
        else:
            np.testing.assert_allclose(state, expected, rtol=1e-5)
        weights = np.abs(values) ** 2
        by_hand = [sum(w for i, w in enumerate(weights) if (i >> q) & 1 == b) for b in (0, 1)]
        np.testing.assert_allclose(generic.marginalize(weights, (q,)), by_hand, rtol=1e-12)
