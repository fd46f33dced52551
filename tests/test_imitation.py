"""Demonstrations of a rule-based player (training.imitation)."""

from __future__ import annotations

import numpy as np

from aluette_env.observation import decode_observation
from aluette_env.players.heuristic import HeuristicPlayer
from training.imitation import demonstrations
from tests.test_training import forced_deal


def test_demonstrations_are_the_players_own_legal_cards_at_every_seat():
    heuristic = HeuristicPlayer()
    demos = demonstrations(heuristic, 1000, num_games=8, num_deals=2, seed=3)
    assert len(demos) == 2 * 8 * 2 * 36  # rounded up to whole matches: two per game
    assert (demos.actions == heuristic.act_batch(demos.observations, demos.masks)).all()
    assert demos.masks[np.arange(len(demos)), demos.actions].all()
    assert all(decode_observation(o)["to_act"] == 0 for o in demos.observations[::37])


def test_returns_are_the_team_deal_points_that_follow_each_decision():
    """Seat ``(g + 1) % 4`` of game g holds a hand that wins all nine tricks
    (Mordienne, 2 points): every decision of its team returns +2, the others -2."""
    n = 8
    winner = (np.arange(n) + 1) % 4
    deals = np.array([[forced_deal(int(w))] for w in winner], np.int8)
    demos = demonstrations(HeuristicPlayer(), 1, num_games=n, num_deals=1, seed=0,
                           options={"deals": deals, "first_dealer": 0})
    assert len(demos) == n * 36
    game = np.tile(np.arange(n), 36)  # rows are play-major
    for row in range(len(demos)):
        # The dealer is seat 0, so the relative seat of the dealer has the parity
        # (the team) of the decision's own seat.
        seat = decode_observation(demos.observations[row])["dealer"]
        want = 2.0 if (seat - winner[game[row]]) % 2 == 0 else -2.0
        assert demos.returns[row] == want
