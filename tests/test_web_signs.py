"""The games for people with signs (docs/RULES.md S1-S5; docs/WEB.md, "Playing
with signs"): the session's sign move, what each seat is told of the signs
(S5: its own, its partner's, the opponents' it caught; never who caught its
own), snapshots that keep the signs and the catches, and the web API's
sign route and options, each checked against the game's truth."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from aluette_env.apps.narrator import Narrator  # noqa: E402
from aluette_env.apps.session import GameError, GameSession  # noqa: E402
from aluette_env.game import (  # noqa: E402
    ALUETTE_SIGNS_V0, NUM_SEATS, NUM_SIGNS, sees_sign, seat_at,
)
from aluette_env.players import load_player  # noqa: E402
from web_helpers import client, game_of  # noqa: E402

EVENT_KEYS = {"type", "seat", "sign", "caught"}


def signs_game(people=None, catch=0.5, seed=11, players="heuristic") -> GameSession:
    people = people if people is not None else {0: ""}
    ai = [s for s in range(NUM_SEATS) if s not in people]
    return GameSession({s: load_player(players) for s in ai}, {s: players for s in ai},
                       seed=seed, people=people, variant=ALUETTE_SIGNS_V0.with_catch(catch))


def truly_seen(game: GameSession, reader: int, signer: int, trick: int, sign: int) -> bool:
    """S5 from the deal's own catches: whether ``reader`` may know this sign."""
    caught = int(game.deal.state.caught[trick * NUM_SEATS + signer]) if sign else 0
    return game.deal.sign_of(trick, signer) == sign and sees_sign(reader, signer, caught)


def check_told(game: GameSession, reader: int | None, view: dict, events: list[dict],
               complete: bool = True) -> None:
    """Every sign in ``view`` and ``events`` (seats counted from ``reader``) is one
    ``reader`` saw, ``caught`` exactly for an opponent's, and (``complete``) the
    view lists every sign of the deal it saw."""
    if reader is None:
        assert view.get("signs", []) == [] and not [e for e in events if e["type"] == "sign"]
        return
    listed = set()
    for s in view["signs"]:
        signer = seat_at(reader, s["seat"])
        assert truly_seen(game, reader, signer, s["trick"], s["sign"]), (reader, s)
        assert s["caught"] == (signer % 2 != reader % 2)
        listed.add((s["trick"], signer))
    deal = game.deal
    for t in range(9 if complete else 0):
        for signer in range(NUM_SEATS):
            sign = deal.sign_of(t, signer)
            if sign >= 0 and truly_seen(game, reader, signer, t, sign):
                assert (t, signer) in listed, (reader, t, signer, sign)
    for e in events:
        if e["type"] == "sign":
            assert set(e) <= EVENT_KEYS | {"text", "view"}, e  # never the catches
            signer = seat_at(reader, e["seat"])
            assert e["caught"] == (signer % 2 != reader % 2)


def test_s5_whole_matches_tell_each_seat_only_the_signs_it_saw():
    """Two people (south, west) and two heuristic AIs, catch 0.5: after every move
    each seat's view and events (and a spectator's) carry exactly what it saw."""
    game = signs_game(people={0: "Ann", 1: "Bob"}, catch=0.5)
    rng = random.Random(3)
    made = {s: [] for s in range(NUM_SEATS)}
    moves = 0
    while not game.match.over:
        deal = game.deal
        trick = deal.trick_index  # the trick of each sign event, counted along the events
        if deal.done:
            events = game.next_deal()
        else:
            seat = deal.to_act
            view = game.view(seat)
            assert view["your_turn"]
            if view["signing"]:
                assert view["legal"] == [] and view["sign_choices"] == list(range(NUM_SIGNS + 1))
                events = game.sign(rng.choice(view["sign_choices"]), view["version"], seat)
            else:
                assert view["sign_choices"] == []
                events = game.play(rng.choice(view["legal"]), view["version"], seat)
        moves += 1
        tricks = []
        for e in events:
            trick = 0 if e["type"] == "deal" else trick + (e["type"] == "trick")
            if e["type"] == "sign":
                made[e["seat"]].append(e["sign"])
                tricks.append(trick)
        signs = [e for e in events if e["type"] == "sign"]
        for reader in (0, 1, 2, 3, None):
            told = game.events_for(events, reader)
            check_told(game, reader, game.view(reader), told)
            seen = [e for e, t in zip(signs, tricks) if reader is not None
                    and truly_seen(game, reader, e["seat"], t, e["sign"])]
            assert [(seat_at(reader, e["seat"]), e["sign"]) for e in told
                    if e["type"] == "sign"] == [(e["seat"], e["sign"]) for e in seen]
    assert moves > 2 * 36 * 2  # every person's turn was a sign and a card
    assert any(made[2]) and any(made[3])  # the AIs sign (heuristic plays signs)


