"""The learner's network: :class:`CardPolicy`, sb3-contrib's masked actor-critic
on the card trunk (:class:`CardTrunk`: the sparse first layer, the privileged
critic's second block), with the belief head; and a policy read as a player
(:class:`PolicyPlayer`). What the update does with its outputs:
:mod:`training.sb3.ppo`."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor

from aluette_env.game import NUM_ACTIONS
from aluette_env.observation import (
    ACTIVE_PAD, HIDDEN_PAD, HIDDEN_SIZE, MAX_ACTIVE, MAX_HIDDEN, OBS_SIZE,
)

from ..players import LogitsPlayer, mask_logits
from .gather import gather_sum, layer_dtype, relu_layer, weight_table

#: Widths of the learner's index inputs (the batched engine's ``obs_indices``,
#: then ``hidden_indices`` for a privileged critic); a dense input is OBS_SIZE wide.
SPARSE_INPUT = MAX_ACTIVE
PRIVILEGED_INPUT = MAX_ACTIVE + MAX_HIDDEN


def index_planes(lists: torch.Tensor, pad: int, dtype=torch.float32) -> torch.Tensor:
    """Padded index lists [B, K] (entries ``pad``: none) as 0/1 planes [B, pad].

    Written through one flat index (row * (pad + 1) + entry): ``scatter_`` along
    rows took 21 ms for 8,192 rows of bfloat16 planes, a flat ``index_put_`` 4 ms."""
    n = len(lists)
    flat = (lists.long() + torch.arange(n).unsqueeze(1) * (pad + 1)).flatten()
    ones = torch.zeros(n * (pad + 1), dtype=dtype)
    ones[flat] = 1
    return ones.view(n, pad + 1)[:, :pad]


def amx_tiles() -> bool:
    """This CPU multiplies bfloat16 in AMX tiles (not only AVX512-BF16)."""
    return bool(getattr(torch.cpu, "_is_amx_tile_supported", lambda: False)())


def hidden_planes(obs: torch.Tensor, dtype=torch.float32) -> torch.Tensor:
    """The privileged part of learner inputs ([B, MAX_ACTIVE + MAX_HIDDEN] index
    lists) as 0/1 planes [B, HIDDEN_SIZE] in ``dtype``: who holds each card the
    seat cannot see."""
    return index_planes(obs[:, MAX_ACTIVE:], HIDDEN_PAD, dtype)


class FeatureBlocks(tuple):
    """A privileged trunk's features: (the policy's block, the value's block), two
    tensors rather than one concatenated. A concatenation costs a copy forward,
    and each head's slice of it a full-size zero tensor backward (profiled: a
    third of a minibatch's update). ``detach`` detaches both."""

    def detach(self) -> "FeatureBlocks":
        return FeatureBlocks(block.detach() for block in self)


