"""Perfect-information solver for the rest of a deal, and the PIMC player.

The solver sees all four hands. Cards of equal strength are interchangeable
(R8), so hands are multisets of strength levels (0-18) and equal cards in
one hand are one move. Alpha-beta over the plays of the remaining tricks,
team 0 maximising (its points minus team 1's, R13-R16 deciding the value
at the end: -2 to 2), a transposition table at trick starts, and move
ordering that tries cheap winning cards and the weakest card first.

``FastSolver`` is the same search compiled with numba (an explicit stack
instead of recursion, so that numba can cache it; numba's cache breaks on
recursive functions), with one more exact reduction: two strength levels in
one hand with no card of any other seat (hands and trick) at or between them
are one move. It gives exactly the Python solver's values (tested on random
positions) 30-40 times faster; the ``expert`` player solves endgames with it.

``SearchPlayer`` (spec ``pimc``, ``pimc:worlds=64,solve_tricks=5``) is
Perfect Information Monte Carlo: it samples worlds consistent with what its
seat has seen (its hand, every card played; the unseen cards split uniformly
between the other hands and the twelve unused cards), solves each world
exactly when at most ``solve_tricks`` tricks remain, and plays the card with
the best average. Earlier in the deal it either searches ``depth_tricks``
tricks ahead with a heuristic evaluation at the horizon, or, with
``depth_tricks=0`` (the default, measured stronger: see the README), plays
the rule-based ``heuristic`` move until the endgame can be solved. Seeded
and deterministic.
"""

from __future__ import annotations

import random
import time
import zlib
from dataclasses import dataclass, field

import numpy as np

from ..game import NUM_CARDS, STRENGTH, after_trick, deal_value, team_value
from ..observation import SHAPES, SLICES
from ..vector.kernels import njit
from . import SEED, BatchPlayer, Option
from .heuristic import HeuristicPlayer

WIN_SCORE = 100  # values are in points; heuristic leaf values stay inside (-3, 3)


@dataclass
class Position:
    """A deal in progress, seen with every hand: seats 0-3 (team = seat % 2).

    ``hands[s]``: sorted tuple of strength levels; ``trick``: strengths played
    so far in the trick in progress, from ``leader``; ``counts``/``reached``/
    ``in_run`` as in :class:`aluette_env.rules.Deal`; ``trick_index`` 0-9.
    """

    hands: tuple[tuple[int, ...], ...]
    leader: int
    trick: tuple[int, ...] = ()
    counts: tuple[int, ...] = (0, 0, 0, 0)
    reached: tuple[int, ...] = (-1, -1, -1, -1)
    in_run: tuple[bool, ...] = (False, False, False, False)
    trick_index: int = 0

    @classmethod
    def from_cards(cls, hands, leader, trick_cards=(), **kw) -> "Position":
        return cls(tuple(tuple(sorted(STRENGTH[c] for c in h)) for h in hands), leader,
                   tuple(STRENGTH[c] for c in trick_cards), **kw)


def final_value(counts, reached, in_run) -> int:
    """R13-R16 at the end of the deal, as team 0's points minus team 1's."""
    return team_value(deal_value(counts, reached, in_run))


def _estimate(counts, reached, in_run, hands) -> float:
    """Leaf evaluation of an unfinished deal: the value if it ended now, pulled
    toward zero, plus a little for each sure winner (a card above every card in
    the other hands) a team holds."""
    base = final_value(counts, reached, in_run) * 0.6
    tops = [max(h) if h else -1 for h in hands]
    bonus = 0.0
    for s in range(4):
        others = max(tops[o] for o in range(4) if o != s)
        sure = sum(1 for x in hands[s] if x > others)
        bonus += (0.15 if s % 2 == 0 else -0.15) * sure
    return max(-2.5, min(2.5, base + bonus))