def test_s1_every_seat_reads_a_tricks_signs_in_the_order_they_were_made():
    """Four people, every sign caught: after each move each seat's view lists the
    signs of each trick from the trick's leader, as they were made, so a sign
    made in answer to another comes after it (never in seat order)."""
    game = signs_game(people={s: "" for s in range(NUM_SEATS)}, catch=1.0)
    rng = random.Random(5)
    deal = game.deal
    while not deal.done:
        seat = deal.to_act
        view = game.view(seat)
        if view["signing"]:
            game.sign(rng.randrange(1, NUM_SIGNS + 1), view["version"], seat)
        else:
            game.play(rng.choice(view["legal"]), view["version"], seat)
        leaders = ([t.leader for t in deal.tricks] + [deal.leader])[:9]
        made = [(t, seat_at(leader, k)) for t, leader in enumerate(leaders)
                for k in range(NUM_SEATS) if deal.sign_of(t, seat_at(leader, k)) >= 0]
        for reader in range(NUM_SEATS):
            listed = [(s["trick"], seat_at(reader, s["seat"])) for s in game.view(reader)["signs"]]
            assert listed == made, (reader, listed, made)
    assert {t.leader for t in deal.tricks} != {0}  # tricks led by other seats than the first


def test_s1_bad_moves_change_nothing():
    game = signs_game()
    view = game.view(0)
    assert view["signing"] and view["your_turn"]
    before = json.dumps(game.snapshot())
    with pytest.raises(GameError, match="make your sign first"):
        game.play(view["hand"][0], view["version"])
    for bad in (10, -1, "3", True, None):
        with pytest.raises(GameError, match="0-9"):
            game.sign(bad, view["version"])
    assert json.dumps(game.snapshot()) == before
    game.sign(3, view["version"])
    view = game.view(0)
    with pytest.raises(GameError, match="already made your sign"):
        game.sign(2, view["version"])
    assert game.sign(3, view["version"] - 1) == []  # the same sign sent again: applied once
    with pytest.raises(ValueError, match="catch"):
        signs_game(catch=1.5)
    plain = GameSession({s: load_player("random") for s in (1, 2, 3)}, {1: "r", 2: "r", 3: "r"},
                        seed=1)
    with pytest.raises(GameError, match="without signs"):
        plain.sign(0, plain.version)


def test_the_default_game_has_no_sign_in_its_views_and_snapshots():
    plain = GameSession({s: load_player("heuristic") for s in (1, 2, 3)},
                        {1: "h", 2: "h", 3: "h"}, seed=1)
    view = plain.view(0)
    assert not {"signs", "signs_on", "signing", "sign_choices", "catch"} & set(view)
    assert "catch" not in plain.snapshot() and "signs" not in plain.snapshot()["current"]


def test_a_restored_game_keeps_its_signs_catches_and_the_turn_between_sign_and_card():
    game = signs_game(catch=0.5)
    rng = random.Random(5)
    checked = 0
    while not game.match.over and checked < 60:
        view = game.view(0)
        if game.deal.done:
            game.next_deal(view["version"])
        elif view["signing"]:
            game.sign(rng.randrange(NUM_SIGNS + 1), view["version"])
        else:
            game.play(rng.choice(view["legal"]), view["version"])
        snap = json.loads(json.dumps(game.snapshot()))
        back = GameSession.restore(snap, lambda spec: load_player(spec))
        assert back.snapshot() == snap and back.view(0) == game.view(0)
        if snap["current"] is not None:  # a finished deal keeps the catches of its signs
            assert list(back.deal.state.caught) == list(game.deal.state.caught)
        checked += 1
    assert len(game.match.history) >= 1  # a finished deal with signs was restored too
    snap = game.snapshot()
    if snap["current"] is not None:
        snap["current"]["caught"] = [99] * 36
        with pytest.raises(ValueError, match="caught"):
            GameSession.restore(snap, load_player)


# ---------------------------------------------------------------------- the web API

