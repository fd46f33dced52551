"""The RLlib backend (training/rllib): the table env runner (its batches against
the engine, the league's seating, determinism), the multi-agent env, the checks
made before Ray starts, and one quick run (configs/rllib_quick.yaml, a module
fixture) that trains, checkpoints, resumes after SIGKILL (falling back to an older
checkpoint) and after SIGTERM, exports to ONNX and beats ``random``. The run on a
local two-node Ray cluster is in test_rllib_cluster.py. An illegal card raises in
the engine, so every finished run proves the masks held.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from aluette_env.commands import main as cli_main
from aluette_env.evaluation import duplicate_eval
from aluette_env.players import load_player
from aluette_env.vector import VectorGame
from conftest import NEEDS_RLLIB
from training.config import ConfigError, load_config

# Ray's RLlib is imported by the tests that use it (each parallel worker collects
# this file, one runs it).
pytestmark = [pytest.mark.rllib, NEEDS_RLLIB]

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "configs" / "rllib_quick.yaml"


def train_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "aluette_env", "train", str(QUICK), *args]


# -- the env adapter and the seating, without Ray --------------------------------------


def test_lockstep_env_rewards_are_the_engines_and_only_the_seat_to_act_observes():
    from training.rllib.env import LockstepMatches, game_and_seat
    env = LockstepMatches({"num_games": 3, "num_deals": 2, "seed": 5})
    twin = VectorGame(3, num_deals=2, seed=5, auto_reset=False)
    obs, _ = env.reset(seed=11)
    twin.reset(seed=11)
    totals: dict[str, float] = {}
    expected = np.zeros((3, 4))
    rng = np.random.default_rng(0)
    plays = 0
    while True:
        assert sorted(game_and_seat(a) for a in obs) == [(g, int(twin.to_act[g])) for g in range(3)]
        for a, o in obs.items():
            g, _ = game_and_seat(a)
            assert ((o["observation"] == twin.obs[g]).all()
                    and (o["action_mask"] == twin.mask[g]).all())
        actions = (rng.random(twin.mask.shape) * twin.mask).argmax(1)
        obs, rewards, terminated, _, _ = env.step({f"{g}:player_{twin.to_act[g]}": int(actions[g])
                                                   for g in range(3)})
        points, _, done = twin.step(actions)
        expected += points
        plays += 1
        for a, r in rewards.items():
            totals[a] = totals.get(a, 0.0) + r
        if terminated["__all__"]:
            break
    assert plays == 2 * 36 and done.all() and obs == {}
    got = np.array([[totals.get(f"{g}:player_{s}", 0.0) for s in range(4)] for g in range(3)])
    assert (got == expected).all() and (got.sum(1) == 0).all() and np.abs(got).sum() > 0


def test_lockstep_env_refuses_an_illegal_card():
    from training.rllib.env import LockstepMatches
    env = LockstepMatches({"num_games": 1, "seed": 0})
    obs, _ = env.reset()
    (agent, o), = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=str(illegal)):
        env.step({agent: illegal})


# -- the table env runner, in this process (no Ray started) -------------------------------

SMALL = ["num_games=6", "env.num_deals=2", "rllib.train_batch_size=64", "ppo.batch_size=64",
         "selfplay.opponents={latest: 0.5, heuristic: 0.5}"]


def small_runner(*overrides: str, seed: int = 0):
    from training.rllib.runner import local_runner
    cfg = load_config(QUICK, SMALL + list(overrides))
    return local_runner(cfg, seed=seed), cfg


@pytest.fixture(scope="module")
def seed_0_batch():
    """(runner, its first sample()) of small_runner() at seed 0: the tests below read
    them and never sample from it again."""
    runner, _ = small_runner()
    return runner, runner.sample()


def test_runner_batches_are_the_engines_matches_and_every_card_is_legal(seed_0_batch):
    """Replays the sampled episodes on a twin engine (same seed, the league's heuristic
    at the other seats): observations, masks and rewards are the engine's, each on the
    column's own decision; every learner card is legal; the seating is as configured."""
    runner, episodes = seed_0_batch
    games = runner.games
    T = 2 * 9  # decisions of one seat in a two-deal match
    # 3 self-play games (latest: 0.5 of 6) with 4 learner seats, 3 league games with 2.
    assert games.learner[:3].all() and (games.learner[3:].sum(1) == 2).all()
    for g in range(3, 6):  # the learner holds team g % 2, the heuristic the other
        assert games.learner[g, g % 2] and games.learner[g, g % 2 + 2]
    assert set(games.opponent[3:]) == {"heuristic"}
    assert len(episodes) == 18 and all(e.is_terminated and len(e) == T for e in episodes)
    twin = VectorGame(6, num_deals=2, seed=0, auto_reset=True)
    twin.reset(seed=0)
    heuristic = load_player("heuristic", seed=0)
    obs = [e.get_observations() for e in episodes]
    acts = [e.get_actions() for e in episodes]
    expected = np.zeros((18, T))
    made = np.zeros(18, np.int64)
    rows = np.arange(6)
    for _ in range(4 * T):
        cols = games.column[rows, twin.to_act.astype(np.int64)]
        actions = np.zeros(6, np.int64)
        for g in np.flatnonzero(cols >= 0):
            c, k = cols[g], made[cols[g]]
            assert (obs[c]["observation"][k] == twin.obs[g]).all()
            assert (obs[c]["action_mask"][k] == twin.mask[g]).all()
            actions[g] = acts[c][k]
            assert twin.mask[g, actions[g]] == 1
            made[c] += 1
        others = np.flatnonzero(cols < 0)
        actions[others] = heuristic.act_batch(twin.obs[others], twin.mask[others])
        points, deal_done, match_done = twin.step(actions)
        for g in np.flatnonzero(deal_done):
            for seat in range(4):
                if games.column[g, seat] >= 0:
                    c = games.column[g, seat]
                    expected[c, made[c] - 1] += points[g, seat]
    assert match_done.all() and (made == T).all()
    got = np.array([e.get_rewards() for e in episodes])
    assert (got == expected).all() and np.abs(got).sum() > 0
    assert (got[:12].reshape(3, 4, T).sum((1, 2)) == 0).all()  # self-play: zero-sum


