"""The exact perfect-information solver for the rest of a deal (numba).

It sees all four hands. Cards of equal strength are interchangeable (R8), so
hands are multisets of strength levels (0-18) and equal cards in one hand are
one move; two levels in one hand with no card of any other seat (hands and
trick) at or between them are one move too. Alpha-beta over the plays of the
remaining tricks, team 0 maximising (its points minus team 1's: -2 to 2), a
transposition table at trick starts (zobrist keys), and move ordering that
tries cheap winning cards and the weakest card first; an explicit stack
instead of recursion, so that numba can cache it.

It applies the rules by calling the game core's own functions (the seat at
each place of a trick ``seat_at``, ``trick_winner_of_levels``, the trick's end
``end_trick``, which updates the tally and says who leads next, ``deal_points``
and ``team_points``: compiled through :mod:`aluette_env._jit`), the same
functions the game's step calls. The ``expert``
player solves endgames with it (``solve_tricks``); ``tests/solver_oracle.py``
holds a plain Python solver and a brute force that pin it.

May import: numpy, :mod:`aluette_env._jit`, :mod:`aluette_env.game`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._jit import njit
from ..game import (
    NUM_TRICKS, STRENGTH, deal_points, end_trick, seat_at, seat_gain, team_of, team_points,
    trick_winner_of_levels,
)


@dataclass
class Position:
    """A deal in progress, seen with every hand: seats 0-3 (team 0: seats 0 and 2).

    ``hands[s]``: sorted tuple of strength levels; ``trick``: strengths played
    so far in the trick in progress, from ``leader``; ``counts``/``reached``/
    ``in_run`` as in :class:`aluette_env.game.Deal`; ``trick_index`` 0-9.
    """

    hands: tuple[tuple[int, ...], ...]
    leader: int
    trick: tuple[int, ...] = ()
    counts: tuple[int, ...] = (0, 0, 0, 0)
    reached: tuple[int, ...] = (-1, -1, -1, -1)
    in_run: tuple[bool, ...] = (False, False, False, False)
    trick_index: int = 0

    @classmethod
    def from_cards(cls, hands, leader, trick_cards=(), **kw) -> Position:
        return cls(tuple(tuple(sorted(STRENGTH[c] for c in h)) for h in hands), leader,
                   tuple(STRENGTH[c] for c in trick_cards), **kw)


TABLE_BITS = 20  # transposition table of 2**20 entries (24 MiB)
MAX_PLY = 40  # 9 tricks of 4 plays, and one pass-through node per trick end
# Zobrist keys: hand counts [seat, level, count], leader, counts, reached, in_run, trick index
_Z_HAND, _Z_LEADER = 0, 4 * 19 * 10
_Z_COUNTS = _Z_LEADER + 4
_Z_REACHED = _Z_COUNTS + 4 * 10
_Z_RUN = _Z_REACHED + 4 * 11
_Z_TRICK = _Z_RUN + 4
_Z_SIZE = _Z_TRICK + 10


@njit(cache=True)
def _table_key(hands, leader, counts, reached, in_run, t, zobrist):
    key = zobrist[_Z_LEADER + leader] ^ zobrist[_Z_TRICK + t]
    for s in range(4):
        for lv in range(19):
            n = hands[s, lv]
            if n > 0:
                key ^= zobrist[_Z_HAND + (s * 19 + lv) * 10 + n]
        key ^= zobrist[_Z_COUNTS + s * 10 + counts[s]]
        key ^= zobrist[_Z_REACHED + s * 11 + reached[s] + 1]
        if in_run[s]:
            key ^= zobrist[_Z_RUN + s]
    return key


@njit(cache=True)
def distinct_plays(hands, trick, n_in, seat, out):
    """The plays of ``seat`` worth searching, best first, into ``out``; returns how
    many. One level per class of interchangeable levels (no card of another seat
    or of the trick at or between them); following: the cheapest winner, the
    weakest loser, then the other winners and losers high to low; leading: the
    highest, the lowest, then the rest high to low."""
    other = np.zeros(19, np.int64)
    for s in range(4):
        if s != seat:
            for lv in range(19):
                other[lv] += hands[s, lv]
    top = -1
    for k in range(n_in):
        other[trick[k]] += 1
        top = max(top, trick[k])
    reps = np.empty(19, np.int64)
    nr = 0
    open_class = False
    for lv in range(19):
        if other[lv] > 0:
            open_class = False
        if hands[seat, lv] > 0:
            if not open_class:
                reps[nr] = lv
                nr += 1
            open_class = other[lv] == 0
    n = 0
    if n_in > 0:
        cheap_win, weak_lose = -1, -1
        for i in range(nr):
            if reps[i] > top and cheap_win < 0:
                cheap_win = reps[i]
            if reps[i] <= top and weak_lose < 0:
                weak_lose = reps[i]
        for lv in (cheap_win, weak_lose):
            if lv >= 0:
                out[n] = lv
                n += 1
        for i in range(nr - 1, -1, -1):
            if reps[i] > top and reps[i] != cheap_win:
                out[n] = reps[i]
                n += 1
        for i in range(nr - 1, -1, -1):
            if reps[i] <= top and reps[i] != weak_lose:
                out[n] = reps[i]
                n += 1
    else:
        out[n] = reps[nr - 1]
        n += 1
        if nr > 1:
            out[n] = reps[0]
            n += 1
        for i in range(nr - 2, 0, -1):
            out[n] = reps[i]
            n += 1
    return n


@njit(cache=True)
def solve(hands, trick, n_in, leader, counts, reached, in_run, t, alpha, beta,
          zobrist, table_key, table_lo, table_hi, nodes):
    """Exact value for team 0 (-2 to 2) of the deal from this position, clipped to
    the window [alpha, beta] like any alpha-beta. ``hands`` [4, 19]: cards of
    each strength level per seat; ``trick`` [4]: levels played so far in the
    trick in progress (``n_in`` of them, from ``leader``; n_in = 4: a full trick
    not yet scored). ``hands``, ``trick``, ``counts``, ``reached`` and ``in_run``
    are used as work space and restored. The table (``table_*`` of
    2**TABLE_BITS entries) may be shared between calls and positions.
    ``nodes[0]`` counts the plays tried."""
    moves = np.empty((MAX_PLY, 19), np.int64)
    n_moves = np.zeros(MAX_PLY, np.int64)
    next_move = np.zeros(MAX_PLY, np.int64)
    lo_b = np.zeros(MAX_PLY, np.int64)  # alpha of each node
    hi_b = np.zeros(MAX_PLY, np.int64)  # beta
    best = np.zeros(MAX_PLY, np.int64)
    lo0 = np.zeros(MAX_PLY, np.int64)  # window on entry, for the table's bound type
    hi0 = np.zeros(MAX_PLY, np.int64)
    keys = np.zeros(MAX_PLY, np.int64)
    plies_in = np.zeros(MAX_PLY, np.int64)
    leaders = np.zeros(MAX_PLY, np.int64)
    tricks = np.zeros(MAX_PLY, np.int64)
    trick_end = np.zeros(MAX_PLY, np.bool_)
    saved = np.zeros((MAX_PLY, 16), np.int64)  # tally and trick before a trick end
    mask = (1 << TABLE_BITS) - 1
    p = 0
    plies_in[0], leaders[0], tricks[0], lo_b[0], hi_b[0] = n_in, leader, t, alpha, beta
    mode = 0  # 0: enter node p; 1: node p gets its child's value; 2: node p plays on
    value = 0
    while True:
        if mode == 0:
            k_in, lead, ti = plies_in[p], leaders[p], tricks[p]
            trick_end[p] = False
            done = False
            if ti == NUM_TRICKS:
                winner, points, _ = deal_points(counts, reached, in_run)  # R13-R16
                points0, points1 = team_points(winner, points)
                value = seat_gain(points0, points1, 0)
                done = True
            elif k_in == 4:
                for s in range(4):
                    saved[p, s] = counts[s]
                    saved[p, 4 + s] = reached[s]
                    saved[p, 8 + s] = 1 if in_run[s] else 0
                    saved[p, 12 + s] = trick[s]
                winner = trick_winner_of_levels(trick, 4, lead)  # R10-R11
                trick_end[p] = True
                plies_in[p + 1], tricks[p + 1] = 0, ti + 1
                leaders[p + 1] = end_trick(counts, reached, in_run, winner, lead, ti)
                lo_b[p + 1], hi_b[p + 1] = lo_b[p], hi_b[p]
                p += 1
                continue
            elif k_in == 0:
                key = _table_key(hands, lead, counts, reached, in_run, ti, zobrist)
                keys[p] = key
                slot = key & mask
                if table_key[slot] == key:
                    lo, hi = table_lo[slot], table_hi[slot]
                    if lo >= hi_b[p] or lo == hi:
                        value, done = lo, True
                    elif hi <= lo_b[p]:
                        value, done = hi, True
                    else:
                        lo_b[p] = max(lo_b[p], lo)
                        hi_b[p] = min(hi_b[p], hi)
            if done:
                if p == 0:
                    return value
                p -= 1
                mode = 1
                continue
            lo0[p], hi0[p] = lo_b[p], hi_b[p]
            seat = seat_at(lead, k_in)
            n_moves[p] = distinct_plays(hands, trick, k_in, seat, moves[p])
            next_move[p] = 0
            best[p] = -3 if team_of(seat) == 0 else 3
            mode = 2
        elif mode == 1:
            if trick_end[p]:
                for s in range(4):
                    counts[s] = saved[p, s]
                    reached[s] = saved[p, 4 + s]
                    in_run[s] = saved[p, 8 + s] == 1
                    trick[s] = saved[p, 12 + s]
                if p == 0:
                    return value
                p -= 1
                continue
            seat = seat_at(leaders[p], plies_in[p])
            hands[seat, moves[p, next_move[p] - 1]] += 1
            if team_of(seat) == 0:
                best[p] = max(best[p], value)
                lo_b[p] = max(lo_b[p], best[p])
            else:
                best[p] = min(best[p], value)
                hi_b[p] = min(hi_b[p], best[p])
            mode = 2
        # mode 2: try the next play, or settle the node
        if lo_b[p] < hi_b[p] and next_move[p] < n_moves[p]:
            seat = seat_at(leaders[p], plies_in[p])
            m = moves[p, next_move[p]]
            next_move[p] += 1
            nodes[0] += 1
            hands[seat, m] -= 1
            trick[plies_in[p]] = m
            plies_in[p + 1], leaders[p + 1], tricks[p + 1] = plies_in[p] + 1, leaders[p], tricks[p]
            lo_b[p + 1], hi_b[p + 1] = lo_b[p], hi_b[p]
            p += 1
            mode = 0
            continue
        value = best[p]
        if plies_in[p] == 0:
            key = keys[p]
            slot = key & mask
            lo, hi = -3, 3
            if table_key[slot] == key:
                lo, hi = table_lo[slot], table_hi[slot]
            if value <= lo0[p]:
                hi = min(hi, value)
            elif value >= hi0[p]:
                lo = max(lo, value)
            else:
                lo, hi = value, value
            table_key[slot], table_lo[slot], table_hi[slot] = key, lo, hi
        if p == 0:
            return value
        p -= 1
        mode = 1


class Solver:
    """The exact solver with its transposition table, kept between calls.

    ``tables`` is what compiled callers pass on to :func:`solve` (the zobrist
    keys, the table's key/lower/upper arrays and the node counter), so that a
    search player can solve many worlds in one compiled loop on one table;
    ``nodes`` counts the plays tried so far."""

    def __init__(self) -> None:
        zobrist = np.random.default_rng(20261130).integers(1, 2 ** 62, _Z_SIZE, np.int64)
        size = 1 << TABLE_BITS
        self.tables = (zobrist, np.zeros(size, np.int64), np.zeros(size, np.int64),
                       np.zeros(size, np.int64), np.zeros(1, np.int64))

    @property
    def nodes(self) -> int:
        return int(self.tables[4][0])

    @staticmethod
    def arrays(pos: Position):
        """The numba form of a position: (hands [4, 19], trick [4], n_in, leader,
        counts, reached, in_run, trick index)."""
        hands = np.zeros((4, 19), np.int64)
        for s in range(4):
            for lv in pos.hands[s]:
                hands[s, lv] += 1
        trick = np.zeros(4, np.int64)
        trick[:len(pos.trick)] = pos.trick
        return (hands, trick, len(pos.trick), pos.leader, np.array(pos.counts, np.int64),
                np.array(pos.reached, np.int64), np.array(pos.in_run, np.bool_),
                pos.trick_index)

    def _solve(self, hands, trick, n_in, leader, counts, reached, in_run, t) -> int:
        return int(solve(hands, trick, n_in, leader, counts, reached, in_run, t, -3, 3,
                         *self.tables))

    def value(self, pos: Position) -> int:
        """Exact value of ``pos`` for team 0."""
        return self._solve(*self.arrays(pos))

    def move_values(self, pos: Position) -> dict[int, int]:
        """Value for team 0 after each distinct strength the player to act can play."""
        hands, trick, n_in, leader, counts, reached, in_run, t = self.arrays(pos)
        seat = seat_at(leader, n_in)
        out = {}
        for lv in sorted(set(pos.hands[seat]), reverse=True):
            hands[seat, lv] -= 1
            trick[n_in] = lv
            out[lv] = self._solve(hands, trick, n_in + 1, leader, counts, reached, in_run, t)
            hands[seat, lv] += 1
        return out
