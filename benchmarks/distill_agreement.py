"""Why distillation lowers the held-out agreement with the expert's card
(docs/experiments/distillation-agreement.md): how many of the expert's
switches from the guiding policy's greedy card stand out of the noise of its
sampled worlds; what one gradient step of a cross-entropy to the policy's own
greedy cards does to the margins of the very positions it fits; and what a
few fits do to the held-out positions where the expert keeps the policy's card
and where it switches.

    python benchmarks/distill_agreement.py DATA_DIR [--start ai:version=6]
        [--config configs/history/v7.yaml] [--seeds 3] [--also S:A ...]
        [--recheck-worlds W [--jobs J]] [--average K]

DATA_DIR is an expert data set made with POLICY as the guide (``aluette
expert-data CONFIG --out DATA_DIR --policy POLICY``). Each fit starts from
POLICY's weights, is the config's distillation with one change, and keeps its
last epoch (``validation`` 0); the held-out and fitted positions are the
distillation's own split, one per seed, pooled. ``--also S:A`` adds the
default distillation with ``significance`` S and ``logit_anchor`` A. With
``--recheck-worlds W`` the positions where the expert switched from the
guide's greedy card are searched again with W worlds (``--jobs`` processes)
and that search's card and values are their labels: labels whose switches
stand out of the noise. With ``--average K`` it makes only the default
distillation, K times a split with other seeds, and reports the fits' weights
averaged (:func:`averaged_report`). About 5 minutes on 1 core for 8,000 positions
(a recheck at 576 worlds: about 0.45 s a switch); not in ``make bench``.
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


def step_report(policy, data) -> str:
    """One full-batch step (all positions at once: no minibatch noise) of the
    cross-entropy to the policy's own greedy cards: how many of those positions'
    margins (greedy logit minus the next) fall, and how many cards flip, by step."""
    import torch

    from training.expert_iteration.distill import distill_losses
    from training.expert_iteration import DistillConfig
    greedy = data["policy"].argmax(1)
    own = relabelled(data, greedy)
    cfg = DistillConfig(best_weight=1.0, anchor=0.0, vf_coef=0.0, significance=0.0,
                        logit_anchor=0.0)
    every = torch.arange(len(greedy))
    start = {k: v.clone() for k, v in policy.state_dict().items()}

    def margins():
        from training.sb3.network import masked_logits
        z = masked_logits(policy, data["observations"], data["masks"]).numpy()
        top = z[np.arange(len(z)), greedy]
        z[np.arange(len(z)), greedy] = -np.inf
        return top - z.max(1)
    m0 = margins()
    lines = []
    for name, make in (("SGD 0.01", lambda p: torch.optim.SGD(p, lr=0.01)),
                       ("Adam 1e-5", lambda p: torch.optim.Adam(p, lr=1e-5)),
                       ("Adam 3e-4", lambda p: torch.optim.Adam(p, lr=3e-4))):
        policy.load_state_dict(start)
        optimizer = make(policy.parameters())
        losses = distill_losses(policy, own, cfg)
        loss = losses(every)[1]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            after = float(losses(every)[1])
        m = margins()
        lines.append(f"  one {name} step: loss {float(loss):.4f} -> {after:.4f}; margin falls at "
                     f"{np.mean(m < m0):.1%} of the positions, mean |change| "
                     f"{np.abs(m - m0).mean():.4f}; cards flipped {np.mean(m < 0):.2%} (of the "
                     f"{np.mean(m0 < 0.1):.1%} with a margin under 0.1: {np.mean((m < 0)[m0 < 0.1]):.1%})")
    policy.load_state_dict(start)
    return "\n".join(["one step of the cross-entropy to the policy's own greedy cards, all "
                      "positions:"] + lines)


def recheck_part(args) -> tuple:
    """Part ``part`` of ``parts`` of the switch positions ``index`` searched again
    with ``worlds`` worlds, guided by ``start``: (index, values, stderr, move)."""
    data_dir, start, worlds, index, part, parts = args
    from aluette_env.players.search import ExpertPlayer
    from training.expert_iteration.data import expert_move, load_dataset
    data = load_dataset(data_dir)
    mine = index[part::parts]
    expert = ExpertPlayer(worlds=worlds, policy=start, seed=777 + part)
    values = np.full((len(mine), data["values"].shape[1]), np.nan, np.float32)
    stderr, move = values.copy(), np.zeros(len(mine), np.int64)
    for j, i in enumerate(mine):
        obs, mask = data["observations"][i], data["masks"][i]
        cv = expert.card_values(obs, mask)
        values[j, cv.cards], stderr[j, cv.cards] = cv.value, cv.stderr
        move[j] = expert_move(expert, cv, obs, mask)
    return mine, values, stderr, move


def rechecked(data, data_dir: Path, start: str, worlds: int, jobs: int):
    """``data`` whose switch positions (the expert's card is not the guide's greedy
    card) carry the labels of a second search with ``worlds`` worlds."""
    from concurrent.futures import ProcessPoolExecutor
    from training.expert_iteration.data import ExpertData
    arrays = {k: np.array(v) for k, v in data.arrays.items()}
    greedy = arrays["policy"].argmax(1)
    index = np.flatnonzero(greedy != arrays["move"])
    jobs = max(1, min(jobs, len(index)))
    with ProcessPoolExecutor(jobs) as pool:
        parts = list(pool.map(recheck_part, [(data_dir, start, worlds, index, k, jobs)
                                              for k in range(jobs)]))
    for mine, values, stderr, move in parts:
        arrays["values"][mine], arrays["stderr"][mine] = values, stderr
        arrays["move"][mine] = move.astype(arrays["move"].dtype)
    kept = np.mean(arrays["move"][index] != greedy[index])
    same = np.mean(arrays["move"][index] == data["move"][index])
    print(f"{len(index):,} switch positions searched again with {worlds} worlds: a switch kept "
          f"at {kept:.1%}, the first search's card at {same:.1%}", flush=True)
    return ExpertData(arrays, data.manifest)


def relabelled(data, move):
    """``data`` with ``move`` as the expert's move."""
    from training.expert_iteration.data import ExpertData
    return ExpertData({**data.arrays, "move": np.asarray(move).astype(np.int8)}, data.manifest)


