"""genqsim: a quantum-circuit simulator whose routines run on any array of numbers.

>>> import genqsim as gq
>>> c = gq.Circuit(2).h(0).cx(0, 1)
>>> gq.simulate(c, numbers="sympy").amplitudes.tolist()
[sqrt(2)/2, 0, 0, sqrt(2)/2]
"""

from __future__ import annotations

import os

import numpy as np

from . import library
from .analysis.errorbound import ErrorBound, error_bound
from .analysis.symbolic import lambdify, simplify, to_symengine, to_sympy
from .backends import (
    ThreadScoped,
    available_backends,
    capability,
    get_backend,
    register_backend,
    select_backend,
)
from .circuit import channels, gates
from .circuit.circuit import Circuit, Operation, parameters
from .circuit.composite import Composite
from .circuit.gates import Gate, GateKind, MatrixGate, PauliRotation, gate
from .differentiation.gradients import gradient, hessian, jacobian
from .differentiation.propagation import Propagation, propagate
from .distributed.options import MPIOptions
from .errors import (
    ArgumentTypeError,
    ArgumentValueError,
    ChannelParameterError,
    ChargeViolationError,
    CircuitSourceError,
    CollectiveMismatchError,
    ControlTargetOverlapError,
    ControlValueError,
    DuplicateQubitError,
    ExpressionGrowthWarning,
    GenqsimError,
    InvalidProbabilityError,
    MatrixShapeError,
    NoiseModelError,
    NoiseModelWarning,
    NonFiniteError,
    NormalizationError,
    NotNumericError,
    NotTracePreservingError,
    NotUnitaryError,
    NumberTypeError,
    PauliSyntaxError,
    ProductFormulaWarning,
    QubitCountMismatchError,
    QubitIndexError,
    ShotsError,
    SlowFallbackWarning,
    StateFileError,
    StateShapeError,
    StateTooLargeError,
    ThreadCountError,
    UnboundParameterError,
    UnknownBackendError,
    UnknownGateError,
    UnknownMethodError,
    UnknownNumberSystemError,
    UnknownOptionError,
    UnknownParameterError,
    UnsupportedOperationError,
    WhileLoopLimitError,
)
from .io import qasm, qpy
from .library import iqp_encode
from .linalg.observables import Hermitian, SparseObservable
from .linalg.pauli import PauliSum
from .methods import BUILT_IN as BUILT_IN_METHODS
from .mps.options import MPSOptions
from .numbers import NumberSystem, available_number_systems, get_number_system
from .numbers.dual import Dual, DualNumbers
from .pauli_propagation import HeisenbergResult, heisenberg
from .pauli_propagation.state import PauliOptions, PauliState
from .states import (
    DensityMatrix,
    DensityOptions,
    Estimate,
    HasAmplitudes,
    HasOverlap,
    IntervalState,
    MethodSpec,
    RunOptions,
    State,
    StateVector,
    TangentState,
    TrajectoryOptions,
    TrajectoryState,
    available_methods,
    basis,
    choose_method,
    counts,
    enclose,
    expectation,
    load_state,
    memory,
    probabilities,
    record_distribution,
    register_method,
    save_state,
    simulate,
    unitary,
    zeros,
)
from .states.batch import apply_batch
from .states.sampling import ShotEstimate
from .version import __version__ as __version__


def from_qiskit(qc):
    """A genqsim Circuit from a Qiskit QuantumCircuit (needs qiskit)."""
    from .io.interop import from_qiskit as _convert

    return _convert(qc)


def from_cirq(circuit):
    """A genqsim Circuit from a cirq.Circuit (needs cirq)."""
    from .io.cirq_reader import from_cirq as _convert

    return _convert(circuit)


def to_cirq(circuit):
    """A cirq.Circuit from a genqsim Circuit (needs cirq)."""
    from .io.interop import to_cirq as _convert

    return _convert(circuit)


def to_qiskit(circuit):
    """A Qiskit QuantumCircuit from a genqsim Circuit (needs qiskit)."""
    from .io.interop import to_qiskit as _convert

    return _convert(circuit)


