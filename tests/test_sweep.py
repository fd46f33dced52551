"""The bad-input sweep: every public entry point against
whole classes of bad input, generated rather than listed one by one, so that a
new command, option, route or API function is checked by the same net.

The classes: special files (a named pipe, links to endless devices, a folder
where a file is meant), overlong strings, lone surrogates (what an undecodable
command-line byte becomes), huge and non-finite numbers, output paths equal
to inputs, and killed worker processes. The invariants: bad input ends as
one line (the command line: exit code 2 or 1, no traceback; the Python API:
a ValueError or TypeError naming the argument; HTTP: a 4xx JSON answer),
within a time limit (nothing hangs), and no input file is changed.

About twenty seconds on one core: the command lines run in this process,
each in a thread with a deadline.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import warnings
from pathlib import Path

import numpy as np
import pytest

import aluette_env
from aluette_env.commands import build_parser, run_command
from conftest import random_match, within


ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "configs" / "quick.yaml"
LOOP = ROOT / "configs" / "history" / "expert_iteration.yaml"
#: Seconds one input may take before it counts as a hang.
DEADLINE_S = 60

# ------------------------------------------------------------------ the classes


@pytest.fixture(scope="module")
def special(tmp_path_factory) -> dict[str, str]:
    """Paths of every special-file class, and strings of the string classes."""
    d = tmp_path_factory.mktemp("sweep")
    os.mkfifo(d / "pipe.json")
    (d / "zero.json").symlink_to("/dev/zero")
    (d / "urandom.yaml").symlink_to("/dev/urandom")
    (d / "folder.json").mkdir()
    (d / "loop.json").symlink_to(d / "loop.json")  # a link to itself
    return {
        "pipe": str(d / "pipe.json"),
        "zero": str(d / "zero.json"),
        "urandom": str(d / "urandom.yaml"),
        "folder": str(d / "folder.json"),
        "self-link": str(d / "loop.json"),
        "overlong": "a" * 5000,
        "overlong name": str(d / ("n" * 300 + ".json")),
        "surrogate": str(d / "x\udcff.json"),
        "lone surrogate": "\ud800",
        "empty": "",
    }


#: Number inputs every numeric option or setting meets.
NUMBERS = ["nan", "inf", "-inf", "1e400", "-1", "9" * 40, "0x10", "1.5", "", "ten", "\udcff"]


def in_thread(call, seconds: float = DEADLINE_S):
    """``call()`` with the sweep's deadline (a hang fails the test)."""
    return within(call, seconds)


def one_line(argv: list[str], capsys, codes=(2,)) -> str:
    """Run ``aluette ARGV``; its exit code must be in ``codes`` with at most one
    line on stderr and no traceback. Returns that line."""
    code = in_thread(lambda: run_command(argv))
    err = capsys.readouterr().err
    shown = [a[:60] for a in argv]
    assert code in codes, (shown, code, err[-500:])
    assert "Traceback" not in err, (shown, err[-2000:])
    lines = err.strip().splitlines()
    assert len(lines) <= 1, (shown, err[-500:])
    return lines[0] if lines else ""


# ---------------------------------------------------------- the command line


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def numeric_options() -> list[tuple[str, str]]:
    """(command, option) of every option whose type parses a number."""
    out = []
    for name, p in subcommands().items():
        for action in p._actions:
            kind = action.type
            if not action.option_strings or kind is None:
                continue
            try:
                number = isinstance(kind("1"), (int, float))
            except Exception:  # noqa: BLE001 - not a number type
                number = False
            if number:
                out.append((name, action.option_strings[-1]))
    return out


@pytest.mark.parametrize("command,option", numeric_options(),
                         ids=[f"{c} {o}" for c, o in numeric_options()])
def test_every_numeric_option_refuses_non_finite_and_unbounded_numbers(command, option):
    """Each numeric option of each command: a non-finite or absurd value is refused
    while the arguments are parsed (one line), or parses to a finite number of at
    most 64 bits, which the command's own check then meets."""
    parser = subcommands()[command]
    required = {"eval": ["--team-a", "random", "--team-b", "random"],
                "ratings": ["random", "heuristic"], "league": ["random", "heuristic"],
                "train": [str(QUICK)],
                "export": ["run", "--out", "x.onnx"], "exploit": ["random"],
                "review": ["m.json"], "expert-data": [str(LOOP), "--out", "d"],
                "expert-iteration": [str(LOOP)]}.get(command, [])
    for value in NUMBERS:
        try:
            args = parser.parse_args([*required, f"{option}={value}"])
        except aluette_env.commands.UsageError as err:
            assert "\n" not in str(err)
            continue
        parsed = getattr(args, option.lstrip("-").replace("-", "_"))
        assert math.isfinite(parsed) and abs(parsed) < 2 ** 63, (option, value, parsed)


