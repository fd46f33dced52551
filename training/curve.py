"""A run's learning curve (``learning_curve.png``), drawn from its evaluations.

May import: the standard library, numpy, matplotlib (only when drawing).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .atomic import atomic_path


def plot_curve(evals: list[dict], path: Path, title: str) -> None:
    """The learning curve: points per deal against each opponent by learner samples
    and by wall time; with the panel minimum and mean as two bold lines where the
    records carry a ``panel`` (records from before it, or without one, have none),
    and the partner panel's minimum and mean lift where they carry ``partners``."""
    # A Figure of its own, not pyplot's: pyplot's figures and backend belong to the
    # process (a notebook's inline plots), and the curve must leave them as they are.
    from matplotlib.figure import Figure
    fig = Figure(figsize=(11, 4))
    axes = fig.subplots(1, 2, sharey=True)
    # Each opponent's own points: a resumed run may have changed its opponents.
    opponents = list(dict.fromkeys(opp for e in evals for opp in e["results"]))
    for opp in opponents:
        mine = [e for e in evals if opp in e["results"]]
        xs = np.array([e["timesteps"] for e in mine])
        ws = np.array([e["wall_time_s"] for e in mine]) / 60
        ys = np.array([e["results"][opp]["points_per_deal"] for e in mine])
        lo = np.array([e["results"][opp]["points_per_deal_ci95"][0] for e in mine])
        hi = np.array([e["results"][opp]["points_per_deal_ci95"][1] for e in mine])
        for ax, x in ((axes[0], xs / 1e6), (axes[1], ws)):
            ax.plot(x, ys, marker="o", label=f"vs {opp}")
            ax.fill_between(x, lo, hi, alpha=0.2)
    _summary_lines(axes, evals, "panel", "black", "s", "panel",
                   lambda r: r["minimum"]["points_per_deal"], lambda r: r["mean"])
    _summary_lines(axes, evals, "partners", "purple", "D", "partner lift",
                   lambda r: r["minimum"]["lift"], lambda r: r["mean_lift"])
    axes[0].set_xlabel("learner samples (millions)")
    axes[1].set_xlabel("wall time (minutes)")
    axes[0].set_ylabel("points per deal / lift (duplicate, 95% CI)")
    for ax in axes:
        ax.axhline(0, color="grey", lw=0.8)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=90, format="png")


def _summary_lines(axes, evals: list[dict], key: str, color: str, marker: str, label: str,
                   minimum, mean) -> None:
    """Two bold lines, ``label`` minimum and mean, over the records that carry ``key``."""
    carried = [e for e in evals if isinstance(e.get(key), dict)]
    if not carried:
        return
    xs = np.array([e["timesteps"] for e in carried]) / 1e6
    ws = np.array([e["wall_time_s"] for e in carried]) / 60
    low = np.array([minimum(e[key]) for e in carried])
    avg = np.array([mean(e[key]) for e in carried])
    for ax, x in ((axes[0], xs), (axes[1], ws)):
        ax.plot(x, low, color=color, lw=2.5, marker=marker, label=f"{label} minimum")
        ax.plot(x, avg, color=color, lw=2.5, ls="--", marker=marker, label=f"{label} mean")
