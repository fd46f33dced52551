"""The web game's HTTP API (aluette_env/apps/web): whole matches through the
API checked against what the person's seat may know, every kind of bad
request answered with a 4xx JSON error that leaves the game unchanged (huge,
lying, deep or broken bodies, bad card ids, stale and duplicate plays), AI
moves off the event loop, the bounds on live games, and the ``aluette serve``
command."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import socket
import threading
import random
import os
import re
import signal
import subprocess
import sys
import time
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's notice about httpx2
    from starlette.testclient import TestClient

from aluette_env.apps.web.page import STATIC_DIR
from aluette_env.apps.web.server import ServerConfig, create_app
from aluette_env.apps.web.workers import registered_players
from aluette_env.apps.session import GameError, GameSession
from aluette_env.game import NOBODY, NUM_CARDS, relative_seat, seat_at
from aluette_env.players import load_player

pytestmark = pytest.mark.slow(seconds=120)

FAST = dict(partner="heuristic", left="random", right="heuristic")


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    """``aluette serve`` keeps its games under the user's data directory: a
    temporary one here."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


def client(**config) -> TestClient:
    return TestClient(create_app(ServerConfig(**{**FAST, "seed": 7, **config})))


def session_of(c: TestClient, gid: str) -> GameSession:
    """The game as the server has it (read again if a failed move left it stale)."""
    service = c.app.state.service
    table = service.table(gid)
    service.cache.fresh(table)
    return table.game


def cards_in(data) -> set[int]:
    """Every card id in a response: values of "card", "hand" and "legal"."""
    found: set[int] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            if key in ("card", "beats") and value is not None:
                found.add(value)
            elif key in ("hand", "legal", "tied"):
                found.update(value)
            else:
                found |= cards_in(value)
    elif isinstance(data, list):
        for item in data:
            found |= cards_in(item)
    return found


def keys_in(data) -> set[str]:
    if isinstance(data, dict):
        return set(data) | set().union(*(keys_in(v) for v in data.values()))
    if isinstance(data, list):
        return set().union(*(keys_in(v) for v in data)) if data else set()
    return set()


def check_knowledge(game: GameSession, data: dict) -> None:
    """The response names only the person's hand and cards played in this
    deal: never another seat's hand, never the twelve unused cards."""
    deal = game.deal
    played = {c for t in deal.tricks for c in t.cards} | set(deal.trick_cards)
    hidden = {c for s in (1, 2, 3) for c in deal.hands[s]} | set(deal.unused)
    seen = cards_in(data)
    assert not seen & hidden, f"hidden cards leaked: {sorted(seen & hidden)}"
    assert seen <= played | set(deal.hands[0])
    assert not keys_in(data) & {"hands", "unused", "deck", "holder", "state_vector"}
    state = data["state"]
    assert sorted(state["hand"]) == sorted(deal.hands[0])
    assert state["legal"] == (sorted(deal.hands[0]) if state["your_turn"] else [])
    assert state["your_turn"] == (not deal.done and deal.to_act == 0)


def play_match(c: TestClient, gid: str, rng: random.Random, first: dict) -> dict:
    game = session_of(c, gid)
    check_knowledge(game, first)
    state = first["state"]
    requests = 0
    while not state["match"]["over"]:
        if state["deal"]["done"]:
            r = c.post(f"/api/games/{gid}/next-deal")
        else:
            r = c.post(f"/api/games/{gid}/play", json={"card": rng.choice(state["legal"]),
                                                      "version": state["version"]})
        assert r.status_code == 200, r.text
        data = r.json()
        check_knowledge(game, data)
        state = data["state"]
        requests += 1
        assert requests < 200
    return state


def test_many_matches_through_the_api_reveal_only_the_persons_knowledge():
    c = client()
    rng = random.Random(0)
    for k in range(12):
        r = c.post("/api/games", json={"left": ["random", "heuristic"][k % 2]})
        assert r.status_code == 201
        data = r.json()
        final = play_match(c, data["id"], rng, data)
        game = session_of(c, data["id"])
        assert final["match"]["points"] == game.match.points
        assert len(final["match"]["history"]) == 5
        assert final["summary"]["match_points"] == game.match.points
        # A GET after the match is checked too, then the same session plays again.
        check_knowledge(game, c.get(f"/api/games/{data['id']}").json())
        again = c.post(f"/api/games/{data['id']}/new-match")
        assert again.json()["state"]["match"]["points"] == [0, 0]  # R2: scores cleared
        check_knowledge(game, again.json())


def test_next_deal_and_new_match_sent_again_are_applied_once():
    """A next deal or a new match whose answer was lost is sent again with the
    same version: the answer is the game as it is now, not a 409 and not a
    second deal or match; a new match on an older view is refused (409)."""
    c = client()
    data = c.post("/api/games").json()
    gid, state = data["id"], data["state"]
    rng = random.Random(2)
    while not state["deal"]["done"]:
        state = c.post(f"/api/games/{gid}/play", json={
            "card": rng.choice(state["legal"]), "version": state["version"]}).json()["state"]
    ended = state["version"]
    first = c.post(f"/api/games/{gid}/next-deal", json={"version": ended})
    assert first.status_code == 200 and first.json()["state"]["deal"]["number"] == 2
    again = c.post(f"/api/games/{gid}/next-deal", json={"version": ended})
    assert again.status_code == 200, again.text
    assert again.json()["state"] == first.json()["state"] and again.json()["events"] == []
    now = first.json()["state"]["version"]
    made = c.post(f"/api/games/{gid}/new-match", json={"version": now})
    assert made.status_code == 200 and made.json()["state"]["match"]["number"] == 2
    resent = c.post(f"/api/games/{gid}/new-match", json={"version": now})
    assert resent.status_code == 200 and resent.json()["state"] == made.json()["state"]
    stale = c.post(f"/api/games/{gid}/new-match", json={"version": ended})
    assert stale.status_code == 409 and stale.json()["code"] == "stale"
    assert c.get(f"/api/games/{gid}").json()["state"] == made.json()["state"]
    assert session_of(c, gid).match_number == 2


