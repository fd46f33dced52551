"""The learner's view of Aluette as an SB3 ``VecEnv`` on the batched engine.

Game i has one learner seat (``i % 4``, so the learner plays every position).
The learner only sees its own decisions: after its card, the other three
seats play inside ``step_wait`` until the learner is to act again — the
partner by the current policy (or a fixed player), the opposing team by a
player drawn per game at each match start from the opponent pool. Partner
and opponent decisions are batched across all games. The learner's reward is
its team's zero-sum deal points, summed over the plays between two of its
decisions; an episode is one match.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from aluette_env.cards import NUM_CARDS
from aluette_env.observation import OBS_SIZE
from aluette_env.players import Player, act_batch
from aluette_env.vector import VectorGame


class OpponentPool:
    """Weighted choice of the opposing team for each new match.

    ``entries`` maps a name to (weight, player). The name ``latest`` is the
    learner's current policy; ``snapshots`` spreads its weight uniformly over
    the stored past snapshots (or falls back to ``latest`` while there are none).
    """

    def __init__(self, weights: dict[str, float], fixed: dict[str, Player], rng: np.random.Generator):
        self.weights = dict(weights)
        self.fixed = fixed  # spec -> player, for keys other than latest/snapshots
        self.snapshots: list[tuple[str, Player]] = []
        self.rng = rng
        self.latest: Player | None = None

    def players(self) -> list[tuple[str, Player]]:
        """Index -> (name, player) of everything that can be drawn."""
        out = [("latest", self.latest)]
        out += list(self.snapshots)
        out += [(k, p) for k, p in self.fixed.items()]
        return out

    def probabilities(self) -> np.ndarray:
        names = self.players()
        p = np.zeros(len(names))
        latest_w = self.weights.get("latest", 0.0)
        snap_w = self.weights.get("snapshots", 0.0)
        if self.snapshots:
            p[1:1 + len(self.snapshots)] = snap_w / len(self.snapshots)
        else:
            latest_w += snap_w
        p[0] = latest_w
        for k, (name, _) in enumerate(names[1 + len(self.snapshots):], start=1 + len(self.snapshots)):
            p[k] = self.weights.get(name, 0.0)
        return p / p.sum()

    def draw(self, n: int) -> np.ndarray:
        return self.rng.choice(len(self.players()), size=n, p=self.probabilities())


class SelfPlayVecEnv(VecEnv):
    """See the module docstring. ``set_learner(player)`` must be called with
    the current policy's player before stepping (the trainer does it)."""

    def __init__(self, num_games: int, pool: OpponentPool, partner: Player | None = None,
                 num_deals: int = 5, seed: int | None = None):
        obs_space = spaces.Box(0, 1, (OBS_SIZE,), np.int8)
        self.render_mode = None
        super().__init__(num_games, obs_space, spaces.Discrete(NUM_CARDS))
        self.game = VectorGame(num_games, num_deals=num_deals, seed=seed, auto_reset=True)
        self.pool = pool
        self.partner = partner  # None: the current policy
        self.learner_seat = (np.arange(num_games) % 4).astype(np.int8)
        self.partner_seat = (self.learner_seat + 2) % 4
        self.opponent = np.zeros(num_games, np.int64)
        self._actions: np.ndarray | None = None
        self._ep_return = np.zeros(num_games, np.float32)
        self._ep_len = np.zeros(num_games, np.int64)
        self._t0 = time.time()
        self._seed = seed
        self._rows = np.arange(num_games)

    # -- VecEnv -------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        """New matches in every game. ``set_options({"deals": ..., "first_dealer": ...})``
        beforehand fixes hands as in :meth:`VectorGame.reset` (tests, puzzles)."""
        options = self._options[0] if self._options and self._options[0] else None
        self.game.reset(seed=self._seed, options=options)
        self._seed = None  # later resets continue the stream
        self.opponent[:] = self.pool.draw(self.num_envs)
        self._ep_return[:] = 0
        self._ep_len[:] = 0
        rewards = np.zeros(self.num_envs, np.float32)
        dones = np.zeros(self.num_envs, bool)
        self._advance(rewards, dones)
        return self.game.obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.int64)

    def step_wait(self):
        rewards = np.zeros(self.num_envs, np.float32)
        dones = np.zeros(self.num_envs, bool)
        r, _, match_done = self.game.step(self._actions)
        self._collect(r, match_done, rewards, dones)
        self._ep_len += 1
        self._advance(rewards, dones)
        self._ep_return += rewards
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            # Episode statistics in the form SB3's Monitor writes them.
            infos[i]["episode"] = {"r": float(self._ep_return[i]), "l": int(self._ep_len[i]),
                                   "t": round(time.time() - self._t0, 6)}
            self._ep_return[i] = 0
            self._ep_len[i] = 0
        return self.game.obs.copy(), rewards, dones, infos

    def _collect(self, r: np.ndarray, match_done: np.ndarray, rewards: np.ndarray,
                 dones: np.ndarray) -> None:
        rewards += r[self._rows, self.learner_seat]
        if match_done.any():
            ended = np.flatnonzero(match_done)
            dones[ended] = True
            self.opponent[ended] = self.pool.draw(len(ended))

    def _advance(self, rewards: np.ndarray, dones: np.ndarray) -> None:
        """Play the other seats until every game waits for its learner."""
        game = self.game
        actions = np.zeros(self.num_envs, np.int64)
        players = self.pool.players()
        while True:
            waiting = game.to_act != self.learner_seat
            if not waiting.any():
                return
            partner_turn = waiting & (game.to_act == self.partner_seat)
            idx = np.flatnonzero(partner_turn)
            if len(idx):
                p = self.partner if self.partner is not None else self.pool.latest
                actions[idx] = act_batch(p, game.obs[idx], game.mask[idx])
            opp_turn = waiting & ~partner_turn
            if opp_turn.any():
                for k in np.unique(self.opponent[opp_turn]):
                    idx = np.flatnonzero(opp_turn & (self.opponent == k))
                    actions[idx] = act_batch(players[k][1], game.obs[idx], game.mask[idx])
            r, _, match_done = game.step(actions, active=waiting)
            self._collect(r, match_done, rewards, dones)

    def action_masks(self) -> np.ndarray:
        return self.game.mask.astype(bool)

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
