"""The web game's service, free of any web framework: it owns the seats (a game
reached by a seat token, unknown tokens counted), the moves (one at a time per
game, on the game as the database has it, written before they are answered),
the table's AI taking over from a person who left, the people present, the
games this process holds in memory and their locks, and what a seat is
answered: its view and the public events of a move, each with the view after
it (:meth:`GameSession.following <aluette_env.apps.session.GameSession.following>`),
in the reader's words. The routes (:mod:`.game_api`, :mod:`.tables`,
:mod:`.coach_api`) read a request, call this, and send what it returns;
:mod:`.store` only reads and writes rows.

Every game is reached through a seat token: the token of a one-person game is
the ``id`` that ``POST /api/games`` answers, and a table has one token per
person and one for its spectators (the database keeps only their SHA-256). A
token shows its seat's view (its own hand and what is public, seats counted
from it) and moves only for its seat; a spectator's token shows the public
view and moves nothing. An unknown token gets 403; a client that sends
:attr:`TokenGuard.max_failures` of them within :attr:`TokenGuard.window_s`
seconds gets 429 until the window has passed.

A table's ``away_after`` is its turn clock: a person who has not played
within it, their page open or not, or who has been away that long on their
turn (no request and no open update socket from their token), is played by
the table's AI (its stand-in, the host's choice) until they come back: any
request with their token takes the seat back. A one-person game has no clock.

May import: the game flow and its words (:mod:`aluette_env.apps`), this
package's modules that import no web framework, and the standard library.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from aluette_env.game import ALUETTE_V1, NUM_SEATS, Variant, seat_at, team_of

from ..narrator import Narrator
from ..seating import AI_SEATS
from ..session import GameError, GameSession, StaleMove
from . import drafts
from .changes import Changes
from .errors import ApiError
from .store import DamagedGame, Games, SeatFound

log = logging.getLogger("aluette.web")

#: Names this server process in the ``x-aluette-worker`` header (which of
#: ``--workers N`` answered; random, so it tells nothing else).
WORKER = secrets.token_hex(4)
#: Threads that run the moves (and the database's calls): a slow AI seat holds one.
THREADS = 40
#: How often a seat's ``last_seen`` is written at most, in seconds: a person
#: is here while their page asks or holds a socket, one write per interval.
SEEN_EVERY_S = 2.0
#: What an event's view leaves out, to keep a move's answer small: the deal's
#: finished tricks (the answer's ``state`` has them; the page shows the last one).
NOT_IN_STEPS = frozenset({"tricks_played"})

Event = dict[str, Any]


class Conflict(Exception):
    """The game moved on since it was loaded (another request, maybe in another
    worker process, wrote it first): nothing of this move was kept."""


@dataclass
class CachedGame:
    """One game in this process's memory: one object per game, whoever reaches
    it, so that its lock puts every move of this process in one line."""

    game: GameSession
    version: int  # the version in the database when it was read or written; -1: reload it
    #: When this process first held the game at its version (it wrote it, or read
    #: it): when the turn of the seat to act began, as far as this process knows.
    moved_at: float = 0.0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass
class SeatHandle:
    """A game as one seat reaches it: the game (shared by every seat of it in
    this process), the seat (None: a spectator), and the lock that lets one
    move at a time touch the game in this process. ``known``: the game's
    version in the database when the seat was read; :meth:`GameCache.fresh`,
    under the lock, brings the game up to it."""

    game_id: str
    seat: int | None
    name: str
    entry: CachedGame
    away_after: float
    token: str = ""  # the token it was reached by (known to the request only)
    last_seen: float = 0.0  # when the seat was last seen, as read
    known: int = 0
    #: The seat's view as of the last step taken under the lock (what is answered).
    shown: dict[str, Any] | None = None

    @property
    def game(self) -> GameSession:
        return self.entry.game

    @property
    def lock(self) -> asyncio.Lock:
        return self.entry.lock

    def look(self) -> dict[str, Any]:
        """The seat's view now (the caller holds the lock): kept as :attr:`shown`."""
        self.shown = self.game.view(self.seat)
        return self.shown

    def view(self) -> dict[str, Any]:
        """The view taken under the lock at the request's last step (a game moving
        in a worker thread is never read half-way through a move)."""
        return self.shown if self.shown is not None else self.look()


