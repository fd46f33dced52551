"""Friends at one table in a real browser (Debian's Chromium, as
test_web_browser.py drives it): two partners in two browser contexts finish a
match against two AIs (played through the API, which test_web_tables.py
checks card by card, to its last two tricks), with each move pushed to the
other page; ``aluette serve`` (its own process, on a SQLite file) is SIGKILLed and
restarted mid-deal and both pages continue; a person leaves, the table's AI
plays for them, and they come back with their link.

Four people in four browser contexts play the first trick of a deal, each
page naming the other three, and every page follows the deal to its end. With
``ALUETTE_SCREENSHOTS=DIR`` that test saves the README's screenshot of the
table of four people there.
"""

from __future__ import annotations

import contextlib
import json
import re
import time

import pytest

from browser_fixtures import MATCH_TIMEOUT_MS, NEEDS_BROWSER, expect, shoot
from web_helpers import HTTP, Served, cards_in, free_port, game_of, play_through_api

pytest_plugins = ["browser_fixtures"]  # the session's one browser

pytestmark = [*NEEDS_BROWSER]

STATES = ("your-turn", "waiting", "deal-over", "match-over", "busy", "lost")


#: browser_fixtures' ``server``, in this process (quicker to start than ``served``),
#: on a SQLite file as ``aluette serve`` keeps its games.
SERVER = dict(seed=7, db="sqlite:///{tmp}/games.db")


@pytest.fixture(scope="module")
def served_once(tmp_path_factory):
    """``aluette serve`` in a process of its own, on a SQLite file, started once
    for the file's tests that kill it."""
    db = tmp_path_factory.mktemp("served") / "games.db"
    served = Served(f"sqlite:///{db}", port=free_port()).start()
    yield served
    served.stop()


@pytest.fixture
def served(served_once):
    """:func:`served_once`, running: one a test may kill (and start again)."""
    if served_once.proc.poll() is not None:  # a test that failed with it down
        served_once.start()
    return served_once


#: The browser contexts the running test opened (``seat_page``): closed when it
#: ends, so no page of a finished test goes on following its game (or asking a
#: stopped server every 1.5 s) beside the tests that come after it.
_CONTEXTS: list = []


@pytest.fixture(autouse=True)
def _close_pages():
    yield
    while _CONTEXTS:
        with contextlib.suppress(Exception):  # one the test closed itself
            _CONTEXTS.pop().close()


