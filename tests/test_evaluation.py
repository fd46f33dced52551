"""Duplicate evaluation: seat swap, determinism, JSON keys, statistics."""

import os
import signal
import subprocess
import sys
import time

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


def test_match_winners_are_the_rules_winning_team(monkeypatch):
    """R2 decides a match: the evaluation asks the rules (``winning_team``) who
    won each match instead of reading the sign of the points itself."""
    from aluette_env.evaluation import duplicate
    from aluette_env.game import NOBODY
    res = duplicate_eval("heuristic", "random", deals=20, seed=1)
    assert res.match_win_rate > 0
    monkeypatch.setattr(duplicate, "winning_team", lambda p0, p1: NOBODY)  # all drawn
    res = duplicate_eval("heuristic", "random", deals=20, seed=1)
    assert (res.match_win_rate, res.match_draw_rate, res.match_loss_rate) == (0, 1, 0)


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


@pytest.mark.slow
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


# ----------------------------------------------------------- bad input: the API


@pytest.mark.parametrize("call, exc, words", [
    (lambda: duplicate_eval(None, "random", deals=1), TypeError, "team_a"),
    (lambda: duplicate_eval(5, "random", deals=1), TypeError, "team_a"),
    (lambda: duplicate_eval("random", object(), deals=1), TypeError, "team_b"),
    (lambda: duplicate_eval("random", "random", deals=1, seats="player_0"), TypeError, "seats"),
    (lambda: duplicate_eval("random", "random", deals=1, seats={"player_0": 5}), TypeError,
     "seats['player_0']"),
    (lambda: duplicate_eval("random", "random", deals=1, seats={"north": "random"}),
     ValueError, "north"),
    (lambda: duplicate_eval("random", "random", deals=10**12), ValueError, "deals"),
    (lambda: duplicate_eval("random", "random", deals=True), ValueError, "deals"),
    (lambda: duplicate_eval("random", "random", deals=1, seed=-1), ValueError, "seed"),
    (lambda: duplicate_eval("random", "random", deals=1, jobs=10**9), ValueError, "jobs"),
])
def test_duplicate_eval_names_a_bad_argument(call, exc, words):
    """Each bad argument is a ValueError or TypeError naming it, before
    any deal is drawn (10**12 deals were a MemoryError)."""
    with pytest.raises(exc) as err:
        call()
    assert words in str(err.value) and "\n" not in str(err.value)


def _alive(pid: int) -> bool:
    """A process that still runs (a zombie waiting for its new parent counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def _tree(pid: int) -> list[int]:
    """Every descendant of ``pid`` (Linux /proc)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{p}/task/{task}/children") as f:
                    kids = [int(x) for x in f.read().split()]
            except OSError:
                continue
            found += kids
            todo += kids
    return found


def _watching_their_parent(pid: int) -> bool:
    """``pid`` has multiprocessing's resource tracker and two workers, each with a
    second thread: the one that watches its parent, started by the worker's
    initializer before any import that starts threads of its own (the job's)."""
    def cmdline(p: int) -> bytes:
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                return f.read()
        except OSError:
            return b""

    def threads(p: int) -> int:
        try:
            return len(os.listdir(f"/proc/{p}/task"))
        except OSError:
            return 0
    children = _tree(pid)
    workers = [p for p in children if b"resource_tracker" not in cmdline(p)]
    return len(children) >= 3 and len(workers) >= 2 and all(threads(p) >= 2 for p in workers)


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads Linux /proc")
def test_killed_evaluation_leaves_no_worker_or_resource_tracker():
    """SIGKILL of ``aluette eval --jobs 2`` (no cleanup runs) ends its
    worker processes and multiprocessing's resource tracker too: the workers
    watch their parent."""
    proc = subprocess.Popen([sys.executable, "-m", "aluette_env", "eval", "--team-a",
                             "pimc:worlds=8", "--team-b", "random", "--deals", "100000",
                             "--jobs", "2", "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not _watching_their_parent(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        children = _tree(proc.pid)
        assert _watching_their_parent(proc.pid), children
    finally:
        proc.kill()
        proc.wait(timeout=30)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(_alive(p) for p in children):
        time.sleep(0.2)
    left = [p for p in children if _alive(p)]
    for p in left:  # do not leave them running after a failure
        os.kill(p, signal.SIGKILL)
    assert not left, f"still running after the evaluation was killed: {left}"
