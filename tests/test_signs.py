"""The signs variant (docs/RULES.md S1-S5): the sign phase of the game's step,
who sees a sign, the env ``aluette_signs_v0`` and the batched engine with
signs, bit for bit equal; no seat ever receives a sign it did not see."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from aluette_env import aluette_signs_v0
from aluette_env.aec import raw_env as plain_raw_env
from aluette_env.game import (
    CARD_PLAYED, NAMED_CARDS, NO_SIGN, NUM_ACTIONS, NUM_CARDS, NUM_SIGNS, SIGN_BASE, SIGN_MADE,
    SIGN_OF_CARD, SIGNS, Match, catch_bits, sees_sign, sign_name,
)
from aluette_env.observation import (
    OBS_SIZE, SIGN_SLICES, SIGNS_OBS_SIZE, obs_size, write_signs, write_view,
)
from aluette_env.vector import VectorGame

rng0 = np.random.default_rng


def _deck(seed: int) -> list[int]:
    return rng0(seed).permutation(NUM_CARDS).tolist()


def test_s2_the_lexicon_names_the_named_cards_and_the_aces():
    assert NUM_SIGNS == 9 and NUM_ACTIONS == NUM_CARDS + 10
    for k, (card, name) in enumerate(NAMED_CARDS):
        assert SIGN_OF_CARD[card] == k + 1 and sign_name(k + 1) == name
    aces = [c for c in range(NUM_CARDS) if SIGN_OF_CARD[c] == NUM_SIGNS]
    assert aces == sorted(SIGNS[-1][2]) and len(aces) == 4
    assert sum(1 for c in range(NUM_CARDS) if SIGN_OF_CARD[c] != NO_SIGN) == 12


def test_s1_each_turn_is_a_sign_then_a_card():
    m = Match(first_dealer=0, num_deals=1, signs=True)
    deal = m.deal_deck(_deck(0))
    seat = deal.to_act
    assert deal.signing and deal.legal_cards() == []
    with pytest.raises(ValueError, match="makes a sign"):
        deal.play(deal.hand(seat)[0])
    assert deal.sign(3) == SIGN_MADE
    assert deal.to_act == seat and not deal.signing and deal.sign_of(0, seat) == 3
    with pytest.raises(ValueError, match="plays a card now"):
        deal.sign(1)
    assert deal.play(deal.legal_cards()[0]) == CARD_PLAYED
    assert deal.signing and deal.to_act == (seat + 1) % 4


def test_s3_any_sign_is_legal_whatever_the_hand():
    env = aluette_signs_v0.raw_env()
    env.reset(seed=3)
    mask = env.observe(env.agent_selection)["action_mask"]
    assert mask[:NUM_CARDS].sum() == 0 and mask[SIGN_BASE:].all()
    env.step(SIGN_BASE + 1)  # Monsieur, held or not
    mask = env.observe(env.agent_selection)["action_mask"]
    assert mask[SIGN_BASE:].sum() == 0 and mask[:NUM_CARDS].sum() == 9


def test_signs_without_the_variant_are_refused():
    deal = Match(first_dealer=0, num_deals=1).deal_deck(_deck(1))
    with pytest.raises(ValueError, match="without signs"):
        deal.sign(1)
    with pytest.raises(ValueError, match="an int 0-9"):
        Match(signs=True).deal_deck(_deck(1)).sign(10)


def test_s4_partner_always_sees_opponents_when_caught():
    assert sees_sign(2, 0, 0) and sees_sign(0, 0, 0)  # partner, the signer itself
    assert not sees_sign(1, 0, 0) and not sees_sign(3, 0, 0)
    bits = catch_bits(0, True, False)
    assert sees_sign(1, 0, bits) and not sees_sign(3, 0, bits)
    assert catch_bits(0, False, True) == 1 << 3 and catch_bits(3, True, True) == 0b0101


def _play_random(env, rng, steps: int) -> None:
    for _ in range(steps):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


def _catches(value: int) -> np.ndarray:
    return np.full((1, 9, 4, 4), value, np.int8)


@pytest.mark.parametrize("catch", [0, 1])
def test_s4_s5_a_seat_sees_its_own_its_partners_and_the_caught_signs(catch):
    env = aluette_signs_v0.raw_env(num_deals=1)
    env.reset(seed=5, options={"catches": _catches(catch)})
    _play_random(env, rng0(1), 40)  # past trick 0's eight steps
    g = env.match.state
    block = SIGN_SLICES["signs"]
    for observer in range(4):
        seen = env.observe(f"player_{observer}")["observation"][block].reshape(9, 4, NUM_SIGNS)
        for t in range(9):
            for s in range(4):
                sign = g.signs[t * 4 + s]
                r = (s - observer) % 4
                mates = s == observer or s == (observer + 2) % 4
                expect = np.zeros(NUM_SIGNS, np.int8)
                if sign > 0 and (mates or catch):
                    expect[sign - 1] = 1
                assert (seen[t, r] == expect).all(), (observer, t, s, sign)


def test_s4_the_signer_does_not_learn_who_caught_its_signs():
    """Seat 0's vectors are the same whichever opponents caught seat 0's own
    signs; an opponent's vector differs."""
    base = rng0(2).random((1, 9, 4, 4)) < 0.5
    other = base.copy()
    other[:, :, 0, :] = ~other[:, :, 0, :]  # only the catches of seat 0's signs
    views: dict[int, list] = {0: [], 1: []}
    for catches in (base, other):
        env = aluette_signs_v0.raw_env(num_deals=1)
        env.reset(seed=9, options={"catches": catches, "first_dealer": 3})
        rng = rng0(4)
        seq0, seq1 = [], []
        while env.agents:
            seq0.append(env.observe("player_0")["observation"].copy())
            seq1.append(env.observe("player_1")["observation"].copy())
            if env.terminations[env.agent_selection]:
                env.step(None)
                continue
            mask = env.observe(env.agent_selection)["action_mask"]
            # Always a sign, so the catches matter.
            legal = np.flatnonzero(mask)
            env.step(int(rng.choice(legal[legal > SIGN_BASE])) if mask[SIGN_BASE] else
                     int(rng.choice(legal)))
        views[0].append(np.array(seq0))
        views[1].append(np.array(seq1))
    assert (views[0][0] == views[0][1]).all()
    assert (views[1][0] != views[1][1]).any()