def test_events_replay_the_deal_as_the_core_played_it():
    c = client()
    data = c.post("/api/games").json()
    gid, events, state = data["id"], list(data["events"]), data["state"]
    game = session_of(c, gid)
    rng = random.Random(1)
    while not state["deal"]["done"]:
        r = c.post(f"/api/games/{gid}/play", json={"card": rng.choice(state["legal"]),
                                                  "version": state["version"]}).json()
        events += r["events"]
        state = r["state"]
    plays = [e for e in events if e["type"] == "play"]
    tricks = [e for e in events if e["type"] == "trick"]
    assert [(e["seat"], e["card"]) for e in plays] == [
        (seat_at(t.leader, k), card) for t in game.deal.tricks for k, card in enumerate(t.cards)]
    # The HTTP API says null for nobody, where the core says NOBODY.
    def who(seat):
        return None if seat == NOBODY else seat
    assert [e["winner"] for e in tricks] == [who(w) for w in game.deal.trick_winners]
    assert events[-1]["type"] == "deal_over"
    summary = events[-1]["summary"]
    score = game.deal.score()
    assert (summary["winner"], summary["points"], summary["mordienne"]) == \
        (who(score.winner), score.points, score.mordienne)
    # Each trick says who took it with which card over which (or the tie), and
    # who leads next, as the core decided (R10-R11).
    names = c.get("/api/i18n/en").json()["cards"]
    for trick, core in zip(tricks, game.deal.tricks):
        if core.winner == NOBODY:
            assert trick["text"].startswith("Spoiled: ")
            assert all(names[card] in trick["text"] for card in trick["why"]["tied"])
        else:
            assert trick["why"]["card"] == core.cards[relative_seat(core.winner, core.leader)]
            assert f"{names[trick['why']['card']]} beats {names[trick['why']['beats']]}." in \
                trick["text"]
    for before, after in zip(tricks, tricks[1:]):
        assert before["next_leader"] == after["leader"]
    assert tricks[-1]["next_leader"] is None


def test_each_event_carries_the_seats_view_just_after_it():
    """The page draws these views and works nothing out: through a whole deal,
    each event's view has the hand sizes, the trick's number and the cards on
    the table as that event left them, and your cards to play only on your turn."""
    c = client()
    data = c.post("/api/games").json()
    gid, played, tricks = data["id"], 0, 0
    while True:
        for e in data["events"]:
            view = e["view"]
            on_table = [p["card"] for p in (view["current_trick"] or {"plays": []})["plays"]]
            if e["type"] == "play":
                played += 1
                assert e["card"] in on_table  # the trick's last card stays on the table too
                assert e["card"] not in view["hand"]
                assert view["deal"]["trick"] == tricks + 1
            elif e["type"] == "trick":
                tricks += 1
                assert on_table == [p["card"] for p in e["plays"]]
                assert view["deal"]["trick"] == e["index"] + 1 == tricks
                assert view["text"]["trick"] == e["text"]  # the trick explained, as it ends
            assert sum(view["hand_sizes"]) == 36 - played
            assert view["hand_sizes"][0] == len(view["hand"]) and view["deal"]["tricks"] == 9
            assert view["legal"] == (sorted(view["hand"]) if view["your_turn"] else [])
            assert view["summary"] is None or e["type"] == "deal_over"
        state = data["state"]
        last = data["events"][-1] if data["events"] else None
        if last is not None and (last["type"] == "deal_over" or "why" not in (
                last["view"]["current_trick"] or {})):
            # the last step is the game as it is (less the finished tricks, in the state)
            assert last["view"] == {k: v for k, v in state.items() if k != "tricks_played"}
        if state["deal"]["done"]:
            break
        data = c.post(f"/api/games/{gid}/play",
                      json={"card": state["legal"][0], "version": state["version"]}).json()
    assert played == 36 and tricks == 9


def test_summary_says_why_the_deal_was_won():
    players = {s: load_player("random", seed=s) for s in (1, 2, 3)}
    reasons = set()
    for seed in range(60):
        game = GameSession(players, {1: "random", 2: "random", 3: "random"}, seed=seed)
        rng = random.Random(seed)
        while not game.deal.done:
            game.play(rng.choice(game.deal.hands[0]))
        s = game.summary
        counts = s["trick_counts"]
        reasons.add(s["reason"])
        if s["winner"] is None:
            assert s["reason"] == "all_spoiled" and max(counts) == 0
            continue
        tied = [p for p in range(4) if p != s["winner"] and counts[p] == counts[s["winner"]]]
        assert s["tied_with"] == tied
        assert s["reason"] == ("mordienne" if s["mordienne"] else
                               "first_to_reach" if tied else "most_tricks")
    assert {"most_tricks", "first_to_reach"} <= reasons


def test_session_ids_are_unguessable_and_distinct():
    c = client()
    ids = {c.post("/api/games").json()["id"] for _ in range(20)}
    assert len(ids) == 20
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{22,}", i) for i in ids)  # >= 128 random bits


