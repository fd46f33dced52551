"""The numba kernels of the batched engine: N games stepped in compiled loops.

The kernels hold the state of N games in arrays and loop over them so that no
Python code runs per game; every rule they apply is a call to the game core's
own function (``card_beats``, ``record_trick``, ``deal_points``,
``dealer_of``, ``first_leader``: :mod:`aluette_env.game.rules`, compiled
through :mod:`aluette_env._jit`), so the rules are not restated here.
``tests/test_vector.py`` still pins the engine to the game core (2,000 deals
played through both, every observation, reward and result compared), and
the same functions run as plain Python when numba is missing or disabled.

The state of N games is one record array of the named structure
:data:`GAME_STATE` (one record per game; a kernel reads ``g = st[i]``,
``g.counts[s]``); a finished deal's outcome is written to a
:data:`DEAL_RESULT` record array. Card codes in ``card_state`` ([48] a game):
``0-3`` in that seat's hand, ``UNUSED``, ``IN_TRICK + seat`` in the trick in
progress, ``PLAYED + seat`` played in an earlier trick of this deal.
``SPOILED`` marks a spoiled trick in ``trick_winners`` (-1: not played yet).

May import: numpy, :mod:`aluette_env._jit`, :mod:`aluette_env.game` and the
observation layout.
"""

from __future__ import annotations

import numpy as np

from .._jit import COMPILED as _COMPILED
from .._jit import HAVE_NUMBA, njit  # noqa: F401 - HAVE_NUMBA: re-exported
from ..game import (
    HAND_SIZE, NUM_CARDS, NUM_SEATS, NUM_TRICKS, STRENGTH, card_beats, deal_order, deal_points,
    dealer_of, first_leader, record_trick, team_of,
)
from ..observation import (
    IN_TRICK, MAX_DEALS, MAX_POINTS, OFFSET, PLAYED, ROW, SPOILED_COLUMN, UNSEEN,
)

# Card codes (the observation reader's location codes, absolute seats here) and
# trick-winner codes (module constants: numba folds them).
UNUSED = UNSEEN
SPOILED = SPOILED_COLUMN
NO_CARD = -1
DEALT = NUM_SEATS * HAND_SIZE  # 36 cards dealt, the rest unused (R5)
SEAT_BITS = NUM_SEATS - 1  # seat arithmetic modulo 4 as a bit mask (NUM_SEATS is 4)

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
_TRICK_ROW, _PLAYED_ROW = ROW["trick"], ROW["played"]
_WINNERS_ROW, _COUNTS_ROW, _REACHED_ROW = ROW["trick_winners"], ROW["trick_counts"], ROW["reached"]


#: One game's state: a numpy structured dtype, so N games are one record array
#: (``state["counts"]`` is an [N, 4] view; in a kernel ``g = st[i]``, ``g.counts[s]``).
GAME_STATE = np.dtype([
    ("card_state", np.int8, (NUM_CARDS,)),  # card codes (module docstring)
    ("trick_winners", np.int8, (NUM_TRICKS,)),  # seat, SPOILED, or NO_CARD (not played)
    ("counts", np.int8, (NUM_SEATS,)),  # tricks won this deal (R13)
    ("reached", np.int8, (NUM_SEATS,)),  # trick index of each seat's latest win (R14), -1
    ("in_run", np.uint8, (NUM_SEATS,)),  # 1: the seat can still make Mordienne (R16)
    ("leader", np.int8),  # seat leading the trick in progress
    ("to_act", np.int8),  # seat to play
    ("n_in_trick", np.int8),  # cards in the trick in progress
    ("trick_index", np.int8),  # 0-9
    ("best", np.int8),  # highest strength in the trick so far
    ("best_seat", np.int8),  # its seat
    ("tied", np.bool_),  # the highest strength is shared (R11)
    ("dealer", np.int8),
    ("first_dealer", np.int8),  # dealer of the match's first deal
    ("deal_index", np.int8),  # 0-based deal in the match
    ("points", np.int16, (2,)),  # match points by team
    ("over", np.bool_),  # the match is finished
])

