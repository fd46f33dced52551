"""``aluette serve``: play Aluette in the browser against AI players.

The package holds the service (:mod:`.service`, no web framework), which
drives the game flow for people that the terminal game shares
(:mod:`aluette_env.apps.session`), the Starlette app over it (:mod:`.server`,
with one route module per feature), and the page (``static/``: HTML, CSS and
JavaScript, no build step, nothing fetched from elsewhere). This module only
adds the command, so that ``aluette --help`` imports no web library.
"""

from __future__ import annotations

import argparse
import signal
import sys

from ...commands import (
    Command, UsageError, bounded_int, bounded_seconds, check_not_input, environment_defaults,
    writable_file,
)
from ..coach import HINT_WORLDS, REVIEW_WORLDS
from ..review import worlds
from .timeouts import BODY_TIMEOUT_S, HEADER_TIMEOUT_S, TIMEOUT_RANGE_S
from .upkeep import (
    DB_WAIT_S, KEEP_FINISHED_DAYS, KEEP_UNFINISHED_DAYS, KEEP_UNPLAYED_HOURS, MAX_KEEP_DAYS,
    NEW_GAMES_PER_HOUR,
)

MAX_WORKERS = 64


def host(text: str) -> str:
    """An argument type: a host name or address to listen on; an empty one (which
    the socket would read as every interface) is refused."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty host; give an address: 127.0.0.1 (this "
                                         "computer only) or 0.0.0.0 (every interface)")
    return text


def proxy_addresses(text: str) -> str:
    """An argument type: comma-separated IP addresses or networks (a reverse proxy's)."""
    import ipaddress
    items = [item.strip() for item in text.split(",")]
    for item in items:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{item[:60]!r} is not an IP address or network; "
                                             f"give the proxy's, such as 127.0.0.1") from None
    return ",".join(items)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", type=host, default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this computer only)")
    p.add_argument("--port", type=bounded_int(0, 65535), default=8000,
                   help="port, 0-65535 (default 8000; 0 picks a free one)")
    p.add_argument("--partner", default="ai", metavar="SPEC",
                   help="north, your partner (default ai)")
    p.add_argument("--left", default="ai", metavar="SPEC", help="west (default ai)")
    p.add_argument("--right", default="ai", metavar="SPEC", help="east (default ai)")
    p.add_argument("--signs-ai", default="expert", metavar="SPEC",
                   help="every AI seat of a game with signs unless it names one (default "
                        "expert: it signs truthfully and reads the signs it sees)")
    p.add_argument("--max-games", type=bounded_int(1, 1_000_000), default=1000,
                   help="games held in each process's memory (default 1000); every game "
                        "is kept in the database")
    p.add_argument("--db", metavar="URL", default=None,
                   help="where games are kept: a SQLAlchemy URL (default: sqlite:/// a file "
                        "games.db in the user's data directory, $XDG_DATA_HOME/aluette or "
                        "~/.local/share/aluette; postgresql+psycopg://user@host/db for "
                        "PostgreSQL)")
    p.add_argument("--workers", type=bounded_int(1, MAX_WORKERS), default=1,
                   help=f"server processes sharing the database (1 to {MAX_WORKERS}, default 1)")
    p.add_argument("--hint-worlds", type=worlds, default=HINT_WORLDS,
                   help="the coach's effort: sampled deals per hint")
    p.add_argument("--review-worlds", type=worlds, default=REVIEW_WORLDS,
                   help="the coach's effort: sampled deals per reviewed play")
    p.add_argument("--proxy", metavar="ADDRESSES", type=proxy_addresses, default=None,
                   help="the addresses of a reverse proxy in front of the server, "
                        "comma-separated: X-Forwarded-For is read from them only (default: "
                        "never; a client is the address it connects from)")
    low, high = TIMEOUT_RANGE_S
    p.add_argument("--header-timeout", type=bounded_seconds(low, high), metavar="SECONDS",
                   default=HEADER_TIMEOUT_S,
                   help=f"a request whose headers have not all arrived within this many "
                        f"seconds gets 408 and is closed ({low:g}-{high:g}, default "
                        f"{HEADER_TIMEOUT_S:g})")
    p.add_argument("--body-timeout", type=bounded_seconds(low, high), metavar="SECONDS",
                   default=BODY_TIMEOUT_S,
                   help=f"the same for a request's whole body ({low:g}-{high:g}, default "
                        f"{BODY_TIMEOUT_S:g})")
    p.add_argument("--new-games", type=bounded_int(0, 1_000_000), metavar="N",
                   default=NEW_GAMES_PER_HOUR,
                   help=f"new games and tables one client address may start per hour (with "
                        f"--proxy, the address the proxy forwards; 0: any number; default "
                        f"{NEW_GAMES_PER_HOUR})")
    add_keeping(p)
    p.add_argument("--db-wait", type=bounded_seconds(0, 3600), metavar="SECONDS",
                   default=DB_WAIT_S,
                   help=f"how long to wait at start for a database server that does not "
                        f"answer yet, trying again, before giving up (0-3600, default "
                        f"{DB_WAIT_S:g})")
    p.add_argument("--log-level", type=log_level, default="warning", metavar="LEVEL",
                   help=f"what the server logs: {', '.join(LOG_LEVELS)} (default warning; "
                        f"info adds a line per request, the access log, on stdout)")
    p.add_argument("--open", action="store_true", help="open the page in a web browser")
    environment_defaults(p, ENVIRONMENT_PREFIX)


