"""Perfect-information solver for the rest of a deal, and the PIMC player.

The solver sees all four hands. Cards of equal strength are interchangeable
(R8), so hands are multisets of strength levels (0-18) and equal cards in
one hand are one move. Alpha-beta over the plays of the remaining tricks,
team 0 maximising (its points minus team 1's, R13-R16 deciding the value
at the end: -2 to 2), a transposition table at trick starts, and move
ordering that tries cheap winning cards and the weakest card first.

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

