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
from browser_fixtures import MATCH_TIMEOUT_MS, NEEDS_BROWSER, after_move, open_table, wait_ready

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