def add_keeping(p: argparse.ArgumentParser) -> None:
    """The options of how long games are kept (``serve`` and ``db prune``)."""
    p.add_argument("--keep-unfinished", type=bounded_int(0, MAX_KEEP_DAYS), metavar="DAYS",
                   default=KEEP_UNFINISHED_DAYS,
                   help=f"days an unfinished one-person game is kept after its last move "
                        f"(0: for ever; default {KEEP_UNFINISHED_DAYS}); one whose person "
                        f"never played goes after {KEEP_UNPLAYED_HOURS} hours")
    p.add_argument("--keep-finished", type=bounded_int(0, MAX_KEEP_DAYS), metavar="DAYS",
                   default=KEEP_FINISHED_DAYS,
                   help=f"days every other game (finished, or a table of people) is kept "
                        f"after its last move (0: for ever; default {KEEP_FINISHED_DAYS})")


#: The levels of ``--log-level``.
LOG_LEVELS = ("critical", "error", "warning", "info", "debug")
#: Each option of ``aluette serve`` and ``aluette db`` is also this and its name in capitals.
ENVIRONMENT_PREFIX = "ALUETTE_"


def log_level(text: str) -> str:
    """An argument type: one of :data:`LOG_LEVELS`."""
    if text.strip().lower() not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(LOG_LEVELS)}, "
                                         f"got {text[:40]!r}")
    return text.strip().lower()


def listening_socket(host: str, port: int):
    """The server's socket, bound to ``host``:``port`` and listening (its workers
    share it). It names its protocol: a connection accepted from it inherits that,
    and asyncio sets TCP_NODELAY only on a socket that says IPPROTO_TCP. Without
    it, every answer after the first on a kept-alive connection (a page's fetches)
    waited about 40 ms for the client's delayed ACK of its headers (uvicorn's
    issue 3149). A :class:`UsageError` in one line where it cannot listen."""
    import socket

    sock = None
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET,
                             socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)  # the printed URL takes connections at once (queued until served)
    except (OSError, UnicodeError, TypeError, ValueError) as err:
        if sock is not None:
            sock.close()
        if isinstance(err, OSError):  # also a family the kernel lacks (IPv6 switched off)
            raise UsageError(f"cannot listen on {host}:{port}: {err.strerror}") from None
        # a host no resolver can encode
        raise UsageError(f"--host {ascii(host)[:200]}: not a host name or address") from None
    return sock


