"""Who sits at the four seats of each match: RLlib's agent-to-module mapping.

Modules: ``learner`` (the policy that trains), ``snapshot_0..P-1`` (past
copies of it, P = ``selfplay.pool_size``) and ``fixed_0..`` (the player specs
named in ``selfplay.opponents`` / ``selfplay.partner``). For each match, one
seed drawn from the episode id and the game index picks the learner's seat
and, by the weights of :class:`training.selfplay.OpponentPool` (``latest``,
``snapshots`` spread over the filled snapshot slots, fixed players), the
module of the opposing team; the partner is ``learner`` (``partner: latest``)
or its fixed player. Every seat that the ``learner`` module plays is trained,
so a match against ``latest`` trains on all four seats.
"""

from __future__ import annotations

import zlib

import numpy as np

from ..config import TrainConfig
from ..selfplay import POLICY_ENTRIES, OpponentPool
from .env import game_and_seat

LEARNER = "learner"


def snapshot_modules(cfg: TrainConfig) -> list[str]:
    return [f"snapshot_{k}" for k in range(cfg.selfplay.pool_size)]


def fixed_modules(cfg: TrainConfig) -> dict[str, str]:
    """Player spec -> module id, for every fixed player of the config."""
    specs = [s for s in cfg.selfplay.opponents if s not in POLICY_ENTRIES]
    if cfg.selfplay.partner != "latest" and cfg.selfplay.partner not in specs:
        specs.append(cfg.selfplay.partner)
    return {spec: f"fixed_{k}" for k, spec in enumerate(specs)}


class Seating:
    """The ``policy_mapping_fn``: picklable, the same answer for every seat of a match."""

    def __init__(self, cfg: TrainConfig, filled_snapshots: list[str]):
        fixed = fixed_modules(cfg)
        pool = OpponentPool(cfg.selfplay.opponents, {s: None for s in fixed if
                                                     s in cfg.selfplay.opponents},
                            np.random.default_rng(0))
        pool.snapshots = [(name, None) for name in filled_snapshots]
        names = [name for name, _ in pool.players()]
        self.modules = [LEARNER if n == "latest" else fixed.get(n, n) for n in names]
        self.probabilities = pool.probabilities()
        self.partner = LEARNER if cfg.selfplay.partner == "latest" else fixed[cfg.selfplay.partner]
        self.seed = cfg.seed

    def match(self, episode_id: str, game: int) -> tuple[int, str]:
        """(learner's seat, opposing module) of one match."""
        rng = np.random.default_rng([self.seed, zlib.crc32(str(episode_id).encode()), game])
        seat = int(rng.integers(4))
        opponent = self.modules[int(rng.choice(len(self.modules), p=self.probabilities))]
        return seat, opponent

    def __call__(self, agent_id: str, episode, **kwargs) -> str:
        game, seat = game_and_seat(agent_id)
        learner_seat, opponent = self.match(episode.id_, game)
        if seat == learner_seat:
            return LEARNER
        if seat == (learner_seat + 2) % 4:
            return self.partner
        return opponent
