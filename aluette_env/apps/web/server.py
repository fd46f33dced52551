"""The web game's HTTP server: a small Starlette app over the service
(:mod:`.service`), which runs the game flow for people,
:class:`aluette_env.apps.session.GameSession` (the terminal game runs on the
same one). This module assembles it: the settings, the route modules of each
feature, the answers to errors, the start and the end, and the middleware.

Starlette (the ASGI toolkit under FastAPI) with uvicorn: a handful of JSON
routes and static files need no more, it has a first-class test client, and it
adds one dependency tree that is well kept and small. Routes stay thin, one
module per feature: the page and what it loads (:mod:`.page`), a seat's game
(:mod:`.game_api`), tables of people (:mod:`.tables`), the coach
(:mod:`.coach_api`). They parse the request, call the service, and return the
view of the person's seat.

Robustness, as the README states it: every game is kept in a database
(:mod:`.store`: SQLite by default, PostgreSQL through its URL) and each
accepted move is written before it is answered, so a restarted or killed
server, or another worker process, continues every game; a game is reached
by a seat token of 128 random bits (an unknown token answers 403 with
``"code": "no_game"``, and the page says so); request bodies over 4 KiB are
refused as they arrive (a larger Content-Length at once); every malformed or
impossible request gets a 4xx JSON ``{"error": "..."}`` that names the
problem, and the game is left as it was. A play carries the ``version`` of
the view it was chosen on: a stale play gets 409, the same play sent again is
applied once. Moves, AI cards included, run in worker threads, one at a time
per game, and the slow players (``expert``, ``pimc``) compute their moves in
worker processes (:mod:`.workers`): a slow AI seat delays only its own game,
never the event loop. Every route that answers a game takes ``?lang=`` and
adds the words of :class:`~aluette_env.apps.narrator.Narrator` (``text``
fields).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from dataclasses import dataclass

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from aluette_env.game import ALUETTE_SIGNS_V0, ALUETTE_V1
from aluette_env.players import PlayerSpecError
from aluette_env.records import MAX_BYTES as MAX_RECORD_BYTES

from ..coach import HINT_WORLDS, REVIEW_WORLDS
from .changes import CHANNEL, Changes, PostgresListener
from .coach_api import CoachRoutes
from .errors import ApiError
from .game_api import GameRoutes
from .inputs import MAX_BODY, ClientGone, logged_path
from .limits import RequestLimits
from .page import CompressPage, PageRoutes
from .service import GameService
from .store import Database, DamagedGame, DatabaseError, Games, StoreUnavailable
from .tables import TableRoutes
from .timeouts import BODY_TIMEOUT_S
from . import upkeep
from .upkeep import KEEP_FINISHED_DAYS, KEEP_UNFINISHED_DAYS, Keeping
from .workers import CoachWorkers, PlayerPool, WorkerUnavailable, registered_players

#: What ``aluette serve --workers N`` hands to each server process (:func:`app_from_environment`).
CONFIG_VARIABLE = "ALUETTE_SERVE_CONFIG"

log = logging.getLogger("aluette.web")


@dataclass
class ServerConfig:
    """What ``aluette serve`` sets: the default AI of each seat, and the bounds."""

    partner: str = "ai"
    left: str = "ai"
    right: str = "ai"
    #: The AI of every seat of a game with signs unless it names one: it signs
    #: truthfully and reads the signs it sees (docs/WEB.md, "Playing with signs").
    signs_ai: str = "expert"
    max_games: int = 1000  # games kept in each process's memory (all are in the database)
    db: str = "sqlite://"  # the database's URL (aluette serve: a file, store.default_url)
    workers: int = 1  # server processes sharing the database (aluette serve --workers)
    seed: int | None = None  # for tests: reproducible deals
    hint_worlds: int = HINT_WORLDS  # the coach's effort (aluette_env.apps.coach)
    review_worlds: int = REVIEW_WORLDS
    body_timeout: float = BODY_TIMEOUT_S  # seconds for a request's whole body
    #: New games and tables a client address may start per hour (0: any number).
    new_games_per_hour: int = 0
    #: Days games are kept after their last move (.upkeep; 0: for ever).
    keep_unfinished_days: float = KEEP_UNFINISHED_DAYS
    keep_finished_days: float = KEEP_FINISHED_DAYS
    #: Seconds to wait at start for a database that does not answer (0: fail at once).
    db_wait: float = 0.0

    def defaults(self) -> dict[str, str]:
        return {"left": self.left, "partner": self.partner, "right": self.right}

    def signs_defaults(self) -> dict[str, str]:
        return {"left": self.signs_ai, "partner": self.signs_ai, "right": self.signs_ai}


def create_app(config: ServerConfig | None = None, *,
               coach_workers: CoachWorkers | None = None) -> Starlette:
    """The ASGI app of the web game: the players and the database checked (and
    migrated), the service made, each feature's routes mounted.
    ``coach_workers``: the coach's worker processes (of the config's
    ``hint_worlds`` and ``review_worlds``) shared by several apps of this
    process, as a test suite makes them; the app then leaves them running when
    it stops, and their maker closes them. None: the app's own."""
    config = config or ServerConfig()
    # The browser may pick the registry's players and the ones given at start-up
    # (possibly a model file); never a path of its own choosing.
    pool = PlayerPool(registered_players() + [config.partner, config.left, config.right,
                                              config.signs_ai])
    for role, spec in [*config.defaults().items(), ("signs-ai", config.signs_ai)]:
        try:
            # A bad --partner/--left/--right/--signs-ai fails at start-up.
            pool.load(spec, ALUETTE_SIGNS_V0 if role == "signs-ai" else ALUETTE_V1)
        except PlayerSpecError as err:
            raise PlayerSpecError(f"--{role}: {err}") from None
    db = Database(config.db)
    if db.memory and config.workers > 1:  # each process would hold games the others lack
        raise DatabaseError(f"--db {config.db[:200]}: a database in memory is one process's: "
                            f"--workers {config.workers} cannot share it; give a file "
                            f"(sqlite:///games.db) or PostgreSQL")
    db.upgrade(wait_s=config.db_wait, say=log.warning)
    postgres = db.url.get_backend_name() == "postgresql"
    store = Games(db, notify=CHANNEL if postgres else None)
    changes = Changes(shared=config.workers > 1 or postgres, listens=postgres)
    listener = PostgresListener(db.conninfo(), changes) if postgres else None
    seeds = iter(range(config.seed, config.seed + 10**9)) if config.seed is not None else None
    service = GameService(store, pool, changes, config.max_games, seeds,
                          new_games_per_hour=config.new_games_per_hour)
    coach = CoachRoutes(service, config.hint_worlds, config.review_worlds, coach_workers)
    features = [PageRoutes(pool, config.defaults(), config.max_games,
                           db.url.get_backend_name(), signs_defaults=config.signs_defaults()),
                GameRoutes(service, config.defaults(), coach, config.signs_defaults()), coach,
                TableRoutes(service, config.partner, config.signs_ai),
                HealthRoutes(service, db)]
    app = Starlette(routes=[route for feature in features for route in feature.routes()],
                    exception_handlers={HTTPException: http_error, ApiError: http_error,
                                        ClientGone: client_gone,
                                        WorkerUnavailable: worker_unavailable,
                                        StoreUnavailable: store_unavailable,
                                        DamagedGame: damaged},
                    lifespan=_closing(listener, pool.workers, coach, service, db,
                                      warm=coach.warm,
                                      prune=_pruning(service, Keeping(
                                          config.keep_unfinished_days,
                                          config.keep_finished_days))))
    app.state.store, app.state.service = store, service
    app.state.config = config
    app.state.coach = coach
    app.state.changes, app.state.listener = changes, listener
    app.state.ai_workers = pool.workers
    limited = RequestLimits(app, MAX_BODY, {"/api/records": MAX_RECORD_BYTES},
                            timeout=config.body_timeout)
    return ServerTiming(AccessLog(SecurityHeaders(CompressPage(limited))), app)


