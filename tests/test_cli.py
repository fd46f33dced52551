"""The ``aluette`` command line: eval (one opponent or the panel), ratings and bad input
(exit 2, one line)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from aluette_env.commands import main
from conftest import descendants
from web_helpers import HTTP, free_port

ROOT = Path(__file__).resolve().parents[1]


def test_eval_writes_exactly_the_json_keys(tmp_path, capsys):
    out = tmp_path / "res.json"
    assert main(["eval", "--team-a", "heuristic", "--team-b", "random", "--deals", "50",
                 "--seed", "0", "--json", str(out), "--quiet"]) == 0
    data = json.loads(out.read_text())
    assert list(data) == ["team_a", "team_b", "deals", "seed", "points_per_deal",
                          "points_per_deal_ci95", "deal_win_rate", "match_win_rate",
                          "match_draw_rate", "match_loss_rate", "mordienne_rate", "spoiled_rate"]
    assert data["deals"] == 50 and data["team_a"] == "heuristic"
    assert "points per deal" in capsys.readouterr().out


def test_eval_panel_prints_each_member_the_minimum_and_the_mean(tmp_path, capsys):
    from aluette_env.evaluation import panel_eval
    out = tmp_path / "panel.json"
    assert main(["eval", "--team-a", "heuristic", "--panel", "--panel-members",
                 "heuristic:version=1,ai:version=1", "--member-deals", "ai:version=1=6",
                 "--deals", "12", "--seed", "4", "--json", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    expected = panel_eval("heuristic", ["heuristic:version=1", "ai:version=1"], deals=12, seed=4,
                          deals_for={"ai:version=1": 6})
    assert json.loads(out.read_text()) == json.loads(json.dumps(expected.to_json()))
    for words in ("heuristic:version=1", f"min: {expected.minimum.member}", "mean",
                  f"{expected.mean:+.4f}", "fewer pairs"):
        assert words in text


def test_ratings_prints_ratings(capsys, tmp_path):
    out = tmp_path / "ratings.json"
    assert main(["ratings", "heuristic", "random", "random:seed=1", "--deals", "40",
                 "--quiet", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "rating" in text and "heuristic" in text
    rows = json.loads(out.read_text())["players"]
    assert rows[0]["player"] == "heuristic"


def test_league_the_old_name_of_ratings_still_runs_it_and_is_not_listed(capsys, tmp_path):
    out = {name: tmp_path / f"{name}.json" for name in ("ratings", "league")}
    for name, path in out.items():
        assert main([name, "heuristic", "random", "--deals", "10", "--quiet",
                     "--json", str(path)]) == 0
    assert out["league"].read_text() == out["ratings"].read_text()
    with pytest.raises(SystemExit):
        main(["--help"])
    listed = capsys.readouterr().out
    assert "ratings" in listed and "league" not in listed


@pytest.mark.parametrize("args,message", [
    (["eval", "--team-a", "nobody", "--team-b", "random"], "unknown player 'nobody'"),
    (["eval", "--team-a", "heuristic", "--team-b", "random", "--deals", "0"], "--deals"),
    (["eval", "--team-a", "heuristic", "--team-b", "random", "--deals", "x"], "--deals"),
    (["eval", "--team-a", "missing/model.onnx", "--team-b", "random"],
     "missing/model.onnx: no such model file"),
    (["eval", "--team-a", "heuristic", "--team-b", "random", "--seat", "player_2=random",
      "--seat", "player_2=heuristic"], "player_2 is named twice"),
    (["eval", "--team-a", "heuristic", "--team-b", "random", "--seat", "player_9=random"],
     "player_K=SPEC"),
    (["ratings", "heuristic"], "at least two"),
    (["eval", "--team-b", "random"], "--team-a"),
    (["eval", "--team-a", "heuristic"], "one of the arguments --team-b --panel is required"),
    (["eval", "--team-a", "heuristic", "--team-b", "random", "--panel"], "not allowed with"),
    (["eval", "--team-a", "heuristic", "--panel", "--panel-members", "heuristic,random"],
     "--panel-members: unknown panel member 'random'; the panel: heuristic"),
    (["eval", "--team-a", "heuristic", "--panel", "--panel-members", "ai,ai"],
     "--panel-members: panel member 'ai' is named twice"),
    (["eval", "--team-a", "heuristic", "--panel", "--panel-members", ","],
     "--panel-members: an empty panel"),
    (["eval", "--team-a", "heuristic", "--panel", "--panel-members", "ai",
      "--member-deals", "heuristic=5"], "--member-deals: deal pairs for 'heuristic'"),
    (["eval", "--team-a", "heuristic", "--panel", "--panel-members", "heuristic", "--deals", "3"],
     "--panel-members: the panel (heuristic) holds only the player itself"),
    (["eval", "--team-a", "ai:version=7", "--panel", "--panel-members", "ai,heuristic",
      "--member-deals", "ai=5"], "--member-deals: deal pairs for 'ai', which is the player itself"),
    (["eval", "--team-a", "heuristic", "--panel", "--member-deals", "pimc:worlds=64=0"],
     "--member-deals pimc:worlds=64=0: must be from 1"),
    (["eval", "--team-a", "heuristic", "--team-b", "random", "--panel-members", "ai"],
     "--panel-members: only with --panel"),
    (["eval", "--team-a", "heuristic", "--panel", "--seat", "player_2=random"],
     "--seat: not with --panel"),
    (["eval", "--team-a", "nobody", "--panel"], "unknown player 'nobody'"),
])
def test_bad_input_is_one_line_and_exit_code_2(args, message, capsys):
    """In this process: ``python -m aluette_env`` is ``sys.exit(main())``."""
    try:
        code = main(args)
    except SystemExit as stop:  # what the console script would exit with
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], err
    assert "Traceback" not in err


def test_every_option_of_every_command_has_help_with_its_default():
    import argparse

    from aluette_env.commands import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) >= {"eval", "ratings", "league", "play", "train", "export"}
    for name, p in sub.choices.items():
        text = " ".join(p.format_help().split())
        for action in p._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"{name} {action.dest}: no help text"
            if not action.option_strings:
                continue  # positionals have no default
            shown = p._get_formatter()._expand_help(action)  # the help as --help prints it
            assert "default" in shown or "required" in shown, f"{name} {action.option_strings}"
        assert "%(default)" not in text


def test_a_command_loads_only_its_own_entry_point():
    """``aluette eval`` builds its own subcommand only: no other command's module
    (the web server's, the trainer's configs) is imported to run it; ``aluette``'s
    own help and an unknown name still list every command."""
    code = ("import sys\n"
            "from aluette_env.commands import build_parser, run_command\n"
            "assert run_command(['eval', '--team-a', 'heuristic', '--team-b', 'random',\n"
            "                    '--deals', '2', '--quiet']) == 0\n"
            "print(sorted(m for m in ('aluette_env.apps.web', 'aluette_env.apps.terminal',\n"
            "                         'training.config', 'training.export') if m in sys.modules))\n"
            "import argparse\n"
            "def choices(parser):\n"
            "    return next(a.choices for a in parser._actions\n"
            "                if isinstance(a, argparse._SubParsersAction))\n"
            "print(sorted(choices(build_parser('eval'))), len(choices(build_parser('nope'))))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, check=True)
    loaded, only = proc.stdout.strip().splitlines()[-2:]
    assert loaded == "[]", loaded
    assert only.startswith("['eval'] ") and int(only.split()[-1]) >= 10, only


def test_ratings_help_states_the_default_deal_count(capsys):
    with pytest.raises(SystemExit):
        main(["ratings", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "deal pairs per pairing, 1 to 1,000,000 (default: 1000)" in out


@pytest.mark.parametrize("command,budget", [
    ("eval", "deal pairs, 1 to 1,000,000"),
    ("ratings", "deal pairs per pairing, 1 to 1,000,000"),
    ("train", "total_timesteps is 1 to 10,000,000,000 learner samples"),
    ("exploit", "learner samples to train on, 1 to 10,000,000,000"),
    ("exploit", "final evaluation, 1 to 1,000,000"),
    ("export", "check against the trained policy, 1 to 100,000"),
])
def test_every_budget_states_its_upper_bound_in_help(command, budget, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert budget in " ".join(capsys.readouterr().out.split())


def test_plugins_use_the_public_command_api():
    """Every subcommand, eval and ratings included, is a :class:`Command` of
    :mod:`aluette_env.commands`, the documented plugin API, registered as an entry
    point; the console script is that module's runner."""
    from importlib import metadata

    from aluette_env import commands
    names = set()
    for ep in metadata.entry_points(group="aluette.commands"):
        assert isinstance(ep.load(), commands.Command), ep.name
        names.add(ep.name)
    assert {"eval", "ratings", "league", "play", "review", "train"} <= names
    script = next(ep for ep in metadata.entry_points(group="console_scripts")
                  if ep.name == "aluette")
    assert script.load() is commands.main


