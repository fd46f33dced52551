"""The ``aluette`` command line: eval (one opponent or the panel), league and bad input
(exit 2, one line)."""

import json

import pytest

from aluette_env.commands import main


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


def test_league_prints_ratings(capsys, tmp_path):
    out = tmp_path / "league.json"
    assert main(["league", "heuristic", "random", "random:seed=1", "--deals", "40",
                 "--quiet", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "rating" in text and "heuristic" in text
    rows = json.loads(out.read_text())["players"]
    assert rows[0]["player"] == "heuristic"


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
    (["league", "heuristic"], "at least two"),
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
    (["eval", "--team-a", "ai:version=5", "--panel", "--panel-members", "ai,heuristic",
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
    assert set(sub.choices) >= {"eval", "league", "play", "train", "export"}
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


def test_league_help_states_the_default_deal_count(capsys):
    with pytest.raises(SystemExit):
        main(["league", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "deal pairs per pairing, 1 to 1,000,000 (default: 1000)" in out


@pytest.mark.parametrize("command,budget", [
    ("eval", "deal pairs, 1 to 1,000,000"),
    ("league", "deal pairs per pairing, 1 to 1,000,000"),
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
    """Every subcommand, eval and league included, is a :class:`Command` of
    :mod:`aluette_env.commands`, the documented plugin API, registered as an entry
    point; the console script is that module's runner."""
    from importlib import metadata

    from aluette_env import commands
    names = set()
    for ep in metadata.entry_points(group="aluette.commands"):
        assert isinstance(ep.load(), commands.Command), ep.name
        names.add(ep.name)
    assert {"eval", "league", "play", "review", "train"} <= names
    script = next(ep for ep in metadata.entry_points(group="console_scripts")
                  if ep.name == "aluette")
    assert script.load() is commands.main