#: (command line with one slot, the classes that must be refused there). A slot
#: is an input the command reads (a file, a spec) or an output it writes.
READ_SLOTS = [
    ["eval", "--team-a", "{}", "--team-b", "random", "--deals", "1", "--quiet"],
    ["ratings", "{}", "random", "--deals", "1", "--quiet"],
    ["play", "--left", "{}"],
    ["serve", "--partner", "{}", "--port", "0"],
    ["review", "{}"],
    ["train", "{}"],
    ["train", str(QUICK), "--resume", "{}"],
    ["export", "{}", "--out", "{tmp}/x.onnx"],
    ["exploit", "{}", "--timesteps", "1"],
    ["expert-data", "{}", "--out", "{tmp}/ed"],
    ["expert-data", str(LOOP), "--out", "{tmp}/ed", "--policy", "{}"],
    ["expert-iteration", "{}"],
    ["train", str(QUICK), "--set", "network.warm_start={}"],
    ["train", str(QUICK), "--set", "pretrain.records={}", "--set", "pretrain.samples=1"],
]
READ_CLASSES = ["pipe", "zero", "urandom", "folder", "self-link", "overlong", "overlong name",
                "surrogate", "lone surrogate", "empty"]


def _slot(argv: list[str]) -> int:
    return next(i for i, a in enumerate(argv) if "{}" in a)


def _cases(slots, classes):
    return [(slot, kind) for slot in slots for kind in classes]


@pytest.mark.parametrize("slot,kind", _cases(READ_SLOTS, READ_CLASSES),
                         ids=[f"{' '.join(s[:2])} {_slot(s)} {k}"
                              for s, k in _cases(READ_SLOTS, READ_CLASSES)])
@pytest.mark.slow
def test_every_input_slot_refuses_special_files_and_strings(slot, kind, special, tmp_path,
                                                            capsys):
    """Every file or spec a command reads, given a special file or string: one
    line, exit code 2, at once (a pipe is never opened for reading, a device
    never read to its end) and nothing written."""
    argv = [a.replace("{tmp}", str(tmp_path)) for a in slot]
    argv = [a.replace("{}", special[kind]) if "{}" in a else a for a in argv]
    if kind == "empty" and slot[0] == "train" and "{}" in slot[-1]:
        pytest.skip("an empty override value is YAML's empty string, refused by the key's own "
                    "type check (covered in test_bad_input)")
    quick_folder = Path("checkpoints") / "quick"  # where a refused new run would be
    had_quick = quick_folder.exists()
    one_line(argv, capsys)
    assert not (tmp_path / "x.onnx").exists() and not (tmp_path / "ed").exists()
    assert quick_folder.exists() == had_quick


WRITE_SLOTS = [
    ["eval", "--team-a", "random", "--team-b", "random", "--deals", "1", "--quiet", "--json",
     "{}"],
    ["ratings", "random", "heuristic", "--deals", "1", "--quiet", "--json", "{}"],
    ["review", "{record}", "--worlds", "1", "--json", "{}"],
    ["export", "{tmp}/none.zip", "--out", "{}"],
    ["expert-data", str(LOOP), "--out", "{}"],
]
WRITE_CLASSES = ["pipe", "folder", "self-link", "overlong", "overlong name", "surrogate",
                 "empty", "/proc/x.json", "input"]
#: Classes an output may also accept: a link to nowhere is replaced by the file,
#: an undecodable byte is a legal file name byte.
MAY_WRITE = {"self-link", "surrogate"}


@pytest.mark.parametrize("slot,kind", _cases(WRITE_SLOTS, WRITE_CLASSES),
                         ids=[f"{s[0]} {k}" for s, k in _cases(WRITE_SLOTS, WRITE_CLASSES)])
