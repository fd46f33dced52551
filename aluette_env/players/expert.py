"""``expert``: a search player guided by a trained policy, Perfect Information
Monte Carlo over belief-weighted worlds.

For each decision:

* **Candidates.** The guiding policy (``policy``) scores the legal cards; plays it
  gives less than ``min_prob`` are not searched. Plays of equal worth in every
  world are tried once: two levels in its hand with no unseen card and no card
  of the trick at or between them.
* **Worlds.** It samples deals consistent with what its seat has seen (its
  hand and every card played; the unseen cards split at random between the
  three other hands and the twelve unused cards), draws more worlds than it
  searches and keeps them in proportion to how likely the other seats were to
  play as they did in that world: the policy from each player's own view,
  mixed with a uniform choice (``belief``), so a world where the partner would
  have won a trick but did not weighs little. Version 5 (``infer=deal``)
  weighs every play of the other seats this deal: each world is replayed from
  the deal's start by the game's step (perfect recall: the observation holds
  the whole order of play), each play judged from its player's view at the
  time, as many draws as ``infer_rows`` policy evaluations allow, and the
  likelihoods tempered (raised to a power below 1) so that at least
  ``min_ess`` of the worlds' weight stays spread (the policy models the other
  players; it is not them). Versions 1-4 (``infer=trick``) weigh only the
  plays of the trick in progress, ``draws`` times more worlds than searched.
* **Values.** While more than ``solve_tricks`` tricks remain, each world and
  candidate is rolled out to the end of the deal on the batched engine's
  kernels (the rules as :mod:`aluette_env.vector` states them), every seat
  playing the policy from its own view (``rollout=heuristic``: heuristic v2,
  compiled); all worlds and candidates of a decision are one batch. Once at
  most ``solve_tricks`` tricks remain, exactly, by the numba
  perfect-information solver (:func:`~aluette_env.players.solver.solve`),
  over ``solve_worlds`` worlds.
* **Choice.** It keeps the policy's own card unless another play's mean gain
  over it, paired world by world, exceeds ``confidence`` standard errors:
  search corrects the policy where the evidence is clear, and otherwise
  leaves its judgement (which reads the table better than uniform worlds do)
  alone.

Deterministic for a seed: the worlds of a decision are drawn from the seed
and the observation (not from the call order), so the same position gets the
same move in any process. ``max_seconds`` > 0 stops sampling once a move has
used that much time (at least 8 worlds); moves then depend on the machine's
speed, so the default 0 keeps play reproducible.

``policy`` names the guiding policy (``ai:version=4`` by default; ``ai``, the
shipped model, or an exported ``.onnx`` file), or ``none`` for plain PIMC:
every play searched, worlds unweighted, heuristic rollouts, the best mean.
The spec ``pimc`` is that preset (:func:`pimc`). ``version=1`` is the expert as
first shipped, guided by ``ai`` v2, ``version=2`` the one guided by v3 and
``version=3`` the one guided by v4, each at 144 worlds; version 4 is guided by
v4 at 320 worlds; the default, version 5, is guided by v4 at 320 worlds and
reads the whole deal (:data:`VERSIONS`).

:meth:`ExpertPlayer.card_values` gives the search's estimate for every legal
card (mean points for the player's team and standard errors), for hints,
reviews and training targets.

The observation is read by :func:`aluette_env.observation.read_view`, and
every rule (trick winner, tally, scoring) is the game core's own function,
compiled through :mod:`aluette_env._jit`.
"""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._jit import njit
from ..game import (
    HAND_SIZE, STRENGTH, card_beats, first_dealer_of, first_leader, next_leader, plays_left,
    seat_at, seat_gain,
)
from ..game import state as game_state
from ..observation import (
    IN_TRICK, OBS_SIZE, PLAYED, UNSEEN, obs_size, read_match, read_state, read_view, write_view,
)
from ..vector.kernels import kernel_view, new_results, new_state, observe, play
from . import SEED, BatchPlayer, Option, PlayerSpecError, check_batch, load_player
from .heuristic import WORK_SIZE, decide_v2
from .solver import Solver, solve

_STRENGTH = np.array(STRENGTH, np.int8)
class Version(NamedTuple):
    """One version of the expert: its guiding policy, its worlds and what its
    belief reads (``trick``: the plays of the trick in progress; ``deal``: every
    play of the deal)."""

    policy: str
    worlds: int
    infer: str


#: The expert's versions (spec ``expert:version=N``). The newest is the default and
#: follows the ``policy``, ``worlds`` and ``infer`` options; an older version keeps
#: its guide, and its worlds and inference unless they are set. Version 5 is guided
#: by v4, not by the newer ``ai`` v5: v5 reads the history's 432 more inputs, which
#: makes the search 1.6 times as costly a move (docs/SEARCH.md).
VERSIONS: dict[int, Version] = {
    1: Version("ai:version=2", 144, "trick"), 2: Version("ai:version=3", 144, "trick"),
    3: Version("ai:version=4", 144, "trick"), 4: Version("ai:version=4", 320, "trick"),
    5: Version("ai:version=4", 320, "deal"),
}
LATEST = max(VERSIONS)
UNUSED = UNSEEN  # engine card code of a card outside every hand
#: The part of an observation that seeds a decision's worlds: version 1's fields,
#: so that the same position gets the same worlds as before the history was added.
_SEED_VIEW = obs_size(1)
#: Worlds per batch when ``max_seconds`` limits a move: the granularity of the time check.
#: Without a limit a decision's worlds are one batch (the rollout policy's forward
#: pass costs about half as much per row in batches of hundreds as in batches of 16).
WORLD_CHUNK = 8

