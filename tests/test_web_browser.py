"""The web game in a real browser: Debian's Chromium driven by Playwright
(``executable_path``; nothing downloads a browser; one browser for the
session, :mod:`browser_fixtures`). A match's last deal by mouse to the match's
end and a deal's last cards by keyboard (every trick explained, selection and
focus told apart; what came before is played through the API, whose tests
check whole matches), a deal whose every
step shows what the server sent for it, the Arabic right-to-left layout, phone,
tablet and laptop sizes in English and Arabic (no horizontal scrolling, your
hand and Play in view on your turn), the notice for a game the server lost,
the New-match confirmation, the display settings surviving a reload, and on a
laptop and a phone in English and Arabic: never "Waiting for You…" on your own
turn, and the deal's summary under the last trick's explanation, its "✕" explained.

Skipped, with the reason in the test summary, where Playwright or Chromium is
missing (``.ci/run`` installs Chromium). With ``ALUETTE_SCREENSHOTS=DIR`` the
tests also save the README's screenshots there.
"""

from __future__ import annotations

import random
import re

import pytest

from aluette_env.apps.web.page import STATIC_DIR
from aluette_env.game.cards import (
    NUM_CARDS, NUM_RANKS, NUM_SUITS, SUITS_EN, rank_index_of, suit_of,
)
from browser_fixtures import (
    LTR_DESKTOP_AND_RTL_PHONE, MATCH_TIMEOUT_MS, NEEDS_BROWSER, SHOTS, SIZES, after_move,
    at_each_size, covering, expect, open_table, shoot, wait_ready,
)
from web_helpers import HTTP, kept_game, play_through_api

pytest_plugins = ["browser_fixtures"]  # the session's one browser
pytestmark = [*NEEDS_BROWSER]


@pytest.fixture
def page(browser, server, request):
    # The tests that play deals run without animations (Playwright waits for
    # moving elements to settle before each click); the others keep them.
    motion = "reduce" if re.search(r"whole_|_by_(mouse|keyboard)$", request.node.name) \
        else "no-preference"
    # The display test sees the page's default display (grain included).
    chromium = browser.plain if request.node.name.startswith("test_display_") else browser
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB",
                                   reduced_motion=motion)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # Script errors fail a test; the browser's own log of a 4xx answer does not
    # (the lost-game test is made of them).
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and
            not m.text.startswith("Failed to load resource") else None)
    page.errors = errors
    page.url_base = server.url
    yield page
    context.close()
    assert not errors, errors


def play_cards(page, n: int) -> None:
    """Play the first card of the hand ``n`` times (a table with some history)."""
    for _ in range(n):
        page.locator(".hand-card").first.click()
        after_move(page, lambda: page.click("#confirm"))


def scores(page) -> list[int]:
    return [int(x) for x in page.locator(".scoreboard strong").all_inner_texts()]


def game_at(url: str, until, choose=None) -> str:
    """A one-person game of the server at ``url`` (as a page starts one) played
    through the API until ``until(view)`` holds (:func:`web_helpers.play_through_api`):
    its id, for :func:`open_table`."""
    r = HTTP.post(url + "/api/games", json={}, timeout=30)
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    play_through_api(url, [gid], until, choose)
    return gid


def test_the_last_deal_of_a_match_by_mouse(page):
    """The page opens on the end of a match's fourth deal (played through the
    API): its summary, then the last deal by mouse, a card chosen by a click and
    played by a second click or by Play, every trick explained where it ended,
    the match's end with its tally of five deals, and a new match."""
    last = game_at(page.url_base, lambda v: v["deal"]["done"] and v["deal"]["number"] == 4)
    open_table(page, game=last)
    rng = random.Random(3)
    deals, plays = 0, 0
    explained = 0
    while True:
        state = wait_ready(page)
        last = page.locator("#last-result").inner_text()
        if last:  # the last trick, explained where it ended
            assert re.search(r"^((Trick taken by \w+|You took the trick): .+ beats .+\.|"
                             r"Spoiled: .+ are equal and "
                             r"highest, so nobody takes this trick\.)", last), last
            explained += 1
        if state == "match-over":
            break
        if state == "deal-over":
            deals += 1
            assert page.locator("#summary").is_visible()
            assert "Deal won by" in page.locator("#summary").inner_text() or \
                "nobody scores" in page.locator("#summary").inner_text()
            after_move(page, lambda: page.click("#next-deal"))
            continue
        cards = page.locator(".hand-card")
        k = rng.randrange(cards.count())
        cards.nth(k).click()
        assert cards.nth(k).get_attribute("aria-pressed") == "true"
        assert "again" in page.locator("#prompt").inner_text()  # a second click plays it
        if plays % 2:
            after_move(page, cards.nth(k).click)  # a second click on the chosen card plays it
        else:
            after_move(page, lambda: page.click("#confirm"))
        plays += 1
    assert deals == 1 and plays == 9  # the fifth deal ends the match
    assert explained >= 8  # each of your cards closes a trick, explained where it ended
    summary = page.locator("#summary").inner_text()
    assert "win the match" in summary or "draw" in summary
    assert page.locator(".tally tr").count() == 5
    shoot(page, "web-match-over")
    page.click("#summary-new-match")
    wait_ready(page)
    assert scores(page) == [0, 0]  # R2: a new match clears the scores


