"""The belief network (``python -m training.belief_net``): its training command
makes a loadable model, it reads the deciding seat's observation only, its
labels are each card's true place as that seat would name it; and the expert's
worlds drawn from it (``expert:sampler=net``) agree with all the seat has seen."""

import numpy as np
import pytest

from aluette_env.game import seat_at
from aluette_env.game.state import UNUSED
from aluette_env.players import PlayerSpecError, load_player
from aluette_env.players.search import ExpertPlayer
from aluette_env.players.search.places import BeliefNet, draw_places
from aluette_env.players.search.worlds import deal_world
from aluette_env.vector import VectorGame
from training import belief_net


@pytest.fixture(scope="module")
def tiny_net(tmp_path_factory):
    path = tmp_path_factory.mktemp("belief") / "belief.onnx"
    assert belief_net.main(["--deals", "40", "--per-deal", "3", "--hidden", "16",
                            "--epochs", "1", "--seed", "2", "--out", str(path)]) == 0
    return path


def test_the_training_command_makes_a_loadable_belief_network(tiny_net):
    net = BeliefNet(tiny_net)
    assert net.metadata["kind"] == "aluette-belief" and net.metadata["deals"] == "40"
    game = VectorGame(5, num_deals=1, seed=3)
    game.reset()
    logp = net(game.obs)
    assert logp.shape == (5, 48, 4)
    assert np.allclose(np.exp(logp).sum(-1), 1, atol=1e-5)  # a distribution per card


