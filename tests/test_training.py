"""Training: config validation, the learner's rewards, checkpoints, resume,
signals. Runs configs/quick.yaml with small overrides; nothing here depends
on wall-clock speed."""

import json
import os

import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from aluette_env.game.cards import STRENGTH
from aluette_env.apps.cli import main as cli_main
from aluette_env.observation import decode_observation
from aluette_env.players import load_player
from aluette_env.players.heuristic import HeuristicPlayer
from aluette_env.players.random_player import RandomPlayer
from training.runs import CheckpointError
from training.sb3.checkpoints import load_model
from training.config import ConfigError, load_config
from training.selfplay import OpponentPool, TableGames
from training.sb3.vecenv import SelfPlayVecEnv

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "configs" / "quick.yaml"


def write(tmp_path, text):
    p = tmp_path / "cfg.yaml"
    p.write_text(text)
    return p


@pytest.mark.parametrize("text,message", [
    ("ppo:\n  lr: 0.1\n", "unknown key 'ppo.lr' (allowed here: learning_rate"),
    ("num_games: many\n", "'num_games': Input should be a valid integer"),
    ("ppo:\n  gamma: 1.5\n", "'ppo.gamma': Input should be less than or equal to 1"),
    ("selfplay:\n  opponents: {heuristic: -1}\n", "'selfplay.opponents'"),
    ("network:\n  activation: gelu\n", "'network.activation': Input should be 'relu' or 'tanh'"),
    ("- a\n- b\n", "top level must be a mapping"),
    ("ppo: [\n", "not valid YAML"),
    ("pretrain:\n  player: ai\n", "'pretrain.player': a rule-based player (heuristic"),
    ("pretrain:\n  steps: 9\n", "unknown key 'pretrain.steps' (allowed here: player, samples"),
    ("backend: rllib\npretrain: {}\n", "'pretrain': not supported by backend rllib"),
])
def test_config_errors_name_file_key_and_allowed(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(path) in str(err.value) and message in str(err.value)
    assert "\n" not in str(err.value)


def test_config_cli_error_exit_code_2(tmp_path, capsys):
    path = write(tmp_path, "ppo:\n  n_epochs: 0\n")
    assert cli_main(["train", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ppo.n_epochs" in err[0] and str(path) in err[0]
    assert cli_main(["train", str(tmp_path / "missing.yaml")]) == 2
    assert cli_main(["train", str(QUICK), "--set", "eval.deals=zero"]) == 2


def test_torch_threads_sleep_only_when_other_processes_hold_the_cores():
    from training import omp_wait_policy
    assert omp_wait_policy(load=4.2, cpus=2) == "PASSIVE"
    assert omp_wait_policy(load=2.0, cpus=2) == "PASSIVE"
    assert omp_wait_policy(load=1.4, cpus=2) is None  # idle, or our own last run
    assert omp_wait_policy(load=0.1, cpus=16) is None
    code = "import os, training; print(os.environ['OMP_WAIT_POLICY'])"
    mine = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "OMP_WAIT_POLICY": "ACTIVE"},
                          check=True).stdout.strip()
    assert mine == "ACTIVE"  # a user's own setting wins


def test_shipped_configs_are_valid_and_overrides_apply():
    for name in ("default", "quick", "vs_heuristic", "v2", "exploit"):
        load_config(ROOT / "configs" / f"{name}.yaml")
    cfg = load_config(QUICK, ["ppo.n_epochs=5", "selfplay.opponents={random: 1}"])
    assert cfg.ppo.n_epochs == 5 and cfg.selfplay.opponents == {"random": 1}


def forced_deal(winner_seat):
    """A deal whose outcome no play can change: ``winner_seat`` holds the eight
    named cards and the Coins Ace, the other three aces are unused. It wins all
    nine tricks: Mordienne, 2 points."""
    top = sorted(range(48), key=lambda c: -STRENGTH[c])[:8] + [0]
    aces = [12, 24, 36]
    rest = [c for c in range(48) if c not in top and c not in aces]
    hands, k = [], 0
    for seat in range(4):
        if seat == winner_seat:
            hands.append(top)
        else:
            hands.append(rest[k:k + 9])
            k += 9
    return hands


@pytest.mark.parametrize("winner,expected", [("learner", 2.0), ("partner", 2.0), ("left", -2.0)])
def test_learner_reward_is_its_team_deal_points(winner, expected):
    n = 8
    pool = OpponentPool({"heuristic": 1.0}, {"heuristic": HeuristicPlayer()},
                        np.random.default_rng(0))
    pool.latest = RandomPlayer(1)  # the "current policy" of the partner
    env = SelfPlayVecEnv(n, pool, num_deals=1, seed=0)
    learner = np.arange(n) % 4
    offset = {"learner": 0, "partner": 2, "left": 1}[winner]
    deals = np.array([[forced_deal((learner[g] + offset) % 4)] for g in range(n)], np.int8)
    env.set_options({"deals": deals, "first_dealer": list(np.arange(n) % 4)})
    obs = env.reset()
    total = np.zeros(n)
    rng = np.random.default_rng(0)
    for step in range(9):
        for g in range(n):
            assert decode_observation(obs[g])["to_act"] == 0, "only the learner's own decisions"
        masks = env.action_masks()
        actions = (rng.random(masks.shape) * masks).argmax(1)
        obs, rewards, dones, infos = env.step(actions)
        total += rewards
        if step < 8:
            assert (rewards == 0).all() and not dones.any()
    assert dones.all()
    assert total.tolist() == [expected] * n
    assert all(info["episode"]["r"] == expected and info["episode"]["l"] == 9 for info in infos)


def run_train(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "training", str(QUICK), *args],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def test_quick_train_checkpoints_resumes_and_evaluates(tmp_path):
    out = ["--set", f"output_dir={tmp_path}", "--set", "total_timesteps=8192"]
    proc = run_train(*out)
    assert proc.returncode == 0, proc.stderr
    run = tmp_path / "quick"
    state = json.loads((run / "state.json").read_text())
    assert state["timesteps"] == 8192 and len(state["evals"]) == 1
    assert set(state["evals"][0]["results"]) == {"heuristic", "random"}
    assert (run / "latest.zip").exists() and (run / "best.zip").exists()
    assert (run / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"
    assert list((run / "tb").rglob("events.out.tfevents.*"))
    assert (len(state["snapshots"]) == 2
            and all((run / "pool" / s).exists() for s in state["snapshots"]))
    # The same run again is refused; a changed config on resume too, unless forced.
    assert run_train(*out).returncode == 2
    more = ["--set", f"output_dir={tmp_path}", "--set", "total_timesteps=12288",
            "--set", "ppo.n_epochs=3"]
    proc = run_train(*more, "--resume", str(run))
    assert proc.returncode == 2 and "ppo.n_epochs: 2 -> 3" in proc.stderr
    assert "total_timesteps" not in proc.stderr  # where a run stops may change freely
    proc = run_train(*more, "--resume", str(run), "--force", "--set", "ppo.learning_rate=0.001")
    assert proc.returncode == 0, proc.stderr
    assert "resuming" in proc.stdout and "at 8,192 samples (2 snapshots in the pool)" in proc.stdout
    state = json.loads((run / "state.json").read_text())
    resumed = load_model(run / "latest.zip")
    assert state["timesteps"] == 12288 and resumed.num_timesteps == 12288
    assert resumed.learning_rate == 0.001  # a forced resume applies the new PPO settings
    # The checkpoint plays as a player (spec = run folder or zip).
    player = load_player(str(run))
    assert cli_main(["eval", "--team-a", str(run / "latest.zip"), "--team-b", "random",
                     "--deals", "20", "--quiet"]) == 0
    assert player.act_batch(np.zeros((1, 638), np.int8), np.eye(48, dtype=np.int8)[[5]])[0] == 5


def test_corrupt_and_missing_checkpoints_give_one_line_errors(tmp_path):
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"PK\x03\x04 this is not a real archive")
    with pytest.raises(CheckpointError, match=str(bad)):
        load_model(bad)
    with pytest.raises(CheckpointError, match="no such checkpoint"):
        load_model(tmp_path / "none.zip")
    proc = subprocess.run([sys.executable, "-m", "aluette_env", "eval", "--team-a", str(bad),
                           "--team-b", "random"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert str(bad) in proc.stderr and "Traceback" not in proc.stderr
    run = tmp_path / "run"
    run.mkdir()
    (run / "state.json").write_text('{"timesteps": 1')  # truncated
    proc = run_train("--resume", str(run))
    assert proc.returncode == 2 and "state.json: truncated or corrupt" in proc.stderr


def test_sigint_saves_a_checkpoint_and_resume_continues_from_it(tmp_path):
    args = [sys.executable, "-m", "training", str(QUICK), "--set", f"output_dir={tmp_path}",
            "--set", "total_timesteps=100000000", "--set", "checkpoint.interval=100000000",
            "--set", "eval.interval=100000000"]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    run = tmp_path / "quick"
    deadline = time.time() + 300
    while not list((run / "tb").rglob("events.out.tfevents.*")) and time.time() < deadline:
        time.sleep(0.5)
    time.sleep(3)  # well inside model.learn
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert "stopped by signal" in out
    state = json.loads((run / "state.json").read_text())
    steps = state["timesteps"]
    assert steps > 0 and load_model(run / "latest.zip").num_timesteps == steps
    proc = subprocess.run(args[:-6] + ["--set", f"total_timesteps={steps + 4096}",
                                       "--resume", str(run), "--force"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert f"at {steps:,} samples" in proc.stdout
    assert json.loads((run / "state.json").read_text())["timesteps"] >= steps + 4096


# ------------------------------------------------------------------ crash safety

#: A run small enough to cross every kind of file write within a few seconds:
#: snapshots every rollout (pool of 2, so old ones get deleted), evaluation and
#: checkpoint every second rollout, checkpoints kept 2 (so old ones get deleted).
TINY = ["num_games=4", "selfplay.opponents={latest: 1}", "ppo.n_steps=16", "ppo.batch_size=256",
        "selfplay.snapshot_interval=256",
        "checkpoint.interval=512", "eval.interval=512", "eval.deals=4", "checkpoint.keep=2",
        "logging.tensorboard=false", "logging.progress_bar=false"]


def _train_until_killed(run: Path, overrides: list[str], target: str, nth: int,
                        report: Path) -> None:
    """Child process: train (resuming ``run`` if it exists) and SIGKILL itself just
    before the ``nth`` write (rename into place) or deletion of a file whose name
    starts with ``target`` ("unlink " prefixes deletions); "" never kills itself."""
    import os
    import signal
    import traceback

    from training.config import load_config
    from training.sb3.train import train as sb3_train

    seen = [0]

    def hit(name: str) -> None:
        if target and name.startswith(target):
            seen[0] += 1
            if seen[0] == nth:
                os.kill(os.getpid(), signal.SIGKILL)

    real_replace, real_unlink = os.replace, Path.unlink

    def replace(src, dst, *args, **kwargs):
        hit(os.path.basename(dst))
        return real_replace(src, dst, *args, **kwargs)

    def unlink(self, missing_ok=False):
        hit("unlink " + self.name)
        return real_unlink(self, missing_ok=missing_ok)

    os.replace, Path.unlink = replace, unlink
    try:
        cfg = load_config(QUICK, overrides)
        resume = run if (run / "config.yaml").exists() else None
        sb3_train(cfg, resume=resume, log=lambda msg: report.open("a").write(msg + "\n"))
    except BaseException:  # noqa: BLE001 - the parent reads why
        report.open("a").write(traceback.format_exc())
        raise


def test_sigkill_at_every_kind_of_write_and_at_random_times_always_resumes(tmp_path):
    """SIGKILL a training process at each kind of file write and deletion, and at
    random moments, resuming the same run folder every time; it must resume
    each time and end consistent. Children fork from a server that imported
    torch and SB3 once, so each round costs seconds, not a fresh interpreter."""
    import multiprocessing
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["training.sb3.train", "test_training"])
    run = tmp_path / "quick"
    report = tmp_path / "report.txt"

    def round_(target, nth=1, after=None, total=10 ** 9, killed=True):
        overrides = TINY + [f"output_dir={tmp_path}", f"total_timesteps={total}"]
        proc = ctx.Process(target=_train_until_killed, args=(run, overrides, target, nth, report))
        proc.start()
        if after is not None:
            proc.join(after)
            if proc.is_alive():
                proc.kill()
        proc.join(300)
        text = report.read_text() if report.exists() else ""
        expected = -signal.SIGKILL if killed else 0
        assert proc.exitcode == expected, f"{target!r}: exit {proc.exitcode}\n{text}"

    # In this order each point is reached for sure: the first evaluation of a run
    # always saves a best model, and a resume publishes one left pending.
    points = [("config.yaml", 1), ("state.json", 1), ("snapshot_", 1), ("metrics.jsonl", 1),
              ("best_", 1), ("best.zip", 1), ("unlink best_", 1), ("learning_curve.png", 1),
              ("checkpoint_", 1), ("state.json", 2), ("latest.zip", 1), ("unlink snapshot_", 1),
              ("unlink checkpoint_", 1),
              ("snapshot_", 3), ("state.json", 3)]
    for target, nth in points:
        round_(target, nth)
    rng = np.random.default_rng(0)
    for after in rng.uniform(0.5, 4.0, size=3):
        round_("", after=float(after))
    # A last resume runs to the end; the folder is then consistent.
    final = json.loads((run / "state.json").read_text())["timesteps"] + 1024
    round_("", total=final, killed=False)
    text = report.read_text()
    assert "Traceback" not in text and "resuming " in text
    state = json.loads((run / "state.json").read_text())
    assert state["timesteps"] == final
    assert load_model(run / state["checkpoint"]).num_timesteps == final
    assert load_model(run / "latest.zip").num_timesteps == final
    assert load_model(run / "best.zip").num_timesteps == state["best"]["timesteps"]
    assert not list(run.glob("best_*.zip"))
    assert sorted(p.name for p in (run / "pool").iterdir()) == sorted(state["snapshots"])
    assert len(list(run.glob("checkpoint_*.zip"))) == 2
    metrics = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert metrics == state["evals"]
    assert not list(run.glob(".*")) and not list((run / "pool").glob(".*"))


def test_resuming_a_finished_run_says_so_and_a_larger_total_continues_it(tmp_path):
    base = [a for o in TINY + [f"output_dir={tmp_path}"] for a in ("--set", o)]
    assert run_train(*base, "--set", "total_timesteps=512").returncode == 0
    run = tmp_path / "quick"
    again = run_train(*base, "--set", "total_timesteps=512", "--resume", str(run))
    assert again.returncode == 0, again.stderr
    assert f"{run} is finished at 512 samples" in again.stdout
    more = run_train(*base, "--set", "total_timesteps=1024", "--resume", str(run))
    assert more.returncode == 0, more.stderr
    assert "resuming" in more.stdout and "done: 1,024 samples" in more.stdout
    # The checkpoint state.json names is gone (and latest.zip with it): resume falls
    # back to the newest one that can be read, and says so.
    (run / "checkpoint_1024.zip").unlink()
    (run / "latest.zip").write_bytes(b"PK\x03\x04 truncated")
    back = run_train(*base, "--set", "total_timesteps=1024", "--resume", str(run))
    assert back.returncode == 0, back.stderr
    assert "falling back to checkpoint_512.zip (512 samples)" in back.stdout
    assert json.loads((run / "state.json").read_text())["timesteps"] == 1024


def random_decide(rng):
    def decide(obs, masks):
        actions = (rng.random(masks.shape) * masks).argmax(1)
        return actions, np.zeros(len(actions)), np.zeros(len(actions))
    return decide


@pytest.mark.parametrize("offset,expected", [(0, 2.0), (2, 2.0), (1, -2.0)])
def test_all_seat_tables_give_every_learner_seat_its_team_points(offset, expected):
    """Games 0-3 are self-play (four learner seats), 4-7 league games (the learner
    holds team g % 2). The seat ``offset`` after each game's first learner seat
    makes Mordienne: every learner seat gets its team's points on its ninth decision."""
    n = 8
    pool = OpponentPool({"latest": 0.5, "heuristic": 0.5}, {"heuristic": HeuristicPlayer()},
                        np.random.default_rng(0))
    tables = TableGames(n, 4, pool, num_deals=1, seed=0)
    assert tables.num_columns == 4 * 4 + 4 * 2
    first = np.array([0, 0, 0, 0, 0, 1, 0, 1])
    deals = np.array([[forced_deal(int((first[g] + offset) % 4))] for g in range(n)], np.int8)
    tables.reset({"deals": deals, "first_dealer": list(np.arange(n) % 4)})
    roll = tables.collect(9, random_decide(np.random.default_rng(1)))
    for g in range(n):
        for seat in range(4):
            c = tables.column[g, seat]
            if c < 0:
                assert not tables.learner[g, seat]
                continue
            same_team = (seat - first[g] - offset) % 2 == 0
            want = abs(expected) if same_team else -abs(expected)
            if g >= 4:  # league: the learner team is the one that holds `first`
                want = expected
            assert roll.rewards[:8, c].tolist() == [0.0] * 8 and roll.rewards[8, c] == want
            assert roll.episode_starts[:, c].tolist() == [1.0] + [0.0] * 8
            decoded = decode_observation(roll.observations[0, c].astype(np.int8))
            assert decoded["to_act"] == 0  # a learner's own decision
    assert roll.last_dones.all() and len(roll.episodes) == tables.num_columns


def test_all_seat_rollouts_give_every_seat_n_steps_decisions_and_leave_games_intact():
    pool = OpponentPool({"latest": 0.5, "random": 0.5}, {"random": RandomPlayer(3)},
                        np.random.default_rng(0))
    tables = TableGames(16, 8, pool, num_deals=2, seed=4)
    tables.reset()
    rng = np.random.default_rng(2)
    for _ in range(3):  # rollouts of 7 tricks cross deal and match boundaries
        roll = tables.collect(7, random_decide(rng))
        assert roll.rewards[:, :32].sum() == 0  # self-play games are zero-sum
        # the bootstrap's look-ahead (three cards) puts every game back
        before, obs = tables.game.state.copy(), tables.game.obs.copy()
        values = tables._bootstrap(random_decide(rng))
        assert values.shape == (tables.num_columns,)
        assert (tables.game.state == before).all() and (tables.game.obs == obs).all()
    assert roll.observations.shape == (7, tables.num_columns, 638)
    masks = roll.action_masks.astype(bool)
    assert masks[np.arange(7)[:, None], np.arange(tables.num_columns),
                 roll.actions.astype(int)].all()


def test_warm_start_plays_exactly_like_the_exported_model(tmp_path):
    from aluette_env.players.onnx_policy import SHIPPED_MODELS
    from training.export import sample_positions
    from training.sb3.policy import PolicyPlayer
    from training.sb3.train import build_env, build_model, load_onnx_weights
    v1 = str(SHIPPED_MODELS[1])
    cfg = load_config(ROOT / "configs" / "default.yaml",
                      ["num_games=8", "ppo.batch_size=64", "logging.tensorboard=false",
                       "network.trunk=[256]", "network.pi=[128]", "network.vf=[128]",
                       "selfplay.all_seats=true"])
    pool = OpponentPool(cfg.selfplay.opponents, {"heuristic": HeuristicPlayer()},
                        np.random.default_rng(0))
    model = build_model(cfg, build_env(cfg, pool, seed=0), tmp_path)
    load_onnx_weights(model.policy, v1)
    obs, masks = sample_positions(500)
    assert (PolicyPlayer(model.policy).act_batch(obs, masks)
            == load_player(v1).act_batch(obs, masks)).all()
    small = build_model(load_config(QUICK, ["logging.tensorboard=false"]),
                        build_env(cfg, pool, seed=0), tmp_path)
    with pytest.raises(CheckpointError, match="has shape .* set network to the model's"):
        load_onnx_weights(small.policy, v1)


def test_pretraining_clones_the_rule_based_players_cards():
    from training.imitation import demonstrations
    from training.sb3.policy import PolicyPlayer
    from training.sb3.train import build_env, build_model, pretrain_policy
    cfg = load_config(QUICK, ["logging.tensorboard=false"])
    pool = OpponentPool(cfg.selfplay.opponents, {"heuristic": HeuristicPlayer()},
                        np.random.default_rng(0))
    model = build_model(cfg, build_env(cfg, pool, seed=0), ROOT)
    heuristic = HeuristicPlayer()
    held_out = demonstrations(heuristic, 2000, num_games=16, seed=1)

    def agreement():
        played = PolicyPlayer(model.policy).act_batch(held_out.observations, held_out.masks)
        return (played == held_out.actions).mean()

    before = agreement()
    fit = pretrain_policy(model.policy, demonstrations(heuristic, 40_000, num_games=64, seed=0),
                          epochs=4, batch_size=512, learning_rate=3e-3, vf_coef=0.5, seed=0,
                          log=lambda _: None)
    assert before < 0.4 and agreement() > 0.75 and fit["agreement"] > 0.75


def test_a_pretrained_run_counts_the_clone_in_its_wall_time_and_curve(tmp_path):
    proc = run_train("--set", f"output_dir={tmp_path}", "--set", "total_timesteps=4096",
                     "--set", "pretrain.samples=10000")
    assert proc.returncode == 0, proc.stderr
    # 10,000 rounded up to whole matches: two of 180 decisions in each of 48 games
    assert "pretrain: 17,280 decisions of heuristic" in proc.stdout
    state = json.loads((tmp_path / "quick" / "state.json").read_text())
    assert state["pretrain"]["samples"] == 17280
    first = state["evals"][0]  # the clone, before any self-play sample
    assert first["timesteps"] == 0 and first["wall_time_s"] >= state["pretrain"]["seconds"]
    assert state["evals"][-1]["timesteps"] == 4096


# ------------------------------------------------- resume faults (one tiny run, copied)

@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """A finished run of 512 samples (evaluated once, against heuristic and random),
    trained once for the tests below; each test works on a copy."""
    out = tmp_path_factory.mktemp("tiny")
    argv = ["train", str(QUICK), *[a for o in TINY + [f"output_dir={out}",
                                                       "total_timesteps=512"]
                                   for a in ("--set", o)]]
    assert cli_main(argv) == 0
    return out / "quick"


def _copy_run(run: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    import shutil
    copy = tmp_path / "quick"
    shutil.copytree(run, copy)
    base = [a for o in TINY + [f"output_dir={run.parent}"] for a in ("--set", o)]
    return copy, ["train", str(QUICK), *base, "--resume", str(copy)]


def test_forced_resume_with_other_eval_opponents_compares_best_like_with_like(tiny_run, tmp_path,
                                                                             capsys):
    run, resume = _copy_run(tiny_run, tmp_path)
    first = json.loads((run / "state.json").read_text())["best"]["opponent"]
    other = "heuristic" if first == "random" else "random"
    assert cli_main([*resume, "--force", "--set", f"eval.opponents=[{other}]",
                     "--set", "total_timesteps=768", "--set", "selfplay.pool_size=1"]) == 0
    out = capsys.readouterr().out
    assert f"best model so far scored against {first}" in out and "done: 768 samples" in out
    assert "at 512 samples (1 snapshot in the pool)" in out
    state = json.loads((run / "state.json").read_text())
    assert [sorted(e["results"]) for e in state["evals"]] == [["heuristic", "random"], [other]]
    # best is against the new opponent now: the earlier scores do not compete with it.
    assert state["best"]["opponent"] == other and state["best"]["timesteps"] == 768
    assert (run / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("damage", ["truncated", "missing"])
def test_a_damaged_state_json_is_rebuilt_from_the_checkpoints(tiny_run, tmp_path, capsys, damage):
    run, resume = _copy_run(tiny_run, tmp_path)
    before = json.loads((run / "state.json").read_text())
    if damage == "truncated":
        (run / "state.json").write_text((run / "state.json").read_text()[:40])
    else:
        (run / "state.json").unlink()
    assert cli_main([*resume, "--set", "total_timesteps=512"]) == 0
    out = capsys.readouterr().out
    assert "rebuilt it from checkpoint_512.zip (512 samples), 1 evaluations" in out
    assert f"{run} is finished at 512 samples" in out
    after = json.loads((run / "state.json").read_text())
    for key in ("timesteps", "checkpoint", "evals", "best", "snapshots"):
        assert after[key] == before[key], key


def _read_only(folder: Path):
    """Make ``folder`` refuse new files, also to root (immutable), or skip."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return lambda: folder.chmod(0o755)
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("running as root without chattr: cannot make a folder read-only")
    return lambda: subprocess.run(["chattr", "-i", str(folder)], check=True)


@pytest.mark.parametrize("folder", [".", "pool"])
def test_resuming_a_read_only_run_is_refused_before_any_training(tiny_run, tmp_path, capsys,
                                                                folder):
    run, resume = _copy_run(tiny_run, tmp_path)
    state = (run / "state.json").read_text()
    undo = _read_only(run / folder)
    try:
        assert cli_main([*resume, "--set", "total_timesteps=768"]) == 2
    finally:
        undo()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"aluette: error: {run / folder}: cannot write")
    assert (run / "state.json").read_text() == state


def test_a_start_that_never_trained_can_be_started_again(tmp_path, capsys):
    from training.runs import open_run
    cfg = load_config(QUICK, [f"output_dir={tmp_path}"])
    run, _ = open_run(cfg)  # e.g. a start that failed on its cluster
    assert open_run(cfg)[0] == run
    assert capsys.readouterr().out == (f"{run}: a start that never reached its first "
                                       f"checkpoint; starting over in it\n")
    (run / "checkpoint_8.zip").write_bytes(b"")  # something trained: the run is kept
    with pytest.raises(ConfigError, match="already holds a run; resume it with --resume"):
        open_run(cfg)


def test_a_damaged_rllib_state_json_is_rebuilt_from_its_newest_complete_checkpoint(tmp_path,
                                                                                  capsys):
    from training.config import to_yaml
    from training.runs import open_run
    cfg = load_config(ROOT / "configs" / "rllib_quick.yaml", [f"output_dir={tmp_path}"])
    run = tmp_path / cfg.run_name
    for steps, complete in ((4096, True), (8192, True), (12288, False)):
        folder = run / "rllib" / f"checkpoint_{steps}"
        folder.mkdir(parents=True)
        if complete:
            (folder / "rllib_checkpoint.json").write_text("{}")
    (run / "config.yaml").write_text(to_yaml(cfg))
    (run / "state.json").write_text('{"timesteps": 8192, "wall_')
    _, state = open_run(cfg, resume=run)
    assert "rebuilt it from rllib/checkpoint_8192 (8,192 samples)" in capsys.readouterr().out
    assert (state["timesteps"], state["checkpoint"], state["backend"]) == \
        (8192, "rllib/checkpoint_8192", "rllib")
    assert json.loads((run / "state.json").read_text()) == state
