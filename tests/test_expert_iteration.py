"""Expert iteration (training/expert_iteration.py): the data set's format and
resume, labels equal to the expert's own card values, the distillation step,
the loop config and the expert's version option."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
import yaml

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from aluette_env.observation import LAYOUT_KEY, OBS_LAYOUT, OBS_SIZE, OLD_LAYOUT_KEY
from aluette_env.players import PlayerSpecError, load_player
from aluette_env.players.search import VERSIONS, ExpertPlayer
from training import expert_iteration as ei
from training.config import ConfigError
from training.runs import CheckpointError


TINY = ei.DataConfig(shards=2, positions_per_shard=6, games_per_shard=2, num_deals=1,
                     worlds=4, workers=1, seed=3)
POLICY = "ai:version=2"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("expert-data")
    ei.generate(out, TINY, POLICY, log=lambda *_: None)
    return out


def test_format(dataset):
    manifest = json.loads((dataset / ei.MANIFEST).read_text())
    assert manifest["format"] == ei.FORMAT and manifest["shards"] == 2
    assert manifest["settings"]["policy"] == POLICY and manifest["settings"]["worlds"] == 4
    assert set(manifest["fields"]) == set(ei.FIELDS)
    data = ei.load_dataset(dataset)
    assert len(data) == 12
    assert data["observations"].shape == (12, OBS_SIZE)
    legal = data["masks"] > 0
    assert (legal.sum(1) > 1).all()  # only real decisions are labelled
    assert np.isfinite(data["values"][legal]).all() and np.isnan(data["values"][~legal]).all()
    assert np.isnan(data["stderr"][~legal]).all() and (data["stderr"][legal] >= 0).all()
    rows = np.arange(12)
    for name in ("best", "move", "played"):
        assert legal[rows, data[name]].all(), name
    # The expert's card carries the reference of the paired standard errors.
    assert (data["stderr"][rows, data["best"]] == 0).all()
    assert np.allclose(data["policy"].sum(1), 1) and (data["policy"][~legal] == 0).all()


def test_a_data_set_saved_with_the_old_layout_key_still_loads(dataset, tmp_path):
    """A manifest written before the observation layout was named so (``obs_version``)
    loads as it did; one of another layout is refused whichever key names it."""
    old = tmp_path / "old"
    shutil.copytree(dataset, old)
    manifest = json.loads((old / ei.MANIFEST).read_text())
    assert manifest[LAYOUT_KEY] == OBS_LAYOUT and OLD_LAYOUT_KEY not in manifest
    manifest[OLD_LAYOUT_KEY] = manifest.pop(LAYOUT_KEY)
    (old / ei.MANIFEST).write_text(json.dumps(manifest))
    assert len(ei.load_dataset(old)) == 12
    manifest[OLD_LAYOUT_KEY] = 1
    (old / ei.MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="observation layout 1; expected"):
        ei.load_dataset(old)


def test_a_manifest_of_another_kind_or_format_is_named_so(dataset, tmp_path):
    """Completing a data set reads its manifest: one that is no data set's manifest
    is said to be so, and one of another format names the format, each in one line."""
    copy = tmp_path / "copy"
    shutil.copytree(dataset, copy)
    manifest = json.loads((copy / ei.MANIFEST).read_text())
    for text, words in (("[]", "not an expert data set's manifest"),
                        ('{"shards": 2}', "not an expert data set's manifest"),
                        (json.dumps({**manifest, "format": "other"}),
                         "a data set made with other settings (format differ)")):
        (copy / ei.MANIFEST).write_text(text)
        with pytest.raises(ConfigError, match=re.escape(words)) as err:
            ei.open_dataset(copy, TINY, POLICY)
        assert "\n" not in str(err.value)


def test_labels_are_the_experts_own_values(dataset):
    data = ei.load_dataset(dataset)
    with np.load(ei.shard_path(dataset, 1)) as shard:
        obs, masks, values, best, move = (shard[k] for k in ("observations", "masks", "values",
                                                             "best", "move"))
    expert = ExpertPlayer(worlds=TINY.worlds, policy=POLICY, seed=TINY.seed * 100003 + 1)
    for i in range(3):
        cv = expert.card_values(obs[i], masks[i])
        assert np.allclose(values[i, cv.cards], cv.value) and cv.best == best[i]
    # The stored move is the expert's own move in play, in every position.
    assert np.array_equal(expert.act_batch(obs, masks), move)
    assert len(data) == 12


def test_resume_computes_only_the_missing_shards(dataset, tmp_path):
    out = tmp_path / "copy"
    out.mkdir()
    for path in dataset.iterdir():
        (out / path.name).write_bytes(path.read_bytes())
    kept = ei.shard_path(out, 0).stat().st_mtime_ns
    ei.shard_path(out, 1).unlink()
    assert ei.open_dataset(out, TINY, POLICY) == [1]
    ei.generate(out, TINY, POLICY, log=lambda *_: None)
    assert ei.shard_path(out, 0).stat().st_mtime_ns == kept
    with np.load(ei.shard_path(out, 1)) as again, np.load(ei.shard_path(dataset, 1)) as first:
        for name in ei.FIELDS:  # a shard is a function of its seed
            assert np.array_equal(again[name], first[name], equal_nan=True), name
    # More shards may be asked for; other settings may not.
    assert ei.open_dataset(out, TINY.model_copy(update={"shards": 3}), POLICY) == [2]
    with pytest.raises(ConfigError, match="worlds differ"):
        ei.open_dataset(out, TINY.model_copy(update={"worlds": 8}), POLICY)


def test_targets():
    data = ei.ExpertData({"masks": np.array([[1, 1, 0] + [0] * 45], np.int8),
                          "values": np.array([[0.0, 0.1] + [np.nan] * 46], np.float32),
                          "move": np.array([0], np.int8)}, {})
    t = ei.targets(data, best_weight=1.0, tau=0.1)
    assert t[0, 0] == 1 and t[0].sum() == 1
    t = ei.targets(data, best_weight=0.0, tau=0.1)
    assert t[0, 1] == pytest.approx(1 / (1 + np.exp(-1))) and t[0, 2:].sum() == 0
    # The expert's card (0) against the guide's greedy card (1): the target only where
    # its gain (1 point) passes `significance` standard errors (0.4 points), the guide's
    # probabilities elsewhere.
    guided = ei.ExpertData({**data.arrays, "values": np.array([[1.0, 0.0] + [np.nan] * 46],
                                                              np.float32),
                            "stderr": np.array([[0.0, 0.4] + [np.nan] * 46], np.float32),
                            "policy": np.array([[0.3, 0.7] + [0.0] * 46], np.float32)}, {})
    assert ei.targets(guided, 1.0, 0.1, significance=2.0)[0, 0] == 1
    assert ei.targets(guided, 1.0, 0.1, significance=3.0)[0, :2] == pytest.approx([0.3, 0.7])


def test_distillation_lowers_its_loss(dataset):
    import torch
    data = ei.load_dataset(dataset)
    model = ei.new_model(ei.NetworkSpec(), seed=0)
    from training.sb3.train import load_onnx_weights
    load_onnx_weights(model.policy, ei.onnx_path(POLICY))
    cfg = ei.DistillConfig(epochs=30, batch_size=4, learning_rate=1e-3, holdout=0.0,
                           validation=0.0)
    losses = ei.distill_losses(model.policy, data, cfg)
    every = torch.arange(len(data))
    with torch.no_grad():
        before = float(losses(every)[0])
    fit = ei.distill(model.policy, data, cfg, log=lambda *_: None)
    with torch.no_grad():
        after = float(losses(every)[0])
    assert after < 0.8 * before and fit["last_epoch"]["loss"] < before


@pytest.fixture(scope="module")
def positions():
    """Self-play positions of POLICY with a choice of card, and a model with its weights."""
    from training.imitation import demonstrations
    from aluette_env.players import load_player
    demos = demonstrations(load_player(POLICY, seed=0), 1, num_games=24, num_deals=1, seed=0)
    pick = np.flatnonzero(demos.masks.sum(1) > 1)
    return demos.observations[pick], demos.masks[pick]


def _labelled(positions, move, policy=None):
    """Positions labelled with ``move``: the expert's card a point above every other, at
    a tenth of a point of standard error (a switch from the guide's greedy card stands
    out of the noise); ``policy``: the guide's probabilities (uniform over the legal
    cards by default)."""
    obs, masks = positions
    n = len(obs)
    values = np.where(masks > 0, 0.0, np.nan).astype(np.float32)
    values[np.arange(n), move] = 1.0
    return ei.ExpertData({"observations": obs, "masks": masks, "move": move.astype(np.int8),
                          "best": move.astype(np.int8), "values": values,
                          "stderr": np.where(masks > 0, 0.1, np.nan).astype(np.float32),
                          "policy": masks / masks.sum(1, keepdims=True) if policy is None
                          else policy, "returns": np.zeros(n, np.float32)}, {})


def _probabilities(model, positions) -> np.ndarray:
    """The model's card probabilities on the positions (the guide's, when it starts)."""
    import torch
    obs, masks = positions
    with torch.no_grad():
        return model.policy.get_distribution(
            torch.as_tensor(obs, dtype=torch.float32),
            action_masks=torch.as_tensor(masks)).distribution.probs.numpy()


def _start_model():
    from training.sb3.train import load_onnx_weights
    model = ei.new_model(ei.NetworkSpec(), seed=0)
    load_onnx_weights(model.policy, ei.onnx_path(POLICY))
    return model


def test_a_fit_that_diverges_keeps_the_start(positions):
    """Labels that are the policy's own greedy cards, fitted with a step size that
    wrecks the network: no epoch lowers the validation loss, and the start's weights
    come back unchanged."""
    import torch
    model = _start_model()
    start = {k: v.clone() for k, v in model.policy.state_dict().items()}
    obs, masks = positions
    with torch.no_grad():
        greedy = model.policy.get_distribution(
            torch.as_tensor(obs, dtype=torch.float32),
            action_masks=torch.as_tensor(masks)).distribution.probs.argmax(1).numpy()
    cfg = ei.DistillConfig(epochs=2, batch_size=8, learning_rate=1.0, best_weight=1.0,
                           anchor=0.0, vf_coef=0.0, significance=0.0, logit_anchor=0.0,
                           holdout=0.2, validation=0.25)
    fit = ei.distill(model.policy, _labelled(positions, greedy), cfg, log=lambda *_: None)
    assert fit["epoch_kept"] == 0 and fit["last_epoch"]["loss"] > fit["before"]["loss"]
    assert fit["after"]["loss"] == fit["before"]["loss"]
    for name, value in model.policy.state_dict().items():
        assert torch.equal(value, start[name]), name


def test_a_fit_that_learns_keeps_its_best_epoch(positions):
    """Labels the policy does not play but can learn (the lowest legal card): a later
    epoch is kept and the held-out agreement rises."""
    obs, masks = positions
    lowest = (masks > 0).argmax(1)
    model = _start_model()
    cfg = ei.DistillConfig(epochs=6, batch_size=16, learning_rate=3e-3, best_weight=1.0,
                           anchor=0.0, vf_coef=0.0, significance=0.0, logit_anchor=0.0,
                           holdout=0.2, validation=0.2)
    fit = ei.distill(model.policy, _labelled(positions, lowest, _probabilities(model, positions)),
                     cfg, log=lambda *_: None)
    assert fit["epoch_kept"] > 0 and fit["after"]["loss"] < fit["before"]["loss"]
    assert fit["after"]["agreement"] > fit["before"]["agreement"] + 0.2
    split = fit["held_out_after"]
    assert split["keeps"]["positions"] + split["switches"]["positions"] == fit["held_out"]


def test_a_fit_raises_the_held_out_agreement_on_a_learnable_labelling(positions):
    """The lowest legal card where the policy plays another (a switch that stands out
    of the noise), the policy's own card elsewhere: with the default distillation the
    held-out agreement rises, and falls by no more than one position where the labels
    keep the policy's card (a fit that flips near ties at random fails here)."""
    obs, masks = positions
    model = _start_model()
    start = _probabilities(model, positions)
    lowest = (masks > 0).argmax(1)
    fit = ei.distill(model.policy, _labelled(positions, lowest, start),
                     ei.DistillConfig(holdout=0.25, validation=0.0), log=lambda *_: None)
    split = fit["held_out_after"]
    assert split["switches"]["positions"] > 0 and split["keeps"]["positions"] > 0
    assert fit["after"]["agreement"] > fit["before"]["agreement"]
    assert split["keeps"]["agreement"] >= 1 - 1 / split["keeps"]["positions"]


