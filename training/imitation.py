"""Demonstrations for a behaviour-cloning start ("kickstarting"): a rule-based
player's, and the decisions kept in match records (people's games).

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

:func:`record_demonstrations` reads a folder of match records
(:mod:`aluette_env.records`, ``docs/RECORDS.md``) and returns the decisions of
the seats a person played (or of any seats asked for) in the same form:
each decision's observation as the seat saw it, its legal cards, the card
played and the team's deal points from that deal to the end of the match. So
people's games are a data set (``pretrain.records`` in the config).

May import: numpy and :mod:`aluette_env`; never torch or a training library.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterable

import numpy as np

from aluette_env.game import NUM_CARDS, PLAYS_PER_DEAL, team_of
from aluette_env.observation import OBS_SIZE
from aluette_env.observation import encode_observation
from aluette_env.players import Player, act_batch
from aluette_env.records import HUMAN, positions, read_record
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

    @staticmethod
    def concat(parts: list[Demonstrations]) -> Demonstrations:
        return Demonstrations(*(np.concatenate([getattr(p, f) for p in parts]) for f in
                                ("observations", "masks", "actions", "returns")))


def demonstrations(player: Player, samples: int, num_games: int = 1024, num_deals: int = 5,
                   seed: int | None = None, options: dict | None = None) -> Demonstrations:
    """Every decision of ``player`` at all four seats in as many whole matches of
    ``num_deals`` deals, played by ``num_games`` games at once, as give at least
    ``samples`` decisions (whole matches: every position of a match is there).
    ``options`` as :meth:`VectorGame.reset`, for every match (tests fix the hands)."""
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    game = VectorGame(num_games, num_deals=num_deals, seed=seed, auto_reset=False)
    plays_per_match = num_deals * PLAYS_PER_DEAL
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
    returns = team_points[np.arange(n), team_of(seats)]
    return Demonstrations(obs, masks, actions, returns.astype(np.float32))


#: Which seats of a record :func:`record_demonstrations` keeps.
RECORD_SEATS = ("human", "all")


def record_files(source: str | os.PathLike) -> list[Path]:
    """The ``*.json`` records of a folder (sorted), or the one file named
    (each is checked when read: a pipe or a device is refused there)."""
    path = Path(source)
    try:
        if path.is_dir():
            files = sorted(path.glob("*.json"))
            if not files:
                raise ValueError(f"{path}: no match record (*.json) in this folder")
            return files
        if path.exists():
            return [path]
    except OSError as err:
        raise ValueError(f"{str(path)[:200]}: {err.strerror or err}") from None
    raise ValueError(f"{str(path)[:200]}: no such folder or file of match records")


def record_demonstrations(records: str | os.PathLike | Iterable[dict],
                          seats: str = "human") -> Demonstrations:
    """Every decision of the chosen seats in match records: ``records`` is a
    folder (or file) of records, each checked as it is read (a bad one raises
    ValueError naming the file and field), or loaded records. ``seats``:
    ``human`` (the seats a person played) or ``all``."""
    if seats not in RECORD_SEATS:
        raise ValueError(f"seats must be one of {', '.join(RECORD_SEATS)}, got {seats!r}")
    if isinstance(records, (str, os.PathLike)):
        records = [read_record(f) for f in record_files(records)]
    obs, masks, actions, returns = [], [], [], []
    for record in records:
        players = record["players"]
        keep = [s for s in range(4) if seats == "all" or players[f"player_{s}"] == HUMAN]
        # Team 0's points in each deal, then to go from each deal to the match's end.
        team0 = [d["result"]["points"]["team_0"] - d["result"]["points"]["team_1"]
                 for d in record["deals"]]
        to_go = np.cumsum(team0[::-1])[::-1]
        for pos in positions(record):
            if pos.seat not in keep:
                continue
            obs.append(encode_observation(pos.deal, pos.seat))
            mask = np.zeros(NUM_CARDS, np.int8)
            mask[pos.deal.hands[pos.seat]] = 1
            masks.append(mask)
            actions.append(pos.card)
            sign = 1.0 if team_of(pos.seat) == 0 else -1.0
            returns.append(sign * float(to_go[pos.deal_index]))
    if not actions:
        raise ValueError(f"the records hold no decision of the seats asked for ({seats}): "
                         f"use seats='all' for records without a person")
    return Demonstrations(np.array(obs, np.int8).reshape(-1, OBS_SIZE),
                          np.array(masks, np.int8), np.array(actions, np.int64),
                          np.array(returns, np.float32))
