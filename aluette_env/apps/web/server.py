"""The web game's HTTP server: a small Starlette app over the game flow for
people, :class:`aluette_env.apps.session.GameSession` (the terminal game runs on
the same one).

Starlette (the ASGI toolkit under FastAPI) with uvicorn: a handful of JSON
routes and static files need no more, it has a first-class test client, and it
adds one dependency tree that is well kept and small. Routes stay thin: parse
the request, call the game, return the view of the person's seat.

Robustness, as the README states it: every game is kept in a database
(:mod:`.store`: SQLite by default, PostgreSQL through its URL) and each
accepted move is written before it is answered, so a restarted or killed
server, or another worker process, continues every game; a game is reached
by a seat token of 128 random bits (:mod:`.tables`; an unknown token answers
403 with ``"code": "no_game"``, and the page says so); request bodies
over 4 KiB are refused as they arrive (a larger Content-Length at once); every
malformed or impossible request gets a 4xx JSON ``{"error": "..."}`` that names
the problem, and the game is left as it was. A play carries the ``version`` of
the view it was chosen on: a stale play gets 409, the same play sent again is
applied once. Moves, AI cards
included, run in worker threads, one at a time per game, and the slow players
(``expert``, ``pimc``) compute their moves in worker processes: a slow AI seat
delays only its own game, never the event loop. Every
route that answers a game takes ``?lang=`` and adds the words of
:class:`~aluette_env.apps.session.Narrator` (``text`` fields).

API (all JSON):

===========================================  =========================================
``GET  /api/players``                        the AI specs a seat may take, and defaults
``GET  /api/server``                         games held in memory, the database's kind
``GET  /api/languages``                      language codes and their own names
``GET  /api/i18n/{lang}``                    messages, card names and text direction
``GET  /api/deck``                           the rank order: card ids by strength level
``POST /api/games``                          new match ``{"left", "partner", "right"}``:
                                             its ``id`` is the person's seat token
``GET  /api/games/{id}``                     the view of the token's seat
``POST /api/games/{id}/play``                ``{"card": id, "version": n}``: play, then AIs
``POST /api/games/{id}/next-deal``           next deal of the match (``{"version": n}``)
``POST /api/games/{id}/new-match``           restart: scores cleared (``{"version": n}``)
``POST /api/games/{id}/players``             ``{"left": spec, ...}``: change AI seats
===========================================  =========================================

The coach's routes (hints, reviews, records, replay) are listed in :mod:`.coach_api`,
the tables of several people and the pushed updates in :mod:`.tables`.
Moves answer ``{"events": [...], "state": {...}}``; the events (cards played,
tricks, the deal's end) let the page show AI cards one at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from aluette_env.game import CARDS_BY_STRENGTH, NAMED_CARDS, NUM_CARDS, seat_at
from aluette_env.players import Player, PlayerSpecError, load_player, player_names
from aluette_env.records import MAX_BYTES as MAX_RECORD_BYTES

from .. import i18n
from ..coach import HINT_WORLDS, REVIEW_WORLDS
from ..session import AI_SEATS, Narrator, SharedPlayer, new_session
from .changes import CHANNEL, Changes, PostgresListener
from .coach_api import CoachRoutes
from .limits import RequestLimits
from .inputs import MAX_BODY, ApiError, ClientGone
from .inputs import check_keys as _check_keys
from .inputs import integer as _integer
from .inputs import json_body as _json_body
from .inputs import logged_path
from .store import Database, DamagedGame, DatabaseError, Games, StoreUnavailable, Table
from .tables import WORKER, TableRoutes
from .workers import RestartingPool, WorkerUnavailable

STATIC_DIR = Path(__file__).resolve().parent / "static"
#: What ``aluette serve --workers N`` hands to each server process (:func:`app_from_environment`).
CONFIG_VARIABLE = "ALUETTE_SERVE_CONFIG"


@dataclass
class ServerConfig:
    """What ``aluette serve`` sets: the default AI of each seat, and the bounds."""

    partner: str = "ai"
    left: str = "ai"
    right: str = "ai"
    max_games: int = 1000  # games kept in each process's memory (all are in the database)
    db: str = "sqlite://"  # the database's URL (aluette serve: a file, store.default_url)
    workers: int = 1  # server processes sharing the database (aluette serve --workers)
    seed: int | None = None  # for tests: reproducible deals
    hint_worlds: int = HINT_WORLDS  # the coach's effort (aluette_env.apps.coach)
    review_worlds: int = REVIEW_WORLDS

    def defaults(self) -> dict[str, str]:
        return {"left": self.left, "partner": self.partner, "right": self.right}


def registered_players() -> list[str]:
    """Player names the registry offers (random, heuristic, ai, pimc, ...)."""
    return sorted(player_names())


#: Players whose moves take tens of milliseconds or more (a search per card):
#: they move in worker processes, so their Python work never holds the
#: server's interpreter lock while other games are answered.
SLOW_PLAYERS = frozenset({"expert", "pimc"})

_worker_players: dict[str, Player] = {}


def _act_in_worker(spec: str, obs, mask) -> int:
    """A move of the player ``spec``, in a worker process (players loaded once
    per process; they act on the observation alone)."""
    player = _worker_players.get(spec)
    if player is None:
        player = _worker_players[spec] = load_player(spec)
    return int(player.act(obs, mask))


class AiWorkers:
    """The worker processes of the slow players, started on first use; a worker
    that dies is replaced and its move tried again (:class:`.workers.RestartingPool`)."""

    def __init__(self, workers: int | None = None):
        self.workers = workers or max(1, (os.cpu_count() or 2) - 1)
        self.pool = RestartingPool(self.workers, "AI player")

    def act(self, spec: str, obs, mask) -> int:
        return self.pool.run(_act_in_worker, spec, obs, mask)

    def close(self) -> None:
        self.pool.close(wait=True)


class RemotePlayer:
    """A slow player seen from the server: each move is computed by
    :class:`AiWorkers` while the game's worker thread waits (no lock held)."""

    def __init__(self, spec: str, workers: AiWorkers):
        self.spec, self.workers, self.name = spec, workers, spec

    def act(self, obs, mask) -> int:
        return self.workers.act(self.spec, obs, mask)


