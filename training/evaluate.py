"""A run's evaluations, for every backend: the policy against the config's
opponents (and panel) by duplicate deals, recorded in the run folder
(``metrics.jsonl``, the best model, the learning curve) and its TensorBoard.

May import: the standard library and :mod:`aluette_env`; never torch or a
training library.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from .atomic import append_jsonl
from .config import TrainConfig
from .curve import plot_curve


def evaluate_run(cfg: TrainConfig, player, state: dict, run_dir: Path, timesteps: int,
                 wall_time_s: float, save_best: Callable[[], None],
                 scalar: Callable[[str, float], None]) -> dict:
    """Duplicate evaluation of ``player`` against ``cfg.eval.opponents``, recorded in
    the run: appended to ``state["evals"]`` and ``metrics.jsonl``; ``save_best()``
    when the score against the first opponent is the best yet; the learning curve;
    ``scalar(tag, value)`` for each TensorBoard figure. Returns the record.

    With ``cfg.eval.panel``, the player also meets those panel members on the same
    deals (:func:`aluette_env.evaluation.panel_eval`): the record's ``panel`` is
    its ``to_json()`` (each member, the ``minimum``, the ``mean``), logged as
    ``eval/panel_min`` and ``eval/panel_mean``. The best still follows the first
    opponent.

    The best is compared like with like: a best against another opponent (a
    resumed run whose first opponent changed) is replaced by this score."""
    from aluette_env.evaluation import duplicate_eval, panel_eval, partner_eval
    t0 = time.perf_counter()
    results = {}
    for spec in cfg.eval.opponents:
        res = duplicate_eval(player, spec, deals=cfg.eval.deals, seed=cfg.eval.seed,
                             variant=cfg.env.variant)
        results[spec] = res.to_json()
        key = spec.replace("/", "_")
        scalar(f"eval/points_per_deal_vs_{key}", res.points_per_deal)
        scalar(f"eval/points_per_deal_vs_{key}_ci_low", res.points_per_deal_ci95[0])
        scalar(f"eval/points_per_deal_vs_{key}_ci_high", res.points_per_deal_ci95[1])
        scalar(f"eval/deal_win_rate_vs_{key}", res.deal_win_rate)
        if spec == cfg.eval.opponents[0]:
            scalar("eval/deal_win_rate", res.deal_win_rate)
    panel = None
    if cfg.eval.panel is not None:
        panel = panel_eval(player, cfg.eval.panel, deals=cfg.eval.panel_deals or cfg.eval.deals,
                           seed=cfg.eval.seed, deals_for=cfg.eval.panel_deals_for)
        scalar("eval/panel_min", panel.minimum.points_per_deal)
        scalar("eval/panel_mean", panel.mean)
    partners = None
    if cfg.eval.partners is not None:
        partners = partner_eval(player, cfg.eval.partners, opponent=cfg.eval.partners_opponent,
                                reference=cfg.eval.partners_reference,
                                deals=cfg.eval.partners_deals or cfg.eval.deals,
                                seed=cfg.eval.seed)
        scalar("eval/partners_min_lift", partners.minimum.lift)
        scalar("eval/partners_mean_lift", partners.mean_lift)
        for name, row in partners.rows.items():
            scalar(f"eval/lift_beside_{name.replace('/', '_')}", row.lift)
    record = {"timesteps": timesteps, "wall_time_s": wall_time_s,
              "eval_seconds": time.perf_counter() - t0, "results": results}
    if panel is not None:
        record["panel"] = panel.to_json()
    if partners is not None:
        record["partners"] = partners.to_json()
    state["evals"].append(record)
    append_jsonl(run_dir / "metrics.jsonl", record)
    main = results[cfg.eval.opponents[0]]["points_per_deal"]
    best = state["best"]
    if best is None or best.get("opponent") != cfg.eval.opponents[0] \
            or main > best["points_per_deal"]:
        state["best"] = {"timesteps": timesteps, "points_per_deal": main,
                         "opponent": cfg.eval.opponents[0]}
        save_best()
    if cfg.logging.curve:
        plot_curve(state["evals"], run_dir / "learning_curve.png", cfg.run_name)
    return record
