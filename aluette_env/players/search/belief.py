"""The belief: a decision's worlds weighed by how likely the other seats were to
play as they did in each, the guiding policy from each player's own view mixed
with a uniform choice among its legal cards (:class:`Belief`).

Every draw is first put where the seat's signs place cards, if any
(:meth:`~.worlds.View.constrain`). ``infer=deal`` (version 5) replays each
drawn world from the deal's start by the game's step (:func:`fill_deal_views`:
the observation's perfect recall gives the order of play) and judges every
play of the other seats this deal from its player's view at the time; the
likelihoods are tempered (:func:`tempered`) so that the policy, a model of the
other players and not the players, cannot bet every world on one or two draws.
``infer=trick`` (versions 1-4) weighs only the plays of the trick in progress
(:func:`~.worlds.fill_before_plays`). The weighed draws are resampled
(:func:`resample`) to the worlds searched.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..._jit import njit
from ...game import (
    HAND_SIZE, first_dealer_of, first_leader, order_of_play, played_by, seat_at,
)
from ...game import state as game_state
from ...observation import OBS_SIZE, write_view
from ...vector.kernels import kernel_view, new_state, observe
from .places import draw_places
from .worlds import (
    I_LEADER, I_N_IN, I_T, I_UNSEEN, STRENGTH_ARRAY, View, deal_world, fill_before_plays,
)


class Belief(NamedTuple):
    """How a decision weighs its worlds (the expert's options of the same names):
    ``policy`` (None: worlds unweighted), ``weight`` (the ``belief`` option: the
    policy's share in the model of a play), ``infer`` (``deal`` or ``trick``),
    ``draws``, ``min_ess`` and ``infer_rows``."""

    policy: Any
    weight: float
    infer: str
    draws: int
    min_ess: float
    infer_rows: int
    #: ``sampler=net``: each unseen card's probability of each place, which the worlds
    #: are drawn from (:func:`~.places.sized`); None: uniform draws.
    places: np.ndarray | None = None


class Rows:
    """Game records, observations and masks for the belief's policy evaluations,
    grown on demand and kept between decisions."""

    def __init__(self) -> None:
        self._arrays: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def get(self, rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._arrays is None or len(self._arrays[0]) < rows:
            self._arrays = (kernel_view(new_state(max(rows, 1))),
                            np.zeros((max(rows, 1), OBS_SIZE), np.int8),
                            np.zeros((max(rows, 1), 48), np.int8))
        return tuple(a[:rows] for a in self._arrays)  # type: ignore[return-value]


def draw_worlds(rng: np.random.Generator, n_worlds: int, view: View, context: np.ndarray,
                belief: Belief, rows: Rows) -> tuple[np.ndarray, np.ndarray, tuple | None]:
    """The worlds of a decision, as keys that rank the unseen cards (see
    :func:`~.worlds.deal_world`), their weights, and (whole-deal inference only)
    the effective sample size of the drawn worlds' weights and the power their
    likelihoods were tempered by: drawn by belief when the other seats have
    played, uniform otherwise."""
    if belief.policy is not None and belief.weight > 0:
        if belief.infer == "deal":
            order = np.zeros(36, np.int64)
            n = compiled_order_of_play(view.cards, view.card_trick, view.winners,
                                       first_leader(context[0]), int(view.info[I_T]), order)
            theirs = np.array([c for c in order[:n] if played_by(view.cards[c]) != 0],
                              np.int64)  # the plays of seats 1-3, in order
            if len(theirs):
                return deal_worlds(rng, n_worlds, view, context, order[:n], theirs, belief,
                                   rows)
        elif view.info[I_N_IN] > 0:
            return (*trick_worlds(rng, n_worlds, view, context, belief, rows), None)
    return drawn(rng, n_worlds, view, belief), np.ones(n_worlds), None


def drawn(rng: np.random.Generator, n: int, view: View, belief: Belief) -> np.ndarray:
    """``n`` worlds as keys (:func:`~.worlds.deal_world`), each card the seat
    knows the place of put there: uniform among the deals consistent with the
    view, or (``sampler=net``) drawn card by card from the network's
    ``belief.places`` (:func:`~.places.draw_places`), which then stand for the
    uniform prior: the plays weigh them as they weigh uniform draws."""
    if belief.places is None:
        return view.constrain(rng.random((n, 48)))
    keys = rng.random((n, 48))
    draw_places(belief.places, int(view.info[I_UNSEEN]), view.n_left, view.known,
                rng.random((n, 3, 48)), keys)
    return keys


def _modelled(belief: Belief, obs: np.ndarray, mask: np.ndarray,
              played: np.ndarray) -> np.ndarray:
    """Each row's probability of its play under the belief: the policy mixed with a
    uniform choice among the row's legal cards."""
    probs = belief.policy.probabilities(obs, mask)[np.arange(len(played)), played]
    return belief.weight * probs + (1 - belief.weight) / np.maximum(mask.sum(1), 1)


def deal_worlds(rng: np.random.Generator, n_worlds: int, view: View, context: np.ndarray,
                order: np.ndarray, theirs: np.ndarray, belief: Belief,
                rows: Rows) -> tuple[np.ndarray, np.ndarray, tuple[float, float]]:
    """``n_worlds`` draws (repeats merged: distinct worlds and their counts)
    from up to ``draws`` times as many uniform worlds, each kept in proportion
    to how likely the other seats were to make every play they made this deal,
    each from its own view at the time (the world replayed from the deal's
    start). The draws are as many as ``infer_rows`` policy evaluations allow, at
    least ``n_worlds``; with no more draws than worlds, every draw is kept with
    its likelihood as its weight. Also (effective sample size, tempering power)."""
    others = len(theirs)
    n_draws = max(n_worlds, min(n_worlds * belief.draws, belief.infer_rows // others))
    keys = drawn(rng, n_draws, view, belief)
    n_rows = n_draws * others
    st, obs, mask = rows.get(n_rows)
    written = fill_deal_views(keys, view.info, view.cards, view.unseen, view.n_left, order,
                              len(order), context, STRENGTH_ARRAY, st[0], obs, mask)
    assert written == n_rows
    model = _modelled(belief, obs, mask, np.tile(theirs, n_draws))
    with np.errstate(divide="ignore"):  # belief 1: a play the policy never makes
        log_like = np.log(model).reshape(n_draws, others).sum(1)
    if not np.isfinite(log_like.max()):  # no drawn world explains the deal: alike
        log_like = np.zeros(n_draws)
    like, temper = tempered(log_like - log_like.max(), belief.min_ess * n_worlds)
    spread = (ess(like), temper)
    if n_draws == n_worlds:
        return keys, like, spread
    return (*resample(rng, keys, like, n_worlds), spread)


def trick_worlds(rng: np.random.Generator, n_worlds: int, view: View, context: np.ndarray,
                 belief: Belief, rows: Rows) -> tuple[np.ndarray, np.ndarray]:
    """``n_worlds`` draws (with repeats merged: distinct worlds and their
    counts) from ``draws`` times as many uniform worlds, each kept in
    proportion to how likely the modelled seats were to play this trick's
    cards in it, each from its own view."""
    n_in = int(view.info[I_N_IN])
    keys = drawn(rng, n_worlds * belief.draws, view, belief)
    n_rows = len(keys) * n_in
    st, obs, mask = rows.get(n_rows)
    fill_before_plays(keys, view.info, view.cards, view.card_trick, view.trick, view.winners,
                      view.counts, view.reached, view.in_run, view.unseen, view.n_left, context,
                      STRENGTH_ARRAY, st)
    observe(st, obs, mask)
    # The trick's cards in the order played (seat leader, leader + 1, ...).
    played = np.tile(view.trick[seat_at(int(view.info[I_LEADER]), np.arange(n_in))], len(keys))
    like = _modelled(belief, obs, mask, played).reshape(len(keys), n_in).prod(1)
    if not like.sum() > 0:  # no drawn world explains the trick: keep them alike
        like = np.ones(len(keys))
    return resample(rng, keys, like, n_worlds)


@njit(cache=True)
def compiled_order_of_play(cards, card_trick, winners, leader, t, order):
    """The game's :func:`~aluette_env.game.state.order_of_play` (over the
    view's relative seats), compiled for a call from Python."""
    return order_of_play(cards, card_trick, winners, leader, t, order)


@njit(cache=True)
def fill_deal_views(keys, info, cards, unseen, n_left, order, n_order, context, strength, game,
                    obs, mask):
    """Replay each world of ``keys`` from the deal's start by the game's step (its
    hands as dealt: each seat's cards now, with the unseen ones dealt by the world,
    and the cards it has played) through the plays of ``order``, and write the
    view and legal cards of every other seat as it stood before each of its plays:
    row w * (plays of the other seats) + i. Returns the rows written."""
    n_unseen = info[I_UNSEEN]
    owner = np.empty(48, np.int64)
    hands = np.empty((4, HAND_SIZE), np.int64)
    size = np.zeros(4, np.int64)
    row = 0
    for w in range(keys.shape[0]):
        deal_world(keys[w], unseen, n_unseen, n_left, owner)
        size[:] = 0
        for c in range(48):
            s = 0 if cards[c] == 0 else played_by(cards[c])
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


def resample(rng: np.random.Generator, keys: np.ndarray, like: np.ndarray,
             n_worlds: int) -> tuple[np.ndarray, np.ndarray]:
    """``n_worlds`` draws of ``keys`` in proportion to ``like`` by systematic
    resampling (deterministic given ``rng``, low variance), repeats merged: the
    distinct worlds and their counts as weights."""
    cum = np.cumsum(like / like.sum())
    picks = np.searchsorted(cum, (rng.random() + np.arange(n_worlds)) / n_worlds)
    picks, weights = np.unique(np.minimum(picks, len(keys) - 1), return_counts=True)
    return keys[picks], weights.astype(np.float64)


def ess(weights: np.ndarray) -> float:
    """Effective sample size of weighted draws: (sum w)^2 / sum w^2."""
    return float(weights.sum() ** 2 / (weights @ weights))


def tempered(log_like: np.ndarray, min_ess: float) -> tuple[np.ndarray, float]:
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
    if ess(like) >= min_ess:
        return like, 1.0
    lo, hi = 0.0, 1.0
    for _ in range(12):
        mid = (lo + hi) / 2
        if ess(powered(mid)) >= min_ess:
            lo = mid
        else:
            hi = mid
    return powered(lo), lo
