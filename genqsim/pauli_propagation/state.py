"""``method="pauli"``: a state known through its circuit, read in the Heisenberg picture.

The state keeps the circuit and the basis state it starts from; each expectation value
propagates the observable backwards through the circuit (:func:`~genqsim.heisenberg`),
so a 100-qubit shallow or noisy circuit costs what its observable's strings cost, not
``2**100``. Probabilities of a few qubits (and so sampling them) come from the ``2**k``
strings of ``Z`` on those qubits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..backends import backend_for
from ..circuit.channels import KrausChannel
from ..circuit.circuit import Circuit
from ..errors import (
    ArgumentValueError,
    NumberTypeError,
    StateTooLargeError,
)
from ..linalg.pauli import PauliSum
from ..numbers import Number, NumberSystem, get_number_system
from ..states.base import StateBase
from ..states.options import RunOptions, option
from ..states.registry import SimulationRequest
from ..support.validation import as_qubit_tuple
from .propagation import HeisenbergResult, Truncation, _initial_bits, heisenberg

ROUNDING = 1e-12
"""Probabilities this far below zero are rounding, read as zero."""

MARGINAL_MAX_QUBITS = 10
"""Probabilities (and samples) of at most this many qubits: ``2**k`` propagations each."""


@dataclass(frozen=True)
class PauliOptions(RunOptions):
    """Truncation of numeric runs (:class:`~genqsim.pauli_propagation.Truncation`): ``max_weight``
    (largest Pauli weight kept), ``min_abs_coeff`` (smallest coefficient kept),
    ``max_terms`` (most strings kept). The sum of what they drop bounds the error
    (:attr:`PauliState.truncated_weight`)."""

    max_weight: int | None = option(None, "largest Pauli weight kept (default: no limit)")
    min_abs_coeff: float = option(0.0, "smallest |coefficient| kept (numeric runs)")
    max_terms: int | None = option(None, "most Pauli strings kept (numeric runs)")

    def __post_init__(self) -> None:
        super().__post_init__()
        self.truncation  # validates the three  # noqa: B018

    @property
    def truncation(self) -> Truncation:
        return Truncation(self.max_weight, self.min_abs_coeff, self.max_terms)


class PauliState(StateBase):
    """The state ``circuit |initial>`` for Pauli propagation: expectation values,
    probabilities of up to :data:`MARGINAL_MAX_QUBITS` qubits, samples of them."""

    dense_limit = MARGINAL_MAX_QUBITS

    def __init__(
        self,
        circuit: Circuit,
        numbers: NumberSystem,
        initial: Any = None,
        options: PauliOptions | None = None,
        backend: str | None = None,
        device: str | None = None,
    ) -> None:
        self.circuit = circuit
        self.n_qubits = circuit.n_qubits
        self._numbers = numbers
        self.options = options or PauliOptions()
        self._initial = initial
        self._bits = _initial_bits(initial, circuit.n_qubits)
        self._backend = backend
        self._device = device
        self.last: HeisenbergResult | None = None
        """The propagation behind the latest expectation value."""
        self.clbits: dict[int, int] = {}
        self._norm: Any = None
        """The probability of the outcomes collapsed onto (``None``: none yet)."""

    @property
    def numbers(self) -> NumberSystem:
        return self._numbers

    def apply(self, circuit: Circuit | Any) -> PauliState:
        """Append ``circuit`` (checked first) to the circuit the state is read through."""
        self.circuit = self.circuit.compose(self.check_circuit(circuit))
        self.last = None
        return self

    def copy(self) -> PauliState:
        twin = PauliState(
            self.circuit, self._numbers, self._initial, self.options, self._backend, self._device
        )
        twin._norm = self._norm
        return twin

    @property
    def backend_name(self) -> str:
        return "pauli propagation"

    @property
    def truncated_weight(self) -> float | None:
        """The latest expectation value's truncation bound (``None`` before one, or where
        the numbers have no magnitude)."""
        return None if self.last is None else self.last.truncated_weight

    def propagate(self, observable: Any) -> HeisenbergResult:
        """The full propagation of ``observable`` (value, truncated weight, strings)."""
        t = self.options.truncation
        self.last = heisenberg(
            self.circuit,
            observable,
            self.numbers,
            self._bits,
            max_weight=t.max_weight,
            min_abs_coeff=t.min_abs_coeff,
            max_terms=t.max_terms,
            backend=self._backend,
            progress=self.options.progress,
            device=self._device,
        )
        return self.last

    def expectation(self, observable: Any) -> Number:
        """``<H>`` by Pauli propagation (a Pauli sum, or a matrix observable through its
        Pauli decomposition)."""
        value = self.propagate(PauliSum.for_state(observable, self.n_qubits)).value
        return value if self._norm is None else value / self._norm

    def probabilities(self, qubits: Sequence[int] | None = None) -> Any:
        """The distribution of ``qubits`` (all when omitted; ``qubits[0]`` the lowest bit of
        the outcome) from the ``2**k`` expectation values of ``Z`` strings on them."""
        qs = (
            tuple(range(self.n_qubits)) if qubits is None else as_qubit_tuple(qubits, self.n_qubits)
        )
        k = len(qs)
        if k > MARGINAL_MAX_QUBITS:
            raise StateTooLargeError(
                f"method='pauli' gives probabilities of at most {MARGINAL_MAX_QUBITS} qubits "
                f"(2**k propagations), asked for {k}: pass qubits=[...] or use a state vector"
            )
        ns = self.numbers
        machine = ns.dtype.kind == "c"
        moments = [self._z_moment(qs, subset) for subset in range(1 << k)]
        scale = 1.0 / (1 << k) if machine else ns.one / ns.integer(1 << k)
        out = []
        for outcome in range(1 << k):
            total: Any = 0.0 if machine else ns.zero
            for subset, m in enumerate(moments):
                total = total - m if (subset & outcome).bit_count() & 1 else total + m
            out.append(total * scale)
        if not machine:
            return np.array(out, dtype=object)
        values = np.array(out, dtype=float)
        # sums of 2**k signed moments round to -1e-17 where the probability is zero
        values[(values < 0) & (values > -ROUNDING)] = 0.0
        return values

    def _z_moment(self, qubits: tuple[int, ...], subset: int) -> Number:
        """``<prod Z_q>`` over the qubits of ``subset``."""
        word = " ".join(f"Z{q}" for i, q in enumerate(qubits) if subset >> i & 1)
        if not word:
            return 1.0 if self.numbers.dtype.kind == "c" else self.numbers.one
        return self.expectation(word)

    def _collapse(self, qubits: tuple[int, ...], outcome: int) -> None:
        """Append the projection onto ``outcome`` (a trace-decreasing channel the
        propagation carries through) and divide later values by its probability."""
        probability = self.probabilities(qubits)[outcome]
        projection = Circuit(self.n_qubits)
        for i, q in enumerate(qubits):
            bit = outcome >> i & 1
            matrix = np.zeros((2, 2))
            matrix[bit, bit] = 1.0
            channel = KrausChannel([matrix], name="projection", check_trace=False)
            channel.trace_preserving = False
            projection.channel(channel, q)
        self.circuit = self.circuit.compose(projection)
        self._norm = probability if self._norm is None else self._norm * probability
        self.last = None

    def summary(self) -> dict[str, Any]:
        if self.last is None:
            return {"strings": 0}
        return {
            "strings (peak)": self.last.peak_terms,
            "strings dropped": self.last.dropped,
            "truncated weight": self.last.truncated_weight,
        }

    def __repr__(self) -> str:
        size = len(self.circuit.operations)
        name = self.numbers.name
        return f"PauliState({self.n_qubits} qubits, {size} operations, numbers={name!r})"


def run_pauli(request: SimulationRequest) -> PauliState:
    """``method="pauli"``: the circuit and its initial basis state, read by propagation
    (machine numbers on ``device="gpu"`` propagate in GPU memory)."""
    ns = request.numbers if request.numbers is not None else get_number_system("complex128")
    if request.device not in (None, "cpu"):
        if ns.dtype.kind != "c":
            raise NumberTypeError(
                f"method='pauli' with numbers={ns.name!r} runs on the CPU; device="
                f"{request.device!r} takes complex128 or complex64 runs"
            )
        backend_for(ns, request.device, request.backend)  # a typed error where none is there
    options = request.options
    if not isinstance(options, PauliOptions):
        raise ArgumentValueError("method='pauli' takes PauliOptions")
    return PauliState(
        request.circuit, ns, request.initial, options, request.backend, request.device
    )
