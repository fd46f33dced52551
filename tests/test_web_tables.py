"""Friends at one table (aluette_env/apps/web/tables.py): one unguessable
token per person, kept only as a hash; every answer to every seat over a
whole four-person match holds no card another seat has not played; a token
moves only its own seat and a spectator's none; unknown tokens get 403 and,
repeated, 429; updates pushed over a WebSocket that checks its Origin; the
table's AI taking over from a person who left, who then comes back; "My
matches"; a view asked during a move is the view after it."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import random
import re
import threading
import time
import warnings

import numpy as np
import pytest
from sqlalchemy import select, update

from aluette_env.apps.web.store import GameRow, SeatRow, token_hash
from aluette_env.game import seat_at

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's notice about httpx2
    from starlette.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

from web_helpers import cards_in, client, game_of, receive_push

ORIGIN = {"origin": "http://testserver"}


def table(c: TestClient, people: dict[str, str], **extra) -> dict:
    r = c.post("/api/tables", json={"people": people, "ai": "heuristic", **extra})
    assert r.status_code == 201, r.text
    return r.json()


def check_seat_knows_only_its_own(game, seat: int | None, data: dict) -> None:
    """``data``, an answer to ``seat`` (None: a spectator), names no card of
    another seat's hand, nor of the unused cards; its hand is its own."""
    deal = game.deal
    played = {c for t in deal.tricks for c in t.cards} | set(deal.trick_cards)
    own = set(deal.hands[seat]) if seat is not None else set()
    seen = cards_in(data)
    assert seen <= played | own, f"seat {seat} was sent {sorted(seen - played - own)}"
    assert sorted(data["state"]["hand"]) == sorted(own)
    assert data["state"]["your_turn"] == (seat is not None and not deal.done
                                          and deal.to_act == seat)


def test_a_table_gives_each_person_a_token_the_database_keeps_only_hashed():
    c = client()
    made = table(c, {"0": "Ann", "2": "Bob"})
    tokens = [made["seats"]["0"]["token"], made["seats"]["2"]["token"],
              made["spectator"]["token"]]
    assert len(set(tokens)) == 3
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{22,}", t) for t in tokens)  # >= 128 bits
    assert made["seats"]["2"]["link"] == f"/?seat={tokens[1]}"
    with c.app.state.store.db.session() as s:
        rows = s.execute(select(SeatRow)).scalars().all()
        games = s.execute(select(GameRow)).scalars().all()
    assert {r.token_hash for r in rows} == {token_hash(t) for t in tokens}
    stored = json.dumps([[r.token_hash, r.game_id, r.name] for r in rows]
                        + [[g.id, g.state] for g in games])
    assert not any(t in stored for t in tokens)
    assert {r.seat: r.name for r in rows} == {0: "Ann", 2: "Bob", None: ""}


def test_no_answer_to_a_browser_holds_the_tables_database_id():
    """docs/WEB.md: a game's database id never reaches a browser, which holds
    its seats' tokens only (the table's creation, each seat's view, My matches)."""
    c = client()
    r = c.post("/api/tables", json={"people": {"0": "Ann", "2": ""}, "ai": "heuristic",
                                    "signs": True, "catch": 0.5})
    assert r.status_code == 201, r.text
    made = r.json()
    tokens = [made["seats"]["0"]["token"], made["seats"]["2"]["token"],
              made["spectator"]["token"]]
    game_id = c.app.state.service.seat_handle(tokens[0]).game_id
    answers = [r.text, *(c.get(f"/api/games/{t}").text for t in tokens),
               c.post("/api/my-matches", json={"tokens": tokens}).text]
    assert all(game_id not in text for text in answers), game_id
    assert "id" not in made


@pytest.mark.parametrize("body, words", [
    ({"people": {}}, "people: an object of 1 to 4 seats"),
    ({"people": {"4": "x"}}, "people: an object of 1 to 4 seats"),
    ({"people": ["0"]}, "people: an object"),
    ({"people": {"0": "x" * 41}}, "people.0: a display name"),
    ({"people": {"0": "a\nb"}}, "people.0: a display name"),
    ({"people": {"0": "A"}, "ai": "/etc/passwd"}, "unknown AI"),
    ({"people": {"0": "A"}, "away_after": 1}, "away_after must be an integer 5-3600"),
    ({"people": {"0": "A"}, "standin": "nobody"}, "standin: unknown AI"),
    ({"people": {"0": "A"}, "seats": 3}, "unknown field(s) 'seats'"),
])
def test_a_bad_table_request_gets_a_400_that_names_it(body, words):
    r = client().post("/api/tables", json=body)
    assert r.status_code == 400 and words in r.json()["error"], r.text