class CardTrunk(BaseFeaturesExtractor):
    """Features extractor: an MLP shared by the policy and value heads, so the
    wide first layer over the sparse card planes is computed once per sample
    (measured: 10,000 -> 16,000 learner samples/s against separate MLPs).

    It reads a dense observation ([B, OBS_SIZE], what players and the export
    give) or the engine's index lists of its ones ([B, MAX_ACTIVE]): the same
    function with the same weights, the second computed on the ones only.

    With ``privileged`` (a critic that sees every hand) it also reads the
    privileged index lists ([B, MAX_ACTIVE + MAX_HIDDEN]) and returns two
    feature blocks (:class:`FeatureBlocks`): the policy's, from the seat's vector alone, and the
    value's, whose first layer adds the privileged part (other hands, unused
    cards) to the same pre-activation. No layer the policy uses sees it."""

    def __init__(self, observation_space, widths=(256,), activation: str = "relu",
                 privileged: bool = False):
        width = int(widths[-1])
        super().__init__(observation_space, features_dim=2 * width if privileged else width)
        act = torch.nn.ReLU if activation == "relu" else torch.nn.Tanh
        layers: list[torch.nn.Module] = []
        # The dense width (an index-list space still has a first layer over the
        # whole observation: the lists name its entries).
        shape = observation_space.shape
        n_in = OBS_SIZE if shape[-1] in (SPARSE_INPUT, PRIVILEGED_INPUT) else int(np.prod(shape))
        for w in widths:
            layers += [torch.nn.Linear(n_in, int(w)), act()]
            n_in = int(w)
        self.net = torch.nn.Sequential(*layers)
        self.width = width
        self.privileged = bool(privileged)
        #: Under bfloat16 autocast, the first layer as a product of the 0/1 planes
        #: rather than the gather: on a CPU with AMX tiles, where whole paths timed it
        #: the faster, decided from the CPU's flags (docs/experiments/auto-not-timed.md);
        #: without them it is slower. ``benchmarks/bench_train.py --planes`` sets it.
        self.bfloat16_planes = amx_tiles()
        if self.privileged:
            # Zero at the start: the value starts as the seat's own (a warm start
            # keeps its value), and learns what the hidden cards add.
            self.hidden = torch.nn.Linear(HIDDEN_SIZE, int(widths[0]), bias=False)
            torch.nn.init.zeros_(self.hidden.weight)

    def _table(self) -> torch.Tensor:
        """The first layer's weight as the fused layer reads it, in the precision
        asked for, kept until the weight changes: a rollout's 128 steps and the
        league's snapshots read the same weight many times, each in a small batch
        whose own work is less than the transpose's."""
        weight, dtype = self.net[0].weight, layer_dtype()
        key = (weight.data_ptr(), weight._version, dtype)
        if getattr(self, "_table_key", None) != key:
            self._table_of, self._table_key = weight_table(weight, dtype), key
        return self._table_of

    def forward(self, obs: torch.Tensor) -> torch.Tensor | FeatureBlocks:
        first, act, after = self.net[0], self.net[1], self.net[2:]
        pre = hidden = None
        # An export traces a dense observation (its width is fixed, its batch is
        # not): read as such without comparing a traced shape (a TracerWarning).
        if torch.jit.is_tracing() or obs.shape[-1] == first.in_features:
            pre = first(obs.float())
        elif obs.shape[-1] in (SPARSE_INPUT, PRIVILEGED_INPUT):
            lists = obs[:, :MAX_ACTIVE]
            if self.privileged and obs.shape[-1] == PRIVILEGED_INPUT:
                # The privileged part is narrow (192 entries, a third of them set):
                # its layer is cheaper as one dense product than as a gather.
                # Under autocast, made in the dtype its product reads (no cast).
                hidden = self.hidden(hidden_planes(obs, layer_dtype()))
            if self.bfloat16_planes and torch.is_autocast_enabled("cpu"):
                # With AMX tiles the first layer is cheaper as this product
                # (4 ms against 19 ms forward and backward, 8,192 rows; a whole path
                # about 3 % faster); with AVX512-BF16 alone it is dearer
                # (benchmarks/bench_train.py times both).
                pre = first(index_planes(lists, ACTIVE_PAD, torch.bfloat16))
            elif isinstance(act, torch.nn.ReLU):
                # The gather, the bias, the ReLU and the value's second sum in one pass.
                own, seen = relu_layer(lists, first.weight, first.bias, ACTIVE_PAD, hidden,
                                       self._table())
            else:
                pre = gather_sum(lists, first.weight, ACTIVE_PAD) + first.bias
        else:
            raise ValueError(f"CardTrunk reads an observation ({OBS_SIZE} entries) or the "
                             f"engine's index lists ({SPARSE_INPUT} or {PRIVILEGED_INPUT}), got "
                             f"{obs.shape[-1]}")
        if pre is not None:
            own, seen = act(pre), None if hidden is None else act(pre + hidden)
        features = after(own)
        if not self.privileged:
            return features
        # Without the privileged part (a player's dense input) the value block is
        # the policy's: only the policy's logits are used there.
        return FeatureBlocks((features, features if seen is None else after(seen)))


