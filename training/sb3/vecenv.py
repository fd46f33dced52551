"""SB3's ``VecEnv`` over the learner columns of :class:`training.rollouts.AllSeatGames`:
the spaces the policy and the rollout buffer are built from; the games play
whole rollouts (:meth:`training.sb3.ppo.AluettePPO.collect_rollouts`)."""

from __future__ import annotations

from typing import Any
from collections.abc import Sequence

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from aluette_env.game import ALUETTE_V1, Variant
from aluette_env.observation import OBS_SIZE

from ..league import OpponentPool
from ..rollouts import AllSeatGames, input_size


def input_space(inputs: str, variant: Variant = ALUETTE_V1) -> spaces.Box:
    """The learner's observation space for ``inputs`` (training.rollouts.INPUTS): the
    0/1 observation of ``variant``'s layout, or the engine's padded index lists
    (the rollout buffer's rows)."""
    if inputs == "dense":
        return spaces.Box(0, 1, (input_size(inputs, variant),), np.int8)
    return spaces.Box(0, OBS_SIZE, (input_size(inputs),), np.int16)


class AllSeatVecEnv(VecEnv):
    """The learner columns of :class:`training.rollouts.AllSeatGames` as SB3 envs.

    SB3 steps every env at once, but a column's next observation only exists
    after the seats before it have played; so this env is not stepped: the
    trainer's ``collect_rollouts`` (``AluettePPO``) has the games play whole
    rollouts and fills the rollout buffer from them."""

    def __init__(self, games: AllSeatGames):
        self.render_mode = None
        actions = games.game.mask.shape[1]  # 48 cards, or with signs 58 actions
        super().__init__(games.num_columns, input_space(games.inputs, games.variant),
                         spaces.Discrete(actions))
        self.games = games

    @property
    def pool(self) -> OpponentPool:
        return self.games.pool

    def reset(self) -> np.ndarray:
        self.games.reset()
        return np.zeros((self.num_envs,) + self.observation_space.shape,
                        self.observation_space.dtype)

    def step_async(self, actions: np.ndarray) -> None:
        raise NotImplementedError("AllSeatVecEnv plays whole rollouts: "
                                  "see AluettePPO.collect_rollouts")

    def step_wait(self):
        raise NotImplementedError("AllSeatVecEnv plays whole rollouts: "
                                  "see AluettePPO.collect_rollouts")

    def action_masks(self) -> np.ndarray:
        return np.ones((self.num_envs, self.action_space.n), bool)

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name)] * len(_indices(self.num_envs, indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(_indices(self.num_envs, indices))

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(_indices(self.num_envs, indices))

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)

    def seed(self, seed: int | None = None) -> Sequence[None]:
        return [None] * self.num_envs


def _indices(n: int, indices) -> list[int]:
    if indices is None:
        return list(range(n))
    if isinstance(indices, int):
        return [indices]
    return list(indices)
