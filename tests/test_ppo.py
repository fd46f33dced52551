"""The PPO update written out in training.sb3.ppo: on the same rollout and the
same minibatches, its parameters and losses are sb3-contrib's
``MaskablePPO.train``'s bit for bit, and with the belief head those of
MaskablePPO's update with the head's loss added to its gradient; the rollout
reaches SB3's buffer whole through its public ``add``."""

import copy

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

from aluette_env.players.random_player import RandomPlayer
from training.config import load_config
from training.sb3.network import CardPolicy, PolicyPlayer, hidden_planes
from training.sb3.ppo import AluettePPO, fill_buffer, rollout_arrays
from training.sb3.train import build_env, build_model
from training.league import OpponentPool
from training.rollouts import Rollout


def model_with_rollout(tmp_path, *settings) -> AluettePPO:
    """A fresh model of configs/quick.yaml (eight games, self-play and `random`)
    whose buffer holds one rollout of its own games, advantages computed."""
    cfg = load_config("configs/quick.yaml", ["num_games=8", f"output_dir={tmp_path}",
                                             "selfplay.opponents={latest: 1, random: 1}",
                                             "logging.tensorboard=false", *settings])
    pool = OpponentPool(cfg.selfplay.opponents, {"random": RandomPlayer(0)},
                        np.random.default_rng(0))
    model = build_model(cfg, build_env(cfg, pool, seed=0), tmp_path)
    pool.latest = PolicyPlayer(model.policy, name="latest", temperature=1.0, seed=0)
    _, callback = model._setup_learn(10 ** 6, callback=None)
    torch.manual_seed(0)
    assert model.collect_rollouts(model.env, callback, model.rollout_buffer, model.n_steps)
    return model


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, AluettePPO]:
    """A model of each critic, each with its rollout (the privileged one with a
    belief head, weighted 0.5); a test leaves them as it found them. One torch
    thread, as quick.yaml's runs (tiny products: a second thread only waits)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield {critic: model_with_rollout(tmp_path_factory.mktemp(critic),
                                       f"network.critic={critic}", f"network.belief={belief}")
            for critic, belief in (("seat", 0), ("privileged", 0.5))}
    torch.set_num_threads(threads)


def update(model, train) -> tuple[dict, dict]:
    """(parameters, logged values) after ``train(model)`` on a copy of the model's
    rollout, from the model's weights and optimizer state, minibatches drawn from
    numpy's generator at seed 0; the model is left as it was."""
    weights = copy.deepcopy(model.policy.state_dict())
    adam = copy.deepcopy(model.policy.optimizer.state_dict())
    rollout = model.rollout_buffer
    model.rollout_buffer = copy.deepcopy(rollout)
    model.logger.name_to_value.clear()
    np.random.seed(0)
    try:
        train(model)
        return ({k: v.clone() for k, v in model.policy.state_dict().items()},
                dict(model.logger.name_to_value))
    finally:
        model.policy.load_state_dict(weights)
        model.policy.optimizer.load_state_dict(adam)
        model.rollout_buffer = rollout
        model._n_updates = 0


def assert_same_weights(ours: dict, theirs: dict) -> None:
    assert ours.keys() == theirs.keys()
    for name in ours:
        assert torch.equal(ours[name], theirs[name]), name


@pytest.mark.parametrize("critic", ["seat", "privileged"])
def test_the_update_is_maskable_ppo_s_bit_for_bit(models, monkeypatch, critic):
    model = models[critic]
    monkeypatch.setattr(model.policy, "belief_coef", 0.0)  # MaskablePPO has no belief loss
    ours, our_logs = update(model, AluettePPO.train)
    theirs, their_logs = update(model, MaskablePPO.train)
    assert_same_weights(ours, theirs)
    moved = [k for k in ours if not torch.equal(ours[k], model.policy.state_dict()[k])]
    assert moved  # the update did change the network
    for key in ("policy_gradient_loss", "value_loss", "entropy_loss", "approx_kl",
                "clip_fraction", "loss", "explained_variance", "n_updates", "clip_range"):
        assert our_logs[f"train/{key}"] == their_logs[f"train/{key}"], key
    for key in ("policy_gradient_loss", "value_loss", "entropy_loss", "loss"):
        assert our_logs[f"losses/{key}"] == our_logs[f"train/{key}"]
    assert "train/belief_loss" not in our_logs


