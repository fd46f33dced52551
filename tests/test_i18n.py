"""The apps' message catalog (aluette_env/apps/i18n.py, apps/locales): every
message of the template in every language, with the same placeholders, and the
template in step with the sources that use it."""

from __future__ import annotations

import pytest

pytest.importorskip("babel")

from babel.messages.pofile import read_po

from aluette_env.apps import i18n
from aluette_env.game import NUM_CARDS, card_name as core_card_name

TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.SOURCE_LANGUAGE]


def test_languages_are_the_seven_of_the_game():
    assert list(i18n.LANGUAGES) == ["en", "fr", "ms", "it", "ar", "fi", "vi"]
    assert i18n.RTL_LANGUAGES == {"ar"}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated_with_the_same_placeholders(lang):
    with open(i18n.catalog_path(lang), "rb") as f:
        catalog = read_po(f, locale=lang)
    entries = {m.id: m for m in catalog if m.id}
    template = i18n.template_messages()
    assert set(template) == set(entries), "run python -m aluette_env.apps.i18n"
    for msgid in template:
        entry = entries[msgid]
        assert entry.string, f"{lang}: {msgid!r} is not translated"
        assert not entry.fuzzy, f"{lang}: {msgid!r} is marked fuzzy"
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        for text in strings:
            assert i18n.placeholders(text) == i18n.placeholders(
                msgid if isinstance(msgid, str) else msgid[0]), (lang, msgid, text)
    assert not catalog.obsolete


def test_template_matches_the_messages_the_sources_use():
    used = {m.id for m in i18n.extract() if m.id}
    assert used == set(i18n.template_messages()), \
        "messages.pot is stale: run python -m aluette_env.apps.i18n and translate"


def test_translations_are_used_at_run_time():
    assert i18n.translate("fr", "New match") == "Nouvelle partie"
    assert i18n.translate("fi", "Deal {n} of {total}", n=2, total=5) == "Jako 2/5"
    assert i18n.translate("en", "Deal {n} of {total}", n=2, total=5) == "Deal 2 of 5"
    assert i18n.translator("ar").gettext("Rules") == "القواعد"
    assert i18n.translate_plural("en", "{n} trick", "{n} tricks", 1) == "1 trick"
    assert i18n.translate_plural("en", "{n} trick", "{n} tricks", 3) == "3 tricks"


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_card_names_are_distinct_and_name_the_named_cards(lang):
    names = i18n.card_names(lang)
    assert len(names) == NUM_CARDS and len(set(names)) == NUM_CARDS
    titled = [n for n in names if " — " in n]
    assert len(titled) == 8  # R7


def test_english_and_french_card_names_are_the_cores():
    for lang in ("en", "fr"):
        assert [i18n.card_name(c, lang) for c in range(NUM_CARDS)] == \
            [core_card_name(c, lang) for c in range(NUM_CARDS)], lang
    assert i18n.card_name(2, "fr") == "3 de deniers — Monsieur"
    assert i18n.card_name(47, "fr") == "Roi d'épées"


#: Messages a language may leave as in English: the cards' traditional French
#: names, the one-letter and two-letter codes, and messages that are only
#: placeholders and punctuation.
SAME_EVERYWHERE = {
    "Valet", "Cavalière", "Roi", "Monsieur", "Madame", "Le Borgne", "La Vache", "Grand-neuf",
    "Petit-neuf", "Deux de chêne", "Deux d'écrit", "A", "V", "C", "R", "Ba", "Cu",
    "{card} — {title}", "{seat}: {card}", "{seat}: {player}", "{seat}: {sign}", "{n}%", "{s} s",
    "{suit} {rank}",
    "{gesture} ({card})",
    ", ",
}
#: Words that are the same in one language.
SAME_IN = {"fr": {"Expert", "Score", "Grain"}}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_message_is_left_in_english_unless_listed(lang):
    with open(i18n.catalog_path(lang), "rb") as f:
        catalog = read_po(f, locale=lang)
    same = {m.id for m in catalog if m.id and m.string == m.id}
    assert same <= SAME_EVERYWHERE | SAME_IN.get(lang, set()), sorted(same)


@pytest.mark.parametrize("lang, card, name", [
    ("ar", 0, "آس العملات"), ("vi", 0, "Át Xu"), ("ms", 0, "Sat Syiling"),
    ("fi", 0, "Kolikoiden ässä"), ("it", 0, "Asso di denari"), ("en", 0, "Coins Ace"),
])
def test_card_names_follow_each_languages_word_order(lang, card, name):
    assert i18n.card_name(card, lang) == name


def test_the_measured_wording_defects_are_fixed():
    ar = i18n.translator("ar").gettext
    for msgid in ("Trick taken by {seat}.", "Trick {n}: taken by {seat}."):
        assert "لـ " not in ar(msgid), msgid  # "لـ الغرب" must not come back
    assert ar("Your turn") == "دورك"  # your own badge: your turn, not "his turn"
    for lang in TRANSLATED:
        assert i18n.translate(lang, "Your turn") != "Your turn"
    assert i18n.translate("vi", "Heuristic") != "Heuristic"
    assert i18n.translate("vi", "{s} s", s="0,3") == "0,3 giây"  # the pace unit
    faces = i18n.browser_catalog("ar")["faces"]
    assert len(faces) == 12 and faces[:9] == [str(k) for k in range(1, 10)]
    assert faces[9:] == [i18n.translate("ar", x) for x in ("V", "C", "R")] != ["V", "C", "R"]