class GameCache:
    """The games this process served lately (at most ``size``), each read from
    its row once and reused while the database's version is the one it holds,
    so that a play costs one small read and one write. Reading a row replays
    its snapshot through the rules (:meth:`GameSession.restore`): a row that
    fails is :class:`~.store.DamagedGame`, never a game half played on.
    ``get_player`` makes the player of a spec (ValueError for one this server
    does not offer); ``clock`` stamps :attr:`CachedGame.moved_at`."""

    def __init__(self, store: Games, get_player: Callable[[str], Any], size: int = 1000,
                 clock: Callable[[], float] = time.time):
        self.store, self.get_player, self.size, self.clock = store, get_player, size, clock
        self._games: OrderedDict[str, CachedGame] = OrderedDict()
        self._lock = threading.Lock()
        #: Games read from their rows (replayed through the rules), for the benchmark.
        self.loads = 0

    def __len__(self) -> int:
        return len(self._games)

    def keep(self, gid: str, game: GameSession) -> CachedGame:
        """A game just written at its version."""
        return self._remember(gid, CachedGame(game, game.version, self.clock()))

    def entry(self, gid: str) -> CachedGame:
        """The game ``gid`` of this process (read from the database if it holds
        none): one object per game, so one lock."""
        with self._lock:
            entry = self._games.get(gid)
            if entry is not None:
                self._games.move_to_end(gid)
                return entry
        game, version = self._read(gid)
        return self._remember(gid, CachedGame(game, version, self.clock()))

    def forget(self, gid: str) -> None:
        with self._lock:
            self._games.pop(gid, None)

    def behind(self, handle: SeatHandle) -> bool:
        """The game in memory is older than the version ``handle`` knows of."""
        return handle.entry.version < handle.known or handle.entry.version < 0

    def fresh(self, handle: SeatHandle, version: int | None = None) -> bool:
        """Under the table's lock: the game in memory brought up to ``version``
        (the database's version as read since the request came; None: read it
        now). A game this process wrote since then is already newer. True if
        the game was read again."""
        entry = handle.entry
        if version is None:
            version = self.store.version(handle.game_id)
        if version is None or entry.version >= version >= 0:
            return False
        entry.game, entry.version = self._read(handle.game_id)
        entry.moved_at = self.clock()
        return True

    def save(self, handle: SeatHandle) -> bool:
        """Write the game of ``handle`` (the caller holds its lock) if the database
        still has it at the version it was read at; :class:`Conflict` (the game
        to be read again) if another process wrote it first. False when there
        was nothing to write."""
        entry, game = handle.entry, handle.game
        if game.version == entry.version:
            return False
        if not self.store.save(handle.game_id, entry.version, game.version,
                               json.dumps(game.snapshot()), game.match.over):
            self.stale(handle)
            raise Conflict(f"the game moved on (it is past version {entry.version}); "
                           f"nothing was changed: reload it")
        entry.version, entry.moved_at = game.version, self.clock()
        return True

    def stale(self, handle: SeatHandle) -> None:
        """The game in memory is not the database's (a move failed half-way, or
        another process wrote first): the next step under its lock reads it again."""
        handle.entry.version = -1

    def _read(self, gid: str) -> tuple[GameSession, int]:
        """The game ``gid`` from its row, replayed through the rules
        (:meth:`GameSession.restore` checks the snapshot's every field first)."""
        version, state = self.store.read(gid)
        try:
            game = GameSession.restore(json.loads(state), self.get_player)
        except (ValueError, RecursionError) as err:  # its JSON, its shape, its replay
            reason = "nested too deeply" if isinstance(err, RecursionError) else str(err)
            raise DamagedGame(f"game {gid}: {reason}"[:500]) from None
        self.loads += 1
        if game.version != version:
            raise DamagedGame(f"game {gid}: its row's version {version} is not its "
                              f"snapshot's {game.version}")
        return game, version

    def _remember(self, gid: str, entry: CachedGame) -> CachedGame:
        """Keep ``entry`` unless another thread kept one of ``gid`` first (that
        one is returned); the oldest games not in use are let go."""
        with self._lock:
            entry = self._games.setdefault(gid, entry)
            self._games.move_to_end(gid)
            while len(self._games) > self.size:
                oldest, old = next(iter(self._games.items()))
                if old.lock.locked() or oldest == gid:
                    break
                del self._games[oldest]
        return entry


