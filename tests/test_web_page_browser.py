"""The web page's small things in a real browser (Debian's Chromium through
Playwright, :mod:`browser_fixtures`): opening the site keeps no game until
its first card (a reload shows the same deal, still kept nowhere); the
card-strength tooltip shows only on the person's hover or focus, one at a
time, over nothing of their own seat (laptop, and a phone by touch, where a
new turn shows none); the offline banner beside the menus, which still open;
the server's refusal of too many new games, in words.
"""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from aluette_env.apps.web.store import GameRow
from browser_fixtures import (
    MATCH_TIMEOUT_MS, NEEDS_BROWSER, after_move, covering, expect, open_table, wait_ready,
)

pytest_plugins = ["browser_fixtures"]  # the session's one browser
pytestmark = [*NEEDS_BROWSER]


@pytest.fixture
def context(browser, server):
    """A laptop-sized page's context; ``context.errors``: the script errors (a test fails on any)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-GB")
    context.errors = []
    yield context
    context.close()
    assert not context.errors, context.errors


def new_page(context, server):
    page = context.new_page()
    page.on("pageerror", lambda e: context.errors.append(str(e)))
    page.url_base = server.url
    return page


def stored_games(server) -> int:
    with server.app.state.store.db.session() as s:
        return s.execute(select(func.count()).select_from(GameRow)).scalar_one()


def hand(page) -> list[str]:
    return page.eval_on_selector_all("#hand .hand-card", "cards => cards.map(c => c.dataset.card)")


def play_first_card(page) -> None:
    page.locator("#hand .hand-card[aria-disabled=false]").first.click()
    after_move(page, lambda: page.click("#confirm"))


# ------------------------------------------------------------------ no game until played

def test_opening_the_site_keeps_no_game_until_its_first_card(context, server):
    """Opening ``/`` deals a hand the page shows, and the database has no new
    game (nor the address a token); a reload shows the same deal, still kept
    nowhere; the first card keeps it (its link in the address), and a reload
    then returns to that game."""
    before = stored_games(server)
    page = new_page(context, server)
    open_table(page)
    assert wait_ready(page) == "your-turn"
    dealt = hand(page)
    assert len(dealt) >= 8 and stored_games(server) == before
    assert "seat=" not in page.url
    assert page.evaluate("sessionStorage.getItem('aluette.game')") is None
    page.reload()
    wait_ready(page)
    assert hand(page) == dealt and stored_games(server) == before  # the same deal, not kept
    play_first_card(page)
    assert stored_games(server) == before + 1
    token = page.evaluate("sessionStorage.getItem('aluette.game')")
    assert token and f"seat={token}" in page.url
    version = page.evaluate("document.body.dataset.moves")
    page.reload()
    wait_ready(page)
    assert page.evaluate("sessionStorage.getItem('aluette.game')") == token
    assert len(hand(page)) == len(dealt) - 1 and stored_games(server) == before + 1
    assert version  # the page answered its move before the reload


# ------------------------------------------------------------------ the strength tip

def overlaps(a: dict | None, b: dict | None) -> bool:
    """Two bounding boxes share some area (a hidden element has none)."""
    if a is None or b is None:
        return False
    return (a["x"] < b["x"] + b["width"] - 0.5 and b["x"] < a["x"] + a["width"] - 0.5
            and a["y"] < b["y"] + b["height"] - 0.5 and b["y"] < a["y"] + a["height"] - 0.5)


#: What the tip must never cover: your seat's words and chips, the signs, Play.
YOURS = [".seat-south", ".seat-south .badge", "#signs", "#confirm"]


def tips_shown(page) -> list[str]:
    """The texts of every tip drawn: the page's one tip element, and any card
    tip drawn by the style sheet (none any more)."""
    return page.evaluate("""() => {
      const shown = [...document.querySelectorAll('#card-tip')]
        .filter((e) => !e.hidden && e.getBoundingClientRect().width > 0).map((e) => e.textContent);
      for (const e of document.querySelectorAll('.hand-card, .card')) {
        for (const part of ['::before', '::after']) {
          const content = getComputedStyle(e, part).content;
          if (content && content !== 'none' && content !== 'normal' && content.length > 6) shown.push(content);
        }
      }
      return shown;
    }""")


def check_tip_covers_nothing_of_yours(page, card, where: str) -> None:
    tip = page.locator("#card-tip")
    assert tips_shown(page) == [card.get_attribute("data-tip")], where
    box = tip.bounding_box()
    for selector in YOURS:
        for k in range(page.locator(selector).count()):
            other = page.locator(selector).nth(k)
            if other.is_visible():
                assert not overlaps(box, other.bounding_box()), (where, selector, box)
    width = page.viewport_size["width"]
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, (where, box)


def test_the_strength_tip_shows_on_hover_or_keys_once_and_covers_nothing_of_yours(context,
                                                                                   server):
    """On a laptop: no tip as a turn starts (the page focuses your hand itself);
    the mouse over each card shows its strength, one tip only, over none of
    your seat's words and chips nor Play; the arrow keys show the focused
    card's; the mouse over another card then moves the one tip there; the
    mouse gone, no tip."""
    page = new_page(context, server)
    open_table(page)
    assert wait_ready(page) == "your-turn" and tips_shown(page) == []
    assert page.evaluate("document.activeElement.classList.contains('hand-card')")
    cards = page.locator("#hand .hand-card")
    for k in range(cards.count()):
        cards.nth(k).hover()
        check_tip_covers_nothing_of_yours(page, cards.nth(k), f"hover {k}")
    page.mouse.move(5, 5)
    expect_no_tip(page)
    cards.first.focus()
    page.keyboard.press("ArrowRight")  # the person moves the focus
    focused = page.locator("#hand .hand-card:focus")
    check_tip_covers_nothing_of_yours(page, focused, "keys")
    cards.last.hover()
    check_tip_covers_nothing_of_yours(page, cards.last, "hover after keys")
    play_first_card(page)  # a new turn: the page focuses the hand, no tip
    page.mouse.move(5, 5)
    assert wait_ready(page) == "your-turn"
    expect_no_tip(page)


def expect_no_tip(page) -> None:
    page.wait_for_selector("#card-tip", state="hidden", timeout=MATCH_TIMEOUT_MS)
    assert tips_shown(page) == []


def test_on_a_touch_phone_no_tip_shows_by_itself_and_a_long_press_shows_one(browser, server):
    """On a 390 x 844 touch phone: as each turn starts no tip shows (the
    page's own focus on the hand shows none); a long press shows the card's
    strength over none of your seat's words and chips nor Play, inside the
    screen; a tap elsewhere hides it."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                  is_mobile=True, locale="en-GB")
    try:
        page = context.new_page()
        page.url_base = server.url
        open_table(page)
        for turn in range(3):
            assert wait_ready(page) == "your-turn"
            assert page.evaluate("document.activeElement.classList.contains('hand-card')")
            assert tips_shown(page) == [], turn
            cards = page.locator("#hand .hand-card")
            for k in (0, cards.count() // 2, cards.count() - 1):
                cards.nth(k).dispatch_event("contextmenu")  # what a long press sends
                check_tip_covers_nothing_of_yours(page, cards.nth(k), f"turn {turn} card {k}")
            page.locator("#trick-status").tap()
            expect_no_tip(page)
            cards.first.tap()
            after_move(page, cards.first.tap)  # the second tap plays it
    finally:
        context.close()


# ------------------------------------------------------------------ offline

@pytest.mark.parametrize("size", [(1280, 800), (390, 844)], ids=["desktop", "phone"])
def test_the_offline_banner_sits_beside_the_menus_which_still_work(browser, server, size):
    """With the network down (a move sent, the page trying again), the banner
    says so beside the menus, not over them: the Language menu and the Rules
    button are not covered and still work; back online, the move lands."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                  locale="en-GB")
    try:
        page = context.new_page()
        page.url_base = server.url
        open_table(page)
        context.set_offline(True)
        page.locator("#hand .hand-card[aria-disabled=false]").first.click()
        page.click("#confirm")
        banner = page.locator("#offline")
        banner.wait_for(state="visible", timeout=MATCH_TIMEOUT_MS)
        box = banner.bounding_box()
        for selector in ("#language", ".lang-picker", "#open-rules", "#open-settings",
                         "#new-match"):
            assert not overlaps(box, page.locator(selector).bounding_box()), (size, selector)
            assert covering(page, selector) is None, (size, selector)
        page.click("#language")  # Playwright clicks only what nothing covers
        page.select_option("#language", "fr")
        page.click("#open-rules")
        assert page.locator("#rules").is_visible()
        page.keyboard.press("Escape")
        context.set_offline(False)
        banner.wait_for(state="hidden", timeout=MATCH_TIMEOUT_MS)
        page.wait_for_selector("html[lang=fr]", state="attached", timeout=MATCH_TIMEOUT_MS)
        page.wait_for_selector("body[data-moves='2']", state="attached", timeout=MATCH_TIMEOUT_MS)
    finally:
        context.close()


# ------------------------------------------------------------------ too many new games

def test_too_many_new_games_from_one_address_is_said_in_the_pages_language(context, server):
    """At the per-address limit on new games, the first card of a deal is
    refused (nothing kept) and opening the site is too: the page says why in
    its language, not a generic error."""
    from aluette_env.apps.i18n import translate
    from aluette_env.apps.web.service import ClientLimit

    service = server.app.state.service
    kept = service.starts
    service.starts = ClientLimit(service.store, "game_start", 1, 3600.0)
    try:
        page = new_page(context, server)
        open_table(page, lang="fr")
        before = stored_games(server)
        service.starts.count("127.0.0.1")  # this address has started its hour's share
        page.locator("#hand .hand-card[aria-disabled=false]").first.click()
        page.click("#confirm")
        said = translate("fr", "This address has started too many new games in the last "
                               "hour. Go on with a match already started (Settings → My "
                               "matches), or try again later.")
        error = page.locator("#error")
        expect(error).to_have_text(said, timeout=MATCH_TIMEOUT_MS)
        assert stored_games(server) == before
        other = new_page(context, server)  # the same browser opens the site again
        other.goto(server.url)
        expect(other.locator("#error")).to_have_text(said, timeout=MATCH_TIMEOUT_MS)
    finally:
        service.starts = kept