def test_a_bad_away_time_gets_its_code_and_bounds_for_the_pages_words():
    r = client().post("/api/tables", json={"people": {"0": "A"}, "away_after": 4})
    assert r.status_code == 400, r.text
    assert r.json()["code"] == "away_after" and r.json()["fields"] == {"low": 5, "high": 3600}


@pytest.mark.slow
def test_every_answer_to_every_seat_of_a_four_person_table_hides_the_other_hands():
    """Two whole deals (the first one's end and the next deal included) at a table of four
    people and a spectator: after every move, each seat's answer and view hold its
    own hand and what is public, seats counted from it, and another seat's token
    cannot play for the seat to act. (A whole match's views, deal after deal, are
    test_web.py's for one person.)"""
    c = client()
    made = table(c, {str(s): f"P{s}" for s in range(4)})
    tokens = {s: made["seats"][str(s)]["token"] for s in range(4)}
    watcher = made["spectator"]["token"]
    game = game_of(c.app, tokens[0])
    rng = random.Random(1)
    answers = 0
    while True:
        for seat, token in [*tokens.items(), (None, watcher)]:
            data = c.get(f"/api/games/{token}").json()
            check_seat_knows_only_its_own(game, seat, data)
            answers += 1
            if seat is not None:
                # seats are counted from the viewer: the viewer is south (0)
                to_act = data["state"]["deal"]["to_act"]
                assert to_act is None or to_act == (game.deal.to_act - seat) % 4
                assert data["state"]["match"]["points"] == (
                    game.match.points if seat % 2 == 0 else game.match.points[::-1])
        if len(game.match.history) == 2:
            break
        if game.deal.done:
            r = c.post(f"/api/games/{tokens[rng.randrange(4)]}/next-deal",
                       json={"version": game.version})
            assert r.status_code == 200
            continue
        seat = game.deal.to_act
        others = [s for s in range(4) if s != seat]
        # another seat's token cannot play for it, and is told who is to play,
        # counted from itself as its views count the seats
        other = rng.choice(others)
        wrong = c.post(f"/api/games/{tokens[other]}/play",
                       json={"card": game.deal.hands[seat][0], "version": game.version})
        assert wrong.status_code == 409
        assert f"player_{(seat - other) % 4} is to play" in wrong.json()["error"]
        card = rng.choice(game.deal.legal_cards())
        r = c.post(f"/api/games/{tokens[seat]}/play", json={"card": card, "version": game.version})
        assert r.status_code == 200, r.text
        check_seat_knows_only_its_own(game, seat, r.json())
        answers += 1
    assert answers > 2 * 36 * 5


def _twin_tables(c: TestClient, rng: random.Random, variant, reader: int, cards: int):
    """Two tables of four people and a spectator that ``reader`` cannot tell apart,
    played alike until ``cards`` cards are played: the same hand for the reader and
    the same cards played, the other seats' cards still unplayed then and the unused
    ones dealt anew,
    and (with signs) another sign wherever the reader does not see it (an
    opponent's it did not catch) and other catches by the other seats. Returns
    (the tokens of each table, the moves: (seat, route, body on A, body on B))."""
    from aluette_env.apps.session import GameSession
    from aluette_env.game import deal_cards, team_of

    people = {s: f"P{s}" for s in range(4)}
    deck = list(range(48))
    rng.shuffle(deck)
    hands, unused = deal_cards(deck, 0)

    def session(hands):
        return GameSession({}, {}, seed=5, first_dealer=0, deals=[hands], people=people,
                           variant=variant)

    def others(k: int) -> int:  # the bits of the two opponents of trick slot k's signer
        return (1 << (k % 4 + 1) % 4) | (1 << (k % 4 + 3) % 4)
    caught_a = [rng.getrandbits(4) & others(k) for k in range(36)]
    caught_b = [(rng.getrandbits(4) & others(k) & ~(1 << reader)) | (caught_a[k] & 1 << reader)
                for k in range(36)]
    game = session(hands)  # where the moves are chosen
    if variant.signs:
        game.deal.state.caught[:] = caught_a
    played, plays = set(), []
    while len(played) < cards:
        deal, seat = game.deal, game.deal.to_act
        if variant.signs and deal.signing:
            k = deal.trick_index * 4 + seat
            sign = rng.randrange(10)
            seen = team_of(seat) == team_of(reader) or caught_a[k] >> reader & 1
            plays.append((seat, "sign", {"sign": sign},
                          {"sign": sign if seen else rng.randrange(10)}))
            game.sign(sign, None, seat)
        else:
            card = rng.choice(deal.legal_cards())
            played.add(card)
            plays.append((seat, "play", {"card": card}, {"card": card}))
            game.play(card, None, seat)
    hidden = [x for s in range(4) if s != reader for x in hands[s] if x not in played]
    hidden += unused
    rng.shuffle(hidden)
    twin = []
    for s in range(4):
        kept = list(hands[s]) if s == reader else [x for x in hands[s] if x in played]
        twin.append(kept + hidden[:9 - len(kept)])
        hidden = hidden[9 - len(kept):]
    tokens = []
    for dealt, caught in ((hands, caught_a), (twin, caught_b)):
        g = session(dealt)
        if variant.signs:
            g.deal.state.caught[:] = caught
        tokens.append(c.app.state.service.keep(g, 0.0, dict(people), spectator=True)[1])
    return tokens, plays


