"""Why distillation lowers the held-out agreement with the expert's card
(docs/experiments/distillation-agreement.md): how many of the expert's
switches from the guiding policy's greedy card stand out of the noise of its
sampled worlds, and what a few fits do to the held-out positions where the
expert keeps the policy's card and where it switches.

    python benchmarks/distill_agreement.py DATA_DIR [--start ai:version=6]
        [--config configs/history/v7.yaml]

DATA_DIR is an expert data set made with POLICY as the guide (``aluette
expert-data CONFIG --out DATA_DIR --policy POLICY``). Each fit starts from
POLICY's weights, is the config's distillation with one change, and keeps its
last epoch (``validation`` 0); the held-out and fitted positions are the
distillation's own split. A few minutes on 1 core for 6,000 positions; not in
``make bench``.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def noise_report(data) -> str:
    """The switches, their claimed gains in standard errors, and what noise alone
    gives: a card no better than the policy's passes k standard errors, given that
    it passed one, with probability P(Z > k) / P(Z > 1)."""
    n = len(data["move"])
    i = np.arange(n)
    greedy, move = data["policy"].argmax(1), data["move"].astype(np.int64)
    switch = greedy != move
    with np.errstate(invalid="ignore", divide="ignore"):
        z = ((data["values"][i, move] - data["values"][i, greedy])
             / data["stderr"][i, greedy])[switch]

    def tail(k):
        return 0.5 * math.erfc(k / math.sqrt(2))
    lines = [f"{n:,} positions; the expert switches from the policy's greedy card in "
             f"{switch.mean():.1%}; claimed gain in standard errors, quantiles 10/50/90 %: "
             + " / ".join(f"{q:.2f}" for q in np.nanquantile(z, [0.1, 0.5, 0.9]))]
    for k in (2, 3):
        lines.append(f"  switches over {k} standard errors: {np.mean(z > k):.1%} (noise alone: "
                     f"{tail(k) / tail(1):.1%})")
    return "\n".join(lines)


def fit_settings(cfg) -> dict:
    """Each fit's distillation settings (the loop config's, changed, last epoch kept),
    checked as a config file's are: name -> (DistillConfig, its labels: 'expert',
    'own' or 'over 2 se')."""
    from training.expert_iteration import DistillConfig
    fits = {"the config's": ({}, "expert"),
            "its own greedy cards, one epoch of cross-entropy": (
                {"best_weight": 1.0, "epochs": 1, "anchor": 0.0, "vf_coef": 0.0}, "own"),
            "a tenth of the step size": (
                {"learning_rate": cfg.distill.learning_rate / 10}, "expert"),
            "the expert's card only over 2 standard errors": ({"best_weight": 1.0}, "over 2 se")}
    return {name: (DistillConfig.model_validate({**cfg.distill.model_dump(), **update,
                                                 "validation": 0.0}), labels)
            for name, (update, labels) in fits.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--start", default="ai:version=6")
    parser.add_argument("--config", default=str(ROOT / "configs" / "history" / "v7.yaml"))
    args = parser.parse_args(argv)
    import torch

    from training.config import load_loop_config
    from training.expert_iteration.data import ExpertData, load_dataset
    from training.expert_iteration.distill import distill, new_model, onnx_path
    from training.sb3.train import load_onnx_weights
    torch.set_num_threads(1)
    cfg = load_loop_config(args.config, [])
    data = load_dataset(args.data)
    print(noise_report(data))
    greedy = data["policy"].argmax(1)

    def labelled(move):
        return ExpertData({**data.arrays, "move": move.astype(np.int8)}, data.manifest)
    i = np.arange(len(data))
    move = data["move"].astype(np.int64)
    gain = data["values"][i, move] - data["values"][i, greedy]
    significant = np.where(gain > 2 * data["stderr"][i, greedy], move, greedy)
    labels = {"expert": data, "own": labelled(greedy), "over 2 se": labelled(significant)}
    for name, (settings, which) in fit_settings(cfg).items():
        fitted = labels[which]
        model = new_model(cfg.network, 1)
        load_onnx_weights(model.policy, onnx_path(args.start))
        result = distill(model.policy, fitted, settings, log=lambda *a: None)
        parts = [f"{k} {v['agreement']:.1%} of {v['positions']}"
                 for k, v in result["held_out_after"].items() if v["positions"]]
        print(f"{name}: held-out agreement with its labels {result['before']['agreement']:.1%} -> "
              f"{result['after']['agreement']:.1%}; where the labels keep the policy's card / "
              f"switch from it: {', '.join(parts)}")


if __name__ == "__main__":
    main()
