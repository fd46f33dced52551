"""Duplicate evaluation: is team A stronger than team B, with a confidence interval.

Card games are dominated by the luck of the deal, so every deal is played
twice with the same hands in the same seats and the same first dealer: team
A at player_0/player_2 on the first table, at player_1/player_3 on the
second. Each side plays each hand once; the deal-pair difference cancels most
of the luck. Deals run as consecutive five-deal matches (R2) on the batched
engine, each seat's decisions for all games batched per step.

The deals are played in ``variant`` (an :class:`aluette_env.game.Variant`, by
default the default game). In the signs variant (``variant=ALUETTE_SIGNS_V0``;
docs/RULES.md S1-S5) both tables have the same catches: who
catches each sign is drawn from the seed per deal, trick, signer and watcher
seat (with the variant's chances), so a seat's luck in catching is the same
whichever team sits there. Players that do not play signs sit silent
(:func:`~aluette_env.players.for_signs`).

Seat overrides make mixed teams: ``{"player_2": "random"}`` puts ``random``
in team A's second chair (player_2 on the first table, player_3 on the
second); ``player_1`` / ``player_3`` are team B's chairs in the same way.

``jobs`` > 1 plays the two tables' matches in that many worker processes
(slices of whole matches, each chair's player built from its spec with the
same seed as in one process): for players whose move depends only on the
position (``ai``, ``heuristic``, and ``expert`` and ``pimc`` without a
``max_seconds`` budget) the result is the same as with one process; a player
that draws at random (``random``, a sampling temperature) draws other cards.
Search players are worth it: an ``expert`` evaluation takes about 1/``jobs`` of
the time on free cores. The workers are spawned, so a script that calls it
needs the usual ``if __name__ == "__main__":`` guard.
"""

from __future__ import annotations

import math
import time
from concurrent.futures import as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

import numpy as np

from .._workers import spawn_pool, stop_pool
from ..game import (
    ALUETTE_SIGNS_V0, ALUETTE_V1, DEFAULT_NUM_DEALS, HAND_SIZE, NOBODY, NUM_CARDS, NUM_SEATS,
    NUM_TRICKS, PLAYS_PER_DEAL, Variant, team_of, variant_of, winning_team,
)
from ..players import Player, act_batch, for_signs, load_player
from ..vector import VectorGame, kernel_widths

Z95 = 1.959963984540054
#: Most deal pairs one evaluation may play (each pair is two deals of four hands
#: kept in memory; a million take a few hundred MB and hours of play). The
#: command line's bound, ``aluette_env.commands.MAX_EVAL_DEALS``, is the same.
MAX_DEALS = 1_000_000
SEATS = ("player_0", "player_1", "player_2", "player_3")


@dataclass
class EvalResult:
    """Team A relative to team B. ``to_json()`` gives exactly the documented keys."""

    team_a: str
    team_b: str
    deals: int
    seed: int
    points_per_deal: float
    points_per_deal_ci95: list[float]
    deal_win_rate: float
    match_win_rate: float
    match_draw_rate: float
    match_loss_rate: float
    mordienne_rate: float
    spoiled_rate: float
    # Extra detail for the terminal table, not in the JSON.
    matches: int = 0
    match_win_rate_ci95: list[float] = field(default_factory=lambda: [0.0, 0.0])
    deal_loss_rate: float = 0.0
    opponent_mordienne_rate: float = 0.0
    wall_time_s: float = 0.0
    pair_points: np.ndarray | None = field(default=None, repr=False)
    #: The two tables' records (team A at seats 0/2 of the first, 1/3 of the second).
    tables: tuple[TableRecord, TableRecord] | None = field(default=None, repr=False)

    JSON_KEYS = ("team_a", "team_b", "deals", "seed", "points_per_deal", "points_per_deal_ci95",
                 "deal_win_rate", "match_win_rate", "match_draw_rate", "match_loss_rate",
                 "mordienne_rate", "spoiled_rate")

    def to_json(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v := getattr(self, k), list) else v)
                for k in self.JSON_KEYS}


def mean_ci95(values: np.ndarray) -> tuple[float, list[float]]:
    """Mean and normal-approximation 95 % interval of the mean."""
    n = len(values)
    mean = float(values.mean()) if n else 0.0
    if n < 2:
        return mean, [mean, mean]
    half = Z95 * float(values.std(ddof=1)) / math.sqrt(n)
    return mean, [mean - half, mean + half]