def test_api_a_game_with_signs_its_sign_route_and_bad_input():
    with client() as c:
        for body, status in (({"signs": True, "catch": 1.5}, 400), ({"signs": True,
                             "catch": -0.1}, 400), ({"signs": True, "catch": "x"}, 400),
                             ({"signs": True, "catch": True}, 400), ({"catch": 0.5}, 400),
                             ({"signs": "yes"}, 400)):
            r = c.post("/api/games", json=body)
            assert r.status_code == status and r.json()["error"], (body, r.text)
            assert "\n" not in r.json()["error"]
        r = c.post("/api/games", json={"signs": True, "catch": 0.5})
        assert r.status_code == 201
        data = r.json()
        gid, state = data["id"], data["state"]
        assert state["signs_on"] and state["catch"] == 0.5
        assert set(state["players"].values()) == {"heuristic"}  # the signs AI by default
        check_told(game_of(c.app, gid), 0, state, [e for e in data["events"]])
        if not state["signing"]:
            pytest.skip("the first deal did not start at the person's sign")
        v = state["version"]
        for body, status in (({"sign": 10, "version": v}, 400), ({"sign": "1", "version": v}, 400),
                             ({"sign": 1}, 400)):
            assert c.post(f"/api/games/{gid}/sign", json=body).status_code == status
        r = c.post(f"/api/games/{gid}/play", json={"card": state["hand"][0], "version": v})
        assert r.status_code == 409 and "sign first" in r.json()["error"]
        assert c.get(f"/api/games/{gid}").json()["state"]["version"] == v  # nothing changed
        r = c.post(f"/api/games/{gid}/sign", json={"sign": 3, "version": v})
        assert r.status_code == 200
        data = r.json()
        assert [e["text"] for e in data["events"]] == ["You sign: a wink (Le Borgne)."]
        state = data["state"]
        r = c.post(f"/api/games/{gid}/sign", json={"sign": 3, "version": state["version"]})
        assert r.status_code == 409 and "already made your sign" in r.json()["error"]
        for path in ("hint", "review", "record"):
            r = c.get(f"/api/games/{gid}/{path}")
            assert r.status_code == 409 and r.json()["code"] == "signs_match"


def test_api_every_answer_to_every_seat_carries_only_the_signs_it_saw():
    """A table of two people with signs, catch 0.5: every answer to each seat (its
    moves, its looks, the spectator's look) is checked against the game's truth."""
    with client() as c:
        r = c.post("/api/tables", json={"people": {"0": "Ann", "3": "Dan"}, "signs": True,
                                        "catch": 0.5})
        assert r.status_code == 201 and r.json()["signs"] is True
        made = r.json()
        tokens = {int(s): seat["token"] for s, seat in made["seats"].items()}
        watch = made["spectator"]["token"]
        rng = random.Random(9)
        caught_seen = partner_seen = 0
        for _ in range(120):
            game = game_of(c.app, tokens[0])
            if game.deal.done:
                if len(game.match.history) >= 2:
                    break
                r = c.post(f"/api/games/{tokens[0]}/next-deal", json={})
                continue
            seat = game.deal.to_act
            state = c.get(f"/api/games/{tokens[seat]}").json()["state"]
            if state["signing"]:
                r = c.post(f"/api/games/{tokens[seat]}/sign",
                           json={"sign": rng.randrange(NUM_SIGNS + 1), "version": state["version"]})
            else:
                r = c.post(f"/api/games/{tokens[seat]}/play",
                           json={"card": rng.choice(state["legal"]), "version": state["version"]})
            assert r.status_code == 200, r.text
            game = game_of(c.app, tokens[0])
            data = r.json()
            check_told(game, seat, data["state"], data["events"])
            for e in data["events"]:  # the view after each event: a step of the move
                check_told(game, seat, e["view"], [], complete=False)
            for reader, token in (*tokens.items(), (None, watch)):
                look = c.get(f"/api/games/{token}").json()["state"]
                check_told(game, reader, look, [])
                caught_seen += sum(s["caught"] for s in look.get("signs", []))
                partner_seen += sum(s["seat"] == 2 and s["sign"] > 0
                                    for s in look.get("signs", []))
        assert caught_seen and partner_seen


def test_narrator_words_a_caught_sign_without_naming_who_else_saw_it():
    words = Narrator("fr")
    assert words.event({"type": "sign", "seat": 3, "sign": 3, "caught": True})["text"] == \
        "Vous avez surpris un signe — Est : un clin d'œil (Le Borgne)."
    assert Narrator().event({"type": "sign", "seat": 2, "sign": 0,
                             "caught": False})["text"] == "Partner makes no sign."
