"""The coach (aluette_env.apps.coach): hints from the seat's own view, reviews
of recorded deals, and the background queue. Few worlds: the positions are
built so the answer does not depend on sampling."""

from __future__ import annotations

import time

import pytest

from aluette_env.game import Deal, check_hands
from aluette_env.apps.coach import Coach, ReviewQueue, match_summary
from aluette_env.records import load_record, record_of
from conftest import random_match

MONSIEUR, WEAK = 2, 26  # R7: Monsieur is the single strongest card; 3 of Batons the weakest
#: A deal (dealer player_3, so player_0 leads) whose first seven tricks leave
#: player_0 and player_1 on three tricks each, player_1 having reached three
#: last, and player_1 leading trick 8 with Madame; player_0 plays last with
#: Monsieur and the 3 of Batons in hand. Monsieur takes trick 8 and wins the
#: deal (+1 for its team) whatever follows; the 3 gives trick 8 to player_1,
#: who reaches four first and wins the deal (-1): a clear best card, whatever
#: the hidden cards (every later card is forced).
HANDS = [
    [20, 8, 28, 41, 13, 42, 43, MONSIEUR, WEAK],
    [3, 39, 25, 37, 6, 7, 0, 14, 21],
    [15, 4, 40, 17, 18, 19, 32, 44, 45],
    [27, 16, 5, 29, 30, 1, 31, 9, 33],
]
FIRST_TRICKS = [  # cards in play order; winners 0, 0, 1, 1, 0, 3, 1
    [20, 3, 15, 27], [8, 39, 4, 16], [28, 25, 40, 5], [37, 17, 29, 41],
    [6, 18, 30, 13], [42, 7, 19, 1], [31, 43, 0, 32], [14, 44, 9],
]


def position(hands=HANDS) -> Deal:
    deal = Deal(check_hands(hands), 3)
    for trick in FIRST_TRICKS:
        for card in trick:
            deal.play(card)
    assert deal.to_act == 0 and sorted(deal.hands[0]) == [MONSIEUR, WEAK]
    return deal


@pytest.fixture(scope="module")
def coach():
    return Coach(hint_worlds=8, review_worlds=8)


def test_hint_marks_the_clearly_best_card_of_the_last_two_tricks(coach):
    deal = position()
    hint = coach.hint(deal, 0)
    assert hint["best"] == MONSIEUR
    first, second = hint["cards"]
    assert first["card"] == MONSIEUR and first["best"] and first["delta"] == 0
    assert first["value"] == pytest.approx(1.0)
    assert second["card"] == WEAK and second["value"] == pytest.approx(-1.0)
    assert second["delta"] == pytest.approx(-2.0)


def test_hint_is_identical_for_deals_that_differ_only_in_hidden_cards(coach):
    """player_0 cannot see the others' last cards nor the unused ones: moving
    them around changes nothing it is told."""
    hidden = [list(h) for h in HANDS]
    hidden[1][-1], hidden[2][-1] = 22, 47  # unused cards in place of the last ones
    hidden[3][-1] = 21  # and a card moved from player_1 to player_3
    a, b = position(HANDS), position(hidden)
    assert a.hands[1] != b.hands[1]
    assert coach.hint(a, 0) == coach.hint(b, 0)


def test_hint_only_on_the_seats_turn(coach):
    deal = position()
    with pytest.raises(ValueError, match="not that seat's turn"):
        coach.hint(deal, 1)


def test_coach_options_are_checked():
    with pytest.raises(ValueError, match="hint_worlds must be an integer from 1 to 4096, got 0"):
        Coach(hint_worlds=0)


def _record(last_card: int) -> dict:
    deal = position()
    deal.play(last_card)
    while not deal.done:  # every later card is forced
        deal.play(deal.legal_cards()[0])
    return load_record(record_of([deal], 3, ["human", "ai", "ai", "ai"], num_deals=1))


def test_review_marks_a_costly_play_as_a_mistake_and_not_the_best(coach):
    bad = coach.review_deal(_record(WEAK), 0, [0])
    mine = [p for p in bad["plays"] if p["review"] is not None]
    assert len(mine) == 9 and all(p["seat"] == 0 for p in mine)
    eighth = mine[7]["review"]
    assert mine[7]["card"] == WEAK and eighth["best"] == MONSIEUR
    assert eighth["cost"] == pytest.approx(2.0) and eighth["mistake"]
    assert not mine[8]["review"]["mistake"]  # one card left: nothing to choose
    good = coach.review_deal(_record(MONSIEUR), 0, [0])
    assert good["plays"][31]["review"]["cost"] == 0
    assert not good["plays"][31]["review"]["mistake"]
    summary = match_summary([bad])["seats"]["0"]
    assert summary["decisions"] == 9 and summary["mistakes"] >= 1
    assert summary["mean_cost"] == pytest.approx(summary["total_cost"] / 9, abs=1e-3)


