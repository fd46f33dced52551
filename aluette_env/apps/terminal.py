"""``aluette play``: a person plays player_0 (south) with an AI partner (player_2,
north) against two AIs (player_1 west, player_3 east), in the terminal.

Choose a card by its number in your hand (or its short name, e.g. ``3Co``),
then confirm with ``y`` (or the same number again); ``n`` or another number
changes the choice; a last card plays itself. At any prompt ``?`` shows the
rules, ``l`` the last trick and ``q`` quits. The table says who led the trick
and who is winning it; each finished trick, each deal (with the trick counts
and why its winner won) and the match (deal by deal) are summed up. Every
string comes from the apps' one message catalog (:mod:`.i18n`), so
``--lang`` changes all of it. Works with piped input: every prompt reads one
line. The game runs on the web game's session (:mod:`.session`): the same
events and view, and the same words (:class:`~.narrator.Narrator`) for each
trick's explanation, the deal's reason, the Mordienne line and the hand's
order. No rule is restated here.

The coach (:mod:`.coach`): ``h`` on your turn shows the expert's estimate of
every card in your hand, ``r`` the review of the last finished deal (yours and
your partner's plays, and the match's mean cost per decision so far); the
expert is loaded on first use, and from then on each deal is reviewed in the
background as it ends; its words come from the same catalog, and are shared
with ``aluette review`` (:mod:`.review`) and the web game's coach. ``--record DIR``
saves each finished match's record (:mod:`aluette_env.records`).

``--signs`` plays the signs variant (docs/RULES.md S1-S5): before each card
you make a sign or none (its number, Enter for none); your partner's signs
and the opponents' signs you catch are told as they are made and listed on
the board. The AI seats then default to ``expert``, which signs and reads
signs. A match with signs has no coach and no record to save: the coach
reads no sign, and a record holds every sign, also those you did not see.
"""

from __future__ import annotations

import argparse
import sys
import time

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table

from ..game import (
    ALUETTE_SIGNS_V0, ALUETTE_V1, CARDS_BY_STRENGTH, DEFAULT_CATCH, NUM_CARDS, NUM_SEATS, Variant,
    variant_of,
)
from ..game.cards import rank_index_of, suit_of
from . import i18n
from ..commands import Command, UsageError, printable, probability, seed_int
from .coach import HINT_WORLDS, REVIEW_WORLDS, ReviewQueue
from .i18n import FACE_LETTERS as FACE_CODES
from .i18n import N_, RANK_ORDER_NOTE, RANK_ORDER_TITLE, RULES_SECTIONS, RULES_SIGNS
from .review import review_text, summary_text, worlds
from .narrator import Narrator
from .seating import HUMAN
from .session import GameSession
from ..render import hand_order

# TRANSLATORS: two letters (or one) to type a suit in a card's short name, as in
# "3Co" for Coins 3; the four must differ. Keep them easy to type.
SUIT_CODES = (N_("Co"), N_("Cu"), N_("Ba"), N_("Sw"))
#: Answers that confirm a choice, quit, show the rules or the last trick. The
#: letters are the same in every language: the prompts name them.
YES = ("y", "yes")
NO = ("n", "no")
QUIT = ("q", "quit", "exit")
RULES = ("?", "help", "rules")
LAST = ("l", "last")
HINT = ("h", "hint")  # the coach (aluette_env.apps.coach)
REVIEW = ("r", "review")


class Quit(Exception):
    """The person left (end of input, Ctrl-C or 'q')."""


#: A typed number this long or longer is past every choice (and int() reads at
#: most 4,300 digits).
TOO_LONG = 7


def typed_number(answer: str) -> int | None:
    """The whole number a person typed (its digits in any script, as int() reads
    them: an Arabic-Indic 3 is 3), or None: not digits (str.isdigit takes a
    superscript 2, which int() refuses). One of ``TOO_LONG`` digits or more is
    10**6, outside every choice."""
    if not answer.isdecimal():
        return None
    return int(answer) if len(answer) < TOO_LONG else 10 ** 6


