"""The rules of Aluette (docs/RULES.md R1-R16) as plain Python: dealing,
tricks, deal scoring and the five-deal match.

No numpy, gymnasium or torch here: the PettingZoo environment, the batched
engine, the players, the search, the games and training all build on these
functions, so there is one statement of each rule (docs/RULES.md lists where
each one lives and who calls it). Seats are ints 0-3 (see :mod:`.seats`).

The tally of a deal in progress is three 4-tuples: ``counts`` (tricks won per
seat), ``reached`` (trick index of each seat's latest win, -1 for none: the
R14 tie-break) and ``in_run`` (the seat's wins are one run ending with the
last finished trick: it can still make Mordienne, R16). :func:`after_trick`
updates them, :func:`leading_seat` and :func:`deal_value` read them.

**One statement, many speeds.** The rules that every part needs at speed
(:func:`card_beats` and :func:`trick_winner_of_levels` R10-R11,
:func:`record_trick` R13/R14/R16, :func:`is_ahead` / :func:`first_to_reach`
R13-R14, :func:`deal_points` R13-R16, :func:`dealer_of` R6) are written as
small functions over ints and indexable sequences, in the subset of Python
that numba compiles: :mod:`aluette_env._jit` registers these same functions
with numba, and the batched engine's kernels, the solver and the expert call
them from compiled code. The tuple-based functions below them
(:func:`trick_winner`, :func:`after_trick`, :func:`leading_seat`,
:func:`deal_value`...) are their readable forms for Python callers.

The hot path (``Deal.play``) is written for speed: an env step is one call.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .cards import NUM_CARDS, STRENGTH, check_card, describe
from .seats import AGENTS, NUM_SEATS, TEAMS, next_seat, team_of

HAND_SIZE = 9
NUM_TRICKS = 9
NUM_UNUSED = NUM_CARDS - NUM_SEATS * HAND_SIZE  # 12, never seen by anyone (R5)
DEFAULT_NUM_DEALS = 5  # R2
PACKET = 3  # R5: three rounds of packets of three


# --------------------------------------------------------------------------- dealing


def deal_order(dealer: int) -> tuple[int, ...]:
    """R5: which seat receives each of the first 36 cards of the shuffled deck:
    packets of three, clockwise from the dealer's left, three rounds."""
    order = []
    for _round in range(HAND_SIZE // PACKET):
        for k in range(1, NUM_SEATS + 1):
            order.extend([(dealer + k) % NUM_SEATS] * PACKET)
    return tuple(order)


def deal_cards(deck: Sequence[int], dealer: int) -> tuple[list[list[int]], list[int]]:
    """Deal a shuffled deck (a permutation of 0-47) as R5: returns the four hands
    (seat order, in the order received) and the twelve unused cards."""
    deck = list(deck)
    if sorted(deck) != list(range(NUM_CARDS)):
        raise ValueError("deck must be a permutation of the 48 card ids 0-47")
    hands: list[list[int]] = [[] for _ in range(NUM_SEATS)]
    for card, seat in zip(deck, deal_order(dealer)):
        hands[seat].append(card)
    return hands, deck[NUM_SEATS * HAND_SIZE:]


def check_hands(hands: Sequence[Sequence[int]]) -> list[list[int]]:
    """Validate four hands of nine distinct card ids; ValueError names the problem."""
    if isinstance(hands, (str, bytes)) or len(hands) != NUM_SEATS:
        raise ValueError(f"a deal is 4 hands (player_0..player_3), got {hands!r}")
    seen: dict[int, int] = {}
    out = []
    for seat, hand in enumerate(hands):
        hand = list(hand)
        if len(hand) != HAND_SIZE:
            raise ValueError(f"player_{seat}'s hand has {len(hand)} cards; a hand is {HAND_SIZE}")
        for i, card in enumerate(hand):
            try:
                card = hand[i] = check_card(card)
            except ValueError as err:
                raise ValueError(f"player_{seat}'s hand: {err}") from None
            if card in seen:
                raise ValueError(f"card {describe(card)} is dealt twice "
                                 f"(player_{seen[card]} and player_{seat})")
            seen[card] = seat
        out.append(hand)
    return out


# --------------------------------------------------------------------------- the rules at speed
# Ints and indexable sequences only (lists, tuples, numpy arrays): numba compiles
# these very functions for the engine, the solver and the expert (see _jit).
# NO_SEAT stands for "nobody": a spoiled trick's winner, no deal winner.

NO_SEAT = -1


def card_beats(n_before: int, best: int, best_pos: int, tied: bool, level: int,
               pos: int) -> tuple[int, int, bool]:
    """R10-R11, one card at a time: the trick's highest strength so far, who
    played it (``pos``: a seat or a position, the caller's choice) and whether it
    is shared, after a card of strength ``level`` joins ``n_before`` cards."""
    if n_before == 0 or level > best:
        return level, pos, False
    if level == best:
        return best, best_pos, True  # R11: a shared highest card spoils the trick
    return best, best_pos, tied


def trick_winner_of_levels(levels, n: int, leader: int) -> int:
    """R10-R11: the seat of the single highest of the ``n`` strength levels
    played from ``leader``, or NO_SEAT when the highest is shared (spoiled)."""
    best, best_pos, tied = -1, -1, False
    for k in range(n):
        best, best_pos, tied = card_beats(k, best, best_pos, tied, levels[k], k)
    return NO_SEAT if tied else (leader + best_pos) % NUM_SEATS


def record_trick(counts, reached, in_run, winner: int, index: int) -> None:
    """The tally after trick ``index`` (0-8) went to ``winner`` (NO_SEAT:
    spoiled), in place. R13 one more trick for the winner; R14 it reached that
    count at ``index``; R16 its run is alive if it had won nothing before or its
    run was alive, and every other seat's run ends (a spoiled trick ends every
    run)."""
    if winner < 0:
        for s in range(NUM_SEATS):
            in_run[s] = False
        return
    live = counts[winner] == 0 or in_run[winner] != 0
    for s in range(NUM_SEATS):
        in_run[s] = False
    in_run[winner] = live
    counts[winner] += 1
    reached[winner] = index


def is_ahead(counts, reached, a: int, b: int) -> bool:
    """R13-R14: seat ``a`` ranks before seat ``b``: more tricks, or as many and
    reached that count first."""
    return counts[a] > counts[b] or (counts[a] == counts[b] and reached[a] < reached[b])


def first_to_reach(counts, reached) -> int:
    """R13-R14: the seat that would win the deal if it ended now (most tricks,
    ties to whoever reached that count first), NO_SEAT while nobody has a trick."""
    winner = NO_SEAT
    for s in range(NUM_SEATS):
        if counts[s] > 0 and (winner < 0 or is_ahead(counts, reached, s, winner)):
            winner = s
    return winner


def deal_points(counts, reached, in_run) -> tuple[int, int, bool]:
    """R13-R16 from the tally after the ninth trick: (winner seat or NO_SEAT,
    0/1/2 points, Mordienne). R15 nobody scores when every trick was spoiled;
    R16 two points for a run of at least two tricks that reaches the end with
    nothing won before it."""
    winner = first_to_reach(counts, reached)
    if winner < 0:
        return NO_SEAT, 0, False
    mordienne = in_run[winner] != 0 and counts[winner] >= 2
    return winner, 2 if mordienne else 1, mordienne


def team0_value(winner: int, points: int) -> int:
    """A deal's points from team 0's side (R1: seats 0 and 2): +points when
    team 0 scored, -points when team 1 did, 0 for nobody."""
    if winner < 0:
        return 0
    return points if team_of(winner) == 0 else -points


def dealer_of(first_dealer: int, deal_index: int) -> int:
    """R6: the dealer moves one seat clockwise each deal."""
    return (first_dealer + deal_index) % NUM_SEATS


def first_leader(dealer: int) -> int:
    """R6: the player to the dealer's left leads the first trick."""
    return next_seat(dealer)


# --------------------------------------------------------------------------- tricks


def trick_winner(cards: Sequence[int], leader: int) -> int | None:
    """R10-R11: the seat whose card is the single highest, or None when two or
    more cards tie for highest (a spoiled trick). ``cards`` in play order from
    ``leader``."""
    winner = trick_winner_of_levels([STRENGTH[c] for c in cards], len(cards), leader)
    return None if winner < 0 else winner


# --------------------------------------------------------------------------- scoring


class DealScore(NamedTuple):
    winner: int | None  # seat, or None when all nine tricks are spoiled (R15)
    points: int  # 0, 1 or 2 for the winner's team
    mordienne: bool


NO_TRICKS = ((0, 0, 0, 0), (-1, -1, -1, -1), (False, False, False, False))


def after_trick(counts: Sequence[int], reached: Sequence[int], in_run: Sequence[bool],
                winner: int | None, index: int) -> tuple[tuple[int, ...], tuple[int, ...],
                                                         tuple[bool, ...]]:
    """The tally after trick ``index`` (0-8) went to ``winner`` (None: spoiled).

    R13 one more trick for the winner; R14 it reached that count at ``index``;
    R16 its run is alive if it had won nothing before or its run was alive, and
    every other seat's run ends (a spoiled trick ends every run).
    """
    c, r, run = list(counts), list(reached), list(in_run)
    record_trick(c, r, run, NO_SEAT if winner is None else winner, index)
    return tuple(c), tuple(r), tuple(run)


def leading_seat(counts: Sequence[int], reached: Sequence[int]) -> int | None:
    """R13-R14: the seat that would win the deal if it ended now (most tricks,
    ties to whoever reached that count first), or None while nobody has a trick."""
    winner = first_to_reach(counts, reached)
    return None if winner < 0 else winner


def reach_order(counts: Sequence[int], reached: Sequence[int]) -> list[int]:
    """Seats with a trick, best first by R13-R14 (most tricks, then first to reach)."""
    ahead = functools.cmp_to_key(
        lambda a, b: -1 if is_ahead(counts, reached, a, b) else
        (1 if is_ahead(counts, reached, b, a) else 0))
    return sorted((s for s in range(NUM_SEATS) if counts[s]), key=ahead)


def deal_value(counts: Sequence[int], reached: Sequence[int],
               in_run: Sequence[bool]) -> DealScore:
    """R13-R16 from the tally after the ninth trick: the winner, 0/1/2 points
    (R15 nobody when every trick was spoiled; R16 two with Mordienne: a run of
    at least two tricks that reaches the end, nothing won before it)."""
    winner, points, mordienne = deal_points(counts, reached, in_run)
    return DealScore(None if winner < 0 else winner, points, bool(mordienne))


def mordienne_chance(counts: Sequence[int], reached: Sequence[int], in_run: Sequence[bool],
                     tricks_played: int) -> int | None:
    """R16 for people: the seat whose run of two or more tricks, nothing won
    before it, would score Mordienne if it took every remaining trick (and so
    won the deal, R13-R14); None when no run can score. Once the deal is over
    (``tricks_played`` 9) that is the deal winner's Mordienne, if it made one.
    The web game, the terminal and the renderer show the Mordienne line only
    for this seat."""
    remaining = NUM_TRICKS - tricks_played
    for s in range(NUM_SEATS):
        if in_run[s] and counts[s] >= 2:
            if remaining == 0:
                return s if leading_seat(counts, reached) == s else None
            c = list(counts)
            r = list(reached)
            c[s] += remaining
            r[s] = NUM_TRICKS - 1
            return s if leading_seat(c, r) == s else None
    return None


def team_value(score: DealScore) -> int:
    """A deal's points from team 0's side: +points if team 0 scored, -points if team 1."""
    return team0_value(NO_SEAT if score.winner is None else score.winner, score.points)


def score_deal(trick_winners: Sequence[int | None]) -> DealScore:
    """R13-R16 from the nine trick winners (seat, or None for a spoiled trick)."""
    if len(trick_winners) != NUM_TRICKS:
        raise ValueError(f"a deal has {NUM_TRICKS} tricks, got {len(trick_winners)}")
    counts, reached, in_run = NO_TRICKS
    for i, w in enumerate(trick_winners):
        counts, reached, in_run = after_trick(counts, reached, in_run, w, i)
    return deal_value(counts, reached, in_run)


# --------------------------------------------------------------------------- a deal


class Trick(NamedTuple):
    index: int  # 0-8
    leader: int
    cards: tuple[int, ...]  # in play order from the leader
    winner: int | None  # None: spoiled (R11)


class Deal:
    """One deal in progress: four hands, nine tricks (R9-R12).

    ``play(card)`` plays for the seat to act and returns the finished
    ``Trick`` when the card completes one, else None. Any card in hand is
    legal (R9). After the ninth trick ``done`` is True and ``score()`` applies
    R13-R16.
    """

    __slots__ = (
        "counts",
        "dealer",
        "hands",
        "holder",
        "in_run",
        "leader",
        "reached",
        "to_act",
        "trick_cards",
        "trick_winners",
        "tricks",
        "unused",
    )

    def __init__(self, hands: Sequence[Sequence[int]], dealer: int,
                 unused: Sequence[int] | None = None):
        hands = check_hands(hands)
        self.dealer = dealer
        self.hands: list[list[int]] = hands
        dealt = {c for h in hands for c in h}
        self.unused = sorted(unused) if unused is not None else \
            [c for c in range(NUM_CARDS) if c not in dealt]
        self.holder = [-1] * NUM_CARDS  # seat holding the card now, -1 if not in a hand
        for seat, hand in enumerate(hands):
            for card in hand:
                self.holder[card] = seat
        self.leader = first_leader(dealer)  # R6
        self.to_act = self.leader
        self.trick_cards: list[int] = []
        self.tricks: list[Trick] = []
        self.trick_winners: list[int | None] = []
        # The tally (see the module docstring): counts, reached (R14), in_run (R16).
        self.counts, self.reached, self.in_run = NO_TRICKS

    @property
    def trick_index(self) -> int:
        return len(self.tricks)

    @property
    def done(self) -> bool:
        return len(self.tricks) == NUM_TRICKS

    def legal_cards(self) -> list[int]:
        """R9: every card in the hand of the seat to act."""
        return sorted(self.hands[self.to_act]) if not self.done else []

    def play(self, card: int) -> Trick | None:
        seat = self.to_act
        if self.done:
            raise ValueError("the deal is over: all nine tricks have been played")
        if not (0 <= card < NUM_CARDS) or self.holder[card] != seat:
            raise ValueError(f"card {_describe_any(card)} is not in player_{seat}'s hand; "
                             f"legal: {self.legal_cards()}")
        self.holder[card] = -1
        self.hands[seat].remove(card)
        cards = self.trick_cards
        cards.append(card)
        if len(cards) < NUM_SEATS:
            self.to_act = (seat + 1) & 3
            return None
        leader = self.leader
        winner = trick_winner(cards, leader)
        trick = Trick(len(self.tricks), leader, tuple(cards), winner)
        self.tricks.append(trick)
        self.trick_winners.append(winner)
        self.counts, self.reached, self.in_run = after_trick(
            self.counts, self.reached, self.in_run, winner, trick.index)
        if winner is not None:
            self.leader = winner  # R10
        # R11: on a spoiled trick the same leader leads again.
        self.trick_cards = []
        self.to_act = self.leader
        return trick

    def leading_seat(self) -> int | None:
        """Who would win the deal if it ended now (R13-R14)."""
        return leading_seat(self.counts, self.reached)

    def score(self) -> DealScore:
        if not self.done:
            raise ValueError(f"the deal is not over: {len(self.tricks)} of 9 tricks played")
        return deal_value(self.counts, self.reached, self.in_run)



def _describe_any(card: object) -> str:
    try:
        return describe(card)  # type: ignore[arg-type]
    except (ValueError, TypeError):
        return repr(card)


# --------------------------------------------------------------------------- the match


@dataclass
class DealRecord:
    """What a finished deal leaves in the match history."""

    deal: int
    dealer: int
    trick_winners: list[int | None]
    trick_counts: list[int]
    score: DealScore
    team_points: tuple[int, int]  # points this deal gave each team


@dataclass
class Match:
    """R2: ``num_deals`` deals (five in the rules), scores kept between deals,
    the dealer moving one seat clockwise each deal (R6)."""

    first_dealer: int = 0
    num_deals: int = DEFAULT_NUM_DEALS
    points: list[int] = field(default_factory=lambda: [0, 0])
    history: list[DealRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not 0 <= self.first_dealer < NUM_SEATS:
            raise ValueError(f"first_dealer must be a seat 0-3, got {self.first_dealer}")
        if self.num_deals < 1:
            raise ValueError(f"num_deals must be at least 1, got {self.num_deals}")

    @property
    def deal_index(self) -> int:
        """0-based index of the deal in progress (or of the next one)."""
        return len(self.history)

    @property
    def dealer(self) -> int:
        return dealer_of(self.first_dealer, self.deal_index)  # R6

    @property
    def over(self) -> bool:
        return len(self.history) >= self.num_deals

    def record(self, deal: Deal) -> DealRecord:
        """Score a finished deal and add its points to the match (R13-R16, R2)."""
        if self.over:
            raise ValueError("the match is over: all deals have been played")
        score = deal.score()
        rec = DealRecord(self.deal_index, deal.dealer, list(deal.trick_winners),
                         list(deal.counts), score, team_points(score))
        self.points[0] += rec.team_points[0]
        self.points[1] += rec.team_points[1]
        self.history.append(rec)
        return rec

    def winner(self) -> int | None:
        """R2: the team with more match points, None for a draw."""
        if self.points[0] == self.points[1]:
            return None
        return 0 if self.points[0] > self.points[1] else 1

    def result(self) -> dict[str, Any]:
        """The ``infos[a]["match_result"]`` dict: points by team and the winning team."""
        return match_result(self.points)


def play_match(choose: Callable[[Deal, Match], int], rng: random.Random, first_dealer: int = 0,
               num_deals: int = DEFAULT_NUM_DEALS) -> list[Deal]:
    """A whole match played on the core: each deal dealt from a deck shuffled by
    ``rng`` (R5-R6), each card ``choose(deal, match)`` (checked by ``Deal.play``).
    Returns the finished deals in order (``records.record_of`` makes a record of them)."""
    match = Match(first_dealer=first_dealer, num_deals=num_deals)
    deals = []
    while not match.over:
        deck = list(range(NUM_CARDS))
        rng.shuffle(deck)
        hands, unused = deal_cards(deck, match.dealer)
        deal = Deal(hands, match.dealer, unused)
        deals.append(deal)
        while not deal.done:
            deal.play(choose(deal, match))
        match.record(deal)
    return deals


def team_points(score: DealScore) -> tuple[int, int]:
    """Points a deal gives team 0 and team 1 (R13-R16)."""
    pts = [0, 0]
    if score.winner is not None:
        pts[team_of(score.winner)] = score.points
    return pts[0], pts[1]


def deal_result(record: DealRecord, numeric: bool = False) -> dict[str, Any]:
    """The ``infos[a]["deal_result"]`` dict of a finished deal (the env, the
    batched engine and the games all report deals in this form).

    ``numeric=True``: the same keys with numbers for libraries whose replay
    buffers refuse text and None (Tianshou): ``dealer`` and ``winner`` as seats
    0-3, ``trick_winners`` as seats, -1 for a spoiled trick or no winner."""
    score = record.score
    if numeric:
        def name(seat: int | None) -> Any:
            return NO_SEAT if seat is None else seat
    else:
        def name(seat: int | None) -> Any:
            return None if seat is None else AGENTS[seat]
    return {
        "deal": record.deal,
        "dealer": name(record.dealer),
        "trick_winners": [name(w) for w in record.trick_winners],
        "trick_counts": {AGENTS[s]: record.trick_counts[s] for s in range(NUM_SEATS)},
        "winner": name(score.winner),
        "mordienne": score.mordienne,
        "points": {TEAMS[0]: record.team_points[0], TEAMS[1]: record.team_points[1]},
    }


def match_result(points: Sequence[int], numeric: bool = False) -> dict[str, Any]:
    """R2: ``{"points": {"team_0": p0, "team_1": p1}, "winner": "team_k" | None}``;
    ``numeric=True``: the winner as 0 or 1, -1 for a draw (see :func:`deal_result`)."""
    p0, p1 = int(points[0]), int(points[1])
    winner = None if p0 == p1 else (0 if p0 > p1 else 1)
    if numeric:
        named: Any = NO_SEAT if winner is None else winner
    else:
        named = None if winner is None else TEAMS[winner]
    return {"points": {TEAMS[0]: p0, TEAMS[1]: p1}, "winner": named}
