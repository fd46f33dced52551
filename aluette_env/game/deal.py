"""A deal and a match as Python objects for people-facing code: ``Deal``
(four hands, nine tricks), ``Match`` (R2: the deals and their points), the
records a finished deal leaves, and the result dicts every part reports.

Both are views of one :class:`~.state.GameState`, the match's state record:
``Deal.play`` calls the game's one step (:func:`~.state.step`) and returns
its event, so who plays next, who leads, who scored, the match points and
the ends of the deal and of the match are never worked out here; callers
read the ends from the event. The PettingZoo env, the games, the records and
the tests use these objects; the batched engine steps the same state record
in numpy arrays.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from .cards import NUM_CARDS, STRENGTH, describe
from .rules import (
    DEFAULT_NUM_DEALS, NUM_TRICKS, check_hands, deal_cards, deal_points, dealer_of,
    record_trick, team_points, winning_team,
)
from .seats import AGENTS, NUM_SEATS, TEAMS
from .signs import SIGN_BASE, check_sign, sign_name
from .state import (
    CARD_PLAYED, DEAL_DONE, SIGN_PHASE, TRICK_DONE, UNUSED, GameState, start_deal, step,
)


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
    """One deal in progress: four hands, nine tricks (R9-R12), as a view of its
    match's state record.

    ``play(card)`` plays for the seat to act and returns the event of the
    game's one step (:data:`~.state.CARD_PLAYED`, ``TRICK_DONE``,
    ``DEAL_DONE``, ``MATCH_DONE``): after a trick it is ``tricks[-1]``, after
    the deal its ``record``. Any card in hand is legal (R9). After the ninth
    trick ``done`` is True and ``score()`` gives R13-R16.

    ``Deal(hands, dealer)`` and :meth:`from_deck` make a deal on its own, the
    one deal of a one-deal match (``match``); a longer match deals its deals
    itself (:meth:`Match.start_deal`, :meth:`Match.deal_deck`). ``state`` is
    the match's :class:`~.state.GameState` while the deal is the match's
    latest; a finished deal keeps a copy of it when the next deal starts.
    """

    __slots__ = ("match", "record", "state", "tricks", "unused")

    def __init__(self, hands: Sequence[Sequence[int]], dealer: int,
                 unused: Sequence[int] | None = None):
        Match(first_dealer=dealer, num_deals=1)._open(self, check_hands(hands), unused)

    @classmethod
    def from_deck(cls, deck: Sequence[int], dealer: int) -> Deal:
        """The deal of a shuffled deck (a permutation of the 48 card ids) by
        ``dealer`` (R5), on its own (see :class:`Deal`)."""
        return Match(first_dealer=dealer, num_deals=1).deal_deck(deck)

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
    def trick_number(self) -> int:
        """The trick in progress, counted from 1 (R9: nine a deal); the ninth once
        the deal is over."""
        return min(self.state.trick_index + 1, NUM_TRICKS)

    @property
    def done(self) -> bool:
        return self.record is not None

    def holds(self, seat: int, card: int) -> bool:
        """``card`` (an id 0-47) is in ``seat``'s hand."""
        return self.state.card_state[card] == seat

    def hand(self, seat: int) -> list[int]:
        """The cards ``seat`` holds, by id (the state's ``card_state``)."""
        card_state = self.state.card_state
        return [c for c in range(NUM_CARDS) if card_state[c] == seat]

    @property
    def hands(self) -> list[list[int]]:
        """The four hands, seat order, each by card id."""
        return [self.hand(seat) for seat in range(NUM_SEATS)]

    def legal_cards(self) -> list[int]:
        """R9: every card in the hand of the seat to act (none while it makes its sign)."""
        if self.record is not None or self.state.phase == SIGN_PHASE:
            return []
        return self.hand(self.state.to_act)

    @property
    def signing(self) -> bool:
        """With signs: the seat to act makes its sign (:meth:`sign`) before its card (S1)."""
        return self.record is None and self.state.phase == SIGN_PHASE

    def sign(self, sign: int) -> int:
        """With signs (S1, S3): the seat to act makes ``sign`` (1-9, or NO_SIGN);
        any sign is legal whatever the hand. Returns the step's event, SIGN_MADE;
        the same seat plays its card next."""
        sign = check_sign(sign)
        if not self.signing:
            what = "the deal is over" if self.record is not None else \
                f"player_{self.state.to_act} plays a card now" if self.state.signs_on else \
                "this match is played without signs"
            raise ValueError(f"no sign to make ({sign_name(sign)}): {what}")
        return step(self.state, SIGN_BASE + sign, STRENGTH)

    def sign_of(self, trick: int, seat: int) -> int:
        """The sign ``seat`` made in ``trick`` (0-8): 1-9, NO_SIGN, or -1 not yet (or
        no signs in this match). Every seat's, as the table's record keeps them."""
        if not self.state.signs_on:
            return -1
        return self.state.signs[trick * NUM_SEATS + seat]

    def play(self, card: int) -> int:
        """Play ``card`` for the seat to act (ValueError if it is not in that
        hand); returns the step's event (see :class:`Deal`)."""
        g = self.state
        seat = g.to_act
        if self.record is not None:
            raise ValueError("the deal is over: all nine tricks have been played")
        if g.phase:  # SIGN_PHASE
            raise ValueError(f"player_{seat} makes a sign (or none) before playing a card (S1)")
        if not (0 <= card < NUM_CARDS) or g.card_state[card] != seat:
            raise ValueError(f"card {_describe_any(card)} is not in player_{seat}'s hand; "
                             f"legal: {self.legal_cards()}")
        leader = g.leader
        event = step(g, card, STRENGTH)
        if event == CARD_PLAYED:
            return event
        index = g.trick_index - 1
        self.tricks.append(Trick(index, leader, tuple(g.trick_cards), g.trick_winners[index]))
        if event != TRICK_DONE:
            score = DealScore(g.deal_winner, g.deal_score, bool(g.mordienne))
            self.record = DealRecord(g.deal_index - 1, g.dealer, list(g.trick_winners),
                                     list(g.counts), score, team_points(score.winner, score.points))
        return event

    def score(self) -> DealScore:
        if self.record is None:
            raise ValueError(f"the deal is not over: {len(self.tricks)} of 9 tricks played")
        return self.record.score


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


