"""The coach in a real browser (the fixtures and skips of browser_fixtures.py):
the Hint button and key on your turn, and a record opened from a file,
replayed forwards and backwards with all four hands and the review beside
each play, and all of it in the page's language. With
``ALUETTE_SCREENSHOTS=DIR`` it saves the README's coach screenshots there."""

from __future__ import annotations

import json
import re

import pytest

from browser_fixtures import (
    MATCH_TIMEOUT_MS, NEEDS_BROWSER, open_table, shoot, wait_ready,
)
from conftest import random_match
from web_helpers import play_through_api

pytest_plugins = ["browser_fixtures"]  # the session's one browser
pytestmark = [*NEEDS_BROWSER]


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB",
                                  reduced_motion="reduce")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.url_base = server.url
    yield page
    context.close()
    assert not errors, errors


def test_hint_button_and_key_mark_the_experts_card(page):
    open_table(page)
    assert wait_ready(page) == "your-turn"
    hand = page.locator(".hand-card").count()
    page.click("#coach-hint-button")
    page.wait_for_selector("body[data-hint=shown]", state="attached", timeout=MATCH_TIMEOUT_MS)
    items = page.locator("#coach-hint .coach-list li")
    assert items.count() == hand
    assert page.locator("#coach-hint .coach-best").count() == 1
    best = page.locator("#coach-hint .coach-best").get_attribute("data-card")
    assert page.locator(".hand-card.coach-pick").get_attribute("data-card") == best
    assert "(best)" in page.locator("#coach-hint .coach-best").inner_text()
    shoot(page, "coach-hint")
    page.evaluate("delete document.body.dataset.hint")
    page.keyboard.press("h")
    page.wait_for_selector("body[data-hint=shown]", state="attached", timeout=MATCH_TIMEOUT_MS)


def test_a_record_opened_from_a_file_replays_both_ways_with_its_review(page, tmp_path):
    from aluette_env.records import record_of, replay_steps
    path = tmp_path / "match.json"
    record = record_of(random_match(4), 1, ["human", "ai", "ai", "ai"])
    path.write_text(json.dumps(record))
    open_table(page)
    page.set_input_files("#coach-file", str(path))
    page.wait_for_selector("#replay[open]", timeout=MATCH_TIMEOUT_MS)
    assert "record=" in page.url
    hands = page.locator(".replay-hand")
    assert hands.count() == 4
    assert page.locator(".replay-hand .card").count() == 36  # every hand shown
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    page.wait_for_selector("body[data-replay-step='0:4']", state="attached")
    assert page.locator(".replay-hand .card").count() == 32
    trick = page.locator("#replay-trick").inner_text()
    assert "Taken by" in trick or "Spoiled" in trick
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("body[data-replay-step='0:3']", state="attached")
    assert page.locator(".replay-hand .card").count() == 33
    # The page draws the server's snapshot, card for card (it computes no rule).
    shown = [page.locator(f".replay-seat-{seat} .card").evaluate_all(
        "cards => cards.map((c) => Number(c.dataset.card))") for seat in range(4)]
    assert shown == replay_steps(record)[0][3]["hands"]
    # The review arrives from the background: every human play gets its line.
    page.wait_for_selector(".replay-plays li .coach-value:has-text('expert')",
                           timeout=MATCH_TIMEOUT_MS)
    lines = page.locator(".replay-plays li").all_inner_texts()
    assert len(lines) == 36
    shoot(page, "coach-review")
    page.click("#replay-next")
    page.wait_for_selector("body[data-replay-step='0:4']", state="attached")


def test_the_coach_speaks_the_pages_language(page, tmp_path):
    """Every word of the coach comes from the page's catalog (here French):
    its buttons, the hint, the replay and the review beside each play."""
    from aluette_env.records import record_of
    open_table(page, lang="fr")
    assert wait_ready(page) == "your-turn"
    assert page.locator("#coach-hint-button").inner_text() == "Conseil (H)"
    page.click("#coach-hint-button")
    page.wait_for_selector("body[data-hint=shown]", state="attached", timeout=MATCH_TIMEOUT_MS)
    assert "(meilleure)" in page.locator("#coach-hint .coach-best").inner_text()
    assert "Estimation de l'expert" in page.locator("#coach-hint .coach-note").inner_text()
    path = tmp_path / "match.json"
    path.write_text(json.dumps(record_of(random_match(4), 1, ["human", "ai", "ai", "ai"])))
    page.set_input_files("#coach-file", str(path))
    page.wait_for_selector("#replay[open]", timeout=MATCH_TIMEOUT_MS)
    assert page.locator("#replay-title").inner_text().startswith("Donne 1 sur 5 · carte 0 sur 36")
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    page.wait_for_selector("body[data-replay-step='0:4']", state="attached")
    trick = page.locator("#replay-trick").inner_text()
    assert "Pris par" in trick or "Pourri" in trick
    page.wait_for_selector(".replay-plays li .coach-value:has-text('expert')",
                           timeout=MATCH_TIMEOUT_MS)
    assert "décisions :" in page.locator("#replay-summary").inner_text()
    assert page.locator("#replay-next").inner_text() == "Suivant ▶"


