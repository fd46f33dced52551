"""What an expert-iteration data set can teach its guiding policy: how often the
expert plays another card than the policy's greedy one and by how much it
claims to gain, what distillation does to the held-out agreement with those
cards, and the strength of a few fits of the same data against the policy they
started from (docs/experiments/past-v4.md).

    python benchmarks/distill_labels.py ITERATION_FOLDER --start POLICY.onnx
        [--config configs/history/v5.yaml] [--deals 10000] [--seeds 9001 0] [--jobs 2]

ITERATION_FOLDER is one of an expert-iteration run's ``iter-N`` folders (its
``data`` set is read); POLICY is the policy that iteration started from, the
one that guided the expert (an iteration's ``start``, or the previous
iteration's ``ppo.onnx``). The fits, each from POLICY's weights:

- ``loop``: the config's own distillation, on this iteration's data alone
  (the loop also replays the iteration before's, ``distill.replay``);
- ``strict2``, ``strict1.5``: hard labels (``best_weight`` 1) where the expert's
  card replaces the policy's greedy one only when it gains more than 2 (1.5)
  standard errors over it;
- ``small``: the config's targets at a tenth of its learning rate, two epochs.

Also fits, for one epoch of pure cross-entropy, labels that are the policy's
own greedy cards (``own``): the held-out agreement it keeps shows what the fit
does to near-ties. Each fit is exported to a temporary folder and played
against POLICY over ``--deals`` duplicate pairs per seed. Not in ``make
bench``: about ten minutes on 2 cores with the defaults.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def switches(data) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(the policy's greedy card, the expert's card, the expert card's value minus
    the greedy card's, that difference's standard error) per position."""
    i = np.arange(len(data))
    greedy = data["policy"].argmax(1)
    move = data["move"].astype(np.int64)
    gain = data["values"][i, move] - data["values"][i, greedy]
    return greedy, move, gain, data["stderr"][i, greedy]


def summary(data) -> dict[str, float]:
    """How often, and by how much, the expert's card is not the policy's greedy one."""
    greedy, move, gain, se = switches(data)
    other = move != greedy
    return {"share": float(other.mean()),
            "over 1 se": float((gain[other] > se[other]).mean()),
            "over 2 se": float((gain[other] > 2 * se[other]).mean()),
            "mean gain": float(np.nanmean(gain[other]))}


def relabelled(data, move: np.ndarray):
    from training.expert_iteration.data import ExpertData
    arrays = dict(data.arrays)
    arrays["move"] = move.astype(np.int8)
    return ExpertData(arrays, data.manifest)


def strict(data, k: float):
    """The expert's card only where it gains more than ``k`` standard errors over
    the policy's greedy card; the greedy card elsewhere."""
    greedy, move, gain, se = switches(data)
    return relabelled(data, np.where((move == greedy) | (gain > k * se), move, greedy))


def fit_settings(cfg) -> dict:
    """Each fit's distillation settings (``own`` first): the loop config's,
    changed, and checked as a config file's are (a DistillConfig)."""
    from training.expert_iteration import DistillConfig
    updates = {"own": {"best_weight": 1.0, "epochs": 1, "anchor": 0.0, "vf_coef": 0.0},
               "loop": {}, "strict2": {"best_weight": 1.0}, "strict1.5": {"best_weight": 1.0},
               "small": {"learning_rate": cfg.distill.learning_rate / 10, "epochs": 2}}
    return {name: DistillConfig.model_validate({**cfg.distill.model_dump(), **update})
            for name, update in updates.items()}


def fit(cfg, start: str, data, settings, out: Path | None, iteration: Path
        ) -> tuple[float, float]:
    """Distil ``data`` into a model started from ``start``, with the distillation
    ``settings`` (:func:`fit_settings`) and the loop's seed for that iteration
    (``iter-N``); exports it to ``out/policy.onnx`` unless ``out`` is None.
    Returns the held-out agreement before and after."""
    from training.expert_iteration.distill import distill, new_model, onnx_path
    from training.export import export_policy
    from training.sb3.checkpoints import save_model
    from training.sb3.train import load_onnx_weights
    number = re.fullmatch(r"iter-(\d+)", iteration.name)
    model = new_model(cfg.network, cfg.distill.seed + (int(number[1]) if number else 1))
    load_onnx_weights(model.policy, onnx_path(start))
    result = distill(model.policy, data, settings, log=lambda *a: None)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        save_model(model, out / "model.zip")
        shutil.copy(iteration / "config.yaml", out / "config.yaml")  # the export's metadata
        export_policy(str(out / "model.zip"), out / "policy.onnx")
    return result["before"]["agreement"], result["after"]["agreement"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("iteration", type=Path)
    parser.add_argument("--start", required=True)
    parser.add_argument("--config", default=str(ROOT / "configs" / "history" / "v5.yaml"))
    parser.add_argument("--deals", type=int, default=10000)
    parser.add_argument("--seeds", type=int, nargs="+", default=[9001, 0])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    for path, what in ((args.iteration / "data", "an iteration folder with a data set"),
                       (Path(args.start), "the policy the iteration started from"),
                       (args.iteration / "config.yaml", "an iteration folder's config.yaml")):
        if not path.exists():
            sys.exit(f"distill_labels: {path} does not exist ({what})")
    import torch

    from aluette_env.evaluation import duplicate_eval
    from training.config import load_loop_config
    from training.expert_iteration.data import load_dataset
    torch.set_num_threads(1)
    cfg = load_loop_config(args.config, [])
    data = load_dataset(args.iteration / "data")
    s = summary(data)
    print(f"{len(data):,} positions; the expert's card is not the policy's greedy one in "
          f"{s['share']:.1%}; of those, {s['over 1 se']:.0%} claim a gain over one standard "
          f"error, {s['over 2 se']:.0%} over two; mean claimed gain {s['mean gain']:+.3f} points")
    settings = fit_settings(cfg)
    own = relabelled(data, data["policy"].argmax(1))
    before, after = fit(cfg, args.start, own, settings.pop("own"), None, args.iteration)
    print(f"own: labels = the policy's greedy cards, one epoch of cross-entropy: held-out "
          f"agreement {before:.1%} -> {after:.1%}\n")
    labels = {"loop": data, "strict2": strict(data, 2.0), "strict1.5": strict(data, 1.5),
              "small": data}
    print("| fit | held-out agreement with its labels | "
          + " | ".join(f"against the start, seed {seed}" for seed in args.seeds)
          + " |\n|---|---|" + "---:|" * len(args.seeds))
    with tempfile.TemporaryDirectory() as tmp:
        for name, distilled in settings.items():
            out = Path(tmp) / name
            before, after = fit(cfg, args.start, labels[name], distilled, out, args.iteration)
            cells = []
            for seed in args.seeds:
                res = duplicate_eval(str(out / "policy.onnx"), args.start, deals=args.deals,
                                     seed=seed, jobs=args.jobs)
                lo, hi = res.points_per_deal_ci95
                cells.append(f"{res.points_per_deal:+.4f} [{lo:+.4f}, {hi:+.4f}]")
            print(f"| {name} | {before:.1%} -> {after:.1%} | " + " | ".join(cells) + " |",
                  flush=True)


if __name__ == "__main__":
    main()