def test_a_compiled_update_is_the_updates_numbers_and_leaves_the_checkpoint_as_it_was(
        models, monkeypatch, tmp_path):
    """torch_compile: the privileged trunk's passes captured by torch.compile, run
    here by its "eager" backend (the same capture; make bench times inductor's
    code), give the written-out update's weights and losses; the compiled function
    is not saved with the model."""
    from training.sb3 import ppo
    model = models["privileged"]
    monkeypatch.setattr(ppo, "COMPILE_BACKEND", "eager")
    plain, plain_logs = update(model, AluettePPO.train)
    monkeypatch.setattr(model, "compile_update", True)
    compiled, compiled_logs = update(model, AluettePPO.train)
    assert model._compiled[0] is model.policy
    for name in plain:
        torch.testing.assert_close(compiled[name], plain[name], rtol=1e-5, atol=1e-6)
    for key in ("policy_gradient_loss", "value_loss", "entropy_loss", "belief_loss", "loss"):
        assert compiled_logs[f"train/{key}"] == pytest.approx(plain_logs[f"train/{key}"],
                                                              rel=1e-5), key
    model.save(tmp_path / "model.zip")
    assert not hasattr(AluettePPO.load(tmp_path / "model.zip"), "_compiled")
    del model._compiled


class _WithLoss(torch.autograd.Function):
    """``x`` unchanged, with ``loss``'s gradient added to any backward through it:
    how the belief loss reached MaskablePPO's backward before the update was
    written out (the reference here)."""

    @staticmethod
    def forward(ctx, x, loss):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return grad, torch.ones((), dtype=grad.dtype)


def maskable_ppo_with_belief_in_values(model) -> None:
    """MaskablePPO.train, the belief head's weighted loss riding on the values."""
    policy = model.policy
    losses = []

    def evaluate_actions(obs, actions, action_masks=None):
        out = CardPolicy.evaluate(policy, obs, actions, action_masks, belief=True)
        bce = torch.nn.functional.binary_cross_entropy_with_logits(
            out.beliefs, hidden_planes(obs[::policy.belief_every]))
        losses.append(bce.item())
        return _WithLoss.apply(out.values, policy.belief_coef * bce), out.log_prob, out.entropy

    policy.evaluate_actions = evaluate_actions
    try:
        MaskablePPO.train(model)
    finally:
        del policy.evaluate_actions
    model.logger.record("train/belief_loss", float(np.mean(losses)))


def test_the_belief_loss_joins_the_update_as_it_did_inside_maskable_ppo(models):
    model = models["privileged"]
    assert model.policy.belief_coef == 0.5
    head = model.policy.belief_net.weight.clone()
    ours, our_logs = update(model, AluettePPO.train)
    theirs, their_logs = update(model, maskable_ppo_with_belief_in_values)
    assert not torch.equal(ours["belief_net.weight"], head)  # the head learned
    assert_same_weights(ours, theirs)
    assert our_logs["train/belief_loss"] == their_logs["train/belief_loss"] > 0
    assert our_logs["losses/belief_loss"] == our_logs["train/belief_loss"]


def test_the_rollout_reaches_sb3_s_buffer_whole_through_add(models):
    model = models["seat"]
    games, n_steps = model.env.games, model.n_steps
    buffer = MaskableRolloutBuffer(n_steps, model.observation_space, model.action_space,
                                   gamma=1.0, n_envs=model.env.num_envs)

    def decide(obs, masks):
        return (masks.argmax(1), np.full(len(obs), 0.5, np.float32),
                np.full(len(obs), -1.0, np.float32))

    rollout = games.collect(n_steps, decide, **rollout_arrays(buffer))
    fill_buffer(buffer, rollout)
    assert buffer.full and buffer.pos == n_steps
    for name in Rollout.FIELDS:
        ours = getattr(buffer, name)
        assert ours.dtype == getattr(rollout, name).dtype
        assert (ours.reshape(getattr(rollout, name).shape) == getattr(rollout, name)).all(), name
    assert rollout.rewards.any() and rollout.episode_starts.any()
    with pytest.raises(ValueError, match="an empty buffer of 32 rows, got one of 32 at row 32"):
        fill_buffer(buffer, rollout)
