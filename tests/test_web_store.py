"""The web game's games in a database (aluette_env/apps/web/store.py): the
schema made by Alembic, a game's snapshot replayed through the rules (a
tampered row refused), every answered play kept across SIGKILLs of the
server, a play sent again applied once, a change of AI seats kept, two
worker processes serving one game (alternating requests, and concurrent
plays: one lands, the other 409), an update socket on one worker pushing the
moves made through another (SQLite: polling; PostgreSQL: LISTEN/NOTIFY),
and the same on a real PostgreSQL server where Debian's ``postgresql`` can
be started (skipped otherwise, with the reason)."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

import httpx
from sqlalchemy import select, update

from aluette_env.apps.session import GameSession
from aluette_env.apps.web.changes import POLL_S, SAFETY_POLL_S
from aluette_env.apps.web.store import Database, GameRow, SeatRow, token_hash
from aluette_env.players import load_player

from web_helpers import HTTP, Served, client, free_port, receive_push


def next_request(state: dict, rng: random.Random) -> tuple[str, dict]:
    """The request a person makes on ``state``: a play, the next deal, or a new
    match once the match is over (a thread that plays on reaches it)."""
    if state["match"]["over"]:
        return "new-match", {"version": state["version"]}
    if state["deal"]["done"]:
        return "next-deal", {"version": state["version"]}
    return "play", {"card": rng.choice(state["legal"]), "version": state["version"]}


# ------------------------------------------------------------------ in process


def test_a_game_survives_its_app_and_the_schema_is_versioned(tmp_path):
    url = f"sqlite:///{tmp_path / 'games.db'}"
    rng = random.Random(1)
    with client(db=url, seed=4) as c:
        data = c.post("/api/games").json()
        token, state = data["id"], data["state"]
        for _ in range(20):
            path, body = next_request(state, rng)
            state = c.post(f"/api/games/{token}/{path}", json=body).json()["state"]
    db = Database(url)
    assert db.schema_version() == "0004"
    with db.session() as s:
        row = s.execute(select(GameRow)).scalar_one()
        seat = s.execute(select(SeatRow)).scalar_one()
    assert row.version == state["version"]
    assert seat.token_hash == token_hash(token) and token not in (seat.token_hash, row.id)
    snapshot = json.loads(row.state)
    assert snapshot["record"]["format"] == "aluette-match"  # the match record, docs/RECORDS.md
    with client(db=url, seed=None) as c:  # a new server
        assert c.get(f"/api/games/{token}").json()["state"] == {**state, "text": c.get(
            f"/api/games/{token}").json()["state"]["text"]}


@pytest.mark.parametrize("tamper, words", [
    (lambda s: s["current"]["plays"].append([0, 99]), "current.plays"),
    (lambda s: s["record"]["deals"].append({"hands": [], "plays": [], "result": {}}),
     "deals"),
    (lambda s: s["current"]["hands"][0].__setitem__(0, s["current"]["hands"][1][0]),
     "dealt twice"),
])
def test_a_tampered_row_is_refused(tmp_path, tamper, words, caplog):
    """The reason is the server log's: the answer names no card (the one dealt
    twice is hidden from most seats) and not the game's id."""
    url = f"sqlite:///{tmp_path / 'games.db'}"
    c = client(db=url, seed=5)
    token = c.post("/api/games").json()["id"]
    db = Database(url)
    with db.session() as s:
        row = s.execute(select(GameRow)).scalar_one()
        gid = row.id
        snapshot = json.loads(row.state)
        tamper(snapshot)
        s.execute(update(GameRow).values(state=json.dumps(snapshot), version=row.version + 1))
    r = c.get(f"/api/games/{token}")
    assert r.status_code == 500 and r.json()["code"] == "damaged"
    assert words in caplog.text and gid in caplog.text and token not in caplog.text
    answer = r.text
    assert gid not in answer and not re.search(r"card|\d", r.json()["error"]), answer