#: Each game's latest finished deal.
DEAL_RESULT = np.dtype([
    ("winners", np.int8, (NUM_TRICKS,)),  # trick winners (SPOILED for spoiled)
    ("counts", np.int8, (NUM_SEATS,)),
    ("winner", np.int8),  # deal winner seat, -1 nobody (R15)
    ("mordienne", np.bool_),
    ("points", np.int8, (2,)),  # points by team
    ("dealer", np.int8),
    ("deal", np.int8),  # deal index in its match
])


def kernel_view(records: np.ndarray) -> np.ndarray:
    """What the kernels take: a plain ndarray when compiled (numba's fast argument
    path), the recarray itself when they run as plain Python (attribute access
    on its records)."""
    return records.view(np.ndarray) if _COMPILED else records


def new_state(n: int) -> np.ndarray:
    """N games before their first deal: a ``GAME_STATE`` record array."""
    # A recarray: attribute access (``state.counts``) from Python too, and its
    # records stay writable views when the kernels run as plain Python.
    st = np.zeros(n, GAME_STATE).view(np.recarray)
    st["card_state"] = UNUSED
    st["trick_winners"] = NO_CARD
    st["reached"] = -1
    return st


def new_results(n: int) -> np.ndarray:
    res = np.zeros(n, DEAL_RESULT).view(np.recarray)
    res["winners"] = NO_CARD
    res["winner"] = -1
    return res


@njit(cache=True)
def find_illegal(st, actions, active):
    """Index of the first live, active game whose action is not in the hand to act, or -1."""
    for i in range(actions.shape[0]):
        g = st[i]
        if g.over or not active[i]:
            continue
        a = actions[i]
        if a < 0 or a >= NUM_CARDS or g.card_state[a] != g.to_act:
            return i
    return -1


@njit(cache=True)
def play(st, num_deals, actions, active, strength, res, rewards, deal_done, match_done):
    """Play one card in every live, active game (R9-R12); score finished deals
    (R13-R16) into ``res`` and matches (R2). Sets ``deal_done`` / ``match_done``
    and the deal points by seat in ``rewards``; the caller deals anew."""
    for i in range(actions.shape[0]):
        deal_done[i] = False
        match_done[i] = False
        for s in range(NUM_SEATS):
            rewards[i, s] = 0.0
        g = st[i]
        if g.over or not active[i]:
            continue
        seat = int(g.to_act)
        card = actions[i]
        g.card_state[card] = IN_TRICK + seat
        g.best, g.best_seat, g.tied = card_beats(g.n_in_trick, g.best, g.best_seat, g.tied,
                                                 strength[card], seat)  # R10, R11
        g.n_in_trick += 1
        if g.n_in_trick < NUM_SEATS:
            g.to_act = (seat + 1) & SEAT_BITS
            continue
        # The trick is complete (R10, R11).
        t = int(g.trick_index)
        for c in range(NUM_CARDS):
            if IN_TRICK <= g.card_state[c] < PLAYED:
                g.card_state[c] += PLAYED - IN_TRICK
        w = -1 if g.tied else int(g.best_seat)
        record_trick(g.counts, g.reached, g.in_run, w, t)  # R13, R14, R16
        if w < 0:
            g.trick_winners[t] = SPOILED  # R11: the same leader leads again
        else:
            g.trick_winners[t] = w
            g.leader = w  # R10
        g.to_act = g.leader
        g.n_in_trick = 0
        g.trick_index = t + 1
        if t + 1 < NUM_TRICKS:
            continue
        # The deal is over: R13-R16.
        winner, pts, mordienne = deal_points(g.counts, g.reached, g.in_run)
        r = res[i]
        r.points[0] = 0
        r.points[1] = 0
        if winner >= 0:
            team = team_of(winner)
            r.points[team] = pts
            g.points[team] += pts
            for s in range(NUM_SEATS):
                rewards[i, s] = pts if team_of(s) == team else -pts
        for k in range(NUM_TRICKS):
            r.winners[k] = g.trick_winners[k]
        for s in range(NUM_SEATS):
            r.counts[s] = g.counts[s]
        r.winner = winner
        r.mordienne = mordienne
        r.dealer = g.dealer
        r.deal = g.deal_index
        deal_done[i] = True
        g.deal_index += 1
        if g.deal_index >= num_deals:
            match_done[i] = True
            g.over = True