def test_no_unseen_sign_reaches_a_seat():
    """Change the sign of an opponent who was not caught: the observer's vector
    does not change (hidden information stays hidden, S5)."""
    env = aluette_signs_v0.raw_env(num_deals=1)
    env.reset(seed=11, options={"catches": _catches(0)})
    _play_random(env, rng0(3), 30)
    g = env.match.state
    before = [env.observe(f"player_{o}")["observation"].copy() for o in range(4)]
    for o in range(4):
        for t in range(9):
            for s in ((o + 1) % 4, (o + 3) % 4):
                old = g.signs[t * 4 + s]
                g.signs[t * 4 + s] = 9 if old != 9 else 1
                assert (env.observe(f"player_{o}")["observation"] == before[o]).all()
                g.signs[t * 4 + s] = old


def test_perfect_recall_two_sign_histories_give_two_vectors():
    rows = []
    for sign in (1, 2):
        m = Match(first_dealer=0, num_deals=1, signs=True)
        deal = m.deal_deck(_deck(7))
        deal.sign(sign)
        row = np.zeros(SIGNS_OBS_SIZE, np.int8)
        write_view(m.state, 3, row)  # seat 1 signed; seat 3 is its partner
        write_signs(m.state, 3, row)
        rows.append(row)
    assert (rows[0][:OBS_SIZE] == rows[1][:OBS_SIZE]).all()
    assert (rows[0] != rows[1]).any()


def test_catches_come_from_the_seed_and_the_catch_parameter():
    def caught(seed, catch):
        env = aluette_signs_v0.raw_env(catch=catch)
        env.reset(seed=seed)
        return list(env.match.state.caught)
    assert caught(1, 0.25) == caught(1, 0.25) != caught(2, 0.25)
    assert set(caught(1, 0.0)) == {0}
    assert all(b == catch_bits(i % 4, True, True) for i, b in enumerate(caught(1, 1.0)))