@dataclass
class Solver:
    """Alpha-beta with a transposition table; ``nodes`` counts visited plays."""

    max_tricks: int = 9  # search this many tricks ahead, then estimate
    nodes: int = 0
    table: dict = field(default_factory=dict)

    def value(self, pos: Position) -> float:
        """Exact (or depth-limited) value of ``pos`` for team 0."""
        self.stop_at = min(9, pos.trick_index + self.max_tricks +
                           (1 if pos.trick else 0))
        return self._search(pos.hands, pos.leader, pos.trick, pos.counts, pos.reached,
                            pos.in_run, pos.trick_index, -WIN_SCORE, WIN_SCORE)

    def move_values(self, pos: Position) -> dict[int, float]:
        """Value for team 0 after each distinct strength the player to act can play."""
        seat = (pos.leader + len(pos.trick)) % 4
        out = {}
        for level in sorted(set(pos.hands[seat]), reverse=True):
            hands = list(pos.hands)
            h = list(hands[seat])
            h.remove(level)
            hands[seat] = tuple(h)
            self.stop_at = min(9, pos.trick_index + self.max_tricks + (1 if pos.trick else 0))
            out[level] = self._play_card(tuple(hands), pos.leader, pos.trick + (level,),
                                         pos.counts, pos.reached, pos.in_run, pos.trick_index,
                                         -WIN_SCORE, WIN_SCORE)
        return out

    def _play_card(self, hands, leader, trick, counts, reached, in_run, t, alpha, beta):
        if len(trick) < 4:
            return self._search(hands, leader, trick, counts, reached, in_run, t, alpha, beta)
        best = max(trick)
        # R10-R11 on strength levels (equal cards merged): the solver's one restatement
        # of trick_winner, tested against the game core by tests/test_search.py.
        winner = None if trick.count(best) > 1 else (leader + trick.index(best)) % 4
        counts, reached, in_run = after_trick(counts, reached, in_run, winner, t)
        return self._search(hands, leader if winner is None else winner, (), counts, reached,
                            in_run, t + 1, alpha, beta)

    def _search(self, hands, leader, trick, counts, reached, in_run, t, alpha, beta):
        if t == 9:
            return final_value(counts, reached, in_run)
        if not trick and t >= self.stop_at:
            return _estimate(counts, reached, in_run, hands)
        key = None
        if not trick:
            key = (hands, leader, counts, reached, in_run, t, self.stop_at)
            hit = self.table.get(key)
            if hit is not None:
                lo, hi = hit
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                if lo == hi:
                    return lo
        a0, b0 = alpha, beta
        seat = (leader + len(trick)) % 4
        maximise = seat % 2 == 0
        hand = hands[seat]
        moves = sorted(set(hand))
        if trick:
            top = max(trick)
            winners = [m for m in moves if m > top]
            losers = [m for m in moves if m <= top]
            order = winners[:1] + losers[:1] + winners[1:][::-1] + losers[1:][::-1]
        else:
            order = moves[::-1][:1] + moves[:1] + moves[1:-1][::-1]
        seen = set()
        best = -WIN_SCORE if maximise else WIN_SCORE
        for m in order:
            if m in seen:
                continue
            seen.add(m)
            self.nodes += 1
            h = list(hand)
            h.remove(m)
            new_hands = hands[:seat] + (tuple(h),) + hands[seat + 1:]
            v = self._play_card(new_hands, leader, trick + (m,), counts, reached, in_run, t,
                                alpha, beta)
            if maximise:
                if v > best:
                    best = v
                if best > alpha:
                    alpha = best
            else:
                if v < best:
                    best = v
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        if key is not None:
            lo, hi = self.table.get(key, (-WIN_SCORE, WIN_SCORE))
            if best <= a0:
                hi = min(hi, best)
            elif best >= b0:
                lo = max(lo, best)
            else:
                lo = hi = best
            self.table[key] = (lo, hi)
        return best


# ---------------------------------------------------------------------------- numba solver

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
def level_trick_winner(trick, leader):
    """R10-R11 on strength levels: the seat of the single highest level in
    ``trick`` (4 levels in play order from ``leader``), or -1 when it is shared
    (spoiled). Pinned to the game core's ``trick_winner`` by tests/test_search.py."""
    top, pos, tied = -1, -1, False
    for k in range(4):
        if trick[k] > top:
            top, pos, tied = trick[k], k, False
        elif trick[k] == top:
            tied = True
    return -1 if tied else (leader + pos) % 4


@njit(cache=True)
def tally_after_trick(counts, reached, in_run, winner, index):
    """The game core's ``after_trick`` in place (R13, R14, R16; winner -1: spoiled)."""
    if winner < 0:
        for s in range(4):
            in_run[s] = False
        return
    live = counts[winner] == 0 or in_run[winner]
    for s in range(4):
        in_run[s] = False
    in_run[winner] = live
    counts[winner] += 1
    reached[winner] = index