@pytest.mark.parametrize("signs", [False, True], ids=["plain", "with-signs"])
def test_a_seat_is_answered_alike_whatever_the_cards_and_signs_it_cannot_see(signs):
    """Two tables a reader cannot tell apart (the other hands and the unused cards
    dealt anew; with signs, the signs it did not see and the others' catches drawn
    anew), played alike: the answers to the reader are the same on both, byte for
    byte (the tokens aside), in English, French and Arabic: its view after every
    move, its own moves' answers, its moves out of turn, its record and a refused
    next deal; and so is the spectator's view every fourth move. So no word of an
    answer tells a hidden card or sign, whatever field holds it."""
    from aluette_env.game import ALUETTE_SIGNS_V0, ALUETTE_V1

    variant = ALUETTE_SIGNS_V0.with_catch(0.5) if signs else ALUETTE_V1
    rng = random.Random(7 + signs)
    c = client()
    reader = rng.randrange(4)
    # Most of a deal: its other cards stay hidden (a whole deal would show them all).
    tokens, plays = _twin_tables(c, rng, variant, reader, rng.randrange(16, 28))

    def answer(table: int, method: str, path: str, **kw) -> tuple[int, str]:
        r = c.request(method, path.format(*(tokens[table][s] for s in (reader, None))), **kw)
        text = r.text
        for token in tokens[table].values():
            text = text.replace(token, "TOKEN")
        return r.status_code, text

    def alike(method: str, path: str, **kw) -> str:
        a, b = answer(0, method, path, **kw), answer(1, method, path, **kw)
        assert a == b, f"{method} {path} {kw}: {a[1][:300]} != {b[1][:300]}"
        return a[1]

    for i, (seat, route, body_a, body_b) in enumerate(plays + [(None, None, None, None)]):
        lang = ("en", "fr", "ar")[i % 3]
        version = json.loads(alike("GET", f"/api/games/{{0}}?lang={lang}"))["state"]["version"]
        if i % 4 == 0 or seat is None:  # the spectator's
            alike("GET", f"/api/games/{{1}}?lang={lang}")
        if seat is None:
            break
        if seat != reader and i % 5 == 0:  # the reader's move out of turn, refused alike
            alike("POST", f"/api/games/{{0}}/{route}?lang={lang}", json=body_a)
        moved = [answer(table, "POST", f"/api/games/{tokens[table][seat]}/{route}?lang={lang}",
                        json={**body, "version": version})
                 for table, body in ((0, body_a), (1, body_b))]
        assert moved[0][0] == moved[1][0] == 200, moved
        if seat == reader:
            assert moved[0] == moved[1], (i, route)
    alike("GET", "/api/games/{0}/record")
    alike("POST", "/api/games/{0}/next-deal?lang=fr", json={"version": version})


def test_each_seat_sees_the_table_counted_from_itself():
    c = client()
    made = table(c, {"0": "Ann", "2": "Bob"})
    ann, bob = (c.get(f"/api/games/{made['seats'][s]['token']}").json()["state"]
                for s in ("0", "2"))
    assert ann["people"] == {"0": "Ann", "2": "Bob"} and bob["people"] == {"0": "Bob", "2": "Ann"}
    assert set(ann["players"]) == set(bob["players"]) == {"1", "3"}
    assert (ann["deal"]["dealer"] - bob["deal"]["dealer"]) % 4 == 2
    assert ann["hand"] != bob["hand"]


def test_a_spectator_sees_public_information_and_can_do_nothing():
    c = client()
    made = table(c, {"0": "Ann", "1": "Bea"})
    watcher = made["spectator"]["token"]
    game = game_of(c.app, watcher)
    data = c.get(f"/api/games/{watcher}").json()
    check_seat_knows_only_its_own(game, None, data)
    assert data["state"]["spectator"] is True and data["state"]["legal"] == []
    for method, path, body in [("POST", "play", {"card": 0, "version": game.version}),
                               ("POST", "next-deal", {}), ("POST", "new-match", {}),
                               ("POST", "players", {"left": "random"}), ("GET", "hint", None),
                               ("GET", "review", None), ("GET", "record", None)]:
        r = c.request(method, f"/api/games/{watcher}/{path}", json=body)
        assert r.status_code == 403 and "spectator" in r.json()["error"], (path, r.text)


