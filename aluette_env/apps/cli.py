"""The ``eval`` and ``ratings`` subcommands of ``aluette``: duplicate evaluation
(one opponent with ``--team-b``, the panel of :mod:`aluette_env.evaluation.panel`
with ``--panel``, the partner panel of :mod:`aluette_env.evaluation.partners`
with ``--partners``) and a round robin rated with openskill (``ratings``;
``league``, its old name, still runs it). They are :class:`aluette_env.commands.Command`
objects registered under the entry point group ``aluette.commands``, like every
other subcommand (``play``, ``train``, ``export``, ...); the command itself, its
parser and its one-line errors, is :mod:`aluette_env.commands`.

Bad input (unknown player, unreadable model, a bad number, a seat named
twice, an output that is an input) ends with one line on stderr naming the
problem and exit code 2.
"""

from __future__ import annotations

import argparse

from ..commands import (
    MAX_EVAL_DEALS, MAX_SEED, Command, CommandFailed, UsageError, bounded_int, check_not_input,
    deal_pairs, printable, probability, seed_int, writable_file, write_json,
)
from ..game import ALUETTE_SIGNS_V0, ALUETTE_V1, DEFAULT_CATCH, Variant
from ..players import PlayerSpecError, load_player, split_specs


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


def _check_specs(*named: tuple[str, str], variant: Variant = ALUETTE_V1) -> None:
    """Load each ``(option, spec)`` once, before any work: a bad spec is refused in one
    line that names the option it came from."""
    for option, spec in named:
        try:
            player = load_player(spec)
        except PlayerSpecError as err:
            raise UsageError(f"{option}: {err}") from None
        if not variant.signs and getattr(player, "signs_only", False):
            raise UsageError(f"{spec}: a policy of the signs variant plays only at a table "
                             f"with signs: add --signs")


def _member_deals(items: list[str]) -> dict[str, int]:
    """``--member-deals MEMBER=PAIRS`` items as a dict (a member's spec may hold '=')."""
    pairs: dict[str, int] = {}
    for item in items:
        member, sep, text = item.rpartition("=")
        if not sep or not member:
            raise UsageError(f"--member-deals {item!r}: expected MEMBER=PAIRS, e.g. "
                             f"pimc:worlds=64=200")
        if member in pairs:
            raise UsageError(f"--member-deals: {member} is named twice")
        try:
            pairs[member] = deal_pairs(text)
        except argparse.ArgumentTypeError as err:
            raise UsageError(f"--member-deals {item}: {err}") from None
    return pairs


def _panel_evaluation(args: argparse.Namespace):
    """``eval --panel``: its input checked before any work; (the evaluation to run,
    its table)."""
    from ..evaluation.panel import members_itself, panel_eval, panel_table, plan_panel

    if args.seat:
        raise UsageError("--seat: not with --panel (the panel's members are team B)")
    members = None if args.panel_members is None else \
        [m.strip() for m in args.panel_members.split(",") if m.strip()]
    try:
        plan_panel(members)
    except ValueError as err:
        raise UsageError(f"--panel-members: {err}") from None
    deals_for = _member_deals(args.member_deals or [])
    try:
        plan = plan_panel(members, args.deals, deals_for)
    except ValueError as err:
        raise UsageError(f"--member-deals: {err}") from None
    if args.json:
        check_not_input(args.json, "--json", [args.team_a])
    _check_specs(("--team-a", args.team_a))
    for option, pairs in (("--panel-members", None), ("--member-deals", deals_for)):
        try:  # the player itself is left out: not the whole panel, no pairs of its own
            members_itself(args.team_a, plan, pairs)
        except ValueError as err:
            raise UsageError(f"{option}: {err}") from None
    return (lambda: panel_eval(args.team_a, members, deals=args.deals, seed=args.seed,
                               deals_for=deals_for, jobs=args.jobs, progress=not args.quiet),
            panel_table)


