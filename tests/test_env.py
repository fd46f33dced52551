"""The PettingZoo AEC environment: API conformance, rewards and infos,
options, errors, the observation encoding and the no-leak guarantee."""

import pickle

import numpy as np
import pettingzoo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, render_test, seed_test

import aluette_env
from aluette_env import aluette_v0, aluette_v1
from aluette_env.game import AGENTS
from aluette_env.observation import (
    OBS_SIZE, STATE_SIZE, decode_observation, encode_observation, encode_state, obs_size,
    state_size,
)
from conftest import hands_for_winners, play_scripted


def random_play(e, rng, on_step=None):
    """Play a whole match with uniformly random legal cards."""
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(legal)))
        if on_step:
            on_step(e)


#: Every version PettingZoo can load (each module's env() and raw_env).
VERSIONS = [aluette_v0, aluette_v1]


@pytest.mark.parametrize("version", VERSIONS, ids=lambda m: m.__name__.rpartition(".")[2])
def test_api_test_wrapped_and_raw(version):
    api_test(version.env(), num_cycles=300)
    api_test(version.raw_env(), num_cycles=300)


@pytest.mark.parametrize("version", VERSIONS, ids=lambda m: m.__name__.rpartition(".")[2])
def test_seed_test(version):
    seed_test(version.env, num_cycles=300)
    seed_test(version.raw_env, num_cycles=300)


@pytest.mark.parametrize("version", VERSIONS, ids=lambda m: m.__name__.rpartition(".")[2])
def test_render_test(version):
    render_test(lambda render_mode=None: version.env(render_mode=render_mode))
    render_test(lambda render_mode=None: version.raw_env(render_mode=render_mode))


def test_unknown_reset_option_warns_and_is_ignored(caplog):
    plain, probed = aluette_env.raw_env(), aluette_env.raw_env()
    plain.reset(seed=4, options={"first_dealer": "player_1"})
    with pytest.warns(UserWarning, match=r"ignores unknown option\(s\) \['dealer'\]"):
        probed.reset(seed=4, options={"first_dealer": "player_1", "dealer": "player_0"})
    assert probed.deal.dealer == plain.deal.dealer == 1
    assert probed.deal.hands == plain.deal.hands


@pytest.mark.parametrize("name, width", [("aluette_v0", 638), ("aluette_v1", 1070),
                                         ("aluette", 1070)])
def test_registered_in_pettingzoo_and_metadata(name, width):
    import aluette_env.aec  # noqa: F401 - loading the env module registers it
    e = pettingzoo.make("aec", name)
    e.reset(seed=0)
    assert e.metadata["name"] == (name if name != "aluette" else "aluette_v1")  # the newest
    assert e.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    space = e.observation_space("player_0")
    assert space["action_mask"].dtype == np.int8 and space["action_mask"].shape == (48,)
    assert space["observation"].shape == (width,)
    assert e.action_space("player_3").n == 48
    assert e.observation_space("player_1") is space  # built once


def test_the_newest_version_is_the_package_env():
    assert aluette_env.raw_env is aluette_v1.raw_env and aluette_env.env is aluette_v1.env
    assert aluette_v1.raw_env.obs_layout == 2 and obs_size(2) == OBS_SIZE == 1070
    assert aluette_v1.raw_env().state_space.shape == (STATE_SIZE,)


@pytest.mark.parametrize("seed", range(3))
def test_v0_repeats_as_the_layout_1_prefix_of_v1(seed):
    """aluette_v0 is what it was before perfect recall: 638-entry observations and
    the matching state, equal to v1's prefix at every step of the same match, the
    same rewards, infos and masks."""
    old, new = aluette_v0.env(), aluette_v1.env()
    assert old.observation_space("player_0")["observation"].shape == (obs_size(1),) == (638,)
    assert old.unwrapped.state_space.shape == (state_size(1),) == (state_size(2) - 432,)
    old.reset(seed=seed)
    new.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent, agent_new in zip(old.agent_iter(), new.agent_iter()):
        assert agent == agent_new
        for a in AGENTS:
            o, n = old.observe(a), new.observe(a)
            assert o["observation"].shape == (638,)
            assert np.array_equal(o["observation"], n["observation"][:638])
            assert np.array_equal(o["action_mask"], n["action_mask"])
        assert np.array_equal(old.state(), new.state()[:state_size(1)])
        (_, r, term, trunc, info), (_, r_new, *_, info_new) = old.last(), new.last()
        assert (r, info) == (r_new, info_new)
        legal = np.flatnonzero(old.observe(agent)["action_mask"])
        action = None if term or trunc else int(rng.choice(legal))
        old.step(action)
        new.step(action)
    assert old.agents == new.agents == []


