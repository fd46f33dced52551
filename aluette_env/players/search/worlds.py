"""The worlds of a decision: the deciding seat's view read as the engine's arrays
(:class:`View`), and the deals consistent with it, each drawn as 48 random keys
that rank the unseen cards (:func:`deal_world`) and set up on the batched
engine's game records for rollouts (:func:`fill_worlds`) or as they stood
before this trick's plays, for the belief (:func:`fill_before_plays`).

A decision's keys come from the player's seed and the observation
(:func:`decision_rng`), never from the call order, so the same position gets
the same worlds in any process. Relative seats throughout: the observer is 0.

With signs (S5) a seat may know where some unseen cards are (a named card its
partner signed, or an opponent it caught signing one): :meth:`View.constrain`
repairs each drawn world so that those cards are where the signs put them
(:func:`constrain_keys`).
"""

from __future__ import annotations

import zlib

import numpy as np

from ..._jit import njit
from ...game import (
    STRENGTH, cards_in_trick, first_dealer_of, hand_size, seat_at, trick_so_far,
)
from ...observation import IN_TRICK, PLAYED, UNSEEN, obs_size, read_match, read_view

STRENGTH_ARRAY = np.array(STRENGTH, np.int8)
UNUSED = UNSEEN  # engine card code of a card outside every hand
#: The part of an observation that seeds a decision's worlds: layout 1's fields,
#: so that the same position gets the same worlds as before the history was added.
SEED_VIEW = obs_size(1)

# info[] fields of a prepared decision
I_LEADER, I_T, I_N_IN, I_BEST, I_BEST_SEAT, I_TIED, I_UNSEEN, I_PLAYS = range(8)


@njit(cache=True)
def prepare(row, mask, strength, cards, winners, counts, reached, in_run, card_trick, unseen,
            n_left, plays, trick, info):
    """The observer's view as the engine's arrays, relative seats (observer = 0):
    card codes (unseen cards UNUSED), trick winners, tally, the trick of each
    played card, the unseen cards, how many cards each other seat still holds,
    the plays worth trying, and each seat's card in the current trick (-1:
    none yet)."""
    t, leader = read_view(row, cards, trick, winners, counts, reached, in_run, card_trick)
    n_in = cards_in_trick(trick, leader)
    best, best_seat, tied = trick_so_far(trick, leader, n_in, strength)
    for r in range(1, 4):
        n_left[r] = hand_size(t, trick[r] >= 0)
    n_unseen = 0
    others = np.zeros(19, np.int64)  # unseen cards and trick cards, by level
    for c in range(48):
        if cards[c] == UNUSED:
            unseen[n_unseen] = c
            n_unseen += 1
            others[strength[c]] += 1
        elif cards[c] >= IN_TRICK and cards[c] < PLAYED:
            others[strength[c]] += 1
    # One play per class of my levels with no other card at or between them.
    n_plays = 0
    open_class = False
    for lv in range(19):
        if others[lv] > 0:
            open_class = False
        card = -1
        for c in range(48):
            if mask[c] == 1 and strength[c] == lv:
                card = c
                break
        if card >= 0:
            if not open_class:
                plays[n_plays] = card
                n_plays += 1
            open_class = others[lv] == 0
    info[I_LEADER], info[I_T], info[I_N_IN] = leader, t, n_in
    info[I_BEST], info[I_BEST_SEAT], info[I_TIED] = best, best_seat, 1 if tied else 0
    info[I_UNSEEN], info[I_PLAYS] = n_unseen, n_plays


