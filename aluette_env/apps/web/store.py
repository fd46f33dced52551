"""The web game's games in a database: SQLAlchemy 2 over SQLite (a file under
the user's data directory by default) or PostgreSQL, the schema kept by
Alembic (``migrations/``).

A game is one row of ``games``: its :meth:`GameSession.snapshot
<aluette_env.apps.session.GameSession.snapshot>` (the match record of
``docs/RECORDS.md`` plus the deal in progress) as JSON, and ``version``, the
game's move counter. Every accepted move is written before its answer is sent,
with ``UPDATE ... WHERE version = <the version it was made on>``: of two
moves made on one version, by two worker processes or two threads, one lands
and the other changes nothing (:class:`.service.Conflict`, a 409). Loading a game
replays its snapshot through the rules (:mod:`.service` does it, with
:meth:`GameSession.restore`), so a tampered row is refused like a tampered
record file. This module only reads and writes rows: the games a process holds
in memory, their locks and what a row's JSON means are :mod:`.service`'s.

A seat is reached by its token, never by the game's id: ``seats`` holds the
SHA-256 of each token (at least 128 random bits from :mod:`secrets`), never
the token. A seat row names a person's seat (0-3) or a spectator (``NULL``),
the person's display name, and when that seat was last seen (for the
table's AI taking over from a person who left).
"""

from __future__ import annotations

import hashlib
import math
import os
import secrets
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from sqlalchemy import (
    Boolean, Float, ForeignKey, Integer, String, Text, create_engine, delete, event, func, select,
    text, update,
)
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import (
    ArgumentError, DBAPIError, NoSuchModuleError, OperationalError, SAWarning, SQLAlchemyError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker
from sqlalchemy.pool import StaticPool

from aluette_env.game import NUM_SEATS

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: token_urlsafe(16): 128 random bits; the table tokens and the game ids alike.
TOKEN_BYTES = 16
#: Seconds between tries of a database that does not answer at start: the first, the most.
RETRY_FIRST_S = 0.5
RETRY_S = 5.0



def default_url() -> str:
    """``sqlite:///<data dir>/aluette/games.db``: ``$XDG_DATA_HOME`` or
    ``~/.local/share`` (the directory is made on first use)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"),
                                                           ".local", "share")
    return f"sqlite:///{Path(base) / 'aluette' / 'games.db'}"


def token_hash(token: str) -> str:
    """What the database keeps of a seat token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    version: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(Text)
    finished: Mapped[bool] = mapped_column(Boolean, default=False)
    #: seconds a person may be away on their turn before the table's AI plays for them
    away_after: Mapped[float] = mapped_column(Float)
    created: Mapped[float] = mapped_column(Float)
    updated: Mapped[float] = mapped_column(Float, index=True)


class SeatRow(Base):
    __tablename__ = "seats"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None: a spectator
    name: Mapped[str] = mapped_column(String(40), default="")
    last_seen: Mapped[float] = mapped_column(Float)


class TokenFailureRow(Base):
    """An unknown seat token asked for (:class:`~.tables.TokenGuard`)."""

    __tablename__ = "token_failures"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    client: Mapped[str] = mapped_column(String(64))
    at: Mapped[float] = mapped_column(Float)


class GameStartRow(Base):
    """A new game or table started by a client address (:class:`~.service.ClientLimit`)."""

    __tablename__ = "game_starts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    client: Mapped[str] = mapped_column(String(64))
    at: Mapped[float] = mapped_column(Float)


class KeyRow(Base):
    """A secret of the server's own, by name (:meth:`Games.key`): the key that
    seals a deal shown before it is kept (:mod:`.drafts`)."""

    __tablename__ = "server_keys"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))


class DatabaseError(Exception):
    """The database cannot be opened or used; the message says which and why."""


class DatabaseDown(DatabaseError):
    """The database server does not answer (not up yet, restarting, no network):
    it may a moment later."""


class StoreUnavailable(DatabaseError):
    """The database failed a read or a write (a full disk, a damaged file, the
    server down): the transaction was rolled back, so nothing of it was kept.
    The message is the driver's first line, for the server's log."""


class DamagedGame(ValueError):
    """A game's rows that this server cannot serve (edited, or written by
    something else): nothing is played on it. The message says why, for the
    server's log only: it may name the game's id and its hidden cards."""


