"""The batched engine is the same game as the AEC env: identical hands and
actions give identical observations, masks, rewards and results."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import aluette_env
from aluette_env.game import AGENTS
from aluette_env.game import NOBODY
from aluette_env.observation import OBS_SIZE, encode_observation
from aluette_env.vector import VectorGame
from conftest import hands_for_winners

SCRIPTED = ["SENWSEXNW", "SENWENWNW", "XSENXWSSS", "EXWEWNNNX", "XXXXXXXSS", "SXENXSWWW",
            "SSSSSSSSS", "NXXXXXXXX", "XXXXXXXXX"]


def random_hands(rng, n_deals):
    out = []
    for _ in range(n_deals):
        deck = rng.permutation(48)
        out.append([sorted(deck[9 * s:9 * s + 9].tolist()) for s in range(4)])
    return out


def test_equivalence_with_aec_env_over_2000_deals():
    n_games, n_matches, n_deals = 100, 4, 5  # 2,000 deals
    rng = np.random.default_rng(2026)
    game = VectorGame(n_games, num_deals=n_deals, seed=7, auto_reset=False)
    deals_checked = mordiennes = spoiled = all_spoiled = 0
    for m in range(n_matches):
        deals = np.array([random_hands(rng, n_deals) for _ in range(n_games)], np.int8)
        scripted = []  # some games replay the worked examples, played in scripted order
        for g in range(0, n_games, 10):
            text = SCRIPTED[(g // 10 + m) % len(SCRIPTED)]
            hands = hands_for_winners([None if c == "X" else "SWNE".index(c) for c in text])
            deals[g, 0] = hands
            scripted.append(g)
        dealers = rng.integers(0, 4, n_games)
        game.reset(options={"deals": deals, "first_dealer": dealers})
        envs = []
        for g in range(n_games):
            e = aluette_env.raw_env(num_deals=n_deals)
            e.reset(seed=g, options={"deals": deals[g].tolist(), "first_dealer": int(dealers[g])})
            envs.append(e)
        queues = {g: [list(h) for h in deals[g, 0]] for g in scripted}
        for step in range(36 * n_deals):
            actions = np.zeros(n_games, np.int64)
            for g, e in enumerate(envs):
                agent = e.agent_selection
                assert game.to_act[g] == int(agent[-1])
                o = e.observe(agent)
                assert np.array_equal(o["observation"], game.obs[g]), (m, step, g)
                assert np.array_equal(o["action_mask"], game.mask[g])
                if g in queues and step < 36:
                    actions[g] = queues[g][int(agent[-1])].pop(0)
                else:
                    actions[g] = rng.choice(np.flatnonzero(o["action_mask"]))
            rewards, deal_done, match_done = game.step(actions)
            for g, e in enumerate(envs):
                e.step(int(actions[g]))
                assert [e.rewards[a] for a in AGENTS] == rewards[g].tolist()
                info = e.infos["player_0"]
                assert deal_done[g] == ("deal_result" in info)
                assert match_done[g] == ("match_result" in info)
                if deal_done[g]:
                    res = game.deal_result(g)
                    assert res == info["deal_result"]
                    deals_checked += 1
                    mordiennes += res["mordienne"]
                    spoiled += res["trick_winners"].count(None)
                    all_spoiled += res["winner"] is None
                if match_done[g]:
                    assert game.match_result(g) == info["match_result"]
                    assert game.state.points[g].tolist() == e.match.points
        # After the match: the final observation of the seat left to act matches too.
        for g, e in enumerate(envs):
            assert np.array_equal(e.observe(e.agent_selection)["observation"], game.obs[g])
            assert not game.mask[g].any()
    assert deals_checked == 2000
    assert mordiennes > 0 and spoiled > 0 and all_spoiled > 0


def test_the_engines_dealer_is_deal_cards():
    """R5 twice, pinned: the engine deals a batch of shuffled decks with its
    kernel (``hands_from_decks``), the core with ``deal_cards``; the same hands,
    in the order received, from every dealer."""
    from aluette_env.game import deal_cards
    from aluette_env.vector import kernels
    rng = np.random.default_rng(60)
    decks = np.stack([rng.permutation(48) for _ in range(2000)]).astype(np.int8)
    dealers = np.arange(2000, dtype=np.int64) % 4
    hands = kernels.hands_from_decks(decks, dealers, kernels.DEAL_ORDER)
    for k in range(len(decks)):
        assert hands[k].tolist() == deal_cards(decks[k].tolist(), int(dealers[k]))[0], k


def test_illegal_card_names_game_seat_and_card_and_changes_nothing():
    game = VectorGame(8, seed=1)
    game.reset(options={"first_dealer": "player_0"})
    actions = game.mask.argmax(1)
    before = game.obs.copy()
    wrong = int(np.flatnonzero(game.state.card_state[5] == 2)[0])  # a card of player_2
    actions[5] = wrong
    with pytest.raises(ValueError, match=rf"game 5: card {wrong} \(.*\) is not in player_1's hand"):
        game.step(actions)
    actions[5] = 60
    with pytest.raises(ValueError, match="game 5: card 60 is not in player_1"):
        game.step(actions)
    with pytest.raises(ValueError, match="8 integer card ids"):
        game.step(actions[:3])
    assert np.array_equal(before, game.obs)
    actions[5] = game.mask[5].argmax()
    game.step(actions)


def test_seeded_batches_are_reproducible_and_seeds_differ():
    def run(seed):
        g = VectorGame(16, seed=seed)
        g.reset()
        total = np.zeros((16, 4))
        obs = []
        for _ in range(200):
            r, _, _ = g.step(g.mask.argmax(1))
            total += r
            obs.append(g.obs.copy())
        return total, np.array(obs)

    a, b, c = run(3), run(3), run(4)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[1], c[1])


def test_auto_reset_keeps_every_game_playing():
    game = VectorGame(4, num_deals=1, seed=0)
    game.reset()
    for _step in range(36):
        _, deal_done, match_done = game.step(game.mask.argmax(1))
    assert deal_done.all() and match_done.all()
    assert (game.mask.sum(1) == 9).all() and not game.state.over.any()
    assert (game.state.points == 0).all(), "a new match starts with cleared scores (R2)"
    assert all(game.match_result(i)["points"] == game.deal_result(i)["points"] for i in range(4))


def test_reset_options_are_checked():
    game = VectorGame(2)
    with pytest.raises(ValueError, match="unknown reset option"):
        game.reset(options={"dealer": 1})
    with pytest.raises(ValueError, match="dealt twice"):
        game.reset(options={"deals": np.zeros((2, 1, 4, 9), np.int64)})
    with pytest.raises(ValueError, match="shape"):
        game.reset(options={"deals": np.zeros((3, 1, 4, 9), np.int64)})
    with pytest.raises(ValueError, match="unknown player"):
        game.reset(options={"first_dealer": "player_9"})
    with pytest.raises(ValueError, match="num_games"):
        VectorGame(0)


def test_one_set_of_deals_for_all_games_and_memory_per_game():
    hands = hands_for_winners("XXXXXXX00")
    game = VectorGame(3, num_deals=2, auto_reset=False)
    game.reset(options={"deals": [hands], "first_dealer": 3})
    for s in range(4):
        assert (np.flatnonzero(game.state.card_state[1] == s) == sorted(hands[s])).all()
    assert game.bytes_per_game() < 2048


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 64))
def test_batch_invariants(seed, n):
    rng = np.random.default_rng(seed)
    game = VectorGame(n, num_deals=2, seed=seed)
    game.reset()
    for _ in range(80):
        hand_sizes = (game.state.card_state == game.to_act[:, None]).sum(1)
        assert (game.mask.sum(1) == hand_sizes).all()
        assert game.obs.shape == (n, OBS_SIZE)
        r = rng.random((n, 48)) * game.mask
        rewards, deal_done, _ = game.step(r.argmax(1))
        assert (rewards.sum(1) == 0).all()
        assert (rewards[~deal_done] == 0).all()
        # cards: 36 in hands/tricks/played, 12 unused, in every game
        assert ((game.state.card_state == 4).sum(1) == 12).all()
        finished = np.arange(9)[None, :] < game.state.trick_index[:, None]
        spoiled = ((game.state.trick_winners == NOBODY) & finished).sum(1)
        won = game.state.counts.sum(1) + spoiled
        assert (won == game.state.trick_index).all()


def test_observations_match_reference_encoder_on_random_states():
    """Rebuild rules objects from a batch's history and compare encodings."""
    game = VectorGame(1, num_deals=5, seed=11, auto_reset=False)
    e = aluette_env.raw_env()
    deals = random_hands(np.random.default_rng(0), 5)
    game.reset(options={"deals": [deals], "first_dealer": 2})
    e.reset(options={"deals": deals, "first_dealer": 2})
    while not e.match.over:
        seat = int(e.agent_selection[-1])
        assert np.array_equal(encode_observation(e.deal, seat), game.obs[0])
        card = int(np.flatnonzero(game.mask[0])[-1])
        game.step(np.array([card]))
        e.step(card)


