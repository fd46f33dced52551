"""What the web game's test files share (helpers, no tests): a test client of
the app with quick AI seats (:func:`client`; apps of its coach efforts share
one set of coach workers a process, :func:`app_of`), the game the server holds behind a
link (:func:`game_of`), the cards and keys an answer names (:func:`cards_in`,
:func:`keys_in`), people playing on through the API (:func:`play_through_api`),
a push awaited on an update socket for a bounded time (:func:`receive_push`),
one HTTP client for requests to the tests' servers (:data:`HTTP`),
the app served by uvicorn in a thread (:func:`serving`) and ``aluette serve``
in a process of its own (:class:`Served`). The browser files'
fixtures and page helpers are in browser_fixtures.py, which serves the app with
:func:`serving`. tests/conftest.py registers this module for pytest's assert
rewriting, so a failed check here says what it compared.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings

import httpx
import pytest

from aluette_env.apps.web import listening_socket
from aluette_env.apps.web.server import ServerConfig, create_app
from aluette_env.apps.web.workers import CoachWorkers

#: The tests' HTTP client for their loopback servers, shared by threads: httpx's
#: functions (``httpx.get``...) build a client per call, and with it an SSL context
#: that reads certifi's certificates again (about 30 ms of CPU a request, 1 ms
#: here). It keeps no connection open, so a request to a server started again
#: opens a new one, as those functions do; the game's server sets no cookie, so
#: none carries from one test to the next.
HTTP = httpx.Client(timeout=30, limits=httpx.Limits(max_keepalive_connections=0))

#: Quick seats (in games with signs too), and a coach that only has to answer (its
#: effort is test_coach.py's): every finished deal is reviewed in the background.
FAST = dict(partner="heuristic", left="random", right="heuristic", signs_ai="heuristic",
            hint_worlds=8, review_worlds=4)

#: Keys of an answer that hold a card id, or a list of them.
CARD_KEYS = {"card", "cards", "hand", "hands", "legal", "tied", "beats", "best"}


@functools.cache
def _shared_coach() -> CoachWorkers:
    return CoachWorkers(FAST["hint_worlds"], FAST["review_worlds"])


def app_of(config: ServerConfig):
    """The app of ``config``. Apps of :data:`FAST`'s coach efforts share one set
    of coach workers in this process (each set spawns a process for hints, warmed
    as each app starts, and one for reviews: a second of CPU or so each time);
    the tests that look at the coach's own processes ask for other efforts."""
    if (config.hint_worlds, config.review_worlds) != (FAST["hint_worlds"],
                                                      FAST["review_worlds"]):
        return create_app(config)
    return create_app(config, coach_workers=_shared_coach())


