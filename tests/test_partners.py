"""The partner panel (aluette_env/evaluation/partners.py): each row is the duplicate
evaluation of the partner beside the candidate, the lift is the paired difference
with the reference team on the same deals, the trick split is counted from the
tables as played, and bad input is one line before any deal is played. Cheap
players (the rule-based ones, one shipped policy) on a few deals."""

import json
import subprocess
import sys

import numpy as np
import pytest
from rich.console import Console

from aluette_env.commands import main as cli_main
from aluette_env.evaluation import (
    ITSELF, PARTNERS, duplicate_eval, mean_ci95, partner_eval, plan_partners, trick_split,
)
from aluette_env.evaluation import partners as partners_module
from aluette_env.evaluation.duplicate import EvalResult, TableRecord
from aluette_env.evaluation.partners import hand_strength, partner_table
from aluette_env.game import STRENGTH
from aluette_env.players import load_player

CHEAP = ["heuristic:version=1", "heuristic", "random"]


def test_the_default_partner_panel_has_both_rule_sets_shipped_careless_and_random():
    assert {"heuristic", "heuristic:version=1", "random"} <= set(PARTNERS)
    assert any(p.startswith("ai:version=") for p in PARTNERS) and "ai" in PARTNERS
    assert any("temperature=" in p for p in PARTNERS)  # a careless person
    for partner in PARTNERS:
        load_player(partner)


def test_each_row_is_the_mixed_team_on_the_same_deals_and_the_lift_is_paired():
    res = partner_eval("ai:version=1", CHEAP, opponent="heuristic", deals=15, seed=5)
    assert list(res.rows) == CHEAP and res.reference == ITSELF
    for partner in CHEAP:
        row = res.rows[partner]
        team = duplicate_eval("ai:version=1", "heuristic", deals=15, seed=5,
                              seats={"player_0": partner})
        pair = duplicate_eval(partner, "heuristic", deals=15, seed=5)  # two copies of P
        assert row.result.to_json() == team.to_json()
        assert np.array_equal(row.reference.pair_points, pair.pair_points)
        lift, ci = mean_ci95(team.pair_points - pair.pair_points)
        assert row.lift == pytest.approx(lift) and row.lift_ci95 == pytest.approx(ci)
    assert res.minimum.lift == min(r.lift for r in res.rows.values())
    assert res.mean_lift == pytest.approx(np.mean([r.lift for r in res.rows.values()]))


def test_a_named_reference_is_the_same_partner_beside_that_player():
    res = partner_eval("heuristic", ["random"], opponent="heuristic:version=1",
                       reference="ai:version=1", deals=10, seed=2)
    other = duplicate_eval("ai:version=1", "heuristic:version=1", deals=10, seed=2,
                           seats={"player_0": "random"})
    assert res.rows["random"].reference.to_json() == other.to_json()
    assert res.to_json()["reference"] == "ai:version=1"


def test_the_split_is_counted_from_the_tables_as_played():
    res = duplicate_eval("heuristic", "ai:version=1", deals=40, seed=9,
                         seats={"player_0": "random"})
    split = trick_split(res)
    t1, t2 = res.tables
    assert split.deals == 80
    # team A: random (P) at seats 0 / 1 and heuristic (X) at 2 / 3 of the two tables.
    p = np.concatenate([t1.tricks[:, 0], t2.tricks[:, 1]])
    x = np.concatenate([t1.tricks[:, 2], t2.tricks[:, 3]])
    won = np.concatenate([np.isin(t1.winner, [0, 2]), np.isin(t2.winner, [1, 3])])
    assert split.win_rate == pytest.approx(won.mean()) == pytest.approx(res.deal_win_rate)
    assert split.partner_carries == pytest.approx((p > x).mean())
    assert split.candidate_carries == pytest.approx((x > p).mean())
    assert split.level_rate == pytest.approx(((p == x) & (p > 0)).mean())
    for table in res.tables:  # every card of every hand is played once
        played = np.sort(table.plays.transpose(0, 2, 1), axis=2)
        assert (played == np.sort(table.hands, axis=2)).all()
        assert (table.leaders >= 0).all()


def _one_trick_table(plays: list[int], leader: int, winner: int) -> TableRecord:
    """A table of one deal whose first trick is ``plays`` (by seat), led by ``leader``;
    the other tricks are spoiled fillers (strength ties) that no one wins."""
    rec = TableRecord.empty(np.zeros((1, 4, 9), np.int8))
    rec.plays[0, 0] = plays
    rec.leaders[0, 0] = leader
    rec.plays[0, 1:] = [4, 16, 28, 40]  # the four 5s: spoiled tricks
    rec.leaders[0, 1:] = 0
    rec.winner[0] = winner
    rec.tricks[0, winner] = 1
    return rec


