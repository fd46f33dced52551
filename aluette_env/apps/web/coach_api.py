"""The coach's routes of the web game: hints, deal reviews, match records and
their replay (:mod:`aluette_env.apps.coach`, :mod:`aluette_env.records`).

The expert's searches run in two worker processes (:class:`.workers.CoachWorkers`:
the hint worker started as the server starts, the review worker on first
use): one for hints, one for reviews, so a search never holds the server's
interpreter lock and a hint never waits behind a review.
Only building the seat's observation holds the game's lock. Reviews are
queued one at a time (:class:`~aluette_env.apps.coach.ReviewQueue`): a
finished deal's review is queued as the deal ends (:meth:`CoachRoutes.moved`),
and the page asks for it when the person wants it. Uploaded records are kept in memory
(at most ``MAX_RECORDS``, the oldest dropped) and reviewed in the background
too, keyed by their content: a record opened again shows the reviews it already
has at once; ``?record=ID`` on the page opens one. The hint worker is started,
and its expert loaded, as the server starts (:meth:`CoachRoutes.warm`), so the
first hint is as quick as the next.

===========================================  =========================================
``GET  /api/games/{id}/hint``                the expert's estimate of every card (your turn)
``GET  /api/games/{id}/review``              this match's deal reviews (``null``: not ready)
``GET  /api/games/{id}/record``              this match's record (a JSON download)
``POST /api/records``                        upload a record: checked, answers ``{"id"}``
``GET  /api/records/{rid}``                  the record, its tricks, replay steps, reviews, summary
===========================================  =========================================
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from collections import OrderedDict
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from aluette_env.game import NUM_CARDS, NUM_SEATS, Deal, seat_at
from aluette_env import records
from aluette_env.records import (
    MAX_BYTES, RecordError, human_seats, load_record, replay,
)

from ..coach import ReviewQueue, match_summary, observe
from ..seating import AI_SEATS, HUMAN
from .errors import ApiError
from .inputs import narrator, seat_of
from .service import GameService
from .workers import CoachWorkers

log = logging.getLogger("aluette.web")

MAX_RECORDS = 100
#: The seats a live game's review covers: the person and the partner AI.
LIVE_SEATS = (HUMAN, AI_SEATS["partner"])


def no_signs(handle) -> None:
    """A 409 for a match with signs: the coach reads no sign, and the match's
    record holds every sign made, also those this seat did not see (S5)."""
    if handle.game.signs:
        raise ApiError(409, "a match with signs has no coach and no record download: the "
                            "record holds the signs you did not see", "signs_match")


def live_seats(seat: int) -> tuple[int, int]:
    """The seats a review covers for the person at ``seat``: theirs and their partner's."""
    return tuple(seat_at(seat, s) for s in LIVE_SEATS)


