"""What a seat of a game for people may know: :func:`game_view` builds a
:class:`~.session.GameSession`'s view for a seat (its hand and what it may
play, hand sizes, cards played, tricks with who took them and why, the tally,
the scores; public information only for a spectator; with signs, the signs
the seat saw, :func:`sign_seen`); :func:`events_for` gives a seat the events
of a move it is told of (:func:`tells`), and :func:`seen_from` counts every
seat in a view or an event from the reader, who is always seat 0, south. The
views' parts that the game's events carry too are here (:func:`who`,
:func:`tally`, :func:`trick_view`). Every fact comes from the game core;
nothing here is a rule.
"""

from __future__ import annotations

from typing import Any

from aluette_env.game import (
    NUM_SEATS, NUM_SIGNS, NUM_TRICKS, STRENGTH, Deal, Variant, first_to_reach, mordienne_chance,
    other_team, reach_order, relative_seat, seat_at, team_of, trick_winner,
)
from aluette_env.render import hand_order

def game_view(game: Any, seat: int | None,
              finished: tuple[dict[str, Any], dict[str, Any] | None] | None = None
              ) -> dict[str, Any]:
    """Everything ``seat`` of ``game`` (a :class:`~.session.GameSession`, which
    imports this module) may know now, seats counted from the table
    (:meth:`~.session.GameSession.view` turns them with :func:`seen_from`)."""
    deal, match = game.deal, game.match
    current, last_trick, summary = None, game.last_trick, game.summary
    trick_number = deal.trick_number
    if finished is not None:  # on the table with its winner; the deal's end not told yet
        trick, last_trick = finished
        current, summary = {**trick, "winning": trick["winner"]}, None
        trick_number = trick["index"] + 1
    elif deal.trick_cards:
        cards = list(deal.trick_cards)
        current = {
            "leader": deal.leader,
            "plays": [{"seat": seat_at(deal.leader, k), "card": c}
                      for k, c in enumerate(cards)],
            # R10-R11 on the cards so far: the seat ahead, or None when they tie.
            "winning": who(trick_winner(cards, deal.leader)),
        }
    your_turn = not deal.done and deal.to_act == seat and seat in game.people
    return {
        "version": game.version,
        "match": _match_view(game),
        "deal": {
            "number": match.deal_index + (0 if deal.done else 1),
            "of": match.num_deals,
            "dealer": deal.dealer,
            "trick": trick_number,
            "tricks": NUM_TRICKS,
            "leader": deal.leader,
            "to_act": None if deal.done else deal.to_act,
            "done": deal.done,
        },
        "hand": hand_order(deal.hands[seat]) if seat is not None else [],
        "hand_sizes": [len(hand) for hand in deal.hands],
        "legal": sorted(deal.legal_cards()) if your_turn else [],
        "your_turn": your_turn,
        "in_progress": game.in_progress,
        "current_trick": current,
        "last_trick": last_trick,
        "tricks_played": [trick_view(t) for t in deal.tricks],
        **tally(deal),
        "summary": summary,
        "players": {str(s): game.specs[s] for s in sorted(game.specs)},
        "people": {str(s): name for s, name in sorted(game.people.items())},
        "host": game.host,
        # What the reader may do, so that their page offers nothing else.
        "can_start_match": game.may_start_match(seat),
        "away": sorted(game.away),
        "spectator": seat is None,
        **(_signs_view(game, seat, your_turn) if game.signs else {}),
    }


def sign_seen(variant: Variant, seat: int | None, signer: int, sign: int, catches: int) -> bool:
    """S5: whether ``seat`` knows the sign ``signer`` made (``sign``, 0: none;
    ``catches``: the deal's catch bits of it), as ``variant`` says
    (:meth:`~aluette_env.game.Variant.knows_sign`). A spectator sees no sign."""
    return seat is not None and variant.knows_sign(seat, signer, sign, catches)


def tells(variant: Variant, event: dict[str, Any], seat: int | None) -> bool:
    """Whether ``seat`` is told of ``event`` of a game of ``variant``: of a sign,
    only if it knows of it (S5, :func:`sign_seen`)."""
    return event["type"] != "sign" or sign_seen(variant, seat, event["seat"], event["sign"],
                                                 event["catches"])


def events_for(variant: Variant, events: list[dict[str, Any]],
               seat: int | None) -> list[dict[str, Any]]:
    """The public ``events`` of a move as ``seat`` sees them (:func:`seen_from`):
    of the signs, only those it saw (:func:`tells`), with ``caught`` True for
    an opponent's it caught, and never who caught a sign."""
    return [seen_from(_sign_for(e, seat), seat or 0) for e in events if tells(variant, e, seat)]


def _sign_for(event: dict[str, Any], seat: int | None) -> dict[str, Any]:
    if event["type"] != "sign":
        return event
    caught = seat is not None and team_of(seat) != team_of(event["seat"])
    return {"type": "sign", "seat": event["seat"], "sign": event["sign"], "caught": caught}


