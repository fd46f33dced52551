"""The one message catalog of the Aluette apps: gettext catalogs read with Babel.

Every string a person reads in the web game and the terminal game, card names
included, is an English message id in ``locales/messages.pot`` with one
translation per language in ``locales/<lang>/LC_MESSAGES/messages.po``. The
``.po`` files are compiled in memory on first use (no build step, no ``.mo`` in
the repository). Placeholders are ``str.format`` fields (``{seat}``), the same
in Python and in the browser.

>>> _ = translator("fr").gettext
>>> card_name(2, "fr")
'3 de deniers — Monsieur'

To add or change a message: use it (``t("…")`` in the page's JavaScript;
in Python ``_("…")`` with ``_ = translator(lang).gettext``, ``ngettext``, or
``translate(lang, "…", **fields)``), run ``python -m aluette_env.apps.i18n`` to
refresh the template and the catalogs, then translate the new empty entries;
``tests/test_i18n.py`` fails until every language has every message.
"""

from __future__ import annotations

import datetime
import functools
import io
import string
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

from aluette_env.game import NAMED_CARDS, NUM_SIGNS, SIGNS, check_card, sign_name
from aluette_env.game.cards import rank_index_of, suit_of

#: Language code -> its own name, in the order the language menu shows them.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "fr": "Français",
    "ms": "Bahasa Melayu",
    "it": "Italiano",
    "ar": "العربية",
    "fi": "Suomi",
    "vi": "Tiếng Việt",
}
DEFAULT_LANGUAGE = "en"
SOURCE_LANGUAGE = "en"  # the message ids are English
RTL_LANGUAGES = frozenset({"ar"})
LOCALE_DIR = Path(__file__).resolve().parent / "locales"
DOMAIN = "messages"


def N_(message: str) -> str:
    """Mark a message for extraction where it is translated later."""
    return message


# TRANSLATORS: suits as they stand in a card name, "{suit} {rank}"; put a
# preposition in the suit where the language needs one ("de deniers", "d'épées").
SUITS = (N_("Coins"), N_("Cups"), N_("Batons"), N_("Swords"))
RANKS = (N_("Ace"), "2", "3", "4", "5", "6", "7", "8", "9",
         N_("Valet"), N_("Cavalière"), N_("Roi"))
# TRANSLATORS: one letter for the Ace, Valet, Cavalière and Roi: on the card
# faces of the web game and to type a card's short name in the terminal ("ACo",
# "RSw"); the four must differ and must not be digits.
FACE_LETTERS = {0: N_("A"), 9: N_("V"), 10: N_("C"), 11: N_("R")}
# The named cards keep their traditional French names; languages may transliterate.
TITLES = {card: title for card, title in NAMED_CARDS}
_TITLE_MESSAGES = (N_("Monsieur"), N_("Madame"), N_("Le Borgne"), N_("La Vache"),
                   N_("Grand-neuf"), N_("Petit-neuf"), N_("Deux de chêne"), N_("Deux d'écrit"))
assert set(_TITLE_MESSAGES) == set(TITLES.values()), "every named card needs its message"
# TRANSLATORS: the signs of the signs variant (docs/RULES.md S2), each gesture as a
# short phrase that fits a button and a sentence ("You caught a sign from East: a wink").
SIGN_GESTURES = {"eyes_raised": N_("eyes raised to the sky"),
                 "lips_raised": N_("a corner of the lips raised"), "wink": N_("a wink"),
                 "pout": N_("a pout"), "thumb": N_("the thumb shown"),
                 "little_finger": N_("the little finger shown"),
                 "index": N_("the index shown"), "writing": N_("as if writing"),
                 "mouth_open": N_("the mouth opened")}
assert list(SIGN_GESTURES) == [key for key, _, _ in SIGNS], "every sign needs its gesture"
_SIGN_CARDS = (N_("an Ace"), N_("no sign"))  # sign_name's words that name no card

