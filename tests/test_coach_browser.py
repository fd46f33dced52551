"""The coach in a real browser (the fixtures and skips of test_web_browser):
the Hint button and key on your turn, and a record opened from a file,
replayed forwards and backwards with all four hands and the review beside
each play, and all of it in the page's language. With
``ALUETTE_SCREENSHOTS=DIR`` it saves the README's coach screenshots there."""

from __future__ import annotations

import json

import pytest

from tests.test_records import play_match
from tests.test_web_browser import (  # noqa: F401 - the browser fixture
    MATCH_TIMEOUT_MS, NEEDS_BROWSER, browser, open_table, serving, shoot, wait_ready,
)

pytestmark = [*NEEDS_BROWSER, pytest.mark.slow(seconds=15)]


@pytest.fixture(scope="module")
def server_url():
    with serving(partner="heuristic", left="heuristic", right="heuristic", seed=11,
                 hint_worlds=8, review_worlds=4) as (_, url):
        yield url


@pytest.fixture
def page(browser, server_url):  # noqa: F811 - the imported browser fixture
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB",
                                  reduced_motion="reduce")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.url_base = server_url
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
    from aluette_env.records import record_of
    path = tmp_path / "match.json"
    path.write_text(json.dumps(record_of(play_match(4), 1, ["human", "ai", "ai", "ai"])))
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
    path.write_text(json.dumps(record_of(play_match(4), 1, ["human", "ai", "ai", "ai"])))
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