def test_every_output_slot_refuses_what_it_cannot_or_must_not_write(slot, kind, special,
                                                                    tmp_path, capsys):
    """Every file or folder a command writes: a pipe without a reader, a folder,
    a path the system refuses, /proc, or one of the command's own inputs is refused
    in one line before any work, and the input is unchanged."""
    from aluette_env.records import record_of
    if slot[0] == "expert-data" and kind in ("folder", "self-link", "surrogate"):
        pytest.skip("a new or empty folder is the data set's own: that is good input")
    record = record_of(random_match(0, num_deals=1, first_dealer=0), 0,
                       ["human", "ai", "ai", "ai"], num_deals=1)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(record))
    before = path.read_bytes()
    target = {"/proc/x.json": "/proc/x.json", "input": str(path)}.get(kind) or special[kind]
    if kind == "input" and slot[0] == "expert-data":
        target = str(tmp_path)  # a folder of other files: the record
    argv = [a.replace("{record}", str(path)).replace("{tmp}", str(tmp_path)) for a in slot]
    argv = [target if a == "{}" else a for a in argv]
    codes = (0, 2) if kind in MAY_WRITE or (kind == "input" and slot[0] in ("eval", "ratings")) \
        else (2,)
    one_line(argv, capsys, codes)
    if slot[0] in ("review", "expert-data", "export"):
        assert path.read_bytes() == before


SURROGATE_ARGS = [
    ["review", "{record}", "--seats", "x\udcff"],
    ["review", "{record}", "--lang", "\udcff"],
    ["play", "--lang", "\udcff"],
    ["play", "--partner", "ai:temperature=\udcff"],
    ["serve", "--host", "\udcff", "--port", "0"],
    ["train", str(QUICK), "--set", "run_name=\udcff"],
    ["train", str(QUICK), "--set", "\udcff=1"],
    ["expert-iteration", str(LOOP), "--set", "run_name=\udcff"],
    ["eval", "--team-a", "random", "--team-b", "random", "--seat", "player_1=\udcff"],
    ["eval", "--team-a", "random", "--team-b", "random", "--seat", "\udcff=random"],
    ["exploit", "random", "--out", "\ud800"],
]


@pytest.mark.parametrize("argv", SURROGATE_ARGS, ids=[" ".join(a[:2]) + " " + a[-2]
                                                      for a in SURROGATE_ARGS])
def test_undecodable_bytes_on_the_command_line_are_one_line(argv, tmp_path, capsys):
    """An argument with a byte that is not UTF-8 arrives as a lone surrogate: the
    command says what is wrong in one line (printed with escapes), never a traceback."""
    path = tmp_path / "m.json"
    path.write_text("{}")
    one_line([a.replace("{record}", str(path)) for a in argv], capsys)


# ----------------------------------------------------------------- the Python API


def _api_cases():
    from aluette_env.evaluation import duplicate_eval
    from aluette_env.players import load_player
    from aluette_env.records import load_record, read_record
    from aluette_env.vector import VectorGame

    def env_reset(seed):
        return lambda: aluette_env.raw_env().reset(seed=seed)

    def env_step(action, wrapped):
        def go():
            e = aluette_env.env() if wrapped else aluette_env.raw_env()
            e.reset(seed=0)
            e.step(action)
        return go

    def observe(agent):
        def go():
            e = aluette_env.raw_env()
            e.reset(seed=0)
            e.observe(agent)
        return go

    bad_numbers = [10 ** 30, -(10 ** 30), float("nan"), float("inf"), 1.5, True, "3", None,
                   "\ud800", [1]]
    cases = []
    for v in bad_numbers:
        if v is not None and v != 10 ** 30:  # NumPy seeds any non-negative integer
            cases.append((f"reset(seed={v!r})", env_reset(v)))
        cases.append((f"raw step({v!r})", env_step(v, False)))
        if v is not None:
            cases.append((f"env step({v!r})", env_step(v, True)))
        if v is not None:  # None: the variant's own number of deals (aec.raw_env)
            cases.append((f"raw_env(num_deals={v!r})",
                          lambda v=v: aluette_env.raw_env(num_deals=v)))
        cases.append((f"VectorGame({v!r})", lambda v=v: VectorGame(v)))
        cases.append((f"duplicate_eval(deals={v!r})",
                      lambda v=v: duplicate_eval("random", "random", deals=v)))
        cases.append((f"duplicate_eval(team_a={v!r})",
                      lambda v=v: duplicate_eval(v, "random", deals=1)))
        if v is not None:
            cases.append((f"duplicate_eval(seats={v!r})",
                          lambda v=v: duplicate_eval("random", "random", deals=1, seats=v)))
        cases.append((f"observe({v!r})", observe(v)))
        cases.append((f"load_player({v!r})", lambda v=v: load_player(v)))
        if v is not None:
            cases.append((f"load_player(seed={v!r})",
                          lambda v=v: load_player("random", seed=v)))
        if v is not None:
            cases.append((f"load_record({v!r})", lambda v=v: load_record(v)))
    for text in ("a" * 5000, "/tmp/" + "n" * 300, "x\udcffy", "\ud800", "random:seed=" + "9" * 40,
                 "ai:temperature=1e400", "ai:temperature=nan", "pimc:worlds=" + "9" * 40):
        cases.append((f"load_player({text[:30]!r})", lambda t=text: load_player(t)))
        cases.append((f"read_record({text[:30]!r})", lambda t=text: read_record(t)))
    return cases


