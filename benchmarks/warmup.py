"""First-call latency of the Numba backend: import genqsim, allocate a state, apply the first
gate — in a fresh process with an empty kernel cache (cold: every kernel it touches compiles)
and again with the cache the first process left (warm: kernels load from disk).

    python benchmarks/warmup.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

PROBE = r"""
import json, time
t0 = time.perf_counter()
import genqsim as gq
t1 = time.perf_counter()
psi = gq.zeros(20)
psi.apply(gq.Circuit(20).h(3), fuse=False)
t2 = time.perf_counter()
psi.apply(gq.library.qft(20))
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first_gate": t2 - t1, "qft20_first": t3 - t2,
                  "backend": psi.backend.name}))
"""


def probe(cache_dir: str) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    with tempfile.TemporaryDirectory() as cache:
        cold = probe(cache)
        warm = probe(cache)
    print("| run | import | import to first gate done (n=20, H) | first QFT 20 (more kernels) |")
    print("|---|---|---|---|")
    for name, r in (("cold cache", cold), ("warm cache", warm)):
        print(
            f"| {name} | {r['import']:.2f} s | {r['first_gate']:.2f} s | {r['qft20_first']:.2f} s |"
        )


if __name__ == "__main__":
    main()