#: Installed before the page's own script: what the table shows, recorded each
#: time the page draws a view (render() marks body's data-version and data-state
#: first; the observer reads the table once the drawing is done).
SHOWN = """
window.__shown = [];
document.addEventListener("DOMContentLoaded", () => {
  const all = (selector) => [...document.querySelectorAll(selector)];
  new MutationObserver(() => window.__shown.push({
    state: document.body.dataset.state,
    hand: all("#hand .hand-card").map((b) => Number(b.dataset.card)),
    playable: all("#hand .hand-card").filter((b) => b.getAttribute("aria-disabled") === "false")
      .map((b) => Number(b.dataset.card)),
    backs: [1, 2, 3].map((s) => all(`.seat[data-seat="${s}"] .mini-back`).length),
    table: [0, 1, 2, 3].map((s) => {
      const card = document.querySelector(`.slot[data-seat="${s}"] .card`);
      return card ? Number(card.dataset.card) : null;
    }),
    info: document.getElementById("deal-info").textContent,
    status: document.getElementById("trick-status").textContent,
    tally: all("#tally tr td:nth-of-type(1)").map((td) => Number(td.textContent)),
  })).observe(document.body, {attributes: true, attributeFilter: ["data-version", "data-state"]});
});
"""


def shows(shown: dict, view: dict) -> bool:
    """The table as recorded shows ``view``, the server's view of this seat."""
    table = [None] * 4
    for play in (view["current_trick"] or {"plays": []})["plays"]:
        table[play["seat"]] = play["card"]
    return (shown["hand"] == view["hand"] and shown["backs"] == view["hand_sizes"][1:]
            and shown["table"] == table and shown["tally"] == view["counts"]
            and f"Trick {view['deal']['trick']} of {view['deal']['tricks']}" in shown["info"]
            and shown["status"] == view["text"]["trick"])


def check_shown(page, answer: dict) -> int:
    """Every view of ``answer`` that stays on screen (after an AI's card, after a
    trick, and the final one) was shown in order, with your cards playable
    exactly when the server lists them; the number of views checked."""
    expected = [e["view"] for e in answer["events"]
                if (e["type"] == "play" and e["seat"] != 0) or e["type"] == "trick"]
    expected.append(answer["state"])
    shown = page.evaluate("window.__shown")
    found = 0
    for snapshot in shown:
        if found < len(expected) and shows(snapshot, expected[found]):
            found += 1
    assert found == len(expected), (found, expected[found], shown)
    last = shown[-1]
    assert shows(last, answer["state"])
    assert sorted(last["playable"]) == (answer["state"]["legal"] if last["state"] == "your-turn"
                                        else [])
    return len(expected)


def test_whole_deal_shows_the_servers_views(page):
    """A deal played through the page: after each card, every step the server
    sent a view for is drawn from that view (your hand, the others' hand sizes,
    the cards on the table, the trick's number, the tally and the trick's line),
    and the cards the page offers are the server's ``legal``."""
    page.add_init_script(SHOWN)
    with page.expect_response(lambda r: r.request.method == "POST"
                              and r.url.split("?")[0].endswith("/api/drafts")) as opened:
        open_table(page)
    checked = check_shown(page, opened.value.json())
    plays = 0
    while wait_ready(page) == "your-turn":
        page.evaluate("window.__shown = []")
        card = page.locator("#hand .hand-card[aria-disabled=false]").first
        card.click()
        with page.expect_response(lambda r: "/play" in r.url) as played:
            after_move(page, lambda: page.click("#confirm"))
        checked += check_shown(page, played.value.json())
        plays += 1
    assert wait_ready(page) == "deal-over" and plays == 9
    assert checked >= 9 + 27  # your turns, and every AI card
    assert "Trick 9 of 9" in page.locator("#deal-info").inner_text()