API_CASES = _api_cases()


@pytest.mark.parametrize("name,call", API_CASES, ids=[n[:70] for n, _ in API_CASES])
def test_every_api_function_names_a_bad_argument(name, call):
    """Each public function given a huge, non-finite, wrongly typed, overlong or
    surrogate argument raises a ValueError or TypeError (RecordError and
    PlayerSpecError are ValueErrors) of one line, at once."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((ValueError, TypeError)) as err:
            in_thread(call, 30)
    assert "\n" not in str(err.value), str(err.value)[:300]
    str(err.value).encode("utf-8", "backslashreplace")  # printable


def _typed_leaves(values: dict, prefix: str = ""):
    """(key.path, value) of every number and flag of a config's values."""
    for key, value in values.items():
        if isinstance(value, dict):
            yield from _typed_leaves(value, f"{prefix}{key}.")
        elif isinstance(value, (bool, int, float)):
            yield f"{prefix}{key}", value


@pytest.mark.parametrize("path", [QUICK, LOOP], ids=["train", "expert-iteration"])
def test_every_number_refuses_a_flag_and_every_flag_a_number(path):
    """A YAML ``yes`` where a count or a rate goes, or a ``1`` where a flag goes,
    is refused in one line naming the key, not read as 1 or True: for every
    number and flag of a training config and of a loop config."""
    from training.config import ConfigError, load_config, load_loop_config
    load = load_config if path == QUICK else (lambda p, o=(): load_loop_config(p, list(o)))
    leaves = list(_typed_leaves(load(path).model_dump()))
    assert len(leaves) >= 20 and (path != QUICK or any(isinstance(v, bool) for _, v in leaves))
    for key, value in leaves:
        bad = "1" if isinstance(value, bool) else "true"
        with pytest.raises(ConfigError) as err:
            load(path, [f"{key}={bad}"])
        assert "\n" not in str(err.value) and f"'{key}'" in str(err.value), (key, err.value)


def test_a_number_in_e_notation_is_a_number_in_a_file_and_on_the_command_line(tmp_path):
    """YAML 1.1 reads ``3e-4`` (no dot) as a string; the configs read it as YAML 1.2
    does, a float, so the strict check takes it as a rate and refuses it as a count."""
    from training.config import ConfigError, load_config
    path = tmp_path / "c.yaml"
    text = QUICK.read_text().replace("learning_rate: 0.003", "learning_rate: 3e-4")
    assert "learning_rate: 3e-4" in text
    path.write_text(text)
    assert load_config(path).ppo.learning_rate == 3e-4
    assert load_config(QUICK, ["ppo.learning_rate=2.5E-3"]).ppo.learning_rate == 2.5e-3
    with pytest.raises(ConfigError, match="'total_timesteps': Input should be a valid integer"):
        load_config(QUICK, ["total_timesteps=1e6"])


@pytest.mark.parametrize("kind", ["pipe", "zero", "urandom", "folder", "self-link"])
def test_read_record_refuses_special_files_at_once(kind, special):
    from aluette_env.records import RecordError, read_record
    with pytest.raises(RecordError):
        in_thread(lambda: read_record(special[kind]), 10)


# ------------------------------------------------------------------------- HTTP


@pytest.fixture(scope="module")
def web():
    pytest.importorskip("httpx")
    from web_helpers import client
    with client(partner="random", left="random", right="random", seed=1, hint_worlds=1,
                review_worlds=1, raise_server_exceptions=False) as c:
        yield c


