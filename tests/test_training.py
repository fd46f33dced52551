"""Training: config validation, the learner's rewards, the all-seat games,
checkpoints, resume, warm start and pretraining. Runs configs/quick.yaml with
small overrides, in this process through the CLI's ``main``; the run-folder
fault tests (signals, SIGKILL) are in test_runs.py. Nothing here depends on
wall-clock speed."""

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest
import yaml

from aluette_env.commands import main as cli_main
from aluette_env.game import ALUETTE_SIGNS_V0
from aluette_env.observation import OBS_SIZE, decode_observation
from aluette_env.players import load_player
from aluette_env.players.heuristic import HeuristicPlayer
from aluette_env.players.random_player import RandomPlayer
from training.runs import CheckpointError
from training.sb3.checkpoints import load_model
from training.config import ConfigError, load_config
from training.league import OpponentPool
from training.rollouts import AllSeatGames
from conftest import QUICK, ROOT, forced_deal


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
    ("backend: rllib\nselfplay: {all_seats: true}\nnetwork:\n  precision: bfloat16\n",
     "'network.precision' bfloat16: not supported by backend rllib"),
    ("network:\n  precision: half\n", "'network.precision': Input should be 'float32'"),
    ("eval:\n  panel: [heuristic, random]\n",
     "'eval.panel': unknown panel member 'random'; the panel: heuristic"),
    ("eval:\n  panel: []\n", "'eval.panel': an empty panel"),
    ("eval:\n  panel: [ai, ai]\n", "'eval.panel': panel member 'ai' is named twice"),
    ("eval:\n  panel_deals: 0\n", "'eval.panel_deals': Input should be greater than or equal"),
    ("eval:\n  panel: [ai]\n  panel_deals_for: {heuristic: 5}\n",
     "'eval.panel_deals_for': deal pairs for 'heuristic', which is not in this panel"),
])
def test_config_errors_name_file_key_and_allowed(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(path) in str(err.value) and message in str(err.value)
    assert "\n" not in str(err.value)


def _alias_bomb(levels: int) -> str:
    """A YAML document of 9**levels strings in a few lines (each list repeats the last 9 times)."""
    lines = ["  l0: &a0 [random, random, random, random, random, random, random, random, random]"]
    lines += [f"  l{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "run_name: x\nenv:\n" + "\n".join(lines) + f"\neval:\n  opponents: *a{levels - 1}\n"


@pytest.mark.parametrize("text,overrides,message", [
    ("run_name: " + "[" * 50_000 + "]" * 50_000 + "\n", [], "nested more than 50 levels"),
    ("run_name: x\n", ["run_name=" + "[" * 20_000 + "]" * 20_000], "--set run_name: nested"),
    (_alias_bomb(9), [], "more than 100,000 values"),
    ("run_name: x\nenv:\n  a: &a [x, *a]\n", [], "an alias holds itself"),
    ("run_name: x\nenv:\n  a: &a " + "[" * 10 + "x" + "]" * 10 + "\n  b: &b [*a, *a]\n"
     "  c: &c [*b, *b]\n  d: &d [*c, " + "[" * 40 + "*c" + "]" * 41 + "\n",
     [], "levels deep once its aliases are expanded"),
], ids=["file 50000 deep", "--set 20000 deep", "alias bomb", "alias in itself", "deep by aliases"])
def test_a_config_too_deep_or_too_large_is_refused_at_once(tmp_path, text, overrides, message):
    """YAML nested thousands deep (a file or a --set value)
    or an alias bomb is one line naming the file (it was a RecursionError of
    3,000 lines, or 25 s of expanding: the message says it stopped before)."""
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_config(path, overrides)
    assert message in str(err.value) and str(path) in str(err.value), str(err.value)[:300]
    assert "\n" not in str(err.value) and len(str(err.value)) < 300


def test_config_cli_error_exit_code_2(tmp_path, capsys):
    path = write(tmp_path, "ppo:\n  n_epochs: 0\n")
    assert cli_main(["train", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ppo.n_epochs" in err[0] and str(path) in err[0]
    assert cli_main(["train", str(tmp_path / "missing.yaml")]) == 2
    assert cli_main(["train", str(QUICK), "--set", "eval.deals=zero"]) == 2


def test_torch_threads_sleep_only_when_other_processes_hold_the_cores():
    from training import busy_elsewhere, omp_wait_policy
    assert omp_wait_policy(load=4.2, cpus=2) == "PASSIVE"
    assert omp_wait_policy(load=2.0, cpus=2) == "PASSIVE"
    assert omp_wait_policy(load=1.4, cpus=2) is None  # idle, or our own last run
    assert omp_wait_policy(load=0.1, cpus=16) is None
    if busy_elsewhere() is not None:  # Linux: the runnable tasks now, not a minute's average
        spin = "import time\nend = time.time() + 20\nwhile time.time() < end: pass"
        hogs = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(2)]
        try:
            time.sleep(0.5)
            assert busy_elsewhere() >= 2
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()
    code = "import os, training; print(os.environ['OMP_WAIT_POLICY'])"
    mine = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "OMP_WAIT_POLICY": "ACTIVE"},
                          check=True).stdout.strip()
    assert mine == "ACTIVE"  # a user's own setting wins


def test_shipped_configs_are_valid_and_overrides_apply():
    # Every config shipped: the expert-iteration loops (a 'start' policy) and the
    # recipes ('stages') by their own loaders, which also check the configs they
    # name; the rest as training configs.
    from training.expert_iteration import load_loop_config
    from training.recipe import load_recipe
    shipped = sorted((ROOT / "configs").glob("**/*.yaml"))  # configs/history/ too
    kinds = {p: ("stages" in d and load_recipe) or ("start" in d and load_loop_config)
             or load_config for p in shipped for d in [yaml.safe_load(p.read_text())]}
    assert {p.stem for p, load in kinds.items() if load is load_loop_config} >= \
        {"expert_iteration", "v5"}
    assert {p.stem for p, load in kinds.items() if load is load_recipe} == {"recipe", "recipe_v7"}
    assert sum(load is load_config for load in kinds.values()) >= 8
    for path, load in kinds.items():
        load(path)
    cfg = load_config(QUICK, ["ppo.n_epochs=5", "selfplay.opponents={random: 1}"])
    assert cfg.ppo.n_epochs == 5 and cfg.selfplay.opponents == {"random": 1}


def curves_drawn(monkeypatch) -> list[dict]:
    """The labelled lines of each learning curve saved from now on, by label."""
    import matplotlib.figure
    drawn = []
    save = matplotlib.figure.Figure.savefig
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", lambda fig, *a, **k: (
        drawn.append({ln.get_label(): list(ln.get_ydata()) for ln in fig.axes[0].lines
                      if not ln.get_label().startswith("_")}),
        save(fig, *a, **k))[1])
    return drawn


