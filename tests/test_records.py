"""Match records (aluette_env.records): round trip through the PettingZoo env,
and every kind of tampering refused with one line naming the field."""

from __future__ import annotations

import copy
import json
import os
import re
import time

import pytest

from aluette_env.aec import raw_env
from aluette_env.game import AGENTS
from aluette_env.records import (
    RecordError, human_seats, load_record, positions, read_record, record_of, replay_steps,
    save_record, tricks,
)
from conftest import random_match, within


@pytest.fixture(scope="module")
def record():
    return record_of(random_match(7), 1, ["human", "ai", "heuristic:seed=3", "ai"])


def test_saved_match_replayed_through_raw_env_gives_the_same_results(record, tmp_path):
    path = save_record(record, tmp_path, "match")
    loaded = read_record(path)
    assert loaded == record
    env = raw_env()
    env.reset(options={"first_dealer": loaded["first_dealer"],
                       "deals": [d["hands"] for d in loaded["deals"]]})
    deal_results, match_result = [], None
    for d in loaded["deals"]:
        for agent, card in d["plays"]:
            assert env.agent_selection == agent
            env.step(card)
            info = env.infos[AGENTS[0]]
            if "deal_result" in info:
                deal_results.append(info["deal_result"])
                match_result = info.get("match_result", match_result)
    assert deal_results == [d["result"] for d in loaded["deals"]]
    assert match_result == loaded["result"]
    assert all(env.terminations.values())


def test_positions_replay_every_play_in_order(record):
    seen = [(p.deal_index, p.play_index, AGENTS[p.seat], p.card) for p in positions(record)]
    assert seen == [(i, k, a, c) for i, d in enumerate(record["deals"])
                    for k, (a, c) in enumerate(d["plays"])]
    assert human_seats(record) == [0]