class Database:
    """An engine and its sessions, the schema brought to the newest version.
    Whatever keeps it from starting (a URL it cannot read, a driver's option it
    would ignore, a damaged file, a schema of a later aluette, a database it
    cannot write) is :class:`DatabaseError`, in one line."""

    def __init__(self, url: str, create: bool = True):
        try:
            parsed = make_url(url)
        except (ArgumentError, ValueError):  # ValueError: a port that is not a number
            raise DatabaseError(f"--db: not a database URL: {url[:200]!r} (for example "
                                f"sqlite:///games.db or postgresql+psycopg://user@host/db)"
                                ) from None
        self.url = parsed
        self.sqlite = parsed.get_backend_name() == "sqlite"
        #: The games live in this process only: a restart loses them, another process
        #: (``--workers``) has its own.
        self.memory = self.sqlite and (parsed.database in (None, "", ":memory:")
                                       or parsed.database.startswith("file::memory:")
                                       or parsed.query.get("mode") == "memory")
        kwargs: dict[str, Any] = {}
        if self.memory:  # one shared connection, used by one thread at a time (self.lock)
            kwargs = {"poolclass": StaticPool, "connect_args": {"check_same_thread": False}}
        elif self.sqlite:
            # A path, not a SQLite URI; ``create`` off (aluette db): its folder is
            # not made, and a missing file is the caller's to refuse.
            if create and not parsed.database.startswith("file:"):
                try:
                    Path(parsed.database).expanduser().parent.mkdir(parents=True,
                                                                    exist_ok=True)
                except OSError as err:
                    raise DatabaseError(f"--db {url[:200]}: cannot make its directory: "
                                        f"{err.strerror or err}") from None
            kwargs = {"connect_args": {"timeout": 30}}
        try:
            with warnings.catch_warnings():  # an option the driver would ignore is refused
                warnings.simplefilter("error", SAWarning)
                self.engine: Engine = create_engine(parsed, **kwargs)
        except (NoSuchModuleError, ImportError, SAWarning, ArgumentError, ValueError,
                TypeError) as err:
            raise DatabaseError(f"--db {parsed.render_as_string()[:200]}: "
                                f"{_first_line(err)}") from None
        if self.sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
            if not self.memory:  # every worker process its own connections, sharing the file
                event.listen(self.engine, "connect", _sqlite_wal)
        self.lock = threading.Lock() if self.memory else _NoLock()
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    def upgrade(self, wait_s: float = 0.0, say: Callable[[str], None] | None = None) -> None:
        """Create or migrate the schema to the newest version (Alembic), and check
        that the database takes writes (a read-only file or user fails here, not
        at the first move). A database server that does not answer
        (:class:`DatabaseDown`: not up yet, or restarting) is tried again for
        ``wait_s`` seconds from its first refusal, every :data:`RETRY_S` seconds at most, each wait told
        to ``say``; a database that answers and refuses fails at once."""
        # The wait counts from the first refusal: a slow first try (imports, a busy
        # machine) does not eat it.
        deadline = None
        delay = RETRY_FIRST_S
        while True:
            try:
                return self._upgrade()
            except DatabaseDown as err:
                if deadline is None:
                    deadline = time.monotonic() + wait_s
                left = deadline - time.monotonic()
                if left <= 0:
                    if wait_s > 0:
                        raise DatabaseDown(f"{err}; gave up after waiting {wait_s:g} s "
                                           f"(--db-wait)") from None
                    raise
                delay = min(delay, left)
                if say is not None:
                    say(f"the database does not answer yet ({err}); trying again in "
                        f"{delay:.3g} s, for {left:.0f} s more at most")
                time.sleep(delay)
                delay = min(delay * 2, RETRY_S)

    def _upgrade(self) -> None:
        from alembic import command
        from alembic.config import Config
        from alembic.util import CommandError

        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        shown = f"--db {self.url.render_as_string()[:200]}"
        try:
            with self.lock, self.engine.begin() as connection:
                config.attributes["connection"] = connection
                command.upgrade(config, "head")
                connection.execute(text("UPDATE alembic_version SET version_num = "
                                        "version_num"))
        except CommandError as err:  # a revision this aluette does not have
            raise DatabaseError(f"{shown}: its schema is not one this aluette knows "
                                f"({_first_line(err)}); a later aluette wrote it?") from None
        except OperationalError as err:
            if not self.sqlite:  # no server there (yet): maybe a moment later
                raise DatabaseDown(f"{shown}: cannot use it: {_first_line(err)}") from None
            raise DatabaseError(f"{shown}: cannot use it: {_first_line(err)}") from None
        except SQLAlchemyError as err:  # a damaged file, no right to write
            raise DatabaseError(f"{shown}: cannot use it: {_first_line(err)}") from None

    def ping(self) -> None:
        """One round trip to the database (``SELECT 1``); :class:`StoreUnavailable`
        if it does not answer."""
        with self.session() as s:
            s.execute(text("SELECT 1"))

    def schema_version(self) -> str | None:
        """The Alembic revision the database is at."""
        from alembic.runtime.migration import MigrationContext

        with self.lock, self.engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session in a transaction, committed at the end (rolled back on
        error); any failure of the database in it, the commit included, is
        :class:`StoreUnavailable`."""
        try:
            with self.lock, self.sessions.begin() as session:
                yield session
        except (DBAPIError, PoolTimeout) as err:
            raise StoreUnavailable(_first_line(err)) from None

    def conninfo(self) -> str:
        """The URL as libpq reads it (PostgreSQL's LISTEN connection)."""
        return self.url.set(drivername=self.url.get_backend_name()).render_as_string(
            hide_password=False)

    def close(self) -> None:
        self.engine.dispose()


class _NoLock:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _first_line(err: BaseException) -> str:
    """The driver's own words of ``err`` (its first line), else its type."""
    lines = str(getattr(err, "orig", None) or err).strip().splitlines()
    line = lines[0].partition(" (Background on this")[0] if lines else type(err).__name__
    return line[:300]


def _sqlite_pragmas(connection, record) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def _sqlite_wal(connection, record) -> None:
    # Write-ahead log: readers never wait for the writer, and a committed
    # transaction survives the process being killed. synchronous=FULL: it
    # survives the machine losing power too.
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.close()


class SeatFound(NamedTuple):
    """A seat token's row and its game's columns (:meth:`Games.seat`)."""

    game_id: str
    seat: int | None  # None: a spectator
    name: str
    last_seen: float
    version: int  # the game's version in the database as read
    away_after: float


class Games:
    """Games and their seats in the database, reached by seat token; this
    class only reads and writes rows (the games in memory, their locks and
    their replay are :mod:`.service`'s). ``notify``: PostgreSQL's channel
    that each write announces its game on (:mod:`.changes`), or None.

    Every read checks the columns it read: a row this server could not have
    written (edited, or damaged) is :class:`DamagedGame`; a failure of the
    database itself is :class:`StoreUnavailable`."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time,
                 notify: str | None = None):
        self.db = db
        self.clock = clock
        self.notify = notify

    # ---------------------------------------------------------------- writing

    def add(self, version: int, state: str, finished: bool, seats: list[int],
            away_after: float = 0.0, names: dict[int, str] | None = None,
            spectator: bool = False, gid: str | None = None,
            tokens: dict[int | None, str] | None = None
            ) -> tuple[str, dict[int | None, str]] | None:
        """Keep a new game (its snapshot ``state`` as JSON text, at ``version``);
        returns its id and a fresh token for each person's seat of ``seats``
        (and ``None``: the spectators' token, if asked). ``gid`` and ``tokens``
        given (a deal kept from its draft, :mod:`.drafts`): the game is kept
        under them once, and None is returned if a game has that id already."""
        now = self.clock()
        if gid is None:
            gid = secrets.token_urlsafe(TOKEN_BYTES)
            tokens = {s: secrets.token_urlsafe(TOKEN_BYTES) for s in sorted(seats)}
            if spectator:
                tokens[None] = secrets.token_urlsafe(TOKEN_BYTES)
        assert tokens is not None
        names = names or {}
        with self.db.session() as s:
            row = dict(id=gid, version=version, state=state, finished=finished,
                       away_after=away_after, created=now, updated=now)
            # RETURNING, not rowcount: a driver may count -1 for an insert it did
            if s.execute(self._insert_new(GameRow, row).returning(GameRow.id)).first() is None:
                return None
            for seat, token in tokens.items():
                s.add(SeatRow(token_hash=token_hash(token), game_id=gid, seat=seat,
                              name=names.get(seat, "") if seat is not None else "",
                              last_seen=now))
        return gid, tokens

    def _insert_new(self, table, row: dict[str, Any]):
        """``INSERT ... ON CONFLICT DO NOTHING`` of ``row`` (SQLite and PostgreSQL
        alike): a row whose key is there already is left as it is."""
        if self.db.sqlite:
            from sqlalchemy.dialects.sqlite import insert
        else:
            from sqlalchemy.dialects.postgresql import insert
        return insert(table).values(**row).on_conflict_do_nothing()

    def key(self, name: str) -> bytes:
        """The server's secret key ``name`` (32 random bytes), made on first use
        by whichever process asks first; every process reads the same."""
        with self.db.session() as s:
            s.execute(self._insert_new(KeyRow, {"name": name,
                                                "value": secrets.token_hex(32)}))
            value = s.execute(select(KeyRow.value).where(KeyRow.name == name)).scalar_one()
        try:
            key = bytes.fromhex(value)
        except (TypeError, ValueError):
            key = b""
        if len(key) < 32:
            raise DamagedGame(f"server_keys.{name} is not 32 bytes or more in hex")
        return key

    def save(self, gid: str, known: int, version: int, state: str, finished: bool) -> bool:
        """Write game ``gid`` at ``version`` if the database still has it at
        ``known``: one transaction, which on PostgreSQL also announces the game
        (NOTIFY, sent at the commit). False, and nothing written, if another
        process wrote it first."""
        with self.db.session() as s:
            done = s.execute(update(GameRow).where(GameRow.id == gid, GameRow.version == known)
                             .values(version=version, state=state, finished=finished,
                                     updated=self.clock()))
            landed = done.rowcount == 1
            if landed and self.notify:
                s.execute(select(func.pg_notify(self.notify, f"{gid} {version}")))
        return landed

    # ---------------------------------------------------------------- reading

    def seat(self, token: str, seen_after: float | None = None) -> SeatFound | None:
        """The seat of ``token`` and its game's version (one read); None for an
        unknown token. With ``seen_after``, a person's seat whose ``last_seen``
        is that many seconds old or more is seen now, in the same transaction
        (how often is the caller's policy). A seat row that is not what this
        server writes raises :class:`DamagedGame`."""
        if not isinstance(token, str) or not 8 <= len(token) <= 128:
            return None
        with self.db.session() as s:
            row = s.execute(
                select(SeatRow.game_id, SeatRow.seat, SeatRow.name, SeatRow.last_seen,
                       GameRow.version, GameRow.away_after)
                .join(GameRow, GameRow.id == SeatRow.game_id)
                .where(SeatRow.token_hash == token_hash(token))).first()
            if row is None:
                return None
            gid, seat, name, last_seen, version, away_after = row
            _check_seat_row(gid, seat, name, last_seen, version, away_after)
            now = self.clock()
            if seen_after is not None and seat is not None and now - last_seen >= seen_after:
                s.execute(update(SeatRow).where(SeatRow.token_hash == token_hash(token))
                          .values(last_seen=now))
                last_seen = now
        return SeatFound(gid, seat, name, last_seen, version, away_after)

    def read(self, gid: str) -> tuple[int, str]:
        """Game ``gid``'s version and snapshot (JSON text) as its row has them."""
        with self.db.session() as s:
            row = s.get(GameRow, gid)
            if row is None:
                raise DamagedGame(f"game {gid}: its seats name a game that has no row")
            version, state = row.version, row.state
        _check_version(gid, version)
        if not isinstance(state, str):
            raise DamagedGame(f"game {gid}: games.state is {type(state).__name__}, not JSON text")
        return version, state

    def version(self, gid: str) -> int | None:
        """The game's version in the database now (one indexed read); None if
        the game is gone."""
        with self.db.session() as s:
            version = s.execute(select(GameRow.version).where(GameRow.id == gid)).scalar()
        if version is not None:
            _check_version(gid, version)
        return version

    # ---------------------------------------------------------------- clients' counts

    #: What a client address is counted for: an unknown token asked for, a game started.
    COUNTED = {"token_failure": TokenFailureRow, "game_start": GameStartRow}

    def client_times(self, kind: str, client: str, since: float) -> list[float]:
        """When ``client`` did ``kind`` (:attr:`COUNTED`) since ``since``, oldest
        first (every process's requests: they share the database)."""
        row = self.COUNTED[kind]
        with self.db.session() as s:
            return list(s.execute(select(row.at).where(row.client == client[:64],
                                                       row.at >= since)
                                  .order_by(row.at)).scalars())

    def client_did(self, kind: str, client: str, at: float, forget_before: float) -> None:
        """``client`` did ``kind`` at ``at``; the counts of ``kind`` before
        ``forget_before`` (every client's) are let go."""
        row = self.COUNTED[kind]
        with self.db.session() as s:
            s.execute(delete(row).where(row.at < forget_before))
            s.add(row(client=client[:64], at=at))

    def token_failures(self, client: str, since: float) -> list[float]:
        return self.client_times("token_failure", client, since)

    def token_failed(self, client: str, at: float, forget_before: float) -> None:
        self.client_did("token_failure", client, at, forget_before)

    def forget_clients(self, before: float) -> None:
        """Every count of the clients older than ``before`` is let go."""
        with self.db.session() as s:
            for row in self.COUNTED.values():
                s.execute(delete(row).where(row.at < before))

    # ---------------------------------------------------------------- expiry

    def expired(self, kind: str, before: float, limit: int | None = None) -> list[str]:
        """Ids of the games of ``kind`` whose last move is older than ``before``
        (:mod:`.upkeep`): ``"unplayed"``, a one-person game never played on since
        it was made; ``"unfinished"``, a one-person game not finished;
        ``"other"``, any game. A one-person game has one seat row (a table has
        its spectators' too)."""
        one_person = select(SeatRow.game_id).group_by(SeatRow.game_id).having(func.count() == 1)
        query = select(GameRow.id).where(GameRow.updated < before)
        if kind == "unplayed":
            query = query.where(GameRow.id.in_(one_person), GameRow.created == GameRow.updated)
        elif kind == "unfinished":
            query = query.where(GameRow.id.in_(one_person), GameRow.finished.is_(False))
        elif kind != "other":
            raise ValueError(f"unknown kind of expiry {kind!r}")
        if limit is not None:
            query = query.limit(limit)
        with self.db.session() as s:
            return list(s.execute(query).scalars())

    def delete_games(self, ids: list[str], before: float) -> int:
        """Delete the games ``ids`` with their seats, in one transaction, each only
        if its last move is still older than ``before`` (not played meanwhile);
        how many were deleted."""
        with self.db.session() as s:
            gone = s.execute(delete(GameRow).where(GameRow.id.in_(ids),
                                                   GameRow.updated < before)).rowcount
            s.execute(delete(SeatRow).where(SeatRow.game_id.in_(ids),
                                            SeatRow.game_id.not_in(select(GameRow.id))))
        return gone

    # ---------------------------------------------------------------- people

    def seen(self, tokens: list[str]) -> None:
        """The seats of ``tokens`` are here now: one write for them all."""
        if not tokens:
            return
        with self.db.session() as s:
            s.execute(update(SeatRow).where(SeatRow.token_hash.in_([token_hash(t)
                                                                     for t in tokens]))
                      .values(last_seen=self.clock()))

    def last_seen(self, gid: str) -> dict[int, float]:
        """When each person's seat of game ``gid`` was last seen."""
        with self.db.session() as s:
            rows = s.execute(select(SeatRow.seat, SeatRow.last_seen).where(
                SeatRow.game_id == gid, SeatRow.seat.is_not(None))).all()
        return {seat: seen for seat, seen in rows}

    def names(self, gid: str) -> dict[int, str]:
        with self.db.session() as s:
            rows = s.execute(select(SeatRow.seat, SeatRow.name).where(
                SeatRow.game_id == gid, SeatRow.seat.is_not(None))).all()
        return {seat: name for seat, name in rows}

    def games_of(self, tokens: list[str]) -> list[tuple[str, int | None, Any, Any, Any, Any]]:
        """The rows of each known token's game: (token, seat, state, finished,
        created, updated), unknown tokens left out."""
        hashes = {token_hash(t): t for t in tokens if isinstance(t, str) and len(t) <= 128}
        if not hashes:
            return []
        with self.db.session() as s:
            rows = s.execute(select(SeatRow.token_hash, SeatRow.seat, GameRow.state,
                                    GameRow.finished, GameRow.created, GameRow.updated)
                             .join(GameRow, GameRow.id == SeatRow.game_id)
                             .where(SeatRow.token_hash.in_(list(hashes)))).all()
        return [(hashes[digest], *rest) for digest, *rest in rows]


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_version(gid: str, version: object) -> None:
    if type(version) is not int or version < 0:
        raise DamagedGame(f"game {gid}: games.version is {str(version)[:40]!r}, not a "
                          f"whole number >= 0")


def _check_seat_row(gid: str, seat: object, name: object, last_seen: object, version: object,
                    away_after: object) -> None:
    """A seat row and its game's columns as this server writes them, else
    :class:`DamagedGame` naming the first column that is not."""
    if seat is not None and (type(seat) is not int or not 0 <= seat < NUM_SEATS):
        raise DamagedGame(f"game {gid}: seats.seat is {str(seat)[:40]!r}, not a seat 0-3 "
                          f"or NULL (a spectator)")
    if not isinstance(name, str):
        raise DamagedGame(f"game {gid}: seats.name is {type(name).__name__}, not text")
    if not _number(last_seen):
        raise DamagedGame(f"game {gid}: seats.last_seen is {str(last_seen)[:40]!r}, "
                          f"not a time")
    _check_version(gid, version)
    if not _number(away_after) or away_after < 0:
        raise DamagedGame(f"game {gid}: games.away_after is {str(away_after)[:40]!r}, "
                          f"not a number of seconds >= 0")
