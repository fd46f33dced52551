"""The game's one step (aluette_env.game.state): events, the state record
after each play, and the two forms of the record (Python lists and the
engine's numpy record) stepped by the same function to the same state."""

from __future__ import annotations

import random

import numpy as np
import pytest

from aluette_env.game import (
    NOBODY, STRENGTH, GameState, deal_cards, first_leader, is_legal, start_deal, step,
)
from aluette_env.game.state import (
    CARD_PLAYED, DEAL_DONE, IN_TRICK, MATCH_DONE, PLAYED, STATE_FIELDS, STATE_NAMES, TRICK_DONE,
    UNUSED, order_of_play, played_by,
)
from aluette_env.vector.kernels import GAME_STATE, new_state
from conftest import hands_for_winners


def test_r9_r10_a_trick_one_play_at_a_time():
    hands = hands_for_winners("230XXXXXX")  # trick 0 to seat 2, trick 1 to seat 3...
    g = GameState(first_dealer=3, num_deals=2)
    start_deal(g, hands)
    assert (g.dealer, g.leader, g.to_act) == (3, 0, 0)  # R6
    assert [g.card_state[hands[s][0]] for s in range(4)] == [0, 1, 2, 3]
    events = [step(g, hands[s][0], STRENGTH) for s in range(4)]
    assert events == [CARD_PLAYED] * 3 + [TRICK_DONE]
    assert g.trick_winners[0] == 2 and g.leader == g.to_act == 2  # R10
    assert [g.card_state[hands[s][0]] for s in range(4)] == [PLAYED + s for s in range(4)]
    assert [g.card_trick[hands[s][0]] for s in range(4)] == [0] * 4
    assert (g.counts, g.reached, g.trick_index, g.n_in_trick) == ([0, 0, 1, 0], [-1, -1, 0, -1],
                                                                  1, 0)
    # Trick 1 is led by seat 2: its card is in the trick, by its seat.
    assert step(g, hands[2][1], STRENGTH) == CARD_PLAYED
    assert g.card_state[hands[2][1]] == IN_TRICK + 2 and g.to_act == 3
    assert not is_legal(g, hands[2][2]) and is_legal(g, hands[3][1])


def test_r11_to_r2_the_deal_and_the_match_end():
    g = GameState(first_dealer=0, num_deals=2)
    events = []
    for _ in range(2):
        hands = hands_for_winners("XXXXXXX11")  # Mordienne for seat 1 (R16): 2 points
        start_deal(g, hands)
        queues = [list(h) for h in hands]
        while g.trick_index < 9:
            events.append(step(g, queues[g.to_act].pop(0), STRENGTH))
    assert events.count(TRICK_DONE) == 16 and events[35] == DEAL_DONE
    assert events[-1] == MATCH_DONE and g.over
    assert (g.deal_winner, g.deal_score, g.mordienne) == (1, 2, True)
    assert g.points == [0, 4] and g.deal_index == 2
    assert g.trick_winners[:7] == [NOBODY] * 7


@pytest.mark.parametrize("seed", range(5))
def test_the_python_record_and_the_engine_record_step_alike(seed):
    rnd = random.Random(seed)
    g = GameState(first_dealer=seed % 4, num_deals=1)
    rec = new_state(1).view(np.recarray)[0]
    rec.first_dealer, rec.num_deals = seed % 4, 1
    deck = list(range(48))
    rnd.shuffle(deck)
    hands, _ = deal_cards(deck, seed % 4)
    start_deal(g, hands)
    start_deal(rec, np.array(hands))
    while not g.over:
        card = rnd.choice([c for c in range(48) if is_legal(g, c)])
        assert is_legal(rec, card)
        assert step(g, card, STRENGTH) == step(rec, card, STRENGTH)
        for name in STATE_NAMES:
            want = getattr(g, name)
            got = getattr(rec, name)
            assert np.array_equal(np.asarray(got), np.asarray(want, dtype=np.asarray(got).dtype)), \
                name


def test_the_engines_dtype_is_the_declared_record():
    assert GAME_STATE.names == STATE_NAMES == tuple(f[0] for f in STATE_FIELDS)
    g = GameState()
    assert g.card_state == [UNUSED] * 48 and g.deal_winner == NOBODY
    copy = g.copy()
    copy.card_state[0] = 0
    assert g.card_state[0] == UNUSED


@pytest.mark.parametrize("seed", range(4))
def test_r6_r9_r11_the_order_of_play_is_rebuilt_from_the_record(seed):
    """order_of_play, from where each card is and the trick it was played in,
    gives the plays in the order they were made: R6 the dealer's left leads
    first, R9 clockwise, R10-R11 each trick's winner (spoiled: the same leader)
    leads the next; mid-trick and at the deal's end."""
    rnd = random.Random(seed)
    g = GameState(first_dealer=seed, num_deals=1)
    deck = list(range(48))
    rnd.shuffle(deck)
    start_deal(g, deal_cards(deck, seed)[0])
    made = []
    order = [0] * 48
    while not g.over:
        card = rnd.choice([c for c in range(48) if is_legal(g, c)])
        seat = g.to_act
        step(g, card, STRENGTH)
        made.append(card)
        assert played_by(g.card_state[card]) == seat
        n = order_of_play(g.card_state, g.card_trick, g.trick_winners, first_leader(g.dealer),
                          min(g.trick_index, 8), order)
        assert order[:n] == made
    assert played_by(UNUSED) == -1 and played_by(0) == -1
