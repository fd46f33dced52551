"""Worker processes and player pools of the web server: the slow AI seats and
the coach move in worker processes, the other players are shared by every game.

:class:`RestartingPool` runs each job in a pool of spawned processes that end
with the server (:func:`aluette_env._workers.spawn_pool`: each worker watches
its parent, so a server stopped in a way that skips the shutdown leaves no
process behind). A worker that dies (killed, out of memory) is replaced: the
broken pool is dropped, a new one started and the job tried once more; if that
fails too, :class:`WorkerUnavailable` tells the route to answer 503 (try again
shortly), and the next job starts a fresh pool. The workers ignore Ctrl-C (the
terminal sends it to them too); when the server stops, its pools end them at
once, in the middle of a job if need be (:func:`~aluette_env._workers.stop_pool`).

:class:`PlayerPool` holds one player per spec for every game: a quick one
shared by the games' worker threads (:class:`SharedPlayer`), a slow one
(:data:`SLOW_PLAYERS`) moving in :class:`AiWorkers`' processes
(:class:`RemotePlayer`). :class:`CoachWorkers` are the coach's two processes,
one for hints and one for reviews.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any
from collections.abc import Callable

from aluette_env._workers import spawn_pool, stop_pool
from aluette_env.game import ALUETTE_SIGNS_V0, ALUETTE_V1, Variant
from aluette_env.players import (
    Player, PlayerSpecError, for_the_default_game, load_player, player_names,
)

from ..coach import Coach
from .errors import ApiError

log = logging.getLogger("aluette.web")

#: Tries of one job: the first, and one more in a new pool after a worker died.
TRIES = 2


class WorkerUnavailable(RuntimeError):
    """A worker process died during a job and its replacement did not finish it
    either: the server answers 503 and the next job starts a new pool."""


class RestartingPool:
    """``workers`` spawned processes, started on first use and restarted when one dies."""

    def __init__(self, workers: int, name: str = "worker"):
        self.workers = workers
        self.name = name
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._closed = False
        #: How many times a dead pool was replaced (tests, logs).
        self.restarts = 0

    def current(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._closed:  # the server is stopping: no new workers
                raise WorkerUnavailable(f"the server is stopping; no {self.name} process "
                                        f"starts")
            if self._pool is None:
                self._pool = spawn_pool(self.workers)
            return self._pool

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is broken:
                self._pool = None
                self.restarts += 1
                log.warning("a %s process died; starting a new one", self.name)
        broken.shutdown(wait=False, cancel_futures=True)

    def _unavailable(self) -> WorkerUnavailable:
        return WorkerUnavailable(f"the {self.name} process stopped and is being restarted; "
                                 f"try again in a few seconds")

    def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in a worker process, waiting for it (in a thread)."""
        for _ in range(TRIES):
            pool = self.current()
            try:
                return pool.submit(fn, *args).result()
            except BrokenProcessPool:
                self._replace(pool)
        raise self._unavailable()

    async def run_async(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in a worker process, awaited (on the event loop)."""
        for _ in range(TRIES):
            pool = self.current()
            try:
                return await asyncio.wrap_future(pool.submit(fn, *args))
            except BrokenProcessPool:
                self._replace(pool)
        raise self._unavailable()

    def processes(self) -> list[int]:
        """The pids of the live pool's worker processes (tests)."""
        with self._lock:
            pool = self._pool
        return [] if pool is None else list(getattr(pool, "_processes", None) or {})

    def close(self) -> None:
        """End the workers now (the server stops): a job in progress is dropped,
        and no job starts a new pool."""
        with self._lock:
            pool, self._pool, self._closed = self._pool, None, True
        if pool is not None:
            stop_pool(pool)


# ---------------------------------------------------------------------- the AI seats

#: Players whose moves take tens of milliseconds or more (a search per card):
#: they move in worker processes, so their Python work never holds the
#: server's interpreter lock while other games are answered.
SLOW_PLAYERS = frozenset({"expert", "pimc"})

_worker_players: dict[str, Player] = {}


def registered_players() -> list[str]:
    """Player names the registry offers (random, heuristic, ai, pimc, ...)."""
    return sorted(player_names())


def _act_in_worker(spec: str, obs, mask) -> int:
    """A move of the player ``spec``, in a worker process (players loaded once
    per process; they act on the observation alone)."""
    player = _worker_players.get(spec)
    if player is None:
        player = _worker_players[spec] = load_player(spec)
    return int(player.act(obs, mask))


class AiWorkers:
    """The worker processes of the slow players, started on first use; a worker
    that dies is replaced and its move tried again (:class:`RestartingPool`)."""

    def __init__(self, workers: int | None = None):
        self.workers = workers or max(1, (os.cpu_count() or 2) - 1)
        self.pool = RestartingPool(self.workers, "AI player")

    def act(self, spec: str, obs, mask) -> int:
        return self.pool.run(_act_in_worker, spec, obs, mask)

    def close(self) -> None:
        self.pool.close()


class RemotePlayer:
    """A slow player seen from the server: each move is computed by
    :class:`AiWorkers` while the game's worker thread waits (no lock held).
    ``player``: the same player, loaded here to read what it plays (signs or not)."""

    def __init__(self, spec: str, workers: AiWorkers, player: Player | None = None):
        self.spec, self.workers, self.name = spec, workers, spec
        self.plays_signs = getattr(player, "plays_signs", False)
        self.signs_only = getattr(player, "signs_only", False)

    def act(self, obs, mask) -> int:
        return self.workers.act(self.spec, obs, mask)


class SharedPlayer:
    """A player object shared by several games, used by one game at a time (a
    player may keep scratch buffers between calls), so games can move in
    worker threads."""

    def __init__(self, player: Player):
        self.player = player
        self.lock = threading.Lock()
        self.name = getattr(player, "name", "?")
        # At a table with signs, the game seats it as it is or silent (for_signs).
        self.plays_signs = getattr(player, "plays_signs", False)
        self.signs_only = getattr(player, "signs_only", False)

    def act(self, obs, mask):
        with self.lock:
            return self.player.act(obs, mask)

    def reset(self, seed=None):
        reset = getattr(self.player, "reset", None)
        if reset is not None:
            with self.lock:
                reset(seed)


class PlayerPool:
    """One player object per spec, shared by all games and used by one game at a
    time (:class:`SharedPlayer`): the players act on the observation alone,
    and one loaded model serves every table. The slow players
    (:data:`SLOW_PLAYERS`) move in worker processes (:class:`RemotePlayer`).
    ``allowed``: the specs a request may name."""

    def __init__(self, allowed: list[str], workers: AiWorkers | None = None):
        self.allowed = list(dict.fromkeys(allowed))
        self.workers = workers or AiWorkers()
        self._players: dict[str, SharedPlayer | RemotePlayer] = {}

    def load(self, spec: str, variant: Variant = ALUETTE_V1) -> SharedPlayer | RemotePlayer:
        """The player of ``spec`` for a table of ``variant``; PlayerSpecError if it
        cannot be made, or if it plays only with signs and the game has none."""
        if spec not in self._players:
            # Checks the spec here, whoever moves for it.
            player = load_player(spec)
            if spec.partition(":")[0] in SLOW_PLAYERS:
                self._players[spec] = RemotePlayer(spec, self.workers, player)
            else:
                self._players[spec] = SharedPlayer(player)
        player = self._players[spec]
        return player if variant.signs else for_the_default_game(player, spec)

    def stored(self, spec: object) -> SharedPlayer | RemotePlayer:
        """The player a stored game names: ValueError for one this server does
        not offer (the row is damaged, not the request wrong). The game seats
        it for its variant (:func:`~aluette_env.players.for_signs`)."""
        try:
            return self.get(spec, "seat", ALUETTE_SIGNS_V0)  # any player: seated as is
        except ApiError as err:
            raise ValueError(f"an AI seat names {str(spec)[:60]!r}: {err.detail}") from None

    def get(self, spec: object, seat: str,
            variant: Variant = ALUETTE_V1) -> SharedPlayer | RemotePlayer:
        """The player of a spec a request names for ``seat`` at a table of
        ``variant``: a 400 for one this server does not offer or cannot make."""
        if not isinstance(spec, str) or spec not in self.allowed:
            raise ApiError(400, f"{seat}: unknown AI {spec!r}; choose one of "
                                f"{', '.join(self.allowed)}")
        try:
            return self.load(spec, variant)
        except PlayerSpecError as err:
            raise ApiError(400, f"{seat}: {err}") from None


# ---------------------------------------------------------------------- the coach

_worker_coaches: dict[tuple[int, int], Coach] = {}


def _coach_in_worker(efforts: tuple[int, int], method: str, *args: Any) -> Any:
    """``Coach(*efforts).method(*args)`` in a worker process (one coach per
    process and effort, made on first use)."""
    coach = _worker_coaches.get(efforts)
    if coach is None:
        coach = _worker_coaches[efforts] = Coach(*efforts)
    return getattr(coach, method)(*args)


class CoachWorkers:
    """The coach's two worker processes (hints, reviews), spawned on first use
    (the hint worker's is the server's start, :meth:`.coach_api.CoachRoutes.warm`);
    a worker that dies is replaced and its job tried again (:class:`RestartingPool`)."""

    def __init__(self, hint_worlds: int, review_worlds: int):
        self.efforts = (hint_worlds, review_worlds)
        self.pools = {"hint": RestartingPool(1, "hint worker"),
                      "review": RestartingPool(1, "review worker")}

    async def hint(self, obs, mask) -> dict[str, Any]:
        return await self.pools["hint"].run_async(_coach_in_worker, self.efforts, "hint_for",
                                                  obs, mask)

    def review(self, record: dict[str, Any], deal_index: int, seats: tuple) -> dict[str, Any]:
        return self.pools["review"].run(_coach_in_worker, self.efforts, "review_deal", record,
                                        deal_index, seats)

    def close(self) -> None:
        for pool in self.pools.values():
            pool.close()


__all__ = ["AiWorkers", "CoachWorkers", "PlayerPool", "RemotePlayer", "RestartingPool",
           "SLOW_PLAYERS", "SharedPlayer", "WorkerUnavailable", "registered_players"]