def wilson_ci95(successes: int, n: int) -> list[float]:
    if n == 0:
        return [0.0, 1.0]
    p = successes / n
    denom = 1 + Z95 ** 2 / n
    centre = (p + Z95 ** 2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / denom
    return [max(0.0, centre - half), min(1.0, centre + half)]


def evaluation_deals(num_deals: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The hands ([num_deals, 4, 9]) and, per five-deal match, the first dealer,
    drawn from ``seed``: the same for every evaluation with this seed."""
    rng = np.random.default_rng(seed)
    decks = rng.random((num_deals, 48)).argsort(axis=1)
    dealt = decks[:, :NUM_SEATS * HAND_SIZE].reshape(num_deals, NUM_SEATS, HAND_SIZE)
    hands = np.sort(dealt, axis=2).astype(np.int8)
    n_matches = -(-num_deals // DEFAULT_NUM_DEALS)
    dealers = rng.integers(0, NUM_SEATS, n_matches).astype(np.int8)
    return hands, dealers


def evaluation_catches(num_deals: int, seed: int, variant: Variant | float) -> np.ndarray:
    """The signs variant's catches of an evaluation (S4): [num_deals, 9, 4, 4]
    0/1 by trick, signer and watcher, drawn from ``seed`` in a stream of their
    own (the deals of the seed stay those of :func:`evaluation_deals`), each
    watcher with the variant's chance of catching the signer (0: it does not
    catch it); a float ``variant``: the signs variant with that ``catch``."""
    if not isinstance(variant, Variant):
        variant = ALUETTE_SIGNS_V0.with_catch(variant)
    chance = np.zeros((NUM_SEATS, NUM_SEATS))
    for signer in range(NUM_SEATS):
        for seat, p in variant.catchers(signer):
            chance[signer, seat] = p
    rng = np.random.default_rng([seed, 4])
    return (rng.random((num_deals, NUM_TRICKS, NUM_SEATS, NUM_SEATS)) < chance).astype(np.int8)


@dataclass
class TableRecord:
    """Per deal of one table: team points, winner seat, Mordienne, spoiled tricks,
    each seat's tricks."""

    points: np.ndarray  # [deals, 2] by team (team 0 = seats 0/2 of this table)
    winner: np.ndarray  # [deals] seat or -1
    mordienne: np.ndarray  # [deals]
    spoiled: np.ndarray  # [deals] spoiled tricks
    hands: np.ndarray  # [deals, 4, 9] as played
    tricks: np.ndarray  # [deals, 4] tricks won by each seat
    plays: np.ndarray  # [deals, 9, 4] card played by each seat in each trick
    leaders: np.ndarray  # [deals, 9] seat that led each trick

    #: The per-deal results (``hands`` are the table's input).
    RESULTS = ("points", "winner", "mordienne", "spoiled", "tricks", "plays", "leaders")

    @classmethod
    def empty(cls, hands: np.ndarray) -> TableRecord:
        """The record of a table about to play ``hands``, no deal played yet."""
        n = len(hands)
        return cls(np.zeros((n, 2), np.int64), np.full(n, -1), np.zeros(n, bool),
                   np.zeros(n, np.int64), hands.copy(), np.zeros((n, NUM_SEATS), np.int8),
                   np.full((n, NUM_TRICKS, NUM_SEATS), -1, np.int8),
                   np.full((n, NUM_TRICKS), -1, np.int8))

    def put(self, first: int, part: TableRecord) -> None:
        """Copy ``part``, the record of deals ``first``.. of this table, into place."""
        for name in self.RESULTS:
            getattr(self, name)[first:first + len(part.hands)] = getattr(part, name)


def play_table(seat_players: list[Player], hands: np.ndarray, dealers: np.ndarray,
               progress: Callable[[int], None] | None = None,
               chunk: int = 4096, catches: np.ndarray | None = None,
               variant: Variant | None = None) -> TableRecord:
    """Play the deals as consecutive five-deal matches with ``seat_players[s]``
    in seat s; records every deal. ``variant``: the game (by default the signs
    variant with ``catches``, [deals, 9, 4, 4], else the default game)."""
    num_deals = len(hands)
    if variant is None:
        variant = ALUETTE_V1 if catches is None else ALUETTE_SIGNS_V0
    signs = variant.signs
    if signs:
        seat_players = [for_signs(p) for p in seat_players]
    for p in seat_players:
        if not signs and getattr(p, "signs_only", False):
            raise ValueError(f"{getattr(p, 'name', p)} is a policy of the signs variant: it "
                             f"plays only at a table with signs (signs=True)"[:300])
    steps_per_deal = PLAYS_PER_DEAL * (2 if signs else 1)
    rec = TableRecord.empty(hands)
    full, rest = divmod(num_deals, DEFAULT_NUM_DEALS)
    groups = [(DEFAULT_NUM_DEALS, m0, min(chunk, full - m0)) for m0 in range(0, full, chunk)]
    if rest:
        groups.append((rest, full, 1))
    for per_match, m0, n_matches in groups:
        first = m0 * DEFAULT_NUM_DEALS
        block = hands[first:first + n_matches * per_match].reshape(n_matches, per_match, 4, 9)
        game = VectorGame(n_matches, num_deals=per_match, auto_reset=False, variant=variant)
        options = {"deals": block, "first_dealer": dealers[m0:m0 + n_matches]}
        if signs:
            options["catches"] = catches[first:first + n_matches * per_match].reshape(
                (n_matches, per_match) + catches.shape[1:])
        game.reset(options=options)
        for p in seat_players:
            if hasattr(p, "reset"):
                p.reset()
        actions = np.zeros(n_matches, np.int64)
        games = np.arange(n_matches)
        for _ in range(steps_per_deal * per_match):
            for s in range(NUM_SEATS):
                idx = np.flatnonzero(game.to_act == s)
                if len(idx):
                    actions[idx] = act_batch(seat_players[s], game.obs[idx], game.mask[idx])
            st = game.state
            cards = actions < NUM_CARDS  # with signs, half the steps make a sign
            if cards.any():
                g = games[cards]
                d = first + g * per_match + st["deal_index"][g]
                t = st["trick_index"][g]
                rec.plays[d, t, st["to_act"][g]] = actions[g]
                lead = st["n_in_trick"][g] == 0
                rec.leaders[d[lead], t[lead]] = st["to_act"][g][lead]
            _, deal_done, _ = game.step(actions)
            res = game.results
            for g in np.flatnonzero(deal_done):
                d = first + g * per_match + int(res.deal[g])
                rec.points[d] = res.points[g]
                rec.winner[d] = res.winner[g]
                rec.mordienne[d] = res.mordienne[g]
                rec.spoiled[d] = int((res.winners[g] == NOBODY).sum())
                rec.tricks[d] = res.counts[g]
        if progress:
            progress(n_matches * per_match)
    return rec


class WorkerDied(RuntimeError):
    """A worker process of ``duplicate_eval(jobs=N)`` ended without its result."""


#: Players a worker process has built, by (spec, seed): built once per process.
_WORKER_PLAYERS: dict[tuple[str, int], Player] = {}


def _play_slice(chairs: list[tuple[str, int]], hands: np.ndarray,
                dealers: np.ndarray, catches: np.ndarray | None = None,
                variant: Variant | None = None) -> TableRecord:
    """A worker's share of a table: whole matches, each seat's player from its spec."""
    players = []
    for spec, player_seed in chairs:
        key = (spec, player_seed)
        if key not in _WORKER_PLAYERS:
            _WORKER_PLAYERS[key] = load_player(spec, seed=player_seed)
        players.append(_WORKER_PLAYERS[key])
    return play_table(players, hands, dealers, catches=catches, variant=variant)


def _play_tables_in_processes(tables: list[list[tuple[str, int]]], hands: np.ndarray,
                              dealers: np.ndarray, jobs: int,
                              tick: Callable[[int], None] | None,
                              catches: np.ndarray | None = None,
                              variant: Variant | None = None) -> list[TableRecord]:
    """Each table's deals split into slices of whole matches, played by ``jobs``
    processes and put back together in order."""
    num_deals = len(hands)
    n_matches = -(-num_deals // DEFAULT_NUM_DEALS)
    per_slice = max(1, -(-n_matches // jobs))
    bounds = [(m0, min(m0 + per_slice, n_matches)) for m0 in range(0, n_matches, per_slice)]
    records = [TableRecord.empty(hands) for _ in tables]
    # Spawned workers that end with this process, even when it is killed.
    pool = spawn_pool(jobs)
    try:
        futures = {}
        for t, chairs in enumerate(tables):
            for m0, m1 in bounds:
                d0, d1 = m0 * DEFAULT_NUM_DEALS, min(m1 * DEFAULT_NUM_DEALS, num_deals)
                job = pool.submit(_play_slice, chairs, hands[d0:d1], dealers[m0:m1],
                                  None if catches is None else catches[d0:d1], variant)
                futures[job] = (t, d0, d1)
        for job in as_completed(futures):
            t, d0, d1 = futures[job]
            records[t].put(d0, job.result())
            if tick:
                tick(d1 - d0)
    except BrokenProcessPool:
        stop_pool(pool)
        raise WorkerDied(f"an evaluation worker process died (out of memory with "
                         f"jobs={jobs}?); try fewer jobs") from None
    except BaseException:
        # Ctrl-C, SIGTERM or an error: no slice is waited for, started or not.
        stop_pool(pool)
        raise
    pool.shutdown(wait=True)
    return records


def _check_player(argument: str, player: object) -> None:
    """A player spec (non-empty text) or a player object (with ``act``); TypeError
    naming the argument otherwise (a bad spec is the registry's PlayerSpecError)."""
    if isinstance(player, str):
        if not player.strip():
            raise ValueError(f"{argument}: a player spec must be non-empty text, got {player!r}")
        return
    if not callable(getattr(player, "act", None)):
        raise TypeError(f"{argument} must be a player spec (str) or a player (with act), got "
                        f"{type(player).__name__}")


def check_deals(deals: object, name: str = "deals") -> int:
    """``deals`` as an int when it is a deal-pair count (1 to :data:`MAX_DEALS`);
    ValueError naming ``name``, the value and the range otherwise."""
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) \
            or not 1 <= deals <= MAX_DEALS:
        raise ValueError(f"{name} must be a positive integer (1 to {MAX_DEALS:,}), "
                         f"got {deals!r}"[:200])
    return int(deals)


def duplicate_eval(team_a: str | Player, team_b: str | Player, deals: int = 2000,
                   seed: int = 0, seats: dict[str, str | Player] | None = None,
                   progress: bool = False, jobs: int = 1, signs: bool | None = None,
                   catch: float | None = None, variant: Variant | None = None) -> EvalResult:
    """Team A against team B over ``deals`` deal pairs (see the module docstring);
    ``jobs`` worker processes (player specs only, not player objects);
    ``variant`` the game (``signs`` and ``catch``, the older way to ask for the
    signs variant, are deprecated)."""
    check_deals(deals)
    try:
        variant = variant_of(variant, signs, catch)
        kernel_widths(variant)  # a variant the engine plays
    except ValueError as err:
        raise ValueError(str(err)[:200]) from None
    signs = variant.signs
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be an integer from 0 to 2**63-1, got {seed!r}"[:200])
    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or not 1 <= jobs <= 1024:
        raise ValueError(f"jobs must be a positive integer (1 to 1024), got {jobs!r}"[:200])
    deals, seed, jobs = int(deals), int(seed), int(jobs)
    _check_player("team_a", team_a)
    _check_player("team_b", team_b)
    if seats is not None and not isinstance(seats, dict):
        raise TypeError(f"seats must be a dict of seat -> player spec or player, e.g. "
                        f"{{'player_2': 'random'}}, got {type(seats).__name__}")
    start = time.perf_counter()
    chairs: dict[str, str | Player] = {"player_0": team_a, "player_2": team_a,
                                       "player_1": team_b, "player_3": team_b}
    for seat, spec in (seats or {}).items():
        if seat not in chairs:
            raise ValueError(f"seats: unknown seat {seat!r}; seats are player_0..player_3"[:200])
        _check_player(f"seats[{seat!r}]", spec)
        chairs[seat] = spec
    def name(p: str | Player) -> str:
        return p if isinstance(p, str) else str(getattr(p, "name", type(p).__name__))

    a_name, b_name = name(team_a), name(team_b)
    if seats:
        a_name = f"{name(chairs['player_0'])}+{name(chairs['player_2'])}"
        b_name = f"{name(chairs['player_1'])}+{name(chairs['player_3'])}"
    # One player object per chair and table, seeded from the evaluation seed.
    def make(spec: str | Player, k: int) -> Player:
        return load_player(spec, seed=seed * 8 + k) if isinstance(spec, str) else spec

    a1, a2, b1, b2 = (chairs[s] for s in ("player_0", "player_2", "player_1", "player_3"))
    if jobs > 1:
        objects = [name(p) for p in chairs.values() if not isinstance(p, str)]
        if objects:
            raise ValueError(f"jobs > 1 builds each player in its worker from a spec: give "
                             f"specs, not player objects ({', '.join(objects)}), or jobs=1")
        for spec in set(chairs.values()):
            load_player(spec)  # a bad spec fails here, not in every worker
    hands, dealers = evaluation_deals(deals, seed)
    catches = evaluation_catches(deals, seed, variant) if signs else None
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=2 * deals, unit="deal", desc=f"{a_name} vs {b_name}", leave=False)
    tick = bar.update if bar else None
    # Each table's seats in order, with the seed of each chair's player.
    tables = [[(a1, 0), (b1, 1), (a2, 2), (b2, 3)], [(b1, 4), (a1, 5), (b2, 6), (a2, 7)]]
    if jobs > 1:
        table1, table2 = _play_tables_in_processes(
            [[(spec, seed * 8 + k) for spec, k in t] for t in tables], hands, dealers,
            jobs, tick, catches, variant)
    else:
        table1, table2 = (play_table([make(spec, k) for spec, k in t], hands, dealers, tick,
                                     catches=catches, variant=variant)
                          for t in tables)
    if bar:
        bar.close()
    # Team A is team 0 on table 1 and team 1 on table 2.
    a_pts = np.stack([table1.points[:, 0], table2.points[:, 1]])
    b_pts = np.stack([table1.points[:, 1], table2.points[:, 0]])
    pair = (a_pts - b_pts).sum(0) / 2.0
    ppd, ci = mean_ci95(pair)
    a_won = np.concatenate([team_of(table1.winner) == 0, team_of(table2.winner) == 1]) & \
        np.concatenate([table1.winner >= 0, table2.winner >= 0])
    b_won = np.concatenate([table1.winner >= 0, table2.winner >= 0]) & ~a_won
    mord = np.concatenate([table1.mordienne, table2.mordienne])
    # Matches: consecutive five-deal groups on each table, won as R2 says.
    match_winners, a_teams = [], []
    for tbl, a_team in ((table1, 0), (table2, 1)):
        for m0 in range(0, deals, DEFAULT_NUM_DEALS):
            p = tbl.points[m0:m0 + DEFAULT_NUM_DEALS].sum(0)
            match_winners.append(winning_team(int(p[0]), int(p[1])))
            a_teams.append(a_team)
    match_winners, a_teams = np.array(match_winners), np.array(a_teams)
    a_won_match, drawn = match_winners == a_teams, match_winners == NOBODY
    n_matches = len(match_winners)
    wins = int(a_won_match.sum())
    return EvalResult(
        team_a=a_name, team_b=b_name, deals=deals, seed=seed,
        points_per_deal=ppd, points_per_deal_ci95=ci,
        deal_win_rate=float(a_won.mean()),
        match_win_rate=wins / n_matches,
        match_draw_rate=float(drawn.mean()),
        match_loss_rate=float((~a_won_match & ~drawn).mean()),
        mordienne_rate=float((mord & a_won).mean()),
        spoiled_rate=float(np.concatenate([table1.spoiled, table2.spoiled]).sum()
                           / (2 * deals * 9)),
        matches=n_matches, match_win_rate_ci95=wilson_ci95(wins, n_matches),
        deal_loss_rate=float(b_won.mean()), opponent_mordienne_rate=float((mord & b_won).mean()),
        wall_time_s=time.perf_counter() - start, pair_points=pair, tables=(table1, table2),
    )


def result_table(res: EvalResult):
    """A rich Table of one evaluation."""
    from rich.table import Table
    from rich.text import Text
    title = f"Duplicate evaluation: {res.team_a} (A) vs {res.team_b} (B)"
    t = Table(title=Text(title if title.isprintable() else ascii(title)),
              show_header=True, header_style="bold")
    t.add_column("measure")
    t.add_column("team A", justify="right")
    lo, hi = res.points_per_deal_ci95
    mlo, mhi = res.match_win_rate_ci95
    rows = [
        ("points per deal (A − B)", f"{res.points_per_deal:+.4f}  [95% CI {lo:+.4f}, {hi:+.4f}]"),
        ("deal win rate (A / B / nobody)",
         f"{res.deal_win_rate:.3f} / {res.deal_loss_rate:.3f} / "
         f"{max(0.0, 1 - res.deal_win_rate - res.deal_loss_rate):.3f}"),
        ("match win / draw / loss",
         f"{res.match_win_rate:.3f} / {res.match_draw_rate:.3f} / {res.match_loss_rate:.3f}"),
        ("match win rate 95% CI", f"[{mlo:.3f}, {mhi:.3f}] over {res.matches} matches"),
        ("Mordienne rate (A / B)", f"{res.mordienne_rate:.4f} / {res.opponent_mordienne_rate:.4f}"),
        ("spoiled tricks", f"{res.spoiled_rate:.4f}"),
        ("deal pairs · seed · wall time", f"{res.deals} · {res.seed} · {res.wall_time_s:.1f} s"),
    ]
    for k, v in rows:
        t.add_row(k, v)
    return t
