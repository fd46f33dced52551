"""What every browser test file shares, as a pytest plugin (``pytest_plugins =
["browser_fixtures"]`` in each file, so the fixtures are registered once): one
Chromium for the whole session (Debian's ``/usr/bin/chromium-headless-shell``
or ``/usr/bin/chromium``, driven by Playwright's ``executable_path``; nothing
downloads a browser), the skips
where Playwright or Chromium is missing, and the web app served by uvicorn in
a thread (:func:`serving`). The test files import it before pytest loads it
as a plugin, so pytest leaves its asserts as they are: PYTEST_DONT_REWRITE.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

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
    pytest.mark.skipif(sync_playwright is None,
                       reason="browser tests skipped: the playwright package is not installed"),
    pytest.mark.skipif(CHROMIUM is None,
                       reason="browser tests skipped: no Chromium at /usr/bin/chromium "
                              "(apt-get install chromium; .ci/run does it)"),
]
MATCH_TIMEOUT_MS = 60_000


@pytest.fixture(scope="session")
def browser():
    """One Chromium for every browser test of the session (each test opens its
    own context: its own storage and cookies)."""
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@contextlib.contextmanager
def serving(**config):
    """The web app of ``ServerConfig(**config)`` served by uvicorn in a thread on a
    free port: (app, its URL)."""
    import uvicorn

    from aluette_env.apps.web.server import ServerConfig, create_app

    app = create_app(ServerConfig(**config))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the test server did not start"
        time.sleep(0.05)
    try:
        yield app, f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
