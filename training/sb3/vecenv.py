"""SB3's ``VecEnv`` over the learner's view (:class:`training.selfplay.LearnerGames`):
one env per self-play game, ``action_masks()`` for MaskablePPO, episode
statistics in the form SB3's Monitor writes them."""

from __future__ import annotations

import time
from typing import Any
from collections.abc import Sequence

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from aluette_env.game import NUM_CARDS
from aluette_env.observation import OBS_SIZE
from aluette_env.players import Player

from ..selfplay import AllSeatGames, LearnerGames, OpponentPool, input_size


def input_space(inputs: str, signs: bool = False) -> spaces.Box:
    """The learner's observation space for ``inputs`` (training.selfplay.INPUTS): the
    0/1 observation (``signs``: the signs variant's), or the engine's padded index
    lists (the rollout buffer's rows)."""
    if inputs == "dense":
        return spaces.Box(0, 1, (input_size(inputs, signs),), np.int8)
    return spaces.Box(0, OBS_SIZE, (input_size(inputs),), np.int16)


class SelfPlayVecEnv(VecEnv):
    """N self-play games as SB3 envs. The trainer sets ``pool.latest`` to the
    current policy's player before stepping."""

    def __init__(self, num_games: int, pool: OpponentPool, partner: Player | None = None,
                 num_deals: int = 5, seed: int | None = None, inputs: str = "dense"):
        self.render_mode = None
        super().__init__(num_games, input_space(inputs), spaces.Discrete(NUM_CARDS))
        self.games = LearnerGames(num_games, pool, partner, num_deals, seed, inputs)
        self._actions: np.ndarray | None = None
        self._ep_return = np.zeros(num_games, np.float32)
        self._ep_len = np.zeros(num_games, np.int64)
        self._t0 = time.time()
        self._seed = seed

    @property
    def pool(self) -> OpponentPool:
        return self.games.pool

    # -- VecEnv -------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        """New matches in every game. ``set_options({"deals": ..., "first_dealer": ...})``
        beforehand fixes hands as in :meth:`VectorGame.reset` (tests, puzzles)."""
        options = self._options[0] if self._options and self._options[0] else None
        self.games.reset(options)
        self._ep_return[:] = 0
        self._ep_len[:] = 0
        return self.games.learner_inputs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.int64)

    def step_wait(self):
        rewards, dones = self.games.step(self._actions)
        self._ep_len += 1
        self._ep_return += rewards
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i]["episode"] = {"r": float(self._ep_return[i]), "l": int(self._ep_len[i]),
                                   "t": round(time.time() - self._t0, 6)}
            self._ep_return[i] = 0
            self._ep_len[i] = 0
        return self.games.learner_inputs.copy(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        return self.games.mask.astype(bool)

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._indices(indices)]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(self._indices(indices))

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)

    def seed(self, seed: int | None = None) -> Sequence[None]:
        self._seed = seed
        return [None] * self.num_envs

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)


class AllSeatVecEnv(VecEnv):
    """The learner columns of :class:`training.selfplay.AllSeatGames` as SB3 envs.

    SB3 steps every env at once, but a column's next observation only exists
    after the seats before it have played; so this env is not stepped: the
    trainer's ``collect_rollouts`` (``AluettePPO``) has the games play whole
    rollouts and fills the rollout buffer from them."""

    def __init__(self, games: AllSeatGames):
        self.render_mode = None
        actions = games.game.mask.shape[1]  # 48 cards, or with signs 58 actions
        super().__init__(games.num_columns, input_space(games.inputs, games.signs),
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
