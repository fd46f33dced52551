"""Run folders (training/runs.py) under faults: SIGINT and SIGKILL at every
kind of file write, a run killed and resumed that is the run never killed,
resuming a finished run, a forced resume with other
opponents, damaged state.json rebuilt from the checkpoints, read-only runs,
starts that never trained. Runs configs/quick.yaml with tiny overrides
(conftest.TINY; conftest.sb3_run is such a run, finished); nothing here depends
on wall-clock speed."""

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from aluette_env.commands import main as cli_main
from conftest import QUICK, ROOT, TINY
from training.config import ConfigError, load_config
from training.sb3.checkpoints import load_model
from training.sb3.resume import read_from


@pytest.mark.slow
def test_sigint_saves_a_checkpoint_and_resume_continues_from_it(tmp_path, capsys):
    """``python -m training`` stopped by SIGINT inside model.learn saves a checkpoint
    and exits 0; a resume (here in this process) goes on from it."""
    sets = [a for o in TINY[:5] + [f"output_dir={tmp_path}", "checkpoint.interval=100000000",
                                   "eval.interval=100000000"]
            for a in ("--set", o)]  # small rollouts, a snapshot after each
    args = [sys.executable, "-m", "training", str(QUICK), *sets,
            "--set", "total_timesteps=100000000"]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    run = tmp_path / "quick"
    deadline = time.time() + 300
    # the first snapshot: a rollout done, well inside model.learn
    while not list((run / "pool").glob("snapshot_*")) and time.time() < deadline:
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert "stopped by signal" in out
    state = json.loads((run / "state.json").read_text())
    steps = state["timesteps"]
    assert steps > 0 and load_model(run / "latest.zip").num_timesteps == steps
    assert cli_main(["train", str(QUICK), *sets, "--set", f"total_timesteps={steps + 512}",
                     "--resume", str(run)]) == 0
    assert f"at {steps:,} samples" in capsys.readouterr().out
    assert json.loads((run / "state.json").read_text())["timesteps"] >= steps + 512


# ------------------------------------------------------------------ crash safety


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


def _warm_children(monkeypatch):
    """A multiprocessing context whose children fork from a server that trained a
    tiny run once (warm_sb3.py): a child reaches its first write in a fraction
    of a second."""
    import multiprocessing
    ctx = multiprocessing.get_context("forkserver")
    # The server is started with this environment. Python 3.11's forkserver does
    # not apply the parent's sys.path: PYTHONPATH finds this folder's modules.
    # GNU OpenMP (numba's default layer for the learner's gather) is not
    # fork-safe once used: the warm run uses numba's workqueue layer instead.
    paths = [str(ROOT), str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))
    monkeypatch.setenv("NUMBA_THREADING_LAYER", "workqueue")
    ctx.set_forkserver_preload(["training.sb3.train", "test_runs", "warm_sb3"])
    return ctx


@pytest.mark.slow
def test_sigkill_at_every_kind_of_write_and_at_random_times_always_resumes(tmp_path,
                                                                          monkeypatch):
    """SIGKILL a training process at each kind of file write and deletion, and at
    random moments, resuming the same run folder every time; it must resume
    each time and end consistent. Children fork from a server that trained a
    tiny run once (warm_sb3.py), so each round costs a fraction of a second, not
    a fresh interpreter and three seconds of first-run loading."""
    ctx = _warm_children(monkeypatch)
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
    for after in rng.uniform(0.2, 1.5, size=3):  # a warm child writes often
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


@pytest.mark.slow
def test_a_run_killed_twice_and_resumed_writes_the_metrics_of_the_run_never_killed(
        tmp_path, monkeypatch):
    """A resume is the same run: SIGKILLed in the middle of a checkpoint, then
    again just before its next one, and resumed each time, a run with league
    games (snapshots, ``random``) and partner games (the careless policy, a
    snapshot, ``random``) writes the evaluations of the run never stopped and
    ends with its weights. What differs is wall-clock time only."""
    ctx = _warm_children(monkeypatch)
    # 144 samples a rollout; a snapshot after each, the pool keeping one: a match
    # still plays the snapshot the pool let go when a checkpoint is taken.
    sizes = TINY + ["total_timesteps=1152", "eval.deals=16", "ppo.batch_size=72",
                    "eval.interval=288", "checkpoint.interval=288",
                    "selfplay.snapshot_interval=144", "selfplay.pool_size=1",
                    "selfplay.opponents={latest: 1, snapshots: 1, random: 1}",
                    "selfplay.partners={games: 0.25, weights: {'latest:temperature=2': 1, "
                    "snapshots: 1, random: 1}}"]

    def train(folder: Path, target: str = "", nth: int = 1) -> None:
        report = folder.parent / f"{folder.parent.name}.txt"
        folder.mkdir(parents=True, exist_ok=True)
        proc = ctx.Process(target=_train_until_killed,
                           args=(folder / "quick", sizes + [f"output_dir={folder}"], target, nth,
                                 report))
        proc.start()
        proc.join(300)
        text = report.read_text() if report.exists() else ""
        assert proc.exitcode == (-signal.SIGKILL if target else 0), text
        assert "Traceback" not in text, text

    never, killed = tmp_path / "never" / "runs", tmp_path / "killed" / "runs"
    train(never)
    train(killed, "state.json", 3)  # the second checkpoint's model written, not committed
    train(killed, "latest.zip", 2)  # resumed at the first; killed after its second commit
    train(killed)

    def metrics(folder: Path) -> list[dict]:
        lines = (folder / "quick" / "metrics.jsonl").read_text().splitlines()
        return [{k: v for k, v in json.loads(line).items()
                 if k not in ("wall_time_s", "eval_seconds")} for line in lines]

    log = (tmp_path / "killed" / "killed.txt").read_text()
    assert "at 288 samples" in log and "at 864 samples" in log and "afresh" not in log
    saved = np.load(io.BytesIO(read_from(killed / "quick" / "checkpoint_864.zip")))
    assert json.loads(str(saved["meta"]))["let_go"]  # resumed with a snapshot let go
    assert len(metrics(never)) == 4 and metrics(killed) == metrics(never)
    ours, theirs = (load_model(f / "quick" / "latest.zip").policy.state_dict()
                    for f in (killed, never))
    assert all(torch.equal(ours[k], theirs[k]) for k in theirs)