def test_reviews_run_in_the_background(coach):
    queue = ReviewQueue(coach.review_deal)
    try:
        record = _record(WEAK)
        queue.submit("m", record, 0, [0, 2])
        assert queue.known("m", 0) and not queue.known("m", 1)
        review = queue.wait("m", 0, timeout=120)
        assert queue.get("m", 0) == review
        seats = {p["seat"] for p in review["plays"] if p["review"] is not None}
        assert seats == {0, 2}
    finally:
        queue.close()


# ------------------------------------------------------------------ the web routes


@pytest.fixture(scope="module")
def client():
    import web_helpers

    with web_helpers.client(left="heuristic", seed=5, hint_worlds=4) as c:
        yield c


def _play_match(client) -> str:
    """A whole match through the API, the first legal card each turn; the game id."""
    r = client.post("/api/games", json={})
    gid, state = r.json()["id"], r.json()["state"]
    while not state["match"]["over"]:
        if state["deal"]["done"]:
            state = client.post(f"/api/games/{gid}/next-deal", json={}).json()["state"]
            continue
        state = client.post(f"/api/games/{gid}/play", json={
            "card": state["legal"][0], "version": state["version"]}).json()["state"]
    return gid


def test_web_hint_only_on_your_turn_and_from_your_view(client):
    r = client.post("/api/games", json={})
    gid, state = r.json()["id"], r.json()["state"]
    assert state["your_turn"]
    hint = client.get(f"/api/games/{gid}/hint").json()
    assert sorted(e["card"] for e in hint["cards"]) == state["legal"]
    assert hint["best"] in state["legal"] and hint["version"] == state["version"]
    assert sum(e["best"] for e in hint["cards"]) == 1
    gid_done = _play_match(client)
    r = client.get(f"/api/games/{gid_done}/hint")
    assert r.status_code == 409 and "not your turn" in r.json()["error"]


@pytest.mark.slow
def test_web_reviews_record_download_and_replay(client):
    gid = _play_match(client)
    queue = client.app.state.coach.queue
    for d in range(5):  # every finished deal was queued as it ended
        queue.wait(f"{gid}:1", d, timeout=300)
    review = client.get(f"/api/games/{gid}/review").json()
    assert len(review["deals"]) == 5 and all(d is not None for d in review["deals"])
    assert set(review["summary"]["seats"]) == {"0", "2"}
    assert review["summary"]["seats"]["0"]["decisions"] == 45
    r = client.get(f"/api/games/{gid}/record")
    assert "attachment" in r.headers["content-disposition"]
    record = r.json()
    assert record["players"]["player_0"] == "human" and len(record["deals"]) == 5
    up = client.post("/api/records", content=r.content)
    assert up.status_code == 201
    rid = up.json()["id"]
    shown = client.get(f"/api/records/{rid}").json()
    assert shown["record"] == record and len(shown["tricks"]) == 5
    assert all(len(t) == 9 for t in shown["tricks"])
    assert [len(steps) for steps in shown["steps"]] == [37] * 5  # the replay's snapshots
    assert [len(h) for h in shown["steps"][0][4]["hands"]] == [8] * 4
    bad = dict(record, result={"points": {"team_0": 99, "team_1": 0}, "winner": "team_0"})
    r = client.post("/api/records", json=bad)
    assert r.status_code == 400 and "result.points.team_0" in r.json()["error"]
    assert client.get("/api/records/nope").status_code == 404


# ------------------------------------------------------------------ the terminal


def test_terminal_hint_review_and_record(coach, tmp_path):
    import io

    from rich.console import Console

    from aluette_env.apps.terminal import TerminalGame
    from aluette_env.players.random_player import RandomPlayer
    from aluette_env.records import read_record

    turn = "1\ny\n"
    deal = turn * 8
    stdin = "h\n" + deal + "r\n\n" + (deal + "\n") * 3 + deal + "q\n"
    out = io.StringIO()
    made = []
    game = TerminalGame({s: RandomPlayer(s) for s in (1, 2, 3)}, seed=1,
                        console=Console(file=out, width=100, color_system=None),
                        stdin=io.StringIO(stdin), specs={1: "random", 2: "random", 3: "random"},
                        coach=lambda: made.append(1) or coach, record_dir=str(tmp_path))
    assert game.run() == 0
    text = out.getvalue()
    assert made == [1]  # made once, on the first h
    assert "The expert's estimate" in text and "(best)" in text
    assert "Review of deal 1 by the expert" in text
    assert "You: " in text.split("Review of deal 1")[1] and "decisions" in text
    files = list(tmp_path.glob("*.json"))
    assert len(files) == 1 and f"Match record saved: {files[0]}" in text.replace("\n", "")
    record = read_record(files[0])
    assert record["players"] == {"player_0": "human", "player_1": "random",
                                 "player_2": "random", "player_3": "random"}
    assert len(record["deals"]) == 5