def test_a_card_is_drawn_with_the_suit_and_rank_the_server_gives(page):
    """The page draws each card of your hand from the suit and rank index that
    /api/deck gives (the game's ``suit_of``, ``rank_index_of``), never from its
    id: given other suits and ranks, it draws those."""
    deck = page.request.get(page.url_base + "/api/deck").json()
    assert deck["suits"] == [suit_of(c) for c in range(NUM_CARDS)]
    assert deck["ranks"] == [rank_index_of(c) for c in range(NUM_CARDS)]
    other = {**deck, "suits": [(s + 1) % NUM_SUITS for s in deck["suits"]],
             "ranks": [(r + 5) % NUM_RANKS for r in deck["ranks"]]}
    page.route(re.compile(r"/api/deck(\?|$)"), lambda route: route.fulfill(json=other))
    faces = page.request.get(page.url_base + "/api/i18n/en").json()["faces"]
    open_table(page, lang="en")
    drawn = page.locator("#hand .hand-card").evaluate_all("""cs => cs.map((c) => [
      Number(c.dataset.card), c.querySelector("svg").getAttribute("class"),
      c.querySelector("svg text.index").textContent])""")
    assert len(drawn) == 9
    for card, classes, label in drawn:
        assert f"suit-{SUITS_EN[other['suits'][card]].lower()}" in classes.split(), (card, classes)
        assert label == faces[other["ranks"][card]], (card, label)


def test_the_end_of_a_deal_by_keyboard(page):
    """The page opens on your turn with three cards left (the others played
    through the API) and plays them by keyboard: the hand takes the focus,
    focus and choice look different, Escape drops a choice, and the deal's
    end hands the focus to Next deal."""
    three_left = game_at(page.url_base, lambda v: v["your_turn"] and len(v["hand"]) == 3)
    open_table(page, game=three_left)
    rng = random.Random(5)
    plays = 0
    while wait_ready(page) == "your-turn":
        focused = page.evaluate("document.activeElement.className")
        assert "hand-card" in focused  # the hand takes the focus on your turn
        outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline == "dashed"  # focus is visible, and not the look of a chosen card
        assert "selected" not in focused and page.locator(".hand-card.selected").count() == 0
        for _ in range(rng.randrange(4)):
            page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")  # select
        chosen = page.evaluate("document.activeElement.dataset.card")
        if plays == 1:  # chosen: a solid frame and a check mark, not the focus ring
            card = f".hand-card[data-card='{chosen}']"
            assert page.evaluate(f"getComputedStyle(document.querySelector(\"{card} .card\"))"
                                 ".outlineStyle") == "solid"
            assert page.evaluate(f"getComputedStyle(document.querySelector(\"{card}\"), "
                                 "'::after').content") == '"✓"'

        if plays == 0:
            page.keyboard.press("Escape")  # change the choice
            assert page.locator(".hand-card[aria-pressed=true]").count() == 0
            page.keyboard.press("Enter")
        label = page.evaluate("document.activeElement.textContent")
        assert label and label != chosen  # cards are named for screen readers
        after_move(page, lambda: page.keyboard.press("Enter"))  # play
        plays += 1
        assert page.locator(f".hand-card[data-card='{chosen}']").count() == 0
    assert plays == 3 and wait_ready(page) == "deal-over"
    assert page.evaluate("document.activeElement.id") == "next-deal"
    assert "Deal won by" in page.locator("#summary").inner_text() or \
        "nobody scores" in page.locator("#summary").inner_text()


def test_arabic_is_laid_out_right_to_left_and_remembered(page):
    open_table(page, lang=None)
    play_cards(page, 3)
    page.click("#last-trick-button")
    page.locator(".hand-card").first.click()
    shoot(page, "web-en")
    page.keyboard.press("Escape")  # drop the choice: the next click chooses again
    page.select_option("#language", "ar")
    page.wait_for_selector("html[dir=rtl]", state="attached")
    assert page.evaluate("document.documentElement.lang") == "ar"
    assert page.locator("#open-rules").inner_text() == "القواعد"
    side = page.locator(".side").bounding_box()
    table = page.locator("#table").bounding_box()
    assert side["x"] < table["x"]  # the score panel moves to the left
    west = page.locator(".seat-west").bounding_box()
    east = page.locator(".seat-east").bounding_box()
    assert west["x"] < east["x"]  # the table keeps its compass: west is on your left
    brand = page.locator(".brand").bounding_box()
    assert brand["x"] > 640  # the title starts on the right
    # Card names in Arabic too, once the hand is drawn again in the new language
    # (the layout turns first; under load the hand's new labels may follow later,
    # so the hand is measured once it is drawn again, never while it is replaced).
    expect(page.locator(".hand-card").first).to_have_accessible_name(
        re.compile("[\u0600-\u06ff]"), timeout=MATCH_TIMEOUT_MS)
    first = page.locator(".hand-card").first.bounding_box()
    last = page.locator(".hand-card").last.bounding_box()
    assert first["x"] > last["x"]  # the hand reads right to left
    page.locator(".hand-card").first.click()
    shoot(page, "web-ar")
    page.reload()
    wait_ready(page)
    assert page.evaluate("document.documentElement.dir") == "rtl"
    assert page.locator("#language").input_value() == "ar"


