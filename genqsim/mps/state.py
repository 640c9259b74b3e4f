"""``method="mps"``: a matrix-product state of qubits, optionally keeping a U(1) charge.

Circuits run gate by gate: a gate on ``k`` qubits is one ``k``-site update once its qubits
are neighbours (qubits that are not are brought together by SWAP updates and put back
after), one-qubit gates cost no SVD, and every truncation adds its discarded weight to
:attr:`MPSState.truncation_error`. Mid-circuit measurements, resets and conditionals work
as on a state vector; noise channels are drawn as quantum trajectories (one Kraus branch per
run, with its exact probability).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from ..backends import ArrayNamespace, backend_for, capability
from ..circuit.circuit import Circuit, Operation
from ..errors import (
    ArgumentTypeError,
    ArgumentValueError,
    NumberTypeError,
    QubitCountMismatchError,
    StateShapeError,
    StateTooLargeError,
)
from ..linalg.generic import marginalize
from ..linalg.pauli import PAULI_MATRICES
from ..numbers import NumberSystem, get_number_system
from ..plan import (
    ChannelCall,
    ConditionalCall,
    GateCall,
    LoopCall,
    MeasureCall,
    PlanItem,
    ResetCall,
    StoreCall,
    call_for,
    check_bound,
)
from ..states import sampling
from ..states.base import StateBase, check_qubit_count, check_same_size
from ..states.options import RunOptions, run_thread_count
from ..states.protocol import Seed
from ..states.statevector import StateVector
from ..support.blas import BlasThreads
from ..support.progress import bar_for
from ..support.validation import as_qubit_tuple
from . import readout
from .charges import charge_groups, gate_blocks, site_charges
from .network import HostCopy, Network
from .options import MPSOptions
from .truncation import Truncation

if TYPE_CHECKING:
    from ..states.registry import SimulationRequest

THREADED_BLAS_BOND = 512
"""Gates on bonds below this dimension run their SVD and products on one BLAS thread: there
several threads save nothing (bond 256: 414 ms on one thread, 508 ms on two, AMD EPYC Zen 3)
and cost a great deal beside a busy process; larger bonds use the run's threads (bond 1024:
55 s on one, 38 s on two)."""

DENSE_LIMIT = 26
"""Most qubits :meth:`MPSState.to_numpy` and full distributions expand to (1 GiB)."""

SUMMARY_DENSE_LIMIT = 20
"""Most qubits whose full distribution a report lists (``2**20`` rows); sample above."""

_PAULI = {
    "X": PAULI_MATRICES["X"],
    "Z": PAULI_MATRICES["Z"],
    "XZ": PAULI_MATRICES["X"] @ PAULI_MATRICES["Z"],
}


def with_controls(call: GateCall) -> np.ndarray:
    """The call's matrix on ``call.qubits`` (targets, then controls; ``qubits[0]`` the
    lowest bit), the identity wherever the controls do not hold."""
    matrix = np.asarray(call.dense(), dtype=complex)
    if not call.controls:
        return matrix
    k, c = len(call.targets), len(call.controls)
    full = np.eye(1 << (k + c), dtype=complex)
    pattern = sum(v << (k + i) for i, v in enumerate(call.control_values))
    index = pattern + np.arange(1 << k)
    full[np.ix_(index, index)] = matrix
    return full


def reordered(matrix: np.ndarray, qubits: Sequence[int], order: Sequence[int]) -> np.ndarray:
    """A gate matrix over ``qubits`` (``qubits[0]`` its lowest bit) re-indexed over the same
    qubits listed as ``order`` (``order[0]`` the lowest bit)."""
    k = len(qubits)
    axes = [k - 1 - list(qubits).index(order[k - 1 - b]) for b in range(k)]
    tensor = matrix.reshape((2,) * (2 * k))
    return tensor.transpose(axes + [k + a for a in axes]).reshape(1 << k, 1 << k)


def in_site_order(matrix: np.ndarray, qubits: Sequence[int]) -> np.ndarray:
    """The matrix over ``qubits`` in increasing order, the lowest qubit the slowest index
    (an MPS's site order)."""
    return reordered(matrix, qubits, sorted(qubits, reverse=True))


@dataclass(frozen=True)
class MergedGate:
    """Consecutive gates on the same one or two qubits as one matrix (``qubits[0]`` its
    lowest bit)."""

    matrix: np.ndarray
    qubits: tuple[int, ...]


def merged_calls(circuit: Circuit, numbers: NumberSystem) -> list[tuple[Any, str]]:
    """The circuit's calls with each run of gates that together touch at most two qubits
    merged into one :class:`MergedGate`, named after its operations: one SVD instead of
    several, and products such as a Trotter step's XX and YY rotations, which conserve a
    charge only together."""
    out: list[tuple[Any, str]] = []
    run: tuple[np.ndarray, tuple[int, ...], list[str]] | None = None

    def flush() -> None:
        if run is not None:
            out.append((MergedGate(run[0], run[1]), " then ".join(run[2])))

    for op in circuit.operations:
        call = call_for(op, numbers)
        if call is None:
            continue
        if not isinstance(call, GateCall):
            flush()
            run = None
            out.append((call, str(op)))
            continue
        matrix, qubits = with_controls(call), call.qubits
        if run is not None and len(set(run[1]) | set(qubits)) <= 2:
            union = tuple(run[1]) + tuple(q for q in qubits if q not in run[1])
            product = _widened(matrix, qubits, union) @ _widened(run[0], run[1], union)
            run = (product, union, run[2] + [str(op)])
        else:
            flush()
            run = (matrix, qubits, [str(op)])
    flush()
    return out


def _widened(matrix: np.ndarray, qubits: tuple[int, ...], union: tuple[int, ...]) -> np.ndarray:
    """``matrix`` on ``qubits`` as a matrix on ``union`` (identity on the others)."""
    extra = [q for q in union if q not in qubits]
    full = np.kron(np.eye(1 << len(extra)), matrix)
    return reordered(full, tuple(qubits) + tuple(extra), union)


class MPSState(StateBase):
    """A pure state of ``n_qubits`` qubits as a matrix-product state (see the module docs).

    ``conserve``: ``None``, ``"N"`` (the number of qubits in ``|1>``) or ``"Sz"``; a gate that
    changes the conserved charge is refused with :class:`~genqsim.errors.ChargeViolationError`.
    ``truncation``: the bond limits (:class:`Truncation`).
    """

    def __init__(
        self,
        network: Network,
        numbers: NumberSystem,
        truncation: Truncation,
        conserve: str | None,
        progress: bool = False,
    ) -> None:
        self._net = network
        self._readable = HostCopy()
        self.n_qubits = network.n_sites
        self._numbers = numbers
        self.truncation = truncation
        self.conserve = conserve
        self.progress = progress
        self.threads: int | None = None
        """CPU threads for the BLAS calls of large bonds (``None``: genqsim's default)."""
        self._clbits: dict[int, int] = {}

    @classmethod
    def basis(
        cls,
        bits: str | Sequence[int],
        numbers: str | NumberSystem = "complex128",
        truncation: Truncation | None = None,
        conserve: str | None = None,
        device: str = "cpu",
    ) -> MPSState:
        """The basis state ``bits``: a bitstring (qubit 0 rightmost) or local states by site;
        ``device="gpu"`` keeps the blocks on a GPU."""
        ns = machine_numbers(numbers)
        states = _local_states(bits)
        charges = site_charges(conserve, 2)
        net = Network.product(states, charges, ns.dtype, array_module(device))
        return cls(net, ns, truncation or Truncation(), conserve)

    @classmethod
    def from_vector(
        cls,
        vector: Any,
        numbers: str | NumberSystem = "complex128",
        truncation: Truncation | None = None,
        conserve: str | None = None,
        device: str = "cpu",
    ) -> MPSState:
        """The MPS of a normalised state vector (an array or a StateVector), split exactly
        (or as ``truncation`` allows) on the host, then moved to ``device``."""
        ns = machine_numbers(numbers)
        array = vector.to_numpy() if isinstance(vector, StateVector) else np.asarray(vector)
        n = int(array.size).bit_length() - 1
        if array.ndim != 1 or array.size != 1 << n or n < 1:
            raise StateShapeError(
                f"a state vector has 2**n entries (n >= 1), got shape {array.shape}"
            )
        norm = float(np.linalg.norm(array))
        if not math.isfinite(norm) or abs(norm - 1.0) > 1e-8:
            raise ArgumentValueError(f"the state vector has norm {norm:.6g}; normalise it first")
        trunc = truncation or Truncation()
        net = Network.from_dense(array.astype(ns.dtype), n, site_charges(conserve, 2), trunc)
        xp = array_module(device)
        return cls(net if xp is np else net.moved_to(xp), ns, trunc, conserve)

    # ------------------------------------------------------------ protocol

    @property
    def device(self) -> str:
        """Where the blocks live: ``"cpu"`` (NumPy) or ``"gpu"`` (a GPU backend's arrays)."""
        return "cpu" if self._net.xp is np else "gpu"

    def _touched(self) -> None:
        """Note a change of the blocks (the host copy for readouts is then made again)."""
        self._readable.touched()

    def _host(self) -> Network:
        """The network with host blocks, for readouts (the network itself on the CPU)."""
        return self._readable.of(self._net)

    @property
    def numbers(self) -> NumberSystem:
        return self._numbers

    @property
    def clbits(self) -> dict[int, int]:
        return self._clbits

    @property
    def truncation_error(self) -> float:
        """The summed discarded weight of every truncation so far (relative to the norm):
        for one truncation, exactly ``1 - |<exact|psi>|**2``."""
        return self._net.truncation_error

    @property
    def bond_dimensions(self) -> list[int]:
        """The dimension of every bond ``1 .. n-1`` (cut after qubit ``0 .. n-2``)."""
        return [sum(b.values()) for b in self._net.bonds[1:-1]]

    @property
    def max_bond_dimension(self) -> int:
        return self._net.max_bond()

    @property
    def total_charge(self) -> int:
        """The conserved charge of the state (0 with ``conserve=None``)."""
        return self._net.total_charge

    def bond_charges(self, cut: int) -> dict[int, int]:
        """The charge sectors of the bond after ``cut`` qubits: charge -> dimension."""
        self._check_cut(cut)
        return dict(self._net.bonds[cut])

    def copy(self) -> MPSState:
        out = MPSState(
            self._net.copy(), self._numbers, self.truncation, self.conserve, self.progress
        )
        out._clbits = dict(self._clbits)
        out.threads = self.threads
        return out

    def __repr__(self) -> str:
        kept = "" if self.conserve is None else f", conserve={self.conserve!r}"
        return (
            f"MPSState({self.n_qubits} qubits, max bond {self.max_bond_dimension}{kept}, "
            f"truncation error {self.truncation_error:.3g})"
        )

    def apply(self, circuit: Circuit | Operation, seed: Seed = None) -> MPSState:
        """Run a circuit (or one operation) in place; validated whole before any change."""
        circuit = self.check_circuit(circuit)
        check_bound(circuit, self._numbers)
        circuit, _ = circuit.split_terminal_measurements()  # those only feed sampling
        prepared = []  # every gate checked for charge before any change
        for item, name in merged_calls(circuit, self._numbers):
            prepared.append(self._prepare(item, name))
        rng = sampling.rng(seed)
        chi = self.truncation.max_bond or 2 ** min(self.n_qubits // 2, 10)
        bar = bar_for(self.progress, len(prepared), len(prepared) * float(chi) ** 3, "mps")
        many = self.threads or run_thread_count(None, RunOptions())
        with BlasThreads() as blas:
            for done, item in enumerate(prepared, 1):
                blas.use(many if self._bond_at(item) >= THREADED_BLAS_BOND else 1)
                self._run(item, rng)
                self._touched()
                if bar is not None:
                    bar.update(done)
        if bar is not None:
            bar.close()
        return self

    def _bond_at(self, item: Any) -> int:
        """The largest bond inside a gate's sites (0 for one site or a non-gate item): what
        its SVD and products scale with."""
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], tuple)):
            return 0
        sites = item[0]
        inner = self._net.bonds[sites[0] + 1 : sites[-1] + 1]
        return max((sum(b.values()) for b in inner), default=0)

    def _prepare(self, item: PlanItem | MergedGate, name: str) -> Any:
        """A plan item with each gate as ``(sites, charge blocks)``, checked for charge
        (``name``: the operation, for the error)."""
        if isinstance(item, MergedGate):
            return self._gate(item.matrix, item.qubits, name)
        if isinstance(item, GateCall):
            return self._gate(with_controls(item), item.qubits, name)
        if isinstance(item, (ConditionalCall, LoopCall)):
            return (item, *([self._prepare(c, name) for c in calls] for calls in item.branches))
        if isinstance(item, ChannelCall):
            kraus = [
                self._gate(with_controls(k), k.qubits, f"{name} (a Kraus operator)")
                for k in item.kraus
            ]
            return (item, kraus)
        if isinstance(item, (MeasureCall, ResetCall, StoreCall)):
            return item
        raise ArgumentTypeError(f"method='mps' cannot run {type(item).__name__}")

    def _gate(
        self, matrix: np.ndarray, qubits: Sequence[int], name: str
    ) -> tuple[tuple[int, ...], dict[int, np.ndarray]]:
        sites = tuple(sorted(qubits))
        ordered = in_site_order(matrix, qubits).astype(self._numbers.dtype)
        return sites, gate_blocks(ordered, charge_groups(self._net.charges, len(sites)), name)

    def _run(self, item: Any, rng: np.random.Generator) -> None:
        if isinstance(item, (MeasureCall, ResetCall)):
            p = readout.marginal(self._host(), [item.qubit])
            self._settle(item, int(rng.random() >= p[0] / p.sum()), p)
        elif isinstance(item, StoreCall):
            self._clbits.update(item.written(self._clbits))
        elif isinstance(item, tuple) and isinstance(item[0], ConditionalCall):
            for inner in item[1] if item[0].holds(self._clbits) else item[2]:
                self._run(inner, rng)
        elif isinstance(item, tuple) and isinstance(item[0], LoopCall):

            def once() -> None:
                for inner in item[1]:
                    self._run(inner, rng)

            item[0].repeat(lambda: self._clbits, once)
        elif isinstance(item, tuple) and isinstance(item[0], ChannelCall):
            self._draw_kraus(item[1], rng)
        else:
            sites, blocks = item
            self._net.apply_on(sites, blocks, self.truncation)

    def _settle(self, item: MeasureCall | ResetCall, outcome: int, p: np.ndarray) -> None:
        """Collapse the qubit of a measurement or reset onto ``outcome`` (``p``: its qubit's
        two probabilities), project and renormalise (a canonical sweep unless the outcome
        was certain), then write the bit, or for a reset turn 1 back into 0."""
        self._project({item.qubit: outcome}, certain=p[outcome] / p.sum() > CERTAIN)
        if isinstance(item, MeasureCall):
            self._clbits[item.clbit] = outcome
        elif outcome == 1:
            self._net.relabel(item.qubit, 1, 0)

    # ------------------------------------------------------------- shots

    def shot_groups(
        self, circuit: Circuit, shots: int, seed: Seed = None
    ) -> Iterator[tuple[MPSState, int]]:
        """``shots`` runs of ``circuit`` from this state (left as it is), in groups that split
        where a measurement or a channel sends shots different ways (a binomial or
        multinomial draw of the group's shots), as :mod:`genqsim.states.branching` runs state
        vectors: each group's final state, whose classical bits are its shots' record, and
        its shots, yielded as each group ends (one group runs to its end before the parts
        of a split wait their turn, so few states are held at once). Terminal measurements
        are left to sampling each group's state."""
        circuit = self.check_circuit(circuit)
        check_bound(circuit, self._numbers)
        circuit, _ = circuit.split_terminal_measurements()
        calls = merged_calls(circuit, self._numbers)
        prepared = [self._prepare(item, name) for item, name in calls]  # all checked first
        rng = sampling.rng(seed)
        with BlasThreads() as blas:
            blas.use(self.threads or run_thread_count(None, RunOptions()))
            yield from _grouped(prepared, [(self.copy(), sampling.check_shots(shots))], rng)

    def _split(self, item: Any, shots: int, rng: np.random.Generator) -> list[tuple[MPSState, int]]:
        """Run one prepared item for a group of ``shots`` on this state: the groups it left
        (this state among them, collapsed or not, and copies for the other outcomes)."""
        if isinstance(item, (MeasureCall, ResetCall)):
            p = readout.marginal(self._host(), [item.qubit])
            ones = int(rng.binomial(shots, min(max(float(p[1] / p.sum()), 0.0), 1.0)))
            shares = [(outcome, k) for outcome, k in ((0, shots - ones), (1, ones)) if k]
            out = []
            for i, (outcome, k) in enumerate(shares):
                target = self if i == len(shares) - 1 else self.copy()
                target._settle(item, outcome, p)
                target._touched()
                out.append((target, k))
            return out
        if isinstance(item, tuple) and isinstance(item[0], ConditionalCall):
            branch = item[1] if item[0].holds(self._clbits) else item[2]
            return list(_grouped(branch, [(self, shots)], rng))
        if isinstance(item, tuple) and isinstance(item[0], LoopCall):
            pending, done = [(self, shots, 0)], []
            while pending:
                state, k, iterations = pending.pop()
                if not item[0].holds(state._clbits):
                    done.append((state, k))
                    continue
                item[0].check_iterations(iterations + 1)
                again = _grouped(item[1], [(state, k)], rng)
                pending += [(s, j, iterations + 1) for s, j in again]
            return done
        if isinstance(item, tuple) and isinstance(item[0], ChannelCall):
            trials, weights = [], []
            for sites, blocks in item[1]:  # each Kraus operator on a copy: its weight
                trial = self._net.copy()
                weights.append(trial.apply_on(sites, blocks, self.truncation))
                trials.append(trial)
            drawn = rng.multinomial(shots, np.array(weights) / sum(weights))
            out = []
            for trial, drawn_shots in zip(trials, drawn.tolist()):
                if drawn_shots:
                    target = self.copy()
                    trial.canonicalize(self.truncation)
                    target._net = trial
                    target._touched()
                    out.append((target, drawn_shots))
            return out
        self._run(item, rng)  # a gate or a store: the same for every shot of the group
        self._touched()
        return [(self, shots)]

    def _project(self, outcomes: dict[int, int], certain: bool = False) -> None:
        """Keep the blocks of each site's outcome and restore the canonical form. ``certain``:
        the outcomes had probability 1 (to rounding), so the blocks dropped held nothing and
        the state, its norm and its Schmidt values are as they were: no sweep (a repeated
        parity check reads what the one before read)."""
        for site, s in outcomes.items():
            self._net.tensors[site] = {
                key: b for key, b in self._net.tensors[site].items() if key[1] == s
            }
        if not certain:
            self._net.canonicalize(self.truncation)

    def _draw_kraus(
        self, kraus: list[tuple[tuple[int, ...], dict[int, np.ndarray]]], rng: np.random.Generator
    ) -> None:
        """One branch of a channel, drawn with probability ``||K psi||**2``."""
        u = rng.random()
        cumulative = 0.0
        for index, (sites, blocks) in enumerate(kraus):
            trial = self._net.copy()
            cumulative += trial.apply_on(sites, blocks, self.truncation)
            if u < cumulative or index == len(kraus) - 1:
                trial.canonicalize(self.truncation)
                self._net = trial
                return

    # ------------------------------------------------------------- readout

    def probabilities(self, qubits: Sequence[int] | None = None) -> np.ndarray:
        """All ``2**n`` probabilities (up to :data:`DENSE_LIMIT` qubits), or the marginal of
        ``qubits`` (``qubits[0]`` the lowest bit), contracted without the full vector."""
        qs = (
            tuple(range(self.n_qubits)) if qubits is None else as_qubit_tuple(qubits, self.n_qubits)
        )
        if len(qs) > DENSE_LIMIT:
            raise StateTooLargeError(
                f"a distribution over {len(qs)} qubits has 2**{len(qs)} entries; sample instead"
            )
        if not qs:
            return np.ones(1)
        chi = self._net.max_bond()
        if self.n_qubits <= DENSE_LIMIT and (1 << self.n_qubits) < (1 << len(qs)) * chi * chi:
            return marginalize(np.abs(self._host().to_dense()) ** 2, qs)  # the smaller work
        return readout.marginal(self._host(), list(qs))

    def sample(
        self, shots: int, seed: Seed = None, qubits: Sequence[int] | None = None
    ) -> dict[str, int]:
        """Counts of ``shots`` measurements (no collapse), drawn exactly site by site; keys
        as :meth:`StateVector.sample` (``qubits[0]`` rightmost)."""
        shots = sampling.check_shots(shots)
        qs = (
            tuple(range(self.n_qubits)) if qubits is None else as_qubit_tuple(qubits, self.n_qubits)
        )
        if shots == 0 or not qs:
            return {"": shots} if shots and not qs else {}
        drawn = readout.sample_sites(self._host(), shots, max(qs), sampling.rng(seed))
        chosen = drawn[:, list(qs)]
        index = chosen @ (1 << np.arange(len(qs), dtype=np.int64))
        values, counts = np.unique(index, return_counts=True)
        return {sampling.bitstring(int(v), len(qs)): int(c) for v, c in zip(values, counts)}

    def measure(self, qubits: Sequence[int] | None = None, seed: Seed = None) -> str:
        """Measure ``qubits`` (all when omitted), collapse onto the outcome and return it
        (``qubits[0]`` rightmost)."""
        qs = (
            tuple(range(self.n_qubits)) if qubits is None else as_qubit_tuple(qubits, self.n_qubits)
        )
        if not qs:
            return ""
        drawn = readout.sample_sites(self._host(), 1, max(qs), sampling.rng(seed))[0]
        outcome = {q: int(drawn[q]) for q in qs}
        if len(qs) == self.n_qubits:
            self._touched()
            self._net = Network.product(
                [outcome[q] for q in range(self.n_qubits)],
                self._net.charges,
                self._net.dtype,
                self._net.xp,
            )
        else:
            self._project(outcome)
        return "".join(str(outcome[q]) for q in reversed(qs))

    dense_limit = SUMMARY_DENSE_LIMIT
    """Above this many qubits the command line lists no probabilities (sample instead)."""

    @property
    def backend_name(self) -> str:
        """What runs the blocks: LAPACK through NumPy on the CPU, the GPU backend's arrays."""
        return "numpy (LAPACK)" if self.device == "cpu" else "gpu"

    def summary(self) -> dict[str, Any]:
        """What the command line reports beside the results."""
        n = self.n_qubits
        return {
            "mps": {
                "max_bond": self.max_bond_dimension,
                "truncation_error": self.truncation_error,
                "conserve": self.conserve,
                "entropy_middle": self.entanglement_entropy(n // 2) if n > 1 else 0.0,
            }
        }

    def _pauli_value(self, x_mask: int, z_mask: int) -> complex:
        operators = {}
        for q in range(self.n_qubits):
            key = ("X" if x_mask >> q & 1 else "") + ("Z" if z_mask >> q & 1 else "")
            if key:
                operators[q] = _PAULI[key]
        return readout.operator_expectation(self._host(), operators)

    def expectation_local(self, operators: dict[int, Any]) -> complex:
        """``<psi| prod_q O_q |psi>`` for ``2 x 2`` operators on some qubits (``{qubit:
        matrix}``): local densities, correlation functions, string operators."""
        checked = {}
        for q, op in operators.items():
            (q,) = as_qubit_tuple(q, self.n_qubits)
            matrix = np.asarray(op, dtype=complex)
            if matrix.shape != (2, 2):
                raise StateShapeError(f"a one-qubit operator is 2 x 2, got shape {matrix.shape}")
            checked[q] = matrix
        return readout.operator_expectation(self._host(), checked)

    def correlation(self, op_a: Any, op_b: Any, qubits: Sequence[int] | None = None) -> np.ndarray:
        """The matrix ``<A_i B_j>`` over ``qubits`` (all by default); ``A_i B_i`` on the
        diagonal."""
        qs = (
            tuple(range(self.n_qubits)) if qubits is None else as_qubit_tuple(qubits, self.n_qubits)
        )
        a, b = np.asarray(op_a, dtype=complex), np.asarray(op_b, dtype=complex)
        out = np.zeros((len(qs), len(qs)), dtype=complex)
        for i, qi in enumerate(qs):
            for j, qj in enumerate(qs):
                ops = {qi: a @ b} if qi == qj else {qi: a, qj: b}
                out[i, j] = self.expectation_local(ops)
        return out

    def amplitude(self, bits: str | Sequence[int]) -> complex:
        """``<bits|psi>`` for a bitstring (qubit 0 rightmost) or local states by qubit."""
        states = _local_states(bits)
        if len(states) != self.n_qubits:
            raise QubitCountMismatchError(
                f"{len(states)} bits for a state of {self.n_qubits} qubits"
            )
        return readout.amplitude(self._host(), states)

    def entanglement_entropy(self, cut: int | None = None, base: float = 2) -> Any:
        """The entropy of the first ``cut`` qubits (in bits by default) from the Schmidt
        values; without ``cut``, an array over every cut ``1 .. n-1``."""
        values = readout.entropies(self._host(), base)
        if cut is None:
            return values
        self._check_cut(cut)
        return float(values[cut - 1])

    def schmidt_values(self, cut: int) -> np.ndarray:
        """The Schmidt values of the bond after ``cut`` qubits, largest first."""
        self._check_cut(cut)
        return np.sort(self._host().dense_schmidt(cut))[::-1]

    def _check_cut(self, cut: Any) -> None:
        if (
            isinstance(cut, bool)
            or not isinstance(cut, (int, np.integer))
            or not 1 <= cut < self.n_qubits
        ):
            raise ArgumentValueError(
                f"a cut is an integer in 1 .. {self.n_qubits - 1}, got {cut!r}"
            )

    def to_numpy(self) -> np.ndarray:
        """The dense state vector (up to :data:`DENSE_LIMIT` qubits)."""
        if self.n_qubits > DENSE_LIMIT:
            raise StateTooLargeError(
                f"a dense vector of {self.n_qubits} qubits has 2**{self.n_qubits} amplitudes"
            )
        return self._host().to_dense()

    def to_statevector(self) -> StateVector:
        return StateVector(self.to_numpy(), self._numbers)

    def inner(self, other: MPSState) -> complex:
        """``<self|other>`` by one left-to-right contraction of the two networks."""
        if not isinstance(other, MPSState):
            raise ArgumentTypeError(f"expected an MPSState, got {type(other).__name__}")
        check_same_size(self, other)
        env = np.ones((1, 1), dtype=complex)
        for j in range(self.n_qubits):
            a, b = self._host().dense_site(j), other._host().dense_site(j)
            env = np.einsum("ab,asr,bsx->rx", env, a.conj(), b, optimize=True)
        return complex(env[0, 0])

    def fidelity(self, other: MPSState) -> float:
        return abs(self.inner(other)) ** 2


def _local_states(bits: str | Sequence[int]) -> list[int]:
    if isinstance(bits, str):
        if not bits or set(bits) - {"0", "1"}:
            raise ArgumentValueError(f"a bitstring holds 0s and 1s, got {bits!r}")
        return [int(b) for b in reversed(bits)]
    states = [int(s) for s in bits]
    if any(s not in (0, 1) for s in states):
        raise ArgumentValueError(f"qubit states are 0 or 1, got {list(bits)!r}")
    return states


def array_module(device: str | None, backend: str | None = None) -> ModuleType:
    """The module the blocks live in: NumPy on the CPU, or the array namespace of the device
    backend chosen for ``device`` / ``backend`` (its :class:`~genqsim.backends.ArrayNamespace`
    capability)."""
    if device not in (None, "cpu", "gpu"):
        raise ArgumentValueError(f"device must be 'cpu' or 'gpu', got {device!r}")
    chosen = backend_for(get_number_system("complex128"), device, backend)
    if chosen.device == "cpu":
        return np
    namespace = capability(chosen, ArrayNamespace)
    if namespace is None:
        raise NumberTypeError(
            f"method='mps' keeps its blocks in the backend's arrays, and {chosen.name!r} "
            "offers no array namespace"
        )
    return namespace.array_namespace()


def machine_numbers(numbers: str | NumberSystem | None) -> NumberSystem:
    """The number system of an MPS's blocks (complex128 by default); others are refused."""
    ns = get_number_system(numbers or "complex128")
    if ns.name not in ("complex128", "complex64"):
        raise NumberTypeError(
            f"method='mps' truncates by SVD, which needs machine numbers (complex128 or "
            f"complex64), not {ns.name!r}: for exact {ns.name} results use "
            "method='statevector'"
        )
    return ns


CERTAIN = 1 - 1e-12
"""A measurement outcome this likely is certain: projecting on it needs no canonical sweep."""


def _grouped(
    items: Sequence[Any], groups: list[tuple[MPSState, int]], rng: np.random.Generator
) -> Iterator[tuple[MPSState, int]]:
    """``items`` (prepared: :meth:`MPSState._prepare`) run on every group, each group (and
    then each part of it a split left) to the end before the next: the groups as they end."""
    pending = [(state, shots, 0) for state, shots in reversed(groups)]
    while pending:
        state, shots, index = pending.pop()
        while index < len(items):
            parts = state._split(items[index], shots, rng)
            index += 1
            state, shots = parts[0]
            pending += [(other, k, index) for other, k in reversed(parts[1:])]
        yield state, shots


def run_mps(request: SimulationRequest) -> MPSState:
    """``method="mps"``: the circuit on a matrix-product state (see :class:`MPSState`)."""
    ns = machine_numbers(request.numbers)
    options = MPSOptions.of(request.options)
    xp = array_module(request.device, request.backend)
    device = "cpu" if xp is np else "gpu"
    truncation = Truncation(options.max_bond, options.cutoff)
    n = request.circuit.n_qubits
    initial = request.initial
    if initial is None:
        state = MPSState.basis([0] * n, ns, truncation, options.conserve, device)
    elif isinstance(initial, MPSState):
        state = initial.copy()
        state.truncation = truncation
    elif isinstance(initial, str) or (
        isinstance(initial, (int, np.integer)) and not isinstance(initial, bool)
    ):
        bits = initial if isinstance(initial, str) else format(int(initial), f"0{n}b")
        state = MPSState.basis(bits, ns, truncation, options.conserve, device)
    else:
        state = MPSState.from_vector(initial, ns, truncation, options.conserve, device)
    check_qubit_count("initial state", state.n_qubits, n, "the circuit")
    state.progress = options.progress
    state.threads = options.threads
    return state.apply(request.circuit, seed=request.seed)
