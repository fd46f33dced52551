"""The league's snapshots as one network: every frozen snapshot of the learner
acts for its games in one batched pass a step, not one pass each.

A league game's opposing team is drawn per match from the pool, so at each step
the opponents' rows are spread over up to ``pool_size`` snapshots, a dozen or
two rows each. Played one by one, each snapshot's forward pass cost more in
torch's and SB3's per-call overhead than in arithmetic: profiled over 6 M
samples of ``make train`` with ten snapshots in the pool, the league's
snapshots took 43 s of 180, more than the learner's own forward passes (26 s).

:class:`SnapshotStack` computes the same logits as each snapshot's
:class:`~training.sb3.network.PolicyPlayer`, with the same weights: the first
layer as one gather over a table holding every snapshot's weight and bias
(each row's list shifted into its snapshot's block), the later layers as
batched products of the rows grouped by snapshot (the first layer too, for
dense observations). Each row then samples its card from softmax(logits /
temperature) (Gumbel-max) or takes the greedy one.

May import: numpy, torch, numba (through :mod:`.gather`) and :mod:`aluette_env`.
"""

from __future__ import annotations

import numpy as np
import torch

from aluette_env.observation import ACTIVE_PAD, MAX_ACTIVE, OBS_SIZE

from ..players import mask_logits
from .gather import gather_rows
from .network import CardTrunk, PolicyPlayer

#: Layers the stack computes between the products (each parameterless).
ACTIVATIONS = (torch.nn.ReLU, torch.nn.Tanh)


def actor_path(policy) -> list[torch.nn.Module]:
    """The modules from a policy's input to its logits, in order: the trunk's, the
    policy head's, the action layer."""
    return [*policy.pi_features_extractor.net, *policy.mlp_extractor.policy_net,
            policy.action_net]


def signature(policy) -> tuple | None:
    """What two policies must share to be stacked (each module's kind and
    shape), or None for one the stack cannot compute."""
    if not isinstance(getattr(policy, "pi_features_extractor", None), CardTrunk):
        return None
    path = actor_path(policy)
    first = path[0]
    if not isinstance(first, torch.nn.Linear) or first.in_features != OBS_SIZE:
        return None
    sig = []
    for module in path:
        if isinstance(module, torch.nn.Linear):
            sig.append(("linear", module.in_features, module.out_features,
                        module.bias is not None))
        elif isinstance(module, ACTIVATIONS):
            sig.append((type(module).__name__,))
        else:
            return None
    if sig[-1][0] != "linear":
        return None
    return tuple(sig)


class _Stack:
    """Several policies of one signature, their weights side by side."""

    def __init__(self, policies: list):
        paths = [actor_path(p) for p in policies]
        self.size = len(policies)
        self.block = OBS_SIZE + 1  # each policy's block of the table: its columns, its bias
        self.pad = self.size * self.block  # past every block: the kernel stops there
        with torch.no_grad():
            # [K, in, out] batches of every product, the first one's too (dense inputs)
            self.layers: list = []
            for j, module in enumerate(paths[0]):
                if isinstance(module, torch.nn.Linear):
                    w = torch.stack([path[j].weight.t() for path in paths]).float().contiguous()
                    b = (torch.stack([path[j].bias for path in paths]).float()[:, None, :]
                         if module.bias is not None else torch.zeros(self.size, 1, w.shape[2]))
                    self.layers.append((w, b))
                else:
                    self.layers.append(type(module)())
            w, b = self.layers[0]
            self.table = torch.cat([w, b], 1).reshape(-1, w.shape[2]).contiguous().numpy()

    def _first(self, lists: np.ndarray, which: np.ndarray) -> torch.Tensor:
        """The first layer's pre-activations of index lists: one gather over the
        table, each row's list shifted into its policy's block."""
        idx = lists.astype(np.int64)
        offset = (which * self.block)[:, None]
        shifted = np.where(idx == ACTIVE_PAD, self.pad, idx + offset)
        # The bias row first: the kernel stops at a row's first pad.
        shifted = np.concatenate([offset + OBS_SIZE, shifted], axis=1)
        return torch.from_numpy(gather_rows(shifted, self.table, self.pad))

    def logits(self, inputs: np.ndarray, which: np.ndarray) -> torch.Tensor:
        """[R, actions] unmasked logits of rows ``inputs`` (dense observations, or
        the engine's index lists padded with ACTIVE_PAD), row r by policy
        ``which[r]``."""
        layers = self.layers
        dense = inputs.shape[1] == OBS_SIZE
        h = torch.as_tensor(inputs, dtype=torch.float32) if dense else self._first(inputs, which)
        if not dense:
            layers = layers[1:]
        # Rows grouped by policy, padded to the largest group, for batched products.
        k = torch.from_numpy(which.astype(np.int64))
        counts = torch.bincount(k, minlength=self.size)
        order = torch.argsort(k, stable=True)
        ks = k[order]
        pos = torch.arange(len(k)) - (torch.cumsum(counts, 0) - counts)[ks]
        x = h.new_zeros(self.size, int(counts.max()), h.shape[1])
        x[ks, pos] = h[order]
        for layer in layers:
            x = torch.baddbmm(layer[1], x, layer[0]) if isinstance(layer, tuple) else layer(x)
        logits = torch.empty(len(k), x.shape[-1])
        logits[order] = x[ks, pos]
        return logits


