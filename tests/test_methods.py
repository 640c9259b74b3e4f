"""Methods own their options, and ``method="auto"`` chooses in the registry: each option is
validated by its method's dataclass, an option the method lacks is a typed error naming
the ones it has, the choice is recorded on the state, and the command line's flags come
from the same declarations."""

from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest

import genqsim as gq
from genqsim.circuit.noise import NoiseModel
from genqsim.cli.main import main
from genqsim.states.options import RunOptions, method_fields, option

NOISE = NoiseModel.from_spec(["depolarizing:0.05"])


def bell() -> gq.Circuit:
    return gq.Circuit(2).h(0).cx(0, 1)


def test_every_built_in_method_is_registered_with_its_options():
    assert set(gq.available_methods()) >= {
        "statevector", "density_matrix", "trajectories", "interval", "tangent", "mpi", "mps"
    }  # fmt: skip
    assert gq.states.method_spec("mps").options is gq.MPSOptions
    assert [f.name for f in method_fields(gq.MPSOptions)] == ["max_bond", "cutoff", "conserve"]
    assert [f.name for f in method_fields(gq.MPIOptions)] == ["exchange_chunk", "remap"]
    assert [f.name for f in method_fields(gq.DensityOptions)] == ["pauli_basis"]
    assert [f.name for f in method_fields(gq.TrajectoryOptions)] == ["trajectories", "executor"]
    cli = method_fields(gq.TrajectoryOptions, cli_only=True)
    assert [f.name for f in cli] == ["trajectories"]  # an executor is no command-line flag
    for name in gq.available_methods():  # every option has its help text
        for f in method_fields(gq.states.method_spec(name).options):
            assert f.metadata["help"], (name, f.name)


def test_an_option_the_method_lacks_is_refused_with_the_ones_it_has():
    with pytest.raises(gq.UnknownOptionError, match=r"no option 'max_bond'.*threads, fuse"):
        gq.simulate(bell(), method="statevector", max_bond=4)
    with pytest.raises(gq.UnknownOptionError, match="max_bond is an option of method 'mps'"):
        gq.simulate(bell(), max_bond=4)  # auto: a noiseless circuit runs as a state vector
    with pytest.raises(gq.UnknownOptionError, match="no option 'conserv'"):
        gq.simulate(bell(), method="mps", conserv="N")
    with pytest.raises(TypeError):  # the error is also a TypeError, as Python's own is
        gq.expectation(bell(), "Z0", method="density_matrix", trajectories=5)


def test_options_are_validated_by_their_method():
    with pytest.raises(gq.ArgumentValueError, match="max_bond"):
        gq.MPSOptions(max_bond=0)
    with pytest.raises(gq.ArgumentValueError, match="conserve"):
        gq.simulate(bell(), method="mps", conserve="Q")
    with pytest.raises(gq.ArgumentValueError, match="exchange_chunk"):
        gq.MPIOptions(exchange_chunk=3)
    with pytest.raises(gq.ArgumentValueError, match="trajectories"):
        gq.simulate(bell(), method="trajectories", trajectories=0)
    with pytest.raises(gq.ThreadCountError):
        gq.simulate(bell(), threads=0)


def test_options_as_an_object_or_as_keywords_give_the_same_state():
    c = gq.library.ghz(6)
    by_keyword = gq.simulate(c, method="mps", max_bond=2, cutoff=1e-9)
    by_object = gq.simulate(c, options=gq.MPSOptions(max_bond=2, cutoff=1e-9))
    assert by_object.method == by_keyword.method == "mps"
    np.testing.assert_allclose(by_object.probabilities(), by_keyword.probabilities(), atol=1e-14)
    beside = gq.simulate(c, options=gq.MPSOptions(max_bond=2), progress=True, fuse=False)
    assert (beside.progress, beside.method) == (True, "mps")  # shared keywords are kept
    with pytest.raises(gq.ArgumentValueError, match="either as keywords or as options="):
        gq.simulate(c, options=gq.MPSOptions(), max_bond=2)
    with pytest.raises(gq.ArgumentTypeError, match="options= takes a RunOptions"):
        gq.simulate(c, options={"max_bond": 2})