@pytest.mark.parametrize("path, body, status, words", [
    ("play", b"{not json", 400, "not valid JSON"),
    ("play", b"[1, 2]", 400, "JSON object"),
    ("play", b"{}", 400, "missing field 'card'"),
    ("play", {"card": "3"}, 400, "card must be an integer 0-47"),
    ("play", {"card": True}, 400, "card must be an integer 0-47"),
    ("play", {"card": 1.0}, 400, "card must be an integer 0-47"),
    ("play", {"card": -1}, 400, "card must be an integer 0-47"),
    ("play", {"card": 48}, 400, "card must be an integer 0-47"),
    ("play", {"card": 99}, 400, "card must be an integer 0-47"),
    ("play", {"card": 10**30}, 400, "card must be an integer 0-47"),
    ("play", {"card": 3}, 400, "missing field 'version'"),
    ("play", {"card": 3, "version": -2}, 400, "version must be an integer >= 0"),
    ("play", b"[" * 2000, 400, "not valid JSON"),
    ("play", b'{"card": ' + b"[" * 1500 + b"]" * 1500 + b"}", 400, "not valid JSON"),
    ("play", b"\xff\xfe", 400, "not valid JSON"),
    ("play", {"card": 3, "seat": 1}, 400, "unknown field(s) 'seat'"),
    ("next-deal", None, 409, "still being played"),
    ("players", {"left": "/etc/passwd"}, 400, "unknown AI"),
    ("players", {"north": "random"}, 400, "unknown field(s) 'north'"),
    ("players", {}, 400, "name at least one seat"),
    ("play", b"x" * 5000, 413, "limit is 4096"),
    ("play", b"x" * 5_000_000, 413, "limit is 4096"),
])
def test_bad_requests_get_a_4xx_json_error_and_leave_the_game_unchanged(path, body, status,
                                                                        words):
    c = client()
    gid = c.post("/api/games").json()["id"]
    before = c.get(f"/api/games/{gid}").json()
    if isinstance(body, bytes):
        r = c.post(f"/api/games/{gid}/{path}", content=body)
    else:
        r = c.post(f"/api/games/{gid}/{path}", json=body)
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/json"
    assert words in r.json()["error"]
    assert c.get(f"/api/games/{gid}").json() == before


def test_a_card_in_hand_out_of_turn_or_after_the_deal_is_refused():
    c = client()
    gid = c.post("/api/games").json()["id"]
    game = session_of(c, gid)
    other = game.deal.hands[1][0]
    r = c.post(f"/api/games/{gid}/play", json={"card": other, "version": game.version})
    assert r.status_code == 409 and "not in your hand" in r.json()["error"]
    while not game.deal.done:
        game.play(game.deal.hands[0][0])
    before = c.get(f"/api/games/{gid}").json()
    r = c.post(f"/api/games/{gid}/play", json={"card": 0, "version": game.version})
    assert r.status_code == 409 and "next deal" in r.json()["error"]
    assert c.get(f"/api/games/{gid}").json() == before
    assert c.post(f"/api/games/{gid}/next-deal").status_code == 200
    with pytest.raises(GameError, match="not your turn: player_1 is to play"):
        game.deal.state.to_act = 1  # as between two AI cards
        game.play(game.deal.hands[0][0])


def test_unknown_games_routes_and_methods_answer_json():
    c = client()
    for method, path, status in [("GET", "/api/games/nope", 403),
                                 ("POST", "/api/games/x/play", 403),
                                 ("GET", "/api/games/nope?lang=xx", 403),
                                 ("GET", "/api/nothing", 404), ("DELETE", "/api/players", 405),
                                 ("GET", "/api/i18n/xx", 404)]:
        r = c.request(method, path)
        assert r.status_code == status
        assert r.json()["error"], (method, path)
    assert "languages: en, fr, ms, it, ar, fi, vi" in c.get("/api/i18n/xx").json()["error"]
    # An unknown game link says so, with a code the page acts on.
    assert c.get("/api/games/nope").json()["code"] == "no_game"
    gid = c.post("/api/games").json()["id"]
    r = c.get(f"/api/games/{gid}?lang=xx")
    assert r.status_code == 400 and "lang: unknown language 'xx'" in r.json()["error"]
    assert c.get("/api/server").json()["idle_seconds"] is None  # games are kept


def test_games_are_kept_beyond_the_ones_held_in_memory():
    c = client(max_games=1)  # one game held in memory; every game is in the database
    first = c.post("/api/games").json()
    second = c.post("/api/games").json()
    assert len(c.app.state.service.cache) == 1
    for data in (first, second, first):
        state = data["state"]
        r = c.post(f"/api/games/{data['id']}/play",
                   json={"card": state["legal"][0], "version": state["version"]})
        assert r.status_code == 200, r.text
        data["state"] = r.json()["state"]
    assert len(c.app.state.service.cache) == 1


def test_each_seat_can_take_any_registered_player():
    c = client()
    offered = c.get("/api/players").json()
    assert {"random", "heuristic", "ai"} <= set(offered["players"])
    assert set(registered_players()) <= set(offered["players"])
    gid = c.post("/api/games", json={"partner": "random", "left": "heuristic"}).json()["id"]
    state = c.get(f"/api/games/{gid}?lang=fr").json()["state"]
    assert state["players"] == {"1": "heuristic", "2": "random", "3": "heuristic"}
    assert state["text"]["players"]["1"] == "Heuristique"  # display names, in the language
    assert c.get("/api/players?lang=vi").json()["labels"]["heuristic"] != "Heuristic"
    r = c.post(f"/api/games/{gid}/players", json={"right": "ai", "left": "random"})
    assert r.status_code == 200 and r.json()["state"]["players"]["3"] == "ai"
    assert session_of(c, gid).players[3] is c.app.state.service.table(gid).game.players[3]
    before = c.get(f"/api/games/{gid}").json()
    r = c.post(f"/api/games/{gid}/players", json={"right": "random", "left": "nope"})
    assert r.status_code == 400 and "left: unknown AI 'nope'" in r.json()["error"]
    assert c.get(f"/api/games/{gid}").json() == before  # all or nothing


