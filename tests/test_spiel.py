"""OpenSpiel's ISMCTS as an Aluette player (spec ``ismcts``) and Aluette's players
as OpenSpiel bots (aluette_env.players.spiel)."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed: "
                              "pip install 'aluette-rl[openspiel]'")

import aluette_env  # noqa: E402
from aluette_env.evaluation import duplicate_eval  # noqa: E402
from aluette_env.observation import decode_observation  # noqa: E402
from aluette_env.openspiel import GAME_NAME  # noqa: E402
from aluette_env.players import PlayerSpecError, load_player  # noqa: E402
from aluette_env.players.spiel import player_bot, state_from_observation  # noqa: E402
from conftest import hands_for_winners  # noqa: E402

MATCH_FIELDS = ("deal", "deals_left", "points_own", "points_opp")


def _same_view(observation, state):
    """The rebuilt state shows seat 0 what the observation shows (the match
    context aside: the rebuilt game is one deal)."""
    mine = decode_observation(np.array(state.observation_tensor(0), np.int8))
    theirs = decode_observation(observation)
    for key in theirs:
        if key not in MATCH_FIELDS:
            assert mine[key] == theirs[key], key


def _random_position(env, seed: int, plays: int, rng) -> dict:
    """The observation of the seat to act after ``plays`` random cards of deal ``seed``."""
    env.reset(seed=seed)
    for _ in range(plays):
        o = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return env.observe(env.agent_selection)


def test_rebuilt_state_shows_the_same_view_on_random_positions():
    rng = np.random.default_rng(0)
    env = aluette_env.raw_env(num_deals=1)
    for game in range(150):
        o = _random_position(env, game, int(rng.integers(0, 36)), rng)
        state = state_from_observation(o["observation"], rng)
        _same_view(o["observation"], state)
        assert state.legal_actions() == np.flatnonzero(o["action_mask"]).tolist()


@pytest.mark.parametrize("winners", ["XXXXXXXX1", "X0X1X2X3X", "22222222X"])
def test_rebuilt_state_with_many_spoiled_tricks(winners):
    hands = hands_for_winners(winners)
    env = aluette_env.raw_env(num_deals=1)
    env.reset(seed=0, options={"deals": [hands], "first_dealer": "player_3"})
    queues = [list(h) for h in hands]
    for _ in range(32):
        env.step(queues[int(env.agent_selection[-1])].pop(0))
    o = env.observe(env.agent_selection)
    _same_view(o["observation"], state_from_observation(o["observation"],
                                                        np.random.default_rng(1)))


def test_ismcts_given_a_vector_no_deal_writes_says_so():
    """A random vector, or a real observation with a few
    values flipped, is played (a legal card) or refused as ValueError, never
    an IndexError or KeyError from inside the rebuilding."""
    rng = np.random.default_rng(5)
    env = aluette_env.raw_env(num_deals=1)
    player = load_player("ismcts:simulations=2", seed=1)
    refused = 0
    for game in range(300):
        o = _random_position(env, game, int(rng.integers(0, 30)), rng)
        obs, mask = o["observation"].copy(), o["action_mask"].copy()
        if game % 3 == 0:
            obs = (rng.random(obs.size) < rng.random()).astype(np.int8)
        else:
            flips = rng.integers(0, obs.size, int(rng.integers(1, 4)))
            obs[flips] = 1 - obs[flips]
        try:
            card = player.act(obs, mask)
        except ValueError:
            refused += 1
            continue
        assert mask[card] == 1
    assert refused >= 100


def test_ismcts_is_seeded_and_plays_legal_cards():
    env = aluette_env.raw_env(num_deals=1)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(6):
        o = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    o = env.observe(env.agent_selection)
    cards = [load_player("ismcts:simulations=30", seed=9).act(o["observation"], o["action_mask"])
             for _ in range(2)]
    assert cards[0] == cards[1] and o["action_mask"][cards[0]] == 1
    ai = load_player("ismcts:simulations=30,evaluator=ai,uct_c=1.5,seed=9")
    assert o["action_mask"][ai.act(o["observation"], o["action_mask"])] == 1
    assert ai.name == "ismcts:simulations=30,uct_c=1.5,evaluator=ai"


def test_ismcts_sits_in_duplicate_evaluation():
    res = duplicate_eval("ismcts:simulations=8,seed=0", "random:seed=1", deals=1, seed=0)
    assert res.deals == 1


@pytest.mark.parametrize("spec, message", [
    ("ismcts:simulations=0", "option 'simulations' got '0'; allowed: an integer from 1 to 100000"),
    ("ismcts:uct_c=-1", "option 'uct_c' got '-1'; allowed: a number above 0, at most 100"),
    ("ismcts:evaluator=nn", "option 'evaluator' got 'nn'; allowed: random or ai"),
    ("ismcts:rollouts=2", "unknown option 'rollouts'; options: evaluator, seed, simulations, "
                          "uct_c"),
])
def test_ismcts_options_are_checked_first(spec, message):
    with pytest.raises(PlayerSpecError) as err:
        load_player(spec)
    assert str(err.value) == f"player spec {spec!r}: {message}"


def test_players_as_openspiel_bots_play_what_the_player_plays():
    """``ai`` as a pyspiel.Bot picks, from the OpenSpiel state, the card the player
    picks from the PettingZoo env's observation of the same table."""
    game = pyspiel.load_game(GAME_NAME, {"num_deals": 1, "first_dealer": 3})
    hands = hands_for_winners("012301230")
    state = game.new_initial_state()
    from aluette_env.game import deal_order
    queues = [list(h) for h in hands]
    for seat in deal_order(3):
        state.apply_action(queues[seat].pop(0))
    env = aluette_env.raw_env(num_deals=1)
    env.reset(seed=0, options={"deals": [hands], "first_dealer": "player_3"})
    bots = [player_bot("ai", seat=s) for s in range(4)]
    ai = load_player("ai")
    total = [0.0] * 4
    while not state.is_terminal():
        card = bots[state.current_player()].step(state)
        o = env.observe(env.agent_selection)
        assert card == ai.act(o["observation"], o["action_mask"])
        state.apply_action(card)
        env.step(card)
        total = [t + env.rewards[a] for t, a in zip(total, env.possible_agents)]
    assert state.returns() == total
    with pytest.raises(PlayerSpecError, match="unknown player 'nobody'"):
        player_bot("nobody")