def test_config_and_policy_checks(tmp_path):
    cfg = ei.load_loop_config("configs/history/expert_iteration.yaml")
    assert cfg.start == "ai:version=2" and cfg.data.worlds == 144
    with pytest.raises(ConfigError, match="worlds"):
        ei.load_loop_config("configs/history/expert_iteration.yaml", ["data.worlds=0"])
    with pytest.raises(ConfigError):
        ei.load_loop_config("configs/history/expert_iteration.yaml", ["data.wrods=3"])
    with pytest.raises(ConfigError, match="heuristic"):
        ei.check_policy("heuristic")
    with pytest.raises(ValueError, match="no shards|expert data set"):
        ei.load_dataset(tmp_path)
    # The PPO phase: an sb3 training config whose network the distilled weights fit.
    cfg = ei.load_loop_config("configs/history/expert_iteration.yaml",
                              ["ppo.config=configs/history/ppo_after_distill.yaml"])
    assert cfg.ppo.config == "configs/history/ppo_after_distill.yaml" and cfg.ppo.model == "best"
    for bad, match in ((["ppo.config=configs/quick.yaml"], "network"),
                       (["ppo.config=configs/rllib.yaml"], "backend sb3"),
                       ([f"ppo.config={tmp_path}/nope.yaml"], "no such config file"),
                       (["ppo.config=configs/history/ppo_after_distill.yaml",
                         "ppo.set=[ppo.n_steps=0]"], "n_steps"),
                       (["ppo.model=worst"], "ppo.model")):
        with pytest.raises(ConfigError, match=match) as err:
            ei.load_loop_config("configs/history/expert_iteration.yaml", bad)
        assert "\n" not in str(err.value)


