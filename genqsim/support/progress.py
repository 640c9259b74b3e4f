"""A small text progress bar for long runs (no dependency): on standard error, redrawn at
most ten times a second, and only when standard error is a terminal."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """Call ``update(done)`` as work completes and ``close()`` at the end."""

    def __init__(self, total: int, label: str = "", stream: TextIO | None = None) -> None:
        self.total = max(int(total), 1)
        self.label = label
        self.stream = stream or sys.stderr
        self.started = time.monotonic()
        self.last_draw = 0.0

    def update(self, done: int) -> None:
        now = time.monotonic()
        if now - self.last_draw < 0.1 and done < self.total:
            return
        self.last_draw = now
        frac = min(done / self.total, 1.0)
        filled = int(30 * frac)
        elapsed = now - self.started
        eta = elapsed / frac - elapsed if frac > 0 else float("nan")
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] {frac:4.0%} "
            f"{done}/{self.total}  {elapsed:5.1f} s elapsed, {eta:5.1f} s left "
        )
        self.stream.flush()

    def close(self) -> None:
        self.update(self.total)
        self.stream.write("\n")
        self.stream.flush()


def wanted(work: float, quiet: bool, threshold: float = 2e8) -> bool:
    """Show a bar when the run is large (``work`` ~ amplitude updates) and stderr is a TTY."""
    return not quiet and work >= threshold and sys.stderr.isatty()


def bar_for(enabled: bool, steps: int, work: float, label: str) -> ProgressBar | None:
    """A bar over ``steps`` items when enabled, the run is large (``work`` ~ amplitude
    updates) and standard error is a terminal; else ``None``."""
    if not enabled or steps <= 1 or not wanted(work, quiet=False):
        return None
    return ProgressBar(steps, label)
