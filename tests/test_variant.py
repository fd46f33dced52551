"""A variant is one object (aluette_env.game.variant): the shipped
variants by env id, the catch rule stated once and everything that follows from
it (the draws, their inverse, OpenSpiel's outcomes, who knows which sign), the
legal actions, the game apart from its observation layout, the older ``signs=`` /
``catch=`` keywords building the same object everywhere with a
DeprecationWarning (never beside ``variant=``), and each env version frozen to
its own variant."""

from __future__ import annotations

import dataclasses
import os
import pickle
import random
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aluette_env import aec, aluette_signs_v0, aluette_v0, aluette_v1
from aluette_env.game import (
    ALUETTE_SIGNS_V0, ALUETTE_V0, ALUETTE_V1, NO_SIGN, NUM_ACTIONS, NUM_CARDS, NUM_SEATS,
    SIGN_BASE, VARIANTS, Variant, catch_bits, deal_reason, is_legal, load_variant, sees_sign,
    register_variant, team_of, variant_from_spec, variant_of, write_legal,
)
from aluette_env.observation import OBS_SIZE, SIGNS_OBS_SIZE, obs_size, observer
from aluette_env.evaluation import duplicate_eval
from aluette_env.vector import VectorGame
from conftest import ROOT, hands_for_winners


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


def test_a_game_is_apart_from_its_observation_layout():
    """aluette_v0 and aluette_v1 are one game seen through two layouts; the
    signs variant, another chance of a catch or another length is another
    game. A variant's spec (env id and parameters) is what records, snapshots
    and configs store, and reads back as that variant."""
    assert ALUETTE_V0.game == ALUETTE_V1.game and ALUETTE_V0 != ALUETTE_V1
    assert ALUETTE_V1.game_id == "aluette" and ALUETTE_SIGNS_V0.game_id == "aluette_signs"
    assert ALUETTE_V0.with_layout(2, "aluette_v1") == ALUETTE_V1
    for other in (ALUETTE_SIGNS_V0, ALUETTE_SIGNS_V0.with_catch(0.5),
                  ALUETTE_V1.with_params(num_deals=3)):
        assert other.game != ALUETTE_V1.game
    assert ALUETTE_SIGNS_V0.with_catch(0.5).game != ALUETTE_SIGNS_V0.game
    for variant in (ALUETTE_V0, ALUETTE_V1, ALUETTE_SIGNS_V0.with_catch(0.5)):
        assert variant_from_spec(variant.spec()) == variant
    assert variant_from_spec("aluette_signs_v0") == ALUETTE_SIGNS_V0
    for bad, message in (({"id": "aluette_v1", "params": {"colour": 1}}, "unknown parameter"),
                         ({"id": 3}, "no variant 3"), ([1], "an env id or")):
        with pytest.raises(ValueError, match=message):
            variant_from_spec(bad)
    with pytest.raises(ValueError, match="the env id aluette_v1 is already"):
        register_variant(ALUETTE_V1.with_params(num_deals=2))


OLDER = "signs= and catch= are deprecated; name the game with variant="
#: For a test of the older keywords themselves (pyproject.toml makes their warning
#: an error everywhere else: the suite names each game by its variant).
OLDER_TAKEN = pytest.mark.filterwarnings(f"ignore:{OLDER}:DeprecationWarning")


@pytest.mark.parametrize("make, variant, warns", [
    (lambda: aluette_v0.raw_env(), ALUETTE_V0, False),
    (lambda: aluette_v1.raw_env(), ALUETTE_V1, False),
    (lambda: aluette_signs_v0.raw_env(catch=0.5), ALUETTE_SIGNS_V0.with_catch(0.5), False),
    (lambda: aec.raw_env(variant=ALUETTE_SIGNS_V0), ALUETTE_SIGNS_V0, False),
    (lambda: aec.raw_env(variant="aluette_signs_v0"), ALUETTE_SIGNS_V0, False),
    (lambda: VectorGame(2, variant=ALUETTE_SIGNS_V0.with_catch(0.5)),
     ALUETTE_SIGNS_V0.with_catch(0.5), False),
    (lambda: VectorGame(2), ALUETTE_V1, False),
    # the older keywords: the same variant, with a DeprecationWarning
    (lambda: aec.raw_env(signs=True, catch=0.5), ALUETTE_SIGNS_V0.with_catch(0.5), True),
    (lambda: VectorGame(2, signs=True, catch=0.5), ALUETTE_SIGNS_V0.with_catch(0.5), True),
    (lambda: VectorGame(2, signs=False), ALUETTE_V1, True),
])
def test_the_variant_names_the_game_and_the_older_keywords_warn(make, variant, warns):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        made = make()
    older = [w for w in caught if issubclass(w.category, DeprecationWarning)
             and OLDER in str(w.message)]
    assert bool(older) == warns
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
    with pytest.warns(DeprecationWarning, match=OLDER):
        assert GameSession(players, {}, seed=1, signs=True, catch=0.5).variant == \
            ALUETTE_SIGNS_V0.with_catch(0.5)
    assert GameSession(players, {}, seed=1, variant=ALUETTE_SIGNS_V0).signs
    assert AluetteGame({"signs": True, "catch": 0.5}).variant == ALUETTE_SIGNS_V0.with_catch(0.5)
    assert AluetteGame(variant=ALUETTE_SIGNS_V0).num_distinct_actions() == NUM_ACTIONS