def short_names(lang: str) -> tuple[str, ...]:
    """The 48 typing codes in ``lang`` (rank then suit: ``3Co``), English ones if
    a catalog's codes would make two cards alike."""
    def codes(gettext) -> tuple[str, ...]:
        out = []
        for card in range(NUM_CARDS):
            suit, rank = suit_of(card), rank_index_of(card)  # R4 card ids
            face = FACE_CODES.get(rank)
            out.append((gettext(face) if face else str(rank + 1)) + gettext(SUIT_CODES[suit]))
        return tuple(out)
    names = codes(i18n.translator(lang).gettext)
    if len({n.lower() for n in names}) != NUM_CARDS:
        names = codes(lambda m: m)
    return names


class TerminalGame:
    """One person against the AIs, over as many matches as they like, on the
    web game's :class:`~.session.GameSession`: the person's choices go in, the
    session's events and view come out and are shown as text."""

    def __init__(self, players: dict[int, object], seed: int | None, lang: str = "en",
                 delay: float = 0.0, deal_pause: float | None = None,
                 specs: dict[int, str] | None = None, console: Console | None = None,
                 stdin=None, first_dealer: int | None = None, deals=(), coach=None,
                 record_dir: str | None = None, signs: bool | None = None,
                 catch: float | None = None, variant: Variant | None = None):
        """``variant``: the game played (:class:`aluette_env.game.Variant`, by
        default the newest default game); ``signs`` and ``catch``: the older
        keywords for the signs variant, deprecated, as :class:`.GameSession`'s."""
        self.players = players
        self.specs = specs or {s: getattr(p, "name", "?") for s, p in players.items()}
        self.seed = seed
        self.lang = i18n.check_language(lang)
        self.delay = delay
        self.deal_pause = deal_pause  # None: wait for Enter
        self.console = console or Console(highlight=False, soft_wrap=True)
        self.stdin = stdin or sys.stdin
        self.words = Narrator(lang)
        self._ = i18n.translator(lang).gettext
        self.codes = short_names(lang)
        self.first_dealer = first_dealer
        self.deals = deals
        self.session: GameSession | None = None
        #: The coach (hints with h, reviews with r): a Coach, or a function that
        #: makes one on first use; None: no coach. From its first use on, each
        #: deal's review is computed in the background as the deal ends.
        self._coach = coach
        self.reviews: ReviewQueue | None = None
        #: Where each finished match's record is saved (None: nowhere).
        self.record_dir = record_dir
        #: The game played; with signs (S1-S5), each opponent's chance to catch a sign.
        self.variant = variant_of(variant, signs, catch)
        self.signs, self.catch = self.variant.signs, self.variant.catch
        if self.signs and (coach is not None or record_dir is not None):
            raise ValueError("a match with signs has no coach and no record")

    @property
    def coach(self):
        if callable(self._coach) and not hasattr(self._coach, "hint"):
            self._coach = self._coach()
        if self._coach is not None and self.reviews is None:
            self.reviews = ReviewQueue(self._coach.review_deal)
        return self._coach

    def start(self) -> list[dict]:
        """A new session (the first match): the events of its first deal."""
        self.session = GameSession(self.players, self.specs, self.seed,
                                   first_dealer=self.first_dealer, deals=self.deals,
                                   variant=self.variant)
        return self.session.opening_events

    @property
    def view(self) -> dict:
        return self.session.view()

    # -- words --------------------------------------------------------------------

    def t(self, message: str, **fields: object) -> str:
        return self.words.t(message, **fields)

    def seat(self, seat: int) -> str:
        return self.words.seat(seat)

    def card(self, card: int) -> str:
        return self.words.card(card)

    def say(self, text: str = "", style: str | None = None) -> None:
        """A paragraph, wrapped between words."""
        self.console.print(text, style=style, markup=False, highlight=False, soft_wrap=False)

    def say_items(self, items: list[str], indent: str = "  ", sep: str = "   ") -> None:
        """Items on as few lines as fit the width, wrapped between items, never
        inside one (a card name stays whole)."""
        width = max(20, self.console.width)
        line = ""
        for item in items:
            if line and cell_len(line + sep + item) > width:
                self.console.print(line, markup=False, highlight=False, soft_wrap=True)
                line = ""
            line = f"{line}{sep}{item}" if line else f"{indent}{item}"
        if line:
            self.console.print(line, markup=False, highlight=False, soft_wrap=True)

    # -- input ----------------------------------------------------------------------

    def ask(self, prompt: str) -> str:
        """One line of input; the rules, the last trick and quitting are handled
        here, at every prompt."""
        while True:
            self.console.print(prompt + " ", end="", markup=False, highlight=False)
            line = self.stdin.readline()
            if not line:
                raise Quit
            line = line.strip()
            if not self.stdin.isatty():
                self.say(line)  # echo piped answers so a transcript reads well
            low = line.lower()
            if low in QUIT:
                raise Quit
            if low in RULES:
                self.show_rules()
            elif low in HINT and self._coach is not None:
                self.show_hint()
            elif low in REVIEW and self._coach is not None:
                self.show_review()
            elif low in LAST:
                self.show_last_trick(self.view["last_trick"] if self.session else None,
                                     on_demand=True)
            else:
                return line

    def choose_card(self, hand: list[int]) -> int:
        ordered = hand_order(hand)
        if len(ordered) == 1:
            self.say(self.t("Your last card, {card}, plays itself.", card=self.card(ordered[0])))
            return ordered[0]
        by_code = {self.codes[c].lower(): c for c in ordered}
        selected = None
        while True:
            if selected is None:
                answer = self.ask(self.t("Your card (1-{n}, or a short name like {example}):",
                                         n=len(ordered), example=self.codes[ordered[0]]))
            else:
                answer = self.ask(self.t("Play {card}? (y = play, n = choose again, or "
                                         "another number):", card=self.card(selected)))
                low = answer.lower()
                k = typed_number(answer)
                if low in YES or (k is not None and 1 <= k <= len(ordered)
                                  and ordered[k - 1] == selected):
                    return selected
                if low in NO:
                    selected = None
                    continue
            if not answer:
                self.say("  " + self.t("Type the number of a card in your hand."))
                continue
            k = typed_number(answer)
            if k is not None:
                if 1 <= k <= len(ordered):
                    selected = ordered[k - 1]
                    continue
                self.say("  " + self.t("{k} is not in 1-{n}: pick one of your cards.",
                                       k=k if len(answer) < TOO_LONG else answer[:6] + "...",
                                       n=len(ordered)))
                continue
            if answer.lower() in by_code:
                selected = by_code[answer.lower()]
                continue
            self.say("  " + self.t("{answer} is not a card in your hand; type its number.",
                                   answer=repr(answer)))

    def choose_sign(self, choices: list[int]) -> int:
        """S1: the person's sign before their card (0: none, also an empty line)."""
        self.say(self._("Your sign, before your card") + ":", style="bold")
        self.say_items([f"{k}) {self.words.sign(k)}" for k in choices])
        while True:
            answer = self.ask(self.t("Your sign (0-{n}, Enter: none):", n=max(choices)))
            if not answer:
                return 0
            if typed_number(answer) in choices:
                return typed_number(answer)
            self.say("  " + self.t("{answer} is not a sign: type a number from 0 to {n}.",
                                   answer=repr(answer), n=max(choices)))

    def pause(self) -> None:
        """Time to read the deal's summary before the next deal is dealt."""
        if self.deal_pause is None:
            self.ask(self.t("Press Enter for the next deal (? rules, l last trick, q quits):"))
        elif self.deal_pause > 0:
            time.sleep(self.deal_pause)

    # -- output ---------------------------------------------------------------------

    def show_players(self) -> None:
        """Each AI seat by its name at the table and its player's display name."""
        self.say(self.t("AI players"), style="bold")
        for s in range(1, NUM_SEATS):
            self.say("  " + self.t("{seat}: {player}", seat=self.seat(s),
                                   player=printable(self.words.player(self.specs.get(s, "?")))))

    def show_help(self) -> None:
        if self.signs:
            self.say(self._("Your turn: make a sign, or none, then play a card."))
        self.say(self.t("Type a card's number (or short name) to choose it. At any prompt: "
                        "? shows the rules, l the last trick, q quits."))
        if self._coach is not None:
            self.say(self.t("The coach: h shows the expert's hint on your turn, r the review "
                            "of the last deal."))

    def show_rules(self) -> None:
        """The rules as both games tell them (:data:`.i18n.RULES_SECTIONS`, and
        :data:`.i18n.RULES_SIGNS` with signs), and the rank order from the game
        core (R7-R8)."""
        c = self.console
        c.rule(self.t("How to play Aluette"))
        for title, paragraphs in (*RULES_SECTIONS, *([RULES_SIGNS] if self.signs else [])):
            self.say(self._(title), style="bold")
            for p in paragraphs:
                self.say(self._(p))
        self.say(self._(RANK_ORDER_TITLE), style="bold")
        for k, level in enumerate(reversed(CARDS_BY_STRENGTH), 1):
            names = [self.card(card) for card in level]
            self.say_items([f"{k:2d}. {names[0]}"] + names[1:], sep=" = ")
        self.say(self._(RANK_ORDER_NOTE))
        c.rule()

    def show_last_trick(self, trick: dict | None, next_leader: int | None = None,
                        on_demand: bool = False) -> None:
        """A finished trick: who took it with which card over which (or the tie
        that spoiled it), who led, every card, and who leads next."""
        if trick is None:
            self.say(self.t("No trick has been played yet."))
            return
        led = self.t("Led by {seat}.", seat=self.seat(trick["leader"]))
        self.say(f"{self.words.trick_heading(trick)} {led}",
                 style=None if on_demand else "bold")
        self.say_items([self.t("{seat}: {card}", seat=self.seat(p["seat"]),
                               card=self.card(p["card"])) for p in trick["plays"]],
                       indent="    ", sep=" · ")
        self.say("  " + (self.words.why(trick["why"], trick["winner"]) if on_demand else
                         self.words.trick_done(trick, next_leader)))

    def score_line(self, points) -> str:
        score, us, them = self._("Score"), self._("You and partner"), self._("Opponents")
        return f"{score}: {us} {points[0]} — {points[1]} {them}"

    def board(self, view: dict) -> None:
        """The table before the person's card: trick counts and places, the trick so
        far (who led it, who is winning it or that it is spoiled), the hand."""
        deal = view["deal"]
        title = " · ".join([self.t("Deal {n} of {total}", n=deal["number"], total=deal["of"]),
                            self.t("Dealer: {seat}", seat=self.seat(deal["dealer"])),
                            self.t("Trick {n} of {total}", n=deal["trick"], total=deal["tricks"])])
        t = Table(title=title, caption=self.score_line(view["match"]["points"]),
                  show_header=True, header_style="bold", title_justify="left",
                  caption_justify="left")
        t.add_column(self._("Player"))
        t.add_column(self._("Tricks"), justify="right")
        t.add_column(self._("Place"), justify="right")
        t.add_column(self._("Current trick"))
        order = view["reach_order"]  # R13-R14, best first
        current = view["current_trick"]
        played = {p["seat"]: p["card"] for p in current["plays"]} if current else {}
        for s in range(NUM_SEATS):
            place = str(order.index(s) + 1) if s in order else ""
            t.add_row(self.seat(s), str(view["counts"][s]), place,
                      self.card(played[s]) if s in played else "")
        self.console.print(t)
        words = self.words.view(view)
        self.say(words["trick"])
        if words["mordienne"]:
            self.say(words["mordienne"], style="italic")
        self.show_signs(view)
        self.show_hand(view["hand"])

    def show_signs(self, view: dict) -> None:
        """With signs: every sign of the deal the person saw (S5), by trick, an
        opponent's marked as caught."""
        seen = view.get("signs") or []
        if not seen:
            return
        self.say(self._("Signs you saw this deal") + ":", style="bold")
        items = []
        for s in seen:
            sign = self.words.sign(s["sign"])
            items.append(f"{s['trick'] + 1}. " + self.t(
                "{seat}: {sign}", seat=self.seat(s["seat"]),
                sign=self.t("Caught: {sign}", sign=sign) if s["caught"] else sign))
        self.say_items(items, sep=" · ")

    def show_hand(self, hand: list[int]) -> None:
        """Numbered cards, strongest first, wrapped between cards, never inside one."""
        self.say(self._("Your hand") + ":", style="bold")
        self.say_items([f"{k}) {self.card(c)} [{self.codes[c]}]"
                        for k, c in enumerate(hand_order(hand), 1)])

    def show_events(self, events: list[dict]) -> bool:
        """Show a move's events in order (AI cards at the chosen pace); True if
        a deal ended. Only what the person is told: of the signs, those they
        see (S5)."""
        ended = False
        for ev in self.session.events_for(events, HUMAN):
            kind = ev["type"]
            if kind == "deal":
                self.console.rule(" · ".join([
                    self.t("Deal {n} of {total}", n=ev["number"], total=ev["of"]),
                    self.t("Dealer: {seat}", seat=self.seat(ev["dealer"]))]))
            elif kind in ("play", "sign"):
                self.say(self.words.event(ev)["text"])
                if ev["seat"] != HUMAN and self.delay > 0:
                    time.sleep(self.delay)
            elif kind == "trick":
                self.show_last_trick(ev, ev["next_leader"])
                line = self.words.mordienne(ev["mordienne"])
                if line and not ev["mordienne"]["done"]:
                    self.say("  " + line, style="italic")
            elif kind == "deal_over":
                self.show_deal(ev["summary"])
                ended = True
        return ended

    def show_deal(self, summary: dict) -> None:
        """The deal's end: trick counts, every trick's winner, why the winner won
        (the session's reason: most tricks, first to reach, Mordienne) and the points."""
        counts = summary["trick_counts"]
        self.console.rule(self.t("Deal {n} of {total} is over", n=summary["deal"] + 1,
                                 total=self.session.match.num_deals))
        self.say(self._("Tricks this deal") + ": " + " · ".join(
            f"{self.seat(s)} {counts[s]}" for s in range(NUM_SEATS)))
        self.say(self.t("Tricks: {list}", list=", ".join(
            "×" if w is None else self.seat(w) for w in summary["trick_winners"])))
        lines = self.words.summary(summary)
        for k, line in enumerate(lines):
            last = k == len(lines) - 1 and summary["winner"] is not None
            self.say(line, style="bold" if last else None)
        self.say(self.score_line(summary["match_points"]))

    def show_match(self, match: dict) -> None:
        self.console.rule(self._("Score"))
        for rec in match["history"]:
            mordienne = " — Mordienne" if rec["mordienne"] else ""  # the game's own word
            self.say(f"  {self.words.history(rec)}{mordienne}")
        self.say(self.words.match_result(match), style="bold")

    # -- the game ---------------------------------------------------------------------

    # -- the coach ------------------------------------------------------------------

    def show_hint(self) -> None:
        """The expert's estimate of every card in the hand, by the hand's numbers."""
        view = self.view
        if not view["your_turn"]:
            self.say("  " + self.t("A hint is for your turn."))
            return
        hint = self.coach.hint(self.session.deal, HUMAN)
        number = {c: k for k, c in enumerate(hand_order(view["hand"]), 1)}
        self.say(self.t("The expert's estimate ({worlds} sampled deals): points of the deal for "
                        "your side with its best card; the other cards relative to it, ± the "
                        "uncertainty.", worlds=hint["worlds"]), style="bold")
        for e in hint["cards"]:
            value = (self.t("{value} (best)", value=format(e["value"], "+.2f")) if e["best"] else
                     f"{e['delta']:+.2f} ± {e['stderr']:.2f}")
            self.say(f"  {number[e['card']]}) {self.card(e['card'])}: {value}")

    def queue_review(self) -> None:
        """Start the review of the deal just finished, in the background."""
        if self.reviews is not None:
            game = self.session
            self.reviews.submit(str(game.match_number), game.record(),
                                len(game.match.history) - 1, (HUMAN, 2))

    def show_review(self) -> None:
        """The last finished deal's review (waits for it if it is still running)
        and the match's summary so far."""
        from .coach import match_summary
        game = self.session
        n = len(game.match.history)
        key = str(game.match_number)
        if not n:
            self.say("  " + self.t("No deal of this match has ended yet."))
            return
        self.coach  # noqa: B018 - made on first use
        for d in range(n):  # deals ended before the coach was first used
            self.reviews.submit(key, game.record(), d, (HUMAN, 2))
        review = self.reviews.wait(key, n - 1)
        self.say(self.t("Review of deal {n} by the expert", n=n), style="bold")
        for play in review["plays"]:
            r = play["review"]
            if r is None:
                continue
            who = self.seat(play["seat"])
            line = f"  {play['trick'] + 1}. {who}: {self.card(play['card'])}"
            self.say(line + "  " + review_text(self.lang, r, play["card"], self.card),
                     style="red" if r["mistake"] else None)
        done = [self.reviews.get(key, d) for d in range(n)]
        summary = match_summary([d for d in done if d is not None])
        for seat, s in summary["seats"].items():
            self.say("  " + summary_text(self.lang, self.seat(int(seat)), s))

    def save_record(self) -> None:
        """Save the finished match's record in ``record_dir``. If that fails (the
        folder was removed, replaced by a file, filled up), the record is saved in
        the temporary folder (or the home or current folder) instead, and the
        game ends with one line saying where it went (exit code 2)."""
        if self.record_dir is None:
            return
        import os
        import tempfile

        from ..records import save_record
        stamp = time.strftime("%Y%m%d-%H%M%S")
        name = f"aluette-{stamp}-{self.session.match_number}"
        record = self.session.record()
        try:
            path = save_record(record, self.record_dir, name)
        except OSError as err:
            problem = err.strerror or str(err)
        else:
            self.say(self.t("Match record saved: {path}", path=printable(str(path))))
            return
        for folder in (tempfile.gettempdir(), os.path.expanduser("~"), os.getcwd()):
            try:
                path = save_record(record, folder, name)
                break
            except OSError:
                continue
        else:
            import json
            print(json.dumps(record), file=sys.stderr)
            path = "standard error, above"
        raise UsageError(f"--record {self.record_dir}: cannot save the match record there "
                         f"({problem}); it was saved to {path} instead")

    def play_match(self, events: list[dict]) -> None:
        """Play the session's match from ``events`` (its first deal) to its end."""
        self.console.rule(self._("New match"))
        self.show_players()
        self.show_help()
        signed = False
        while True:
            if self.show_events(events):
                self.queue_review()
                if self.session.match.over:
                    break
                self.pause()
                events = self.session.next_deal()
                continue
            view = self.view
            if view.get("sign_choices"):  # S1: the sign first, then the card
                self.board(view)
                events = self.session.sign(self.choose_sign(view["sign_choices"]))
                signed = True
                continue
            if signed:  # the board was shown for the sign: the hand again
                self.show_hand(view["hand"])
            else:
                self.board(view)
            signed = False
            events = self.session.play(self.choose_card(view["hand"]))
        self.show_match(self.view["match"])
        self.save_record()

    def run(self) -> int:
        try:
            events = self.start()
            while True:
                self.play_match(events)
                while True:
                    answer = self.ask(self.t("New match (n) or quit (q)?"))
                    if answer.lower() in NO + ("new",):
                        break
                    self.say("  " + self.t("Type n for a new match or q to quit."))
                events = self.session.new_match()
        except (Quit, KeyboardInterrupt, EOFError):
            self.say("")
            self.say(self.t("Goodbye."))
        return 0


