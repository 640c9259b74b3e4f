"""Compile chosen loops with LLVM's straight-line (SLP) vectoriser, which Numba leaves off.

Numba turns LLVM's SLP vectoriser off for every function (``NUMBA_SLP_VECTORIZE=0`` by
default since Numba 0.57, after miscompilations in older LLVM). The loop vectoriser alone
cannot pack a loop whose inner trip count is a small constant: a one-qubit gate on pairs 1
to 8 amplitudes apart walks groups of 2 to 16 amplitudes, which LLVM unrolls into straight
code and then leaves scalar. Written as explicit straight code (every load of a chunk, then
every store; see :mod:`backends.numba_planar`), the SLP vectoriser packs it into full-width
multiply-adds.

:func:`slp_njit` compiles one function with the SLP vectoriser on and leaves the setting
of every other function, and of the rest of the process, as it was: the switch is flipped
only while that function's LLVM module is optimised, under Numba's compiler lock. The
functions compiled this way are checked against the generic routine like every other
kernel (``tests/test_numba_backend.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba as nb
from numba.core import config
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import register_pass
from numba.core.typed_passes import NativeLowering

from . import numba_cache  # noqa: F401  (first: where Numba keeps this module's kernels)


@register_pass(mutates_CFG=True, analysis_only=False)
class SlpNativeLowering(NativeLowering):
    """Numba's native lowering with LLVM's SLP vectoriser on while this one function's
    module is optimised (lowering finalises the module)."""

    _name = "genqsim_slp_native_lowering"  # type: ignore[assignment]

    def run_pass(self, state: Any) -> bool:
        saved = config.SLP_VECTORIZE  # type: ignore[attr-defined]
        config.SLP_VECTORIZE = 1  # type: ignore[attr-defined]
        try:
            return bool(super().run_pass(state))
        finally:
            config.SLP_VECTORIZE = saved  # type: ignore[attr-defined]


class SlpCompiler(CompilerBase):  # type: ignore[misc]
    """Numba's nopython pipeline with :class:`SlpNativeLowering` for its lowering pass."""

    def define_pipelines(self) -> list[Any]:
        manager = DefaultPassBuilder.define_nopython_pipeline(self.state)
        lowering = [i for i, (pass_, _) in enumerate(manager.passes) if pass_ is NativeLowering]
        if len(lowering) != 1:
            raise RuntimeError(
                "Numba's nopython pipeline no longer has exactly one NativeLowering pass; "
                "backends/numba_slp.py must be updated for this Numba version"
            )
        manager.passes[lowering[0]] = (SlpNativeLowering, "native lowering with SLP")
        manager.finalize()
        return [manager]


def slp_njit(fn: Callable[..., Any], cache: bool = True) -> Any:
    """``fn`` compiled like the other called loops (no GIL, NumPy error model, fast math;
    cached unless ``cache`` is false, e.g. to read its assembly), with the SLP vectoriser
    on."""
    return nb.njit(
        cache=cache, nogil=True, error_model="numpy", fastmath=True, pipeline_class=SlpCompiler
    )(fn)
