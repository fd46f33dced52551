"""Every public entry point against bad input, one row per input.

Each row names an input and what must come back: for the command line, exit
code 2 and one line on stderr; for the Python API, the exception type. In
both cases the message must name the culprit (the argument, option, key path
or file) so a person can fix it without reading a traceback. Paths in rows
use ``{tmp}`` (a scratch folder with the fixtures below) and ``{quick}``
(configs/quick.yaml).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import aluette_env
from aluette_env.commands import run_command as main
from aluette_env.game.cards import card_name
from aluette_env.observation import OBS_SIZE, OBS_LAYOUT
from aluette_env.players import PlayerSpecError, load_player
from aluette_env.vector import VectorGame
from conftest import model_with_weight
from training.config import ConfigError, load_config, to_yaml
from training.runs import new_state

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "configs" / "quick.yaml"
LOOP = ROOT / "configs" / "history" / "expert_iteration.yaml"
LONG = "a" * 5000
HANDS = [list(range(9 * k, 9 * k + 9)) for k in range(4)]


def _onnx_model(path: Path, obs_name="observation", obs_size=OBS_SIZE, version=str(OBS_LAYOUT)):
    """A stand-in policy (logits = the mask) with chosen input names, sizes, metadata."""
    import onnx
    from onnx import TensorProto, helper
    obs = helper.make_tensor_value_info(obs_name, TensorProto.FLOAT, ["batch", obs_size])
    mask = helper.make_tensor_value_info("action_mask", TensorProto.FLOAT, ["batch", 48])
    logits = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 48])
    graph = helper.make_graph([helper.make_node("Identity", ["action_mask"], ["logits"])],
                              "policy", [obs, mask], [logits])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    for k, v in {"obs_layout": version, "obs_size": str(OBS_SIZE), "num_actions": "48"}.items():
        model.metadata_props.add(key=k, value=v)
    onnx.save(model, str(path))


@pytest.fixture(scope="module")
def tmp(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("bad")
    (d / "empty.yaml").write_text("")
    (d / "comments.yaml").write_text("# nothing but a comment\n")
    (d / "a_file").write_text("x")
    (d / "latin1.yaml").write_bytes(b"run_name: caf\xe9\n")
    (d / "braces.yaml").write_text("{}\n")
    (d / "twice.yaml").write_text("run_name: a\nppo:\n  n_steps: 8\n  n_steps: 16\n")
    never_trained = json.dumps(new_state())
    rllib_state = json.dumps({**new_state(), "timesteps": 8, "checkpoint": "rllib/checkpoint_8",
                              "backend": "rllib"})
    runs = {
        "empty_state": ("{}", "run_name: quick\n"),
        "list_state": ("[]", "run_name: quick\n"),
        "truncated_state": ('{"timesteps": 1', "run_name: quick\n"),
        "bad_steps": ('{"timesteps": -3, "wall_time_s": 0, "best": null, "snapshots": [], '
                      '"evals": []}', "run_name: quick\n"),
        "empty_config": (json.dumps({"timesteps": 0, "wall_time_s": 0, "best": None,
                                     "snapshots": [], "evals": []}), ""),
        # Real configs: a run of quick.yaml and one of rllib_quick.yaml, nothing trained.
        "quick_run": (never_trained, to_yaml(load_config(QUICK))),
        "rllib_run": (rllib_state, to_yaml(load_config(ROOT / "configs" / "rllib_quick.yaml"))),
        "latin1_run": (never_trained, "run_name: caf\xe9\n"),
    }
    for name, (state, config) in runs.items():
        run = d / name
        run.mkdir()
        (run / "state.json").write_text(state)
        (run / "config.yaml").write_bytes(config.encode("latin-1"))
    _onnx_model(d / "bad_version.onnx", version="abc")
    _onnx_model(d / "bad_shape.onnx", obs_size=10)
    _onnx_model(d / "bad_names.onnx", obs_name="obs")
    (d / "garbage.onnx").write_bytes(b"not a model")
    # obs_layout as int() would read it (another script's digits, spaces, a leading 0),
    # not as export writes it: refused.
    _onnx_model(d / "arabic_version.onnx", version="\u0662")
    _onnx_model(d / "spaced_version.onnx", version=" 2 ")
    _onnx_model(d / "padded_version.onnx", version="02")
    # A shipped model with a NaN (or infinite) weight.
    from aluette_env.players.onnx_policy import SHIPPED_MODEL
    model_with_weight(SHIPPED_MODEL, d / "nan_weights.onnx", float("nan"))
    model_with_weight(SHIPPED_MODEL, d / "inf_weights.onnx", float("inf"),
                      "policy.mlp_extractor.policy_net.0.bias")
    return d


# --------------------------------------------------------------------- command line

EVAL = ["eval", "--team-a", "heuristic", "--team-b", "random", "--quiet"]
CLI_ROWS = [
    (["eval", "--team-a", "heuristic"], "--team-b"),
    (EVAL + ["--seed", "-5"], "--seed"),
    (EVAL + ["--seed", "4294967296"], "--seed"),
    (EVAL + ["--seed", "x"], "--seed"),
    (EVAL + ["--deals", "1000000000"], "--deals"),
    (EVAL + ["--deals", "0"], "--deals"),
    (EVAL + ["--deals", "1.5"], "--deals"),
    (EVAL + ["--jobs", "0"], "--jobs"),
    (EVAL + ["--jobs", "two"], "--jobs"),
    (EVAL + ["--jobs", "257"], "--jobs"),
    (EVAL + ["--json", "/nonexistent/dir/out.json"], "/nonexistent/dir"),
    (EVAL + ["--json", "{tmp}"], "--json"),
    (EVAL + ["--json", "{tmp}/a_file/out.json"], "a_file"),
    (EVAL + ["--seat", "player_9=random"], "player_9"),
    (EVAL + ["--seat", "player_2"], "player_2"),
    (EVAL + ["--seat", "player_2=random", "--seat", "player_2=heuristic"], "player_2"),
    # A bad player spec is refused naming the option it came from.
    (EVAL + ["--seat", "player_1=nobody"], "--seat player_1=: unknown player 'nobody'"),
    (["eval", "--team-a", "nobody", "--team-b", "random"], "--team-a: unknown player 'nobody'"),
    (EVAL + ["--partners", "random,nobody"], "--partners: unknown player 'nobody'"),
    (EVAL + ["--partners", "random", "--reference", "nobody"],
     "--reference: unknown player 'nobody'"),
    (["ratings", "random", "nobody"], "PLAYER: unknown player 'nobody'"),
    (["eval", "--team-a", "random:seed=-1", "--team-b", "random"], "seed"),
    (["eval", "--team-a", "{tmp}/garbage.onnx", "--team-b", "random"], "garbage.onnx"),
    (["ratings", "heuristic"], "at least two"),
    (["ratings", "random", "random"], "named twice"),
    (["ratings", "heuristic", "random", "--seed", "-5"], "--seed"),
    (["ratings", "heuristic", "random", "--deals", "2000000"], "--deals"),
    (["ratings", "heuristic", "random", "--json", "/nonexistent/x.json"], "/nonexistent"),
    (["ratings", "heuristic", "pimc:worlds=0"], "worlds"),
    (["play", "--seed", "-5"], "--seed"),
    (["play", "--delay", "-1"], "--delay"),
    (["play", "--delay", "inf"], "--delay"),
    (["play", "--lang", "xx"], "--lang"),
    (["play", "--left", "nobody"], "nobody"),
    (["play", "--partner", "ai:temperature=0"], "temperature"),
    (["nosuchcommand"], "nosuchcommand"),
    (["train", "{tmp}/missing.yaml"], "missing.yaml"),
    (["train", "{tmp}/empty.yaml"], "empty.yaml"),
    (["train", "{tmp}/comments.yaml"], "comments.yaml"),
    (["train", "{quick}", "--set", "eval.opponents=[]"], "eval.opponents"),
    (["train", "{quick}", "--set", "noequals"], "noequals"),
    (["train", "{quick}", "--set", "ppo.lr=1"], "ppo.lr"),
    (["train", "{quick}", "--resume", "{tmp}/no_such_run"], "no_such_run"),
    (["train", "{quick}", "--resume", "{tmp}/empty_state"], "timesteps"),
    (["train", "{quick}", "--resume", "{tmp}/list_state"], "list_state"),
    (["train", "{quick}", "--resume", "{tmp}/truncated_state"], "truncated"),
    (["train", "{quick}", "--resume", "{tmp}/bad_steps"], "timesteps"),
    (["train", "{quick}", "--resume", "{tmp}/empty_config"], "config.yaml"),
    (["export", "{tmp}/none.zip", "--out", "{tmp}/x.onnx"], "none.zip"),
    (["export", "{tmp}/none.zip", "--out", "{tmp}/x.txt"], ".onnx"),
    # Budgets have upper bounds, checked before any work.
    (["train", "{quick}", "--set", "total_timesteps=100000000000000000000"], "total_timesteps"),
    (["train", "{quick}", "--set", "total_timesteps=1.0e+20"], "total_timesteps"),
    (["train", "{quick}", "--set", "eval.deals=1000000000"], "eval.deals"),
    (["exploit", "random", "--timesteps", "100000000000000000000"], "--timesteps"),
    (["exploit", "random", "--deals", "1000000000"], "--deals"),
    (["exploit", "random", "--seed", "-1"], "--seed"),
    (["export", "{tmp}/none.zip", "--out", "{tmp}/x.onnx", "--verify", "1000000000"],
     "--verify"),
    # Files that are not what they claim, refused in one line.
    (["train", "{tmp}/latin1.yaml"], "latin1.yaml: not UTF-8"),
    (["train", "{tmp}/braces.yaml"], "braces.yaml: the config file is empty"),
    (["train", "{tmp}/twice.yaml"], "'n_steps' is given twice"),
    (["train", "{quick}", "--resume", "{tmp}/latin1_run"], "latin1_run/config.yaml: not UTF-8"),
    (["train", "{quick}", "--set", "network.warm_start={tmp}/bad_version.onnx"], "obs_layout"),
    (["train", "{quick}", "--set", "network.warm_start={tmp}"], "is a folder"),
    (["exploit", "random", "--warm-start", "{tmp}"], "is a folder"),
    # A model of another network is refused before the new run's folder is written.
    (["train", "{quick}", "--set", "network.warm_start={v1}"],
     "set network to the model's architecture"),
    (["exploit", "random", "--warm-start", "{tmp}/bad_version.onnx"], "obs_layout"),
    # A model whose logits are not finite never plays, nor starts a run.
    (["eval", "--team-a", "{tmp}/nan_weights.onnx", "--team-b", "heuristic"],
     "nan_weights.onnx: its logits are NaN or infinite on"),
    (["train", "{quick}", "--set", "network.warm_start={tmp}/nan_weights.onnx"],
     "'network.warm_start': {tmp}/nan_weights.onnx: its logits are NaN or infinite"),
    (["exploit", "random", "--warm-start", "{tmp}/inf_weights.onnx"],
     "inf_weights.onnx: its logits are NaN or infinite"),
    # A resume that cannot apply a setting refuses it, even forced, naming the key.
    (["train", "{quick}", "--resume", "{tmp}/quick_run", "--force", "--set",
      "network.trunk=[128]"], "network.trunk: [64] -> [128]"),
    (["train", "{quick}", "--resume", "{tmp}/quick_run", "--force", "--set",
      "pretrain.samples=1000"], "pretrain"),
    (["train", "{quick}", "--resume", "{tmp}/rllib_run", "--force"], "is a run of backend rllib"),
    # Export: a run with nothing trained, an --out that cannot be written (before any work).
    (["export", "{tmp}/rllib_run", "--out", "{tmp}/x.onnx"], "rllib_run: a run of backend rllib "
                                                              "with no trained model"),
    (["export", "{tmp}/quick_run", "--out", "{tmp}/x.onnx"], "no trained model"),
    (["export", "{tmp}/quick_run", "--out", "/nonexistent/dir/x.onnx"], "/nonexistent/dir"),
    (["export", "{tmp}/quick_run", "--out", "{tmp}/a_file/x.onnx"], "a_file"),
    # A spec too long for a file name is a bad spec, not an OSError.
    (["eval", "--team-a", LONG, "--team-b", "random"], "5000 characters"),
    (["eval", "--team-a", "random", "--team-b", "/tmp/" + "b" * 300 + ".onnx"],
     "File name too long"),
    (["ratings", LONG, "random"], "5000 characters"),
    (["play", "--left", LONG], "5000 characters"),
    (["serve", "--partner", LONG, "--port", "0"], "5000 characters"),
    (["expert-data", "{ei}", "--out", "{tmp}/ed", "--policy", LONG], "5000 characters"),
    # expert-data's --out is checked before any work.
    (["expert-data", "{ei}", "--out", "{tmp}/a_file"], "a_file"),
    (["expert-data", "{ei}", "--out", "/proc/ed"], "/proc/ed"),
    (["expert-data", "{ei}", "--out", ""], "--out"),
    (["expert-data", "{ei}", "--out", "{tmp}/quick_run"], "quick_run"),
    # The data set's size is bounded.
    (["expert-data", "{ei}", "--out", "{tmp}/ed", "--set", "data.shards=1000000000000"],
     "data.shards"),
    # The whole expert-iteration config is checked before any work.
    (["expert-iteration", "{ei}", "--set", "output_dir={tmp}/loop", "--set",
      "eval.opponents=[zzz]"], "eval.opponents[0]"),
    (["expert-iteration", "{ei}", "--set", "output_dir={tmp}/loop", "--set",
      "eval.deals=100000000000"], "eval.deals"),
    (["expert-iteration", "{ei}", "--set", "output_dir={tmp}/loop", "--set", "network.trunk=[]"],
     "network.trunk"),
    (["expert-iteration", "{ei}", "--set", "output_dir={tmp}/loop", "--set",
      "network.trunk=[0]"], "network.trunk"),
    (["expert-iteration", "{ei}", "--set", "output_dir={tmp}/loop", "--set",
      "torch_threads=10000"], "torch_threads"),
    (["expert-iteration", "{ei}", "--set", "output_dir={tmp}/loop", "--set",
      "distill.learning_rate=.inf"], "distill.learning_rate"),
    (["expert-iteration", "{ei}", "--set", "output_dir={tmp}/loop", "--set",
      "distill.epochs=1000000000"], "distill.epochs"),
    (["expert-iteration", "{ei}", "--set", "output_dir={tmp}/loop", "--set", "run_name=.."],
     "run_name"),
    # Each error names the real culprit.
    (EVAL + ["--json", ""], "an empty path"),
    (EVAL + ["--json", "/proc/x.json"], "/proc/x.json"),
    (["expert-iteration", "{ei}", "--set", "output_dir={tmp}/loop", "--set", "foo=1"],
     "allowed here: run_name"),
    (["expert-data", "{ei}", "--out", "{tmp}/ed", "--set", "data.seed=1180591620717411303424"],
     "'data.seed'"),
    (["export", "{tmp}/" + "c" * 300 + ".zip", "--out", "{tmp}/x.onnx"], "checkpoint"),
    # An output never overwrites an input.
    (EVAL[:2] + ["{tmp}/bad_names.onnx"] + EVAL[3:] + ["--json", "{tmp}/bad_names.onnx"],
     "input"),
]


@pytest.mark.parametrize("argv,culprit", CLI_ROWS, ids=[" ".join(a) for a, _ in CLI_ROWS])
def test_command_line_bad_input_is_one_line_exit_2(argv, culprit, tmp, capsys):
    fill = {"tmp": str(tmp), "quick": str(QUICK), "ei": str(LOOP),
            "v1": str(ROOT / "checkpoints" / "aluette-ppo-v1.onnx")}
    argv = [a.format(**fill) for a in argv]
    culprit = culprit.format(**fill)
    quick_folder = Path("checkpoints") / "quick"  # where {quick} writes a new run
    had_quick = quick_folder.exists()
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert culprit in lines[0] and "Traceback" not in captured.err
    assert not (tmp / "x.onnx").exists() and not Path("/nonexistent").exists()
    # Nothing was written before the refusal: no data set, no loop run, inputs intact.
    assert not (tmp / "ed").exists() and not (tmp / "loop").exists()
    assert quick_folder.exists() == had_quick
    assert (tmp / "bad_names.onnx").read_bytes()[:2] != b"{\n"
    assert json.loads((tmp / "quick_run" / "state.json").read_text()) == new_state()
    assert "trunk:\n  - 64\n" in (tmp / "quick_run" / "config.yaml").read_text()


def test_bare_command_prints_usage_and_version_prints_version(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: aluette") and "eval" in err and "train" in err
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"aluette {aluette_env.__version__}"


# ------------------------------------------------------------------------ Python API

def _raw(**kw):
    return aluette_env.raw_env(**kw)


def _reset(options=None, seed=None):
    def go():
        e = aluette_env.raw_env()
        e.reset(seed=seed, options=options)
    return go


def _step(action, wrapped=False):
    def go():
        e = aluette_env.env() if wrapped else aluette_env.raw_env()
        e.reset(seed=0)
        e.step(action)
    return go


def _vector(make, options=None, actions=None, active=None, reset=True):
    def go():
        g = make()
        if reset:
            g.reset(seed=0, options=options)
        if actions is not None or not reset:
            acts = np.zeros(g.num_games, np.int64) if actions is None else actions
            g.step(acts, active=active)
    return go


def _after_the_match(then):
    def go():
        e = aluette_env.env(num_deals=1)
        e.reset(seed=0)
        for _ in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        then(e)
    return go


def _observe(agent):
    def go():
        e = aluette_env.raw_env()
        e.reset(seed=0)
        e.observe(agent)
    return go


def _config(*overrides, path=None):
    def load(tmp):
        def fill(text):
            return text.replace("{tmp}", str(tmp))
        return load_config(fill(path) if path else QUICK, [fill(o) for o in overrides])
    return load


API_ROWS = [
    # A player's reset takes the seeds its seed option takes, whatever the player.
    *((f"{spec} reset(seed={seed!r})", lambda spec=spec, seed=seed: load_player(spec).reset(
        seed=seed), ValueError, "seed must be None or an integer from 0")
      for spec in ("random", "heuristic", "ai") for seed in (-1, 2 ** 63, 1.5)),
    # env / raw_env
    ("num_deals=True", lambda: _raw(num_deals=True), ValueError, "num_deals"),
    ("num_deals=0", lambda: _raw(num_deals=0), ValueError, "num_deals"),
    ("num_deals=2.5", lambda: _raw(num_deals=2.5), ValueError, "num_deals"),
    ("render_mode", lambda: _raw(render_mode="rgb_array"), ValueError, "render_mode"),
    ("render_hands=5", lambda: _raw(render_hands=5), ValueError, "render_hands"),
    ("render_hands player_9", lambda: _raw(render_hands=["player_9"]), ValueError, "player_9"),
    ("render_hands unhashable", lambda: _raw(render_hands=[["x"]]), ValueError, "render_hands"),
    ("env step(True)", _step(True, wrapped=True), ValueError, "True"),
    ("env step(1.5)", _step(1.5, wrapped=True), ValueError, "1.5"),
    ("env step(48)", _step(48, wrapped=True), ValueError, "48"),
    ("raw step(True)", _step(True), ValueError, "True"),
    ("raw step('x')", _step("x"), ValueError, "'x'"),
    ("raw step(-1)", _step(-1), ValueError, "-1"),
    ("raw step before reset", lambda: aluette_env.raw_env().step(0), RuntimeError, "reset()"),
    ("reset seed=-1", _reset(seed=-1), ValueError, "seed"),
    ("reset seed=1.5", _reset(seed=1.5), ValueError, "seed"),
    ("reset options list", _reset([1]), ValueError, "options"),
    ("deals int", _reset({"deals": 5}), ValueError, "options['deals']"),
    ("deals dict", _reset({"deals": {"a": 1}}), ValueError, "options['deals']"),
    ("deals str", _reset({"deals": "abc"}), ValueError, "options['deals']"),
    ("deals None hand", _reset({"deals": [[None] + HANDS[1:]]}), ValueError, "options['deals'][0]"),
    ("deals int hand", _reset({"deals": [[5] + HANDS[1:]]}), ValueError, "options['deals'][0]"),
    ("deals 3 hands", _reset({"deals": [HANDS[:3]]}), ValueError, "options['deals'][0]"),
    ("deals 8 cards", _reset({"deals": [[HANDS[0][:8]] + HANDS[1:]]}), ValueError, "player_0"),
    ("deals card 48", _reset({"deals": [HANDS[:3] + [[40, 41, 42, 43, 44, 45, 46, 47, 48]]]}),
     ValueError, "48"),
    ("deals twice", _reset({"deals": [[HANDS[0]] * 4]}), ValueError, "dealt twice"),
    ("deals too many", _reset({"deals": [HANDS] * 6}), ValueError, "options['deals']"),
    ("deals bool card", _reset({"deals": [[[True] + HANDS[0][1:]] + HANDS[1:]]}), ValueError,
     "True"),
    ("first_dealer 2.0", _reset({"first_dealer": 2.0}), ValueError, "first_dealer"),
    ("first_dealer player_7", _reset({"first_dealer": "player_7"}), ValueError, "player_7"),
    # VectorGame
    ("VG num_games=0", lambda: VectorGame(0), ValueError, "num_games"),
    ("VG num_games=True", lambda: VectorGame(True), ValueError, "num_games"),
    ("VG num_games=2.0", lambda: VectorGame(2.0), ValueError, "num_games"),
    ("VG num_deals=True", lambda: VectorGame(2, num_deals=True), ValueError, "num_deals"),
    ("VG auto_reset='no'", lambda: VectorGame(2, auto_reset="no"), TypeError, "auto_reset"),
    ("VG seed=-1", lambda: VectorGame(2, seed=-1), ValueError, "seed"),
    ("VG step before reset", _vector(lambda: VectorGame(2), reset=False), RuntimeError, "reset"),
    ("VG options list", _vector(lambda: VectorGame(2), options=[1]), TypeError, "options"),
    ("VG unknown option", _vector(lambda: VectorGame(2), options={"dealer": 1}), ValueError,
     "dealer"),
    ("VG first_dealer 2.0", _vector(lambda: VectorGame(2), options={"first_dealer": 2.0}),
     ValueError, "first_dealer"),
    ("VG first_dealer short list", _vector(lambda: VectorGame(2), options={"first_dealer": [0]}),
     ValueError, "first_dealer"),
    ("VG first_dealer player_7", _vector(lambda: VectorGame(2),
                                          options={"first_dealer": "player_7"}),
     ValueError, "player_7"),
    ("VG ragged deals", _vector(lambda: VectorGame(1), options={"deals": [[HANDS[0], [1, 2]]]}),
     ValueError, "deals"),
    ("VG float deals", _vector(lambda: VectorGame(1), options={"deals": np.full((1, 4, 9), 0.5)}),
     ValueError, "deals"),
    ("VG text deals", _vector(lambda: VectorGame(1), options={"deals": [[["a"] * 9] * 4]}),
     ValueError, "got dtype <U1"),
    ("VG object deals", _vector(lambda: VectorGame(1), options={"deals": np.full((1, 4, 9), None)}),
     ValueError, "got dtype object"),
    ("VG deals shape", _vector(lambda: VectorGame(1), options={"deals": [HANDS[:3]]}),
     ValueError, "deals"),
    ("VG deals card 99", _vector(lambda: VectorGame(1), options={"deals": [[[99] * 9] * 4]}),
     ValueError, "0-47"),
    ("VG deals twice", _vector(lambda: VectorGame(1), options={"deals": [[HANDS[0]] * 4]}),
     ValueError, "dealt twice"),
    ("VG actions float", _vector(lambda: VectorGame(2), actions=np.zeros(2)), ValueError,
     "actions"),
    ("VG actions shape", _vector(lambda: VectorGame(2), actions=np.zeros(3, int)), ValueError,
     "actions"),
    ("VG actions uint64 2**63", _vector(lambda: VectorGame(2),
                                        actions=np.full(2, 2 ** 63, np.uint64)),
     ValueError, "card 9223372036854775808 is not in"),
    ("VG active list short", _vector(lambda: VectorGame(2), actions=np.zeros(2, int),
                                     active=[True]), ValueError, "active"),
    ("VG active ints", _vector(lambda: VectorGame(2), actions=np.zeros(2, int),
                               active=np.ones(2, int)), ValueError, "active"),
    ("VG deal_result(5) of 2 games", lambda: VectorGame(2).deal_result(5), ValueError,
     "0 to 1, got 5"),
    ("VG deal_result(-1)", lambda: VectorGame(2).deal_result(-1), ValueError, "got -1"),
    ("VG match_result(2.0)", lambda: VectorGame(2).match_result(2.0), ValueError, "2.0"),
    ("card_name lang xx", lambda: card_name(2, lang="xx"), ValueError, "apps.i18n.card_name"),
    # A step after the match is over, observing a seat that is not there, an illegal card.
    ("env step(None) after the match", _after_the_match(lambda e: e.step(None)), ValueError,
     "reset()"),
    ("raw step(None) after the match", _after_the_match(lambda e: e.unwrapped.step(None)),
     ValueError, "reset()"),
    ("ai act short observation", lambda: load_player("ai").act(np.zeros(10, np.int8),
                                                               np.ones(48, np.int8)),
     ValueError, "must be [1070] (or longer) and [48], got (10,) and (48,)"),
    ("heuristic act scalar", lambda: load_player("heuristic").act(0, 1), ValueError,
     "got (1,) and (1,)"),
    ("observe player_9", _observe("player_9"), ValueError, "player_9"),
    ("observe 3", _observe(3), ValueError, "3"),
    ("VG illegal card", _vector(lambda: VectorGame(2), options={"deals": [HANDS],
                                                              "first_dealer": 3},
                                actions=np.array([47, 47])), ValueError, "not in player_0's hand"),
]


@pytest.mark.parametrize("name,call,exc,culprit", API_ROWS, ids=[r[0] for r in API_ROWS])
def test_python_api_bad_input_names_the_culprit(name, call, exc, culprit):
    with pytest.raises(exc) as err:
        call()
    assert type(err.value) is exc or issubclass(type(err.value), exc)
    assert culprit in str(err.value), str(err.value)
    assert "\n" not in str(err.value)


PLAYER_ROWS = [
    ("random:seed=-1", "seed"), ("random:seed=1,seed=2", "given twice"),
    ("heuristic:seed=abc", "seed"), ("pimc:worlds=0", "worlds"), ("pimc:worlds=1.5", "worlds"),
    ("pimc:depth_tricks=-1", "depth_tricks"), ("pimc:max_seconds=abc", "max_seconds"),
    ("pimc:solve_tricks=9", "solve_tricks"), ("ai:temperature=nan", "temperature"),
    ("ai:temperature=1e-45", "temperature"), ("ai:temperature=1e-300", "temperature"),
    ("ai:temperature=-1", "temperature"), ("ai:temperature=inf", "temperature"),
    ("ai:temp=1", "temp"), ("ai::temperature=1", "temperature"), ("random:", "random:"),
    ("random:seed", "seed"), ("nobody", "nobody"), ("", "non-empty"),
    ("missing/model.onnx", "missing/model.onnx"), ("{tmp}/garbage.onnx", "garbage.onnx"),
    ("{tmp}/bad_version.onnx", "obs_layout"), ("{tmp}/bad_shape.onnx", "bad_shape.onnx"),
    ("{tmp}/bad_names.onnx", "bad_names.onnx"),
    ("{tmp}/arabic_version.onnx", "unreadable metadata (obs_layout '\u0662'"),
    ("{tmp}/spaced_version.onnx", "unreadable metadata (obs_layout ' 2 '"),
    ("{tmp}/padded_version.onnx", "unreadable metadata (obs_layout '02'"),
    ("{tmp}/nan_weights.onnx", "nan_weights.onnx: its logits are NaN or infinite on"),
    ("{tmp}/inf_weights.onnx", "inf_weights.onnx: its logits are NaN or infinite on"),
    ("{tmp}/bad_names.onnx:temperature=abc", "temperature"),
    ("{tmp}/empty_state", "empty_state"), ("{tmp}/a_file", "a_file"),
    # A value network named by a number int() cannot read: no such network, no ValueError.
    ("expert:depth=1,value=v\u00b2", "v\u00b2: no such model file"),
    ("expert:depth=1,value=v" + "9" * 5000, "no such shipped value network"),
]


@pytest.mark.parametrize("spec,culprit", PLAYER_ROWS, ids=[s or "(empty)" for s, _ in PLAYER_ROWS])
def test_load_player_bad_specs(spec, culprit, tmp):
    with pytest.raises(PlayerSpecError) as err:
        load_player(spec.format(tmp=tmp))
    assert culprit.format(tmp=tmp) in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("field", ["obs_layout", "obs_size"])
@pytest.mark.parametrize("digits", [4000, 5000])  # read by int(), and past its 4300-digit limit
def test_a_huge_number_in_a_models_metadata_is_not_echoed_whole(field, digits, tmp):
    """What a model file says is shown cut short in an error."""
    path = tmp / f"huge_{field}_{digits}.onnx"
    _onnx_model(path)
    import onnx
    model = onnx.load(str(path))
    for prop in model.metadata_props:
        if prop.key == field:
            prop.value = "9" * digits
    onnx.save(model, str(path))
    with pytest.raises(PlayerSpecError) as err:
        load_player(str(path))
    msg = str(err.value)
    assert field.split("_")[1] in msg and "\n" not in msg and "9" * 100 not in msg, msg[:300]
    assert len(msg) < 200 + len(str(path)), len(msg)


def test_load_player_bad_seed_argument():
    for seed in (-1, 2 ** 63, 1.5, True):
        with pytest.raises(PlayerSpecError, match="seed"):
            load_player("random", seed=seed)


CONFIG_ROWS = [
    ("empty file", _config(path="{tmp}/empty.yaml"), "empty"),
    ("only comments", _config(path="{tmp}/comments.yaml"), "empty"),
    ("no file", _config(path="{tmp}/nope.yaml"), "no such config file"),
    ("eval.opponents=[]", _config("eval.opponents=[]"), "'eval.opponents'"),
    ("eval.opponents=[nobody]", _config("eval.opponents=[nobody]"), "'eval.opponents[0]'"),
    ("eval.opponents twice", _config("eval.opponents=[random, random]"), "'eval.opponents'"),
    ("opponent misspelt", _config("selfplay.opponents={heuristc: 1}"),
     "'selfplay.opponents.heuristc'"),
    ("opponent bad option", _config("selfplay.opponents={'random:seed=-1': 1}"),
     "'selfplay.opponents.random:seed=-1'"),
    ("partner misspelt", _config("selfplay.partner=randm"), "'selfplay.partner'"),
    ("weight nan", _config("selfplay.opponents={latest: .nan}"), "'selfplay.opponents'"),
    ("weight inf", _config("selfplay.opponents={latest: .inf}"), "'selfplay.opponents'"),
    ("weight negative", _config("selfplay.opponents={latest: -1, random: 2}"),
     "'selfplay.opponents'"),
    ("weights all zero", _config("selfplay.opponents={latest: 0}"), "'selfplay.opponents'"),
    ("seed 2**32", _config("seed=4294967296"), "'seed'"),
    ("seed -1", _config("seed=-1"), "'seed'"),
    ("eval.seed 2**32", _config("eval.seed=4294967296"), "'eval.seed'"),
    ("output_dir in /proc", _config("output_dir=/proc/aluette"), "'output_dir'"),
    ("output_dir under a file", _config("output_dir={tmp}/a_file/runs"), "'output_dir'"),
    ("output_dir is a file", _config("output_dir={tmp}/a_file"), "'output_dir'"),
    ("batch above rollout", _config("ppo.n_steps=1", "num_games=1", "ppo.batch_size=3"),
     "'ppo.batch_size'"),
    ("batch leaves one sample", _config("ppo.n_steps=3", "num_games=3", "ppo.batch_size=23"),
     "'ppo.batch_size'"),
    ("unknown key", _config("ppo.lr=0.1"), "'ppo.lr'"),
    ("not UTF-8", _config(path="{tmp}/latin1.yaml"), "not UTF-8"),
    ("just {}", _config(path="{tmp}/braces.yaml"), "empty"),
    ("key twice", _config(path="{tmp}/twice.yaml"), "given twice (lines 3 and 4)"),
    ("total_timesteps 1e20", _config("total_timesteps=100000000000000000000"),
     "'total_timesteps'"),
    ("eval.interval 1e20", _config("eval.interval=100000000000000000000"), "'eval.interval'"),
    ("rollout too large", _config("ppo.n_steps=100000", "num_games=1000"), "'ppo.n_steps'"),
    ("warm start version abc", _config("network.warm_start={tmp}/bad_version.onnx"),
     "'network.warm_start'"),
    ("warm start folder", _config("network.warm_start={tmp}"), "'network.warm_start'"),
    ("not a section", _config("ppo.n_steps.x=1"), "--set"),
]


@pytest.mark.parametrize("name,load,culprit", CONFIG_ROWS, ids=[r[0] for r in CONFIG_ROWS])
def test_config_bad_input_names_file_and_key(name, load, culprit, tmp):
    with pytest.raises(ConfigError) as err:
        load(tmp)
    msg = str(err.value)
    assert culprit in msg and "\n" not in msg
    assert (".yaml" in msg), msg  # the file is named


# ------------------------------------------------------------------- good input kept

def test_render_hands_accepts_one_agent_name():
    e = aluette_env.raw_env(render_mode="ansi", render_hands="player_0")
    e.reset(seed=0)
    assert e.render_hands == ["player_0"]


def test_vector_game_copies_the_deals_it_keeps():
    deals = np.array([[HANDS, HANDS[::-1]]], np.int8)  # 1 game, 2 deals, C-contiguous int8
    g = VectorGame(1, num_deals=2, seed=0)
    g.reset(options={"deals": deals, "first_dealer": 3})
    deals[:] = 0  # the caller reuses its buffer
    while True:
        _, deal_done, _ = g.step(g.mask.argmax(1))
        if deal_done[0]:
            break
    hands = {int(s): set(np.flatnonzero(g.state.card_state[0] == s).tolist()) for s in range(4)}
    assert hands == {s: set(HANDS[3 - s]) for s in range(4)}


def test_reset_takes_a_numpy_integer_seed():
    """``reset(seed=np.int64(3))`` is seed 3 (gymnasium's seeding
    takes only Python ints)."""
    a, b = aluette_env.raw_env(), aluette_env.raw_env()
    a.reset(seed=np.int64(3))
    b.reset(seed=3)
    assert (a.observe("player_0")["observation"] == b.observe("player_0")["observation"]).all()
    assert a.agent_selection == b.agent_selection


@pytest.mark.parametrize("spec", ["random", "heuristic", "ai"])
def test_act_takes_an_observation_and_mask_as_lists(spec):
    """``act`` reads array-likes as ``act_batch`` does (a batch player's ``act``
    indexed its arguments as arrays: TypeError for lists)."""
    e = aluette_env.raw_env()
    e.reset(seed=0)
    seen = e.observe(e.agent_selection)
    card = load_player(spec).act(seen["observation"].tolist(), seen["action_mask"].tolist())
    assert seen["action_mask"][card] == 1