def check_settings(settings: dict, log_level: str) -> str | None:
    """The app of ``ServerConfig(**settings)`` made, to check the players and
    the database (migrated), and dropped: the refusal's one line, or None. What
    ``aluette serve --workers N`` runs in a process of its own, so that its
    supervisor, which serves nothing, never holds the players and their
    libraries (a few hundred MB)."""
    configure_logging(log_level)
    try:
        app = create_app(ServerConfig(**settings))
    except (DatabaseError, PlayerSpecError) as err:
        return str(err)
    app.state.store.db.close()
    return None


def app_from_environment():
    """The app of one of ``aluette serve --workers N``'s processes, made from
    the settings the command put in the environment. The process stops with
    the supervisor that started it, even one killed with SIGKILL
    (:func:`~aluette_env._workers.stop_with_parent`): no worker stays behind
    holding the port."""
    from aluette_env._workers import stop_with_parent

    settings = json.loads(os.environ[CONFIG_VARIABLE])
    stop_with_parent(settings.pop("supervisor"))
    return create_app(ServerConfig(**settings))


def _closing(listener: PostgresListener | None, *workers, warm=None, prune=None):
    """The app's lifespan: the database's notifications heard while it runs;
    ``warm()`` (the coach's warm-up) and ``prune()`` (the expired games
    deleted, now and every hour) run in the background; the AI and coach
    worker processes, the service's threads and the database end with the
    server."""
    @contextlib.asynccontextmanager
    async def lifespan(app):
        tasks = [asyncio.create_task(listener.run())] if listener is not None else []
        warming = app.state.warming = asyncio.create_task(warm()) if warm is not None else None
        tasks += [warming] if warming is not None else []
        tasks += [asyncio.create_task(prune())] if prune is not None else []
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            for w in workers:
                w.close()
    return lifespan