def test_unknown_tokens_get_403_and_then_429():
    c = client()
    for k in range(30):
        r = c.get(f"/api/games/guess{k:020d}")
        assert r.status_code == 403 and r.json()["code"] == "no_game"
    r = c.get("/api/games/guess-again-000000000000")
    assert r.status_code == 429 and "too many unknown game links" in r.json()["error"]
    ws_refused(c, "/api/games/guess-again-000000000000/updates", ORIGIN)


def test_the_limit_on_unknown_tokens_is_shared_by_every_server_on_the_database(tmp_path):
    """Two servers (or worker processes) on one database
    count one address's unknown tokens together: 15 guesses at each, and the
    next at either gets 429, a right token included; the window passed, 403."""
    url = f"sqlite:///{tmp_path / 'games.db'}"
    now = [1000.0]
    servers = [client(db=url), client(db=url)]
    for c in servers:
        c.app.state.service.guard.clock = lambda: now[0]
    token = servers[0].post("/api/games").json()["id"]
    for k in range(30):
        r = servers[k % 2].get(f"/api/games/guess{k:020d}")
        assert r.status_code == 403 and r.json()["code"] == "no_game", (k, r.text)
    for c in servers:
        assert c.get("/api/games/guess-again-000000000000").status_code == 429
        assert c.get(f"/api/games/{token}").status_code == 429
    now[0] += 61
    assert servers[1].get("/api/games/guess-again-000000000000").status_code == 403
    assert servers[0].get(f"/api/games/{token}").status_code == 200


def test_the_socket_refuses_an_origin_of_another_scheme():
    """The Origin must be this server's, scheme included;
    with it, the socket opens on the seat's view of the game as it is."""
    c = client()
    token = table(c, {"0": "Ann"})["seats"]["0"]["token"]
    for origin in ("ftp://testserver", "https://testserver", "http://testserver.evil",
                   "null", "testserver"):
        ws_refused(c, f"/api/games/{token}/updates", {"origin": origin})
    game = game_of(c.app, token)
    with c.websocket_connect(f"/api/games/{token}/updates", headers=ORIGIN) as ws:
        first = receive_push(ws, "the game as it is")
    assert first["version"] == game.version and first["state"]["version"] == game.version
    assert first["state"] == c.get(f"/api/games/{token}").json()["state"]
    check_seat_knows_only_its_own(game, 0, first)


def test_a_push_that_never_comes_fails_the_test_in_its_time_instead_of_hanging():
    """The tests' wait for a push (web_helpers.receive_push) gives up on a
    socket nothing is pushed to: the test fails, naming what it waited for,
    and the thread that waited ends once the socket is closed."""
    c = client()
    token = table(c, {"0": "Ann"})["seats"]["0"]["token"]
    with c.websocket_connect(f"/api/games/{token}/updates", headers=ORIGIN) as ws:
        receive_push(ws, "the game as it is")
        with pytest.raises(pytest.fail.Exception,
                           match="no push within 1 s while waiting for a card nobody plays"):
            receive_push(ws, "a card nobody plays", timeout=1)
    for waiting in [t for t in threading.enumerate() if t.name == "receive_push"]:
        waiting.join(30)
        assert not waiting.is_alive(), "the wait went on after its socket closed"


def ws_refused(c: TestClient, path: str, headers: dict) -> None:
    with pytest.raises(WebSocketDisconnect) as refused:
        with c.websocket_connect(path, headers=headers):
            pass
    assert refused.value.code == 1008


def test_updates_are_pushed_to_each_seat_and_the_socket_checks_its_origin():
    c = client()
    made = table(c, {"0": "Ann", "2": "Bob"})
    ann, bob = made["seats"]["0"]["token"], made["seats"]["2"]["token"]
    ws_refused(c, f"/api/games/{bob}/updates", {"origin": "http://evil.example"})
    ws_refused(c, f"/api/games/{bob}/updates", {})
    ws_refused(c, f"/api/games/{bob[:-2]}xx/updates", ORIGIN)
    game = game_of(c.app, ann)
    with c.websocket_connect(f"/api/games/{bob}/updates?lang=fr", headers=ORIGIN) as ws:
        first = receive_push(ws, "the game as it is")
        assert first["version"] == game.version
        assert sorted(first["state"]["hand"]) == sorted(game.deal.hands[2])
        pushed = []
        for _ in range(3):  # the people play; Bob's socket hears of each move
            seat = game.deal.to_act
            token = ann if seat == 0 else bob
            r = c.post(f"/api/games/{token}/play",
                       json={"card": game.deal.legal_cards()[0], "version": game.version})
            assert r.status_code == 200
            message = receive_push(ws, f"the push of seat {seat}'s card")
            assert message["version"] == game.version
            check_seat_knows_only_its_own(game, 2, message)
            pushed.append(message["version"])
        assert pushed == sorted(set(pushed))


