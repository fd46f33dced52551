"""``heuristic``: rule-based players (numba, batched over games; a few µs a decision).

``heuristic`` (``version=2``, the default) plays the strategy documented on
:func:`decide_v2`, measured +0.36 points per deal over ``heuristic:version=1``
(the first rule set, kept for comparisons; see the README strength table).
:func:`decide_v2` works on a compact view of one seat (its hand, the cards
gone, the trick, the trick counts) so that the search players can run it in
their rollouts without building observation vectors.

At a table with signs (docs/RULES.md S1-S5) ``heuristic`` keeps a truthful
convention (:func:`_heuristic_v2`): each turn it signs the strongest card it holds
that a sign names and that it has not signed yet this deal (silence when there
is none), and it reads its partner's signs: a named card its partner signed
and has not played is in its partner's hand, so no opponent can play it, and
when that card beats everything the opponents may hold and the partner has
still to play in the trick, it leaves the trick to the partner
(:func:`decide_with_signs`). With ``signs=false`` it makes no sign and reads
as before (the silent baseline: the same player, silent). It makes no use of
the opponents' signs it catches: a rule that declined to spend a card on a
trick an opponent still to play was known to beat cost its user
(docs/SIGNS.md).
"""

from __future__ import annotations

import numpy as np

from .._jit import njit
from ..game import (
    ALUETTE_SIGNS_V0, NUM_SIGNS, SIGN_BASE, SIGN_OF_CARD, STRENGTH, cards_before, cards_in_trick, seat_at,
    trick_so_far, tricks_left,
)
from ..observation import IN_TRICK, OBS_SIZE, SIGN_SLICES, SIGNS_OBS_LAYOUT, UNSEEN, layout_of, read_view
from . import SEED, BatchPlayer, Option, Silent, check_batch

_STRENGTH = np.array(STRENGTH, np.int8)
_SIGN_OF_CARD = np.array(SIGN_OF_CARD, np.int8)
_SIGNS_AT = SIGN_SLICES["signs"].start


@njit(cache=True)
def _heuristic(obs, mask, strength, out):
    # The observation, read: the trick in progress by relative seat (0 me, 1 left,
    # 2 partner, 3 right), each card's location, the tally.
    cards = np.empty(48, np.int64)
    trick = np.empty(4, np.int64)
    winners = np.empty(9, np.int64)
    counts = np.zeros(4, np.int64)
    reached = np.zeros(4, np.int64)
    in_run = np.zeros(4, np.bool_)
    card_trick = np.empty(48, np.int64)
    for i in range(obs.shape[0]):
        t, leader = read_view(obs[i], cards, trick, winners, counts, reached, in_run,
                              card_trick)
        unseen_max = -1
        for c in range(48):
            if cards[c] == UNSEEN and strength[c] > unseen_max:
                unseen_max = strength[c]
        remaining = tricks_left(t)
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
        n_in = cards_in_trick(trick, leader)
        best, best_rel, tied = trick_so_far(trick, leader, n_in, strength)
        my_run = counts[0] == 0 or in_run[0]
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
                    threat = counts[best_rel] + 1 >= our or in_run[best_rel]
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


# ---------------------------------------------------------------------------- version 2

# Tuned by duplicate evaluation against version 1 and the shipped AI (README).
PARTNER_SAFE = 0.7  # partner's card counts as safe at this chance that no later opponent matches it
SECOND_HAND_CHEAP = 2  # second hand takes a trick only with a card of this level or lower (5s) ...
SECOND_HAND_UNTIL = 6  # ... before the seventh trick ...
SECOND_HAND_SAFE = 0.9  # ... unless its card is this likely to stand
CASH_FROM = 6  # lead sure winners from the seventh trick on
WORK_SIZE = 64  # scratch space of decide_v2


@njit(cache=True)
def chance_none(unseen: int, marked: int, drawn: int) -> float:
    """Chance that ``drawn`` cards taken at random from ``unseen`` cards include none
    of ``marked`` of them (card counting: the other hands are a random part of what
    this seat has not seen, the twelve unused cards included)."""
    if marked <= 0:
        return 1.0
    p = 1.0
    for i in range(drawn):
        if unseen - i <= 0 or p <= 0.0:
            break
        p *= max(0.0, (unseen - marked - i) / (unseen - i))
    return p