class Match:
    """R2: ``num_deals`` deals (five in the rules), scores kept between deals,
    the dealer moving one seat clockwise each deal (R6): a view of one state
    record (``state``, a :class:`~.state.GameState`), which the game's step
    moves on. Its deals are dealt by :meth:`start_deal` or :meth:`deal_deck`
    and played by :meth:`Deal.play`; ``deals`` keeps them in order."""

    __slots__ = ("deals", "state")

    def __init__(self, first_dealer: int = 0, num_deals: int = DEFAULT_NUM_DEALS,
                 signs: bool = False):
        if not 0 <= first_dealer < NUM_SEATS:
            raise ValueError(f"first_dealer must be a seat 0-3, got {first_dealer}")
        if num_deals < 1:
            raise ValueError(f"num_deals must be at least 1, got {num_deals}")
        self.state = GameState(first_dealer=first_dealer, num_deals=num_deals, signs=signs)
        self.deals: list[Deal] = []

    # The state's fields under the names people-facing code reads.
    @property
    def first_dealer(self) -> int:
        return self.state.first_dealer

    @property
    def num_deals(self) -> int:
        return self.state.num_deals

    @property
    def deal_index(self) -> int:
        """0-based index of the deal in progress (or of the next one)."""
        return self.state.deal_index

    @property
    def dealer(self) -> int:
        """The dealer of the deal in progress (or of the next one)."""
        return dealer_of(self.state.first_dealer, self.state.deal_index)  # R6

    @property
    def over(self) -> bool:
        return bool(self.state.over)

    @property
    def points(self) -> list[int]:
        """Match points by team (a copy)."""
        return list(self.state.points)

    @property
    def deal(self) -> Deal | None:
        """The deal in progress, or the last one (None before the first)."""
        return self.deals[-1] if self.deals else None

    @property
    def history(self) -> list[DealRecord]:
        """The records of the finished deals, in order."""
        return [d.record for d in self.deals if d.record is not None]

    def start_deal(self, hands: Sequence[Sequence[int]],
                   unused: Sequence[int] | None = None,
                   caught: Sequence[int] | None = None) -> Deal:
        """Deal the match's next deal with these hands (checked; seat order).
        With signs, ``caught`` is the deal's catches (S4): 36 bitmasks, the
        sign of trick t by seat s at t * 4 + s (:func:`.signs.catch_bits`);
        none caught if omitted."""
        return self._open(Deal.__new__(Deal), check_hands(hands), unused, caught)

    def deal_deck(self, deck: Sequence[int], caught: Sequence[int] | None = None) -> Deal:
        """Deal the match's next deal from a shuffled deck (a permutation of the
        48 card ids), dealt by the match's dealer (R5-R6); ``caught`` as in
        :meth:`start_deal`."""
        hands, unused = deal_cards(deck, self.dealer)
        return self._open(Deal.__new__(Deal), hands, unused, caught)

    def _open(self, deal: Deal, hands: list[list[int]], unused: Sequence[int] | None,
              caught: Sequence[int] | None = None) -> Deal:
        if self.over:
            raise ValueError("the match is over: all deals have been played")
        g = self.state
        if self.deals:
            last = self.deals[-1]
            if last.record is None:
                raise ValueError(f"the deal in progress is not over: {len(last.tricks)} of 9 "
                                 f"tricks played")
            last.state = g.copy()  # the finished deal keeps its own record
        if caught is not None:
            caught = _check_caught(caught, g.signs_on)
        start_deal(g, hands)
        if caught is not None:
            g.caught[:] = caught
        deal.state, deal.match, deal.tricks, deal.record = g, self, [], None
        deal.unused = sorted(unused) if unused is not None else \
            [c for c in range(NUM_CARDS) if g.card_state[c] == UNUSED]
        self.deals.append(deal)
        return deal

    def winner(self) -> int:
        """R2: the team with more match points, NOBODY for a draw."""
        return winning_team(self.state.points[0], self.state.points[1])

    def result(self) -> dict[str, Any]:
        """The ``infos[a]["match_result"]`` dict: points by team and the winning team."""
        return match_result(self.state.points)


