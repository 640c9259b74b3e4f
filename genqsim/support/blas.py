"""The thread count of the BLAS library NumPy calls (OpenBLAS, MKL, BLIS: whichever
`threadpoolctl <https://github.com/joblib/threadpoolctl>`_ finds), set for the length of a
genqsim run and restored after it, so other code in the process keeps its own setting.

Why: OpenBLAS starts one thread per CPU and its idle threads spin. Matrix-product-state
updates call it thousands of times on small matrices, where extra threads save nothing and,
with another process busy on one core, each call waits for a descheduled thread: a 16-qubit
MPS run (bond 32) took 322 ms with two BLAS threads beside a busy neighbour, against 105 ms
with one, and 107 / 102 ms without the neighbour (AMD EPYC Zen 3, 2 cores).
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any

_found: tuple[int, Any] = (-1, None)
"""The controller of the loaded BLAS libraries, and how many modules were loaded then."""


def _blas_libraries() -> Any:
    """threadpoolctl's controller of the loaded BLAS libraries (``None`` without it or
    without any). A library is only ever loaded with a module (NumPy's, SciPy's own copy,
    a peer simulator's), so the scan (milliseconds) is redone only when modules were
    imported since the last one."""
    global _found
    loaded = len(sys.modules)
    if _found[0] != loaded:
        _found = (loaded, _scan())
    return _found[1]


def _scan() -> Any:
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    found = ThreadpoolController().select(user_api="blas")
    return found if found.lib_controllers else None


class BlasThreads:
    """A context that sets the BLAS thread count with :meth:`use` (at once, or again and
    again as the work grows: each change costs one library call) and restores the counts
    the libraries had on exit.

    >>> with BlasThreads() as blas:
    ...     blas.use(1)  # small products from here on
    """

    def __init__(self) -> None:
        self._libraries = _blas_libraries()
        self._first: Any = None  # the first limiter, which remembers the original counts
        self._current: int | None = None

    def __enter__(self) -> BlasThreads:
        return self

    def use(self, count: int) -> None:
        """BLAS calls from here on run on ``count`` threads."""
        if self._libraries is None or count == self._current:
            return
        limiter = self._libraries.limit(limits=int(count))
        if self._first is None:
            self._first = limiter
        self._current = count

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._first is not None:
            self._first.restore_original_limits()
