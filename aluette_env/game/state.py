"""The game's one step: a match of Aluette as a flat state record, and the
pure functions that deal a deal into it and play a card on it.

This is the pgx shape: :func:`step` (``state, card -> event``) is the only
statement of what a play does (the card leaves the hand, the trick is
decided, the tally, who leads and who plays next, the deal's score, the
match points, the end of the match); :func:`start_deal` the only statement of
how a deal begins (R5-R6). Every part that plays cards calls them: the
``Deal`` of :mod:`.deal` (and so the PettingZoo env and the games) on a
:class:`GameState` of Python lists, the batched engine's kernels
(:mod:`aluette_env.vector.kernels`) on a numpy record of the same fields,
compiled by numba, and through the engine the expert's rollouts. The rules
themselves are the functions of :mod:`.rules` that these call.

The record's fields are declared once, in :data:`STATE_FIELDS`; the engine
builds its numpy dtype from that declaration and :class:`GameState` its
slots. A card's place is a location code in ``card_state``:

====================  =====================================================
code                  the card is
====================  =====================================================
0-3                   in that seat's hand
``UNUSED`` (4)        one of the twelve unused cards (R5), or not dealt yet
``IN_TRICK + seat``   in the trick in progress, played by ``seat``
``PLAYED + seat``     in a finished trick of this deal, played by ``seat``
====================  =====================================================

``card_trick`` keeps the trick (0-8) each card was played in, so the whole
order of play of the deal is in the state: the leader of each trick follows
from the rules (:func:`~.rules.first_leader`, :func:`~.rules.next_leader`),
and :func:`order_of_play` rebuilds it.

Standard library only, in the subset of Python numba compiles.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import NUM_CARDS
from .rules import (
    HAND_SIZE, NUM_TRICKS, card_beats, deal_points, dealer_of, end_trick, first_leader,
    next_leader, team_points,
)
from .seats import NOBODY, NUM_SEATS, next_seat, seat_at
from .signs import NUM_ACTIONS, SIGN_BASE

UNUSED = NUM_SEATS  # 4
IN_TRICK = UNUSED + 1  # 5-8
PLAYED = IN_TRICK + NUM_SEATS  # 9-12

#: What :func:`step` did: the card joined a trick; it completed a trick; it
#: completed the deal (scored, match points added); it completed the match.
CARD_PLAYED, TRICK_DONE, DEAL_DONE, MATCH_DONE = 0, 1, 2, 3
#: The signs variant (S1): the seat to act made its sign (or none); it plays
#: its card next. Below CARD_PLAYED, so ``event >= DEAL_DONE`` still reads
#: "a deal ended".
SIGN_MADE = -1
#: ``phase``: the seat to act plays a card (always, without signs), or first
#: makes its sign (S1).
PLAY_PHASE, SIGN_PHASE = 0, 1
#: What a seat may do (:func:`legal_kind`): nothing, play a card of its hand
#: (R9), make a sign (S1, S3).
NO_ACTIONS, CARD_ACTIONS, SIGN_ACTIONS = 0, 1, 2

#: The record: (name, kind, shape, meaning); kinds "i1" int8, "i2" int16, "u1"
#: a 0/1 flag, "b1" bool. The engine's numpy dtype and GameState follow from it.
STATE_FIELDS: tuple[tuple[str, str, tuple[int, ...], str], ...] = (
    ("card_state", "i1", (NUM_CARDS,), "location code of each card (module docstring)"),
    ("card_trick", "i1", (NUM_CARDS,), "trick (0-8) each card was played in this deal, -1 none"),
    ("trick_cards", "i1", (NUM_SEATS,), "cards of the trick in progress, in play order"),
    ("trick_winners", "i1", (NUM_TRICKS,), "each finished trick's winner, NOBODY: spoiled"),
    ("counts", "i1", (NUM_SEATS,), "tricks won this deal (R13)"),
    ("reached", "i1", (NUM_SEATS,), "trick index of each seat's latest win, -1 none (R14)"),
    ("in_run", "u1", (NUM_SEATS,), "1: the seat can still make Mordienne (R16)"),
    ("leader", "i1", (), "seat leading the trick in progress"),
    ("to_act", "i1", (), "seat to play"),
    ("n_in_trick", "i1", (), "cards in the trick in progress"),
    ("trick_index", "i1", (), "trick in progress, 0-8; 9 once the deal is over"),
    ("best", "i1", (), "highest strength in the trick so far"),
    ("best_seat", "i1", (), "its seat"),
    ("tied", "b1", (), "the highest strength is shared (R11)"),
    ("dealer", "i1", (), "dealer of this deal"),
    ("first_dealer", "i1", (), "dealer of the match's first deal (R6)"),
    ("deal_index", "i1", (), "deal in progress, 0-based; num_deals once the match is over"),
    ("num_deals", "i1", (), "deals in the match (R2)"),
    ("points", "i2", (2,), "match points by team"),
    ("deal_winner", "i1", (), "the last finished deal's winner, NOBODY: nobody (R15)"),
    ("deal_score", "i1", (), "its points for the winner's team: 0, 1 or 2"),
    ("mordienne", "b1", (), "it was won by Mordienne (R16)"),
    ("over", "b1", (), "the match is finished"),
    ("signs_on", "b1", (), "the signs variant (S1): each turn is a sign, then a card"),
    ("phase", "i1", (), "PLAY_PHASE, or SIGN_PHASE: the seat to act makes its sign first"),
    ("signs", "i1", (NUM_TRICKS * NUM_SEATS,),
     "sign made in trick t by seat s, at t * 4 + s: NO_SIGN (0) or 1-9; -1 not yet (S1)"),
    ("caught", "u1", (NUM_TRICKS * NUM_SEATS,),
     "bit o set: opponent o catches the sign of trick t by seat s, at t * 4 + s (S4)"),
)
STATE_NAMES = tuple(name for name, _, _, _ in STATE_FIELDS)


class GameState:
    """One match's state record as plain Python (lists for the array fields);
    the batched engine keeps the same fields in a numpy record array."""

    __slots__ = STATE_NAMES

    def __init__(self, first_dealer: int = 0, num_deals: int = 1, signs: bool = False) -> None:
        for name, _, shape, _ in STATE_FIELDS:
            setattr(self, name, [0] * shape[0] if shape else 0)
        self.card_state = [UNUSED] * NUM_CARDS
        self.first_dealer, self.num_deals = first_dealer, num_deals
        self.deal_winner = NOBODY
        self.signs_on = bool(signs)
        self.signs = [-1] * (NUM_TRICKS * NUM_SEATS)

    def copy(self) -> GameState:
        other = GameState.__new__(GameState)
        for name in STATE_NAMES:
            value = getattr(self, name)
            setattr(other, name, list(value) if isinstance(value, list) else value)
        return other


def start_deal(g, hands) -> None:
    """Deal ``hands`` (four hands of nine card ids, seat order) as deal
    ``g.deal_index`` of the match: the dealer rotates from the first dealer
    (R6), the player on the dealer's left leads (R6), nothing is played yet.
    With signs the leader first makes its sign (S1), and no sign is made yet;
    the deal's catches (``caught``, S4) are chance the caller draws with the
    hands and writes after this call."""
    for c in range(NUM_CARDS):
        g.card_state[c] = UNUSED
        g.card_trick[c] = -1
    for s in range(NUM_SEATS):
        for j in range(HAND_SIZE):
            g.card_state[hands[s][j]] = s
        g.counts[s] = 0
        g.reached[s] = -1
        g.in_run[s] = 0
        g.trick_cards[s] = -1
    for t in range(NUM_TRICKS):
        g.trick_winners[t] = NOBODY
    g.dealer = dealer_of(g.first_dealer, g.deal_index)
    g.leader = first_leader(g.dealer)
    g.to_act = g.leader
    g.n_in_trick = 0
    g.trick_index = 0
    g.best, g.best_seat, g.tied = -1, -1, False
    if g.signs_on:
        for k in range(NUM_TRICKS * NUM_SEATS):
            g.signs[k] = -1
            g.caught[k] = 0
        g.phase = SIGN_PHASE


def played_by(code: int) -> int:
    """The seat that played a card at location ``code`` (in the trick in
    progress or an earlier trick of the deal), -1 if it is not played."""
    if code >= PLAYED:
        return code - PLAYED
    if code >= IN_TRICK:
        return code - IN_TRICK
    return -1


def order_of_play(card_state, card_trick, trick_winners, leader: int, trick_index: int,
                  order) -> int:
    """The deal's plays up to trick ``trick_index`` in the order they were
    made, as card ids written into ``order``; returns how many. ``card_state``,
    ``card_trick`` and ``trick_winners`` as in the record (seats may be relative
    to an observer); ``leader`` led the first trick (R6: the dealer's left). R9
    each trick goes clockwise from its leader; R10-R11 the winner of a trick
    (spoiled: the same leader) leads the next."""
    n = 0
    for k in range(trick_index + 1):
        for i in range(NUM_SEATS):
            seat = seat_at(leader, i)
            for c in range(NUM_CARDS):
                if card_trick[c] == k and played_by(card_state[c]) == seat:
                    order[n] = c
                    n += 1
        if k < trick_index:
            leader = next_leader(leader, trick_winners[k])
    return n


def is_legal(g, action: int) -> bool:
    """R9: ``action`` is a card in the hand of the seat to act (any card in hand
    may be played); with signs, in the sign phase, any sign action (S1, S3)."""
    if g.over:
        return False
    if g.phase == SIGN_PHASE:
        return SIGN_BASE <= action < NUM_ACTIONS
    return 0 <= action < NUM_CARDS and g.card_state[action] == g.to_act


def legal_kind(g, seat: int) -> int:
    """What ``seat`` may do in the state ``g``: ``NO_ACTIONS`` when another seat
    is to act or the match is over; in its sign phase ``SIGN_ACTIONS`` (any sign
    action, S1, S3); else ``CARD_ACTIONS`` (any card in its hand, R9).
    :func:`write_legal` writes the mask; the batched engine's observation kernel
    copies the hand from the row it has just written instead (a scalar test keeps
    its loop fast)."""
    if seat != g.to_act or g.over:
        return NO_ACTIONS
    return SIGN_ACTIONS if g.phase == SIGN_PHASE else CARD_ACTIONS


def write_legal(g, seat: int, mask) -> None:
    """The legal-action mask of ``seat`` in the state ``g`` into ``mask`` (0/1, one
    entry per action: NUM_CARDS, or with signs NUM_ACTIONS): :func:`is_legal`'s
    actions when ``seat`` is to act (:func:`legal_kind`), in its sign phase the
    sign actions (S1, S3), else the cards in its hand (R9); all zero for another
    seat or once the match is over."""
    kind = legal_kind(g, seat)
    for c in range(NUM_CARDS):
        mask[c] = 1 if kind == CARD_ACTIONS and g.card_state[c] == seat else 0
    for a in range(SIGN_BASE, len(mask)):
        mask[a] = 1 if kind == SIGN_ACTIONS else 0


def step(g, card: int, strength: Sequence[int]) -> int:
    """Play ``card`` (legal: see :func:`is_legal`) for the seat to act; returns
    the event (``CARD_PLAYED``, ``TRICK_DONE``, ``DEAL_DONE``, ``MATCH_DONE``).
    ``strength`` is the cards' strength levels (``cards.STRENGTH``).

    With signs (S1), in the sign phase ``card`` is the sign action (``SIGN_BASE
    + sign``): the sign is kept for the trick and the seat, and the same seat
    plays its card next (``SIGN_MADE``); after each card the next seat to act
    starts with its sign.

    R9 the card joins the trick; R10-R11 after the fourth card the trick goes to
    the single strongest card or is spoiled; R13-R14, R16 the tally; R10-R11 its
    winner (or, spoiled, the same leader) leads next; after the ninth trick
    R13-R16 score the deal and R2 adds the points to the match, which is over
    after ``num_deals`` deals. The next deal is dealt by :func:`start_deal`."""
    seat = g.to_act
    t = g.trick_index
    if g.phase:  # SIGN_PHASE (a truth test: the default game's step pays the least)
        g.signs[t * NUM_SEATS + seat] = card - SIGN_BASE
        g.phase = PLAY_PHASE
        return SIGN_MADE
    n = g.n_in_trick
    g.card_state[card] = IN_TRICK + seat
    g.card_trick[card] = t
    g.trick_cards[n] = card
    g.best, g.best_seat, g.tied = card_beats(n, g.best, g.best_seat, g.tied, strength[card],
                                             seat)
    if n + 1 < NUM_SEATS:
        g.n_in_trick = n + 1
        g.to_act = next_seat(seat)
        if g.signs_on:
            g.phase = SIGN_PHASE
        return CARD_PLAYED
    leader = g.leader
    for k in range(NUM_SEATS):
        g.card_state[g.trick_cards[k]] = PLAYED + seat_at(leader, k)
    winner = NOBODY if g.tied else g.best_seat
    g.trick_winners[t] = winner
    g.leader = end_trick(g.counts, g.reached, g.in_run, winner, leader, t)
    g.to_act = g.leader
    g.n_in_trick = 0
    g.trick_index = t + 1
    if t + 1 < NUM_TRICKS:
        if g.signs_on:
            g.phase = SIGN_PHASE
        return TRICK_DONE
    winner, points, mordienne = deal_points(g.counts, g.reached, g.in_run)
    g.deal_winner, g.deal_score, g.mordienne = winner, points, mordienne
    points0, points1 = team_points(winner, points)
    g.points[0] += points0
    g.points[1] += points1
    g.deal_index += 1
    if g.deal_index < g.num_deals:
        return DEAL_DONE
    g.over = True
    return MATCH_DONE