def test_a_bad_default_player_fails_at_start_up():
    with pytest.raises(Exception, match="no-such-player"):
        create_app(ServerConfig(partner="no-such-player"))


def test_page_and_assets_are_served_from_the_package_with_a_strict_policy():
    c = client()
    page = c.get("/")
    assert page.status_code == 200 and "<html" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text):
        assert c.get(asset).status_code == 200, asset
    for path in STATIC_DIR.iterdir():
        text = path.read_text(encoding="utf-8")
        # Offline: nothing is fetched from another host (the SVG namespace is a name).
        urls = set(re.findall(r"https?://[^\s\"')]+", text)) - {"http://www.w3.org/2000/svg"}
        assert not urls, (path.name, urls)
    assert "server-timing" in page.headers


def test_the_page_and_its_files_are_compressed_and_cached_by_their_hash():
    c = client()
    page = c.get("/", headers={"accept-encoding": "gzip"})
    assert page.headers["content-encoding"] == "gzip"
    assert page.headers["cache-control"] == "no-cache"  # checked on each load
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assets = re.findall(r'(?:src|href)="(/static/([^"?]+)\?v=([0-9a-f]+))"', page.text)
    assert {name for _, name, _ in assets} == {"app.js", "cards.js", "coach.js", "coach.css",
                                             "style.css", "favicon.svg"}
    for url, name, version in assets:
        content = (STATIC_DIR / name).read_bytes()
        assert hashlib.sha256(content).hexdigest().startswith(version), name
        r = c.get(url, headers={"accept-encoding": "gzip"})
        assert r.status_code == 200 and r.content == content, name  # decompressed by the client
        assert r.headers["cache-control"] == "public, max-age=31536000, immutable", name
        assert "default-src 'self'" in r.headers["content-security-policy"], name
        if len(content) > 2000:
            assert r.headers["content-encoding"] == "gzip", name
            assert int(r.headers["content-length"]) < len(content) / 2, name
    # a file asked by an old or missing hash is checked again, never kept for a year
    assert c.get("/static/app.js?v=0000").headers["cache-control"] == "no-cache"
    assert c.get("/static/app.js").headers["cache-control"] == "no-cache"
    # the API's answers are neither cached nor compressed here
    players = c.get("/api/players", headers={"accept-encoding": "gzip"})
    assert players.headers["cache-control"] == "no-store"
    assert "content-encoding" not in players.headers


def test_wheel_carries_the_page_and_the_catalogs(tmp_path):
    import zipfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path), str(root)], check=True, capture_output=True)
    with zipfile.ZipFile(next(tmp_path.glob("aluette_rl-*.whl"))) as z:
        names = set(z.namelist())
        entry_points = z.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    for path in STATIC_DIR.iterdir():
        assert f"aluette_env/apps/web/static/{path.name}" in names
    assert "aluette_env/apps/locales/messages.pot" in names
    for lang in ("fr", "ms", "it", "ar", "fi", "vi"):
        assert f"aluette_env/apps/locales/{lang}/LC_MESSAGES/messages.po" in names
    assert "serve = aluette_env.apps.web:COMMAND" in entry_points


def test_catalog_and_deck_endpoints():
    c = client()
    ar = c.get("/api/i18n/ar").json()
    assert ar["dir"] == "rtl" and len(ar["cards"]) == NUM_CARDS
    assert c.get("/api/i18n/fr").json()["messages"]["New match"] == "Nouvelle partie"
    deck = c.get("/api/deck").json()
    assert sorted(c for level in deck["levels"] for c in level) == list(range(NUM_CARDS))
    assert deck["levels"][0] == [2]  # Monsieur, highest (R7)
    langs = c.get("/api/languages").json()
    assert list(langs["languages"]) == ["en", "fr", "ms", "it", "ar", "fi", "vi"]


