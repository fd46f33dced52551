"""``heuristic``: a rule-based player a decent human would recognise (numba,
batched over games; about 2 µs a decision)."""

from __future__ import annotations

import numpy as np

from ..game import STRENGTH
from ..observation import OFFSET
from ..vector.kernels import njit
from . import SEED, BatchPlayer, check_batch

_STRENGTH = np.array(STRENGTH, np.int8)
_HAND, _TRICK, _PLAYED = OFFSET["hand"], OFFSET["trick"], OFFSET["played"]
_COUNTS, _RUN, _LEADER = OFFSET["trick_counts"], OFFSET["in_run"], OFFSET["leader"]
_TRICK_INDEX = OFFSET["trick_index"]


@njit(cache=True)
def _heuristic(obs, mask, strength, out):
    for i in range(obs.shape[0]):
        row = obs[i]
        # The trick in progress: cards by relative seat (0 me, 1 left, 2 partner, 3 right).
        trick = np.full(4, -1, np.int64)
        unseen_max = -1
        for c in range(48):
            seen = row[_HAND + c] == 1
            for r in range(4):
                if row[_TRICK + r * 48 + c] == 1:
                    trick[r] = c
                    seen = True
                if row[_PLAYED + r * 48 + c] == 1:
                    seen = True
            if not seen and strength[c] > unseen_max:
                unseen_max = strength[c]
        counts = np.zeros(4, np.int64)
        for r in range(4):
            for k in range(9):
                counts[r] += row[_COUNTS + r * 9 + k]
        t = 0
        for k in range(9):
            if row[_TRICK_INDEX + k] == 1:
                t = k
        remaining = 9 - t
        # My cards, weakest first (ties: lowest id), and how many are sure winners.
        weakest, strongest, n_sure = -1, -1, 0
        for c in range(48):
            if mask[i, c] == 1:
                if weakest < 0 or strength[c] < strength[weakest]:
                    weakest = c
                if strongest < 0 or strength[c] > strength[strongest]:
                    strongest = c
                if strength[c] > unseen_max:
                    n_sure += 1
        n_in = 0
        best, best_rel, tied = -1, -1, False
        for r in range(1, 4):
            if trick[r] >= 0:
                n_in += 1
                s = strength[trick[r]]
                if s > best:
                    best, best_rel, tied = s, r, False
                elif s == best:
                    tied = True
        my_run = counts[0] == 0 or row[_RUN] == 1
        choice = weakest
        if n_in == 0:
            # Leading. A late run of sure winners to the end can make Mordienne
            # (R16): play it out. Otherwise cash a sure winner unless it is being
            # saved for such a run, or lead the weakest card.
            if n_sure >= remaining:
                choice = strongest
            elif n_sure > 0 and not (counts[0] == 0 and n_sure >= 2):
                choice = -2  # cheapest sure winner, below
        else:
            last = n_in == 3
            partner_wins = (not tied) and best_rel == 2
            if partner_wins and (last or best > unseen_max):
                choice = weakest  # don't overtake the partner
            else:
                # Cheapest card that beats the best card so far (R10).
                beat = -1
                for c in range(48):
                    if mask[i, c] == 1 and strength[c] > best:
                        if beat < 0 or strength[c] < strength[beat]:
                            beat = c
                if partner_wins:
                    choice = weakest
                elif beat >= 0 and (last or strength[beat] > unseen_max or not tied):
                    # Save sure winners for a Mordienne run when nothing is won yet
                    # and enough of them remain; otherwise take the trick now
                    # (earlier wins also decide ties, R14).
                    if counts[0] == 0 and my_run and n_sure >= remaining - 1 and n_sure >= 2 \
                            and strength[beat] > unseen_max and not last:
                        choice = weakest
                    else:
                        choice = beat
                elif (not tied) and best_rel != 2:
                    # An opponent is winning and can't be beaten: spoil it with an
                    # equal card (R11) when its trick would threaten the deal.
                    our = max(counts[0], counts[2])
                    threat = counts[best_rel] + 1 >= our or row[_RUN + best_rel] == 1
                    match = -1
                    for c in range(48):
                        if mask[i, c] == 1 and strength[c] == best:
                            match = c
                            break
                    if match >= 0 and threat:
                        choice = match
        if choice == -2:
            sure = -1
            for c in range(48):
                if mask[i, c] == 1 and strength[c] > unseen_max:
                    if sure < 0 or strength[c] < strength[sure]:
                        sure = c
            choice = sure
        out[i] = choice


class HeuristicPlayer(BatchPlayer):
    """A rule-based player a decent human would recognise.

    * Partner winning the trick (uniquely, and safely: last to play or a card
      nobody unseen can beat): never overtake it, throw the weakest card.
    * An opponent winning or the trick spoiled so far: win it with the cheapest
      card that beats the best card (earlier wins also decide ties, R14).
    * An opponent winning with a card that can't be beaten: spoil the trick
      with an equal card (R11) when that trick would bring the opponent level
      with our best count or extend its Mordienne run; else throw the weakest.
    * Keep strong cards for a late run: with no trick won yet and enough sure
      winners (cards stronger than every unseen card) for the rest of the deal,
      don't spend them early; once the sure winners cover every remaining
      trick, lead them out to make Mordienne (R16).
    * Leading otherwise: cash a sure winner if any, else lead the weakest card.

    Deterministic (equal cards: the lowest id), so ``seed`` changes nothing; it
    is accepted for the common player interface.
    """

    OPTIONS = {"seed": SEED}

    def __init__(self, seed: int | None = None):
        self.name = "heuristic"
        self.seed = seed

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs, masks = check_batch(observations, masks)
        out = np.empty(len(obs), np.int64)
        _heuristic(obs, masks, _STRENGTH, out)
        return out
