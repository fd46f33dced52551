"""The web game's database kept tidy (aluette_env/apps/web/upkeep.py): which
games expire and which are kept, ``aluette db prune`` and ``aluette db
backup`` and their checks, a SIGKILL in the middle of either losing nothing,
the limit on new games per client address (the forwarded one behind
``--proxy``), and a database of the previous schema upgraded with its games."""

from __future__ import annotations

import glob
import os
import secrets
import signal
import sqlite3
import subprocess
import sys
import time

import httpx
import pytest

from aluette_env.apps.web.limits import uvicorn_options
from aluette_env.apps.web.store import Database, Games, token_hash
from aluette_env.apps.web.upkeep import DAY_S, HOUR_S, Keeping, prune
from aluette_env.commands import run_command

from web_helpers import FAST, client, game_of, serving

NOW = 2_000_000_000.0


def age(url: str, token: str, seconds: float, played: bool) -> None:
    """The game of ``token`` made and last moved ``seconds`` before :data:`NOW`
    (``played``: its last move after it was made)."""
    path = url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as db:
        (gid,) = db.execute("SELECT game_id FROM seats WHERE token_hash = ?",
                            (token_hash(token),)).fetchone()
        db.execute("UPDATE games SET created = ?, updated = ? WHERE id = ?",
                   (NOW - seconds - (60 if played else 0), NOW - seconds, gid))


def played_once(c, token: str, state: dict) -> dict:
    return c.post(f"/api/games/{token}/play", json={"card": state["legal"][0],
                                                    "version": state["version"]}).json()


def test_expired_games_go_and_every_other_game_stays_and_loads(tmp_path):
    """Unplayed one-person games go after a day, unfinished ones after 30 days,
    the others (finished, tables) after 365 days; the kept ones still load."""
    url = f"sqlite:///{tmp_path / 'games.db'}"
    expected: dict[str, bool] = {}  # token -> kept
    with client(db=url) as c:
        def one_person(seconds: float, played: bool, kept: bool) -> str:
            data = c.post("/api/games").json()
            if played:
                played_once(c, data["id"], data["state"])
            age(url, data["id"], seconds, played)
            expected[data["id"]] = kept
            return data["id"]

        one_person(2 * HOUR_S, played=False, kept=True)
        one_person(25 * HOUR_S, played=False, kept=False)
        one_person(29 * DAY_S, played=True, kept=True)
        one_person(31 * DAY_S, played=True, kept=False)
        for seconds, kept in ((300 * DAY_S, True), (366 * DAY_S, False)):
            made = c.post("/api/tables", json={"people": {"0": "Ann", "2": "Bob"}}).json()
            age(url, made["seats"]["0"]["token"], seconds, played=False)
            expected[made["seats"]["0"]["token"]] = kept
            expected[made["spectator"]["token"]] = kept
        finished = one_person(0, played=True, kept=True)
        with sqlite3.connect(tmp_path / "games.db") as db:
            db.execute("UPDATE games SET finished = 1, created = ?, updated = ? WHERE id = "
                       "(SELECT game_id FROM seats WHERE token_hash = ?)",
                       (NOW - 100 * DAY_S, NOW - 100 * DAY_S + 1, token_hash(finished)))
    store = Games(Database(url))
    counts = prune(store, Keeping(), NOW, dry_run=True)
    assert counts == {"unplayed": 1, "unfinished": 1, "other": 1}
    assert len(store.games_of(list(expected))) == len(expected)  # a dry run deletes nothing
    assert prune(store, Keeping(), NOW) == counts
    left = {token for token, *_ in store.games_of(list(expected))}
    assert left == {token for token, kept in expected.items() if kept}
    with client(db=url) as c:
        for token in left:  # replayed through the rules by a new server
            assert c.get(f"/api/games/{token}").status_code == 200
            game_of(c.app, token)
        for token in set(expected) - left:
            assert c.get(f"/api/games/{token}").json()["code"] == "no_game"
    assert prune(store, Keeping(0, 0, 0), NOW + 1000 * DAY_S) == {  # 0: kept for ever
        "unplayed": 0, "unfinished": 0, "other": 0}