def _partner_evaluation(args: argparse.Namespace):
    """``eval --partners``: its input checked before any work; (the evaluation to run,
    its table)."""
    from ..evaluation.partners import partner_eval, partner_table, plan_partners

    if args.team_b is None:
        raise UsageError("--partners: needs --team-b, the opposing team (e.g. --team-b ai), "
                         "not --panel")
    for option, value in (("--panel-members", args.panel_members),
                          ("--member-deals", args.member_deals)):
        if value is not None:
            raise UsageError(f"{option}: only with --panel")
    if args.seat:
        raise UsageError("--seat: not with --partners (each partner sits at player_0, team A "
                         "at player_2)")
    partners = None if args.partners == _DEFAULT_PARTNERS else split_specs(args.partners)
    try:
        partners = plan_partners(partners, args.reference, args.team_a)
    except ValueError as err:
        raise UsageError(f"--partners: {err}") from None
    reference = args.reference
    if args.json:
        check_not_input(args.json, "--json", [args.team_a, args.team_b, *partners, reference])
    _check_specs(("--team-a", args.team_a), ("--team-b", args.team_b),
                 *(("--partners", p) for p in partners),
                 *([] if reference == "itself" else [("--reference", reference)]))
    return (lambda: partner_eval(args.team_a, partners, opponent=args.team_b,
                                 reference=reference, deals=args.deals, seed=args.seed,
                                 jobs=args.jobs, progress=not args.quiet),
            partner_table)


#: ``--partners`` given without a list: the default partner panel.
_DEFAULT_PARTNERS = "default"


