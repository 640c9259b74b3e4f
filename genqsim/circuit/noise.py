"""Noise models: rules that insert channels into a circuit after the gates they name, and
readout errors that change reported measurement bits.

>>> import genqsim as gq
>>> from genqsim.circuit import channels
>>> from genqsim.circuit.noise import NoiseModel
>>> model = NoiseModel().add_all_qubit_error(channels.depolarizing(0.01))
>>> noisy = model.apply(gq.Circuit(2).h(0).cx(0, 1))  # a channel after every gate
>>> rho = gq.simulate(noisy)  # method="auto": noise runs as an exact density matrix
>>> rho.method, round(float(rho.probabilities()[0]), 4)
('density_matrix', 0.4934)
>>> tally = gq.counts(noisy, 1000, seed=1, readout=model.readout)  # readout errors too

Rules match gates by name as :meth:`Circuit.count_ops` writes them (``"h"``, ``"cx"``,
``"ccx"``, ``"rz"``; ``"measure"`` and ``"reset"`` too) and optionally by qubits (the
operation's controls then targets, in order). A channel on as many qubits as the gate acts
on all of them; a one-qubit channel on a larger gate acts on each of its qubits. A channel
after a measurement goes before it (it models an error of the measurement itself).

Readout errors are confusion matrices ``P[true][reported]`` per qubit; they apply to the bits
reported in counts (conditionals inside the circuit see the true outcomes).

A model also comes from text (``"depolarizing:0.01"``, the command line's ``--noise``), from
a JSON (or YAML, with PyYAML) file, or from a Qiskit Aer ``NoiseModel`` (:meth:`from_aer`).
"""

from __future__ import annotations

import json
import numbers as _abc
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ArgumentTypeError, NoiseModelError, NoiseModelWarning
from . import channels
from .channels import CHANNEL_SPECS, NamedChannel, QuantumChannel
from .circuit import Circuit, Operation
from .conditional import Conditional
from .gates import GateKind, gate_width

NOISELESS = (
    GateKind.BARRIER, GateKind.CHANNEL, GateKind.CONDITIONAL, GateKind.LOOP, GateKind.STORE
)  # fmt: skip
"""Operations a noise model puts no channel on (a conditional's body gets its own)."""


class ReadoutError:
    """A classical confusion matrix ``probabilities[true][reported]`` for one qubit's
    measurement (rows sum to one)."""

    def __init__(self, probabilities: Any) -> None:
        m = np.asarray(probabilities, dtype=np.float64)
        if m.shape != (2, 2):
            raise NoiseModelError(f"a readout error is a 2x2 confusion matrix, got {m.shape}")
        if not np.all(np.isfinite(m)) or np.any(m < 0) or np.any(np.abs(m.sum(axis=1) - 1) > 1e-9):
            raise NoiseModelError(
                f"readout rows are probabilities summing to one, got {m.tolist()}"
            )
        self.probabilities = m

    @classmethod
    def symmetric(cls, p: float) -> ReadoutError:
        """Each bit reported flipped with probability ``p``."""
        return cls([[1 - p, p], [p, 1 - p]])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ReadoutError) and bool(
            np.array_equal(self.probabilities, other.probabilities)
        )

    def __hash__(self) -> int:
        return hash(self.probabilities.tobytes())

    def __repr__(self) -> str:
        return f"ReadoutError({self.probabilities.tolist()})"


