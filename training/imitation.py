"""Demonstrations of a rule-based player, for a behaviour-cloning start ("kickstarting").

:func:`demonstrations` has one player hold all four seats of whole matches on the
batched engine and records every decision: the seat's observation, its legal
cards, the card the player chose and the return that followed (the seat's team
deal points from that decision to the end of the match, the same undiscounted
return PPO's value head learns with ``gamma: 1``). A backend fits its policy
to the cards and its value head to the returns before self-play starts
(``pretrain`` in the config; ``training.sb3.train.pretrain_policy``).

Only a rule-based player may be imitated (``heuristic``): cloning a trained
model would carry its training into the new run and make the time-to-strength
figure meaningless.

May import: numpy and :mod:`aluette_env`; never torch or a training library.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from aluette_env.game import NUM_CARDS
from aluette_env.observation import OBS_SIZE
from aluette_env.players import Player, act_batch
from aluette_env.vector import VectorGame

#: Player names a run may imitate: rule-based players, never a trained one.
RULE_BASED = ("heuristic",)


@dataclass
class Demonstrations:
    """Decisions: observations [n, OBS_SIZE] int8, masks [n, 48] int8,
    actions [n] int64 (the player's cards), returns [n] float32."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray

    def __len__(self) -> int:
        return len(self.actions)


def demonstrations(player: Player, samples: int, num_games: int = 1024, num_deals: int = 5,
                   seed: int | None = None, options: dict | None = None) -> Demonstrations:
    """Every decision of ``player`` at all four seats in as many whole matches of
    ``num_deals`` deals, played by ``num_games`` games at once, as give at least
    ``samples`` decisions (whole matches: every position of a match is there).
    ``options`` as :meth:`VectorGame.reset`, for every match (tests fix the hands)."""
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    game = VectorGame(num_games, num_deals=num_deals, seed=seed, auto_reset=False)
    plays_per_match = num_deals * 36  # every deal is nine tricks of four cards
    matches = -(-samples // (num_games * plays_per_match))
    n = matches * num_games * plays_per_match
    obs = np.empty((n, OBS_SIZE), np.int8)
    masks = np.empty((n, NUM_CARDS), np.int8)
    actions = np.empty(n, np.int64)
    seats = np.empty(n, np.int8)
    team_points = np.empty((n, 2), np.float32)  # per row: points scored at that play
    k = 0
    for _ in range(matches):
        game.reset(options=options)
        start = k
        for _ in range(plays_per_match):
            rows = slice(k, k + num_games)
            obs[rows], masks[rows] = game.obs, game.mask
            seats[rows] = game.to_act
            actions[rows] = act_batch(player, game.obs, game.mask)
            r, _, _ = game.step(actions[rows])
            team_points[rows] = r[:, :2]  # seats 0 and 2 are team 0, 1 and 3 team 1
            k += num_games
        # Returns to go, per game, from the end of the match back (rows are
        # play-major: row start + t * num_games + g).
        points = team_points[start:k].reshape(plays_per_match, num_games, 2)
        to_go = np.cumsum(points[::-1], axis=0)[::-1].reshape(-1, 2)
        team_points[start:k] = to_go
    returns = team_points[np.arange(n), seats % 2]
    return Demonstrations(obs, masks, actions, returns.astype(np.float32))
