"""Plot a ``cpu_bench.py --json`` result: each simulator's time relative to genqsim, per case
(log scale; below 1 means faster than genqsim), like the relative-time figure of the
"simulator in one day" post.

    python benchmarks/plot.py results.json docs/performance.png [--threads 2]
"""

from __future__ import annotations

import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    parser.add_argument("output")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    with open(args.results) as fh:
        data = json.load(fh)["results"]
    sims = [k.split("|")[0] for k in data if k.endswith(f"|{args.threads}")]
    ours = data[f"genqsim|{args.threads}"]
    cases = [c for c, v in ours.items() if isinstance(v, (int, float))]
    fig, ax = plt.subplots(figsize=(max(8, 0.45 * len(cases)), 4.5))
    width = 0.8 / len(sims)
    for i, sim in enumerate(sims):
        times = data[f"{sim}|{args.threads}"]
        rel = [times.get(c) / ours[c] if isinstance(times.get(c), (int, float)) else np.nan
               for c in cases]  # fmt: skip
        ax.bar(np.arange(len(cases)) + i * width, rel, width, label=sim)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("time relative to genqsim")
    ax.set_xticks(np.arange(len(cases)) + 0.4 - width / 2)
    ax.set_xticklabels(cases, rotation=70, ha="right", fontsize=7)
    ax.set_title(f"CPU, {args.threads} thread(s): above 1 = slower than genqsim")
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)


if __name__ == "__main__":
    main()