def test_serve_command_binds_loopback_and_prints_its_url():
    proc = subprocess.Popen(
        [sys.executable, "-m", "aluette_env", "serve", "--port", "0",
         "--partner", "random", "--left", "random", "--right", "random"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, (line, proc.stderr.read() if proc.poll() is not None else "")
        import httpx
        r = httpx.get(f"http://127.0.0.1:{m.group(1)}/api/players", timeout=10)
        assert r.status_code == 200 and "random" in r.json()["players"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _descendants(pid: int) -> list[int]:
    """Child processes of every thread of ``pid`` (Linux /proc)."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            found += [int(x) for x in f.read().split()]
    return found


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads Linux /proc")
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL])
def test_a_stopped_server_leaves_no_worker_process_behind(stop):
    """A slow AI seat moves in a worker process; whether the server stops cleanly
    (SIGTERM) or is killed (SIGKILL, no shutdown runs), its workers end too."""
    import httpx
    proc = subprocess.Popen(
        [sys.executable, "-m", "aluette_env", "serve", "--port", "0",
         "--partner", "pimc:worlds=2", "--left", "random", "--right", "random"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = re.search(r"127\.0\.0\.1:(\d+)/", proc.stdout.readline()).group(1)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as c:
            data = c.post("/api/games", json={}).json()
            gid, state = data["id"], data["state"]
            while not _descendants(proc.pid):  # the partner's first move starts a worker
                state = c.post(f"/api/games/{gid}/play",
                               json={"card": state["legal"][0],
                                     "version": state["version"]}).json()["state"]
        workers = _descendants(proc.pid)
    finally:
        proc.send_signal(stop)
        proc.wait(timeout=60)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and any(os.path.exists(f"/proc/{w}") for w in workers):
        time.sleep(0.2)
    assert not [w for w in workers if os.path.exists(f"/proc/{w}")]


@pytest.mark.parametrize("argv, words", [
    (["serve", "--port", "70000"], "--port: must be from 0 to 65,535"),
    (["serve", "--max-games", "0"], "--max-games: must be from 1 to 1,000,000"),
    (["serve", "--partner", "nobody"], "--partner: unknown player 'nobody'"),
    (["serve", "--workers", "0"], "--workers: must be from 1 to 64"),
    (["serve", "--db", "nothing://x"], "--db"),
    (["serve", "--db", "not a url"], "--db: not a database URL"),
    (["serve", "--db", "sqlite:////proc/no/such/dir/games.db"], "--db"),
])
def test_serve_command_rejects_bad_options_in_one_line(argv, words):
    r = subprocess.run([sys.executable, "-m", "aluette_env", *argv],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert words in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "partner: partner" not in r.stderr  # one prefix, not two


def _serve(argv: list[str], monkeypatch, capsys) -> tuple[int, list[str]]:
    """``aluette serve ARGV`` in this process, up to where it would serve (it
    returns instead): the exit code and the lines on stderr."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from aluette_env.commands import run_command
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    monkeypatch.setattr(Multiprocess, "run", lambda self: None)
    # uvicorn's logging setup (dictConfig) closes every handler already made; one of
    # absl's (imported with OpenSpiel or Ray by other test files) then closes the
    # stream it was given at import, pytest's capture of this worker.
    monkeypatch.setattr(uvicorn.Config, "configure_logging", lambda self: None)
    code = run_command(["serve", "--port", "0", "--partner", "random", "--left", "random",
                        "--right", "random", *argv])
    return code, capsys.readouterr().err.strip().splitlines()


def test_a_database_in_memory_is_refused_with_workers_and_noted_alone(monkeypatch, capsys):
    """Issue 40, group 11: every worker would hold its own in-memory database
    (another worker's games unknown: 403), so it is refused with --workers; on
    its own the server says at start that nothing will be kept."""
    for db in ("sqlite://", "sqlite:///:memory:"):
        code, err = _serve(["--db", db, "--workers", "2"], monkeypatch, capsys)
        assert code == 2 and len(err) == 1 and "--workers 2" in err[0], err
        code, err = _serve(["--db", db], monkeypatch, capsys)
        assert code == 0 and len(err) == 1 and "lost when the server stops" in err[0], err
    code, err = _serve([], monkeypatch, capsys)  # the default: a file
    assert code == 0 and err == []


def test_a_database_the_server_cannot_use_stops_it_at_start_in_one_line(tmp_path, monkeypatch,
                                                                       capsys):
    """Issue 40, group 12: a damaged file, a schema of an unknown revision, a
    URL that does not parse, a driver option that would be ignored or a
    database that cannot be written, and an empty --host: one line and exit 2
    before anything is served."""
    import shutil
    import sqlite3
    good = tmp_path / "good.db"
    c = client(db=f"sqlite:///{good}")
    for _ in range(30):
        c.post("/api/games")
    c.app.state.store.db.close()
    data = good.read_bytes()
    (tmp_path / "half.db").write_bytes(data[:len(data) // 2])
    (tmp_path / "header.db").write_bytes(bytes(range(100)) + data[100:])
    shutil.copy(good, tmp_path / "later.db")
    with sqlite3.connect(tmp_path / "later.db") as raw:
        raw.execute("UPDATE alembic_version SET version_num = '9999'")
    cases = [
        (["--db", f"sqlite:///{tmp_path / 'half.db'}"], "malformed"),
        (["--db", f"sqlite:///{tmp_path / 'header.db'}"], "not a database"),
        (["--db", f"sqlite:///{tmp_path / 'later.db'}"], "'9999'"),
        (["--db", "postgresql+psycopg://postgres@[::1:15433/aluette"], "not a database URL"),
        (["--db", f"sqlite:///{good}?mode=ro"], "'mode'"),
        (["--db", f"sqlite:///file:{good}?mode=ro&uri=true"], "readonly"),
        (["--host", ""], "--host"),
        (["--host", " "], "--host"),
    ]
    for argv, words in cases:
        code, err = _serve(argv, monkeypatch, capsys)
        assert code == 2 and len(err) == 1 and words in err[0], (argv, err)
        assert "Traceback" not in err[0] and "Background" not in err[0]


def test_views_are_json_without_surprises():
    c = client()
    data = c.post("/api/games").json()
    json.dumps(data)
    assert set(data["state"]) >= {"match", "deal", "hand", "legal", "current_trick", "last_trick",
                                  "counts", "reach_order", "leading", "mordienne", "summary",
                                  "version", "text", "in_progress"}


def test_a_stale_play_gets_409_and_a_play_sent_twice_is_applied_once():
    c = client()
    data = c.post("/api/games").json()
    gid, state = data["id"], data["state"]
    body = {"card": state["legal"][0], "version": state["version"]}
    assert c.post(f"/api/games/{gid}/play", json=body).status_code == 200
    before = c.get(f"/api/games/{gid}").json()
    again = c.post(f"/api/games/{gid}/play", json=body)  # sent again: its answer was lost
    assert again.status_code == 200 and again.json()["events"] == []
    assert again.json()["state"] == before["state"]
    other = c.post(f"/api/games/{gid}/play",
                   json={"card": before["state"]["hand"][0], "version": state["version"]})
    assert other.status_code == 409 and "older view" in other.json()["error"]
    assert c.get(f"/api/games/{gid}").json() == before


def test_two_plays_sent_at_once_land_once():
    import httpx

    app = create_app(ServerConfig(**FAST, seed=3))

    async def main():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as ac:
            data = (await ac.post("/api/games")).json()
            gid, state = data["id"], data["state"]
            a, b = state["hand"][:2]
            replies = await asyncio.gather(*(
                ac.post(f"/api/games/{gid}/play", json={"card": card,
                                                        "version": state["version"]})
                for card in (a, b)))
            return sorted(r.status_code for r in replies), gid

    statuses, gid = asyncio.run(main())
    assert statuses == [200, 409]
    game = app.state.service.table(gid).game
    played = [c for t in game.deal.tricks for c in t.cards] + list(game.deal.trick_cards)
    assert game.deal.hands[0] and len(game.deal.hands[0]) == 8  # one card left the hand
    assert len(played) >= 1


class BlockingPlayer:
    """A random player whose deal reset waits until released: a slow AI seat."""

    def __init__(self):
        self.inner = load_player("random")
        self.entered = threading.Event()
        self.release = threading.Event()

    def act(self, obs, mask):
        return self.inner.act(obs, mask)

    def reset(self, seed=None):
        self.entered.set()
        assert self.release.wait(30), "the test never released the slow player"


def test_a_slow_ai_seat_delays_only_its_own_game():
    import httpx

    app = create_app(ServerConfig(**FAST, seed=5))
    slow = BlockingPlayer()

    async def main():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as ac:
            a = (await ac.post("/api/games")).json()["id"]
            b = (await ac.post("/api/games")).json()["id"]
            game_a = app.state.service.table(a).game
            for seat in (1, 2, 3):
                game_a.players[seat] = slow
            moving = asyncio.create_task(ac.post(f"/api/games/{a}/new-match"))
            while not slow.entered.is_set():
                await asyncio.sleep(0.01)
            # Game A's AI is busy in a worker: game B still answers.
            other = await asyncio.wait_for(ac.get(f"/api/games/{b}"), timeout=20)
            state_b = other.json()["state"]
            played = await asyncio.wait_for(
                ac.post(f"/api/games/{b}/play", json={"card": state_b["legal"][0],
                                                      "version": state_b["version"]}),
                timeout=20)
            assert not moving.done()
            slow.release.set()
            return other.status_code, played.status_code, (await moving).status_code

    assert asyncio.run(main()) == (200, 200, 200)


@pytest.fixture(scope="module")
def live_server():
    import uvicorn

    app = create_app(ServerConfig(**FAST, seed=9))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(600):
        if server.started:
            break
        threading.Event().wait(0.05)
    yield app, sock.getsockname()[1]
    server.should_exit = True
    thread.join(timeout=10)


def test_serve_trusts_no_forwarded_address_and_closes_a_bad_frame_in_one_line(caplog):
    """Issue 40, group 15, with the settings ``aluette serve`` gives uvicorn:
    ``X-Forwarded-For`` from a client is not its address (rotating it does not
    escape the limit on unknown tokens) unless ``--proxy`` names the sender; a
    WebSocket text frame that is not UTF-8 closes the socket (1007) with one
    log line, no traceback."""
    import base64

    import httpx
    import uvicorn

    from aluette_env.apps.web.limits import uvicorn_options
    app = create_app(ServerConfig(**FAST, seed=9))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, **uvicorn_options()))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    port = sock.getsockname()[1]
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=20) as c:
            token = c.post("/api/tables", json={"people": {"0": "Ann"}}).json()["seats"]["0"][
                "token"]
        caplog.clear()
        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
            s.sendall((f"GET /api/games/{token}/updates HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                       f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
                       f"{base64.b64encode(os.urandom(16)).decode()}\r\nSec-WebSocket-Version: "
                       f"13\r\nOrigin: http://127.0.0.1:{port}\r\n\r\n").encode())
            assert s.recv(4096).startswith(b"HTTP/1.1 101")
            mask, payload = os.urandom(4), b"\xff\xfe not UTF-8"
            s.sendall(bytes([0x81, 0x80 | len(payload)]) + mask
                      + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
            answer = b""
            while b"\x88\x02\x03\xef" not in answer:  # a close frame, code 1007
                chunk = s.recv(4096)
                assert chunk, answer
                answer += chunk
        time.sleep(0.2)
        assert "not UTF-8" in caplog.text and "Traceback" not in caplog.text
        assert not any(r.exc_info for r in caplog.records), caplog.text[-2000:]
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=20) as c:
            codes = [c.get(f"/api/games/guess{k:020d}",
                           headers={"x-forwarded-for": f"10.0.{k // 250}.{k % 250}"}).status_code
                     for k in range(31)]
            assert codes == [403] * 30 + [429], codes
        assert uvicorn_options("127.0.0.1")["proxy_headers"] is True  # aluette serve --proxy
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def raw_request(port: int, head: str, body: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(head.encode() + b"\r\n" + body)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = s.recv(4096)  # a hang would raise socket.timeout
            if not chunk:
                break
            answer += chunk
        return answer


def test_a_huge_or_lying_content_length_gets_413_at_once(live_server):
    app, port = live_server
    gid = app.state.service.keep(session_of_new(app))[1][0]
    for length in (1_000_000_000, 5_000_000):
        head = (f"POST /api/games/{gid}/play HTTP/1.1\r\nHost: t\r\n"
                f"Content-Type: application/json\r\nContent-Length: {length}\r\n")
        answer = raw_request(port, head, b'{"card": 1')  # 10 bytes sent, then nothing
        assert answer.startswith(b"HTTP/1.1 413"), answer[:80]


def session_of_new(app) -> GameSession:
    players = {s: load_player("random") for s in (1, 2, 3)}
    return GameSession(players, {1: "random", 2: "random", 3: "random"}, seed=1)


def test_a_client_disconnecting_mid_body_is_one_log_line(caplog):
    """The line names the request's path with its seat token cut short: a
    log must not hand out a link that plays the seat."""
    app = create_app(ServerConfig(**FAST, seed=2))
    gid = app.state.service.keep(session_of_new(app))[1][0]
    sent = []
    parts = [{"type": "http.request", "body": b'{"card": ', "more_body": True}]

    async def receive():
        return parts.pop(0) if parts else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": f"/api/games/{gid}/play",
             "raw_path": f"/api/games/{gid}/play".encode(), "query_string": b"",
             "headers": [(b"content-type", b"application/json"), (b"content-length", b"40")],
             "http_version": "1.1", "scheme": "http", "server": ("t", 80),
             "client": ("127.0.0.1", 1), "root_path": ""}
    with caplog.at_level(logging.INFO):
        asyncio.run(app(scope, receive, send))
    records = [r for r in caplog.records if r.name.startswith(("aluette", "uvicorn", "starlette"))]
    assert len(records) == 1 and "disconnected" in records[0].getMessage()
    assert records[0].exc_info is None and "Traceback" not in caplog.text
    assert gid not in caplog.text and f"/api/games/{gid[:4]}\u2026/play" in caplog.text


def test_serve_warns_when_other_machines_can_reach_it():
    proc = subprocess.Popen(
        [sys.executable, "-m", "aluette_env", "serve", "--host", "0.0.0.0", "--port", "0",
         "--partner", "random", "--left", "random", "--right", "random"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert "http://0.0.0.0:" in line
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert "reachable from other machines" in err


def test_slow_players_move_in_a_worker_process():
    import numpy as np

    from aluette_env.apps.web.workers import SLOW_PLAYERS, AiWorkers, PlayerPool, RemotePlayer
    from aluette_env.observation import OBS_SIZE

    assert {"expert", "pimc"} <= SLOW_PLAYERS
    workers = AiWorkers(1)
    pool = PlayerPool(["expert", "random"], workers)
    assert isinstance(pool.get("expert", "left"), RemotePlayer)
    assert not isinstance(pool.get("random", "left"), RemotePlayer)
    mask = np.zeros(NUM_CARDS, np.int8)
    mask[[5, 17]] = 1
    try:
        obs = np.zeros(OBS_SIZE, np.int8)  # the random player reads only the mask
        assert workers.act("random", obs, mask) in (5, 17)  # moved in another process
    finally:
        workers.close()


# ----------------------------------------- bad-input sweep (issue 33): the server


def _kill_all(pids: list[int]) -> None:
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(os.path.exists(f"/proc/{p}") and
                                              open(f"/proc/{p}/stat").read().split(") ")[1][0]
                                              != "Z" for p in pids if os.path.exists(f"/proc/{p}")):
        time.sleep(0.1)


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads Linux /proc")
def test_killed_worker_processes_are_replaced_and_their_jobs_retried():
    """Group 3: SIGKILL of the AI worker, the hint worker or the review worker:
    the next move, hint or review is answered as if nothing happened (the worker
    is restarted and the job retried), never a 500 and never a stuck game."""
    with client(partner="pimc:worlds=2", hint_worlds=1, review_worlds=1) as c:
        data = c.post("/api/games", json={}).json()
        gid, state = data["id"], data["state"]
        ai = c.app.state.ai_workers.pool
        coach = c.app.state.coach.workers.pools

        def play() -> dict:
            r = c.post(f"/api/games/{gid}/play",
                       json={"card": state["legal"][0], "version": state["version"]})
            assert r.status_code == 200, r.text
            return r.json()["state"]

        while not ai.processes():
            state = play()
        _kill_all(ai.processes())
        while state["your_turn"]:
            state = play()  # the partner's moves run in a new worker
            assert c.get(f"/api/games/{gid}").status_code == 200
            if state["your_turn"]:
                assert c.get(f"/api/games/{gid}/hint").status_code == 200
                if coach["hint"].processes():
                    _kill_all(coach["hint"].processes())
                    r = c.get(f"/api/games/{gid}/hint")
                    assert r.status_code == 200, r.text
        assert state["deal"]["done"] and ai.restarts >= 1 and coach["hint"].restarts >= 1
        deadline = time.monotonic() + 120
        while not coach["review"].processes() and time.monotonic() < deadline:
            time.sleep(0.05)
        _kill_all(coach["review"].processes())
        review = None
        while review is None and time.monotonic() < deadline:
            r = c.get(f"/api/games/{gid}/review")
            assert r.status_code == 200, r.text
            review = r.json()["deals"][0]
            time.sleep(0.2)
        assert review is not None and review["deal"] == 0


def test_a_move_stopped_by_a_dead_worker_answers_503_and_the_game_goes_on():
    """Group 3: when the restarted worker fails too, the move answers a 503 JSON
    error; the game is not stuck: nothing of the unanswered play was kept (the
    database holds the game as it was), and the play sent again lands."""
    from aluette_env.apps.web.workers import WorkerUnavailable

    class Flaky:
        name = "flaky"

        def __init__(self):
            self.failures = 1
            self.inner = load_player("random", seed=1)

        def act(self, obs, mask):
            if self.failures:
                self.failures -= 1
                raise WorkerUnavailable("the AI player process stopped and is being restarted")
            return self.inner.act(obs, mask)

    c = client()
    data = c.post("/api/games", json={}).json()
    gid, state = data["id"], data["state"]
    game = session_of(c, gid)
    while not state["your_turn"]:
        state = c.post(f"/api/games/{gid}/next-deal", json={}).json()["state"]
    game.players[1] = Flaky()  # west moves right after the person
    r = c.post(f"/api/games/{gid}/play", json={"card": state["legal"][0],
                                                "version": state["version"]})
    assert r.status_code == 503 and r.headers["content-type"] == "application/json"
    assert r.json()["code"] == "worker_restarting" and "restarted" in r.json()["error"]
    again = session_of(c, gid)
    assert again is not game and again.version == state["version"] and not again.ai_to_move
    assert c.get(f"/api/games/{gid}").json()["state"]["legal"] == state["legal"]
    r = c.post(f"/api/games/{gid}/play", json={"card": state["legal"][0],
                                                "version": state["version"]})
    assert r.status_code == 200
    game = session_of(c, gid)
    assert not game.ai_to_move and (r.json()["state"]["your_turn"] or game.deal.done)


def test_coach_routes_refuse_an_unknown_language_as_the_others_do():
    """Group 17: ?lang=xx is a 400 on the coach's routes too."""
    c = client()
    gid = c.post("/api/games", json={}).json()["id"]
    for path in (f"/api/games/{gid}/hint", f"/api/games/{gid}/review",
                 f"/api/games/{gid}/record", f"/api/games/{gid}"):
        r = c.get(path + "?lang=xx")
        assert r.status_code == 400 and "lang" in r.json()["error"], path


def test_a_play_with_a_future_version_is_not_called_older():
    """Group 17: a version the game never had is named as such."""
    c = client()
    data = c.post("/api/games", json={}).json()
    gid, state = data["id"], data["state"]
    r = c.post(f"/api/games/{gid}/play", json={"card": state["legal"][0],
                                                "version": state["version"] + 5})
    assert r.status_code == 409 and "newer" in r.json()["error"]
    assert "older" not in r.json()["error"]


def test_an_upload_with_a_lone_surrogate_is_refused_and_nothing_answers_500():
    """Group 2 on the web: the record is refused when loaded (400), so no later
    route has to encode it."""
    from aluette_env.records import record_of
    from aluette_env import game as core
    rng = random.Random(3)
    deals = core.play_match(lambda deal, _: rng.choice(deal.legal_cards()), rng, 0, 1)
    record = record_of(deals, 0, ["human", "\ud800", "ai", "ai"], num_deals=1)
    c = client()
    body = json.dumps(record).encode()  # the surrogate as a JSON escape
    r = c.post("/api/records", content=body)
    assert r.status_code == 400 and "players.player_1" in r.json()["error"]


def _read_answer(sock: socket.socket, seconds: float) -> tuple[bytes, float]:
    sock.settimeout(seconds)
    start, answer = time.monotonic(), b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    except OSError:
        pass
    return answer, time.monotonic() - start


def test_serve_bounds_every_request_in_size_and_time():
    """Groups 5 and 17: on the real server (``aluette serve``), a lying
    Content-Length is refused at once on every route, the uploads' included; a
    request whose headers or body stall is answered 408 and closed; a malformed
    Content-Length gets the API's JSON 400, not uvicorn's plain text."""
    from aluette_env.apps.web import limits
    proc = subprocess.Popen(
        [sys.executable, "-m", "aluette_env", "serve", "--port", "0",
         "--partner", "random", "--left", "random", "--right", "random"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = int(re.search(r"127\.0\.0\.1:(\d+)/", proc.stdout.readline()).group(1))
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)

        def send(data: bytes) -> socket.socket:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(data)
            return s

        slow_head = send(b"GET /api/players HTTP/1.1\r\nHost: t\r\n")  # never ends
        slow_body = send(b"POST /api/games HTTP/1.1\r\nHost: t\r\nContent-Type: application/"
                         b"json\r\nContent-Length: 100\r\n\r\n{")
        for path in ("/api/records", "/api/games"):
            lying = send(f"POST {path} HTTP/1.1\r\nHost: t\r\nContent-Length: 62914560\r\n\r\n"
                         .encode() + b"x" * 11_000)
            answer, seconds = _read_answer(lying, 10)
            assert answer.startswith(b"HTTP/1.1 413") and seconds < 5, (path, answer[:60])
            assert b'{"error": ' in answer
        bad = send(b"POST /api/games HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n")
        answer, _ = _read_answer(bad, 10)
        assert answer.startswith(b"HTTP/1.1 400") and b"application/json" in answer
        assert b'{"error": ' in answer
        answer, seconds = _read_answer(slow_head, limits.HEADER_TIMEOUT_S + 10)
        assert answer.startswith(b"HTTP/1.1 408") and seconds < limits.HEADER_TIMEOUT_S + 5
        answer, seconds = _read_answer(slow_body, limits.BODY_TIMEOUT_S + 10)
        assert answer.startswith(b"HTTP/1.1 408") and b'{"error": ' in answer
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_service_store_and_workers_import_no_web_framework():
    """The service owns the game's every step and the store only persists:
    neither they nor what they import of this package load Starlette (the
    routes' modules do)."""
    import ast
    from pathlib import Path

    import aluette_env.apps.web as web

    root = Path(web.__file__).parent
    for name in ("service", "store", "workers", "errors", "changes"):
        tree = ast.parse((root / f"{name}.py").read_text(encoding="utf-8"))
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module or "" for n in ast.walk(tree)
                     if isinstance(n, ast.ImportFrom) and not n.level}
        ours = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level}
        assert not any(m.split(".")[0] in ("starlette", "uvicorn") for m in imported), name
        assert not ours & {"server", "inputs", "page", "game_api", "tables", "coach_api",
                           "limits"}, name
