"""The numba kernels of the batched engine: the rules' one allowed second statement.

:mod:`aluette_env.game` states each rule once in plain Python; these loops
restate R5 and R9-R16 over arrays of N games so that no Python code runs per
game. ``tests/test_vector.py`` pins them to the game core (2,000 deals played
through both, every observation, reward and result compared), and the same
functions run as plain Python when numba is missing or disabled.

The state of N games is one :class:`GameState` of arrays; a finished deal's
outcome is written to :class:`DealResults`. Card codes in
``GameState.card_state`` ([N, 48]): ``0-3`` in that seat's hand, ``UNUSED``,
``IN_TRICK + seat`` in the trick in progress, ``PLAYED + seat`` played in an
earlier trick of this deal. ``SPOILED`` marks a spoiled trick in
``trick_winners`` (-1: not played yet).

May import: numpy, numba, :mod:`aluette_env.game` and the observation layout.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..game import HAND_SIZE, NUM_CARDS, NUM_SEATS, NUM_TRICKS, STRENGTH, deal_order
from ..observation import MAX_DEALS, MAX_POINTS, OFFSET

try:
    from numba import njit
    HAVE_NUMBA = True
except ImportError:  # the same code runs as plain Python: correct, but slow
    HAVE_NUMBA = False

    def njit(*args, **kwargs):
        if args and callable(args[0]):
            return args[0]
        return lambda f: f

# Card codes and trick-winner codes (module constants: numba folds them).
UNUSED = 4
IN_TRICK = 5
PLAYED = 9
SPOILED = 4
NO_CARD = -1
DEALT = NUM_SEATS * HAND_SIZE  # 36 cards dealt, the rest unused (R5)

STRENGTH_ARRAY = np.array(STRENGTH, np.int8)
# DEAL_ORDER[dealer, k]: seat receiving the k-th card of the shuffled deck (R5).
DEAL_ORDER = np.array([deal_order(d) for d in range(NUM_SEATS)], np.int8)

_O_HAND = OFFSET["hand"]
_O_TRICK = OFFSET["trick"]
_O_PLAYED = OFFSET["played"]
_O_WINNERS = OFFSET["trick_winners"]
_O_COUNTS = OFFSET["trick_counts"]
_O_REACHED = OFFSET["reached"]
_O_WON = OFFSET["won_a_trick"]
_O_RUN = OFFSET["in_run"]
_O_LEADER = OFFSET["leader"]
_O_TO_ACT = OFFSET["to_act"]
_O_TRICK_INDEX = OFFSET["trick_index"]
_O_DEALER = OFFSET["dealer"]
_O_DEAL = OFFSET["deal"]
_O_DEALS_LEFT = OFFSET["deals_left"]
_O_POINTS_OWN = OFFSET["points_own"]
_O_POINTS_OPP = OFFSET["points_opp"]
_WINNERS_STRIDE = NUM_SEATS + 1


class GameState(NamedTuple):
    """N matches in progress; row i is game i."""

    card_state: np.ndarray  # [N, 48] int8 card codes (module docstring)
    trick_winners: np.ndarray  # [N, 9] int8 seat, SPOILED, or -1
    counts: np.ndarray  # [N, 4] int8 tricks won this deal (R13)
    reached: np.ndarray  # [N, 4] int8 trick index of the latest win (R14), -1
    in_run: np.ndarray  # [N, 4] bool: can still make Mordienne (R16)
    leader: np.ndarray  # [N] int8 seat leading the trick in progress
    to_act: np.ndarray  # [N] int8 seat to play
    n_in_trick: np.ndarray  # [N] int8 cards in the trick in progress
    trick_index: np.ndarray  # [N] int8 0-9
    best: np.ndarray  # [N] int8 highest strength in the trick so far
    best_seat: np.ndarray  # [N] int8 its seat
    tied: np.ndarray  # [N] bool: the highest strength is shared (R11)
    dealer: np.ndarray  # [N] int8
    first_dealer: np.ndarray  # [N] int8 dealer of the match's first deal
    deal_index: np.ndarray  # [N] int8 0-based deal in the match
    points: np.ndarray  # [N, 2] int16 match points by team
    over: np.ndarray  # [N] bool: the match is finished


class DealResults(NamedTuple):
    """Each game's latest finished deal, and the flags of the last step."""

    rewards: np.ndarray  # [N, 4] float32 deal points by seat, this step
    deal_done: np.ndarray  # [N] bool
    match_done: np.ndarray  # [N] bool
    winners: np.ndarray  # [N, 9] int8 trick winners (SPOILED for spoiled)
    counts: np.ndarray  # [N, 4] int8
    winner: np.ndarray  # [N] int8 deal winner seat, -1 nobody (R15)
    mordienne: np.ndarray  # [N] bool
    points: np.ndarray  # [N, 2] int8 points by team
    dealer: np.ndarray  # [N] int8
    deal: np.ndarray  # [N] int8 deal index in its match


