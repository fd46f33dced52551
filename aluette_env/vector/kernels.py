"""The numba kernels of the batched engine: N games stepped in compiled loops.

The kernels hold the state of N games in one record array and loop over them
so that no Python code runs per game. They state no rule: a play is the game's
one step (:func:`aluette_env.game.state.step`), a new deal
:func:`~aluette_env.game.state.start_deal`, an observation the one writer
:func:`aluette_env.observation.write_view`, all compiled through
:mod:`aluette_env._jit`. ``tests/test_vector.py`` still pins the engine to
the core (2,000 deals played through both, every observation, reward and
result compared), and the same functions run as plain Python when numba is
missing or disabled.

The state of N games is one record array of :data:`GAME_STATE`, the numpy
form of the game's state record (:data:`~aluette_env.game.state.STATE_FIELDS`:
one record per game; a kernel reads ``g = st[i]``, ``g.counts[s]``); a
finished deal's outcome is copied to a :data:`DEAL_RESULT` record array.

May import: numpy, :mod:`aluette_env._jit`, :mod:`aluette_env.game` and the
observation module.
"""

from __future__ import annotations

import numpy as np

from .._jit import COMPILED as _COMPILED
from .._jit import HAVE_NUMBA, njit, prange  # noqa: F401 - HAVE_NUMBA: re-exported
from ..game import (
    HAND_SIZE, NOBODY, NUM_ACTIONS, NUM_CARDS, NUM_SEATS, NUM_TRICKS, SIGN_BASE, STRENGTH,
    deal_order, is_legal, seat_gain, start_deal, step, team_points,
)
from ..game.state import (
    CARD_ACTIONS, DEAL_DONE, IN_TRICK, PLAYED, SIGN_ACTIONS, STATE_FIELDS, UNUSED, legal_kind,
)
from ..observation import (
    MAX_ACTIVE, SLICES, write_active, write_hidden, write_signs, write_view,
)

__all__ = ["DEAL_RESULT", "GAME_STATE", "IN_TRICK", "NOBODY", "PLAYED", "UNUSED"]

DEALT = NUM_SEATS * HAND_SIZE  # 36 cards dealt, the rest unused (R5)
_HAND = SLICES["hand"].start

STRENGTH_ARRAY = np.array(STRENGTH, np.int8)
# DEAL_ORDER[dealer, k]: seat receiving the k-th card of the shuffled deck (R5).
DEAL_ORDER = np.array([deal_order(d) for d in range(NUM_SEATS)], np.int8)

_KINDS = {"i1": np.int8, "i2": np.int16, "u1": np.uint8, "b1": np.bool_}
#: One game's state: the game's state record as a numpy structured dtype, so N
#: games are one record array (``state["counts"]`` is an [N, 4] view; in a
#: kernel ``g = st[i]``, ``g.counts[s]``).
GAME_STATE = np.dtype([(name, _KINDS[kind], shape) if shape else (name, _KINDS[kind])
                       for name, kind, shape, _ in STATE_FIELDS])

