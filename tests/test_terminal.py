"""``aluette play``: whole matches through piped stdin, and each thing the table
tells a new player (rules, last trick, who leads and wins the trick, deal
summaries, the match recap, wrapping, languages), checked on hand-built deals."""

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from aluette_env.apps import i18n
from aluette_env.apps.terminal import Quit, TerminalGame, short_names
from aluette_env.game import (
    ALUETTE_SIGNS_V0, CARDS_BY_STRENGTH, NOBODY, NUM_CARDS, STRENGTH, Variant, score_deal,
)
from aluette_env.players.random_player import RandomPlayer
from conftest import hands_for_winners

ROOT = Path(__file__).resolve().parents[1]


def play(stdin: str, *args):
    return subprocess.run([sys.executable, "-m", "aluette_env", "play", "--delay", "0",
                           "--partner", "heuristic", "--left", "heuristic", "--right", "random",
                           "--seed", "3", *args], input=stdin, capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


def game(lang="en", width=100, stdin="", signs=False):
    out = io.StringIO()
    console = Console(file=out, width=width, highlight=False, color_system=None)
    g = TerminalGame({s: RandomPlayer(s) for s in (1, 2, 3)}, seed=0, lang=lang,
                     console=console, stdin=io.StringIO(stdin),
                     specs={1: "heuristic", 2: "ai", 3: "random:seed=4"},
                     **({"variant": ALUETTE_SIGNS_V0} if signs else {}))
    return g, out


@pytest.mark.slow
def test_scripted_full_match_reaches_the_final_score_and_a_new_match_clears_it():
    # Each turn with a choice: bad inputs first (empty, out of range, unknown name),
    # then choose 2, change to 1, confirm with y. The ninth card plays itself, and
    # Enter starts the next deal. After the match: n, a new match, one card, q.
    turn = "\n".join(["", "12", "zz", "2", "1", "y"]) + "\n"
    deal = turn * 8 + "\n"
    proc = play(deal * 5 + "n\n" + "1\ny\n" + "q\n", "--partner", "heuristic")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "Goodbye." in proc.stdout
    _, out, second = proc.stdout.split("─ New match ─")  # the first match, then the next
    assert "Deal 1 of 5" in second and "Score: You and partner 0 — 0 Opponents" in second
    assert len(re.findall(r"Deal \d of 5 is over", out)) == 5
    assert out.count("plays itself") == 5 and "(1-1" not in out
    assert out.count("Press Enter for the next deal") == 4
    final = re.findall(r"(You and your partner win the match, (\d+) to (\d+)!|"
                       r"The opponents win the match, (\d+) to (\d+)\.|"
                       r"The match is a draw, (\d+) to (\d+)\.)", out)
    assert len(final) == 1
    nums = [int(x) for x in final[0][1:] if x]
    us, them = (nums[0], nums[1]) if "opponents win" not in final[0][0] else (nums[1], nums[0])
    recap = out.split("─ Score ─")[-1]
    ours = them_pts = 0
    for seat, pts in re.findall(r"Deal \d: (You|West|Partner|East) \+(\d)", recap):
        if seat in ("You", "Partner"):
            ours += int(pts)
        else:
            them_pts += int(pts)
    assert (ours, them_pts) == (us, them)
    assert len(re.findall(r"Deal \d: ", recap)) == 5
    assert "Type the number of a card" in out and "12 is not in 1-9" in out
    assert "'zz' is not a card" in out
    assert len(re.findall(r"^You: ", out, re.M)) == 45


def test_start_names_the_player_in_each_seat():
    proc = play("q\n", "--right", "random:seed=7")
    lines = proc.stdout.splitlines()
    assert "  West: Heuristic" in lines
    assert "  Partner: Heuristic" in lines
    assert "  East: Random" in lines
    assert "player_" not in proc.stdout and "random:seed" not in proc.stdout


def test_rules_command_teaches_the_rank_order_and_scoring():
    g, out = game(stdin="?\n")
    with pytest.raises(Quit):  # the script ends after '?'
        g.ask("> ")
    text = out.getvalue()
    for words in ("spoiled", "first", "Mordienne", "most tricks", "suits never matter"):
        assert words in " ".join(text.split()), words
    rows = re.findall(r"^\s*(\d+)\. (.*)$", text, re.M)
    assert len(rows) == len(CARDS_BY_STRENGTH)
    # Row k holds exactly the cards of the k-th strongest level (R7-R8).
    for (k, row), level in zip(rows, reversed(CARDS_BY_STRENGTH)):
        assert row.split(" = ") == [i18n.card_name(c) for c in level], k



def _page_rules(when: tuple = (None, "alone")) -> list[str]:
    """The message ids of the served page's rules dialog, in order: those it
    shows in a match of its own without signs (``when``: of page.py's
    ``data-when``; None, every match's)."""
    from html.parser import HTMLParser

    from aluette_env.apps.web.page import STATIC_DIR, StaticPage

    ids: list[str] = []

    class Rules(HTMLParser):
        inside = False

        def handle_starttag(self, tag, attrs):
            attrs = dict(attrs)
            if attrs.get("class") == "rules-body":
                self.inside = True
            elif self.inside and tag in ("h3", "p") and "data-t" in attrs \
                    and attrs.get("data-when") in when:
                ids.append(attrs["data-t"])

        def handle_endtag(self, tag):
            if tag == "div":
                self.inside = False

    Rules().feed(StaticPage(STATIC_DIR).html)
    return ids


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_the_page_and_the_terminal_tell_the_same_rules(lang):
    """One text of the rules, the catalog's: the page's file holds none of it, the
    served page's dialog is written from it, and every paragraph of the dialog, as
    the page's script translates it, is a line the terminal prints, in order."""
    from aluette_env.apps.web.page import RULES_MARK, STATIC_DIR

    raw = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    body = raw.split('<div class="rules-body">')[1].split("</div>")[0]
    assert RULES_MARK in body and "data-t" not in body
    messages = [m for title, paragraphs in i18n.RULES_SECTIONS for m in (title, *paragraphs)]
    ids = _page_rules()
    assert ids[:len(messages)] == messages
    assert ids[len(messages):] == [i18n.RANK_ORDER_TITLE, i18n.RANK_ORDER_NOTE]
    words = i18n.browser_catalog(lang)["messages"]
    g, out = game(lang=lang, width=2000, stdin="?\n")
    with pytest.raises(Quit):
        g.ask("> ")
    lines = iter(line.strip() for line in out.getvalue().splitlines())
    for message in ids:  # each in a line after the previous one's
        assert any(line == words[message] for line in lines), (lang, message)
    # With signs, both show the section on signs, after the table's sections.
    signs = _page_rules((None, "alone", "signs"))
    assert signs == [*messages, *i18n.RULES_SIGNS[0:1], *i18n.RULES_SIGNS[1],
                     i18n.RANK_ORDER_TITLE, i18n.RANK_ORDER_NOTE]
    g, out = game(lang=lang, width=2000, stdin="?\n", signs=True)
    with pytest.raises(Quit):
        g.ask("> ")
    lines = iter(line.strip() for line in out.getvalue().splitlines())
    for message in signs:
        assert any(line == words[message] for line in lines), (lang, message)
    # At a table of people the page tells the table's paragraph instead.
    assert _page_rules((None, "table"))[1] == i18n.RULES_AT_A_TABLE


class Scripted:
    """An AI seat that plays its hand in list order (the k-th card in trick k)."""

    def __init__(self, cards):
        self.cards = list(cards)

    def act(self, obs, mask):
        card = self.cards.pop(0)
        assert mask[card]
        return card


def scripted(hands, dealer: int, lang="en"):
    """A terminal game whose first deal is ``hands`` (each in play order)."""
    out = io.StringIO()
    console = Console(file=out, width=100, highlight=False, color_system=None)
    g = TerminalGame({s: Scripted(hands[s]) for s in (1, 2, 3)}, seed=0, lang=lang,
                     console=console, stdin=io.StringIO(""), first_dealer=dealer,
                     deals=[[list(h) for h in hands]],
                     specs={1: "random", 2: "random", 3: "random"})
    g.show_events(g.start())
    return g, out


def test_board_says_who_led_and_who_is_winning_then_why_a_trick_was_spoiled():
    hands = hands_for_winners("X" * 9)  # each trick: seats 0 and 1 tie on top
    g, out = scripted(hands, dealer=0)  # West leads trick 1 (R6)
    g.board(g.view)
    assert "Led by West. Winning now: West." in out.getvalue()
    g.show_events(g.session.play(hands[0][0]))  # You match West's card: spoiled (R11)
    text = " ".join(out.getvalue().split())
    names = i18n.card_names("en")
    tied = " and ".join(names[c] for c in (hands[1][0], hands[0][0]))
    assert "Trick 1: spoiled. Led by West." in text
    assert f"Spoiled: {tied} are equal and highest, so nobody takes this trick." in text
    assert "West leads the next trick." in text  # the same leader again
    g.board(g.view)
    assert "Led by West." in out.getvalue().split("leads the next trick")[-1]


def test_spoiled_so_far_while_the_highest_cards_tie():
    hands = hands_for_winners("X" * 9)
    hands[0], hands[2] = hands[2], hands[0]  # the tied pair is West's and Partner's
    g, out = scripted(hands, dealer=0)  # West, Partner, East, then You
    g.board(g.view)
    assert "Led by West. Spoiled so far: the highest cards are equal." in out.getvalue()


def test_a_won_trick_names_the_card_that_won_and_the_card_it_beat():
    hands = hands_for_winners("1" + "0" * 8)
    g, out = scripted(hands, dealer=3)  # You lead
    g.show_events(g.session.play(hands[0][0]))
    names = i18n.card_names("en")
    beaten = max((hands[s][0] for s in (0, 2, 3)), key=lambda c: STRENGTH[c])
    text = " ".join(out.getvalue().split())
    assert f"Trick taken by West: {names[hands[1][0]]} beats {names[beaten]}." in text
    assert "West leads the next trick." in text


def test_last_trick_on_demand_before_and_after_a_trick():
    g, out = game(stdin="l\n")
    with pytest.raises(Quit):
        g.ask("> ")
    assert "No trick has been played yet." in out.getvalue()


def test_mordienne_line_only_while_a_run_can_still_score():
    """R16: no line after one trick; from two tricks in a row with nothing
    before, while taking every trick left would win the deal."""
    hands = hands_for_winners("002211330")
    g, out = scripted(hands, dealer=3)
    lines = []
    for k in range(9):
        before = len(out.getvalue())
        g.show_events(g.session.play(hands[0][k]))
        lines.append(out.getvalue()[before:])
    said = ["Mordienne in reach for" in chunk for chunk in lines]
    assert said[0] is False  # one trick is no run (R16 needs two or more)
    assert said[1] and "for You: 2 tricks in a row" in lines[1]
    assert not said[2]  # Partner's first trick ends your run; one trick is no run yet
    assert said[3] and "for Partner: 2 tricks" in lines[3]
    assert said[7] and "for East: 2 tricks" in lines[7]  # one trick left: East could win
    assert "1 in a row" not in out.getvalue()
    assert g.view["mordienne"] is None  # You took the last trick: no run scores
    assert g.words.view(g.view)["mordienne"] == ""


@pytest.mark.parametrize("winners,says", [
    ("0132013X2", None),  # the expected words come from the core's score below
    ("0123012X3", None),
    ("330112200", None),
    ("XXXXXXX00", "Mordienne!"),
    ("XXXXXXXXX", "Every trick was spoiled: nobody scores."),
    ("0000X1111", None),
])
def test_deal_summary_gives_counts_and_why_the_winner_won(winners, says):
    hands = hands_for_winners(winners)
    g, out = scripted(hands, dealer=3)  # player_0 leads trick 1
    # hands_for_winners makes each trick go to its seat whoever leads.
    for k in range(9):
        if not g.session.deal.done:
            g.show_events(g.session.play(hands[0][k]))
    text = " ".join(out.getvalue().split())
    ws = [NOBODY if ch == "X" else int(ch) for ch in winners]
    score = score_deal(ws)
    counts = [ws.count(s) for s in range(4)]
    names = ["You", "West", "Partner", "East"]
    assert "Tricks this deal: " + " · ".join(f"{names[s]} {counts[s]}" for s in range(4)) in text
    if score.winner != NOBODY:
        n = counts[score.winner]
        tied = ["you" if s == 0 else names[s] for s in range(4)
                if s != score.winner and counts[s] == n]
        if tied:
            others = tied[0] if len(tied) == 1 else ", ".join(tied[:-1]) + " and " + tied[-1]
            assert (f"Deal won by {names[score.winner]}: tied on {n} tricks with "
                    f"{others}, but first to reach {n}.") in text
        else:
            assert f"Deal won by {names[score.winner]}, with the most tricks ({n})." in text
        assert ("Mordienne!" in text) == score.mordienne
        side = "Your side scores" if score.winner % 2 == 0 else "The opponents score"
        assert f"{side} {score.points}." in text
    if says:
        assert says in text


def test_hand_lines_wrap_between_cards_never_inside_one():
    for width in (30, 44, 61, 80):
        g, out = game(width=width)
        hand = [2, 14, 1, 13, 20, 8, 25, 37, 47]  # long named-card names
        g.show_hand(hand)
        lines = out.getvalue().splitlines()[1:]
        ordered = sorted(hand, key=lambda c: (-STRENGTH[c], c))
        for k, c in enumerate(ordered, 1):
            item = f"{k}) {i18n.card_name(c)} [{short_names('en')[c]}]"
            assert sum(item in line for line in lines) == 1, (width, item)
        assert all(len(line) <= width for line in lines if line.count(")") > 1)


def test_short_names_are_distinct_in_every_language():
    for lang in i18n.LANGUAGES:
        names = short_names(lang)
        assert len({n.lower() for n in names}) == NUM_CARDS, lang


@pytest.mark.slow
def test_french_game_speaks_french_throughout():
    proc = play("1\ny\nl\n?\n", "--lang", "fr")
    out = proc.stdout
    assert proc.returncode == 0 and "Au revoir." in out
    assert "Votre carte (1-9" in out and "Jouer " in out and "Pli 1 : pris par" in out
    assert "Ordre des cartes" in out and "d'épées" in out and "de épées" not in out
    for english in ("Your card", "Play ", "Trick 1", "Goodbye", "Rank order", "Swords"):
        assert english not in out, english


@pytest.mark.slow
def test_deal_pause_option_replaces_waiting_for_enter():
    turn = "1\ny\n" * 8
    proc = play(turn * 2 + "q\n", "--deal-pause", "0")
    assert "Press Enter" not in proc.stdout and proc.stdout.count("is over") == 2


def test_the_terminal_game_plays_the_variant_it_is_given():
    """``variant=`` as the game for people takes it: a match of a variant of
    three deals ends after its third; the older ``signs=`` / ``catch=``
    still build the signs variant."""
    three_deals = Variant("aluette_three_deals_v0", obs_layout=2, num_deals=3)
    out = io.StringIO()
    deal = "1\ny\n" * 8 + "\n"  # the first card each turn; the ninth plays itself
    g = TerminalGame({s: RandomPlayer(s) for s in (1, 2, 3)}, seed=0,
                     console=Console(file=out, width=100, highlight=False, color_system=None),
                     stdin=io.StringIO(deal * 3 + "q\n"), variant=three_deals)
    assert g.run() == 0
    assert g.session.variant == three_deals and g.session.match.num_deals == 3
    assert "Deal 3 of 3 is over" in out.getvalue() and "Goodbye." in out.getvalue()
    with pytest.deprecated_call(match="variant="):
        older = TerminalGame({s: RandomPlayer(s) for s in (1, 2, 3)}, seed=0, signs=True,
                             catch=0.5)
    assert older.variant == ALUETTE_SIGNS_V0.with_catch(0.5) and older.signs


@pytest.mark.parametrize("catch", [0.0, 0.5, 1.0])
def test_a_match_with_signs_tells_only_the_signs_the_person_sees(catch):
    """S1-S5 at the terminal: before each card the person makes a sign (bad
    answers first, then a wink); the partner's every sign or none is told, an
    opponent's sign only when the person caught it, as the match's record has
    it, and never an opponent's making no sign."""
    from aluette_env.players import load_player
    out = io.StringIO()
    trick = "zz\n12\n3\n1\ny\n"
    deal = trick * 8 + "3\n" + "\n"  # the ninth card plays itself, after its sign
    g = TerminalGame({s: load_player("heuristic") for s in (1, 2, 3)}, seed=11,
                     console=Console(file=out, width=100, highlight=False, color_system=None),
                     stdin=io.StringIO(deal * 5 + "q\n"), specs={1: "h", 2: "h", 3: "h"},
                     variant=ALUETTE_SIGNS_V0.with_catch(catch))
    assert g.run() == 0
    text = out.getvalue()
    assert text.count("Deal 5 of 5 is over") == 1 and "Goodbye." in text
    assert text.count("You sign: a wink (Le Borgne).") == 45
    for bad in ("'zz'", "'12'"):  # asked at the first eight tricks of each deal
        assert text.count(f"{bad} is not a sign: type a number from 0 to 9.") == 40
    assert text.count("Partner signs: ") + text.count("Partner makes no sign.") == 45
    words = g.words
    caught = []
    for d in g.session.record()["deals"]:
        for (player, _), (sign, catchers) in zip(d["plays"], d["signs"]):
            if player in ("player_1", "player_3") and sign and "player_0" in catchers:
                caught.append(f"You caught a sign from {words.seat(int(player[-1]))}: "
                              f"{words.sign(sign)}.")
    told = re.findall(r"^You caught a sign from .*$", text, re.M)
    assert told == caught
    assert (len(caught) == 0) == (catch == 0.0)
    assert not re.search(r"^(West|East) (signs|makes no sign)", text, re.M)
    assert "Signs you saw this deal:" in text


def test_bad_arguments_for_play_are_one_line(capsys, tmp_path):
    """In this process: ``python -m aluette_env`` is ``sys.exit(main())``."""
    from aluette_env.commands import main
    for args, message in ((["--left", "nobody"], "unknown player 'nobody'"),
                          (["--seed", "-5"], "--seed"), (["--delay", "-1"], "--delay"),
                          (["--lang", "xx"], "--lang"), (["--deal-pause", "nan"], "--deal-pause"),
                          (["--catch", "0.5"], "--catch: only with --signs"),
                          (["--signs", "--catch", "2"], "--catch"),
                          (["--signs", "--record", str(tmp_path)],
                           "--record: not with --signs")):
        code = main(["play", *args])
        err = capsys.readouterr().err
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and message in lines[0], err


def test_a_typed_number_int_cannot_read_is_asked_again_not_a_traceback():
    """'²' is a digit to str.isdigit but not to int(), and int() reads at most
    4,300 digits: each is refused at the prompt (the match goes on); an
    Arabic-Indic digit is the number it shows."""
    g, out = game(stdin="\u00b2\n" + "9" * 5000 + "\n\u0663\n" + "9" * 5000 + "\nq\n")
    assert g.run() == 0
    text = out.getvalue()
    assert "'\u00b2' is not a card in your hand" in text
    assert text.count("999999... is not in 1-9") == 2 and "Play " in text
    assert "Goodbye." in text


def test_the_renderer_shows_the_same_mordienne_line_as_the_games():
    """render.py marks a run only when mordienne_chance does (R16): never after
    one trick, from two tricks in a row."""
    from aluette_env.game import Deal, Match
    from aluette_env.render import render_table

    hands = hands_for_winners("00" + "1" * 7)
    deal, match = Deal([list(h) for h in hands], dealer=3), Match(first_dealer=3)
    for k in range(2):
        for _seat in range(4):
            deal.play(hands[deal.to_act][k])
        text = render_table(deal, match)
        assert ("Mordienne run" in text) == (k == 1), text
    assert "player_0: 2 trick(s) (ahead in the deal) *Mordienne run" in text


def test_a_record_folder_replaced_by_a_file_keeps_the_record(tmp_path, monkeypatch):
    """``play --record DIR`` with DIR replaced by a file during the
    match: the finished match's record is saved elsewhere (the temporary
    folder), the game says where in one line, and the command exits 2."""
    import tempfile

    from aluette_env.commands import UsageError
    from aluette_env.records import read_record
    fallback = tmp_path / "tmp"
    fallback.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(fallback))
    folder = tmp_path / "records"
    folder.write_text("not a folder any more")  # replaced during the match
    out = io.StringIO()
    g = TerminalGame({s: RandomPlayer(s) for s in (1, 2, 3)}, seed=0, deal_pause=0,
                     console=Console(file=out, width=100, color_system=None),
                     stdin=io.StringIO(("1\ny\n" * 8 + "\n") * 5 + "q\n"),
                     specs={1: "random", 2: "random", 3: "random"}, record_dir=str(folder))
    with pytest.raises(UsageError) as err:
        g.run()
    message = str(err.value)
    saved = list(fallback.glob("*.json"))
    assert len(saved) == 1 and str(saved[0]) in message and "--record" in message
    assert "\n" not in message
    assert len(read_record(saved[0])["deals"]) == 5
