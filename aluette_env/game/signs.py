"""The signs variant (docs/RULES.md, "Variant: the signs", S1-S5): partners tell
each other about their cards with the traditional gestures, and the opponents
may catch them.

- S1 With signs, each turn of a seat is two steps: it makes one sign or none,
  then it plays its card. The game's step (:func:`~.state.step`) takes both.
- S2 The lexicon: one sign for each named card (R7) and one for an Ace, each
  with its gesture (:data:`SIGNS`).
- S3 A sign is cheap talk: any sign, or none, is legal whatever the hand.
- S4 The partner always sees a sign. Each opponent catches it with
  probability ``catch``: the catches are chance, drawn when a deal is dealt
  (like the deck), so a deal with its catches replays exactly. The signer
  does not learn who caught it.
- S5 What a seat knows of the signs: its own, its partner's, and the
  opponents' it caught (:func:`sees_sign`).

Sign ids: :data:`NO_SIGN` (0, silence) and 1-9 (:data:`SIGNS`). In the
variant an action is a card id (0-47) or a sign action, ``SIGN_BASE + sign``
(48-57): one action space of :data:`NUM_ACTIONS`, masked by phase.

Standard library only, in the subset of Python that numba compiles.
"""

from __future__ import annotations

import numbers

from .cards import ACE, NAMED_CARDS, NUM_CARDS, card_id
from .seats import opponents_of, partner_of

#: Silence: the seat makes no sign (S1).
NO_SIGN = 0

#: S2, the lexicon (trictrac.net's Aluette page and the French encyclopaedia
#: agree): sign k (1-9) is SIGNS[k - 1] = (key, gesture, the cards it names).
#: Signs 1-8 name the eight named cards in R7's order; sign 9 any Ace.
SIGNS: tuple[tuple[str, str, tuple[int, ...]], ...] = (
    ("eyes_raised", "eyes raised to the sky", (NAMED_CARDS[0][0],)),  # Monsieur
    ("lips_raised", "a corner of the lips raised, or the head tilted", (NAMED_CARDS[1][0],)),
    ("wink", "a wink", (NAMED_CARDS[2][0],)),  # Le Borgne
    ("pout", "a pout", (NAMED_CARDS[3][0],)),  # La Vache
    ("thumb", "the thumb shown", (NAMED_CARDS[4][0],)),  # Grand-neuf
    ("little_finger", "the little finger shown", (NAMED_CARDS[5][0],)),  # Petit-neuf
    ("index", "the index shown", (NAMED_CARDS[6][0],)),  # Deux de chêne
    ("writing", "thumb and index turned to the table, as if writing",
     (NAMED_CARDS[7][0],)),  # Deux d'écrit
    ("mouth_open", "the mouth opened", tuple(card_id(s, ACE) for s in range(4))),  # an Ace
)
NUM_SIGNS = len(SIGNS)  # 9
#: Sign actions: silence and the nine signs.
NUM_SIGN_ACTIONS = NUM_SIGNS + 1
#: The action id of silence; sign k is SIGN_BASE + k.
SIGN_BASE = NUM_CARDS
#: The variant's action space: 48 cards, then the ten sign actions.
NUM_ACTIONS = NUM_CARDS + NUM_SIGN_ACTIONS
#: The default chance that an opponent catches a sign (S4).
DEFAULT_CATCH = 0.25


def _sign_of_card() -> tuple[int, ...]:
    out = [NO_SIGN] * NUM_CARDS
    for k, (_, _, cards) in enumerate(SIGNS):
        for c in cards:
            out[c] = k + 1
    return tuple(out)


#: SIGN_OF_CARD[card]: the sign that names ``card``, NO_SIGN for a card no sign names.
SIGN_OF_CARD: tuple[int, ...] = _sign_of_card()


def sign_name(sign: int) -> str:
    """The card a sign names: "Monsieur" ... "Deux d'écrit", "an Ace"; "no sign"."""
    if sign == NO_SIGN:
        return "no sign"
    if sign == NUM_SIGNS:
        return "an Ace"
    return NAMED_CARDS[sign - 1][1]


def check_sign(sign: object) -> int:
    """``sign`` as a sign id 0-9 (0: none); ValueError names the bad value."""
    if isinstance(sign, bool) or not isinstance(sign, int) or not 0 <= sign <= NUM_SIGNS:
        raise ValueError(f"a sign is an int 0-{NUM_SIGNS} (0: no sign), got {sign!r}")
    return sign


def check_catch(catch: object) -> float:
    """S4's ``catch``, the chance that an opponent catches a sign, as a float from
    0 to 1 (any real number type, not a bool); ValueError names the bad value."""
    if isinstance(catch, bool) or not isinstance(catch, numbers.Real) or not 0 <= catch <= 1:
        shown = repr(catch)
        raise ValueError(f"catch must be a probability from 0 to 1, got "
                         f"{shown if len(shown) <= 60 else shown[:60] + '...'}")
    return float(catch)


def is_sign_action(action: int) -> bool:
    """S1: ``action`` is a sign action (silence or a sign), not a card."""
    return SIGN_BASE <= action < NUM_ACTIONS


def sees_sign(observer: int, signer: int, caught: int) -> bool:
    """S4-S5: ``observer`` knows the sign ``signer`` made: its own, its partner's
    (always), or an opponent's whose catch bits ``caught`` hold the observer."""
    return observer == signer or observer == partner_of(signer) or (caught >> observer) & 1 == 1


def catch_bits(signer: int, left: bool, right: bool) -> int:
    """S4: the ``caught`` bits of one sign from its two opponents' draws: ``left``
    the opponent on the signer's left (next to play), ``right`` the other."""
    on_left, on_right = opponents_of(signer)
    bits = 0
    if left:
        bits |= 1 << on_left
    if right:
        bits |= 1 << on_right
    return bits
