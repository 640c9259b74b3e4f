"""Typed errors raised by genqsim.

Every error derives from :class:`GenqsimError`; each also derives from the built-in exception a
Python user would expect (``ValueError`` for bad values, ``TypeError`` for bad types,
``MemoryError`` for states that do not fit), so ``except ValueError`` keeps working.
"""

from __future__ import annotations


class GenqsimError(Exception):
    """Base class of every error genqsim raises on purpose."""


class QubitIndexError(GenqsimError, IndexError):
    """A qubit index is not an integer in ``range(n_qubits)``."""


class DuplicateQubitError(GenqsimError, ValueError):
    """The same qubit appears twice among an operation's targets and controls."""


class ControlTargetOverlapError(DuplicateQubitError):
    """A qubit is used both as a control and as a target."""


class ControlValueError(GenqsimError, ValueError):
    """``control_values`` does not match ``controls`` or holds something other than 0/1."""


class MatrixShapeError(GenqsimError, ValueError):
    """A gate matrix, diagonal or permutation has the wrong shape for its targets."""


class NotUnitaryError(GenqsimError, ValueError):
    """A matrix given as a gate is not unitary (within tolerance)."""


class NonFiniteError(GenqsimError, ValueError):
    """A numeric parameter or matrix entry is NaN or infinite."""


class UnboundParameterError(GenqsimError, ValueError):
    """A circuit still has free parameters where the numbers cannot carry symbols."""


class UnknownParameterError(GenqsimError, KeyError):
    """``bind`` was given a parameter that the circuit does not have."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else ""


class UnknownGateError(GenqsimError, ValueError):
    """A gate name is not in the gate library."""


class UnknownNumberSystemError(GenqsimError, ValueError):
    """A number system name is not known (or its optional dependency is missing)."""


class UnknownBackendError(GenqsimError, ValueError):
    """A backend name is not registered, or cannot handle the given array."""


class NumberTypeError(GenqsimError, TypeError):
    """An array's element type does not belong to the requested number system."""


class StateShapeError(GenqsimError, ValueError):
    """A state array is not one-dimensional with a power-of-two length."""


class StateFileError(GenqsimError, ValueError):
    """A file is not a state saved by genqsim, or is damaged or of a later format."""


class QubitCountMismatchError(GenqsimError, ValueError):
    """A circuit, observable or second state does not have the state's number of qubits."""


class StateTooLargeError(GenqsimError, MemoryError):
    """A state would not fit in the memory available; raised before allocating."""


class PauliSyntaxError(GenqsimError, ValueError):
    """A Pauli-sum string cannot be parsed."""


class NotNumericError(GenqsimError, ValueError):
    """A numeric result (sampling, measurement) was asked of a state with free symbols."""


class InvalidProbabilityError(GenqsimError, ValueError):
    """Probabilities are negative, non-finite or sum to zero, so nothing can be sampled."""


class CircuitSourceError(GenqsimError, ValueError):
    """A circuit source given to the command line (``qft:3``, a file) is not understood."""


class ThreadCountError(GenqsimError, ValueError):
    """A thread count outside what the backend allows."""


class UnknownMethodError(GenqsimError, ValueError):
    """A simulation method (state kind) that is not registered."""


class ShotsError(GenqsimError, ValueError):
    """A shot count that is negative or not an integer."""


class ArgumentTypeError(GenqsimError, TypeError):
    """An argument of the wrong type (a string where a circuit goes, a float qubit count)."""


class ArgumentValueError(GenqsimError, ValueError):
    """An argument of the right type with a value outside what the call accepts."""


class NotTracePreservingError(GenqsimError, ValueError):
    """Numeric Kraus operators whose ``sum K^dagger K`` is not the identity."""


class ChannelParameterError(GenqsimError, ValueError):
    """A noise channel's parameter is outside its range (a probability above one, T2 > 2 T1)."""


class NoiseModelError(GenqsimError, ValueError):
    """A noise model rule or file that cannot be used as given."""


class SlowFallbackWarning(UserWarning):
    """A fast backend could not load, so states run on a slower generic one (said once)."""


class ChargeViolationError(GenqsimError, ValueError):
    """A gate or state that does not conserve the charge a matrix-product state keeps
    (``conserve="N"`` or ``"Sz"``)."""


class UnknownOptionError(GenqsimError, TypeError):
    """An option the chosen simulation method does not have (the message lists its options)."""


class UnsupportedOperationError(GenqsimError, TypeError):
    """An operation the chosen method cannot run (the message names the method that can)."""


class ExpressionGrowthWarning(UserWarning):
    """An exact run whose expressions are expected to grow past what finishes in seconds
    (the message gives the estimate and the cheaper route)."""


class NoiseModelWarning(UserWarning):
    """A noise model rule that is valid but probably not what was meant (a gate name no gate
    of the table has, which only a defined or matrix gate of that name would match)."""


class ProductFormulaWarning(UserWarning):
    """A Qiskit ``PauliEvolutionGate`` of non-commuting terms too wide for its exact
    exponential: it runs as the product formula Qiskit synthesises for it (as Aer runs it),
    not as the exact ``exp(-i t H)`` of Qiskit's ``Statevector``."""


class NormalizationError(GenqsimError, ValueError):
    """A state given to start a run whose norm is not one (the message gives its squared
    norm and how to normalise it)."""


class WhileLoopLimitError(GenqsimError, RuntimeError):
    """A while loop that ran its most iterations in one shot (the message names its
    condition and the limit): it would likely never have ended."""


class CollectiveMismatchError(GenqsimError, RuntimeError):
    """MPI ranks that did not make the same collective call: one waited past the timeout for
    the others, or they called different methods (the message names the call and the ranks)."""