def _pruning(service: GameService, keeping: Keeping):
    """The server's prune (:mod:`.upkeep`): now, then every
    :data:`~.upkeep.PRUNE_EVERY_S` seconds, in a worker thread; a failing
    database is one log line and a try at the next hour."""
    async def prune() -> None:
        while True:
            try:
                done = await service.run(upkeep.prune, service.store, keeping)
                if any(done.values()):
                    log.info("pruned expired games: %s",
                             ", ".join(f"{n} {kind}" for kind, n in done.items()))
            except DatabaseError as err:
                log.warning("could not prune expired games: %s", err)
            await asyncio.sleep(upkeep.PRUNE_EVERY_S)
    return prune


def configure_logging(level: str) -> None:
    """This server's loggers as :func:`logging_config` sets them (``aluette
    serve`` calls it first, so that its wait for the database is logged;
    uvicorn applies the whole config when it starts serving). Only these:
    ``logging.config.dictConfig`` would first close every handler of the
    process, also those of a program that runs the command from Python, and
    absl's (OpenSpiel, Ray) then closes the stream it was given."""
    import sys

    from uvicorn.logging import DefaultFormatter

    config = logging_config(level)
    streams = {"ext://sys.stderr": sys.stderr, "ext://sys.stdout": sys.stdout}
    for name in ("aluette", "aluette.access"):
        logger = logging.getLogger(name)
        for handler in [h for h in logger.handlers if getattr(h, "aluette", False)]:
            logger.removeHandler(handler)  # an earlier call's
        for key in config["loggers"][name]["handlers"]:
            spec = config["handlers"][key]
            handler = logging.StreamHandler(streams[spec.get("stream", "ext://sys.stderr")])
            handler.setFormatter(DefaultFormatter(config["formatters"][spec["formatter"]]["fmt"]))
            handler.aluette = True
            logger.addHandler(handler)
        logger.setLevel(config["loggers"][name]["level"])
        logger.propagate = config["loggers"][name]["propagate"]