# ------------------------------------------------------- stopping: Ctrl-C and SIGTERM

EVAL_IN_PROCESSES = ["eval", "--team-a", "pimc", "--team-b", "heuristic", "--deals", "2000",
                     "--jobs", "2", "--quiet"]


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _working(pid: int, seconds: float) -> int:
    """How many child processes of ``pid`` have used ``seconds`` of CPU (Linux /proc)."""
    n = 0
    for child in descendants(pid):
        try:
            with open(f"/proc/{child}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        n += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") >= seconds
    return n


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads Linux /proc")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("command", ["eval --jobs 2", "serve"])
@pytest.mark.slow
def test_a_stop_sent_to_the_whole_process_group_ends_every_command_at_once_in_one_line(
        command, sig, tmp_path):
    """Ctrl-C in a terminal (SIGINT to the process group: the command and its
    worker processes) or SIGTERM to the group: the command exits at once, with
    one line, no traceback from it or a worker, no worker finishing its share
    (an evaluation's slices take tens of seconds here), no semaphore reported
    leaked, and no process of the group left behind."""
    port = free_port()
    argv, children, working = {
        # The parent, multiprocessing's resource tracker and the two workers, both
        # in their slices (a second of CPU each: imports take a third of that).
        "eval --jobs 2": (EVAL_IN_PROCESSES, 3, 2),
        # The server answering, with the tracker and the coach's hint worker
        # (warmed up at start).
        "serve": (["serve", "--host", "127.0.0.1", "--port", str(port),
                   "--db", f"sqlite:///{tmp_path / 'games.db'}"], 2, 0),
    }[command]

    def ready() -> bool:
        if len(descendants(proc.pid)) < children or _working(proc.pid, 1.0) < working:
            return False
        if command != "serve":
            return True
        try:
            return HTTP.get(f"http://127.0.0.1:{port}/api/server", timeout=5).is_success
        except httpx.TransportError:
            return False
    # Its own group, as a terminal's job, with Ctrl-C's default action even where
    # pytest runs in a background job (whose shell ignores SIGINT).
    proc = subprocess.Popen([sys.executable, "-m", "aluette_env", *argv], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_default_sigint)
    try:
        deadline = time.monotonic() + 120
        while not ready():
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.05)
        os.killpg(proc.pid, sig)
        sent = time.monotonic()
        err = proc.communicate(timeout=120)[1]
        seconds = time.monotonic() - sent
        while time.monotonic() < deadline:  # the group's last processes end
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            pytest.fail("a process of the stopped command's group is still there")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    word = "interrupted" if sig == signal.SIGINT else "terminated"
    assert err.strip() == word, err[-3000:]  # no Traceback, no "leaked semaphore"
    assert proc.returncode in (128 + sig, -sig)
    assert seconds < 10, f"{seconds:.1f} s to stop"
