"""Demonstrations of a rule-based player (training.imitation)."""

from __future__ import annotations

import numpy as np
import pytest

from aluette_env.observation import decode_observation
from aluette_env.players.heuristic import HeuristicPlayer
from training.imitation import demonstrations
from conftest import QUICK, ROOT, forced_deal


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


def _records_of_a_person(n: int) -> list[dict]:
    """``n`` matches whose "person" (player_0) plays as the heuristic does, the
    other seats at random: a consistent player to clone."""
    import random

    from aluette_env.game import play_match
    from aluette_env.observation import encode_observation
    from aluette_env.records import load_record, record_of

    person = HeuristicPlayer()
    out = []
    for seed in range(n):
        rng = random.Random(seed)

        def choose(deal, match, rng=rng) -> int:
            if deal.to_act != 0:
                return rng.choice(deal.legal_cards())
            mask = np.zeros(48, np.int8)
            mask[deal.hands[0]] = 1
            return int(person.act(encode_observation(deal, 0), mask))

        deals = play_match(choose, rng, seed % 4)
        out.append(load_record(record_of(deals, seed % 4, ["human", "random", "random",
                                                           "random"])))
    return out


def test_record_demonstrations_are_the_persons_decisions_as_seen(tmp_path):
    from aluette_env.records import save_record
    from training.imitation import record_demonstrations
    records = _records_of_a_person(2)
    for k, r in enumerate(records):
        save_record(r, tmp_path, f"m{k}")
    demos = record_demonstrations(tmp_path)
    assert len(demos) == 2 * 45  # the person's nine cards in each of five deals
    assert (demos.actions == HeuristicPlayer().act_batch(demos.observations, demos.masks)).all()
    assert all(decode_observation(o)["to_act"] == 0 for o in demos.observations)
    assert len(record_demonstrations(tmp_path, seats="all")) == 2 * 180
    first = records[0]["result"]["points"]
    assert demos.returns[0] == first["team_0"] - first["team_1"]  # the whole match to go
    with pytest.raises(ValueError, match="seats must be one of human, all"):
        record_demonstrations(tmp_path, seats="north")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="no match record"):
        record_demonstrations(empty)


def test_cloning_a_handful_of_records_reproduces_their_moves_better_than_chance():
    from training.config import load_config
    from training.imitation import record_demonstrations
    from training.sb3.network import PolicyPlayer
    from training.sb3.train import build_env, build_model, pretrain_policy
    from training.league import OpponentPool

    demos = record_demonstrations(_records_of_a_person(6))
    cfg = load_config(QUICK, ["logging.tensorboard=false"])
    pool = OpponentPool(cfg.selfplay.opponents, {"heuristic": HeuristicPlayer()},
                        np.random.default_rng(0))
    model = build_model(cfg, build_env(cfg, pool, seed=0), ROOT)
    pretrain_policy(model.policy, demos, epochs=30, batch_size=64, learning_rate=3e-3,
                    vf_coef=0.5, seed=0, log=lambda _: None)
    played = PolicyPlayer(model.policy).act_batch(demos.observations, demos.masks)
    agreement = (played == demos.actions).mean()
    chance = (1.0 / demos.masks.sum(1)).mean()
    assert agreement > chance + 0.25, (agreement, chance)