def test_signs_env_passes_pettingzoo_tests():
    api_test(aluette_signs_v0.env(num_deals=1), num_cycles=400)
    seed_test(lambda: aluette_signs_v0.env(num_deals=1), num_cycles=200)
    render_test(lambda render_mode=None: aluette_signs_v0.env(render_mode=render_mode))
    import pettingzoo
    env = pettingzoo.make("aec", "aluette_signs_v0")
    assert env.metadata["name"] == "aluette_signs_v0"
    assert env.observation_space("player_0")["observation"].shape == (obs_size(3),)
    assert env.action_space("player_0").n == NUM_ACTIONS


@pytest.mark.parametrize("kwargs, message", [
    ({"signs": "yes"}, "signs must be True or False"),
    ({"signs": True, "catch": 1.5}, "catch must be a probability"),
    ({"signs": True, "catch": "high"}, "catch must be a probability"),
    ({"catch": 0.5}, "pass signs=True"),
])
def test_bad_variant_parameters_get_one_line(kwargs, message):
    with pytest.raises(ValueError, match=message) as err:
        plain_raw_env(**kwargs)
    assert "\n" not in str(err.value)
    with pytest.raises((ValueError, TypeError), match=message.split()[0]):
        VectorGame(2, **kwargs)


def test_bad_catches_and_actions_are_refused_and_lose_nothing():
    env = aluette_signs_v0.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="9 x 4 x 4"):
        env.reset(options={"catches": [[1, 0]]})
    agent = env.agent_selection
    with pytest.raises(ValueError, match="makes a sign first"):
        env.step(env.deal.hand(env.deal.to_act)[0])
    assert env.agent_selection == agent and env.deal.signing
    wrapped = aluette_signs_v0.env()
    wrapped.reset(seed=0)
    wrapped.step(SIGN_BASE)  # silence
    agent = wrapped.agent_selection
    # PettingZoo's classic wrapper: an illegal move ends the game at -1 for its agent.
    wrapped.step(wrapped.unwrapped.deal.hand((wrapped.unwrapped.deal.to_act + 1) % 4)[0])
    assert wrapped.rewards[agent] == -1 and all(wrapped.terminations.values())


@pytest.mark.parametrize("seed", range(2))
def test_the_engine_with_signs_is_the_env_bit_for_bit(seed):
    rng = rng0(seed)
    n = 4
    deals = np.stack([np.stack([rng.permutation(NUM_CARDS)[:36].reshape(4, 9)
                                for _ in range(2)]) for _ in range(n)])
    catches = rng.random((n, 2, 9, 4, 4)) < 0.5
    game = VectorGame(n, num_deals=2, seed=seed, signs=True, catch=0.5, auto_reset=False)
    game.reset(options={"deals": deals, "catches": catches, "first_dealer": [0, 1, 2, 3]})
    envs = []
    for i in range(n):
        env = aluette_signs_v0.raw_env(num_deals=2, catch=0.5)
        env.reset(seed=0, options={"deals": deals[i].tolist(), "catches": catches[i],
                                   "first_dealer": i})
        envs.append(env)
    while not game.state.over.all():
        live = ~game.state.over
        actions = np.zeros(n, np.int64)
        for i, env in enumerate(envs):
            if not live[i]:
                continue
            ob = env.observe(env.agent_selection)
            assert env.agent_selection == f"player_{game.to_act[i]}"
            assert (ob["observation"] == game.obs[i]).all()
            assert (ob["action_mask"] == game.mask[i]).all()
            actions[i] = rng.choice(np.flatnonzero(game.mask[i]))
            env.step(int(actions[i]))
        rewards, deal_done, _ = game.step(actions, active=live.copy())
        for i, env in enumerate(envs):
            if deal_done[i]:
                assert [env.rewards[f"player_{s}"] for s in range(4)] == list(rewards[i])
    assert [env.match.points for env in envs] == game.final_points.tolist()


def test_the_default_game_is_unchanged_by_the_variant():
    env = plain_raw_env()
    env.reset(seed=0)
    assert env.observe(env.agent_selection)["observation"].shape == (OBS_SIZE,)
    assert env.action_space("player_0").n == NUM_CARDS
    assert env.metadata["name"] == "aluette_v1"
    game = VectorGame(2, seed=0)
    game.reset()
    assert game.obs.shape == (2, OBS_SIZE) and game.mask.shape == (2, NUM_CARDS)
