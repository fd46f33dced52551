"""The page and what it loads as it starts: ``/`` and its static files
(``static/``: HTML, CSS and JavaScript, no build step, nothing fetched from
elsewhere), the languages and their messages, the deck's order, the AI
players a seat may take and the server's settings. The page's rules dialog is
written from the catalog's rules (:data:`..i18n.RULES_SECTIONS`, the terminal's
too) as the server starts.

===========================================  =========================================
``GET  /``                                   the page
``GET  /static/{file}``                      its files (``?v=`` its hash: kept a year)
``GET  /api/players``                        the AI specs a seat may take, and defaults
``GET  /api/server``                         games held in memory, the database's kind
``GET  /api/languages``                      language codes and their own names
``GET  /api/i18n/{lang}``                    messages, card names and text direction
``GET  /api/deck``                           each card's suit and rank index, the rank
                                             order (card ids by strength level), the
                                             named cards
===========================================  =========================================
"""

from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path
from urllib.parse import parse_qsl

from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from aluette_env.game import CARDS_BY_STRENGTH, NAMED_CARDS, NUM_CARDS
from aluette_env.game.cards import rank_index_of, suit_of

from .. import i18n
from .errors import ApiError
from .inputs import narrator

STATIC_DIR = Path(__file__).resolve().parent / "static"
#: Where the page's rules dialog takes the rules (:func:`rules_html`).
RULES_MARK = "<!-- the rules: written here from aluette_env/apps/i18n.py by page.py -->"


class PageRoutes:
    """``pool``: the AI players (:class:`.workers.PlayerPool`); ``defaults``:
    each seat's AI (``signs_defaults``: in a game with signs); ``max_games`` and
    ``database``: what ``/api/server`` tells."""

    def __init__(self, pool, defaults: dict[str, str], max_games: int, database: str,
                 directory: Path = STATIC_DIR, signs_defaults: dict[str, str] | None = None):
        self.pool, self.defaults = pool, defaults
        self.signs_defaults = signs_defaults or defaults
        self.max_games, self.database = max_games, database
        self.page = StaticPage(directory)

    async def index(self, request: Request) -> HTMLResponse:
        return HTMLResponse(self.page.html, headers={"cache-control": "no-cache"})

    async def players(self, request: Request) -> JSONResponse:
        words = narrator(request)
        return JSONResponse({"players": self.pool.allowed, "defaults": self.defaults,
                             "signs_defaults": self.signs_defaults,
                             "labels": {spec: words.player(spec) for spec in self.pool.allowed},
                             "strength": {spec: words.strength(spec)
                                          for spec in self.pool.allowed}})

    async def server_info(self, request: Request) -> JSONResponse:
        # idle_seconds: None, games are kept (the page says nothing of expiry)
        return JSONResponse({"idle_seconds": None, "max_games": self.max_games,
                             "database": self.database})

    async def languages(self, request: Request) -> JSONResponse:
        return JSONResponse({"languages": i18n.LANGUAGES, "default": i18n.DEFAULT_LANGUAGE,
                             "rtl": sorted(i18n.RTL_LANGUAGES)})

    async def catalog(self, request: Request) -> JSONResponse:
        lang = request.path_params["lang"]
        try:
            return JSONResponse(i18n.browser_catalog(i18n.check_language(lang)))
        except ValueError as err:
            raise ApiError(404, str(err)) from None

    async def deck(self, request: Request) -> JSONResponse:
        # The page draws a card from its suit and rank index (cards.js): it reads no card id.
        return JSONResponse({
            "num_cards": NUM_CARDS,
            "suits": [suit_of(card) for card in range(NUM_CARDS)],
            "ranks": [rank_index_of(card) for card in range(NUM_CARDS)],
            "levels": [list(cards) for cards in reversed(CARDS_BY_STRENGTH)],  # highest first
            "named": [card for card, _ in NAMED_CARDS],
        })

    def routes(self) -> list:
        return [
            Route("/", self.index),
            Route("/api/players", self.players),
            Route("/api/server", self.server_info),
            Route("/api/languages", self.languages),
            Route("/api/i18n/{lang}", self.catalog),
            Route("/api/deck", self.deck),
            Mount("/static", self.page.files, name="static"),
        ]