@pytest.mark.parametrize("kwargs, message", [
    ({"signs": "yes"}, "signs must be True or False"),
    ({"catch": 0.5}, "pass signs=True too"),
    ({"variant": ALUETTE_V1, "signs": True}, "not both"),
    ({"variant": ALUETTE_SIGNS_V0, "signs": True}, "not both"),
    ({"variant": ALUETTE_SIGNS_V0, "catch": 0.25}, "not both"),
    ({"variant": 3}, "variant must be a Variant or a variant's env id"),
    ({"variant": "aluette_v9"}, "no variant 'aluette_v9'"),
    ({"variant": ALUETTE_SIGNS_V0, "signs": "yes"}, "signs must be True or False"),
])
@OLDER_TAKEN
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


@OLDER_TAKEN
def test_an_env_of_another_shipped_variant_is_of_that_version_s_class():
    """``raw_env(variant=...)`` or ``raw_env(signs=True)``, a shipped variant that
    is not the class's: the env is of that version module's plain subclass, whose
    class attribute ``metadata`` names it; no such env carries a ``metadata`` of
    its own, and the class it was asked of keeps its name. It pickles to the
    same class. A version's class plays its own game only."""
    env = aec.raw_env(signs=True)
    assert "metadata" not in vars(env) and "metadata" not in vars(aec.raw_env(variant=ALUETTE_V0))
    assert type(env).metadata["name"] == "aluette_signs_v0" and type(env).variant == env.variant
    assert type(env) is aluette_signs_v0.raw_env and isinstance(env, aec.raw_env)
    assert type(aec.raw_env(variant=ALUETTE_V0)) is aluette_v0.raw_env
    assert type(aec.raw_env(variant=ALUETTE_SIGNS_V0)) is type(env)
    with pytest.raises(ValueError, match="aluette_v1's env plays aluette_v1; aluette_v0 is "):
        aluette_v1.raw_env(variant=ALUETTE_V0)
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


# -- every field checked where the variant is made ------------------------------------


def unchecked(cls: type = Variant, **fields) -> Variant:
    """A variant whose fields no check saw: what a subclass that skips
    ``__post_init__``, or a field set past the frozen dataclass, makes. Every
    consumer must refuse it as :class:`Variant` itself would have."""
    made = object.__new__(cls)
    for f in dataclasses.fields(Variant):
        object.__setattr__(made, f.name, fields.get(f.name, getattr(ALUETTE_V1, f.name)))
    return made


class CatchersOf(Variant):
    """The signs variant with the catch rule ``rule`` (a class attribute)."""

    rule = staticmethod(lambda signer: ())

    def catchers(self, signer: int):
        return self.rule(signer)


def catchers_variant(rule) -> type:
    return type("Odd", (CatchersOf,), {"rule": staticmethod(rule)})