def non_negative_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"must be from 0 to 60 seconds, got {text}")
    return value


#: The AI seats' player without --signs, and with it (a player that signs and
#: reads signs; the web game's --signs-ai).
DEFAULT_AI, SIGNS_AI = "ai", "expert"


def add_arguments(p: argparse.ArgumentParser) -> None:
    default = f"default: {DEFAULT_AI}, the shipped model; with --signs, {SIGNS_AI}"
    p.add_argument("--partner", metavar="SPEC", help=f"your partner, north ({default})")
    p.add_argument("--left", metavar="SPEC", help=f"west, on your left ({default})")
    p.add_argument("--right", metavar="SPEC", help=f"east, on your right ({default})")
    p.add_argument("--seed", type=seed_int, default=None,
                   help="seed of the deals and the AIs (default: a fresh random match)")
    p.add_argument("--lang", choices=list(i18n.LANGUAGES), default=i18n.DEFAULT_LANGUAGE,
                   help="language of everything shown")
    p.add_argument("--delay", type=non_negative_seconds, default=0.6,
                   help="seconds between AI cards, 0 to 60")
    p.add_argument("--record", default=None, metavar="DIR",
                   help="save each finished match's record in DIR (default: none)")
    p.add_argument("--hint-worlds", type=worlds, default=HINT_WORLDS,
                   help="the coach's effort: sampled deals per hint (h)")
    p.add_argument("--review-worlds", type=worlds, default=REVIEW_WORLDS,
                   help="the coach's effort: sampled deals per reviewed play (r)")
    p.add_argument("--deal-pause", type=non_negative_seconds, default=None, metavar="SECONDS",
                   help="pause this long after a deal's summary (default: wait for Enter)")
    p.add_argument("--signs", action="store_true",
                   help="play the signs variant (docs/RULES.md S1-S5): a sign or none before "
                        "each card; no coach and no --record")
    p.add_argument("--catch", type=probability, metavar="P",
                   help=f"with --signs: the chance that an opponent catches a sign, 0 to 1 "
                        f"(default {DEFAULT_CATCH})")