def test_pickle_mid_game_continues_identically():
    e = aluette_env.raw_env()
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(50):
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        e.step(int(rng.choice(legal)))
    f = pickle.loads(pickle.dumps(e))
    for _ in range(60):
        o1, o2 = e.observe(e.agent_selection), f.observe(f.agent_selection)
        assert np.array_equal(o1["observation"], o2["observation"])
        card = int(np.flatnonzero(o1["action_mask"])[0])
        e.step(card)
        f.step(card)
        assert e.rewards == f.rewards
    assert np.array_equal(e.state(), f.state())


@pytest.mark.parametrize("seed", range(6))
def test_incremental_observations_equal_reference_encoder(seed):
    e = aluette_env.raw_env()
    e.reset(seed=seed)

    def check(env):
        for o in range(4):
            assert np.array_equal(env._enc.obs[o], encode_observation(env.deal, o))

    check(e)
    random_play(e, np.random.default_rng(seed), check)


def test_action_mask_is_the_hand_of_the_agent_to_act_only():
    e = aluette_env.raw_env()
    e.reset(seed=1)
    actor = e.agent_selection
    for a in AGENTS:
        obs = e.observe(a)
        hand = sorted(e.deal.hands[int(a[-1])])
        assert decode_observation(obs["observation"])["hand"] == hand
        expected = hand if a == actor else []
        assert list(np.flatnonzero(obs["action_mask"])) == expected
        assert obs["observation"].dtype == np.int8 and obs["action_mask"].dtype == np.int8


def test_decode_observation_tells_the_table():
    e = aluette_env.raw_env()
    e.reset(seed=5, options={"first_dealer": "player_3"})
    first = e.agent_selection
    assert first == "player_0"  # R6: left of the dealer leads
    card = e.deal.hands[0][0]
    e.step(card)
    d = decode_observation(e.observe("player_1")["observation"])
    assert d["trick"] == {3: card}  # player_0 sits to player_1's right
    assert d["dealer"] == 2 and d["leader"] == 3 and d["to_act"] == 0
    assert d["trick_index"] == 0 and d["deal"] == 0 and d["deals_left"] == 5
    with pytest.raises(ValueError, match="shape"):
        decode_observation(np.zeros(3))
    # Anything but 0s and 1s is no observation: refused, naming the first bad entry.
    obs = e.observe("player_1")["observation"].astype(np.float32)
    assert decode_observation(obs) == d
    obs[7] = np.nan
    with pytest.raises(ValueError, match=r"0s and 1s only, got nan at entry 7 \(1 such"):
        decode_observation(obs)
    with pytest.raises(ValueError, match="0s and 1s only, got dtype <U1"):
        decode_observation(np.array(["1"] * len(obs)))


@pytest.mark.parametrize("text,winner,points", [
    ("SENWSEXNW", 0, 1), ("SXENXSWWW", 1, 2), ("XXXXXXXXX", None, 0), ("EXWEWNNNX", 2, 1),
])
def test_deal_rewards_and_infos_exact(text, winner, points):
    seats = [None if ch == "X" else "SWNE".index(ch) for ch in text]
    hands = hands_for_winners(seats)
    e = aluette_env.raw_env(num_deals=2)
    e.reset(seed=0, options={"deals": [hands], "first_dealer": "player_3"})
    rewards = play_scripted(e, hands)
    assert all(all(v == 0 for v in r.values()) for r in rewards[:-1]), "no reward before deal end"
    final = rewards[-1]
    for a in AGENTS:
        team = int(a[-1]) % 2
        sign = 0 if winner is None else (1 if team == winner % 2 else -1)
        assert final[a] == sign * points
    assert sum(final.values()) == 0
    res = e.infos["player_2"]["deal_result"]
    assert res == {
        "deal": 0, "dealer": "player_3",
        "trick_winners": [None if s is None else f"player_{s}" for s in seats],
        "trick_counts": {f"player_{s}": seats.count(s) for s in range(4)},
        "winner": None if winner is None else f"player_{winner}",
        "mordienne": points == 2,
        "points": {"team_0": points if winner in (0, 2) else 0,
                   "team_1": points if winner in (1, 3) else 0},
    }
    assert "match_result" not in res
    # The next deal has started: new dealer, cumulative rewards reach the actor.
    assert e.deal.dealer == 0 and e.agent_selection == "player_1"
    assert e._cumulative_rewards["player_1"] == final["player_1"]
    e.step(e.deal.hands[1][0])
    assert all(info == {} for info in e.infos.values()), "infos last until the next step"