# info[] fields of a prepared decision
_I_LEADER, _I_T, _I_N_IN, _I_BEST, _I_BEST_SEAT, _I_TIED, _I_UNSEEN, _I_PLAYS = range(8)


@njit(cache=True)
def _prepare(row, mask, strength, cards, winners, counts, reached, in_run, card_trick, unseen,
             n_left, plays, trick, info):
    """The observer's view as the engine's arrays, relative seats (observer = 0):
    card codes (unseen cards UNUSED), trick winners, tally, the trick of each
    played card, the unseen cards, how many cards each other seat still holds,
    the plays worth trying, and each seat's card in the current trick (-1:
    none yet)."""
    t, leader = read_view(row, cards, trick, winners, counts, reached, in_run, card_trick)
    n_in = 0
    best, best_seat, tied = -1, -1, False
    for k in range(4):
        r = seat_at(leader, k)
        if trick[r] < 0:
            break
        best, best_seat, tied = card_beats(n_in, best, best_seat, tied, strength[trick[r]], r)
        n_in += 1
    for r in range(1, 4):
        n_left[r] = HAND_SIZE - t - (1 if trick[r] >= 0 else 0)
    n_unseen = 0
    others = np.zeros(19, np.int64)  # unseen cards and trick cards, by level
    for c in range(48):
        if cards[c] == UNUSED:
            unseen[n_unseen] = c
            n_unseen += 1
            others[strength[c]] += 1
        elif cards[c] >= IN_TRICK and cards[c] < PLAYED:
            others[strength[c]] += 1
    # One play per class of my levels with no other card at or between them.
    n_plays = 0
    open_class = False
    for lv in range(19):
        if others[lv] > 0:
            open_class = False
        card = -1
        for c in range(48):
            if mask[c] == 1 and strength[c] == lv:
                card = c
                break
        if card >= 0:
            if not open_class:
                plays[n_plays] = card
                n_plays += 1
            open_class = others[lv] == 0
    info[_I_LEADER], info[_I_T], info[_I_N_IN] = leader, t, n_in
    info[_I_BEST], info[_I_BEST_SEAT], info[_I_TIED] = best, best_seat, 1 if tied else 0
    info[_I_UNSEEN], info[_I_PLAYS] = n_unseen, n_plays


@njit(cache=True)
def _deal_world(keys, unseen, n_unseen, n_left, owner):
    """owner[k]: the seat dealt the k-th unseen card in this world (4: unused);
    the unseen cards are ranked by their random keys."""
    order = np.argsort(keys[:n_unseen])
    k = 0
    for r in range(1, 4):
        for _ in range(n_left[r]):
            owner[order[k]] = r
            k += 1
    while k < n_unseen:
        owner[order[k]] = UNUSED
        k += 1


@njit(cache=True)
def _solve_worlds(keys, info, cards, trick_cards, counts, reached, in_run, unseen, n_left, plays,
                  strength, zobrist, table_key, table_lo, table_hi, nodes, values):
    """``values[w, j]``: the exact value of play j in world w of ``keys``
    (``trick_cards``: each relative seat's card in the trick in progress)."""
    leader, t, n_in = info[_I_LEADER], info[_I_T], info[_I_N_IN]
    n_unseen, n_plays = info[_I_UNSEEN], info[_I_PLAYS]
    owner = np.empty(48, np.int64)
    hands = np.zeros((4, 19), np.int64)
    trick = np.zeros(4, np.int64)
    c2, r2 = np.empty(4, np.int64), np.empty(4, np.int64)
    i2 = np.empty(4, np.bool_)
    for k in range(n_in):
        trick[k] = strength[trick_cards[seat_at(leader, k)]]
    for w in range(keys.shape[0]):
        _deal_world(keys[w], unseen, n_unseen, n_left, owner)
        hands[:, :] = 0
        for c in range(48):
            if cards[c] == 0:
                hands[0, strength[c]] += 1
        for k in range(n_unseen):
            if owner[k] < 4:
                hands[owner[k], strength[unseen[k]]] += 1
        for j in range(n_plays):
            lv = strength[plays[j]]
            hands[0, lv] -= 1
            trick[n_in] = lv
            c2[:] = counts
            r2[:] = reached
            i2[:] = in_run
            values[w, j] = solve(hands, trick, n_in + 1, leader, c2, r2, i2, t, -3, 3, zobrist,
                               table_key, table_lo, table_hi, nodes)
            hands[0, lv] += 1


@njit(cache=True)
def _set_world(game, cards, card_trick, trick, unseen, n_unseen, owner, winners, counts,
               reached, in_run, leader, t, n_in, context, strength):
    """One game record as a sampled world (the unseen cards dealt by ``owner``)
    of the observer's view, with the first ``n_in`` cards of the trick in
    progress played (``trick``: each relative seat's card) and the next seat
    to act; ``context``: dealer, deal index, both teams' match points and the
    match's deals (:func:`_match_context`), which only a policy's
    observations read."""
    for c in range(48):
        game.card_state[c] = cards[c]
        game.card_trick[c] = card_trick[c]
    for k in range(n_unseen):
        game.card_state[unseen[k]] = owner[k]
    for k in range(9):
        game.trick_winners[k] = winners[k]
    for s in range(4):
        game.counts[s] = counts[s]
        game.reached[s] = reached[s]
        game.in_run[s] = in_run[s]
    best, best_seat, tied = -1, -1, False
    for k in range(4):
        seat = seat_at(leader, k)
        game.trick_cards[k] = trick[seat] if k < n_in else -1
        if k < n_in:
            best, best_seat, tied = card_beats(k, best, best_seat, tied, strength[trick[seat]],
                                               seat)
        elif trick[seat] >= 0:  # a later card of this trick, back in its player's hand
            game.card_state[trick[seat]] = seat
            game.card_trick[trick[seat]] = -1
    game.best, game.best_seat, game.tied = best, best_seat, tied
    game.leader, game.trick_index, game.n_in_trick = leader, t, n_in
    game.to_act = seat_at(leader, n_in)
    game.dealer, game.deal_index = context[0], context[1]
    game.first_dealer = first_dealer_of(context[0], context[1])
    game.points[0], game.points[1] = context[2], context[3]
    game.num_deals = context[4]
    game.over = False