def _edit_row(url: str, edit) -> None:
    """Change a stored game's rows behind the server's back (``edit(row, seats)``)."""
    db = Database(url)
    with db.session() as s:
        row = s.execute(select(GameRow)).scalar_one()
        edit(row, s.execute(select(SeatRow)).scalars().all())
    db.close()


def _snapshot_edit(change):
    def edit(row, seats):
        snapshot = json.loads(row.state)
        change(snapshot)
        row.state, row.version = json.dumps(snapshot), row.version + 1
    return edit


def _state(text):
    def edit(row, seats):
        row.state, row.version = text, row.version + 1
    return edit


def _seat(value):
    def edit(row, seats):
        for seat in seats:
            seat.seat = value
    return edit


@pytest.mark.parametrize("edit", [
    _snapshot_edit(lambda s: s.pop("people")),
    _snapshot_edit(lambda s: s["current"].pop("hands")),
    _state("null"),
    _state("[]"),
    _snapshot_edit(lambda s: s.__setitem__("recent", 5)),
    _state("[" * 100_000 + "]" * 100_000),
    _seat(7),
    _seat(1),  # an AI's seat: no person sits there
    _snapshot_edit(lambda s: s["specs"].__setitem__("1", "/etc/passwd")),
    _snapshot_edit(lambda s: s.__setitem__("match_number", "x")),
], ids=["no people", "no current.hands", "state null", "state []", "recent 5",
        "nested 100000 deep", "seats.seat 7", "seats.seat of an AI", "AI /etc/passwd",
        "match_number text"])
def test_any_malformed_row_is_damaged_on_every_route(tmp_path, edit, caplog):
    """Whatever was edited in a game's rows, every route of its token answers
    the JSON 500 ``{"code": "damaged"}`` with one log line and no traceback
    (the test client raises any exception the app lets through)."""
    url = f"sqlite:///{tmp_path / 'games.db'}"
    c = client(db=url, seed=5)
    data = c.post("/api/games").json()
    token, version = data["id"], data["state"]["version"]
    _edit_row(url, edit)
    c.app.state.service.cache.forget(next(iter(c.app.state.service.cache._games)))  # read from the row
    caplog.clear()
    requests = [("GET", f"/api/games/{token}", None),
                ("POST", f"/api/games/{token}/play", {"card": data["state"]["legal"][0],
                                                      "version": version}),
                ("POST", f"/api/games/{token}/next-deal", {"version": version}),
                ("POST", f"/api/games/{token}/new-match", {}),
                ("POST", f"/api/games/{token}/players", {"left": "random"}),
                ("GET", f"/api/games/{token}/hint", None),
                ("GET", f"/api/games/{token}/review", None),
                ("GET", f"/api/games/{token}/record", None)]
    for method, path, body in requests:
        r = c.request(method, path, json=body)
        assert (r.status_code, r.json()["code"]) == (500, "damaged"), (path, r.text)
    warnings_ = [rec for rec in caplog.records if rec.levelname == "WARNING"]
    assert len(warnings_) == len(requests) and not any(rec.exc_info for rec in caplog.records)
    assert all("\n" not in rec.getMessage() for rec in warnings_)
    assert c.post("/api/my-matches", json={"tokens": [token]}).status_code == 200
    assert c.post("/api/games").status_code == 201  # the server serves the other games