#: The rules as both games tell them, by section (title, paragraphs): the terminal
#: prints them, and the page's rules dialog is written from them when the server
#: starts (:class:`.web.page.StaticPage`), so the two say the same in every language.
RULES_SECTIONS = (
    (N_("The table"), (N_(
        "You sit south and play with the AI partner opposite you (north) against two AI "
        "opponents, west and east. Each deal gives nine cards to every player; the twelve "
        "cards left over stay face down and nobody sees them."),)),
    (N_("Playing a trick"), (N_(
        "The leader plays any card, then the others play in turn, clockwise. Any card in your "
        "hand may be played: there is no suit to follow and no trump, and suits never matter, "
        "only the rank order below. The single strongest card takes the trick and its player "
        "leads the next one. When the strongest cards are equal, the trick is spoiled: nobody "
        "takes it and the same player leads again."),)),
    (N_("Winning a deal"), (N_(
        "After nine tricks, the single player with the most tricks wins the deal and one point "
        "for their side; partners do not add up their tricks. On a tie, whoever got to that "
        "number of tricks first wins. If every trick was spoiled, nobody scores."), N_(
        "Mordienne: when the winner took no trick before a closing streak of two or more "
        "tricks in a row that runs to the ninth trick, their side scores two points instead "
        "of one."))),
    (N_("The match"), (N_(
        "A match is five deals, and the dealer moves one seat clockwise each time. The side "
        "with more points after the fifth deal wins; equal points make a draw."),)),
)
#: The rules' words that depend on the match (the page shows them where they
#: apply): the table's first paragraph at a table of people, in place of
#: :data:`RULES_SECTIONS`' first one, and a section on signs in a match with
#: signs (docs/RULES.md S1-S5).
RULES_AT_A_TABLE = N_(
    "You sit south and play with your partner opposite you (north) against two opponents, "
    "west and east: the people invited to this table, and AIs in the seats nobody took. Each "
    "deal gives nine cards to every player; the twelve cards left over stay face down and "
    "nobody sees them.")
RULES_SIGNS = (N_("Signs"), (N_(
    "Before each of your cards you make one sign, or none. Each sign names a card, as your "
    "sign buttons show; any sign may be made whatever your hand, so a sign may be a bluff. "
    "Your partner always sees your sign; each opponent catches it only by chance, at the "
    "match's chance of a catch, and you never learn who caught it. You see your partner's "
    "signs and the opponents' signs you caught; a sign you did not catch looks like "
    "silence."),))
#: The rank order's heading and note; each game lists the order from the game
#: core (R7-R8).
RANK_ORDER_TITLE = N_("Rank order, highest first")
RANK_ORDER_NOTE = N_("Cards in the same row are equal: if two of them are the highest in a "
                     "trick, the trick is spoiled.")


def check_language(lang: object) -> str:
    """``lang`` if it is one of :data:`LANGUAGES`, else ValueError naming them."""
    if not isinstance(lang, str) or lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; languages: {', '.join(LANGUAGES)}")
    return lang


