"""How many CPUs this process may use: the CPUs its affinity mask allows, capped by its
cgroup's CPU quota (a container's ``--cpus``, a batch job's allocation, a CI runner's share).

``os.cpu_count()`` is the machine's count, and Numba starts with the affinity's count but
never reads the quota: a container limited to 2 CPUs on a 64-core node that starts 64 threads
has most of them waiting for a core (and spinning while they wait). genqsim's default thread
count is this module's answer.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")


def usable_cpus(root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> int:
    """The CPUs this process may run on at once: its affinity, capped by its cgroup's CPU
    quota rounded up (at least 1)."""
    return _capped(affinity_cpus(), root, proc_cgroup)


def node_cpus(root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> int:
    """The machine's CPUs capped by the cgroup quota, ignoring this process's affinity: what
    processes sharing the node (MPI ranks) divide between them."""
    return _capped(os.cpu_count() or 1, root, proc_cgroup)


def _capped(count: int, root: Path, proc_cgroup: Path) -> int:
    """``count`` capped by the cgroup's CPU quota rounded up (at least 1)."""
    quota = cgroup_cpu_quota(root, proc_cgroup)
    return max(1, min(count, math.ceil(quota)) if quota is not None else count)


def affinity_cpus() -> int:
    """The CPUs in this process's affinity mask (the machine's count where the platform
    has no affinity call)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def cgroup_cpu_quota(root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> float | None:
    """The smallest CPU quota (CPUs' worth of time per period) of this process's cgroup and
    its ancestors, cgroup v2 (``cpu.max``) or v1 (``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``);
    ``None`` where none is set or none can be read."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return None
    quotas: list[float] = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":  # cgroup v2: one unified hierarchy
            for folder in _folders(root, path):
                quotas.extend(_v2_quota(folder / "cpu.max"))
        elif "cpu" in controllers.split(","):
            for mount in (controllers, "cpu", "cpu,cpuacct"):
                for folder in _folders(root / mount, path):
                    quotas.extend(_v1_quota(folder))
    return min(quotas) if quotas else None


def _folders(mount: Path, path: str) -> list[Path]:
    """The cgroup's folder under ``mount`` and each ancestor up to the mount itself (inside a
    container the mount is often the container's own cgroup, so the path may be absent)."""
    parts = [p for p in path.strip("/").split("/") if p]
    return [mount.joinpath(*parts[:k]) for k in range(len(parts), -1, -1)]


def _v2_quota(file: Path) -> list[float]:
    """``cpu.max`` holds ``"QUOTA PERIOD"`` or ``"max PERIOD"``."""
    try:
        quota, period = file.read_text().split()[:2]
        return [] if quota == "max" else [int(quota) / int(period)]
    except (OSError, ValueError, ZeroDivisionError):
        return []


def _v1_quota(folder: Path) -> list[float]:
    """``cpu.cfs_quota_us`` is -1 where no quota is set."""
    try:
        quota = int((folder / "cpu.cfs_quota_us").read_text())
        period = int((folder / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return []
    return [quota / period] if quota > 0 and period > 0 else []