def test_runner_episodes_are_deals_when_the_advantages_stop_at_each_deal(seed_0_batch):
    """``ppo.credit=deal``: each (match, learner seat) becomes one terminated
    episode per deal, the match's rows cut at the deal ends, nothing lost."""
    _, matches = seed_0_batch
    deals, _ = small_runner("ppo.credit=deal")
    split = deals.sample()
    assert len(split) == 2 * len(matches) and all(e.is_terminated and len(e) == 9 for e in split)
    for m, (first, second) in zip(matches, zip(split[0::2], split[1::2])):
        for key in ("observation", "action_mask"):
            rows = np.concatenate([first.get_observations()[key][:9],
                                   second.get_observations()[key][:9]])
            assert (rows == m.get_observations()[key][:18]).all()
        assert (np.concatenate([first.get_actions(), second.get_actions()])
                == m.get_actions()).all()
        assert (np.concatenate([first.get_rewards(), second.get_rewards()])
                == m.get_rewards()).all()


def test_runner_batch_is_determined_by_the_seed(seed_0_batch):
    """A second runner of the same seed samples the same batch; another seed, another."""
    def batch(seed):
        runner, _ = small_runner(seed=seed)
        return np.array([e.get_actions() for e in runner.sample()])

    first = np.array([e.get_actions() for e in seed_0_batch[1]])
    assert (first == batch(0)).all() and (first != batch(1)).any()