def catalog_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def translator(lang: str) -> NullTranslations:
    """The gettext translations of ``lang``: ``.gettext``, ``.ngettext``,
    ``.pgettext``. English is the source language and needs no catalog."""
    check_language(lang)
    if lang == SOURCE_LANGUAGE:
        return NullTranslations()
    with open(catalog_path(lang), "rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(buf, domain=DOMAIN)


def translate(lang: str, message: str, **fields: object) -> str:
    """``message`` in ``lang``, with ``{field}`` placeholders filled in."""
    text = translator(lang).gettext(message)
    return text.format(**fields) if fields else text


def translate_plural(lang: str, singular: str, plural: str, n: int, **fields: object) -> str:
    """The plural form of ``lang`` for ``n``; ``{n}`` is filled in too."""
    return translator(lang).ngettext(singular, plural, n).format(n=n, **fields)


@functools.cache
def card_names(lang: str) -> tuple[str, ...]:
    """The 48 card names in ``lang``, by card id."""
    _ = translator(lang).gettext
    names = []
    for card in range(48):
        suit, rank = suit_of(card), rank_index_of(card)  # R4 card ids
        name = _("{suit} {rank}").format(suit=_(SUITS[suit]), rank=_(RANKS[rank]))
        if card in TITLES:
            name = _("{card} — {title}").format(card=name, title=_(TITLES[card]))
        names.append(name)
    return tuple(names)


@functools.cache
def sign_words(lang: str) -> tuple[dict[str, str], ...]:
    """The ten sign ids' words in ``lang``: its ``key`` (the lexicon's), ``gesture``
    and the ``card`` it names (sign 0, none: ``gesture`` "no sign" and no card)."""
    _ = translator(lang).gettext
    return ({"key": "none", "gesture": _("no sign"), "card": ""},) + tuple(
        {"key": SIGNS[k - 1][0], "gesture": _(SIGN_GESTURES[SIGNS[k - 1][0]]),
         "card": _(sign_name(k))} for k in range(1, NUM_SIGNS + 1))


def card_name(card: int, lang: str = DEFAULT_LANGUAGE) -> str:
    """Readable name of ``card`` in ``lang``: ``Coins 3 — Monsieur``,
    ``3 de deniers — Monsieur``."""
    return card_names(check_language(lang))[check_card(card)]


@functools.cache
def browser_catalog(lang: str) -> dict[str, object]:
    """What the page needs to speak ``lang``: every message (id -> text),
    the card names and the writing direction."""
    check_language(lang)
    template = template_messages()
    _ = translator(lang).gettext
    return {
        "lang": lang,
        "name": LANGUAGES[lang],
        "dir": "rtl" if lang in RTL_LANGUAGES else "ltr",
        "messages": {m: _(m) for m in template if isinstance(m, str)},  # the page has no plurals
        "cards": list(card_names(lang)),
        "signs": list(sign_words(lang)),  # by sign id, 0: none
        # What the card faces show: the number of pips, a letter for a face card.
        "faces": [_(FACE_LETTERS[r]) if r in FACE_LETTERS and r else str(r + 1)
                  for r in range(12)],
    }


@functools.cache
def template_messages() -> tuple[str | tuple[str, str], ...]:
    """The message ids of the template (``messages.pot``); a plural message's
    id is its (singular, plural) pair."""
    with open(LOCALE_DIR / f"{DOMAIN}.pot", "rb") as f:
        catalog = read_po(f)
    return tuple(m.id for m in catalog if m.id)


def placeholders(text: str) -> set[str]:
    """The ``{field}`` names of a message (what translations must keep)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


# ------------------------------------------------------------------ maintenance

#: Where messages are used: Python modules of the apps and the page's script.
SOURCES = {"python": ("*.py", "web/*.py"), "javascript": ("web/static/*.js",),
           "html": ("web/static/*.html",)}


def extract_html(fileobj, keywords, comment_tags, options):
    """Babel extractor for the page: the English text of every ``data-t``
    attribute (the page's script translates those elements by it)."""
    from html.parser import HTMLParser

    found: list[tuple[int, str, str, list[str]]] = []

    class Parser(HTMLParser):
        def handle_starttag(self, tag, attrs):
            for name, value in attrs:
                if name in ("data-t", "data-t-label", "data-t-placeholder") and value:
                    found.append((self.getpos()[0], "t", value, []))

    parser = Parser()
    parser.feed(fileobj.read().decode("utf-8"))
    return iter(found)


def extract() -> Catalog:
    """Collect the messages of the apps' sources into a fresh template."""
    from babel.messages.extract import extract_from_file

    apps = Path(__file__).resolve().parent
    catalog = Catalog(project="aluette-rl", domain=DOMAIN,
                      copyright_holder="the Aluette RL authors",
                      msgid_bugs_address="the project's issue tracker",
                      creation_date=_FIXED_DATE, revision_date=_FIXED_DATE)
    keywords = {"_": None, "gettext": None, "N_": None, "t": None, "ngettext": (1, 2),
                "translate": (2,), "translate_plural": (2, 3)}
    for method, patterns in SOURCES.items():
        for pattern in patterns:
            for path in sorted(apps.glob(pattern)):
                for lineno, message, comments, context in extract_from_file(
                        extract_html if method == "html" else method, str(path),
                        keywords=keywords, comment_tags=("TRANSLATORS:",),
                        options={"parse_template_string": True}):
                    if method == "python" and path.name == "i18n.py" and message == "{field}":
                        continue  # the docstring's own example
                    catalog.add(message, locations=[(str(path.relative_to(apps)), lineno)],
                                auto_comments=comments, context=context)
    return catalog


# A fixed date keeps the catalogs' headers from changing on every refresh.
_FIXED_DATE = datetime.datetime(2026, 11, 30, tzinfo=datetime.timezone.utc)


def update() -> None:
    """Rewrite ``messages.pot`` from the sources and bring every catalog up to
    date with it (new messages empty, removed ones dropped)."""
    from babel.messages.pofile import write_po

    template = extract()
    with open(LOCALE_DIR / f"{DOMAIN}.pot", "wb") as f:
        write_po(f, template, omit_header=False, sort_output=False, width=100,
                 include_lineno=False)
    for lang in LANGUAGES:
        if lang == SOURCE_LANGUAGE:
            continue
        path = catalog_path(lang)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            with open(path, "rb") as f:
                catalog = read_po(f, locale=lang, domain=DOMAIN)
        else:
            catalog = Catalog(locale=lang, domain=DOMAIN, project="aluette-rl")
        catalog.update(template, no_fuzzy_matching=True, update_creation_date=False)
        catalog.copyright_holder = template.copyright_holder
        catalog.msgid_bugs_address = template.msgid_bugs_address
        catalog.revision_date = _FIXED_DATE
        catalog.last_translator = "the Aluette RL authors"
        catalog.language_team = LANGUAGES[lang]
        catalog.obsolete.clear()
        with open(path, "wb") as f:
            write_po(f, catalog, width=100, omit_header=False, include_lineno=False)


if __name__ == "__main__":
    update()
    print(f"updated {LOCALE_DIR / (DOMAIN + '.pot')} and the catalogs of "
          f"{', '.join(code for code in LANGUAGES if code != SOURCE_LANGUAGE)}")
