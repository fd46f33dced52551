"""Seats, agents and teams (RULES R1, R6): the one place that names them.

Seats are ints 0-3, clockwise; the PettingZoo agent of seat k is
``player_k``; team of seat s is ``s % 2`` (team 0 = player_0 + player_2).
Standard library only.
"""

from __future__ import annotations

import operator

NUM_SEATS = 4
AGENTS: tuple[str, ...] = tuple(f"player_{i}" for i in range(NUM_SEATS))
TEAMS: tuple[str, ...] = ("team_0", "team_1")
SEAT: dict[str, int] = {a: i for i, a in enumerate(AGENTS)}


def team_of(seat: int) -> int:
    """R1: team 0 = seats 0 and 2, team 1 = seats 1 and 3."""
    return seat & 1


def next_seat(seat: int) -> int:
    """Clockwise neighbour, the player to ``seat``'s left (R1, R6)."""
    return (seat + 1) & 3


def seat_of(player: object) -> int:
    """``"player_2"`` (or the int 2, numpy ints included) -> seat 2; ValueError otherwise."""
    if isinstance(player, str):
        if player in SEAT:
            return SEAT[player]
    elif not isinstance(player, bool):
        try:
            seat = operator.index(player)
        except TypeError:
            seat = -1
        if 0 <= seat < NUM_SEATS:
            return seat
    raise ValueError(f"unknown player {player!r}; players are {list(AGENTS)} (or seats 0-3)")
