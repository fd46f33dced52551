"""The learner's view of Aluette on the batched engine, for any training backend.

Game i has one learner seat (``i % 4``, so the learner plays every position).
The learner only sees its own decisions: after its card, the other three
seats play until the learner is to act again — the partner by the current
policy (or a fixed player), the opposing team by a player drawn per game at
each match start from the :class:`OpponentPool`. Partner and opponent
decisions are batched across all games. The learner's reward is its team's
zero-sum deal points, summed over the plays between two of its decisions; an
episode is one match. Backends wrap :class:`LearnerGames` in their own env
API (``training.sb3.vecenv`` for SB3).

May import: numpy and :mod:`aluette_env`; never torch or a training library.
"""

from __future__ import annotations

import numpy as np

from aluette_env.players import Player, act_batch
from aluette_env.vector import VectorGame

#: Pool entries that are not player specs.
POLICY_ENTRIES = ("latest", "snapshots")


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


class LearnerGames:
    """N self-play games seen from their learner seats (see the module docstring).
    ``pool.latest`` must hold the current policy's player before stepping."""

    def __init__(self, num_games: int, pool: OpponentPool, partner: Player | None = None,
                 num_deals: int = 5, seed: int | None = None):
        self.num_games = num_games
        self.game = VectorGame(num_games, num_deals=num_deals, seed=seed, auto_reset=True)
        self.pool = pool
        self.partner = partner  # None: the current policy
        self.learner_seat = (np.arange(num_games) % 4).astype(np.int8)
        self.partner_seat = (self.learner_seat + 2) % 4
        self.opponent = np.zeros(num_games, np.int64)
        self._rows = np.arange(num_games)
        self._seed = seed

    @property
    def obs(self) -> np.ndarray:
        """[N, OBS_SIZE] the learners' observations (valid after reset/step)."""
        return self.game.obs

    @property
    def mask(self) -> np.ndarray:
        """[N, 48] the learners' legal cards."""
        return self.game.mask

    def reset(self, options: dict | None = None) -> np.ndarray:
        """New matches in every game (``options`` as :meth:`VectorGame.reset`); returns
        the learners' deal points scored before their first decision ([N])."""
        self.game.reset(seed=self._seed, options=options)
        self._seed = None  # later resets continue the stream
        self.opponent[:] = self.pool.draw(self.num_games)
        rewards = np.zeros(self.num_games, np.float32)
        dones = np.zeros(self.num_games, bool)
        self._advance(rewards, dones)
        return rewards

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Play the learners' cards, then everyone else's until each learner is to act
        again. Returns (rewards [N], dones [N]: a match ended, the next one started)."""
        rewards = np.zeros(self.num_games, np.float32)
        dones = np.zeros(self.num_games, bool)
        r, _, match_done = self.game.step(actions)
        self._collect(r, match_done, rewards, dones)
        self._advance(rewards, dones)
        return rewards, dones

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
        actions = np.zeros(self.num_games, np.int64)
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
