"""``aluette serve``: play Aluette in the browser against AI players.

The package holds the server (:mod:`.server`), which drives the game flow for
people that the terminal game shares (:mod:`aluette_env.apps.session`), and
the page (``static/``: HTML, CSS and JavaScript, no build step, nothing
fetched from elsewhere). This module only adds the command, so
that ``aluette --help`` imports no web library.
"""

from __future__ import annotations

import argparse
import math
import sys

from ...commands import Command, UsageError, bounded_int
from ..coach import HINT_WORLDS, REVIEW_WORLDS
from ..review import worlds

MAX_IDLE_MINUTES = 1440.0  # a day


def idle_minutes(text: str) -> float:
    """``--idle-minutes``: a finite number of minutes, above 0 and at most a day."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of minutes, got {text!r}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_IDLE_MINUTES):
        raise argparse.ArgumentTypeError(
            f"must be more than 0 and at most {MAX_IDLE_MINUTES:.0f} minutes, got {text}")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this computer only)")
    p.add_argument("--port", type=bounded_int(0, 65535), default=8000,
                   help="port, 0-65535 (default 8000; 0 picks a free one)")
    p.add_argument("--partner", default="ai", metavar="SPEC",
                   help="north, your partner (default ai)")
    p.add_argument("--left", default="ai", metavar="SPEC", help="west (default ai)")
    p.add_argument("--right", default="ai", metavar="SPEC", help="east (default ai)")
    p.add_argument("--max-games", type=bounded_int(1, 1_000_000), default=1000,
                   help="live games kept at most (default 1000)")
    p.add_argument("--idle-minutes", type=idle_minutes, default=30.0,
                   help=f"a game idle this long is dropped: more than 0, at most "
                        f"{MAX_IDLE_MINUTES:.0f} (default 30; the page says so)")
    p.add_argument("--hint-worlds", type=worlds, default=HINT_WORLDS,
                   help="the coach's effort: sampled deals per hint")
    p.add_argument("--review-worlds", type=worlds, default=REVIEW_WORLDS,
                   help="the coach's effort: sampled deals per reviewed play")
    p.add_argument("--open", action="store_true", help="open the page in a web browser")


def run(args: argparse.Namespace) -> int:
    import ipaddress
    import socket
    import threading
    import webbrowser

    import uvicorn

    from .server import ServerConfig, create_app

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0-65535, got {args.port}")
    if args.max_games < 1:
        raise UsageError(f"--max-games must be >= 1, got {args.max_games}")
    config = ServerConfig(partner=args.partner, left=args.left, right=args.right,
                          max_games=args.max_games, idle_seconds=args.idle_minutes * 60,
                          hint_worlds=args.hint_worlds, review_worlds=args.review_worlds)
    app = create_app(config)
    # Bind first, so the printed URL has the real port (also with --port 0).
    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as err:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {err.strerror}") from None
    except (UnicodeError, TypeError, ValueError):  # a host no resolver can encode
        raise UsageError(f"--host {ascii(args.host)[:200]}: not a host name or address") from None
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
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False,
                                           **uvicorn_options()))
    server.run(sockets=[sock])
    return 0


#: ``aluette serve``, registered in pyproject.toml under ``aluette.commands``.
COMMAND = Command(help="play in the browser: a local web server for the Aluette table",
                  add_arguments=add_arguments, run=run)
