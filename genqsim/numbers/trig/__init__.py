"""``numbers="trig"``: exact, canonical Laurent polynomials in ``exp(i*theta/2)`` with
cyclotomic coefficients (see :mod:`.system`)."""

from .angles import Angle
from .cyclotomic import DEFAULT_ORDER, CyclotomicField
from .laurent import TrigNumber
from .system import TrigNumbers

__all__ = ["DEFAULT_ORDER", "Angle", "CyclotomicField", "TrigNumber", "TrigNumbers"]
