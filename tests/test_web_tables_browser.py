"""Friends at one table in a real browser (Debian's Chromium, as
test_web_browser.py drives it): two partners in two browser contexts play a
whole match against two AIs, with each move pushed to the other page; the
server is SIGKILLed and restarted mid-deal and both pages continue; a person
leaves, the table's AI plays for them, and they come back with their link.
The server is ``aluette serve`` in its own process, on a SQLite file.

Four people in four browser contexts play a deal, each page naming the
other three. With ``ALUETTE_SCREENSHOTS=DIR`` that test saves the README's
screenshot of the table of four people there.
"""

from __future__ import annotations

import time

import httpx
import pytest

from test_web_browser import CHROMIUM, MATCH_TIMEOUT_MS, NEEDS_BROWSER, shoot, sync_playwright
from test_web_store import Served, free_port

pytestmark = [*NEEDS_BROWSER, pytest.mark.slow(seconds=90)]

STATES = ("your-turn", "waiting", "deal-over", "match-over", "busy", "lost")


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def server(tmp_path):
    served = Served(f"sqlite:///{tmp_path / 'games.db'}", port=free_port()).start()
    yield served
    served.stop()


def seat_page(browser, url: str):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB",
                                  reduced_motion="reduce")
    context.add_init_script("localStorage.setItem('aluette.pace', '0');")
    page = context.new_page()
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
        time.sleep(0.1)


def make_table(server, bob: str = "Bob", **extra) -> dict:
    r = httpx.post(f"{server.url}/api/tables", timeout=30, json={
        "people": {"0": "Ann", "2": bob}, "ai": "heuristic", **extra})
    assert r.status_code == 201, r.text
    return r.json()


def test_two_partners_in_two_browsers_play_a_whole_match(browser, server):
    made = make_table(server, bob="Bob <i>&amp;")
    pages = [seat_page(browser, server.url + made["seats"][s]["link"]) for s in ("0", "2")]
    # Each page shows the other person's name at the partner's seat, as text.
    assert pages[0].locator('.seat[data-seat="2"] .seat-name').inner_text().endswith(
        "· Bob <i>&amp;")
    assert pages[1].locator('.seat[data-seat="2"] .seat-name').inner_text().endswith("· Ann")
    deadline = time.monotonic() + 300
    plays = {0: 0, 1: 0}
    while True:
        done = step(pages, deadline)
        if done == "over":
            break
        if done == "played":
            plays[step.played] += 1
    assert plays == {0: 45, 1: 45}  # each person played each of their cards, nobody else
    texts = [p.locator("#summary").inner_text() for p in pages]
    assert all("win the match" in t or "draw" in t for t in texts)
    assert not any(p.errors for p in pages), [p.errors for p in pages]