def test_pure_python_fallback_gives_the_same_game():
    """Without numba the same kernels run as plain Python and must agree."""
    import subprocess
    import sys
    code = (
        "import numpy as np\n"
        "from aluette_env.vector import VectorGame\n"
        "g = VectorGame(3, num_deals=2, seed=5); g.reset()\n"
        "out = []\n"
        "for _ in range(80):\n"
        "    r, d, m = g.step(g.mask.argmax(1)); out.append(g.obs.sum());"
        " out.append(r.sum(1).tolist())\n"
        "print(repr(out))\n"
    )
    import os
    runs = []
    for disable in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=disable)
        runs.append(subprocess.run([sys.executable, "-c", code], env=env, check=True,
                                   capture_output=True, text=True).stdout)
    assert runs[0] == runs[1] and len(runs[0]) > 100


def test_inactive_games_wait():
    game = VectorGame(4, seed=2)
    game.reset()
    before = game.state.card_state.copy()
    active = np.array([True, False, True, False])
    game.step(game.mask.argmax(1), active=active)
    assert np.array_equal(game.state.card_state[~active], before[~active])
    assert not np.array_equal(game.state.card_state[active], before[active])
    bad = game.mask.argmax(1)
    bad[1] = 60  # ignored: game 1 is not active
    game.step(bad, active=active)