@pytest.mark.slow
def test_cli_bad_input_is_one_line(tmp_path):
    res = subprocess.run([sys.executable, "-m", "aluette_env", "expert-data",
                          "configs/history/expert_iteration.yaml", "--out", str(tmp_path / "d"),
                          "--set", "data.worlds=-1"], capture_output=True, text=True,
                         check=False)
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1
    assert "worlds" in res.stderr
    res = subprocess.run([sys.executable, "-m", "aluette_env", "expert-data",
                          "configs/history/expert_iteration.yaml", "--out", str(tmp_path / "d"),
                          "--policy", "heuristic"], capture_output=True, text=True,
                         check=False)
    assert res.returncode == 2 and "heuristic" in res.stderr


def test_expert_version_option():
    assert VERSIONS[1] == ("ai:version=2", 144, "trick", 0, "v1")
    assert VERSIONS[2] == ("ai:version=3", 144, "trick", 0, "v1")
    assert VERSIONS[4] == ("ai:version=4", 320, "trick", 0, "v1")
    # Version 5 reads the whole deal, guided by v4; version 6, the newest, the same
    # guided by v6 over fewer worlds.
    assert VERSIONS[5] == ("ai:version=4", 320, "deal", 0, "v1")
    assert VERSIONS[6] == ("ai:version=6", 200, "deal", 0, "v1")
    assert load_player("expert")._policy.path == load_player("ai:version=6").path
    assert load_player("expert:version=5")._policy.path == load_player("ai:version=4").path
    # An option set on an older version is kept (its own stands for the unset ones).
    net = load_player("expert:version=5,sampler=net,belief=0")
    assert (net.belief, net._sampler is not None, net.worlds) == (0.0, True, 320)
    by_ai = load_player("expert:policy=ai:version=5")
    assert by_ai._policy.path == load_player("ai:version=5").path
    assert by_ai.name == "expert:policy=ai:version=5"
    assert load_player("expert:policy=ai:version=6").name == "expert"
    fourth = load_player("expert:version=4")
    assert fourth.worlds == 320 and fourth.infer == "trick" and fourth.name == "expert:version=4"
    assert load_player("expert").infer == "deal" == VERSIONS[max(VERSIONS)].infer
    assert load_player("expert:version=4,infer=deal").name == "expert:version=4,infer=deal"
    first = load_player("expert:version=1")
    assert first._policy.path == load_player("ai:version=2").path and first.worlds == 144
    assert load_player("expert:version=2")._policy.path == load_player("ai:version=3").path
    third = load_player("expert:version=3")
    assert third._policy.path == load_player("ai:version=4").path and third.worlds == 144
    # The default follows its options; an older version keeps its guide, not its worlds.
    assert load_player("expert").worlds == VERSIONS[max(VERSIONS)].worlds == 200
    assert load_player("expert:version=5").worlds == 320
    assert load_player("expert:version=5,sampler=net").name == "expert:version=5,sampler=net"
    assert load_player("expert:worlds=144").name == "expert:worlds=144"
    fewer = load_player("expert:version=1,worlds=48")
    assert fewer.worlds == 48 and fewer._policy.path == first._policy.path
    with pytest.raises(PlayerSpecError, match="version"):
        load_player("expert:version=99")
    assert load_player("expert").name == "expert" and load_player("expert:version=1").name \
        == "expert:version=1"
    if len(VERSIONS) > 1:  # an older version names its own guide
        with pytest.raises(ValueError, match="not both"):
            ExpertPlayer(version=1, policy="ai:version=1")


