"""The RLlib backend (training/rllib): env adapter, masks, seating, and one quick
run (configs/rllib_quick.yaml, a module fixture) that trains, checkpoints,
resumes after SIGKILL and after Ctrl-C, exports to ONNX and beats ``random``.
An illegal card raises in the engine, so every finished run proves the masks held.
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

pytest.importorskip("ray.rllib", reason="the [distributed] extra is not installed")

from aluette_env.apps.cli import main as cli_main  # noqa: E402
from aluette_env.evaluation import duplicate_eval  # noqa: E402
from aluette_env.players import load_player  # noqa: E402
from aluette_env.vector import VectorGame  # noqa: E402
from training.config import ConfigError, load_config  # noqa: E402
from training.rllib.env import LockstepMatches, game_and_seat  # noqa: E402
from training.rllib.seating import LEARNER, Seating  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "configs" / "rllib_quick.yaml"


def train_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "aluette_env", "train", str(QUICK), *args]


# -- the env adapter and the seating, without Ray --------------------------------------


def test_lockstep_env_rewards_are_the_engines_and_only_the_seat_to_act_observes():
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
            assert (o["observation"] == twin.obs[g]).all() and (o["action_mask"] == twin.mask[g]).all()
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
    env = LockstepMatches({"num_games": 1, "seed": 0})
    obs, _ = env.reset()
    (agent, o), = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=str(illegal)):
        env.step({agent: illegal})


class _Episode:
    def __init__(self, id_: str):
        self.id_ = id_


def test_seating_gives_one_learner_seat_partner_and_one_opponent_per_match():
    cfg = load_config(QUICK, ["selfplay.opponents={heuristic: 1}", "selfplay.partner=random"])
    seating = Seating(cfg, [])
    seen_seats = set()
    for e in range(40):
        episode = _Episode(f"{e:032x}")
        for g in range(4):
            modules = [seating(f"{g}:player_{s}", episode) for s in range(4)]
            learner = modules.index(LEARNER)
            seen_seats.add(learner)
            assert modules.count(LEARNER) == 1
            assert modules[(learner + 2) % 4] == "fixed_1"  # random, the partner
            assert {modules[(learner + 1) % 4], modules[(learner + 3) % 4]} == {"fixed_0"}
    assert seen_seats == {0, 1, 2, 3}
    # Snapshots are drawn only once filled; before that their weight goes to latest.
    cfg = load_config(QUICK, ["selfplay.opponents={snapshots: 1}"])
    assert set(Seating(cfg, []).modules[i] for i, p in
               enumerate(Seating(cfg, []).probabilities) if p > 0) == {LEARNER}
    filled = Seating(cfg, ["snapshot_0"])
    assert {filled.modules[i] for i, p in enumerate(filled.probabilities) if p > 0} == {"snapshot_0"}


def test_rllib_configs_load_and_settings_the_backend_cannot_honour_are_refused(capsys):
    for name in ("rllib", "rllib_quick"):
        cfg = load_config(ROOT / "configs" / f"{name}.yaml")
        assert cfg.backend == "rllib" and cfg.ppo.target_kl is None
    with pytest.raises(ConfigError, match=r"rllib_quick.yaml: 'ppo.target_kl': not supported"):
        load_config(QUICK, ["ppo.target_kl=0.02"])
    with pytest.raises(ConfigError, match=r"'ppo.batch_size': at most the batch of one learner"):
        load_config(QUICK, ["ppo.batch_size=16384"])
    with pytest.raises(ConfigError, match=r"unknown key 'rllib.num_gpus' \(allowed here: address"):
        load_config(QUICK, ["rllib.num_gpus=1"])
    assert cli_main(["train", str(ROOT / "configs" / "quick.yaml"), "--address", "h:6379"]) == 2
    assert "--address: only for backend rllib" in capsys.readouterr().err


# -- one quick run, reused --------------------------------------------------------------


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("rllib")
    proc = subprocess.run(train_cmd("--set", f"output_dir={out}"), capture_output=True,
                          text=True, timeout=900, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "done:" in proc.stdout
    return out / "rllib-quick"


def test_quick_run_folder_has_checkpoints_metrics_and_curve(quick_run):
    run = quick_run
    state = json.loads((run / "state.json").read_text())
    cfg = load_config(QUICK)
    assert state["backend"] == "rllib" and state["timesteps"] >= cfg.total_timesteps
    assert (run / state["checkpoint"] / "rllib_checkpoint.json").exists()
    assert len(list((run / "rllib").glob("checkpoint_*"))) <= cfg.checkpoint.keep
    assert (run / "latest.pt").exists() and (run / "best.pt").exists()
    # More snapshots than slots were taken: the ring of slots is full (oldest first).
    assert sorted(state["snapshots"]) == [f"snapshot_{k}" for k in range(cfg.selfplay.pool_size)]
    lines = (run / "metrics.jsonl").read_text().splitlines()
    assert len(lines) == len(state["evals"]) >= 2
    assert set(state["evals"][-1]["results"]) == {"heuristic", "random"}
    assert (run / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"
    assert list((run / "tb").rglob("events.out.tfevents.*"))
    # The same run again is refused before Ray starts.
    proc = subprocess.run(train_cmd("--set", f"output_dir={run.parent}"), capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 2 and "already holds a run" in proc.stderr


def test_quick_run_beats_random_and_exports_to_the_onnx_contract(quick_run, tmp_path):
    player = load_player(str(quick_run))  # a run folder is a player spec
    res = duplicate_eval(player, "random", deals=2000, seed=7)
    assert res.points_per_deal_ci95[0] > 0, res.to_json()
    out = tmp_path / "rllib.onnx"
    assert cli_main(["export", str(quick_run), "--out", str(out), "--verify", "500"]) == 0
    import onnx
    meta = {p.key: p.value for p in onnx.load(str(out)).metadata_props}
    from aluette_env.observation import OBS_SIZE, OBS_VERSION
    assert meta["obs_version"] == str(OBS_VERSION) and meta["obs_size"] == str(OBS_SIZE)
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
    assert (onnx_player.act_batch(game.obs, game.mask) == player.act_batch(game.obs, game.mask)).all()
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


def test_resume_after_sigkill_then_ctrl_c_stops_cleanly(quick_run, tmp_path):
    run = tmp_path / "rllib-quick"
    shutil.copytree(quick_run, run)
    before = json.loads((run / "state.json").read_text())["timesteps"]
    args = train_cmd("--set", f"output_dir={tmp_path}", "--set", "total_timesteps=100000000",
                     "--set", "checkpoint.interval=4096", "--set", "eval.interval=100000000",
                     "--resume", str(run), "--force")
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        killed_at = _wait_for_checkpoint_after(run, before, proc)
        proc.send_signal(signal.SIGKILL)  # the driver only, mid-training
        proc.communicate(timeout=60)
    finally:
        _end_session(proc)
    state = json.loads((run / "state.json").read_text())
    assert state["timesteps"] >= killed_at and (run / state["checkpoint"]).is_dir()
    # Resume from whatever the kill left; Ctrl-C (SIGINT to the whole process group).
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        _wait_for_checkpoint_after(run, state["timesteps"], proc)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=300)
    finally:
        _end_session(proc)
    assert proc.returncode == 0, err[-3000:]
    assert f"resuming {run} at {state['timesteps']:,} samples" in out
    assert "stopped by signal" in out
    final = json.loads((run / "state.json").read_text())
    assert final["timesteps"] > state["timesteps"] and (run / final["checkpoint"]).is_dir()
    assert not list((run / "rllib").glob(".tmp_*"))


def test_package_and_rllib_loader_import_no_ray():
    code = ("import sys, aluette_env, training.rllib\n"
            "from training.rllib.players import LOADER\n"
            "LOADER.accepts('checkpoints/none')\n"
            "print('ray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