@dataclass
class Readout:
    """Readout errors by qubit (``default`` for qubits without their own), applied to the
    classical bits measured from those qubits."""

    default: ReadoutError | None = None
    by_qubit: dict[int, ReadoutError] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.default is not None or bool(self.by_qubit)

    def for_qubit(self, qubit: int) -> ReadoutError | None:
        return self.by_qubit.get(qubit, self.default)

    def clbit_errors(self, circuit: Circuit) -> dict[int, ReadoutError]:
        """The error on each classical bit: that of the qubit last measured into it (none
        where a store wrote it since: a stored value is no reading)."""
        out: dict[int, ReadoutError] = {}
        for op in circuit.operations:
            if op.kind is GateKind.STORE:
                for clbit in op.gate.bits_written:
                    out.pop(clbit, None)
            elif op.kind is GateKind.MEASURE:
                error = self.for_qubit(op.targets[0])
                clbit = op.gate.clbit  # type: ignore[attr-defined]
                if error is None:
                    out.pop(clbit, None)
                else:
                    out[clbit] = error
        return out

    def apply_to_distribution(
        self, distribution: Mapping[str, float], errors: Mapping[int, ReadoutError]
    ) -> dict[str, float]:
        """The distribution of reported bitstrings (bit ``c`` at position ``-1-c``)."""
        current = dict(distribution)
        for clbit, error in errors.items():
            nxt: dict[str, float] = {}
            for key, weight in current.items():
                pos = len(key) - 1 - clbit
                if pos < 0:
                    continue
                true = int(key[pos])
                for reported in (0, 1):
                    w = weight * error.probabilities[true, reported]
                    if w > 0:
                        k = key[:pos] + str(reported) + key[pos + 1 :]
                        nxt[k] = nxt.get(k, 0.0) + w
            current = nxt
        return dict(sorted(current.items()))

    def apply_to_counts(
        self,
        counts: Mapping[str, int],
        errors: Mapping[int, ReadoutError],
        rng: np.random.Generator,
    ) -> dict[str, int]:
        """Counts with every shot's bits flipped as the confusion matrices say."""
        out: dict[str, int] = {}
        for key, count in counts.items():
            bits = np.array([list(key)] * count, dtype="U1") if count else None
            if bits is None:
                continue
            for clbit, error in errors.items():
                pos = len(key) - 1 - clbit
                if pos < 0:
                    continue
                true = int(key[pos])
                flip = rng.random(count) < error.probabilities[true, 1 - true]
                bits[flip, pos] = str(1 - true)
            for row in bits:
                k = "".join(row)
                out[k] = out.get(k, 0) + 1
        return dict(sorted(out.items()))


@dataclass(frozen=True)
class _Rule:
    channel: QuantumChannel
    gates: frozenset[str] | None  # None: every gate
    qubits: tuple[int, ...] | None  # None: any qubits
    widen: bool = False  # depolarizing:P: the two-qubit channel after two-qubit gates
    each_qubit: bool = False  # a one-qubit channel on each qubit of wider gates