SIGNS = {"obs_layout": 3, "signs": True}
#: (field the error names, the variant's fields, its class): each refused.
INVALID = [
    ("env_id", {"env_id": ""}, Variant), ("env_id", {"env_id": 7}, Variant),
    ("env_id", {"env_id": "a\nb"}, Variant),
    *[("obs_layout", {"obs_layout": v}, Variant)
      for v in (0, -1, 4, 7, 2.0, "2", True, None, np.float64(2), np.True_, 2**70)],
    ("obs_layout", {"obs_layout": 3}, Variant), ("obs_layout", {"obs_layout": 2, "signs": True},
                                                 Variant),
    ("obs_layout", {"obs_layout": 1, "signs": np.True_}, Variant),
    *[("signs", {"signs": v}, Variant) for v in ("yes", "True", 1, 0, None, np.int64(1), 1.0)],
    *[("num_deals", {"num_deals": v}, Variant)
      for v in (-1, 0, 11, 2.5, "5", True, None, np.float64(3), 1e308, float("nan"), [5])],
    *[("catch", {"catch": v, **SIGNS}, Variant)
      for v in (-0.1, 1.5, float("nan"), float("inf"), "high", True, None, np.inf)],
    ("catch", {"catch": 0.5}, Variant),
    ("catchers", SIGNS, catchers_variant(lambda s: ((7, 0.5),))),
    ("catchers", SIGNS, catchers_variant(lambda s: (((s + 2) % 4, 0.5),))),  # the partner
    ("catchers", SIGNS, catchers_variant(lambda s: ((s, 0.5),))),  # the signer
    ("catchers", SIGNS, catchers_variant(lambda s: (((s + 1) % 4, 0.5),) * 2)),
    ("catchers", SIGNS, catchers_variant(lambda s: (((s + 1) % 4, 1.5),))),
    ("catchers", SIGNS, catchers_variant(lambda s: (((s + 1) % 4, float("nan")),))),
    ("catchers", SIGNS, catchers_variant(lambda s: (((s + 1) % 4, 0.5, 1),))),
    ("catchers", SIGNS, catchers_variant(lambda s: (((s + 1) % 4, 0.5),) if s else ())),
    ("catchers", SIGNS, catchers_variant(lambda s: 3)),
    ("catchers", {}, catchers_variant(lambda s: (((s + 1) % 4, 0.25),))),  # without signs
]


def _field_named(err: pytest.ExceptionInfo, field: str) -> None:
    text = str(err.value)
    assert field in text and "\n" not in text, text


@pytest.mark.parametrize("field, fields, cls", INVALID,
                         ids=[f"{f}-{i}" for i, (f, _, _) in enumerate(INVALID)])
def test_a_variant_with_a_bad_field_is_refused_where_it_is_made(field, fields, cls):
    """Each bad field is one ValueError naming it when the Variant is made, by
    its class or by load_variant; one made past the checks is refused by every
    consumer (the env, the engine, the evaluation, OpenSpiel, the game for
    people), before any of it plays."""
    with pytest.raises(ValueError) as err:
        cls(**{"env_id": "x", "obs_layout": 2, **fields})
    _field_named(err, field)
    if cls is Variant and "env_id" not in fields:
        with pytest.raises(ValueError) as err:
            load_variant("aluette_v1", **fields)
        _field_named(err, field)
    bad = unchecked(cls, **fields)
    for consume in CONSUMERS:
        with pytest.raises(ValueError) as err:
            consume(bad)
        _field_named(err, field)


def _session(variant):
    from aluette_env.apps.session import GameSession
    from aluette_env.players import load_player
    return GameSession({s: load_player("random") for s in (1, 2, 3)}, {}, seed=0,
                       variant=variant)


def _openspiel(variant):
    pytest.importorskip("pyspiel")
    from aluette_env.openspiel import AluetteGame
    return AluetteGame(variant=variant)


CONSUMERS = [
    lambda v: aec.raw_env(variant=v),
    lambda v: aec.env(variant=v),
    lambda v: VectorGame(2, variant=v),
    lambda v: duplicate_eval("random", "random", deals=1, variant=v),
    _openspiel,
    _session,
    variant_of,
]


@settings(max_examples=60, deadline=None)
@given(field=st.sampled_from(["obs_layout", "signs", "num_deals", "catch"]),
       value=st.one_of(st.integers(-2**64, 2**64), st.floats(allow_nan=True),
                       st.text(max_size=5), st.none(), st.booleans(),
                       st.lists(st.integers(), max_size=2),
                       st.integers(-5, 20).map(np.int64), st.floats(-1, 2).map(np.float64)))
def test_any_field_value_is_a_variant_or_one_line_error(field, value):
    """Whatever a field holds, the variant is made whole (every consumer plays
    it) or refused with one ValueError naming that field."""
    fields = {**SIGNS, field: value} if field == "catch" else {field: value}
    try:
        made = load_variant("aluette_v1", **fields)
    except ValueError as err:
        assert field in str(err) and "\n" not in str(err), err
        return
    assert type(made.obs_layout) is int and type(made.num_deals) is int
    assert type(made.signs) is bool and type(made.catch) is float
    assert observer(made).size in (obs_size(1), OBS_SIZE, SIGNS_OBS_SIZE)


