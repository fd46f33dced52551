"""A league: every pair of players in a duplicate match, rated with openskill.

Each deal pair is one rated game between the two players (Plackett-Luce);
the table also keeps the points per deal of every pairing.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from .duplicate import duplicate_eval


@dataclass
class LeagueRow:
    player: str
    rating: float  # openskill ordinal (mu - 3 sigma)
    mu: float
    sigma: float
    points_per_deal: dict[str, float]  # against each other player


def league(players: list[str], deals: int = 1000, seed: int = 0,
           progress: bool = False) -> list[LeagueRow]:
    """Round robin of duplicate matches; rows best first."""
    from openskill.models import PlackettLuce

    if len(players) < 2:
        raise ValueError("a league needs at least two players")
    if len(set(players)) != len(players):
        raise ValueError("a league names each player once")
    model = PlackettLuce()
    ratings = {p: model.rating(name=p) for p in players}
    ppd: dict[tuple[str, str], float] = {}
    for a, b in itertools.combinations(players, 2):
        res = duplicate_eval(a, b, deals=deals, seed=seed, progress=progress)
        ppd[a, b], ppd[b, a] = res.points_per_deal, -res.points_per_deal
        for v in res.pair_points:
            ranks = [0, 0] if v == 0 else ([0, 1] if v > 0 else [1, 0])
            [[ra], [rb]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
            ratings[a], ratings[b] = ra, rb
    order = sorted(players, key=lambda p: -ratings[p].ordinal())
    return [LeagueRow(p, ratings[p].ordinal(), ratings[p].mu, ratings[p].sigma,
                      {q: ppd[p, q] for q in order if q != p}) for p in order]