def test_snapshots_restore_or_raise_valueerror_whatever_is_changed():
    """Any field of a snapshot replaced or removed: the game restores (and its
    every view is drawn) or the change is refused as ValueError, the one
    error the store turns into "damaged"."""
    specs = {1: "heuristic", 2: "random", 3: "heuristic"}
    game = GameSession({s: load_player(v) for s, v in specs.items()}, specs, seed=3)
    rng = random.Random(2)
    for _ in range(30):
        view = game.view()
        if view["deal"]["done"]:
            game.next_deal(view["version"])
        else:
            game.play(rng.choice(view["legal"]), view["version"])
    base = game.snapshot()

    def paths(x, path=()):
        yield path
        children = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(
            x, list) else ()
        for key, value in children:
            yield from paths(value, path + (key,))

    def player(spec):
        if spec not in specs.values():
            raise ValueError(f"no AI {spec!r}")
        return load_player(spec)

    every = list(paths(base))[1:]
    values = [None, [], {}, 5, -1, 10**30, "x", True, 1.5, [[]], {"a": 1}, [0, 1]]
    for _ in range(1500):
        snapshot = json.loads(json.dumps(base))
        path = rng.choice(every)
        parent = snapshot
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and rng.random() < 0.2:
            del parent[path[-1]]
        else:
            parent[path[-1]] = rng.choice(values)
        try:
            again = GameSession.restore(snapshot, player)
        except ValueError:
            continue
        for seat in (None, 0, 1, 2, 3):
            again.view(seat)
        again.snapshot()



def _full(connection, record) -> None:
    # SQLite's own limit on the file's size, at the size it has now: a write
    # that needs one more page fails with SQLITE_FULL, as on a full disk.
    size = connection.execute("PRAGMA page_count").fetchone()[0]
    connection.execute(f"PRAGMA max_page_count = {size}")


FAILED_WRITES = {
    # A write of the game needs a megabyte more (a trigger), on a file that cannot grow.
    "disk full": ("CREATE TABLE filler (b BLOB); CREATE TRIGGER fill AFTER UPDATE ON games "
                  "BEGIN INSERT INTO filler VALUES (zeroblob(1000000)); END;",
                  "database or disk is full"),
    # The statements pass and the COMMIT itself is refused (a deferred foreign key).
    "commit refused": ("CREATE TABLE dangling (game_id TEXT REFERENCES games(id) DEFERRABLE "
                       "INITIALLY DEFERRED); CREATE TRIGGER fill AFTER UPDATE ON games "
                       "BEGIN INSERT INTO dangling VALUES ('no such game'); END;",
                       "FOREIGN KEY constraint failed"),
}


@pytest.mark.parametrize("failure", sorted(FAILED_WRITES))
def test_a_failed_write_leaves_the_game_as_the_database_has_it(tmp_path, failure, caplog):
    """A play whose write fails answers a JSON 503 that the page sends again;
    the game in memory stays the database's: a GET shows the play not made,
    the same play sent once the database writes again lands once, and a new
    server on the file has every answered play and nothing else."""
    from sqlalchemy import event
    url = f"sqlite:///{tmp_path / 'games.db'}"
    c = client(db=url, seed=7)
    app = c.app
    rng = random.Random(8)
    data = c.post("/api/games").json()
    token, state = data["id"], data["state"]
    for _ in range(3):
        state = c.post(f"/api/games/{token}/play", json={
            "card": rng.choice(state["legal"]), "version": state["version"]}).json()["state"]
    sql, reason = FAILED_WRITES[failure]
    raw = sqlite3.connect(tmp_path / "games.db")
    raw.executescript(sql)
    raw.close()
    engine = app.state.store.db.engine
    if failure == "disk full":
        event.listen(engine, "connect", _full)
        engine.dispose()
    card = state["legal"][0]
    play = {"card": card, "version": state["version"]}
    caplog.clear()
    r = c.post(f"/api/games/{token}/play", json=play)
    assert r.status_code == 503 and r.json()["code"] == "store_unavailable", r.text
    assert r.headers["retry-after"] == "2"
    assert reason in caplog.text and not any(rec.exc_info for rec in caplog.records)
    shown = c.get(f"/api/games/{token}").json()["state"]
    assert shown["version"] == state["version"] and card in shown["hand"]
    assert shown == {**state, "text": shown["text"]}
    db = Database(url)
    with db.session() as s:
        assert s.execute(select(GameRow.version)).scalar_one() == state["version"]
    # The database writes again: the page's resent play lands, once.
    raw = sqlite3.connect(tmp_path / "games.db")
    raw.execute("DROP TRIGGER fill")
    raw.close()
    if failure == "disk full":
        event.remove(engine, "connect", _full)
        engine.dispose()
    r = c.post(f"/api/games/{token}/play", json=play)
    assert r.status_code == 200, r.text
    after = r.json()["state"]
    assert after["version"] > state["version"] and card not in after["hand"]
    assert c.post(f"/api/games/{token}/play", json=play).json()["state"] == after
    again = client(db=url, seed=None)
    assert again.get(f"/api/games/{token}").json()["state"] == after