def test_the_tables_ai_plays_for_a_person_who_left_until_they_come_back():
    c = client()
    made = table(c, {"0": "Ann", "2": "Bob"}, away_after=30)
    ann, bob = made["seats"]["0"]["token"], made["seats"]["2"]["token"]
    game = game_of(c.app, ann)
    store = c.app.state.store
    # Ann plays until it is Bob's turn
    while game.deal.to_act != 2:
        assert c.post(f"/api/games/{ann}/play", json={
            "card": game.deal.legal_cards()[0], "version": game.version}).status_code == 200
    waiting = c.get(f"/api/games/{ann}").json()["state"]
    assert waiting["deal"]["to_act"] == 2 and waiting["away"] == []  # Bob was here lately
    with store.db.session() as s:  # Bob has not been seen for a minute
        s.execute(update(SeatRow).where(SeatRow.token_hash == token_hash(bob))
                  .values(last_seen=store.clock() - 60))
    state = c.get(f"/api/games/{ann}").json()["state"]
    assert state["away"] == [2] and game.away == {2}
    assert state["deal"]["to_act"] in (0, None)  # the AI played Bob's card, and East's
    assert game.version > waiting["version"]
    # Bob's link takes the seat back: his view, counted from him, shows nobody away
    back = c.get(f"/api/games/{bob}").json()["state"]
    assert back["away"] == [] and game.away == set()
    assert sorted(back["hand"]) == sorted(game.deal.hands[2])
    # ... a new version, kept in the database and pushed to the others' pages
    assert back["version"] == state["version"] + 1
    assert store.version(c.app.state.service.seat_handle(ann).game_id) == back["version"]


def test_my_matches_lists_the_games_of_the_tokens_a_browser_holds():
    c = client()
    solo = c.post("/api/games").json()["id"]
    made = table(c, {"1": "Ann", "3": "Bob"})
    mine = [solo, made["seats"]["1"]["token"], "not-a-token-of-anything"]
    r = c.post("/api/my-matches", json={"tokens": mine})
    assert r.status_code == 200
    matches = {m["token"]: m for m in r.json()["matches"]}
    assert set(matches) == set(mine[:2])
    assert matches[solo]["people"] == 1 and matches[mine[1]]["people"] == 2
    assert matches[solo]["names"] == {} and matches[mine[1]]["names"] == {"2": "Bob"}
    watcher = c.post("/api/my-matches", json={"tokens": [made["spectator"]["token"]]}).json()
    assert watcher["matches"][0]["names"] == {"1": "Ann", "3": "Bob"}
    assert all(m["finished"] is False and m["of"] == 5 for m in matches.values())
    assert all(m["deals"] == 0 and m["deal"] == 1 for m in matches.values())  # shown as is
    assert c.post("/api/my-matches", json={"tokens": "x"}).status_code == 400


class Gate:
    """An AI player that waits, inside its move, until the test opens it."""

    def __init__(self):
        self.entered, self.open = threading.Event(), threading.Event()

    def act(self, obs, mask) -> int:
        self.entered.set()
        assert self.open.wait(30), "the test never opened the gate"
        return int(np.flatnonzero(mask)[0])


def test_a_view_asked_during_a_move_is_the_view_after_it_and_playing_on_it_lands():
    """Bob asks for his view while Ann's play is under way (the AI after her
    still thinking): he is answered the game after the whole move, never a
    move half-done, so the card he plays on that view is accepted."""
    with client() as c:  # one event loop for every request, as in a served app
        _view_during_a_move(c)