def test_match_result_and_termination_after_last_deal():
    deals = [hands_for_winners(t) for t in ("000000000", "1XXXXXXXX")]
    e = aluette_env.raw_env(num_deals=2)
    e.reset(seed=0, options={"deals": deals, "first_dealer": "player_0"})
    play_scripted(e, deals[0])
    play_scripted(e, deals[1])
    assert all(e.terminations.values())
    mr = e.infos["player_0"]["match_result"]
    assert mr == {"points": {"team_0": 2, "team_1": 1}, "winner": "team_0"}
    assert e._cumulative_rewards == {"player_0": -1.0, "player_1": 1.0,
                                     "player_2": -1.0, "player_3": 1.0}
    for _ in e.agent_iter():
        assert e.last()[2]
        e.step(None)
    assert e.agents == []
    e.reset(seed=1)  # R2: a new match starts with cleared scores
    assert e.match.points == [0, 0] and not any(e.terminations.values())


def test_draw_on_equal_totals():
    deals = [hands_for_winners(t) for t in ("0XXXXXXXX", "1XXXXXXXX")]
    e = aluette_env.raw_env(num_deals=2)
    e.reset(seed=0, options={"deals": deals})
    play_scripted(e, deals[0])
    play_scripted(e, deals[1])
    assert e.infos["player_3"]["match_result"]["winner"] is None


@pytest.mark.parametrize("options,message", [
    ({"first_dealer": "player_7"}, "options\\['first_dealer'\\]: unknown player"),
    ({"deals": [[[0] * 9] * 4]}, "dealt twice"),
    ({"deals": [[list(range(8))] + [list(range(9 * k, 9 * k + 9)) for k in (1, 2, 3)]]},
     "has 8 cards"),
    ({"deals": [[list(range(9 * k, 9 * k + 9)) for k in range(3)]
                + [[40, 41, 42, 43, 44, 45, 46, 47, 48]]]}, "ids are 0-47"),
    ({"deals": "abc"}, "list of deals"),
    ({"deals": [[list(range(9 * k, 9 * k + 9)) for k in range(4)]] * 6}, "give 1 to 5"),
    ("first_dealer", "must be a dict"),
])
def test_bad_reset_options_raise_value_error(options, message):
    e = aluette_env.raw_env()
    with pytest.raises(ValueError, match=message):
        e.reset(options=options)


def test_illegal_card_raises_names_it_and_loses_nothing():
    e = aluette_env.raw_env()
    e.reset(seed=2, options={"first_dealer": "player_0"})
    actor = e.agent_selection
    other = e.deal.hands[2][0]
    before = {a: e.observe(a)["observation"].copy() for a in AGENTS}
    with pytest.raises(ValueError) as err:
        e.step(other)
    msg = str(err.value)
    assert f"card {other} (" in msg and "not in player_1's hand" in msg and "legal: [" in msg
    for bad in (48, -1, None, "x"):
        with pytest.raises(ValueError, match="player_1"):
            e.step(bad)
    assert e.agent_selection == actor
    for a in AGENTS:
        assert np.array_equal(before[a], e.observe(a)["observation"])
    e.step(e.deal.hands[1][0])  # still playable


def test_wrapped_env_terminates_on_illegal_move_with_minus_one():
    e = aluette_env.env()
    e.reset(seed=2, options={"first_dealer": "player_0"})
    actor = e.agent_selection
    e.step(e.unwrapped.deal.hands[2][0])
    assert all(e.terminations.values())
    assert e._cumulative_rewards[actor] == -1


def test_num_deals_argument():
    e = aluette_env.raw_env(num_deals=1)
    e.reset(seed=0)
    random_play(e, np.random.default_rng(0))
    assert len(e.match.history) == 1
    for bad in (0, 11, 2.5):
        with pytest.raises(ValueError, match="num_deals"):
            aluette_env.raw_env(num_deals=bad)


def test_state_is_full_information():
    e = aluette_env.raw_env()
    e.reset(seed=4)
    s = e.state()
    assert s.shape == (STATE_SIZE,) and e.state_space.contains(s)
    hands = s[:192].reshape(4, 48)
    for seat in range(4):
        assert sorted(np.flatnonzero(hands[seat])) == sorted(e.deal.hands[seat])
    assert sorted(np.flatnonzero(s[192:240])) == sorted(e.deal.unused)
    assert np.array_equal(s, encode_state(e.deal))


