"""Which games moved, told to the update sockets of this server process.

Every move this process writes is told at once (:meth:`Changes.moved`). The
moves other processes write (``aluette serve --workers N``) reach it in one
of two ways. On PostgreSQL, each write sends ``NOTIFY aluette_games, '<game>
<version>'`` in its own transaction (delivered at the commit, never for a
write that was rolled back), and :class:`PostgresListener` holds one
connection per process that LISTENs and tells the sockets; while that
connection is down (the database restarting) the sockets read their game's
version every :data:`POLL_S` seconds instead, and when it is back every
socket looks once, so a move made meanwhile is not missed. On SQLite, which
has no notifications, the sockets read the version column (one indexed
read) every :data:`POLL_S` seconds when several processes share the file,
and every :data:`SAFETY_POLL_S` seconds otherwise (another program may
write the file).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from contextlib import contextmanager

log = logging.getLogger("aluette.web")

#: The PostgreSQL channel every write announces its game on.
CHANNEL = "aluette_games"
#: How often a socket reads its game's version when nothing tells it of moves, in seconds.
POLL_S = 0.25
#: How often it reads it anyway when something does (a missed notification costs this).
SAFETY_POLL_S = 5.0
#: How long a lost LISTEN connection waits before it tries again, in seconds.
RETRY_S = 2.0


class Watch:
    """One update socket's ear on its game: :meth:`wait` returns the newest
    version it was told of, or None when nothing came in time."""

    def __init__(self) -> None:
        self.version = -1
        self.closed = False
        self._event = asyncio.Event()

    def tell(self, version: int) -> None:
        self.version = max(self.version, version)
        self._event.set()

    def close(self) -> None:
        self.closed = True
        self._event.set()

    async def wait(self, timeout: float) -> int | None:
        try:
            await asyncio.wait_for(self._event.wait(), max(timeout, 0.0))
        except asyncio.TimeoutError:
            return None
        self._event.clear()
        return None if self.closed else self.version


class Changes:
    """The games watched by this process's update sockets, and how often they
    must look for themselves (:attr:`poll_s`)."""

    def __init__(self, shared: bool, listens: bool = False):
        #: other processes write the same games (several workers)
        self.shared = shared
        #: the process has a LISTEN connection (PostgreSQL), up or not
        self.listens = listens
        #: the LISTEN connection is up now
        self.listening = False
        self._watches: dict[str, set[Watch]] = {}

    @property
    def poll_s(self) -> float:
        if self.shared and not self.listening:
            return POLL_S
        return SAFETY_POLL_S

    @contextmanager
    def watch(self, gid: str) -> Iterator[Watch]:
        watch = Watch()
        self._watches.setdefault(gid, set()).add(watch)
        try:
            yield watch
        finally:
            watches = self._watches.get(gid)
            if watches is not None:
                watches.discard(watch)
                if not watches:
                    del self._watches[gid]

    def moved(self, gid: str, version: int) -> None:
        """Game ``gid`` is at ``version`` now (on the event loop's thread)."""
        for watch in self._watches.get(gid, ()):
            watch.tell(version)

    def everyone(self) -> None:
        """Every socket looks at its game (the notifications may have missed some)."""
        for watches in self._watches.values():
            for watch in watches:
                watch.tell(-1)

    def __len__(self) -> int:
        return sum(len(w) for w in self._watches.values())


class PostgresListener:
    """One connection (psycopg 3, async, autocommit) that LISTENs on
    :data:`CHANNEL` and tells :class:`Changes` of every game written; it
    connects again after :data:`RETRY_S` seconds when it loses the database."""

    def __init__(self, conninfo: str, changes: Changes):
        self.conninfo, self.changes = conninfo, changes
        #: notifications received (tests, the benchmark)
        self.received = 0

    async def run(self) -> None:
        import psycopg

        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True)
                async with conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.changes.listening = True
                    self.changes.everyone()  # moves made while nobody listened
                    async for note in conn.notifies():
                        gid, _, version = note.payload.partition(" ")
                        self.received += 1
                        if version.isdigit():
                            self.changes.moved(gid, int(version))
            except (psycopg.Error, OSError) as err:
                if self.changes.listening:
                    log.warning("lost the database's notifications (%s); the update "
                                "sockets poll until they are back", str(err).splitlines()[0])
            finally:
                self.changes.listening = False
            await asyncio.sleep(RETRY_S)


__all__ = ["CHANNEL", "Changes", "PostgresListener", "Watch"]
