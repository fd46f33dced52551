"""The RLModules of the RLlib backend, and a trained module as a player.

:class:`MaskedActorCritic` is the policy that learns. It has the SB3
backend's shape (``network.trunk`` shared by the policy and value heads, then
``network.pi`` / ``network.vf``) and masks the illegal cards in every forward
pass, as RLlib's action-masking example does: the logits get
``clamp(log(mask), FLOAT_MIN)`` added, so a sampled, greedy or trained action
is never an illegal card. :class:`FixedPlayerModule` seats any player spec
(``heuristic``, ``random``, an ONNX file) in RLlib's episodes; it is never
trained. :class:`ModulePlayer` plays a trained module through the player
protocol (evaluation, ``aluette eval``, the games).
"""

from __future__ import annotations

import logging

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN
from torch import nn

from aluette_env.players import act_batch, load_player

from ..players import LogitsPlayer

# RLlib warns of its own deprecated internals whenever a module is built (every
# eval and export of an RLlib run): nothing a user of this project can act on.
logging.getLogger("ray._common.deprecation").setLevel(logging.ERROR)


def _mlp(n_in: int, widths, activation: str) -> tuple[nn.Sequential, int]:
    act = nn.ReLU if activation == "relu" else nn.Tanh
    layers: list[nn.Module] = []
    for w in widths:
        layers += [nn.Linear(n_in, int(w)), act()]
        n_in = int(w)
    return nn.Sequential(*layers), n_in


def module_spec(network, inference_only: bool = False):
    """The learning module's one description: an ``RLModuleSpec`` of
    :class:`MaskedActorCritic` on the env's spaces, with ``network`` (a
    :class:`~training.config.NetworkConfig` or its dict) as its model config.
    The algorithm's learner, the env runners' league snapshots (``inference_only``),
    the evaluation module and a saved policy's loader all build it with ``.build()``."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from .env import ACTION_SPACE, OBSERVATION_SPACE
    config = network if isinstance(network, dict) else network.model_dump()
    return RLModuleSpec(module_class=MaskedActorCritic, model_config=dict(config),
                        observation_space=OBSERVATION_SPACE, action_space=ACTION_SPACE,
                        inference_only=inference_only)


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """``model_config``: ``trunk``, ``pi``, ``vf`` (layer widths), ``activation``.
    Observations are dicts ``{"observation": [N, OBS_SIZE], "action_mask": [N, 48]}``,
    the AEC env's format."""

    def setup(self) -> None:
        cfg = self.model_config
        activation = cfg.get("activation", "relu")
        n_obs = int(self.observation_space["observation"].shape[0])
        self.trunk, n = _mlp(n_obs, cfg.get("trunk", [256]), activation)
        pi, n_pi = _mlp(n, cfg.get("pi", [128]), activation)
        self.pi = nn.Sequential(pi, nn.Linear(n_pi, int(self.action_space.n)))
        if not self.inference_only:  # env runners only need the policy
            vf, n_vf = _mlp(n, cfg.get("vf", [128]), activation)
            self.vf = nn.Sequential(vf, nn.Linear(n_vf, 1))
        # torch's default initialisation, not SB3's (orthogonal, logits gain 0.01):
        # with SB3's, and SB3's Adam eps, RLlib learned slower per sample than SB3 on
        # both seeds measured (docs/RLLIB.md, "Same strength per sample").

    def logits(self, observation: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
        """Masked logits: illegal cards at FLOAT_MIN (about -3.4e38)."""
        return self._masked(self.trunk(observation.float()), action_mask)

    def _masked(self, embeddings: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
        # = logits + clamp(log(mask), FLOAT_MIN), without the log.
        return self.pi(embeddings).masked_fill(action_mask == 0, FLOAT_MIN)

    def _forward(self, batch: dict, **kwargs) -> dict:
        obs = batch[Columns.OBS]
        return {Columns.ACTION_DIST_INPUTS: self.logits(obs["observation"], obs["action_mask"])}

    def _forward_train(self, batch: dict, **kwargs) -> dict:
        obs = batch[Columns.OBS]
        embeddings = self.trunk(obs["observation"].float())
        # The embeddings go back to the learner so the value head reuses the trunk.
        return {Columns.ACTION_DIST_INPUTS: self._masked(embeddings, obs["action_mask"]),
                Columns.EMBEDDINGS: embeddings}

    def compute_values(self, batch: dict, embeddings=None) -> torch.Tensor:
        if embeddings is None:
            embeddings = self.trunk(batch[Columns.OBS]["observation"].float())
        return self.vf(embeddings).squeeze(-1)


class FixedPlayerModule(RLModule):
    """A player spec (``model_config["spec"]``) at a seat; never trained (so not a
    torch module: the learner gives it no optimizer)."""

    def setup(self) -> None:
        self._player = None

    @property
    def player(self):
        if self._player is None:  # loaded where it plays, on the env runner
            self._player = load_player(self.model_config["spec"],
                                       seed=self.model_config.get("seed"))
        return self._player

    def _forward(self, batch: dict, **kwargs) -> dict:
        obs = batch[Columns.OBS]
        observation = np.asarray(_numpy(obs["observation"]), np.int8)
        mask = np.asarray(_numpy(obs["action_mask"]), np.int8)
        return {Columns.ACTIONS: np.asarray(act_batch(self.player, observation, mask), np.int64)}

    def _forward_train(self, batch: dict, **kwargs):
        raise NotImplementedError(f"{self.model_config['spec']} is a fixed player; "
                                  f"it is never trained")

    def get_state(self, *args, **kwargs) -> dict:
        return {}

    def set_state(self, state: dict) -> None:
        pass


def _numpy(x):
    return x.cpu().numpy() if isinstance(x, torch.Tensor) else x


class ModulePlayer(LogitsPlayer):
    """A :class:`MaskedActorCritic` as a player: greedy, or sampled from
    softmax(logits / temperature) when ``temperature`` is set."""

    def __init__(self, module: MaskedActorCritic, name: str = "rllib",
                 temperature: float | None = None, seed: int | None = None):
        super().__init__(name, temperature, seed)
        self.module = module.eval()

    def masked_logits(self, observations: np.ndarray, masks: np.ndarray) -> torch.Tensor:
        return self.module.logits(torch.as_tensor(np.asarray(observations)),
                                  torch.as_tensor(np.asarray(masks)))