@pytest.mark.parametrize("ppo_config", ["configs/history/ppo_after_distill.yaml",
                                        "configs/history/ppo_v7.yaml"])
@pytest.mark.slow
def test_the_loop_with_a_ppo_phase_runs_and_resumes(tmp_path, ppo_config):
    """configs/history/expert_iteration.yaml with a PPO phase, at toy sizes: each iteration
    labels, distils, trains the distilled policy on with PPO, keeps the better of
    the two and evaluates both; the next iteration's expert is guided by the kept
    policy. A second call redoes nothing.
    configs/history/ppo_v7.yaml's critic reads the hidden cards, so its network is not the
    distilled one: the next distillation starts from its exported policy."""
    ppo = ["total_timesteps=512", "num_games=4", "ppo.n_steps=8", "ppo.batch_size=64",
           "ppo.n_epochs=1", "eval.interval=256", "eval.deals=2", "eval.opponents=[random]",
           "checkpoint.interval=256", "selfplay.snapshot_interval=256",
           "selfplay.opponents={latest: 1, random: 1}", "eval.partners=[random]",
           "eval.partners_deals=2", "eval.partners_opponent=random"]
    overrides = [f"output_dir={tmp_path}", "iterations=2", "data.shards=1",
                 "data.positions_per_shard=6", "data.games_per_shard=1", "data.num_deals=1",
                 "data.worlds=4", "data.workers=1", "distill.epochs=1", "eval.deals=2",
                 "eval.opponents=[random]"]
    config = yaml.safe_load(open("configs/history/expert_iteration.yaml"))
    config["ppo"] = {"config": ppo_config, "set": ppo, "keep": "better", "keep_deals": 20}
    path = tmp_path / "loop.yaml"
    path.write_text(yaml.safe_dump(config))
    lines: list[str] = []
    cfg = ei.load_loop_config(path, overrides)
    run = ei.run_loop(cfg, log=lines.append)
    kept = {}
    for it in (1, 2):
        folder = run / f"iter-{it}"
        result = json.loads((folder / "eval.json").read_text())
        assert set(result["stages"]) == {"distilled", "ppo"}
        keep = json.loads((folder / "keep.json").read_text())
        assert keep["deals"] == 20 and (keep["ppo_vs_distilled"] > 0) == (keep["kept"] == "ppo")
        kept[it] = folder / ("ppo.onnx" if keep["kept"] == "ppo" else "policy.onnx")
        assert result["policy"] == str(kept[it]) and result["kept"] == keep["kept"]
        assert result["results"] == result["stages"][keep["kept"]]
        state = json.loads((folder / "ppo" / "state.json").read_text())
        assert state["timesteps"] >= 512
        assert load_player(str(folder / "ppo.onnx")).act(
            np.zeros(OBS_SIZE, np.int8), np.ones(48, np.int8)) in range(48)
    # Iteration 2's data was played and labelled with iteration 1's PPO policy, and
    # its PPO phase started from iteration 2's distilled policy.
    manifest = json.loads((run / "iter-2" / "data" / "dataset.json").read_text())
    assert manifest["settings"]["policy"] == str(kept[1])
    config = (run / "iter-2" / "ppo" / "config.yaml").read_text()
    assert str(run / "iter-2" / "policy.onnx") in config
    # A second call redoes nothing; without its keep.json (a run folder from before
    # the choice), a finished iteration keeps the policy its eval.json names.
    for it in (1, 2):
        (run / f"iter-{it}" / "keep.json").unlink()
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    # What writes killed mid-file leave (atomic_path's hidden temporary files) goes.
    for left in (run / ".config.yaml.k1lled.yaml", run / "iter-1" / ".policy.onnx.x8.onnx",
                 run / "iter-2" / "data" / ".shard-00000.npz.q0.npz"):
        left.write_bytes(b"half")
    ei.run_loop(cfg, log=lines.append)
    after = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    assert after == before
    # A damaged eval.json is made again, the same (its choice played again).
    result = run / "iter-2" / "eval.json"
    result.write_text("{")
    ei.run_loop(cfg, log=lines.append)
    assert result.read_bytes() == before[result]