def test_four_people_in_four_browsers_play_a_deal(browser, server):
    """Every seat a person: each page names the other three at their seats
    (counted from it), and each person plays their nine cards of the deal."""
    names = ["Ann", "Ben", "Chloé", "Dev"]
    r = httpx.post(f"{server.url}/api/tables", timeout=30,
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
    while sum(plays) < 36:
        assert step(pages, deadline) == "played"
        plays[step.played] += 1
        if sum(plays) == 6:  # the second trick under way: cards on the table
            shoot(pages[0], "web-table", quality=70)
    assert plays == [9, 9, 9, 9]
    for page in pages:
        page.wait_for_selector("body[data-state='deal-over']", state="attached",
                               timeout=MATCH_TIMEOUT_MS)
    assert not any(p.errors for p in pages), [p.errors for p in pages]


def test_the_server_killed_mid_deal_and_restarted_both_pages_continue(browser, server):
    made = make_table(server)
    pages = [seat_page(browser, server.url + made["seats"][s]["link"]) for s in ("0", "2")]
    deadline = time.monotonic() + 200
    for _ in range(3):
        assert step(pages, deadline) == "played"
    hands = [p.locator(".hand-card").count() for p in pages]
    for page in pages:
        page.allow_socket_errors = True  # the sockets to the dead server fail, as they should
    server.kill()
    time.sleep(1.0)
    server.start()
    # Both pages reconnect by themselves and show the same position, then play on.
    for page, hand in zip(pages, hands):
        page.wait_for_selector("body[data-state=your-turn], body[data-state=waiting]",
                               state="attached", timeout=MATCH_TIMEOUT_MS)
        assert page.locator(".hand-card").count() == hand
    for _ in range(4):  # and the deal goes on from there
        assert step(pages, deadline) == "played"
    assert sum(p.locator(".hand-card").count() for p in pages) == sum(hands) - 4
    assert not any(p.errors for p in pages), [p.errors for p in pages]


def test_a_person_leaves_the_ai_takes_over_and_they_come_back(browser, server):
    made = make_table(server, away_after=5)
    bob_link = server.url + made["seats"]["2"]["link"]
    ann = seat_page(browser, server.url + made["seats"]["0"]["link"])
    bob = seat_page(browser, bob_link)
    deadline = time.monotonic() + 200
    while state(bob) != "your-turn":  # Ann plays until it is Bob's turn
        assert step([ann, bob], deadline) in ("played", "dealt")
    cards = bob.locator(".hand-card").count()
    bob.context.close()  # Bob leaves on his turn
    # The table's AI plays Bob's card after 5 s: Ann's turn comes back without Bob.
    ann.wait_for_selector("body[data-state=your-turn]", state="attached", timeout=30_000)
    token = made["seats"]["2"]["token"]
    # Bob comes back with his link: his seat, his hand (one card fewer: the AI played it).
    bob = seat_page(browser, bob_link)
    bob.wait_for_selector("body[data-state=waiting], body[data-state=your-turn]",
                          state="attached", timeout=MATCH_TIMEOUT_MS)
    assert bob.locator(".hand-card").count() == cards - 1
    away = httpx.get(f"{server.url}/api/games/{token}", timeout=30).json()["state"]["away"]
    assert away == []
    # From now on Bob plays his own cards again: the AI does not play for him.
    step.played = None
    while step.played != 1:
        assert step([ann, bob], deadline) in ("played", "dealt")
    assert bob.locator(".hand-card").count() < cards - 1
    assert not ann.errors and not bob.errors


def test_the_page_invites_a_friend_who_opens_their_link(browser, server):
    host = seat_page(browser, server.url + "/")
    host.wait_for_selector("body[data-state=your-turn], body[data-state=waiting]",
                           state="attached", timeout=MATCH_TIMEOUT_MS)
    host.click("#open-settings")
    host.click("#open-invite")
    host.fill("#invite-you", "Ann <b>")
    host.check('input[data-invite-seat="1"]')  # the partner (ticked) and West are friends
    host.click("#invite-create")
    links = host.locator("#invite-list input")
    expect_count = 3  # Partner, West, the spectators
    host.wait_for_selector(f"#invite-list li:nth-child({expect_count})", timeout=30_000)
    urls = [links.nth(k).input_value() for k in range(links.count())]
    assert len(urls) == expect_count and all(u.startswith(server.url + "/?") for u in urls)
    assert "?watch=" in urls[-1]
    host.click("#invite button[value=close]")
    # The host now sits south at the new table; the partner opens their link.
    friend = seat_page(browser, next(u for u in urls if "?seat=" in u))
    friend.wait_for_selector("body[data-state=your-turn], body[data-state=waiting]",
                             state="attached", timeout=MATCH_TIMEOUT_MS)
    names = friend.locator(".seat .seat-name").all_inner_texts()
    assert any(n.endswith("· Ann <b>") for n in names), names
    watcher = seat_page(browser, urls[-1])
    watcher.wait_for_selector("body[data-state]", state="attached")
    assert watcher.locator(".hand-card").count() == 0
    assert not host.errors and not friend.errors and not watcher.errors


def test_my_matches_lists_this_browsers_matches_and_opens_one(browser, server):
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
    # The newest first, the open one disabled; Open brings the first match back.
    assert rows.nth(0).locator("button").is_disabled()
    hand = 8  # one card played in the first match
    rows.nth(1).locator("button").click()
    page.wait_for_selector("#settings:not([open])", state="attached")
    assert page.evaluate("sessionStorage.getItem('aluette.game')") == first
    assert page.locator(".hand-card").count() == hand
    assert not page.errors