def _signs_view(game: Any, seat: int | None, your_turn: bool) -> dict[str, Any]:
    """With signs: the catch chance, whether the seat to act is making its sign,
    the signs the reader may make now (S3: any, whatever the hand) and every
    sign of the deal it saw, ``caught`` for an opponent's (never who caught its
    own), in the order they were made: each trick's from its leader (S1, R9),
    so a sign made in answer to another comes after it."""
    deal = game.deal
    seen = []
    for t in range(NUM_TRICKS):
        leader = deal.tricks[t].leader if t < len(deal.tricks) else deal.leader
        for s in (seat_at(leader, k) for k in range(NUM_SEATS)):
            sign = deal.sign_of(t, s)
            if sign >= 0 and sign_seen(game.variant, seat, s, sign,
                                       int(deal.state.caught[t * NUM_SEATS + s])):
                seen.append({"trick": t, "seat": s, "sign": sign,
                             "caught": team_of(s) != team_of(seat)})
    signing = not deal.done and deal.signing
    return {"signs_on": True, "catch": game.catch, "signing": signing,
            "sign_choices": list(range(NUM_SIGNS + 1)) if your_turn and signing else [],
            "signs": seen}


#: Fields that hold a seat, a list of seats, a list by seat or a list by team
#: (the views and events above); :func:`seen_from` turns them.
_SEAT = {"seat", "leader", "winning", "next", "dealer", "to_act", "next_leader", "leading",
         "winner", "host", "started_by"}
_SEATS = {"tied_with", "trick_winners", "reach_order", "away"}
_BY_SEAT = {"counts", "reached", "trick_counts", "hand_sizes"}
_BY_TEAM = {"points", "team_points", "match_points"}
_KEYED_BY_SEAT = {"players", "people"}


def seen_from(data: Any, me: int) -> Any:
    """``data`` (a view or an event) with every seat counted from ``me``: the
    viewer is seat 0 and their partner seat 2, and their team is team 0.
    The match's ``winner`` is a team; every other ``winner`` a seat."""
    if me == 0:
        return data

    def seat(s):
        return None if s is None else relative_seat(s, me)

    def team(t):
        return None if t is None else (t if team_of(me) == 0 else other_team(t))

    def turn(value: Any, key: str | None, in_match: bool) -> Any:
        if isinstance(value, dict):
            out = {}
            for k, v in value.items():
                if k in _KEYED_BY_SEAT and isinstance(v, dict):
                    out[k] = {str(seat(int(s))): x for s, x in sorted(
                        v.items(), key=lambda item: seat(int(item[0])))}
                elif k == "match":
                    out[k] = turn(v, None, True)
                elif in_match and k == "winner":
                    out[k] = team(v)
                else:
                    out[k] = turn(v, k, in_match and k != "history")
            return out
        if isinstance(value, list):
            if key in _SEATS:
                return [seat(s) for s in value]
            if key in _BY_SEAT:
                return [value[seat_at(me, s)] for s in range(NUM_SEATS)]
            if key in _BY_TEAM:
                return value[::-1] if team_of(me) == 1 else list(value)
            return [turn(v, None, False) for v in value]
        if key in _SEAT and isinstance(value, int) and not isinstance(value, bool):
            return seat(value)
        return value

    return turn(data, None, False)


def _match_view(game: Any) -> dict[str, Any]:
    match = game.match
    return {
        "number": game.match_number,
        "points": list(match.points),
        "over": match.over,
        "winner": who(match.winner()) if match.over else None,  # team 0 (you) / 1 / None draw
        "started_by": game.started_by,
        "history": [
            {"deal": r.deal, "winner": who(r.score.winner), "points": list(r.team_points),
             "mordienne": r.score.mordienne}
            for r in match.history
        ],
    }


def who(seat: int) -> int | None:
    """A seat (or team) for the views: None for nobody (the core's NOBODY)."""
    return None if seat < 0 else seat


def tally(deal: Deal) -> dict[str, Any]:
    """The deal's tally as the core keeps it (R13-R16), for the games."""
    chance = mordienne_chance(deal.counts, deal.reached, deal.in_run, len(deal.tricks))
    return {
        "counts": list(deal.counts),
        "reached": [who(r) for r in deal.reached],
        "reach_order": reach_order(deal.counts, deal.reached),  # R13-R14, best first
        "leading": who(first_to_reach(deal.counts, deal.reached)),
        # R16: the seat whose run can still score Mordienne (or scored it), if any.
        "mordienne": None if chance < 0 else {
            "seat": chance, "length": deal.counts[chance], "done": deal.done},
    }


def trick_view(trick) -> dict[str, Any]:
    """A finished trick for the views and events: its plays, who took it (None:
    nobody, R11) and which card took it and why (:func:`_why`)."""
    plays = [{"seat": seat_at(trick.leader, k), "card": c}
             for k, c in enumerate(trick.cards)]
    winner = who(trick.winner)
    return {"index": trick.index, "leader": trick.leader, "plays": plays,
            "winner": winner, "why": _why(plays, winner)}


def _why(plays: list[dict[str, int]], winner: int | None) -> dict[str, Any]:
    """Which card took the trick and the strongest card it beat, or the cards
    that tied for highest (R10-R11 decided it; this only names the cards)."""
    top = max(STRENGTH[p["card"]] for p in plays)
    if winner is None:
        return {"tied": [p["card"] for p in plays if STRENGTH[p["card"]] == top]}
    card = next(p["card"] for p in plays if p["seat"] == winner)
    others = [p["card"] for p in plays if p["seat"] != winner]
    beaten = max(others, key=lambda c: STRENGTH[c]) if others else None
    return {"card": card, "beats": beaten}