@njit(cache=True)
def _fill_worlds(keys, info, cards, card_trick, trick, winners, counts, reached, in_run, unseen,
                 n_left, plays, context, strength, st):
    """Set up game w * n_plays + j of ``st`` as world w of ``keys`` with the
    observer (seat 0) to play ``plays[j]``."""
    leader, t, n_in = info[_I_LEADER], info[_I_T], info[_I_N_IN]
    n_unseen, n_plays = info[_I_UNSEEN], info[_I_PLAYS]
    owner = np.empty(48, np.int64)
    for w in range(keys.shape[0]):
        _deal_world(keys[w], unseen, n_unseen, n_left, owner)
        for j in range(n_plays):
            _set_world(st[w * n_plays + j], cards, card_trick, trick, unseen, n_unseen, owner,
                       winners, counts, reached, in_run, leader, t, n_in, context, strength)


@njit(cache=True)
def _fill_before_plays(keys, info, cards, card_trick, trick, winners, counts, reached, in_run,
                       unseen, n_left, context, strength, st):
    """Game w * n_in + k of ``st``: world w of ``keys`` as it stood before the
    k-th card of the current trick was played (that card and the later ones
    back in their players' hands), that card's player to act."""
    leader, t, n_in = info[_I_LEADER], info[_I_T], info[_I_N_IN]
    n_unseen = info[_I_UNSEEN]
    owner = np.empty(48, np.int64)
    for w in range(keys.shape[0]):
        _deal_world(keys[w], unseen, n_unseen, n_left, owner)
        for k in range(n_in):
            _set_world(st[w * n_in + k], cards, card_trick, trick, unseen, n_unseen, owner,
                       winners, counts, reached, in_run, leader, t, k, context, strength)


@njit(cache=True)
def _seat_of(code):
    """The relative seat of a played card's location code (-1: not played)."""
    if code >= PLAYED:
        return code - PLAYED
    if code >= IN_TRICK:
        return code - IN_TRICK
    return -1


@njit(cache=True)
def _order_of_play(cards, card_trick, winners, dealer, t, order):
    """The deal's plays so far in the order made (``order``; returns how many):
    R6 the dealer's left leads the first trick, each trick in seat order from
    its leader, R10-R11 its winner (a spoiled trick: the same leader) leads the
    next."""
    n = 0
    leader = first_leader(dealer)
    for k in range(t + 1):
        for i in range(4):
            seat = seat_at(leader, i)
            for c in range(48):
                if card_trick[c] == k and _seat_of(cards[c]) == seat:
                    order[n] = c
                    n += 1
        if k < t:
            leader = next_leader(leader, winners[k])
    return n


@njit(cache=True)
def _fill_deal_views(keys, info, cards, unseen, n_left, order, n_order, context, strength, game,
                     obs, mask):
    """Replay each world of ``keys`` from the deal's start by the game's step (its
    hands as dealt: each seat's cards now, with the unseen ones dealt by the world,
    and the cards it has played) through the plays of ``order``, and write the
    view and legal cards of every other seat as it stood before each of its plays:
    row w * (plays of the other seats) + i. Returns the rows written."""
    n_unseen = info[_I_UNSEEN]
    owner = np.empty(48, np.int64)
    hands = np.empty((4, HAND_SIZE), np.int64)
    size = np.zeros(4, np.int64)
    row = 0
    for w in range(keys.shape[0]):
        _deal_world(keys[w], unseen, n_unseen, n_left, owner)
        size[:] = 0
        for c in range(48):
            s = 0 if cards[c] == 0 else _seat_of(cards[c])
            if s >= 0:
                hands[s, size[s]] = c
                size[s] += 1
        for k in range(n_unseen):
            s = owner[k]
            if s < 4:
                hands[s, size[s]] = unseen[k]
                size[s] += 1
        game.first_dealer = first_dealer_of(context[0], context[1])
        game.deal_index, game.num_deals = context[1], context[4]
        game.points[0], game.points[1] = context[2], context[3]
        game.over = False
        game_state.start_deal(game, hands)
        for i in range(n_order):
            seat = game.to_act
            if seat != 0:
                write_view(game, seat, obs[row])
                for c in range(48):
                    mask[row, c] = 1 if game.card_state[c] == seat else 0
                row += 1
            game_state.step(game, order[i], strength)
    return row


