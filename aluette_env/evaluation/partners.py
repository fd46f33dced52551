"""Strength beside a partner: what a candidate adds to whoever sits opposite it.

The game seats a person beside an AI, and a person is not a copy of the AI.
:func:`partner_eval` seats each partner P of a panel at team A's first chair
(``player_0``, the person's seat in the games) and the candidate X at the
second (``player_2``), against a fixed team B, in a duplicate match
(:func:`~aluette_env.evaluation.duplicate.duplicate_eval`), all on the same
deals (one ``seed``). Per partner it reports the team's points per deal with
their 95 % interval and the **lift**: the team's points minus those of the
same partner beside a *reference* player on the same deal pairs, with the
paired 95 % interval of that difference. The reference is the partner itself
(two copies of P: :data:`ITSELF`, the default) or a named player (``ai`` to
compare a candidate with the shipped AI as a partner). It reports the
**minimum** lift (the partner the candidate helps least) and the means.

In Aluette only the individual with the most tricks scores (R13): partners
must agree, without talking, on which of them carries the deal. Each row
therefore also says how team A's tricks split (:class:`Split`): how often
the two partners end level, how often the team loses a deal in which its two
players together won more tricks than the two opponents, who carries (has
more tricks) and whether the carrier held the stronger hand.

=============================  ==============================================
``heuristic``                  the careful rule-based player (version 2)
``heuristic:version=1``        the first rule set
``ai:version=1`` .. ``ai``     shipped policies, oldest to newest
``ai:temperature=2``           the newest policy sampling at temperature 2: a
                               careless partner
``random``                     any legal card
=============================  ==============================================

Bad input (an empty or repeated partner, a reference that is the candidate, a
bad spec) is a ValueError of one line raised before any deal is played.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..game import STRENGTH
from ..players import Player, load_player
from .duplicate import EvalResult, check_deals, duplicate_eval, mean_ci95

#: The default partner panel: rule-based players of both versions, the shipped
#: policies, a careless (high-temperature) policy and a random player.
PARTNERS: tuple[str, ...] = ("heuristic", "heuristic:version=1", "ai:version=1", "ai:version=2",
                             "ai:version=4", "ai", "ai:temperature=2", "random")
#: The reference that is each partner itself (two copies of the partner).
ITSELF = "itself"
#: Team A's chairs: the partner (the person's seat), the candidate.
PARTNER_CHAIR, CANDIDATE_CHAIR = "player_0", "player_2"
#: Seats of (partner, candidate, opponent, opponent) at each duplicate table:
#: team A sits at seats 0/2 of the first table and 1/3 of the second.
_TABLE_SEATS = ((0, 2, 1, 3), (1, 3, 0, 2))
_STRENGTH = np.array(STRENGTH, np.int64)


@dataclass(frozen=True)
class Split:
    """How team A's tricks split between its two players, over every deal of both
    tables (``deals``). Rates are shares of those deals unless said otherwise."""

    deals: int
    #: The team won the deal.
    win_rate: float
    #: The two partners ended with the same number of tricks, at least one each.
    level_rate: float
    #: The team did not win the deal although its two players together won more
    #: tricks than the two opponents: the tricks were split.
    split_loss_rate: float
    #: The team did not win though its best count equalled the winner's (lost on
    #: first to reach, R14).
    tie_loss_rate: float
    #: The partner (P) / the candidate (X) won more tricks than the other.
    partner_carries: float
    candidate_carries: float
    #: Of the deals with a carrier where one partner's hand was stronger (the sum
    #: of its cards' strength levels, R7-R8): the carrier held the stronger hand.
    stronger_carries: float
    #: Of those deals: the candidate held the stronger hand.
    candidate_stronger: float
    #: Of the team's won deals: the share the candidate won.
    candidate_wins: float
    #: Of the candidate's turns while its partner was winning the trick alone: it
    #: played a stronger card (took the trick over) / an equal one (spoiled it, R11).
    candidate_overtakes: float
    candidate_spoils: float
    #: The same for the partner, on the candidate's winning cards.
    partner_overtakes: float
    partner_spoils: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def hand_strength(hands: np.ndarray) -> np.ndarray:
    """The sum of the strength levels (0-18, R7-R8) of each hand's cards ([..., 9] card
    ids -> [...])."""
    return _STRENGTH[np.asarray(hands, np.int64)].sum(axis=-1)


def _on_mates_card(plays: np.ndarray, leaders: np.ndarray, me: int,
                   mate: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per trick ([deals, 9]): ``mate`` was winning the trick alone when ``me``
    played; ``me`` then played a stronger card; an equal one."""
    level = _STRENGTH[plays.astype(np.int64)]  # [deals, 9, 4]
    order = (np.arange(4) - leaders[..., None]) % 4  # each seat's place in the trick
    before = order < order[..., me:me + 1]
    others = before.copy()
    others[..., mate] = False
    best_other = np.where(others, level, -1).max(axis=2)
    winning = before[..., mate] & (level[..., mate] > best_other)
    return (winning, winning & (level[..., me] > level[..., mate]),
            winning & (level[..., me] == level[..., mate]))