@pytest.mark.parametrize("plays,leader,over,spoil", [
    # The partner (P, seat 0) leads the Coins Ace, the left opponent a 4, the candidate
    # (X, seat 2) plays third on its partner's winning card:
    ([0, 3, 2, 15], 0, True, False),    # Coins 3 (Monsieur): takes it over
    ([0, 3, 12, 15], 0, False, True),   # Cups Ace: an equal card spoils it (R11)
    ([0, 3, 5, 15], 0, False, False),   # a 6: leaves it to the partner
    ([0, 2, 14, 15], 0, False, False),  # the opponent's Monsieur already beat it
])
def test_overtakes_and_spoils_count_the_candidates_turns_on_a_winning_partner(
        plays, leader, over, spoil):
    table = _one_trick_table(plays, leader, winner=0)
    other = _one_trick_table([3, 4, 5, 6], 0, winner=1)  # the second table: nothing on it
    res = EvalResult("x", "b", 1, 0, 0.0, [0.0, 0.0], 0, 0, 0, 0, 0, 0,
                     pair_points=np.zeros(1), tables=(table, other))
    split = trick_split(res)
    # The one turn on a partner winning alone is the first trick's, when the partner's
    # Ace stands; the fillers are spoiled ties, and nothing is won on the other table.
    assert split.candidate_overtakes == float(over)
    assert split.candidate_spoils == float(spoil)
    assert split.partner_overtakes == 0.0  # the candidate plays after its partner


def test_hand_strength_sums_the_rank_levels():
    assert hand_strength(np.array([2, 14])) == STRENGTH[2] + STRENGTH[14] == 18 + 17
    assert hand_strength(np.zeros((3, 2, 9), np.int8)).shape == (3, 2)


@pytest.mark.parametrize("kwargs,words", [
    ({"partners": []}, "no partners"),
    ({"partners": "heuristic"}, "must be a list"),
    ({"partners": ["heuristic", "heuristic"]}, "named twice"),
    ({"partners": ["heuristic", ""]}, "non-empty player spec"),
    ({"partners": ["heuristic"], "reference": "random"}, "the candidate itself"),
    ({"partners": ["nobody-here"]}, "unknown player"),
    ({"partners": ["heuristic"], "opponent": "nobody-here"}, "unknown player"),
    ({"partners": ["heuristic"], "deals": 0}, "deals must be a positive integer"),
])
def test_bad_input_is_one_value_error_line_before_any_deal(kwargs, words, monkeypatch):
    monkeypatch.setattr(partners_module, "duplicate_eval",
                        lambda *a, **k: pytest.fail("a deal was played"))
    with pytest.raises(ValueError) as err:
        partner_eval("random", **kwargs)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_json_and_table_carry_rows_minimum_and_means():
    res = partner_eval("heuristic", ["random", "heuristic:version=1"], opponent="random",
                       deals=6, seed=1)
    data = json.loads(json.dumps(res.to_json()))
    assert set(data) == {"candidate", "opponent", "reference", "deals", "seed", "partners",
                         "minimum", "mean_lift", "mean_points_per_deal"}
    row = data["partners"]["random"]
    assert set(row["split"]) >= {"level_rate", "split_loss_rate", "stronger_carries",
                                 "candidate_overtakes"}
    assert data["minimum"]["partner"] == res.minimum.partner
    console = Console(width=200, record=True)
    console.print(partner_table(res))
    text = console.export_text()
    assert "heuristic:version=1" in text and "min: " in text and "mean" in text


def test_plan_partners_defaults_to_the_panel():
    assert plan_partners() == list(PARTNERS)
    assert plan_partners([" random "]) == ["random"]


def _eval(*args):
    return subprocess.run([sys.executable, "-m", "aluette_env", "eval", *args, "--quiet"],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_cli_partners_prints_the_panel_and_writes_its_json(tmp_path):
    out = tmp_path / "p.json"
    proc = _eval("--team-a", "heuristic", "--team-b", "random", "--partners",
                 "random,heuristic:version=1,ai:version=1,temperature=2", "--reference",
                 "ai:version=1", "--deals", "4", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert list(data["partners"]) == ["random", "heuristic:version=1",
                                      "ai:version=1,temperature=2"]
    assert data["reference"] == "ai:version=1" and "lift" in proc.stdout


@pytest.mark.parametrize("args,words", [
    (["--team-b", "ai", "--partners", "random,random"], "named twice"),
    (["--team-b", "ai", "--partners", "random", "--seat", "player_0=random"], "--seat"),
    (["--team-b", "ai", "--reference", "random"], "only with --partners"),
    (["--panel", "--partners"], "needs --team-b"),
    (["--team-b", "ai", "--partners", "random", "--signs"], "--signs"),
    (["--team-b", "ai", "--partners", "random", "--reference", "heuristic"], "candidate itself"),
    (["--team-b", "ai", "--partners", "no-such-player"], "unknown player"),
])
def test_cli_bad_partner_input_is_one_line_and_exit_2(args, words, capsys):
    """Through the command runner in this process: a real ``aluette eval``
    process is the test above's, and a real process's exit 2 with one line is
    checked for other commands (test_training.py, test_web.py)."""
    code = cli_main(["eval", "--team-a", "heuristic", *args, "--deals", "3", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and words in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
