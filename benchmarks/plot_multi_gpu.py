"""Plot step 8's per-level profile: each level's time split into compute and exchange.

    python benchmarks/plot_multi_gpu.py benchmarks/results/h200x2-2026-11-22-multi-gpu

reads ``results.json`` (written by ``benchmarks/multi_gpu_scaling.py``, whose profiled
search records, for every level, the slowest GPU's compute time and exchange time) and
writes ``levels.png`` beside it: one group of bars per level, one stacked bar (compute,
then exchange) per configuration.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def plot(folder: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    results = json.loads((folder / "results.json").read_text())
    rows = [r for r in results["rows"] if r.get("compute_ms")]
    levels = max(len(r["compute_ms"]) for r in rows)
    width = 0.8 / len(rows)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    x = np.arange(levels)
    for k, row in enumerate(rows):
        compute = np.array(row["compute_ms"] + [0.0] * (levels - len(row["compute_ms"])))
        exchange = np.array(row["exchange_ms"] + [0.0] * (levels - len(row["exchange_ms"])))
        label = f"{row['gpus']} GPU{'s' if row['gpus'] > 1 else ''}, {row['exchange']}"
        if row.get("direction", "push") != "push":  # results from before directions have none
            label += f", {row['direction']}"
        at = x - 0.4 + width * (k + 0.5)
        bars = ax.bar(at, compute, width, label=f"{label}: compute")
        ax.bar(at, exchange, width, bottom=compute, label=f"{label}: exchange",
               color=bars[0].get_facecolor(), alpha=0.45, hatch="//")
    meta = results["meta"]
    ax.set_yscale("log")
    ax.set_xticks(x, [str(level) for level in range(levels)])
    ax.set_xlabel("level")
    ax.set_ylabel("ms (slowest GPU), log scale")
    ax.set_title(f"{meta['graph']}: compute and exchange per level ({meta['device']})", fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    out = folder / "levels.png"
    fig.savefig(out, dpi=110)
    return out


if __name__ == "__main__":
    print(plot(Path(sys.argv[1])))