@njit(cache=True)
def decide_v2(hand, gone, trick, counts, in_run, t, strength, work):
    """The card ``heuristic`` v2 plays, from one seat's view.

    Relative seats: 0 this seat, 1 the opponent on its left (plays next), 2 its
    partner, 3 the opponent on its right. ``hand`` / ``gone`` (int8 [48]): its
    cards / cards played this deal (earlier tricks and the trick in progress);
    every other card is unseen (another hand or the twelve unused cards).
    ``trick`` [4]: card of each relative seat in the trick in progress or -1;
    ``counts`` [4]: tricks won; ``in_run`` [4]: may still make Mordienne;
    ``t``: index of the trick in progress. ``work``: int64 scratch, WORK_SIZE.

    A *sure winner* is a card above every unseen card. Equal cards: the lowest id.

    Leading:

    1. Sure winners for every remaining trick: lead the strongest, and keep
       running them (with nothing won before, a Mordienne, R16).
    2. From the seventh trick on, cash the cheapest sure winner, unless nothing
       is won yet and two or more are held (saved for a Mordienne run).
    3. Otherwise lead the middle card of the hand (the median strength level
       below the sure winners): the weakest cards let the opponents win cheap
       tricks, the strongest are worth more later, a middle card makes the
       others spend.

    Following:

    4. Partner winning the trick alone: throw the weakest card, unless the
       partner's card is likely to be beaten or spoiled by an opponent still to
       play (below a 70 % chance, from the unseen cards); then take the trick
       with the cheapest card that beats it, so it stays in the team.
    5. Second to play, before the seventh trick: the partner plays third, so
       "second hand low": throw the weakest card unless a 5 or lower beats the
       lead, or the cheapest card that beats it stands with 90 % chance.
    6. Otherwise, if a card beats the best so far (R10), play the cheapest
       one: tricks won early also decide ties (first to reach, R14); except that
       with nothing won yet and sure winners for all but one remaining trick,
       they are saved for a Mordienne run.
    7. An opponent winning with a card this seat cannot beat: spoil the trick
       with an equal card (R11) when that trick would bring the opponent level
       with the team's best count or extend its Mordienne run.
    8. Else throw the weakest card.
    """
    unseen = work[0:19]
    at_least = work[19:39]  # unseen cards of each level or stronger
    rep = work[39:58]  # this seat's card of each level, -1 if none
    n_unseen = 0
    for lv in range(19):
        unseen[lv] = 0
        rep[lv] = -1
    for c in range(48):
        lv = strength[c]
        if hand[c] == 1:
            if rep[lv] < 0:
                rep[lv] = c
        elif gone[c] == 0:
            unseen[lv] += 1
            n_unseen += 1
    at_least[19] = 0
    unseen_max = -1
    for lv in range(18, -1, -1):
        at_least[lv] = at_least[lv + 1] + unseen[lv]
        if unseen_max < 0 and unseen[lv] > 0:
            unseen_max = lv
    weakest, strongest, n_sure, n_other = -1, -1, 0, 0
    for lv in range(19):
        if rep[lv] >= 0:
            if weakest < 0:
                weakest = lv
            strongest = lv
            if lv <= unseen_max:
                n_other += 1
    for c in range(48):
        if hand[c] == 1 and strength[c] > unseen_max:
            n_sure += 1
    remaining = tricks_left(t)
    n_in = cards_before(trick, 0)
    choice = weakest
    if n_in == 0:
        if n_sure >= remaining:  # rule 1
            choice = strongest
        elif n_sure > 0 and t >= CASH_FROM and not (counts[0] == 0 and n_sure >= 2):  # rule 2
            for lv in range(unseen_max + 1, 19):
                if rep[lv] >= 0:
                    choice = lv
                    break
        elif n_other > 0:  # rule 3
            k = n_other // 2
            for lv in range(19):
                if rep[lv] >= 0 and lv <= unseen_max:
                    if k == 0:
                        choice = lv
                        break
                    k -= 1
        return rep[choice]
    # The trick so far: its leader played n_in seats before this one.
    best, best_rel, tied = trick_so_far(trick, seat_at(0, -n_in), n_in, strength)
    last = n_in == 3
    # Opponents still to play: the left one unless this seat is last.
    later_cards = 0 if last else remaining
    beat = -1
    for lv in range(best + 1, 19):
        if rep[lv] >= 0:
            beat = lv
            break
    if not tied and best_rel == 2:  # rule 4
        safe = last or chance_none(n_unseen, at_least[best], later_cards) >= PARTNER_SAFE
        if not safe and beat >= 0:
            choice = beat
    elif n_in == 1 and beat > SECOND_HAND_CHEAP and t < SECOND_HAND_UNTIL and \
            chance_none(n_unseen, at_least[beat], later_cards) < SECOND_HAND_SAFE:  # rule 5
        choice = weakest
    elif beat >= 0:  # rule 6
        if counts[0] == 0 and n_sure >= remaining - 1 and n_sure >= 2 and beat > unseen_max \
                and not last:
            choice = weakest
        else:
            choice = beat
    elif not tied and rep[best] >= 0:  # rule 7
        threat = counts[best_rel] + 1 >= max(counts[0], counts[2]) or in_run[best_rel]
        if threat:
            choice = best
    return rep[choice]