class ClientLimit:
    """At most ``max_count`` of one kind of request (:attr:`.store.Games.COUNTED`)
    per client address within ``window_s`` seconds, counted in the database, so
    that every worker process and every server on it counts the same: past it,
    :meth:`blocked` says how long that address waits. The calls read and write
    the database: make them in a worker thread."""

    def __init__(self, store: Games, kind: str, max_count: int, window_s: float,
                 clock: Callable[[], float] = time.time):
        self.store, self.kind = store, kind
        self.max_count, self.window_s, self.clock = max_count, window_s, clock

    def blocked(self, client: str) -> float:
        """Seconds until ``client`` may try again (0: now)."""
        now = self.clock()
        times = self.store.client_times(self.kind, client, now - self.window_s)
        if len(times) < self.max_count:
            return 0.0
        return max(times[-self.max_count] + self.window_s - now, 0.001)

    def count(self, client: str) -> None:
        now = self.clock()
        self.store.client_did(self.kind, client, now, now - self.window_s)


class TokenGuard(ClientLimit):
    """Unknown tokens per client address: after ``max_failures`` within
    ``window_s`` seconds, every request of that address gets 429 until the
    failures in the window are fewer again."""

    def __init__(self, store: Games, max_failures: int = 30, window_s: float = 60.0,
                 clock: Callable[[], float] = time.time):
        super().__init__(store, "token_failure", max_failures, window_s, clock)

    def failed(self, client: str) -> None:
        self.count(client)