def client(raise_server_exceptions: bool = True, **config):
    """A Starlette test client of the app of ``ServerConfig(**FAST, seed=7, **config)``
    (``config`` wins; :func:`app_of`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette's notice about httpx2
        from starlette.testclient import TestClient
    return TestClient(app_of(ServerConfig(**{**FAST, "seed": 7, **config})),
                      raise_server_exceptions=raise_server_exceptions)


def game_of(app, token: str):
    """The game as the server ``app`` holds it behind ``token`` (a seat's link or a
    game's id), read again if a failed move left it stale."""
    service = app.state.service
    handle = service.seat_handle(token)
    service.cache.fresh(handle)
    return handle.game


#: How long a test waits for a push on an update socket before it fails, in
#: seconds: a push comes within moments, or once a second's check has run.
PUSH_WAIT_S = 60.0


def receive_push(ws, waiting_for: str, timeout: float = PUSH_WAIT_S) -> dict:
    """The next message of the test client's update socket ``ws``, decoded as
    its ``receive_json`` decodes it (a closed socket raises
    WebSocketDisconnect); the test fails, naming ``waiting_for``, when none
    comes within ``timeout`` seconds, where ``receive_json`` would wait for
    ever. Starlette's session has no timeout, and only its private stream
    could be read with one, so its ``receive_json`` runs in a thread of its
    own: after a timeout that thread waits on until the test leaves the
    socket's ``with`` block, whose close ends the stream, and the thread."""
    got: list = []

    def receive() -> None:
        try:
            got.append((True, ws.receive_json()))
        except BaseException as err:  # raised again in the test's thread
            got.append((False, err))
    hearing = threading.Thread(target=receive, daemon=True, name="receive_push")
    hearing.start()
    hearing.join(timeout)
    if not got:
        pytest.fail(f"no push within {timeout:.0f} s while waiting for {waiting_for}")
    ok, value = got[0]
    if not ok:
        raise value
    return value


def cards_in(data) -> set[int]:
    """Every card id that ``data`` (a view, an answer, a push) names, at any depth:
    the values of :data:`CARD_KEYS` and the ids in their lists (a flag such as a
    hint's ``"best": true`` is no card)."""
    found: set[int] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            if key in CARD_KEYS:
                found |= {c for c in (value if isinstance(value, list) else [value])
                          if isinstance(c, int) and not isinstance(c, bool)}
            found |= cards_in(value)
    elif isinstance(data, list):
        for value in data:
            found |= cards_in(value)
    return found


def keys_in(data) -> set[str]:
    """Every key of every object in ``data``, at any depth."""
    if isinstance(data, dict):
        return set(data) | set().union(*(keys_in(v) for v in data.values()))
    if isinstance(data, list):
        return set().union(*(keys_in(v) for v in data)) if data else set()
    return set()


@contextlib.contextmanager
def serving(uvicorn_options: dict | None = None, **config):
    """The web app of ``ServerConfig(**config)`` served by uvicorn in a thread on a
    free loopback port (uvicorn's ``uvicorn_options``, else warnings only in its
    log): (app, its URL, no trailing slash)."""
    import uvicorn

    app = app_of(ServerConfig(**config))
    sock = listening_socket("127.0.0.1", 0)  # aluette serve's
    server = uvicorn.Server(uvicorn.Config(app, **(uvicorn_options or {"log_level": "warning"})))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the test server did not start"
        time.sleep(0.05)
    try:
        yield app, f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def kept_game(url: str) -> str:
    """A one-person game kept at once (``POST /api/games``, as *New match*
    does): its id, for a page opened at it (the site's own first page keeps
    nothing until its first card)."""
    r = HTTP.post(f"{url}/api/games", json={}, timeout=30)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def play_through_api(url: str, tokens: list[str], until, choose=None) -> int:
    """The people of ``tokens`` (seat links' tokens, or a one-person game's id)
    play on through the API, as their pages would elsewhere: whoever's turn it
    is plays ``choose(view)`` (default: their first legal card), the first
    person starts the next deal when one ends, until ``until(view)`` holds for
    the first person's view. The pages of a browser test then open the game
    from there instead of playing what the API tests already check. How many
    cards were played."""
    plays = 0
    with httpx.Client(base_url=url, timeout=30) as http:
        views = {t: http.get(f"/api/games/{t}").json()["state"] for t in tokens}
        while True:
            if until(views[tokens[0]]):
                return plays
            turn = next(((t, v) for t, v in views.items() if v["your_turn"]), None)
            if turn is not None:
                token, view = turn
                card = choose(view) if choose else view["legal"][0]
                r = http.post(f"/api/games/{token}/play",
                              json={"card": card, "version": view["version"]})
                plays += 1
            else:  # the AIs move within each move's answer: a deal is over
                token, view = tokens[0], views[tokens[0]]
                assert view["deal"]["done"] and not view["match"]["over"], view
                r = http.post(f"/api/games/{token}/next-deal", json={"version": view["version"]})
            assert r.status_code == 200, r.text
            # the mover's view is in the answer; the others' changed with it
            views = {t: r.json()["state"] if t == token else
                     http.get(f"/api/games/{t}").json()["state"] for t in tokens}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """``aluette serve`` in its own process group (the workers die with it)."""

    def __init__(self, db: str, workers: int = 1, port: int | None = None,
                 options: tuple[str, ...] = ()):
        self.db, self.workers, self.port = db, workers, port or free_port()
        self.options = list(options)  # more options of aluette serve
        self.proc: subprocess.Popen | None = None

    def start(self) -> Served:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "aluette_env", "serve", "--port", str(self.port),
             "--db", self.db, "--workers", str(self.workers), "--partner", "heuristic",
             "--left", "random", "--right", "heuristic",
             # The coach's effort is test_coach.py's: here it only has to answer.
             "--hint-worlds", "8", "--review-worlds", "4", *self.options],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        line = self.proc.stdout.readline()
        assert re.search(r"http://127\.0\.0\.1:\d+/", line), (line, self.proc.stderr.read())
        deadline = time.monotonic() + 60
        while True:  # the workers answer once they have made their apps
            try:
                if HTTP.get(f"{self.url}/api/server", timeout=5).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not answer"
            time.sleep(0.1)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.kill()