#: Each game's latest finished deal.
DEAL_RESULT = np.dtype([
    ("winners", np.int8, (NUM_TRICKS,)),  # trick winners (NOBODY: spoiled)
    ("counts", np.int8, (NUM_SEATS,)),
    ("winner", np.int8),  # deal winner seat, NOBODY (R15)
    ("score", np.int8),  # its points: 0, 1 or 2
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


def new_state(n: int, num_deals: int = 1, signs: bool = False) -> np.ndarray:
    """N games before their first deal: a ``GAME_STATE`` record array (``signs``:
    the signs variant, S1)."""
    # A recarray: attribute access (``state.counts``) from Python too, and its
    # records stay writable views when the kernels run as plain Python.
    st = np.zeros(n, GAME_STATE).view(np.recarray)
    st["card_state"] = UNUSED
    st["card_trick"] = -1
    st["trick_cards"] = -1
    st["trick_winners"] = NOBODY
    st["reached"] = -1
    st["deal_winner"] = NOBODY
    st["num_deals"] = num_deals
    st["signs_on"] = signs
    st["signs"] = -1
    return st


def new_results(n: int) -> np.ndarray:
    res = np.zeros(n, DEAL_RESULT).view(np.recarray)
    res["winners"] = NOBODY
    res["winner"] = NOBODY
    return res


@njit(cache=True)
def find_illegal(st, actions, active):
    """Index of the first live, active game whose action is not legal (the game's
    :func:`~aluette_env.game.state.is_legal`: a card in the hand to act, or with
    signs a sign action in the sign phase), or -1."""
    for i in range(actions.shape[0]):
        g = st[i]
        if g.over or not active[i]:
            continue
        if not is_legal(g, actions[i]):
            return i
    return -1


@njit(cache=True)
def play(st, actions, active, strength, res, rewards, deal_done, match_done):
    """Play one card in every live, active game (the game's step: R9-R16, R2);
    copy finished deals' outcomes into ``res``. Sets ``deal_done`` /
    ``match_done`` and the deal points by seat in ``rewards``; the caller deals
    anew."""
    for i in range(actions.shape[0]):
        deal_done[i] = False
        match_done[i] = False
        for s in range(NUM_SEATS):
            rewards[i, s] = 0.0
        g = st[i]
        if g.over or not active[i]:
            continue
        event = step(g, actions[i], strength)
        if event < DEAL_DONE:
            continue
        r = res[i]
        p0, p1 = team_points(g.deal_winner, g.deal_score)
        r.points[0], r.points[1] = p0, p1
        for s in range(NUM_SEATS):
            rewards[i, s] = seat_gain(p0, p1, s)
            r.counts[s] = g.counts[s]
        for k in range(NUM_TRICKS):
            r.winners[k] = g.trick_winners[k]
        r.winner, r.score, r.mordienne = g.deal_winner, g.deal_score, g.mordienne
        r.dealer = g.dealer
        r.deal = g.deal_index - 1
        deal_done[i] = True
        match_done[i] = g.over


@njit(cache=True)
def start_deals(st, games, hands):
    """Deal ``hands[k]`` (4 x 9 card ids) to game ``games[k]`` for its deal
    ``deal_index`` (the game's own start of a deal: R5-R6)."""
    for k in range(games.shape[0]):
        start_deal(st[games[k]], hands[k])


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
def observe(st, obs, mask):
    """Write the observation (layout OBS_LAYOUT) and mask of the seat to act."""
    for i in range(obs.shape[0]):
        g = st[i]
        row = obs[i]
        write_view(g, int(g.to_act), row)
        live = not g.over
        for c in range(NUM_CARDS):
            mask[i, c] = row[_HAND + c] if live else 0


@njit(cache=True)
def observe_signs(st, obs, mask):
    """The signs variant's :func:`observe`: the observation layout 3 vector (the signs
    the seat to act saw, S5) and the game's legal-action mask of NUM_ACTIONS
    (:func:`~aluette_env.game.state.write_legal`'s: the ten sign actions in the
    sign phase, the hand in the card phase), with the hand copied from the row
    just written: calling ``write_legal`` here, on a view of ``mask`` a game,
    made the signs engine's step 4-8 % slower."""
    for i in range(obs.shape[0]):
        g = st[i]
        row = obs[i]
        seat = int(g.to_act)
        write_view(g, seat, row)
        write_signs(g, seat, row)
        kind = legal_kind(g, seat)
        for c in range(NUM_CARDS):
            mask[i, c] = row[_HAND + c] if kind == CARD_ACTIONS else 0
        for a in range(SIGN_BASE, NUM_ACTIONS):
            mask[i, a] = 1 if kind == SIGN_ACTIONS else 0


@njit(cache=True, parallel=True)
def observe_sparse(st, obs, mask, active, hidden):
    """:func:`observe`, and each seat to act's entries set to 1 (``active``, [N,
    MAX_ACTIVE]) and privileged entries (``hidden``, [N, MAX_HIDDEN]) as padded
    index lists, for learners whose first layer computes on the ones. The lists,
    9/10 of the work, are written on numba's threads (``numba.set_num_threads``;
    a learner sets its torch threads' count): one game's per iteration, so the
    result does not depend on the count."""
    observe(st, obs, mask)
    counts = np.empty(obs.shape[0], np.int64)
    for i in prange(obs.shape[0]):
        counts[i] = write_active(obs[i], active[i])
        write_hidden(st[i], int(st[i].to_act), hidden[i])
    if obs.shape[0] and counts.max() > MAX_ACTIVE:  # raised here: not from a thread
        raise ValueError("an observation with more entries set than MAX_ACTIVE")