@njit(cache=True)
def final_team_value(counts, reached, in_run):
    """The game core's ``team_value(deal_value(...))``: R13-R16 after the ninth
    trick, team 0's points minus team 1's (-2 to 2)."""
    winner = -1
    for s in range(4):
        if counts[s] > 0 and (winner < 0 or counts[s] > counts[winner] or
                              (counts[s] == counts[winner] and reached[s] < reached[winner])):
            winner = s
    if winner < 0:
        return 0
    pts = 2 if (in_run[winner] and counts[winner] >= 2) else 1
    return pts if winner % 2 == 0 else -pts


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
            if ti == 9:
                value = final_team_value(counts, reached, in_run)
                done = True
            elif k_in == 4:
                for s in range(4):
                    saved[p, s] = counts[s]
                    saved[p, 4 + s] = reached[s]
                    saved[p, 8 + s] = 1 if in_run[s] else 0
                    saved[p, 12 + s] = trick[s]
                winner = level_trick_winner(trick, lead)
                tally_after_trick(counts, reached, in_run, winner, ti)
                trick_end[p] = True
                plies_in[p + 1], tricks[p + 1] = 0, ti + 1
                leaders[p + 1] = lead if winner < 0 else winner
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
            seat = (lead + k_in) % 4
            n_moves[p] = distinct_plays(hands, trick, k_in, seat, moves[p])
            next_move[p] = 0
            best[p] = -3 if seat % 2 == 0 else 3
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
            seat = (leaders[p] + plies_in[p]) % 4
            hands[seat, moves[p, next_move[p] - 1]] += 1
            if seat % 2 == 0:
                best[p] = max(best[p], value)
                lo_b[p] = max(lo_b[p], best[p])
            else:
                best[p] = min(best[p], value)
                hi_b[p] = min(hi_b[p], best[p])
            mode = 2
        # mode 2: try the next play, or settle the node
        if lo_b[p] < hi_b[p] and next_move[p] < n_moves[p]:
            seat = (leaders[p] + plies_in[p]) % 4
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


class FastSolver:
    """The numba solver behind the Python :class:`Solver`'s interface (exact only).
    Keeps its transposition table between calls; ``nodes`` counts plays tried."""

    def __init__(self) -> None:
        self.zobrist = np.random.default_rng(20261130).integers(1, 2 ** 62, _Z_SIZE, np.int64)
        size = 1 << TABLE_BITS
        self.table_key = np.zeros(size, np.int64)
        self.table_lo = np.zeros(size, np.int64)
        self.table_hi = np.zeros(size, np.int64)
        self._nodes = np.zeros(1, np.int64)

    @property
    def nodes(self) -> int:
        return int(self._nodes[0])

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
                         self.zobrist, self.table_key, self.table_lo, self.table_hi,
                         self._nodes))

    def value(self, pos: Position) -> int:
        """Exact value of ``pos`` for team 0."""
        return self._solve(*self.arrays(pos))

    def move_values(self, pos: Position) -> dict[int, int]:
        """Value for team 0 after each distinct strength the player to act can play."""
        hands, trick, n_in, leader, counts, reached, in_run, t = self.arrays(pos)
        seat = (leader + n_in) % 4
        out = {}
        for lv in sorted(set(pos.hands[seat]), reverse=True):
            hands[seat, lv] -= 1
            trick[n_in] = lv
            out[lv] = self._solve(hands, trick, n_in + 1, leader, counts, reached, in_run, t)
            hands[seat, lv] += 1
        return out


# ---------------------------------------------------------------------------- PIMC


def _field(vec, name):
    return vec[SLICES[name]].reshape(SHAPES[name])