HTTP_VALUES = [None, True, -1, 10 ** 30, 1.5, "x" * 5000, "\ud800", [], {}, "random"]
HTTP_BODIES = [b"NaN", b'{"card": NaN}', b'{"card": 1e400}', b'{"left": "\\ud800"}',
               b"\xff\xfe", b"[" * 5000, b'{"card": ' + b"9" * 4000 + b"}", b"\xef\xbb\xbf{}"]


def test_every_route_answers_bad_input_with_a_4xx_json_error(web):
    """Each route, each JSON field with each value class, each broken body, each
    ``?lang=`` and id class: a 4xx JSON answer (never a 500, never plain text)."""
    c = web
    data = c.post("/api/games", json={}).json()
    gid = data["id"]
    routes = [("post", f"/api/games/{gid}/play", ["card", "version"]),
              ("post", f"/api/games/{gid}/next-deal", ["version"]),
              ("post", f"/api/games/{gid}/new-match", ["x"]),
              ("post", f"/api/games/{gid}/players", ["left", "partner", "right"]),
              ("post", "/api/games", ["left", "partner", "right"]),
              ("post", "/api/records", ["format", "players"])]
    answers = []
    for method, path, fields in routes:
        for name in fields:
            for value in HTTP_VALUES:
                body = json.dumps({name: value}).encode()
                answers.append((path, name, value, getattr(c, method)(path, content=body)))
        for body in HTTP_BODIES:
            answers.append((path, "body", body[:20], getattr(c, method)(path, content=body)))
    gets = ["/api/games/{gid}", "/api/games/{gid}/hint", "/api/games/{gid}/review",
            "/api/games/{gid}/record", "/api/records/{gid}", "/api/i18n/{lang}"]
    for get in gets:
        for ident in ("x" * 5000, "%F0%9F", "..%2f..%2fetc", "%ED%A0%80", "%00"):
            path = get.format(gid=gid if "lang" in get else ident, lang=ident)
            answers.append((path, "id", ident[:10], c.get(path)))
        for lang in ("xx", "x" * 5000, "%ff", "../en"):
            path = get.format(gid=gid, lang="en") + f"?lang={lang}"
            answers.append((path, "lang", lang[:10], c.get(path)))
    # An upload that was taken is read back: what was stored must be sendable too.
    from aluette_env.records import record_of
    record = record_of(random_match(1, num_deals=1, first_dealer=0), 0,
                       ["human", "ai", "ai", "ai"], num_deals=1)
    for name in ("\ud800", "x" * 150, "\x1b[2J", "[bold]b", "a\nb"):
        record["players"]["player_1"] = name
        r = c.post("/api/records", content=json.dumps(record).encode())
        answers.append(("/api/records", "players.player_1", name[:10], r))
        if r.status_code == 201:
            rid = r.json()["id"]
            answers.append((f"/api/records/{rid}", "stored", name[:10],
                            c.get(f"/api/records/{rid}")))
    for path, name, value, r in answers:
        where = (path[:60], name, value)
        assert r.status_code < 500, (where, r.status_code, r.text[:200])
        if r.status_code >= 400:
            assert r.headers["content-type"].startswith("application/json"), (where, r.text[:99])
            assert "error" in r.json(), where


# ------------------------------------------------------------------ killed workers


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads Linux /proc")
def test_a_killed_worker_process_is_replaced():
    """The web server's worker pools: a worker killed between two jobs (or during
    one) is replaced and the job done; the next job starts a fresh pool."""
    import signal

    from aluette_env.apps.web.workers import RestartingPool
    pool = RestartingPool(1, "sweep")
    try:
        assert pool.run(abs, -3) == 3
        for pid in pool.processes():
            os.kill(pid, signal.SIGKILL)
        assert in_thread(lambda: pool.run(abs, -4), 120) == 4
        assert pool.restarts == 1
    finally:
        pool.close()


def test_numpy_integers_are_integers_everywhere():
    """The other side of the net: a NumPy integer is a good integer for every
    function that takes one (it was gymnasium's error in reset)."""
    from aluette_env.players import load_player
    from aluette_env.vector import VectorGame
    e = aluette_env.raw_env(num_deals=np.int64(2))
    e.reset(seed=np.int64(3))
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    VectorGame(np.int64(2), seed=np.uint32(1)).reset()
    load_player("random", seed=np.int64(5))
