"""A variant is one object (aluette_env.game.variant): the shipped
variants by env id, the catch rule stated once and everything that follows from
it (the draws, their inverse, OpenSpiel's outcomes, who knows which sign), the
legal actions, the older ``signs=`` / ``catch=`` keywords building the same
object everywhere, and each env version frozen to its own variant."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from aluette_env import aec, aluette_signs_v0, aluette_v0, aluette_v1
from aluette_env.game import (
    ALUETTE_SIGNS_V0, ALUETTE_V0, ALUETTE_V1, NO_SIGN, NUM_ACTIONS, NUM_CARDS, NUM_SEATS,
    SIGN_BASE, VARIANTS, Variant, catch_bits, deal_reason, is_legal, load_variant, sees_sign,
    team_of, variant_of, write_legal,
)
from aluette_env.observation import OBS_SIZE, SIGNS_OBS_SIZE, obs_size, observer
from aluette_env.vector import VectorGame
from conftest import hands_for_winners


def test_the_shipped_variants_are_their_env_ids():
    assert list(VARIANTS) == ["aluette_v0", "aluette_v1", "aluette_signs_v0"]
    assert [observer(v).size for v in VARIANTS.values()] == [obs_size(1), OBS_SIZE,
                                                             SIGNS_OBS_SIZE]
    assert [v.num_actions for v in VARIANTS.values()] == [NUM_CARDS, NUM_CARDS, NUM_ACTIONS]
    assert load_variant("aluette_signs_v0", catch=0.5) == ALUETTE_SIGNS_V0.with_catch(0.5)
    with pytest.raises(ValueError, match="no variant 'aluette_v9'; variants are aluette_v0"):
        load_variant("aluette_v9")
    with pytest.raises(ValueError, match="catch must be a probability"):
        ALUETTE_SIGNS_V0.with_catch(1.5)


@pytest.mark.parametrize("make, variant", [
    (lambda: aluette_v0.raw_env(), ALUETTE_V0),
    (lambda: aluette_v1.raw_env(), ALUETTE_V1),
    (lambda: aluette_signs_v0.raw_env(catch=0.5), ALUETTE_SIGNS_V0.with_catch(0.5)),
    (lambda: aec.raw_env(signs=True, catch=0.5), ALUETTE_SIGNS_V0.with_catch(0.5)),
    (lambda: aec.raw_env(variant=ALUETTE_SIGNS_V0), ALUETTE_SIGNS_V0),
    (lambda: VectorGame(2, signs=True, catch=0.5), ALUETTE_SIGNS_V0.with_catch(0.5)),
    (lambda: VectorGame(2), ALUETTE_V1),
])
def test_the_older_keywords_build_the_variant(make, variant):
    made = make()
    assert made.variant == variant
    if hasattr(made, "metadata"):
        assert made.metadata["name"] == variant.env_id
        assert made.observation_space("player_0")["observation"].shape == (
            observer(variant).size,)


def test_the_game_for_people_and_openspiel_take_the_variant():
    pytest.importorskip("pyspiel")
    from aluette_env.apps.session import GameSession
    from aluette_env.openspiel import AluetteGame
    from aluette_env.players import load_player
    players = {s: load_player("random") for s in (1, 2, 3)}
    assert GameSession(players, {}, seed=1, signs=True, catch=0.5).variant == \
        ALUETTE_SIGNS_V0.with_catch(0.5)
    assert GameSession(players, {}, seed=1, variant=ALUETTE_SIGNS_V0).signs
    assert AluetteGame({"signs": True, "catch": 0.5}).variant == ALUETTE_SIGNS_V0.with_catch(0.5)
    assert AluetteGame(variant=ALUETTE_SIGNS_V0).num_distinct_actions() == NUM_ACTIONS


@pytest.mark.parametrize("kwargs, message", [
    ({"signs": "yes"}, "signs must be True or False"),
    ({"catch": 0.5}, "pass signs=True too"),
    ({"variant": ALUETTE_V1, "signs": True}, "not both"),
    ({"variant": "aluette_v1"}, "variant must be a Variant"),
])
def test_a_bad_variant_is_one_line(kwargs, message):
    with pytest.raises(ValueError, match=message) as err:
        variant_of(**kwargs)
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="extends the layout-2 observation"):
        aluette_v0.raw_env(signs=True)


def test_a_version_keeps_its_game_when_a_newer_one_comes(monkeypatch):
    """aluette_v1 is frozen: a newer default in aec (a v2) changes neither its
    name nor its observation."""
    newer = Variant("aluette_v2", obs_layout=3, signs=True)
    monkeypatch.setattr(aec.raw_env, "variant", newer)
    monkeypatch.setitem(aec.raw_env.metadata, "name", "aluette_v2")
    assert aec.raw_env().metadata["name"] == "aluette_v2"
    env = aluette_v1.raw_env()
    assert env.metadata["name"] == "aluette_v1" and env.variant == ALUETTE_V1
    assert env.observation_space("player_0")["observation"].shape == (OBS_SIZE,)
    assert aluette_v1.raw_env.obs_layout == 2 and aluette_v0.raw_env.obs_layout == 1


def test_an_env_of_another_variant_has_its_metadata_on_its_own_class():
    """``raw_env(variant=...)`` or ``raw_env(signs=True)``, a variant that is not
    the class's: the env is of that variant's class, made once, whose class
    attribute ``metadata`` names it; no env carries a ``metadata`` of its own,
    and the class it was asked of keeps its name. It pickles to the same class."""
    env = aec.raw_env(signs=True)
    assert "metadata" not in vars(env) and "metadata" not in vars(aec.raw_env(variant=ALUETTE_V0))
    assert type(env).metadata["name"] == "aluette_signs_v0" and type(env).variant == env.variant
    assert isinstance(env, aec.raw_env) and type(env) is aec.env_class(ALUETTE_SIGNS_V0)
    assert type(aec.raw_env(variant=ALUETTE_SIGNS_V0)) is type(env)
    assert aec.raw_env.metadata["name"] == "aluette_v1" and type(aec.raw_env()) is aec.raw_env
    assert type(aluette_signs_v0.raw_env(catch=0.5)) is aluette_signs_v0.raw_env
    env.reset(seed=2)
    env.step(SIGN_BASE)
    again = pickle.loads(pickle.dumps(env))
    assert type(again) is type(env) and again.variant == ALUETTE_SIGNS_V0
    assert np.array_equal(again.observe(again.agent_selection)["observation"],
                          env.observe(env.agent_selection)["observation"])


def test_s4_the_draws_are_the_catch_rule():
    """The deal's catches are one draw per catcher, left then right, each caught
    below its chance: as ``catch_bits`` of the two draws; elementwise on arrays."""
    variant = ALUETTE_SIGNS_V0.with_catch(0.4)
    for seed in range(20):
        rng, again = random.Random(seed), random.Random(seed)
        expected = [catch_bits(k % 4, again.random() < 0.4, again.random() < 0.4)
                    for k in range(36)]
        assert variant.draw_catches(rng.random) == expected
    draws = np.random.default_rng(0).random((2, 500))
    bits = variant.caught_from_draws(1, draws)
    assert bits.tolist() == [variant.caught_from_draws(1, [a, b]) for a, b in draws.T]
    assert ALUETTE_V1.draw_catches(random.Random(0).random) == [0] * 36


def test_s4_who_caught_a_sign_is_the_inverse_of_the_bits():
    variant = ALUETTE_SIGNS_V0
    for signer in range(NUM_SEATS):
        assert [s for s, _ in variant.catchers(signer)] == [(signer + 1) % 4, (signer + 3) % 4]
        for bits in range(16):
            who = variant.caught_by(signer, 3, bits)
            assert variant.caught_bits(signer, [o in who for o in range(4)]) == bits & (
                (1 << (signer + 1) % 4) | (1 << (signer + 3) % 4))
            assert variant.caught_by(signer, NO_SIGN, bits) == []  # silence: nothing caught
        outcomes = variant.catch_outcomes(signer)
        assert sum(p for _, p in outcomes) == pytest.approx(1)
        assert [variant.caught_of_outcome(signer, o) for o, _ in outcomes] == [
            catch_bits(signer, bool(o & 1), bool(o & 2)) for o in range(4)]
    assert [o for o, _ in ALUETTE_SIGNS_V0.with_catch(1.0).catch_outcomes(0)] == [3]


def test_s5_silence_is_known_to_the_signers_team_a_sign_to_who_sees_it():
    variant = ALUETTE_SIGNS_V0
    for signer in range(4):
        for observer_ in range(4):
            assert variant.knows_sign(observer_, signer, NO_SIGN, 0b1111) == (
                team_of(observer_) == team_of(signer))
            for bits in range(16):
                assert variant.knows_sign(observer_, signer, 4, bits) == sees_sign(
                    observer_, signer, bits)


def test_the_legal_actions_are_the_steps_own():
    rng = np.random.default_rng(3)
    for variant in (ALUETTE_V1, ALUETTE_SIGNS_V0):
        match = variant.new_match(first_dealer=1, num_deals=1)
        match.deal_deck(rng.permutation(NUM_CARDS).tolist())
        g = match.state
        while not g.over:
            legal = variant.legal_actions(g)
            assert legal == [a for a in range(variant.num_actions) if is_legal(g, a)]
            for seat in range(4):
                mask = np.zeros(variant.num_actions, np.int8)
                write_legal(g, seat, mask)
                assert np.flatnonzero(mask).tolist() == (legal if seat == g.to_act else [])
            action = int(rng.choice(legal))
            deal = match.deal
            deal.sign(action - SIGN_BASE) if action >= SIGN_BASE else deal.play(action)
        mask = np.ones(variant.num_actions, np.int8)
        write_legal(g, g.to_act, mask)
        assert not mask.any()  # the match is over


@pytest.mark.parametrize("winners, reason, tied", [
    ("XXXXXXXXX", "all_spoiled", []),  # R15
    ("SSSSWWWNE", "most_tricks", []),  # R13
    ("SSSWWWNNX", "first_to_reach", [1]),  # R14: south reached three first
    ("XXXXXXXSS", "mordienne", []),  # R16
])
def test_r13_r16_why_a_deal_was_won(winners, reason, tied):
    from aluette_env.game import Match
    hands = hands_for_winners(winners.replace("S", "0").replace("W", "1").replace("N", "2")
                              .replace("E", "3"))
    deal = Match(first_dealer=3, num_deals=1).start_deal(hands)
    while deal.record is None:
        deal.play(hands[deal.to_act].pop(0))
    assert deal_reason(deal.record) == (reason, tied)
