"""R3, R4, R7, R8: the deck, card ids, names and the rank order."""

import pytest

from aluette_env.game.cards import (
    CARDS_BY_STRENGTH, NUM_STRENGTHS, STRENGTH, card_id, card_name, check_card, short_name,
)


def test_r3_deck_has_48_cards_in_four_suits_of_twelve_ranks():
    ids = {card_id(s, r) for s in range(4) for r in range(12)}
    assert ids == set(range(48))


def test_r4_card_ids_are_public_contract():
    assert card_id(0, 2) == 2  # Coins 3
    assert card_id(1, 2) == 14  # Cups 3
    assert card_id(3, 11) == 47  # Swords Roi
    assert card_name(2) == "Coins 3 — Monsieur"
    assert card_name(13) == "Cups 2 — La Vache"
    assert card_name(35) == "Batons Roi"
    assert card_name(0) == "Coins Ace"
    assert card_name(2, "fr") == "3 de deniers — Monsieur"
    assert card_name(35, "fr") == "Roi de bâtons"
    assert short_name(2) == "3Co" and short_name(35) == "RBa"


@pytest.mark.parametrize("bad", [-1, 48, 3.5, "2", None, True])
def test_r4_ids_outside_the_deck_are_rejected(bad):
    with pytest.raises(ValueError, match="card"):
        check_card(bad)
    with pytest.raises(ValueError):
        card_id(4, 0)


def test_r7_eight_named_cards_are_unique_and_ordered():
    named = [2, 14, 1, 13, 20, 8, 25, 37]  # Monsieur > Madame > ... > Deux d'écrit
    assert [STRENGTH[c] for c in named] == list(range(18, 10, -1))
    for c in named:
        assert sum(STRENGTH[x] == STRENGTH[c] for x in range(48)) == 1


def test_r8_groups_are_equal_inside_and_ordered():
    def group(rank_index, suits=range(4)):
        return {STRENGTH[card_id(s, rank_index)] for s in suits}

    order = [group(0), group(11), group(10), group(9), group(8, [2, 3]),
             group(7), group(6), group(5), group(4), group(3), group(2, [2, 3])]
    assert all(len(g) == 1 for g in order), "cards within a group are exactly equal"
    levels = [g.pop() for g in order]
    assert levels == list(range(10, -1, -1))
    assert NUM_STRENGTHS == 19 and len(CARDS_BY_STRENGTH) == 19
    assert sorted(len(c) for c in CARDS_BY_STRENGTH) == [1] * 8 + [2, 2] + [4] * 9
    # The lowest named card still beats every Ace.
    assert STRENGTH[37] > STRENGTH[0]
