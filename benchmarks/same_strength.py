"""Strength per learner sample of the two backends: one config trained by SB3 and
by RLlib, with the same seeds and the same evaluation deals, and both learning
curves against one opponent on one plot.

    python benchmarks/same_strength.py [--samples 3000000] [--every 500000]
        [--pairs 1000] [--opponent ai:version=1] [--config configs/default.yaml]
        [--runners 1] [--seed S] [--only sb3|rllib] [--out docs/rllib_vs_sb3.png]
        [--keep DIR]

Each run is ``aluette train CONFIG`` with ``total_timesteps``, ``eval.interval``
and ``eval.deals`` set, ``eval.opponents`` the one opponent, and for RLlib
``backend=rllib`` with ``--runners`` env runners, both without what only the
SB3 backend has (``SB3_EXTRAS_OFF``: the critic that sees every hand, the
belief head, the league's priorities); ``--seed`` sets the runs' ``seed``
(the evaluation deals stay the config's); ``--only`` trains one backend. Prints a
table of each run's evaluations (points per deal against the opponent with the 95 % CI, by learner
samples) and writes the plot. The runs go to a temporary folder unless
``--keep`` names one; a run already in that folder (from an earlier call with
the same settings) is resumed, or only read back if it is finished. Not in
``make bench``: it trains for several minutes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: What ``configs/default.yaml`` has that the RLlib backend refuses, set off in
#: both runs so that the two train the same thing.
SB3_EXTRAS_OFF = ("network.critic=seat", "network.belief=0", "selfplay.pfsp=null")


def runs(runners: int, seed: int | None = None, only: str | None = None
         ) -> dict[str, list[str]]:
    """Each run's settings over the config: both backends train what RLlib can
    (the seat's own critic, no belief head, the league drawn by its weights: the
    SB3 backend's extras off); RLlib with ``runners`` env runners. ``only``:
    "sb3" or "rllib"."""
    both = list(SB3_EXTRAS_OFF) + ([] if seed is None else [f"seed={seed}"])
    found = {"SB3": both, f"RLlib, {runners} env runner(s)":
             [*both, "backend=rllib", f"rllib.num_env_runners={runners}"]}
    return {k: v for k, v in found.items() if only is None or k.lower().startswith(only)}


def run_settings(out: Path, name: str, samples: int, every: int, pairs: int, opponent: str,
                 extra: list[str]) -> list[str]:
    """A run's ``--set`` values: its folder, budget and evaluations, then ``extra``."""
    return [f"output_dir={out}", f"run_name={name}", f"total_timesteps={samples}",
            f"eval.interval={every}", f"eval.deals={pairs}", f"eval.opponents=[{opponent}]",
            f"checkpoint.interval={every}", "logging.progress_bar=false",
            "logging.tensorboard=false", *extra]


def train(config: str, out: Path, name: str, samples: int, every: int, pairs: int,
          opponent: str, extra: list[str]) -> list[dict]:
    """The run's evaluations (``metrics.jsonl``), after training it."""
    cmd = [sys.executable, "-m", "aluette_env", "train", config]
    for s in run_settings(out, name, samples, every, pairs, opponent, extra):
        cmd += ["--set", s]
    if (out / name / "state.json").exists():
        # A run kept by an earlier call: resumed (a finished one only read back); a
        # different config is refused by `aluette train` itself.
        cmd += ["--resume", str(out / name)]
    print("$", " ".join(cmd[1:]), flush=True)
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{name}: exit {proc.returncode}: "
                         f"{(proc.stderr.strip().splitlines() or ['?'])[-1]}")
    lines = (out / name / "metrics.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def run_name(name: str) -> str:
    """A run's folder: its backend ("sb3", "rllib")."""
    return name.split(",")[0].lower()


def curve(evals: list[dict], opponent: str) -> list[tuple[int, float, float, float]]:
    """(learner samples, points per deal, CI low, CI high) per evaluation."""
    rows = []
    for e in evals:
        r = e["results"][opponent]
        lo, hi = r["points_per_deal_ci95"]
        rows.append((int(e["timesteps"]), r["points_per_deal"], lo, hi))
    return rows


def plot(curves: dict[str, list], opponent: str, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    for name, rows in curves.items():
        x = [r[0] / 1e6 for r in rows]
        ax.plot(x, [r[1] for r in rows], marker="o", label=name)
        ax.fill_between(x, [r[2] for r in rows], [r[3] for r in rows], alpha=0.2)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("learner samples (millions)")
    ax.set_ylabel(f"points per deal vs {opponent}")
    ax.set_title("Same config, same seeds and evaluation deals: SB3 and RLlib")
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--samples", type=int, default=3_000_000)
    p.add_argument("--every", type=int, default=500_000)
    p.add_argument("--pairs", type=int, default=1000)
    p.add_argument("--opponent", default="ai:version=1")
    p.add_argument("--runners", type=int, default=1)
    p.add_argument("--seed", type=int, help="the runs' seed (default: the config's)")
    p.add_argument("--only", choices=["sb3", "rllib"], help="train this backend only "
                   "(default: both)")
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "rllib_vs_sb3.png")
    p.add_argument("--keep", type=Path, help="keep the two runs in this folder")
    args = p.parse_args(argv)
    if min(args.samples, args.every, args.pairs) < 1 or args.runners < 0:
        p.error("--samples, --every and --pairs must be at least 1, --runners at least 0")
    with tempfile.TemporaryDirectory() as tmp:
        out = args.keep or Path(tmp)
        curves = {name: curve(train(args.config, out, run_name(name), args.samples,
                                    args.every, args.pairs, args.opponent, extra),
                              args.opponent)
                  for name, extra in runs(args.runners, args.seed, args.only).items()}
    print(f"\n| backend | learner samples | points per deal vs `{args.opponent}` [95 % CI] |")
    print("|---|---:|---|")
    for name, rows in curves.items():
        for n, v, lo, hi in rows:
            print(f"| {name} | {n:,} | {v:+.3f} [{lo:+.3f}, {hi:+.3f}] |")
    plot(curves, args.opponent, args.out)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