@njit(cache=True)
def start_deals(st, games, hands):
    """Deal ``hands[k]`` (4 x 9 card ids) to game ``games[k]`` for its deal
    ``deal_index`` (dealer rotating from the first dealer, R6)."""
    for k in range(games.shape[0]):
        g = st[games[k]]
        for c in range(NUM_CARDS):
            g.card_state[c] = UNUSED
        for s in range(NUM_SEATS):
            for j in range(HAND_SIZE):
                g.card_state[hands[k, s, j]] = s
            g.counts[s] = 0
            g.reached[s] = -1
            g.in_run[s] = 0
        for t in range(NUM_TRICKS):
            g.trick_winners[t] = NO_CARD
        d = dealer_of(int(g.first_dealer), int(g.deal_index))  # R6
        g.dealer = d
        g.leader = first_leader(d)
        g.to_act = g.leader
        g.n_in_trick = 0
        g.trick_index = 0


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
        g = st[i]
        o = int(g.to_act)
        row = obs[i]
        row[:] = 0
        for c in range(NUM_CARDS):
            code = int(g.card_state[c])
            if code == o:
                row[_O_HAND + c] = 1
            elif code >= PLAYED:
                row[_O_PLAYED + ((code - PLAYED - o) & SEAT_BITS) * _PLAYED_ROW + c] = 1
            elif code >= IN_TRICK:
                row[_O_TRICK + ((code - IN_TRICK - o) & SEAT_BITS) * _TRICK_ROW + c] = 1
        for t in range(NUM_TRICKS):
            w = int(g.trick_winners[t])
            if w < 0:
                break
            col = SPOILED if w == SPOILED else (w - o) & SEAT_BITS
            row[_O_WINNERS + t * _WINNERS_ROW + col] = 1
        for s in range(NUM_SEATS):
            r = (s - o) & SEAT_BITS
            n = int(g.counts[s])
            for k in range(n):
                row[_O_COUNTS + r * _COUNTS_ROW + k] = 1
            if n > 0:
                row[_O_REACHED + r * _REACHED_ROW + int(g.reached[s])] = 1
                row[_O_WON + r] = 1
            if g.in_run[s] != 0:
                row[_O_RUN + r] = 1
        row[_O_DEALER + ((int(g.dealer) - o) & SEAT_BITS)] = 1
        ti = int(g.trick_index)
        if ti < NUM_TRICKS:
            row[_O_LEADER + ((int(g.leader) - o) & SEAT_BITS)] = 1
            row[_O_TO_ACT] = 1
            row[_O_TRICK_INDEX + ti] = 1
        if not g.over:
            k = int(g.deal_index)
            row[_O_DEAL + min(k, MAX_DEALS - 1)] = 1
            row[_O_DEALS_LEFT + min(num_deals - k, MAX_DEALS) - 1] = 1
        own = min(int(g.points[o & 1]), MAX_POINTS)
        opp = min(int(g.points[1 - (o & 1)]), MAX_POINTS)
        for k in range(own):
            row[_O_POINTS_OWN + k] = 1
        for k in range(opp):
            row[_O_POINTS_OPP + k] = 1
        live = not g.over
        for c in range(NUM_CARDS):
            mask[i, c] = row[_O_HAND + c] if live else 0