def test_runner_seats_snapshots_and_fixed_players_by_their_weights():
    runner, cfg = small_runner("num_games=40",
                               "selfplay.opponents={latest: 0.5, snapshots: 0.25, random: 0.25}")
    from training.rllib.module import module_spec
    state = module_spec(cfg.network).build().get_state()
    assert runner.set_league([("snapshot_7.pt", state)]) == ["snapshot_7.pt"]
    episodes = runner.sample()
    drawn = runner.games.opponent[20:]
    assert set(drawn) == {"snapshot_7.pt", "random"}  # league games never draw latest
    assert len(episodes) == 20 * 4 + 20 * 2
    snapshot = runner.pool.snapshots[0][1]
    assert snapshot.temperature == 1.0 and all(
        np.allclose(v.numpy(), state[k]) for k, v in snapshot.module.state_dict().items())

def test_rllib_configs_load_and_settings_the_backend_cannot_honour_are_refused(capsys):
    for name in ("rllib", "rllib_quick"):
        cfg = load_config(ROOT / "configs" / f"{name}.yaml")
        assert cfg.backend == "rllib" and cfg.ppo.target_kl is None
    with pytest.raises(ConfigError, match=r"rllib_quick.yaml: 'ppo.target_kl': not supported"):
        load_config(QUICK, ["ppo.target_kl=0.02"])
    with pytest.raises(ConfigError, match=r"'torch_compile': not supported by backend rllib"):
        load_config(QUICK, ["torch_compile=true"])
    with pytest.raises(ConfigError, match=r"'ppo.batch_size': at most the batch of one learner"):
        load_config(QUICK, ["ppo.batch_size=16384"])
    with pytest.raises(ConfigError, match=r"unknown key 'rllib.num_gpus' \(allowed here: address"):
        load_config(QUICK, ["rllib.num_gpus=1"])
    with pytest.raises(ConfigError, match=r"'selfplay.partner': Input should be 'latest' \(got "
                                          r"'random'\)"):
        load_config(QUICK, ["selfplay.partner=random"])
    assert cli_main(["train", str(ROOT / "configs" / "quick.yaml"), "--address", "h:6379"]) == 2
    assert "--address: only for backend rllib" in capsys.readouterr().err


# -- what Ray cannot do is refused before it starts ---------------------------------------


def test_a_run_ray_cannot_place_or_reach_is_refused_before_ray_starts(tmp_path, capsys):
    def train(*sets: str) -> str:
        args = ["train", str(QUICK), "--set", f"output_dir={tmp_path}"]
        for item in sets:
            args += ["--set", item] if "=" in item else [item]
        assert cli_main(args) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        return err

    for item, asked in (("rllib.num_env_runners=3", 3), ("rllib.num_env_runners=100", 100),
                        ("rllib.num_learners=4", 4)):
        err = train(item)
        assert f"need {asked} CPUs" in err and "the embedded Ray (rllib.num_cpus" in err
        assert "has 2" in err
    assert "connection refused" in train("--address", "127.0.0.1:1")
    for _ in range(2):  # no run folder is left to block the same command
        assert "not an address" in train("--address", "not an address")
    assert not (tmp_path / "rllib-quick").exists()


def test_unreachable_host_fails_in_one_line(monkeypatch):
    from training.rllib import train as rllib_train
    monkeypatch.setattr(rllib_train, "CONNECT_TIMEOUT_S", 0.5)
    with pytest.raises(ConfigError, match=r"cannot join the Ray cluster at '192.0.2.1:6379'"):
        rllib_train.check_address("192.0.2.1:6379")  # TEST-NET-1: never routed


