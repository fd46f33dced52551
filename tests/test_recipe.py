"""Recipes (training.recipe): stages run in turn, each from the policy the stage
before it made, as one command that resumes after a SIGKILL at any moment;
bad recipes refused in one line before any work. Toy sizes throughout."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from aluette_env.commands import main as cli_main
from aluette_env.observation import OBS_SIZE
from aluette_env.players import load_player
from training.config import ConfigError, StageConfig, load_config, stage_config
from training.recipe import load_recipe, run_recipe


ROOT = Path(__file__).resolve().parents[1]
TINY_TRAIN = ["total_timesteps=1024", "num_games=8", "ppo.n_steps=8", "ppo.batch_size=64",
              "ppo.n_epochs=1", "eval.interval=512", "eval.deals=2", "eval.opponents=[random]",
              "checkpoint.interval=256", "selfplay.snapshot_interval=256",
              "logging.tensorboard=false", "logging.progress_bar=false",
              "logging.curve=false"]
TINY_LOOP = ["iterations=1", "data.shards=1", "data.positions_per_shard=6",
             "data.games_per_shard=1", "data.num_deals=1", "data.worlds=4", "data.workers=1",
             "distill.epochs=1", "eval.deals=2", "eval.opponents=[random]",
             "ppo.config=configs/quick.yaml",
             "ppo.set=[" + ", ".join(f'"{s}"' for s in TINY_TRAIN) + ", "
             '"selfplay.opponents={latest: 1, {previous}: 1}"]']


def recipe_file(tmp_path, stages, **top):
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump({"run_name": "r", "output_dir": str(tmp_path / "out"),
                                    "stages": stages, **top}))
    return path


def three_stages(tmp_path):
    """PPO from scratch, expert iteration from it, PPO on from that (quick.yaml's
    network throughout: the expert-iteration config's is set to it)."""
    net = ["network.trunk=[64]", "network.pi=[32]", "network.vf=[32]"]
    return recipe_file(tmp_path, [
        {"name": "scratch", "kind": "train", "config": "configs/quick.yaml", "set": TINY_TRAIN},
        {"name": "expert", "kind": "expert-iteration",
         "config": "configs/history/expert_iteration.yaml", "set": TINY_LOOP + net},
        {"name": "on", "kind": "train", "config": "configs/quick.yaml", "model": "latest",
         "set": TINY_TRAIN + ["selfplay.opponents={latest: 1, {previous}: 1}"]},
    ])


@pytest.mark.slow
def test_stages_run_in_turn_each_from_the_policy_before_and_resume_doing_nothing(tmp_path):
    path = three_stages(tmp_path)
    lines: list[str] = []
    last = run_recipe(load_recipe(path), log=lines.append)
    out = tmp_path / "out" / "r"
    assert last == out / "on" / "policy.onnx"
    done = json.loads((out / "recipe.json").read_text())
    assert list(done) == ["scratch", "expert", "on"]
    assert all(d["seconds"] > 0 and Path(d["policy"]).is_file() for d in done.values())
    # The first stage from scratch; each later one from the policy before it.
    first = yaml.safe_load((out / "scratch" / "config.yaml").read_text())
    assert first["network"]["warm_start"] is None
    loop = yaml.safe_load((out / "expert" / "config.yaml").read_text())
    assert loop["start"] == str(out / "scratch" / "policy.onnx")
    third = yaml.safe_load((out / "on" / "config.yaml").read_text())
    assert third["network"]["warm_start"] == str(out / "expert" / "policy.onnx")
    assert third["selfplay"]["opponents"] == {"latest": 1, str(out / "expert" / "policy.onnx"): 1}
    ppo = yaml.safe_load((out / "expert" / "iter-1" / "ppo" / "config.yaml").read_text())
    assert str(out / "scratch" / "policy.onnx") in ppo["selfplay"]["opponents"]
    assert load_player(str(last)).act(np.zeros(OBS_SIZE, np.int8), np.ones(48, np.int8)) in \
        range(48)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    run_recipe(load_recipe(path), log=lines.append)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sum(line.startswith("stage ") and ": done (" in line for line in lines) == 3


@pytest.mark.slow
def test_a_recipe_killed_at_any_moment_resumes_to_the_end(tmp_path):
    """SIGKILL the command at random moments (inside a stage, between stages);
    running it again each time finishes the recipe, and a stage once done is
    never trained again."""
    path = three_stages(tmp_path)
    out = tmp_path / "out" / "r"
    cmd = [sys.executable, "-m", "aluette_env", "train", str(path)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    rng = np.random.default_rng(0)
    finished_policy: dict[str, bytes] = {}
    for attempt in range(16):
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        # Later and later kills (the first before the imports are done): each
        # attempt gets a little further, at a moment no earlier attempt chose.
        deadline = time.monotonic() + 2.5 * (attempt + 1) + float(rng.uniform(0, 1))
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait()
        for stage in ("scratch", "expert", "on"):
            policy = out / stage / "policy.onnx"
            if policy.exists():  # a stage done stays as it was
                data = policy.read_bytes()
                assert finished_policy.setdefault(stage, data) == data
        if proc.returncode == 0:
            break
        assert proc.returncode == -signal.SIGKILL, proc.stderr.read()[-2000:]
    else:
        res = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        assert res.returncode == 0, res.stderr[-2000:]
    done = json.loads((out / "recipe.json").read_text())
    assert list(done) == ["scratch", "expert", "on"]
    assert attempt > 0  # at least one kill landed
    # A train stage's time counts its attempts that a kill ended, as its run does.
    for stage in ("scratch", "on"):
        run_time = json.loads((out / stage / "state.json").read_text())["wall_time_s"]
        assert done[stage]["seconds"] >= run_time > 0


@pytest.mark.parametrize("stages,message", [
    ([{"name": "a", "kind": "train", "config": "configs/quick.yaml"}] * 2,
     "each stage needs its own name; a is used twice"),
    ([{"name": "a", "kind": "train", "config": "configs/quick.yaml",
       "set": ["network.warm_start={previous}"]}],
     "stage 'a': {previous} in 'set': the first stage has no previous policy"),
    ([{"name": "a", "kind": "expert-iteration", "config": "configs/history/expert_iteration.yaml"}],
     "stage 'a': an expert-iteration stage starts from a policy"),
    ([{"name": "a", "kind": "train", "config": "configs/quick.yaml", "set": ["ppo.lr=1"]}],
     "stage 'a': .*unknown key 'ppo.lr'"),
    ([{"name": "a", "kind": "train", "config": "configs/quick.yaml",
       "set": ["selfplay.opponents={latest: 1, ai: 1}"]}],
     "stage 'a': .*from scratch .* only rule-based"),
    ([{"name": "../a", "kind": "train", "config": "configs/quick.yaml"}], "stages.0.name"),
    # Each stage checked with the policy the stage before it will make: its variant
    # (named as such, before any network size) and its network.
    ([{"name": "signs", "kind": "train", "config": "configs/signs.yaml"},
      {"name": "plain", "kind": "train", "config": "configs/quick.yaml"}],
     r"stage 'plain': the previous stage's policy plays the signs variant \(env.id "
     r"aluette_signs_v0, 58 actions\); this stage trains the default game \(env.id "
     r"aluette_v1\)"),
    ([{"name": "signs", "kind": "train", "config": "configs/signs.yaml"},
      {"name": "expert", "kind": "expert-iteration",
       "config": "configs/history/expert_iteration.yaml"}],
     "stage 'expert': the previous stage's policy plays the signs variant .* expert "
     "iteration plays the default game"),
    ([{"name": "small", "kind": "train", "config": "configs/quick.yaml"},
      {"name": "large", "kind": "train", "config": "configs/default.yaml"}],
     r"stage 'large': the previous stage's policy \(trunk \[64\], pi \[32\], vf \[32\], "
     r"relu\) starts this stage, whose network is trunk \[256\]"),
    ([{"name": "small", "kind": "train", "config": "configs/quick.yaml"},
      {"name": "expert", "kind": "expert-iteration",
       "config": "configs/history/expert_iteration.yaml"}],
     r"stage 'expert': the previous stage's policy \(trunk \[64\]"),
    ([{"name": "rllib", "kind": "train", "config": "configs/rllib_quick.yaml"}],
     "stage 'rllib': a recipe trains its stages with backend sb3 .*backend rllib"),
    # A later stage's own warm start is refused, not replaced by the previous policy.
    ([{"name": "a", "kind": "train", "config": "configs/quick.yaml"},
      {"name": "b", "kind": "train", "config": "configs/quick.yaml",
       "set": ["network.warm_start=aluette_env/models/aluette-ppo-v4.onnx"]}],
     r"stage 'b': 'network.warm_start' \('aluette_env/models/aluette-ppo-v4.onnx'\): a stage "
     r"after the first starts from the previous stage's policy"),
    ([{"name": "a", "kind": "train", "config": "configs/default.yaml"},
      {"name": "b", "kind": "train", "config": "configs/history/ppo_v5.yaml"}],
     "stage 'b': 'network.warm_start' .*aluette-ppo-v4.onnx.*: a stage after the first"),
    ([{"name": "a", "kind": "search", "config": "configs/quick.yaml"}], "stages.0.kind"),
    ([], "stages"),
])
def test_bad_recipes_are_refused_in_one_line_before_any_work(tmp_path, capsys, stages,
                                                             message):
    path = recipe_file(tmp_path, stages)
    with pytest.raises(ConfigError, match=message):
        load_recipe(path)
    assert cli_main(["train", str(path)]) == 2  # in this process: python -m aluette_env's main
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_a_stage_may_name_the_previous_policy_as_its_warm_start_or_start_a_signs_policy(
        tmp_path):
    """The policies a chain may hand on: ``{previous}`` as a stage's own warm start
    (the recipe's choice, said again), a default-game policy into the signs
    variant (its sign actions start at zero weight); a first stage's own warm
    start is its start."""
    shipped_net = ["network.trunk=[256]", "network.pi=[128]", "network.vf=[128]"]
    v5 = "aluette_env/models/aluette-ppo-v5.onnx"
    path = recipe_file(tmp_path, [
        {"name": "a", "kind": "train", "config": "configs/quick.yaml",
         "set": [f"network.warm_start={v5}", *shipped_net]},
        {"name": "b", "kind": "train", "config": "configs/quick.yaml",
         "set": ["network.warm_start={previous}", *shipped_net]},
        {"name": "c", "kind": "train", "config": "configs/signs.yaml"},
    ])
    recipe = load_recipe(path)
    folder = tmp_path / "out" / "r"
    first = stage_config(recipe.stages[0], folder, None)
    assert first.network.warm_start == v5
    # When the stage runs, its previous policy exists: the stage starts from it.
    shipped = str(ROOT / v5)
    second = stage_config(recipe.stages[1], folder, shipped)
    assert second.network.warm_start == shipped
    assert not (tmp_path / "out").exists()


def test_a_later_stages_own_warm_start_is_refused_when_it_runs_too(tmp_path):
    """The same rule where the previous policy exists (a resumed recipe): the
    stage's own model is never silently replaced."""
    stage = StageConfig(name="b", kind="train", config="configs/quick.yaml",
                        set=["network.warm_start=aluette_env/models/aluette-ppo-v4.onnx"])
    shipped = str(ROOT / "aluette_env" / "models" / "aluette-ppo-v5.onnx")
    with pytest.raises(ConfigError, match="a stage after the first starts from the previous "
                                          "stage's policy"):
        stage_config(stage, tmp_path, shipped)


def test_the_recipe_of_ai_v7_goes_on_from_make_recipe_with_nothing_shipped(tmp_path):
    """configs/recipe_v7.yaml (how ai v7 was made): configs/recipe.yaml's stages
    first, the same configs (so a make-recipe run folder resumes there), then two
    more partner-game stages whose league's only trained players are the run's own
    policies; `--set seed=S` moves every stage."""
    v7 = load_recipe(ROOT / "configs" / "recipe_v7.yaml", ["seed=1"])
    base = load_recipe(ROOT / "configs" / "recipe.yaml", ["seed=1"])
    assert [s.name for s in v7.stages] == ["ppo", "partners", "league", "polish"]
    assert all(s.kind == "train" for s in v7.stages)
    folder = tmp_path / "run"
    previous = None
    for k, stage in enumerate(v7.stages):
        cfg = stage_config(stage, folder, previous, v7.seed)
        if k < len(base.stages):
            assert cfg == stage_config(base.stages[k], folder, previous, base.seed)
        assert cfg.seed == 1
        if previous is None:
            assert cfg.network.warm_start is None and not cfg.selfplay.allow_trained_opponents
        else:
            assert cfg.network.warm_start == previous and cfg.selfplay.partners is not None
            trained = [p for p in [*cfg.selfplay.opponents, *cfg.selfplay.partners.weights]
                       if p.startswith("ai") or p.endswith(".onnx")]
            assert trained == [previous]  # its own earlier policy, nothing shipped
        policy = folder / stage.name / "policy.onnx"
        policy.parent.mkdir(parents=True)
        policy.write_bytes((ROOT / "aluette_env" / "models" / "aluette-ppo-v6.onnx")
                           .read_bytes())
        previous = str(policy)


def test_the_shipped_recipe_is_checked_whole(tmp_path):
    """configs/recipe.yaml: make train's run, then partner games led by its own
    policy; nothing shipped trains with it, and `--set seed=S` moves every stage."""
    recipe = load_recipe(ROOT / "configs" / "recipe.yaml")
    assert [s.kind for s in recipe.stages] == ["train", "train"]
    folder = tmp_path / recipe.run_name
    first = stage_config(recipe.stages[0], folder, None, recipe.seed)
    # From scratch: the league meets rule-based players only; shipped models are
    # evaluation opponents, never training ones.
    assert first.network.warm_start is None and not first.selfplay.allow_trained_opponents
    assert first == stage_config(recipe.stages[0], folder, None, 0) and first.seed == 0
    default = load_config(ROOT / "configs" / "default.yaml",
                          [f"output_dir={folder}", "run_name=ppo"])
    assert first == default  # the first stage is `make train` itself
    policy = folder / "ppo" / "policy.onnx"
    policy.parent.mkdir(parents=True)
    policy.write_bytes((ROOT / "aluette_env" / "models" / "aluette-ppo-v6.onnx").read_bytes())
    second = stage_config(recipe.stages[1], folder, str(policy), recipe.seed)
    assert second.network.warm_start == str(policy) and second.selfplay.partners is not None
    trained = [p for p in [*second.selfplay.opponents, *second.selfplay.partners.weights]
               if p.startswith("ai") or p.endswith(".onnx")]
    assert trained == [str(policy)]  # the league's only trained player: its own start
    again = load_recipe(ROOT / "configs" / "recipe.yaml", ["seed=1"])
    assert all(stage_config(st, folder, str(policy) if k else None, again.seed).seed == 1
               for k, st in enumerate(again.stages))
    res = subprocess.run([sys.executable, "-m", "aluette_env", "train", "configs/recipe.yaml",
                          "--resume", "checkpoints"], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 2 and "--resume: not for a recipe" in res.stderr
