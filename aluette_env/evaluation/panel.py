"""Strength against a panel: one player against each of a fixed set of opponents.

A figure against one opponent hides what that opponent does not test: a
policy trained against itself can beat its ancestors and lose to a plainer
player. :func:`panel_eval` plays the player (team A) in a duplicate match
(:func:`~aluette_env.evaluation.duplicate.duplicate_eval`) against every
member of :data:`PANEL` on the same deals (one ``seed``), and reports each
member's :class:`~aluette_env.evaluation.duplicate.EvalResult`, the
**minimum** (the member the player does worst against, with its figure and
95 % interval) and the **mean** of the members' points per deal.

========================  ================================================
``heuristic``             the rule-based player (version 2)
``heuristic:version=1``   the first rule-based player
``ai:version=1``          the first shipped policy
``ai:version=2``          the second
``ai:version=4``          the fourth (the expert's guide)
``ai``                    the shipped policy (the latest version)
``pimc:worlds=64``        a search player: plain Perfect Information Monte
                          Carlo over 64 sampled worlds a move, about 5 ms
                          of CPU a move
========================  ================================================

``members`` picks a subset (in any order; results come in :data:`PANEL`'s
order). The search member is a thousand times slower than the others, so
``deals_for={"pimc:worlds=64": 200}`` caps its pairs: a member given fewer
pairs than ``deals`` plays the first hands of the same seed (its five-deal
matches' first dealers, drawn after all the hands, differ), and the result
says so (:attr:`PanelResult.fewer_pairs`, ``"fewer_pairs"`` in the JSON, a
note under the table). The mean weighs every member alike, whatever its pairs.

A member that is the player itself (the same spec, or the same model file:
``ai`` is ``ai:version=7``) is left out: a mirror match scores 0 whatever
the player (:attr:`PanelResult.itself`, :func:`members_itself`).

Bad input (an unknown member, an empty panel, a member named twice, a pair
count out of range, a panel of only the player itself) is a ValueError of one
line naming the value and what is allowed, raised before any deal is played
(:func:`plan_panel`, :func:`members_itself`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..players import Player
from .duplicate import EvalResult, check_deals, duplicate_eval

#: The panel: two rule-based players, four generations of the shipped policy,
#: one search player.
PANEL: tuple[str, ...] = ("heuristic", "heuristic:version=1", "ai:version=1", "ai:version=2",
                          "ai:version=4", "ai", "pimc:worlds=64")


def plan_panel(members: Sequence[str] | None = None, deals: int = 2000,
               deals_for: Mapping[str, int] | None = None) -> dict[str, int]:
    """The deal pairs of each member, in :data:`PANEL`'s order: ``deals``, or at
    most ``deals_for[member]``. ``members``: a subset of the panel (None: all of
    it). ValueError (one line) for an unknown member, an empty panel, a member
    named twice, a ``deals_for`` entry for a member not in it, a count out of range."""
    allowed = ", ".join(PANEL)
    if members is None:
        members = PANEL
    if isinstance(members, str) or not isinstance(members, Sequence):
        raise ValueError(f"the panel members must be a list of player specs from: {allowed}; "
                         f"got {members!r}"[:300])
    if not members:
        raise ValueError(f"an empty panel; name one or more of: {allowed}")
    for member in members:
        if member not in PANEL:
            raise ValueError(f"unknown panel member {member!r}; the panel: {allowed}"[:300])
    twice = next((m for k, m in enumerate(members) if m in members[:k]), None)
    if twice is not None:
        raise ValueError(f"panel member {twice!r} is named twice; name each member once")
    deals = check_deals(deals)
    if deals_for is None:
        deals_for = {}
    if not isinstance(deals_for, Mapping):
        raise ValueError(f"the pairs per member must be a mapping of panel member -> deal "
                         f"pairs, e.g. {{'pimc:worlds=64': 200}}; got {deals_for!r}"[:300])
    for member, pairs in deals_for.items():
        if member not in members:
            raise ValueError(f"deal pairs for {member!r}, which is not in this panel; its "
                             f"members: {', '.join(members)}"[:300])
        check_deals(pairs, f"the deal pairs for {member}")
    return {m: min(deals, int(deals_for.get(m, deals))) for m in PANEL if m in members}


@dataclass(frozen=True)
class PanelMinimum:
    """The member the player does worst against, by points per deal."""

    member: str
    points_per_deal: float
    points_per_deal_ci95: list[float]

    def to_json(self) -> dict[str, Any]:
        return {"member": self.member, "points_per_deal": self.points_per_deal,
                "points_per_deal_ci95": list(self.points_per_deal_ci95)}


@dataclass
class PanelResult:
    """The player against each member: ``results`` (by member, in :data:`PANEL`'s
    order), the ``minimum`` and the ``mean`` of their points per deal."""

    player: str
    deals: int
    seed: int
    results: dict[str, EvalResult]
    minimum: PanelMinimum
    mean: float
    #: Members left out because they are the player itself.
    itself: list[str] = field(default_factory=list)

    @property
    def fewer_pairs(self) -> dict[str, int]:
        """The members that played fewer pairs than ``deals``, with their pairs."""
        return {m: r.deals for m, r in self.results.items() if r.deals < self.deals}

    def to_json(self) -> dict[str, Any]:
        """``player``, ``deals``, ``seed``, ``members`` (each member's
        ``EvalResult.to_json()``), ``minimum``, ``mean`` and ``fewer_pairs``."""
        return {"player": self.player, "deals": self.deals, "seed": self.seed,
                "members": {m: r.to_json() for m, r in self.results.items()},
                "minimum": self.minimum.to_json(), "mean": self.mean,
                "fewer_pairs": self.fewer_pairs, "itself": list(self.itself)}


def panel_eval(player: str | Player, members: Sequence[str] | None = None, deals: int = 2000,
               seed: int = 0, deals_for: Mapping[str, int] | None = None, jobs: int = 1,
               progress: bool = False) -> PanelResult:
    """``player`` (a spec or a player object) against each of ``members`` (default
    the whole :data:`PANEL`) over ``deals`` deal pairs of ``seed``, a member of
    ``deals_for`` over at most that many; ``jobs`` and ``progress`` as in
    :func:`~aluette_env.evaluation.duplicate.duplicate_eval`, which plays each match."""
    plan = plan_panel(members, deals, deals_for)
    # Pairs for a member that is the player are not refused here: a training config's
    # pairs for a member stand whatever the policy it evaluates (the command refuses them).
    itself = members_itself(player, plan)
    for member in itself:  # a mirror match scores 0 by construction: it says nothing
        del plan[member]
    results = {member: duplicate_eval(player, member, deals=pairs, seed=seed, jobs=jobs,
                                      progress=progress)
               for member, pairs in plan.items()}
    worst = min(results, key=lambda m: results[m].points_per_deal)
    low = results[worst]
    return PanelResult(
        player=low.team_a, deals=int(deals), seed=int(seed), results=results,
        minimum=PanelMinimum(worst, low.points_per_deal, list(low.points_per_deal_ci95)),
        mean=float(np.mean([r.points_per_deal for r in results.values()])), itself=itself)


def members_itself(player: str | Player, plan: Mapping[str, int],
                   deals_for: Mapping[str, int] | None = None) -> list[str]:
    """The members of ``plan`` (:func:`plan_panel`'s) that are ``player`` itself,
    which the panel leaves out. ValueError (one line) when they are the whole
    panel, or when ``deals_for`` (given) names one of them, as ``aluette eval
    --member-deals`` would: pairs for a member that will not play."""
    itself = [m for m in plan if _same_player(player, m)]
    if len(itself) == len(plan):
        raise ValueError(f"the panel ({', '.join(plan)}) holds only the player itself, which "
                         f"is left out (a mirror match scores 0); name other members"[:300])
    capped = next((m for m in itself if m in (deals_for or {})), None)
    if capped is not None:
        raise ValueError(f"deal pairs for {capped!r}, which is the player itself and left "
                         f"out of the panel (a mirror match scores 0)"[:300])
    return itself


def _same_player(player: str | Player, member: str) -> bool:
    """``player`` is the panel member ``member`` (the same spec, or the same model
    file: ``ai`` and ``ai:version=7``)."""
    if isinstance(player, str) and player == member:
        return True
    from ..players import load_player
    try:
        mine = player if isinstance(player, Player) else load_player(player)
    except ValueError:
        return False  # duplicate_eval says what is wrong with the spec
    if getattr(mine, "name", None) == member:
        return True
    path = getattr(mine, "path", None)
    return path is not None and member.startswith("ai") and \
        str(getattr(load_player(member), "path", "")) == str(path)


def panel_table(res: PanelResult):
    """A rich Table of a panel evaluation: a row per member, then the minimum and the mean."""
    from rich.table import Table
    from rich.text import Text
    title = f"Panel: {res.player} (A) against {len(res.results)} members, seed {res.seed}"
    t = Table(title=Text(title if title.isprintable() else ascii(title)),
              show_header=True, header_style="bold")
    t.add_column("member (B)", no_wrap=True)
    t.add_column("points per deal (A − B)", justify="right")
    t.add_column("95% CI", justify="right", no_wrap=True)
    t.add_column("deal win rate", justify="right")
    t.add_column("pairs", justify="right", no_wrap=True)
    fewer = res.fewer_pairs

    def cells(r: EvalResult) -> list[str]:
        lo, hi = r.points_per_deal_ci95
        return [f"{r.points_per_deal:+.4f}", f"[{lo:+.4f}, {hi:+.4f}]",
                f"{r.deal_win_rate:.3f}", f"{r.deals:,}" + (" *" if r.team_b in fewer else "")]

    members = list(res.results.items())
    for k, (member, r) in enumerate(members):
        t.add_row(member, *cells(r), end_section=k == len(members) - 1)
    t.add_row(Text(f"min: {res.minimum.member}", style="bold"),
              *cells(res.results[res.minimum.member]))
    t.add_row(Text("mean", style="bold"), f"{res.mean:+.4f}", "",
              f"{np.mean([r.deal_win_rate for _, r in members]):.3f}", "")
    notes = []
    if fewer:
        notes.append(f"* fewer pairs than the panel's {res.deals:,}: "
                     + ", ".join(f"{m} {n:,}" for m, n in fewer.items()))
    if res.itself:
        notes.append(f"left out, the player itself: {', '.join(res.itself)}")
    if notes:
        t.caption = "\n".join(notes)
    return t
