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
    ALUETTE_SIGNS_V0, CARD_PLAYED, NAMED_CARDS, NO_SIGN, NUM_ACTIONS, NUM_CARDS, NUM_SIGNS,
    SIGN_BASE, SIGN_MADE,
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
@pytest.mark.filterwarnings("ignore:signs= and catch= are deprecated:DeprecationWarning")
def test_bad_variant_parameters_get_one_line(kwargs, message):
    """The older keywords, still taken for a release, refuse a bad value in one line."""
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


@pytest.mark.parametrize("action", [58, -1, 100, np.int64(60), "x", True])
def test_an_action_out_of_range_names_the_variants_actions(action):
    """With signs the actions are 0-57 (48-57 no sign and the
    signs), not the deck's 0-47; without, they stay the deck's."""
    env = aluette_signs_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError) as err:
        env.step(action)
    message = str(err.value)
    assert message.startswith("player_0's action: ") and "\n" not in message
    assert "its actions are 0-57: the cards 0-47, 48 no sign, 49-57 the signs" in message
    assert "ids are 0-47" not in message
    assert env.unwrapped.deal.signing and not env.unwrapped.deal.tricks  # nothing changed
    import aluette_env
    plain = aluette_env.env()
    plain.reset(seed=0)
    with pytest.raises(ValueError, match="ids are 0-47"):
        plain.step(48)


@pytest.mark.slow
def test_the_engine_with_signs_is_the_env_over_500_deals():
    """100 games, a five-deal match each, the same hands, catches and actions
    through the batched engine's signs kernels and ``aluette_signs_v0``; every
    observation, mask, reward, deal result and match result equal (the default
    game's engine is checked over 2,000 deals in tests/test_vector.py; the
    signs kernels share its card play)."""
    n, n_matches, n_deals = 100, 1, 5
    rng = rng0(60)
    game = VectorGame(n, num_deals=n_deals, seed=1, variant=ALUETTE_SIGNS_V0.with_catch(0.5),
                      auto_reset=False)
    checked = signed = caught = 0
    for m in range(n_matches):
        deals = np.stack([np.stack([rng.permutation(NUM_CARDS)[:36].reshape(4, 9)
                                    for _ in range(n_deals)]) for _ in range(n)])
        catches = rng.random((n, n_deals, 9, 4, 4)) < 0.5
        dealers = rng.integers(0, 4, n)
        game.reset(options={"deals": deals, "catches": catches, "first_dealer": dealers})
        envs = []
        for i in range(n):
            env = aluette_signs_v0.raw_env(num_deals=n_deals, catch=0.5)
            env.reset(seed=i, options={"deals": deals[i].tolist(), "catches": catches[i],
                                       "first_dealer": int(dealers[i])})
            envs.append(env)
        for step in range(2 * 36 * n_deals):
            actions = np.zeros(n, np.int64)
            for i, env in enumerate(envs):
                ob = env.observe(env.agent_selection)
                assert env.agent_selection == f"player_{game.to_act[i]}"
                assert np.array_equal(ob["observation"], game.obs[i]), (m, step, i)
                assert np.array_equal(ob["action_mask"], game.mask[i]), (m, step, i)
                actions[i] = rng.choice(np.flatnonzero(game.mask[i]))
                env.step(int(actions[i]))
            signed += int((actions > SIGN_BASE).sum())
            caught += int((game.state.caught != 0).sum())
            rewards, deal_done, match_done = game.step(actions)
            for i, env in enumerate(envs):
                assert [env.rewards[f"player_{s}"] for s in range(4)] == rewards[i].tolist()
                info = env.infos["player_0"]
                assert deal_done[i] == ("deal_result" in info)
                if deal_done[i]:
                    assert game.deal_result(i) == info["deal_result"]
                    checked += 1
                if match_done[i]:
                    assert game.match_result(i) == info["match_result"]
        for i, env in enumerate(envs):  # the match is over: the last view, no action
            assert np.array_equal(env.observe(env.agent_selection)["observation"], game.obs[i])
            assert not game.mask[i].any()
    assert checked == 500 and signed > 0 and caught > 0


def test_the_default_game_is_unchanged_by_the_variant():
    env = plain_raw_env()
    env.reset(seed=0)
    assert env.observe(env.agent_selection)["observation"].shape == (OBS_SIZE,)
    assert env.action_space("player_0").n == NUM_CARDS
    assert env.metadata["name"] == "aluette_v1"
    game = VectorGame(2, seed=0)
    game.reset()
    assert game.obs.shape == (2, OBS_SIZE) and game.mask.shape == (2, NUM_CARDS)


# ---------------------------------------------------------------------------- players


def _sign_phase_row(hand: list[int], partner_signs=(), own_signs=()) -> tuple:
    """A signs-variant observation and mask of a seat to sign holding ``hand``,
    its partner's and its own earlier signs (trick 0) set."""
    row = np.zeros(SIGNS_OBS_SIZE, np.int8)
    row[hand] = 1
    block = SIGN_SLICES["signs"].start
    for sign in partner_signs:
        row[block + (0 * 4 + 2) * NUM_SIGNS + sign - 1] = 1
    for sign in own_signs:
        row[block + (0 * 4 + 0) * NUM_SIGNS + sign - 1] = 1
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[SIGN_BASE:] = 1
    return row, mask


