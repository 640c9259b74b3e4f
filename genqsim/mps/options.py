"""The options of ``method="mps"``: bond limit, discarded weight and conserved charge."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ArgumentValueError
from ..states.options import RunOptions, option
from .charges import CONSERVED
from .truncation import Truncation


@dataclass(frozen=True)
class MPSOptions(RunOptions):
    """``max_bond``: the largest bond dimension (``None``: no limit); ``cutoff``: the largest
    discarded weight per truncation; ``conserve``: the U(1) charge every gate must keep
    (``None``, ``"N"`` or ``"Sz"``; :mod:`genqsim.mps`)."""

    max_bond: int | None = option(None, "largest bond dimension (default: no limit)")
    cutoff: float = option(0.0, "largest discarded weight per truncation")
    conserve: str | None = option(
        None, "U(1) charge every gate must keep", choices=tuple(c for c in CONSERVED if c)
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        self.truncation  # validates max_bond and cutoff  # noqa: B018
        if self.conserve not in CONSERVED:
            raise ArgumentValueError(f"conserve must be one of {CONSERVED}, got {self.conserve!r}")

    @property
    def truncation(self) -> Truncation:
        """The truncation these options ask for."""
        return Truncation(self.max_bond, self.cutoff)