def position_from_observation(vec: np.ndarray, rng: random.Random) -> tuple[Position, list[int]]:
    """Sample one world consistent with the observation (relative seats: the
    observer is seat 0). Returns the position and the observer's cards."""
    hand = [int(c) for c in np.flatnonzero(_field(vec, "hand"))]
    trick_plane = _field(vec, "trick")
    played_plane = _field(vec, "played")
    seen = set(hand)
    played_by = [0, 0, 0, 0]
    for r in range(4):
        cards = np.flatnonzero(played_plane[r])
        played_by[r] += len(cards)
        seen.update(int(c) for c in cards)
    trick_by = {}
    for r in range(4):
        cards = np.flatnonzero(trick_plane[r])
        if len(cards):
            trick_by[r] = int(cards[0])
            played_by[r] += 1
            seen.add(int(cards[0]))
    leader = int(np.flatnonzero(_field(vec, "leader"))[0])
    t = int(np.flatnonzero(_field(vec, "trick_index"))[0])
    counts = tuple(int(x) for x in _field(vec, "trick_counts").sum(1))
    reached_plane = _field(vec, "reached")
    reached = tuple(int(np.flatnonzero(reached_plane[r])[0]) if counts[r] else -1 for r in range(4))
    in_run = tuple(bool(x) for x in _field(vec, "in_run"))
    unseen = [c for c in range(NUM_CARDS) if c not in seen]
    rng.shuffle(unseen)
    hands = [hand]
    k = 0
    for r in range(1, 4):
        need = 9 - played_by[r]
        hands.append(unseen[k:k + need])
        k += need
    trick_cards = [trick_by[(leader + i) % 4] for i in range(len(trick_by))]
    pos = Position.from_cards(hands, leader, trick_cards, counts=counts, reached=reached,
                              in_run=in_run, trick_index=t)
    return pos, hand


class SearchPlayer(BatchPlayer):
    """PIMC over sampled worlds (see the module docstring)."""

    OPTIONS = {
        "worlds": Option(int, 16, "sampled worlds per decision", lambda v: 1 <= v <= 4096,
                         "an integer from 1 to 4096"),
        "solve_tricks": Option(int, 4, "solve exactly once this many tricks remain",
                               lambda v: 1 <= v <= 6, "an integer from 1 to 6 (more is "
                               "too slow for the Python solver)"),
        "depth_tricks": Option(int, 0, "before the endgame: 0 plays the heuristic move, "
                               "k searches k tricks ahead", lambda v: 0 <= v <= 3,
                               "an integer from 0 to 3"),
        "max_seconds": Option(float, 0.0, "time budget per move, 0 = none (deterministic)",
                              lambda v: 0 <= v <= 3600, "a number of seconds from 0 to 3600"),
        "seed": SEED,
    }

    def __init__(self, worlds: int = 16, solve_tricks: int = 4, depth_tricks: int = 0,
                 max_seconds: float = 0.0, seed: int | None = None):
        """``max_seconds > 0`` stops sampling worlds once a move has used that much
        time (at least one world is always solved); moves then depend on the
        machine's speed, so the default 0 (no limit) keeps play deterministic."""
        for key, value in (("worlds", worlds), ("solve_tricks", solve_tricks),
                           ("depth_tricks", depth_tricks), ("max_seconds", max_seconds)):
            option = self.OPTIONS[key]
            if not option.check(value):
                raise ValueError(f"{key} must be {option.allowed}, got {value!r}")
        self._early = HeuristicPlayer()
        self.worlds, self.solve_tricks, self.depth_tricks = worlds, solve_tricks, depth_tricks
        self.max_seconds = float(max_seconds)
        self.seed = 0 if seed is None else seed
        self.name = f"pimc:worlds={worlds},solve_tricks={solve_tricks},depth_tricks={depth_tricks}"
        self.nodes = 0

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        vec = np.asarray(observation)
        legal = [int(c) for c in np.flatnonzero(action_mask)]
        levels = sorted({STRENGTH[c] for c in legal})
        if len(levels) == 1:
            return min(legal)
        # Seeded by the position, so the same position always gets the same move.
        # (crc32, not hash(): Python salts hash() of bytes per process.)
        rng = random.Random(zlib.crc32(vec.astype(np.int8).tobytes()) * 1_000_003 + self.seed)
        t = int(np.flatnonzero(_field(vec, "trick_index"))[0])
        exact = 9 - t <= self.solve_tricks
        if not exact and self.depth_tricks == 0:
            return self._early.act(vec, action_mask)
        totals = dict.fromkeys(levels, 0.0)
        start = time.perf_counter()
        for k in range(self.worlds):
            if k and self.max_seconds > 0 and time.perf_counter() - start > self.max_seconds:
                break
            pos, _ = position_from_observation(vec, rng)
            solver = Solver(max_tricks=9 if exact else self.depth_tricks)
            for level, v in solver.move_values(pos).items():
                totals[level] += v
            self.nodes += solver.nodes
        best = max(levels, key=lambda lv: (totals[lv], -lv))
        return min(c for c in legal if STRENGTH[c] == best)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array([self.act(o, m) for o, m in zip(observations, masks)], np.int64)