@OLDER_TAKEN
def test_numpy_scalars_are_taken_where_python_ones_are():
    made = Variant("aluette_signs_v0", obs_layout=np.int64(3), signs=np.True_,
                   catch=np.float64(0.25), num_deals=np.int8(5))
    assert made == ALUETTE_SIGNS_V0 and type(made.signs) is bool and type(made.num_deals) is int
    env = aec.env(signs=np.True_, catch=np.float32(0.5))
    assert env.unwrapped.variant == ALUETTE_SIGNS_V0.with_catch(float(np.float32(0.5)))
    assert VectorGame(2, signs=np.True_).variant == ALUETTE_SIGNS_V0
    assert aec.raw_env(variant="aluette_v0").variant == ALUETTE_V0
    assert ALUETTE_SIGNS_V0.is_action(np.int64(57)) and ALUETTE_SIGNS_V0.is_action(np.uint8(48))
    assert not any(ALUETTE_SIGNS_V0.is_action(a) for a in (np.int64(58), np.True_, True, 3.0))


def test_the_game_for_people_refuses_a_variant_its_players_cannot_read():
    with pytest.raises(ValueError, match="observation layout 1; the AI players at a table read"):
        _session(ALUETTE_V0)
    with pytest.raises(ValueError, match="aluette_v0: the engine writes observations of layout"):
        duplicate_eval("random", "random", deals=1, variant=ALUETTE_V0)


@pytest.mark.parametrize("variant", [
    load_variant("aluette_v1", num_deals=np.int64(2)),
    load_variant("aluette_signs_v0", num_deals=2, catch=np.float64(0.6)),
    "aluette_signs_v0",
])
def test_valid_variants_still_play_in_every_consumer(variant):
    made = variant_of(variant)
    env = aec.env(variant=variant)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for agent in env.agent_iter():
        ob, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(ob["action_mask"]))))
    assert env.unwrapped.match.deal_index == made.num_deals
    result = duplicate_eval("random", "heuristic", deals=3, variant=variant)
    assert result.deals == 3
    session = _session(variant)
    assert session.variant == made
    pyspiel = pytest.importorskip("pyspiel")
    state = _openspiel(variant).new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert sum(state.returns()) == pytest.approx(0) and isinstance(state, pyspiel.State)


# -- no input reaches a kernel that can write out of bounds ---------------------------


@pytest.mark.parametrize("make", [
    lambda: load_variant("aluette_v1", signs=True),
    lambda: load_variant("aluette_signs_v0", obs_layout=2),
    lambda: Variant("x", obs_layout=2, signs=True),
])
def test_a_signs_variant_without_the_signs_observation_is_refused(make):
    with pytest.raises(ValueError, match="obs_layout 2 is not an observation of the signs "
                                         "variant"):
        make()


def test_the_evaluation_of_a_signs_variant_of_layout_2_is_an_error_not_a_crash():
    """The public call that wrote past the engine's buffers (a segfault, or
    glibc's "double free") ends in one ValueError, the process alive."""
    code = ("from aluette_env.game import load_variant; from aluette_env.evaluation import "
            "duplicate_eval; duplicate_eval('random', 'random', deals=20, "
            "variant=load_variant('aluette_v1', signs=True))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 1, done.stderr[-500:]
    assert done.stderr.strip().splitlines()[-1].startswith(
        "ValueError: aluette_v1: obs_layout 2 is not an observation of the signs variant")


def test_the_engine_checks_its_buffers_before_each_kernel():
    """A variant made past its checks, or a buffer replaced by a caller, is an
    error in Python before the kernels run, never a write past an array's end."""
    with pytest.raises(ValueError, match="obs_layout 2 is not an observation of the signs"):
        VectorGame(2, variant=unchecked(obs_layout=2, signs=True))
    with pytest.raises(ValueError, match="obs_layout 2 is not an observation of the signs"):
        aec.raw_env(variant=unchecked(obs_layout=2, signs=True))
    game = VectorGame(2, variant=ALUETTE_SIGNS_V0)
    game.reset(seed=0)
    actions = np.full(2, SIGN_BASE)
    for name, narrow in (("obs", np.zeros((2, OBS_SIZE), np.int8)),
                         ("mask", np.zeros((2, NUM_CARDS), np.int8)),
                         ("rewards", np.zeros((1, 4), np.float32)),
                         ("deal_done", np.zeros(1, np.bool_))):
        kept = getattr(game, name)
        setattr(game, name, narrow)
        with pytest.raises(RuntimeError, match="the engine.s arrays were replaced or reshaped"):
            game.step(actions)
        setattr(game, name, kept)
    game.mask.shape = (4, NUM_ACTIONS // 2)  # reshaped in place: rows too short
    with pytest.raises(RuntimeError, match="the engine's arrays were replaced or reshaped"):
        game.step(actions)
    game.mask.shape = (2, NUM_ACTIONS)
    game.step(actions)  # whole again
    assert game.mask[:, :NUM_CARDS].any()