def run(args: argparse.Namespace) -> int:
    import os

    from ..players import for_the_default_game, load_player
    from .coach import Coach
    if args.catch is not None and not args.signs:
        raise UsageError("--catch: only with --signs")
    if args.signs and args.record is not None:
        raise UsageError("--record: not with --signs (a match's record holds every sign, "
                         "also those you did not see)")
    if args.record is not None:
        try:
            os.makedirs(args.record, exist_ok=True)
        except OSError as err:
            raise UsageError(f"--record {args.record}: {err.strerror}") from None
        if not os.access(args.record, os.W_OK | os.X_OK):
            raise UsageError(f"--record {args.record}: permission denied")
    ai = SIGNS_AI if args.signs else DEFAULT_AI
    specs = {s: ai if spec is None else spec  # an empty spec is refused by load_player
             for s, spec in ((1, args.left), (2, args.partner), (3, args.right))}
    players = {}
    for s, spec in specs.items():
        player = load_player(spec, seed=None if args.seed is None else args.seed * 4 + s)
        players[s] = player if args.signs else for_the_default_game(player, spec)

    def coach() -> Coach:
        return Coach(args.hint_worlds, args.review_worlds,
                     seed=0 if args.seed is None else args.seed)

    variant = ALUETTE_SIGNS_V0.with_catch(DEFAULT_CATCH if args.catch is None else args.catch) \
        if args.signs else ALUETTE_V1
    return TerminalGame(players, args.seed, args.lang, args.delay, args.deal_pause,
                        specs=specs, variant=variant,
                        **({} if variant.signs else
                           {"coach": coach, "record_dir": args.record})).run()


#: Entry point ``aluette.commands: play``.
COMMAND = Command("play a match in the terminal with an AI partner", add_arguments, run)
