"""The choice among the searched plays: which plays are searched (one per class
of equal worth, the policy's own and those it gives at least ``min_prob``), and
which is played: the policy's own card unless another play's mean gain over it,
paired world by world, exceeds ``confidence`` standard errors
(:func:`paired_gain` states that error once); :class:`CardValues` reports every
legal card's estimate."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._jit import njit


@njit(cache=True)
def classes(mask, plays, n_plays, strength, probs, class_prob, card_class):
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


def searched_plays(n_plays: int, class_prob: np.ndarray, home: int,
                   min_prob: float) -> list[int]:
    """The indices of the plays to search: the policy's own (play ``home``) and
    every play whose class the policy gives at least ``min_prob``, in order."""
    return [j for j in range(n_plays) if j == home or class_prob[j] >= min_prob]


def paired_gain(values: np.ndarray, weights: np.ndarray,
                ref: int) -> tuple[np.ndarray, np.ndarray]:
    """Each play's weighted mean gain over play ``ref``, paired world by world
    (``values[w, j]``; ``weights`` summing to 1), and its standard error: the
    variance of a weighted mean of independent worlds, sum of w_i^2 (g_i - mean)^2,
    corrected by n_eff / (n_eff - 1) for the effective number of worlds."""
    gain = values - values[:, ref:ref + 1]
    mean = weights @ gain
    n_eff = 1.0 / float(weights @ weights)
    se = np.sqrt((weights ** 2) @ (gain - mean) ** 2 * n_eff / max(n_eff - 1, 1e-9))
    return mean, se


def choose(values: np.ndarray, weights: np.ndarray, home: int, candidates: np.ndarray,
           favourite: int, confidence: float) -> int:
    """The policy's play (``favourite``, play ``home`` of ``candidates``), unless
    another play gains over it, paired world by world (weighted), by more than
    ``confidence`` standard errors (then the best mean)."""
    mean, se = paired_gain(values, weights / weights.sum(), home)
    best = int(np.argmax(mean))  # first maximum: the weakest play
    if best == home or mean[best] <= confidence * se[best]:
        return favourite
    return int(candidates[best])


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
