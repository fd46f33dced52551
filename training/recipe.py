"""A recipe: the stages that go from nothing to a trained policy, as one command.

``aluette train configs/recipe.yaml`` (a config with ``stages``) runs each stage
in turn in ``OUTPUT_DIR/RUN_NAME/<stage>``; each stage starts from the policy
the stage before it made:

- ``kind: train``: a training config (``aluette train``, backend sb3),
  warm-started from the previous stage's policy (``network.warm_start``), the
  first stage from scratch or from its config's own ``network.warm_start``. A
  later stage whose config or ``set`` names a ``network.warm_start`` of its
  own, other than ``{previous}``, is refused: the previous policy never
  silently replaces it. Its ``model`` (``best.zip`` or ``latest.zip``) is the
  stage's policy.
- ``kind: expert-iteration``: an expert-iteration config (``aluette
  expert-iteration``) whose ``start`` is the previous stage's policy. Its last
  iteration's policy (after the PPO phase, when it has one) is the stage's.

Each stage's policy is exported to ``<stage>/policy.onnx``, the stage's commit
point: a stage whose ``policy.onnx`` exists is done. Running the same command
again resumes: finished stages are skipped, the stage in progress resumes
where it was killed (training runs from their last checkpoint, expert
iteration from its finished shards and steps), so the recipe survives a
SIGKILL at any moment. ``{previous}`` in a stage's ``set`` values is replaced
by the previous stage's policy (e.g. a fixed opponent of the league: the run's
own earlier policy is not a shipped model). ``recipe.json`` lists the stages
done, with their policies and wall times.

Before any work every stage is checked whole, with the policy the stage before
it will make (:func:`~training.config.check_start`): the same network, and no
policy of the signs variant handed to a stage of the default game (a default-game
policy may start a signs stage).

The recipe's schema and loader (:class:`~training.config.RecipeConfig`,
:func:`~training.config.load_recipe`) are in :mod:`training.config`.

May import: the standard library and :mod:`training`; torch only through the
stages it runs.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

# The recipe's schema and loader live with every config's; imported from here too.
from .config import (
    RecipeConfig, StageConfig, is_recipe, load_recipe, stage_config, stage_policy_path,
)

__all__ = ["RecipeConfig", "StageConfig", "is_recipe", "load_recipe", "run_recipe"]


def run_recipe(recipe: RecipeConfig, log=print) -> Path | None:
    """Run (or resume) every stage; returns the last stage's policy (None when a
    stop request, SIGINT or SIGTERM, ended a training stage early)."""
    from .atomic import atomic_path
    folder = Path(recipe.output_dir) / recipe.run_name
    folder.mkdir(parents=True, exist_ok=True)
    state_path = folder / "recipe.json"
    done = _read_done(state_path)
    previous: str | None = None
    for stage in recipe.stages:
        out = stage_policy_path(folder, stage)
        if out.exists():
            log(f"stage {stage.name}: done ({out})")
            previous = str(out)
            continue
        log(f"stage {stage.name} ({stage.kind}, {stage.config})"
            + (f", from {previous}" if previous else ", from scratch"))
        start = time.perf_counter()
        cfg = stage_config(stage, folder, previous, recipe.seed)
        earlier = _earlier_seconds(cfg) if stage.kind == "train" else 0.0
        made = _train_stage(cfg, stage, log) if stage.kind == "train" else _loop_stage(cfg, log)
        if made is None:
            log(f"recipe {recipe.run_name} stopped in stage {stage.name}; run the same "
                f"command again to resume it")
            return None
        from .export import export_policy
        if made.suffix == ".onnx":
            with atomic_path(out) as tmp:
                tmp.write_bytes(made.read_bytes())
        else:
            export_policy(str(made), out)
        done[stage.name] = {"policy": str(out), "kind": stage.kind,
                            "seconds": earlier + time.perf_counter() - start}
        with atomic_path(state_path) as tmp:
            tmp.write_text(json.dumps(done, indent=2) + "\n")
        previous = str(out)
    log(f"recipe {recipe.run_name} finished: {previous}")
    return Path(previous)


def _read_done(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}  # a new recipe, or a damaged list: the policy files are the commit
    return data if isinstance(data, dict) else {}


def _earlier_seconds(cfg) -> float:
    """A train stage's time before this attempt: its run's ``wall_time_s`` (its
    training up to the last checkpoint of the attempts a stop or a kill ended;
    the time after that checkpoint is done again); 0 for a new run."""
    from .runs import CheckpointError, read_state
    try:
        return float(read_state(Path(cfg.output_dir) / cfg.run_name)["wall_time_s"])
    except CheckpointError:
        return 0.0


def _train_stage(cfg, stage: StageConfig, log) -> Path | None:
    """Train (or resume) the stage's run; its model, None when it stopped early."""
    from .runs import read_state
    from .sb3.train import train
    run_dir = Path(cfg.output_dir) / cfg.run_name
    resume = run_dir if (run_dir / "config.yaml").exists() else None
    train(cfg, resume=resume, log=log,
          force_hint=f"the recipe resumes {run_dir} only with the config it started")
    if read_state(run_dir)["timesteps"] < cfg.total_timesteps:
        return None
    model = run_dir / f"{stage.model}.zip"
    return model if model.exists() else run_dir / "latest.zip"


def _loop_stage(cfg, log) -> Path:
    from .expert_iteration import run_loop
    run = run_loop(cfg, log)
    last = run / f"iter-{cfg.iterations}"
    return last / ("ppo.onnx" if cfg.ppo.config is not None else "policy.onnx")