class StaticPage:
    """The page and its files, cached by content: the page (``/``) names each
    file with a hash of its content (``/static/main.js?v=<sha256 prefix>``,
    computed at start), so a browser keeps a file for a year and asks again
    only when it changed (``immutable``); the page itself and a file asked
    without its hash are checked on every load (``no-cache``). A script module
    names the modules it imports the same way (``from "./state.js?v=…"``,
    written in as it is served), so its hash covers theirs: a change to one
    module reaches every module that imports it."""

    def __init__(self, directory: Path):
        self.bodies = {path.name: path.read_bytes()
                       for path in sorted(directory.iterdir()) if path.is_file()}
        self.versions: dict[str, str] = {}
        for name in self.bodies:
            self._version(name, ())
        page = self.bodies["index.html"].decode("utf-8")
        if RULES_MARK not in page:
            raise ValueError(f"{directory / 'index.html'} lacks the rules' place {RULES_MARK!r}")
        page = page.replace(RULES_MARK, rules_html())
        self.html = re.sub(r'"/static/([\w.-]+)"', self._versioned, page)
        self.files = _HashedFiles(directory=directory, versions=self.versions, bodies={
            name: body for name, body in self.bodies.items()
            if body != (directory / name).read_bytes()})

    def _version(self, name: str, importers: tuple[str, ...]) -> str:
        """The hash of file ``name`` as it is served: a module's imports named by
        their own hashes first (``importers``: the modules importing it, to
        refuse a cycle, which no hash could name)."""
        if name not in self.versions:
            if name in importers:
                raise ValueError(f"static/{name} imports itself through "
                                 f"{' -> '.join(importers[importers.index(name):])}: "
                                 "the page's modules must not import in a cycle")
            if name.endswith(".js"):
                def versioned(m: re.Match) -> str:
                    if m["file"] not in self.bodies:
                        raise ValueError(f"static/{name} imports ./{m['file']}, which is not "
                                         "in static/")
                    version = self._version(m["file"], importers + (name,))
                    return f"{m['keyword']}{m['quote']}./{m['file']}?v={version}{m['quote']}"
                text = self.bodies[name].decode("utf-8")
                self.bodies[name] = _IMPORT.sub(versioned, text).encode("utf-8")
            self.versions[name] = hashlib.sha256(self.bodies[name]).hexdigest()[:16]
        return self.versions[name]

    def _versioned(self, m: re.Match) -> str:
        name = m.group(1)
        return f'"/static/{name}?v={self.versions[name]}"' if name in self.versions else m.group(0)


def rules_html(indent: str = "    ") -> str:
    """The rules dialog's text, from the catalog's rules (:data:`.i18n.RULES_SECTIONS`,
    the terminal's too, and the words that depend on the match): each title and
    paragraph in English, with its message id in ``data-t`` for the page's
    script to translate; those that depend on the match say which in
    ``data-when`` ("alone", "table", "signs"), and the page shows them there."""
    def line(tag: str, message: str) -> str:
        text = html.escape(message)
        return f'{indent}<{tag} data-t="{text}">{text}</{tag}>'
    def when(text: str, match: str) -> str:  # shown only in such a match (style.css)
        return text.replace(" data-t=", f' data-when="{match}" data-t=', 1)
    lines = []
    for k, (title, paragraphs) in enumerate((*i18n.RULES_SECTIONS, i18n.RULES_SIGNS,
                                             (i18n.RANK_ORDER_TITLE, (i18n.RANK_ORDER_NOTE,)))):
        signs = (title, paragraphs) == i18n.RULES_SIGNS
        lines.append(when(line("h3", title), "signs") if signs else line("h3", title))
        for j, p in enumerate(paragraphs):
            if signs:
                lines.append(when(line("p", p), "signs"))
            elif k == j == 0:  # the table: alone with AIs, or at a table of people
                lines += [when(line("p", p), "alone"), when(line("p", i18n.RULES_AT_A_TABLE),
                                                             "table")]
            else:
                lines.append(line("p", p))
    return "\n".join(lines).removeprefix(indent)


#: A module's import of a file beside it: ``from "./x.js"`` or ``import "./x.js"``.
_IMPORT = re.compile(r"""(?P<keyword>\b(?:from|import)\s*)(?P<quote>["'])\./(?P<file>[\w.-]+\.js)(?P=quote)""")


class _HashedFiles(StaticFiles):
    """Starlette's static files with :class:`StaticPage`'s caching headers;
    ``bodies``: the modules served with their imports' hashes written in."""

    def __init__(self, *, directory: Path, versions: dict[str, str], bodies: dict[str, bytes]):
        super().__init__(directory=directory)
        self.versions, self.bodies = versions, bodies

    async def get_response(self, path: str, scope) -> Response:
        if path in self.bodies:
            response = Response(self.bodies[path], media_type="text/javascript")
        else:
            response = await super().get_response(path, scope)
        asked = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1"))).get("v")
        hashed = asked is not None and asked == self.versions.get(path)
        response.headers["cache-control"] = ("public, max-age=31536000, immutable" if hashed
                                             else "no-cache")
        return response


class CompressPage:
    """Pure ASGI middleware: the page and its files go out gzipped to browsers
    that take it (Starlette's GZipMiddleware); the API's answers are left as
    they are."""

    def __init__(self, app):
        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=500, compresslevel=6)

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "")
        if scope["type"] == "http" and (path == "/" or path.startswith("/static/")):
            return await self.gzip(scope, receive, send)
        return await self.app(scope, receive, send)