def logging_config(level: str) -> dict:
    """uvicorn's logging settings (``uvicorn.Config(log_config=...)``, applied in
    every worker process too) with this server's loggers at ``level``: its
    messages on stderr, and the access log (:class:`AccessLog`) on stdout."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["handlers"]["aluette_access"] = {"formatter": "default",
                                            "class": "logging.StreamHandler",
                                            "stream": "ext://sys.stdout"}
    config["loggers"]["aluette"] = {"handlers": ["default"], "level": level.upper(),
                                    "propagate": False}
    config["loggers"]["aluette.access"] = {"handlers": ["aluette_access"],
                                           "level": level.upper(), "propagate": False}
    return config


# ---------------------------------------------------------------------- errors

async def http_error(request: Request, exc: Exception) -> JSONResponse:
    """A refused request (:class:`~.errors.ApiError`) or a route or method the
    app does not have, as the API's JSON error."""
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
    # the game in memory is the database's (service.GameService.move): the page sends it again.
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


# ---------------------------------------------------------------------- health

class HealthRoutes:
    """For load balancers and service managers: ``GET /healthz`` answers 200
    while the server process answers at all (liveness); ``GET /readyz``
    answers 200 once the database answers too, else 503 (readiness)."""

    #: Seconds the readiness check waits for the database.
    TIMEOUT_S = 5.0

    def __init__(self, service: GameService, db: Database):
        self.service, self.db = service, db

    async def healthz(self, request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    async def readyz(self, request: Request) -> JSONResponse:
        try:
            await asyncio.wait_for(self.service.run(self.db.ping), self.TIMEOUT_S)
        except (DatabaseError, asyncio.TimeoutError) as err:
            reason = str(err) or f"no answer within {self.TIMEOUT_S:g} s"
            return JSONResponse({"error": f"the database does not answer: {reason}",
                                 "code": "store_unavailable"}, status_code=503,
                                headers={"retry-after": "2"})
        return JSONResponse({"status": "ready", "database": self.db.url.get_backend_name()})

    def routes(self) -> list:
        return [Route("/healthz", self.healthz), Route("/readyz", self.readyz)]


# ---------------------------------------------------------------------- middleware

access_log = logging.getLogger("aluette.access")


class AccessLog:
    """Pure ASGI middleware: one line per request on the ``aluette.access``
    logger at INFO (``aluette serve --log-level info``): the client's address
    (the forwarded one behind ``--proxy``), the method, the path (a seat token
    cut short, :func:`~.inputs.logged_path`), the status and the time taken in
    ms; a request whose client left before its answer has the warning that says
    so instead. An update socket is logged as it opens: 101, or 403 if refused."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket") or not access_log.isEnabledFor(
                logging.INFO):
            return await self.app(scope, receive, send)
        start = time.perf_counter()
        status: int | None = None
        client = (scope.get("client") or ("?",))[0]
        path = logged_path(scope.get("path", ""))

        def line(method: str, code: int) -> None:
            access_log.info('%s "%s %s HTTP/%s" %s %.1f ms', client, method, path,
                            scope.get("http_version", "1.1"), code,
                            (time.perf_counter() - start) * 1000)

        async def sending(message):
            nonlocal status
            kind = message["type"]
            if kind == "http.response.start":
                status = message["status"]
            elif scope["type"] == "websocket" and status is None and kind in (
                    "websocket.accept", "websocket.close", "websocket.http.response.start"):
                status = {"websocket.accept": 101, "websocket.close": 403}.get(
                    kind, message.get("status"))
                line("WEBSOCKET", status)
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            if scope["type"] == "http" and status is not None:  # else the client left first
                line(scope.get("method", "?"), status)



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