def _view_during_a_move(c: TestClient) -> None:
    made = table(c, {"0": "Ann", "2": "Bob"})
    ann, bob = made["seats"]["0"]["token"], made["seats"]["2"]["token"]
    while True:  # the people play until Ann's card is not the last of a trick
        state = c.get(f"/api/games/{ann}").json()["state"]
        if state["your_turn"] and len((state["current_trick"] or {}).get("plays", [])) < 3:
            break
        for token in (ann, bob):
            mine = c.get(f"/api/games/{token}").json()["state"]
            if mine["your_turn"]:
                c.post(f"/api/games/{token}/play", json={"card": mine["legal"][0],
                                                          "version": mine["version"]})
    gate = Gate()
    game_of(c.app, ann).players[1] = gate  # west plays right after Ann
    answers: dict[str, dict] = {}
    service, bob_arrived = c.app.state.service, threading.Event()
    reach = service.reach

    async def reach_and_say(token, *args, **kwargs):
        if token == bob:
            bob_arrived.set()
        return await reach(token, *args, **kwargs)
    service.reach = reach_and_say  # this app's service only

    def ask(name, method, path, body=None):
        r = c.request(method, path, json=body)
        answers[name] = r.json()["state"] if r.status_code == 200 else r.text
    playing = threading.Thread(target=ask, args=("ann", "POST", f"/api/games/{ann}/play",
                                                 {"card": state["legal"][0],
                                                  "version": state["version"]}))
    playing.start()
    assert gate.entered.wait(30), answers
    looking = threading.Thread(target=ask, args=("bob", "GET", f"/api/games/{bob}"))
    looking.start()
    assert bob_arrived.wait(30), answers  # Bob's request is at the server while west thinks
    gate.open.set()
    playing.join(30)
    looking.join(30)
    assert answers["bob"]["version"] == answers["ann"]["version"] >= state["version"] + 2
    seen = answers["bob"]
    if seen["your_turn"]:
        r = c.post(f"/api/games/{bob}/play", json={"card": seen["legal"][0],
                                                    "version": seen["version"]})
        assert r.status_code == 200, r.text


def test_a_new_match_at_a_table_of_people_is_the_hosts_and_every_view_says_who():
    """Bob may not wipe the table's match (403 "host_only", nothing changed);
    Ann, the host, may, and every seat's view and the spectator's then name
    her as the one who started it. Each view says whether its reader may
    start one; an unnamed person ("") is kept unnamed."""
    c = client()
    made = table(c, {"0": "Ann", "2": ""})
    ann, bob = made["seats"]["0"]["token"], made["seats"]["2"]["token"]
    watcher = made["spectator"]["token"]
    before = c.get(f"/api/games/{ann}").json()["state"]
    r = c.post(f"/api/games/{bob}/new-match", json={"version": before["version"]})
    assert r.status_code == 403 and r.json()["code"] == "host_only", r.text
    assert c.get(f"/api/games/{ann}").json()["state"]["version"] == before["version"]
    views = {who: c.get(f"/api/games/{t}").json()["state"]
             for who, t in (("ann", ann), ("bob", bob), ("watcher", watcher))}
    assert {w: v["can_start_match"] for w, v in views.items()} == \
        {"ann": True, "bob": False, "watcher": False}
    assert views["bob"]["people"] == {"0": "", "2": "Ann"} and views["bob"]["host"] == 2
    assert all(v["match"]["started_by"] is None for v in views.values())
    r = c.post(f"/api/games/{ann}/new-match", json={"version": before["version"]})
    assert r.status_code == 200, r.text
    started = {who: c.get(f"/api/games/{t}").json()["state"]["match"]
               for who, t in (("ann", ann), ("bob", bob), ("watcher", watcher))}
    assert {w: (m["number"], m["started_by"]) for w, m in started.items()} == \
        {"ann": (2, 0), "bob": (2, 2), "watcher": (2, 0)}