def trick_split(result: EvalResult) -> Split:
    """:class:`Split` of a duplicate result whose team A is a partner at
    :data:`PARTNER_CHAIR` and a candidate at :data:`CANDIDATE_CHAIR`."""
    if result.tables is None:
        raise ValueError("the result holds no table records (a duplicate_eval result has them)")
    cols: dict[str, list[np.ndarray]] = {}
    for table, (p, x, o1, o2) in zip(result.tables, _TABLE_SEATS):
        t = table.tricks.astype(np.int64)
        pt, xt, ot = t[:, p], t[:, x], t[:, o1] + t[:, o2]
        won = (table.winner == p) | (table.winner == x)
        sp, sx = hand_strength(table.hands[:, p]), hand_strength(table.hands[:, x])
        rows = {
            "won": won, "level": (pt == xt) & (pt > 0), "split_loss": ~won & (pt + xt > ot),
            "tie_loss": ~won & (table.winner >= 0)
            & (np.maximum(pt, xt) == np.maximum(t[:, o1], t[:, o2])),
            "p_carries": pt > xt, "x_carries": xt > pt,
            "judged": (pt != xt) & (sp != sx), "stronger_carries": (pt > xt) == (sp > sx),
            "x_stronger": sx > sp, "x_wins": won & (table.winner == x),
        }
        for who, me, mate in (("x", x, p), ("p", p, x)):
            turns, over, spoil = _on_mates_card(table.plays, table.leaders, me, mate)
            rows[f"{who}_turns"], rows[f"{who}_over"], rows[f"{who}_spoil"] = \
                turns.ravel(), over.ravel(), spoil.ravel()
        for k, v in rows.items():
            cols.setdefault(k, []).append(v)
    c = {k: np.concatenate(v) for k, v in cols.items()}

    def share(what: np.ndarray, among: np.ndarray | None = None) -> float:
        if among is None:
            return float(what.mean())
        return float(what[among].mean()) if among.any() else 0.0

    return Split(deals=len(c["won"]), win_rate=share(c["won"]), level_rate=share(c["level"]),
                 split_loss_rate=share(c["split_loss"]), tie_loss_rate=share(c["tie_loss"]),
                 partner_carries=share(c["p_carries"]), candidate_carries=share(c["x_carries"]),
                 stronger_carries=share(c["stronger_carries"], c["judged"]),
                 candidate_stronger=share(c["x_stronger"], c["judged"]),
                 candidate_wins=share(c["x_wins"], c["won"]),
                 candidate_overtakes=share(c["x_over"], c["x_turns"]),
                 candidate_spoils=share(c["x_spoil"], c["x_turns"]),
                 partner_overtakes=share(c["p_over"], c["p_turns"]),
                 partner_spoils=share(c["p_spoil"], c["p_turns"]))