@pytest.mark.parametrize("bad", [["--deals", "5"], ["--per-deal", "37"], ["--explore", "2"]])
def test_the_training_command_refuses_a_bad_value_in_one_line(bad, tmp_path, capsys):
    out = tmp_path / "x.onnx"
    assert belief_net.main([*bad, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and bad[0] in err and not out.exists()


def test_a_file_that_is_no_belief_network_is_refused_in_one_line(tmp_path):
    from aluette_env.players.onnx_policy import SHIPPED_MODEL
    with pytest.raises(ValueError, match="not a belief network"):
        BeliefNet(SHIPPED_MODEL)
    bad = tmp_path / "x.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="not a readable ONNX model"):
        BeliefNet(bad)


def _two_deals_alike_for_the_seat(plays: int, seed: int):
    """Two games of one deal each, the second dealt as the first with two cards of
    seats 1 and 3 (relative to the seat to act after ``plays`` plays) swapped and a
    card of seat 2 swapped with an unused one, none of them played; the same
    ``plays`` plays in both."""
    one = VectorGame(1, num_deals=1, seed=seed, auto_reset=False)
    one.reset(options={"first_dealer": 0})
    hands = one.state.card_state[0].copy()
    ai = load_player("ai:version=4")
    actions = []
    for _ in range(plays):
        actions.append(int(ai.act_batch(one.obs, one.mask)[0]))
        one.step(np.array(actions[-1:]))
    seat = int(one.state.to_act[0])
    still = one.state.card_state[0]
    pick = {r: int(np.flatnonzero(still == seat_at(seat, r))[0]) for r in (1, 2, 3)}
    unused = int(np.flatnonzero(still == UNUSED)[0])
    other = hands.copy()
    other[pick[1]], other[pick[3]] = hands[pick[3]], hands[pick[1]]
    other[pick[2]], other[unused] = UNUSED, hands[pick[2]]
    deals = [[[np.flatnonzero(h == s) for s in range(4)]] for h in (hands, other)]
    both = VectorGame(2, num_deals=1, seed=seed, auto_reset=False)
    both.reset(options={"first_dealer": 0, "deals": np.array(deals)})
    for a in actions:
        both.step(np.array([a, a]))
    return both, seat


@pytest.mark.parametrize("plays", [0, 9, 22])
def test_two_deals_alike_from_the_seats_view_get_the_same_places(tiny_net, plays):
    both, seat = _two_deals_alike_for_the_seat(plays, seed=70 + plays)
    assert (both.state.to_act == seat).all()
    truth = belief_net.true_places(both.state.card_state, both.state.to_act)
    assert (truth[0] != truth[1]).sum() == 4  # the hidden cards differ ...
    assert (both.obs[0] == both.obs[1]).all()  # ... the seat's view does not
    logp = BeliefNet(tiny_net)(both.obs)
    assert (logp[0] == logp[1]).all()


def test_true_places_name_each_card_as_the_seat_to_act_sees_it():
    game = VectorGame(3, num_deals=1, seed=5)
    game.reset()
    ai = load_player("ai:version=4")
    for _ in range(13):
        game.step(ai.act_batch(game.obs, game.mask))
    places = belief_net.true_places(game.state.card_state, game.state.to_act)
    for g in range(3):
        seat, codes = int(game.state.to_act[g]), game.state.card_state[g]
        for c in range(48):
            if codes[c] == UNUSED:
                assert places[g, c] == belief_net.OUT
            elif codes[c] < 4 and codes[c] != seat:
                assert seat_at(seat, places[g, c] + 1) == codes[c]
            else:  # in its hand, or played: seen
                assert places[g, c] == belief_net.SEEN
        assert (places[g] >= 0).sum() == 48 - game.obs[g, :48].sum() - 13


@pytest.mark.parametrize("plays", [0, 9, 22])
def test_worlds_drawn_from_the_net_place_each_hidden_card_as_the_seat_counts_them(plays):
    from test_expert import (
        assert_worlds_place_each_hidden_card_as_the_seat_counts_them, position_after,
    )
    e, seat, obs, mask = position_after(plays, seed=60 + plays)
    for options in ({}, {"infer": "trick"}, {"belief": 0.0}):
        player = ExpertPlayer(worlds=24, sampler="net", seed=2, **options)
        holders, weights = player.sample_worlds(obs, mask)
        assert_worlds_place_each_hidden_card_as_the_seat_counts_them(e, seat, obs, holders,
                                                                     weights, 24)
        assert len({h.tobytes() for h in holders}) > 1


def _owners(keys, n_unseen, n_left):
    owner = np.empty(48, np.int64)
    out = []
    for k in keys:
        deal_world(k, np.arange(48), n_unseen, n_left, owner)
        out.append(owner[:n_unseen].copy())
    return np.array(out)


def test_drawn_places_fill_each_seat_and_put_signed_cards_with_their_seat():
    rng = np.random.default_rng(1)
    n_left = np.array([0, 5, 4, 3])  # and 8 out of the deal
    likely = rng.permutation(np.repeat(np.arange(4), [5, 4, 3, 8]))  # a place for each card
    p = np.full((20, 4), 0.03)
    p[np.arange(20), likely] = 0.91
    signed = [int(np.flatnonzero(likely == 2)[0]), int(np.flatnonzero(likely == 0)[0])]
    known = np.zeros(48, np.int64)
    known[signed] = [3, 1]  # signs put these cards with seats 3 and 1
    keys = rng.random((200, 48))
    draw_places(p, 20, n_left, known, rng.random((200, 3, 48)), keys)
    owners = _owners(keys, 20, n_left)
    assert (owners[:, signed[0]] == 3).all() and (owners[:, signed[1]] == 1).all()
    for r, n in ((1, 5), (2, 4), (3, 3), (UNUSED, 8)):
        assert ((owners == r).sum(1) == n).all()
    # the other cards go where p puts them, most often
    drawn = np.minimum(owners, 4) - 1
    assert ((drawn == likely).mean(0) > 0.5).all()


def test_a_sampler_that_is_no_belief_network_is_refused_in_one_line(tmp_path):
    bad = tmp_path / "x.onnx"
    bad.write_bytes(b"not a model")
    for spec in (bad, "nobody.onnx"):
        with pytest.raises(PlayerSpecError, match="sampler: .*allowed: uniform, net") as err:
            load_player(f"expert:sampler={spec}")
        assert "\n" not in str(err.value)
