"""What ``genqsim doctor`` prints: why a GPU is or is not used, one check at a time, each
failing check with its fix (driver, CuPy wheel, CUDA runtime against the driver, the
devices' compute capability, genqsim's GPU backend)."""

from __future__ import annotations

import ctypes.util
import importlib.metadata
import shutil
from dataclasses import dataclass
from typing import Any

MIN_CAPABILITY = {"12": (5, 0), "13": (7, 5)}
"""The oldest compute capability each CuPy wheel's CUDA major version runs on."""


@dataclass(frozen=True)
class Check:
    """One line of the report: what was checked, whether it passed, what was found (or
    the fix when it failed)."""

    name: str
    ok: bool
    detail: str


def checks() -> list[Check]:
    """Every check, in the order a GPU run needs them; later checks are skipped (not
    failed) when an earlier one leaves nothing to check."""
    out = [_driver()]
    wheel = _cupy_wheel()
    out.append(wheel)
    if not wheel.ok:
        return out
    try:
        import cupy
    except Exception as exc:  # a wheel that does not import (a broken or mixed install)
        out.append(Check("CuPy import", False, f"{type(exc).__name__}: {exc}"))
        return out
    out.append(_runtime(cupy))
    if out[-1].ok:
        out.extend(_devices(cupy, wheel.detail))
    out.append(_backend())
    return out


def report() -> str:
    """The checks as text, and a last line saying whether the GPU is usable."""
    found = checks()
    lines = [f"{'ok' if c.ok else '--':<3} {c.name}: {c.detail}" for c in found]
    failed = [c for c in found if not c.ok]
    if failed:
        lines.append(f"GPU: not usable; fix first: {failed[0].name} (its line says how)")
    else:
        lines.append("GPU: usable (device='gpu', method='statevector' or 'mps', and batches)")
    return "\n".join(lines)


def _driver() -> Check:
    library = ctypes.util.find_library("cuda")
    smi = shutil.which("nvidia-smi")
    if library or smi:
        return Check("NVIDIA driver", True, ", ".join(x for x in (library, smi) if x))
    return Check(
        "NVIDIA driver",
        False,
        "no libcuda and no nvidia-smi: install the NVIDIA driver for the GPU (a container "
        "needs the GPU passed through, e.g. docker run --gpus all)",
    )


def _cupy_wheel() -> Check:
    wheels = sorted(
        f"{dist.metadata['Name']} {dist.version}"
        for dist in _distributions()
        if (dist.metadata["Name"] or "").lower().startswith("cupy")
    )
    if not wheels:
        return Check("CuPy", False, "not installed: pip install 'genqsim[cuda]' (CuPy for CUDA 13)")
    if len(wheels) > 1:
        return Check(
            "CuPy", False, f"several wheels installed ({', '.join(wheels)}): keep exactly one"
        )
    return Check("CuPy", True, wheels[0])


def _runtime(cupy: Any) -> Check:
    try:
        runtime = int(cupy.cuda.runtime.runtimeGetVersion())
        driver = int(cupy.cuda.runtime.driverGetVersion())
    except Exception as exc:
        return Check("CUDA", False, f"the runtime does not start ({type(exc).__name__}: {exc})")
    found = f"runtime {_version(runtime)}, driver supports up to {_version(driver)}"
    if driver < runtime:
        return Check(
            "CUDA",
            False,
            f"{found}: update the driver, or install the CuPy wheel of the driver's CUDA "
            f"(cupy-cuda{driver // 1000}x)",
        )
    return Check("CUDA", True, found)


def _devices(cupy: Any, wheel: str) -> list[Check]:
    count = int(cupy.cuda.runtime.getDeviceCount())
    if count == 0:
        return [Check("devices", False, "the driver sees no GPU")]
    major = next((m for m in MIN_CAPABILITY if f"cuda{m}" in wheel), None)
    out = []
    for index in range(count):
        props = cupy.cuda.runtime.getDeviceProperties(index)
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        capability = (int(props["major"]), int(props["minor"]))
        detail = f"{name}, compute capability {capability[0]}.{capability[1]}"
        least = MIN_CAPABILITY.get(major or "", (0, 0))
        if capability < least:
            detail += (
                f": CUDA {major} needs {least[0]}.{least[1]} or newer; install "
                "cupy-cuda12x for this GPU"
            )
            out.append(Check(f"device {index}", False, detail))
        else:
            out.append(Check(f"device {index}", True, detail))
    return out


def _backend() -> Check:
    from . import available_backends, unavailable_backends

    missing = unavailable_backends()
    if "cupy" in missing:
        return Check("genqsim cupy backend", False, missing["cupy"])
    if "cupy" not in available_backends():
        return Check("genqsim cupy backend", False, "not registered")
    return Check("genqsim cupy backend", True, "loads")


def _distributions() -> Any:
    """The installed distributions (one place, so a test can stand in for them)."""
    return importlib.metadata.distributions()


def _version(number: int) -> str:
    """CUDA's ``major*1000 + minor*10`` as ``major.minor``."""
    return f"{number // 1000}.{number % 1000 // 10}"
