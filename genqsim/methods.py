"""The built-in simulation methods, registered with their options and the rules by which
``method="auto"`` chooses them.

Each method is one :class:`~genqsim.states.MethodSpec`: a run function, the dataclass of
its options (the command line's flags come from it) and, where it applies, an automatic
rule. Registering them here, above the state kinds, keeps every kind's module free of the
others (the registry itself names none).
"""

from __future__ import annotations

from .circuit.circuit import Circuit
from .distributed.options import MPIOptions
from .distributed.ranks import launched_ranks
from .distributed.state import run_mpi
from .mps.options import MPSOptions
from .mps.state import run_mps
from .numbers import NumberSystem
from .pauli_propagation.state import PauliOptions, run_pauli
from .states import MethodSpec, register_method
from .states.density import DensityOptions, run_density_matrix
from .states.interval import run_interval
from .states.swept import run_statevector_point, sweep_with
from .states.tangent import run_tangent
from .states.trajectories import TrajectoryOptions, run_trajectories

DENSITY_MATRIX_MAX_QUBITS = 12
"""Noisy circuits up to this many qubits run as density matrices under ``method="auto"``
(4**12 entries, 256 MiB in complex128); larger ones as trajectories."""


def _machine(numbers: NumberSystem | None) -> bool:
    return numbers is None or numbers.dtype.kind == "c"


def _noisy_and_small(circuit: Circuit, numbers: NumberSystem | None) -> bool:
    """Noise channels, and a density matrix that fits (any size for exact numbers: only a
    density matrix gives them exact channels); no while loops (they run shot by shot)."""
    return (
        circuit.has_noise
        and not circuit.has_loops
        and (circuit.n_qubits <= DENSITY_MATRIX_MAX_QUBITS or not _machine(numbers))
    )


def _noisy(circuit: Circuit, numbers: NumberSystem | None) -> bool:
    return circuit.has_noise and _machine(numbers)


def _several_ranks(circuit: Circuit, numbers: NumberSystem | None) -> bool:
    return launched_ranks() > 1 and not circuit.has_noise and _machine(numbers)


BUILT_IN = (
    MethodSpec(
        "statevector",
        run_statevector_point,
        summary="a dense state vector, any numbers",
        light_cone=True,
        sweep=sweep_with,
    ),
    MethodSpec(
        "density_matrix",
        run_density_matrix,
        DensityOptions,
        "mixed states: noise channels exactly, mid-circuit measurements as an ensemble",
        auto=_noisy_and_small,
        priority=20,
        ensemble=True,
        averages=True,
        light_cone=True,
    ),
    MethodSpec(
        "trajectories",
        run_trajectories,
        TrajectoryOptions,
        "noisy circuits averaged over state-vector runs",
        auto=_noisy,
        priority=10,
        averages=True,
    ),
    MethodSpec(
        "interval", run_interval, summary="a rigorous enclosure of the exact state", light_cone=True
    ),
    MethodSpec("tangent", run_tangent, summary="a state and its parameter derivatives"),
    MethodSpec(
        "mpi",
        run_mpi,
        MPIOptions,
        "a state vector spread over the ranks of mpiexec",
        auto=_several_ranks,
        priority=30,
    ),
    MethodSpec(
        "mps",
        run_mps,
        MPSOptions,
        "a matrix-product state, optionally U(1)-blocked",
        light_cone=True,
    ),
    MethodSpec(
        "pauli",
        run_pauli,
        PauliOptions,
        "expectation values by Pauli propagation (Heisenberg picture), any width",
        averages=True,
    ),
)

for _spec in BUILT_IN:
    register_method(_spec)