def test_display_settings_apply_live_and_survive_a_reload(page):
    open_table(page)
    root = "getComputedStyle(document.documentElement).getPropertyValue"
    before = page.evaluate(f"[{root}('--contrast'), {root}('--grain'), {root}('--tint')]")
    filter_before = page.evaluate("getComputedStyle(document.getElementById('app')).filter")
    for slider in ("contrast", "grain", "warmth"):
        assert page.locator(f"#{slider}").input_value() == "50"  # default 50 %
    # At the neutral point the page is neither filtered nor tinted (a filter or a
    # blended layer over the whole window costs a full redraw at every change).
    assert filter_before == "none" and page.locator(".tint").is_hidden()
    page.click("#open-settings")
    page.locator("#contrast").fill("80")
    page.locator("#grain").fill("10")
    page.locator("#warmth").fill("85")
    after = page.evaluate(f"[{root}('--contrast'), {root}('--grain'), {root}('--tint')]")
    assert all(a != b for a, b in zip(after, before))  # applied at once
    assert page.evaluate("getComputedStyle(document.getElementById('app')).filter") != filter_before
    assert page.locator(".tint").is_hidden() is False
    assert page.locator("#contrast-out").inner_text() == "80%"
    page.locator("#pace").fill("300")
    page.keyboard.press("Escape")
    play_cards(page, 2)
    page.locator(".hand-card").first.click()
    shoot(page, "web-en-settings")
    page.reload()
    wait_ready(page)
    assert [page.locator(f"#{s}").input_value() for s in ("contrast", "grain", "warmth", "pace")] \
        == ["80", "10", "85", "300"]
    assert page.evaluate(f"[{root}('--contrast'), {root}('--grain'), {root}('--tint')]") == after
    if SHOTS:
        page.select_option("#language", "ar")
        page.wait_for_selector("html[dir=rtl]", state="attached")
        page.locator(".hand-card").first.click()
        shoot(page, "web-ar-settings")
        page.click("#open-rules")
        shoot(page, "web-ar-rules")


def test_reduced_motion_turns_animations_off(browser, server):
    context = browser.new_context(reduced_motion="reduce")
    page = context.new_page()
    page.add_init_script("localStorage.setItem('aluette.pace', '0')")
    page.goto(server.url)
    wait_ready(page)
    page.locator(".hand-card").first.click()
    transform = page.evaluate(
        "getComputedStyle(document.querySelector('.hand-card.selected')).transform")
    assert transform == "none"
    context.close()


SIZES = [(390, 844), (844, 390), (768, 1024), (1280, 800)]


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_every_size_fits_with_your_hand_and_play_in_view(browser, server, lang):
    """Phone (portrait and landscape), tablet and laptop, left-to-right and
    right-to-left, at a table with some history (two of your cards played
    through the API): no horizontal scrolling, and on your turn the hand, the
    prompt and Play are on screen without scrolling."""
    for width, height in SIZES if lang == "en" else [SIZES[0], SIZES[1], SIZES[3]]:
        context = browser.new_context(viewport={"width": width, "height": height},
                                      reduced_motion="reduce")
        page = context.new_page()
        page.url_base = server.url
        open_table(page, lang=lang, game=game_at(
            server.url, lambda v: v["your_turn"] and len(v["hand"]) == 7))
        cards = page.locator(".hand-card")
        cards.last.hover()  # each card's strength, on hover
        tip = page.locator("#card-tip").inner_text()
        assert re.search(r"\d+", tip) and len(tip) > 8, tip
        cards.first.click()
        where = f"{lang} {width}x{height}"
        assert page.evaluate("document.documentElement.scrollWidth") <= width, where
        for selector in (".topbar", "#table", ".hand-area", ".side", ".seat-west",
                         ".seat-east", ".seat-north", "#trick-status"):
            box = page.locator(selector).bounding_box()
            assert box["x"] >= -1 and box["x"] + box["width"] <= width + 1, (where, selector)
        for selector in ("#hand", "#prompt", "#confirm", ".seat-south .badge.turn"):
            box = page.locator(selector).bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= height + 1, (where, selector)
        assert page.locator("#confirm").is_enabled()
        if width == 390:
            shoot(page, f"web-phone-{lang}")
        context.close()


def _games_kept(app) -> int:
    from sqlalchemy import func, select

    from aluette_env.apps.web.store import GameRow
    with app.state.store.db.session() as s:
        return s.execute(select(func.count()).select_from(GameRow)).scalar_one()