@pytest.mark.parametrize("signs", [False, True], ids=["plain", "with-signs"])
def test_every_page_of_a_table_is_pushed_every_card_of_every_trick_then_the_trick(signs):
    """Two people and a spectator follow a whole deal and the next one's start
    on their update sockets: each push carries the moves since the last one,
    each with the reader's view after it, so every page shows every card (the
    one that closes a trick, in its trick, before the trick's result), AI
    cards one by one, and no push names a card its reader could not know;
    with signs, a page is told exactly the signs its view lists."""
    with client() as c:  # one event loop for every socket
        made = table(c, {"0": "Ann", "2": "Bob"},
                     **({"signs": True, "catch": 0.5} if signs else {}))
        tokens = {0: made["seats"]["0"]["token"], 2: made["seats"]["2"]["token"],
                  None: made["spectator"]["token"]}
        game = game_of(c.app, tokens[0])
        streams: dict = {seat: [] for seat in tokens}
        with contextlib.ExitStack() as stack:
            sockets = {seat: stack.enter_context(c.websocket_connect(
                f"/api/games/{token}/updates", headers=ORIGIN)) for seat, token in tokens.items()}

            def hear() -> None:  # each page's pushes up to the game's version
                deals = game.match.deals
                played = {card for d in deals for t in d.tricks for card in t.cards} | set(
                    game.deal.trick_cards)
                for seat, ws in sockets.items():
                    # its hands as dealt: the cards it holds and those it played
                    own = set() if seat is None else {card for d in deals for card in d.hands[seat]} | {
                        card for d in deals for t in d.tricks for k, card in enumerate(t.cards)
                        if seat_at(t.leader, k) == seat} | {
                        card for k, card in enumerate(game.deal.trick_cards)
                        if seat_at(game.deal.leader, k) == seat}
                    while True:
                        push = receive_push(ws, f"the pushes to seat {seat} up to "
                                                f"version {game.version}")
                        seen = cards_in(push)
                        assert seen <= played | own, f"seat {seat} was sent {seen - played - own}"
                        streams[seat] += push["events"]
                        if push["version"] == game.version:
                            break
            hear()
            signs_seen = {}
            while True:
                if game.deal.done:  # what each seat's view lists of the finished deal's signs
                    signs_seen = {seat: [(s["seat"], s["sign"]) for s in c.get(
                        f"/api/games/{token}").json()["state"].get("signs", [])]
                        for seat, token in tokens.items()}
                    r = c.post(f"/api/games/{tokens[0]}/next-deal", json={"version": game.version})
                else:
                    move = ("sign", {"sign": 1 + len(game.deal.tricks) % 9}) if game.deal.signing \
                        else ("play", {"card": game.deal.legal_cards()[0]})
                    r = c.post(f"/api/games/{tokens[game.deal.to_act]}/{move[0]}",
                               json={**move[1], "version": game.version})
                assert r.status_code == 200, r.text
                hear()
                if signs_seen:
                    break
            finished = game.match.deals[-2]
        for seat, events in streams.items():
            me = seat or 0
            plays = [e for e in events if e["type"] == "play"]
            expected = [((s - me) % 4, card) for t in finished.tricks
                        for s, card in ((seat_at(t.leader, k), c) for k, c in enumerate(t.cards))]
            assert [(e["seat"], e["card"]) for e in plays][:36] == expected, seat
            assert len([e for e in events if e["type"] == "trick"]) == 9
            for k, e in enumerate(events):
                if e["type"] == "play":  # each card on the table, in the view after it
                    assert e["card"] in [p["card"] for p in e["view"]["current_trick"]["plays"]]
                if e["type"] == "trick":  # the closing card came just before, with the four
                    closing = events[k - 1]
                    assert closing["type"] == "play" and closing["card"] == e["plays"][-1]["card"]
                    assert len(closing["view"]["current_trick"]["plays"]) == 4
            assert [e["type"] for e in events].count("deal_over") == 1
            assert [e["type"] for e in events].count("deal") == 1  # the next deal, dealt
            versions = [e["view"]["version"] for e in events]
            assert versions == sorted(versions) and versions[-1] <= game.version
            first_deal = events[:[e["type"] for e in events].index("deal")]
            told = [(e["seat"], e["sign"]) for e in first_deal if e["type"] == "sign"]
            assert told == signs_seen[seat] and bool(told) == (signs and seat is not None)


def test_the_moves_a_socket_catches_up_on_are_what_the_seat_saw_live_in_any_process():
    """The moves since a position, replayed from a game read back from its row
    (as a worker that did not make them reads it), are the events and views
    the seat was given live, from the middle of a deal across the next deal's
    start, signs and their catches included."""
    c = client()
    made = table(c, {"0": "Ann", "2": "Bob"}, signs=True, catch=0.5)
    game = game_of(c.app, made["seats"]["0"]["token"])
    rng = random.Random(3)
    live_events, live_views = [], []
    start = None
    while len(game.match.deals) < 2 or len(live_events) < 20:
        if start is None and len(game.deal.tricks) == 4:
            start = game.position
        with game.following(2) as views:
            if game.deal.done:
                events = game.next_deal(None, 2)
            elif game.deal.signing:
                events = game.sign(rng.randrange(10), None, game.deal.to_act)
            else:
                events = game.play(rng.choice(game.deal.legal_cards()), None, game.deal.to_act)
        if start is not None:
            live_events += game.events_for(events, 2)
            live_views += views
    read_back = type(game).restore(game.snapshot(), c.app.state.service.pool.stored)
    events, views = read_back.steps_since(start, 2)
    assert read_back.events_for(events, 2) == live_events and views == live_views
    assert any(e["type"] == "sign" and e["seat"] != 0 for e in live_events)
    assert game.steps_since(game.position, 2) == ([], [])
    assert game.steps_since((game.match_number - 1, *start[1:]), 2) is None  # another match


