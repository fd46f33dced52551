"""The ``aluette`` command: ``eval``, ``league`` (and ``train``, ``export``,
``play`` as the training/export/play modules provide them).

Bad input (unknown player, unreadable model, a bad number, a seat named
twice) ends with one line on stderr naming the problem and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable

from .players import PlayerSpecError, load_player

EXIT_USAGE = 2


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        raise UsageError(message)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _seat_overrides(items: list[str]) -> dict[str, str]:
    seats: dict[str, str] = {}
    for item in items:
        seat, sep, spec = item.partition("=")
        if not sep or seat not in ("player_0", "player_1", "player_2", "player_3") or not spec:
            raise UsageError(f"--seat {item!r}: expected player_K=SPEC with K in 0-3")
        if seat in seats:
            raise UsageError(f"--seat: {seat} is named twice")
        seats[seat] = spec
    return seats


def _check_specs(*specs: str) -> None:
    for spec in specs:
        load_player(spec)  # raises PlayerSpecError naming the problem


def cmd_eval(args: argparse.Namespace) -> int:
    from rich.console import Console

    from .evaluation import duplicate_eval, result_table

    seats = _seat_overrides(args.seat or [])
    _check_specs(args.team_a, args.team_b, *seats.values())
    res = duplicate_eval(args.team_a, args.team_b, deals=args.deals, seed=args.seed,
                         seats=seats, progress=not args.quiet)
    Console().print(result_table(res))
    if args.json:
        _write_json(args.json, res.to_json())
    return 0


def cmd_league(args: argparse.Namespace) -> int:
    import itertools

    from openskill.models import PlackettLuce
    from rich.console import Console
    from rich.table import Table

    from .evaluation import duplicate_eval

    if len(args.players) < 2:
        raise UsageError("league needs at least two players")
    if len(set(args.players)) != len(args.players):
        raise UsageError("league: a player is named twice")
    _check_specs(*args.players)
    model = PlackettLuce()
    ratings = {p: model.rating(name=p) for p in args.players}
    ppd: dict[tuple[str, str], float] = {}
    pairs = list(itertools.combinations(args.players, 2))
    for a, b in pairs:
        res = duplicate_eval(a, b, deals=args.deals, seed=args.seed, progress=not args.quiet)
        ppd[a, b], ppd[b, a] = res.points_per_deal, -res.points_per_deal
        for v in res.pair_points:
            ranks = [0, 0] if v == 0 else ([0, 1] if v > 0 else [1, 0])
            [[ra], [rb]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
            ratings[a], ratings[b] = ra, rb
    order = sorted(args.players, key=lambda p: -ratings[p].ordinal())
    t = Table(title=f"League: {len(pairs)} duplicate matches of {args.deals} deal pairs, "
                    f"seed {args.seed} (cells: row's points per deal vs column)")
    t.add_column("rank", justify="right")
    t.add_column("player")
    t.add_column("rating", justify="right")
    t.add_column("mu ± sigma", justify="right")
    for p in order:
        t.add_column(p[-18:], justify="right")
    rows = []
    for k, p in enumerate(order, 1):
        r = ratings[p]
        cells = ["—" if p == q else f"{ppd[p, q]:+.3f}" for q in order]
        t.add_row(str(k), p, f"{r.ordinal():.2f}", f"{r.mu:.2f} ± {r.sigma:.2f}", *cells)
        rows.append({"player": p, "rating": r.ordinal(), "mu": r.mu, "sigma": r.sigma,
                     "points_per_deal": {q: ppd[p, q] for q in order if q != p}})
    Console().print(t)
    if args.json:
        _write_json(args.json, {"deals": args.deals, "seed": args.seed, "players": rows})
    return 0


def _write_json(path: str, data: dict) -> None:
    import os
    import tempfile
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=2)
            f.write("\n")
        os.replace(tmp, path)
    except OSError as err:
        raise UsageError(f"cannot write {path}: {err.strerror}") from None


#: Extra subcommands registered by other modules: name -> (add_arguments, run).
SUBCOMMANDS: dict[str, tuple[str, Callable, Callable]] = {}


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="aluette", description="Aluette: evaluate, train and play AI players.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("eval", help="duplicate evaluation of team A against team B")
    p.add_argument("--team-a", required=True, metavar="SPEC", help="player spec for team A")
    p.add_argument("--team-b", required=True, metavar="SPEC", help="player spec for team B")
    p.add_argument("--deals", type=positive_int, default=2000, help="deal pairs (default 2000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals (default 0)")
    p.add_argument("--seat", action="append", metavar="player_K=SPEC",
                   help="mixed teams: put SPEC in that chair (team A: player_0/2, B: player_1/3)")
    p.add_argument("--json", metavar="PATH", help="also write the result as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=cmd_eval)

    p = sub.add_parser("league", help="round-robin duplicate evaluation with openskill ratings")
    p.add_argument("players", nargs="+", metavar="SPEC")
    p.add_argument("--deals", type=positive_int, default=1000, help="deal pairs per pairing")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="PATH")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(run=cmd_league)

    _load_extra_commands()
    for name, (help_text, add_arguments, run) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text)
        add_arguments(p)
        p.set_defaults(run=run)
    return parser


def _load_extra_commands() -> None:
    import importlib
    for module in ("training.cli", "training.export", "aluette_env.play"):
        try:
            importlib.import_module(module)
        except ImportError:
            pass


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.run(args)
    except (UsageError, PlayerSpecError) as err:
        print(f"aluette: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    # Run the imported module's main, so that subcommands registered into
    # aluette_env.cli by other modules are found (this file runs as __main__).
    from aluette_env.cli import main as _main
    sys.exit(_main())