def cmd_eval(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ..evaluation.duplicate import WorkerDied, duplicate_eval, result_table

    if args.catch is not None and not args.signs:
        raise UsageError("--catch: only with --signs")
    variant = ALUETTE_SIGNS_V0.with_catch(DEFAULT_CATCH if args.catch is None else args.catch) \
        if args.signs else ALUETTE_V1
    if args.reference is not None and args.partners is None:
        raise UsageError("--reference: only with --partners")
    if args.partners is not None:
        if args.signs:
            raise UsageError("--signs: not with --partners (the partner panel plays the "
                             "default game)")
        if args.reference is None:
            args.reference = "itself"
        evaluate, table = _partner_evaluation(args)
    elif args.panel:
        if args.signs:
            raise UsageError("--signs: not with --panel (the panel plays the default game)")
        evaluate, table = _panel_evaluation(args)
    else:
        for option, value in (("--panel-members", args.panel_members),
                              ("--member-deals", args.member_deals)):
            if value is not None:
                raise UsageError(f"{option}: only with --panel")
        seats = _seat_overrides(args.seat or [])
        if args.json:
            check_not_input(args.json, "--json", [args.team_a, args.team_b, *seats.values()])
        _check_specs(("--team-a", args.team_a), ("--team-b", args.team_b),
                     *((f"--seat {seat}=", spec) for seat, spec in seats.items()),
                     variant=variant)
        evaluate, table = (lambda: duplicate_eval(
            args.team_a, args.team_b, deals=args.deals, seed=args.seed, seats=seats,
            progress=not args.quiet, jobs=args.jobs, variant=variant)), result_table
    try:
        res = evaluate()
    except WorkerDied as err:
        raise CommandFailed(str(err)) from None
    Console().print(table(res))
    if args.json:
        write_json(args.json, res.to_json())
    return 0


def cmd_ratings(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from ..evaluation.ratings import ratings

    if len(args.players) < 2:
        raise UsageError("ratings needs at least two players")
    if len(set(args.players)) != len(args.players):
        raise UsageError("ratings: a player is named twice")
    if args.json:
        check_not_input(args.json, "--json", args.players)
    _check_specs(*(("PLAYER", p) for p in args.players))
    rows = ratings(args.players, deals=args.deals, seed=args.seed, progress=not args.quiet)
    n_pairs = len(rows) * (len(rows) - 1) // 2
    t = Table(title=Text(f"Ratings: {n_pairs} duplicate matches of {args.deals} deal pairs, "
                    f"seed {args.seed} (cells: row's points per deal vs column)"))
    t.add_column("rank", justify="right")
    t.add_column("player")
    t.add_column("rating", justify="right")
    t.add_column("mu ± sigma", justify="right")
    for r in rows:
        t.add_column(Text(printable(r.player[-18:])), justify="right")
    for k, r in enumerate(rows, 1):
        cells = ["—" if r.player == q.player else f"{r.points_per_deal[q.player]:+.3f}"
                 for q in rows]
        t.add_row(str(k), Text(printable(r.player)), f"{r.rating:.2f}",
                  f"{r.mu:.2f} ± {r.sigma:.2f}", *cells)
    Console().print(t)
    if args.json:
        write_json(args.json, {"deals": args.deals, "seed": args.seed,
                                "players": [vars(r) for r in rows]})
    return 0


def eval_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--team-a", required=True, metavar="SPEC",
                   help="player spec for team A (required)")
    team_b = p.add_mutually_exclusive_group(required=True)
    team_b.add_argument("--team-b", metavar="SPEC",
                        help="player spec for team B (this or --panel is required)")
    team_b.add_argument("--panel", action="store_true",
                        help="team A against each member of the panel (aluette_env.evaluation."
                             "PANEL: the rule-based players, four shipped policies, a search "
                             "player) on the same deals, with the minimum and the mean (this or "
                             "--team-b is required)")
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
    p.add_argument("--panel-members", metavar="SPEC,SPEC,...",
                   help="with --panel: these members only, comma-separated (default: the "
                        "whole panel)")
    p.add_argument("--member-deals", action="append", metavar="MEMBER=PAIRS",
                   help="with --panel: at most PAIRS deal pairs against MEMBER (a search player "
                        "is slow), e.g. pimc:worlds=64=200; repeatable (default: --deals for "
                        "every member)")
    p.add_argument("--partners", nargs="?", const=_DEFAULT_PARTNERS, metavar="SPEC,SPEC,...",
                   help="a partner panel: team A at player_2 beside each of these partners at "
                        "player_0 (comma-separated; without a list the default panel, "
                        "aluette_env.evaluation.PARTNERS) against --team-b, with each "
                        "partner's lift over --reference and how the team's tricks split "
                        "(default: no partner panel)")
    p.add_argument("--reference", metavar="SPEC",
                   help="with --partners: the partner the lift is measured over: 'itself' (each "
                        "partner beside a copy of itself) or a player spec, e.g. ai "
                        "(default: itself)")
    p.add_argument("--signs", action="store_true",
                   help="play the signs variant (docs/RULES.md S1-S5), the same catches on "
                        "both tables; players that do not sign sit silent (default: no signs)")
    p.add_argument("--catch", type=probability, metavar="P",
                   help="with --signs: the chance that an opponent catches a sign, 0 to 1 "
                        "(default: 0.25)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def ratings_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("players", nargs="+", metavar="SPEC", help="two or more player specs")
    p.add_argument("--deals", type=deal_pairs, default=1000,
                   help=f"deal pairs per pairing, 1 to {MAX_EVAL_DEALS:,}")
    p.add_argument("--seed", type=seed_int, default=0, help=f"seed of the deals, 0 to {MAX_SEED}")
    p.add_argument("--json", metavar="PATH", type=writable_file,
                   help="also write the table as JSON (default: no file)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


#: Entry points ``aluette.commands: eval`` and ``ratings`` (and ``league``, the old
#: name of ``ratings``, which still runs it).
EVAL = Command("duplicate evaluation of team A against team B", eval_arguments, cmd_eval)
RATINGS = Command("round-robin duplicate evaluation with openskill ratings", ratings_arguments,
                  cmd_ratings)
LEAGUE = Command(RATINGS.help, ratings_arguments, cmd_ratings, old_name_of="ratings")