@pytest.mark.parametrize("distilled, ppo, kept", [("heuristic", "random", "distilled"),
                                                  ("random", "heuristic", "ppo")])
def test_an_iteration_keeps_the_ppo_phase_only_where_it_beats_the_distilled_policy(
        tmp_path, monkeypatch, distilled, ppo, kept):
    """``ppo.keep: better``: the phase's policy ends the iteration only where it wins
    the head-to-head match against the distilled policy. The match is played once,
    so a resumed loop keeps the same policy; it is played again where the models or
    the match's settings are no longer those it recorded, or its record is damaged.
    ``ppo.keep: ppo`` plays no match."""
    import aluette_env.evaluation as evaluation
    overrides = [f"output_dir={tmp_path}", "ppo.config=configs/history/ppo_after_distill.yaml",
                 "ppo.keep_deals=40"]
    cfg = ei.load_loop_config("configs/history/expert_iteration.yaml",
                              overrides + ["ppo.keep=better"])
    assert ei.kept_stage(cfg, tmp_path, distilled, ppo) == kept
    record = json.loads((tmp_path / "keep.json").read_text())
    assert record["kept"] == kept and record["deals"] == 40
    assert (record["ppo_vs_distilled"] > 0) == (kept == "ppo")
    played = evaluation.duplicate_eval
    with monkeypatch.context() as m:
        m.setattr(evaluation, "duplicate_eval", lambda *a, **k: pytest.fail("played again"))
        assert ei.kept_stage(cfg, tmp_path, distilled, ppo) == kept  # recorded
    calls = []
    monkeypatch.setattr(evaluation, "duplicate_eval", lambda *a, **k: calls.append(k["deals"])
                        or played(*a, **k))
    more = ei.load_loop_config("configs/history/expert_iteration.yaml",
                               overrides + ["ppo.keep=better", "ppo.keep_deals=60"])
    assert ei.kept_stage(more, tmp_path, distilled, ppo) == kept and calls == [60]
    (tmp_path / "keep.json").write_text("{")
    assert ei.kept_stage(cfg, tmp_path, distilled, ppo) == kept and calls == [60, 40]
    always = ei.load_loop_config("configs/history/expert_iteration.yaml", overrides)
    assert always.ppo.keep == "ppo"
    assert ei.kept_stage(always, tmp_path / "x", distilled, ppo) == "ppo"
    assert not (tmp_path / "x").exists()


