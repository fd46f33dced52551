"""Duplicate evaluation: seat swap, determinism, JSON keys, statistics."""

import numpy as np
import pytest

import aluette_env
from aluette_env.evaluation import (
    EvalResult, duplicate_eval, evaluation_deals, mean_ci95, play_table, wilson_ci95,
)
from aluette_env.players import PlayerSpecError
from aluette_env.players.heuristic import HeuristicPlayer
from aluette_env.players.random_player import RandomPlayer


def test_same_team_on_both_sides_scores_zero_with_ci_containing_zero():
    # Random against random: a 95 % interval holds 0 for about 95 % of seeds;
    # this seed is fixed, so the check is deterministic.
    res = duplicate_eval("random", "random", deals=2000, seed=0)
    lo, hi = res.points_per_deal_ci95
    assert lo <= 0 <= hi and hi - lo < 0.06
    # A deterministic player against itself: each deal pair cancels exactly.
    res = duplicate_eval("heuristic", "heuristic", deals=200, seed=3)
    assert res.points_per_deal == 0 and res.points_per_deal_ci95 == [0.0, 0.0]
    assert res.deal_win_rate == res.deal_loss_rate
    assert res.match_win_rate == res.match_loss_rate


def test_both_tables_get_identical_hands_and_dealers():
    hands, dealers = evaluation_deals(10, seed=5)
    h = [HeuristicPlayer()] * 4
    t1 = play_table(h, hands, dealers)
    t2 = play_table([RandomPlayer(1)] * 4, hands, dealers)
    assert np.array_equal(t1.hands, t2.hands) and np.array_equal(t1.hands, hands)
    # Playing the same deals through the AEC env gives the same results.
    e = aluette_env.raw_env(num_deals=5)
    e.reset(options={"deals": hands[:5].tolist(), "first_dealer": int(dealers[0])})
    heur = HeuristicPlayer()
    k = 0
    while not e.match.over:
        o = e.observe(e.agent_selection)
        e.step(heur.act(o["observation"], o["action_mask"]))
        if "deal_result" in e.infos["player_0"]:
            res = e.infos["player_0"]["deal_result"]
            assert [res["points"]["team_0"], res["points"]["team_1"]] == t1.points[k].tolist()
            k += 1
    assert k == 5


def test_evaluation_is_reproducible_from_its_seed():
    a = duplicate_eval("heuristic", "random", deals=120, seed=9).to_json()
    b = duplicate_eval("heuristic", "random", deals=120, seed=9).to_json()
    c = duplicate_eval("heuristic", "random", deals=120, seed=10).to_json()
    assert a == b and a != c


def test_heuristic_beats_random_clearly():
    res = duplicate_eval("heuristic", "random", deals=1000, seed=0)
    assert res.points_per_deal_ci95[0] > 0.3
    assert res.deal_win_rate > 0.6 and res.match_win_rate > 0.8


def test_json_has_exactly_the_documented_keys():
    res = duplicate_eval("heuristic", "random", deals=7, seed=1)  # 5 + a 2-deal match
    keys = ["team_a", "team_b", "deals", "seed", "points_per_deal", "points_per_deal_ci95",
            "deal_win_rate", "match_win_rate", "match_draw_rate", "match_loss_rate",
            "mordienne_rate", "spoiled_rate"]
    assert list(res.to_json()) == keys == list(EvalResult.JSON_KEYS)
    assert res.deals == 7 and res.matches == 4
    rates = res.match_win_rate + res.match_draw_rate + res.match_loss_rate
    assert abs(rates - 1) < 1e-9


def test_worker_processes_give_the_one_process_result():
    # 13 deals: slices of whole matches and a last 3-deal match, over 2 tables.
    one = duplicate_eval("ai", "heuristic", deals=13, seed=4, seats={"player_3": "expert:worlds=8"})
    two = duplicate_eval("ai", "heuristic", deals=13, seed=4, seats={"player_3": "expert:worlds=8"},
                         jobs=3)
    assert one.to_json() == two.to_json()
    assert np.array_equal(one.pair_points, two.pair_points)


def test_worker_processes_need_specs_and_a_positive_count():
    with pytest.raises(ValueError, match="jobs must be a positive integer"):
        duplicate_eval("heuristic", "random", deals=5, jobs=0)
    with pytest.raises(ValueError, match="give specs, not player objects"):
        duplicate_eval(HeuristicPlayer(), "random", deals=5, jobs=2)
    with pytest.raises(PlayerSpecError, match="nobody"):  # in this process, before any worker
        duplicate_eval("heuristic", "nobody", deals=5, jobs=2)


def test_mixed_teams_by_seat():
    res = duplicate_eval("heuristic", "heuristic", deals=300, seed=2, seats={"player_2": "random"})
    assert res.team_a == "heuristic+random" and res.team_b == "heuristic+heuristic"
    assert res.points_per_deal_ci95[1] < 0


def test_statistics_helpers():
    mean, (lo, hi) = mean_ci95(np.array([1.0, -1.0, 1.0, -1.0]))
    assert mean == 0 and lo < 0 < hi and abs(hi - 1.959963984540054 * 2 / np.sqrt(3) / 2 * 1) < 1e-9
    lo, hi = wilson_ci95(50, 100)
    assert lo < 0.5 < hi and abs((lo + hi) / 2 - 0.5) < 1e-12