class PlayerPool:
    """One player object per spec, shared by all games and used by one game at a
    time (:class:`SharedPlayer`): the players act on the observation alone,
    and one loaded model serves every table. The slow players
    (:data:`SLOW_PLAYERS`) move in worker processes (:class:`RemotePlayer`)."""

    def __init__(self, allowed: list[str], workers: AiWorkers | None = None):
        self.allowed = list(dict.fromkeys(allowed))
        self.workers = workers or AiWorkers()
        self._players: dict[str, SharedPlayer | RemotePlayer] = {}

    def load(self, spec: str) -> SharedPlayer | RemotePlayer:
        """The player of ``spec``; PlayerSpecError if it cannot be made."""
        if spec not in self._players:
            player = load_player(spec)  # checks the spec here, whoever moves for it
            if spec.partition(":")[0] in SLOW_PLAYERS:
                self._players[spec] = RemotePlayer(spec, self.workers)
            else:
                self._players[spec] = SharedPlayer(player)
        return self._players[spec]

    def stored(self, spec: object) -> SharedPlayer | RemotePlayer:
        """The player a stored game names (:class:`.store.Games`): ValueError
        for one this server does not offer (the row is damaged, not the
        request wrong)."""
        try:
            return self.get(spec, "seat")
        except ApiError as err:
            raise ValueError(f"an AI seat names {str(spec)[:60]!r}: {err.detail}") from None

    def get(self, spec: object, seat: str) -> SharedPlayer | RemotePlayer:
        if not isinstance(spec, str) or spec not in self.allowed:
            raise ApiError(400, f"{seat}: unknown AI {spec!r}; choose one of "
                                f"{', '.join(self.allowed)}")
        try:
            return self.load(spec)
        except PlayerSpecError as err:
            raise ApiError(400, f"{seat}: {err}") from None


# ---------------------------------------------------------------------- helpers

log = logging.getLogger("aluette.web")


def _seat_specs(data: dict[str, Any], pool: PlayerPool, base: dict[str, str]) -> dict[int, str]:
    specs = dict(base)
    for role in AI_SEATS:
        if role in data:
            pool.get(data[role], role)  # validates and loads
            specs[role] = data[role]
    return {AI_SEATS[role]: spec for role, spec in specs.items()}


def _narrator(request: Request) -> Narrator:
    lang = request.query_params.get("lang", i18n.DEFAULT_LANGUAGE)
    try:
        return Narrator(lang)
    except ValueError as err:
        raise ApiError(400, f"lang: {err}") from None