def test_a_damaged_shard_is_found_at_resume_and_labelled_again(dataset, tmp_path):
    """A truncated shard is not "present": the resume says so and labels
    it again (a shard is a function of its seed), instead of leaving it for the
    loader to find hours later."""
    out = tmp_path / "copy"
    out.mkdir()
    for path in dataset.iterdir():
        (out / path.name).write_bytes(path.read_bytes())
    shard = ei.shard_path(out, 1)
    shard.write_bytes(shard.read_bytes()[:300])
    lines: list[str] = []
    assert ei.open_dataset(out, TINY, POLICY, lines.append) == [1]
    assert any("shard 1" in line and "damaged" in line for line in lines)
    ei.generate(out, TINY, POLICY, log=lambda *_: None)
    with np.load(shard) as again, np.load(ei.shard_path(dataset, 1)) as first:
        for name in ei.FIELDS:
            assert np.array_equal(again[name], first[name], equal_nan=True), name


def test_the_loop_config_shares_the_training_configs_models():
    """One network model and one run-name pattern for training and loop configs."""
    from training import config
    assert ei.LoopConfig.model_fields["network"].annotation is config.NetworkSpec
    assert issubclass(config.NetworkConfig, config.NetworkSpec)
    pattern = ei.LoopConfig.model_fields["run_name"].metadata
    assert any(getattr(m, "pattern", None) == config.RUN_NAME for m in pattern)


