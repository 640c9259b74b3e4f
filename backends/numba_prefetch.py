"""Software prefetch for compiled kernels: ``prefetch(array, i)`` asks the cache for the line
holding ``array[i]`` ahead of its use, through LLVM's ``llvm.prefetch`` intrinsic.

The hardware prefetchers follow a few streams of consecutive lines; a gathered tile reads
hundreds of short series of amplitudes, each a stream of its own, and would otherwise wait
for every line. A prefetch is a hint: it never faults and changes no value.
"""

from __future__ import annotations

from typing import Any

import numba as nb
from llvmlite import ir
from numba.core import cgutils
from numba.extending import intrinsic

from . import numba_cache  # noqa: F401  (first: where Numba keeps this module's kernels)

_READ = 0
_KEEP_IN_ALL_LEVELS = 3  # LLVM's locality 3: keep the line in every cache level
_DATA_CACHE = 1


@intrinsic
def prefetch(typingctx: Any, array: Any, index: Any) -> Any:
    """Request the cache line of ``array[index]`` for reading (a 1-D array and an index
    inside it)."""
    if not isinstance(array, nb.types.Array) or array.ndim != 1:
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        array_type = signature.args[0]
        arr = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer2(
            context, builder, data=arr.data,
            shape=cgutils.unpack_tuple(builder, arr.shape),
            strides=cgutils.unpack_tuple(builder, arr.strides),
            layout=array_type.layout, inds=[args[1]], wraparound=False, boundscheck=False,
        )  # fmt: skip
        byte_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn_type = ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fn_type, "llvm.prefetch.p0")
        flags = (_READ, _KEEP_IN_ALL_LEVELS, _DATA_CACHE)
        builder.call(fn, [builder.bitcast(pointer, byte_pointer),
                          *(ir.Constant(i32, f) for f in flags)])  # fmt: skip
        return context.get_dummy_value()

    return nb.types.void(array, nb.types.int64), codegen
