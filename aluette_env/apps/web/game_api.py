"""The routes of a game as its seat plays it (a one-person game against AIs,
or a seat at a table of people): each reads the request, calls the service
(:mod:`.service`) and sends its answer.

===========================================  =========================================
``POST /api/drafts``                         a match dealt but not kept (the page as it
                                             opens): ``{"left", "partner", "right"}`` (and
                                             ``"signs": true, "catch": p``), answered with
                                             its sealed ``draft``; ``{"draft": d}``: that
                                             deal again (or its game's ``id`` once kept)
``POST /api/games``                          new match ``{"left", "partner", "right"}``
                                             (and ``"signs": true, "catch": p``: with
                                             signs): its ``id`` is the person's seat token;
                                             ``{"draft": d}``: the draft's game, kept
                                             (the first move on it; sent again, the same)
``GET  /api/games/{id}``                     the view of the token's seat
``POST /api/games/{id}/sign``                ``{"sign": 0-9, "version": n}``: with signs,
                                             your sign (0: none) before your card
``POST /api/games/{id}/play``                ``{"card": id, "version": n}``: play, then AIs
``POST /api/games/{id}/next-deal``           next deal of the match (``{"version": n}``)
``POST /api/games/{id}/new-match``           restart: scores cleared (``{"version": n}``)
``POST /api/games/{id}/players``             ``{"left": spec, ...}``: change AI seats
===========================================  =========================================

Every answer is ``{"events": [...], "state": {...}}``: ``state`` is the seat's
view now; each event (cards played, tricks, the deal's end) carries the
seat's view just after it (``view``, less the deal's finished tricks), so the
page shows the AI cards one at a time by showing those views, and works
nothing out itself. Every view and
event has its words in the language of ``?lang=`` (``text``). With signs, a
sign event and a view's ``signs`` reach a seat only if it saw the sign
(:meth:`~aluette_env.apps.session.GameSession.events_for`).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from aluette_env.game import NUM_CARDS, NUM_SIGNS, Variant

from ..seating import AI_SEATS
from .inputs import (
    check_keys, client_of, integer, json_body, narrator, seat_of, variant_option,
)
from .service import WORKER, GameService, SeatHandle

VERSION = "the game's version in the view you saw"


class GameRoutes:
    """``defaults``: the AI of each seat a new game gets unless it names one
    (``signs_defaults``: a game with signs); ``coach``: told of each play
    (:meth:`.coach_api.CoachRoutes.moved`)."""

    def __init__(self, service: GameService, defaults: dict[str, str], coach,
                 signs_defaults: dict[str, str] | None = None):
        self.service, self.defaults, self.coach = service, defaults, coach
        self.signs_defaults = signs_defaults or defaults

    @staticmethod
    def answer(request: Request, handle: SeatHandle, events: list[dict[str, Any]],
               status: int = 200, **extra: Any) -> JSONResponse:
        return JSONResponse({**extra, **GameService.answer(handle, events, narrator(request))},
                            status_code=status, headers={"x-aluette-worker": WORKER})

    def chosen(self, data: dict[str, Any]) -> tuple[dict[str, str], Variant]:
        """The AI of each seat and the game (with signs or not) a new match asks for."""
        check_keys(data, set(AI_SEATS) | {"signs", "catch"})
        variant = variant_option(data)
        chosen = {role: spec for role, spec in data.items() if role in AI_SEATS}
        for role, spec in chosen.items():  # a 400 naming the seat, before any work
            self.service.pool.get(spec, role, variant)
        return {**(self.signs_defaults if variant.signs else self.defaults), **chosen}, variant

    async def create(self, request: Request) -> JSONResponse:
        narrator(request)
        data = await json_body(request)
        if "draft" in data:
            check_keys(data, {"draft"})
            handle = await self.service.keep_draft(data["draft"], client_of(request))
            return self.answer(request, handle, [], 201, id=handle.token)
        specs, variant = self.chosen(data)
        await self.service.may_start(client_of(request))
        handle, events = await self.service.start(specs, variant)
        return self.answer(request, handle, events, 201, id=handle.token)

    async def draft(self, request: Request) -> JSONResponse:
        """A match dealt, not kept (:mod:`.drafts`); or a draft shown again."""
        narrator(request)
        data = await json_body(request)
        if "draft" in data:
            check_keys(data, {"draft"})
            handle = await self.service.show_draft(data["draft"], client_of(request))
            kept = {"id": handle.token} if handle.token else {"draft": data["draft"]}
            return self.answer(request, handle, [], **kept)
        specs, variant = self.chosen(data)
        draft, handle, events = await self.service.deal_draft(specs, variant, client_of(request))
        if draft is None:  # too large to seal: kept at once
            return self.answer(request, handle, events, 201, id=handle.token)
        return self.answer(request, handle, events, draft=draft)

    async def show(self, request: Request) -> JSONResponse:
        handle = await seat_of(self.service, request)
        narrator(request)
        return self.answer(request, handle,
                           await self.service.play_pending_ai_turns(handle))

    async def play(self, request: Request) -> JSONResponse:
        handle = await seat_of(self.service, request, person=True)
        narrator(request)
        data = await json_body(request)
        check_keys(data, {"card", "version"})
        card = integer(data, "card", 0, NUM_CARDS - 1, "a card id 0-47 from your hand")
        version = integer(data, "version", 0, None, VERSION)
        events = await self.service.play(handle, card, version, then=self.coach.moved)
        return self.answer(request, handle, events)

    async def sign(self, request: Request) -> JSONResponse:
        handle = await seat_of(self.service, request, person=True)
        narrator(request)
        data = await json_body(request)
        check_keys(data, {"sign", "version"})
        sign = integer(data, "sign", 0, NUM_SIGNS, f"a sign 1-{NUM_SIGNS}, or 0 for none")
        version = integer(data, "version", 0, None, VERSION)
        return self.answer(request, handle, await self.service.sign(handle, sign, version))

    async def version(self, request: Request, host: bool = False) -> tuple[SeatHandle, int | None]:
        """The seat of a move that carries only the view's version (``host``: one
        that only a table's host may make)."""
        handle = await seat_of(self.service, request, person=True)
        narrator(request)
        if host:
            self.service.check_host(handle)
        data = await json_body(request)
        check_keys(data, {"version"})
        return handle, integer(data, "version", 0, None, VERSION, required=False)

    async def next_deal(self, request: Request) -> JSONResponse:
        handle, version = await self.version(request)
        return self.answer(request, handle, await self.service.next_deal(handle, version))

    async def new_match(self, request: Request) -> JSONResponse:
        handle, version = await self.version(request, host=True)
        return self.answer(request, handle, await self.service.new_match(handle, version))

    async def set_players(self, request: Request) -> JSONResponse:
        handle = await seat_of(self.service, request, person=True)
        narrator(request)
        data = await json_body(request)
        check_keys(data, set(AI_SEATS))
        return self.answer(request, handle, await self.service.set_players(handle, data))

    def routes(self) -> list[Route]:
        return [
            Route("/api/games", self.create, methods=["POST"]),
            Route("/api/drafts", self.draft, methods=["POST"]),
            Route("/api/games/{gid}", self.show),
            Route("/api/games/{gid}/sign", self.sign, methods=["POST"]),
            Route("/api/games/{gid}/play", self.play, methods=["POST"]),
            Route("/api/games/{gid}/next-deal", self.next_deal, methods=["POST"]),
            Route("/api/games/{gid}/new-match", self.new_match, methods=["POST"]),
            Route("/api/games/{gid}/players", self.set_players, methods=["POST"]),
        ]