def run(args: argparse.Namespace) -> int:
    import ipaddress
    import threading
    import webbrowser

    import dataclasses
    import json
    import os

    import uvicorn

    from .server import (
        CONFIG_VARIABLE, ServerConfig, configure_logging, create_app, logging_config,
    )
    from .store import DatabaseError, default_url

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0-65535, got {args.port}")
    if args.max_games < 1:
        raise UsageError(f"--max-games must be >= 1, got {args.max_games}")
    if not 1 <= args.workers <= MAX_WORKERS:
        raise UsageError(f"--workers must be 1-{MAX_WORKERS}, got {args.workers}")
    config = ServerConfig(partner=args.partner, left=args.left, right=args.right,
                          signs_ai=args.signs_ai,
                          max_games=args.max_games, db=args.db or default_url(),
                          workers=args.workers,
                          hint_worlds=args.hint_worlds, review_worlds=args.review_worlds,
                          body_timeout=args.body_timeout, new_games_per_hour=args.new_games,
                          keep_unfinished_days=args.keep_unfinished,
                          keep_finished_days=args.keep_finished, db_wait=args.db_wait)
    configure_logging(args.log_level)
    if args.workers > 1:  # each worker makes its app: the supervisor only checks, apart
        refusal = _checked_apart(config, args.log_level)
        if refusal is not None:
            raise UsageError(refusal)
        app = None
    else:
        try:
            app = create_app(config)  # checks the players and the database, and migrates it
        except DatabaseError as err:
            raise UsageError(str(err)) from None
    # Bind first, so the printed URL has the real port (also with --port 0), and a
    # refusal is the one line on stderr (before the note below).
    sock = listening_socket(args.host, args.port)
    if app is not None and app.state.store.db.memory:
        print(f"note: --db {config.db[:200]}: the games are kept in this process's memory "
              f"only, and lost when the server stops; leave --db out to keep them in a file",
              file=sys.stderr, flush=True)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    if not ipaddress.ip_address(host).is_loopback:
        print(f"warning: listening on {host}: the game is reachable from other machines on "
              f"the network (no password); use --host 127.0.0.1 to keep it on this computer",
              file=sys.stderr, flush=True)
    print(f"Aluette is served at {url}  (Ctrl-C stops it)", flush=True)
    if args.open:
        threading.Timer(0.5, webbrowser.open, (url,)).start()
    from .limits import uvicorn_options
    options = uvicorn_options(args.proxy, args.header_timeout)
    logs = {"log_level": args.log_level, "log_config": logging_config(args.log_level),
            "access_log": False}  # uvicorn's access log would show the seat tokens: AccessLog's
    if args.workers == 1:
        server = uvicorn.Server(uvicorn.Config(app, **logs, **options))
        server.run(sockets=[sock])
        return 0
    # Each worker process makes its own app from the same settings.
    os.environ[CONFIG_VARIABLE] = json.dumps({**dataclasses.asdict(config),
                                              "supervisor": os.getpid()})
    uv = uvicorn.Config("aluette_env.apps.web.server:app_from_environment", factory=True,
                        workers=args.workers, **logs, **options)
    stopped_by = _supervise(uv, sock)
    if stopped_by is not None:  # one line and 130 / 143, as every command
        from ...commands import Terminated
        raise Terminated if stopped_by == signal.SIGTERM else KeyboardInterrupt
    return 0


def _checked_apart(config, log_level: str) -> str | None:
    """:func:`.server.check_settings` in a process of its own, which then ends."""
    import dataclasses

    from aluette_env._workers import spawn_pool, stop_pool

    from .server import check_settings

    pool = spawn_pool(1)
    try:
        return pool.submit(check_settings, dataclasses.asdict(config), log_level).result()
    finally:
        stop_pool(pool)