def test_a_loop_resumed_with_other_settings_is_refused_before_any_work(tmp_path, monkeypatch):
    """Its finished steps (data, distilled model, evaluation) are kept on resume, so
    a setting that made them may not change, nor config.yaml come to say another;
    iterations, data.workers and torch_threads may."""
    from training.expert_iteration import loop

    def no_work(*args, **kwargs):
        raise AssertionError("the loop started work")
    monkeypatch.setattr(loop, "generate", no_work)
    path = "configs/history/expert_iteration.yaml"
    cfg = ei.load_loop_config(path, [f"output_dir={tmp_path}"])
    run = tmp_path / cfg.run_name
    run.mkdir()
    (run / "config.yaml").write_text(loop.to_yaml(cfg))
    before = (run / "config.yaml").read_text()
    changed = ei.load_loop_config(path, [f"output_dir={tmp_path}", "distill.epochs=3",
                                         "eval.deals=4"])
    with pytest.raises(ConfigError, match=r"distill.epochs: 8 -> 3; eval.deals: 10000 -> 4"):
        ei.run_loop(changed, log=lambda *_: None)
    assert (run / "config.yaml").read_text() == before
    loop.check_resume(run, ei.load_loop_config(path, [
        f"output_dir={tmp_path}", "iterations=5", "data.workers=1", "torch_threads=2"]))
    (run / "config.yaml").write_text("[]")
    with pytest.raises(CheckpointError, match="config.yaml: empty or corrupt"):
        ei.run_loop(cfg, log=lambda *_: None)
