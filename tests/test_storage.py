"""States saved to files and loaded back: the same numbers in every number system (exact
for SymPy, SymEngine, mpmath; balls that contain the saved ones), with kind, classical
bits, run options and the user's metadata; damaged and foreign files refused by name."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy

import genqsim as gq

T = sympy.Symbol("t", real=True)


def circuit() -> gq.Circuit:
    return gq.Circuit(3).ry(T, 0).cx(0, 1).h(2).cp(T / 3, 2, 1)


@pytest.mark.parametrize("numbers", ["complex128", "complex64", "mpmath:40", "sympy", "symengine"])
def test_round_trip_is_exact(tmp_path, numbers):
    c = (
        circuit()
        if numbers in ("sympy", "symengine")
        else circuit().bind({T: sympy.Rational(3, 10)})
    )
    psi = gq.simulate(c, numbers=numbers, threads=1, fuse=False)
    psi.save(tmp_path / "state", metadata={"circuit": "test", "t": "3/10"})
    back, header = gq.load_state(tmp_path / "state", with_metadata=True)
    assert isinstance(back, gq.StateVector) and back.numbers.name == numbers
    assert back.to_numpy().dtype == psi.to_numpy().dtype
    assert all(a == b for a, b in zip(back.to_numpy(), psi.to_numpy()))
    assert header["metadata"] == {"circuit": "test", "t": "3/10"}
    assert header["n_qubits"] == 3 and header["genqsim_version"] == gq.__version__
    assert back.options == psi.options


def test_loaded_symbolic_state_gives_the_same_closed_forms(tmp_path):
    for numbers in ("sympy", "symengine"):
        psi = gq.simulate(gq.Circuit(1).h(0).rz(T, 0), numbers=numbers)
        gq.save_state(psi, tmp_path / f"{numbers}.npz")
        back = gq.load_state(tmp_path / f"{numbers}.npz")
        x = sympy.sympify(back.expectation("X0"))  # SymEngine's t returns without assumptions
        x = x.xreplace({s: T for s in x.free_symbols})
        assert sympy.simplify(x - sympy.cos(T)) == 0


def test_balls_keep_their_midpoints_and_enclose_the_saved_balls(tmp_path):
    psi = gq.simulate(circuit().bind({T: sympy.pi / 5}), numbers="ball:128")
    psi.save(tmp_path / "balls.npz")
    back = gq.load_state(tmp_path / "balls.npz")
    assert back.numbers.name == "ball:128"
    for saved, loaded in zip(psi.to_numpy(), back.to_numpy()):
        assert saved.mid() == loaded.mid()
        assert loaded.contains(saved)
        assert float(abs(loaded.rad())) <= float(abs(saved.rad())) * (1 + 1e-8)


def test_density_matrix_ensemble_round_trip(tmp_path):
    c = gq.Circuit(2, n_clbits=1).h(0).measure(0, 0).if_(0, 1, gq.Circuit(2).x(1))
    c.depolarizing(0.1, 1)
    rho = gq.simulate(c, method="density_matrix")
    gq.save_state(rho, tmp_path / "rho.npz", metadata={"noise": 0.1})
    back = gq.load_state(tmp_path / "rho.npz", backend="numpy")
    assert isinstance(back, gq.DensityMatrix) and back.backend.name == "numpy"
    assert np.array_equal(back.to_numpy(), rho.to_numpy())
    saved, loaded = rho.ensemble(), back.ensemble()
    assert saved.keys() == loaded.keys() and len(saved) == 2
    for bits in saved:
        assert saved[bits][0] == pytest.approx(loaded[bits][0])
        assert np.array_equal(saved[bits][1].to_numpy(), loaded[bits][1].to_numpy())


def test_classical_bits_survive(tmp_path):
    psi = gq.simulate(gq.Circuit(2, n_clbits=2).x(1).measure(1, 1).x(1), seed=1)
    assert psi.clbits == {1: 1}
    psi.save(tmp_path / "m.npz")
    assert gq.load_state(tmp_path / "m.npz").clbits == {1: 1}


def test_bad_files_and_states_are_refused(tmp_path):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not an archive")
    with pytest.raises(gq.StateFileError, match="not a state saved by genqsim"):
        gq.load_state(junk)
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, data=np.zeros(4))
    with pytest.raises(gq.StateFileError, match="no header"):
        gq.load_state(foreign)
    later = tmp_path / "later.npz"
    np.savez(later, header=np.array(json.dumps({"format": "genqsim-state/99"})))
    with pytest.raises(gq.StateFileError, match="genqsim-state/99"):
        gq.load_state(later)
    with pytest.raises(FileNotFoundError):
        gq.load_state(tmp_path / "missing.npz")
    psi = gq.simulate(gq.Circuit(1).h(0))
    with pytest.raises(gq.ArgumentTypeError, match="JSON-serialisable"):
        psi.save(tmp_path / "x.npz", metadata={"f": object()})
    trajectories = gq.simulate(gq.Circuit(1).h(0), method="trajectories", trajectories=2)
    with pytest.raises(gq.ArgumentTypeError, match="StateVector or a DensityMatrix"):
        gq.save_state(trajectories, tmp_path / "t.npz")
    dual = gq.simulate(gq.Circuit(1).ry(T, 0), numbers=gq.DualNumbers({T: 0.2}))
    with pytest.raises(gq.NumberTypeError, match="cannot be written to a file"):
        dual.save(tmp_path / "d.npz")
    assert not (tmp_path / "d.npz").exists() and not (tmp_path / "x.npz").exists()


def test_damaged_amplitudes_are_refused(tmp_path):
    psi = gq.simulate(gq.Circuit(2).h(0))
    psi.save(tmp_path / "ok.npz")
    with np.load(tmp_path / "ok.npz") as archive:
        header = str(archive["header"])
    np.savez(tmp_path / "short.npz", header=np.array(header), member_0=np.zeros(3, complex))
    with pytest.raises(gq.StateFileError, match="do not match 2 qubits"):
        gq.load_state(tmp_path / "short.npz")
