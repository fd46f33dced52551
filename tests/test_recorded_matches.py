"""Seeded matches give the values recorded before the variant became one object:
for ``aluette_v0``, ``aluette_v1`` and ``aluette_signs_v0`` the same
observations (every seat's, at every step), masks, rewards, infos, ``state()``
and catches; the batched engine, OpenSpiel and a game for people the same; and
the shipped players the same moves. One SHA-256 digest per seeded match, kept in
``tests/data/recorded_matches.json``.

The digests were written from the code before that change; a later change that
means to alter one of these games rewrites them on purpose with
``python tests/test_recorded_matches.py --write`` and says why.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).with_name("data") / "recorded_matches.json"


def _hasher():
    return hashlib.sha256()


def _add(h, *values) -> None:
    for v in values:
        if isinstance(v, np.ndarray):
            h.update(str(v.dtype).encode() + str(v.shape).encode())
            h.update(np.ascontiguousarray(v).tobytes())
        else:
            h.update(json.dumps(v, sort_keys=True, default=str).encode())


def aec_digest(module: str, seed: int, num_deals: int = 2, player: str | None = None,
               **kwargs) -> str:
    """Every observation of every seat, each mask, reward, info, ``state()`` and
    the deal's catches at each step of a seeded match of ``module``'s env; the
    moves random from the mask (seeded), or ``player``'s (its own moves digested)."""
    import importlib

    from aluette_env.players import for_signs, load_player
    env = importlib.import_module(f"aluette_env.{module}").raw_env(num_deals=num_deals,
                                                                   **kwargs)
    signs = env.action_space("player_0").n > 48
    actor = None
    if player is not None:
        actor = load_player(player)
        actor = for_signs(actor) if signs else actor
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    h = _hasher()
    _add(h, env.metadata["name"])
    while env.agents:
        agent = env.agent_selection
        for a in env.possible_agents:
            ob = env.observe(a)
            _add(h, ob["observation"], ob["action_mask"])
        _add(h, env.state(), dict(env.rewards), dict(env._cumulative_rewards), env.infos,
             dict(env.terminations))
        if signs:
            _add(h, list(env.match.state.caught))
        if env.terminations[agent]:
            env.step(None)
            continue
        ob = env.observe(agent)
        if actor is None:
            action = int(rng.choice(np.flatnonzero(ob["action_mask"])))
        else:
            action = int(actor.act(ob["observation"], ob["action_mask"]))
        _add(h, action)
        env.step(action)
    _add(h, env.match.points)
    return h.hexdigest()


def vector_digest(seed: int, **kwargs) -> str:
    """The batched engine's observations, masks, rewards, ends and catches over
    seeded random play (auto-reset on: a second match starts in each game)."""
    from aluette_env.vector import VectorGame
    game = VectorGame(6, num_deals=2, seed=seed, **kwargs)
    game.reset()
    rng = np.random.default_rng(seed)
    h = _hasher()
    for _ in range(2 * 36 * (2 if game.variant.signs else 1) + 20):
        _add(h, game.obs, game.mask, game.to_act, game.state.caught)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in game.mask], np.int64)
        rewards, deal_done, match_done = game.step(actions)
        _add(h, rewards, deal_done, match_done)
        for i in np.flatnonzero(deal_done):
            _add(h, game.deal_result(int(i)))
    return h.hexdigest()


def openspiel_digest(seed: int, **params) -> str:
    """A seeded random match of ``python_aluette``: every action, the tensors and
    strings of every seat at each decision, the returns."""
    import pyspiel

    import aluette_env.openspiel  # noqa: F401 - registers the game
    game = pyspiel.load_game("python_aluette", {"num_deals": 1, **params})
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    h = _hasher()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            _add(h, outcomes)
            action = outcomes[rng.choice(len(outcomes))][0]
        else:
            for p in range(4):
                _add(h, state.information_state_tensor(p), state.observation_tensor(p),
                     state.information_state_string(p), state.observation_string(p))
            legal = state.legal_actions()
            _add(h, legal, state.rewards())
            if params.get("signs") and len(state.history()) in (80, 120):
                resampled = state.resample_from_infostate(1, lambda: 0.375)
                _add(h, resampled.history())
            action = int(rng.choice(legal))
        _add(h, state.action_to_string(state.current_player(), action))
        state.apply_action(action)
    _add(h, state.returns(), state.history())
    return h.hexdigest()