class NoiseModel:
    """Channels inserted after gates by name and qubits, and readout errors (module docs)."""

    def __init__(self) -> None:
        self._rules: list[_Rule] = []
        self.readout = Readout()

    # -- building -------------------------------------------------------------------------------
    def add_all_qubit_error(
        self,
        channel: QuantumChannel,
        gates: str | Iterable[str] | None = None,
        *,
        each_qubit: bool = False,
    ) -> NoiseModel:
        """``channel`` after every gate named in ``gates`` (every unitary gate when omitted;
        name ``"measure"`` or ``"reset"`` explicitly), on any qubits.

        A channel's width must match the gates': a one-qubit channel named for a wider gate
        (``"cx"``) is refused unless ``each_qubit=True`` puts it on each of the gate's
        qubits (without ``gates``, after every gate, it goes on each qubit of wider ones).
        A name that is no gate genqsim knows warns (:class:`~genqsim.errors.NoiseModelWarning`):
        it can only match gates given that name (a defined or matrix gate), so it is often a
        typo."""
        names = _gate_names(gates)
        rule = _Rule(_check_channel(channel), names, None, each_qubit=bool(each_qubit))
        self._rules.append(_checked_rule(rule))
        return self

    def add_error(
        self,
        channel: QuantumChannel,
        gates: str | Iterable[str] | None,
        qubits: int | Sequence[int],
        *,
        each_qubit: bool = False,
    ) -> NoiseModel:
        """``channel`` after the named gates when they act on exactly ``qubits`` (in order:
        controls, then targets); such a rule replaces the all-qubit ones for those gates.
        Widths and names are checked as by :meth:`add_all_qubit_error`."""
        rule = _Rule(
            _check_channel(channel),
            _gate_names(gates),
            _qubits(qubits),
            each_qubit=bool(each_qubit),
        )
        self._rules.append(_checked_rule(rule))
        return self

    def add_readout_error(
        self, error: ReadoutError | Any, qubits: int | Sequence[int] | None = None
    ) -> NoiseModel:
        """A readout error on ``qubits`` (every qubit when omitted)."""
        error = error if isinstance(error, ReadoutError) else ReadoutError(error)
        if qubits is None:
            self.readout.default = error
        else:
            for q in _qubits(qubits):
                self.readout.by_qubit[q] = error
        return self

    def __bool__(self) -> bool:
        return bool(self._rules) or bool(self.readout)

    def __repr__(self) -> str:
        return f"<NoiseModel: {len(self._rules)} channel rule(s), readout={bool(self.readout)}>"

    # -- applying -------------------------------------------------------------------------------
    def channels_for(self, op: Operation) -> list[tuple[QuantumChannel, tuple[int, ...]]]:
        """The channels (with their qubits) the model puts on ``op``."""
        if op.kind in NOISELESS:
            return []
        name = "c" * len(op.controls) + op.gate.name
        qubits = op.qubits
        unitary = op.kind not in (GateKind.MEASURE, GateKind.RESET)
        matching = [
            r for r in self._rules if (r.gates is None and unitary) or (r.gates and name in r.gates)
        ]
        local = [r for r in matching if r.qubits == qubits]
        chosen = local if local else [r for r in matching if r.qubits is None]
        out: list[tuple[QuantumChannel, tuple[int, ...]]] = []
        for rule in chosen:
            k = rule.channel.n_qubits
            if rule.widen and len(qubits) == 2:
                out.append((channels.depolarizing(rule.channel.params[0], 2), qubits))
            elif k == len(qubits):
                out.append((rule.channel, qubits))
            elif k == 1 and (rule.each_qubit or rule.gates is None):
                out.extend((rule.channel, (q,)) for q in qubits)
            else:
                raise NoiseModelError(
                    f"a {k}-qubit channel ({rule.channel.name}) cannot follow {name} on "
                    f"{len(qubits)} qubit(s)"
                    + (": pass each_qubit=True to put it on each qubit" if k == 1 else "")
                )
        return out

    def apply(self, circuit: Circuit) -> Circuit:
        """A new circuit with the model's channels inserted (inside conditionals and while
        loops too)."""
        if not isinstance(circuit, Circuit):
            raise ArgumentTypeError(f"apply() takes a Circuit, got {type(circuit).__name__}")
        out: list[Operation] = []
        for op in circuit.operations:
            if isinstance(op.gate, Conditional):
                out.append(Operation(op.gate.map_bodies(self.apply), op.targets))
                continue
            noise = [Operation(ch, qs) for ch, qs in self.channels_for(op)]
            if op.kind is GateKind.MEASURE:
                out.extend(noise)
                out.append(op)
            else:
                out.append(op)
                out.extend(noise)
        return Circuit(circuit.n_qubits, out, n_clbits=circuit.n_clbits)

    # -- reading --------------------------------------------------------------------------------
    @classmethod
    def from_spec(cls, specs: str | Sequence[str]) -> NoiseModel:
        """A model from short specs: ``"depolarizing:0.01"`` (one- and two-qubit depolarizing
        after one- and two-qubit gates, one-qubit on each qubit of larger ones), any library
        channel as ``"NAME:P1,P2,..."`` after every gate, ``"readout:P"`` (symmetric) or
        ``"readout:P01,P10"``; a path to a JSON/YAML file reads that file."""
        model = cls()
        for spec in [specs] if isinstance(specs, str) else list(specs):
            if Path(spec).suffix.lower() in (".json", ".yaml", ".yml"):
                model._merge(cls.from_file(spec))
                continue
            name, _, args = spec.partition(":")
            name = name.strip().lower()
            try:
                values = [float(a) for a in args.split(",")] if args.strip() else []
            except ValueError as exc:
                raise NoiseModelError(f"noise spec {spec!r}: parameters are numbers") from exc
            if name == "readout":
                if len(values) not in (1, 2):
                    raise NoiseModelError("readout:P or readout:P01,P10")
                p01, p10 = values[0], values[-1]
                model.add_readout_error([[1 - p01, p01], [p10, 1 - p10]])
            elif name == "depolarizing":
                if len(values) != 1:
                    raise NoiseModelError("depolarizing takes one probability: depolarizing:P")
                model._rules.append(_Rule(channels.depolarizing(values[0]), None, None, True))
            elif name in CHANNEL_SPECS:
                model.add_all_qubit_error(NamedChannel(name, *values))
            else:
                known = ", ".join(sorted([*CHANNEL_SPECS, "readout"]))
                raise NoiseModelError(f"unknown noise {name!r} in {spec!r}; known: {known}")
        return model

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NoiseModel:
        """From ``{"errors": [{"channel": NAME, "params": [...], "gates": [...],
        "qubits": [...]}, ...], "readout": [{"probabilities": [[..], [..]], "qubits":
        [...]}, ...]}`` (``gates``/``qubits`` optional; a channel may also be ``"kraus"`` with
        ``"matrices"``: lists of ``[re, im]`` pairs or numbers)."""
        if not isinstance(data, Mapping):
            raise NoiseModelError("a noise model file holds an object with 'errors'/'readout'")
        unknown = set(data) - {"errors", "readout"}
        if unknown:
            raise NoiseModelError(f"unknown noise model keys: {sorted(unknown)}")
        model = cls()
        for i, rule in enumerate(data.get("errors", [])):
            where = f"errors[{i}]"
            try:
                name = rule["channel"]
                if name == "kraus":
                    channel: QuantumChannel = channels.kraus(
                        [_complex_matrix(m) for m in rule["matrices"]]
                    )
                else:
                    channel = NamedChannel(name, *rule.get("params", []))
            except (KeyError, TypeError) as exc:
                raise NoiseModelError(f"{where}: needs 'channel' (and 'params'): {exc}") from exc
            if "qubits" in rule:
                model.add_error(channel, rule.get("gates"), rule["qubits"])
            else:
                model.add_all_qubit_error(channel, rule.get("gates"))
        for i, rule in enumerate(data.get("readout", [])):
            if "probabilities" not in rule:
                raise NoiseModelError(f"readout[{i}]: needs 'probabilities'")
            model.add_readout_error(rule["probabilities"], rule.get("qubits"))
        return model

    @classmethod
    def from_file(cls, path: str | Path) -> NoiseModel:
        """A model from a JSON file (YAML when PyYAML is installed), as :meth:`from_dict`."""
        p = Path(path)
        if not p.is_file():
            raise NoiseModelError(f"noise model file {str(p)!r} not found")
        text = p.read_text()
        if p.suffix.lower() in (".yaml", ".yml"):
            try:
                import yaml  # type: ignore[import-untyped]
            except ImportError as exc:
                raise NoiseModelError("reading YAML noise models needs PyYAML") from exc
            data = yaml.safe_load(text)
        else:
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise NoiseModelError(
                    f"{p}: not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
                ) from exc
        return cls.from_dict(data)

    @classmethod
    def from_aer(cls, aer_model: Any) -> NoiseModel:
        """A model from a Qiskit Aer ``NoiseModel``: every quantum error as its Kraus
        channel, on the same instructions and qubits, and its readout errors."""
        from qiskit.quantum_info import Kraus

        model = cls()
        for instruction, error in aer_model._default_quantum_errors.items():
            model.add_all_qubit_error(_aer_channel(error, Kraus), _aer_gate(instruction))
        for instruction, by_qubits in aer_model._local_quantum_errors.items():
            for qubits, error in by_qubits.items():
                model.add_error(_aer_channel(error, Kraus), _aer_gate(instruction), qubits)
        if aer_model._default_readout_error is not None:
            model.add_readout_error(aer_model._default_readout_error.probabilities)
        for qubits, error in aer_model._local_readout_errors.items():
            model.add_readout_error(error.probabilities, qubits)
        return model

    def _merge(self, other: NoiseModel) -> None:
        self._rules.extend(other._rules)
        if other.readout.default is not None:
            self.readout.default = other.readout.default
        self.readout.by_qubit.update(other.readout.by_qubit)


