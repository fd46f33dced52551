"""The Aluette deck: card ids (R4), readable names in English and French, and
the 19 strength levels of the rank order (R7-R8).

Pure Python on purpose: the rules, the environments, the players and the
batched engine all read their card facts from here.

A card id is ``12 * suit + rank_index`` (R4): suit 0 Coins, 1 Cups, 2 Batons,
3 Swords; rank_index 0-8 for ranks 1-9 (1 is the Ace), 9 Valet,
10 Cavalière, 11 Roi. ``STRENGTH[card]`` is 0 (weakest) to 18 (Monsieur);
suits never matter, only strength does, and equal strengths tie (R8, R11).
"""

from __future__ import annotations

import operator

NUM_CARDS = 48
NUM_SUITS = 4
NUM_RANKS = 12
NUM_STRENGTHS = 19

SUITS_EN = ("Coins", "Cups", "Batons", "Swords")
SUITS_FR = ("deniers", "coupes", "bâtons", "épées")
RANKS_EN = ("Ace", "2", "3", "4", "5", "6", "7", "8", "9", "Valet", "Cavalière", "Roi")
RANKS_FR = ("As", "2", "3", "4", "5", "6", "7", "8", "9", "Valet", "Cavalière", "Roi")

COINS, CUPS, BATONS, SWORDS = range(4)
ACE, VALET, CAVALIERE, ROI = 0, 9, 10, 11


def card_id(suit: int, rank_index: int) -> int:
    """The card id of R4; raises ValueError outside the deck."""
    if not (0 <= suit < NUM_SUITS and 0 <= rank_index < NUM_RANKS):
        raise ValueError(f"no card with suit {suit} and rank_index {rank_index}; "
                         f"suit is 0-3, rank_index 0-11")
    return NUM_RANKS * suit + rank_index


def suit_of(card: int) -> int:
    return card // NUM_RANKS


def rank_index_of(card: int) -> int:
    return card % NUM_RANKS


# R7: the eight named cards, highest first: (card id, name).
NAMED_CARDS = (
    (card_id(COINS, 2), "Monsieur"),
    (card_id(CUPS, 2), "Madame"),
    (card_id(COINS, 1), "Le Borgne"),
    (card_id(CUPS, 1), "La Vache"),
    (card_id(CUPS, 8), "Grand-neuf"),
    (card_id(COINS, 8), "Petit-neuf"),
    (card_id(BATONS, 1), "Deux de chêne"),
    (card_id(SWORDS, 1), "Deux d'écrit"),
)

# R8: the groups below the named cards, highest first: rank indices that form
# a group (all four suits unless a suit's card is named), then the leftovers.
_GROUPS = (
    ("Aces", [card_id(s, ACE) for s in range(4)]),
    ("Rois", [card_id(s, ROI) for s in range(4)]),
    ("Cavalières", [card_id(s, CAVALIERE) for s in range(4)]),
    ("Valets", [card_id(s, VALET) for s in range(4)]),
    ("Batons 9 and Swords 9", [card_id(BATONS, 8), card_id(SWORDS, 8)]),
    ("8s", [card_id(s, 7) for s in range(4)]),
    ("7s", [card_id(s, 6) for s in range(4)]),
    ("6s", [card_id(s, 5) for s in range(4)]),
    ("5s", [card_id(s, 4) for s in range(4)]),
    ("4s", [card_id(s, 3) for s in range(4)]),
    ("Batons 3 and Swords 3", [card_id(BATONS, 2), card_id(SWORDS, 2)]),
)


def _build_strength() -> tuple[int, ...]:
    strength = [-1] * NUM_CARDS
    level = NUM_STRENGTHS - 1
    for card, _ in NAMED_CARDS:
        strength[card] = level
        level -= 1
    for _, cards in _GROUPS:
        for card in cards:
            strength[card] = level
        level -= 1
    assert level == -1 and min(strength) == 0, "the rank order must cover 19 levels"
    return tuple(strength)


#: STRENGTH[card]: 18 for Monsieur down to 0 for Batons 3 / Swords 3.
STRENGTH: tuple[int, ...] = _build_strength()

#: Cards of each strength level, weakest level first.
CARDS_BY_STRENGTH: tuple[tuple[int, ...], ...] = tuple(
    tuple(c for c in range(NUM_CARDS) if STRENGTH[c] == level) for level in range(NUM_STRENGTHS)
)

_NAMED = dict(NAMED_CARDS)


def card_name(card: int, lang: str = "en") -> str:
    """Readable name: ``Coins 3 — Monsieur``, ``Batons Roi`` (en) or
    ``3 de deniers — Monsieur``, ``Roi d'épées`` (fr), as the apps' catalog
    names them."""
    check_card(card)
    suit, rank = suit_of(card), rank_index_of(card)
    if lang == "en":
        base = f"{SUITS_EN[suit]} {RANKS_EN[rank]}"
    elif lang == "fr":
        suit_fr = SUITS_FR[suit]
        of = "d'" if suit_fr[0] in "aeéiou" else "de "  # elision: "Roi d'épées"
        base = f"{RANKS_FR[rank]} {of}{suit_fr}"
    else:
        raise ValueError(f"unknown language {lang!r}; use 'en' or 'fr'")
    title = _NAMED.get(card)
    return f"{base} — {title}" if title else base


def short_name(card: int) -> str:
    """Compact tag for boards: rank then suit (``3Co`` Coins 3, ``RBa`` Batons Roi)."""
    check_card(card)
    rank = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "V", "C", "R")[rank_index_of(card)]
    return rank + ("Co", "Cu", "Ba", "Sw")[suit_of(card)]


def check_card(card: object) -> int:
    """Return ``card`` as an int if it is a card id, else raise ValueError."""
    if isinstance(card, bool):
        raise ValueError(f"card must be an integer id 0-47, got {card!r}")
    if not isinstance(card, int):
        try:
            card = operator.index(card)  # numpy integers
        except TypeError:
            raise ValueError(f"card must be an integer id 0-47, got {card!r}") from None
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id {card} is outside the deck; ids are 0-47 (R4)")
    return card


def describe(card: int) -> str:
    """``14 (Cups 3 — Madame)``: the form used in error messages."""
    return f"{card} ({card_name(card)})"