@njit(cache=True)
def _heuristic_rollouts(n_games, n_plays, plays, strength, st, res, value):
    """Play games 0..n_games-1 of ``st`` to the end of the deal: first each
    game's play (``plays[g % n_plays]``), then heuristic v2 at every seat from
    its own view (:func:`~aluette_env.observation.read_state`); ``value[g]``:
    team 0's points minus team 1's in game g."""
    actions = np.empty(n_games, np.int64)
    active = np.ones(n_games, np.bool_)
    rewards = np.zeros((n_games, 4), np.float32)
    deal_done = np.zeros(n_games, np.bool_)
    match_done = np.zeros(n_games, np.bool_)
    hand = np.zeros(48, np.int8)
    gone = np.zeros(48, np.int8)
    cards = np.zeros(48, np.int64)
    card_trick = np.zeros(48, np.int64)
    trick = np.zeros(4, np.int64)
    winners = np.zeros(9, np.int64)
    counts = np.zeros(4, np.int64)
    reached = np.zeros(4, np.int64)
    in_run = np.zeros(4, np.bool_)
    work = np.zeros(WORK_SIZE, np.int64)
    for step in range(plays_left(st[0].trick_index, st[0].n_in_trick)):
        for g in range(n_games):
            if step == 0:
                actions[g] = plays[g % n_plays]
                continue
            t, _ = read_state(st[g], st[g].to_act, cards, trick, winners, counts, reached,
                              in_run, card_trick)
            for c in range(48):
                hand[c] = 1 if cards[c] == 0 else 0
                gone[c] = 1 if cards[c] >= IN_TRICK else 0
            actions[g] = decide_v2(hand, gone, trick, counts, in_run, t, strength, work)
        play(st, actions, active, strength, res, rewards, deal_done, match_done)
        for g in range(n_games):
            if deal_done[g]:
                value[g] = seat_gain(res[g].points[0], res[g].points[1], 0)


@njit(cache=True)
def _classes(mask, plays, n_plays, strength, probs, class_prob, card_class):
    """Each legal card's play class (the last play at or below its level: a
    class is a run of levels with no other card at or between them) and each
    class's total policy probability."""
    for j in range(n_plays):
        class_prob[j] = 0.0
    for c in range(48):
        card_class[c] = -1
        if mask[c] == 1:
            j = 0
            while j + 1 < n_plays and strength[plays[j + 1]] <= strength[c]:
                j += 1
            card_class[c] = j
            class_prob[j] += probs[c]


@dataclass(frozen=True)
class CardValues:
    """The search's estimate for every legal card of one decision.

    ``cards``: the legal card ids (ascending); ``value``: the mean points of the
    deal for the deciding seat's team (its points minus the other team's) if it
    plays that card; ``stderr``: the standard error of that card's value minus
    the value of ``best`` (paired world by world: 0 for ``best`` itself and for
    cards worth exactly the same in every world); ``best``: the card the expert
    plays. Cards of equal worth in every world (equal strength, or no unseen
    card between them) share one estimate. ``worlds``: worlds searched."""

    cards: np.ndarray
    value: np.ndarray
    stderr: np.ndarray
    best: int
    worlds: int