def test_a_change_of_ai_seats_answered_200_is_kept(tmp_path):
    """Changing who plays an AI seat is written like a move: a server started
    again on the database has the new player."""
    db = f"sqlite:///{tmp_path / 'games.db'}"
    c = client(db=db, seed=None)
    data = c.post("/api/games", json={}).json()
    r = c.post(f"/api/games/{data['id']}/players", json={"left": "heuristic"})
    assert r.status_code == 200 and r.json()["state"]["version"] > data["state"]["version"]
    again = client(db=db, seed=None)
    state = again.get(f"/api/games/{data['id']}").json()["state"]
    assert state["players"]["1"] == "heuristic" and state == r.json()["state"]

def test_snapshots_replay_to_the_same_game_at_every_move():
    specs = {1: "heuristic", 2: "random", 3: "heuristic"}
    game = GameSession({s: load_player(v) for s, v in specs.items()}, specs, seed=3)
    rng = random.Random(2)
    while not game.match.over:
        view = game.view()
        if view["deal"]["done"]:
            game.next_deal(view["version"])
        else:
            game.play(rng.choice(view["legal"]), view["version"])
        again = GameSession.restore(json.loads(json.dumps(game.snapshot())), load_player)
        assert again.view() == game.view() and again.snapshot() == game.snapshot()


def test_a_snapshot_with_no_deal_in_progress_and_none_finished_is_refused():
    """The deal shown is the one in progress or the record's last: with neither,
    the snapshot is refused as ValueError, not restored into a game with no deal."""
    specs = {1: "heuristic", 2: "random", 3: "heuristic"}
    snapshot = GameSession({s: load_player(v) for s, v in specs.items()}, specs,
                           seed=3).snapshot()
    assert snapshot["record"]["deals"] == []
    snapshot["current"] = None
    with pytest.raises(ValueError, match="no finished deal"):
        GameSession.restore(snapshot, load_player)


# ------------------------------------------------------------------ real servers


@pytest.mark.slow
def test_sigkill_at_any_moment_loses_no_answered_play(tmp_path):
    """The server is SIGKILLed once after each kind of write it answered: a
    game made, a play (at a random one of the deal's), a next deal. Each time
    the server started again has the game as the last answer showed it
    (version, hand, match), and the next request on it lands (a write lost
    would make it stale: 409)."""
    db = f"sqlite:///{tmp_path / 'games.db'}"
    server = Served(db).start()
    rng = random.Random(3)
    killed = []

    def kill_after(what: str, state: dict) -> None:
        server.kill()
        server.start()
        killed.append(what)
        again = HTTP.get(f"{server.url}/api/games/{token}", timeout=30).json()["state"]
        assert again["version"] == state["version"], what
        assert again["hand"] == state["hand"] and again["match"] == state["match"], what

    try:
        data = HTTP.post(f"{server.url}/api/games", json={}, timeout=30).json()
        token, state = data["id"], data["state"]
        kill_after("made", state)
        kill_at, plays = rng.randrange(1, 8), 0  # the play after which it is killed
        while "next-deal" not in killed:
            path, body = next_request(state, rng)
            r = HTTP.post(f"{server.url}/api/games/{token}/{path}", json=body, timeout=30)
            assert r.status_code == 200, (path, r.text)
            assert r.json()["state"]["version"] > state["version"]
            state = r.json()["state"]
            plays += path == "play"
            if path == "next-deal" or plays == kill_at:
                kill_after(path, state)
        path, body = next_request(state, rng)  # the game plays on
        assert HTTP.post(f"{server.url}/api/games/{token}/{path}", json=body,
                         timeout=30).status_code == 200
    finally:
        server.stop()
    assert killed == ["made", "play", "next-deal"]