@njit(cache=True)
def decide_with_signs(hand, gone, trick, counts, in_run, t, strength, work, partner_top):
    """:func:`decide_v2` knowing a card of the partner's from its signs (S5):
    ``partner_top`` is its strength (-1: none known; ``gone`` already counts
    it). When the partner still plays in this trick after this seat (this seat
    leads or plays second), and its card beats every card an opponent may hold
    and the trick so far, throw the weakest card: the partner takes the trick.
    Otherwise :func:`decide_v2`'s card."""
    n_in = cards_before(trick, 0)
    if partner_top >= 0 and n_in <= 1:
        unseen_max = -1
        weakest = -1
        for c in range(48):
            if hand[c] == 0 and gone[c] == 0 and strength[c] > unseen_max:
                unseen_max = strength[c]
            if hand[c] == 1 and (weakest < 0 or strength[c] < strength[weakest]):
                weakest = c
        lead = trick[3] if n_in == 1 else -1
        if partner_top > unseen_max and (lead < 0 or partner_top > strength[lead]) \
                and tricks_left(t) > 1:
            return weakest
    return decide_v2(hand, gone, trick, counts, in_run, t, strength, work)


@njit(cache=True)
def signs_seen(row, seen):
    """``seen[r, k]``: relative seat ``r`` made sign ``k`` (1-9) this deal, as
    the seat of the signs variant's observation ``row`` saw it (S5)."""
    for r in range(4):
        for k in range(NUM_SIGNS + 1):
            seen[r, k] = False
    for t in range(9):
        for r in range(4):
            for k in range(NUM_SIGNS):
                if row[_SIGNS_AT + (t * 4 + r) * NUM_SIGNS + k] != 0:
                    seen[r, k + 1] = True


@njit(cache=True)
def truthful_sign(row, strength, sign_of_card, seen) -> int:
    """The truthful convention's sign action (S2-S3): the strongest card in the
    hand (``row``'s ``hand`` slice) that a sign names and that this seat has not
    signed yet this deal (``seen[0]``, :func:`signs_seen`); silence when none."""
    best = -1
    for c in range(48):
        k = sign_of_card[c]
        if row[c] != 0 and k > 0 and not seen[0, k] \
                and (best < 0 or strength[c] > strength[best]):
            best = c
    return SIGN_BASE + (sign_of_card[best] if best >= 0 else 0)


