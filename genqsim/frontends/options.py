"""What a front door passes to genqsim: the keywords of :func:`genqsim.simulate` and a noise
model, checked when the front door is made (a misspelt option fails there, not in a job)."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..circuit.noise import NoiseModel
from ..errors import ArgumentTypeError, UnknownOptionError
from ..numbers import get_number_system
from ..states.registry import AUTO, available_methods, method_spec, simulate

SIMULATE_KEYWORDS = frozenset(inspect.signature(simulate).parameters) - {"circuit", "options"}
"""Keywords :func:`genqsim.simulate` takes for every method."""


@dataclass(frozen=True)
class SimulateSettings:
    """A noise model (or ``None``) and keywords for :func:`genqsim.simulate`."""

    noise: NoiseModel | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def make(cls, noise_model: Any, options: Mapping[str, Any]) -> SimulateSettings:
        """Settings from a genqsim or Qiskit Aer noise model and keywords, refusing a keyword
        no method takes (with the options the named method has) and an unknown number
        system or method."""
        return cls(as_noise_model(noise_model), checked_options(options))


def as_noise_model(noise_model: Any) -> NoiseModel | None:
    """A genqsim noise model from ``None``, a genqsim model or a Qiskit Aer ``NoiseModel``."""
    if noise_model is None or isinstance(noise_model, NoiseModel):
        return noise_model
    if type(noise_model).__module__.startswith("qiskit_aer"):
        return NoiseModel.from_aer(noise_model)
    raise ArgumentTypeError(
        "noise_model takes a genqsim NoiseModel or a qiskit_aer.noise.NoiseModel, "
        f"got {type(noise_model).__name__}"
    )


def checked_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` for :func:`genqsim.simulate`, after checking the method, the number system
    and that every keyword is one :func:`simulate` or some method takes."""
    options = dict(options)
    method = options.get("method", AUTO)
    if method != AUTO:
        spec = method_spec(method)  # an unknown method fails here, naming the known ones
        own = {k: v for k, v in options.items() if k not in SIMULATE_KEYWORDS}
        spec.make_options(own)
    else:
        every = set(SIMULATE_KEYWORDS).union(
            *(method_spec(m).option_names() for m in available_methods())
        )
        unknown = sorted(set(options) - every)
        if unknown:
            raise UnknownOptionError(
                f"no method takes the option {', '.join(map(repr, unknown))}; genqsim.simulate "
                f"takes {', '.join(sorted(SIMULATE_KEYWORDS))} and each method's options "
                "(genqsim.available_methods())"
            )
    if options.get("numbers") is not None:
        get_number_system(options["numbers"])
    return options
