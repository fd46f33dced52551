"""The ``aluette`` command: ``eval`` and ``league`` here, and every subcommand
registered under the entry point group ``aluette.commands`` (``play``,
``train``, ``export``, ...): each entry is a :class:`aluette_env.commands.Command`
(the plugin API, documented there).

Bad input (unknown player, unreadable model, a bad number, a seat named
twice) ends with one line on stderr naming the problem and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import metadata

# The plugin API lives in aluette_env.commands; its names stay importable from here.
from ..commands import (  # noqa: F401 - re-exported
    EXIT_FAILED, EXIT_USAGE, MAX_EVAL_DEALS, MAX_SEED, Command, CommandFailed, UsageError,
    bounded_int, deal_pairs, positive_int, seed_int, writable_file,
)
from ..players import PlayerSpecError, load_player


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        raise UsageError(message)


class _HelpFormatter(argparse.HelpFormatter):
    """Adds each option's default to its help unless the help states it already."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text or action.required or action.default is argparse.SUPPRESS \
                or not action.option_strings:
            return text
        if isinstance(action, argparse._StoreTrueAction):
            return f"{text} (default: off)"
        if action.default is None or action.default == []:
            return text  # the help says what leaving it out means
        return f"{text} (default: %(default)s)"


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

    from ..evaluation.duplicate import WorkerDied, duplicate_eval, result_table

    seats = _seat_overrides(args.seat or [])
    _check_specs(args.team_a, args.team_b, *seats.values())
    try:
        res = duplicate_eval(args.team_a, args.team_b, deals=args.deals, seed=args.seed,
                             seats=seats, progress=not args.quiet, jobs=args.jobs)
    except WorkerDied as err:
        raise CommandFailed(str(err)) from None
    Console().print(result_table(res))
    if args.json:
        _write_json(args.json, res.to_json())
    return 0


def cmd_league(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from ..evaluation.league import league

    if len(args.players) < 2:
        raise UsageError("league needs at least two players")
    if len(set(args.players)) != len(args.players):
        raise UsageError("league: a player is named twice")
    _check_specs(*args.players)
    rows = league(args.players, deals=args.deals, seed=args.seed, progress=not args.quiet)
    n_pairs = len(rows) * (len(rows) - 1) // 2
    t = Table(title=f"League: {n_pairs} duplicate matches of {args.deals} deal pairs, "
                    f"seed {args.seed} (cells: row's points per deal vs column)")
    t.add_column("rank", justify="right")
    t.add_column("player")
    t.add_column("rating", justify="right")
    t.add_column("mu ± sigma", justify="right")
    for r in rows:
        t.add_column(r.player[-18:], justify="right")
    for k, r in enumerate(rows, 1):
        cells = ["—" if r.player == q.player else f"{r.points_per_deal[q.player]:+.3f}"
                 for q in rows]
        t.add_row(str(k), r.player, f"{r.rating:.2f}", f"{r.mu:.2f} ± {r.sigma:.2f}", *cells)
    Console().print(t)
    if args.json:
        _write_json(args.json, {"deals": args.deals, "seed": args.seed,
                                "players": [vars(r) for r in rows]})
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


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__
    parser = _Parser(prog="aluette", description="Aluette: evaluate, train and play AI players.",
                     epilog="Player specs: heuristic, random, ai (the shipped model), pimc, a "
                            "model.onnx or a training run folder; options follow one ':' "
                            "(random:seed=3). 'aluette COMMAND --help' for each command.",
                     formatter_class=_HelpFormatter)
    parser.add_argument("--version", action="version", version=f"aluette {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser,
                                metavar="COMMAND")

    def add(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, description=help, formatter_class=_HelpFormatter)

    p = add("eval", "duplicate evaluation of team A against team B")
    p.add_argument("--team-a", required=True, metavar="SPEC",
                   help="player spec for team A (required)")
    p.add_argument("--team-b", required=True, metavar="SPEC",
                   help="player spec for team B (required)")
    p.add_argument("--deals", type=deal_pairs, default=2000,
                   help=f"deal pairs, 1 to {MAX_EVAL_DEALS:,}")
    p.add_argument("--seed", type=seed_int, default=0, help=f"seed of the deals, 0 to {MAX_SEED}")
    p.add_argument("--seat", action="append", metavar="player_K=SPEC",
                   help="mixed teams: put SPEC in that chair (team A: player_0/2, B: player_1/3); "
                        "repeatable (default: teams as given)")
    p.add_argument("--json", metavar="PATH", type=writable_file,
                   help="also write the result as JSON (default: no file)")
    p.add_argument("--jobs", type=bounded_int(1, 256), default=1,
                   help="worker processes, 1 to 256: the same result for players that draw "
                        "nothing at random, in about 1/JOBS of the time (default: 1)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=cmd_eval)

    p = add("league", "round-robin duplicate evaluation with openskill ratings")
    p.add_argument("players", nargs="+", metavar="SPEC", help="two or more player specs")
    p.add_argument("--deals", type=deal_pairs, default=1000,
                   help=f"deal pairs per pairing, 1 to {MAX_EVAL_DEALS:,}")
    p.add_argument("--seed", type=seed_int, default=0, help=f"seed of the deals, 0 to {MAX_SEED}")
    p.add_argument("--json", metavar="PATH", type=writable_file,
                   help="also write the table as JSON (default: no file)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=cmd_league)

    for ep in sorted(metadata.entry_points(group="aluette.commands"), key=lambda e: e.name):
        command: Command = ep.load()
        p = add(ep.name, command.help)
        command.add_arguments(p)
        p.set_defaults(run=command.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        parser = build_parser()
        if not argv:  # the bare command: show what it can do
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        args = parser.parse_args(argv)
        return args.run(args)
    except (UsageError, PlayerSpecError) as err:
        print(f"aluette: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except CommandFailed as err:
        print(f"aluette: error: {err}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    # Run the imported module's main, so that the error classes the subcommands
    # raise are the ones it catches (this file itself runs as __main__).
    from aluette_env.apps.cli import main as _main
    sys.exit(_main())