def test_heuristic_signs_its_strongest_unsigned_named_card():
    from aluette_env.players.heuristic import HeuristicPlayer
    monsieur, borgne = NAMED_CARDS[0][0], NAMED_CARDS[2][0]
    ace = SIGNS[-1][2][0]
    player = HeuristicPlayer()
    row, mask = _sign_phase_row([borgne, monsieur, ace, 40])
    assert player.act(row, mask) == SIGN_BASE + 1  # Monsieur, the strongest
    row, mask = _sign_phase_row([borgne, monsieur, ace, 40], own_signs=[1])
    assert player.act(row, mask) == SIGN_BASE + 3  # then Le Borgne
    row, mask = _sign_phase_row([ace, 40], own_signs=[9])
    assert player.act(row, mask) == SIGN_BASE  # nothing left to sign: silence
    silent = HeuristicPlayer(signs=False)
    row, mask = _sign_phase_row([borgne, monsieur])
    assert silent.act(row, mask) == SIGN_BASE


def _play_out(env, player):
    """Play ``env`` to its end with ``player`` at every seat, yielding each
    (observation, action) before the action is taken."""
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent]:
            env.step(None)
            continue
        ob = env.observe(agent)
        action = player.act(ob["observation"], ob["action_mask"])
        yield ob, action
        env.step(action)


def test_players_that_do_not_sign_sit_silent_at_a_table_with_signs():
    from aluette_env.players import Silent, for_signs, load_player
    player = for_signs(load_player("random:seed=1"))
    assert isinstance(player, Silent)
    env = aluette_signs_v0.raw_env(num_deals=1)
    env.reset(seed=2)
    for ob, action in _play_out(env, player):
        assert ob["action_mask"][action] == 1
        assert action < NUM_CARDS or action == SIGN_BASE


def test_the_heuristic_reads_its_partners_sign():
    """Second to play against a 4, the heuristic takes the trick with its 5 (the
    default game's rule); when its partner, still to play, has signed Monsieur
    and not played it, it throws its weakest card and leaves the trick to it."""
    from aluette_env.game import STRENGTH
    from aluette_env.players.heuristic import HeuristicPlayer
    monsieur = NAMED_CARDS[0][0]
    coins4, coins5, batons3 = 3, 4, 2 * 12 + 2
    mids = [c for c in range(NUM_CARDS) if 4 <= STRENGTH[c] <= 8]  # 6s to Valets
    reader = [coins5, batons3] + mids[:7]
    leader = [coins4] + mids[7:15]
    taken = set(reader) | set(leader) | {monsieur}
    pool = [c for c in range(NUM_CARDS) if c not in taken]
    hands = [[monsieur] + pool[:8], leader, reader, pool[8:17]]
    chosen = {}
    for partner_sign in (0, 1):
        m = Match(first_dealer=0, num_deals=1, signs=True)
        deal = m.start_deal(hands)  # dealer 0: seat 1 leads, seat 0 plays last
        deal.sign(0)
        deal.play(coins4)
        m.state.signs[0 * 4 + 0] = partner_sign  # seat 0's sign of this trick, made earlier
        deal.sign(0)
        row = np.zeros(SIGNS_OBS_SIZE, np.int8)
        write_view(m.state, 2, row)
        write_signs(m.state, 2, row)
        mask = np.zeros(NUM_ACTIONS, np.int8)
        mask[deal.hand(2)] = 1
        chosen[partner_sign] = HeuristicPlayer().act(row, mask)
    assert chosen == {0: coins5, 1: batons3}


def test_duplicate_evaluation_with_signs_replays_the_same_catches():
    from aluette_env.evaluation.duplicate import duplicate_eval, evaluation_catches
    res = duplicate_eval("heuristic", "heuristic", deals=40, seed=3,
                         variant=ALUETTE_SIGNS_V0.with_catch(0.5))
    assert res.points_per_deal == 0.0 and (res.pair_points == 0).all()
    a = evaluation_catches(40, 3, 0.5)
    assert a.shape == (40, 9, 4, 4) and (a == evaluation_catches(40, 3, 0.5)).all()
    with pytest.deprecated_call(), pytest.raises(ValueError, match="pass signs=True"):
        duplicate_eval("heuristic", "random", deals=2, catch=0.5)  # the older keyword


