"""The routes of the tables of people: a table of two to four people with AIs
in the other seats, each person's list of matches, and each seat's updates
pushed over a WebSocket. Seats, moves and the table's AI taking over from a
person who left are the service's (:mod:`.service`).

===========================================  =========================================
``POST /api/tables``                         ``{"people": {"0": "Ann", "2": "Bob"},
                                             "ai": spec, "away_after": s, "standin":
                                             spec}`` (and ``"signs": true, "catch":
                                             p``): a handle,
                                             one token per person and a spectators' one
                                             (a name may be "": the seat reads by its
                                             place); its host, the lowest seat, alone
                                             starts a new match
``POST /api/my-matches``                     ``{"tokens": [...]}``: each token's match,
                                             finished or not (this browser's list)
``WS   /api/games/{token}/updates``          each time the game moves, the seat's
                                             view and the moves since the last push
                                             (``events``, as in a move's answer)
===========================================  =========================================

``away_after`` is the table's turn clock: a person who has not played within
it is played by ``standin`` (the host's choice of AI; by default the table's
``ai``) until they take their seat back. Whoever is connected to a table sees
to it: the update sockets check every :data:`KEEP_EVERY_S` seconds whether the
person to play is out of time or has left (the service's
:meth:`~.service.GameService.take_over`), so nobody waits on a friend who
walked away, their page open or not.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from aluette_env.game import NUM_SEATS

from ..narrator import Narrator
from .errors import ApiError
from .inputs import (
    check_keys, client_of, integer, json_body, logged_path, seat_of, variant_option,
)
from .service import GameService, SeatHandle, worded, worded_events
from .store import DamagedGame, StoreUnavailable

log = logging.getLogger("aluette.web")

#: How often an open update socket marks its seat as here and checks whether
#: the person to play has left, in seconds.
KEEP_EVERY_S = 1.0
#: A table's turn clock: its default, and its bounds, in seconds.
AWAY_AFTER = (180, 5, 3600)
MAX_NAME = 40
MAX_TOKENS = 100


class TableRoutes:
    """The tables' routes; ``default_ai``: a table's AI unless it names one
    (``signs_ai``: a table with signs)."""

    def __init__(self, service: GameService, default_ai: str, signs_ai: str | None = None):
        self.service, self.default_ai = service, default_ai
        self.signs_ai = signs_ai or default_ai

    async def create(self, request: Request) -> JSONResponse:
        data = await json_body(request)
        check_keys(data, {"people", "ai", "away_after", "standin", "signs", "catch"})
        people = data.get("people")
        if (not isinstance(people, dict) or not 1 <= len(people) <= NUM_SEATS
                or any(k not in ("0", "1", "2", "3") for k in people)):
            raise ApiError(400, 'people: an object of 1 to 4 seats ("0"-"3") to the '
                                'display names of the people who sit there, got '
                                f"{str(people)[:80]}")
        names = {}
        for key, name in people.items():
            # "": a person the host did not name; their seat reads by its place.
            if (not isinstance(name, str) or len(name.strip()) > MAX_NAME
                    or not name.isprintable()):
                raise ApiError(400, f"people.{key}: a display name of 0 to {MAX_NAME} "
                                    f"printable characters, got {str(name)[:60]!r}")
            names[int(key)] = name.strip()
        variant = variant_option(data)
        spec = data.get("ai", self.signs_ai if variant.signs else self.default_ai)
        self.service.pool.get(spec, "ai", variant)  # a 400 before the other fields
        standin = data.get("standin", spec)
        self.service.pool.get(standin, "standin", variant)
        default, low, high = AWAY_AFTER
        away_after = integer(data, "away_after", low, high, "seconds a person has to play "
                             "before the table's AI plays for them", required=False,
                             code="away_after") or default
        await self.service.may_start(client_of(request))
        # The game's database id stays on the server (docs/WEB.md): a browser
        # reaches a game by its seats' tokens only.
        _, tokens = await self.service.open_table(names, spec, away_after, variant, standin)
        return JSONResponse({
            "seats": {str(s): {"name": names[s], "token": tokens[s], "link": f"/?seat={tokens[s]}"}
                      for s in sorted(names)},
            "spectator": {"token": tokens[None], "link": f"/?watch={tokens[None]}"},
            "away_after": away_after, "standin": standin,
            **({"signs": True, "catch": variant.catch} if variant.signs else {}),
        }, status_code=201)

    async def my_matches(self, request: Request) -> JSONResponse:
        data = await json_body(request)
        check_keys(data, {"tokens"})
        tokens = data.get("tokens")
        if (not isinstance(tokens, list) or len(tokens) > MAX_TOKENS
                or not all(isinstance(t, str) and len(t) <= 128 for t in tokens)):
            raise ApiError(400, f"tokens: a list of at most {MAX_TOKENS} game links' tokens")
        return JSONResponse({"matches": await self.service.matches(tokens)})

    async def updates(self, websocket: WebSocket) -> None:
        """The seat's view, pushed each time its game moves (:mod:`.changes`
        tells of the moves). Only pages of this server may open it (Origin)."""
        if not self.same_origin(websocket):
            await websocket.close(code=1008)  # before accept: a 403 answer
            return
        try:
            words = Narrator(websocket.query_params.get("lang", "en"))
            handle = await seat_of(self.service, websocket)
        except Exception:  # a bad language, an unknown token, too many tries
            await websocket.close(code=1008)
            return
        await websocket.accept()
        with self.service.changes.watch(handle.game_id) as watch, self.service.present(handle):
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
                await self._push(websocket, handle, watch, words)
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
        """The socket was opened by a page of this server, also through a reverse
        proxy that speaks HTTPS to the browser and HTTP to this server. A
        browser always names the page's origin (Origin), cannot forge it, and
        cannot add headers to a WebSocket: the socket is this server's if the
        Origin is the scheme, host and port the browser sent the request to. The
        scheme is the connection's (http for ws, https for wss), or the one a
        proxy forwards (X-Forwarded-Proto); the host is Host, or a proxy's
        X-Forwarded-Host (a Host without a port has the scheme's). Behind a
        proxy that forwards neither (nginx sends its own upstream address as
        Host unless told otherwise) the browser's word that the request comes
        from the same origin (Sec-Fetch-Site) is taken. A foreign page's socket
        is refused."""
        headers = websocket.headers
        origin = urlsplit(headers.get("origin", ""))
        if origin.scheme not in ("http", "https") or not origin.hostname:
            return False
        if headers.get("sec-fetch-site", "").strip().lower() == "same-origin":
            return True
        forwarded = headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
        scheme = {"https": "https", "wss": "https", "http": "http", "ws": "http"}.get(
            forwarded, "https" if websocket.url.scheme == "wss" else "http")
        if origin.scheme != scheme:
            return False
        default_port = 443 if scheme == "https" else 80
        try:
            wanted = (origin.hostname, origin.port or default_port)
            for sent in (headers.get("x-forwarded-host", ""), headers.get("host", "")):
                host = urlsplit(f"//{sent.split(',')[0].strip()}")
                if host.hostname and (host.hostname, host.port or default_port) == wanted:
                    return True
        except ValueError:  # a port that is not a number
            return False
        return False

    async def _push(self, websocket: WebSocket, handle: SeatHandle, watch, words: Narrator) -> None:
        version: int | None = handle.known
        sent = position = None
        loop = asyncio.get_running_loop()
        polled = kept = loop.time()
        while not watch.closed:
            if version is None:  # the game is gone: the page asks, and says so
                await websocket.close(code=1008)
                return
            if version != sent:
                handle.known = max(handle.known, version)
                # Each move since the last push, as the seat sees it: every page
                # shows every card, the one that closes a trick too.
                view, events, position = await self.service.since(handle, position)
                if watch.closed:  # the page left (or sent a bad frame) meanwhile
                    return
                try:
                    await websocket.send_json({"version": view["version"],
                                               "events": worded_events(events, words),
                                               "state": worded(view, words)})
                except RuntimeError as err:
                    # The protocol closed the socket under the push (a bad frame
                    # from the page: limits.LimitedWebSocketProtocol): it is done,
                    # and a page that is still there reconnects.
                    log.debug("an update socket of %s closed under a push: %s",
                              logged_path(websocket.url.path), err)
                    return
                sent = view["version"]
            now = loop.time()
            if now - kept >= KEEP_EVERY_S:  # the people are here; is the one to play?
                kept = now
                await self.service.keep_seen()
                await self.service.take_over(handle)
            poll = self.service.changes.poll_s
            told = await watch.wait(min(polled + poll, kept + KEEP_EVERY_S) - loop.time())
            if told is not None and told >= 0:
                version = max(told, sent or 0)
            elif told is not None or loop.time() - polled >= poll:
                polled = loop.time()
                version = await self.service.version(handle.game_id)

    def routes(self) -> list:
        return [
            Route("/api/tables", self.create, methods=["POST"]),
            Route("/api/my-matches", self.my_matches, methods=["POST"]),
            WebSocketRoute("/api/games/{gid}/updates", self.updates),
        ]