@pytest.mark.slow
def test_sigkill_mid_request_keeps_the_game_whole(tmp_path):
    """Kills land while requests are in flight (a thread keeps playing): the
    game after each restart is one the rules accept, at a version some
    answer named or later, and it plays on."""
    db = f"sqlite:///{tmp_path / 'games.db'}"
    server = Served(db).start()
    rng = random.Random(4)
    try:
        data = HTTP.post(f"{server.url}/api/games", json={}, timeout=30).json()
        token = data["id"]
        answered = [data["state"]["version"]]
        stop = threading.Event()

        def play():
            state = data["state"]
            while not stop.is_set():
                try:
                    r = HTTP.get(f"{server.url}/api/games/{token}", timeout=5)
                    state = r.json()["state"]
                    path, body = next_request(state, rng)
                    r = HTTP.post(f"{server.url}/api/games/{token}/{path}", json=body,
                                  timeout=5)
                    if r.status_code == 200:
                        answered.append(r.json()["state"]["version"])
                except (httpx.TransportError, ValueError, KeyError):
                    time.sleep(0.05)

        thread = threading.Thread(target=play, daemon=True)
        thread.start()
        for _ in range(3):
            time.sleep(random.Random(len(answered)).uniform(0.2, 0.8))
            server.kill()
            server.start()
        stop.set()
        thread.join(timeout=30)
        state = HTTP.get(f"{server.url}/api/games/{token}", timeout=30).json()["state"]
        assert state["version"] >= max(answered)
        path, body = next_request(state, rng)
        assert HTTP.post(f"{server.url}/api/games/{token}/{path}", json=body,
                         timeout=30).status_code == 200
    finally:
        server.stop()