class CoachRoutes:
    """The coach's state in the server: its worker processes, its review
    queue, and the uploaded records."""

    def __init__(self, service: GameService, hint_worlds: int, review_worlds: int,
                 workers: CoachWorkers | None = None):
        """``workers``: worker processes of these efforts that another caller
        owns and closes (:func:`~.server.create_app`'s ``coach_workers``);
        None: the coach's own, closed with it."""
        self.service = service
        if workers is not None and workers.efforts != (hint_worlds, review_worlds):
            raise ValueError(f"coach workers of efforts {workers.efforts} for a coach of "
                             f"{(hint_worlds, review_worlds)}")
        self.owns_workers = workers is None
        self.workers = workers or CoachWorkers(hint_worlds, review_worlds)
        # Uploaded records' reviews wait behind live games' and never evict them.
        self.queue = ReviewQueue(self.workers.review,
                                 max_background=MAX_RECORDS * records.MAX_DEALS)
        self.records: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def close(self) -> None:
        self.queue.close()
        if self.owns_workers:
            self.workers.close()

    async def warm(self) -> None:
        """Start the hint worker and load its expert now (the server's start):
        a hint of a fresh deal's first decision, thrown away."""
        deal = Deal.from_deck(list(range(NUM_CARDS)), 0)
        try:
            await self.workers.hint(*observe(deal, deal.to_act))
        except Exception as err:  # noqa: BLE001 - the first hint tries again, and says why
            log.warning("the coach could not warm up: %s", err)

    # ----------------------------------------------------------- live games

    def moved(self, handle, events: list[dict[str, Any]]) -> None:
        """After a move of ``handle``'s seat (in its thread, under its lock):
        queue the review of the deal the move finished."""
        game = handle.game
        if game.signs:  # the coach reads no signs, and a record holds every one
            return
        if any(e["type"] == "deal_over" for e in events):
            self.queue.submit(_key(handle.token, game), game.record(),
                              len(game.match.history) - 1, live_seats(handle.seat))

    async def hint(self, request: Request) -> JSONResponse:
        narrator(request)
        handle = await seat_of(self.service, request, person=True)
        no_signs(handle)
        async with handle.lock:  # a consistent view; the search runs after
            game = handle.game
            deal = game.deal
            if deal.done or deal.to_act != handle.seat:
                raise ApiError(409, "a hint is for your turn: it is not your turn now",
                                 "not_your_turn")
            obs, mask = observe(deal, handle.seat)
            version = game.version
        hint = await self.workers.hint(obs, mask)
        return JSONResponse({"version": version, **hint})

    async def review(self, request: Request) -> JSONResponse:
        narrator(request)
        gid = request.path_params["gid"]
        handle = await seat_of(self.service, request, person=True)
        no_signs(handle)
        game = handle.game
        key = _key(gid, game)
        seats = live_seats(handle.seat)
        record = None
        for d in range(len(game.match.history)):
            if not self.queue.known(key, d):  # finished in another process, or before a restart
                record = record or game.record()
                self.queue.submit(key, record, d, seats)
        deals = [self.queue.get(key, d) for d in range(len(game.match.history))]
        return JSONResponse({"seats": list(seats), "deals": deals,
                             "summary": match_summary([d for d in deals if d is not None])})

    async def record(self, request: Request) -> JSONResponse:
        narrator(request)
        handle = await seat_of(self.service, request, person=True)
        no_signs(handle)
        async with handle.lock:
            record = handle.game.record()
        name = f"aluette-match-{handle.game.match_number}.json"
        return JSONResponse(record, headers={
            "content-disposition": f'attachment; filename="{name}"'})

    # -------------------------------------------------------------- records

    async def upload(self, request: Request) -> JSONResponse:
        narrator(request)
        announced = request.headers.get("content-length")
        if announced is not None and (not announced.isdigit() or int(announced) > MAX_BYTES):
            raise ApiError(413 if announced.isdigit() else 400,
                             f"a record is at most {MAX_BYTES} bytes, the request announces "
                             f"{announced[:20]!r}", "bad_record")
        body = b""
        try:
            async for chunk in request.stream():
                body += chunk
                if len(body) > MAX_BYTES:
                    raise ApiError(413, f"a record is at most {MAX_BYTES} bytes", "bad_record")
        except ClientDisconnect:
            raise ApiError(400, "the upload was interrupted") from None
        try:
            record = await run_in_threadpool(load_record, body)
        except RecordError as err:
            raise ApiError(400, f"not a valid match record: {err}", "bad_record") from None
        rid = secrets.token_urlsafe(12)
        seats = human_seats(record) or list(range(NUM_SEATS))
        # The reviews belong to what is reviewed: the same record opened again has them.
        key = "record:" + hashlib.sha256(json.dumps([record, seats], sort_keys=True)
                                         .encode()).hexdigest()
        while len(self.records) >= MAX_RECORDS:
            _, old = self.records.popitem(last=False)
            if all(kept["key"] != old["key"] for kept in self.records.values()):
                self.queue.forget(old["key"])
        played, steps = replay(record)
        self.records[rid] = {"record": record, "tricks": played, "steps": steps, "key": key}
        for d in range(len(record["deals"])):
            self.queue.submit(key, record, d, seats, background=True)
        return JSONResponse({"id": rid}, status_code=201)

    async def show_record(self, request: Request) -> JSONResponse:
        narrator(request)
        rid = request.path_params["rid"]
        stored = self.records.get(rid)
        if stored is None:
            raise ApiError(404, f"no record {rid[:40]!r}: upload it again (records are kept "
                                  f"in memory, {MAX_RECORDS} at most)", "no_record")
        record = stored["record"]
        deals = [self.queue.get(stored["key"], d) for d in range(len(record["deals"]))]
        return JSONResponse({"record": record, "tricks": stored["tricks"],
                             "steps": stored["steps"],
                             "seats": human_seats(record) or
                             list(range(NUM_SEATS)), "deals": deals,
                             "summary": match_summary([d for d in deals if d is not None])})

    def routes(self) -> list[Route]:
        return [
            Route("/api/games/{gid}/hint", self.hint),
            Route("/api/games/{gid}/review", self.review),
            Route("/api/games/{gid}/record", self.record),
            Route("/api/records", self.upload, methods=["POST"]),
            Route("/api/records/{rid}", self.show_record),
        ]


def _key(gid: str, game) -> str:
    return f"{gid}:{game.match_number}"