def test_a_game_the_server_lost_gets_a_notice_never_a_silent_restart(server, page):
    from sqlalchemy import delete

    from aluette_env.apps.web.store import GameRow, SeatRow
    app, _ = server
    open_table(page)
    play_cards(page, 1)
    with app.state.store.db.session() as s:  # as a link to a game the database lost
        s.execute(delete(SeatRow))
        s.execute(delete(GameRow))
    page.locator(".hand-card").first.click()
    page.click("#confirm")
    page.wait_for_selector("#lost[open]", timeout=MATCH_TIMEOUT_MS)
    notice = page.locator("#lost").inner_text()
    assert "This server has no game with this link." in notice
    assert page.evaluate("document.body.dataset.state") == "lost"
    page.reload()  # a reload says the same, and starts nothing by itself
    page.wait_for_selector("#lost[open]", timeout=MATCH_TIMEOUT_MS)
    assert _games_kept(app) == 0
    page.click("#lost-new")
    assert wait_ready(page) == "your-turn"
    assert _games_kept(app) == 1 and page.locator(".hand-card").count() >= 1


def test_new_match_asks_before_discarding_a_game(page):
    open_table(page)
    play_cards(page, 1)
    hand = page.locator(".hand-card").count()
    page.click("#new-match")
    assert page.locator("#confirm-new").is_visible()
    page.click("#confirm-new button[value=keep]")
    assert not page.locator("#confirm-new").is_visible()
    assert page.locator(".hand-card").count() == hand  # nothing was discarded
    page.click("#new-match")
    after_move(page, lambda: page.click("#confirm-new-yes"))
    assert page.locator(".hand-card").count() == 9 and scores(page) == [0, 0]


def phone(browser, url: str, lang: str, touch: bool = True, size=(390, 844),
          motion: str = "reduce", game: str | None = None):
    """A page on a phone: a touch screen (taps, no hover) of ``size``, in ``lang``,
    at a new game or at ``game`` (:func:`open_table`)."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                  has_touch=touch, is_mobile=touch, reduced_motion=motion)
    page = context.new_page()
    page.url_base = url
    open_table(page, lang=lang, game=game)
    return context, page


def widest(page) -> int:
    return page.evaluate("Math.max(document.documentElement.scrollWidth, "
                         "document.body.scrollWidth, visualViewport.width * visualViewport.scale)")


@pytest.mark.parametrize("lang", ["ar", "fr"])
def test_every_card_of_the_hand_takes_a_tap_on_a_touch_phone(browser, server, lang):
    """On a touch phone, right-to-left and left-to-right, a tap on each card of
    the hand chooses that card and a second tap plays it, on every turn of a
    deal, at every place in the hand (the strength tip once sat a tip's width
    to the left in Arabic and widened the page mid-tap, so taps were lost),
    and the page never grows wider than the screen."""
    context, page = phone(browser, server.url, lang)
    played = 0
    while wait_ready(page) == "your-turn":
        cards = page.locator(".hand-card")
        n = cards.count()
        for k in range(n):  # every place in the hand chooses its own card
            card = cards.nth(k).get_attribute("data-card")
            cards.nth(k).tap()
            assert page.locator(".hand-card.selected").get_attribute("data-card") == card, \
                (lang, played, k)
            assert widest(page) <= 390, (lang, played, k, widest(page))
        k = (played * 5) % n  # the second tap plays it: left, right and middle of the hand
        card = cards.nth(k).get_attribute("data-card")
        if k != n - 1:  # the last card is already chosen
            cards.nth(k).tap()
        after_move(page, cards.nth(k).tap)
        played += 1
        assert page.locator(f".hand-card[data-card='{card}']").count() == 0, (lang, played)
        assert page.locator(".hand-card").count() in (n - 1, 0), (lang, played)
        assert widest(page) <= 390, (lang, played)
    assert played == 9
    context.close()


def test_a_page_load_asks_each_thing_once_and_a_reload_reuses_the_files(browser, server):
    """The first load asks /api/players once (the players' names come with the
    language); a reload takes the page's scripts and styles from the browser's
    cache (the favicon has a cache of its own)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.url_base = server.url
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    open_table(page)
    assert sum("/api/players" in url for url in asked) == 1, asked
    statics = [url for url in asked if "/static/" in url]
    # Every script (main.js's modules by the hashes it names) and style of the
    # page, and the favicon where the browser shows one (Chromium's headless
    # shell asks for none).
    files_of_page = sum(path.suffix in (".js", ".css") for path in STATIC_DIR.iterdir())
    icons = [url for url in statics if "/static/favicon" in url]
    assert len(statics) - len(icons) == files_of_page and len(icons) <= 1 and \
        all("?v=" in url for url in statics), statics
    cdp = context.new_cdp_session(page)  # Chromium's own word on where each answer came from
    cdp.send("Network.enable")
    files: dict[str, str] = {}  # request id -> script or style asked for
    cached: set[str] = set()  # request ids the browser answered from its cache
    cdp.on("Network.requestWillBeSent", lambda e: files.__setitem__(
        e["requestId"], e["request"]["url"]) if e.get("type") in ("Script", "Stylesheet") else None)
    cdp.on("Network.requestServedFromCache", lambda e: cached.add(e["requestId"]))
    page.goto(server.url)  # a second visit
    wait_ready(page)
    assert len(files) == files_of_page, files
    assert set(files) <= cached, [url for rid, url in files.items() if rid not in cached]
    context.close()