def _check_caught(caught: Sequence[int], signs_on: bool) -> list[int]:
    if not signs_on:
        raise ValueError("catches (caught) belong to a match played with signs")
    out = list(caught)
    if len(out) != NUM_TRICKS * NUM_SEATS or not all(
            isinstance(b, int) and not isinstance(b, bool) and 0 <= b < 16 for b in out):
        raise ValueError(f"caught must be {NUM_TRICKS * NUM_SEATS} ints 0-15 (bit o: seat o "
                         f"caught that sign), got {caught!r}"[:200])
    return out


def play_match(choose: Callable[[Deal, Match], int], rng: random.Random, first_dealer: int = 0,
               num_deals: int = DEFAULT_NUM_DEALS) -> list[Deal]:
    """A whole match played on the core: each deal dealt from a deck shuffled by
    ``rng`` (R5-R6), each card ``choose(deal, match)`` (checked by ``Deal.play``).
    Returns the finished deals in order (``records.record_of`` makes a record of them)."""
    match = Match(first_dealer=first_dealer, num_deals=num_deals)
    while not match.over:
        deck = list(range(NUM_CARDS))
        rng.shuffle(deck)
        deal = match.deal_deck(deck)
        while deal.play(choose(deal, match)) < DEAL_DONE:
            pass
    return match.deals


def deal_reason(record: DealRecord) -> tuple[str, list[int]]:
    """Why a finished deal went as it did, from its record: ``"all_spoiled"``
    (R15: every trick spoiled, nobody scores), ``"mordienne"`` (R16),
    ``"first_to_reach"`` (R14: tied on tricks, the winner reached the count
    first) or ``"most_tricks"`` (R13); and the seats tied with the winner on
    its count of tricks (none when nobody won)."""
    score, counts = record.score, record.trick_counts
    if score.winner < 0:
        return "all_spoiled", []
    tied_with = [s for s in range(NUM_SEATS)
                 if s != score.winner and counts[s] == counts[score.winner]]
    if score.mordienne:
        return "mordienne", tied_with
    return ("first_to_reach" if tied_with else "most_tricks"), tied_with


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
