"""``aluette review MATCH.json``: a match record's deals, trick by trick, with
the expert's review of the chosen seats' plays (:mod:`.coach`).

Each reviewed play shows the expert's preferred card and the estimated cost of
the card played, in points of the deal for the player's team, with the
estimate's uncertainty; ``MISTAKE`` marks a cost larger than that
uncertainty. The match summary gives each reviewed seat's decisions,
mistakes and mean cost per decision. The record is checked first
(:func:`aluette_env.records.read_record`): a bad one ends with one line naming
the field, exit code 2. ``--lang`` words it all in one of the apps'
languages: the review lines are the terminal game's (``r`` in ``aluette
play``), from the same catalog (:mod:`.i18n`); the record's own names (seats
``player_0``…, teams ``team_0``, ``team_1``, player specs) stay as written.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from ..game import AGENTS, NUM_SEATS, SEAT
from . import i18n
from ..commands import Command, UsageError, bounded_int, printable, seed_int, writable_file
from ..records import MAX_DEALS
from .coach import MAX_WORLDS, REVIEW_WORLDS
from .i18n import translate
from .narrator import Narrator


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


def review_text(lang: str, review: dict[str, Any], card: int,
                name: Callable[[int], str]) -> str:
    """The coach's verdict on one reviewed play of ``card`` (``name``: a card's
    name in ``lang``): the expert's card, or the cost of the card played."""
    if review["best"] == card or (review["cost"] == 0 and review["stderr"] == 0):
        return translate(lang, "= the expert's card")
    cost, stderr = format(review["cost"], "+.2f"), format(review["stderr"], ".2f")
    text = translate(lang, "expert: {card}, cost {cost} ± {stderr}", card=name(review["best"]),
                     cost=cost, stderr=stderr)
    return text + "  " + translate(lang, "MISTAKE") if review["mistake"] else text


def summary_text(lang: str, who: str, seat: dict[str, Any]) -> str:
    """One seat's line of a match summary (:func:`.coach.match_summary`)."""
    return translate(lang, "{seat} — decisions: {decisions}, mistakes: {mistakes}, mean cost "
                     "per decision: {cost}", seat=who, decisions=seat["decisions"],
                     mistakes=seat["mistakes"], cost=format(seat["mean_cost"], "+.3f"))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("record", metavar="MATCH.json", help="a match record (docs/RECORDS.md)")
    p.add_argument("--seats", default="human", metavar="WHO",
                   help="seats to review: human (the seats a person played; all if none "
                        "did), all, or names like player_0,player_2 (default: human)")
    p.add_argument("--worlds", type=worlds, default=REVIEW_WORLDS,
                   help="sampled worlds per decision: the review's effort")
    p.add_argument("--deal", type=bounded_int(1, MAX_DEALS), default=None, metavar="N",
                   help="review only deal N (1 is the first; default: every deal)")
    p.add_argument("--seed", type=seed_int, default=0, help="seed of the sampled worlds")
    p.add_argument("--lang", choices=list(i18n.LANGUAGES), default=i18n.DEFAULT_LANGUAGE,
                   help="language of everything shown")
    p.add_argument("--json", default=None, metavar="FILE", type=writable_file,
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

    from rich.text import Text

    from ..commands import check_not_input, write_json
    from ..records import RecordError, read_record
    from .coach import Coach, match_summary

    if args.json:  # checked before any work: never the record read, never a folder
        check_not_input(args.json, "--json", [args.record])
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
    lang = args.lang
    words = Narrator(lang)
    cards = i18n.card_names(lang)
    players = {agent: printable(spec) for agent, spec in record["players"].items()}
    coach = Coach(review_worlds=args.worlds, seed=args.seed)
    reviews = []
    for d in deals:
        review = coach.review_deal(record, d, seats)
        reviews.append(review)
        result = record["deals"][d]["result"]
        console.rule(Text(translate(lang, "Deal {n} of {total} · dealer {seat}", n=d + 1,
                                    total=record["num_deals"], seat=result["dealer"])))
        for k, play in enumerate(review["plays"]):
            if k == 0 or play["trick"] != review["plays"][k - 1]["trick"]:
                console.print(translate(lang, "Trick {n}", n=play["trick"] + 1), style="bold",
                              markup=False)
            who = f"{AGENTS[play['seat']]} ({players[AGENTS[play['seat']]]})"
            line = f"  {who:<28} {cards[play['card']]}"
            r = play["review"]
            if r is not None:
                line += "   " + review_text(lang, r, play["card"], cards.__getitem__)
            console.print(line, style="red" if r is not None and r["mistake"] else None,
                          markup=False)
        console.print(words.deal_result(result, result["winner"] or ""), markup=False)
    summary = match_summary(reviews)
    console.rule(Text(translate(lang, "Review by the expert")))
    for seat, s in summary["seats"].items():
        agent = AGENTS[int(seat)]
        console.print("  " + summary_text(lang, f"{agent} ({players[agent]})", s), markup=False)
    res = record["result"]["points"]
    console.print(translate(lang, "Match: team_0 {team_0}, team_1 {team_1} (expert: {worlds} "
                            "sampled deals per decision)", team_0=res["team_0"],
                            team_1=res["team_1"], worlds=args.worlds), markup=False)
    if args.json:
        write_json(args.json, {"reviews": reviews, "summary": summary})
    return 0


#: Entry point ``aluette.commands: review``.
COMMAND = Command("review a match record with the expert: each play's cost and the mistakes",
                  add_arguments, run)

