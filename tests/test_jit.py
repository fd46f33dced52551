"""The game core's speed-critical rules, compiled by numba through
aluette_env._jit, give exactly what the plain functions give (R10-R11,
R13-R16, R6, and the observation reader): the compiled paths run the core's
own text, and this pins what numba makes of it. The game's step itself is
pinned by tests/test_vector.py (the engine against the Deal, play by play)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import aluette_env
from aluette_env import _jit
from aluette_env._jit import njit
from aluette_env.game import (
    STRENGTH,
    card_beats,
    deal_points,
    dealer_of,
    end_trick,
    first_dealer_of,
    first_leader,
    first_to_reach,
    plays_left,
    relative_seat,
    seat_at,
    seat_gain,
    team_points,
    trick_winner,
    trick_winner_of_levels,
)
from aluette_env.observation import (
    IN_TRICK, PLAYED, decode_observation, read_match, read_view,
)

pytestmark = pytest.mark.skipif(not _jit.COMPILED, reason="numba is not compiling")


@njit
def c_trick(levels, n, leader):
    best, pos, tied = -1, -1, False
    for k in range(n):
        best, pos, tied = card_beats(k, best, pos, tied, levels[k], k)
    return trick_winner_of_levels(levels, n, leader), best, pos, tied


@njit
def c_tally(winners, counts, reached, in_run):
    leader = 0
    for t in range(winners.shape[0]):
        leader = end_trick(counts, reached, in_run, winners[t], leader, t)
    w, pts, mordienne = deal_points(counts, reached, in_run)
    p0, p1 = team_points(w, pts)
    return first_to_reach(counts, reached), w, pts, mordienne, p0, p1, seat_gain(p0, p1, 1), \
        leader


def py_tally(winners, counts, reached, in_run):
    leader = 0
    for t, w in enumerate(winners):
        leader = end_trick(counts, reached, in_run, w, leader, t)
    w, pts, mordienne = deal_points(counts, reached, in_run)
    p0, p1 = team_points(w, pts)
    return first_to_reach(counts, reached), w, pts, mordienne, p0, p1, seat_gain(p0, p1, 1), \
        leader


@njit
def c_seats(first, k):
    d = dealer_of(first, k)
    return (d, first_leader(d), first_dealer_of(d, k), seat_at(first, k),
            relative_seat(first, k), plays_left(k % 10, k % 4))


def py_seats(first, k):
    d = dealer_of(first, k)
    return (d, first_leader(d), first_dealer_of(d, k), seat_at(first, k),
            relative_seat(first, k), plays_left(k % 10, k % 4))


@njit
def c_read(row, cards, trick, winners, counts, reached, in_run, card_trick):
    return read_view(row, cards, trick, winners, counts, reached, in_run, card_trick)


def test_r10_r11_trick_winner_compiled_equals_the_core():
    rnd = random.Random(0)
    for _ in range(3000):
        n = rnd.randint(1, 4)
        cards = rnd.sample(range(48), n)
        leader = rnd.randrange(4)
        levels = np.array([STRENGTH[c] for c in cards], np.int64)
        w, best, pos, tied = c_trick(levels, n, leader)
        py = trick_winner_of_levels([STRENGTH[c] for c in cards], n, leader)
        assert w == py
        if n == 4:
            assert w == trick_winner(cards, leader)
        top = max(levels)
        assert best == top and tied == (list(levels).count(top) > 1)


@pytest.mark.parametrize("dtype", [np.int8, np.int64])
def test_r13_to_r16_tally_and_score_compiled_equal_the_core(dtype):
    rnd = random.Random(1)
    for _ in range(2000):
        winners = [rnd.choice([0, 1, 2, 3, -1]) for _ in range(9)]
        counts, reached, in_run = [0] * 4, [-1] * 4, [False] * 4
        expected = py_tally(winners, counts, reached, in_run)
        c = np.zeros(4, dtype)
        r = np.full(4, -1, dtype)
        i = np.zeros(4, np.uint8)  # the engine's in_run array
        got = c_tally(np.array(winners, np.int64), c, r, i)
        assert got == expected
        assert c.tolist() == counts and r.tolist() == reached and i.tolist() == in_run


def test_r6_dealers_leaders_and_seats_compiled_equal_the_core():
    for first in range(4):
        for k in range(12):
            assert c_seats(first, k) == py_seats(first, k)
            assert first_dealer_of(dealer_of(first, k), k) == first


def test_the_observation_reader_compiled_equals_plain_python():
    e = aluette_env.raw_env(num_deals=2)
    e.reset(seed=3)
    rng = np.random.default_rng(3)
    def arrays():
        return (np.zeros(48, np.int64), np.zeros(4, np.int64), np.zeros(9, np.int64),
                np.zeros(4, np.int64), np.zeros(4, np.int64), np.zeros(4, np.bool_),
                np.zeros(48, np.int64))
    for _ in range(60):
        row = e.observe(e.agent_selection)["observation"]
        a, b = arrays(), arrays()
        assert c_read(row, *a) == read_view(row, *b)
        for x, y in zip(a, b):
            assert x.tolist() == y.tolist()
        # and it says what the reference decoder says
        cards, trick, winners, counts, reached, in_run, card_trick = b
        t, leader = read_view(row, *b)
        d = decode_observation(row)
        assert np.flatnonzero(cards == 0).tolist() == d["hand"]
        assert {r: int(trick[r]) for r in range(4) if trick[r] >= 0} == d["trick"]
        assert all(np.flatnonzero(cards == PLAYED + r).tolist() == d["played"][r]
                   for r in range(4))
        assert all(cards[c] == IN_TRICK + r for r, c in d["trick"].items())
        done = len(d["trick_winners"])
        assert [None if w < 0 else int(w) for w in winners[:done]] == d["trick_winners"]
        assert all(w < 0 for w in winners[done:])
        assert {c: h["trick"] for h in d["history"] for _, c in h["plays"]} == \
            {c: int(card_trick[c]) for c in range(48) if card_trick[c] >= 0}
        assert counts.tolist() == d["trick_counts"] and in_run.tolist() == d["in_run"]
        assert [None if x < 0 else int(x) for x in reached] == d["reached"]
        assert (t, leader) == (d["trick_index"], d["leader"])
        assert read_match(row) == (d["dealer"], d["deal"], d["deal"] + d["deals_left"],
                                   d["points_own"], d["points_opp"])
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
