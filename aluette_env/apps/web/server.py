"""The web game's HTTP server: a small Starlette app over :class:`GameSession`.

Starlette (the ASGI toolkit under FastAPI) with uvicorn: a handful of JSON
routes and static files need no more, it has a first-class test client, and it
adds one dependency tree that is well kept and small. Routes stay thin: parse
the request, call the game, return the view of the person's seat.

Robustness, as the README states it: session ids are ``secrets.token_urlsafe``
(128 bits); at most ``max_games`` live games (default 1000) and a game idle for
``idle_seconds`` (default 30 minutes) is dropped; request bodies over 4 KiB are
refused; every malformed or impossible request gets a 4xx JSON
``{"error": "..."}`` that names the problem, and the game is left as it was.
AI moves run inline on the event loop: they take well under a millisecond for
the shipped players, and a local single-person server needs no worker pool.

API (all JSON):

===========================================  =========================================
``GET  /api/players``                        the AI specs a seat may take, and defaults
``GET  /api/languages``                      language codes and their own names
``GET  /api/i18n/{lang}``                    messages, card names and text direction
``GET  /api/deck``                           the rank order: card ids by strength level
``POST /api/games``                          new match ``{"left", "partner", "right"}``
``GET  /api/games/{id}``                     the view of seat 0
``POST /api/games/{id}/play``                ``{"card": id}``: play, then the AIs play
``POST /api/games/{id}/next-deal``           deal the next deal of the match
``POST /api/games/{id}/new-match``           restart: scores cleared
``POST /api/games/{id}/players``             ``{"left": spec, ...}``: change AI seats
===========================================  =========================================

Moves answer ``{"events": [...], "state": {...}}``; the events (cards played,
tricks, the deal's end) let the page show AI cards one at a time.
"""

from __future__ import annotations

import json
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from aluette_env.game import CARDS_BY_STRENGTH, NAMED_CARDS, NUM_CARDS
from aluette_env.players import Player, PlayerSpecError, load_player, player_names

from .. import i18n
from .session import AI_SEATS, GameError, GameSession, new_session

STATIC_DIR = Path(__file__).resolve().parent / "static"
MAX_BODY = 4096
SESSION_ID_BYTES = 16  # token_urlsafe(16): 128 random bits


@dataclass
class ServerConfig:
    """What ``aluette serve`` sets: the default AI of each seat, and the bounds."""

    partner: str = "ai"
    left: str = "ai"
    right: str = "ai"
    max_games: int = 1000
    idle_seconds: float = 1800.0
    seed: int | None = None  # for tests: reproducible deals

    def defaults(self) -> dict[str, str]:
        return {"left": self.left, "partner": self.partner, "right": self.right}


def registered_players() -> list[str]:
    """Player names the registry offers (random, heuristic, ai, pimc, ...)."""
    return sorted(player_names())


class ApiError(HTTPException):
    """An error answer with a JSON ``{"error": message}`` body: 4xx for a bad
    request, 503 when the server holds its maximum of live games."""


