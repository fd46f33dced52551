"""``aluette review MATCH.json``: a match record's deals, trick by trick, with
the expert's review of the chosen seats' plays (:mod:`.coach`).

Each reviewed play shows the expert's preferred card and the estimated cost of
the card played, in points of the deal for the player's team, with the
estimate's uncertainty; ``MISTAKE`` marks a cost larger than that
uncertainty. The match summary gives each reviewed seat's decisions,
mistakes and mean cost per decision. The record is checked first
(:func:`aluette_env.records.read_record`): a bad one ends with one line naming
the field, exit code 2.
"""

from __future__ import annotations

import argparse

from ..game import AGENTS, NUM_SEATS, SEAT
from . import i18n
from .cli import Command, UsageError, seed_int
from .coach import MAX_WORLDS, REVIEW_WORLDS


def worlds(text: str) -> int:
    """An argparse type: a number of sampled worlds (the coach's effort)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer from 1 to {MAX_WORLDS}, "
                                         f"got {text!r}") from None
    if not 1 <= value <= MAX_WORLDS:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_WORLDS}, got {value}")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("record", metavar="MATCH.json", help="a match record (docs/RECORDS.md)")
    p.add_argument("--seats", default="human", metavar="WHO",
                   help="seats to review: human (the seats a person played; all if none "
                        "did), all, or names like player_0,player_2 (default: human)")
    p.add_argument("--worlds", type=worlds, default=REVIEW_WORLDS,
                   help="sampled worlds per decision: the review's effort")
    p.add_argument("--deal", type=int, default=None, metavar="N",
                   help="review only deal N (1 is the first; default: every deal)")
    p.add_argument("--seed", type=seed_int, default=0, help="seed of the sampled worlds")
    p.add_argument("--lang", choices=list(i18n.LANGUAGES), default=i18n.DEFAULT_LANGUAGE,
                   help="language of the card names")
    p.add_argument("--json", default=None, metavar="FILE",
                   help="also write the reviews and the summary as JSON to FILE (default: none)")


def chosen_seats(record: dict, text: str) -> list[int]:
    from ..records import human_seats
    if text == "human":
        return human_seats(record) or list(range(NUM_SEATS))
    if text == "all":
        return list(range(NUM_SEATS))
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in SEAT]
    if bad or not names:
        raise UsageError(f"--seats {text!r}: human, all, or names among {', '.join(AGENTS)}")
    return sorted({SEAT[n] for n in names})


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ..records import RecordError, read_record
    from .cli import _write_json
    from .coach import Coach, match_summary

    try:
        record = read_record(args.record)
    except RecordError as err:
        raise UsageError(str(err)) from None
    seats = chosen_seats(record, args.seats)
    n = len(record["deals"])
    if args.deal is not None and not 1 <= args.deal <= n:
        raise UsageError(f"--deal {args.deal}: the record holds deals 1-{n}")
    deals = range(n) if args.deal is None else [args.deal - 1]
    console = Console(highlight=False, soft_wrap=True)
    cards = i18n.card_names(args.lang)
    players = record["players"]
    coach = Coach(review_worlds=args.worlds, seed=args.seed)
    reviews = []
    for d in deals:
        review = coach.review_deal(record, d, seats)
        reviews.append(review)
        result = record["deals"][d]["result"]
        console.rule(f"Deal {d + 1} of {record['num_deals']} · dealer {result['dealer']}")
        for k, play in enumerate(review["plays"]):
            if k % 4 == 0:
                console.print(f"Trick {play['trick'] + 1}", style="bold")
            who = f"{AGENTS[play['seat']]} ({players[AGENTS[play['seat']]]})"
            line = f"  {who:<28} {cards[play['card']]}"
            r = play["review"]
            if r is not None:
                if r["best"] == play["card"] or (r["cost"] == 0 and r["stderr"] == 0):
                    line += "   = expert"
                else:
                    line += (f"   expert: {cards[r['best']]}, cost {r['cost']:+.2f} "
                             f"± {r['stderr']:.2f}")
                    if r["mistake"]:
                        line += "  MISTAKE"
            console.print(line, style="red" if r is not None and r["mistake"] else None)
        points = result["points"]
        winner = result["winner"] or "nobody"
        console.print(f"Deal won by {winner}{' (Mordienne)' if result['mordienne'] else ''}: "
                      f"team_0 {points['team_0']}, team_1 {points['team_1']}")
    summary = match_summary(reviews)
    console.rule("Review")
    for seat, s in summary["seats"].items():
        agent = AGENTS[int(seat)]
        console.print(f"  {agent} ({players[agent]}): {s['decisions']} decisions, "
                      f"{s['mistakes']} mistakes, mean cost {s['mean_cost']:+.3f} "
                      f"points per decision")
    res = record["result"]["points"]
    console.print(f"Match: team_0 {res['team_0']}, team_1 {res['team_1']} "
                  f"(expert: {args.worlds} worlds per decision)")
    if args.json:
        _write_json(args.json, {"reviews": reviews, "summary": summary})
    return 0


#: Entry point ``aluette.commands: review``.
COMMAND = Command("review a match record with the expert: each play's cost and the mistakes",
                  add_arguments, run)