def fit_settings(cfg, also: list[tuple[float, float]] = ()) -> dict:
    """Each fit's distillation settings (the loop config's, changed, last epoch kept),
    checked as a config file's are: name -> (DistillConfig, its labels: 'expert' or
    'own')."""
    from training.expert_iteration import DistillConfig
    default = DistillConfig()
    new = {"significance": default.significance, "logit_anchor": default.logit_anchor}
    own = {"best_weight": 1.0, "epochs": 1, "anchor": 0.0, "vf_coef": 0.0}
    fits = {"the config's": ({}, "expert"),
            "its own greedy cards, one epoch of cross-entropy": (own, "own"),
            f"significance {default.significance:g}": (
                {"significance": default.significance}, "expert"),
            f"logit_anchor {default.logit_anchor:g}": (
                {"logit_anchor": default.logit_anchor}, "expert"),
            "the default distillation": (new, "expert"),
            **{f"significance {sig:g}, logit_anchor {anchor:g}": (
                {"significance": sig, "logit_anchor": anchor}, "expert") for sig, anchor in also}}
    return {name: (DistillConfig.model_validate({**cfg.distill.model_dump(), **update,
                                                 "validation": 0.0}), labels)
            for name, (update, labels) in fits.items()}


def pooled(results: list[dict], changed: list[bool], right: list[bool]) -> str:
    """The held-out agreement before -> after, in all and where the expert keeps the
    guide's card and where it switches, pooled over the fits' splits; the share of
    held-out positions whose greedy card the fit changed, and of those changes, the
    share to the expert's card (above a half, they raise the agreement)."""
    def share(key, part=None):
        rows = [(r["held_out"], r[key]["agreement"]) if part is None else
                (r["held_out_after"][part]["positions"], r["held_out_after"][part]["agreement"])
                for r in results]
        n = sum(k for k, _ in rows)
        return sum(k * (a or 0) for k, a in rows) / max(n, 1), n
    before, n = share("before")
    after, _ = share("after")
    parts = [f"{part} {share('after', part)[0]:.1%} of {share('after', part)[1]}"
             for part in ("keeps", "switches")]
    return (f"held-out agreement {before:.2%} -> {after:.2%} ({after - before:+.2%}, {n} "
            f"positions); after, where the expert keeps the guide's card / switches: "
            + ", ".join(parts) + f"; greedy card changed at {np.mean(changed):.2%}, to the "
            f"expert's card in {np.sum(right) / max(np.sum(changed), 1):.1%} of those")


def start_model(cfg, start: str):
    """A model of the loop config's network with ``start``'s weights (the policy
    every fit starts from)."""
    from training.expert_iteration.distill import new_model, onnx_path
    from training.sb3.train import load_onnx_weights
    model = new_model(cfg.network, 1)
    load_onnx_weights(model.policy, onnx_path(start))
    return model