def two_worker_checks(db: str) -> None:
    """Any worker serves any request of a game; two plays sent at once on one
    version: one lands, the other gets 409."""
    server = Served(db, workers=2).start()
    rng = random.Random(5)
    try:
        # New connections (no keep-alive): each request goes to whichever worker accepts it.
        clients = [httpx.Client(base_url=server.url, timeout=30,
                                limits=httpx.Limits(max_keepalive_connections=0))
                   for _ in range(3)]
        data = clients[0].post("/api/games", json={}).json()
        token, state = data["id"], data["state"]
        pids = set()
        for k in range(40):  # alternating connections, so both workers serve the game
            c = clients[k % len(clients)]
            path, body = next_request(state, rng)
            r = c.post(f"/api/games/{token}/{path}", json=body)
            assert r.status_code == 200, r.text
            state = r.json()["state"]
            pids.add(r.headers["x-aluette-worker"])
            assert c.get(f"/api/games/{token}").json()["state"]["version"] == state["version"]
        assert len(pids) == 2, pids  # both workers served the game
        statuses = []
        for _ in range(10):
            state = clients[0].get(f"/api/games/{token}").json()["state"]
            if state["deal"]["done"] or len(state["legal"]) < 2:
                path, body = next_request(state, rng)
                clients[0].post(f"/api/games/{token}/{path}", json=body)
                continue
            barrier = threading.Barrier(2)
            answers = [None, None]

            def send(i, card, version=state["version"], barrier=barrier, answers=answers):
                barrier.wait()
                answers[i] = clients[i + 1].post(f"/api/games/{token}/play",
                                                 json={"card": card, "version": version})
            threads = [threading.Thread(target=send, args=(i, state["legal"][i]))
                       for i in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            statuses.append(sorted(a.status_code for a in answers))
            after = clients[0].get(f"/api/games/{token}").json()["state"]
            landed = [a for a in answers if a.status_code == 200]
            assert len(landed) == 1 and after["version"] == landed[0].json()["state"]["version"]
        assert statuses and all(s == [200, 409] for s in statuses), statuses
    finally:
        server.stop()


@pytest.mark.slow
def test_two_workers_serve_one_game_and_concurrent_plays_land_once(tmp_path):
    two_worker_checks(f"sqlite:///{tmp_path / 'games.db'}")


def pushes_across_workers(db: str):
    """Two server processes' apps on one database (``--workers 2``): Bob's
    update socket is open on the first, the people play through the second,
    and the socket pushes each move. The first app's state, and how often
    its sockets poll while it runs."""
    with client(db=db, workers=2, seed=None) as one, \
            client(db=db, workers=2, seed=None) as two:
        made = one.post("/api/tables", json={"people": {"0": "Ann", "2": "Bob"},
                                             "ai": "heuristic"}).json()
        tokens = [made["seats"][s]["token"] for s in ("0", "2")]
        with one.websocket_connect(f"/api/games/{tokens[1]}/updates",
                                   headers={"origin": "http://testserver"}) as ws:
            receive_push(ws, "the game as it is")
            for _ in range(4):
                for token in tokens:
                    state = two.get(f"/api/games/{token}").json()["state"]
                    if state["your_turn"]:
                        r = two.post(f"/api/games/{token}/play",
                                     json={"card": state["legal"][0],
                                           "version": state["version"]})
                        assert r.status_code == 200, r.text
                        break
                pushed = receive_push(ws, "the move played through the other worker")
                while pushed["version"] < r.json()["state"]["version"]:
                    pushed = receive_push(ws, "the move played through the other worker")
                assert pushed["version"] == r.json()["state"]["version"]
                assert pushed["state"]["hand"] == two.get(
                    f"/api/games/{tokens[1]}").json()["state"]["hand"]
            return one.app.state, one.app.state.changes.poll_s


def test_sqlite_workers_push_each_others_moves_by_polling_the_version(tmp_path):
    state, poll_s = pushes_across_workers(f"sqlite:///{tmp_path / 'games.db'}")
    assert state.listener is None and poll_s == POLL_S


# ------------------------------------------------------------------ PostgreSQL


def _postgres_binaries() -> Path | None:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    return versions[-1].parent if versions else None


class PostgresCluster:
    """A throwaway PostgreSQL cluster (Debian's ``postgresql``) on a loopback
    port, as the ``postgres`` user when run as root: made by :meth:`make`
    (skipping the test where it cannot be), stopped and started again at will."""

    def __init__(self):
        pytest.importorskip("psycopg",
                            reason="PostgreSQL tests skipped: psycopg is not installed")
        self.bin_dir = _postgres_binaries()
        if self.bin_dir is None:
            pytest.skip("PostgreSQL tests skipped: no pg_ctl (apt-get install postgresql; "
                        ".ci/run does it)")
        self.root = Path(tempfile.mkdtemp(prefix="aluette-pg-"))
        self.run_as: list[str] = []
        if os.geteuid() == 0:
            try:
                import pwd
                pwd.getpwnam("postgres")
            except KeyError:
                pytest.skip("PostgreSQL tests skipped: running as root and there is no "
                            "'postgres' user to run the server")
            shutil.chown(self.root, "postgres")
            self.run_as = ["runuser", "-u", "postgres", "--"]
        self.data, self.port = self.root / "data", free_port()
        self.url = f"postgresql+psycopg://aluette@127.0.0.1:{self.port}/postgres"

    def make(self) -> PostgresCluster:
        init = subprocess.run([*self.run_as, str(self.bin_dir / "initdb"), "-D", str(self.data),
                               "-U", "aluette", "--auth=trust", "-E", "UTF8"],
                              capture_output=True, text=True)
        if init.returncode != 0:
            self.remove()
            pytest.skip(f"PostgreSQL tests skipped: initdb failed: {init.stderr.strip()[:200]}")
        start = self.start()
        if start.returncode != 0:
            self.remove()
            pytest.skip(f"PostgreSQL tests skipped: pg_ctl start failed: {start.stderr[:200]}")
        return self

    def start(self) -> subprocess.CompletedProcess:
        return subprocess.run([*self.run_as, str(self.bin_dir / "pg_ctl"), "-D", str(self.data),
                               "-w", "-l", str(self.root / "log"), "-o",
                               f"-p {self.port} -k {self.root} -h 127.0.0.1", "start"],
                              capture_output=True, text=True)

    def stop(self) -> None:
        subprocess.run([*self.run_as, str(self.bin_dir / "pg_ctl"), "-D", str(self.data),
                        "-m", "immediate", "-w", "stop"], capture_output=True)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="module")