class View:
    """The deciding seat's view as the engine's arrays (filled by :meth:`read`,
    reused from decision to decision): ``cards`` (engine card codes, unseen cards
    UNUSED), ``winners``, ``card_trick``, the tally (``counts``, ``reached``,
    ``in_run``), the ``unseen`` cards, ``n_left`` (cards each other seat holds),
    the ``plays`` worth trying (one per class of equal worth), ``trick`` (each
    seat's card in the current trick, -1: none) and ``info`` (the ``I_*``
    fields)."""

    def __init__(self) -> None:
        self.cards = np.zeros(48, np.int8)
        self.winners = np.zeros(9, np.int8)
        self.card_trick = np.zeros(48, np.int8)
        self.counts = np.zeros(4, np.int64)
        self.reached = np.zeros(4, np.int64)
        self.in_run = np.zeros(4, np.bool_)
        self.unseen = np.zeros(48, np.int64)
        self.n_left = np.zeros(4, np.int64)
        self.plays = np.zeros(19, np.int64)
        self.trick = np.zeros(4, np.int64)
        self.info = np.zeros(8, np.int64)
        #: known[k]: the relative seat (1-3) known to hold the k-th unseen card, 0: none.
        self.known = np.zeros(48, np.int64)

    def read(self, row: np.ndarray, mask: np.ndarray,
             holders: np.ndarray | None = None) -> None:
        """Fill every array from one observation and its legal cards; ``holders``
        ([48] by card: the relative seat known to hold it, 0 none) from signs."""
        prepare(row, mask, STRENGTH_ARRAY, self.cards, self.winners, self.counts, self.reached,
                self.in_run, self.card_trick, self.unseen, self.n_left, self.plays, self.trick,
                self.info)
        n_unseen = int(self.info[I_UNSEEN])
        self.known[:] = 0
        if holders is not None:
            self.known[:n_unseen] = holders[self.unseen[:n_unseen]]

    def constrain(self, keys: np.ndarray) -> np.ndarray:
        """``keys`` (drawn worlds) with every card the seat knows the place of put
        there (:func:`constrain_keys`), in place; returned for chaining."""
        if self.known.any():
            constrain_keys(keys, int(self.info[I_UNSEEN]), self.n_left, self.known)
        return keys

    @property
    def tally(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.counts, self.reached, self.in_run

    def holders(self, keys: np.ndarray) -> np.ndarray:
        """``holders[w, c]``: the relative seat (1-3) holding card ``c`` in world
        ``w`` of ``keys``, 4 for a card left out of the deal, -1 for a card this
        seat has seen (in its hand or played)."""
        n_unseen = int(self.info[I_UNSEEN])
        holders = np.full((len(keys), 48), -1, np.int8)
        owner = np.empty(48, np.int64)
        for w, k in enumerate(keys):
            deal_world(k, self.unseen, n_unseen, self.n_left, owner)
            holders[w, self.unseen[:n_unseen]] = owner[:n_unseen]
        return holders


def decision_rng(seed: int, row: np.ndarray) -> np.random.Generator:
    """The random source of one decision's worlds: the player's seed and the position."""
    return np.random.default_rng([seed, zlib.crc32(row[:SEED_VIEW].tobytes())])


def match_context(row: np.ndarray) -> np.ndarray:
    """(dealer, deal index, own points, other team's points, deals in the match)
    from an observation (relative seats: observer = 0, so own is team 0)."""
    dealer, deal, num_deals, own, opp = read_match(row)
    return np.array([dealer, deal, own, opp, num_deals], np.int64)


@njit(cache=True)
def deal_world(keys, unseen, n_unseen, n_left, owner):
    """owner[k]: the seat dealt the k-th unseen card in this world (4: unused);
    the unseen cards are ranked by their random keys."""
    order = np.argsort(keys[:n_unseen])
    k = 0
    for r in range(1, 4):
        for _ in range(n_left[r]):
            owner[order[k]] = r
            k += 1
    while k < n_unseen:
        owner[order[k]] = UNUSED
        k += 1


@njit(cache=True)
def constrain_keys(keys, n_unseen, n_left, known):
    """Each world of ``keys`` repaired so that the k-th unseen card is dealt to
    seat ``known[k]`` (1-3; 0: free): a misplaced card trades keys with a card of
    that seat that is not itself known there, picked by the misplaced card's own
    key (a uniform pick). A seat known to hold more cards than it has keeps as
    many as fit."""
    owner = np.empty(48, np.int64)
    for w in range(keys.shape[0]):
        deal_world(keys[w], np.arange(48), n_unseen, n_left, owner)
        for k in range(n_unseen):
            r = known[k]
            if r <= 0 or owner[k] == r:
                continue
            m = 0
            for j in range(n_unseen):
                if owner[j] == r and known[j] != r:
                    m += 1
            if m == 0:
                continue
            pick = int(keys[w, k] * 1e6) % m
            for j in range(n_unseen):
                if owner[j] == r and known[j] != r:
                    if pick == 0:
                        keys[w, k], keys[w, j] = keys[w, j], keys[w, k]
                        owner[j], owner[k] = owner[k], r
                        break
                    pick -= 1


@njit(cache=True)
def set_world(game, cards, card_trick, trick, unseen, n_unseen, owner, winners, counts,
              reached, in_run, leader, t, n_in, context, strength):
    """One game record as a sampled world (the unseen cards dealt by ``owner``)
    of the observer's view, with the first ``n_in`` cards of the trick in
    progress played (``trick``: each relative seat's card) and the next seat
    to act; ``context``: dealer, deal index, both teams' match points and the
    match's deals (:func:`match_context`), which only a policy's
    observations read."""
    for c in range(48):
        game.card_state[c] = cards[c]
        game.card_trick[c] = card_trick[c]
    for k in range(n_unseen):
        game.card_state[unseen[k]] = owner[k]
    for k in range(9):
        game.trick_winners[k] = winners[k]
    for s in range(4):
        game.counts[s] = counts[s]
        game.reached[s] = reached[s]
        game.in_run[s] = in_run[s]
    for k in range(4):
        seat = seat_at(leader, k)
        game.trick_cards[k] = trick[seat] if k < n_in else -1
        if k >= n_in and trick[seat] >= 0:  # a later card of this trick, back in its hand
            game.card_state[trick[seat]] = seat
            game.card_trick[trick[seat]] = -1
    game.best, game.best_seat, game.tied = trick_so_far(trick, leader, n_in, strength)
    game.leader, game.trick_index, game.n_in_trick = leader, t, n_in
    game.to_act = seat_at(leader, n_in)
    game.dealer, game.deal_index = context[0], context[1]
    game.first_dealer = first_dealer_of(context[0], context[1])
    game.points[0], game.points[1] = context[2], context[3]
    game.num_deals = context[4]
    game.over = False


@njit(cache=True)
def fill_worlds(keys, info, cards, card_trick, trick, winners, counts, reached, in_run, unseen,
                n_left, plays, context, strength, st):
    """Set up game w * n_plays + j of ``st`` as world w of ``keys`` with the
    observer (seat 0) to play ``plays[j]``."""
    leader, t, n_in = info[I_LEADER], info[I_T], info[I_N_IN]
    n_unseen, n_plays = info[I_UNSEEN], info[I_PLAYS]
    owner = np.empty(48, np.int64)
    for w in range(keys.shape[0]):
        deal_world(keys[w], unseen, n_unseen, n_left, owner)
        for j in range(n_plays):
            set_world(st[w * n_plays + j], cards, card_trick, trick, unseen, n_unseen, owner,
                      winners, counts, reached, in_run, leader, t, n_in, context, strength)


@njit(cache=True)
def fill_before_plays(keys, info, cards, card_trick, trick, winners, counts, reached, in_run,
                      unseen, n_left, context, strength, st):
    """Game w * n_in + k of ``st``: world w of ``keys`` as it stood before the
    k-th card of the current trick was played (that card and the later ones
    back in their players' hands), that card's player to act."""
    leader, t, n_in = info[I_LEADER], info[I_T], info[I_N_IN]
    n_unseen = info[I_UNSEEN]
    owner = np.empty(48, np.int64)
    for w in range(keys.shape[0]):
        deal_world(keys[w], unseen, n_unseen, n_left, owner)
        for k in range(n_in):
            set_world(st[w * n_in + k], cards, card_trick, trick, unseen, n_unseen, owner,
                      winners, counts, reached, in_run, leader, t, k, context, strength)
