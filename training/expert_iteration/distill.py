"""Expert iteration's distillation: an SB3 actor-critic fitted to the expert's labels.

The policy is fitted by cross-entropy to a target that mixes the expert's own
card (``best_weight``) with a softmax of its card values at temperature
``tau`` (:func:`targets`), with a KL term (``anchor``) to the guiding policy's
probabilities; the value head is fitted, on the policy's features, to the
returns that followed in self-play (:func:`distill_losses`, :func:`distill`).

Most of the expert's switches from the guiding policy's card are within the
noise of its sampled worlds, and a fit moves the logits of the positions it
does not fit by chance: a position whose two best cards are nearly tied flips
(docs/experiments/distillation-agreement.md). So the target is the expert's
only where its card gains over the guide's greedy card by more than
``significance`` standard errors, the start's own probabilities elsewhere,
and ``logit_anchor`` weighs the squared change of the legal cards' logits from
the start's (a trust region that costs as much in a near tie as anywhere).

A share of the positions (``validation``) chooses the epoch kept, the start
included: the one whose loss is lowest there, so a fit that overfits or
diverges does not leave the policy worse than where it started. The
held-out positions say how often the greedy card is the expert's, apart where
the expert keeps the guiding policy's card and where it switches from it.

May import: numpy and :mod:`aluette_env` at the top; torch and SB3 only inside
the functions that need them.
"""

from __future__ import annotations

import numpy as np

from aluette_env.game import NUM_CARDS
from aluette_env.observation import OBS_SIZE

from ..config import DistillConfig, NetworkSpec
from .data import ExpertData