@dataclass
class PartnerRow:
    """The candidate beside one partner: the team's result, the reference team's on
    the same deals, and the lift (team minus reference) with its paired interval."""

    partner: str
    result: EvalResult
    reference: EvalResult
    lift: float
    lift_ci95: list[float]
    split: Split
    reference_split: Split

    def to_json(self) -> dict[str, Any]:
        return {"partner": self.partner, "points_per_deal": self.result.points_per_deal,
                "points_per_deal_ci95": list(self.result.points_per_deal_ci95),
                "reference_points_per_deal": self.reference.points_per_deal,
                "lift": self.lift, "lift_ci95": list(self.lift_ci95),
                "split": self.split.to_json(), "reference_split": self.reference_split.to_json()}


@dataclass
class PartnerPanelResult:
    """The candidate beside each partner (``rows``, in the order asked), with the
    partner it lifts least (``minimum``) and the means of the lifts and points."""

    candidate: str
    opponent: str
    reference: str
    deals: int
    seed: int
    rows: dict[str, PartnerRow]

    @property
    def minimum(self) -> PartnerRow:
        return min(self.rows.values(), key=lambda r: r.lift)

    @property
    def mean_lift(self) -> float:
        return float(np.mean([r.lift for r in self.rows.values()]))

    @property
    def mean_points(self) -> float:
        return float(np.mean([r.result.points_per_deal for r in self.rows.values()]))

    def to_json(self) -> dict[str, Any]:
        low = self.minimum
        return {"candidate": self.candidate, "opponent": self.opponent,
                "reference": self.reference, "deals": self.deals, "seed": self.seed,
                "partners": {p: r.to_json() for p, r in self.rows.items()},
                "minimum": {"partner": low.partner, "lift": low.lift,
                            "lift_ci95": list(low.lift_ci95)},
                "mean_lift": self.mean_lift, "mean_points_per_deal": self.mean_points}


def plan_partners(partners: Sequence[str] | None = None, reference: str = ITSELF,
                  candidate: str | Player | None = None) -> list[str]:
    """The partner list (None: :data:`PARTNERS`), checked: ValueError (one line) for
    an empty list, a partner named twice, text that is not a spec, a reference
    that is the candidate itself (its lift is 0 by construction)."""
    if partners is None:
        partners = PARTNERS
    if isinstance(partners, str) or not isinstance(partners, Sequence):
        raise ValueError(f"the partners must be a list of player specs, e.g. "
                         f"{', '.join(PARTNERS[:3])}; got {partners!r}"[:300])
    partners = [p.strip() if isinstance(p, str) else p for p in partners]
    if not partners:
        raise ValueError(f"no partners; name one or more player specs, e.g. "
                         f"{', '.join(PARTNERS)}")
    for p in partners:
        if not isinstance(p, str) or not p:
            raise ValueError(f"a partner must be a non-empty player spec, got {p!r}"[:300])
    twice = next((p for k, p in enumerate(partners) if p in partners[:k]), None)
    if twice is not None:
        raise ValueError(f"partner {twice!r} is named twice; name each partner once"[:300])
    if not isinstance(reference, str) or not reference.strip():
        raise ValueError(f"the reference must be {ITSELF!r} or a player spec, got "
                         f"{reference!r}"[:300])
    if isinstance(candidate, str) and reference == candidate:
        raise ValueError(f"the reference {reference!r} is the candidate itself: every lift "
                         f"would be 0; use {ITSELF!r} or another player"[:300])
    return partners


#: Reference results already played in this process, by (partner, reference,
#: opponent, deals, seed): they do not depend on the candidate, and a training
#: run's evaluations meet the same ones each time.
_REFERENCES: dict[tuple, EvalResult] = {}


def _reference_result(partner: str, reference: str, opponent: str, deals: int, seed: int,
                      jobs: int) -> EvalResult:
    key = (partner, reference, opponent, deals, seed)
    if key not in _REFERENCES:
        mate = partner if reference == ITSELF else reference
        _REFERENCES[key] = duplicate_eval(mate, opponent, deals=deals, seed=seed, jobs=jobs,
                                          seats={PARTNER_CHAIR: partner})
    return _REFERENCES[key]