def test_a_database_of_the_previous_schema_is_upgraded_and_its_games_load_and_play(tmp_path):
    """A game kept under schema 0002 loads after the upgrade to the current one,
    takes its next move, and a new server loads it with that move."""
    from alembic import command
    from alembic.config import Config

    from aluette_env.apps.web.store import MIGRATIONS

    url = f"sqlite:///{tmp_path / 'games.db'}"
    with client(db=url) as c:
        data = c.post("/api/games").json()
        state = played_once(c, data["id"], data["state"])["state"]
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    db = Database(url)
    with db.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0002")
    assert db.schema_version() == "0002"
    with client(db=url) as c:
        loaded = c.get(f"/api/games/{data['id']}").json()["state"]
        assert loaded["version"] == state["version"] and loaded["legal"]
        played = played_once(c, data["id"], loaded)["state"]
        assert played["version"] > loaded["version"]
    assert Database(url).schema_version() == "0004"
    with client(db=url) as c:  # the move was kept
        r = c.get(f"/api/games/{data['id']}")
        assert r.status_code == 200 and r.json()["state"] == played, r.text


# ------------------------------------------------------------------ the command

def aluette(capsys, *argv: str) -> subprocess.CompletedProcess:
    """``aluette ARGV`` run in this process as the console script runs it
    (:func:`run_command`; the command in a process of its own is
    :func:`kill_when`'s and :func:`test_the_db_process_refuses_bad_input_in_one_line`'s):
    its exit code and what it printed."""
    capsys.readouterr()
    code = run_command(list(argv))
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(argv, code, out, err)


def test_a_server_prunes_expired_games_as_it_starts_and_every_hour(tmp_path, monkeypatch):
    """The server's own prune, with no command: as it starts, the game left
    unfinished 40 days ago goes and the game played today stays and plays;
    an hour later (here a fraction of a second) a game that has expired since
    goes too. Each prune is awaited by the line it logs once it has deleted,
    so no prune of this server is left half-way when the test looks."""
    import logging

    from aluette_env.apps.web import upkeep

    path = tmp_path / "games.db"
    kept = fill(path, expired=1, kept=1)
    monkeypatch.setattr(upkeep, "PRUNE_EVERY_S", 0.2)
    pruned: list[str] = []

    class Heard(logging.Handler):
        def emit(self, record):
            if record.getMessage().startswith("pruned expired games"):
                pruned.append(record.getMessage())
    def heard(prunes: int) -> None:
        deadline = time.monotonic() + 60
        while len(pruned) < prunes:
            assert time.monotonic() < deadline, f"{len(pruned)} prunes, not {prunes}"
            time.sleep(0.02)

    # Its own logger's level (serve may have set "aluette" to warnings) and a handler.
    logger, hearing = logging.getLogger("aluette.web"), Heard()
    level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(hearing)
    try:
        with client(db=f"sqlite:///{path}") as c:
            heard(1)
            assert pruned[0] == "pruned expired games: 0 unplayed, 1 unfinished, 0 other"
            assert whole(path) == (1, 1)
            state = c.get(f"/api/games/{kept[0]}").json()["state"]
            assert played_once(c, kept[0], state)["state"]["version"] > state["version"]
            expire(path, 1, "later")
            heard(2)
            assert whole(path) == (1, 1) and pruned[1] == pruned[0]
            assert c.get(f"/api/games/{kept[0]}").status_code == 200
    finally:
        logger.removeHandler(hearing)
        logger.setLevel(level)


def expire(path, games: int, name: str = "old", state: str = "xx") -> None:
    """``games`` one-person games of ``state`` (never read) left unfinished 40
    days ago written in the database file ``path``, with ids ``name0``, ``name1``..."""
    old = time.time() - 40 * DAY_S
    with sqlite3.connect(path) as db:
        db.executemany("INSERT INTO games VALUES (?, 1, ?, 0, 0, ?, ?)",
                       ((f"{name}{k}", state, old - 1, old) for k in range(games)))
        db.executemany("INSERT INTO seats VALUES (?, ?, 0, '', ?)",
                       ((secrets.token_hex(32), f"{name}{k}", old) for k in range(games)))


def fill(path, expired: int, kept: int, state_bytes: int = 2) -> list[str]:
    """A database of ``expired`` one-person games left unfinished 40 days ago
    (their state is never read) and ``kept`` real games played today; the kept
    games' tokens."""
    url = f"sqlite:///{path}"
    # Not started as a server (no lifespan): a server's start prunes, in a thread
    # that may run on after it stops and delete the games written below.
    c = client(db=url)
    tokens = []
    for _ in range(kept):
        data = c.post("/api/games").json()
        played_once(c, data["id"], data["state"])
        tokens.append(data["id"])
    c.app.state.store.db.close()
    expire(path, expired, state="x" * state_bytes)
    return tokens


