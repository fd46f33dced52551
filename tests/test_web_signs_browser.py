"""The signs in a real browser (Chromium, :mod:`browser_fixtures`): a person turns
signs on in the settings, signs with the sign buttons and plays, sees their
partner's sign and an opponent's sign they caught and the rules' section on
signs, and no answer or push the page receives carries a sign its seat did
not see (checked against the game the server holds); on a laptop and a phone,
in English and Arabic, the hand bar leaves the trick and its explanation
readable at every step, and the log lists each trick's signs in the order
they were made."""

from __future__ import annotations

import json

import pytest

from aluette_env.game import NUM_SEATS, sees_sign
from browser_fixtures import (
    LTR_DESKTOP_AND_RTL_PHONE, NEEDS_BROWSER, SIZES, after_move, at_each_size, covering, expect,
    wait_ready,
)
from web_helpers import game_of

pytest_plugins = ["browser_fixtures"]
pytestmark = [*NEEDS_BROWSER]
SERVER = dict(seed=21)  # browser_fixtures' server, with these deals


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
        if (("/api/games" in response.url or "/api/drafts" in response.url)
                and "json" in response.headers.get("content-type", "")):
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
    if page.locator("#confirm-new").is_visible():  # the AI's opening cards: a match in progress
        page.click("#confirm-new-yes")
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
    # Your ten sign buttons show only while you make your sign.
    signing = page.get_attribute("body", "data-signing") == "true"
    assert page.locator('.sign-button').count() == (10 if signing else 0)
    # The rules have their section on signs in this match (and speak of one person's game).
    page.click("#open-rules")
    signs_rules = page.locator('#rules [data-when="signs"]')
    assert signs_rules.count() == 2  # its title and its paragraph
    expect(signs_rules.first).to_have_text("Signs")
    expect(signs_rules.first).to_be_visible()
    expect(signs_rules.last).to_be_visible()
    expect(page.locator('#rules [data-when="alone"]')).to_be_visible()
    expect(page.locator('#rules [data-when="table"]')).to_be_hidden()
    page.click("#rules button[value=close]")

    # The truth: the game as the server holds it. The views the page received list
    # every sign its seat saw (S5: its own and its partner's, silences included, and
    # the caught ones), and every sign the page received was seen.
    game = game_of(app, token)
    made = {(t, s): game.deal.sign_of(t, s) for t in range(9) for s in range(NUM_SEATS)}
    saw = {(t, s, sign) for (t, s), sign in made.items() if sign >= 0 and sees_sign(
        0, s, int(game.deal.state.caught[t * NUM_SEATS + s]) if sign else 0)}
    got = [x for data in received for x in signs_in(data, [])]
    listed = {(e[4], e[1], e[2]) for e in got if e[0] == "view"}
    assert listed == saw, ("missing", sorted(saw - listed), "unseen", sorted(listed - saw))
    for entry in got:
        _, seat, sign, was_caught = entry[:4]
        assert was_caught == (seat % 2 == 1)  # only an opponent's sign is "caught"
        tricks = [entry[4]] if entry[0] == "view" else range(9)
        assert any(made[t, seat] == sign and sees_sign(
            0, seat, int(game.deal.state.caught[t * NUM_SEATS + seat]) if sign else 0)
            for t in tricks), entry
    context.close()
    assert not errors, errors


def signs_table(browser, url: str, lang: str, size, catch: float):
    """A page of ``size`` in ``lang`` at a new one-person match with signs, each
    opponent catching a sign with the chance ``catch`` (the server's signs AI in
    the other seats); AI cards without a pause. (context, page, its token)."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                  reduced_motion="reduce")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    context.errors = errors
    token = page.request.post(url + "/api/games", data={"signs": True, "catch": catch}).json()["id"]
    page.add_init_script(f"localStorage.setItem('aluette.pace', '0'); "
                         f"localStorage.setItem('aluette.lang', '{lang}'); "
                         f"sessionStorage.setItem('aluette.game', '{token}');")
    page.goto(url)
    assert wait_ready(page) == "your-turn"
    return context, page, token


def take_a_step(page) -> str:
    """Your step: a wink (Le Borgne) while you make your sign, else the first card
    the server allows; the page's state once its answer is shown."""
    if page.get_attribute("body", "data-signing") == "true":
        return after_move(page, lambda: page.click('.sign-button[data-sign="3"]'))
    page.locator('.hand-card[aria-disabled="false"]').first.click()
    return after_move(page, lambda: page.click("#confirm"))


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_with_signs_the_hand_bar_leaves_the_trick_and_its_explanation_readable(
        browser, server, lang):
    """Every step of four tricks with signs (your sign, then your card), on a
    laptop and on a phone: the trick's status and the last trick's explanation
    lie above the sticky hand bar, covered by nothing; the sign buttons show only
    while you make your sign (greyed out at the card's step, they only made the
    bar taller)."""
    context, page, _ = signs_table(browser, server.url, lang, SIZES[0], catch=0.5)
    explained = 0
    for step in range(8):
        signing = page.get_attribute("body", "data-signing") == "true"
        for size in at_each_size(page):
            assert page.locator(".sign-button").count() == (10 if signing else 0), step
            assert page.locator("#signs").is_visible() == signing, (size, step)
            bar = page.locator(".hand-area").bounding_box()
            shown = [s for s in ("#trick-status", "#last-result") if page.locator(s).inner_text()]
            for selector in shown:
                box = page.locator(selector).bounding_box()
                assert 0 <= box["y"] and box["y"] + box["height"] <= bar["y"] + 1, \
                    (lang, size, step, selector, box, bar)
                assert covering(page, selector) is None, (lang, size, step,
                                                          covering(page, selector))
        explained += "#last-result" in shown
        assert take_a_step(page) == "your-turn"
    assert explained >= 4  # the steps after the first trick, with its explanation
    context.close()
    assert not context.errors, context.errors


@LTR_DESKTOP_AND_RTL_PHONE
def test_the_signs_log_lists_each_tricks_signs_in_the_order_they_were_made(
        browser, server, lang, size):
    """Every sign caught (catch 100 %): after each of your steps the log of the
    signs you saw lists each trick's from its leader, as they were made (a
    sign made in answer to another after it, never in seat order), until a
    trick led by another seat than yours has been listed whole. The log's
    order, not its layout: English on a laptop, Arabic on a phone."""
    url = server.url
    context, page, token = signs_table(browser, url, lang, size, catch=1.0)
    for _ in range(3 * 2 * 9):
        if take_a_step(page) != "your-turn":
            break
        view = page.request.get(f"{url}/api/games/{token}").json()["state"]
        leaders = {t["index"]: t["leader"] for t in view["tricks_played"]}
        leaders[view["deal"]["trick"] - 1] = view["deal"]["leader"]
        seen = [s for s in view["signs"] if s["sign"] or s["seat"] != 0]  # as the log shows them
        made = sorted(seen, key=lambda s: (s["trick"], (s["seat"] - leaders[s["trick"]]) % 4))
        listed = page.locator("#signs-log li").evaluate_all(
            "items => items.map((li) => Number(li.dataset.seat))")
        assert listed == [s["seat"] for s in made], (lang, size, listed, made, leaders)
        if any(t["leader"] != 0 and sum(s["trick"] == t["index"] for s in seen) >= 2
               for t in view["tricks_played"]):
            break
    else:
        raise AssertionError("no trick led by another seat was listed")
    context.close()
    assert not context.errors, context.errors