class GameService:
    """Seats, moves, the AI taking over, presence and the games in memory (see
    the module's documentation). ``pool`` makes the AI players
    (:class:`.workers.PlayerPool`); ``changes`` is told of every move written;
    ``seeds`` (tests) gives each new game its seed."""

    def __init__(self, store: Games, pool, changes: Changes, cache_size: int = 1000,
                 seeds: Iterator[int] | None = None, clock: Callable[[], float] = time.time,
                 new_games_per_hour: int = 0):
        self.store, self.pool, self.changes = store, pool, changes
        self.cache = GameCache(store, pool.stored, cache_size, lambda: self.clock())
        self.guard = TokenGuard(store)
        #: The new games and tables a client address may start per hour (None: any number).
        self.starts = (ClientLimit(store, "game_start", new_games_per_hour, 3600.0)
                       if new_games_per_hour > 0 else None)
        self.seeds, self.clock = seeds, clock
        #: The people's seats whose update socket is open in this process, by
        #: game, with their tokens: marked as here together (:meth:`keep_seen`).
        self.here: dict[str, dict[int, dict[str, int]]] = {}
        self._seen_at = 0.0
        self._threads: ThreadPoolExecutor | None = None
        self._threads_lock = threading.Lock()
        self._draft_key: bytes | None = None

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in one of the service's threads (a move, a database call),
        so the event loop never waits for it; the threads start on first use."""
        with self._threads_lock:
            if self._threads is None:
                self._threads = ThreadPoolExecutor(THREADS, thread_name_prefix="aluette-game")
            threads = self._threads
        return await asyncio.get_running_loop().run_in_executor(
            threads, functools.partial(fn, *args))

    def close(self) -> None:
        """The threads end (a later call starts new ones)."""
        with self._threads_lock:
            threads, self._threads = self._threads, None
        if threads is not None:
            threads.shutdown(wait=False, cancel_futures=True)

    def seed(self) -> int | None:
        return next(self.seeds) if self.seeds is not None else None

    # ------------------------------------------------------------ seats

    def keep(self, game: GameSession, away_after: float = 0.0,
             names: dict[int, str] | None = None, spectator: bool = False
             ) -> tuple[str, dict[int | None, str]]:
        """Write a new game and hold it; its id and a token for each person's
        seat (and ``None``: the spectators', if asked)."""
        gid, tokens = self.store.add(game.version, json.dumps(game.snapshot()), game.match.over,
                                     list(game.people), away_after, names, spectator)
        self.cache.keep(gid, game)
        return gid, tokens

    def add(self, game: GameSession) -> SeatHandle:
        """Keep a one-person game; the person's seat (``.token``: its token)."""
        _, tokens = self.keep(game)
        token = tokens[min(game.people)]
        handle = self.seat_handle(token)
        handle.token = token
        return handle

    def seat_handle(self, token: str) -> SeatHandle | None:
        """The game and seat of ``token`` (one read of the seat and its game's
        version; the game itself read only if this process does not hold it);
        None for an unknown token. Rows that are not what this server writes
        raise :class:`~.store.DamagedGame`. Under the table's lock,
        :meth:`GameCache.fresh` brings the game up to the version read here."""
        found: SeatFound | None = self.store.seat(token, seen_after=SEEN_EVERY_S)
        if found is None:
            return None
        entry = self.cache.entry(found.game_id)
        if found.seat is not None and found.seat not in entry.game.people:
            raise DamagedGame(f"game {found.game_id}: a seat row names seat {found.seat}, "
                              f"where no person sits (people: {sorted(entry.game.people)})")
        return SeatHandle(found.game_id, found.seat, found.name, entry, found.away_after,
                     last_seen=found.last_seen, known=found.version)

    async def reach(self, token: str, client: str, person: bool = False) -> SeatHandle:
        """The game and seat of ``token``, asked by the address ``client``: 403
        for an unknown token (429 after too many), 403 for a spectator where
        ``person``. The game is brought up to the database's version; a person
        who was away is back."""
        def find() -> tuple[SeatHandle | None, float]:
            wait = self.guard.blocked(client)  # before the token: a guess that hits gets 429
            if wait > 0:
                return None, wait
            handle = self.seat_handle(token)
            if handle is None:
                self.guard.failed(client)
            return handle, 0.0
        # A damaged row (store.DamagedGame) or a failing database (StoreUnavailable)
        # raises through: the server answers them, as on every route.
        handle, wait = await self.run(find)
        if wait > 0:
            raise ApiError(429, f"too many unknown game links from this address; "
                                f"try again in {max(wait, 1):.0f} s", "too_many")
        if handle is not None and self.cache.behind(handle):
            async with handle.lock:
                await self.run(self.cache.fresh, handle, handle.known)
        if handle is None:
            raise ApiError(403, "no game has this link: check it, or ask for a new one",
                           "no_game")
        handle.token = token
        if person and handle.seat is None:
            raise ApiError(403, "a spectator's link shows the game but cannot play", "spectator")
        if handle.seat is not None and handle.seat in handle.game.away:
            await self.move(handle, lambda: handle.game.set_away(handle.seat, False), quiet=True)
        if handle.game.deal.done or handle.game.deal.to_act != handle.seat:  # they are here
            await self.take_over(handle)
        return handle

    # ------------------------------------------------------------ moves

    async def move(self, handle: SeatHandle, step: Callable[[], list[Event]],
                   quiet: bool = False) -> list[Event]:
        """Run ``step`` (AI players included) in a thread, one move per game at
        a time in this process, on the game as the database has it, and write
        the game before answering: 409 if the move is refused, or if the game
        moved on meanwhile (in another worker process) and nothing was kept. A
        move whose write fails (a full disk, the database down:
        :class:`~.store.StoreUnavailable`) is not kept in memory either: the
        next step reads the game as the database has it. Returns the move's
        events as the seat sees them, each with the seat's view after it
        (``view``); the seat's view now is taken under the same lock
        (:meth:`SeatHandle.view`). ``quiet``: a move of the server's own, given up
        without an error."""
        def run() -> tuple[list[Event], int | None]:
            self.cache.fresh(handle, handle.known)
            game, before = handle.game, handle.game.version
            try:
                with game.following(handle.seat) as views:
                    # A move stopped by a dead AI worker left an AI seat to play: it plays first.
                    events = game.resume() if game.ai_to_move else []
                    events += step()
                wrote = self.cache.save(handle)
            except GameError:
                if game.version != before:  # the AI seats played, then the move was refused
                    self.cache.stale(handle)
                raise
            except BaseException:  # a failed move or write: the database has the game as it was
                self.cache.stale(handle)
                raise
            handle.look()
            return self.seen(handle, events, views), game.version if wrote else None

        async with handle.lock:
            try:
                events, written = await self.run(run)
            except (GameError, Conflict) as err:
                if quiet:
                    return []
                code = ("stale" if isinstance(err, StaleMove) else
                        "conflict" if isinstance(err, Conflict) else "refused")
                raise ApiError(409, str(err), code) from None
        if written is not None:
            self.changes.moved(handle.game_id, written)
        return events

    @staticmethod
    def seen(handle: SeatHandle, events: list[Event], views: list[dict[str, Any]]) -> list[Event]:
        """The public ``events`` as the seat sees them, each with its view after
        it, less :data:`NOT_IN_STEPS`."""
        return [{**e, "view": {k: x for k, x in v.items() if k not in NOT_IN_STEPS}}
                for e, v in zip(handle.game.events_for(events, handle.seat), views, strict=True)]

    async def look(self, handle: SeatHandle) -> dict[str, Any]:
        """The seat's view of the game as the database has it (at least at
        ``handle.known``), taken under the game's lock."""
        async with handle.lock:
            if self.cache.behind(handle):
                await self.run(self.cache.fresh, handle, handle.known)
            return handle.look()

    async def since(self, handle: SeatHandle, position: tuple[int, int, int] | None
                    ) -> tuple[dict[str, Any], list[Event], tuple[int, int, int]]:
        """For an update socket: the seat's view of the game as the database has
        it (at least at ``handle.known``), the moves made since ``position``
        (where the game stood at the socket's last view; None: none) as the
        seat sees them, each with its view after it, and where the game stands
        now. Moves too far back to replay (another match) are left out: the
        view shows where the game is."""
        def catch_up() -> tuple[dict[str, Any], list[Event], tuple[int, int, int]]:
            game = handle.game
            steps = None if position is None else game.steps_since(position, handle.seat)
            events = [] if steps is None else self.seen(handle, *steps)
            return handle.look(), events, game.position

        async with handle.lock:
            if self.cache.behind(handle):
                await self.run(self.cache.fresh, handle, handle.known)
            return await self.run(catch_up)

    async def play_pending_ai_turns(self, handle: SeatHandle) -> list[Event]:
        """A seat looks at its game: the AI turns a move left unplayed (stopped
        by a dead AI worker) are played now, and their events returned; none
        left, the seat's view is taken (:meth:`look`)."""
        events = await self.move(handle, list) if handle.game.ai_to_move else []
        if not events:
            await self.look(handle)
        return events

    async def may_start(self, client: str, count: bool = True) -> None:
        """A 429 if ``client`` (an address) started its hour's share of new games
        and tables (:attr:`starts`); else this start is counted (``count``
        False: only checked, a deal shown but not kept)."""
        if self.starts is None:
            return

        def check() -> float:
            wait = self.starts.blocked(client)
            if not wait and count:
                self.starts.count(client)
            return wait
        wait = await self.run(check)
        if wait:
            raise ApiError(429, f"this address started {self.starts.max_count} new games in "
                                f"the last hour; try again in {max(wait, 1):.0f} s, or go on "
                                f"with a match already started", "too_many_games")

    def _deal(self, specs: dict[str, str], variant: Variant
              ) -> tuple[GameSession, list[Event], list[dict[str, Any]]]:
        """A one-person match of ``variant`` against the AIs ``specs`` names,
        dealt (in a thread): the game, the events of its opening and the
        person's view after each."""
        players = {AI_SEATS[role]: self.pool.get(spec, "seat", variant)
                   for role, spec in specs.items()}
        game = GameSession(players, {AI_SEATS[r]: s for r, s in specs.items()}, self.seed(),
                           start=False, variant=variant)
        with game.following(min(game.people)) as views:
            events = game.start()
        return game, events, views

    async def start(self, specs: dict[str, str], variant: Variant = ALUETTE_V1
                    ) -> tuple[SeatHandle, list[Event]]:
        """A one-person match of ``variant`` against the AIs ``specs`` names
        (role -> spec), kept; its seat and the events of its opening (the AIs
        before the person play). Until
        the person's first move the game is *unplayed*, kept a short time only
        (:mod:`.upkeep`)."""
        def make() -> tuple[SeatHandle, list[Event]]:
            game, events, views = self._deal(specs, variant)
            handle = self.add(game)
            handle.look()
            return handle, self.seen(handle, events, views)
        return await self.run(make)

    # ------------------------------------------------------------ drafts

    async def draft_key(self) -> bytes:
        """The server's key that seals drafts (:mod:`.drafts`), read once."""
        if self._draft_key is None:
            self._draft_key = await self.run(self.store.key, drafts.KEY_NAME)
        return self._draft_key

    async def deal_draft(self, specs: dict[str, str], variant: Variant,
                         client: str) -> tuple[str | None, SeatHandle, list[Event]]:
        """A one-person match dealt as :meth:`start` deals it, but kept nowhere:
        its draft (:mod:`.drafts`), the person's seat and the events of its
        opening. ``client`` at its hour's share of new games gets the 429 now
        (nothing is counted: the first move counts it). A match too large to
        seal (AI specs of kilobytes) is kept at once: no draft, the seat's token."""
        await self.may_start(client, count=False)
        key = await self.draft_key()

        def make() -> tuple[str | None, SeatHandle, list[Event]]:
            game, events, views = self._deal(specs, variant)
            sealed = drafts.seal(key, json.dumps(game.snapshot()), self.clock())
            if len(sealed) > drafts.MAX_CHARS:
                handle = self.add(game)
                sealed = None
            else:
                handle = SeatHandle("", min(game.people), "", CachedGame(game, game.version), 0.0)
            handle.look()
            return sealed, handle, self.seen(handle, events, views)
        sealed, handle, events = await self.run(make)
        if sealed is None:
            await self.may_start(client)
        return sealed, handle, events

    async def _opened(self, draft: object) -> tuple[str, str, str]:
        """The game id, the seat token and the snapshot (JSON text) of ``draft``;
        410 ``draft_gone`` if it is not one of this server's or is too old."""
        key = await self.draft_key()
        try:
            nonce, snapshot = drafts.open_draft(key, draft, self.clock())
        except drafts.DraftError as err:
            raise ApiError(410, f"{err}: deal again (POST /api/drafts)", "draft_gone") from None
        return (*drafts.ids(key, nonce), snapshot)

    def _restored(self, snapshot: str) -> GameSession:
        try:
            return GameSession.restore(json.loads(snapshot), self.pool.stored)
        except (ValueError, RecursionError) as err:  # a draft of an older server, say
            log.warning("a draft could not be restored: %s", str(err)[:200])
            raise ApiError(410, "this draft no longer plays on this server: deal again "
                                "(POST /api/drafts)", "draft_gone") from None

    async def keep_draft(self, draft: object, client: str) -> SeatHandle:
        """The person's first move on a draft keeps its game (counted as a new
        game of ``client``); sent again, the game it kept. Its seat, as
        :meth:`reach` finds it (``.token``: its token)."""
        gid, token, snapshot = await self._opened(draft)
        if await self.run(self.store.seat, token) is None:
            await self.may_start(client)

            def keep() -> None:
                game = self._restored(snapshot)
                kept = self.store.add(game.version, json.dumps(game.snapshot()),
                                      game.match.over, list(game.people), gid=gid,
                                      tokens={min(game.people): token})
                if kept is not None:  # else another request kept it first
                    self.cache.keep(gid, game)
            await self.run(keep)
        return await self.reach(token, client, person=True)

    async def show_draft(self, draft: object, client: str) -> SeatHandle:
        """The person's seat in ``draft`` (a reload of the page): the game it kept
        if its first move was made (``.token`` set), else the deal as sealed."""
        gid, token, snapshot = await self._opened(draft)
        if await self.run(self.store.seat, token) is not None:
            return await self.reach(token, client, person=True)
        game = await self.run(self._restored, snapshot)
        handle = SeatHandle("", min(game.people), "", CachedGame(game, game.version), 0.0)
        handle.look()
        return handle

    async def play(self, handle: SeatHandle, card: int, version: int,
                   then: Callable[[SeatHandle, list[Event]], Any] | None = None) -> list[Event]:
        """The seat plays ``card`` on the view of ``version``; ``then(handle,
        events)`` runs after the move, under the game's lock (the coach's
        review of a finished deal)."""
        def step() -> list[Event]:
            events = handle.game.play(card, version, handle.seat)
            if then is not None:
                then(handle, events)
            return events
        return await self.move(handle, step)

    async def sign(self, handle: SeatHandle, sign: int, version: int) -> list[Event]:
        """The seat makes ``sign`` (0: none) before its card, on the view of ``version``."""
        return await self.move(handle, lambda: handle.game.sign(sign, version, handle.seat))

    async def next_deal(self, handle: SeatHandle, version: int | None) -> list[Event]:
        return await self.move(handle, lambda: handle.game.next_deal(version, handle.seat))

    @staticmethod
    def check_host(handle: SeatHandle) -> None:
        """A 403 unless the seat may start a new match (at a table of people,
        only its host)."""
        if not handle.game.may_start_match(handle.seat):
            raise ApiError(403, "at a table of people only its host starts a new match",
                           "host_only")

    async def new_match(self, handle: SeatHandle, version: int | None) -> list[Event]:
        self.check_host(handle)
        return await self.move(handle, lambda: handle.game.new_match(version, handle.seat))

    async def set_players(self, handle: SeatHandle, specs: dict[str, str]) -> list[Event]:
        """The AI seats ``specs`` names (roles counted from the seat: "left" is
        the seat on its left) take those players; all or nothing."""
        if not specs:
            raise ApiError(400, f"name at least one seat to change: {', '.join(AI_SEATS)}")
        chosen = {role: self.pool.get(spec, role, handle.game.variant)
                  for role, spec in specs.items()}
        seats = {role: seat_at(handle.seat, AI_SEATS[role]) for role in chosen}

        def change() -> list[Event]:
            return [e for role, player in chosen.items()
                    for e in handle.game.set_player(seats[role], specs[role], player)]
        return await self.move(handle, change)

    # ------------------------------------------------------------ tables of people

    async def open_table(self, names: dict[int, str], spec: str, away_after: float,
                         variant: Variant = ALUETTE_V1, standin: str | None = None
                         ) -> tuple[str, dict[int | None, str]]:
        """A table of the people ``names`` (seat -> display name) and the AI
        ``spec`` in the other seats: its id, a token per person and the
        spectators' token. ``away_after``: its turn clock, in seconds;
        ``standin``: the AI that plays for a person out of time or away (by
        default ``spec``); ``variant``: the game played."""
        standin = standin or spec
        self.pool.get(spec, "ai", variant)  # validates
        self.pool.get(standin, "standin", variant)
        ai_seats = [s for s in range(NUM_SEATS) if s not in names]
        seed = self.seed()

        def make() -> tuple[str, dict[int | None, str]]:
            game = GameSession({s: self.pool.get(spec, "ai", variant) for s in ai_seats},
                               {s: spec for s in ai_seats}, seed, people=names,
                               standin=self.pool.get(standin, "standin", variant),
                               standin_spec=standin, variant=variant)
            return self.keep(game, away_after, names, spectator=True)
        return await self.run(make)

    async def take_over(self, handle: SeatHandle) -> None:
        """The table's AI plays for the person to act once their turn has lasted
        the table's ``away_after`` seconds (their page open or not), or once
        they have been away (no request, no open page) that long."""
        if handle.lock.locked():
            # A move is under way: its thread changes the game, which may be at
            # the next turn already while moved_at is still the last turn's, so
            # the new turn would look out of time. The next look sees it done.
            return
        # Nothing moves the game until this awaits (a move takes the lock first):
        # the turn, its version and when it began are one consistent look, and
        # the move below checks the version again under the lock.
        game = handle.game
        deal, version = game.deal, game.version
        seat = deal.to_act
        if handle.away_after <= 0 or deal.done or seat not in game.people or seat in game.away:
            return
        if self.clock() - handle.entry.moved_at < handle.away_after:  # within the turn clock
            if seat == handle.seat or self.here.get(handle.game_id, {}).get(seat):
                return  # their page is open
            seen = await self.run(self.store.last_seen, handle.game_id)
            if self.clock() - seen.get(seat, 0.0) < handle.away_after:
                return

        def leave() -> list[Event]:
            game = handle.game
            if game.version != version:  # they played meanwhile, or someone did
                return []
            return game.set_away(seat, True)
        await self.move(handle, leave, quiet=True)

    @contextlib.contextmanager
    def present(self, handle: SeatHandle) -> Iterator[None]:
        """A person's seat counts as here while its update socket is open."""
        if handle.seat is None:
            yield
            return
        tokens = self.here.setdefault(handle.game_id, {}).setdefault(handle.seat, {})
        tokens[handle.token] = tokens.get(handle.token, 0) + 1
        try:
            yield
        finally:
            tokens[handle.token] -= 1
            if not tokens[handle.token]:
                del tokens[handle.token]
            if not tokens:
                del self.here[handle.game_id][handle.seat]
            if not self.here[handle.game_id]:
                del self.here[handle.game_id]

    async def keep_seen(self) -> None:
        """Every seat with an open socket in this process is marked as here,
        in one write every :data:`SEEN_EVERY_S` seconds (whichever
        socket comes first does it)."""
        now = self.clock()
        if now - self._seen_at < SEEN_EVERY_S:
            return
        self._seen_at = now
        tokens = [t for seats in self.here.values() for held in seats.values() for t in held]
        await self.run(self.store.seen, tokens)

    async def version(self, gid: str) -> int | None:
        return await self.run(self.store.version, gid)

    async def matches(self, tokens: list[str]) -> list[dict[str, Any]]:
        """What "My matches" shows of each token's game, latest first (unknown
        tokens left out, and damaged rows with one log line): where it stands,
        and the display names of the others at its table ("": unnamed), by
        their seats counted from the reader's."""
        rows = await self.run(self.store.games_of, tokens)
        out = []
        for token, seat, state, finished, created, updated in rows:
            try:  # a summary of the row, not its replay
                snapshot = json.loads(state)
                record = snapshot["record"]
                result = record["result"]["points"]
                points = [int(result["team_0"]), int(result["team_1"])]
                people = {int(s): str(name) for s, name in snapshot["people"].items()}
                match = {"finished": bool(finished), "created": float(created),
                         "updated": float(updated), "match": int(snapshot["match_number"]),
                         "deals": len(record["deals"]), "of": int(record["num_deals"]),
                         "people": len(people),
                         # the others at the table, by their seat from the reader's
                         "names": {str((s - (seat or 0)) % NUM_SEATS): name
                                   for s, name in sorted(people.items()) if s != seat}}
                # The deal being played (the last one once the match is over).
                match["deal"] = min(match["deals"] + 1, match["of"])
            except (ValueError, TypeError, KeyError, RecursionError) as err:
                log.warning("My matches left out a damaged game: %s: %s", type(err).__name__,
                            str(err)[:200])
                continue
            if seat is not None and team_of(seat):
                points.reverse()  # the viewer's team first
            out.append({"token": token, **match, "points": points})
        return sorted(out, key=lambda g: -g["updated"])

    # ------------------------------------------------------------ answers

    @staticmethod
    def answer(handle: SeatHandle, events: list[Event], words: Narrator) -> dict[str, Any]:
        """What a seat is answered after a request: the move's events with their
        words, each with the view after it, and the seat's view now."""
        return {"events": worded_events(events, words), "state": worded(handle.view(), words)}


def worded(view: dict[str, Any], words: Narrator) -> dict[str, Any]:
    """A view with its words (``text``)."""
    return {**view, "text": words.view(view)}


def worded_events(events: list[Event], words: Narrator) -> list[Event]:
    """Events with their words (a spectator's in a spectator's words: it sits
    nowhere), each with its view after it worded too."""
    if events and events[0]["view"].get("spectator") and not words.spectator:
        words = Narrator(words.lang, spectator=True)
    return [{**words.event(e), "view": worded(e["view"], words)} for e in events]


__all__ = ["CachedGame", "ClientLimit", "Conflict", "GameCache", "GameService", "SeatHandle",
           "TokenGuard", "WORKER", "worded", "worded_events"]