def whole(path) -> tuple[int, int]:
    """The database's games and seats, checked whole: SQLite's integrity check,
    no seat without its game, no game without its seat."""
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("SELECT count(*) FROM seats WHERE game_id NOT IN "
                          "(SELECT id FROM games)").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM games WHERE id NOT IN "
                          "(SELECT game_id FROM seats)").fetchone() == (0,)
        return (db.execute("SELECT count(*) FROM games").fetchone()[0],
                db.execute("SELECT count(*) FROM seats").fetchone()[0])


def kill_when(argv: list[str], ready) -> None:
    """``aluette ARGV``, killed with SIGKILL as soon as ``ready()`` holds."""
    proc = subprocess.Popen([sys.executable, "-m", "aluette_env", *argv],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not ready():
            assert proc.poll() is None, "it ended before it could be killed in the middle"
            assert time.monotonic() < deadline
            time.sleep(0.002)
        proc.kill()
    finally:
        proc.kill()
        proc.wait(timeout=30)


@pytest.mark.slow  # 20,000 games written, and a db prune process killed half-way
def test_sigkill_during_a_prune_loses_no_kept_game_and_leaves_every_game_whole(tmp_path,
                                                                               capsys):
    path = tmp_path / "games.db"
    kept = fill(path, expired=20_000, kept=3)
    total, _ = whole(path)
    url = f"sqlite:///{path}"

    def deleting() -> bool:  # a first batch deleted, the next ones to come
        with sqlite3.connect(path, timeout=30) as db:
            return db.execute("SELECT count(*) FROM games").fetchone()[0] < total

    kill_when(["db", "prune", "--db", url], deleting)
    games, seats = whole(path)
    assert len(kept) < games < total  # killed half-way through
    r = aluette(capsys, "db", "prune", "--db", url)
    assert r.returncode == 0 and "unfinished" in r.stdout, r.stderr
    assert whole(path) == (len(kept), len(kept))
    with client(db=url) as c:
        for token in kept:
            assert c.get(f"/api/games/{token}").status_code == 200


@pytest.mark.slow  # 20,000 games written, and a db backup process killed half-way
def test_sigkill_during_a_backup_leaves_the_previous_backup_and_the_database_whole(
        tmp_path, capsys):
    path, copy = tmp_path / "games.db", tmp_path / "backup" / "games.db"
    copy.parent.mkdir()
    kept = fill(path, expired=20_000, kept=2, state_bytes=2000)
    url = f"sqlite:///{path}"
    r = aluette(capsys, "db", "backup", str(copy), "--db", url)
    assert r.returncode == 0 and "backed up" in r.stdout, r.stderr
    before = copy.read_bytes()
    assert whole(copy) == whole(path)
    with sqlite3.connect(path) as db:  # the next backup has more to copy
        db.execute("DELETE FROM games WHERE id = 'old0'")
        db.execute("DELETE FROM seats WHERE game_id = 'old0'")
    partial = str(copy.parent / ".games.db.*.partial")
    kill_when(["db", "backup", str(copy), "--db", url], lambda: bool(glob.glob(partial)))
    assert copy.read_bytes() == before  # the previous backup, untouched
    whole(path)
    r = aluette(capsys, "db", "backup", str(copy), "--db", url)
    assert r.returncode == 0, r.stderr
    assert whole(copy) == whole(path) and not glob.glob(partial)  # a stale copy cleared
    with client(db=f"sqlite:///{copy}") as c:  # the backup serves the games
        for token in kept:
            assert c.get(f"/api/games/{token}").status_code == 200


@pytest.mark.parametrize("argv, words", [
    (["db", "prune", "--db", "sqlite:///{tmp}/missing/games.db"], "no such database file"),
    (["db", "prune", "--keep-finished", "-1"], "--keep-finished: must be from 0"),
    (["db", "prune", "--db", "sqlite://"], "in memory"),
    (["db", "backup", "/nonexistent/dir/copy.db"], "does not exist"),
    (["db", "backup", "{tmp}/copy.db", "--db", "postgresql+psycopg://u@127.0.0.1:1/x"],
     "pg_dump"),
    (["db", "backup", "{tmp}/games.db", "--db", "sqlite:///{tmp}/games.db"],
     "an input of this command"),
    # The same file, named by a SQLite URI: the live database is never replaced.
    (["db", "backup", "{tmp}/games.db", "--db", "sqlite:///file:{tmp}/games.db?uri=true"],
     "an input of this command"),
    (["db", "prune", "--db", "sqlite:///file:{tmp}/new.db?uri=true"], "no such database file"),
    (["db"], "required: ACTION"),
])
def test_db_command_refuses_bad_input_in_one_line(tmp_path, argv, words, capsys):
    fill(tmp_path / "games.db", expired=0, kept=0)
    r = aluette(capsys, *[a.format(tmp=tmp_path) for a in argv])
    assert r.returncode == 2 and words in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "missing").exists()  # refused before anything is made
    assert not (tmp_path / "new.db").exists()