def test_render_ansi_shows_hands_only_when_asked():
    e = aluette_env.raw_env(render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert "dealer" in text and "Match points" in text and "hand" not in text
    e2 = aluette_env.raw_env(render_mode="ansi", render_hands=["player_0"])
    e2.reset(seed=0)
    text = e2.render()
    assert "player_0's hand" in text and "player_1's hand" not in text
    with pytest.raises(ValueError, match="render_hands"):
        aluette_env.raw_env(render_hands=["nobody"])


def _other_world(e_hands, unused, observer, played_so_far, rng):
    """Same observer hand and same cards already played; every card the observer
    cannot see (the others' unplayed cards and the unused twelve) reshuffled."""
    hidden = [c for s in range(4) if s != observer for c in e_hands[s]
              if c not in played_so_far] + list(unused)
    rng.shuffle(hidden)
    hands = []
    for s in range(4):
        if s == observer:
            hands.append(list(e_hands[s]))
            continue
        keep = [c for c in e_hands[s] if c in played_so_far]
        need = 9 - len(keep)
        hands.append(keep + hidden[:need])
        hidden = hidden[need:]
    return hands


@pytest.mark.parametrize("seed,observer", [(0, 0), (1, 1), (2, 2), (3, 3)])
def test_no_hidden_information_leaks(seed, observer):
    """Two deals that differ only in cards the observer cannot see give it the
    same observation at every step."""
    rng = np.random.default_rng(seed)
    e = aluette_env.raw_env(num_deals=1)
    e.reset(seed=seed)
    hands0 = [list(h) for h in e.deal.hands]
    unused = list(e.deal.unused)
    dealer = f"player_{e.deal.dealer}"
    actions = []
    while not e.match.over:
        obs = e.observe(AGENTS[observer])["observation"]
        twin = aluette_env.raw_env(num_deals=1)
        other = _other_world(hands0, unused, observer, set(actions), rng)
        assert other != hands0 or len(actions) >= 27
        twin.reset(seed=seed + 1000, options={"deals": [other], "first_dealer": dealer})
        for a in actions:
            twin.step(a)
        assert np.array_equal(twin.observe(AGENTS[observer])["observation"], obs)
        card = int(rng.choice(e.deal.legal_cards()))
        actions.append(card)
        e.step(card)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 5))
def test_match_invariants_under_random_play(seed, num_deals):
    e = aluette_env.raw_env(num_deals=num_deals)
    e.reset(seed=seed)
    first_dealer = e.deal.dealer
    results, played, dealt = [], [], [sorted(c for h in e.deal.hands for c in h)]
    rng = np.random.default_rng(seed)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        card = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        played.append(card)
        e.step(card)
        assert sum(e.rewards.values()) == 0
        if "deal_result" in e.infos["player_0"]:
            res = e.infos["player_0"]["deal_result"]
            results.append(res)
            assert sorted(played) == dealt[-1], "each dealt card played exactly once"
            played = []
            if not e.match.over:
                dealt.append(sorted(c for h in e.deal.hands for c in h))
            counts = res["trick_counts"]
            assert sum(counts.values()) + res["trick_winners"].count(None) == 9
            pts = res["points"]
            for a in AGENTS:
                t = int(a[-1]) % 2
                assert e.rewards[a] == pts[f"team_{t}"] - pts[f"team_{1 - t}"]
    assert len(results) == num_deals
    assert [r["dealer"] for r in results] == [f"player_{(first_dealer + k) % 4}"
                                             for k in range(num_deals)]
    for team in ("team_0", "team_1"):
        assert sum(r["points"][team] for r in results) == e.match.points[int(team[-1])]


def test_numeric_infos_number_what_the_names_say():
    """env(numeric_infos=True): the same results, agents and teams as numbers
    (-1: a spoiled trick, no winner, a draw), no text and no None in them."""
    def results(numeric):
        e = aluette_env.raw_env(num_deals=5, numeric_infos=numeric)
        e.reset(seed=11)
        out = []
        random_play(e, np.random.default_rng(11),
                    on_step=lambda e: out.append(dict(e.infos["player_0"])) if e.infos[
                        "player_0"] else None)
        return out

    def values(x):
        if isinstance(x, dict):
            return [v for y in x.values() for v in values(y)]
        if isinstance(x, list):
            return [v for y in x for v in values(y)]
        return [x]

    named, numbered = results(False), results(True)
    assert len(named) == len(numbered) == 5
    number = {None: -1, **{a: k for k, a in enumerate(AGENTS)}, "team_0": 0, "team_1": 1}
    spoiled = 0
    for n, m in zip(named, numbered):
        d, e = n["deal_result"], m["deal_result"]
        assert e["dealer"] == number[d["dealer"]] and e["winner"] == number[d["winner"]]
        assert e["trick_winners"] == [number[w] for w in d["trick_winners"]]
        assert {k: e[k] for k in ("deal", "trick_counts", "mordienne", "points")} == \
            {k: d[k] for k in ("deal", "trick_counts", "mordienne", "points")}
        assert all(isinstance(v, (int, bool)) for v in values(m))
        spoiled += d["trick_winners"].count(None)
    assert spoiled > 0
    assert numbered[-1]["match_result"]["winner"] == number[named[-1]["match_result"]["winner"]]
    with pytest.raises(ValueError, match="numeric_infos must be True or False, got 'yes'"):
        aluette_env.raw_env(numeric_infos="yes")
