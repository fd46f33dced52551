"""Aluette in OpenSpiel (aluette_env.openspiel): OpenSpiel's own random
simulation test with serialisation, 100 random matches played next to the
PettingZoo env on the same deals, the information states, resampling and
OpenSpiel's ISMCTS bot on the game; the signs variant (S1-S5) the same way."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed: "
                              "pip install 'aluette-rl[openspiel]'")

import aluette_env  # noqa: E402
from aluette_env.game import AGENTS, NUM_CARDS  # noqa: E402
from aluette_env.observation import OBS_SIZE, OBS_LAYOUT  # noqa: E402
from aluette_env.openspiel import (  # noqa: E402
    GAME_NAME, PERFECT_RECALL, AluetteGame, seeded_resampler,
)


def play_random(state, rng, until=None):
    """Random chance outcomes and random legal cards until the end (or until
    ``until(state)`` holds)."""
    while not state.is_terminal() and not (until and until(state)):
        if state.is_chance_node():
            cards, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(cards, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.slow
def test_random_sim_test_with_serialisation():
    for params in ("", "(num_deals=1,first_dealer=2)"):
        game = pyspiel.load_game(GAME_NAME + params)
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_game_and_state_round_trip_through_openspiel_serialisation():
    game = pyspiel.load_game(GAME_NAME, {"num_deals": 2})
    state = play_random(game.new_initial_state(), np.random.default_rng(3),
                        until=lambda s: len(s.history()) == 72 + 36 + 5)
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game) and str(state2) == str(state)
    assert state2.history() == state.history()
    assert state2.information_state_string(state.current_player()) == \
        state.information_state_string(state.current_player())


def _record_match(game, rng):
    """One random OpenSpiel match: the deals (hands as dealt), and per card played
    the legal actions, the actor's information state tensor and the card."""
    state = game.new_initial_state()
    deals, steps = [], []
    while not state.is_terminal():
        if state.is_chance_node():
            cards, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(cards, p=probs)))
            if not state.is_chance_node():
                deals.append([list(h) for h in state.deal.hands])
            continue
        player = state.current_player()
        legal = state.legal_actions()
        card = int(rng.choice(legal))
        steps.append((player, legal, np.array(state.information_state_tensor(player)), card,
                      state.rewards()))
        state.apply_action(card)
    return deals, steps, state.returns(), state.rewards()


@pytest.mark.parametrize("num_deals", [5, 1])
@pytest.mark.slow
def test_random_matches_match_the_pettingzoo_env(num_deals):
    """The same deals and cards through OpenSpiel and the PettingZoo env (60 matches
    of 5 deals, 40 of one, each dealer in turn): every legal-action list, every
    actor's tensor, every reward and return agree."""
    rng = np.random.default_rng(num_deals)
    env = aluette_env.raw_env(num_deals=num_deals)
    for match in range(60 if num_deals == 5 else 40):
        first = match % 4
        game = pyspiel.load_game(GAME_NAME, {"num_deals": num_deals, "first_dealer": first})
        deals, steps, returns, last_rewards = _record_match(game, rng)
        env.reset(seed=match, options={"deals": deals, "first_dealer": AGENTS[first]})
        total = dict.fromkeys(AGENTS, 0.0)
        openspiel_total = [0.0] * 4
        for player, legal, tensor, card, rewards in steps:
            openspiel_total = [t + r for t, r in zip(openspiel_total, rewards)]
            agent = env.agent_selection
            assert agent == AGENTS[player]
            obs = env.observe(agent)
            assert np.flatnonzero(obs["action_mask"]).tolist() == legal
            np.testing.assert_array_equal(obs["observation"], tensor)
            env.step(card)
            for a in AGENTS:
                total[a] += env.rewards[a]
        openspiel_total = [t + r for t, r in zip(openspiel_total, last_rewards)]
        assert all(env.terminations.values())
        assert [total[a] for a in AGENTS] == returns == openspiel_total
        assert returns[0] == returns[2] == -returns[1] == -returns[3]


