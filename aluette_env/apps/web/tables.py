"""Seats and tables of the web game: reaching a game by a seat token, moves
written to the database before they are answered, tables of two to four
people with AIs in the other seats, updates pushed over a WebSocket, and the
table's AI taking over from a person who left.

Every game is reached through a seat token (``/api/games/{token}/...``): the
token of a one-person game is the ``id`` that ``POST /api/games`` answers, and
a table has one token per person and one for its spectators
(:mod:`.store` keeps only their SHA-256). A token shows its seat's view
(:meth:`GameSession.view <aluette_env.apps.session.GameSession.view>`: its own
hand and what is public, seats counted from it) and moves only for its seat;
a spectator's token shows the public view and moves nothing. An unknown token
gets 403; a client that sends :attr:`TokenGuard.max_failures` of them within
:attr:`TokenGuard.window_s` seconds gets 429 until the window has passed.

===========================================  =========================================
``POST /api/tables``                         ``{"people": {"0": "Ann", "2": "Bob"},
                                             "ai": spec, "away_after": s}``: a table,
                                             one token per person and a spectators' one
                                             (a name may be "": the seat reads by its
                                             place); its host, the lowest seat, alone
                                             starts a new match
``POST /api/my-matches``                     ``{"tokens": [...]}``: each token's match,
                                             finished or not (this browser's list)
``WS   /api/games/{token}/updates``          the seat's view each time the game moves
===========================================  =========================================

A person who is away on their turn for the table's ``away_after`` seconds
(no request and no open update socket from their token) is played by the
table's AI until they come back: any request with their token takes the seat
back. Whoever is connected to the table sees to it (the update sockets check
every :data:`KEEP_EVERY_S` seconds), so nobody waits on a closed page.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from aluette_env.game import NUM_SEATS

from ..session import GameError, GameSession, Narrator, StaleMove
from .inputs import check_keys, integer, json_body, logged_path
from .changes import Changes
from .store import SEEN_EVERY_S, Conflict, DamagedGame, Games, StoreUnavailable, Table

log = logging.getLogger("aluette.web")

#: How often an open update socket marks its seat as here and checks whether
#: the person to play has left, in seconds.
KEEP_EVERY_S = 1.0
#: A table's default, and the bounds, of the seconds before the AI takes over.
AWAY_AFTER = (60, 5, 3600)
MAX_NAME = 40
#: Names this server process in the ``x-aluette-worker`` header (which of
#: ``--workers N`` answered; random, so it tells nothing else).
WORKER = secrets.token_hex(4)
MAX_TOKENS = 100


class TokenGuard:
    """Unknown tokens per client address, counted in the database
    (:meth:`.store.Games.token_failures`), so that every worker process and
    every server on it counts the same guesses: after ``max_failures`` within
    ``window_s`` seconds, every request of that address gets 429 until the
    failures in the window are fewer again. The calls read and write the
    database: make them in a worker thread."""

    def __init__(self, store: Games, max_failures: int = 30, window_s: float = 60.0,
                 clock: Callable[[], float] = time.time):
        self.store = store
        self.max_failures, self.window_s, self.clock = max_failures, window_s, clock

    def blocked(self, client: str) -> float:
        """Seconds until ``client`` may try again (0: now)."""
        now = self.clock()
        failures = self.store.token_failures(client, now - self.window_s)
        if len(failures) < self.max_failures:
            return 0.0
        return max(failures[-self.max_failures] + self.window_s - now, 0.001)

    def failed(self, client: str) -> None:
        now = self.clock()
        self.store.token_failed(client, now, now - self.window_s)


class TableRoutes:
    """Reaching games by seat token, moving them, and the tables' routes.
    ``error`` is the server's ApiError(status, message, code)."""

    def __init__(self, store: Games, pool, error: Callable[..., Exception], config,
                 seeds: Iterator[int] | None, changes: Changes,
                 clock: Callable[[], float] = time.time):
        self.store, self.pool, self.error, self.config = store, pool, error, config
        self.changes = changes
        #: The people's seats whose update socket is open in this process, by
        #: game, with their tokens: marked as here together (:meth:`keep_seen`).
        self.here: dict[str, dict[int, dict[str, int]]] = {}
        self._seen_at = 0.0
        self.seeds = seeds
        self.guard = TokenGuard(store)
        self.clock = clock

    # ------------------------------------------------------------ seats

    def add(self, game: GameSession, away_after: float = 0.0,
            names: dict[int, str] | None = None) -> Table:
        """Keep a one-person game; the person's seat (``.token``: its token)."""
        gid, tokens = self.store.add(game, away_after, names)
        seat = min(game.people)
        table = self.store.get(tokens[seat])
        table.token = tokens[seat]
        return table

    async def seat_of(self, request: HTTPConnection, person: bool = False) -> Table:
        """The game and seat of the request's token (path ``gid``): 403 for an
        unknown token (429 after too many), 403 for a spectator where
        ``person``. The game is brought up to the database's version; a
        person who was away is back."""
        client = request.client.host if request.client else "?"
        token = request.path_params["gid"]

        def find() -> tuple[Table | None, float]:
            wait = self.guard.blocked(client)  # before the token: a guess that hits gets 429
            if wait > 0:
                return None, wait
            table = self.store.get(token)
            if table is None:
                self.guard.failed(client)
            return table, 0.0
        # A damaged row (store.DamagedGame) or a failing database (StoreUnavailable)
        # raises through: the server answers them, as on every route.
        table, wait = await run_in_threadpool(find)
        if wait > 0:
            raise self.error(429, f"too many unknown game links from this address; "
                                  f"try again in {max(wait, 1):.0f} s", "too_many")
        if table is not None and self.store.behind(table):
            async with table.lock:
                await run_in_threadpool(self.store.fresh, table, table.known)
        if table is None:
            raise self.error(403, "no game has this link: check it, or ask for a new one",
                             "no_game")
        table.token = token
        if person and table.seat is None:
            raise self.error(403, "a spectator's link shows the game but cannot play", "spectator")
        if table.seat is not None and table.seat in table.game.away:
            await self.in_worker(table, lambda: table.game.set_away(table.seat, False),
                                 quiet=True)
        await self.take_over(table)
        return table

    async def in_worker(self, table: Table, move: Callable[[], list[dict[str, Any]]],
                        quiet: bool = False) -> list[dict[str, Any]]:
        """Run a move (AI players included) in a worker thread, one move per
        game at a time in this process, on the game as the database has it,
        and write the game before answering: 409 if the move is refused, or if
        the game moved on meanwhile (in another worker process) and nothing
        was kept. A move whose write fails (a full disk, the database down:
        :class:`~.store.StoreUnavailable`) is not kept in memory either: the
        next step reads the game as the database has it. The seat's view is
        taken under the same lock (:meth:`Table.view`). ``quiet``: a move of
        the server's own, given up without an error."""
        def run() -> tuple[list[dict[str, Any]], int | None]:
            self.store.fresh(table, table.known)
            game, before = table.game, table.game.version
            try:
                # A move stopped by a dead AI worker left an AI seat to play: it plays first.
                events = game.resume() if game.ai_to_move else []
                events += move()
                wrote = self.store.save(table)
            except GameError:
                if game.version != before:  # the AI seats played, then the move was refused
                    self.store.stale(table)
                raise
            except BaseException:  # a failed move or write: the database has the game as it was
                self.store.stale(table)
                raise
            table.look()
            return events, game.version if wrote else None

        async with table.lock:
            try:
                events, written = await run_in_threadpool(run)
            except (GameError, Conflict) as err:
                if quiet:
                    return []
                code = ("stale" if isinstance(err, StaleMove) else
                        "conflict" if isinstance(err, Conflict) else "refused")
                raise self.error(409, str(err), code) from None
        if written is not None:
            self.changes.moved(table.game_id, written)
        return events

    async def look(self, table: Table) -> dict[str, Any]:
        """The seat's view of the game as the database has it (at least at
        ``table.known``), taken under the game's lock."""
        async with table.lock:
            if self.store.behind(table):
                await run_in_threadpool(self.store.fresh, table, table.known)
            return table.look()

    async def take_over(self, table: Table) -> None:
        """The table's AI plays for the person to act if they have been away
        for the table's ``away_after`` seconds."""
        game = table.game  # a first look without the lock: the move checks again under it
        deal = game.deal
        seat = deal.to_act
        if (table.away_after <= 0 or deal.done or seat not in game.people
                or seat in game.away or seat == table.seat
                or self.here.get(table.game_id, {}).get(seat)):  # their page is open here
            return
        seen = await run_in_threadpool(self.store.last_seen, table.game_id)
        if self.clock() - seen.get(seat, 0.0) < table.away_after:
            return

        def leave() -> list[dict[str, Any]]:
            game = table.game
            if game.deal.done or game.deal.to_act != seat:  # they played meanwhile
                return []
            return game.set_away(seat, True)
        await self.in_worker(table, leave, quiet=True)

    # ------------------------------------------------------------ routes

    async def create(self, request: Request) -> JSONResponse:
        data = await json_body(request)
        check_keys(data, {"people", "ai", "away_after"})
        people = data.get("people")
        if (not isinstance(people, dict) or not 1 <= len(people) <= NUM_SEATS
                or any(k not in ("0", "1", "2", "3") for k in people)):
            raise self.error(400, 'people: an object of 1 to 4 seats ("0"-"3") to the '
                                  'display names of the people who sit there, got '
                                  f"{str(people)[:80]}")
        names = {}
        for key, name in people.items():
            # "": a person the host did not name; their seat reads by its place.
            if (not isinstance(name, str) or len(name.strip()) > MAX_NAME
                    or not name.isprintable()):
                raise self.error(400, f"people.{key}: a display name of 0 to {MAX_NAME} "
                                      f"printable characters, got {str(name)[:60]!r}")
            names[int(key)] = name.strip()
        spec = data.get("ai", self.config.partner)
        self.pool.get(spec, "ai")  # validates
        default, low, high = AWAY_AFTER
        away_after = integer(data, "away_after", low, high, "seconds before the table's AI "
                              "plays for a person who left", required=False,
                             code="away_after") or default
        ai_seats = [s for s in range(NUM_SEATS) if s not in names]
        seed = next(self.seeds) if self.seeds is not None else None

        def make() -> tuple[str, dict]:
            game = GameSession({s: self.pool.get(spec, "ai") for s in ai_seats},
                               {s: spec for s in ai_seats}, seed, people=names,
                               standin=self.pool.get(spec, "ai"), standin_spec=spec)
            return self.store.add(game, away_after, names, spectator=True)
        gid, tokens = await run_in_threadpool(make)
        return JSONResponse({
            "id": gid,
            "seats": {str(s): {"name": names[s], "token": tokens[s], "link": f"/?seat={tokens[s]}"}
                      for s in sorted(names)},
            "spectator": {"token": tokens[None], "link": f"/?watch={tokens[None]}"},
            "away_after": away_after,
        }, status_code=201)

    async def my_matches(self, request: Request) -> JSONResponse:
        data = await json_body(request)
        check_keys(data, {"tokens"})
        tokens = data.get("tokens")
        if (not isinstance(tokens, list) or len(tokens) > MAX_TOKENS
                or not all(isinstance(t, str) and len(t) <= 128 for t in tokens)):
            raise self.error(400, f"tokens: a list of at most {MAX_TOKENS} game links' tokens")
        matches = await run_in_threadpool(self.store.games_of, tokens)
        return JSONResponse({"matches": matches})

    async def updates(self, websocket: WebSocket) -> None:
        """The seat's view, pushed each time its game moves (:mod:`.changes`
        tells of the moves). Only pages of this server may open it (Origin)."""
        if not self.same_origin(websocket):
            await websocket.close(code=1008)  # before accept: a 403 answer
            return
        try:
            words = Narrator(websocket.query_params.get("lang", "en"))
            table = await self.seat_of(websocket)
        except Exception:  # a bad language, an unknown token, too many tries
            await websocket.close(code=1008)
            return
        await websocket.accept()
        with self.changes.watch(table.game_id) as watch, self._present(table):
            async def hear() -> None:  # the page sends nothing: only its leaving matters
                try:
                    while (await websocket.receive())["type"] != "websocket.disconnect":
                        pass
                except Exception:  # closed under it: the socket is done either way
                    pass
                finally:
                    watch.close()
            hearing = asyncio.create_task(hear())
            try:
                await self._push(websocket, table, watch, words)
            except WebSocketDisconnect:
                pass
            except (StoreUnavailable, DamagedGame) as err:  # the page reconnects, and asks
                log.warning("an update socket of %s closed: %s",
                            logged_path(websocket.url.path), err)
                with contextlib.suppress(Exception):
                    await websocket.close(code=1011)
            finally:
                hearing.cancel()

    @staticmethod
    def same_origin(websocket: WebSocket) -> bool:
        """The socket was opened by a page of this server: its Origin is this
        server's scheme (http for ws, https for wss) and host, port included."""
        origin = urlsplit(websocket.headers.get("origin", ""))
        scheme = "https" if websocket.url.scheme == "wss" else "http"
        host = websocket.headers.get("host", "")
        return bool(host) and origin.scheme == scheme and origin.netloc.lower() == host.lower()

    @contextlib.contextmanager
    def _present(self, table: Table) -> Iterator[None]:
        """A person's seat counts as here while its socket is open."""
        if table.seat is None:
            yield
            return
        tokens = self.here.setdefault(table.game_id, {}).setdefault(table.seat, {})
        tokens[table.token] = tokens.get(table.token, 0) + 1
        try:
            yield
        finally:
            tokens[table.token] -= 1
            if not tokens[table.token]:
                del tokens[table.token]
            if not tokens:
                del self.here[table.game_id][table.seat]
            if not self.here[table.game_id]:
                del self.here[table.game_id]

    async def keep_seen(self) -> None:
        """Every seat with an open socket in this process is marked as here,
        in one write every :data:`SEEN_EVERY_S` seconds (whichever socket
        comes first does it)."""
        now = self.clock()
        if now - self._seen_at < SEEN_EVERY_S:
            return
        self._seen_at = now
        tokens = [t for seats in self.here.values() for held in seats.values() for t in held]
        await run_in_threadpool(self.store.seen, tokens)

    async def _push(self, websocket: WebSocket, table: Table, watch, words: Narrator) -> None:
        version: int | None = table.known
        sent = None
        loop = asyncio.get_running_loop()
        polled = kept = loop.time()
        while not watch.closed:
            if version is None:  # the game is gone: the page asks, and says so
                await websocket.close(code=1008)
                return
            if version != sent:
                table.known = max(table.known, version)
                view = await self.look(table)
                await websocket.send_json({"version": view["version"],
                                           "state": {**view, "text": words.view(view)}})
                sent = view["version"]
            now = loop.time()
            if now - kept >= KEEP_EVERY_S:  # the people are here; is the one to play?
                kept = now
                await self.keep_seen()
                await self.take_over(table)
            poll = self.changes.poll_s
            told = await watch.wait(min(polled + poll, kept + KEEP_EVERY_S) - loop.time())
            if told is not None and told >= 0:
                version = max(told, sent or 0)
            elif told is not None or loop.time() - polled >= poll:
                polled = loop.time()
                version = await run_in_threadpool(self.store.version, table.game_id)

    def routes(self) -> list:
        return [
            Route("/api/tables", self.create, methods=["POST"]),
            Route("/api/my-matches", self.my_matches, methods=["POST"]),
            WebSocketRoute("/api/games/{gid}/updates", self.updates),
        ]