def new_state(n: int) -> GameState:
    i8 = np.int8
    return GameState(
        card_state=np.full((n, NUM_CARDS), UNUSED, i8),
        trick_winners=np.full((n, NUM_TRICKS), NO_CARD, i8),
        counts=np.zeros((n, NUM_SEATS), i8), reached=np.full((n, NUM_SEATS), -1, i8),
        in_run=np.zeros((n, NUM_SEATS), np.bool_), leader=np.zeros(n, i8),
        to_act=np.zeros(n, i8), n_in_trick=np.zeros(n, i8), trick_index=np.zeros(n, i8),
        best=np.zeros(n, i8), best_seat=np.zeros(n, i8), tied=np.zeros(n, np.bool_),
        dealer=np.zeros(n, i8), first_dealer=np.zeros(n, i8), deal_index=np.zeros(n, i8),
        points=np.zeros((n, 2), np.int16), over=np.zeros(n, np.bool_))


def new_results(n: int) -> DealResults:
    i8 = np.int8
    return DealResults(
        rewards=np.zeros((n, NUM_SEATS), np.float32), deal_done=np.zeros(n, np.bool_),
        match_done=np.zeros(n, np.bool_), winners=np.full((n, NUM_TRICKS), NO_CARD, i8),
        counts=np.zeros((n, NUM_SEATS), i8), winner=np.full(n, -1, i8),
        mordienne=np.zeros(n, np.bool_), points=np.zeros((n, 2), i8),
        dealer=np.zeros(n, i8), deal=np.zeros(n, i8))


@njit(cache=True)
def find_illegal(st, actions, active):
    """Index of the first live, active game whose action is not in the hand to act, or -1."""
    for i in range(actions.shape[0]):
        if st.over[i] or not active[i]:
            continue
        a = actions[i]
        if a < 0 or a >= NUM_CARDS or st.card_state[i, a] != st.to_act[i]:
            return i
    return -1


@njit(cache=True)
def play(st, num_deals, actions, active, strength, res):
    """Play one card in every live, active game (R9-R12); score finished deals
    (R13-R16) and matches (R2). Sets ``res.deal_done`` / ``res.match_done``;
    the caller deals anew."""
    for i in range(actions.shape[0]):
        res.deal_done[i] = False
        res.match_done[i] = False
        for s in range(NUM_SEATS):
            res.rewards[i, s] = 0.0
        if st.over[i] or not active[i]:
            continue
        seat = int(st.to_act[i])
        card = actions[i]
        st.card_state[i, card] = IN_TRICK + seat
        strength_now = strength[card]
        if st.n_in_trick[i] == 0 or strength_now > st.best[i]:
            st.best[i] = strength_now
            st.best_seat[i] = seat
            st.tied[i] = False
        elif strength_now == st.best[i]:
            st.tied[i] = True  # R11: a shared highest card spoils the trick
        st.n_in_trick[i] += 1
        if st.n_in_trick[i] < NUM_SEATS:
            st.to_act[i] = (seat + 1) % NUM_SEATS
            continue
        # The trick is complete (R10, R11).
        t = int(st.trick_index[i])
        for c in range(NUM_CARDS):
            if IN_TRICK <= st.card_state[i, c] < PLAYED:
                st.card_state[i, c] += PLAYED - IN_TRICK
        if st.tied[i]:
            st.trick_winners[i, t] = SPOILED
            for s in range(NUM_SEATS):
                st.in_run[i, s] = False
        else:
            w = int(st.best_seat[i])
            st.trick_winners[i, t] = w
            live = st.counts[i, w] == 0 or st.in_run[i, w]
            for s in range(NUM_SEATS):
                st.in_run[i, s] = False
            st.in_run[i, w] = live
            st.counts[i, w] += 1
            st.reached[i, w] = t
            st.leader[i] = w
        st.to_act[i] = st.leader[i]
        st.n_in_trick[i] = 0
        st.trick_index[i] = t + 1
        if t + 1 < NUM_TRICKS:
            continue
        # The deal is over: R13 most tricks, R14 first to reach, R15, R16.
        winner = -1
        for s in range(NUM_SEATS):
            if st.counts[i, s] == 0:
                continue
            if winner < 0 or st.counts[i, s] > st.counts[i, winner] or (
                    st.counts[i, s] == st.counts[i, winner]
                    and st.reached[i, s] < st.reached[i, winner]):
                winner = s
        mordienne = winner >= 0 and st.in_run[i, winner] and st.counts[i, winner] >= 2
        pts = 0 if winner < 0 else (2 if mordienne else 1)
        res.points[i, 0] = 0
        res.points[i, 1] = 0
        if winner >= 0:
            res.points[i, winner % 2] = pts
            st.points[i, winner % 2] += pts
            for s in range(NUM_SEATS):
                res.rewards[i, s] = pts if (s % 2) == (winner % 2) else -pts
        for k in range(NUM_TRICKS):
            res.winners[i, k] = st.trick_winners[i, k]
        for s in range(NUM_SEATS):
            res.counts[i, s] = st.counts[i, s]
        res.winner[i] = winner
        res.mordienne[i] = mordienne
        res.dealer[i] = st.dealer[i]
        res.deal[i] = st.deal_index[i]
        res.deal_done[i] = True
        st.deal_index[i] += 1
        if st.deal_index[i] >= num_deals:
            res.match_done[i] = True
            st.over[i] = True


