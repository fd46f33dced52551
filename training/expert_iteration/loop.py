"""Expert iteration's loop and its commands: label, distil, train on with PPO,
evaluate, repeat (the package's docstring), resumable step by step.

``aluette expert-iteration CONFIG`` runs the loop (:func:`run_loop`);
``aluette expert-data CONFIG --out DIR`` makes one data set.

May import: :mod:`aluette_env` at the top; torch and SB3 only inside the
functions that need them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from aluette_env import commands as cli

from ..atomic import remove_partial_writes, write_json, write_text
from ..config import (
    ConfigError, LoopConfig, check_policy, load_loop_config, ppo_config, to_yaml,
)
from ..runs import CheckpointError, saved_config_diff
from .data import check_data_folder, generate, load_dataset
from .distill import distill, new_model, onnx_path


def run_loop(cfg: LoopConfig, log=print) -> Path:
    """The whole loop; resumable: finished steps of each iteration (data shards,
    the distilled model, the PPO phase, the choice between them, the evaluation)
    are kept and skipped."""
    import torch

    from aluette_env.evaluation import duplicate_eval

    from ..export import export_policy
    from ..sb3.checkpoints import load_model, save_model
    from ..sb3.train import load_onnx_weights
    torch.set_num_threads(cfg.torch_threads)
    run = Path(cfg.output_dir) / cfg.run_name
    check_resume(run, cfg)
    # What a write killed in an earlier run left (data sets clear their own).
    remove_partial_writes(run, *run.glob("iter-*"))
    run.mkdir(parents=True, exist_ok=True)
    write_text(run / "config.yaml", to_yaml(cfg))
    policy, previous = cfg.start, None
    for it in range(1, cfg.iterations + 1):
        folder = run / f"iter-{it}"
        data_cfg = cfg.data.model_copy(update={"seed": cfg.data.seed + 1000 * it})
        generate(folder / "data", data_cfg, policy, log)
        model_zip, model_onnx = folder / "model.zip", folder / "policy.onnx"
        if not model_zip.exists():
            model = new_model(cfg.network, cfg.distill.seed + it)
            state = load_model(previous).policy.state_dict() if previous is not None else None
            if state is not None and state.keys() == model.policy.state_dict().keys():
                model.policy.load_state_dict(state)
            else:
                # The start, or a PPO phase whose critic is not the distilled network's
                # (a privileged critic reads the hidden cards): the exported policy's
                # weights, its critic fitted afresh by the distillation's value loss.
                load_onnx_weights(model.policy, onnx_path(policy))
            first = max(1, it - cfg.distill.replay)
            sets = [run / f"iter-{k}" / "data" for k in range(first, it + 1)]
            fit = distill(model.policy, load_dataset(*sets), cfg.distill, log)
            save_model(model, model_zip)
            write_json(folder / "distill.json", fit)
        if not model_onnx.exists():
            # The export carries the folder's config.yaml in the model's metadata.
            write_text(folder / "config.yaml", (run / "config.yaml").read_text())
            export_policy(str(model_zip), model_onnx)
        evaluated = {"distilled": model_onnx}
        result_path = folder / "eval.json"
        named = _named_policy(result_path)  # None: the iteration is evaluated (again)
        kept = "distilled"
        if cfg.ppo.config is not None:
            ppo_zip, ppo_onnx = ppo_phase(cfg, folder, model_onnx, log)
            evaluated["ppo"] = ppo_onnx
            if named is not None:  # a finished iteration keeps the policy it named
                kept = "ppo" if named == str(ppo_onnx) else "distilled"
            else:
                kept = kept_stage(cfg, folder, model_onnx, ppo_onnx, log)
            if kept == "ppo":
                model_zip, model_onnx = ppo_zip, ppo_onnx
        if named is None:
            results: dict[str, dict] = {}
            for stage, path in evaluated.items():
                results[stage] = {}
                for opponent in cfg.eval.opponents:
                    res = duplicate_eval(str(path), opponent, deals=cfg.eval.deals,
                                         seed=cfg.eval.seed)
                    lo, hi = res.points_per_deal_ci95
                    results[stage][opponent] = {
                        "points_per_deal": res.points_per_deal, "ci95": [lo, hi],
                        "deals": cfg.eval.deals, "seed": cfg.eval.seed}
                    log(f"iteration {it} ({stage}): {path} vs {opponent}: "
                        f"{res.points_per_deal:+.3f} [{lo:+.3f}, {hi:+.3f}] points per deal "
                        f"over {cfg.eval.deals} pairs")
            write_json(result_path, {"iteration": it, "policy": str(model_onnx), "kept": kept,
                                     "results": results[kept], "stages": results})
        policy, previous = str(model_onnx), model_zip
    log(f"expert iteration finished: {cfg.iterations} iterations in {run}; the last policy is "
        f"{policy}")
    return run


#: Settings a resumed loop may change: how many iterations, and how fast it works.
LOOP_RESUMABLE = ("iterations", "data.workers", "torch_threads")


def check_resume(run: Path, cfg: LoopConfig) -> None:
    """A loop folder ``run`` that holds a loop resumes only with its own settings
    (but :data:`LOOP_RESUMABLE`): its finished steps are kept, so a setting that
    made them may not change under them, nor its ``config.yaml`` say another.
    ConfigError naming the differences (CheckpointError: an unreadable config.yaml)."""
    if not (Path(run) / "config.yaml").exists():
        return
    blocking = [d for d in saved_config_diff(run, cfg) if not d.startswith(LOOP_RESUMABLE)]
    if blocking:
        raise ConfigError(f"{run}: the config differs from the loop's ({'; '.join(blocking[:5])})"
                          f"; its finished steps were made with its own: resume it with those, "
                          f"or start a new loop (--set run_name=...)")


def kept_stage(cfg: LoopConfig, folder: Path, distilled: Path, ppo: Path, log=print) -> str:
    """Which policy ends the iteration, "ppo" or "distilled" (``ppo.keep``): with
    ``better``, the PPO phase's policy only where its mean over ``ppo.keep_deals``
    pairs against the distilled policy, head to head, is above 0, so that a phase
    that loses the distillation's gain does not carry the loss on. The match is
    played once and kept (``folder/keep.json``, with what it compared: a resumed
    loop keeps the same choice, and plays again only if the models, the pairs or
    the seed are no longer those)."""
    from aluette_env.evaluation import duplicate_eval
    if cfg.ppo.keep == "ppo":
        return "ppo"
    path = folder / "keep.json"
    match = {"ppo": str(ppo), "distilled": str(distilled), "sha256": [_digest(ppo),
             _digest(distilled)], "deals": cfg.ppo.keep_deals, "seed": cfg.ppo.keep_seed}
    try:
        record = json.loads(path.read_text())
        if {k: record[k] for k in match} == match and record["kept"] in ("ppo", "distilled"):
            return record["kept"]
    except (OSError, ValueError, KeyError, TypeError):
        pass  # none yet, damaged, or of other models: played (again)
    res = duplicate_eval(str(ppo), str(distilled), deals=cfg.ppo.keep_deals,
                         seed=cfg.ppo.keep_seed)
    lo, hi = res.points_per_deal_ci95
    kept = "ppo" if res.points_per_deal > 0 else "distilled"
    write_json(path, {"kept": kept, "ppo_vs_distilled": res.points_per_deal, "ci95": [lo, hi],
                      **match})
    log(f"{folder.name}: the PPO phase against the distilled policy: "
        f"{res.points_per_deal:+.3f} [{lo:+.3f}, {hi:+.3f}] points per deal over "
        f"{cfg.ppo.keep_deals} pairs: the iteration keeps the {kept} policy")
    return kept


def _named_policy(result_path: Path) -> str | None:
    """The policy a finished iteration's ``eval.json`` names; None where there is
    none to read (the iteration's evaluation is then made again)."""
    try:
        named = json.loads(result_path.read_text())["policy"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return named if isinstance(named, str) else None


def _digest(path: Path | str) -> str | None:
    """The sha256 of a model file, None for a player spec that names no file."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def ppo_phase(cfg: LoopConfig, folder: Path, distilled: Path, log=print) -> tuple[Path, Path]:
    """Train the distilled policy on with PPO (``folder/ppo``, a training run folder:
    resumed where a killed loop left it) and export the phase's model; returns
    (its SB3 zip, ``folder/ppo.onnx``)."""
    from ..export import export_policy
    from ..sb3.train import train
    run_dir = folder / "ppo"
    out = folder / "ppo.onnx"
    if not out.exists():
        tcfg = ppo_config(cfg, folder, str(distilled))
        resume = run_dir if (run_dir / "config.yaml").exists() else None
        train(tcfg, resume=resume, log=log,
              force_hint=f"the loop resumes {run_dir} only with the config it started")
    model_zip = run_dir / f"{cfg.ppo.model}.zip"
    if not model_zip.exists():  # no evaluation ran, so no best.zip
        model_zip = run_dir / "latest.zip"
    if not out.exists():
        export_policy(str(model_zip), out)
    return model_zip, out


def _data_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", metavar="CONFIG.yaml",
                   help="an expert-iteration config (configs/history/expert_iteration.yaml); its "
                        "data section says how the data is made")
    p.add_argument("--out", required=True, metavar="DIR", type=_folder_path,
                   help="the data set's folder (required; created, or completed when it holds "
                        "a data set; never a folder of other files)")
    p.add_argument("--policy", metavar="SPEC",
                   help="the policy that plays and guides the expert (default: the config's "
                        "start)")
    p.add_argument("--set", action="append", default=[], metavar="key.path=value",
                   help="override a config value (repeatable), e.g. --set data.workers=2 "
                        "(default: none)")


def _folder_path(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path; give the data set's folder")
    return text


def _data_run(args: argparse.Namespace) -> int:
    try:
        check_data_folder(Path(args.out))  # before the config's checks load models
        cfg = load_loop_config(args.config, args.set)
        policy = cfg.start if args.policy is None else args.policy
        try:
            check_policy(policy)
        except ConfigError as err:
            raise ConfigError(f"--policy: {err}") from None
        generate(args.out, cfg.data, policy)
    except ConfigError as err:
        raise cli.UsageError(str(err)) from None
    return 0


def _loop_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", metavar="CONFIG.yaml",
                   help="an expert-iteration config (configs/history/expert_iteration.yaml)")
    p.add_argument("--set", action="append", default=[], metavar="key.path=value",
                   help="override a config value (repeatable), e.g. --set iterations=1 "
                        "(default: none)")


def _loop_run(args: argparse.Namespace) -> int:
    try:
        run_loop(load_loop_config(args.config, args.set))
    except (ConfigError, CheckpointError, ValueError) as err:
        raise cli.UsageError(str(err)) from None
    return 0


#: Entry points ``aluette.commands: expert-data`` and ``expert-iteration``.
DATA_COMMAND = cli.Command("label self-play positions with the expert's card values",
                           _data_arguments, _data_run)
LOOP_COMMAND = cli.Command("expert iteration: label, distil, train on with PPO, evaluate, repeat",
                           _loop_arguments, _loop_run)
