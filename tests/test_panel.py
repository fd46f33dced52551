"""The panel (aluette_env/evaluation/panel.py): each member's result is the duplicate
evaluation's on the same deals, the minimum and the mean follow from them, fewer
pairs are said, and bad input is one ValueError line before any deal is played.
Cheap members (the rule-based players, one policy) on a few deals."""

import json

import numpy as np
import pytest
from rich.console import Console

from aluette_env.evaluation import PANEL, duplicate_eval, panel_eval, plan_panel
from aluette_env.evaluation import panel as panel_module
from aluette_env.evaluation.panel import panel_table
from aluette_env.players import load_player
from aluette_env.players.heuristic import HeuristicPlayer

CHEAP = ["heuristic", "heuristic:version=1", "ai:version=1"]


def test_the_panel_is_the_declared_members_and_each_loads():
    assert PANEL == ("heuristic", "heuristic:version=1", "ai:version=1", "ai:version=2",
                     "ai:version=4", "ai", "pimc:worlds=64")
    for member in PANEL:
        load_player(member)


def test_each_member_gets_exactly_the_duplicate_evaluation_of_the_same_deals():
    # random as team A: its draws too come from the evaluation seed.
    res = panel_eval("random", list(reversed(CHEAP)), deals=17, seed=3,
                     deals_for={"ai:version=1": 8})
    assert list(res.results) == CHEAP  # the panel's order, whatever the caller's
    for member in CHEAP:
        pairs = 8 if member == "ai:version=1" else 17
        alone = duplicate_eval("random", member, deals=pairs, seed=3)
        assert res.results[member].to_json() == alone.to_json()
        assert np.array_equal(res.results[member].pair_points, alone.pair_points)
    assert res.fewer_pairs == {"ai:version=1": 8}
    assert res.player == "random" and res.deals == 17 and res.seed == 3


def test_minimum_and_mean_follow_from_the_members():
    res = panel_eval("ai:version=1", CHEAP, deals=40, seed=2)
    assert res.itself == ["ai:version=1"]  # (left out: a mirror match scores 0)
    ppd = {m: r.points_per_deal for m, r in res.results.items()}
    assert set(ppd) == {"heuristic", "heuristic:version=1"}
    worst = min(ppd, key=ppd.get)
    assert res.minimum.member == worst and res.minimum.points_per_deal == ppd[worst]
    assert res.minimum.points_per_deal_ci95 == res.results[worst].points_per_deal_ci95
    assert res.mean == pytest.approx(sum(ppd.values()) / 2)


def test_a_player_object_scores_as_its_spec():
    by_object = panel_eval(HeuristicPlayer(), ["heuristic:version=1"], deals=10, seed=0)
    by_spec = panel_eval("heuristic", ["heuristic:version=1"], deals=10, seed=0)
    assert by_object.results["heuristic:version=1"].points_per_deal == \
        by_spec.results["heuristic:version=1"].points_per_deal
    assert by_object.player == "heuristic"


def test_json_and_table_carry_members_minimum_mean_and_fewer_pairs():
    res = panel_eval("heuristic", ["heuristic:version=1", "ai:version=1"], deals=12, seed=0,
                     deals_for={"ai:version=1": 6, "heuristic:version=1": 50})
    data = json.loads(json.dumps(res.to_json()))
    assert list(data) == ["player", "deals", "seed", "members", "minimum", "mean", "fewer_pairs",
                          "itself"]
    assert data["members"]["heuristic:version=1"]["deals"] == 12  # a cap above deals: deals
    assert data["members"]["ai:version=1"] == res.results["ai:version=1"].to_json()
    assert data["minimum"]["member"] == res.minimum.member
    assert data["mean"] == res.mean and data["fewer_pairs"] == {"ai:version=1": 6}
    console = Console(record=True, width=120)
    console.print(panel_table(res))
    text = console.export_text()
    for member in ("heuristic:version=1", "ai:version=1", f"min: {res.minimum.member}", "mean"):
        assert member in text
    assert "fewer pairs than the panel's 12: ai:version=1 6" in text


@pytest.mark.parametrize("kwargs, words", [
    (dict(members=["heuristic", "random"]), "unknown panel member 'random'; the panel: heuristic"),
    (dict(members=[]), "an empty panel; name one or more of: heuristic"),
    (dict(members=["ai", "heuristic", "ai"]), "panel member 'ai' is named twice"),
    (dict(members="heuristic"), "must be a list of player specs"),
    (dict(deals=0), "deals must be a positive integer (1 to 1,000,000), got 0"),
    (dict(deals=10**7), "deals must be a positive integer"),
    (dict(members=["ai"], deals_for={"heuristic": 5}),
     "deal pairs for 'heuristic', which is not in this panel; its members: ai"),
    (dict(deals_for={"pimc:worlds=64": 0}), "the deal pairs for pimc:worlds=64 must be"),
    (dict(deals_for=[("ai", 5)]), "a mapping of panel member -> deal pairs"),
    (dict(members=["heuristic"]), "the panel (heuristic) holds only the player itself"),
])
def test_bad_input_is_one_value_error_line_before_any_deal(kwargs, words, monkeypatch):
    def no_play(*args, **kwargs):
        raise AssertionError("a deal was played before the input was checked")

    monkeypatch.setattr(panel_module, "duplicate_eval", no_play)
    with pytest.raises(ValueError) as err:
        panel_eval("heuristic", **{"deals": 10, **kwargs})
    assert words in str(err.value) and "\n" not in str(err.value)


def test_plan_gives_each_member_its_pairs_in_panel_order():
    assert plan_panel() == {m: 2000 for m in PANEL}
    assert plan_panel(["pimc:worlds=64", "ai"], 300, {"pimc:worlds=64": 40}) == \
        {"ai": 300, "pimc:worlds=64": 40}


def test_the_player_itself_is_left_out_of_its_panel():
    """A mirror match scores 0 whatever the player: ``ai`` (the same model file as
    ``ai:version=6``) is not its own panel member."""
    res = panel_eval("ai", members=["heuristic", "ai"],
                     deals=4, seed=1)
    assert res.itself == ["ai"] and "ai" not in res.results and res.to_json()["itself"] == ["ai"]
    assert res.minimum.member != "ai"
    with pytest.raises(ValueError, match="only the player itself"):
        panel_eval("ai:version=4", members=["ai:version=4"], deals=4)