class SnapshotStack:
    """Acts for many frozen :class:`PolicyPlayer` snapshots in one pass (see the
    module docstring). :meth:`accepts` says which players it can stand in for;
    the stack of a set of players is kept until the set changes."""

    def __init__(self, seed: int | None = None):
        self.generator = torch.Generator().manual_seed(0 if seed is None else int(seed))
        self._key: tuple = ()
        self._stacks: dict[tuple, tuple[_Stack, np.ndarray]] = {}

    @staticmethod
    def accepts(player) -> bool:
        """A frozen snapshot of the learner whose logits the stack computes: a
        :class:`PolicyPlayer` of the card trunk (no signs), not in training mode."""
        return (isinstance(player, PolicyPlayer) and not player.plays_signs
                and not player.policy.training and signature(player.policy) is not None)

    def _build(self, players: list) -> None:
        key = tuple(players)  # held, so no other player can take one's id
        if len(key) == len(self._key) and all(a is b for a, b in zip(key, self._key)):
            return
        refused = [p for p in players if not self.accepts(p)]
        if refused:
            raise ValueError(f"the stack plays frozen card-trunk policies, not {refused[0]!r}")
        groups: dict[tuple, list[int]] = {}
        for i, p in enumerate(players):
            groups.setdefault(signature(p.policy), []).append(i)
        self._stacks = {}
        for sig, members in groups.items():
            local = np.full(len(players), -1, np.int64)
            local[members] = np.arange(len(members))
            self._stacks[sig] = (_Stack([players[i].policy for i in members]), local)
        self._key = key

    def masked_logits(self, players: list, which: np.ndarray, inputs: np.ndarray,
                      masks: np.ndarray) -> torch.Tensor:
        """[R, cards] logits of rows ``inputs`` (dense observations [R, OBS_SIZE], or
        the engine's index lists [R, MAX_ACTIVE]), row r by ``players[which[r]]``,
        the illegal cards (``masks`` 0) at ILLEGAL_LOGIT: each player's own
        :meth:`~training.sb3.network.PolicyPlayer.masked_logits`."""
        which = np.asarray(which, np.int64)
        if len(which) != len(inputs) or len(inputs) != len(masks):
            raise ValueError(f"which, inputs and masks need one row each, got {len(which)}, "
                             f"{len(inputs)} and {len(masks)}")
        if inputs.ndim != 2 or inputs.shape[1] not in (OBS_SIZE, MAX_ACTIVE):
            raise ValueError(f"inputs: observations [R, {OBS_SIZE}] or index lists "
                             f"[R, {MAX_ACTIVE}], got shape {inputs.shape}")
        if len(which) and (which.min() < 0 or which.max() >= len(players)):
            raise ValueError(f"which must name players 0..{len(players) - 1}, got values from "
                             f"{which.min()} to {which.max()}")
        self._build(players)
        logits = torch.empty(len(which), masks.shape[1])
        for stack, local in self._stacks.values():
            rows = np.flatnonzero(local[which] >= 0)
            if len(rows) == len(which):
                logits = stack.logits(inputs, local[which])
            elif len(rows):
                logits[torch.from_numpy(rows)] = stack.logits(inputs[rows], local[which[rows]])
        return mask_logits(logits, masks)

    def act(self, players: list, which: np.ndarray, inputs: np.ndarray,
            masks: np.ndarray) -> np.ndarray:
        """Cards of rows ``inputs`` (as :meth:`masked_logits`), each sampled from
        softmax(logits / temperature) of its player by the Gumbel-max rule, or
        the greedy one where that temperature is 0."""
        logits = self.masked_logits(players, which, inputs, masks)
        if len(logits) == 0:
            return np.zeros(0, np.int64)
        each = torch.tensor([p.temperature for p in players])
        temperature = each[torch.from_numpy(np.asarray(which, np.int64))]
        sampled = temperature > 0
        scaled = logits / torch.where(sampled, temperature, 1.0)[:, None]
        u = torch.rand(logits.shape, generator=self.generator).clamp_(min=1e-20)
        return (scaled - torch.log(-torch.log(u)) * sampled[:, None]).argmax(1).numpy()