def test_tensors_strings_and_returns():
    game = pyspiel.load_game(GAME_NAME)
    assert game.information_state_tensor_shape() == [OBS_SIZE]
    assert game.observation_tensor_shape() == [OBS_SIZE]
    assert game.num_distinct_actions() == NUM_CARDS == game.max_chance_outcomes()
    state = play_random(game.new_initial_state(), np.random.default_rng(0),
                        until=lambda s: len(s.history()) == 36 + 6)
    p = state.current_player()
    text = state.information_state_string(p)
    assert text.startswith(f"player_{p}\ndeal 1, dealer player_0:")
    assert text.count("dealt ") == 9 and text.count(" played") == 0
    assert "Monsieur" in text or "Madame" in text or "Coins" in text
    assert "hand: [" in state.observation_string(p)
    assert state.action_to_string(p, 2) == "Coins 3 — Monsieur"
    assert state.returns() == [0.0] * 4


def test_another_seats_information_state_hides_the_hands():
    game = pyspiel.load_game(GAME_NAME)
    state = play_random(game.new_initial_state(), np.random.default_rng(1),
                        until=lambda s: not s.is_chance_node())
    for p in range(4):
        others = {c for s in range(4) if s != p for c in state.deal.hands[s]}
        text = state.information_state_string(p)
        tensor = np.array(state.information_state_tensor(p))
        assert not any(f"dealt {name}\n" in text + "\n" for name in
                       (pyspiel_card(state, c) for c in others))
        assert set(np.flatnonzero(tensor[:NUM_CARDS])) == set(state.deal.hands[p])


def pyspiel_card(state, card):
    return state.action_to_string(0, card)


def test_resample_keeps_the_information_state_and_redraws_the_rest():
    rng = np.random.default_rng(7)
    game = pyspiel.load_game(GAME_NAME, {"num_deals": 2})
    sampler = seeded_resampler(np.random.RandomState(0))
    moved = 0
    for _ in range(30):
        stop = int(rng.integers(36, 2 * 72))
        state = play_random(game.new_initial_state(), rng,
                            until=lambda s, stop=stop: len(s.history()) >= stop
                            and not s.is_chance_node())
        if state.is_terminal():
            continue
        p = state.current_player()
        world = sampler(state, p)
        assert world.information_state_string(p) == state.information_state_string(p)
        assert world.information_state_tensor(p) == state.information_state_tensor(p)
        assert world.legal_actions() == state.legal_actions()
        assert world.returns() == state.returns()
        moved += any(sorted(world.deal.hands[s]) != sorted(state.deal.hands[s])
                     for s in range(4) if s != p)
        play_random(world, rng)  # the world plays on to the end
    assert moved >= 25


@pytest.mark.parametrize("signs", [False, True])
@pytest.mark.slow
def test_openspiel_ismcts_bot_plays_a_deal(signs):
    """OpenSpiel's ISMCTS bot on the game, resampling through
    ``resample_from_infostate`` (with signs: the signs it saw kept, the others
    silence)."""
    from open_spiel.python.algorithms import ismcts, mcts
    game = pyspiel.load_game(GAME_NAME, {"num_deals": 1, "signs": signs,
                                         "catch": 0.5 if signs else 0.25})
    rs = np.random.RandomState(5)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), uct_c=2.0,
                           max_simulations=20, random_state=rs)
    bot.set_resampler(seeded_resampler(rs))
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        if state.is_chance_node():
            play_random(state, rng, until=lambda s: not s.is_chance_node())
        elif state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(int(action))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert state.returns()[0] in (-2.0, -1.0, 0.0, 1.0, 2.0)