def test_a_record_keeps_the_signs_and_who_caught_them():
    import json

    from aluette_env.players.heuristic import HeuristicPlayer
    from aluette_env.records import RecordError, load_record, record_of, replay
    env = aluette_signs_v0.raw_env(num_deals=1, catch=0.5)
    env.reset(seed=3)
    for _ in _play_out(env, HeuristicPlayer()):
        pass
    rec = json.loads(json.dumps(record_of(env.match.deals, env.match.first_dealer,
                                          ["heuristic"] * 4, num_deals=1)))
    assert rec["version"] == 3 and rec["signs"] is True
    load_record(rec)
    g = env.match.state
    for k, ((agent, _), (sign, caught)) in enumerate(zip(rec["deals"][0]["plays"],
                                                         rec["deals"][0]["signs"])):
        seat = int(agent[-1])
        t = k // 4
        assert sign == g.signs[t * 4 + seat]
        assert sorted(caught) == sorted(f"player_{o}" for o in range(4)
                                        if sign and (o - seat) % 2 and (g.caught[t * 4 + seat]
                                                                        >> o) & 1)
    tricks, steps = replay(rec)
    assert [s[1] for s in tricks[0][0]["signs"]] == [s[0] for s in rec["deals"][0]["signs"][:4]]
    assert len(steps[0][1]["signs"]) == 1
    rec["deals"][0]["signs"][0] = [0, ["player_1"]]
    with pytest.raises(RecordError, match="nobody catches"):
        load_record(rec)


def test_aluette_eval_plays_the_signs_variant_and_refuses_bad_flags(capsys):
    from aluette_env.commands import main
    assert main(["eval", "--team-a", "heuristic", "--team-b", "heuristic:signs=false",
                 "--signs", "--catch", "0.5", "--deals", "20", "--quiet"]) == 0
    assert "heuristic:signs=false" in capsys.readouterr().out
    for argv, message in ((["--catch", "0.5"], "--catch: only with --signs"),
                          (["--signs", "--catch", "1.5"], "must be from 0 to 1"),
                          (["--signs", "--catch", "nan"], "must be from 0 to 1")):
        assert main(["eval", "--team-a", "heuristic", "--team-b", "random", "--deals", "2",
                     "--quiet", *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


def test_a_seats_render_shows_the_signs_it_saw_and_no_other():
    env = aluette_signs_v0.raw_env(render_mode="ansi", render_hands=["player_0"])
    env.reset(seed=1, options={"catches": _catches(0), "first_dealer": 1})  # player_2 leads
    for action in (SIGN_BASE + 9, None, SIGN_BASE + 1):  # player_2, then player_3 sign
        if action is None:
            env.step(env.deal.hand(2)[0])
        else:
            env.step(action)
    text = env.render()
    assert "sign of player_2: the mouth opened: an Ace" in text
    assert "player_3" in text and "sign of player_3" not in text  # not caught
    # A silence has nothing to catch: player_0 never knows of player_1's, even
    # where the deal's draws say it caught whatever player_1 made.
    env = aluette_signs_v0.raw_env(render_mode="ansi", render_hands=["player_0"])
    env.reset(seed=1, options={"catches": _catches(1), "first_dealer": 0})  # player_1 leads
    env.step(SIGN_BASE)  # silence
    assert "sign of player_1" not in env.render()
    env.step(env.deal.hand(1)[0])
    env.step(SIGN_BASE + 1)  # player_2, the partner: known
    assert "sign of player_2: eyes raised" in env.render()
    spectator = aluette_signs_v0.raw_env(render_mode="ansi")
    spectator.reset(seed=1, options={"first_dealer": 1})
    spectator.step(SIGN_BASE + 9)
    assert "sign of" not in spectator.render()


def test_worlds_put_the_signed_cards_where_the_signs_say():
    from aluette_env.players.search.worlds import constrain_keys, deal_world
    n_unseen, n_left = 27, np.array([0, 9, 9, 9])
    known = np.zeros(48, np.int64)
    known[[0, 5, 10]] = [2, 1, 3]
    keys = rng0(0).random((3000, 48))
    constrain_keys(keys, n_unseen, n_left, known)
    owner = np.empty(48, np.int64)
    seats = np.zeros((len(keys), n_unseen), np.int64)
    for w in range(len(keys)):
        deal_world(keys[w], np.arange(48), n_unseen, n_left, owner)
        seats[w] = owner[:n_unseen]
    assert (seats[:, 0] == 2).all() and (seats[:, 5] == 1).all() and (seats[:, 10] == 3).all()
    free = np.delete(seats, [0, 5, 10], axis=1)
    share = np.array([(free == r).mean() for r in (1, 2, 3)])
    assert np.allclose(share, 8 / 24, atol=0.01)  # the rest uniform over the 8 places left
    for card in (1, 20):  # each free card alike
        assert np.allclose([(seats[:, card] == r).mean() for r in (1, 2, 3)], 1 / 3, atol=0.04)


def test_the_search_signs_and_plays_at_a_table_with_signs():
    from aluette_env.players import load_player
    player = load_player("pimc:worlds=4")
    silent = load_player("pimc:worlds=4,signs=false")
    assert player.plays_signs and silent.name.endswith("signs=false")
    env = aluette_signs_v0.raw_env(num_deals=1, catch=1.0)
    env.reset(seed=4)
    made = []
    for ob, action in _play_out(env, player):
        assert ob["action_mask"][action] == 1
        if action >= SIGN_BASE:
            made.append(action - SIGN_BASE)
            row, mask = ob["observation"], ob["action_mask"]
            assert silent.act(row, mask) == SIGN_BASE
    assert any(made)  # it signs