def seat_page(browser, url: str, lang: str | None = None, before=None):
    """A page of its own (a browser context) at ``url``, closed when the test
    ends; ``before(page)`` runs before it loads."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB",
                                  reduced_motion="reduce")
    _CONTEXTS.append(context)
    context.add_init_script("localStorage.setItem('aluette.pace', '0');" + (
        f"localStorage.setItem('aluette.lang', '{lang}');" if lang else ""))
    page = context.new_page()
    if before is not None:
        before(page)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # The browser's own log of a 4xx answer, or of a socket to a server that is
    # down, is no script error; any other error in the console is.
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and not (
        m.text.startswith("Failed to load resource") or "WebSocket connection" in m.text
        and page.allow_socket_errors) else None)
    page.allow_socket_errors = False
    page.errors = errors
    page.goto(url)
    page.wait_for_selector("body[data-state]", state="attached", timeout=MATCH_TIMEOUT_MS)
    return page


def state(page) -> str:
    return page.evaluate("document.body.dataset.state || ''")


def play_first_card(page) -> None:
    moves = int(page.evaluate("document.body.dataset.moves || '0'"))
    page.locator(".hand-card").first.click()
    page.click("#confirm")
    page.wait_for_selector(f"body[data-moves='{moves + 1}']", state="attached",
                           timeout=MATCH_TIMEOUT_MS)


def step(pages, deadline: float) -> str:
    """One move by whichever page has one to make: what it was ("played",
    "dealt", or "over" when every page shows the match's end). The page
    that played is ``step.played``."""
    while True:
        states = [state(p) for p in pages]
        assert time.monotonic() < deadline, states
        if "your-turn" in states:
            step.played = states.index("your-turn")
            play_first_card(pages[step.played])
            return "played"
        if all(s == "match-over" for s in states):
            return "over"
        if all(s in ("deal-over", "match-over") for s in states) and "deal-over" in states:
            page = pages[states.index("deal-over")]
            moves = int(page.evaluate("document.body.dataset.moves || '0'"))
            page.click("#next-deal")
            page.wait_for_selector(f"body[data-moves='{moves + 1}']", state="attached",
                                   timeout=MATCH_TIMEOUT_MS)
            return "dealt"
        time.sleep(0.02)


def make_table(server, bob: str = "Bob", **extra) -> dict:
    r = HTTP.post(f"{server.url}/api/tables", timeout=30, json={
        "people": {"0": "Ann", "2": bob}, "ai": "heuristic", **extra})
    assert r.status_code == 201, r.text
    return r.json()


def test_two_partners_in_two_browsers_finish_a_match(browser, server):
    """The match is played through the API to the last two tricks of its last
    deal (the rules of the game are test_web_tables.py's); the two pages open
    there, each person plays their last two cards on their page, each move
    pushed to the other page, and both pages show the match's end."""
    made = make_table(server, bob="Bob <i>&amp;")
    tokens = [made["seats"][s]["token"] for s in ("0", "2")]
    play_through_api(server.url, tokens, until=lambda view: view["deal"]["number"] == 5
                     and view["your_turn"] and len(view["hand"]) == 2)
    left = HTTP.get(f"{server.url}/api/games/{tokens[0]}", timeout=30).json()["state"]
    left = {0: len(left["hand"]), 1: left["hand_sizes"][2]}  # Ann's cards, Bob's
    pages = [seat_page(browser, server.url + made["seats"][s]["link"]) for s in ("0", "2")]
    # Each page shows the other person's name at the partner's seat, as text.
    assert pages[0].locator('.seat[data-seat="2"] .seat-name').inner_text().endswith(
        "· Bob <i>&amp;")
    assert pages[1].locator('.seat[data-seat="2"] .seat-name').inner_text().endswith("· Ann")
    deadline = time.monotonic() + 300
    plays, dealt = {0: 0, 1: 0}, 0
    while True:
        done = step(pages, deadline)
        if done == "over":
            break
        if done == "played":
            plays[step.played] += 1
        else:
            dealt += 1
    # each person played the cards they had left, nobody else, and no deal was started
    assert dealt == 0 and plays == left and left[0] == 2
    texts = [p.locator("#summary").inner_text() for p in pages]
    assert all("win the match" in t or "draw" in t for t in texts)
    assert not any(p.errors for p in pages), [p.errors for p in pages]


def test_four_people_in_four_browsers_play_a_deal(browser, server):
    """Every seat a person: each page names the other three at their seats
    (counted from it); each person plays their card of the first trick on
    their page; then the rest of the deal is played through the API and the
    first page follows it to its end (what every seat is pushed of it is
    test_web_tables.py's, on the sockets)."""
    names = ["Ann", "Ben", "Chloé", "Dev"]
    r = HTTP.post(f"{server.url}/api/tables", timeout=30,
                  json={"people": {str(s): n for s, n in enumerate(names)}})
    assert r.status_code == 201, r.text
    made = r.json()
    pages = [seat_page(browser, server.url + made["seats"][str(s)]["link"]) for s in range(4)]
    for me, page in enumerate(pages):
        for other in range(4):
            if other != me:  # the page counts seats from its own (south: 0)
                where = (other - me) % 4
                assert page.locator(f'.seat[data-seat="{where}"] .seat-name'
                                    ).inner_text().endswith(f"· {names[other]}")
    deadline = time.monotonic() + 300
    plays = [0, 0, 0, 0]
    while sum(plays) < 4:
        assert step(pages, deadline) == "played"
        plays[step.played] += 1
        if sum(plays) == 3:  # the first trick under way: cards on the table
            shoot(pages[0], "web-table", quality=70)
    assert plays == [1, 1, 1, 1]
    assert not any(p.errors for p in pages), [p.errors for p in pages]
    for page in pages[1:]:
        page.context.close()
    assert play_through_api(server.url, [made["seats"][str(s)]["token"] for s in range(4)],
                            until=lambda view: view["deal"]["done"]) == 36 - 4
    pages[0].wait_for_selector("body[data-state='deal-over']", state="attached",
                               timeout=MATCH_TIMEOUT_MS)
    assert not pages[0].errors, pages[0].errors


def test_the_server_killed_mid_deal_and_restarted_both_pages_continue(browser, served):
    made = make_table(served)
    pages = [seat_page(browser, served.url + made["seats"][s]["link"]) for s in ("0", "2")]
    deadline = time.monotonic() + 200
    for _ in range(3):
        assert step(pages, deadline) == "played"
    hands = [p.locator(".hand-card").count() for p in pages]
    for page in pages:
        page.allow_socket_errors = True  # the sockets to the dead server fail, as they should
    served.kill()
    for page in pages:  # each page finds the server gone, says so, and keeps trying
        page.wait_for_selector("#offline", state="visible", timeout=MATCH_TIMEOUT_MS)
    served.start()
    # Both pages reconnect by themselves and show the same position, then play on.
    for page, hand in zip(pages, hands):
        page.wait_for_selector("#offline", state="hidden", timeout=MATCH_TIMEOUT_MS)
        page.wait_for_selector("body[data-state=your-turn], body[data-state=waiting]",
                               state="attached", timeout=MATCH_TIMEOUT_MS)
        assert page.locator(".hand-card").count() == hand
    for _ in range(4):  # and the deal goes on from there
        assert step(pages, deadline) == "played"
    assert sum(p.locator(".hand-card").count() for p in pages) == sum(hands) - 4
    assert not any(p.errors for p in pages), [p.errors for p in pages]


def test_the_host_sets_the_away_time_and_the_table_says_who_is_away_and_back(browser, server):
    """The host's page (in French) sets the seconds before the AI plays for a
    friend who left: out of bounds, the server's one-line refusal reads in
    French with its bounds; 5 s makes the table. Bob leaves on his turn: the
    AI plays his card and Ann's page says he is away; he comes back with his
    link, Ann's page says he is back, and he plays his own cards again."""
    fr = HTTP.get(f"{server.url}/api/i18n/fr", timeout=30).json()["messages"]
    ann = seat_page(browser, server.url + "/", lang="fr")
    ann.wait_for_selector("body[data-state=your-turn], body[data-state=waiting]",
                          state="attached", timeout=MATCH_TIMEOUT_MS)
    ann.click("#open-settings")
    ann.click("#open-invite")
    ann.fill("#invite-you", "Ann")
    label = "Seconds a friend has to play before the AI plays for them"
    assert ann.locator("label:has(#invite-away)").inner_text().strip() == fr[label] != label
    assert ann.locator("#invite-away").input_value() == "180"
    bounds = "The seconds a friend has to play must be a whole number from {low} to {high}."
    error = ann.locator("#invite-error")
    for bad in ("4", "3601", "2.5", ""):
        ann.fill("#invite-away", bad)
        create_table(ann)
        error.wait_for(state="visible", timeout=MATCH_TIMEOUT_MS)
        assert error.inner_text() == fr[bounds].format(low=5, high=3600) != bounds, bad
        assert ann.locator("#invite-links").is_hidden()
        ann.evaluate("document.getElementById('invite-error').hidden = true")
    ann.fill("#invite-away", "5")
    ann.click("#invite-create")
    ann.wait_for_selector("#invite-list li:nth-child(3)", timeout=30_000)
    assert error.is_hidden()
    # The host's own link first; the partner's: the page invites them by their seat's name.
    assert ann.locator("#invite-list label").nth(1).inner_text().strip() == fr["Partner"]
    bob_link = ann.locator("#invite-list input").nth(1).input_value()
    ann.click("#invite button[value=close]")
    bob = seat_page(browser, bob_link)
    away = ann.locator("#away")
    assert away.is_hidden()
    deadline = time.monotonic() + 200
    while state(bob) != "your-turn":  # Ann plays until it is Bob's turn
        assert step([ann, bob], deadline) in ("played", "dealt")
    cards = bob.locator(".hand-card").count()
    bob.context.close()  # Bob leaves on his turn
    # After 5 s the table's AI plays Bob's card, and Ann's page says so.
    ann.wait_for_selector("#away:not([hidden])", timeout=30_000)
    bob_name = fr["Partner"]
    assert away.inner_text() == fr["{name} is away: the AI plays for them"].format(name=bob_name)
    # (the AI may have played his lead of the next trick too, if he took this one)
    assert ann.locator('.seat[data-seat="2"] .mini-back').count() < cards
    # Bob comes back with his link: his seat, his hand (the cards the AI played gone).
    bob = seat_page(browser, bob_link)
    bob.wait_for_selector("body[data-state=waiting], body[data-state=your-turn]",
                          state="attached", timeout=MATCH_TIMEOUT_MS)
    held = bob.locator(".hand-card").count()
    assert held < cards
    back = fr["{name} is back"].format(name=bob_name)
    ann.wait_for_selector(f"#away:has-text('{back}')", timeout=MATCH_TIMEOUT_MS)
    assert away.inner_text() == back
    # From now on Bob plays his own cards again: the AI does not play for him.
    step.played = None
    while step.played != 1:
        assert step([ann, bob], deadline) in ("played", "dealt")
    assert bob.locator(".hand-card").count() < held
    assert "away" not in away.inner_text()
    assert not ann.errors and not bob.errors


def test_the_review_names_the_reviewers_plays_you_at_any_seat(browser, server):
    """Ann (seat 0) and Bob (seat 2) play a deal, then each opens "Review deal":
    each review names its reader's own nine plays "You" and the other's
    "Partner", their own cards, and its summary says the same."""
    made = make_table(server)
    tokens = {s: made["seats"][s]["token"] for s in ("0", "2")}
    hands = [HTTP.get(f"{server.url}/api/games/{tokens[s]}", timeout=30).json()["state"]["hand"]
             for s in ("0", "2")]
    assert [len(h) for h in hands] == [9, 9]
    # the deal played through the API; the pages open on its end
    play_through_api(server.url, list(tokens.values()), until=lambda view: view["deal"]["done"])
    pages = [seat_page(browser, server.url + made["seats"][s]["link"]) for s in ("0", "2")]
    for me, page in enumerate(pages):
        page.click("#coach-review-button")
        page.wait_for_selector("body[data-review=shown]", state="attached",
                               timeout=MATCH_TIMEOUT_MS)
        names = page.evaluate("cs => cs.map((c) => AluetteText.cardName(c))",
                              hands[me] + hands[1 - me])
        mine, partners = set(names[:9]), set(names[9:])
        plays: dict[str, set[str]] = {}
        for line in page.locator("#coach-review .coach-plays li > span:first-child") \
                .all_inner_texts():
            who, card = re.fullmatch(r"Trick \d · (\w+): (.+)", line).groups()
            plays.setdefault(who, set()).add(card)
        assert plays == {"You": mine, "Partner": partners}, (me, plays)
        # The costs beside "You" are this reader's: the server's review of their seat.
        review = HTTP.get(f"{server.url}/api/games/{tokens[str(2 * me)]}/review",
                          timeout=30).json()
        mistakes = {p["card"] for p in review["deals"][0]["plays"]
                    if p["seat"] == 2 * me and p["review"] and p["review"]["mistake"]}
        marked = page.locator("#coach-review .coach-plays li.coach-mistake > span:first-child")
        shown = {re.fullmatch(r"Trick \d · (\w+): (.+)", t).groups()
                 for t in marked.all_inner_texts()}
        assert {card for who, card in shown if who == "You"} == set(page.evaluate(
            "cs => cs.map((c) => AluetteText.cardName(c))", sorted(mistakes)))
        summary = page.locator("#coach-review-body > p").all_inner_texts()
        assert [line.split(" — ")[0] for line in summary] == ["You", "Partner"], summary
        page.click("#coach-review button[value=close]")
    assert not any(p.errors for p in pages), [p.errors for p in pages]


YOU = re.compile(r"\b(you|your)\b", re.IGNORECASE)


def test_a_spectator_is_nobody_and_sees_no_unplayed_card(browser, server):
    """A spectator watches a whole deal of Ann (playing through the API, as her
    page would) and three AIs: the seats are
    South (Ann), West, North and East, nothing says "you" (the table, its
    words from the server, the deal's summary), there is no hand, no Play
    button and no coach, and no card that was not played yet is in the page
    or in anything the server sent it (answers and pushed views)."""
    r = HTTP.post(f"{server.url}/api/tables", timeout=30,
                  json={"people": {"0": "Ann"}, "ai": "heuristic"})
    assert r.status_code == 201, r.text
    made = r.json()
    ann_token = made["seats"]["0"]["token"]
    answers, frames = [], []

    def listen(page):
        page.on("response", lambda res: answers.append(res) if "/api/games/" in res.url else None)
        page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
    watcher = seat_page(browser, server.url + made["spectator"]["link"], before=listen)

    def check() -> None:
        ann_view = HTTP.get(f"{server.url}/api/games/{ann_token}", timeout=30).json()["state"]
        played = cards_in({"t": ann_view["tricks_played"], "c": ann_view["current_trick"],
                           "l": ann_view["last_trick"]})
        seen = cards_in([a.json() for a in answers] + [json.loads(f) for f in frames])
        assert seen <= played, sorted(seen - played)
        shown = set(watcher.locator("#app [data-card]").evaluate_all(
            "els => els.map(e => +e.dataset.card)"))
        assert shown <= played, sorted(shown - played)
        text = watcher.locator("#app").inner_text()
        assert not YOU.search(text), text
        labels = watcher.locator("#app [aria-label]").evaluate_all(
            "els => els.filter(e => e.checkVisibility()).map(e => e.getAttribute('aria-label'))")
        assert not any(YOU.search(x) for x in labels), labels
        names = [watcher.locator(f'.seat[data-seat="{s}"] .seat-name').inner_text()
                 for s in range(4)]
        assert names == ["South · Ann", "West", "North", "East"], names
        assert watcher.locator(".hand-card").count() == 0
        for hidden in ("#hand", "#confirm", "#coach-hint-button", "#coach-review-button"):
            assert watcher.locator(hidden).is_hidden(), hidden

    check()
    while person_plays(server.url, ann_token, most=1):  # the AIs' cards come in its answer
        check()
    watcher.wait_for_selector("body[data-state=deal-over]", state="attached",
                              timeout=MATCH_TIMEOUT_MS)
    check()
    assert frames and all(json.loads(f)["state"]["spectator"] for f in frames)
    summary = watcher.locator("#summary").inner_text()
    assert "South and north score" in summary or "West and east score" in summary, summary
    assert watcher.locator("#next-deal").is_hidden()
    assert not watcher.errors


def inviting(browser, url: str, name: str, before=None):
    """A host's page of a new game at ``url``, its Invite friends dialog open,
    the host's name typed in (``before``: :func:`seat_page`'s)."""
    host = seat_page(browser, url + "/", before=before)
    host.wait_for_selector("body[data-state=your-turn], body[data-state=waiting]",
                           state="attached", timeout=MATCH_TIMEOUT_MS)
    host.click("#open-settings")
    host.click("#open-invite")
    host.fill("#invite-you", name)
    return host


def create_table(host) -> None:
    """The host creates the table, giving up the match shown if the page asks."""
    host.click("#invite-create")
    if host.locator("#confirm-new").is_visible():
        host.click("#confirm-new-yes")


#: The browser's share sheet (``navigator.share``, which the tests' Chromium may
#: lack), stubbed: what it was given is kept in ``window.shared``.
SHARE_SHEET = ("Object.defineProperty(navigator, 'share', {configurable: true, value: (data) => {"
               " (window.shared = window.shared || []).push(data); return Promise.resolve(); }});")


def test_the_page_invites_a_friend_who_opens_their_link(browser, server):
    """... and the page asks before the table replaces the match in progress;
    each link has its Copy and Share buttons; the AI the host picks plays for
    friends who are away; the host's own link is listed and stays in the
    address, and the site opened again in this browser returns to the table;
    the tab's title says whose turn it is, and the rules speak of the table."""
    host = inviting(browser, server.url, "Ann <b>",
                    before=lambda page: page.add_init_script(SHARE_SHEET))
    host.click("#invite button[value=close]")
    if state(host) == "your-turn":
        play_first_card(host)
    host.click("#open-settings")
    host.click("#open-invite")
    host.check('input[data-invite-seat="1"]')  # the partner (ticked) and West are friends
    host.select_option("#invite-standin", "random")  # not the table's AI (heuristic)
    host.click("#invite-create")
    expect(host.locator("#confirm-new")).to_be_visible()
    host.click("#confirm-new button[value=keep]")  # the match in progress stays
    assert host.locator("#invite-links").is_hidden() and "?seat=" in host.url
    shown = host.url
    host.click("#invite-create")
    with host.expect_response(lambda r: r.url.startswith(server.url + "/api/tables?")) as made:
        host.click("#confirm-new-yes")
    assert made.value.json()["standin"] == "random"
    links = host.locator("#invite-list input")
    expect_count = 4  # the host's own, Partner, West, the spectators
    host.wait_for_selector(f"#invite-list li:nth-child({expect_count})", timeout=30_000)
    urls = [links.nth(k).input_value() for k in range(links.count())]
    assert len(urls) == expect_count and all(u.startswith(server.url + "/?") for u in urls)
    assert "?watch=" in urls[-1]
    # Each link has its Copy button; the host's own is in the address too.
    assert host.locator("#invite-list li button.copy-link").count() == expect_count
    host.locator("#invite-list li button.copy-link").nth(1).click()
    expect(host.locator("#invite-list li button.copy-link").nth(1)).to_have_text("Copied")
    assert host.locator("#invite-list li button.share-link").count() == expect_count
    host.locator("#invite-list li button.share-link").nth(1).click()
    host.wait_for_function("(window.shared || []).length > 0", timeout=MATCH_TIMEOUT_MS)
    assert host.evaluate("window.shared") == [{"title": "Aluette", "url": urls[1]}]
    assert game_of(server.app, urls[0].split("=")[1]).standin_spec == "random"
    host.click("#invite button[value=close]")
    assert host.url == urls[0]
    # The host now sits south at the new table; the partner opens their link.
    friend = seat_page(browser, urls[1])
    friend.wait_for_selector("body[data-state=your-turn], body[data-state=waiting]",
                             state="attached", timeout=MATCH_TIMEOUT_MS)
    names = friend.locator(".seat .seat-name").all_inner_texts()
    assert any(n.endswith("· Ann <b>") for n in names), names
    friend.click("#open-rules")  # the table's sentence, not the one-person game's
    expect(friend.locator('#rules [data-when="table"]')).to_be_visible()
    expect(friend.locator('#rules [data-when="alone"]')).to_be_hidden()
    expect(friend.locator('#rules [data-when="signs"]').first).to_be_hidden()
    friend.click("#rules button[value=close]")
    watcher = seat_page(browser, urls[-1])
    watcher.wait_for_selector("body[data-state]", state="attached")
    assert watcher.locator(".hand-card").count() == 0
    assert shown != urls[0]
    again = host.context.new_page()  # the site opened again, in a new tab
    again.goto(server.url + "/")
    again.wait_for_selector("body[data-state]", state="attached", timeout=MATCH_TIMEOUT_MS)
    assert again.url == urls[0]
    expect(again.locator('.seat[data-seat="0"] .seat-name')).to_have_text("You · Ann <b>")
    for page in (host, friend):  # the tab's title: your turn, or the game's name
        title = "Your turn · Aluette" if state(page) == "your-turn" else \
            "Aluette · The game of the cow"
        expect(page).to_have_title(title)
    assert not host.errors and not friend.errors and not watcher.errors


def test_my_matches_lists_this_browsers_matches_and_opens_one(browser, server):
    """... each with the others at its table, by name."""
    page = seat_page(browser, server.url + "/")
    page.wait_for_selector("body[data-state=your-turn], body[data-state=waiting]",
                           state="attached", timeout=MATCH_TIMEOUT_MS)
    play_first_card(page)
    first = page.evaluate("sessionStorage.getItem('aluette.game')")
    made = make_table(server)  # a second match: this browser opens its seat's link
    page.goto(server.url + made["seats"]["0"]["link"])
    page.wait_for_selector("body[data-state=your-turn], body[data-state=waiting]",
                           state="attached", timeout=MATCH_TIMEOUT_MS)
    page.click("#open-settings")
    page.wait_for_selector("#my-matches li:nth-child(2)", timeout=30_000)
    rows = page.locator("#my-matches li")
    assert rows.count() == 2 and all("Deal 1 of 5: 0 to 0" in r for r in rows.all_inner_texts())
    assert " · With Bob · " in rows.nth(0).inner_text() and "With" not in rows.nth(1).inner_text()
    # The newest first, the open one disabled; Open brings the first match back.
    assert rows.nth(0).locator("button").is_disabled()
    hand = 8  # one card played in the first match
    rows.nth(1).locator("button").click()
    page.wait_for_selector("#settings:not([open])", state="attached")
    assert page.evaluate("sessionStorage.getItem('aluette.game')") == first
    assert page.locator(".hand-card").count() == hand
    assert not page.errors


def test_the_servers_refusals_and_absence_read_in_the_pages_language(browser, served):
    """A move the server refuses (made on a view the game had not reached)
    reads as the catalog's French for its error code, never the server's
    English; while the server is down the page says, in French, that it
    tries again (never the browser's "Failed to fetch"), and the play goes
    through once the server is back."""
    fr = HTTP.get(f"{served.url}/api/i18n/fr").json()["messages"]
    context = browser.new_context(viewport={"width": 1280, "height": 900},
                                  reduced_motion="reduce")
    context.add_init_script("localStorage.setItem('aluette.pace', '0');"
                            "localStorage.setItem('aluette.lang', 'fr');")
    page = context.new_page()
    page.goto(served.url)
    page.wait_for_selector("body[data-state=your-turn]", state="attached",
                           timeout=MATCH_TIMEOUT_MS)

    def newer_version(route):  # a view this game never had: the server refuses it
        body = json.loads(route.request.post_data)
        route.continue_(post_data=json.dumps({**body, "version": body["version"] + 1}))
    page.route("**/play?*", newer_version)
    page.locator(".hand-card").first.click()
    page.click("#confirm")
    error = page.locator("#error")
    error.wait_for(state="visible", timeout=MATCH_TIMEOUT_MS)
    stale = "The game moved on before this move arrived, so nothing was changed. " \
            "The table now shows the game as it is."
    assert error.inner_text() == fr[stale] != stale
    assert "version" in error.get_attribute("data-detail")  # the server's words, kept aside
    page.unroute("**/play?*")

    hand = page.locator(".hand-card").count()
    moves = int(page.evaluate("document.body.dataset.moves"))
    served.kill()
    page.locator(".hand-card").first.click()
    page.click("#confirm")
    offline = page.locator("#offline")
    offline.wait_for(state="visible", timeout=MATCH_TIMEOUT_MS)
    assert offline.inner_text() == fr["Cannot reach the server; trying again…"]
    assert "fetch" not in page.locator("body").inner_text().lower()
    served.start()
    offline.wait_for(state="hidden", timeout=MATCH_TIMEOUT_MS)
    page.wait_for_selector(f"body[data-moves='{moves + 1}']", state="attached",
                           timeout=MATCH_TIMEOUT_MS)
    assert page.locator(".hand-card").count() == hand - 1
    context.close()


def person_plays(url: str, token: str, most: int | None = None) -> int:
    """The person of ``token`` plays their first legal card as long as it is
    their turn (through the API, as another page would), ``most`` cards at
    most: how many cards."""
    plays = 0
    while plays != most:
        view = HTTP.get(f"{url}/api/games/{token}", timeout=30).json()["state"]
        if not view["your_turn"]:
            return plays
        r = HTTP.post(f"{url}/api/games/{token}/play", timeout=30,
                      json={"card": view["legal"][0], "version": view["version"]})
        assert r.status_code == 200, r.text
        plays += 1
    return plays


def test_a_push_during_an_animation_is_shown_after_it(browser, server):
    """Ann's page animates the answer to her play (AI cards at 0.06 s each)
    while Bob plays: the server pushes the newer view to her page mid-answer.
    Each time, over a whole deal, her page ends on the newest view (its
    version, her turn when it is hers), never on her own older answer, and
    shows every trick with its four cards, those Bob's plays closed too."""
    made = make_table(server)
    ann_token, bob_token = made["seats"]["0"]["token"], made["seats"]["2"]["token"]
    bob = seat_page(browser, server.url + made["seats"]["2"]["link"])  # Bob is here
    ann = seat_page(browser, server.url + made["seats"]["0"]["link"],
                    before=lambda p: p.add_init_script("localStorage.setItem('aluette.pace', '60');"))
    mid = []

    def bob_plays_before_the_answer(route):
        response = route.fetch()  # Ann's play is applied; her page waits for its answer
        mid.append(person_plays(server.url, bob_token))
        route.fulfill(response=response)
    ann.route("**/play?*", bob_plays_before_the_answer)
    ann.evaluate("""() => {  // each trick shown whole on the table, by its cards
        window.wholeTricks = new Set();
        new MutationObserver(() => {
            const cards = [...document.querySelectorAll('#trick .slot > [data-card]')];
            if (cards.length === 4) wholeTricks.add(cards.map((c) => c.dataset.card).sort().join());
        }).observe(document.getElementById('trick'), {childList: true, subtree: true});
    }""")
    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline
        person_plays(server.url, bob_token)  # Bob's turns that no play of Ann's led to
        newest = HTTP.get(f"{server.url}/api/games/{ann_token}", timeout=30).json()["state"]
        ann.wait_for_selector(f"body[data-version='{newest['version']}']:not([data-state=busy])",
                              state="attached", timeout=15_000)
        expected = "deal-over" if newest["deal"]["done"] else \
            "your-turn" if newest["your_turn"] else "waiting"
        assert state(ann) == expected
        if expected == "deal-over":
            break
        if expected == "your-turn":
            ann.locator(".hand-card").first.click()
            with ann.expect_response(lambda r: "/play?" in r.url):  # after Bob's plays
                ann.click("#confirm")
    assert sum(1 for n in mid if n) >= 3, mid  # pushed mid-answer, many times over
    assert ann.evaluate("wholeTricks.size") == 9
    assert not ann.errors and not bob.errors, (ann.errors, bob.errors)


def expect_labels(page, labels: list[str]) -> None:
    """The four seats read ``labels``, within 10 s: the names come with the
    table's next push, which may land after the page's first state."""
    for seat, label in enumerate(labels):
        expect(page.locator(f'.seat[data-seat="{seat}"] .seat-name')).to_have_text(
            label, timeout=10_000)


def test_the_host_names_each_friend_and_every_seat_is_labelled_once(browser, server):
    """The host names the West friend "Wes" and leaves the partner unnamed:
    each page labels a seat by its place from the reader, plus the person's
    name when there is one (never a place word as a name), and waits for a
    person by their name."""
    host = inviting(browser, server.url, "Ann")
    host.check('input[data-invite-seat="1"]')
    host.fill('input[data-invite-name="1"]', "Wes")
    create_table(host)
    host.wait_for_selector("#invite-list li:nth-child(4)", timeout=30_000)
    rows = host.locator("#invite-list li")
    assert [rows.nth(k).locator("label").inner_text().strip() for k in range(1, 3)] == \
        ["West · Wes", "Partner"]
    wes_link = rows.nth(1).locator("input").input_value()
    host.click("#invite button[value=close]")
    host.wait_for_selector("body[data-state=your-turn], body[data-state=waiting]",
                           state="attached", timeout=MATCH_TIMEOUT_MS)
    expect_labels(host, ["You · Ann", "West · Wes", "Partner", "East"])
    wes = seat_page(browser, wes_link)
    wes.wait_for_selector("body[data-state=your-turn], body[data-state=waiting]",
                          state="attached", timeout=MATCH_TIMEOUT_MS)
    # From Wes's seat (west): the host's unnamed partner on his left, the host on his right.
    expect_labels(wes, ["You · Wes", "West", "Partner", "East · Ann"])
    view = wes.evaluate("document.body.dataset.state")
    if view == "waiting" and "Ann" in wes.locator("#prompt").inner_text():
        assert wes.locator("#prompt").inner_text() == "Waiting for Ann…"
    assert not host.errors and not wes.errors


def test_only_the_host_starts_a_new_match_and_every_page_says_who_did(browser, server):
    """At Ann's (the host's) table, Bob's page offers no New match and the
    server refuses his; Ann starts one, and Bob's page and the spectator's say
    that Ann did."""
    made = make_table(server)
    ann, bob, watcher = (seat_page(browser, server.url + link) for link in (
        made["seats"]["0"]["link"], made["seats"]["2"]["link"], made["spectator"]["link"]))
    assert ann.locator("#new-match").is_visible() and bob.locator("#new-match").is_hidden()
    r = HTTP.post(f"{server.url}/api/games/{made['seats']['2']['token']}/new-match",
                  json={}, timeout=30)
    assert r.status_code == 403 and r.json()["code"] == "host_only", r.text
    for page in (ann, bob, watcher):
        assert page.locator("#table-notice").is_hidden()
    moves = int(ann.evaluate("document.body.dataset.moves || '0'"))
    ann.click("#new-match")
    if ann.locator("#confirm-new").is_visible():
        ann.click("#confirm-new-yes")
    ann.wait_for_selector(f"body[data-moves='{moves + 1}']", state="attached",
                          timeout=MATCH_TIMEOUT_MS)
    for page in (bob, watcher):
        notice = page.locator("#table-notice")
        notice.wait_for(state="visible", timeout=MATCH_TIMEOUT_MS)
        assert notice.inner_text() == "Ann started a new match."
    assert ann.locator("#table-notice").is_hidden()  # she knows
    assert not ann.errors and not bob.errors and not watcher.errors


def test_each_page_offers_only_what_its_reader_may_do(browser, server):
    """No New match and no AI choice for a spectator; a friend's Settings
    offers an AI choice only for the seats AIs hold, not for the host's."""
    made = make_table(server)
    bob, watcher = (seat_page(browser, server.url + link) for link in (
        made["seats"]["2"]["link"], made["spectator"]["link"]))
    assert watcher.locator("#new-match").is_hidden()
    watcher.click("#open-settings")
    assert watcher.locator("#ai-players").is_hidden()
    bob.click("#open-settings")
    assert bob.locator("#ai-partner").is_hidden()  # Ann's seat, a person's
    assert bob.locator("#ai-left").is_visible() and bob.locator("#ai-right").is_visible()
    assert not bob.errors and not watcher.errors


def test_partners_invited_to_a_table_with_signs_read_each_others_signs(browser, server):
    """The invitation's *Play with signs*: the host and the friend at north each
    sign at their turn with the sign buttons, and each page shows the other's
    sign at the partner's place (seats counted from the reader)."""
    host = inviting(browser, server.url, "Ann")
    host.check("#invite-signs")
    host.fill("#invite-catch", "0")
    create_table(host)
    host.wait_for_selector("#invite-list li:nth-child(3)", timeout=30_000)
    bob = seat_page(browser, host.locator("#invite-list input").nth(1).input_value())
    host.click("#invite button[value=close]")
    pages, signs = [host, bob], ["3", "1"]  # Ann winks (Le Borgne), Bob raises his eyes
    seen = ['#signs-log li[data-seat="2"][data-sign="1"]',
            '#signs-log li[data-seat="2"][data-sign="3"]']
    deadline = time.monotonic() + 120
    while not all(p.locator(s).count() for p, s in zip(pages, seen)):
        states = [state(p) for p in pages]
        assert time.monotonic() < deadline and "deal-over" not in states, states
        if "your-turn" not in states:
            time.sleep(0.05)
            continue
        me = states.index("your-turn")
        page = pages[me]
        if page.get_attribute("body", "data-signing") == "true":
            page.click(f'.sign-button[data-sign="{signs[me]}"]')
            page.wait_for_selector("body[data-signing=false]", state="attached",
                                   timeout=MATCH_TIMEOUT_MS)
        else:
            play_first_card(page)
    # Nobody catches at 0 %: neither page shows an opponent's sign.
    assert not any(p.locator("#signs-log li.caught").count() for p in pages)
    assert not host.errors and not bob.errors, [host.errors, bob.errors]