@pytest.mark.slow
def test_a_panel_in_the_eval_config_is_evaluated_recorded_logged_and_plotted(tmp_path,
                                                                             monkeypatch):
    from aluette_env.evaluation import panel_eval
    from training.curve import plot_curve
    from training.evaluate import evaluate_run
    from training.runs import config_diff, open_run, read_metrics
    cfg = load_config(QUICK, [f"output_dir={tmp_path}", "eval.deals=4",
                              "eval.panel=[heuristic:version=1, heuristic]", "eval.panel_deals=9",
                              "eval.panel_deals_for={heuristic: 5}"])
    run_dir, state = open_run(cfg, log=lambda line: None)
    drawn = curves_drawn(monkeypatch)
    scalars = {}
    old = {"timesteps": 50, "wall_time_s": 0.5, "eval_seconds": 0.1,  # a record of before
           "results": {"random": {"points_per_deal": 0.1, "points_per_deal_ci95": [0, 0.2]}}}
    state["evals"].append(old)
    record = evaluate_run(cfg, HeuristicPlayer(), state, run_dir, 100, 1.0, lambda: None,
                          scalars.__setitem__)
    expected = panel_eval(HeuristicPlayer(), ["heuristic:version=1", "heuristic"], deals=9,
                          seed=cfg.eval.seed, deals_for={"heuristic": 5}).to_json()
    assert record["panel"] == expected and expected["itself"] == ["heuristic"]
    assert expected["minimum"]["member"] == "heuristic:version=1"
    assert scalars["eval/panel_min"] == expected["minimum"]["points_per_deal"] > 0
    assert scalars["eval/panel_mean"] == expected["mean"] == scalars["eval/panel_min"]
    assert read_metrics(run_dir)[-1]["panel"] == json.loads(json.dumps(expected))
    # The curve: the opponents, and the panel's two lines over the records that have one.
    assert drawn[-1]["panel minimum"] == [expected["mean"]]
    assert drawn[-1]["panel mean"] == [expected["mean"]]
    assert {"vs random", "vs heuristic"} <= set(drawn[-1])
    assert (run_dir / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"
    plot_curve([old], tmp_path / "old.png", "before the panel")
    assert set(drawn[-1]) == {"vs random"} and (tmp_path / "old.png").exists()
    # A run saved before the panel keys existed resumes with no config change.
    plain = load_config(QUICK, [f"output_dir={tmp_path}"]).model_dump()
    saved = {**plain, "eval": {k: v for k, v in plain["eval"].items() if "panel" not in k}}
    assert len(saved["eval"]) == len(plain["eval"]) - 3 and config_diff(saved, plain) == []


def test_the_learning_curve_leaves_the_processs_plots_alone(tmp_path):
    """Training from a notebook: drawing the curve neither switches matplotlib's
    backend (an inline one stays inline) nor opens a pyplot figure."""
    code = (
        "import sys, matplotlib\n"
        "matplotlib.use('svg')\n"
        "from training.curve import plot_curve\n"
        "e = {'timesteps': 1, 'wall_time_s': 1.0, 'results': {'random': "
        "{'points_per_deal': 0.1, 'points_per_deal_ci95': [0.0, 0.2]}}}\n"
        f"plot_curve([e], __import__('pathlib').Path({str(tmp_path / 'c.png')!r}), 't')\n"
        "print(matplotlib.get_backend(), 'matplotlib.pyplot' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.split()
    assert out == ["svg", "False"]
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"


def test_a_run_saved_before_a_setting_existed_resumes_with_no_config_change(tmp_path):
    """A setting newer than the run stands at its default (the run never used it):
    a config.yaml without ``selfplay.pfsp`` and ``selfplay.allow_trained_opponents``
    (or any later key) resumes as it is; a changed setting still needs --force."""
    import yaml as _yaml

    from training.runs import open_run
    cfg = load_config(QUICK, [f"output_dir={tmp_path}", "logging.tensorboard=false"])
    run_dir, _ = open_run(cfg, log=lambda line: None)
    old = _yaml.safe_load((run_dir / "config.yaml").read_text())
    for key in ("pfsp", "allow_trained_opponents"):
        del old["selfplay"][key]
    (run_dir / "config.yaml").write_text(_yaml.safe_dump(old))
    open_run(cfg, resume=run_dir, log=lambda line: None)
    changed = load_config(QUICK, [f"output_dir={tmp_path}", "logging.tensorboard=false",
                                  "selfplay.opponents={latest: 1, random: 2}"])
    with pytest.raises(ConfigError, match="selfplay.opponents"):
        open_run(changed, resume=run_dir, log=lambda line: None)
    # Compiling the update or not changes no number but float rounding: no --force.
    compiled = load_config(QUICK, [f"output_dir={tmp_path}", "logging.tensorboard=false",
                                   "torch_compile=true"])
    open_run(compiled, resume=run_dir, log=lambda line: None)


def test_auto_compiles_the_update_only_where_it_was_measured_faster(monkeypatch):
    """``torch_compile: auto`` (make train's and the partner stage's): compiled on a
    CPU with AMX tiles whose products are bfloat16, when a C++ compiler is there;
    never elsewhere, nor in float32; true and false as said. RLlib takes auto as
    false and refuses true."""
    from training.sb3 import train as sb3_train
    cfg = load_config(ROOT / "configs" / "default.yaml")
    assert cfg.torch_compile == "auto"
    assert load_config(ROOT / "configs" / "partners.yaml").torch_compile == "auto"
    for amx, compiler, want in ((True, True, True), (False, True, False),
                                (True, False, False)):
        monkeypatch.setattr(sb3_train, "amx_tiles", lambda: amx)
        monkeypatch.setattr(sb3_train, "cpp_compiler", lambda: compiler)
        assert sb3_train.learner_compile(cfg) is want
        float32 = load_config(ROOT / "configs" / "default.yaml", ["network.precision=float32"])
        assert sb3_train.learner_compile(float32) is False
        for setting in (True, False):
            assert sb3_train.learner_compile(
                load_config(QUICK, [f"torch_compile={str(setting).lower()}"])) is setting
    rllib = ROOT / "configs" / "rllib_quick.yaml"
    assert load_config(rllib, ["torch_compile=auto"]).torch_compile == "auto"
    with pytest.raises(ConfigError, match="'torch_compile': true, false or auto"):
        load_config(QUICK, ["torch_compile=sometimes"])


def test_a_compiled_update_without_a_cpp_compiler_is_refused_before_the_run(
        tmp_path, capsys, monkeypatch):
    from torch._inductor import cpp_builder

    def none_found():
        raise RuntimeError("no compiler\nover lines")
    monkeypatch.setattr(cpp_builder, "get_cpp_compiler", none_found)
    code, _, err = run_train(capsys, "--set", f"output_dir={tmp_path}", "--set",
                             "torch_compile=true")
    assert code == 2 and err.count("\n") == 1
    assert "torch_compile: torch.compile builds with a C++ compiler and none was found" in err
    assert not list(tmp_path.iterdir())  # no run folder


def run_train(capsys, *args: str) -> tuple[int, str, str]:
    """``aluette train configs/quick.yaml ARGS`` in this process: (exit code, out, err)."""
    code = cli_main(["train", str(QUICK), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_quick_train_checkpoints_resumes_and_evaluates(sb3_run, tmp_path, capsys,
                                                       monkeypatch):
    import shutil
    import tempfile

    from conftest import TINY
    run = tmp_path / "quick"
    shutil.copytree(sb3_run, run)  # a finished tiny run (conftest), copied
    state = json.loads((run / "state.json").read_text())
    assert state["timesteps"] == 512 and len(state["evals"]) == 1
    assert set(state["evals"][0]["results"]) == {"heuristic", "random"}
    assert (run / "latest.zip").exists() and (run / "best.zip").exists()
    assert (run / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"
    assert (len(state["snapshots"]) == 2
            and all((run / "pool" / s).exists() for s in state["snapshots"]))
    # The same run again is refused; a changed config on resume too, unless forced.
    out = [a for o in TINY + [f"output_dir={tmp_path}"] for a in ("--set", o)]
    code, _, err = run_train(capsys, *out, "--set", "total_timesteps=512")
    assert code == 2 and "already holds a run" in err
    more = [a for o in TINY + [f"output_dir={sb3_run.parent}", "total_timesteps=768",
                               "ppo.n_epochs=3"] for a in ("--set", o)]
    code, _, err = run_train(capsys, *more, "--resume", str(run))
    assert code == 2 and "ppo.n_epochs: 2 -> 3" in err
    assert "total_timesteps" not in err  # where a run stops may change freely
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    code, stdout, err = run_train(capsys, *more, "--resume", str(run), "--force",
                                  "--set", "ppo.learning_rate=0.001",
                                  "--set", "ppo.learning_rate_end=0.0001")
    assert code == 0, err
    assert "resuming" in stdout and "at 512 samples (2 snapshots in the pool)" in stdout
    assert not list(temp.iterdir())  # no empty SB3-<date> logger folder left behind
    state = json.loads((run / "state.json").read_text())
    resumed = load_model(run / "latest.zip")
    assert state["timesteps"] == 768 and resumed.num_timesteps == 768
    # A forced resume applies the new PPO settings: here a learning rate falling
    # linearly over the whole run, to its end value at the last update.
    assert resumed.lr_schedule(1.0) == pytest.approx(0.001)
    assert resumed.lr_schedule(0.0) == pytest.approx(0.0001)
    assert resumed.policy.optimizer.param_groups[0]["lr"] == pytest.approx(0.0001)
    # The checkpoint plays as a player (spec = run folder or zip).
    player = load_player(str(run))
    assert cli_main(["eval", "--team-a", str(run / "latest.zip"), "--team-b", "random",
                     "--deals", "20", "--quiet"]) == 0
    only_5 = np.eye(48, dtype=np.int8)[[5]]
    assert player.act_batch(np.zeros((1, OBS_SIZE), np.int8), only_5)[0] == 5


@pytest.mark.slow
def test_a_pfsp_run_keeps_its_league_table_across_a_resume_and_logs_it(tmp_path, capsys):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    out = ["--set", f"output_dir={tmp_path}", "--set", "selfplay.pfsp={window: 500}"]
    code, _, err = run_train(capsys, *out, "--set", "total_timesteps=8192")
    assert code == 0, err
    run = tmp_path / "quick"
    league = json.loads((run / "state.json").read_text())["league"]
    assert "random" in league and any(name.startswith("snapshot_") for name in league)
    wins, deals = league["random"]
    assert 0 <= wins <= deals and deals > 0
    code, _, err = run_train(capsys, *out, "--set", "total_timesteps=12288", "--resume", str(run))
    assert code == 0, err
    again = json.loads((run / "state.json").read_text())["league"]
    assert again["random"][1] > deals  # the table went on from the one saved
    tags = set()
    for events in (run / "tb").rglob("events.out.tfevents.*"):
        acc = EventAccumulator(str(events))
        acc.Reload()
        tags |= set(acc.Tags()["scalars"])
    assert {"league/win_rate_random", "league/share_random",
            "league/win_rate_snapshots_mean"} <= tags


@pytest.mark.slow
def test_corrupt_and_missing_checkpoints_give_one_line_errors(tmp_path, capsys):
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
    code, _, err = run_train(capsys, "--resume", str(run))
    assert code == 2 and "state.json: truncated or corrupt" in err


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
    games = AllSeatGames(n, 4, pool, num_deals=1, seed=0)
    assert games.num_columns == 4 * 4 + 4 * 2
    first = np.array([0, 0, 0, 0, 0, 1, 0, 1])
    deals = np.array([[forced_deal(int((first[g] + offset) % 4))] for g in range(n)], np.int8)
    games.reset({"deals": deals, "first_dealer": list(np.arange(n) % 4)})
    roll = games.collect(9, random_decide(np.random.default_rng(1)))
    for g in range(n):
        for seat in range(4):
            c = games.column[g, seat]
            if c < 0:
                assert not games.learner[g, seat]
                continue
            same_team = (seat - first[g] - offset) % 2 == 0
            want = abs(expected) if same_team else -abs(expected)
            if g >= 4:  # league: the learner team is the one that holds `first`
                want = expected
            assert roll.rewards[:8, c].tolist() == [0.0] * 8 and roll.rewards[8, c] == want
            assert roll.episode_starts[:, c].tolist() == [1.0] + [0.0] * 8
            decoded = decode_observation(roll.observations[0, c].astype(np.int8))
            assert decoded["to_act"] == 0  # a learner's own decision
    assert roll.last_dones.all() and len(roll.episodes) == games.num_columns


def test_all_seat_rollouts_give_every_seat_n_steps_decisions_and_leave_games_intact():
    pool = OpponentPool({"latest": 0.5, "random": 0.5}, {"random": RandomPlayer(3)},
                        np.random.default_rng(0))
    games = AllSeatGames(16, 8, pool, num_deals=2, seed=4)
    games.reset()
    rng = np.random.default_rng(2)
    for _ in range(3):  # rollouts of 7 tricks cross deal and match boundaries
        roll = games.collect(7, random_decide(rng))
        assert roll.rewards[:, :32].sum() == 0  # self-play games are zero-sum
        # the bootstrap's look-ahead (three cards) puts every game back
        before, obs = games.game.state.copy(), games.game.obs.copy()
        values = games._bootstrap(random_decide(rng))
        assert values.shape == (games.num_columns,)
        assert (games.game.state == before).all() and (games.game.obs == obs).all()
    assert roll.observations.shape == (7, games.num_columns, OBS_SIZE)
    masks = roll.action_masks.astype(bool)
    assert masks[np.arange(7)[:, None], np.arange(games.num_columns),
                 roll.actions.astype(int)].all()


@pytest.mark.parametrize("signs", [False, True])
@pytest.mark.parametrize("credit", ["match", "deal"])
def test_the_advantages_stop_at_the_match_or_at_each_deal(credit, signs):
    """Two deals a match, nine decisions a deal per column (eighteen with signs:
    a sign and a card a trick): ``credit="deal"`` starts a column's advantages
    again at each deal's first decision (the rows GAE cuts at), ``"match"``
    only at each match's."""
    pool = OpponentPool({"latest": 0.5, "random": 0.5}, {"random": RandomPlayer(3)},
                        np.random.default_rng(0))
    games = AllSeatGames(8, 4, pool, num_deals=2, seed=4, credit=credit,
                         **({"variant": ALUETTE_SIGNS_V0} if signs else {}))
    games.reset()
    deal = 18 if signs else 9
    roll = games.collect(4 * deal, random_decide(np.random.default_rng(2)))  # two matches
    period = deal if credit == "deal" else 2 * deal
    want = [float(k % period == 0) for k in range(4 * deal)]
    for c in range(games.num_columns):
        assert roll.episode_starts[:, c].tolist() == want
    assert roll.last_dones.all() and len(roll.episodes) == 2 * games.num_columns
    with pytest.raises(ValueError, match="credit must be 'match' or 'deal'"):
        AllSeatGames(8, 4, pool, num_deals=2, credit="trick")


def test_win_rate_table_remembers_about_a_window_of_deals():
    from training.league import WinRates
    table = WinRates(window=100, prior=0.5, prior_deals=8)
    assert table.rate("heuristic") == 0.5  # not met yet: as strong as the learner
    table.record("heuristic", 90, 100)  # it won 90 of 100 deals
    assert 0.75 < table.rate("heuristic") < 0.9
    for _ in range(20):  # then lost every deal for ten windows
        table.record("heuristic", 0, 50)
    assert table.rate("heuristic") < 0.05  # the old wins faded; the prior stays
    again = WinRates(window=100)
    again.load(table.to_json())
    assert again.rate("heuristic") == table.rate("heuristic")
    table.forget({"random"})
    assert table.to_json() == {}


def test_win_rate_table_loads_only_rows_record_can_write():
    """A row out of range (more wins than deals, not finite,
    negative, for ``latest``) is a ValueError naming it, and nothing is loaded."""
    from training.league import WinRates
    for bad, words in (({"random": [1, 2], "heuristic": [500, 1]},
                        "row 'heuristic' is [500, 1]: wins must be from 0 to deals"),
                       ({"latest": [1, 2]}, "row 'latest': not a league opponent"),
                       ({"heuristic": [float("inf"), 1]}, "row 'heuristic' is [inf, 1]")):
        table = WinRates()
        with pytest.raises(ValueError) as err:
            table.load(bad)
        assert words in str(err.value) and table.to_json() == {}
    table = WinRates()
    table.load({"heuristic": [1, 1]})
    assert table.rate("heuristic") == pytest.approx(5 / 9)


def test_pfsp_meets_the_opponents_that_still_win_more_without_moving_self_play():
    pfsp = {"exponent": 2.0, "window": 1000, "margin": 0.05, "boost": 2.0}
    fixed = {"heuristic": HeuristicPlayer(), "random": RandomPlayer(0)}
    weights = {"latest": 0.6, "heuristic": 0.2, "random": 0.2}
    plain = OpponentPool(weights, fixed, np.random.default_rng(0))
    pool = OpponentPool(weights, fixed, np.random.default_rng(0), pfsp=pfsp)
    assert np.allclose(pool.probabilities(), plain.probabilities())  # nothing known yet
    # heuristic still wins 40 % of its deals; random 5 %.
    pool.record(np.array(["heuristic"] * 100 + ["random"] * 100),
                np.array([-1.0] * 40 + [1.0] * 60 + [-1.0] * 5 + [1.0] * 95))
    p = pool.probabilities()
    assert p[0] == pytest.approx(0.6)  # the self-play share does not move
    names = [n for n, _ in pool.players()]
    h, r = p[names.index("heuristic")], p[names.index("random")]
    q_h, q_r = pool.win_rates.rate("heuristic"), pool.win_rates.rate("random")
    assert 0.38 < q_h < 0.42 and 0.05 < q_r < 0.1  # (the prior: 8 deals at 1/2)
    assert h / r == pytest.approx((q_h / q_r) ** 2)  # both beaten by more than the margin
    # The forgetting check: an opponent the learner no longer beats by the margin.
    pool.record(np.array(["random"] * 4000), np.array([-1.0] * 2000 + [1.0] * 2000))
    table = {row["name"]: row for row in pool.table()}
    assert table["random"]["priority"] == pytest.approx(2.0 * table["random"]["win_rate"] ** 2)
    assert table["heuristic"]["priority"] == pytest.approx(table["heuristic"]["win_rate"] ** 2)
    assert sum(row["share"] for row in table.values()) == pytest.approx(1.0)


def test_league_games_record_each_deal_against_the_opponent_that_played_it():
    """Every league deal lands in the pool's table under the opponent drawn for its
    match, counted from the learner team's points; self-play deals never do."""
    pfsp = {"exponent": 2.0, "window": 10_000, "margin": 0.0, "boost": 1.0}
    pool = OpponentPool({"latest": 0.5, "heuristic": 0.25, "random": 0.25},
                        {"heuristic": HeuristicPlayer(), "random": RandomPlayer(3)},
                        np.random.default_rng(0), pfsp=pfsp)
    games = AllSeatGames(16, 8, pool, num_deals=2, seed=4)
    games.reset()
    seen = []
    record = pool.record
    pool.record = lambda names, pts: (seen.append((names.copy(), pts.copy())),
                                      record(names, pts))
    games.collect(40, random_decide(np.random.default_rng(2)))
    names = np.concatenate([n for n, _ in seen])
    points = np.concatenate([p for _, p in seen])
    assert set(names) == {"heuristic", "random"}
    assert len(names) >= 8 * 4  # 160 plays: four deals in each of the 8 league games
    rate = pool.win_rates
    for name in ("heuristic", "random"):
        pts = points[names == name]
        assert rate.deals[name] == pytest.approx(len(pts), rel=1e-3)
        assert rate.wins[name] == pytest.approx((pts < 0).sum() + 0.5 * (pts == 0).sum(),
                                                rel=1e-3)
    # a random learner loses more deals to heuristic than to random
    assert rate.rate("heuristic") > rate.rate("random")


def test_a_run_from_scratch_meets_only_rule_based_fixed_players(tmp_path):
    with pytest.raises(ConfigError, match="from scratch .* only rule-based .* 'ai:version=2'"):
        load_config(QUICK, ["selfplay.opponents={latest: 1, ai:version=2: 1}"])
    load_config(QUICK, ["selfplay.opponents={latest: 1, heuristic:version=1: 1, random: 1}"])
    load_config(QUICK, ["selfplay.opponents={latest: 1, ai:version=2: 1}",
                        "selfplay.allow_trained_opponents=true"])
    with pytest.raises(ConfigError, match="'selfplay.pfsp' needs backend sb3"):
        load_config(QUICK, ["selfplay.pfsp={}", "backend=rllib"])
    with pytest.raises(ConfigError, match="'selfplay.all_seats': false .* is no longer trained"):
        load_config(QUICK, ["selfplay.all_seats=false"])
    with pytest.raises(ConfigError, match="selfplay.pfsp.boost"):
        load_config(QUICK, ["selfplay.pfsp={boost: 0.5}"])


def test_warm_start_plays_exactly_like_the_exported_model(tmp_path):
    from aluette_env.players.onnx_policy import SHIPPED_MODELS
    from training.export import sample_positions
    from training.sb3.network import PolicyPlayer
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
    # A model whose logits are not finite is no start, whoever calls.
    from aluette_env.players.onnx_policy import ModelError
    from conftest import model_with_weight
    nan = model_with_weight(SHIPPED_MODELS[1], tmp_path / "nan.onnx", float("nan"))
    before = [p.detach().clone() for p in model.policy.parameters()]
    with pytest.raises(ModelError, match="nan.onnx: its logits are NaN or infinite on 14 of 14 "
                                         "real positions"):
        load_onnx_weights(model.policy, str(nan))
    assert all((a == b).all() for a, b in zip(before, model.policy.parameters()))


@pytest.mark.slow
def test_pretraining_clones_the_rule_based_players_cards():
    from training.imitation import demonstrations
    from training.sb3.network import PolicyPlayer
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


@pytest.mark.slow
def test_a_pretrained_run_counts_the_clone_in_its_wall_time_and_curve(tmp_path, capsys):
    code, out, err = run_train(capsys, "--set", f"output_dir={tmp_path}",
                               "--set", "total_timesteps=4096", "--set", "pretrain.samples=10000")
    assert code == 0, err
    # 10,000 rounded up to whole matches: two of 180 decisions in each of 48 games
    assert "pretrain: 17,280 decisions of heuristic" in out
    state = json.loads((tmp_path / "quick" / "state.json").read_text())
    assert state["pretrain"]["samples"] == 17280
    first = state["evals"][0]  # the clone, before any self-play sample
    assert first["timesteps"] == 0 and first["wall_time_s"] >= state["pretrain"]["seconds"]
    assert state["evals"][-1]["timesteps"] == 4096


# ---------------------------------------------------------------------------- the signs variant

SIGNS = ROOT / "configs" / "signs.yaml"


@pytest.mark.slow
def test_signs_tables_give_every_seat_its_decisions_signs_and_cards():
    """With signs each column makes two decisions a trick (a sign, a card):
    rollouts of an even n_steps keep the lockstep, signs and cards alternate in
    each column, and the bootstrap puts every game back."""
    from aluette_env.game import SIGN_BASE
    from aluette_env.observation import SIGNS_OBS_SIZE
    pool = OpponentPool({"latest": 0.5, "heuristic:signs=false": 0.5},
                        {"heuristic:signs=false": load_player("heuristic:signs=false")},
                        np.random.default_rng(0))
    games = AllSeatGames(16, 8, pool, num_deals=2, seed=4,
                         variant=ALUETTE_SIGNS_V0.with_catch(0.5))
    games.reset()
    rng = np.random.default_rng(2)
    for _ in range(3):
        roll = games.collect(8, random_decide(rng))
        assert roll.rewards[:, :32].sum() == 0
        signs = roll.actions >= SIGN_BASE
        assert (signs[0::2] == signs[0]).all() and (signs[1::2] == ~signs[0]).all()
        before, obs = games.game.state.copy(), games.game.obs.copy()
        games._bootstrap(random_decide(rng))
        assert (games.game.state == before).all() and (games.game.obs == obs).all()
    assert roll.observations.shape == (8, games.num_columns, SIGNS_OBS_SIZE)
    assert roll.action_masks.shape[-1] == 58
    with pytest.raises(ValueError, match="n_steps must be even"):
        games.collect(7, random_decide(rng))


@pytest.mark.parametrize("override, message", [
    ("network.sparse=true", "set 'network.sparse' to False"),
    ("ppo.n_steps=31", "'ppo.n_steps' must be even"),
    ("eval.panel=[heuristic]", "remove 'eval.panel'"),
])
def test_signs_configs_the_learner_cannot_honour_are_refused_in_one_line(override, message):
    load_config(SIGNS)
    with pytest.raises(ConfigError, match=message) as err:
        load_config(SIGNS, [override])
    assert "\n" not in str(err.value)
    with pytest.raises(ConfigError, match="set 'env.id' to aluette_signs_v0"):
        load_config(QUICK, ["env.catch=0.5"])


def test_a_config_names_its_game_by_env_id_and_env_signs_is_deprecated():
    """``env.id`` names the game; ``env.signs: true``, the older way, still
    gives the signs variant with a DeprecationWarning, and never a second game
    beside ``env.id``."""
    from aluette_env.game import ALUETTE_V1
    from training.config.schemas import EnvConfig
    cfg = load_config(SIGNS, ["env.catch=0.5"])
    assert cfg.env.id == "aluette_signs_v0" and cfg.env.variant == ALUETTE_SIGNS_V0.with_catch(0.5)
    assert load_config(QUICK).env.variant == ALUETTE_V1
    with pytest.warns(DeprecationWarning, match="'env.signs' is deprecated; name the game "
                                                "with 'env.id: aluette_signs_v0'"):
        older = EnvConfig(signs=True, catch=0.5)
    assert older.id == "aluette_signs_v0" and older.variant == ALUETTE_SIGNS_V0.with_catch(0.5)
    with pytest.raises(ValueError, match="'env.signs' \\(false\\) and 'env.id' "
                                         "\\(aluette_signs_v0\\) name two games"):
        EnvConfig(id="aluette_signs_v0", signs=False)
    with pytest.raises(ConfigError, match="'env.signs' \\(false\\) and 'env.id' "):
        load_config(SIGNS, ["env.signs=false"])


def test_a_signs_policy_trains_exports_and_plays_only_at_a_table_with_signs(tmp_path):
    from aluette_env.evaluation import duplicate_eval
    from aluette_env.players import PlayerSpecError, for_the_default_game
    from training.export import export_policy
    from training.sb3.train import train
    cfg = load_config(SIGNS, [f"output_dir={tmp_path}", "total_timesteps=4000", "num_games=16",
                              "ppo.n_steps=8", "ppo.batch_size=256", "eval.interval=2000",
                              "eval.deals=4", "eval.opponents=[heuristic:signs=false]",
                              "checkpoint.interval=2000", "selfplay.snapshot_interval=2000",
                              "logging.tensorboard=false", "logging.progress_bar=false",
                              "logging.curve=false"])
    train(cfg, log=lambda line: None)
    onnx = tmp_path / "signs.onnx"
    meta = export_policy(str(tmp_path / cfg.run_name), onnx, verify=200)
    assert (meta["obs_layout"], meta["obs_size"], meta["num_actions"]) == ("3", "1395", "58")
    player = load_player(str(onnx))
    assert player.plays_signs and player.signs_only
    res = duplicate_eval(player, "heuristic", deals=10, seed=1,
                         variant=ALUETTE_SIGNS_V0.with_catch(0.5))
    assert -2 <= res.points_per_deal <= 2
    with pytest.raises(ValueError, match="plays only at a table with signs"):
        duplicate_eval(player, "heuristic", deals=2)
    with pytest.raises(PlayerSpecError, match="signs variant"):
        for_the_default_game(player, str(onnx))
    # Nor does it start a policy of the default game: refused as the config loads.
    with pytest.raises(ConfigError, match=r"is a policy of the signs variant \(observation "
                                          r"layout 3, 58 actions\); this run trains the default "
                                          r"game"):
        load_config(QUICK, [f"output_dir={tmp_path}", f"network.warm_start={onnx}"])


def test_a_default_game_model_starts_a_signs_policy_that_plays_its_cards(tmp_path):
    """network.warm_start with env.signs: a shipped model of the default game
    (v5) starts the signs policy. At the card step it gives v5's logits (its
    sign inputs read at zero weight); at the sign step every sign, and silence,
    has the same chance."""
    from aluette_env import aluette_signs_v0
    from aluette_env.game import NUM_CARDS, SIGN_BASE
    from aluette_env.players.onnx_policy import SHIPPED_MODELS, shipped_player
    from training.sb3.network import masked_logits
    from training.sb3.train import build_env, build_model, load_onnx_weights
    from training.league import OpponentPool
    v5 = str(SHIPPED_MODELS[5])
    cfg = load_config(SIGNS, [f"output_dir={tmp_path}", f"network.warm_start={v5}",
                              "num_games=8", "ppo.n_steps=8", "ppo.batch_size=64",
                              "logging.tensorboard=false"])
    with pytest.raises(ConfigError, match="'pretrain' imitates"):
        load_config(SIGNS, ["pretrain.player=heuristic"])
    pool = OpponentPool({"latest": 1.0}, {}, np.random.default_rng(0))
    model = build_model(cfg, build_env(cfg, pool, seed=0), tmp_path)
    load_onnx_weights(model.policy, v5)
    player = shipped_player(version=5)
    env = aluette_signs_v0.raw_env(num_deals=1, catch=0.5)
    env.reset(seed=3)
    signs = cards = 0
    for agent in env.agent_iter():
        obs, _, done, cut, _ = env.last()
        if done or cut:
            env.step(None)
            continue
        x, mask = obs["observation"][None], obs["action_mask"][None]
        logits = masked_logits(model.policy, x, mask).numpy()[0]
        if mask[0, SIGN_BASE]:
            signs += 1
            assert np.allclose(logits[SIGN_BASE:], logits[SIGN_BASE])  # each sign alike
        else:
            cards += 1
            legal = mask[0, :NUM_CARDS] > 0
            want = player.logits(x, mask[:, :NUM_CARDS])[0]
            assert np.allclose(logits[:NUM_CARDS][legal], want[legal], atol=1e-4)
        env.step(int(np.argmax(logits)))
    assert signs == cards == 36


class _Spy:
    """A partner that plays any legal card and keeps what it was shown."""

    name = "spy"

    def __init__(self):
        self.seen = []

    def act_batch(self, obs, masks):
        self.seen.append((obs.copy(), masks.copy()))
        return masks.argmax(1)


def test_partner_games_train_one_seat_beside_a_drawn_partner_against_the_policy():
    """The last games are partner games: one learner column (seat g % 4), the partner
    seat played by the partner drawn for the match, the opponents by the policy
    (decide) without being samples; the column gets its team's points."""
    from training.league import PartnerPool
    spy = _Spy()
    pool = OpponentPool({"latest": 0.5, "heuristic": 0.5}, {"heuristic": HeuristicPlayer()},
                        np.random.default_rng(0))
    partners = PartnerPool({"spy": 1.0}, {"spy": spy}, pool, np.random.default_rng(1))
    n, m = 12, 4  # 4 self-play, 4 league, 4 partner games
    games = AllSeatGames(n, 4, pool, num_deals=1, seed=0, num_partnered=m, partners=partners)
    assert games.num_columns == 4 * 4 + 4 * 2 + 4
    for g in range(8, 12):
        assert games.learner[g].tolist() == [s == g % 4 for s in range(4)]
        assert games.policy_seat[g].tolist() == [s != (g + 2) % 4 for s in range(4)]
    # Seat (g + 2) % 4 of each partner game, the partner, makes Mordienne.
    deals = np.array([[forced_deal(0)] for _ in range(8)]
                     + [[forced_deal((g + 2) % 4)] for g in range(8, 12)], np.int8)
    games.reset({"deals": deals, "first_dealer": [3] * n})
    assert set(games.opponent[8:]) == {"spy"}
    asked = []
    rng = np.random.default_rng(1)

    def decide(obs, masks):
        asked.append(len(obs))
        return random_decide(rng)(obs, masks)

    roll = games.collect(9, decide)
    # the policy decides 3 seats of each partner game, 4 of self-play, 2 of league games
    assert sum(asked[:36]) == 9 * (4 * 4 + 4 * 2 + 4 * 3)
    for g in range(8, 12):
        c = games.column[g, g % 4]
        assert (games.column[g] >= 0).sum() == 1
        assert roll.rewards[:8, c].tolist() == [0.0] * 8 and roll.rewards[8, c] == 2.0
    # the partner played 9 cards in each partner game (and up to 3 more in the
    # bootstrap's look-ahead into the next match), seeing its own seat only
    shown = [(row, mask) for obs, masks in spy.seen for row, mask in zip(obs, masks)]
    assert 9 * m <= len(shown) <= 9 * m + 3 * m
    for row, mask in shown:
        decoded = decode_observation(row.astype(np.int8))
        assert decoded["to_act"] == 0
        assert sorted(decoded["hand"]) == np.flatnonzero(mask).tolist()


def test_partner_pool_draws_by_weight_and_spreads_snapshots():
    from training.league import PartnerPool
    pool = OpponentPool({"latest": 1.0}, {}, np.random.default_rng(0))
    fixed = {"heuristic": HeuristicPlayer(), "random": RandomPlayer(0)}
    partners = PartnerPool({"heuristic": 0.5, "random": 0.25, "snapshots": 0.25}, fixed, pool,
                           np.random.default_rng(0))
    # no snapshot yet: the others share the draw
    assert partners.probabilities() == pytest.approx([2 / 3, 1 / 3])
    pool.snapshots += [("s1", RandomPlayer(1)), ("s2", RandomPlayer(2))]
    names = [n for n, _ in partners.players()]
    p = dict(zip(names, partners.probabilities()))
    assert p == pytest.approx({"s1": 0.125, "s2": 0.125, "heuristic": 0.5, "random": 0.25})
    drawn = [n for n, _ in partners.draw(4000)]
    assert abs(drawn.count("heuristic") / 4000 - 0.5) < 0.04
    only_snaps = PartnerPool({"snapshots": 1.0}, {}, OpponentPool({"latest": 1.0}, {},
                             np.random.default_rng(0)), np.random.default_rng(0))
    with pytest.raises(ValueError, match="partner games need a partner"):
        only_snaps.draw(1)


@pytest.mark.parametrize("setting,words", [
    ("selfplay.partners={games: 0.2, weights: {latest: 1}}", "'latest' is the learner itself"),
    ("selfplay.partners={games: 0.2, weights: {latest:temperature=0: 1}}",
     "temperature must be a number from 0.001 to 100"),
    ("selfplay.partners={games: 1.0}", "'selfplay.partners.games'"),
    ("selfplay.partners={weights: {heuristic: -1}}", "finite weight >= 0"),
    ("selfplay.partners={weights: {nobody-here: 1}}", "unknown player"),
    ("selfplay.partners={weights: {ai: 1}}", "a run from scratch"),
    ("eval.partners=[random, random]", "named twice"),
    ("eval.partners=[nobody-here]", "unknown player"),
])
def test_partner_settings_are_checked_before_any_work(setting, words, tmp_path):
    with pytest.raises(ConfigError) as err:
        load_config(QUICK, [f"output_dir={tmp_path}", setting])
    assert words in str(err.value) and "\n" not in str(err.value)


def test_partner_games_need_sb3_and_count_one_learner_seat_each(tmp_path):
    from training.config import learner_seats, partner_games, selfplay_games
    with pytest.raises(ConfigError, match="'selfplay.partners' needs backend sb3"):
        load_config(QUICK, [f"output_dir={tmp_path}", "backend=rllib",
                            "selfplay.partners={games: 0.25}"])
    cfg = load_config(QUICK, [f"output_dir={tmp_path}", "selfplay.partners={games: 0.25}"])
    # quick.yaml: 48 games, opponents {latest: 1, snapshots: 1, random: 1}
    assert partner_games(cfg) == 12 and selfplay_games(cfg) == 12
    assert learner_seats(cfg) == 4 * 12 + 2 * 24 + 12


def test_a_partner_panel_in_the_eval_config_is_recorded_logged_and_plotted(tmp_path,
                                                                           monkeypatch):
    from aluette_env.evaluation import partner_eval
    from training.evaluate import evaluate_run
    from training.runs import open_run
    cfg = load_config(QUICK, [f"output_dir={tmp_path}", "eval.deals=4",
                              "eval.partners=[random, heuristic:version=1]",
                              "eval.partners_opponent=random", "eval.partners_deals=6"])
    run_dir, state = open_run(cfg, log=lambda line: None)
    drawn = curves_drawn(monkeypatch)
    scalars = {}
    record = evaluate_run(cfg, HeuristicPlayer(), state, run_dir, 100, 1.0, lambda: None,
                          scalars.__setitem__)
    expected = partner_eval(HeuristicPlayer(), ["random", "heuristic:version=1"],
                            opponent="random", deals=6, seed=cfg.eval.seed).to_json()
    assert record["partners"] == expected
    assert scalars["eval/partners_min_lift"] == expected["minimum"]["lift"]
    assert scalars["eval/partners_mean_lift"] == expected["mean_lift"]
    assert "eval/lift_beside_random" in scalars
    assert drawn[-1]["partner lift minimum"] == [expected["minimum"]["lift"]]
    assert drawn[-1]["partner lift mean"] == [expected["mean_lift"]]