# ------------------------------------------- resume faults (one tiny run, copied)


def _copy_run(run: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    """A copy of the finished run ``run`` (conftest.sb3_run), and the command line
    that resumes the copy with the run's own settings."""
    import shutil
    copy = tmp_path / "quick"
    shutil.copytree(run, copy)
    base = [a for o in TINY + [f"output_dir={run.parent}"] for a in ("--set", o)]
    return copy, ["train", str(QUICK), *base, "--resume", str(copy)]


def test_a_checkpoint_without_its_random_states_or_with_other_games_still_resumes(
        sb3_run, tmp_path, capsys):
    """A checkpoint saved before it kept the run's random states resumes from fresh
    ones, saying nothing; one whose games a forced resume changed (more games)
    says so in one line and starts them afresh. Both train on."""
    import zipfile
    run, resume = _copy_run(sb3_run, tmp_path)
    name = json.loads((run / "state.json").read_text())["checkpoint"]
    with zipfile.ZipFile(run / name) as old, zipfile.ZipFile(run / "old.zip", "w") as new:
        for item in old.infolist():
            if item.filename != "aluette_resume.npz":
                new.writestr(item, old.read(item))
    (run / "old.zip").replace(run / name)
    assert read_from(run / name) is None
    assert cli_main([*resume, "--set", "total_timesteps=768"]) == 0
    out = capsys.readouterr().out
    assert "resuming" in out and "afresh" not in out and "done: 768 samples" in out
    assert read_from(run / "latest.zip") is not None
    assert cli_main([*resume, "--set", "total_timesteps=1024", "--set", "num_games=8",
                     "--force"]) == 0
    out = capsys.readouterr().out
    assert "its random states and games do not fit this run (the saved state has shape (4,), " \
        "this run's (8,)); they start afresh" in out
    assert json.loads((run / "state.json").read_text())["timesteps"] >= 1024


def test_resuming_a_finished_run_says_so_and_a_larger_total_continues_it(sb3_run, tmp_path,
                                                                        capsys):
    run, resume = _copy_run(sb3_run, tmp_path)

    def train(*args: str) -> str:
        assert cli_main([*resume, *args]) == 0
        return capsys.readouterr().out

    assert f"{run} is finished at 512 samples" in train("--set", "total_timesteps=512")
    more = train("--set", "total_timesteps=1024")
    assert "resuming" in more and "done: 1,024 samples" in more
    # The checkpoint state.json names is gone (and latest.zip with it): resume falls
    # back to the newest one that can be read, and says so.
    (run / "checkpoint_1024.zip").unlink()
    (run / "latest.zip").write_bytes(b"PK\x03\x04 truncated")
    back = train("--set", "total_timesteps=1024")
    assert "falling back to checkpoint_512.zip (512 samples)" in back
    assert json.loads((run / "state.json").read_text())["timesteps"] == 1024


def test_forced_resume_with_other_eval_opponents_compares_best_like_with_like(sb3_run, tmp_path,
                                                                             capsys):
    run, resume = _copy_run(sb3_run, tmp_path)
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
def test_a_damaged_state_json_is_rebuilt_from_the_checkpoints(sb3_run, tmp_path, capsys, damage):
    run, resume = _copy_run(sb3_run, tmp_path)
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


@pytest.mark.parametrize("league, words", [
    ({"heuristic": [1e308, 1.0]}, "row 'heuristic' is [1e+308, 1]: wins must be from 0 to deals"),
    ({"heuristic": [500, 1]}, "row 'heuristic' is [500, 1]: wins must be from 0 to deals"),
    ({"heuristic": [-1, 2]}, "row 'heuristic' is [-1, 2]: wins must be from 0 to deals"),
    ({"random": [1, 2], "latest": [1, 2]}, "row 'latest': not a league opponent"),
    ({"snapshots": [0, 0]}, "row 'snapshots': not a league opponent"),
    ({"": [0, 0]}, "row '': not a league opponent"),
    ({"heuristic": [float("nan"), 1]}, "row 'heuristic' is [nan, 1]: expected [wins, deals]"),
    ({"heuristic": [10 ** 400, 10 ** 400]}, "row 'heuristic' is [1000"),
    ({"heuristic": [1, 2, 3]}, "row 'heuristic' is [1, 2, 3]: expected [wins, deals]"),
    ({"heuristic": [True, 2]}, "row 'heuristic' is [True, 2]: expected [wins, deals]"),
    (["heuristic", 1, 2], "must map opponents to [wins, deals], got list"),
])
def test_a_league_table_out_of_range_is_refused_in_one_line_naming_its_row(tmp_path, league,
                                                                           words):
    """The PFSP table is checked as the other fields of state.json;
    a table :meth:`WinRates.record` can write passes."""
    from training.runs import CheckpointError, new_state, read_state
    state = new_state()
    (tmp_path / "state.json").write_text(json.dumps({**state, "league": league}))
    with pytest.raises(CheckpointError) as err:
        read_state(tmp_path)
    assert f"state.json: corrupt, 'league' {words}" in str(err.value)
    assert "\n" not in str(err.value)
    good = {"heuristic": [2.5, 2.5], "snapshot_256.pt": [0, 0], "random": [0.5, 7]}
    (tmp_path / "state.json").write_text(json.dumps({**state, "league": good}))
    assert read_state(tmp_path)["league"] == good


def test_a_resume_rebuilds_a_state_json_whose_league_table_is_out_of_range(sb3_run, tmp_path,
                                                                         capsys):
    """As any damaged state.json: rebuilt from the newest checkpoint with a line
    naming the row (the table starts afresh), never carried on (win rates above 1,
    an OverflowError in the priorities)."""
    run, resume = _copy_run(sb3_run, tmp_path)
    before = json.loads((run / "state.json").read_text())
    (run / "state.json").write_text(json.dumps({**before, "league": {"heuristic": [1e308, 1]}}))
    assert cli_main([*resume, "--set", "total_timesteps=512"]) == 0
    out = capsys.readouterr().out
    assert "corrupt, 'league' row 'heuristic' is [1e+308, 1]: wins must be from 0 to deals; " \
           "rebuilt it from checkpoint_512.zip (512 samples)" in out
    after = json.loads((run / "state.json").read_text())
    assert "league" not in after
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
def test_resuming_a_read_only_run_is_refused_before_any_training(sb3_run, tmp_path, capsys,
                                                                folder):
    run, resume = _copy_run(sb3_run, tmp_path)
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
    from training.rllib.checkpoints import rllib_checkpoints
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
    _, state = open_run(cfg, resume=run, find_checkpoints=rllib_checkpoints)
    assert "rebuilt it from rllib/checkpoint_8192 (8,192 samples)" in capsys.readouterr().out
    assert (state["timesteps"], state["checkpoint"], state["backend"]) == \
        (8192, "rllib/checkpoint_8192", "rllib")
    assert json.loads((run / "state.json").read_text()) == state


def test_a_folder_where_a_file_is_written_is_refused_in_one_line_and_left_whole(
        tmp_path, capsys):
    """An atomic write (every file of runs, data sets, exports, recipes) meets a
    folder at its file's name: IsADirectoryError naming that name, before any work,
    the folder untouched and no temporary file left; the command says it in one
    line, as any error the system gives (exit 1)."""
    from aluette_env.commands import main as cli_main
    from training.atomic import write_json
    folder = tmp_path / "state.json"
    folder.mkdir()
    (folder / "kept").write_text("x")
    with pytest.raises(IsADirectoryError, match="a folder is where this file is written") as err:
        write_json(folder, {"timesteps": 0})
    assert err.value.filename == str(folder)
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]
    assert (folder / "kept").read_text() == "x"
    # A data set whose shard is now a folder: labelled again, its write is one line.
    out = tmp_path / "data"
    sets = ["data.shards=1", "data.positions_per_shard=2", "data.games_per_shard=1",
            "data.num_deals=1", "data.worlds=2", "data.workers=1"]
    argv = ["expert-data", "configs/history/expert_iteration.yaml", "--out", str(out),
            "--policy", "ai:version=2", *[a for s in sets for a in ("--set", s)]]
    assert cli_main(argv) == 0
    (out / "shard-00000.npz").unlink()
    (out / "shard-00000.npz").mkdir()
    capsys.readouterr()
    code = cli_main(argv)
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(lines) == 1, lines
    assert lines[0] == (f"aluette: error: {out / 'shard-00000.npz'}: a folder is where this "
                        f"file is written; move it away")
    assert (out / "shard-00000.npz").is_dir() and not list(out.glob(".*"))
