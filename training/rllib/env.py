"""Aluette as an RLlib ``MultiAgentEnv``: matches of the batched engine in lockstep.

The training backend does not use it (it samples through :mod:`.runner`, far
faster); it is here for RLlib setups of your own that map each seat to a module.

Every match is exactly ``PLAYS_PER_DEAL * num_deals`` plays long, so ``num_games`` matches
started together also end together: one RLlib episode is ``num_games``
matches played side by side on one :class:`~aluette_env.vector.VectorGame`,
and one env step plays one card in every match (numba, no Python per game in
the engine). Agents are ``"<game>:<seat>"`` (``"7:player_2"``). As in RLlib's
PettingZoo wrapper, a step observes only the seat to act in each match, with
the AEC env's observation dict (``observation``, ``action_mask``); rewards are
the engine's, by seat (team deal points when a deal ends, zero-sum), and
RLlib adds a seat's rewards to its next step. :func:`aec_env` gives the other
choice, one AEC env per episode through RLlib's PettingZoo wrapper.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from aluette_env.game import AGENTS, NUM_CARDS
from aluette_env.observation import OBS_SIZE
from aluette_env.vector import VectorGame

OBSERVATION_SPACE = spaces.Dict({
    "observation": spaces.Box(0, 1, (OBS_SIZE,), np.int8),
    "action_mask": spaces.Box(0, 1, (NUM_CARDS,), np.int8),
})
ACTION_SPACE = spaces.Discrete(NUM_CARDS)


def agent_id(game: int, seat: int) -> str:
    return f"{game}:{AGENTS[seat]}"


def game_and_seat(agent: str) -> tuple[int, int]:
    """``"7:player_2"`` -> (7, 2); an AEC agent ``"player_2"`` is game 0."""
    game, _, seat = agent.rpartition(":")
    return int(game or 0), AGENTS.index(seat)


def env_seed(config) -> int | None:
    """The config's seed, made distinct per env runner and sub-env."""
    seed = config.get("seed")
    if seed is None:
        return None
    return int(seed) + 10_007 * int(getattr(config, "worker_index", 0)) \
        + int(getattr(config, "vector_index", 0))


class LockstepMatches(MultiAgentEnv):
    """See the module docstring. ``config``: ``num_games``, ``num_deals``, ``seed``."""

    def __init__(self, config: dict | None = None):
        config = config if config is not None else {}
        self.num_games = int(config.get("num_games", 64))
        self.num_deals = int(config.get("num_deals", 5))
        self.possible_agents = [agent_id(g, s) for g in range(self.num_games) for s in range(4)]
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: OBSERVATION_SPACE for a in self.possible_agents}
        self.action_spaces = {a: ACTION_SPACE for a in self.possible_agents}
        super().__init__()
        self.game = VectorGame(self.num_games, num_deals=self.num_deals, seed=env_seed(config),
                               auto_reset=False)
        self._ids = np.array(self.possible_agents, dtype=object).reshape(self.num_games, 4)
        self._rows = np.arange(self.num_games)

    def _observe(self) -> dict:
        obs, mask = self.game.obs, self.game.mask
        acting = self._ids[self._rows, self.game.to_act]
        return {a: {"observation": obs[i], "action_mask": mask[i]} for i, a in enumerate(acting)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.game.reset(seed=seed, options=options)
        return self._observe(), {}

    def step(self, action_dict: dict):
        acting = self._ids[self._rows, self.game.to_act]
        actions = np.fromiter((action_dict[a] for a in acting), np.int64, self.num_games)
        points, deal_done, match_done = self.game.step(actions)  # raises on an illegal card
        rewards: dict[str, float] = {}
        for g in np.flatnonzero(deal_done):
            for s in range(4):
                rewards[self._ids[g, s]] = float(points[g, s])
        if match_done.any():
            if not match_done.all():  # every match has PLAYS_PER_DEAL * num_deals plays
                raise RuntimeError("matches of one episode ended at different plays")
            done = dict.fromkeys(self.possible_agents, True)
            done["__all__"] = True
            return {}, rewards, done, {"__all__": False}, {}
        obs = self._observe()
        for a in obs:  # RLlib wants a reward, if only 0, with every observation
            rewards.setdefault(a, 0.0)
        return obs, rewards, {"__all__": False}, {"__all__": False}, {}


def aec_env(config: dict | None = None) -> MultiAgentEnv:
    """One match of the PettingZoo AEC env (unwrapped), wrapped by RLlib's ``PettingZooEnv``."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from aluette_env.aec import raw_env
    config = config if config is not None else {}
    # raw_env, not env(): an illegal card raises instead of ending the match with -1.
    wrapped = PettingZooEnv(raw_env(num_deals=int(config.get("num_deals", 5))))
    seed = env_seed(config)
    if seed is not None:
        wrapped.reset(seed=seed)
    return wrapped
