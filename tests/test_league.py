"""The league's snapshots as one network (training.sb3.league): the same logits
as each snapshot's own player, on real positions, from dense observations and
from the engine's index lists; its cards drawn from each snapshot's softmax;
the same games with it as without it."""

import numpy as np
import pytest
import torch
from conftest import real_positions

from aluette_env.players.heuristic import HeuristicPlayer
from aluette_env.players.random_player import RandomPlayer
from training.config import load_config
from training.players import ILLEGAL_LOGIT
from training.sb3.league import SnapshotStack
from training.sb3.train import build_env, build_model, frozen_player
from training.league import OpponentPool
from training.rollouts import AllSeatGames


@pytest.fixture(scope="module")
def real():
    """(dense obs, index lists, masks) of real positions."""
    obs, idx, _, masks, _, _ = real_positions(32, 160, seed=3)
    return obs, idx, masks


def snapshot(tmp_path, seed: int, *settings: str):
    """A frozen snapshot of a configs/quick.yaml policy with its own random weights."""
    cfg = load_config("configs/quick.yaml", ["num_games=8", f"output_dir={tmp_path}",
                                             *settings])
    pool = OpponentPool(cfg.selfplay.opponents, {"random": RandomPlayer(0)},
                        np.random.default_rng(0))
    model = build_model(cfg, build_env(cfg, pool, seed=0), tmp_path)
    torch.manual_seed(seed)
    with torch.no_grad():
        for p in model.policy.parameters():
            p.normal_(std=0.3)
    return frozen_player(model.policy, f"snapshot_{seed}")


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory):
    """Four snapshots: two of one shape (one with the privileged critic), one
    with a deeper trunk, one dense-input policy (network.sparse=false)."""
    tmp = tmp_path_factory.mktemp("league")
    return [snapshot(tmp / "a", 1), snapshot(tmp / "b", 2, "network.critic=privileged"),
            snapshot(tmp / "c", 3, "network.trunk=[48,24]"),
            snapshot(tmp / "d", 4, "network.sparse=false")]


@pytest.mark.parametrize("inputs", ["dense", "lists"])
def test_the_stack_gives_each_snapshot_its_own_logits(real, snapshots, inputs):
    obs, idx, masks = real
    x = obs if inputs == "dense" else idx
    which = np.random.default_rng(0).integers(0, len(snapshots), len(obs))
    stack = SnapshotStack(seed=0)
    logits = stack.masked_logits(snapshots, which, x, masks)
    legal = torch.as_tensor(masks) > 0
    assert bool((logits[~legal] == ILLEGAL_LOGIT).all())
    for k, player in enumerate(snapshots):
        rows = which == k
        assert rows.sum() > 100
        own = player.masked_logits(x[rows], masks[rows])
        ok = legal[torch.from_numpy(rows)]
        assert float((logits[torch.from_numpy(rows)][ok] - own[ok]).abs().max()) < 1e-5
    # greedy players: each its own argmax
    for p in snapshots:
        p.temperature = 0.0
    try:
        cards = stack.act(snapshots, which, x, masks)
    finally:
        for p in snapshots:
            p.temperature = 1.0
    assert (cards == logits.argmax(1).numpy()).all()


def test_the_stack_draws_each_card_from_its_snapshot_s_softmax(real, snapshots):
    obs, idx, masks = real
    n = 6000
    row = int(np.argmax(masks.sum(1)))  # a position with many legal cards
    which = np.repeat([0, 1], n // 2)
    snapshots[1].temperature = 0.5
    try:
        stack = SnapshotStack(seed=1)
        cards = stack.act(snapshots[:2], which, np.repeat(idx[row:row + 1], n, 0),
                          np.repeat(masks[row:row + 1], n, 0))
    finally:
        snapshots[1].temperature = 1.0
    assert masks[row][cards].all()
    for k, t in ((0, 1.0), (1, 0.5)):
        logits = snapshots[k].masked_logits(idx[row:row + 1], masks[row:row + 1])[0]
        p = torch.softmax(logits / t, 0).numpy()
        seen = np.bincount(cards[which == k], minlength=len(p)) / (n // 2)
        # within 4.5 standard errors of each card's probability
        assert (np.abs(seen - p) <= 4.5 * np.sqrt(p * (1 - p) / (n // 2)) + 1e-3).all()


def test_all_seat_games_play_the_same_cards_with_the_stack(snapshots):
    """Greedy snapshots: the league's cards with the stack are the cards each
    snapshot plays itself, so the same seed gives the same rollout."""
    def rollout(joint):
        pool = OpponentPool({"snapshots": 1.0}, {}, np.random.default_rng(5))
        pool.snapshots = [(p.name, p) for p in snapshots[:3]]
        games = AllSeatGames(24, 0, pool, num_deals=2, seed=7, inputs="indices", joint=joint)
        games.reset()

        def decide(obs, masks):  # the learner: its first legal card
            return masks.argmax(1), np.zeros(len(obs)), np.zeros(len(obs))
        return games.collect(8, decide)

    for p in snapshots:
        p.temperature = 0.0
    try:
        plain, stacked = rollout(None), rollout(SnapshotStack())
    finally:
        for p in snapshots:
            p.temperature = 1.0
    assert plain.observations.any()
    for field in ("observations", "action_masks", "rewards", "episode_starts"):
        assert (getattr(plain, field) == getattr(stacked, field)).all(), field


def test_the_stack_refuses_what_it_cannot_play(real, snapshots):
    obs, idx, masks = real
    stack = SnapshotStack()
    assert not stack.accepts(HeuristicPlayer())
    with pytest.raises(ValueError, match="one row each"):
        stack.act(snapshots, np.zeros(3, int), idx[:4], masks[:4])
    with pytest.raises(ValueError, match="index lists"):
        stack.act(snapshots, np.zeros(4, int), idx[:4, :9], masks[:4])
    with pytest.raises(ValueError, match="must name players 0..3"):
        stack.act(snapshots, np.full(4, 4), idx[:4], masks[:4])
    with pytest.raises(ValueError, match="frozen card-trunk policies"):
        stack.act([HeuristicPlayer()], np.zeros(4, int), obs[:4], masks[:4])
    training = snapshots[0].policy
    training.set_training_mode(True)
    try:
        assert not stack.accepts(snapshots[0])
    finally:
        training.set_training_mode(False)
    assert stack.act(snapshots, np.zeros(0, int), idx[:0], masks[:0]).shape == (0,)


def test_the_old_selfplay_module_warns_and_names_the_same_objects():
    """training.selfplay was split into training.league and training.rollouts: it
    stays one release as an alias that warns."""
    import importlib
    import sys

    import training.league
    import training.rollouts
    sys.modules.pop("training.selfplay", None)
    with pytest.warns(DeprecationWarning, match="training.league .* training.rollouts"):
        old = importlib.import_module("training.selfplay")
    assert old.OpponentPool is training.league.OpponentPool
    assert old.AllSeatGames is training.rollouts.AllSeatGames
    assert not hasattr(old, "LearnerGames")