def _qubits(qubits: int | Sequence[int]) -> tuple[int, ...]:
    if isinstance(qubits, (_abc.Integral, np.integer)):
        return (int(qubits),)
    return tuple(int(q) for q in qubits)  # type: ignore[union-attr]


def _checked_rule(rule: _Rule) -> _Rule:
    """``rule``, after the checks a rule gets when it is added: its gate names are gates
    genqsim knows (else a warning), and its channel is as wide as they are (or
    ``each_qubit``)."""
    if rule.gates is None:
        return rule
    k = rule.channel.n_qubits
    for name in sorted(rule.gates):
        width = gate_width(name)
        if width is None and name not in ("measure", "reset"):
            warnings.warn(
                NoiseModelWarning(
                    f"no gate genqsim knows is named {name!r}: the {rule.channel.name} rule "
                    "only follows gates given that name (a defined or matrix gate); "
                    "check the spelling (names are lower case: 'cx', 'rz', 'measure')"
                ),
                stacklevel=3,
            )
            continue
        if not width:
            continue  # measure, reset, or a name of any width (checked when the rule applies)
        if rule.qubits is not None and len(rule.qubits) != width:
            raise NoiseModelError(
                f"{name} acts on {width} qubit(s), but the rule names {len(rule.qubits)}: "
                f"{list(rule.qubits)}"
            )
        if k != width and not (k == 1 and rule.each_qubit):
            fix = (
                "pass each_qubit=True to put it on each of the gate's qubits, or give a "
                f"{width}-qubit channel (channels.depolarizing(p, {width}), or Kraus operators "
                f"on {width} qubits)"
                if k == 1
                else f"give a {width}-qubit channel"
            )
            raise NoiseModelError(
                f"a {k}-qubit channel ({rule.channel.name}) cannot follow {name}, which acts "
                f"on {width} qubit(s): {fix}"
            )
    return rule


def _check_channel(channel: Any) -> QuantumChannel:
    if not isinstance(channel, QuantumChannel):
        raise ArgumentTypeError(
            f"noise rules take a channel (genqsim.channels), got {type(channel).__name__}"
        )
    return channel


def _gate_names(gates: str | Iterable[str] | None) -> frozenset[str] | None:
    if gates is None:
        return None
    names = [gates] if isinstance(gates, str) else list(gates)
    if not all(isinstance(g, str) for g in names):
        raise ArgumentTypeError(f"gate names are strings, got {gates!r}")
    return frozenset(g.lower() for g in names)


def _complex_matrix(rows: Any) -> np.ndarray:
    return np.array(
        [[complex(*v) if isinstance(v, list) else complex(v) for v in row] for row in rows]
    )


_AER_NAMES = {"cnot": "cx", "u3": "u", "toffoli": "ccx", "fredkin": "cswap"}


def _aer_gate(instruction: str) -> str:
    return _AER_NAMES.get(instruction, instruction)


def _aer_channel(error: Any, kraus_type: Any) -> QuantumChannel:
    return channels.kraus(list(kraus_type(error).data), name="aer_error")