@pytest.mark.parametrize("size", [(1280, 800), (1366, 768)])
def test_on_a_laptop_the_hand_bar_covers_no_trick_and_no_explanation(browser, server, size):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                  reduced_motion="reduce")
    page = context.new_page()
    page.url_base = server.url
    open_table(page)
    for _ in range(3):
        play_cards(page, 1)
        bar = page.locator(".hand-area").bounding_box()
        assert page.locator("#last-result").inner_text()  # a trick was explained
        for selector in ("#trick-status", "#last-result", "#trick"):
            box = page.locator(selector).bounding_box()
            assert box["y"] + box["height"] <= bar["y"] + 1, (size, selector, box, bar)
            assert covering(page, selector) is None, (size, selector, covering(page, selector))
        for k in range(page.locator(".slot .card").count()):
            assert covering(page, f".slot:has(.card) >> nth={k}") is None, size
    context.close()


@pytest.mark.parametrize("size", [(390, 844), (844, 390)])
def test_on_a_phone_the_deal_summary_covers_nothing(browser, server, size):
    """The summary of a finished deal (its last card tapped here, the others
    played through the API) leaves the header, the trick counts, your hand bar
    and Play uncovered, and its Next deal button is in reach."""
    game = game_at(server.url, lambda v: v["your_turn"] and len(v["hand"]) == 1)
    context, page = phone(browser, server.url, "en", size=size, game=game)
    page.locator(".hand-card").first.tap()
    assert after_move(page, lambda: page.locator("#confirm").tap()) == "deal-over"
    assert page.locator("#summary").is_visible()
    summary = page.locator("#summary").bounding_box()
    page.evaluate("scrollTo(0, 0)")
    for selector in (".topbar", ".seat-north .seat-tricks", ".seat-west .seat-tricks",
                     ".seat-east .seat-tricks", "#confirm"):
        assert covering(page, selector) is None, (size, selector, covering(page, selector))
    page.locator("#next-deal").scroll_into_view_if_needed()
    summary = page.locator("#summary").bounding_box()
    for selector in (".hand-area", ".topbar"):
        other = page.locator(selector).bounding_box()
        apart = (summary["y"] + summary["height"] <= other["y"] + 1 or
                 other["y"] + other["height"] <= summary["y"] + 1 or
                 summary["x"] + summary["width"] <= other["x"] + 1 or
                 other["x"] + other["width"] <= summary["x"] + 1)
        assert apart, (size, selector, summary, other)
    assert covering(page, "#next-deal") is None, (size, covering(page, "#next-deal"))
    after_move(page, lambda: page.locator("#next-deal").tap())
    context.close()


#: The inline space between each visible text of a dialog and the dialog's edges, in px.
TEXT_INSET = """d => {
  const r = d.getBoundingClientRect();
  return Math.min(...[...d.querySelectorAll("p, label, li, h3")].filter((e) => e.checkVisibility())
    .map((e) => { const b = e.getBoundingClientRect(); return Math.min(b.left - r.left, r.right - b.right); }));
}"""


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_invite_and_review_dialogs_keep_their_text_off_their_edges(page, lang):
    open_table(page, lang=lang, game=kept_game(page.url_base))
    page.click("#open-settings")
    page.click("#open-invite")
    assert page.locator("#invite").evaluate(TEXT_INSET) >= 12
    page.click("#invite button[value=close]")
    page.evaluate("document.getElementById('coach-review-button').click()")
    page.wait_for_selector("#coach-review-body p", timeout=MATCH_TIMEOUT_MS)
    assert page.locator("#coach-review").evaluate(TEXT_INSET) >= 12


@pytest.mark.parametrize("size", [(390, 844), (1280, 800)])
def test_the_hand_bar_keeps_its_height_whatever_badges_your_seat_shows(browser, server, size):
    """No badge, or all three in Finnish (the longest words) beside a long
    name: the bar over your hand is as tall."""
    context, page = phone(browser, server.url, "fi", touch=False, size=size)
    heights = page.evaluate("""() => {
      const bar = document.querySelector(".hand-area");
      const badges = document.querySelector(".seat-south .badges");
      const name = document.querySelector(".seat-south .seat-name");
      name.textContent = "Sinä · Alexandra-Marguerite";
      const heights = [];
      const words = {dealer: "Dealer", turn: "Your turn", leading: "Leads the deal"};
      for (const shown of [[], ["dealer", "turn", "leading"], ["turn"]]) {
        badges.innerHTML = shown.map((b) => `<span class="badge ${b}">${AluetteText.t(words[b])}</span>`).join("");
        heights.push(bar.getBoundingClientRect().height);
      }
      return heights;
    }""")
    assert max(heights) - min(heights) < 1, (size, heights)
    context.close()


