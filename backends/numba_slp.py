"""Compile chosen loops with LLVM's straight-line (SLP) vectoriser, which Numba leaves off,
and keep the loop vectoriser from gathering and scattering in any kernel.

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

On AVX-512 CPUs LLVM's loop vectoriser may instead pack the loop over chunks, one
amplitude of each of eight chunks per register, with gathers and scatters: on a Zen 4 EPYC
those loops ran 5-19x slower than the straight code. :func:`vector_njit` (every kernel
build and helper) and :func:`slp_njit` look at the code they made for the CPU they
compile for and optimise a function's module again without the loop vectoriser where it
gathers or scatters (:data:`SCATTERED`); the choice is kept with the compiled code in
Numba's cache, which is per CPU.

Both also link a large called function (more than :data:`LATE_LINK_INSTRUCTIONS` LLVM
instructions: the row-level bodies of the block-run kernels, a threaded kernel's loop body)
into the caller after the caller's module is optimised instead of before, so that code
already optimised is not optimised again in every caller. Both are done where Numba
finalises a kernel's module (:func:`_finalize_linking_late`).

Machine code is made only for what runs: a library finalised here gets it when an address
in it or its object code is first asked for (:func:`_make_code`). A threaded loop's body and
a function with no entry point from Python (:func:`helper_njit`: every helper, a kernel's
range functions, :mod:`backends.numba_ranges`, and the row bodies its runs share) are only
ever linked into their callers, so they never get any; Numba's cache keeps such a
function's LLVM code, which is what its callers link.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import llvmlite.binding as llvm
import numba as nb
from numba.core import codegen, config, cpu, errors
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_lock import global_compiler_lock
from numba.core.compiler_machinery import register_pass
from numba.core.typed_passes import NativeLowering, NativeParforLowering

from . import numba_cache  # noqa: F401  (first: where Numba keeps this module's kernels)

SCATTERED = ("vgather", "vscatter")
"""Instructions that say LLVM's loop vectoriser packed a loop over short runs of amplitudes
across runs (AVX-512 gathers and scatters, one amplitude of each of eight chunks or groups
per register) instead of leaving each run to straight packed code. On an AMD EPYC Zen 4
(AVX-512) that made the loops that produced them 5-19x slower: on a 20-qubit complex128
state, one thread, T on qubit 2 took 4.85 ms and U on qubit 2 5.54 ms, 0.25 and 1.19 ms
once compiled without it. Compiled for Zen 3 or Haswell (AVX2, no scatters) the same loops
have no gathers either, so nothing changes there."""


VECTOR_GATHERS = ("llvm.masked.gather", "llvm.masked.scatter")
"""The LLVM intrinsics the loop vectoriser packs such loops with; the code generator makes
them :data:`SCATTERED` (or, where the CPU has none, scalar loads and stores; the loop
vectoriser's cost model does not choose them there)."""

LATE_LINK_INSTRUCTIONS = 1000
"""A called function of more LLVM instructions than this (with what it calls) is linked into
a kernel after the kernel's module is optimised, not before (:func:`_finalize_linking_late`)."""

_LATE_LINKING = threading.local()


def _instructions(library: Any) -> int:
    """LLVM instructions in the code ``library`` lends to its callers, counted up to one
    more than :data:`LATE_LINK_INSTRUCTIONS` (all that linking asks; a row body's 35,000
    are not walked one by one in every caller that links it)."""
    limit = LATE_LINK_INSTRUCTIONS + 1
    counted = getattr(library, "_genqsim_instructions", None)
    if counted is None or counted[0] != limit:
        module = library._get_module_for_linking()
        instructions = (instruction for fn in module.functions if not fn.is_declaration
                        for block in fn.blocks for instruction in block.instructions)  # fmt: skip
        counted = (limit, sum(1 for _ in itertools.islice(instructions, limit)))
        library._genqsim_instructions = counted
    return int(counted[1])


def _inlined(library: Any) -> bool:
    """Whether ``library``'s own function is one every caller inlines (``forceinline``):
    defined there with external linkage (what it links in from others is ``linkonce_odr``)
    and marked ``alwaysinline``."""
    inlined = getattr(library, "_genqsim_inlined", None)
    if inlined is None:
        inlined = any(
            attribute == b"alwaysinline"
            for fn in library._final_module.functions
            if not fn.is_declaration and fn.linkage == llvm.Linkage.external
            for attribute in fn.attributes
        )  # fmt: skip
        library._genqsim_inlined = inlined
    return bool(inlined)


def _finalize_linking_late(library: Any) -> None:
    """Numba's ``CPUCodeLibrary.finalize`` for genqsim's kernels: large callees linked after
    optimisation, and the module optimised again without the loop vectoriser where it
    gathered or scattered.

    Numba links every called function's (already optimised) code into the caller's module
    and then runs the full optimisation pipeline over all of it, so that small callees can be
    inlined. A large callee (the row-level bodies every block-run kernel calls, a threaded
    kernel's loop body) is never inlined, yet was optimised again inside each of its callers:
    with an empty kernel cache that was about 40 % of the compiling time (the first fused
    22-qubit run on a 2-core EPYC Zen 4: 131 -> 78 s), and the kernels run as fast or faster
    (random 22 fused 0.164 -> 0.131 s, QFT 22 0.104 -> 0.088 s). Small callees are linked
    first as before, so they are still inlined.

    Where the optimised code (for the CPU Numba compiles for) gathers or scatters
    (:data:`SCATTERED`), the module as it was before optimisation is optimised again with
    the loop vectoriser off: other functions keep it, as it packs their contiguous loops (X
    on qubit 2 of 20 on Zen 4: 0.34 ms with it, 0.74 without). Done here, on the module,
    the function is not lowered by Numba a second time (15 functions on Zen 4,
    ``_call_on_row``, the largest, among them: the complex128 warm-up's compiling took
    163 s instead of 175 s)."""
    from numba.core.compiler_lock import require_global_compiler_lock

    require_global_compiler_lock()
    library._codegen._check_llvm_bugs()
    library._raise_if_finalized()
    seen: set[int] = set()
    late = []
    calls: dict[str, Any] = {}
    reload_hooks = getattr(library, "_reload_init", None)  # Numba 0.62 and later
    for callee in library._linking_libraries:
        if id(callee) in seen:
            continue
        seen.add(id(callee))
        if reload_hooks is not None:
            reload_hooks.update(callee._reload_init)
        calls.update(_calls_by_name(callee))
        if _instructions(callee) > LATE_LINK_INSTRUCTIONS and not _inlined(callee):
            symbol = _symbol(callee)
            if symbol is not None and _without_code(callee):
                calls[symbol] = callee  # called by its name: its code is made once for all
            else:
                late.append(callee)
        else:
            library._final_module.link_in(callee._get_module_for_linking(), preserve=True)
    if not _inlined(library):  # an inlined function is optimised in its callers
        _optimise_without_scatters(library)
    for callee in late:
        library._final_module.link_in(callee._get_module_for_linking(), preserve=True)
    library._final_module.verify()
    library._genqsim_calls = calls
    _finalize_without_code(library)


def _optimise_without_scatters(library: Any) -> None:
    """Numba's optimisation of ``library``'s module, done again from the module as it was
    without the loop vectoriser where the optimised code gathers or scatters."""
    unoptimised = library._final_module.clone()
    library._optimize_final_module()
    if _gathers_or_scatters(library):
        library._final_module = unoptimised
        saved = config.LOOP_VECTORIZE  # type: ignore[attr-defined]
        config.LOOP_VECTORIZE = 0  # type: ignore[attr-defined]
        try:
            library._optimize_final_module()
        finally:
            config.LOOP_VECTORIZE = saved  # type: ignore[attr-defined]


def _finalize_without_code(library: Any) -> None:
    """Numba's ``_finalize_final_module`` but for the machine code, which is made when the
    library's code is first asked for (:func:`_make_code`): a library that is only linked
    into others (the two wrappers between a threaded kernel and its loop body) never has
    any. Numba makes every library's machine code at once, and each of those wrappers holds
    a copy of the loop body and of the large row-level code it calls (35,000 LLVM
    instructions for a block run's): they were about a third of the code generation of
    the complex128 warm-up on a Zen 4 EPYC (14 of 44 s)."""
    library._finalize_dynamic_globals()
    library._verify_declare_only_symbols()
    # what Numba's object-cache hooks find the library by (CPUCodeLibrary's ``__library``)
    library._final_module._CPUCodeLibrary__library = weakref.proxy(library)
    library._finalized = True
    library._genqsim_code_pending = True


def _make_code(library: Any) -> None:
    """The machine code of a library :func:`_finalize_without_code` finalised, made once
    (the rest of Numba's ``_finalize_final_module``), under Numba's compiler lock like the
    rest of finalising: two threads asking at once add the module to LLVM's engine once."""
    if not _without_code(library):
        return
    with global_compiler_lock:
        if library._genqsim_code_pending:
            for callee in _calls_by_name(library).values():  # what it calls by name, first
                _make_code(callee)
            library._genqsim_code_pending = False
            symbol = _symbol(library)
            if symbol is not None:
                if library._codegen._engine.is_symbol_defined(symbol):
                    return  # made from another library of it, or brought from the cache
                # weak: a kernel loaded later may bring the same code (:func:`_unserialize`)
                library._final_module.get_function(symbol).linkage = "weak_odr"
                _MADE[symbol] = library
            cleanup = library._codegen._add_module(library._final_module)
            if cleanup:
                weakref.finalize(library, cleanup)
            library._finalize_specific()
            for variable in library._final_module.global_variables:
                env = _PENDING_ENVIRONMENTS.pop(variable.name, None)
                if env is not None and not variable.is_declaration:
                    _NUMBA_SET_ENV(library._codegen, variable.name, env)


def _after_code(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` of a code library, called once the library is finalised and its machine
    code made."""

    @functools.wraps(method)
    def wrapped(library: Any, *args: Any, **kwargs: Any) -> Any:
        library._ensure_finalized()
        _make_code(library)
        return method(library, *args, **kwargs)

    return wrapped


def _gathers_or_scatters(library: Any) -> bool:
    """Whether ``library``'s optimised module (before its late callees are linked) calls
    LLVM's gather or scatter intrinsics (:data:`VECTOR_GATHERS`): what the machine code's
    :data:`SCATTERED` instructions are made from, read off the module's declarations instead
    of the assembly (emitting it took 6.7 s of the complex128 warm-up on a Zen 4 EPYC; the
    two said the same of all 176 modules)."""
    return any(
        fn.is_declaration and fn.name.startswith(VECTOR_GATHERS)
        for fn in library._final_module.functions
    )


_NUMBA_FINALIZE = codegen.CPUCodeLibrary.finalize
_NUMBA_PARTS = (
    (codegen.CPUCodeLibrary, ("_optimize_final_module", "_finalize_final_module",
                              "_raise_if_finalized", "_ensure_finalized",
                              "_get_module_for_linking")),
    (codegen.CPUCodegen, ("_check_llvm_bugs", "_add_module")),
    (codegen.JITCPUCodegen, ("set_env",)),
    (codegen.JitEngine, ("is_symbol_defined", "_load_defined_symbols")),
    (cpu.CPUContext, ("get_executable",)),
    (codegen.JITCodeLibrary, ("_finalize_specific", "_finalize_dynamic_globals",
                              "_verify_declare_only_symbols", "serialize_using_bitcode",
                              "serialize_using_object_code", "_unserialize")),
)  # fmt: skip
_CODE_USERS = (
    (codegen.JITCodeLibrary, ("get_pointer_to_function",)),
    (codegen.CPUCodeLibrary, ("_get_compiled_object",)),
)
"""What asks for a library's machine code: an address in it (a kernel's entry point, a
``cfunc``), its object code (what Numba's on-disk cache keeps)."""
if not all(hasattr(owner, part) for owner, parts in _NUMBA_PARTS + _CODE_USERS for part in parts):
    raise RuntimeError(
        "Numba's CPUCodeLibrary no longer has the steps genqsim's kernels are finalised with; "
        "backends/numba_slp.py must be updated for this Numba version"
    )


def _finalize(library: Any) -> None:
    """``CPUCodeLibrary.finalize``: :func:`_finalize_linking_late` for the libraries
    finalised while one of genqsim's kernels is lowered (its own, and its threaded loop
    bodies'), Numba's own for every other."""
    if getattr(_LATE_LINKING, "depth", 0) > 0:
        _finalize_linking_late(library)
    else:
        _NUMBA_FINALIZE(library)


codegen.CPUCodeLibrary.finalize = _finalize  # type: ignore[method-assign]


PARFOR_BODY = "__numba_parfor_gufunc"
"""How Numba names the loop body of a threaded (``prange``) loop, compiled as a function of
its own."""


@nb.njit(cache=True, nogil=True)
def called_from_compiled_code_only() -> int:
    """What the Python entry point of every function compiled without one runs
    (:data:`COMPILED_CODE_ONLY`; Numba's dispatcher needs one built the way Numba builds
    them; each function gets an entry point object of its own, :func:`_stand_in_entry`);
    called with their arguments it raises a ``TypeError`` that names it."""
    return 0


_NUMBA_GET_EXECUTABLE = cpu.CPUContext.get_executable


def _stand_in_entry(context: Any) -> Any:
    """A new Python entry point running :func:`called_from_compiled_code_only`: one object
    per function, as Numba keys a compiled function's implementation (what its callers'
    calls are lowered to) by its entry point; one shared object would let a caller's call
    resolve to another function of the same argument types."""
    called_from_compiled_code_only.compile(())
    stand_in: Any = next(iter(called_from_compiled_code_only.overloads.values()))
    return _NUMBA_GET_EXECUTABLE(context, stand_in.library, stand_in.fndesc,
                                 stand_in.environment)  # fmt: skip


def _get_executable(context: Any, library: Any, fndesc: Any, env: Any) -> Any:
    """``CPUContext.get_executable``, but with no machine code for a function only ever
    linked into others:

    - the loop body of a threaded genqsim kernel: Numba links that body into the kernel
      (through two wrappers, by its symbol) and never calls it from Python, yet made its
      Python entry point, and so all its machine code, a copy of the row-level code it calls
      included. What stands for that entry point in Numba's table of user functions is a
      plain object;
    - a function compiled without an entry point from Python (:data:`COMPILED_CODE_ONLY`:
      a helper, a kernel's range functions, the row bodies its runs share): its dispatcher
      gets an entry point of its own that runs :func:`called_from_compiled_code_only`
      (:func:`_stand_in_entry`), and Numba's cache keeps its LLVM code (what its callers
      link) instead of object code.

    The code is made if anything asks for it."""
    if getattr(_LATE_LINKING, "depth", 0) > 0 and fndesc.qualname.startswith(PARFOR_BODY):
        return object()
    library._ensure_finalized()  # while it is lowered: a genqsim function's, without code
    if _without_code(library) and not _defines(library, fndesc.llvm_cpython_wrapper_name):
        _PENDING_ENVIRONMENTS[context.get_env_name(fndesc)] = env
        if (fndesc.modname, fndesc.qualname) in _CALLED_BY_NAME:
            library._genqsim_symbol = fndesc.llvm_func_name
        return _stand_in_entry(context)
    return _NUMBA_GET_EXECUTABLE(context, library, fndesc, env)


def _symbol(library: Any) -> str | None:
    """The name of the function ``library`` defines for compiled code to call, where it is
    one with no entry point from Python (:func:`_get_executable`): such a function, when
    large, is called by that name instead of linked into each caller."""
    return getattr(library, "_genqsim_symbol", None)


def _calls_by_name(library: Any) -> dict[str, Any]:
    """The libraries whose functions ``library``'s code calls by name (directly or through
    what is linked into it), by symbol: their code must be made, or loaded, before its own."""
    return dict(getattr(library, "_genqsim_calls", {}))


def _without_code(library: Any) -> bool:
    """Whether ``library`` was finalised with its machine code left for later
    (:func:`_finalize_without_code`, or loaded from the cache as LLVM code)."""
    return bool(getattr(library, "_genqsim_code_pending", False))


def _defines(library: Any, name: str) -> bool:
    """Whether the LLVM module of ``library`` defines the function ``name``."""
    try:
        return not library._final_module.get_function(name).is_declaration
    except NameError:
        return False


_PENDING_ENVIRONMENTS: dict[str, Any] = {}
"""Numba's environment objects of functions whose machine code is not made yet, by the name
of the global that points at each (set once the code is made, :func:`_make_code`)."""

_NUMBA_SET_ENV = codegen.JITCPUCodegen.set_env


def _set_env(codegen_: Any, env_name: str, env: Any) -> None:
    """Numba's ``set_env`` (point the code's environment global at ``env``), kept for when
    the code is made where it is not made yet (a library loaded from the cache as LLVM code:
    Numba would write through a null address)."""
    if codegen_._engine.get_global_value_address(env_name):
        _NUMBA_SET_ENV(codegen_, env_name, env)
    else:
        _PENDING_ENVIRONMENTS[env_name] = env


_NUMBA_SERIALIZE = codegen.CPUCodeLibrary.serialize_using_object_code
_NUMBA_UNSERIALIZE = codegen.CPUCodeLibrary._unserialize.__func__  # type: ignore[attr-defined]


_MADE: dict[str, Any] = {}
"""The library whose module gave each function called by name its machine code, by symbol
(another library of the same function, loaded with a caller, then makes none)."""

_OBJECTS: dict[str, bytes] = {}
"""The object code of functions called by name that came with kernels loaded from the cache,
by symbol (what a kernel compiled later, which calls one of them, carries in its turn)."""


def _serialize(library: Any) -> Any:
    """What Numba's cache keeps of ``library``: its LLVM code while it has no machine code
    (a :func:`helper_njit` function's: its callers link that code; making object code only
    to store it took about 10 s of the complex128 warm-up), else Numba's object code. With
    either comes the code of every function it calls by name (:func:`_finalize_linking_late`),
    object code with object code and LLVM code with LLVM code, so that a later process
    loads what this code was made with, whatever else the cache holds by then."""
    library._ensure_finalized()
    calls = _calls_by_name(library)
    if _without_code(library):
        name, kind, data = library.serialize_using_bitcode()
        carried = tuple((symbol, callee._final_module.as_bitcode())
                        for symbol, callee in calls.items())  # fmt: skip
        return (name, "genqsim-bitcode", (data, carried)) if carried else (name, kind, data)
    name, kind, data = _NUMBA_SERIALIZE(library)
    carried = tuple((symbol, _object_code(callee)) for symbol, callee in calls.items())
    return (name, "genqsim-object", (data, carried)) if carried else (name, kind, data)


def _object_code(library: Any) -> bytes:
    """The machine code of a function called by name: its own, or what a kernel from the
    cache brought (:func:`_unserialize`)."""
    symbol = _symbol(library) or ""
    brought = _OBJECTS.get(symbol)
    if brought is not None:
        return brought
    # its code may have been made from another library of the same function (:func:`_make_code`)
    return bytes(_MADE.get(symbol, library)._get_compiled_object())


def _unserialize(cls: Any, codegen_: Any, state: Any) -> Any:
    """Numba's ``_unserialize``, but a library kept as LLVM code is loaded without machine
    code (made when asked for, :func:`_finalize_without_code`); the functions it calls by
    name come with it: object code added to LLVM's engine where their symbol is not there
    yet, LLVM code as libraries whose code is made with the caller's."""
    name, kind, data = state
    if kind == "genqsim-object":
        numba_data, carried = data
        engine = codegen_._engine
        for symbol, code in carried:
            if not engine.is_symbol_defined(symbol):
                engine._ee.add_object_file(llvm.ObjectFileRef.from_data(code))
                engine._defined_symbols.add(symbol)
                _OBJECTS[symbol] = code
        return _NUMBA_UNSERIALIZE(cls, codegen_, (name, "object", numba_data))
    calls: dict[str, Any] = {}
    if kind == "genqsim-bitcode":
        data, carried = data
        for symbol, code in carried:
            calls[symbol] = _BY_NAME.get(symbol) or _pending(codegen_, symbol, code, symbol)
    elif kind != "bitcode":
        return _NUMBA_UNSERIALIZE(cls, codegen_, state)
    library = _pending(codegen_, name, data, None)
    library._genqsim_calls = calls
    return library


_BY_NAME: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()
"""Libraries of functions called by name, loaded as LLVM code with their callers, by symbol."""


def _pending(codegen_: Any, name: str, bitcode: bytes, symbol: str | None) -> Any:
    """A library of LLVM code ``bitcode``, without machine code yet; ``symbol``: the function
    it defines for others to call by name."""
    library = codegen_.create_library(name)
    library.enable_object_caching()  # its object code, once made, goes with its callers'
    library._final_module = llvm.parse_bitcode(bitcode)
    _finalize_without_code(library)
    if symbol is not None:
        library._genqsim_symbol = symbol
        _BY_NAME[symbol] = library
    return library


cpu.CPUContext.get_executable = _get_executable  # type: ignore[method-assign]
codegen.CPUCodeLibrary.serialize_using_object_code = _serialize  # type: ignore[method-assign]
codegen.CPUCodeLibrary._unserialize = classmethod(_unserialize)  # type: ignore[method-assign,assignment]
codegen.JITCPUCodegen.set_env = _set_env  # type: ignore[method-assign]
for _owner, _names in _CODE_USERS:
    for _name in _names:
        setattr(_owner, _name, _after_code(getattr(_owner, _name)))


@contextlib.contextmanager
def _late_linking() -> Iterator[None]:
    """Within it, the libraries this thread finalises are genqsim's
    (:func:`_finalize_linking_late`)."""
    _LATE_LINKING.depth = getattr(_LATE_LINKING, "depth", 0) + 1
    try:
        yield
    finally:
        _LATE_LINKING.depth -= 1


@register_pass(mutates_CFG=True, analysis_only=False)
class ScatterFreeNativeLowering(NativeLowering):
    """Numba's native lowering, its module finalised by :func:`_finalize_linking_late`."""

    _name = "genqsim_scatter_free_native_lowering"  # type: ignore[assignment]

    def run_pass(self, state: Any) -> bool:
        with _late_linking():
            return bool(super().run_pass(state))


@register_pass(mutates_CFG=True, analysis_only=False)
class ScatterFreeParforLowering(NativeParforLowering):
    """Numba's lowering of a threaded function (its parallel loops as thread-pool tasks),
    its modules and its loop bodies' finalised by :func:`_finalize_linking_late`."""

    _name = "genqsim_scatter_free_parfor_lowering"  # type: ignore[assignment]

    def run_pass(self, state: Any) -> bool:
        with _late_linking():
            return bool(super().run_pass(state))


@register_pass(mutates_CFG=True, analysis_only=False)
class SlpNativeLowering(NativeLowering):
    """Numba's native lowering with LLVM's SLP vectoriser on while this one function's
    module is optimised (lowering finalises the module, by :func:`_finalize_linking_late`:
    where the loop vectoriser gathered or scattered across chunks it is optimised again
    without it, and the SLP vectoriser packs each chunk)."""

    _name = "genqsim_slp_native_lowering"  # type: ignore[assignment]

    def run_pass(self, state: Any) -> bool:
        saved = config.SLP_VECTORIZE  # type: ignore[attr-defined]
        config.SLP_VECTORIZE = 1  # type: ignore[attr-defined]
        try:
            with _late_linking():
                return bool(super().run_pass(state))
        finally:
            config.SLP_VECTORIZE = saved  # type: ignore[attr-defined]


def _pipeline(state: Any, replacements: dict[Any, Any], name: str) -> list[Any]:
    """Numba's nopython pipeline with its native lowering pass (the plain or the threaded
    one, as the function's flags ask) replaced as ``replacements`` say."""
    manager = DefaultPassBuilder.define_nopython_pipeline(state)
    found = [i for i, (pass_, _) in enumerate(manager.passes) if pass_ in replacements]
    if len(found) != 1:
        raise RuntimeError(
            "Numba's nopython pipeline no longer has exactly one native lowering pass; "
            "backends/numba_slp.py must be updated for this Numba version"
        )
    manager.passes[found[0]] = (replacements[manager.passes[found[0]][0]], name)
    manager.finalize()
    return [manager]


class SlpCompiler(CompilerBase):  # type: ignore[misc]
    """Numba's nopython pipeline with :class:`SlpNativeLowering` for its lowering pass."""

    def define_pipelines(self) -> list[Any]:
        return _pipeline(self.state, {NativeLowering: SlpNativeLowering}, "lowering with SLP")


class ScatterFreeCompiler(CompilerBase):  # type: ignore[misc]
    """Numba's nopython pipeline with :class:`ScatterFreeNativeLowering` (or, for a threaded
    function, :class:`ScatterFreeParforLowering`) for its lowering pass."""

    def define_pipelines(self) -> list[Any]:
        replacements = {
            NativeLowering: ScatterFreeNativeLowering,
            NativeParforLowering: ScatterFreeParforLowering,
        }
        return _pipeline(self.state, replacements, "lowering without scatters")


def slp_njit(fn: Callable[..., Any], cache: bool = True) -> Any:
    """``fn`` compiled like the other called loops (no GIL, NumPy error model, fast math),
    with the SLP vectoriser on: cached and called from compiled code only (no entry point
    from Python, :data:`COMPILED_CODE_ONLY`), or with ``cache`` false an uncached build
    with an entry point from Python, e.g. to run it alone and read its assembly."""
    options: dict[str, Any] = {"nogil": True, "error_model": "numpy", "fastmath": True,
                               "forceinline": False, "pipeline_class": SlpCompiler}  # fmt: skip
    if cache:
        options.update(cache=True, **COMPILED_CODE_ONLY)
    return nb.njit(**options)(fn)


COMPILED_CODE_ONLY: dict[str, Any] = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
"""Numba's options for a function only ever called from compiled code: no entry point from
Python (its unboxing code was about 5 % of the complex128 warm-up's compiling) or C."""


def helper_njit(inline: bool = False, cache: bool = True) -> Callable[[Callable[..., Any]], Any]:
    """:func:`vector_njit` for a helper only ever called from compiled code (no GIL, NumPy
    error model, fast math): Numba makes no Python or C entry point for it
    (:data:`COMPILED_CODE_ONLY`), and no machine code of its own (:func:`_get_executable`).
    ``inline``: every caller inlines it (LLVM's ``alwaysinline``), and its own module is
    optimised only there; else it is called, or inlined where LLVM finds that it pays.
    ``cache``: false for code Numba cannot cache (made by ``exec``)."""

    def compiled(fn: Callable[..., Any]) -> Any:
        if not inline:
            _CALLED_BY_NAME.add((fn.__module__, fn.__qualname__))
        dispatcher = vector_njit(cache=cache, nogil=True, error_model="numpy", fastmath=True,
                                 forceinline=inline, **COMPILED_CODE_ONLY)(fn)  # fmt: skip
        return _fewer_builds(dispatcher, inline)

    return compiled


_CALLED_BY_NAME: set[tuple[str, str]] = set()
"""The functions (module, qualified name) of :func:`helper_njit` that are not inlined: where
one is large, its callers call it by name and its machine code is made once
(:func:`_finalize_linking_late`)."""


def _fewer_builds(dispatcher: Any, inline: bool) -> Any:
    """``dispatcher`` compiled for its callers' argument types with every integer array
    taken as read-only where the function compiles so (it writes none of them), and, where
    every caller inlines it (``inline``), every literal constant taken as its plain type
    (``Literal[int](32)`` as ``int64``, ``True`` as ``bool``): one build where there were
    several. A gate kernel passes its ``fixed`` positions read-only, the row engine of block
    and tile runs writable, and each made a build of every helper below (some 15 helpers,
    about 1.2 s of the complex128 warm-up on a 2-core EPYC Zen 3; the machine code is the
    same). For an inlined helper, LLVM folds the constant into the inlined copy, as Numba
    did in a build of its own (the complex128 warm-up compiled some 40 such builds:
    ``_groups_of`` eight times for bits 16-64, ``_mix22_quads`` six times, ``_row4``
    four)."""
    template_for = dispatcher.get_call_template
    writes: set[tuple[Any, ...]] = set()  # argument types whose read-only build failed

    def get_call_template(args: Any, kws: Any) -> Any:
        if inline:
            args = tuple(nb.types.unliteral(a) for a in args)
            kws = {name: nb.types.unliteral(a) for name, a in kws.items()}
        shared = tuple(_read_only(a) for a in args)
        shared_kws = {name: _read_only(a) for name, a in kws.items()}
        key = (args, tuple(sorted(kws.items())))
        if (shared, shared_kws) != (args, kws) and key not in writes:
            try:
                return template_for(shared, shared_kws)
            except errors.TypingError:
                writes.add(key)  # it writes one of them: a build for the types as given
        return template_for(args, kws)

    dispatcher.get_call_template = get_call_template
    return dispatcher


def _read_only(kind: Any) -> Any:
    """``kind`` as a read-only array type where it is a writable array of integers (index
    data: positions, offsets, patterns), else itself."""
    if (
        isinstance(kind, nb.types.Array)
        and kind.mutable
        and isinstance(kind.dtype, nb.types.Integer)
    ):
        return kind.copy(readonly=True)
    return kind


def vector_njit(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``nb.njit(**options)`` for a function whose loops must not gather or scatter
    (:class:`ScatterFreeCompiler`): every kernel of the Numba backend, serial and threaded
    builds, and every helper they call."""
    # never inherited from a caller compiled at the same time (Numba inherits an unset
    # ``forceinline``): inlined, a function's own module is not optimised (:func:`_inlined`)
    options.setdefault("forceinline", False)
    return nb.njit(pipeline_class=ScatterFreeCompiler, **options)