def test_replay_steps_show_each_play_as_the_core_played_it(record):
    """The replay's snapshots (what the web replay draws): after k plays, each
    hand less the cards played (R9), the trick on the table since the last
    fourth card and, once complete, who took it (R10-R11, from the core's tricks)."""
    steps, taken = replay_steps(record), tricks(record)
    assert len(steps) == len(record["deals"])
    for d, deal in enumerate(record["deals"]):
        plays = deal["plays"]
        assert len(steps[d]) == len(plays) + 1
        for k, snap in enumerate(steps[d]):
            gone = {c for _, c in plays[:k]}
            assert snap["hands"] == [[c for c in h if c not in gone] for h in deal["hands"]]
            start = k - (4 if k and k % 4 == 0 else k % 4)
            assert snap["trick"] == [list(p) for p in plays[start:k]]
            assert snap["opened"] == (k > 0 and k % 4 == 1)
            assert snap["done"] == (k > 0 and k % 4 == 0)
            assert snap["winner"] == (taken[d][k // 4 - 1]["winner"] if snap["done"] else None)
        assert any(s["done"] and s["winner"] is None for s in steps[d]) or \
            all(t["winner"] for t in taken[d])  # a spoiled trick shows as such


def test_a_record_of_unfinished_match_keeps_its_finished_deals():
    deals = random_match(3, num_deals=5)[:2]
    rec = record_of(deals, 1, ["human", "ai", "ai", "ai"])
    assert len(load_record(json.dumps(rec))["deals"]) == 2


def _tamper(record, change):
    bad = copy.deepcopy(record)
    change(bad)
    return bad


def _swap_plays(rec, i, j):
    plays = rec["deals"][0]["plays"]
    plays[i], plays[j] = plays[j], plays[i]


@pytest.mark.parametrize("change,field,words", [
    (lambda r: r["deals"][0]["plays"][5].__setitem__(1, r["deals"][0]["plays"][1][1]),
     "deals[0].plays[5]", "already played"),
    (lambda r: _swap_plays(r, 0, 1), "deals[0].plays[0]", "out of turn"),
    (lambda r: r["deals"][1]["result"].__setitem__("winner", "player_3"
                                                   if r["deals"][1]["result"]["winner"]
                                                   != "player_3" else "player_1"),
     "deals[1].result.winner", "does not match the plays"),
    (lambda r: r["result"]["points"].__setitem__("team_0", r["result"]["points"]["team_0"] + 1),
     "result.points.team_0", "does not match"),
    (lambda r: r["deals"][0]["hands"][2].__setitem__(0, r["deals"][0]["hands"][1][0]),
     "deals[0].hands[2][0]", "dealt twice"),
    (lambda r: r.__setitem__("version", 99), "version", "reads versions 1, 2"),
    (lambda r: r.__setitem__("names", {"player_0": "Ann"}), "names", "unknown field"),
    (lambda r: r.__setitem__("first_dealer", "north"), "first_dealer", "player_0"),
    (lambda r: r["players"].pop("player_3"), "players", "player_3"),
    (lambda r: r["deals"][2]["plays"].pop(), "deals[2].plays", "36 plays"),
    (lambda r: r["deals"][0]["plays"][3].__setitem__(1, 48), "deals[0].plays[3][1]", "0-47"),
    (lambda r: r["deals"][0]["plays"][3].__setitem__(1, True), "deals[0].plays[3][1]", "0-47"),
    (lambda r: r.__setitem__("extra", 1), "extra", "unknown field"),
    (lambda r: r["deals"][0].pop("result"), "deals[0].result", "missing"),
    (lambda r: r["deals"][0]["result"].__setitem__("mordienne", 0),
     "deals[0].result.mordienne", "does not match"),
])
def test_tampered_records_are_refused_naming_the_field(record, change, field, words):
    with pytest.raises(RecordError) as err:
        load_record(json.dumps(_tamper(record, change)))
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(field + ":") or message.startswith(field + "."), message
    assert words in message


def test_a_played_card_not_in_the_players_hand_is_refused(record):
    bad = copy.deepcopy(record)
    d = bad["deals"][0]
    agent, card = d["plays"][0]
    other = next(c for c in d["hands"][(AGENTS.index(agent) + 1) % 4])
    d["plays"][0] = [agent, other]
    with pytest.raises(RecordError, match=r"^deals\[0\]\.plays\[0\]: .* is not in player_"):
        load_record(bad)


def test_bad_files_are_refused_in_one_line(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("{not json")
    with pytest.raises(RecordError, match="not valid JSON"):
        read_record(path)
    with pytest.raises(RecordError, match="No such file"):
        read_record(tmp_path / "missing.json")
    with pytest.raises(RecordError, match="not valid JSON: nested too deeply"):
        load_record("[" * 100_000 + "]" * 100_000)
    with pytest.raises(RecordError, match="not valid JSON"):
        load_record(b"\xff\xfe")
    with pytest.raises(RecordError, match="format: expected 'aluette-match'"):
        load_record("{}")


# ------------------------------------------------------------- bad input: files


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize("kind", ["fifo", "zero", "urandom", "folder"])
def test_a_record_path_that_is_not_a_regular_file_is_refused_at_once(tmp_path, kind):
    """A named pipe (which would block a read forever) or a link to an
    endless device (which would be read until memory runs out) is refused
    before anything is read, by read_record and by pretrain.records."""
    from training.imitation import record_demonstrations
    path = tmp_path / "match.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        path.symlink_to(f"/dev/{kind}")
    for load in (read_record, record_demonstrations):
        started = time.monotonic()
        with pytest.raises((RecordError, ValueError), match="not a regular file|a folder|no match"):
            within(lambda load=load: load(path), 10)
        assert time.monotonic() - started < 10


@pytest.mark.parametrize("name", ["\ud800", "ok\udfff", "x\udc80y"])
def test_a_player_name_with_a_lone_surrogate_is_refused_when_loaded(record, name, tmp_path):
    """A lone surrogate cannot be printed or sent as UTF-8; the loader
    refuses it, from text, from bytes and from a file."""
    bad = copy.deepcopy(record)
    bad["players"]["player_1"] = name
    text = json.dumps(bad)  # ASCII, the surrogate as an escape
    path = tmp_path / "m.json"
    path.write_text(text)
    for source in (text, text.encode(), bad):
        with pytest.raises(RecordError, match="players.player_1: not valid Unicode"):
            load_record(source)
    with pytest.raises(RecordError, match="players.player_1"):
        read_record(path)


def _strict(change):
    def make(record):
        text = json.dumps(record)
        return change(text) if callable(change) else change
    return make


STRICT_ROWS = [
    ("version 1.0", lambda t: t.replace('"version": 1', '"version": 1.0'), "version"),
    ("version true", lambda t: t.replace('"version": 1', '"version": true'), "version"),
    ("version '1'", lambda t: t.replace('"version": 1', '"version": "1"'), "version"),
    ("points 1.0", lambda t: re.sub(r'("team_0": )(\d+)', r"\g<1>\g<2>.0", t, count=1),
     "points.team_0"),
    ("mordienne 0", lambda t: t.replace('"mordienne": false', '"mordienne": 0', 1), "mordienne"),
    ("card 5.0", lambda t: re.sub(r'(\["player_\d", )(\d+)\]', r"\g<1>\g<2>.0]", t, count=1),
     "plays[0][1]"),
    ("BOM", lambda t: "\ufeff" + t, "byte order mark"),
    ("key twice", lambda t: t.replace('"num_deals": ', '"num_deals": 5, "num_deals": ', 1),
     "num_deals: given twice"),
    ("NaN", lambda t: t.replace('"num_deals": 5', '"num_deals": NaN'), "NaN"),
    ("Infinity", lambda t: t.replace('"num_deals": 5', '"num_deals": Infinity'), "Infinity"),
]


@pytest.mark.parametrize("name,change,words", STRICT_ROWS, ids=[r[0] for r in STRICT_ROWS])
def test_one_strict_loader_for_files_and_uploads(record, name, change, words, tmp_path):
    """What docs/RECORDS.md says and nothing looser, the same for a
    file (read_record, aluette review), bytes (the web upload) and text."""
    text = _strict(change)(record)
    assert text != json.dumps(record)
    path = tmp_path / "m.json"
    path.write_bytes(text.encode("utf-8"))
    for load in (lambda: load_record(text), lambda: load_record(text.encode("utf-8")),
                 lambda: read_record(path)):
        with pytest.raises(RecordError, match=re.escape(words)) as err:
            load()
        assert "\n" not in str(err.value)
    with pytest.raises(RecordError):  # UTF-16 JSON is not a record either
        load_record(json.dumps(record).encode("utf-16"))


def test_a_version_2_record_names_the_people_by_display_name_only():
    from aluette_env.apps.session import GameSession
    from aluette_env.players import load_player

    game = GameSession({1: load_player("random"), 3: load_player("random")},
                       {1: "random", 3: "random"}, seed=2, people={0: "Ann", 2: "Bob"})
    while len(game.match.history) < 1:
        game.play(game.deal.legal_cards()[0], seat=game.deal.to_act)
    record = load_record(json.loads(json.dumps(game.record())))
    assert record["version"] == 2 and record["names"] == {"player_0": "Ann", "player_2": "Bob"}
    assert record["players"]["player_2"] == "human"
    for names, words in [({"player_1": "Cy"}, "names.player_1: names are for the seats"),
                         ({"player_0": ""}, "names.player_0: a display name"),
                         ({"player_0": "a\nb"}, "names.player_0: a display name"),
                         ({}, "names: an object")]:
        with pytest.raises(RecordError, match=re.escape(words)):
            load_record({**record, "names": names})
    without = {k: v for k, v in record.items() if k != "names"}
    with pytest.raises(RecordError, match="names: missing"):
        load_record(without)
    assert load_record({**without, "version": 1})["version"] == 1
