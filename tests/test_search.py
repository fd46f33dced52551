"""The perfect-information solver (hand-built endgames, brute force on small
positions) and the PIMC player."""

import copy
import random

import numpy as np
import pytest

import aluette_env
from aluette_env.game.cards import STRENGTH, card_id
from aluette_env.players import load_player
from aluette_env.game.rules import (NO_TRICKS, Deal, after_trick, deal_cards, deal_value, team_of,
                                    team_value, trick_winner)
from aluette_env.players.search import (FastSolver, Position, SearchPlayer, Solver, final_team_value,
                                        final_value, level_trick_winner,
                                        position_from_observation, tally_after_trick)


def level(c):
    return STRENGTH[c]


def test_final_value_follows_r13_to_r16():
    assert final_value((0, 0, 0, 0), (-1,) * 4, (False,) * 4) == 0  # R15
    assert final_value((3, 3, 2, 1), (5, 4, 8, 2), (False,) * 4) == -1  # R14: seat 1 reached 3 first
    assert final_value((0, 0, 2, 0), (-1, -1, 8, -1), (False, False, True, False)) == 2  # R16
    assert final_value((0, 1, 2, 0), (-1, 0, 8, -1), (False, False, True, False)) == 2


def test_mordienne_run_endgame():
    # Two tricks left, nothing won by anyone; seat 0 holds Monsieur and Madame
    # and leads: it wins both tricks, a run to the end: Mordienne, +2.
    pos = Position.from_cards([[card_id(0, 2), card_id(1, 2)], [card_id(0, 3), card_id(1, 3)],
                               [card_id(0, 4), card_id(1, 4)], [card_id(0, 5), card_id(1, 5)]],
                              leader=0, trick_index=7)
    assert Solver().value(pos) == 2


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


def brute_force(deal: Deal) -> int:
    """Plain minimax over every card (no pruning, no table) with the rules engine."""
    if deal.done:
        s = deal.score()
        if s.winner is None:
            return 0
        return s.points if team_of(s.winner) == 0 else -s.points
    values = []
    for card in deal.legal_cards():
        d = copy.deepcopy(deal)
        d.play(card)
        values.append(brute_force(d))
    return max(values) if team_of(deal.to_act) == 0 else min(values)


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


def test_pimc_samples_consistent_worlds():
    e = aluette_env.raw_env(num_deals=1)
    e.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(14):
        e.step(int(rng.choice(e.deal.legal_cards())))
    seat = e.deal.to_act
    vec = e.observe(f"player_{seat}")["observation"]
    played = {c for t in e.deal.tricks for c in t.cards} | set(e.deal.trick_cards)
    r = random.Random(0)
    for _ in range(20):
        pos, hand = position_from_observation(vec, r)
        assert sorted(hand) == sorted(e.deal.hands[seat])
        for rel in range(4):
            assert len(pos.hands[rel]) == len(e.deal.hands[(seat + rel) % 4])
        assert pos.counts == tuple(e.deal.counts[(seat + k) % 4] for k in range(4))
        assert pos.trick == tuple(STRENGTH[c] for c in e.deal.trick_cards)
    assert played  # the sampled worlds never deal played cards (sizes above)


def test_pimc_player_is_deterministic_legal_and_named_by_spec():
    p = load_player("pimc:worlds=4,solve_tricks=3")
    assert isinstance(p, SearchPlayer) and p.worlds == 4 and p.solve_tricks == 3
    g = aluette_env.vector.VectorGame(3, seed=2)
    g.reset()
    for _ in range(40):
        a = p.act_batch(g.obs, g.mask)
        assert np.array_equal(a, SearchPlayer(worlds=4, solve_tricks=3).act_batch(g.obs, g.mask))
        assert all(g.mask[i, a[i]] for i in range(3))
        g.step(a)
    with pytest.raises(ValueError):
        load_player("pimc:worlds=0")


def test_pimc_moves_are_the_same_in_another_process():
    import subprocess
    import sys
    code = ("import numpy as np\nfrom aluette_env.players.search import SearchPlayer\n"
            "from aluette_env.vector import VectorGame\n"
            "g = VectorGame(4, seed=9); g.reset()\n"
            "p = SearchPlayer(worlds=3, solve_tricks=2, depth_tricks=1, seed=1)\n"
            "out = []\n"
            "for _ in range(30):\n"
            "    a = p.act_batch(g.obs, g.mask); out += a.tolist(); g.step(a)\n"
            "print(out)\n")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={"PYTHONHASHSEED": str(k), "PATH": ""}).stdout
            for k in (1, 2)]
    assert runs[0] == runs[1] and len(runs[0]) > 50


# ---------------------------------------------------------------- the numba solver


def test_numba_rule_helpers_match_the_game_core():
    rnd = random.Random(0)
    for _ in range(2000):
        cards = rnd.sample(range(48), 4)
        leader = rnd.randrange(4)
        w = trick_winner(cards, leader)
        assert level_trick_winner(np.array([STRENGTH[c] for c in cards]), leader) == \
            (-1 if w is None else w)
        winners = [rnd.choice([0, 1, 2, 3, None]) for _ in range(9)]
        counts, reached, in_run = NO_TRICKS
        c, r, i = np.array(counts), np.array(reached), np.array(in_run)
        for index, w in enumerate(winners):
            counts, reached, in_run = after_trick(counts, reached, in_run, w, index)
            tally_after_trick(c, r, i, -1 if w is None else w, index)
            assert (tuple(c), tuple(r), tuple(i)) == (counts, reached, in_run)
        assert final_team_value(c, r, i) == team_value(deal_value(counts, reached, in_run))


@pytest.mark.parametrize("seed", range(25))
def test_solvers_equal_brute_force_on_small_positions(seed):
    deal, pos = random_position(seed, (2, 3))  # 2-3 tricks left, maybe mid-trick
    expected = brute_force(deal)
    assert Solver().value(pos) == expected
    assert FastSolver().value(pos) == expected


def test_numba_solver_equals_the_python_solver_on_random_positions():
    fast = FastSolver()  # one table for every position, as the expert uses it
    for seed in range(150):
        _, pos = random_position(1000 + seed, (1, 2, 3, 4, 5))
        assert fast.move_values(pos) == Solver().move_values(pos), pos
    assert fast.nodes > 0