def _swapped_histories():
    """Two histories of one deal that player_0 can tell apart: the same cards
    from every seat in the first two tricks, both won by player_1's two highest
    cards, the other seats' cards swapped between the tricks."""
    game = pyspiel.load_game(GAME_NAME, {"num_deals": 1, "first_dealer": 3})
    # player_0 leads (the dealer's left). Deal order R5: the first packet goes to player_0.
    hands = [[40, 41, 42, 43, 44, 45, 4, 5, 6], [2, 14, 7, 8, 9, 10, 11, 12, 13],
             [28, 29, 30, 31, 32, 33, 34, 15, 16], [17, 18, 19, 20, 21, 22, 35, 36, 37]]
    states = []
    for swap in (False, True):
        state = game.new_initial_state()
        from aluette_env.game import deal_order
        queues = [list(h) for h in hands]
        for seat in deal_order(3):
            state.apply_action(queues[seat].pop(0))
        first, second = ([40, 2, 28, 17], [41, 14, 29, 18]) if not swap else \
            ([41, 2, 29, 18], [40, 14, 28, 17])
        for trick in (first, second):
            # player_1 wins each trick, then leads: reorder from the leader.
            leader = state.current_player()
            for k in range(4):
                state.apply_action(trick[(leader + k) % 4])
        states.append(state)
    return states


def test_information_state_string_is_perfect_recall():
    a, b = _swapped_histories()
    assert a.deal.trick_winners == b.deal.trick_winners == [1, 1]
    assert a.information_state_string(0) != b.information_state_string(0)
    if not PERFECT_RECALL:  # the known limit of observation layout 1: one tensor for both
        assert a.information_state_tensor(0) == b.information_state_tensor(0)


@pytest.mark.skipif(not PERFECT_RECALL, reason=f"observation layout {OBS_LAYOUT}: the env's "
                    "observation (the information_state_tensor) is perfect recall from "
                    "observation layout 2 on")
def test_information_state_tensor_is_perfect_recall():
    a, b = _swapped_histories()
    assert a.information_state_tensor(0) != b.information_state_tensor(0)


def test_bad_parameters_are_one_line_errors():
    with pytest.raises(ValueError, match="num_deals must be an int from 1 to 10, got 0"):
        pyspiel.load_game(GAME_NAME, {"num_deals": 0})
    with pytest.raises(ValueError, match="first_dealer must be an int from 0 to 3, got 4"):
        pyspiel.load_game(GAME_NAME, {"first_dealer": 4})
    for params, message in (({"num_deals": 2.5}, "num_deals must be an int from 1 to 10, got 2.5"),
                            ({"signs": "yes"}, "signs must be True or False, got 'yes'")):
        with pytest.raises(ValueError, match=message) as err:
            AluetteGame(params)  # load_game refuses a wrong type itself (SpielError)
        assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="python_aluette: no variant 'aluette_v9'"):
        AluetteGame(variant="aluette_v9")
    game = AluetteGame({"num_deals": np.int64(2)}, variant="aluette_signs_v0")
    assert game.num_deals == 2 and game.signs and game.get_parameters()["num_deals"] == 2


def test_a_refused_action_or_sampler_leaves_the_state_as_it_was():
    """An illegal action (a card not in hand, an outcome
    already dealt, any action once the match is over) raises ValueError and
    changes nothing, rewards included; a sampler that returns no probability
    is a ValueError naming it."""
    rng = np.random.default_rng(3)
    game = pyspiel.load_game(GAME_NAME, {"num_deals": 2})
    states = [play_random(game.new_initial_state(), rng, until=lambda s, n=n: len(s.history())
                          >= n and not s.is_chance_node()) for n in (36, 50)]
    states.append(play_random(game.new_initial_state(), rng,
                              until=lambda s: len(s.history()) == 40))  # dealing the second deal
    states.append(play_random(game.new_initial_state(), rng))  # the match over
    for state in states:
        before = (state.history(), state.rewards(), state.returns(), str(state),
                  state.information_state_string(0), state.is_chance_node())
        legal = set(state.legal_actions())
        for action in [a for a in range(NUM_CARDS) if a not in legal][:12]:
            with pytest.raises(ValueError):
                state.apply_action(action)
            assert (state.history(), state.rewards(), state.returns(), str(state),
                    state.information_state_string(0), state.is_chance_node()) == before
    assert states[-1].is_terminal() and any(states[-1].rewards())
    state = states[0]
    for sampler in (lambda: "x", lambda: 1.0, lambda: -0.5, lambda: float("nan"), lambda: None):
        with pytest.raises(ValueError, match="probability_sampler must return a number"):
            state.resample_from_infostate(state.current_player(), sampler)


