"""The ``genqsim`` command line (:mod:`.main`), its benchmark (:mod:`.bench`) and the kernel
warm-up (:mod:`.warmup`)."""

from __future__ import annotations

from .main import main

__all__ = ["main"]