# -- one quick run, reused --------------------------------------------------------------


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("rllib")
    proc = subprocess.run(train_cmd("--set", f"output_dir={out}"), capture_output=True,
                          text=True, timeout=900, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "done:" in proc.stdout
    return out / "rllib-quick"


def test_iterations_without_samples_are_sampled_again_then_stop_in_one_line(tmp_path):
    """RLlib drops the matches of a runner slower than sample_timeout_s and reports no
    samples (no count, or NaN): the trainer samples again, and after
    rllib.max_empty_iterations such iterations in a row stops with one line."""
    from aluette_env.commands import CommandFailed
    from training.rllib.train import Trainer, learner_samples
    assert learner_samples({}) == 0
    assert learner_samples({"env_runners": {"num_env_steps_sampled": float("nan")}}) == 0
    assert learner_samples({"env_runners": {"num_env_steps_sampled": 4410.0}}) == 4410
    cfg = load_config(QUICK, [f"output_dir={tmp_path}", "logging.tensorboard=false",
                              "selfplay.opponents={latest: 1, random: 1}",
                              "rllib.max_empty_iterations=3"])
    results = iter([{"env_runners": {"num_env_steps_sampled": float("nan")}}, {}, {}, {}])

    class Stalled:
        calls = 0

        def train(self):
            Stalled.calls += 1
            return next(results)

    state = {"timesteps": 0, "wall_time_s": 0.0, "best": None, "snapshots": [], "evals": [],
             "checkpoint": None}
    lines: list[str] = []
    trainer = Trainer(cfg, tmp_path, state, Stalled(), log=lines.append)
    with pytest.raises(CommandFailed, match="no samples in 3 iterations in a row") as err:
        trainer.run()
    assert "\n" not in str(err.value) and "--resume" in str(err.value)
    assert Stalled.calls == 3 and state["timesteps"] == 0
    assert sum("sampling again" in line for line in lines) == 2


def test_quick_run_folder_has_checkpoints_metrics_and_curve(quick_run, capsys):
    run = quick_run
    state = json.loads((run / "state.json").read_text())
    cfg = load_config(QUICK)
    assert state["backend"] == "rllib" and state["timesteps"] >= cfg.total_timesteps
    assert (run / state["checkpoint"] / "rllib_checkpoint.json").exists()
    assert len(list((run / "rllib").glob("checkpoint_*"))) <= cfg.checkpoint.keep
    assert (run / "latest.pt").exists() and (run / "best.pt").exists()
    # More snapshots were taken than the pool holds: it holds the newest, on disk.
    assert len(state["snapshots"]) == cfg.selfplay.pool_size
    assert sorted(p.name for p in (run / "pool").iterdir()) == sorted(state["snapshots"])
    lines = (run / "metrics.jsonl").read_text().splitlines()
    assert len(lines) == len(state["evals"]) >= 2
    assert set(state["evals"][-1]["results"]) == {"heuristic", "random"}
    assert (run / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"
    assert list((run / "tb").rglob("events.out.tfevents.*"))
    # The same run again is refused before Ray starts.
    assert cli_main(["train", str(QUICK), "--set", f"output_dir={run.parent}"]) == 2
    assert "already holds a run" in capsys.readouterr().err
    # Resuming it with a config of the other backend says so.
    assert cli_main(["train", str(ROOT / "configs" / "quick.yaml"), "--resume", str(run),
                     "--force"]) == 2
    assert "is a run of backend rllib, " in capsys.readouterr().err
    # Evaluating it prints no RLlib deprecation notices.
    proc = subprocess.run([sys.executable, "-m", "aluette_env", "eval", "--team-a", str(run),
                           "--team-b", "random", "--deals", "10", "--quiet"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT, check=False)
    assert proc.returncode == 0 and "Deprecat" not in proc.stderr, proc.stderr[-2000:]


def test_quick_run_beats_random_and_exports_to_the_onnx_contract(quick_run, tmp_path):
    player = load_player(str(quick_run))  # a run folder is a player spec
    res = duplicate_eval(player, "random", deals=2000, seed=7)
    assert res.points_per_deal_ci95[0] > 0, res.to_json()
    out = tmp_path / "rllib.onnx"
    assert cli_main(["export", str(quick_run), "--out", str(out), "--verify", "500"]) == 0
    import onnx
    meta = {p.key: p.value for p in onnx.load(str(out)).metadata_props}
    from aluette_env.observation import OBS_SIZE, OBS_LAYOUT
    assert meta["obs_layout"] == str(OBS_LAYOUT) and meta["obs_size"] == str(OBS_SIZE)
    assert meta["checkpoint"] == "best.pt" and "backend: rllib" in meta["training_config"]
    import onnxruntime as ort
    session = ort.InferenceSession(str(out))
    assert [i.name for i in session.get_inputs()] == ["observation", "action_mask"]
    game = VectorGame(32, seed=3)
    game.reset()
    logits = session.run(["logits"], {"observation": game.obs.astype(np.float32),
                                      "action_mask": game.mask.astype(np.float32)})[0]
    assert (logits[game.mask == 0] == np.float32(-1e9)).all()
    onnx_player = load_player(str(out))
    assert (onnx_player.act_batch(game.obs, game.mask)
            == player.act_batch(game.obs, game.mask)).all()
    assert cli_main(["eval", "--team-a", str(out), "--team-b", "random", "--deals", "20",
                     "--quiet"]) == 0


def _wait_for_checkpoint_after(run: Path, steps: int, proc, timeout: float = 300) -> int:
    deadline = time.time() + timeout
    while time.time() < deadline:
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        try:
            now = json.loads((run / "state.json").read_text())["timesteps"]
        except (OSError, ValueError):
            now = steps
        if now > steps:
            return now
        time.sleep(0.5)
    raise AssertionError(f"no checkpoint after {steps} samples within {timeout} s")


def _end_session(proc) -> None:
    """Leftover Ray processes of a killed driver share its session: end them too."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _session_ended(proc, timeout: float = 60) -> bool:
    """Whether every process of ``proc``'s session (the driver and what Ray started
    from it) is gone, waiting up to ``timeout`` seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.5)
    return False


def test_resume_after_sigkill_falls_back_then_sigterm_stops_and_ends_ray(quick_run, tmp_path):
    run = tmp_path / "rllib-quick"
    shutil.copytree(quick_run, run)
    before = json.loads((run / "state.json").read_text())["timesteps"]
    # Resumed at a smaller size (--force): 8 matches, 900 samples an iteration, each
    # iteration checkpointed; what is checked is the kill, the fallback and the stop.
    args = train_cmd(*[a for item in (
        f"output_dir={tmp_path}", "total_timesteps=100000000", "num_games=8",
        "rllib.train_batch_size=512", "ppo.batch_size=256", "checkpoint.interval=512",
        "eval.interval=100000000") for a in ("--set", item)], "--resume", str(run), "--force")
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        killed_at = _wait_for_checkpoint_after(run, before, proc)
        proc.send_signal(signal.SIGKILL)  # the driver only, mid-training
        out, _ = proc.communicate(timeout=60)
    finally:
        _end_session(proc)
    assert "`ray stop`" in out  # how to end what a kill -9 leaves behind
    state = json.loads((run / "state.json").read_text())
    assert state["timesteps"] >= killed_at and (run / state["checkpoint"]).is_dir()
    # The newest checkpoint lost: the resume falls back to the older one, saying so.
    shutil.rmtree(run / state["checkpoint"])
    # The newest checkpoint state.json's count covers (a kill between a checkpoint's
    # rename and state.json's write leaves a newer one it never named).
    steps, older = max((int(p.name.split("_")[1]), p)
                       for p in (run / "rllib").glob("checkpoint_*")
                       if int(p.name.split("_")[1]) <= state["timesteps"])
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        _wait_for_checkpoint_after(run, state["timesteps"], proc)  # past the lost one
        proc.send_signal(signal.SIGTERM)  # the driver only: it must end Ray's processes
        out, err = proc.communicate(timeout=300)
        ended = _session_ended(proc)
    finally:
        _end_session(proc)
    assert proc.returncode == 0, err[-3000:]
    assert f"falling back to {older.name} ({steps:,} samples" in out
    assert f"resuming {run} at {steps:,} samples" in out
    assert "stopped by signal" in out
    assert ended, "Ray processes outlived the driver stopped by SIGTERM"
    final = json.loads((run / "state.json").read_text())
    assert final["timesteps"] > steps and (run / final["checkpoint"]).is_dir()
    assert not list((run / "rllib").glob(".tmp_*"))


def test_package_and_rllib_loader_import_no_ray():
    code = ("import sys, aluette_env, training.rllib\n"
            "from training.rllib.players import LOADER\n"
            "LOADER.accepts('checkpoints/none')\n"
            "print('ray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