def test_import_without_openspiel_says_how_to_install():
    """``import aluette_env`` works without pyspiel; the module, and the ``ismcts``
    player spec, say how to get it in one line."""
    code = ("import sys; sys.modules['pyspiel'] = None\n"
            "import aluette_env, aluette_env.game\n"
            "from aluette_env.players import PlayerSpecError, load_player\n"
            "try:\n    import aluette_env.openspiel\n"
            "except ImportError as err:\n    print(err)\n"
            "try:\n    load_player('ismcts:simulations=5')\n"
            "except PlayerSpecError as err:\n    print(err)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip().splitlines()
    how = "aluette_env.openspiel needs OpenSpiel: pip install 'aluette-rl[openspiel]' " \
          "(open-spiel==2.0.2)"
    assert out == [how, f"player spec 'ismcts:simulations=5': {how}"]


# ---------------------------------------------------------------------------- the signs variant


@pytest.mark.slow
def test_signs_random_sim_test_with_serialisation():
    """S1-S5: a sign action then a card each turn, the catch a chance node."""
    for params in ({"signs": True, "num_deals": 1}, {"signs": True, "num_deals": 2, "catch": 0.0},
                   {"signs": True, "num_deals": 1, "catch": 1.0}):
        game = pyspiel.load_game(GAME_NAME, params)
        assert game.num_distinct_actions() == 58
        pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_signs_matches_match_the_signs_env():
    """The same deals, signs, catches and cards through OpenSpiel and
    ``aluette_signs_v0``: every legal-action list, every actor's tensor (the
    signs it saw included) and the returns agree."""
    from aluette_env import aluette_signs_v0
    from aluette_env.game import SIGN_BASE
    rng = np.random.default_rng(5)
    for match in range(6):
        game = pyspiel.load_game(GAME_NAME, {"num_deals": 2, "signs": True, "catch": 0.5,
                                             "first_dealer": match % 4})
        state = game.new_initial_state()
        deals, steps = [], []
        catches = np.zeros((2, 9, 4, 4), np.int8)
        signer = None
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                outcome = int(rng.choice(actions, p=probs))
                if signer is not None:  # who caught the sign just made
                    g = state.match.state
                    deal, t = state.match.deal_index, g.trick_index
                    catches[deal, t, signer, (signer + 1) % 4] = outcome & 1
                    catches[deal, t, signer, (signer + 3) % 4] = outcome >> 1
                    signer = None
                state.apply_action(outcome)
                if state.deal is not None and len(deals) < len(state.match.deals):
                    deals.append([list(h) for h in state.deal.hands])
                continue
            player = state.current_player()
            legal = state.legal_actions()
            action = int(rng.choice(legal))
            steps.append((player, legal, np.array(state.information_state_tensor(player)),
                          action))
            if action > SIGN_BASE:
                signer = player
            state.apply_action(action)
        env = aluette_signs_v0.raw_env(num_deals=2, catch=0.5)
        env.reset(seed=0, options={"deals": deals, "catches": catches,
                                   "first_dealer": match % 4})
        for player, legal, tensor, action in steps:
            assert env.agent_selection == AGENTS[player]
            obs = env.observe(env.agent_selection)
            assert np.flatnonzero(obs["action_mask"]).tolist() == legal
            np.testing.assert_array_equal(obs["observation"], tensor)
            env.step(action)
        assert all(env.terminations.values())
        assert env.match.points == [int(p) for p in state.match.points]


def test_signs_resampling_keeps_the_information_state_and_hides_unseen_signs():
    game = pyspiel.load_game(GAME_NAME, {"num_deals": 1, "signs": True, "catch": 0.5})
    rng = np.random.default_rng(8)
    state = play_random(game.new_initial_state(), rng,
                        until=lambda s: len(s.history()) > 36 + 40 and not s.is_chance_node())
    player = state.current_player()
    for k in range(5):
        other = state.resample_from_infostate(player, np.random.RandomState(k).uniform)
        assert other.information_state_string(player) == \
            state.information_state_string(player)
        assert other.information_state_tensor(player) == state.information_state_tensor(player)
        # Only signs the player saw survive: every other opponent sign is silence.
        for t in range(9):
            for seat in ((player + 1) % 4, (player + 3) % 4):
                g = other.match.state
                if g.signs[t * 4 + seat] > 0:
                    assert (g.caught[t * 4 + seat] >> player) & 1


def _signed_and_caught_by_player_1(catch):
    """A deal with signs after its first sign and card: player_0 led with a sign
    (Monsieur), caught by player_1 (its left) and not by player_3, then played."""
    game = pyspiel.load_game(GAME_NAME, {"num_deals": 1, "signs": True, "catch": catch,
                                         "first_dealer": 3})
    state = game.new_initial_state()
    for card in range(36):
        state.apply_action(card)
    assert state.current_player() == 0
    state.apply_action(49)  # player_0's sign
    state.apply_action(1)  # the catch draw: left (player_1) caught, right (player_3) not
    state.apply_action(state.legal_actions()[0])
    assert state.match.state.caught[0] == 1 << 1
    return state


@pytest.mark.parametrize("player", [0, 2, 1])
def test_signs_resampling_draws_every_unseen_catch_afresh(player):
    """S4-S5: the signer (player_0), its partner (player_2) and the opponent that
    caught the sign (player_1) do not see who else caught it: over 400 worlds,
    each catch they did not see happens as often as ``catch`` says (a 5-sigma
    binomial bound), whatever the true draw; player_1's own catch, which it saw,
    stays in every world."""
    catch, n = 0.25, 400
    state = _signed_and_caught_by_player_1(catch)
    rs = np.random.RandomState(11)
    caught = {1: 0, 3: 0}
    for _ in range(n):
        world = state.resample_from_infostate(player, rs.uniform)
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.information_state_tensor(player) == state.information_state_tensor(player)
        assert world.match.state.signs[0] == 1
        for seat in caught:
            caught[seat] += (world.match.state.caught[0] >> seat) & 1
    bound = 5 * (n * catch * (1 - catch)) ** 0.5
    for seat, count in caught.items():
        if seat == player:
            assert count == n
        else:
            assert abs(count - n * catch) <= bound, (seat, count)


def test_resample_refuses_a_player_that_is_not_a_seat_in_one_line():
    state = _signed_and_caught_by_player_1(0.25)
    for player in (1.5, -1, 4, True, "0", None):
        with pytest.raises(ValueError, match=r"player_id must be a seat 0-3 \(an int\), got ") \
                as err:
            state.resample_from_infostate(player, np.random.RandomState(0).uniform)
        assert "\n" not in str(err.value)
    world = state.resample_from_infostate(np.int64(2), np.random.RandomState(0).uniform)
    assert world.information_state_string(2) == state.information_state_string(2)


def test_signs_bad_parameters_are_one_line_errors():
    with pytest.raises(ValueError, match="catch must be a probability from 0 to 1"):
        pyspiel.load_game(GAME_NAME, {"signs": True, "catch": 2.0})
    with pytest.raises(ValueError, match="set signs=true too"):
        pyspiel.load_game(GAME_NAME, {"catch": 0.5})
