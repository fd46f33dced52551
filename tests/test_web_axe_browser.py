"""The web game's accessibility, checked by axe-core in a real browser (the
fixtures and skips of browser_fixtures.py): a turn (the deal's last, its
first eight played through the API), a deal's end, the review,
the replay and the phone's menu, in English and Arabic, and a turn with signs
(its sign buttons' names checked in every language the site ships), with no
critical or serious violation.
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
    # The page's default display (browser.plain): axe judges what a person first sees.
    context = browser.plain.new_context(viewport={"width": size[0], "height": size[1]},
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


#: The languages axe itself runs in at a turn with signs: one of each direction
#: (the page's structure, roles and colours are the same in every language; what
#: the words change, the sign buttons' names, is checked in every language).
AXE_LANGUAGES = ("en", "ar")


def test_no_serious_accessibility_violation_on_a_turn_with_signs_in_any_language(
        browser, server):
    """A match with signs, at your sign's step then your card's, the page
    switched to each language the site ships in turn: each sign button's
    accessible name holds its visible words in every language (WCAG 2.5.3,
    label in name, as Playwright computes the name), and axe finds no serious
    violation at either step in English and Arabic (its experimental
    label-in-name rule included)."""
    context, page = new_page(browser, server.url, size=(1280, 800))
    token = page.request.post(f"{server.url}/api/games", data={"signs": True}).json()["id"]
    page.add_init_script(f"sessionStorage.setItem('aluette.game', '{token}');")
    open_table(page, lang="en")
    page.wait_for_selector("body[data-signing=true][data-state=your-turn]")
    buttons = page.locator(".sign-button")
    for lang in LANGUAGES:
        page.select_option("#language", lang)
        page.wait_for_selector(f"body[data-lang={lang}]", state="attached")
        assert buttons.count() == 10, lang
        for k in range(10):
            seen = buttons.nth(k).inner_text().split()
            assert seen, (lang, k)
            expect(buttons.nth(k)).to_have_accessible_name(
                re.compile(r"\s+".join(map(re.escape, seen))))
        if lang in AXE_LANGUAGES:
            axe(page, f"{lang} sign step")
    after_move(page, lambda: buttons.nth(2).click())  # the card's step: no sign button
    assert page.evaluate("document.body.dataset.signing") == "false"
    assert buttons.count() == 0
    for lang in AXE_LANGUAGES:
        page.select_option("#language", lang)
        page.wait_for_selector(f"body[data-lang={lang}]", state="attached")
        axe(page, f"{lang} card step")
    context.close()