#: Where each sign of a signed number sits beside its first digit on screen:
#: [sign's x, digit's x] for each "+"/"−"/"-" followed by a digit (the LRI/PDI
#: isolates and the bidi marks between them skipped).
SIGNS_JS = """(root) => {
  const out = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent;
    for (let i = 0; i < text.length; i++) {
      if (!"+−-".includes(text[i])) continue;
      let j = i + 1;
      while (j < text.length && /[\\u200e\\u200f\\u061c\\u2066-\\u2069]/.test(text[j])) j++;
      if (!/[0-9]/.test(text[j] || "")) continue;
      const box = (k) => { const r = document.createRange(); r.setStart(node, k);
                           r.setEnd(node, k + 1); return r.getBoundingClientRect().x; };
      out.push([box(i), box(j), text]);
    }
  }
  return out;
}"""


def test_numbers_follow_the_pages_language_and_keep_their_sign_on_the_left(page):
    """Arabic: every signed number of the hint shows its sign on the left of its
    digits, as in the rest of the page; French: decimal commas throughout (the
    hint and the pace); the last card's hint counts no simulated deals."""
    open_table(page, lang="ar")
    page.click("#coach-hint-button")
    page.wait_for_selector("body[data-hint=shown]", state="attached", timeout=MATCH_TIMEOUT_MS)
    signs = page.locator("#coach-hint").evaluate(SIGNS_JS)
    assert len(signs) >= 2, signs
    for sign_x, digit_x, text in signs:
        assert sign_x < digit_x, text
    assert "0.15+" not in page.locator("#coach-hint").inner_text()

    page.evaluate("localStorage.setItem('aluette.lang', 'fr')")
    page.reload()
    wait_ready(page)
    page.click("#coach-hint-button")
    page.wait_for_selector("body[data-hint=shown]", state="attached", timeout=MATCH_TIMEOUT_MS)
    values = page.locator("#coach-hint .coach-value").all_inner_texts()
    assert all(re.search(r"\d,\d\d", v) and not re.search(r"\d\.\d", v) for v in values), values
    page.click("#open-settings")
    assert page.locator("#pace-out").inner_text() == "0,0 s"
    page.keyboard.press("Escape")
    # to the last card of the deal, through the API; the page shows it once reloaded
    play_through_api(page.url_base, [page.evaluate("sessionStorage.getItem('aluette.game')")],
                     lambda v: v["your_turn"] and len(v["hand"]) == 1)
    page.reload()
    assert wait_ready(page) == "your-turn" and page.locator(".hand-card").count() == 1
    page.click("#coach-hint-button")
    page.wait_for_selector("body[data-hint=shown]", state="attached", timeout=MATCH_TIMEOUT_MS)
    note = page.locator("#coach-hint .coach-note").inner_text()
    assert "simulées" not in note and "0" not in note, note


def test_the_replay_names_seats_and_sides_in_the_pages_words(page, tmp_path):
    """No internal id in the replay (player_0, team_0): the seats as the table
    names them, in the page's language; the play shown is scrolled into view;
    on a phone the review of a finished deal shows each play's whole line."""
    from aluette_env.records import record_of
    path = tmp_path / "match.json"
    path.write_text(json.dumps(record_of(random_match(4), 1, ["ai", "human", "ai", "ai"])))
    open_table(page, lang="fr")
    page.set_input_files("#coach-file", str(path))
    page.wait_for_selector("#replay[open]", timeout=MATCH_TIMEOUT_MS)
    heads = page.locator(".replay-hand h3").all_inner_texts()
    # the person sat west (player_1): "You" there, the others around them
    assert heads[1] == "Vous" and heads[3].startswith("Partenaire (") and \
        heads[0].startswith("Est (") and heads[2].startswith("Ouest ("), heads
    for _ in range(36):
        page.keyboard.press("ArrowRight")
    page.wait_for_selector("body[data-replay-step='0:36']", state="attached")
    text = page.locator("#replay").inner_text()
    assert not re.search(r"player_\d|team_\d|\(human\)", text), text
    assert "Vous et partenaire" in page.locator("#replay-summary").inner_text()
    # Both boxes in one script: the review's poll redraws the list, so two
    # separate lookups may straddle a redraw and find the play detached.
    plays, current = page.evaluate("""() => {
        const box = (e) => { const r = e.getBoundingClientRect();
                             return {y: r.top, height: r.height}; };
        const list = document.getElementById("replay-plays");
        return [box(list), box(list.querySelector("li.current"))];
    }""")
    assert plays["y"] - 1 <= current["y"] and current["y"] + current["height"] <= \
        plays["y"] + plays["height"] + 1  # the last play, scrolled into view
    page.keyboard.press("Escape")