class ExpertPlayer(BatchPlayer):
    """Policy-guided PIMC with policy rollouts and exact endgames (module docstring)."""

    OPTIONS = {
        "worlds": Option(int, VERSIONS[LATEST].worlds, "sampled worlds per decision (an "
                         "older version: its own)", lambda v: 1 <= v <= 4096,
                         "an integer from 1 to 4096"),
        "solve_tricks": Option(int, 0, "solve exactly once this many tricks remain "
                               "(0: never; rollouts by the policy measured as strong)",
                               lambda v: 0 <= v <= 7, "an integer from 0 (never) to 7"),
        "solve_worlds": Option(int, 32, "sampled worlds per decision once solving exactly "
                               "(each costs far more than a rollout)",
                               lambda v: 1 <= v <= 4096, "an integer from 1 to 4096"),
        "policy": Option(str, VERSIONS[LATEST].policy, "the guiding policy: ai (the shipped "
                         "model), ai:version=N, an exported .onnx file, or none (plain PIMC: "
                         "every play searched, worlds unweighted, heuristic rollouts)",
                         lambda v: bool(v.strip()), "ai, ai:version=N, a .onnx path or none"),
        "rollout": Option(str, "ai", "policy of every seat in the rollouts: ai (the guiding "
                          "policy, batched over worlds and plays) or heuristic (v2, compiled)",
                          lambda v: v in ("heuristic", "ai"), "heuristic or ai"),
        "min_prob": Option(float, 0.02, "plays the guiding policy gives less probability "
                           "than this are not searched (0: search every play)",
                           lambda v: 0 <= v < 1, "a number from 0 to below 1"),
        "confidence": Option(float, 1.0, "leave the policy's play only for a play whose mean "
                             "gain over it across the worlds exceeds this many standard "
                             "errors (0: the best mean)",
                             lambda v: 0 <= v <= 10, "a number from 0 to 10"),
        "belief": Option(float, 0.9, "weight of the guiding policy in the model of how the "
                         "other seats chose this trick's cards, which weights the worlds "
                         "(the rest: any legal card alike; 0: worlds unweighted)",
                         lambda v: 0 <= v <= 1, "a number from 0 to 1"),
        "draws": Option(int, 4, "worlds drawn per world searched, to be weighted by belief",
                        lambda v: 1 <= v <= 64, "an integer from 1 to 64"),
        "infer": Option(str, VERSIONS[LATEST].infer, "what the belief reads: deal (every "
                        "play of the other seats this deal, each from that seat's view at "
                        "the time) or trick (the plays of the trick in progress only)",
                        lambda v: v in ("deal", "trick"), "deal or trick"),
        "min_ess": Option(float, 0.25, "infer=deal: the drawn worlds' likelihoods are "
                          "tempered (raised to a power below 1) until their effective "
                          "sample size is at least this share of the worlds searched",
                          lambda v: 0 <= v <= 1, "a number from 0 to 1"),
        "infer_rows": Option(int, 4096, "infer=deal: the most policy evaluations a "
                             "decision spends weighing drawn worlds (fewer draws when the "
                             "deal has many plays, never fewer than worlds)",
                             lambda v: 1 <= v <= 1 << 20, "an integer from 1 to 1048576"),
        "max_seconds": Option(float, 0.0, "time budget per move, 0 = none (deterministic)",
                              lambda v: 0 <= v <= 3600, "a number of seconds from 0 to 3600"),
        "version": Option(int, LATEST, "which expert: "
                          + ", ".join(f"{v} (guided by {p}, {w} worlds, infers from the {i})"
                                      for v, (p, w, i) in VERSIONS.items())
                          + f"; the default {LATEST} follows the policy and worlds options",
                          lambda v: v in VERSIONS, " or ".join(map(str, VERSIONS))),
        "seed": SEED,
    }

    def __init__(self, worlds: int | None = None, solve_tricks: int = 0,
                 solve_worlds: int = 32, policy: str | None = None, rollout: str = "ai",
                 min_prob: float = 0.02, confidence: float = 1.0, belief: float = 0.9,
                 draws: int = 4, max_seconds: float = 0.0, seed: int | None = None,
                 version: int = LATEST, infer: str | None = None, min_ess: float = 0.25,
                 infer_rows: int = 4096):
        # An unset worlds or infer is the version's own (a bad version is named by its check).
        own = VERSIONS[version if isinstance(version, int) and version in VERSIONS else LATEST]
        worlds = own.worlds if worlds is None else worlds
        infer = own.infer if infer is None else infer
        if version != LATEST and policy not in (None, own.policy):
            raise ValueError(f"version={version} is the expert guided by "
                             f"{own.policy}: set version or policy, not both "
                             f"(got policy={policy!r})")
        policy = own.policy if policy is None else policy
        values = {"worlds": worlds, "solve_tricks": solve_tricks, "solve_worlds": solve_worlds,
                  "policy": policy, "rollout": rollout, "min_prob": min_prob,
                  "confidence": confidence, "belief": belief, "draws": draws,
                  "max_seconds": max_seconds, "version": version, "infer": infer,
                  "min_ess": min_ess, "infer_rows": infer_rows}
        for key, value in values.items():
            option = self.OPTIONS[key]
            if not isinstance(value, option.kind) and not (option.kind is float and
                                                           isinstance(value, int)):
                raise ValueError(f"{key} must be {option.allowed}, got {value!r}")
            if not option.check(value):
                raise ValueError(f"{key} must be {option.allowed}, got {value!r}")
        if policy == "none" and rollout == "ai":
            raise ValueError("policy=none plays its rollouts by the heuristic: set "
                             "rollout=heuristic (rollout=ai needs a policy)")
        self.worlds, self.solve_tricks = int(worlds), int(solve_tricks)
        self.solve_worlds = int(solve_worlds)
        self.rollout = rollout
        self.min_prob, self.confidence = float(min_prob), float(confidence)
        self.belief, self.draws = float(belief), int(draws)
        self.infer, self.infer_rows = infer, int(infer_rows)
        self.min_ess = float(min_ess)
        #: The last decision that weighed its worlds by the deal: the effective sample
        #: size of its drawn worlds' weights ((sum w)^2 / sum w^2) and the power its
        #: likelihoods were tempered by (1: none).
        self.last_ess, self.last_temper = 0.0, 1.0
        self.max_seconds = float(max_seconds)
        self.seed = 0 if seed is None else int(seed)
        # The name is the spec: the options that differ from their defaults.
        mine = {"worlds": own.worlds, "infer": own.infer, "policy": own.policy}  # the version's own
        changed = [f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                   for k, v in values.items() if v != mine.get(k, self.OPTIONS[k].default)]
        self.name = "expert" + (":" + ",".join(changed) if changed else "")
        self._policy = None if policy == "none" else guiding_policy(policy)
        self._solver = Solver()
        most = max(self.worlds, self.solve_worlds)
        self._chunk = min(WORLD_CHUNK, most) if self.max_seconds else most
        chunk = self._chunk * 19
        self._st, self._res = kernel_view(new_state(chunk)), kernel_view(new_results(chunk))
        self._obs = np.zeros((chunk, OBS_SIZE), np.int8)
        self._mask = np.zeros((chunk, 48), np.int8)
        self._cards = np.zeros(48, np.int8)
        self._winners = np.zeros(9, np.int8)
        self._card_trick = np.zeros(48, np.int8)
        self._tally = (np.zeros(4, np.int64), np.zeros(4, np.int64), np.zeros(4, np.bool_))
        self._unseen = np.zeros(48, np.int64)
        self._n_left = np.zeros(4, np.int64)
        self._plays = np.zeros(19, np.int64)
        self._trick = np.zeros(4, np.int64)  # each seat's card in the current trick
        self._info = np.zeros(8, np.int64)
        self._before = None  # worlds before this trick's plays (state, obs, mask), grown on demand
        self._class_prob = np.zeros(19)
        self._card_class = np.zeros(48, np.int64)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs, masks = check_batch(observations, masks)
        if len(obs) == 0:
            return np.zeros(0, np.int64)
        probs = self._probabilities(obs, masks)
        return np.array([self._decide(o, m, p) for o, m, p in zip(obs, masks, probs)], np.int64)

    def card_values(self, observation: np.ndarray, action_mask: np.ndarray) -> CardValues:
        """The search's estimate for every legal card of this decision (every play
        is searched, whatever ``min_prob``), computed from this seat's observation
        only, exactly as a move."""
        obs, masks = check_batch(np.asarray(observation)[None, :],
                                 np.asarray(action_mask)[None, :])
        row, mask = obs[0], masks[0]
        probs = self._probabilities(obs, masks)[0]
        legal = np.flatnonzero(mask)
        found = self._search(row, mask, probs, min_prob=0.0)
        if found is None:  # one play: every legal card is worth the same
            best = self._decide(row, mask, probs)
            zeros = np.zeros(len(legal))
            return CardValues(legal, zeros, zeros, best, 0)
        values, weights, home, candidates, favourite = found
        w = weights / weights.sum()
        mean = w @ values
        best = self._choose(values, weights, home, candidates, favourite)
        # The expert's card as the reference of the paired standard errors.
        ref = int(self._card_class[best])
        gain = values - values[:, ref:ref + 1]
        g_mean = w @ gain
        n_eff = 1.0 / float(w @ w)
        se = np.sqrt((w ** 2) @ (gain - g_mean) ** 2 * n_eff / max(n_eff - 1, 1e-9))
        cls = self._card_class[legal]
        return CardValues(legal, mean[cls].astype(np.float64), se[cls].astype(np.float64),
                          best, len(values))

    def _probabilities(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if self._policy is not None:
            return self._policy.probabilities(obs, masks)
        # No policy: the weakest legal card is the default play (plain PIMC keeps it
        # unless another play has a better mean).
        weakest = np.where(masks > 0, _STRENGTH[None, :] * 64 + np.arange(48)[None, :], 1 << 20)
        probs = np.zeros(masks.shape)
        probs[np.arange(len(masks)), weakest.argmin(1)] = 1.0
        return probs

    def _decide(self, row: np.ndarray, mask: np.ndarray, probs: np.ndarray) -> int:
        found = self._search(row, mask, probs, self.min_prob if self._policy else 0.0)
        if found is None:
            return int(np.argmax(probs))
        return self._choose(*found)

    def _search(self, row: np.ndarray, mask: np.ndarray, probs: np.ndarray, min_prob: float):
        """The searched plays' values in each world, or None when only one play is
        worth searching: (values [worlds, plays], world weights, the policy's play
        among them, the plays' cards, the policy's card)."""
        counts, reached, in_run = self._tally
        info, plays = self._info, self._plays
        _prepare(row, mask, _STRENGTH, self._cards, self._winners, counts, reached, in_run,
                 self._card_trick, self._unseen, self._n_left, plays, self._trick, info)
        favourite = int(np.argmax(probs))
        n_plays = int(info[_I_PLAYS])
        _classes(mask, plays, n_plays, _STRENGTH, probs, self._class_prob, self._card_class)
        if n_plays == 1:
            return None
        # Search only the plays the policy finds plausible (its own always).
        home = int(self._card_class[favourite])
        keep = [j for j in range(n_plays) if j == home or self._class_prob[j] >= min_prob]
        if len(keep) == 1:
            return None
        candidates = plays[keep].copy()
        renumber = np.full(n_plays, -1, np.int64)
        renumber[keep] = np.arange(len(keep))
        self._card_class[:] = np.where(self._card_class >= 0,
                                       renumber[np.maximum(self._card_class, 0)], -1)
        home = keep.index(home)
        plays[:len(keep)] = candidates
        info[_I_PLAYS] = n_plays = len(keep)
        # The worlds come from the seed and the position, never from the call order.
        exact = 9 - int(info[_I_T]) <= self.solve_tricks
        n_worlds = self.solve_worlds if exact else self.worlds
        context = _match_context(row)
        keys, weights = self._worlds(self._decision_rng(row), n_worlds, info, context)
        values = np.zeros((len(keys), n_plays))
        start = time.perf_counter()
        done = 0
        for w0 in range(0, len(keys), self._chunk):
            chunk = keys[w0:w0 + self._chunk]
            out = values[w0:w0 + len(chunk)]
            if exact:
                _solve_worlds(chunk, info, self._cards, self._trick, counts, reached, in_run,
                              self._unseen, self._n_left, plays, _STRENGTH, *self._solver.tables,
                              out)
            else:
                _fill_worlds(chunk, info, self._cards, self._card_trick, self._trick,
                             self._winners, counts, reached, in_run, self._unseen, self._n_left,
                             plays, context, _STRENGTH, self._st)
                value = np.zeros(len(chunk) * n_plays, np.int64)
                if self.rollout == "heuristic":
                    _heuristic_rollouts(len(value), n_plays, plays, _STRENGTH, self._st,
                                        self._res, value)
                else:
                    self._policy_rollouts(len(value), n_plays, value)
                out[:] = value.reshape(len(chunk), n_plays)
            done = w0 + len(chunk)
            if self.max_seconds and time.perf_counter() - start > self.max_seconds:
                break
        return values[:done], weights[:done], home, candidates, favourite

    def _decision_rng(self, row: np.ndarray) -> np.random.Generator:
        return np.random.default_rng([self.seed, zlib.crc32(row[:_SEED_VIEW].tobytes())])

    def sample_worlds(self, observation: np.ndarray,
                      action_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The worlds this decision's search would weigh (``worlds`` of them, as a
        move draws them), from this seat's observation only: ``holders[w, c]`` is
        the relative seat (1-3) holding card ``c`` in world ``w``, 4 for a card
        left out of the deal, -1 for a card this seat has seen (in its hand or
        played); and each world's weight. For analysis of the belief
        (``benchmarks/belief.py``)."""
        obs, masks = check_batch(np.asarray(observation)[None, :],
                                 np.asarray(action_mask)[None, :])
        row, mask = obs[0], masks[0]
        counts, reached, in_run = self._tally
        info = self._info
        _prepare(row, mask, _STRENGTH, self._cards, self._winners, counts, reached, in_run,
                 self._card_trick, self._unseen, self._n_left, self._plays, self._trick, info)
        keys, weights = self._worlds(self._decision_rng(row), self.worlds, info,
                                     _match_context(row))
        n_unseen = int(info[_I_UNSEEN])
        holders = np.full((len(keys), 48), -1, np.int8)
        owner = np.empty(48, np.int64)
        for w, k in enumerate(keys):
            _deal_world(k, self._unseen, n_unseen, self._n_left, owner)
            holders[w, self._unseen[:n_unseen]] = owner[:n_unseen]
        return holders, weights

    def _worlds(self, rng: np.random.Generator, n_worlds: int, info: np.ndarray,
                context: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The worlds of a decision, as keys that rank the unseen cards (see
        :func:`_deal_world`), and their weights: drawn by belief when cards are
        in the trick, uniform otherwise."""
        if self._policy is not None and self.belief > 0:
            if self.infer == "deal":
                order = np.zeros(36, np.int64)
                n = _order_of_play(self._cards, self._card_trick, self._winners, context[0],
                                   int(info[_I_T]), order)
                theirs = np.array([c for c in order[:n] if _seat_of(self._cards[c]) != 0],
                                  np.int64)  # the plays of seats 1-3, in order
                if len(theirs):
                    return self._deal_worlds(rng, n_worlds, info, context, order[:n], theirs)
            elif info[_I_N_IN] > 0:
                return self._believed_worlds(rng, n_worlds, info, context)
        return rng.random((n_worlds, 48)), np.ones(n_worlds)

    def _deal_worlds(self, rng: np.random.Generator, n_worlds: int, info: np.ndarray,
                     context: np.ndarray, order: np.ndarray,
                     theirs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``n_worlds`` draws (repeats merged: distinct worlds and their counts)
        from up to ``draws`` times as many uniform worlds, each kept in proportion
        to how likely the other seats were to make every play they made this deal,
        each from its own view at the time (the world replayed from the deal's
        start): the policy mixed with a uniform choice among its legal cards
        (``belief``). The draws are as many as ``infer_rows`` policy evaluations
        allow, at least ``n_worlds``; with no more draws than worlds, every draw is
        kept with its likelihood as its weight."""
        others = len(theirs)
        n_draws = max(n_worlds, min(n_worlds * self.draws, self.infer_rows // others))
        keys = rng.random((n_draws, 48))
        rows = n_draws * others
        st, obs, mask = self._rows(rows)
        written = _fill_deal_views(keys, info, self._cards, self._unseen, self._n_left, order,
                                   len(order), context, _STRENGTH, st[0], obs, mask)
        assert written == rows
        played = np.tile(theirs, n_draws)
        probs = self._policy.probabilities(obs, mask)[np.arange(rows), played]
        model = self.belief * probs + (1 - self.belief) / np.maximum(mask.sum(1), 1)
        with np.errstate(divide="ignore"):  # belief 1: a play the policy never makes
            log_like = np.log(model).reshape(n_draws, others).sum(1)
        if not np.isfinite(log_like.max()):  # no drawn world explains the deal: alike
            log_like = np.zeros(n_draws)
        like, self.last_temper = _tempered(log_like - log_like.max(), self.min_ess * n_worlds)
        self.last_ess = _ess(like)
        if n_draws == n_worlds:
            return keys, like
        return _resample(rng, keys, like, n_worlds)

    def _believed_worlds(self, rng: np.random.Generator, n_worlds: int, info: np.ndarray,
                         context: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``n_worlds`` draws (with repeats merged: distinct worlds and their
        counts) from ``draws`` times as many uniform worlds, each kept in
        proportion to how likely the modelled seats were to play this trick's
        cards in it: the policy from each seat's own view, mixed with a uniform
        choice among its legal cards (``belief``)."""
        counts, reached, in_run = self._tally
        n_in = int(info[_I_N_IN])
        keys = rng.random((n_worlds * self.draws, 48))
        rows = len(keys) * n_in
        st, obs, mask = self._rows(rows)
        _fill_before_plays(keys, info, self._cards, self._card_trick, self._trick, self._winners,
                           counts, reached, in_run, self._unseen, self._n_left, context,
                           _STRENGTH, st)
        observe(st, obs, mask)
        # The trick's cards in the order played (seat leader, leader + 1, ...).
        played = np.tile(self._trick[seat_at(int(info[_I_LEADER]), np.arange(n_in))], len(keys))
        probs = self._policy.probabilities(obs, mask)[np.arange(rows), played]
        legal = mask.sum(1)
        model = self.belief * probs + (1 - self.belief) / np.maximum(legal, 1)
        like = model.reshape(len(keys), n_in).prod(1)
        if not like.sum() > 0:  # no drawn world explains the trick: keep them alike
            like = np.ones(len(keys))
        return _resample(rng, keys, like, n_worlds)

    def _rows(self, rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``rows`` game records, observations and masks for the belief's policy
        evaluations (grown on demand, kept between decisions)."""
        if self._before is None or len(self._before[0]) < rows:
            self._before = (kernel_view(new_state(max(rows, 1))),
                            np.zeros((max(rows, 1), OBS_SIZE), np.int8),
                            np.zeros((max(rows, 1), 48), np.int8))
        return tuple(a[:rows] for a in self._before)

    def _choose(self, values: np.ndarray, weights: np.ndarray, home: int,
                candidates: np.ndarray, favourite: int) -> int:
        """The policy's play, unless another play gains over it, paired world by
        world (weighted), by more than ``confidence`` standard errors (then the
        best mean)."""
        gain = values - values[:, home:home + 1]
        w = weights / weights.sum()
        mean = w @ gain
        # Variance of a weighted mean of independent worlds: sum of w_i^2 (g_i - mean)^2.
        n_eff = 1.0 / float(w @ w)
        se = np.sqrt((w ** 2) @ (gain - mean) ** 2 * n_eff / max(n_eff - 1, 1e-9))
        best = int(np.argmax(mean))  # first maximum: the weakest play
        if best == home or mean[best] <= self.confidence * se[best]:
            return favourite
        return int(candidates[best])

    def _policy_rollouts(self, n_games: int, n_plays: int, value: np.ndarray) -> None:
        """As _heuristic_rollouts, every seat after the first play choosing by the
        rollout policy from its observation (one batch over all games a step)."""
        st, res, plays = self._st, self._res, self._plays
        obs, mask = self._obs[:n_games], self._mask[:n_games]
        active = np.ones(n_games, np.bool_)
        rewards = np.zeros((n_games, 4), np.float32)
        deal_done = np.zeros(n_games, np.bool_)
        match_done = np.zeros(n_games, np.bool_)
        actions = plays[np.arange(n_games) % n_plays].astype(np.int64)
        for step in range(plays_left(int(st["trick_index"][0]), int(st["n_in_trick"][0]))):
            if step:
                observe(st, obs, mask)
                actions = self._policy.act_batch(obs, mask)
            play(st, actions, active, _STRENGTH, res, rewards, deal_done, match_done)
            points = res["points"][:n_games]
            value[deal_done] = points[deal_done, 0] - points[deal_done, 1]


def _resample(rng: np.random.Generator, keys: np.ndarray, like: np.ndarray,
              n_worlds: int) -> tuple[np.ndarray, np.ndarray]:
    """``n_worlds`` draws of ``keys`` in proportion to ``like`` by systematic
    resampling (deterministic given ``rng``, low variance), repeats merged: the
    distinct worlds and their counts as weights."""
    cum = np.cumsum(like / like.sum())
    picks = np.searchsorted(cum, (rng.random() + np.arange(n_worlds)) / n_worlds)
    picks, weights = np.unique(np.minimum(picks, len(keys) - 1), return_counts=True)
    return keys[picks], weights.astype(np.float64)


def _ess(weights: np.ndarray) -> float:
    """Effective sample size of weighted draws: (sum w)^2 / sum w^2."""
    return float(weights.sum() ** 2 / (weights @ weights))


def _tempered(log_like: np.ndarray, min_ess: float) -> tuple[np.ndarray, float]:
    """The likelihoods ``exp(log_like)`` raised to the largest power in (0, 1] that
    leaves an effective sample size of at least ``min_ess`` (bisection; ESS falls
    as the power grows), and that power. The guiding policy is a model of the other
    players, not the players themselves: over a whole deal its product of
    likelihoods would otherwise bet every world on the one or two draws it likes
    best."""
    possible = np.isfinite(log_like)  # -inf: a world where a play was impossible
    finite = np.where(possible, log_like, 0.0)

    def powered(power: float) -> np.ndarray:
        return np.where(possible, np.exp(power * finite), 0.0)

    like = powered(1.0)
    if _ess(like) >= min_ess:
        return like, 1.0
    lo, hi = 0.0, 1.0
    for _ in range(12):
        mid = (lo + hi) / 2
        if _ess(powered(mid)) >= min_ess:
            lo = mid
        else:
            hi = mid
    return powered(lo), lo


def _match_context(row: np.ndarray) -> np.ndarray:
    """(dealer, deal index, own points, other team's points, deals in the match)
    from an observation (relative seats: observer = 0, so own is team 0)."""
    dealer, deal, num_deals, own, opp = read_match(row)
    return np.array([dealer, deal, own, opp, num_deals], np.int64)


def guiding_policy(spec: str):
    """The ONNX policy named by ``spec`` (its card probabilities guide the search);
    ValueError with one line when ``spec`` names no such policy."""
    try:
        player = load_player(spec)
    except PlayerSpecError as err:
        shown = repr(spec) if len(spec) <= 120 else repr(spec[:120]) + "..."
        raise ValueError(f"policy {shown}: {err}") from None
    if not hasattr(player, "probabilities"):
        raise ValueError(f"policy must be an ONNX policy (ai, ai:version=N or an exported "
                         f".onnx file) or none, got {spec!r}"[:300])
    return player


def pimc(worlds: int = 16, solve_tricks: int = 4, max_seconds: float = 0.0,
         seed: int | None = None) -> ExpertPlayer:
    """The spec ``pimc``: plain Perfect Information Monte Carlo, a preset of
    :class:`ExpertPlayer` (``policy=none``): ``worlds`` uniform worlds per
    decision, every play searched, heuristic rollouts until ``solve_tricks``
    tricks remain and exact solving after, the best mean (the weakest card on
    ties). A baseline for the expert, which adds the policy's guidance."""
    player = ExpertPlayer(worlds=worlds, solve_worlds=worlds, solve_tricks=solve_tricks,
                          policy="none", rollout="heuristic", min_prob=0.0, confidence=0.0,
                          belief=0.0, max_seconds=max_seconds, seed=seed)
    player.name = f"pimc:worlds={worlds},solve_tricks={solve_tricks}"
    return player


pimc.OPTIONS = {  # type: ignore[attr-defined]
    "worlds": Option(int, 16, "sampled worlds per decision", lambda v: 1 <= v <= 4096,
                     "an integer from 1 to 4096"),
    "solve_tricks": Option(int, 4, "solve exactly once this many tricks remain (0: never)",
                           lambda v: 0 <= v <= 7, "an integer from 0 (never) to 7"),
    "max_seconds": ExpertPlayer.OPTIONS["max_seconds"],
    "seed": SEED,
}