def test_auto_chooses_from_the_circuit_and_records_the_choice(monkeypatch):
    monkeypatch.delenv("PMI_SIZE", raising=False)
    monkeypatch.delenv("OMPI_COMM_WORLD_SIZE", raising=False)
    noisy = NOISE.apply(bell())
    assert gq.simulate(bell()).method == "statevector"
    rho = gq.simulate(noisy)
    assert rho.method == "density_matrix" and isinstance(rho, gq.DensityMatrix)
    wide = NOISE.apply(gq.Circuit(13).h(0))
    assert gq.choose_method(wide) == "trajectories"
    assert gq.choose_method(wide, gq.get_number_system("sympy")) == "density_matrix"
    assert gq.choose_method(noisy, None, {"trajectories": 50}) == "trajectories"
    assert gq.simulate(noisy, trajectories=50, seed=1).method == "trajectories"
    monkeypatch.delitem(sys.modules, "mpi4py.MPI", raising=False)  # MPI not started here
    monkeypatch.setenv("PMI_SIZE", "2")  # what mpiexec sets in each rank
    assert gq.choose_method(bell()) == "mpi"
    assert gq.choose_method(noisy) == "density_matrix"  # the distributed vector has no noise


def test_auto_noise_gives_the_exact_mixed_state():
    """A noisy Bell circuit: the state ``auto`` returns equals the depolarised Bell state
    built by hand (``(1-p) rho + p/(4**k-1) sum P rho P`` over the non-identity Paulis of
    the gate's k qubits: one-qubit after H, two-qubit after CX)."""
    p = 0.05
    rho = gq.simulate(NOISE.apply(bell())).to_numpy()
    paulis = [np.eye(2), np.array([[0, 1], [1, 0]]), np.array([[0, -1j], [1j, 0]]),
              np.diag([1.0, -1.0])]  # fmt: skip

    def depolarise(m: np.ndarray, strings: list[np.ndarray]) -> np.ndarray:
        return (1 - p) * m + p / len(strings) * sum(s @ m @ s.conj().T for s in strings)

    h = np.kron(np.eye(2), np.array([[1, 1], [1, -1]]) / np.sqrt(2))
    cx = np.array([[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0]])
    m = np.zeros((4, 4), dtype=complex)
    m[0, 0] = 1
    on_qubit_0 = [np.kron(np.eye(2), s) for s in paulis[1:]]
    on_both = [np.kron(a, b) for a in paulis for b in paulis][1:]
    m = depolarise(h @ m @ h.conj().T, on_qubit_0)
    m = depolarise(cx @ m @ cx.T, on_both)
    np.testing.assert_allclose(rho, m, atol=1e-12)


def test_counts_under_auto_draw_from_the_exact_distribution():
    circuit = NOISE.apply(bell())
    shots = 20_000
    tally = gq.counts(circuit, shots, seed=3)
    exact = gq.simulate(circuit, method="density_matrix").probabilities()
    for index, p in enumerate(exact):
        key = format(index, "02b")
        assert abs(tally.get(key, 0) - p * shots) <= 5 * np.sqrt(shots * p * (1 - p)) + 3


def test_a_new_method_with_an_option_gets_a_flag_and_its_value(capsys):
    """One MethodSpec with an options class: the CLI flag appears, its value reaches the
    run, and a flag of another method is refused."""

    @dataclasses.dataclass(frozen=True)
    class ScaledOptions(RunOptions):
        scale: float = option(1.0, "a factor the test reads back")

    seen: list[float] = []

    def run_scaled(request: gq.states.SimulationRequest) -> gq.StateVector:
        seen.append(request.options.scale)
        return gq.simulate(request.circuit, request.numbers, method="statevector")

    spec = gq.register_method("scaled_for_test", run_scaled, options=ScaledOptions,
                              summary="a state vector that records its option")  # fmt: skip
    try:
        assert main(["run", "--help"]) == 0
        assert "--scale" in capsys.readouterr().out
        assert main(["run", "ghz:2", "--method", "scaled_for_test", "--scale", "2.5"]) == 0
        assert seen == [2.5]
        assert gq.simulate(bell(), method="scaled_for_test", scale=3.0).method == spec.name
        assert seen == [2.5, 3.0]
        assert main(["run", "ghz:2", "--scale", "2.5"]) == 2  # auto runs a state vector
    finally:
        gq.states.registry._METHODS.pop("scaled_for_test")


def test_cli_flags_of_a_method_need_that_method(capsys):
    assert main(["run", "ghz:3", "--trajectories", "5"]) == 2
    assert "--trajectories applies to --method trajectories" in capsys.readouterr().err
    assert main(["run", "ghz:3", "--method", "statevector", "--no-remap"]) == 2
    assert "--remap applies to --method mpi" in capsys.readouterr().err


def test_the_reduced_name_still_works_with_a_warning():
    rho = gq.simulate(bell(), method="density_matrix")
    with pytest.warns(DeprecationWarning, match="reduced_density_matrix"):
        old = rho.reduced([0])
    np.testing.assert_allclose(old.to_numpy(), rho.reduced_density_matrix([0]).to_numpy())
    np.testing.assert_allclose(old.to_numpy(), np.eye(2) / 2, atol=1e-12)
    assert abs(rho.entanglement_entropy([0]) - 1.0) < 1e-12
