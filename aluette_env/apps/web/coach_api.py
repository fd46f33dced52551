"""The coach's routes of the web game: hints, deal reviews, match records and
their replay (:mod:`aluette_env.apps.coach`, :mod:`aluette_env.records`).

The expert's searches run in two worker processes (:class:`CoachWorkers`,
started on first use): one for hints, one for reviews, so a search never
holds the server's interpreter lock and a hint never waits behind a review.
Only building the seat's observation holds the game's lock. Reviews are
queued one at a time (:class:`~aluette_env.apps.coach.ReviewQueue`): a
finished deal's review is queued as the deal ends (:meth:`CoachRoutes.moved`),
and the page asks for it when the person wants it. Uploaded records are kept in memory
(at most ``MAX_RECORDS``, the oldest dropped) and reviewed in the background
too; ``?record=ID`` on the page opens one.

===========================================  =========================================
``GET  /api/games/{id}/hint``                the expert's estimate of every card (your turn)
``GET  /api/games/{id}/review``              this match's deal reviews (``null``: not ready)
``GET  /api/games/{id}/record``              this match's record (a JSON download)
``POST /api/records``                        upload a record: checked, answers ``{"id"}``
``GET  /api/records/{rid}``                  the record, its tricks, deal reviews, summary
===========================================  =========================================
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor
from typing import Any
from collections.abc import Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from aluette_env.game import NUM_SEATS
from aluette_env.records import MAX_BYTES, RecordError, human_seats, load_record, tricks

from ..coach import Coach, ReviewQueue, match_summary, observe
from ..session import AI_SEATS, HUMAN
from .workers import spawn_pool

MAX_RECORDS = 100
#: The seats a live game's review covers: the person and the partner AI.
LIVE_SEATS = (HUMAN, AI_SEATS["partner"])


def live_seats(seat: int) -> tuple[int, int]:
    """The seats a review covers for the person at ``seat``: theirs and their partner's."""
    return tuple((s + seat) % NUM_SEATS for s in LIVE_SEATS)


_worker_coaches: dict[tuple[int, int], Coach] = {}


def _in_worker(efforts: tuple[int, int], method: str, *args: Any) -> Any:
    """``Coach(*efforts).method(*args)`` in a worker process (one coach per
    process and effort, made on first use)."""
    coach = _worker_coaches.get(efforts)
    if coach is None:
        coach = _worker_coaches[efforts] = Coach(*efforts)
    return getattr(coach, method)(*args)


class CoachWorkers:
    """The coach's two worker processes (hints, reviews), spawned on first use."""

    def __init__(self, hint_worlds: int, review_worlds: int):
        self.efforts = (hint_worlds, review_worlds)
        self._pools: dict[str, ProcessPoolExecutor] = {}
        self._lock = threading.Lock()

    def pool(self, kind: str) -> ProcessPoolExecutor:
        with self._lock:
            if kind not in self._pools:
                self._pools[kind] = spawn_pool(1)
            return self._pools[kind]

    async def hint(self, obs, mask) -> dict[str, Any]:
        return await asyncio.wrap_future(
            self.pool("hint").submit(_in_worker, self.efforts, "hint_for", obs, mask))

    def review(self, record: dict[str, Any], deal_index: int, seats: tuple) -> dict[str, Any]:
        return self.pool("review").submit(_in_worker, self.efforts, "review_deal", record,
                                          deal_index, seats).result()

    def close(self) -> None:
        with self._lock:
            for pool in self._pools.values():
                pool.shutdown(wait=False, cancel_futures=True)
            self._pools.clear()


class CoachRoutes:
    """The coach's state in the server: its worker processes, its review
    queue, and the uploaded records."""

    def __init__(self, seat_of, error: Callable[..., Exception], hint_worlds: int,
                 review_worlds: int):
        self.seat_of = seat_of  # async (request, person=) -> the token's store.Table
        self.error = error  # the server's ApiError(status, message)
        self.workers = CoachWorkers(hint_worlds, review_worlds)
        self.queue = ReviewQueue(self.workers.review)
        self.records: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def close(self) -> None:
        self.queue.close()
        self.workers.close()

    # ----------------------------------------------------------- live games

    def moved(self, gid: str, table, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """After a move of the seat ``gid`` (a token; in its worker, under its
        lock): queue the review of the deal the move finished. Returns the
        move's ``events``."""
        game = table.game
        if any(e["type"] == "deal_over" for e in events):
            key = _key(gid, game)
            self.queue.submit(key, game.record(), len(game.match.history) - 1,
                              live_seats(table.seat))
        return events

    async def hint(self, request: Request) -> JSONResponse:
        table = await self.seat_of(request, person=True)
        async with table.lock:  # a consistent view; the search runs after
            game = table.game
            deal = game.deal
            if deal.done or deal.to_act != table.seat:
                raise self.error(409, "a hint is for your turn: it is not your turn now")
            obs, mask = observe(deal, game.match, table.seat)
            version = game.version
        hint = await self.workers.hint(obs, mask)
        return JSONResponse({"version": version, **hint})

    async def review(self, request: Request) -> JSONResponse:
        gid = request.path_params["gid"]
        table = await self.seat_of(request, person=True)
        game = table.game
        key = _key(gid, game)
        seats = live_seats(table.seat)
        record = None
        for d in range(len(game.match.history)):
            if not self.queue.known(key, d):  # finished in another process, or before a restart
                record = record or game.record()
                self.queue.submit(key, record, d, seats)
        deals = [self.queue.get(key, d) for d in range(len(game.match.history))]
        return JSONResponse({"seats": list(seats), "deals": deals,
                             "summary": match_summary([d for d in deals if d is not None])})

    async def record(self, request: Request) -> JSONResponse:
        table = await self.seat_of(request, person=True)
        async with table.lock:
            record = table.game.record()
        name = f"aluette-match-{table.game.match_number}.json"
        return JSONResponse(record, headers={
            "content-disposition": f'attachment; filename="{name}"'})

    # -------------------------------------------------------------- records

    async def upload(self, request: Request) -> JSONResponse:
        body = b""
        try:
            async for chunk in request.stream():
                body += chunk
                if len(body) > MAX_BYTES:
                    raise self.error(413, f"a record is at most {MAX_BYTES} bytes")
        except ClientDisconnect:
            raise self.error(400, "the upload was interrupted") from None
        try:
            record = await run_in_threadpool(load_record, body)
        except RecordError as err:
            raise self.error(400, f"not a valid match record: {err}") from None
        rid = secrets.token_urlsafe(12)
        while len(self.records) >= MAX_RECORDS:
            old, _ = self.records.popitem(last=False)
            self.queue.forget("record:" + old)
        self.records[rid] = {"record": record, "tricks": tricks(record)}
        seats = human_seats(record) or list(range(NUM_SEATS))
        for d in range(len(record["deals"])):
            self.queue.submit("record:" + rid, record, d, seats)
        return JSONResponse({"id": rid}, status_code=201)

    async def show_record(self, request: Request) -> JSONResponse:
        rid = request.path_params["rid"]
        stored = self.records.get(rid)
        if stored is None:
            raise self.error(404, f"no record {rid[:40]!r}: upload it again (records are kept "
                                  f"in memory, {MAX_RECORDS} at most)")
        record = stored["record"]
        deals = [self.queue.get("record:" + rid, d) for d in range(len(record["deals"]))]
        return JSONResponse({**stored, "seats": human_seats(record) or
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