def session_digest(seed: int, **kwargs) -> str:
    """A seeded game for people played by its stand-in (the person away): every
    event as each seat is told it, each seat's view, and the match record."""
    from aluette_env.apps.session import GameSession
    from aluette_env.players import load_player
    players = {s: load_player("heuristic") for s in (1, 2, 3)}
    game = GameSession(players, {s: "heuristic" for s in (1, 2, 3)}, seed=seed,
                       first_dealer=seed % 4, standin=load_player("heuristic"),
                       standin_spec="heuristic", **kwargs)
    h = _hasher()
    events = game.opening_events + game.set_away(0, True)
    while True:
        for seat in (None, 0, 1, 2, 3):
            _add(h, game.events_for(events, seat), game.view(seat))
        if game.match.over:
            break
        events = game.next_deal()
    _add(h, *_as_written_before(game.record(), game.snapshot()))
    return h.hexdigest()


def _as_written_before(record: dict, snapshot: dict) -> tuple[dict, dict]:
    """A record and a snapshot in the form they had when these digests were
    written: since then they name their game (the record's ``variant``, version
    4, when it is not the shipped game its signs imply; the snapshot's
    ``variant`` where it kept ``catch`` with signs), and the rest is unchanged.
    tests/test_a_second_variant.py checks the names themselves."""
    def older(rec: dict) -> dict:
        if "variant" not in rec:
            return rec
        rest = {k: v for k, v in rec.items() if k != "variant"}
        return {**rest, "version": 3 if rec.get("signs") else 2 if "names" in rec else 1}
    spec = snapshot["variant"]
    snap = {k: v for k, v in snapshot.items() if k != "variant"}
    if spec["id"] == "aluette_signs_v0":
        snap["catch"] = spec["params"]["catch"]
    return older(record), {**snap, "record": older(snapshot["record"])}


def cases() -> dict[str, object]:
    """name -> a function computing that digest."""
    from aluette_env.game import ALUETTE_SIGNS_V0
    out = {}
    for module in ("aluette_v0", "aluette_v1"):
        for seed in (0, 1):
            out[f"{module}/seed={seed}"] = lambda m=module, s=seed: aec_digest(m, s)
    for seed in (0, 1):
        out[f"aluette_signs_v0/seed={seed}"] = lambda s=seed: aec_digest("aluette_signs_v0", s)
    out["aluette_signs_v0/catch=0.6/seed=2"] = lambda: aec_digest("aluette_signs_v0", 2,
                                                                  catch=0.6)
    for player in ("random:seed=7", "heuristic", "heuristic:version=1", "ai:version=1",
                   "ai:version=4"):
        out[f"aluette_v1/{player}"] = lambda p=player: aec_digest("aluette_v1", 3, player=p)
    for player in ("pimc:worlds=4,seed=1", "expert:version=5,worlds=2,seed=1",
                   "expert:worlds=2,seed=1"):
        out[f"aluette_v1/{player}"] = lambda p=player: aec_digest("aluette_v1", 3, num_deals=1,
                                                                  player=p)
    for player in ("heuristic", "ai:version=4", "pimc:worlds=4,seed=1",
                   "expert:version=5,worlds=2,seed=1", "expert:worlds=2,seed=1"):
        out[f"aluette_signs_v0/{player}"] = lambda p=player: aec_digest(
            "aluette_signs_v0", 4, num_deals=1, player=p, catch=0.5)
    out["vector/seed=0"] = lambda: vector_digest(0)
    out["vector/signs/seed=0"] = lambda: vector_digest(0, variant=ALUETTE_SIGNS_V0)
    out["vector/signs/catch=0.7/seed=1"] = lambda: vector_digest(
        1, variant=ALUETTE_SIGNS_V0.with_catch(0.7))
    out["openspiel/seed=0"] = lambda: openspiel_digest(0)
    out["openspiel/signs/seed=0"] = lambda: openspiel_digest(0, signs=True)
    out["openspiel/signs/catch=0.6/seed=1"] = lambda: openspiel_digest(1, signs=True, catch=0.6)
    out["session/seed=5"] = lambda: session_digest(5)
    out["session/signs/seed=6"] = lambda: session_digest(6, variant=ALUETTE_SIGNS_V0)
    out["session/signs/catch=0.8/seed=7"] = lambda: session_digest(
        7, variant=ALUETTE_SIGNS_V0.with_catch(0.8))
    return out


CASES = cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_seeded_match_gives_the_recorded_values(name):
    recorded = json.loads(DATA.read_text(encoding="utf-8"))
    assert CASES[name]() == recorded[name], f"{name}: not the values recorded before"


def test_every_recorded_match_is_checked():
    assert set(json.loads(DATA.read_text(encoding="utf-8"))) == set(CASES)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_recorded_matches.py --write")
    DATA.parent.mkdir(exist_ok=True)
    digests = {name: fn() for name, fn in sorted(CASES.items())}
    DATA.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {len(digests)} digests to {DATA}")