class GameStore:
    """Live games by session id, bounded in number and idle time."""

    def __init__(self, max_games: int, idle_seconds: float,
                 clock: Callable[[], float] = time.monotonic):
        if max_games < 1 or idle_seconds <= 0:
            raise ValueError(f"max_games must be >= 1 and idle_seconds > 0, "
                             f"got {max_games} and {idle_seconds}")
        self.max_games = max_games
        self.idle_seconds = idle_seconds
        self.clock = clock
        self._games: OrderedDict[str, tuple[GameSession, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._games)

    def expire(self) -> int:
        """Drop the games idle for longer than ``idle_seconds``; returns how many."""
        limit = self.clock() - self.idle_seconds
        dropped = 0
        while self._games:
            gid, (_, last) = next(iter(self._games.items()))
            if last > limit:
                break
            del self._games[gid]
            dropped += 1
        return dropped

    def add(self, game: GameSession) -> str:
        self.expire()
        if len(self._games) >= self.max_games:
            raise ApiError(503, f"too many live games ({self.max_games}, the server's "
                                f"--max-games); try again when one has been idle "
                                f"{self.idle_seconds:.0f} s")
        gid = secrets.token_urlsafe(SESSION_ID_BYTES)
        self._games[gid] = (game, self.clock())
        return gid

    def get(self, gid: str) -> GameSession:
        self.expire()
        entry = self._games.get(gid)
        if entry is None:
            raise ApiError(404, f"no game {gid[:64]!r}: unknown id, or it expired after "
                                f"{self.idle_seconds:.0f} s idle")
        self._games[gid] = (entry[0], self.clock())
        self._games.move_to_end(gid)  # ordered by last use, so expiry stops early
        return entry[0]


class PlayerPool:
    """One player object per spec, shared by all games: the players keep no
    per-game state (they act on the observation alone), and one loaded model
    serves every table."""

    def __init__(self, allowed: list[str]):
        self.allowed = list(dict.fromkeys(allowed))
        self._players: dict[str, Player] = {}

    def get(self, spec: object, seat: str) -> Player:
        if not isinstance(spec, str) or spec not in self.allowed:
            raise ApiError(400, f"{seat}: unknown AI {spec!r}; choose one of "
                                f"{', '.join(self.allowed)}")
        if spec not in self._players:
            try:
                self._players[spec] = load_player(spec)
            except PlayerSpecError as err:
                raise ApiError(400, f"{seat}: {err}") from None
        return self._players[spec]


# ---------------------------------------------------------------------- helpers


async def _json_body(request: Request) -> dict[str, Any]:
    body = await request.body()
    if len(body) > MAX_BODY:
        raise ApiError(413, f"request body of {len(body)} bytes; the limit is {MAX_BODY}")
    if not body:
        return {}
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ApiError(400, f"the body is not valid JSON: {err}") from None
    if not isinstance(data, dict):
        raise ApiError(400, f"the body must be a JSON object, got {type(data).__name__}")
    return data


def _check_keys(data: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ApiError(400, f"unknown field(s) {', '.join(map(repr, unknown))}; "
                            f"allowed: {', '.join(sorted(allowed)) or 'none'}")


def _seat_specs(data: dict[str, Any], pool: PlayerPool, base: dict[str, str]) -> dict[int, str]:
    specs = dict(base)
    for role in AI_SEATS:
        if role in data:
            pool.get(data[role], role)  # validates and loads
            specs[role] = data[role]
    return {AI_SEATS[role]: spec for role, spec in specs.items()}


def create_app(config: ServerConfig | None = None) -> Starlette:
    """The ASGI app of the web game."""
    config = config or ServerConfig()
    offered = registered_players()
    # The browser may pick the registry's players and the ones given at start-up
    # (possibly a model file); never a path of its own choosing.
    pool = PlayerPool(offered + [config.partner, config.left, config.right])
    for role, spec in config.defaults().items():
        try:
            pool.get(spec, role)  # a bad --partner/--left/--right fails at start-up
        except ApiError as err:
            raise PlayerSpecError(f"--{role}: {err.detail}") from None
    store = GameStore(config.max_games, config.idle_seconds)
    seeds = iter(range(config.seed, config.seed + 10**9)) if config.seed is not None else None

    def moved(game: GameSession, events: list[dict[str, Any]], status: int = 200) -> JSONResponse:
        return JSONResponse({"events": events, "state": game.view()}, status_code=status)

    async def players(request: Request) -> JSONResponse:
        return JSONResponse({"players": pool.allowed, "defaults": config.defaults()})

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
        data = await _json_body(request)
        _check_keys(data, set(AI_SEATS))
        specs = _seat_specs(data, pool, config.defaults())
        game = new_session(specs, lambda spec: pool.get(spec, "seat"),
                           seed=next(seeds) if seeds is not None else None)
        gid = store.add(game)
        return JSONResponse({"id": gid, "events": game.opening_events, "state": game.view()},
                            status_code=201)

    def game_of(request: Request) -> GameSession:
        return store.get(request.path_params["gid"])

    async def show(request: Request) -> JSONResponse:
        return JSONResponse({"state": game_of(request).view()})

    async def play(request: Request) -> JSONResponse:
        game = game_of(request)
        data = await _json_body(request)
        _check_keys(data, {"card"})
        if "card" not in data:
            raise ApiError(400, "missing field 'card' (a card id 0-47 from your hand)")
        card = data["card"]
        if isinstance(card, bool) or not isinstance(card, int):
            raise ApiError(400, f"card must be an integer card id 0-47, got {card!r}")
        try:
            return moved(game, game.play(card))
        except GameError as err:
            raise ApiError(409, str(err)) from None

    async def next_deal(request: Request) -> JSONResponse:
        game = game_of(request)
        _check_keys(await _json_body(request), set())
        try:
            return moved(game, game.next_deal())
        except GameError as err:
            raise ApiError(409, str(err)) from None

    async def new_match(request: Request) -> JSONResponse:
        game = game_of(request)
        _check_keys(await _json_body(request), set())
        return moved(game, game.new_match())

    async def set_players(request: Request) -> JSONResponse:
        game = game_of(request)
        data = await _json_body(request)
        _check_keys(data, set(AI_SEATS))
        if not data:
            raise ApiError(400, f"name at least one seat to change: {', '.join(AI_SEATS)}")
        chosen = {role: pool.get(spec, role) for role, spec in data.items()}  # all or nothing
        events = []
        for role, player in chosen.items():
            events += game.set_player(AI_SEATS[role], data[role], player)
        return moved(game, events)

    async def index(request: Request) -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html")

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        status = getattr(exc, "status_code", 500)
        detail = getattr(exc, "detail", "")
        if not isinstance(exc, ApiError):
            detail = {404: f"no such page: {request.url.path}",
                      405: f"method {request.method} is not allowed on {request.url.path}"
                      }.get(status, detail)
        return JSONResponse({"error": detail}, status_code=status)

    routes = [
        Route("/", index),
        Route("/api/players", players),
        Route("/api/languages", languages),
        Route("/api/i18n/{lang}", catalog),
        Route("/api/deck", deck),
        Route("/api/games", create, methods=["POST"]),
        Route("/api/games/{gid}", show),
        Route("/api/games/{gid}/play", play, methods=["POST"]),
        Route("/api/games/{gid}/next-deal", next_deal, methods=["POST"]),
        Route("/api/games/{gid}/new-match", new_match, methods=["POST"]),
        Route("/api/games/{gid}/players", set_players, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    app.state.store = store
    app.state.config = config
    return ServerTiming(SecurityHeaders(app), app)


class SecurityHeaders:
    """Pure ASGI middleware: the page loads only its own files."""

    HEADERS = [
        (b"content-security-policy",
         b"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
         b"object-src 'none'; base-uri 'none'; frame-ancestors 'none'"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"cache-control", b"no-store"),
    ]

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + self.HEADERS
            await send(message)

        await self.app(scope, receive, send_with_headers)


class ServerTiming:
    """Pure ASGI middleware: ``Server-Timing: app;dur=<ms>, cpu;dur=<ms>`` on
    every answer: the wall time from the request reaching the app to its answer,
    and the CPU time the server's thread spent meanwhile (on a busy machine the
    wall time also counts the moments the process waited for a core). What
    ``bench_web.py`` reports."""

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
