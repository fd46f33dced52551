"""A second variant costs one file: the variant below is defined here
and nowhere else, a match of three deals in which only the opponent on the
signer's left may catch a sign, with a chance of its own. The PettingZoo env,
the batched engine, OpenSpiel and the game for people play it as they play the
shipped ones, through the one object, and no seat is ever told of a sign the
rule keeps from it."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from aluette_env import aec
from aluette_env.game import NUM_ACTIONS, NUM_SEATS, Variant, seat_at
from aluette_env.vector import VectorGame


class LeftCatchesOnly(Variant):
    """The signs variant, except that only the opponent on the signer's left
    (the next to play) may catch a sign; the one on its right never does."""

    def catchers(self, signer: int) -> tuple[tuple[int, float], ...]:
        return ((seat_at(signer, 1), self.catch),)


VARIANT = LeftCatchesOnly("aluette_left_catch_v0", obs_layout=3, signs=True, catch=0.6,
                          num_deals=3)


def _left_only(caught) -> bool:
    """Every caught bit of a deal's 36 signs (the last axis: trick t, seat s at
    t * 4 + s) is the signer's left-hand opponent's."""
    allowed = 1 << ((np.arange(36) % NUM_SEATS + 1) % NUM_SEATS)
    return bool(((np.asarray(caught) & ~allowed) == 0).all())


def test_the_env_plays_the_variant_and_passes_pettingzoo_tests():
    api_test(aec.wrap(aec.raw_env(variant=VARIANT)), num_cycles=300)
    seed_test(lambda: aec.wrap(aec.raw_env(variant=VARIANT)), num_cycles=100)
    env = aec.raw_env(variant=VARIANT)
    env.reset(seed=4)
    assert env.metadata["name"] == "aluette_left_catch_v0" and env.num_deals == 3
    assert env.action_space("player_0").n == NUM_ACTIONS
    rng = np.random.default_rng(4)
    while env.agents:
        assert _left_only(env.match.state.caught)
        agent = env.agent_selection
        if env.terminations[agent]:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    assert env.match.deal_index == 3


def test_the_engine_is_the_env_bit_for_bit():
    n, deals = 6, 3
    rng = np.random.default_rng(11)
    hands = np.stack([np.stack([rng.permutation(48)[:36].reshape(4, 9) for _ in range(deals)])
                      for _ in range(n)])
    catches = rng.random((n, deals, 9, 4, 4)) < 0.5  # every watcher: only the left one counts
    game = VectorGame(n, seed=3, auto_reset=False, variant=VARIANT)
    game.reset(options={"deals": hands, "catches": catches, "first_dealer": [0, 1, 2, 3, 0, 1]})
    assert _left_only(game.state.caught) and game.state.caught.any()
    envs = []
    for i in range(n):
        env = aec.raw_env(variant=VARIANT)
        env.reset(seed=0, options={"deals": hands[i].tolist(), "catches": catches[i],
                                   "first_dealer": i % 4})
        envs.append(env)
    while not game.state.over.all():
        live = ~game.state.over
        actions = np.zeros(n, np.int64)
        for i, env in enumerate(envs):
            if live[i]:
                ob = env.observe(env.agent_selection)
                assert (ob["observation"] == game.obs[i]).all()
                assert (ob["action_mask"] == game.mask[i]).all()
                actions[i] = rng.choice(np.flatnonzero(game.mask[i]))
                env.step(int(actions[i]))
        rewards, deal_done, _ = game.step(actions, active=live.copy())
        for i in np.flatnonzero(deal_done):
            assert [envs[i].rewards[f"player_{s}"] for s in range(4)] == list(rewards[i])
    assert [env.match.points for env in envs] == game.final_points.tolist()


def test_the_engine_draws_the_variants_catches():
    game = VectorGame(400, seed=5, variant=VARIANT)
    game.reset()
    caught = game.state.caught  # [games, 36]
    assert _left_only(caught)
    assert abs((caught != 0).mean() - VARIANT.catch) < 0.02  # the left one, at its chance


def test_openspiel_random_simulations_play_the_variant():
    pyspiel = pytest.importorskip("pyspiel")
    from aluette_env.openspiel import AluetteGame, register_variant
    register_variant(VARIANT, "python_aluette_left_catch")
    game = pyspiel.load_game("python_aluette_left_catch", {"num_deals": 1})
    assert game.num_distinct_actions() == NUM_ACTIONS
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    state = AluetteGame({"num_deals": 1}, variant=VARIANT).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    state.apply_action(state.legal_actions()[1])  # the leader signs (not silence)
    assert state.is_chance_node()
    assert [p for _, p in state.chance_outcomes()] == pytest.approx([0.4, 0.6])
    leader = state.match.deal.to_act
    state.apply_action(1)  # caught
    assert state.match.state.caught[leader] == 1 << ((leader + 1) % NUM_SEATS)


def test_a_whole_session_match_and_its_record():
    from aluette_env.apps.session import GameSession
    from aluette_env.players import load_player
    from aluette_env.records import load_record
    players = {s: load_player("heuristic") for s in (1, 2, 3)}
    game = GameSession(players, {s: "heuristic" for s in (1, 2, 3)}, seed=8, variant=VARIANT,
                       standin=load_player("heuristic"), standin_spec="heuristic")
    told = {seat: [] for seat in range(NUM_SEATS)}
    events = game.opening_events + game.set_away(0, True)
    while True:
        for seat in range(NUM_SEATS):
            told[seat] += [e for e in game.events_for(events, seat) if e["type"] == "sign"]
        if game.match.over:
            break
        events = game.next_deal()
    assert len(game.match.deals) == 3
    # Seats counted from the reader (1 its left, 3 its right): it is its left-hand
    # opponent's right-hand opponent, so never told of its signs; its right-hand
    # opponent's signs it catches, as that signer's left-hand opponent.
    assert not [e for signs in told.values() for e in signs if e["seat"] == 1]
    assert any(e["seat"] == 3 and e["caught"] and e["sign"]
               for signs in told.values() for e in signs)
    record = game.record()
    load_record(record, VARIANT)
    for d in record["deals"]:
        for (agent, _), (_, who) in zip(d["plays"], d["signs"]):
            seat = int(agent[-1])
            assert set(who) <= {f"player_{(seat + 1) % NUM_SEATS}"}
    again = GameSession.restore(game.snapshot(), lambda spec: load_player(spec), VARIANT)
    assert again.record() == record and again.variant == VARIANT
