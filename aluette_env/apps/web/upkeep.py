"""The web game's database kept tidy: which games expire and when, the prune
the server runs every hour (``aluette db prune`` runs it by hand), the limit on
new games per client address, the wait for a database that is not up yet, and
the backup (``aluette db backup``).

What expires (docs/WEB.md, "Host it for friends"), counted from a game's last
move:

* a one-person game whose person never played a card (a *New match* nobody
  played; the deal the page opens with is kept only by its first card,
  :mod:`.drafts`): after :data:`KEEP_UNPLAYED_HOURS` hours;
* an unfinished one-person game: after ``--keep-unfinished`` days
  (:data:`KEEP_UNFINISHED_DAYS`);
* every other game, finished matches and tables of people: after
  ``--keep-finished`` days (:data:`KEEP_FINISHED_DAYS`).

0 days keeps those games for ever. The prune deletes a few hundred games per
transaction, so a running server waits for it only moments, and a prune
stopped at any point (SIGKILL included) has deleted only expired games, each
whole. The backup of a SQLite file is SQLite's online backup, written to a
temporary file beside the target and renamed over it once complete: a
backup stopped half-way leaves the previous backup as it was (and its
temporary file, which the next backup clears).

May import: the standard library, and the database (:mod:`.store`) inside the
functions that use it, so that ``aluette --help`` loads no database library.
"""

from __future__ import annotations

import logging
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("aluette.web")

#: Hours a one-person game whose person never played is kept.
KEEP_UNPLAYED_HOURS = 24
#: Days an unfinished one-person game is kept after its last move.
KEEP_UNFINISHED_DAYS = 30
#: Days every other game (finished, or a table of people) is kept after its last move.
KEEP_FINISHED_DAYS = 365
#: The bound of both settings, in days.
MAX_KEEP_DAYS = 36500
#: How often the server prunes, in seconds (and once as it starts).
PRUNE_EVERY_S = 3600.0
#: New games and tables one client address may start per hour (``--new-games``).
NEW_GAMES_PER_HOUR = 30
#: Seconds the server waits at start for a database that does not answer (``--db-wait``).
DB_WAIT_S = 60.0
#: Games deleted per transaction.
PRUNE_BATCH = 200

DAY_S = 86400.0
HOUR_S = 3600.0


@dataclass(frozen=True)
class Keeping:
    """How long games are kept after their last move (0: for ever)."""

    unfinished_days: float = KEEP_UNFINISHED_DAYS
    finished_days: float = KEEP_FINISHED_DAYS
    unplayed_hours: float = KEEP_UNPLAYED_HOURS

    def cutoffs(self, now: float) -> dict[str, float | None]:
        """The time before which each kind of game expires (None: never)."""
        def before(seconds: float) -> float | None:
            return now - seconds if seconds > 0 else None
        return {"unplayed": before(self.unplayed_hours * HOUR_S),
                "unfinished": before(self.unfinished_days * DAY_S),
                "other": before(self.finished_days * DAY_S)}


def prune(store, keeping: Keeping, now: float | None = None,
          dry_run: bool = False) -> dict[str, int]:
    """Delete the games of ``store`` (:class:`.store.Games`) that ``keeping``
    lets expire, :data:`PRUNE_BATCH` per transaction; how many of each kind
    (:meth:`Keeping.cutoffs`) were deleted (``dry_run``: would be, and nothing
    is). The limits' old counts (:meth:`.store.Games.forget_clients`) go too."""
    now = time.time() if now is None else now
    done: dict[str, int] = {}
    counted: set[str] = set()
    for kind, before in keeping.cutoffs(now).items():
        done[kind] = 0
        if before is None:
            continue
        if dry_run:
            ids = set(store.expired(kind, before)) - counted
            counted |= ids
            done[kind] = len(ids)
            continue
        while ids := store.expired(kind, before, PRUNE_BATCH):
            done[kind] += store.delete_games(ids, before)
    if not dry_run:
        store.forget_clients(now - DAY_S)
    return done


def backup(db, target: str) -> int:
    """Copy the SQLite database ``db`` (:class:`.store.Database`) to the file
    ``target`` with SQLite's online backup (the server may be running and
    writing meanwhile), through a temporary file renamed over ``target`` once
    whole and checked; its size in bytes. ValueError for a database that is not
    a SQLite file (PostgreSQL: ``pg_dump``)."""
    import sqlite3

    if not db.sqlite or db.memory:
        raise ValueError(f"--db {db.url.render_as_string()[:200]}: aluette db backup copies a "
                         f"SQLite file; back up PostgreSQL with pg_dump (docs/WEB.md)")
    path = Path(os.path.abspath(target))
    for stale in path.parent.glob(f".{path.name}.*.partial"):  # of a backup stopped half-way
        stale.unlink(missing_ok=True)
    partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
    try:
        source = db.engine.raw_connection()
        try:
            copy = sqlite3.connect(partial)
            try:
                source.driver_connection.backup(copy)
                # One self-contained file (no write-ahead log beside it), checked whole.
                copy.execute("PRAGMA journal_mode=DELETE")
                (check,) = copy.execute("PRAGMA integrity_check").fetchone()
                if check != "ok":
                    raise sqlite3.DatabaseError(f"the copy failed its integrity check: {check}")
            finally:
                copy.close()
        finally:
            source.close()
        with open(partial, "rb") as f:
            os.fsync(f.fileno())
        os.replace(partial, path)
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
        return path.stat().st_size
    finally:
        partial.unlink(missing_ok=True)


__all__ = ["DB_WAIT_S", "KEEP_FINISHED_DAYS", "KEEP_UNFINISHED_DAYS", "KEEP_UNPLAYED_HOURS",
           "Keeping", "NEW_GAMES_PER_HOUR", "PRUNE_EVERY_S", "backup", "prune"]
