"""A recipe: the stages that go from nothing to a trained policy, as one command.

``aluette train configs/recipe.yaml`` (a config with ``stages``) runs each stage
in turn in ``OUTPUT_DIR/RUN_NAME/<stage>``; each stage starts from the policy
the stage before it made:

- ``kind: train``: a training config (``aluette train``), warm-started from the
  previous stage's policy (``network.warm_start``), the first stage from
  scratch. Its ``model`` (``best.zip`` or ``latest.zip``) is the stage's policy.
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

May import: the standard library, pydantic, yaml and :mod:`training`; torch only
through the stages it runs.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .config import RUN_NAME, ConfigError, _format_error, apply_overrides, read_yaml

_STRICT = ConfigDict(extra="forbid", validate_assignment=True)
#: Stands for the previous stage's policy while the recipe is checked, before
#: any stage has run (the checks need a policy that exists).
_STAND_IN = "ai"
PREVIOUS = "{previous}"


class StageConfig(BaseModel):
    """One stage of a recipe."""

    model_config = _STRICT
    name: str = Field(pattern=RUN_NAME, description="the stage's folder in the recipe's")
    kind: Literal["train", "expert-iteration"] = Field(
        description="'train': a training config; 'expert-iteration': an expert-iteration config")
    config: str = Field(min_length=1, description="the stage's config file")
    set: list[str] = Field(default_factory=list, description="overrides of the stage's config "
                           "(key.path=value); {previous} is the previous stage's policy")
    model: Literal["best", "latest"] = Field(
        "best", description="kind train: the checkpoint that is the stage's policy")


class RecipeConfig(BaseModel):
    """A recipe (configs/recipe.yaml): a run name and its stages, in order."""

    model_config = _STRICT
    run_name: str = Field("aluette-recipe", pattern=RUN_NAME)
    output_dir: str = Field("checkpoints", min_length=1)
    stages: list[StageConfig] = Field(min_length=1, max_length=20)

    @field_validator("stages")
    @classmethod
    def _unique(cls, v: list[StageConfig]) -> list[StageConfig]:
        names = [s.name for s in v]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"each stage needs its own name; {', '.join(twice)} is used twice")
        return v


def is_recipe(data: Any) -> bool:
    """A config file's content is a recipe (it lists ``stages``)."""
    return isinstance(data, dict) and "stages" in data


def load_recipe(path: str | Path, overrides: list[str] | None = None) -> RecipeConfig:
    """Read, override and check the recipe and every stage's config before any
    work (each with stand-ins for the policies earlier stages will make);
    ConfigError with one line naming the file and the stage."""
    source = str(path)
    data = read_yaml(Path(path), source)
    if not is_recipe(data):
        raise ConfigError(f"{source}: a recipe lists its 'stages'")
    data = apply_overrides(data, overrides or [], source)
    try:
        recipe = RecipeConfig.model_validate(data)
    except ValidationError as err:
        raise ConfigError(_format_error(source, err, RecipeConfig)) from None
    folder = Path(recipe.output_dir) / recipe.run_name
    for k, stage in enumerate(recipe.stages):
        try:
            stage_config(stage, folder, None if k == 0 else _STAND_IN)
        except ConfigError as err:
            raise ConfigError(f"{source}: stage '{stage.name}': {err}") from None
    return recipe


def stage_config(stage: StageConfig, folder: Path, previous: str | None):
    """The stage's own config (TrainConfig or LoopConfig) in ``folder/<stage>``,
    starting from ``previous`` (a policy; None: from scratch)."""
    sets = [s.replace(PREVIOUS, previous) if previous else s for s in stage.set]
    if previous is None and any(PREVIOUS in s for s in stage.set):
        raise ConfigError(f"{PREVIOUS} in 'set': the first stage has no previous policy")
    if stage.kind == "train":
        from .config import load_config
        start = [] if previous is None else (
            [f"network.warm_start={_text(previous)}"] if Path(previous).is_file()
            # Checked before the previous stage has run: warm-started all the same.
            else ["network.warm_start=null", "selfplay.allow_trained_opponents=true"])
        return load_config(stage.config, [*sets, f"output_dir={_text(folder)}",
                                          f"run_name={_text(stage.name)}", *start])
    from .expert_iteration import load_loop_config
    if previous is None:
        raise ConfigError("an expert-iteration stage starts from a policy: put a train stage "
                          "before it")
    return load_loop_config(stage.config, [*sets, f"output_dir={_text(folder)}",
                                           f"run_name={_text(stage.name)}",
                                           f"start={_text(previous)}"])


def _text(value) -> str:
    """A string as an override's value reads it back (a stage named ``on`` or
    ``1e3`` stays a name: the values are YAML)."""
    return json.dumps(str(value))


def run_recipe(recipe: RecipeConfig, log=print) -> Path | None:
    """Run (or resume) every stage; returns the last stage's policy (None when a
    stop request, SIGINT or SIGTERM, ended a training stage early)."""
    from .runs import atomic_path
    folder = Path(recipe.output_dir) / recipe.run_name
    folder.mkdir(parents=True, exist_ok=True)
    state_path = folder / "recipe.json"
    done = _read_done(state_path)
    previous: str | None = None
    for stage in recipe.stages:
        out = folder / stage.name / "policy.onnx"
        if out.exists():
            log(f"stage {stage.name}: done ({out})")
            previous = str(out)
            continue
        log(f"stage {stage.name} ({stage.kind}, {stage.config})"
            + (f", from {previous}" if previous else ", from scratch"))
        start = time.perf_counter()
        cfg = stage_config(stage, folder, previous)
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
                            "seconds": done.get(stage.name, {}).get("seconds", 0.0)
                            + time.perf_counter() - start}
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
