"""The value of each searched play in each world: team 0's points minus team 1's
at the end of the deal. While more than ``solve_tricks`` tricks remain, a
rollout on the batched engine's kernels (the rules as :mod:`aluette_env.vector`
states them), every seat playing from its own view: heuristic v2, compiled
(:func:`heuristic_rollouts`), or the policy, one batch over all worlds and
plays a step (:func:`policy_rollouts`). Once at most ``solve_tricks`` tricks
remain, exactly, by the numba perfect-information solver
(:func:`solve_worlds`)."""

from __future__ import annotations

import numpy as np

from ..._jit import njit
from ...game import plays_left, seat_at, seat_gain
from ...observation import IN_TRICK, read_state
from ...vector.kernels import observe, play
from ..heuristic import WORK_SIZE, decide_v2
from ..solver import solve
from .worlds import I_LEADER, I_N_IN, I_PLAYS, I_T, I_UNSEEN, STRENGTH_ARRAY, deal_world


@njit(cache=True)
def heuristic_rollouts(n_games, n_plays, plays, strength, st, res, value):
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


def policy_rollouts(policy, n_games: int, n_plays: int, plays: np.ndarray, st: np.ndarray,
                    res: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                    value: np.ndarray, steps: int | None = None) -> None:
    """As :func:`heuristic_rollouts`, every seat after the first play choosing by
    ``policy`` from its observation (one batch over all games a step; ``obs`` and
    ``mask``: room for the batch); ``steps``: stop after that many plays (None:
    at the end of the deal)."""
    obs, mask = obs[:n_games], mask[:n_games]
    active = np.ones(n_games, np.bool_)
    rewards = np.zeros((n_games, 4), np.float32)
    deal_done = np.zeros(n_games, np.bool_)
    match_done = np.zeros(n_games, np.bool_)
    actions = plays[np.arange(n_games) % n_plays].astype(np.int64)
    if steps is None:
        steps = plays_left(int(st["trick_index"][0]), int(st["n_in_trick"][0]))
    for step in range(steps):
        if step:
            observe(st, obs, mask)
            actions = policy.act_batch(obs, mask)
        play(st, actions, active, STRENGTH_ARRAY, res, rewards, deal_done, match_done)
        points = res["points"][:n_games]
        value[deal_done] = points[deal_done, 0] - points[deal_done, 1]


@njit(cache=True)
def solve_worlds(keys, info, cards, trick_cards, counts, reached, in_run, unseen, n_left, plays,
                 strength, zobrist, table_key, table_lo, table_hi, nodes, values):
    """``values[w, j]``: the exact value of play j in world w of ``keys``
    (``trick_cards``: each relative seat's card in the trick in progress)."""
    leader, t, n_in = info[I_LEADER], info[I_T], info[I_N_IN]
    n_unseen, n_plays = info[I_UNSEEN], info[I_PLAYS]
    owner = np.empty(48, np.int64)
    hands = np.zeros((4, 19), np.int64)
    trick = np.zeros(4, np.int64)
    c2, r2 = np.empty(4, np.int64), np.empty(4, np.int64)
    i2 = np.empty(4, np.bool_)
    for k in range(n_in):
        trick[k] = strength[trick_cards[seat_at(leader, k)]]
    for w in range(keys.shape[0]):
        deal_world(keys[w], unseen, n_unseen, n_left, owner)
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
