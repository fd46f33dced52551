"""The league: who the learner meets, for every training backend.

:class:`OpponentPool` draws the opponent of each league game at its match start
(fixed players, the learner's past snapshots, ``latest``: the learner itself,
which makes a game self-play), by the config's weights or by prioritised
fictitious self-play over each opponent's recent deal win rate against the
learner (:class:`WinRates`, kept in the run's state as :func:`check_league`
reads it). :class:`PartnerPool` draws the partner of each partner game
(snapshots, fixed players, the policy at a high temperature). The games that
seat them: :mod:`training.rollouts`.

May import: numpy and :mod:`aluette_env`; never torch or a training library.
"""

from __future__ import annotations

import math

import numpy as np

from aluette_env.players import Player

#: Pool entries that are not player specs.
POLICY_ENTRIES = ("latest", "snapshots")


def check_league(table: object) -> dict[str, tuple[float, float]]:
    """A league table as :meth:`WinRates.to_json` writes it, as name -> (wins,
    deals): each row names a league opponent (a player spec or a pool snapshot,
    never one of :data:`POLICY_ENTRIES`, which no league game meets) and holds
    [wins, deals], finite numbers with 0 <= wins <= deals, as :meth:`WinRates.record`
    keeps them. ValueError (one line, naming the first bad row) otherwise."""
    if not isinstance(table, dict):
        raise ValueError(f"must map opponents to [wins, deals], got {type(table).__name__}")
    rows = {}
    for name, row in table.items():
        shown = f"row {str(name)[:60]!r}"
        if not isinstance(name, str) or not name or name in POLICY_ENTRIES:
            raise ValueError(f"{shown}: not a league opponent (a player spec or a pool "
                             f"snapshot, never {' or '.join(POLICY_ENTRIES)})")
        if not (isinstance(row, list) and len(row) == 2 and all(map(_finite, row))):
            raise ValueError(f"{shown} is {str(row)[:60]}: expected [wins, deals], two "
                             f"finite numbers")
        wins, deals = float(row[0]), float(row[1])
        if not 0 <= wins <= deals:
            raise ValueError(f"{shown} is [{wins:g}, {deals:g}]: wins must be from 0 to deals")
        rows[name] = (wins, deals)
    return rows


def _finite(x: object) -> bool:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:  # an int beyond any float
        return False


class WinRates:
    """A moving table of how often each league opponent still beats the learner.

    Per opponent (by name), the deals it played against the learner, the
    oldest fading out: each new deal multiplies the earlier counts by
    ``1 - 1/window``, so the table describes about the last ``window`` deals of
    that opponent. A deal won by the opponent's team counts 1, one that nobody
    won 1/2. An opponent not yet met stands at ``prior`` (1/2: as strong as
    the learner until shown otherwise), with the weight of ``prior_deals``."""

    def __init__(self, window: float = 4000.0, prior: float = 0.5, prior_deals: float = 8.0):
        if not window >= 1:
            raise ValueError(f"window must be at least 1 deal, got {window!r}")
        self.window, self.prior, self.prior_deals = float(window), float(prior), prior_deals
        self.wins: dict[str, float] = {}
        self.deals: dict[str, float] = {}

    def record(self, name: str, opponent_wins: float, deals: int) -> None:
        """``deals`` more deals against ``name``, ``opponent_wins`` of them its own."""
        if deals <= 0:
            return
        keep = (1.0 - 1.0 / self.window) ** deals
        self.wins[name] = self.wins.get(name, 0.0) * keep + float(opponent_wins)
        self.deals[name] = self.deals.get(name, 0.0) * keep + float(deals)

    def rate(self, name: str) -> float:
        """The opponent's deal win rate against the learner (ties count half)."""
        n = self.deals.get(name, 0.0)
        return (self.wins.get(name, 0.0) + self.prior * self.prior_deals) / (n + self.prior_deals)

    def forget(self, keep: set[str]) -> None:
        """Drop the rows of opponents no longer in the pool."""
        for table in (self.wins, self.deals):
            for name in [k for k in table if k not in keep]:
                del table[name]

    def to_json(self) -> dict:
        return {name: [self.wins[name], self.deals[name]] for name in self.deals}

    def load(self, data: dict | None) -> None:
        """Rows written by :meth:`to_json` (a resumed run's table), checked by
        :func:`check_league` (ValueError naming the bad row; nothing is loaded)."""
        for name, (wins, deals) in check_league({} if data is None else data).items():
            self.wins[name], self.deals[name] = wins, deals


