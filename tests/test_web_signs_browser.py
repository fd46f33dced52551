"""The signs in a real browser (Chromium, :mod:`browser_fixtures`): a person turns
signs on in the settings, signs with the sign buttons and plays, sees their
partner's sign and an opponent's sign they caught, and no answer or push the
page receives carries a sign its seat did not see (checked against the game
the server holds)."""

from __future__ import annotations

import json

import pytest

from browser_fixtures import NEEDS_BROWSER, serving  # noqa: F401

from aluette_env.game import NUM_SEATS, sees_sign

pytest_plugins = ["browser_fixtures"]
pytestmark = [*NEEDS_BROWSER]


@pytest.fixture(scope="module")
def server():
    with serving(partner="heuristic", left="heuristic", right="heuristic",
                 signs_ai="heuristic", seed=21, hint_worlds=8, review_worlds=4) as served:
        yield served


def signs_in(data, out: list) -> list:
    """Every sign a JSON answer or push holds: its views' ``signs`` and its sign events."""
    if isinstance(data, dict):
        if data.get("type") == "sign":
            out.append(("event", data["seat"], data["sign"], data["caught"]))
        for key, value in data.items():
            if key == "signs" and isinstance(value, list):
                out.extend(("view", s["seat"], s["sign"], s["caught"], s["trick"])
                           for s in value)
            else:
                signs_in(value, out)
    elif isinstance(data, list):
        for value in data:
            signs_in(value, out)
    return out


def test_a_person_signs_sees_the_partners_and_a_caught_sign_and_nothing_else(browser, server):
    app, url = server
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB",
                                  reduced_motion="reduce")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    received: list = []

    def answered(response):
        if "/api/games" in response.url and "json" in response.headers.get("content-type", ""):
            try:
                received.append(response.json())
            except Exception:  # a body the page dropped (navigation): nothing to check
                pass
    page.on("response", answered)
    page.on("websocket", lambda ws: ws.on(
        "framereceived", lambda frame: received.append(json.loads(frame))))
    page.add_init_script("localStorage.setItem('aluette.pace', '0');")
    page.goto(url)
    page.wait_for_selector("body[data-state=your-turn], body[data-state=waiting]")
    page.click("#open-settings")
    page.check("#signs-on")
    page.fill("#signs-catch", "50")
    page.click("#start-new")
    token = None
    for _ in range(60):  # a few tricks: sign, then play the first card the server allows
        page.wait_for_selector("body[data-state=your-turn], body[data-state=deal-over]")
        if page.get_attribute("body", "data-state") == "deal-over":
            break
        token = page.evaluate("sessionStorage.getItem('aluette.game')") if token is None \
            else token
        if page.get_attribute("body", "data-signing") == "true":
            page.click('.sign-button[data-sign="3"]')  # a wink: Le Borgne
            page.wait_for_selector("body[data-signing=false][data-state=your-turn]")
            continue
        moves = page.get_attribute("body", "data-moves")
        page.locator('.hand-card[aria-disabled="false"]').first.click()
        page.click("#confirm")
        page.wait_for_selector(f"body:not([data-moves='{moves}'])")
        if (page.locator('#signs-log li[data-seat="2"]:not([data-sign="0"])').count()
                and page.locator("#signs-log li.caught").count()):
            break
    yours = page.locator('#signs-log li[data-seat="0"][data-sign="3"]')
    assert yours.count() and "You sign: a wink (Le Borgne)." in yours.first.inner_text()
    partner = page.locator('#signs-log li[data-seat="2"]:not([data-sign="0"])')
    assert partner.count() and "Partner signs:" in partner.first.inner_text()
    caught = page.locator("#signs-log li.caught")
    assert caught.count() and "You caught a sign from" in caught.first.inner_text()
    assert page.locator('.sign-button').count() == 10
    assert page.locator('.sign-button[data-sign="0"]').get_attribute("aria-label") == \
        "Make no sign"

    # The truth: the game as the server holds it; every sign the page received was seen.
    service = app.state.service
    table = service.table(token)
    service.cache.fresh(table)
    game = table.game
    made = {(t, s): game.deal.sign_of(t, s) for t in range(9) for s in range(NUM_SEATS)}
    got = [x for data in received for x in signs_in(data, [])]
    assert got
    for entry in got:
        _, seat, sign, was_caught = entry[:4]
        assert was_caught == (seat % 2 == 1)  # only an opponent's sign is "caught"
        tricks = [entry[4]] if entry[0] == "view" else range(9)
        assert any(made[t, seat] == sign and sees_sign(
            0, seat, int(game.deal.state.caught[t * NUM_SEATS + seat]) if sign else 0)
            for t in tricks), entry
    context.close()
    assert not errors, errors