@njit(cache=True)
def _heuristic_v2(obs, mask, with_signs, strength, sign_of_card, sign, out):
    """``heuristic`` v2's cards (:func:`decide_v2`). At a table with signs
    (S1-S5: the signs variant's observations) in the sign phase the truthful
    convention's sign (silence unless ``sign``); in the card phase
    :func:`decide_with_signs`, with the named cards its partner signed and has
    not played counted as gone (they are in its partner's hand: no opponent
    holds them). ``with_signs``: the observations are of the signs layout
    (:func:`~aluette_env.observation.layout_of`)."""
    signs = with_signs
    hand = np.zeros(48, np.int8)
    gone = np.zeros(48, np.int8)
    cards = np.empty(48, np.int64)
    trick = np.zeros(4, np.int64)
    winners = np.empty(9, np.int64)
    counts = np.zeros(4, np.int64)
    reached = np.zeros(4, np.int64)
    in_run = np.zeros(4, np.bool_)
    work = np.zeros(WORK_SIZE, np.int64)
    card_trick = np.empty(48, np.int64)
    seen = np.zeros((4, NUM_SIGNS + 1), np.bool_)
    for i in range(obs.shape[0]):
        row = obs[i]
        if signs:
            signs_seen(row, seen)
        if signs and mask[i, SIGN_BASE] != 0:
            out[i] = truthful_sign(row, strength, sign_of_card, seen) if sign else SIGN_BASE
            continue
        t, leader = read_view(row, cards, trick, winners, counts, reached, in_run, card_trick)
        partner_top = -1
        for c in range(48):
            hand[c] = mask[i, c]
            gone[c] = 1 if cards[c] >= IN_TRICK else 0
            k = sign_of_card[c]
            # A named card (one card per sign: not the Aces) the partner signed
            # and has not played: in the partner's hand.
            if signs and k > 0 and k < NUM_SIGNS and seen[2, k] and hand[c] == 0 \
                    and gone[c] == 0:
                gone[c] = 1
                partner_top = max(partner_top, strength[c])
        out[i] = decide_with_signs(hand, gone, trick, counts, in_run, t, strength, work,
                                   partner_top)


class HeuristicPlayer(BatchPlayer):
    """Rule-based play: ``version=2`` (default) the strategy of :func:`decide_v2`;
    ``version=1`` the first rule set:

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

    Both are deterministic (equal cards: the lowest id), so ``seed`` changes
    nothing; it is accepted for the common player interface.

    At a table with signs (the signs variant's arrays) version 2 signs and reads
    its partner's signs (the module docstring); ``signs=false`` reads them but
    makes none. Version 1 plays there silent, from the default game's part of
    the observation.
    """

    OPTIONS = {
        "version": Option(int, 2, "rule set: 2 (the stronger, default) or 1 (the first)",
                          check=lambda v: v in (1, 2), allowed="1 or 2"),
        "signs": Option(bool, True, "at a table with signs (version 2): sign truthfully "
                        "(it always reads the signs it sees); false: make no sign"),
        "seed": SEED,
    }

    def __init__(self, version: int = 2, seed: int | None = None, signs: bool = True):
        if version not in (1, 2):
            raise ValueError(f"heuristic version must be 1 or 2, got {version!r}")
        if not isinstance(signs, bool):
            raise ValueError(f"heuristic signs must be True or False, got {signs!r}")
        self.version = version
        self.signs = signs and version == 2
        self.name = "heuristic" if version == 2 else "heuristic:version=1"
        if version == 2 and not signs:
            self.name += ":signs=false"
        self.seed = seed
        self._silent = Silent(_Plain(self))

    @property
    def plays_signs(self) -> bool:
        """It takes the signs variant's arrays itself (see :func:`~.for_signs`)."""
        return True

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs, masks = check_batch(observations, masks, variant=ALUETTE_SIGNS_V0)
        with_signs = layout_of(obs) == SIGNS_OBS_LAYOUT
        if self.version == 1 and with_signs:
            return self._silent.act_batch(obs, masks)
        out = np.empty(len(obs), np.int64)
        if self.version == 2:
            _heuristic_v2(obs, masks, with_signs, _STRENGTH, _SIGN_OF_CARD, self.signs, out)
        else:
            _heuristic(obs, masks, _STRENGTH, out)
        return out


class _Plain(BatchPlayer):
    """Version 1's play of the default game (for :class:`~.Silent`)."""

    def __init__(self, player: HeuristicPlayer):
        self.name = player.name

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs, masks = check_batch(observations, masks)
        out = np.empty(len(obs), np.int64)
        _heuristic(obs, masks, _STRENGTH, out)
        return out