class OpponentPool:
    """Weighted choice of the opposing team for each new match.

    ``entries`` maps a name to (weight, player). The name ``latest`` is the
    learner's current policy; ``snapshots`` spreads its weight uniformly over
    the stored past snapshots (or falls back to ``latest`` while there are none).

    With ``pfsp`` (prioritised fictitious self-play: AlphaStar's league,
    Vinyals et al. 2019) each entry other than ``latest`` has its weight
    multiplied by ``q ** exponent``, ``q`` its deal win rate against the learner
    from the moving table :attr:`win_rates`: the opponents that still beat the
    learner are met more, those it has mastered less. The forgetting check
    multiplies by ``boost`` every opponent the learner does not beat by at least
    ``margin`` (its deals won minus lost, as a share of its deals), so an old
    snapshot or a fixed bot it starts to lose to comes back. The entries keep
    their share of the games together: the self-play share does not move.
    """

    def __init__(self, weights: dict[str, float], fixed: dict[str, Player],
                 rng: np.random.Generator, pfsp: dict | None = None):
        self.weights = dict(weights)
        self.fixed = fixed  # spec -> player, for keys other than latest/snapshots
        self.snapshots: list[tuple[str, Player]] = []
        self.rng = rng
        self.latest: Player | None = None
        self.pfsp = dict(pfsp) if pfsp else None
        self.win_rates = WinRates(**({"window": self.pfsp["window"]} if self.pfsp else {}))

    def players(self) -> list[tuple[str, Player]]:
        """Index -> (name, player) of everything that can be drawn."""
        out = [("latest", self.latest)]
        out += list(self.snapshots)
        out += [(k, p) for k, p in self.fixed.items()]
        return out

    def base_weights(self) -> np.ndarray:
        """The configured weight of each entry of :meth:`players` (``snapshots``'
        spread over the pool), before any priority."""
        names = self.players()
        p = np.zeros(len(names))
        latest_w = self.weights.get("latest", 0.0)
        snap_w = self.weights.get("snapshots", 0.0)
        if self.snapshots:
            p[1:1 + len(self.snapshots)] = snap_w / len(self.snapshots)
        else:
            latest_w += snap_w
        p[0] = latest_w
        for k, (name, _) in enumerate(names[1 + len(self.snapshots):],
                                      start=1 + len(self.snapshots)):
            p[k] = self.weights.get(name, 0.0)
        return p

    def priorities(self) -> np.ndarray:
        """Each entry's factor under ``pfsp`` (1 for ``latest``; all 1 without it)."""
        names = self.players()
        f = np.ones(len(names))
        if not self.pfsp:
            return f
        for k, (name, _) in enumerate(names[1:], start=1):
            q = self.win_rates.rate(name)
            f[k] = max(q, 1e-3) ** self.pfsp["exponent"]
            if 1.0 - 2.0 * q < self.pfsp["margin"]:
                f[k] *= self.pfsp["boost"]
        return f

    def probabilities(self) -> np.ndarray:
        p = self.base_weights()
        if self.pfsp:
            league = p[1:].sum()
            q = p[1:] * self.priorities()[1:]
            if q.sum() > 0:
                p[1:] = q * (league / q.sum())
        return p / p.sum()

    def draw(self, n: int) -> np.ndarray:
        return self.rng.choice(len(self.players()), size=n, p=self.probabilities())

    def record(self, names: np.ndarray, learner_points: np.ndarray) -> None:
        """Deals just scored against the opponents ``names`` (one per deal), from the
        learner team's points: into :attr:`win_rates`."""
        for name in np.unique(names):
            pts = learner_points[names == name]
            self.win_rates.record(str(name), float((pts < 0).sum() + 0.5 * (pts == 0).sum()),
                                  len(pts))

    def table(self) -> list[dict]:
        """The league as it stands: each entry other than ``latest`` with its win
        rate against the learner, its priority and its share of league games."""
        names = self.players()
        p, f = self.probabilities(), self.priorities()
        league = p[1:].sum()
        return [{"name": name, "win_rate": self.win_rates.rate(name),
                 "deals": self.win_rates.deals.get(name, 0.0), "priority": float(f[k]),
                 "share": float(p[k] / league) if league > 0 else 0.0}
                for k, (name, _) in enumerate(names) if k > 0]


#: The partner population's entry for the learner's own policy sampled at a high
#: temperature (a careless partner): ``latest:temperature=T``.
CARELESS = "latest:temperature="


def careless_temperature(entry: str) -> float | None:
    """T of a ``latest:temperature=T`` partner entry, None for any other entry;
    ValueError (one line) for a T that is not a number from 0.001 to 100."""
    if not entry.startswith(CARELESS):
        return None
    text = entry[len(CARELESS):]
    try:
        t = float(text)
    except ValueError:
        t = float("nan")
    if not 1e-3 <= t <= 100:
        raise ValueError(f"partner {entry!r}: the temperature must be a number from 0.001 to "
                         f"100, got {text!r}"[:300])
    return t


class PartnerPool:
    """Weighted choice of the learner's partner in partner games, per match.

    ``weights`` maps an entry to its weight: ``snapshots`` (uniform over the
    opponent pool's past snapshots; the other entries while there are none),
    ``latest:temperature=T`` (the current policy sampling at temperature T, set
    in :attr:`careless` by the trainer: a careless partner), or a player spec
    (``heuristic``, ``heuristic:version=1``, ``random``...) whose player is in
    ``fixed``. Partners get the seat's observation as every other player: never
    a hidden card."""

    def __init__(self, weights: dict[str, float], fixed: dict[str, Player],
                 opponents: OpponentPool, rng: np.random.Generator):
        self.weights = dict(weights)
        self.fixed = fixed
        self.opponents = opponents  # its snapshots are the partners' snapshots
        self.careless: dict[str, Player] = {}
        self.rng = rng

    def players(self) -> list[tuple[str, Player]]:
        """Everything that can be drawn now, with its weight's entry resolved."""
        out = [(k, p) for k, p in self.careless.items()]
        out += list(self.opponents.snapshots)
        out += [(k, p) for k, p in self.fixed.items()]
        return out

    def probabilities(self) -> np.ndarray:
        """Each entry of :meth:`players`' chance (the snapshots' weight spread over
        them; while there are none, the other entries share the draw)."""
        snaps = len(self.opponents.snapshots)
        first = len(self.careless)
        p = np.array([self.weights.get("snapshots", 0.0) / snaps if first <= k < first + snaps
                      else self.weights.get(name, 0.0)
                      for k, (name, _) in enumerate(self.players())])
        if p.sum() <= 0:
            raise ValueError("partner games need a partner now: weigh a player spec or "
                             "'latest:temperature=T', not only 'snapshots' before any exists")
        return p / p.sum()

    def draw(self, n: int) -> list[tuple[str, Player]]:
        players = self.players()
        return [players[k] for k in self.rng.choice(len(players), size=n,
                                                    p=self.probabilities())]