def _threaded_backends() -> list[ThreadScoped]:
    """Every available backend that runs on several CPU threads."""
    found = (capability(get_backend(name), ThreadScoped) for name in available_backends())
    return [b for b in found if b is not None]


def set_num_threads(n: int) -> None:
    """The default thread count of every threaded CPU backend (the compiled kernels), for
    runs on the calling thread that set no ``threads=`` of their own."""
    threaded = _threaded_backends()
    limit = min((b.max_threads() for b in threaded), default=os.cpu_count() or 1)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= limit:
        raise ThreadCountError(
            f"thread count must be an integer in 1..{limit} (the threads the compiled "
            f"backends may use), got {n!r}"
        )
    for backend in threaded:
        backend.set_default_threads(int(n))


def get_num_threads() -> int:
    """The default thread count of the threaded CPU backends (1 where none is installed)."""
    return max((b.default_threads() for b in _threaded_backends()), default=1)


__all__ = [
    "BUILT_IN_METHODS",
    "ArgumentTypeError",
    "ArgumentValueError",
    "ChannelParameterError",
    "ChargeViolationError",
    "Circuit",
    "CircuitSourceError",
    "CollectiveMismatchError",
    "Composite",
    "ControlTargetOverlapError",
    "ControlValueError",
    "DensityMatrix",
    "DensityOptions",
    "Dual",
    "DualNumbers",
    "DuplicateQubitError",
    "ErrorBound",
    "Estimate",
    "ExpressionGrowthWarning",
    "Gate",
    "GateKind",
    "GenqsimError",
    "HasAmplitudes",
    "HasOverlap",
    "HeisenbergResult",
    "Hermitian",
    "IntervalState",
    "InvalidProbabilityError",
    "MPIOptions",
    "MPSOptions",
    "MatrixGate",
    "MatrixShapeError",
    "MethodSpec",
    "NoiseModelError",
    "NoiseModelWarning",
    "NonFiniteError",
    "NormalizationError",
    "NotNumericError",
    "NotTracePreservingError",
    "NotUnitaryError",
    "NumberSystem",
    "NumberTypeError",
    "Operation",
    "PauliOptions",
    "PauliRotation",
    "PauliState",
    "PauliSum",
    "PauliSyntaxError",
    "ProductFormulaWarning",
    "Propagation",
    "QubitCountMismatchError",
    "QubitIndexError",
    "RunOptions",
    "ShotEstimate",
    "ShotsError",
    "SlowFallbackWarning",
    "SparseObservable",
    "State",
    "StateFileError",
    "StateShapeError",
    "StateTooLargeError",
    "StateVector",
    "TangentState",
    "ThreadCountError",
    "TrajectoryOptions",
    "TrajectoryState",
    "UnboundParameterError",
    "UnknownBackendError",
    "UnknownGateError",
    "UnknownMethodError",
    "UnknownNumberSystemError",
    "UnknownOptionError",
    "UnknownParameterError",
    "UnsupportedOperationError",
    "WhileLoopLimitError",
    "apply_batch",
    "available_backends",
    "available_methods",
    "available_number_systems",
    "basis",
    "channels",
    "choose_method",
    "counts",
    "enclose",
    "error_bound",
    "expectation",
    "from_cirq",
    "from_qiskit",
    "gate",
    "gates",
    "get_backend",
    "get_num_threads",
    "get_number_system",
    "gradient",
    "heisenberg",
    "hessian",
    "iqp_encode",
    "jacobian",
    "lambdify",
    "library",
    "load_state",
    "memory",
    "parameters",
    "probabilities",
    "propagate",
    "qasm",
    "qpy",
    "record_distribution",
    "register_backend",
    "register_method",
    "save_state",
    "select_backend",
    "set_num_threads",
    "simplify",
    "simulate",
    "to_cirq",
    "to_qiskit",
    "to_symengine",
    "to_sympy",
    "unitary",
    "zeros",
]
