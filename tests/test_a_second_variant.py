"""A second variant costs one file: the variants below are defined here
and nowhere else. One is a match of three deals in which only the opponent on
the signer's left may catch a sign, with a chance of its own; the other a
match of two deals with signs that no opponent ever catches (only the partner
sees them). The PettingZoo env, the batched engine, OpenSpiel, the game for
people (its snapshots and records, restored by the variant's id) and a
training config play them as they play the shipped ones, through the one
object, and no seat is ever told of a sign the rule keeps from it."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from aluette_env import aec
from aluette_env.game import (
    ALUETTE_SIGNS_V0, NUM_ACTIONS, NUM_SEATS, Variant, register_variant, seat_at,
    variant_from_spec,
)
from aluette_env.vector import VectorGame


class LeftCatchesOnly(Variant):
    """The signs variant, except that only the opponent on the signer's left
    (the next to play) may catch a sign; the one on its right never does."""

    def catchers(self, signer: int) -> tuple[tuple[int, float], ...]:
        return ((seat_at(signer, 1), self.catch),)


class NoCatches(Variant):
    """Signs that no opponent ever catches: S4 without its chance."""

    def catchers(self, signer: int) -> tuple[tuple[int, float], ...]:
        return ()


VARIANT = register_variant(LeftCatchesOnly("aluette_left_catch_v0", obs_layout=3, signs=True,
                                           catch=0.6, num_deals=3))
PARTNER_SIGNS = register_variant(NoCatches("aluette_partner_signs_v0", obs_layout=3, signs=True,
                                           num_deals=2))
BOTH = pytest.mark.parametrize("variant", [VARIANT, PARTNER_SIGNS], ids=lambda v: v.env_id)


def _left_only(caught) -> bool:
    """Every caught bit of a deal's 36 signs (the last axis: trick t, seat s at
    t * 4 + s) is the signer's left-hand opponent's."""
    allowed = 1 << ((np.arange(36) % NUM_SEATS + 1) % NUM_SEATS)
    return bool(((np.asarray(caught) & ~allowed) == 0).all())


@BOTH
def test_the_env_plays_the_variant_and_passes_pettingzoo_tests(variant):
    api_test(aec.wrap(aec.raw_env(variant=variant)), num_cycles=300)
    seed_test(lambda: aec.wrap(aec.raw_env(variant=variant)), num_cycles=100)
    env = aec.raw_env(variant=variant)
    env.reset(seed=4)
    assert env.metadata["name"] == variant.env_id and env.num_deals == variant.num_deals
    assert env.action_space("player_0").n == NUM_ACTIONS
    rng = np.random.default_rng(4)
    while env.agents:
        assert _left_only(env.match.state.caught) if variant is VARIANT \
            else not np.any(env.match.state.caught)
        agent = env.agent_selection
        if env.terminations[agent]:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    assert env.match.deal_index == variant.num_deals


@BOTH
def test_the_engine_is_the_env_bit_for_bit(variant):
    n, deals = 6, variant.num_deals
    rng = np.random.default_rng(11)
    hands = np.stack([np.stack([rng.permutation(48)[:36].reshape(4, 9) for _ in range(deals)])
                      for _ in range(n)])
    catches = rng.random((n, deals, 9, 4, 4)) < 0.5  # every watcher: only the left one counts
    game = VectorGame(n, seed=3, auto_reset=False, variant=variant)
    game.reset(options={"deals": hands, "catches": catches, "first_dealer": [0, 1, 2, 3, 0, 1]})
    if variant is VARIANT:
        assert _left_only(game.state.caught) and game.state.caught.any()
    else:  # every watcher marked, none may catch
        assert not game.state.caught.any()
    envs = []
    for i in range(n):
        env = aec.raw_env(variant=variant)
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
    register_variant(PARTNER_SIGNS, "python_aluette_partner_signs")
    game = pyspiel.load_game("python_aluette_partner_signs")
    assert game.num_distinct_actions() == NUM_ACTIONS
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
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


def _match(variant, seed: int = 8):
    """A session of ``variant``: three heuristic seats, the person's away (the
    table's AI plays for it), up to the end of the match's first deal."""
    from aluette_env.apps.session import GameSession
    from aluette_env.players import load_player
    game = GameSession({s: load_player("heuristic") for s in (1, 2, 3)},
                       {s: "heuristic" for s in (1, 2, 3)}, seed=seed, variant=variant,
                       standin=load_player("heuristic"), standin_spec="heuristic")
    game.set_away(0, True)
    return game


def test_a_session_is_saved_and_restored_as_its_variant_by_its_id():
    """A snapshot and a record name the game (its env id and parameters), so
    they restore exactly that game with no variant given; never the shipped
    signs variant, and not as another game."""
    from aluette_env.apps.session import GameSession
    from aluette_env.players import load_player
    from aluette_env.records import RecordError, load_record
    game = _match(PARTNER_SIGNS)
    assert not any(game.match.state.caught)  # nobody catches: only partners see signs
    snapshot = game.snapshot()
    assert snapshot["variant"] == {"id": "aluette_partner_signs_v0",
                                   "params": {"catch": 0.25, "num_deals": 2}}
    again = GameSession.restore(snapshot, lambda spec: load_player(spec))
    assert again.variant == PARTNER_SIGNS and again.variant != ALUETTE_SIGNS_V0
    assert again.snapshot() == snapshot
    game.next_deal()
    record = game.record()
    assert record["version"] == 4 and record["variant"] == PARTNER_SIGNS.spec()
    load_record(record)  # replayed as its own variant, no variant given
    with pytest.raises(RecordError, match="the record is a match of aluette_partner_signs_v0"):
        load_record(record, ALUETTE_SIGNS_V0)
    with pytest.raises(ValueError, match="snapshot: a game of aluette_partner_signs_v0"):
        GameSession.restore(snapshot, lambda spec: load_player(spec), ALUETTE_SIGNS_V0)
    stranger = {**record, "variant": {"id": "aluette_nobody_v0", "params": {}}}
    with pytest.raises(RecordError, match="no variant 'aluette_nobody_v0'"):
        load_record(stranger)
    assert variant_from_spec(VARIANT.with_catch(0.3).spec()) == VARIANT.with_catch(0.3)


def test_an_older_snapshot_and_record_of_the_signs_variant_still_load():
    """Before snapshots named their game they kept ``catch`` (there exactly
    with signs) and records ``signs: true``: both still restore, as the
    shipped signs variant at that chance."""
    from aluette_env.apps.session import GameSession
    from aluette_env.players import load_player
    from aluette_env.records import load_record
    snapshot = _match(ALUETTE_SIGNS_V0.with_catch(0.4), seed=3).snapshot()
    assert snapshot["record"]["variant"] == {"id": "aluette_signs_v0",
                                             "params": {"catch": 0.4, "num_deals": 5}}
    record = {k: v for k, v in snapshot["record"].items() if k != "variant"}
    record["version"] = 3 if record.get("signs") else 1  # as it was written then
    older = {k: v for k, v in snapshot.items() if k != "variant"} | {"catch": 0.4,
                                                                     "record": record}
    again = GameSession.restore(older, lambda spec: load_player(spec))
    assert again.variant == ALUETTE_SIGNS_V0.with_catch(0.4)
    assert load_record(again.record()) is not None


def test_a_training_config_names_the_variant_by_its_id():
    """configs/signs.yaml with ``env.id`` naming the variant: the loader checks
    it with the signs variant's rules and hands the trainer that game."""
    from conftest import ROOT
    from training.config.loader import load_config
    cfg = load_config(ROOT / "configs" / "signs.yaml",
                      ["env.id=aluette_partner_signs_v0", "env.num_deals=2"])
    assert cfg.env.signs and cfg.env.variant == PARTNER_SIGNS
    with pytest.raises(ValueError, match="'env.id': no variant 'aluette_nobody_v0'"):
        load_config(ROOT / "configs" / "signs.yaml", ["env.id=aluette_nobody_v0"])