def create_app(config: ServerConfig | None = None) -> Starlette:
    """The ASGI app of the web game."""
    config = config or ServerConfig()
    offered = registered_players()
    # The browser may pick the registry's players and the ones given at start-up
    # (possibly a model file); never a path of its own choosing.
    pool = PlayerPool(offered + [config.partner, config.left, config.right])
    for role, spec in config.defaults().items():
        try:
            pool.load(spec)  # a bad --partner/--left/--right fails at start-up
        except PlayerSpecError as err:
            raise PlayerSpecError(f"--{role}: {err}") from None
    db = Database(config.db)
    if db.memory and config.workers > 1:  # each process would hold games the others lack
        raise DatabaseError(f"--db {config.db[:200]}: a database in memory is one process's: "
                            f"--workers {config.workers} cannot share it; give a file "
                            f"(sqlite:///games.db) or PostgreSQL")
    db.upgrade()
    postgres = db.url.get_backend_name() == "postgresql"
    store = Games(db, pool.stored, config.max_games, notify=CHANNEL if postgres else None)
    changes = Changes(shared=config.workers > 1 or postgres, listens=postgres)
    listener = PostgresListener(db.conninfo(), changes) if postgres else None
    seeds = iter(range(config.seed, config.seed + 10**9)) if config.seed is not None else None
    tables = TableRoutes(store, pool, ApiError, config, seeds, changes)
    seat_of, in_worker = tables.seat_of, tables.in_worker
    coach = CoachRoutes(seat_of, ApiError, config.hint_worlds, config.review_worlds)

    def answer(request: Request, table: Table, events: list[dict[str, Any]],
               status: int = 200, **extra: Any) -> JSONResponse:
        words = _narrator(request)
        view = table.view()
        return JSONResponse({**extra, "events": [words.event(e) for e in table.events(events)],
                             "state": {**view, "text": words.view(view)}}, status_code=status,
                            headers={"x-aluette-worker": WORKER})

    async def players(request: Request) -> JSONResponse:
        words = _narrator(request)
        return JSONResponse({"players": pool.allowed, "defaults": config.defaults(),
                             "labels": {spec: words.player(spec) for spec in pool.allowed}})

    async def server_info(request: Request) -> JSONResponse:
        # idle_seconds: None, games are kept (the page says nothing of expiry)
        return JSONResponse({"idle_seconds": None, "max_games": config.max_games,
                             "database": db.url.get_backend_name()})

    async def languages(request: Request) -> JSONResponse:
        return JSONResponse({"languages": i18n.LANGUAGES, "default": i18n.DEFAULT_LANGUAGE,
                             "rtl": sorted(i18n.RTL_LANGUAGES)})

    async def catalog(request: Request) -> JSONResponse:
        lang = request.path_params["lang"]
        try:
            return JSONResponse(i18n.browser_catalog(i18n.check_language(lang)))
        except ValueError as err:
            raise ApiError(404, str(err)) from None

    async def deck(request: Request) -> JSONResponse:
        return JSONResponse({
            "num_cards": NUM_CARDS,
            "levels": [list(cards) for cards in reversed(CARDS_BY_STRENGTH)],  # highest first
            "named": [card for card, _ in NAMED_CARDS],
        })

    async def create(request: Request) -> JSONResponse:
        _narrator(request)
        data = await _json_body(request)
        _check_keys(data, set(AI_SEATS))
        specs = _seat_specs(data, pool, config.defaults())
        game = await run_in_threadpool(
            new_session, specs, lambda spec: pool.get(spec, "seat"),
            next(seeds) if seeds is not None else None)
        table = await run_in_threadpool(tables.add, game)
        return answer(request, table, game.opening_events, 201, id=table.token)

    async def show(request: Request) -> JSONResponse:
        table = await seat_of(request)
        _narrator(request)
        # A move stopped by a dead AI worker left an AI seat to play: it plays now.
        events = await in_worker(table, list) if table.game.ai_to_move else []
        if not events:
            await tables.look(table)
        return answer(request, table, events)

    async def play(request: Request) -> JSONResponse:
        table = await seat_of(request, person=True)
        _narrator(request)
        data = await _json_body(request)
        _check_keys(data, {"card", "version"})
        card = _integer(data, "card", 0, NUM_CARDS - 1, "a card id 0-47 from your hand")
        version = _integer(data, "version", 0, None, "the game's version in the view you saw")
        gid = request.path_params["gid"]
        events = await in_worker(table, lambda: coach.moved(
            gid, table, table.game.play(card, version, table.seat)))
        return answer(request, table, events)

    async def next_deal(request: Request) -> JSONResponse:
        table = await seat_of(request, person=True)
        _narrator(request)
        data = await _json_body(request)
        _check_keys(data, {"version"})
        version = _integer(data, "version", 0, None, "the game's version in the view you saw",
                           required=False)
        events = await in_worker(table, lambda: table.game.next_deal(version, table.seat))
        return answer(request, table, events)

    async def new_match(request: Request) -> JSONResponse:
        table = await seat_of(request, person=True)
        _narrator(request)
        if not table.game.may_start_match(table.seat):
            raise ApiError(403, "at a table of people only its host starts a new match",
                           "host_only")
        data = await _json_body(request)
        _check_keys(data, {"version"})
        version = _integer(data, "version", 0, None, "the game's version in the view you saw",
                           required=False)
        events = await in_worker(table, lambda: table.game.new_match(version, table.seat))
        return answer(request, table, events)

    async def set_players(request: Request) -> JSONResponse:
        table = await seat_of(request, person=True)
        _narrator(request)
        data = await _json_body(request)
        _check_keys(data, set(AI_SEATS))
        if not data:
            raise ApiError(400, f"name at least one seat to change: {', '.join(AI_SEATS)}")
        chosen = {role: pool.get(spec, role) for role, spec in data.items()}  # all or nothing
        # The roles are the person's: "left" is the seat on their left.
        seats = {role: seat_at(table.seat, AI_SEATS[role]) for role in chosen}

        def change():
            return [e for role, player in chosen.items()
                    for e in table.game.set_player(seats[role], data[role], player)]
        events = await in_worker(table, change)
        return answer(request, table, events)

    page = StaticPage(STATIC_DIR)

    async def index(request: Request) -> HTMLResponse:
        return HTMLResponse(page.html, headers={"cache-control": "no-cache"})

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        status = getattr(exc, "status_code", 500)
        detail = getattr(exc, "detail", "")
        if not isinstance(exc, ApiError):
            detail = {404: f"no such page: {request.url.path}",
                      405: f"method {request.method} is not allowed on {request.url.path}"
                      }.get(status, detail)
        body = {"error": detail}
        if isinstance(exc, ApiError) and exc.code:
            body["code"] = exc.code
            if exc.fields:
                body["fields"] = exc.fields
        return JSONResponse(body, status_code=status)

    async def worker_unavailable(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"error": str(exc), "code": "worker_restarting"}, status_code=503,
                            headers={"retry-after": "2"})

    async def client_gone(request: Request, exc: Exception) -> Response:
        log.warning("client disconnected before sending its request body: %s %s",
                    request.method, logged_path(request.url.path))
        return Response(status_code=400)  # nobody is left to read it

    async def store_unavailable(request: Request, exc: Exception) -> JSONResponse:
        # Nothing of the request was kept (store.Database.session rolled it back), and
        # the game in memory is the database's (tables.in_worker): the page sends it again.
        log.warning("the database failed: %s (%s %s)", exc, request.method,
                    logged_path(request.url.path))
        return JSONResponse({"error": "the server cannot use its database now; nothing was "
                                      "changed: try again in a moment",
                             "code": "store_unavailable"}, status_code=503,
                            headers={"retry-after": "2"})

    async def damaged(request: Request, exc: Exception) -> JSONResponse:
        # The reason names the game's id and maybe its hidden cards: the log's only.
        log.warning("refused a damaged game: %s (%s %s)", exc, request.method,
                    logged_path(request.url.path))
        return JSONResponse({"error": "this game's stored record is damaged and was refused",
                             "code": "damaged"}, status_code=500)

    routes = [
        Route("/", index),
        Route("/api/players", players),
        Route("/api/server", server_info),
        Route("/api/languages", languages),
        Route("/api/i18n/{lang}", catalog),
        Route("/api/deck", deck),
        Route("/api/games", create, methods=["POST"]),
        Route("/api/games/{gid}", show),
        Route("/api/games/{gid}/play", play, methods=["POST"]),
        Route("/api/games/{gid}/next-deal", next_deal, methods=["POST"]),
        Route("/api/games/{gid}/new-match", new_match, methods=["POST"]),
        Route("/api/games/{gid}/players", set_players, methods=["POST"]),
        *coach.routes(),
        *tables.routes(),
        Mount("/static", page.files, name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error,
                                                       ClientGone: client_gone,
                                                       WorkerUnavailable: worker_unavailable,
                                                       StoreUnavailable: store_unavailable,
                                                       DamagedGame: damaged},
                    lifespan=_closing(listener, pool.workers, coach, db, warm=coach.warm))
    app.state.store = store
    app.state.config = config
    app.state.coach = coach
    app.state.tables = tables
    app.state.changes, app.state.listener = changes, listener
    app.state.ai_workers = pool.workers
    limited = RequestLimits(app, MAX_BODY, {"/api/records": MAX_RECORD_BYTES})
    return ServerTiming(SecurityHeaders(CompressPage(limited)), app)