def test_tied_players_are_named_as_a_list_with_you_inside_the_sentence():
    from aluette_env.apps.narrator import Narrator
    summary = {"reason": "first_to_reach", "winner": 3, "trick_counts": [3, 3, 0, 3],
               "tied_with": [0, 1], "mordienne": False, "team_points": [0, 1]}
    assert Narrator("en").summary(summary)[0] == \
        "Deal won by East: tied on 3 tricks with you and West, but first to reach 3."
    assert Narrator("en", spectator=True).summary({**summary, "tied_with": [2, 0, 1]})[0] == \
        "Deal won by East: tied on 3 tricks with North, South and West, but first to reach 3."
    fr = Narrator("fr").summary(summary)[0]
    assert "vous et Ouest" in fr, fr


def test_bad_language_and_card_name_the_culprit():
    with pytest.raises(ValueError, match="unknown language 'xx'; languages: en, fr, ms"):
        i18n.card_name(0, "xx")
    with pytest.raises(ValueError, match="outside the deck"):
        i18n.card_name(48, "en")


def test_browser_catalog_carries_direction_and_cards():
    ar = i18n.browser_catalog("ar")
    assert ar["dir"] == "rtl" and i18n.browser_catalog("vi")["dir"] == "ltr"
    assert ar["cards"] == list(i18n.card_names("ar"))
    assert set(ar["messages"]) == {m for m in i18n.template_messages() if isinstance(m, str)}


def test_every_message_the_games_word_is_in_the_catalog():
    """Narrate whole deals (events and views) and record each message asked
    for: all must be in the template, so no sentence stays in English."""
    import random

    from aluette_env.apps.narrator import Narrator
    from aluette_env.apps.session import GameSession
    from aluette_env.players import load_player

    words = Narrator("fr")
    asked: set[str] = set()
    gettext = words._
    words._ = lambda message: asked.add(message) or gettext(message)
    players = {s: load_player("random", seed=s) for s in (1, 2, 3)}
    rng = random.Random(0)
    for seed in range(4):
        game = GameSession(players, {1: "random", 2: "heuristic", 3: "ai"}, seed=seed)
        events = list(game.opening_events)
        while not game.match.over:
            words.view(game.view())
            events += game.next_deal() if game.deal.done else game.play(
                rng.choice(game.view()["legal"]))
        words.view(game.view())
        for ev in events:
            words.event(ev)
    template = set(i18n.template_messages())
    assert asked and asked <= template, sorted(asked - template)


def test_the_arabic_ace_has_one_spelling_and_sentences_about_you_agree():
    """The Arabic catalog reviewed against the French: the Ace is spelled one
    way in every card name, the sign button's card and the rules (never "آص");
    a sentence about the reader's own trick or lead takes the second person
    ("أخذتَ الحيلة", not "أخذ أنت الحيلة"), and a sentence whose seat may be
    "you" puts no third-person verb before it."""
    from aluette_env.apps.narrator import Narrator
    from aluette_env.game import NUM_CARDS as CARDS
    from aluette_env.game.cards import rank_index_of as rank

    ar = i18n.translator("ar").gettext
    ace = ar("Ace")
    assert ace == "آس"
    text = i18n.catalog_path("ar").read_text(encoding="utf-8")
    assert "آص" not in text
    aces = [c for c in range(CARDS) if rank(c) == 0]
    assert all(i18n.card_name(c, "ar").split()[0] == ace for c in aces)
    # The sign button of the Ace names it as the cards do (sign_words: the buttons' words).
    assert ar("an Ace") == ace and any(w["card"] == ace for w in i18n.sign_words("ar"))
    words = Narrator("ar")
    you, west = words.seat(0), words.seat(1)
    took = words.why({"card": 3, "beats": 7}, 0)
    assert took.startswith("أخذتَ الحيلة") and you not in took, took
    assert words.why({}, 0) == "أخذتَ الحيلة."
    assert words.trick_so_far(0, 0).startswith("بدأتَ الحيلة.")
    assert words.why({"card": 3, "beats": 7}, 1).startswith("آخذ الحيلة: " + west)
    # Where the seat may be you, no third-person verb stands before it.
    third = ("أخذ ", "بدأ", "يبدأ ", "يشير", "يقوم", "بلغ ", "التقطها ")
    for line in (words.leader(0), words.trick_so_far(1, 0), words.trick_heading(
            {"index": 0, "winner": 0}), words.summary({"reason": "most_tricks", "winner": 0,
                                                      "trick_counts": [4, 2, 2, 1],
                                                      "tied_with": [], "mordienne": False,
                                                      "team_points": [1, 0]})[0],
                 ar("Sign: {sign}, caught by {seats}").format(sign="x", seats=you),
                 ar("reached {n} at trick {k}").format(n=3, k=5)):
        assert not any(verb in line for verb in third), line
    # Every message of the French source is in the Arabic catalog, none left French.
    french = {m.id for m in read_po(open(i18n.catalog_path("fr"), "rb"), locale="fr") if m.id}
    arabic = {m.id: m.string for m in read_po(open(i18n.catalog_path("ar"), "rb"),
                                               locale="ar") if m.id}
    assert french == set(arabic)
