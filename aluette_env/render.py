"""The table as text, as a seat sees it: the env's ``render()`` (ansi/human).

Shows the match score, dealer, trick counts in first-to-reach order, the
Mordienne run, the last trick, the trick in progress and only the hands it is
asked for (a seat's render shows no other hand). With signs (S1-S5) it shows
the signs of this trick that the seats of ``show_hands`` know of, as the
game's variant says (:meth:`~aluette_env.game.Variant.knows_sign`), and no other.
Standard library only; the facts come from :mod:`aluette_env.game`.
"""

from __future__ import annotations

from collections.abc import Sequence

from .game import (
    AGENTS, ALUETTE_SIGNS_V0, NUM_SEATS, NUM_TRICKS, SEAT, SIGNS, STRENGTH, Deal, Match, Trick,
    Variant, card_name, mordienne_chance, reach_order, seat_at, sign_name,
)


def hand_order(hand: Sequence[int]) -> list[int]:
    """A hand as every display shows it (this text, the terminal and the web
    game): strongest first by the rank order (R7-R8), then by card id."""
    return sorted(hand, key=lambda c: (-STRENGTH[c], c))


def render_table(deal: Deal | None, match: Match | None, last_trick: Trick | None = None,
                 show_hands: Sequence[str] = (), lang: str = "en",
                 variant: Variant = ALUETTE_SIGNS_V0) -> str:
    """The table: match score, dealer, trick counts and who reached them first,
    the last and the current trick, and the hands of ``show_hands`` (agents);
    with signs, the signs they know of in ``variant``."""
    if match is None or deal is None:
        return "(no match: call reset())"
    lines = []
    deal_no = min(match.deal_index + 1, match.num_deals) if not match.over else match.num_deals
    status = "match over" if match.over else f"trick {deal.trick_number}/{NUM_TRICKS}"
    lines.append(f"Aluette · deal {deal_no}/{match.num_deals} · dealer {AGENTS[deal.dealer]} "
                 f"· {status}")
    lines.append(f"Match points: team_0 (player_0+player_2) {match.points[0]} — "
                 f"team_1 (player_1+player_3) {match.points[1]}")
    order = reach_order(deal.counts, deal.reached)
    # R16, as the games for people show it: only a run that can still score.
    chance = mordienne_chance(deal.counts, deal.reached, deal.in_run, len(deal.tricks))
    lines.append("Tricks won (ties go to whoever reached the number first):")
    for s in range(NUM_SEATS):
        mark = " (ahead in the deal)" if order and s == order[0] else ""
        if s == chance:
            mark += (" *Mordienne: 2 points*" if deal.done else
                     " *Mordienne run: 2 points if it takes every trick left*")
        lines.append(f"  {AGENTS[s]}: {deal.counts[s]} trick(s){mark}")
    tw = "".join("X" if w < 0 else str(w) for w in deal.trick_winners)
    lines.append(f"Trick winners so far: {tw or '-'}   (digit = player, X = spoiled)")
    if last_trick is not None and last_trick.index == deal.trick_index - 1:
        t = last_trick
        who = "spoiled" if t.winner < 0 else f"won by {AGENTS[t.winner]}"
        played = ", ".join(f"{AGENTS[seat_at(t.leader, k)]} {card_name(c, lang)}"
                           for k, c in enumerate(t.cards))
        lines.append(f"Last trick: {played} — {who}")
    if not deal.done:
        lines.append(f"Trick {deal.trick_index + 1}, led by {AGENTS[deal.leader]}:")
        if not deal.trick_cards:
            lines.append("  (no card yet)")
        for k, c in enumerate(deal.trick_cards):
            lines.append(f"  {AGENTS[seat_at(deal.leader, k)]}: {card_name(c, lang)}")
        lines.append(f"To {'sign' if deal.signing else 'play'}: {AGENTS[deal.to_act]}")
        lines += _signs_seen(deal, show_hands, variant)
    for a in show_hands:
        hand = hand_order(deal.hand(SEAT[a]))
        lines.append(f"{a}'s hand: " + ", ".join(f"[{c}] {card_name(c, lang)}" for c in hand))
    return "\n".join(lines)


def _signs_seen(deal: Deal, show_hands: Sequence[str], variant: Variant) -> list[str]:
    """With signs: the signs made in the trick in progress that one of the seats
    of ``show_hands`` knows of (S5; silence only the signer's team), one line
    each; nothing for a spectator."""
    g = deal.state
    if not g.signs_on or not show_hands:
        return []
    watchers = [SEAT[a] for a in show_hands]
    out = []
    t = deal.trick_index
    for k in range(NUM_SEATS):
        seat = seat_at(deal.leader, k)
        sign = deal.sign_of(t, seat)
        if sign < 0:
            break
        bits = g.caught[t * NUM_SEATS + seat]
        if any(variant.knows_sign(w, seat, sign, bits) for w in watchers):
            what = "no sign" if sign == 0 else f"{SIGNS[sign - 1][1]}: {sign_name(sign)}"
            out.append(f"  sign of {AGENTS[seat]}: {what}")
    return out