def averaged_report(cfg, data, start: str, fits: int, seeds: int) -> str:
    """The default distillation fitted ``fits`` times on one split (seeds 0 to
    fits - 1: other minibatch orders), its weights averaged: the held-out
    agreement before -> after for one fit and for the means of the first 2, 4, ...
    ``fits`` fits, pooled over ``seeds`` splits (each the split ``distill`` makes
    with that seed). Noise of one fit (near ties moved at random) averages out;
    what every fit learns stays."""
    import torch

    from training.expert_iteration import DistillConfig
    from training.expert_iteration.distill import distill
    from training.sb3.network import masked_logits
    default = DistillConfig()
    base = DistillConfig.model_validate({**cfg.distill.model_dump(), "validation": 0.0,
                                         "holdout": 0.0, "significance": default.significance,
                                         "logit_anchor": default.logit_anchor})
    counts = [k for k in (1, 2, 4, 8, 16, 32, 64) if k < fits] + [fits]
    tally = {k: [0, 0, 0] for k in counts}  # agree, changed, changed to the expert's card
    held, agree_before = 0, 0
    greedy_all = data["policy"].argmax(1)
    for split in range(seeds):
        perm = np.random.default_rng(split).permutation(len(data))
        n_hold = round(default.holdout * len(data))
        hold, pool = perm[:n_hold], perm[n_hold:]
        obs, masks = data["observations"][hold], data["masks"][hold]
        move, greedy = data["move"][hold], greedy_all[hold]
        held += len(hold)
        agree_before += int(np.sum(greedy == move))
        states = []
        for k in range(fits):
            model = start_model(cfg, start)
            distill(model.policy, data.subset(pool), base.model_copy(update={"seed": k}),
                    log=lambda *a: None)
            states.append({key: v.detach().clone() for key, v in model.policy.state_dict().items()})
        for k in counts:
            mean = {key: sum(state[key].float() for state in states[:k]) / k
                    for key in states[0]}
            model.policy.load_state_dict(mean)
            with torch.no_grad():
                now = masked_logits(model.policy, obs, masks).argmax(1).numpy()
            tally[k][0] += int(np.sum(now == move))
            tally[k][1] += int(np.sum(now != greedy))
            tally[k][2] += int(np.sum((now != greedy) & (now == move)))
    splits = f"{seeds} split{'s' if seeds > 1 else ''}"
    lines = [f"the default distillation, weights averaged over fits of other seeds ({held} "
             f"held-out positions, {splits}): agreement before {agree_before / held:.2%}"]
    for k, (agree, changed, right) in tally.items():
        lines.append(f"  mean of {k} fit{'s' if k > 1 else ''}: {agree / held:.2%} "
                     f"({(agree - agree_before) / held:+.2%}); greedy card changed at "
                     f"{changed / held:.2%}, to the expert's card in {right / max(changed, 1):.1%}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--start", default="ai:version=6")
    parser.add_argument("--config", default=str(ROOT / "configs" / "history" / "v7.yaml"))
    parser.add_argument("--seeds", type=int, default=3, help="splits (distill seeds) per fit, "
                        "pooled (default: 3)")
    parser.add_argument("--also", action="append", default=[], metavar="S:A",
                        help="another fit: the default with significance S and logit_anchor A")
    parser.add_argument("--recheck-worlds", type=int, default=0, metavar="W",
                        help="search the switch positions again with W worlds (default: 0, no)")
    parser.add_argument("--jobs", type=int, default=1, help="processes of the recheck")
    parser.add_argument("--average", type=int, default=0, metavar="K",
                        help="only: the default distillation fitted K times a split, "
                             "weights averaged (default: 0, the fits above)")
    args = parser.parse_args(argv)
    try:
        also = [tuple(float(x) for x in item.split(":")) for item in args.also]
    except ValueError:
        also = [()]
    if not all(len(pair) == 2 and min(pair) >= 0 for pair in also):
        parser.error(f"--also takes SIGNIFICANCE:LOGIT_ANCHOR, two numbers >= 0; got {args.also}")
    if args.recheck_worlds < 0 or args.jobs < 1 or args.average < 0 or args.seeds < 1:
        parser.error("--recheck-worlds and --average must be 0 or more, --jobs and --seeds "
                     "at least 1")
    import torch

    from training.config import load_loop_config
    from training.expert_iteration.data import load_dataset
    from training.expert_iteration.distill import distill
    torch.set_num_threads(1)
    cfg = load_loop_config(args.config, [])
    data = load_dataset(args.data)
    if args.recheck_worlds:
        data = rechecked(data, args.data, args.start, args.recheck_worlds, args.jobs)
    print(noise_report(data))
    if args.average:
        print(averaged_report(cfg, data, args.start, args.average, args.seeds), flush=True)
        return
    greedy = data["policy"].argmax(1)

    from training.sb3.network import masked_logits
    model = start_model(cfg, args.start)
    print(step_report(model.policy, data), flush=True)
    labels = {"expert": data, "own": relabelled(data, greedy)}
    for name, (settings, which) in fit_settings(cfg, also).items():
        results, changed, right = [], [], []
        for seed in range(args.seeds):
            model = start_model(cfg, args.start)
            fit = settings.model_copy(update={"seed": seed})
            results.append(distill(model.policy, labels[which], fit, log=lambda *a: None))
            # distill's own split: the first holdout share of its seed's permutation.
            hold = np.random.default_rng(seed).permutation(len(data))[
                :round(fit.holdout * len(data))]
            now = masked_logits(model.policy, data["observations"][hold],
                                data["masks"][hold]).argmax(1).numpy()
            changed.extend(now != greedy[hold])
            right.extend((now != greedy[hold]) & (now == data["move"][hold]))
        print(f"{name}: {pooled(results, changed, right)}", flush=True)


if __name__ == "__main__":
    main()