# ------------------------------------------------------------------ aluette review


def test_review_command_prints_the_deal_and_the_summary(tmp_path, capsys):
    import json

    from aluette_env.commands import main
    from aluette_env.records import save_record
    path = save_record(_record(WEAK), tmp_path, "m")
    out = tmp_path / "review.json"
    assert main(["review", str(path), "--worlds", "4", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Trick 8" in text and "MISTAKE" in text and "decisions: 9," in text
    saved = json.loads(out.read_text())
    assert saved["summary"]["seats"]["0"]["decisions"] == 9
    assert main(["review", str(path), "--seats", "north"]) == 2
    assert "--seats 'north'" in capsys.readouterr().err
    bad = json.loads(path.read_text())
    bad["deals"][0]["plays"][0][0] = "player_2"
    path.write_text(json.dumps(bad))
    assert main(["review", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "deals[0].plays[0]: player_2 plays out of turn" in err


@pytest.mark.parametrize("lang, words", [
    ("fr", ("Pli 8", "ERREUR", "décisions : 9,", "Analyse de l'expert", "coût")),
    ("ar", ("الحيلة 8", "خطأ", "القرارات: 9،", "مراجعة الخبير", "الكلفة")),
])
def test_review_command_speaks_the_language_asked(tmp_path, capsys, lang, words):
    """--lang words the review from the apps' catalog: no English sentence left."""
    from aluette_env.commands import main
    from aluette_env.records import save_record
    path = save_record(_record(WEAK), tmp_path, "m")
    assert main(["review", str(path), "--worlds", "4", "--lang", lang]) == 0
    text = capsys.readouterr().out
    for word in words:
        assert word in text, word
    for english in ("Trick", "MISTAKE", "decisions", "cost", "Deal won", "expert:", "Match:"):
        assert english not in text, english



def test_a_deal_result_is_one_sentence_for_the_narrator_the_review_and_the_replay(
        tmp_path, capsys):
    """A recorded deal's result is worded once, by the narrator: the page's replay
    (coach.js ``dealResult``) asks the catalog for the same message ids, and the
    review prints the narrator's sentence."""
    import json
    import re

    from aluette_env.apps.narrator import Narrator
    from aluette_env.apps.web.page import STATIC_DIR
    from aluette_env.commands import main
    from aluette_env.records import save_record

    words, asked = Narrator("fr"), []
    gettext = words._
    words._ = lambda message: asked.append(message) or gettext(message)
    for winner, mordienne in ((None, False), ("player_1", False), ("player_1", True)):
        words.deal_result({"winner": winner, "mordienne": mordienne,
                           "points": {"team_0": 0, "team_1": 2}}, winner or "")
    script = (STATIC_DIR / "coach.js").read_text(encoding="utf-8")
    replay = script.split("function dealResult(")[1].split("\n  }\n")[0]
    assert len(set(asked)) == 3
    assert sorted(asked) == sorted(re.findall(r't\("([^"]*)"', replay))

    path = save_record(_record(WEAK), tmp_path, "m")
    assert main(["review", str(path), "--worlds", "4", "--lang", "fr"]) == 0
    result = json.loads(path.read_text())["deals"][0]["result"]
    said = Narrator("fr").deal_result(result, result["winner"] or "")
    assert said in capsys.readouterr().out.splitlines()


# ------------------------------------------------- bad input and load: reviews


def test_uploads_neither_delay_nor_evict_a_live_games_review():
    """Uploaded records' reviews (background) run only when no live
    game's review waits, and however many are queued they never push a live
    game's review out of the queue."""
    import threading

    order: list[str] = []
    gate = threading.Event()

    def review(record, deal_index, seats):
        gate.wait(30)
        order.append(record)
        return {"deal": deal_index, "of": record}

    queue = ReviewQueue(review, max_kept=5, max_background=5)
    try:
        for k in range(30):  # far more uploaded deals than either class keeps
            queue.submit(f"record:{k}", f"upload {k}", 0, (0,), background=True)
        queue.submit("live", "live", 0, (0, 2))
        for k in range(30, 60):
            queue.submit(f"record:{k}", f"upload {k}", 0, (0,), background=True)
        gate.set()
        deadline = time.monotonic() + 30
        while queue.get("live", 0) is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert queue.get("live", 0) == {"deal": 0, "of": "live"}  # kept, never evicted
        assert order.index("live") <= 1  # at most the upload already running went first
        assert not queue.known("record:0", 0) and queue.known("record:59", 0)
    finally:
        queue.close()


def test_a_failed_review_is_queued_again_when_asked_for():
    """A review whose worker died is not an error
    forever; the next ask queues it again."""
    calls = []

    def review(record, deal_index, seats):
        calls.append(deal_index)
        if len(calls) == 1:
            raise RuntimeError("the review worker process died")
        return {"deal": deal_index}

    queue = ReviewQueue(review)
    try:
        queue.submit("m", {}, 0, (0,))
        deadline = time.monotonic() + 30
        result = None
        while result is None and time.monotonic() < deadline:
            result = queue.get("m", 0)  # never raises
            time.sleep(0.01)
        assert result == {"deal": 0} and calls == [0, 0]
    finally:
        queue.close()


def test_review_never_writes_its_json_over_the_record(tmp_path, capsys):
    """--json naming the record (or a link to it, or a folder, or a path
    that cannot be written) is refused before any review runs; the record stays."""
    from aluette_env.commands import run_command
    from aluette_env.records import save_record
    path = save_record(_record(WEAK), tmp_path, "m")
    before = path.read_bytes()
    link = tmp_path / "link.json"
    link.symlink_to(path)
    for out in (str(path), str(link), str(tmp_path), "/proc/x.json", ""):
        started = time.monotonic()
        assert run_command(["review", str(path), "--worlds", "4", "--json", out]) == 2, out
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "--json" in err and "Traceback" not in err
        assert time.monotonic() - started < 5  # refused before the review's work
    assert path.read_bytes() == before


@pytest.mark.parametrize("name, shown", [
    ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
    ("[bold]loud[/bold]", "[bold]loud[/bold]"),
    ("two\nlines", "two\\nlines"),
    ("\u202eevil", "\\u202eevil"),
])
def test_review_prints_player_names_as_written(tmp_path, capsys, name, shown):
    """A name from the record reaches the terminal as text: no ANSI
    escape, no rich markup, no broken line."""
    from aluette_env.commands import run_command
    from aluette_env.records import save_record
    record = _record(WEAK)
    record["players"]["player_1"] = name
    path = save_record(record, tmp_path, "m")
    assert run_command(["review", str(path), "--worlds", "2", "--seats", "all"]) == 0
    out = capsys.readouterr().out
    assert shown in out and "\x1b" not in out and "\u202e" not in out
    assert "two\nlines" not in out


def test_the_terminal_game_prints_player_names_as_written():
    """In the terminal game, a seat's spec (a model path) is printed as text too."""
    import io

    from rich.console import Console

    from aluette_env.apps.terminal import TerminalGame
    from aluette_env.players.random_player import RandomPlayer
    out = io.StringIO()
    game = TerminalGame({s: RandomPlayer(s) for s in (1, 2, 3)}, seed=1,
                        console=Console(file=out, width=100, color_system=None),
                        stdin=io.StringIO(""),
                        specs={1: "/m/\x1b[2Jx.onnx", 2: "[bold]b.onnx", 3: "a\nb.onnx"})
    game.start()
    game.show_players()
    text = out.getvalue()
    assert "\x1b" not in text and "\\x1b[2Jx.onnx" in text and "[bold]b.onnx" in text
    assert "a\\nb.onnx" in text


def test_the_coach_is_warmed_as_the_server_starts():
    """The hint worker is started and its expert loaded as the server starts,
    before anyone asks: the first hint comes from that same worker."""
    import web_helpers

    with web_helpers.client(left="heuristic", seed=5, hint_worlds=4) as c:
        app = c.app
        deadline = time.monotonic() + 120
        while not app.state.warming.done():
            assert time.monotonic() < deadline, "the coach's warm-up did not end"
            time.sleep(0.05)
        assert app.state.warming.exception() is None
        hint_worker = app.state.coach.workers.pools["hint"]
        warmed = hint_worker.processes()
        assert warmed  # started before any hint was asked
        gid = c.post("/api/games", json={}).json()["id"]
        assert c.get(f"/api/games/{gid}/hint").status_code == 200
        assert hint_worker.processes() == warmed


def test_a_record_opened_again_has_its_reviews_at_once(client):
    """The reviews of an uploaded record belong to its content: the same
    record opened again (a new id) shows them in its first answer."""
    import json

    body = json.dumps(record_of(random_match(4)[:1], 1, ["human", "ai", "ai", "ai"]))
    first = client.post("/api/records", content=body).json()["id"]
    deadline = time.monotonic() + 300
    while (reviews := client.get(f"/api/records/{first}").json()["deals"]) != [] and \
            None in reviews:
        assert time.monotonic() < deadline, "the record's review did not come"
        time.sleep(0.05)
    again = client.post("/api/records", content=body).json()["id"]
    assert again != first
    assert client.get(f"/api/records/{again}").json()["deals"] == reviews