def test_on_a_phone_the_chosen_cards_check_stays_over_the_hand(browser, server):
    """The check mark of a chosen card is drawn inside the hand's own box, so
    it covers none of the badges (Dealer) above the hand, lifted as it is."""
    context, page = phone(browser, server.url, "en", motion="no-preference")
    for k in (0, 4, 8):
        page.locator(".hand-card").nth(k).tap()
        check = page.locator(".hand-card.selected").evaluate("""async b => {
          await Promise.all(b.getAnimations().map((a) => a.finished));  // lifted
          const after = getComputedStyle(b, "::after");
          const r = b.getBoundingClientRect();
          return r.top + parseFloat(after.top);
        }""")
        hand = page.locator("#hand").bounding_box()
        assert check >= hand["y"] - 0.5, (k, check, hand)
    context.close()


def test_the_default_pace_is_brisk_and_comes_first_in_the_settings(page):
    """A first visit (nothing stored): 0.3 s after each AI card, and the pace is
    the first thing the Settings offer."""
    page.goto(page.url_base)
    wait_ready(page)
    page.click("#open-settings")
    assert page.locator("#settings fieldset legend").first.inner_text() == "Pace"
    assert page.locator("#pace").input_value() == "300"
    assert page.locator("#pace-out").inner_text() == "0.3 s"


def play_a_card(page, level_of: dict[int, int], spoil: bool) -> str:
    """Play a card that ties the strongest card on the table (``spoil``: a
    spoiled trick, R11, when nobody beats both) if you hold one, else your
    weakest playable card; or (not ``spoil``) your strongest. Returns the
    page's state once the answer is shown."""
    table = page.locator(".slot .card").evaluate_all("cs => cs.map((c) => Number(c.dataset.card))")
    hand = sorted(page.locator('.hand-card[aria-disabled="false"]').evaluate_all(
        "cs => cs.map((c) => Number(c.dataset.card))"), key=level_of.get)  # strongest first
    top = min((level_of[c] for c in table), default=None)  # level 1 is the highest
    card = next((c for c in hand if level_of[c] == top), hand[-1]) if spoil else hand[0]
    page.click(f'.hand-card[data-card="{card}"]')
    return after_move(page, lambda: page.click("#confirm"))


def levels(url: str) -> dict[int, int]:
    """Each card's level of strength (1: the highest) as ``/api/deck`` gives them."""
    deck = HTTP.get(f"{url}/api/deck", timeout=30).json()
    return {card: k + 1 for k, level in enumerate(deck["levels"]) for card in level}


def spoiling(level_of: dict[int, int]):
    """:func:`play_a_card`'s spoiling choice made on the API's view (for
    :func:`web_helpers.play_through_api`)."""
    def choose(view: dict) -> int:
        table = [p["card"] for p in (view["current_trick"] or {"plays": []})["plays"]]
        top = min((level_of[c] for c in table), default=None)
        hand = sorted(view["legal"], key=level_of.get)
        return next((c for c in hand if level_of[c] == top), hand[-1])
    return choose