def partner_eval(candidate: str | Player, partners: Sequence[str] | None = None,
                 opponent: str = "ai", reference: str = ITSELF, deals: int = 2000,
                 seed: int = 0, jobs: int = 1, progress: bool = False) -> PartnerPanelResult:
    """``candidate`` beside each of ``partners`` (default :data:`PARTNERS`) against two
    copies of ``opponent``, over ``deals`` deal pairs of ``seed``; lifts over
    ``reference`` (:data:`ITSELF` or a player spec). ``jobs`` as in
    :func:`~aluette_env.evaluation.duplicate.duplicate_eval`."""
    partners = plan_partners(partners, reference, candidate)
    deals = check_deals(deals)
    for spec in {*partners, opponent, *([] if reference == ITSELF else [reference])}:
        load_player(spec)  # a bad spec fails here, before any deal
    rows: dict[str, PartnerRow] = {}
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(partners), unit="partner", leave=False)
    for partner in partners:
        res = duplicate_eval(candidate, opponent, deals=deals, seed=seed, jobs=jobs,
                             seats={PARTNER_CHAIR: partner})
        ref = _reference_result(partner, reference, opponent, deals, seed, jobs)
        lift, ci = mean_ci95(res.pair_points - ref.pair_points)
        rows[partner] = PartnerRow(partner, res, ref, lift, ci, trick_split(res),
                                   trick_split(ref))
        if bar:
            bar.update()
    if bar:
        bar.close()
    name = candidate if isinstance(candidate, str) else str(getattr(candidate, "name", "player"))
    return PartnerPanelResult(candidate=name, opponent=opponent, reference=reference,
                              deals=deals, seed=int(seed), rows=rows)


def partner_table(res: PartnerPanelResult):
    """A rich Table of a partner panel: a row per partner, then the minimum and the means."""
    from rich.table import Table
    from rich.text import Text
    ref = "the partner itself" if res.reference == ITSELF else res.reference
    title = (f"{res.candidate} (X) beside each partner P against {res.opponent}, "
             f"{res.deals:,} pairs, seed {res.seed}; lift over {ref}")
    t = Table(title=Text(title if title.isprintable() else ascii(title)),
              show_header=True, header_style="bold")
    for name in ("partner (P)", "team points", "reference", "lift", "level", "split losses",
                 "carries P / X", "stronger carries"):
        t.add_column(name, justify="left" if name == "partner (P)" else "right")

    def pm(value: float, ci: list[float]) -> str:
        return f"{value:+.3f} ± {(ci[1] - ci[0]) / 2:.3f}"

    rows = list(res.rows.values())
    for k, r in enumerate(rows):
        s = r.split
        t.add_row(Text(r.partner if r.partner.isprintable() else ascii(r.partner)),
                  pm(r.result.points_per_deal, r.result.points_per_deal_ci95),
                  f"{r.reference.points_per_deal:+.3f}", pm(r.lift, r.lift_ci95),
                  f"{s.level_rate:.3f}", f"{s.split_loss_rate:.3f}",
                  f"{s.partner_carries:.2f} / {s.candidate_carries:.2f}",
                  f"{s.stronger_carries:.3f}", end_section=k == len(rows) - 1)
    low = res.minimum
    t.add_row(Text(f"min: {low.partner}", style="bold"), "", "", pm(low.lift, low.lift_ci95))
    t.add_row(Text("mean", style="bold"), f"{res.mean_points:+.3f}", "",
              f"{res.mean_lift:+.3f}")
    t.caption = ("± : half the 95% interval. level: both partners won the same tricks; split "
                 "losses: deals lost though the two partners won more tricks than the two "
                 "opponents; carries: who won more tricks, the partner P or the candidate X; "
                 "stronger carries: the carrier held the stronger hand")
    return t