def app_from_environment():
    """The app of one of ``aluette serve --workers N``'s processes, made from
    the settings the command put in the environment."""
    return create_app(ServerConfig(**json.loads(os.environ[CONFIG_VARIABLE])))


def _closing(listener: PostgresListener | None, *workers, warm=None):
    """The app's lifespan: the database's notifications heard while it runs;
    ``warm()`` (the coach's warm-up) run as it starts, in the background; the
    AI and coach worker processes end with the server."""
    @contextlib.asynccontextmanager
    async def lifespan(app):
        hearing = asyncio.create_task(listener.run()) if listener is not None else None
        warming = app.state.warming = asyncio.create_task(warm()) if warm is not None else None
        try:
            yield
        finally:
            if warming is not None:
                warming.cancel()
            if hearing is not None:
                hearing.cancel()
            for w in workers:
                w.close()
    return lifespan


class StaticPage:
    """The page and its files, cached by content: the page (``/``) names each
    file with a hash of its content (``/static/app.js?v=<sha256 prefix>``,
    computed at start), so a browser keeps a file for a year and asks again
    only when it changed (``immutable``); the page itself and a file asked
    without its hash are checked on every load (``no-cache``)."""

    def __init__(self, directory: Path):
        self.versions = {path.name: hashlib.sha256(path.read_bytes()).hexdigest()[:16]
                         for path in sorted(directory.iterdir()) if path.is_file()}
        html = (directory / "index.html").read_text(encoding="utf-8")
        self.html = re.sub(r'"/static/([\w.-]+)"', self._versioned, html)
        self.files = _HashedFiles(directory=directory, versions=self.versions)

    def _versioned(self, m: re.Match) -> str:
        name = m.group(1)
        return f'"/static/{name}?v={self.versions[name]}"' if name in self.versions else m.group(0)


