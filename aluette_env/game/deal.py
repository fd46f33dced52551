"""A deal and a match as Python objects for people-facing code: ``Deal``
(four hands, nine tricks), ``Match`` (R2: the deals and their points), the
records a finished deal leaves, and the result dicts every part reports.

A ``Deal`` is a view of one :class:`~.state.GameState`: its ``play`` calls
the game's one step (:func:`~.state.step`), so who plays next, who leads and
who scored are never worked out here. The PettingZoo env, the games, the
records and the tests use these objects; the batched engine steps the same
state record in numpy arrays.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .cards import NUM_CARDS, STRENGTH, describe
from .rules import (
    DEFAULT_NUM_DEALS, NUM_TRICKS, check_hands, deal_cards, deal_points, dealer_of,
    record_trick, team_points, winning_team,
)
from .seats import AGENTS, NUM_SEATS, TEAMS
from .state import CARD_PLAYED, UNUSED, GameState, start_deal, step


class DealScore(NamedTuple):
    winner: int  # seat, or NOBODY when all nine tricks are spoiled (R15)
    points: int  # 0, 1 or 2 for the winner's team
    mordienne: bool


class Trick(NamedTuple):
    index: int  # 0-8
    leader: int
    cards: tuple[int, ...]  # in play order from the leader
    winner: int  # NOBODY: spoiled (R11)


def score_deal(trick_winners: Sequence[int]) -> DealScore:
    """R13-R16 from the nine trick winners (seat, or NOBODY for a spoiled trick)."""
    if len(trick_winners) != NUM_TRICKS:
        raise ValueError(f"a deal has {NUM_TRICKS} tricks, got {len(trick_winners)}")
    counts, reached, in_run = [0] * NUM_SEATS, [-1] * NUM_SEATS, [False] * NUM_SEATS
    for i, w in enumerate(trick_winners):
        record_trick(counts, reached, in_run, w, i)
    return DealScore(*deal_points(counts, reached, in_run))


class Deal:
    """One deal in progress: four hands, nine tricks (R9-R12).

    ``play(card)`` plays for the seat to act and returns the finished
    ``Trick`` when the card completes one, else None. Any card in hand is
    legal (R9). After the ninth trick ``done`` is True and ``score()`` gives
    R13-R16. ``state`` is the deal's :class:`~.state.GameState` (a one-deal
    match), stepped by :func:`~.state.step`.
    """

    __slots__ = ("hands", "state", "tricks", "unused")

    def __init__(self, hands: Sequence[Sequence[int]], dealer: int,
                 unused: Sequence[int] | None = None):
        self._start(check_hands(hands), dealer, unused)

    @classmethod
    def from_deck(cls, deck: Sequence[int], dealer: int) -> Deal:
        """The deal of a shuffled deck (a permutation of the 48 card ids) by
        ``dealer`` (R5): the deck is checked, and the hands dealt from it need
        no second check."""
        hands, unused = deal_cards(deck, dealer)
        deal = cls.__new__(cls)
        deal._start(hands, dealer, unused)
        return deal

    def _start(self, hands: list[list[int]], dealer: int, unused: Sequence[int] | None) -> None:
        self.hands: list[list[int]] = hands
        g = self.state = GameState(first_dealer=dealer, num_deals=1)
        start_deal(g, hands)
        self.unused = sorted(unused) if unused is not None else \
            [c for c in range(NUM_CARDS) if g.card_state[c] == UNUSED]
        self.tricks: list[Trick] = []

    # The state's fields under the names people-facing code reads.
    @property
    def dealer(self) -> int:
        return self.state.dealer

    @property
    def leader(self) -> int:
        """Seat leading the trick in progress (after the last trick: who would lead next)."""
        return self.state.leader

    @property
    def to_act(self) -> int:
        return self.state.to_act

    @property
    def trick_cards(self) -> list[int]:
        """Cards of the trick in progress, in play order from the leader."""
        g = self.state
        return g.trick_cards[:g.n_in_trick]

    @property
    def trick_winners(self) -> list[int]:
        """Each finished trick's winner (NOBODY: spoiled)."""
        g = self.state
        return g.trick_winners[:g.trick_index]

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(self.state.counts)

    @property
    def reached(self) -> tuple[int, ...]:
        return tuple(self.state.reached)

    @property
    def in_run(self) -> tuple[bool, ...]:
        return tuple(bool(x) for x in self.state.in_run)

    @property
    def trick_index(self) -> int:
        return self.state.trick_index

    @property
    def done(self) -> bool:
        return self.state.trick_index == NUM_TRICKS

    def holds(self, seat: int, card: int) -> bool:
        """``card`` (an id 0-47) is in ``seat``'s hand."""
        return self.state.card_state[card] == seat

    def legal_cards(self) -> list[int]:
        """R9: every card in the hand of the seat to act."""
        return sorted(self.hands[self.state.to_act]) if not self.done else []

    def play(self, card: int) -> Trick | None:
        g = self.state
        seat = g.to_act
        if g.trick_index == NUM_TRICKS:
            raise ValueError("the deal is over: all nine tricks have been played")
        if not (0 <= card < NUM_CARDS) or g.card_state[card] != seat:
            raise ValueError(f"card {_describe_any(card)} is not in player_{seat}'s hand; "
                             f"legal: {self.legal_cards()}")
        self.hands[seat].remove(card)
        leader = g.leader
        if step(g, card, STRENGTH) == CARD_PLAYED:
            return None
        index = g.trick_index - 1
        trick = Trick(index, leader, tuple(g.trick_cards), g.trick_winners[index])
        self.tricks.append(trick)
        return trick

    def score(self) -> DealScore:
        if not self.done:
            raise ValueError(f"the deal is not over: {len(self.tricks)} of 9 tricks played")
        g = self.state
        return DealScore(g.deal_winner, g.deal_score, bool(g.mordienne))


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
    trick_winners: list[int]  # NOBODY: spoiled
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
                         list(deal.counts), score, team_points(score.winner, score.points))
        self.points[0] += rec.team_points[0]
        self.points[1] += rec.team_points[1]
        self.history.append(rec)
        return rec

    def winner(self) -> int:
        """R2: the team with more match points, NOBODY for a draw."""
        return winning_team(self.points[0], self.points[1])

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
        deal = Deal.from_deck(deck, match.dealer)
        deals.append(deal)
        while not deal.done:
            deal.play(choose(deal, match))
        match.record(deal)
    return deals


def _agent(seat: int) -> str | None:
    return None if seat < 0 else AGENTS[seat]


def deal_result(record: DealRecord, numeric: bool = False) -> dict[str, Any]:
    """The ``infos[a]["deal_result"]`` dict of a finished deal (the env, the
    batched engine and the games all report deals in this form; None for nobody).

    ``numeric=True``: the same keys with numbers for libraries whose replay
    buffers refuse text and None (Tianshou): ``dealer`` and ``winner`` as seats
    0-3, ``trick_winners`` as seats, NOBODY (-1) for a spoiled trick or no winner."""
    score = record.score
    name: Callable[[int], Any] = int if numeric else _agent
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
    ``numeric=True``: the winner as 0 or 1, NOBODY (-1) for a draw (see
    :func:`deal_result`)."""
    p0, p1 = int(points[0]), int(points[1])
    team = winning_team(p0, p1)
    named: Any = team if numeric else (None if team < 0 else TEAMS[team])
    return {"points": {TEAMS[0]: p0, TEAMS[1]: p1}, "winner": named}
