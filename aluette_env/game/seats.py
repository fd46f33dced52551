"""Seats, agents and teams (RULES R1, R6): the one place that names them and
does arithmetic on them.

Seats are ints 0-3, clockwise; the PettingZoo agent of seat k is
``player_k``; team of seat s is :func:`team_of` (team 0 = player_0 +
player_2). ``NOBODY`` (-1) stands for "no seat" and "no team" everywhere: a
spoiled trick's winner, a deal nobody won, a drawn match. Every other part
of the package names seats through these functions (the next seat, the seat
at a place in a trick, a seat relative to an observer) instead of computing
them; numba compiles them where compiled code calls them (:mod:`aluette_env._jit`).
Standard library only.
"""

from __future__ import annotations

import operator

NUM_SEATS = 4
AGENTS: tuple[str, ...] = tuple(f"player_{i}" for i in range(NUM_SEATS))
TEAMS: tuple[str, ...] = ("team_0", "team_1")
SEAT: dict[str, int] = {a: i for i, a in enumerate(AGENTS)}


NUM_TEAMS = 2
#: "Nobody": no seat (a spoiled trick, a deal nobody won) and no team (a drawn match).
NOBODY = -1


def team_of(seat: int) -> int:
    """R1: team 0 = seats 0 and 2, team 1 = seats 1 and 3."""
    return seat & 1


def other_team(team: int) -> int:
    """R1: the team that is not ``team``."""
    return 1 - team


def next_seat(seat: int) -> int:
    """Clockwise neighbour, the player to ``seat``'s left (R1, R6)."""
    return (seat + 1) & 3


def seat_at(leader: int, position: int) -> int:
    """The seat that plays the ``position``-th card (0-3) of a trick led by
    ``leader``: play goes clockwise (R9)."""
    return (leader + position) & 3


def relative_seat(seat: int, observer: int) -> int:
    """``seat`` as ``observer`` sees it: 0 itself, 1 the opponent on its left,
    2 its partner, 3 the opponent on its right. With the trick's leader as
    ``observer``: the position (0-3) at which ``seat`` plays in that trick."""
    return (seat - observer) & 3


def partner_of(seat: int) -> int:
    """R1: the seat across the table, on the same team."""
    return (seat + 2) & 3


def opponents_of(seat: int) -> tuple[int, int]:
    """R1: the two seats of the other team, the one on ``seat``'s left (next to
    play) first, then the one on its right."""
    return seat_at(seat, 1), seat_at(seat, 3)


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