@LTR_DESKTOP_AND_RTL_PHONE
def test_your_own_turn_never_reads_waiting_for_you(browser, server, lang, size):
    """The prompt never says "Waiting for You…" (the page's words, in its
    language): not while your card's answer is shown, not during the pause
    over a trick after which you lead (your turn, its badge shown, the hand
    not yet playable). The cards before are played through the API, up to a
    trick you close with a card above the three on the table; the page plays
    it. The words, not the layout: English on a laptop and Arabic on a phone."""
    level_of = levels(server.url)

    def you_take_a_trick(view: dict) -> bool:  # the fourth card, above the three: you lead next
        table = [p["card"] for p in (view["current_trick"] or {"plays": []})["plays"]]
        return view["your_turn"] and len(table) == 3 and len(view["hand"]) > 1 and \
            min(level_of[c] for c in view["legal"]) < min(level_of[c] for c in table)
    game = kept_game(server.url)
    play_through_api(server.url, [game], you_take_a_trick)
    context, page = phone(browser, server.url, lang, touch=False, size=size, game=game)
    page.evaluate("""() => {
      window.__prompts = [];
      new MutationObserver((records) => { for (const r of records) for (const n of r.addedNodes)
        window.__prompts.push(n.textContent); })
        .observe(document.getElementById("prompt"), {childList: true});
    }""")
    assert play_a_card(page, level_of, spoil=False) == "your-turn"  # your strongest card
    assert page.locator(".slot .card").count() == 0  # you lead after the trick you took
    assert page.locator("#last-result").inner_text()
    waiting_for_you = page.evaluate("AluetteText.t('Waiting for {seat}…', "
                                    "{seat: AluetteText.t('You')})")
    prompts = page.evaluate("window.__prompts")
    assert prompts and waiting_for_you not in prompts, (waiting_for_you, prompts)
    context.close()


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_deal_summary_keeps_the_last_trick_explained_and_explains_a_spoiled_trick(
        browser, server, lang):
    """At each deal's end, on a laptop and on a phone, the last trick's
    explanation stays on screen beside the summary, covered by nothing; a "✕" in
    the summary's line of tricks (a
    spoiled trick) is explained under it, in the page's language, and only
    then. The page shows the end of the first deal, whatever it holds, then of
    the first deal with a spoiled trick: the cards before each deal's last
    one are played through the API (tying the strongest card on the table
    where you can), the last on the page."""
    game = kept_game(server.url)
    context, page = phone(browser, server.url, lang, touch=False, size=SIZES[0], game=game)
    level_of = levels(server.url)
    legend = page.evaluate("AluetteText.t('{mark}: a spoiled trick, which nobody took.', "
                           "{mark: '✕'})")
    assert legend != "{mark}: a spoiled trick, which nobody took."
    shown: list[bool] = []  # each deal ended on the page: whether it had a spoiled trick

    def last_card_here(view: dict) -> bool:  # the first deal's last card, or a spoiled deal's
        return view["match"]["over"] or view["your_turn"] and len(view["hand"]) == 1 and (
            not shown or any(t["winner"] is None for t in view["tricks_played"]))
    for _ in range(4):  # the first deal, then (at most) two matches' deals through the API
        play_through_api(server.url, [game], last_card_here, spoiling(level_of))
        if page.request.get(f"{server.url}/api/games/{game}").json()["state"]["match"]["over"]:
            assert page.request.post(f"{server.url}/api/games/{game}/new-match",
                                     data={}).ok
            continue
        page.reload()
        assert wait_ready(page) == "your-turn"
        assert play_a_card(page, level_of, spoil=True) == "deal-over"
        for size in at_each_size(page):
            explained = page.locator("#last-result")
            assert explained.inner_text() and explained.is_visible()
            explained.scroll_into_view_if_needed()
            assert covering(page, "#last-result") is None, (size, covering(page, "#last-result"))
            words, summary = explained.bounding_box(), page.locator("#summary").bounding_box()
            assert (words["y"] + words["height"] <= summary["y"] + 1
                    or summary["y"] + summary["height"] <= words["y"] + 1), (size, words, summary)
        spoiled = "✕" in page.locator("#summary .trick-line").first.inner_text()
        assert page.locator("#summary .spoiled-legend").all_inner_texts() == (
            [legend] if spoiled else [])
        shown.append(spoiled)
        if spoiled:
            break
    assert shown and shown[-1], shown
    context.close()


def test_on_a_phone_every_ai_name_fits_its_menu_with_its_strength_in_every_language(
        browser, server):
    """Settings, AI players, at 390 px: in every language each menu is wide
    enough for the longest AI name it offers, and says under it how strong
    the chosen AI is; the rules of a match alone with AIs and no signs tell
    neither the table of people's sentence nor the signs."""
    languages = HTTP.get(f"{server.url}/api/languages", timeout=30).json()["languages"]
    context, page = phone(browser, server.url, "en", touch=False)
    try:
        for lang in languages:
            page.select_option("#language", lang)
            page.wait_for_selector(f"html[lang={lang}]", state="attached")
            page.click("#open-settings")
            for role in ("partner", "left", "right"):
                select = page.locator(f'select[data-role="{role}"]')
                need, room = select.evaluate("""s => {
                    const ctx = document.createElement('canvas').getContext('2d');
                    ctx.font = getComputedStyle(s).font;
                    const text = Math.max(...[...s.options].map((o) => ctx.measureText(o.text).width));
                    return [text + 32, s.getBoundingClientRect().width];  // 32: the arrow, padding
                }""")
                assert need <= room, (lang, role, need, room)
                assert page.locator(f"#ai-{role}-strength").inner_text().strip(), (lang, role)
            page.click("#settings button[value=close]")
        page.click("#open-rules")
        assert page.locator('#rules [data-when="alone"]').is_visible()
        assert page.locator('#rules [data-when="table"]').is_hidden()
        assert page.locator('#rules [data-when="signs"]').first.is_hidden()
    finally:
        context.close()