def trusted(data: ExpertData, significance: float) -> np.ndarray:
    """The positions whose label is the expert's [n] (bool): every one when
    ``significance`` is 0; otherwise those where the expert's card gains over the
    guiding policy's greedy card by more than ``significance`` standard errors."""
    n = len(data["move"])
    if significance <= 0:
        return np.ones(n, bool)
    i, move = np.arange(n), data["move"].astype(np.int64)
    greedy = data["policy"].argmax(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (data["values"][i, move] - data["values"][i, greedy]) / data["stderr"][i, greedy]
    return (move != greedy) & (np.nan_to_num(z, nan=0.0) > significance)


def targets(data: ExpertData, best_weight: float, tau: float, significance: float = 0.0,
            own: np.ndarray | None = None) -> np.ndarray:
    """The policy's target [n, 48]: ``best_weight`` on the expert's move plus the rest
    spread as softmax(values / tau) over the legal cards; with ``significance`` > 0,
    that only where the expert's switch stands out of its noise (:func:`trusted`),
    elsewhere ``own`` (the fitted policy's probabilities at the start: no pull from
    the labels there; by default the guiding policy's)."""
    legal = data["masks"] > 0
    z = np.where(legal, np.nan_to_num(data["values"], nan=0.0) / tau, -np.inf)
    soft = np.exp(z - z.max(1, keepdims=True))
    soft /= soft.sum(1, keepdims=True)
    hard = np.zeros_like(soft)
    hard[np.arange(len(soft)), data["move"].astype(np.int64)] = 1.0
    mixed = best_weight * hard + (1 - best_weight) * soft
    if significance > 0:
        keep = ~trusted(data, significance)
        mixed[keep] = (data["policy"] if own is None else own)[keep]
    return mixed.astype(np.float32)


def distill_losses(policy, data: ExpertData, cfg: DistillConfig):
    """(batch index -> (total, cross-entropy, KL, value loss, logit change, expert-card
    agreement) torch tensors) for :func:`distill`; the logit change is measured from
    ``policy`` as it is when this is called (the start)."""
    import torch

    from ..players import mask_logits
    guide = torch.as_tensor(data["policy"])
    obs = torch.as_tensor(data["observations"], dtype=torch.float32)
    masks = torch.as_tensor(data["masks"])
    returns = torch.as_tensor(data["returns"])
    best = torch.as_tensor(data["move"].astype(np.int64))

    def forward(idx):
        features = policy.extract_features(obs[idx], policy.pi_features_extractor)
        return features, mask_logits(policy.action_net(policy.mlp_extractor.forward_actor(
            features)), masks[idx])

    with torch.no_grad():
        start = forward(torch.arange(len(data)))[1]
    # Where no switch stands out, the target is the start's own probabilities as this
    # network computes them: the guide's (an ONNX export's) differ by rounding, and
    # Adam's steps are near the learning rate whatever the gradient's size.
    target = torch.as_tensor(targets(data, cfg.best_weight, cfg.tau, cfg.significance,
                                     torch.softmax(start, 1).numpy()))

    def losses(idx):
        features, logits = forward(idx)
        # The value head learns on the policy's features without changing them: a
        # fresh value head's large early errors would otherwise pull the shared trunk.
        latent_vf = policy.mlp_extractor.forward_critic(features.detach())
        logp = torch.log_softmax(logits, 1)
        legal = masks[idx] > 0
        zero = torch.zeros_like(logp)
        ce = -torch.where(legal, target[idx] * logp, zero).sum(1).mean()
        g = guide[idx]
        kl = torch.where(legal & (g > 0), g * (torch.log(g.clamp_min(1e-12)) - logp),
                         zero).sum(1).mean()
        # The legal cards' logits against the start's, less their mean (the softmax
        # ignores a shift): a change in a near tie costs what it costs elsewhere.
        change = torch.where(legal, logits - start[idx], zero)
        change = torch.where(legal, change - change.sum(1, keepdim=True)
                             / legal.sum(1, keepdim=True), zero)
        drift = (change * change).sum(1).mean()
        value = torch.nn.functional.mse_loss(policy.value_net(latent_vf).flatten(),
                                             returns[idx])
        agree = (logits.argmax(1) == best[idx]).float().mean()
        return (ce + cfg.anchor * kl + cfg.logit_anchor * drift + cfg.vf_coef * value, ce, kl,
                value, drift, agree)
    return losses


def distill(policy, data: ExpertData, cfg: DistillConfig, log=print) -> dict:
    """Fit an SB3 actor-critic ``policy`` to the expert data (module docstring);
    returns the held-out losses before and after, and the fit's last epoch."""
    import torch
    import copy
    rng = np.random.default_rng(cfg.seed)
    order = rng.permutation(len(data))
    n_hold = round(cfg.holdout * len(data))
    hold, rest = order[:n_hold], order[n_hold:]
    n_val = round(cfg.validation * len(rest))
    val, fit = rest[:n_val], rest[n_val:]
    losses = distill_losses(policy, data, cfg)
    names = ("loss", "cross_entropy", "kl", "value_loss", "logit_change", "agreement")

    def measure(idx) -> dict:
        if len(idx) == 0:
            return {}
        policy.set_training_mode(False)
        with torch.no_grad():
            return {k: float(v) for k, v in zip(names, losses(torch.as_tensor(idx)))}

    before = measure(hold)
    # The epoch kept: the lowest loss on the validation positions, the start (epoch
    # 0) included, the earliest on a tie.
    kept = {"epoch": 0, "loss": measure(val).get("loss"),
            "state": copy.deepcopy(policy.state_dict()) if len(val) else None}
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.learning_rate)
    last: dict = {}
    for epoch in range(cfg.epochs):
        policy.set_training_mode(True)
        totals = np.zeros(len(names))
        rng.shuffle(fit)
        for start in range(0, len(fit), cfg.batch_size):
            idx = torch.as_tensor(fit[start:start + cfg.batch_size])
            out = losses(idx)
            optimizer.zero_grad()
            out[0].backward()
            optimizer.step()
            totals += len(idx) * np.array([float(v.detach()) for v in out])
        last = dict(zip(names, (totals / max(len(fit), 1)).tolist()))
        log(f"distill epoch {epoch + 1}/{cfg.epochs}: cross-entropy {last['cross_entropy']:.4f}"
            f", KL to the guide {last['kl']:.4f}, logit change {last['logit_change']:.4f}, value "
            f"loss {last['value_loss']:.3f}, greedy "
            f"card = expert's {last['agreement']:.1%}")
        if len(val):
            loss = measure(val)["loss"]
            if loss < kept["loss"]:
                kept = {"epoch": epoch + 1, "loss": loss,
                        "state": copy.deepcopy(policy.state_dict())}
    if kept["state"] is not None:
        policy.load_state_dict(kept["state"])
        log(f"validation ({len(val)} positions): epoch {kept['epoch']} of {cfg.epochs} kept (loss "
            f"{kept['loss']:.4f})" + (" : the start, no epoch did better" if kept["epoch"] == 0
                                      else ""))
    policy.set_training_mode(False)
    after = measure(hold)
    split = {}
    if before:
        log(f"held out ({len(hold)} positions): loss {before['loss']:.4f} -> {after['loss']:.4f}"
            f", greedy card = expert's {before['agreement']:.1%} -> {after['agreement']:.1%}")
        # Where the expert keeps the guiding policy's greedy card, and where it switches.
        switch = data["policy"][hold].argmax(1) != data["move"][hold]
        for name, idx in (("keeps", hold[~switch]), ("switches", hold[switch])):
            split[name] = {"positions": len(idx), "agreement": measure(idx).get("agreement")}
        log("held out, greedy card = expert's where it keeps the guide's card: "
            + ", where it switches: ".join(
                f"{(v['agreement'] or 0):.1%} of {v['positions']}" for v in split.values()))
    return {"positions": len(data), "held_out": len(hold), "validation": len(val),
            "epoch_kept": kept["epoch"] if len(val) else cfg.epochs, "before": before,
            "after": after, "held_out_after": split, "last_epoch": last}


def new_model(network: NetworkSpec, seed: int = 0):
    """A MaskablePPO model of this architecture (no environment: for fitting and export)."""
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from ..sb3.network import CardTrunk

    class Spaces(gym.Env):
        observation_space = gym.spaces.Box(0, 1, (OBS_SIZE,), np.float32)
        action_space = gym.spaces.Discrete(NUM_CARDS)

    act = torch.nn.ReLU if network.activation == "relu" else torch.nn.Tanh
    return MaskablePPO("MlpPolicy", DummyVecEnv([Spaces]), seed=seed, device="cpu", verbose=0,
                       n_steps=8, batch_size=8, policy_kwargs={
                           "features_extractor_class": CardTrunk,
                           "features_extractor_kwargs": {"widths": tuple(network.trunk),
                                                         "activation": network.activation},
                           "net_arch": {"pi": list(network.pi), "vf": list(network.vf)},
                           "activation_fn": act})


def onnx_path(spec: str) -> str:
    """The ONNX file of a policy spec (ai, ai:version=N or a path)."""
    from aluette_env.players import load_player
    return str(load_player(spec).path)