class _HashedFiles(StaticFiles):
    """Starlette's static files with :class:`StaticPage`'s caching headers."""

    def __init__(self, *, directory: Path, versions: dict[str, str]):
        super().__init__(directory=directory)
        self.versions = versions

    async def get_response(self, path: str, scope) -> Response:
        response = await super().get_response(path, scope)
        asked = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1"))).get("v")
        hashed = asked is not None and asked == self.versions.get(path)
        response.headers["cache-control"] = ("public, max-age=31536000, immutable" if hashed
                                             else "no-cache")
        return response


class CompressPage:
    """Pure ASGI middleware: the page and its files go out gzipped to browsers
    that take it (Starlette's GZipMiddleware); the API's answers are left as
    they are."""

    def __init__(self, app):
        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=500, compresslevel=6)

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "")
        if scope["type"] == "http" and (path == "/" or path.startswith("/static/")):
            return await self.gzip(scope, receive, send)
        return await self.app(scope, receive, send)


class SecurityHeaders:
    """Pure ASGI middleware: the page loads only its own files; nothing is
    cached unless the answer says otherwise (:class:`StaticPage`)."""

    HEADERS = [
        (b"content-security-policy",
         b"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
         b"object-src 'none'; base-uri 'none'; frame-ancestors 'none'"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
    ]
    NO_STORE = (b"cache-control", b"no-store")

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", [])) + self.HEADERS
                if not any(name.lower() == b"cache-control" for name, _ in headers):
                    headers.append(self.NO_STORE)
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


class ServerTiming:
    """Pure ASGI middleware: ``Server-Timing: app;dur=<ms>, cpu;dur=<ms>`` on
    every answer: the wall time from the request reaching the app to its answer,
    and the CPU time the event loop's thread spent meanwhile (moves run in
    worker threads and processes, so this is the request's handling without
    them; on a busy machine the wall time also counts the moments the process
    waited for a core). What ``bench_web.py`` reports."""

    def __init__(self, app, starlette_app: Starlette):
        self.app = app
        self.state = starlette_app.state  # tests reach the store through app.state

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        start, cpu = time.perf_counter(), time.thread_time()

        async def send_timed(message):
            if message["type"] == "http.response.start":
                ms = (time.perf_counter() - start) * 1000
                cpu_ms = (time.thread_time() - cpu) * 1000
                message["headers"] = list(message.get("headers", [])) + [
                    (b"server-timing", f"app;dur={ms:.3f}, cpu;dur={cpu_ms:.3f}".encode())]
            await send(message)

        await self.app(scope, receive, send_timed)
