"""The search's value network at a depth limit (``expert:depth=N``): what it
reads (a world the search drew, relative to the trick's leader, never the true
deal), and rollouts that stop at the limit."""

import numpy as np
import pytest

import aluette_env
from aluette_env.game.state import UNUSED
from aluette_env.players import load_player
from aluette_env.players.search import ExpertPlayer
from aluette_env.players.search.value import VALUE_WIDTH, shipped_or_path, write_features
from aluette_env.vector import VectorGame
from aluette_env.vector.kernels import kernel_view


def _trick_starts(seed: int, tricks: int):
    """Games of ``ai`` stopped at the start of trick ``tricks``."""
    game = VectorGame(6, num_deals=1, seed=seed)
    game.reset()
    ai = load_player("ai:version=4")
    for _ in range(4 * tricks):
        game.step(ai.act_batch(game.obs, game.mask))
    return game


@pytest.mark.parametrize("tricks", [1, 4, 7])
def test_features_place_every_card_once_from_the_leaders_seat(tricks):
    game = _trick_starts(tricks, tricks)
    out = np.zeros((6, VALUE_WIDTH), np.float32)
    write_features(kernel_view(game.state), 6, out)
    for g in range(6):
        where = out[g, :288].reshape(48, 6)
        assert (where.sum(1) == 1).all()
        lead = int(game.state.leader[g])
        for c in range(48):
            code = int(game.state.card_state[g, c])
            k = int(where[c].argmax())
            if code < 4:
                assert k == (code - lead) % 4
            else:
                assert k == (5 if code == UNUSED else 4)
        counts = [game.state.counts[g, (lead + r) % 4] for r in range(4)]
        assert np.allclose(out[g, 288:292] * 9, counts)
        assert out[g, 300 + tricks] == 1 and out[g, 300:309].sum() == 1


def test_a_depth_past_the_deals_last_choice_is_a_rollout_to_the_end():
    """depth=8 reaches the last trick, whose cards are forced: every value is the
    rollouts' own, exactly."""
    e = aluette_env.raw_env(num_deals=1)
    e.reset(seed=4)
    rng = np.random.default_rng(4)
    for plays in range(30):
        o = e.observe(e.agent_selection)
        if plays in (0, 9, 22):
            full = ExpertPlayer(worlds=12, seed=2).card_values(o["observation"],
                                                               o["action_mask"])
            deep = ExpertPlayer(worlds=12, seed=2, depth=8).card_values(o["observation"],
                                                                        o["action_mask"])
            assert deep.value.tolist() == full.value.tolist() and deep.best == full.best
        e.step(int(rng.choice(e.deal.legal_cards())))


def test_the_value_network_sees_only_worlds_the_search_drew():
    """Two deals alike from the deciding seat's view (its hand and every card
    played) whose hidden cards lie differently: the value network is given the
    same positions in both, and they are not the true deal."""
    rng = np.random.default_rng(5)
    deck = rng.permutation(48).tolist()
    hands = [deck[0:9], deck[9:18], deck[18:27], deck[27:36]]
    ai = load_player("ai:version=4")
    e = aluette_env.raw_env(num_deals=1)
    e.reset(seed=0, options={"first_dealer": "player_3", "deals": [hands]})
    plays = []
    while len(plays) < 6 or e.agent_selection != "player_0":
        o = e.observe(e.agent_selection)
        plays.append(int(ai.act(o["observation"], o["action_mask"])))
        e.step(plays[-1])
    # The same deal with cards still held by seats 1 and 3 and one unused card swapped.
    held1 = [c for c in e.deal.hands[1]]
    held3 = [c for c in e.deal.hands[3]]
    unused = deck[36]
    other = [list(h) for h in hands]
    other[1][hands[1].index(held1[0])] = held3[0]
    other[3][hands[3].index(held3[0])] = unused
    assert other != hands
    seen = []
    for deal in (hands, other):
        e2 = aluette_env.raw_env(num_deals=1)
        e2.reset(seed=0, options={"first_dealer": "player_3", "deals": [deal]})
        for card in plays:
            e2.step(card)
        o = e2.observe("player_0")
        player = ExpertPlayer(worlds=16, seed=3, depth=1)
        calls = []
        net = player._value
        player._value = lambda x, net=net, calls=calls: calls.append(x.copy()) or net(x)
        player.card_values(o["observation"], o["action_mask"])
        seen.append(np.concatenate(calls))
    assert seen[0].shape == seen[1].shape and len(seen[0]) > 0
    assert (seen[0] == seen[1]).all()
    # The positions are the search's worlds: a hidden card lies in different hands.
    where = seen[0][:, :288].reshape(len(seen[0]), 48, 6)[:, held1[0]].argmax(1)
    assert len(set(where.tolist())) > 1


def test_value_option_names_a_shipped_network_or_a_file(tmp_path):
    assert shipped_or_path("v1") is shipped_or_path("v1")
    with pytest.raises(ValueError, match="no such shipped value network"):
        shipped_or_path("v9")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not onnx")
    with pytest.raises(ValueError, match="bad.onnx"):
        load_player(f"expert:depth=1,value={bad}")
    with pytest.raises(ValueError, match="rollout=ai"):
        load_player("expert:depth=1,rollout=heuristic")


def test_the_training_script_makes_a_value_network_the_expert_reads(tmp_path):
    from training.value_net import main
    out = tmp_path / "value.onnx"
    assert main(["--deals", "200", "--epochs", "1", "--hidden", "16", "--out", str(out)]) == 0
    player = load_player(f"expert:depth=1,worlds=4,value={out}", seed=0)
    meta = player._value.session.get_modelmeta().custom_metadata_map
    assert meta["kind"] == "aluette-value" and meta["guide"] == "ai:version=4"
    game = VectorGame(1, num_deals=1, seed=3)
    game.reset()
    for _ in range(10):
        card = player.act(game.obs[0], game.mask[0])
        assert game.mask[0, card]
        game.step(np.array([card]))
    for bad in (["--deals", "5"], ["--epochs", "0"], ["--hidden", "-1"],
                ["--guide", "nobody.onnx"]):
        assert main([*bad, "--out", str(tmp_path / "bad.onnx")]) == 2
    assert not (tmp_path / "bad.onnx").exists()
