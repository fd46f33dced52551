"""What every browser test file shares, as a pytest plugin (``pytest_plugins =
["browser_fixtures"]`` in each file, so the fixtures are registered once): one
Chromium for the whole session (Debian's ``/usr/bin/chromium-headless-shell``
or ``/usr/bin/chromium``, driven by Playwright's ``executable_path``; nothing
downloads a browser), the skips where Playwright or Chromium is missing, the
web app served in this process for each file (:func:`server`, changed by the
file's ``SERVER``) and the helpers that drive its page. The test files import
it before pytest loads it as a plugin, so pytest leaves its asserts as they
are: PYTEST_DONT_REWRITE.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from web_helpers import serving

#: Debian's Chromium: its headless shell where it is installed (the same engine
#: without the browser's window layer, what Playwright itself runs headless:
#: browser files took 13-17 % less wall time with it, back to back), else the
#: whole browser.
CHROMIUM = next((p for p in (os.environ.get("ALUETTE_CHROMIUM"),
                             "/usr/bin/chromium-headless-shell", "/usr/bin/chromium",
                             shutil.which("chromium"), shutil.which("chromium-browser")) if p
                 and Path(p).exists()), None)
try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    expect = sync_playwright = None

#: the skips of every browser test file
NEEDS_BROWSER = [
    pytest.mark.browser,
    pytest.mark.skipif(sync_playwright is None,
                       reason="browser tests skipped: the playwright package is not installed"),
    pytest.mark.skipif(CHROMIUM is None,
                       reason="browser tests skipped: no Chromium at /usr/bin/chromium "
                              "(apt-get install chromium; .ci/run does it)"),
]
MATCH_TIMEOUT_MS = 60_000


#: Settings, Display, Grain at 0, as a person may set it, where the page has no
#: display of its own yet (an init script runs at every page load: it must not
#: undo what a test then sets).
GRAIN_OFF = ("try { if (localStorage.getItem('aluette.display') === null) "
             "localStorage.setItem('aluette.display', '{\"grain\": 0}'); } catch (e) {}")


class Chromium:
    """The session's browser, whose contexts open the page with the grain layer
    off. The layer is an SVG noise blended over the whole window, drawn again at
    every change of the page: about a fifth of the browser's CPU over the suite,
    which no test looks at but the display's and axe's. Those use :attr:`plain`,
    the browser itself, whose contexts show the page's default display."""

    def __init__(self, plain):
        self.plain = plain

    def __getattr__(self, name: str):
        return getattr(self.plain, name)

    def new_context(self, **options):
        context = self.plain.new_context(**options)
        context.add_init_script(GRAIN_OFF)
        return context


@pytest.fixture(scope="session")
def browser():
    """One Chromium for every browser test of the session (each test opens its
    own context: its own storage and cookies), as a :class:`Chromium`."""
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield Chromium(b)
        b.close()


#: The web app each browser file plays against: heuristic AIs in the other seats,
#: with or without signs, and a coach that only has to answer (every finished deal
#: is reviewed in the background). A file changes it with a dict ``SERVER`` of its
#: own (its seed, ``db``), where ``{tmp}`` in ``db`` is a folder of the file's.
SERVER = dict(partner="heuristic", left="heuristic", right="heuristic", signs_ai="heuristic",
              seed=11, hint_worlds=8, review_worlds=4)


class Server(NamedTuple):
    """A served web app: the Starlette app itself (its game service, its store)
    and its URL, with no trailing slash."""
    app: Any
    url: str


@pytest.fixture(scope="module")
def server(request, tmp_path_factory) -> Server:
    """The web app of :data:`SERVER` and the test file's ``SERVER``, served by uvicorn
    in a thread for the file's tests (:func:`web_helpers.serving`)."""
    config = {**SERVER, **getattr(request.module, "SERVER", {})}
    if "{tmp}" in config.get("db", ""):
        config["db"] = config["db"].format(tmp=tmp_path_factory.mktemp("server"))
    with serving(**config) as (app, url):
        yield Server(app, url)


SHOTS = os.environ.get("ALUETTE_SCREENSHOTS")

#: The page's sizes a layout check runs at: a laptop and a phone.
SIZES = ((1280, 800), (390, 844))


def at_each_size(page):
    """Set ``page`` to each of :data:`SIZES` in turn and yield the size: one page
    checked at both, its layout flowing again as a window resized or a phone
    turned makes it (the page is left at the last size)."""
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        yield width, height


#: One language of each direction (English, Arabic), each at one of those sizes:
#: for a check of the page's words or order, not of its layout, where the
#: other two pairs show the same thing.
LTR_DESKTOP_AND_RTL_PHONE = pytest.mark.parametrize(
    "lang, size", [("en", (1280, 800)), ("ar", (390, 844))], ids=["en-desktop", "ar-phone"])


def open_table(page, pace: int = 0, lang: str | None = None, game: str | None = None) -> None:
    """Open ``page.url_base`` with the AI's pace and the language set once (a reload
    keeps what the page changed), and wait for the game: a new one, or the
    one-person game ``game`` (its id, as the page keeps it for its tab)."""
    script = f"localStorage.setItem('aluette.pace', '{pace}');"
    if lang:
        script += f"localStorage.setItem('aluette.lang', '{lang}');"
    if game:
        script += f"sessionStorage.setItem('aluette.game', '{game}');"
    page.add_init_script(f"if (!sessionStorage.getItem('seeded')) {{ {script} "
                         f"sessionStorage.setItem('seeded', '1'); }}")
    page.goto(page.url_base)
    wait_ready(page)


def wait_ready(page) -> str:
    """Wait until the page waits for you (your turn, a deal's or the match's end):
    its state."""
    # Selectors, not wait_for_function: the page's CSP forbids eval, as it should.
    page.wait_for_selector("body[data-state=your-turn], body[data-state=deal-over], "
                           "body[data-state=match-over]", state="attached",
                           timeout=MATCH_TIMEOUT_MS)
    return page.evaluate("document.body.dataset.state")


def after_move(page, action) -> str:
    """Do ``action`` (a click or a key) and wait until its answer is shown."""
    moves = int(page.evaluate("document.body.dataset.moves || '0'"))
    action()
    page.wait_for_selector(f"body[data-moves='{moves + 1}']", state="attached",
                           timeout=MATCH_TIMEOUT_MS)
    return wait_ready(page)


def shoot(page, name: str, quality: int = 85) -> None:
    """With ``ALUETTE_SCREENSHOTS=DIR``: the page as a README screenshot, DIR/name.jpg."""
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"{name}.jpg"), type="jpeg", quality=quality)


def covering(page, selector: str) -> str | None:
    """What covers the middle of ``selector``'s element, if anything else does."""
    return page.locator(selector).first.evaluate("""e => {
      const r = e.getBoundingClientRect();
      const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      return top === null || e.contains(top) ? null : (top.id || top.className || top.tagName);
    }""")