def test_on_a_phone_the_review_of_a_deal_is_whole(browser, server):
    """A deal played through the API: the phone's page opens on its end, and the
    review it opens with a tap fits the screen, each play's value inside it."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                  is_mobile=True, reduced_motion="reduce")
    page = context.new_page()
    page.url_base = server.url
    token = page.request.post(f"{server.url}/api/games", data={}).json()["id"]
    play_through_api(server.url, [token], lambda v: v["deal"]["done"])
    open_table(page, lang="fr", game=token)
    page.locator("#coach-review-button").tap()
    page.wait_for_selector("body[data-review=shown]", state="attached", timeout=MATCH_TIMEOUT_MS)
    dialog = page.locator("#coach-review").bounding_box()
    assert dialog["x"] >= 0 and dialog["x"] + dialog["width"] <= 390
    values = page.locator("#coach-review .coach-value")
    assert values.count() >= 9
    for k in range(values.count()):
        box = values.nth(k).bounding_box()
        assert box["x"] >= dialog["x"] and box["x"] + box["width"] <= \
            dialog["x"] + dialog["width"], values.nth(k).inner_text()
    body = page.locator("#coach-review-body")
    assert body.evaluate("e => e.scrollWidth <= e.clientWidth")
    context.close()


def test_a_record_saved_after_its_first_deal_replays_as_deal_1_of_the_match(page, tmp_path):
    from aluette_env.records import record_of
    path = tmp_path / "deal-1.json"
    path.write_text(json.dumps(record_of(random_match(4)[:1], 1, ["human", "ai", "ai", "ai"])))
    open_table(page)
    page.set_input_files("#coach-file", str(path))
    page.wait_for_selector("#replay[open]", timeout=MATCH_TIMEOUT_MS)
    assert page.locator("#replay-title").inner_text() == "Deal 1 of 5 · play 0 of 36"


def test_the_hint_shows_every_card_by_the_same_measure(page):
    """Each card's expected points ± their uncertainty, the best card's too:
    the best is the highest of them."""
    open_table(page)
    assert wait_ready(page) == "your-turn"
    page.click("#coach-hint-button")
    page.wait_for_selector("body[data-hint=shown]", state="attached", timeout=MATCH_TIMEOUT_MS)
    values = []
    for text in page.locator("#coach-hint .coach-value").all_inner_texts():
        m = re.fullmatch(r"([+-]?\d+\.\d\d) ± (\d+\.\d\d)( \(best\))?",
                         text.replace("\u2066", "").replace("\u2069", "").replace("\u2212", "-"))
        assert m, text
        values.append((float(m.group(1)), bool(m.group(3))))
    assert values[0][1] and not any(best for _, best in values[1:]), values
    assert values[0][0] == max(v for v, _ in values), values


def test_the_replay_of_a_match_with_signs_shows_each_sign_and_who_caught_it(page, tmp_path):
    """A record of the signs variant (docs/RECORDS.md, version 3) replays with
    each play's sign drawn and named beside it, and the opponents who caught it
    named in the page's words: a whole record, so every sign."""
    from aluette_env import aluette_signs_v0
    from aluette_env.players.heuristic import HeuristicPlayer
    from aluette_env.records import record_of
    env = aluette_signs_v0.raw_env(num_deals=1, catch=0.5)
    env.reset(seed=5)
    player = HeuristicPlayer()
    for agent in env.agent_iter():
        obs, _, done, cut, _ = env.last()
        env.step(None if done or cut else
                 player.act(obs["observation"], obs["action_mask"]))
    rec = record_of(env.match.deals, env.match.first_dealer, ["heuristic"] * 4, num_deals=1)
    made = rec["deals"][0]["signs"]
    assert any(s and c for s, c in made) and any(s and not c for s, c in made)  # both kinds
    path = tmp_path / "signs.json"
    path.write_text(json.dumps(rec))
    open_table(page, lang="fr")
    page.set_input_files("#coach-file", str(path))
    page.wait_for_selector("#replay[open]", timeout=MATCH_TIMEOUT_MS)
    lines = page.locator("#replay-plays li .replay-sign")
    assert lines.count() == len(made) == 36
    # No person in the record: the seats by their places at the table.
    seats = {"player_0": "Sud", "player_1": "Ouest", "player_2": "Nord", "player_3": "Est"}
    for k, (sign, caught) in enumerate(made):
        line = lines.nth(k)
        assert int(line.get_attribute("data-sign")) == sign
        assert line.locator("svg.sign-icon").count() == 1
        text = line.inner_text()
        assert ("surpris par" in text) == bool(caught), (k, text)
        assert all(seats[o] in text for o in caught), (k, text, caught)
        assert sign or text == "aucun signe", (k, text)