def _supervise(config, sock) -> int | None:
    """Run uvicorn's supervisor of worker processes; the signal that stopped it, if
    any (it takes SIGINT and SIGTERM itself, then returns as if nothing happened)."""
    from uvicorn.supervisors import Multiprocess

    class Supervisor(Multiprocess):
        stopped_by: int | None = None

        def handle_int(self) -> None:
            self.stopped_by = signal.SIGINT
            super().handle_int()

        def handle_term(self) -> None:
            self.stopped_by = signal.SIGTERM
            super().handle_term()

    supervisor = Supervisor(config, sockets=[sock])
    supervisor.run()
    return supervisor.stopped_by


def add_db_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True, metavar="ACTION",
                           help="prune: delete the expired games; backup: copy the database",
                           parser_class=type(p))
    prune = sub.add_parser("prune", help="delete the expired games now (the server does it "
                                         "every hour)",
                           description="Delete the games that have expired: "
                                       "docs/WEB.md, 'Host it for friends'.")
    add_db_option(prune)
    add_keeping(prune)
    prune.add_argument("--dry-run", action="store_true",
                       help="count the expired games, delete nothing")
    environment_defaults(prune, ENVIRONMENT_PREFIX)
    backup = sub.add_parser("backup", help="copy a SQLite database of games to FILE, also "
                                           "while the server runs (PostgreSQL: pg_dump)",
                            description="Copy the games' SQLite database to FILE with "
                                        "SQLite's online backup; FILE is replaced only "
                                        "once the copy is whole.")
    backup.add_argument("file", metavar="FILE", type=writable_file,
                        help="the copy (replaced if it exists)")
    add_db_option(backup)
    environment_defaults(backup, ENVIRONMENT_PREFIX)


def add_db_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", metavar="URL", default=None,
                   help="the database of aluette serve --db (default: its default file)")


def sqlite_file(database: str) -> str:
    """The file a SQLite database name opens: the name, or the path of a
    ``file:`` URI (``sqlite:///file:games.db?uri=true``)."""
    if not database.startswith("file:"):
        return database
    from urllib.parse import unquote
    return unquote(database[len("file:"):].partition("?")[0].partition("#")[0])


def run_db(args: argparse.Namespace) -> int:
    import os

    from . import upkeep
    from .store import Database, DatabaseError, Games, default_url

    url = args.db or default_url()
    try:
        db = Database(url, create=False)
        if db.memory:
            raise UsageError(f"--db {url[:200]}: a database in memory has no games to "
                             f"{args.action}; give the server's file or URL")
        path = sqlite_file(db.url.database or "")
        if db.sqlite and not os.path.isfile(path):
            raise UsageError(f"--db {url[:200]}: no such database file")
        if args.action == "backup":
            check_not_input(args.file, "FILE", [path])
            try:
                size = upkeep.backup(db, args.file)
            except ValueError as err:
                raise UsageError(str(err)) from None
            print(f"backed up {url[:200]} to {args.file} ({size:,} bytes)")
            return 0
        db.upgrade()
        keeping = upkeep.Keeping(args.keep_unfinished, args.keep_finished)
        done = upkeep.prune(Games(db), keeping, dry_run=args.dry_run)
    except DatabaseError as err:
        raise UsageError(str(err)) from None
    verb = "would delete" if args.dry_run else "deleted"
    print(f"{verb} {sum(done.values())} expired games: {done['unplayed']} never played "
          f"(after {KEEP_UNPLAYED_HOURS} h), {done['unfinished']} unfinished (after "
          f"{args.keep_unfinished or 'no'} days), {done['other']} others (after "
          f"{args.keep_finished or 'no'} days)")
    return 0


#: ``aluette db``, registered in pyproject.toml under ``aluette.commands``.
DB_COMMAND = Command(help="the web game's database: prune the expired games, back it up",
                     add_arguments=add_db_arguments, run=run_db)

#: ``aluette serve``, registered in pyproject.toml under ``aluette.commands``.
COMMAND = Command(help="play in the browser: a local web server for the Aluette table",
                  add_arguments=add_arguments, run=run)