@pytest.mark.slow
def test_the_db_process_refuses_bad_input_in_one_line(tmp_path):
    """The real command, in a process of its own: exit code 2 and one line on
    stderr, nothing else printed by what it imports or sets up."""
    r = subprocess.run([sys.executable, "-m", "aluette_env", "db", "prune", "--db",
                        f"sqlite:///{tmp_path}/missing/games.db"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "no such database file" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "missing").exists()


def test_db_prune_reads_its_settings_from_the_environment(tmp_path):
    """In a process of its own, as a service manager starts it with its environment."""
    path = tmp_path / "games.db"
    fill(path, expired=3, kept=0)
    env = {**os.environ, "ALUETTE_DB": f"sqlite:///{path}", "ALUETTE_KEEP_UNFINISHED": "50"}

    def prune(*options: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "aluette_env", "db", "prune", *options],
                              capture_output=True, text=True, timeout=120, env=env)
    r = prune()
    assert r.returncode == 0 and "deleted 0 expired games" in r.stdout, r.stdout + r.stderr
    r = prune("--keep-unfinished", "30")  # the option wins
    assert "deleted 3 expired games" in r.stdout, r.stdout + r.stderr


# ------------------------------------------------------------------ new games per address

def test_new_games_are_limited_per_client_address_the_forwarded_one_behind_a_proxy():
    options = {**uvicorn_options("127.0.0.1"), "log_level": "warning"}
    with serving(options, **FAST, new_games_per_hour=2) as (app, url), \
            httpx.Client(base_url=url, timeout=30) as c:
        def start(address: str, path: str = "/api/games", body: dict | None = None):
            return c.post(path, json=body or {}, headers={"x-forwarded-for": address})

        assert start("10.0.0.1").status_code == 201
        assert start("10.0.0.1", "/api/tables", {"people": {"0": "Ann"}}).status_code == 201
        refused = start("10.0.0.1")
        assert refused.status_code == 429 and refused.json()["code"] == "too_many_games"
        assert start("10.0.0.2").status_code == 201  # another person behind the proxy
        limit = app.state.service.starts
        limit.clock = lambda: time.time() + 3601  # an hour later
        assert start("10.0.0.1").status_code == 201
    with client() as c:  # the app's own default: no limit (aluette serve's is --new-games)
        assert all(c.post("/api/games").status_code == 201 for _ in range(31))


def test_a_deal_shown_but_not_kept_is_no_new_game_of_the_address():
    """Drafts (the deal the page shows as it opens) count only once kept: many
    are dealt, two are kept, the third kept is refused (too_many_games), and an
    address at its limit is told so as the page opens; a draft kept already
    is answered again without counting."""
    with client(new_games_per_hour=2) as c:
        drafts = [c.post("/api/drafts", json={}) for _ in range(4)]
        assert all(r.status_code == 200 for r in drafts)
        tokens = [c.post("/api/games", json={"draft": r.json()["draft"]}) for r in drafts[:2]]
        assert [r.status_code for r in tokens] == [201, 201]
        refused = c.post("/api/games", json={"draft": drafts[2].json()["draft"]})
        assert refused.status_code == 429 and refused.json()["code"] == "too_many_games"
        opened = c.post("/api/drafts", json={})
        assert opened.status_code == 429 and opened.json()["code"] == "too_many_games"
        again = c.post("/api/games", json={"draft": drafts[0].json()["draft"]})
        assert again.status_code == 201 and again.json()["id"] == tokens[0].json()["id"]