@njit(cache=True)
def start_deals(st, games, hands):
    """Deal ``hands[k]`` (4 x 9 card ids) to game ``games[k]`` for its deal
    ``deal_index`` (dealer rotating from the first dealer, R6)."""
    for k in range(games.shape[0]):
        i = games[k]
        for c in range(NUM_CARDS):
            st.card_state[i, c] = UNUSED
        for s in range(NUM_SEATS):
            for j in range(HAND_SIZE):
                st.card_state[i, hands[k, s, j]] = s
            st.counts[i, s] = 0
            st.reached[i, s] = -1
            st.in_run[i, s] = False
        for t in range(NUM_TRICKS):
            st.trick_winners[i, t] = NO_CARD
        d = (int(st.first_dealer[i]) + int(st.deal_index[i])) % NUM_SEATS
        st.dealer[i] = d
        st.leader[i] = (d + 1) % NUM_SEATS
        st.to_act[i] = (d + 1) % NUM_SEATS
        st.n_in_trick[i] = 0
        st.trick_index[i] = 0


@njit(cache=True)
def hands_from_decks(decks, dealers, order):
    """R5: deal shuffled decks clockwise from each dealer's left in packets of three."""
    n = decks.shape[0]
    hands = np.empty((n, NUM_SEATS, HAND_SIZE), np.int8)
    for k in range(n):
        filled = np.zeros(NUM_SEATS, np.int64)
        for j in range(DEALT):
            s = order[dealers[k], j]
            hands[k, s, filled[s]] = decks[k, j]
            filled[s] += 1
    return hands


@njit(cache=True)
def observe(st, num_deals, obs, mask):
    """Write the observation (OBS_VERSION layout) and mask of the seat to act."""
    for i in range(obs.shape[0]):
        o = int(st.to_act[i])
        row = obs[i]
        row[:] = 0
        for c in range(NUM_CARDS):
            code = int(st.card_state[i, c])
            if code == o:
                row[_O_HAND + c] = 1
            elif code >= PLAYED:
                row[_O_PLAYED + ((code - PLAYED - o) % NUM_SEATS) * NUM_CARDS + c] = 1
            elif code >= IN_TRICK:
                row[_O_TRICK + ((code - IN_TRICK - o) % NUM_SEATS) * NUM_CARDS + c] = 1
        for t in range(NUM_TRICKS):
            w = int(st.trick_winners[i, t])
            if w < 0:
                break
            col = SPOILED if w == SPOILED else (w - o) % NUM_SEATS
            row[_O_WINNERS + t * _WINNERS_STRIDE + col] = 1
        for s in range(NUM_SEATS):
            r = (s - o) % NUM_SEATS
            n = int(st.counts[i, s])
            for k in range(n):
                row[_O_COUNTS + r * NUM_TRICKS + k] = 1
            if n > 0:
                row[_O_REACHED + r * NUM_TRICKS + int(st.reached[i, s])] = 1
                row[_O_WON + r] = 1
            if st.in_run[i, s]:
                row[_O_RUN + r] = 1
        row[_O_DEALER + ((int(st.dealer[i]) - o) % NUM_SEATS)] = 1
        ti = int(st.trick_index[i])
        if ti < NUM_TRICKS:
            row[_O_LEADER + ((int(st.leader[i]) - o) % NUM_SEATS)] = 1
            row[_O_TO_ACT] = 1
            row[_O_TRICK_INDEX + ti] = 1
        if not st.over[i]:
            k = int(st.deal_index[i])
            row[_O_DEAL + min(k, MAX_DEALS - 1)] = 1
            row[_O_DEALS_LEFT + min(num_deals - k, MAX_DEALS) - 1] = 1
        own = min(int(st.points[i, o % 2]), MAX_POINTS)
        opp = min(int(st.points[i, 1 - (o % 2)]), MAX_POINTS)
        for k in range(own):
            row[_O_POINTS_OWN + k] = 1
        for k in range(opp):
            row[_O_POINTS_OPP + k] = 1
        live = not st.over[i]
        for c in range(NUM_CARDS):
            mask[i, c] = row[_O_HAND + c] if live else 0