def postgres_url():
    """A throwaway PostgreSQL cluster for the module's tests; its URL."""
    cluster = PostgresCluster().make()
    try:
        yield cluster.url
    finally:
        cluster.remove()


@pytest.mark.slow
def test_postgresql_down_every_route_answers_json_503_and_the_game_goes_on(caplog):
    """The database server stops: every route answers the JSON 503 that the
    page sends again, with one log line each and no traceback; once it is
    back, the game is where the database had it and plays on."""
    cluster = PostgresCluster().make()
    try:
        c = client(db=cluster.url, seed=9)
        data = c.post("/api/games").json()
        token, state = data["id"], data["state"]
        play = {"card": state["legal"][0], "version": state["version"]}
        cluster.stop()
        caplog.clear()
        requests = [("GET", f"/api/games/{token}", None),
                    ("POST", f"/api/games/{token}/play", play),
                    ("POST", f"/api/games/{token}/next-deal", {"version": state["version"]}),
                    ("POST", f"/api/games/{token}/new-match", {}),
                    ("GET", f"/api/games/{token}/hint", None),
                    ("POST", "/api/games", {}),
                    ("POST", "/api/tables", {"people": {"0": "Ann", "2": "Bob"}}),
                    ("POST", "/api/my-matches", {"tokens": [token]})]
        for method, path, body in requests:
            r = c.request(method, path, json=body)
            assert (r.status_code, r.json()["code"]) == (503, "store_unavailable"), (path, r.text)
        logged = [rec for rec in caplog.records if rec.levelname == "WARNING"]
        assert len(logged) == len(requests) and not any(rec.exc_info for rec in caplog.records)
        assert token not in caplog.text
        assert cluster.start().returncode == 0
        deadline = time.monotonic() + 20
        while (r := c.post(f"/api/games/{token}/play", json=play)).status_code == 503:
            assert time.monotonic() < deadline, r.text  # the pool's dead connections go first
            time.sleep(0.1)
        assert r.status_code == 200, r.text
        assert r.json()["state"]["version"] > state["version"]
        assert c.get(f"/api/games/{token}").json()["state"] == r.json()["state"]
    finally:
        cluster.remove()


@pytest.mark.slow
def test_postgresql_keeps_games_through_a_kill(postgres_url):
    rng = random.Random(6)
    server = Served(postgres_url).start()
    try:
        data = HTTP.post(f"{server.url}/api/games", json={}, timeout=30).json()
        token, state = data["id"], data["state"]
        for _ in range(15):
            path, body = next_request(state, rng)
            state = HTTP.post(f"{server.url}/api/games/{token}/{path}", json=body,
                              timeout=30).json()["state"]
        server.kill()
        server.start()
        again = HTTP.get(f"{server.url}/api/games/{token}", timeout=30).json()["state"]
        assert again["version"] == state["version"] and again["hand"] == state["hand"]
    finally:
        server.stop()
    assert Database(postgres_url).schema_version() == "0004"


@pytest.mark.slow
def test_postgresql_two_workers(postgres_url):
    two_worker_checks(postgres_url)


def test_postgresql_workers_push_each_others_moves_by_listen_notify(postgres_url):
    """The first app hears the second's writes as notifications (LISTEN on
    its own connection), so its sockets poll only as a safety net."""
    state, poll_s = pushes_across_workers(postgres_url)
    assert state.listener.received >= 4
    assert poll_s == SAFETY_POLL_S > POLL_S