def test_a_turn_that_has_just_begun_is_not_taken_over_by_a_look_during_the_move():
    """Two update sockets check the turn clock at the same moment. The first has
    the stand-in play Bob's card, out of time; the second looks while that move
    is under way in its thread, the game already at Ann's turn but not yet
    written. Ann's turn has only begun: the look leaves her seat alone (it
    used to take the game's new turn with the old turn's start, and had the
    stand-in play for her at once, and so the whole deal)."""
    c = client()
    made = table(c, {"0": "Ann", "2": "Bob"}, away_after=5, standin="random")
    ann = made["seats"]["0"]["token"]
    service, now = c.app.state.service, [time.time()]
    service.clock = c.app.state.store.clock = lambda: now[0]
    game = game_of(c.app, ann)
    while game.deal.to_act != 2:
        assert c.post(f"/api/games/{ann}/play", json={
            "card": game.deal.legal_cards()[0], "version": game.version}).status_code == 200
    now[0] += 6  # Bob is out of time
    mid_move, go_on = threading.Event(), threading.Event()
    save = service.cache.save

    def save_later(handle):  # the move, in its thread, waits here before it is written
        mid_move.set()
        assert go_on.wait(60), "the test never let the move be written"
        return save(handle)
    service.cache.save = save_later  # this app's service only

    async def two_looks() -> None:
        bobs, watchers = (service.seat_handle(made["seats"]["2"]["token"]),
                          service.seat_handle(made["spectator"]["token"]))
        first = asyncio.create_task(service.take_over(watchers))
        assert await asyncio.to_thread(mid_move.wait, 60), "the stand-in never played"
        assert game.deal.to_act == 0 and game.away == {2}  # Ann's turn, not yet written
        second = asyncio.create_task(service.take_over(bobs))
        await asyncio.sleep(0)  # the second look, during the move
        go_on.set()
        await asyncio.wait_for(asyncio.gather(first, second), 60)
    # In a thread of its own: a browser file before this one in the same worker
    # leaves Playwright's event loop running in this thread.
    with concurrent.futures.ThreadPoolExecutor(1) as looks:
        looks.submit(asyncio.run, two_looks()).result()
    assert game.away == {2} and game.deal.to_act == 0
    state = c.get(f"/api/games/{ann}").json()["state"]
    assert state["away"] == [2] and state["your_turn"]


def test_a_friend_out_of_the_turn_clock_is_played_by_the_hosts_ai_page_open_or_not():
    """The host sets a 5 s turn clock and the AI that plays for absent friends
    ("random"; the AI seats play "heuristic"). Bob's page is open but he does
    not play: within the clock nothing happens; past it, with no request from
    anyone, an open page's socket has the host's AI play his card, and his
    page and the spectator's are pushed that card and that he, and only he,
    is away (Ann's turn has just begun). His
    link takes the seat back, and his next card is his own. A one-person
    game has no clock."""
    with client() as c:  # one event loop for every socket
        made = table(c, {"0": "Ann", "2": "Bob"}, away_after=5, standin="random")
        assert made["away_after"] == 5 and made["standin"] == "random"
        ann, bob = made["seats"]["0"]["token"], made["seats"]["2"]["token"]
        service, now = c.app.state.service, [time.time()]
        service.clock = c.app.state.store.clock = lambda: now[0]
        game = game_of(c.app, ann)
        assert game.standin_spec == "random" and set(game.specs.values()) == {"heuristic"}
        while game.deal.to_act != 2:
            assert c.post(f"/api/games/{ann}/play", json={
                "card": game.deal.legal_cards()[0], "version": game.version}).status_code == 200
        with c.websocket_connect(f"/api/games/{bob}/updates", headers=ORIGIN) as bob_page, \
                c.websocket_connect(f"/api/games/{made['spectator']['token']}/updates",
                                    headers=ORIGIN) as watcher:
            waiting = receive_push(bob_page, "Bob's game as it is")["version"]
            receive_push(watcher, "the spectator's game as it is")
            now[0] += 4  # within the clock: Ann looks, nothing moves
            assert c.get(f"/api/games/{ann}").json()["state"]["version"] == waiting
            assert game.deal.to_act == 2 and not game.away
            now[0] += 2
            for page, bobs_seat in ((bob_page, 0), (watcher, 2)):
                events = []
                while True:  # the pushes up to the one that says someone is away
                    push = receive_push(page, "the stand-in's card for Bob (seat "
                                              f"{bobs_seat} on this page)")
                    events += push["events"]
                    if push["state"]["away"]:
                        break
                assert push["state"]["away"] == [bobs_seat], push["state"]["away"]
                assert any(e["type"] == "play" and e["seat"] == bobs_seat for e in events)
        assert game.away == {2} and game.deal.to_act != 2
        back = c.get(f"/api/games/{bob}").json()["state"]
        assert back["away"] == [] and game.away == set()
        while game.deal.to_act != 2:
            assert c.post(f"/api/games/{ann}/play", json={
                "card": game.deal.legal_cards()[0], "version": game.version}).status_code == 200
        r = c.post(f"/api/games/{bob}/play", json={"card": game.deal.legal_cards()[0],
                                                    "version": game.version})
        assert r.status_code == 200, r.text
        solo = c.post("/api/games").json()["id"]
        now[0] += 3600
        alone = c.get(f"/api/games/{solo}").json()["state"]
        assert alone["your_turn"] and alone["away"] == []
