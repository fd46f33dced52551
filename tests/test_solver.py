"""The exact solver (aluette_env.players.solver): hand-built endgames, and the
plain-Python oracles of tests/solver_oracle.py (alpha-beta and brute force) on
random positions; the rules it applies are the game core's own."""

import random

import pytest
from solver_oracle import PySolver, brute_force, final_value

from aluette_env.game.cards import STRENGTH, card_id
from aluette_env.game import Deal, deal_cards
from aluette_env.players.solver import Position, Solver


def level(c):
    return STRENGTH[c]


def test_final_value_follows_r13_to_r16():
    assert final_value((0, 0, 0, 0), (-1,) * 4, (False,) * 4) == 0  # R15
    # R14: seat 1 reached 3 first
    assert final_value((3, 3, 2, 1), (5, 4, 8, 2), (False,) * 4) == -1
    assert final_value((0, 0, 2, 0), (-1, -1, 8, -1), (False, False, True, False)) == 2  # R16
    assert final_value((0, 1, 2, 0), (-1, 0, 8, -1), (False, False, True, False)) == 2


def test_mordienne_run_endgame():
    # Two tricks left, nothing won by anyone; seat 0 holds Monsieur and Madame
    # and leads: it wins both tricks, a run to the end: Mordienne, +2.
    pos = Position.from_cards([[card_id(0, 2), card_id(1, 2)], [card_id(0, 3), card_id(1, 3)],
                               [card_id(0, 4), card_id(1, 4)], [card_id(0, 5), card_id(1, 5)]],
                              leader=0, trick_index=7)
    assert Solver().value(pos) == 2
    assert PySolver().value(pos) == 2


def test_spoiling_a_trick_denies_the_opponent_the_deal():
    # Last trick. Seats 0 and 1 have two tricks each; seat 0 reached two first
    # (trick 3 against trick 6), so team 0 leads the deal. Seat 1 leads an Ace
    # that would give it a third trick. Seat 2 (team 0) can spoil it with its
    # own Ace (R11): counts stay level and seat 0 wins the tie-break (+1); its
    # 4 instead lets seat 1 win the deal (-1). Seat 3 holds a 5.
    pos = Position.from_cards([[card_id(0, 5)], [], [card_id(3, 0), card_id(2, 3)],
                               [card_id(2, 4)]], leader=1, trick_cards=[card_id(0, 0)],
                              counts=(2, 2, 0, 0), reached=(3, 6, -1, -1),
                              in_run=(False,) * 4, trick_index=8)
    values = Solver().move_values(pos)
    assert values == {level(card_id(3, 0)): 1, level(card_id(2, 3)): -1}
    assert PySolver().move_values(pos) == values


def random_position(seed: int, tricks_left: tuple[int, ...]) -> tuple[Deal, Position]:
    """A deal played at random until ``tricks_left`` (one of) tricks remain, maybe
    mid-trick, and its solver position."""
    rnd = random.Random(seed)
    deck = list(range(48))
    rnd.shuffle(deck)
    dealer = rnd.randrange(4)
    hands, unused = deal_cards(deck, dealer)
    deal = Deal(hands, dealer, unused)
    for _ in range(36 - 4 * rnd.choice(tricks_left) + rnd.randrange(4)):
        deal.play(rnd.choice(deal.legal_cards()))
    pos = Position.from_cards(deal.hands, deal.leader, deal.trick_cards, counts=tuple(deal.counts),
                              reached=tuple(deal.reached), in_run=tuple(deal.in_run),
                              trick_index=len(deal.tricks))
    return deal, pos


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.slow
def test_solvers_equal_brute_force_on_small_positions(seed):
    deal, pos = random_position(seed, (2, 3))  # 2-3 tricks left, maybe mid-trick
    expected = brute_force(deal)
    assert PySolver().value(pos) == expected
    assert Solver().value(pos) == expected


@pytest.mark.slow
def test_numba_solver_equals_the_python_solver_on_random_positions():
    """Every move's value, on 60 random positions of one to five tricks left
    (the brute force checks both solvers on 25 smaller ones above)."""
    fast = Solver()  # one table for every position, as the expert uses it
    for seed in range(60):
        _, pos = random_position(1000 + seed, (1, 2, 3, 4, 5))
        assert fast.move_values(pos) == PySolver().move_values(pos), pos
    assert fast.nodes > 0
