"""The web game's accessibility, checked by axe-core in a real browser (the
fixtures and skips of browser_fixtures.py): a turn (the deal's last, its
first eight played through the API), a deal's end, the review,
the replay and the phone's menu, in English and Arabic, and a turn with signs
in every language the site ships, with no critical or serious violation.
axe.min.js comes from the ``axe-playwright-python`` package (the ``dev``
extra); without it the tests are skipped with that reason.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from aluette_env.apps.i18n import LANGUAGES
from browser_fixtures import MATCH_TIMEOUT_MS, NEEDS_BROWSER, after_move, expect, open_table
from conftest import random_match
from web_helpers import play_through_api

try:
    import axe_playwright_python
    AXE = Path(axe_playwright_python.__file__).with_name("axe.min.js")
except ImportError:  # pragma: no cover - depends on the machine
    AXE = None

pytest_plugins = ["browser_fixtures"]  # the session's one browser
pytestmark = [*NEEDS_BROWSER,
              pytest.mark.skipif(AXE is None or not AXE.exists(),
                                 reason="axe checks skipped: axe-playwright-python (axe-core's "
                                        "axe.min.js) is not installed: pip install -e .[dev]")]


def axe(page, where: str) -> None:
    """Run axe-core on the page as it is; fail on any critical or serious violation."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    # label-content-name-mismatch is one of axe's experimental rules: asked for by name
    result = page.evaluate("axe.run(document, {resultTypes: ['violations'], rules: "
                           "{'label-content-name-mismatch': {enabled: true}}})")
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
           for v in result["violations"] if v["impact"] in ("critical", "serious")]
    assert not bad, (where, bad)
    moderate = [v["id"] for v in result["violations"]]
    assert "heading-order" not in moderate and "scrollable-region-focusable" not in moderate, \
        (where, moderate)


def new_page(browser, url: str, size=(1280, 900)):
    # Playwright adds axe's script; the page's own policy stays as strict as served.
    context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                  reduced_motion="reduce", bypass_csp=True)
    page = context.new_page()
    page.url_base = url
    return context, page


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_no_serious_accessibility_violation_on_the_main_screens(browser, server, lang, tmp_path):
    from aluette_env.records import record_of
    context, page = new_page(browser, server.url)
    token = page.request.post(f"{server.url}/api/games", data={}).json()["id"]
    play_through_api(server.url, [token], lambda v: v["your_turn"] and len(v["hand"]) == 1)
    open_table(page, lang=lang, game=token)
    axe(page, f"{lang} turn")
    page.locator(".hand-card").first.click()
    after_move(page, lambda: page.click("#confirm"))
    axe(page, f"{lang} deal end")
    page.click("#coach-review-button")
    page.wait_for_selector("body[data-review=shown]", state="attached", timeout=MATCH_TIMEOUT_MS)
    axe(page, f"{lang} review")
    page.keyboard.press("Escape")
    path = tmp_path / "match.json"
    path.write_text(json.dumps(record_of(random_match(4), 1, ["human", "ai", "ai", "ai"])))
    page.set_input_files("#coach-file", str(path))
    page.wait_for_selector("#replay[open]", timeout=MATCH_TIMEOUT_MS)
    page.keyboard.press("ArrowRight")
    # Every play listed (its review "…", or there already: the record was reviewed before).
    page.wait_for_selector(".replay-plays li:nth-child(36)", timeout=MATCH_TIMEOUT_MS)
    axe(page, f"{lang} replay")
    context.close()

    context, page = new_page(browser, server.url, size=(390, 844))  # the phone's menu
    open_table(page, lang=lang)
    axe(page, f"{lang} phone")
    context.close()


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_no_serious_accessibility_violation_on_a_turn_with_signs(browser, server, lang):
    """A match with signs, at your sign's step then your card's, in each language
    the site ships: no serious violation, and each sign button's accessible
    name holds its visible words (WCAG 2.5.3, label in name: axe's experimental
    rule, and the name as Playwright computes it)."""
    context, page = new_page(browser, server.url, size=(1280, 800))
    token = page.request.post(f"{server.url}/api/games", data={"signs": True}).json()["id"]
    page.add_init_script(f"sessionStorage.setItem('aluette.game', '{token}');")
    open_table(page, lang=lang)
    page.wait_for_selector("body[data-signing=true][data-state=your-turn]")
    assert page.evaluate("document.documentElement.lang") == lang
    axe(page, f"{lang} sign step")
    buttons = page.locator(".sign-button")
    assert buttons.count() == 10, lang
    for k in range(10):
        seen = buttons.nth(k).inner_text().split()
        assert seen, (lang, k)
        expect(buttons.nth(k)).to_have_accessible_name(
            re.compile(r"\s+".join(map(re.escape, seen))))
    after_move(page, lambda: buttons.nth(2).click())  # the card's step: no sign button
    assert page.evaluate("document.body.dataset.signing") == "false"
    assert buttons.count() == 0
    axe(page, f"{lang} card step")
    context.close()
