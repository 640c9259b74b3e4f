"""genqsim against an earlier revision of itself: ``genqsim bench --quick`` (genqsim columns)
for both, interleaved rounds on the same machine, then new/old per case (best of the rounds).

    python benchmarks/compare_revisions.py 89e0449 --rounds 2

The earlier revision is checked out in a git worktree with its own virtual environment
(``pip install -e ".[numba]"``), so both run the code they ship. Exits 1 when a case is
slower than ``--tolerance`` (default 5 %).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sh(cmd: str, cwd: Path) -> None:
    subprocess.run(["bash", "-c", cmd], cwd=cwd, check=True)


def bench(tree: Path, python: str, out: Path) -> dict[tuple[str, str], float]:
    sh(f"{python} -m genqsim bench --quick --sims genqsim genqsim-nofuse --repeat 5 "
       f"--json {out} > {out}.txt 2>&1", tree)  # fmt: skip
    results = json.loads(out.read_text())["results"]
    return {(k, case): t for k, cases in results.items() for case, t in cases.items()
            if isinstance(t, (int, float))}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revision", help="the earlier revision (a commit, tag or branch)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tolerance", type=float, default=0.05)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="genqsim-compare-"))
    old = work / "old"
    sh(f"git worktree add -q {old} {args.revision}", ROOT)
    try:
        sh('python3 -m venv .venv && .venv/bin/pip install -q -e ".[numba]"', old)
        best: dict[str, dict] = {"old": {}, "new": {}}
        for r in range(args.rounds):
            for tag, tree, python in (("old", old, ".venv/bin/python"),
                                      ("new", ROOT, sys.executable)):  # fmt: skip
                for key, t in bench(tree, python, work / f"{tag}{r}.json").items():
                    best[tag][key] = min(best[tag].get(key, float("inf")), t)
        worst = 0.0
        for key in sorted(best["old"]):
            if key in best["new"]:
                ratio = best["new"][key] / best["old"][key]
                worst = max(worst, ratio)
                print(f"{key[0]:<18} {key[1]:<18} old {best['old'][key] * 1e3:9.3f} ms  "
                      f"new {best['new'][key] * 1e3:9.3f} ms  new/old {ratio:5.2f}")  # fmt: skip
        print(f"worst new/old: {worst:.3f} (tolerance {1 + args.tolerance:.2f})")
        return 0 if worst <= 1 + args.tolerance else 1
    finally:
        sh(f"git worktree remove --force {old}", ROOT)


if __name__ == "__main__":
    sys.exit(main())
