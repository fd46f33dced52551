"""Ratings: every pair of players in a duplicate match (a round robin), rated
with openskill (``aluette ratings``).

Each deal pair is one rated game between the two players (Plackett-Luce);
the rows also keep the points per deal of every pairing.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from .duplicate import duplicate_eval


@dataclass
class Rating:
    """One player's rating and its points per deal against each other player."""

    player: str
    rating: float  # openskill ordinal (mu - 3 sigma)
    mu: float
    sigma: float
    points_per_deal: dict[str, float]  # against each other player


def ratings(players: list[str], deals: int = 1000, seed: int = 0,
            progress: bool = False) -> list[Rating]:
    """Round robin of duplicate matches; rows best first."""
    from openskill.models import PlackettLuce

    if len(players) < 2:
        raise ValueError("a round robin needs at least two players")
    if len(set(players)) != len(players):
        raise ValueError("a round robin names each player once")
    model = PlackettLuce()
    rated = {p: model.rating(name=p) for p in players}
    ppd: dict[tuple[str, str], float] = {}
    for a, b in itertools.combinations(players, 2):
        res = duplicate_eval(a, b, deals=deals, seed=seed, progress=progress)
        ppd[a, b], ppd[b, a] = res.points_per_deal, -res.points_per_deal
        for v in res.pair_points:
            ranks = [0, 0] if v == 0 else ([0, 1] if v > 0 else [1, 0])
            [[ra], [rb]] = model.rate([[rated[a]], [rated[b]]], ranks=ranks)
            rated[a], rated[b] = ra, rb
    order = sorted(players, key=lambda p: -rated[p].ordinal())
    return [Rating(p, rated[p].ordinal(), rated[p].mu, rated[p].sigma,
                   {q: ppd[p, q] for q in order if q != p}) for p in order]