class SplitMlpExtractor(MlpExtractor):
    """SB3's policy and value heads on the two blocks of a privileged
    :class:`CardTrunk` (:class:`FeatureBlocks`): the policy head on the first,
    the value head on the second."""

    def __init__(self, width: int, net_arch, activation_fn, device="auto"):
        super().__init__(width, net_arch, activation_fn, device)
        self.width = width

    def forward(self, features: FeatureBlocks) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: FeatureBlocks) -> torch.Tensor:
        return self.policy_net(features[0])

    def forward_critic(self, features: FeatureBlocks) -> torch.Tensor:
        return self.value_net(features[1])


class Evaluation(NamedTuple):
    """What the update reads of the network on a minibatch (:meth:`CardPolicy.evaluate`)."""

    values: torch.Tensor  #: [B, 1]
    log_prob: torch.Tensor  #: [B], of the actions taken
    entropy: torch.Tensor  #: [B], of the masked policy
    #: [B // belief_every, HIDDEN_SIZE] logits of the belief head on every
    #: ``belief_every``-th row; None without the head or gradients.
    beliefs: torch.Tensor | None


class CardPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's actor-critic with the card trunk; with a privileged trunk the
    heads split its two feature blocks (:class:`SplitMlpExtractor`).

    ``belief_coef`` > 0 (a privileged trunk only) adds a belief head: a linear
    layer on the *policy's* features that predicts who holds each card the seat
    cannot see (the privileged planes, binary cross-entropy averaged over their
    192 entries and a quarter of the minibatch's rows), weighted by
    ``belief_coef`` in the update (:mod:`training.sb3.ppo`). It shapes the layers
    the policy uses towards what a player infers about the hidden hands, from
    targets only training has; a player, the export and every opponent never run
    it (its loss, ``losses/belief_loss``, is logged)."""

    #: The belief loss is taken on every ``belief_every``-th row of a minibatch
    #: (its rows come shuffled): on all 8,192 its layer added 35 ms to a 100 ms
    #: update, on a quarter 10 ms, and 2,048 rows still pin a 192-entry average.
    belief_every = 4

    def __init__(self, *args, belief_coef: float = 0.0, precision: str = "float32", **kwargs):
        if precision not in ("float32", "bfloat16"):
            raise ValueError(f"precision: 'float32' or 'bfloat16', got {precision!r}")
        self.belief_coef = float(belief_coef)
        self.precision = precision
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:
        if self.belief_coef > 0:
            if not getattr(self.features_extractor, "privileged", False):
                raise ValueError("belief_coef needs a privileged trunk (its targets are the "
                                 "privileged planes)")
            self.belief_net = torch.nn.Linear(self.features_extractor.width, HIDDEN_SIZE)
        super()._build(lr_schedule)  # the optimizer: after every layer exists

    def _get_constructor_parameters(self) -> dict:
        return dict(super()._get_constructor_parameters(), belief_coef=self.belief_coef,
                    precision=self.precision)

    def _build_mlp_extractor(self) -> None:
        if getattr(self.features_extractor, "privileged", False):
            self.mlp_extractor = SplitMlpExtractor(self.features_extractor.width, self.net_arch,
                                                   self.activation_fn, self.device)
        else:
            super()._build_mlp_extractor()

    def heads(self, obs: torch.Tensor, action_masks,
              belief: bool = False) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """(values [B, 1], log-probabilities [B, actions] of the masked policy,
        the belief head's logits or None: see :class:`Evaluation`); ``belief``
        runs the head where it exists and ``obs`` holds its targets."""
        # bfloat16: the products under autocast; what comes out is float32 again.
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.precision == "bfloat16"):
            features = self.extract_features(obs)
            latent_pi, latent_vf = self.mlp_extractor(features)
            logits = self.action_net(latent_pi).float()
            values = self.value_net(latent_vf).float()
            beliefs = None
            if belief and self.belief_coef > 0 and obs.shape[-1] == PRIVILEGED_INPUT:
                beliefs = self.belief_net(features[0][::self.belief_every]).float()
        if action_masks is not None:
            logits = mask_logits(logits, torch.as_tensor(action_masks).reshape(logits.shape))
        return values, torch.log_softmax(logits, dim=-1), beliefs

    def evaluate(self, obs: torch.Tensor, actions: torch.Tensor, action_masks,
                 belief: bool = False) -> Evaluation:
        """The network on a minibatch of the rollout (:class:`Evaluation`), from one
        log-softmax: the same numbers as MaskablePPO's masked categorical
        (profiled: building the distribution cost 14 ms of a 8,192-sample
        minibatch's 27 ms forward)."""
        values, logp, beliefs = self.heads(obs, action_masks, belief)
        log_prob = logp.gather(1, actions.long().reshape(-1, 1)).squeeze(1)
        # exp() of an illegal card's log-probability (about ILLEGAL_LOGIT) is 0
        # either way, but torch's exp takes a slow path below about -104: 2.7 ms
        # against 0.3 ms for a minibatch's [8192, 48] (exp(-80) * -1e9 adds 2e-26).
        entropy = -(logp.clamp(min=-80.0).exp() * logp).sum(-1)
        return Evaluation(values, log_prob, entropy, beliefs)

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor,
                         action_masks: torch.Tensor | None = None):
        """MaskablePPO's (values, log-probabilities of ``actions``, entropies):
        :meth:`evaluate` without the belief head."""
        values, log_prob, entropy, _ = self.evaluate(obs, actions, action_masks)
        return values, log_prob, entropy

    def sample(self, obs: torch.Tensor, action_masks) -> tuple[torch.Tensor, ...]:
        """A rollout's step without gradients: (sampled actions, values [B],
        their log-probabilities), as ``forward`` but drawn by the Gumbel-max rule
        (one argmax, no multinomial)."""
        with torch.no_grad():
            values, logp, _ = self.heads(obs, action_masks)
            noise = -torch.log(-torch.log(torch.rand_like(logp).clamp_(min=1e-20)))
            actions = (logp + noise).argmax(dim=-1)
            return actions, values.flatten(), logp.gather(1, actions[:, None]).squeeze(1)


# -- the network as a player ---------------------------------------------------


def policy_logits(policy, observation: torch.Tensor) -> torch.Tensor:
    """Unmasked action logits of an SB3 actor-critic policy."""
    features = policy.extract_features(observation, policy.pi_features_extractor)
    return policy.action_net(policy.mlp_extractor.forward_actor(features))


def masked_logits(policy, obs: np.ndarray, masks: np.ndarray) -> torch.Tensor:
    """Action logits of an SB3 actor-critic policy with illegal cards at
    :data:`~training.players.ILLEGAL_LOGIT`."""
    with torch.no_grad():
        x = torch.as_tensor(obs, dtype=torch.float32)
        return mask_logits(policy_logits(policy, x), torch.as_tensor(masks))


class PolicyPlayer(LogitsPlayer):
    """An SB3 actor-critic policy as a player (greedy unless ``temperature`` > 0).
    A policy of the signs variant (58 actions) plays signs itself (``plays_signs``)."""

    def __init__(self, policy, name: str = "policy", temperature: float | None = None,
                 seed: int | None = None):
        super().__init__(name, temperature, seed)
        self.policy = policy
        self.plays_signs = self.signs_only = \
            getattr(getattr(policy, "action_space", None), "n", 0) == NUM_ACTIONS

    @property
    def reads_index_lists(self) -> bool:
        """Its trunk also reads the batched engine's lists of the ones (the same
        logits, without the dense first layer's product): the league's snapshots
        give it those."""
        return not self.plays_signs and isinstance(
            getattr(self.policy, "features_extractor", None), CardTrunk)

    def masked_logits(self, observations: np.ndarray, masks: np.ndarray) -> torch.Tensor:
        return masked_logits(self.policy, observations, masks)
