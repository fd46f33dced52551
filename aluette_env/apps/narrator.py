"""Every sentence about a game that a person reads, in their language, from the
apps' one catalog (:mod:`.i18n`): :class:`Narrator` words the public events
and the views of :class:`~.session.GameSession`, so the trick explanation, the
deal's reason, the Mordienne line and the match's result are worded here once,
and the terminal and the web game say the same thing. It reads the facts the
flow sends and decides none of them.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Sequence

from . import i18n
from .i18n import N_
from .seating import HUMAN

#: Seat names, south first, clockwise.
SEAT_NAMES = (N_("You"), N_("West"), N_("Partner"), N_("East"))
#: A spectator's seat names (they sit nowhere): the compass, south first.
COMPASS = (N_("South"), N_("West"), N_("North"), N_("East"))
#: What a person reads for the registry's players; other specs show as typed.
PLAYER_LABELS = {"random": N_("Random"), "heuristic": N_("Heuristic"), "ai": N_("Trained AI"),
                 "pimc": N_("Search (PIMC)"), "expert": N_("Expert"),
                 "ismcts": N_("Search (ISMCTS)")}
#: How strong each player is, in a few words, weakest first (README's Strength,
#: docs/STRENGTH.md and docs/ECOSYSTEM.md measure them).
PLAYER_STRENGTH = {
    "random": N_("The weakest: any card, at random."),
    "ismcts": N_("Weak: a search that plays the rest of the deal at random; the rules beat it."),
    "heuristic": N_("Fair: plays by a few simple rules."),
    "pimc": N_("Strong: a search over the deals that could be."),
    "ai": N_("Stronger: the trained network, quick."),
    "expert": N_("The strongest: a search guided by the trained network; it thinks longer."),
}




class Narrator:
    """Every sentence about the game that a person reads, in ``lang``, from the
    apps' one catalog: both games show these, so they say the same thing.
    ``spectator``: the words of a spectator, who sits nowhere (the compass's
    seats, the sides south and north against west and east; never "you")."""

    def __init__(self, lang: str = i18n.DEFAULT_LANGUAGE, spectator: bool = False):
        self.lang = i18n.check_language(lang)
        self.spectator = spectator
        self._ = i18n.translator(lang).gettext
        self.cards = i18n.card_names(lang)

    def t(self, message: str, **fields: object) -> str:
        text = self._(message)
        return text.format(**fields) if fields else text

    def seat(self, seat: int) -> str:
        return self._((COMPASS if self.spectator else SEAT_NAMES)[seat])

    def card(self, card: int) -> str:
        return self.cards[card]

    def seats_in_sentence(self, seats: Sequence[int]) -> str:
        """Seats named inside a sentence, as a list: "you and West", "West, you
        and East" (the reader is "you", never the capitalised seat name)."""
        names = [self.t("you") if s == HUMAN and not self.spectator else self.seat(s)
                 for s in seats]
        if len(names) < 2:
            return "".join(names)
        # TRANSLATORS: between the items of a list but the last two ("West, you and East").
        return self.t(", ").join(names[:-1]) + self.t(" and ") + names[-1]

    def player(self, spec: str) -> str:
        """A player's display name: ``Heuristic`` for ``heuristic:seed=3``."""
        base = spec.split(":", 1)[0]
        return self._(PLAYER_LABELS[base]) if base in PLAYER_LABELS else spec

    def strength(self, spec: str) -> str:
        """How strong a player is, in a few words ("" for one the catalog does not know)."""
        base = spec.split(":", 1)[0]
        return self._(PLAYER_STRENGTH[base]) if base in PLAYER_STRENGTH else ""

    def yours(self, seat: int | None) -> bool:
        """``seat`` is the reader's own (a spectator has none): said as "you"."""
        return seat == HUMAN and not self.spectator

    def leader(self, seat: int) -> str:
        return self.t("Leader: {seat}.", seat=self.seat(seat))

    def trick_so_far(self, leader: int, winning: int | None) -> str:
        """The trick in progress: who led it, who is winning it or that it is spoiled."""
        status = (self.t("Spoiled so far: the highest cards are equal.") if winning is None
                  else self.t("Winning now: {seat}.", seat=self.seat(winning)))
        led = (self.t("You led.") if self.yours(leader) else
               self.t("Led by {seat}.", seat=self.seat(leader)))
        return f"{led} {status}"

    def why(self, why: dict[str, Any], winner: int | None) -> str:
        """Which card won and what it beat, or which cards tied and spoiled it."""
        if winner is None:
            return self.t("Spoiled: {cards} are equal and highest, so nobody takes this trick.",
                          cards=self.t(" and ").join(self.card(c) for c in why["tied"]))
        # The reader's own trick in the second person (the verb agrees with "you").
        if why.get("beats") is None:
            return (self.t("You took the trick.") if self.yours(winner) else
                    self.t("Trick taken by {seat}.", seat=self.seat(winner)))
        cards = {"card": self.card(why["card"]), "beaten": self.card(why["beats"])}
        if self.yours(winner):
            return self.t("You took the trick: {card} beats {beaten}.", **cards)
        return self.t("Trick taken by {seat}: {card} beats {beaten}.", seat=self.seat(winner),
                      **cards)

    def next_leader(self, seat: int | None) -> str:
        if seat is None:
            return ""
        if self.yours(seat):
            return self.t("You lead the next trick.")
        return self.t("{seat} leads the next trick.", seat=self.seat(seat))

    def trick_done(self, trick: dict[str, Any], next_leader: int | None) -> str:
        """A finished trick, explained: who took it with which card over which, or
        the tie that spoiled it, then who leads next."""
        return " ".join(x for x in (self.why(trick["why"], trick["winner"]),
                                    self.next_leader(next_leader)) if x)

    def trick_heading(self, trick: dict[str, Any]) -> str:
        n = trick["index"] + 1
        return (self.t("Trick {n}: spoiled.", n=n) if trick["winner"] is None
                else self.t("Trick {n}: taken by {seat}.", n=n, seat=self.seat(trick["winner"])))

    def mordienne(self, chance: dict[str, Any] | None) -> str:
        """The Mordienne line (R16), only for a run that can still score or scored."""
        if chance is None:
            return ""
        if chance["done"]:
            return self.t("Mordienne for {seat}: the last {n} tricks in a row and none before, "
                          "so 2 points instead of 1.", seat=self.seat(chance["seat"]),
                          n=chance["length"])
        return self.t("Mordienne in reach for {seat}: {n} tricks in a row and none before. "
                      "Taking every trick left would score 2 points instead of 1.",
                      seat=self.seat(chance["seat"]), n=chance["length"])

    def summary(self, s: dict[str, Any]) -> list[str]:
        """Why the deal was won, in lines: the reason from the core's score and the points."""
        if s["reason"] == "all_spoiled":
            return [self.t("Every trick was spoiled: nobody scores.")]
        who = self.seat(s["winner"])
        n = s["trick_counts"][s["winner"]]
        if s["tied_with"]:
            lines = [self.t("Deal won by {seat}: tied on {n} tricks with {others}, but first to "
                            "reach {n}.", seat=who, n=n,
                            others=self.seats_in_sentence(s["tied_with"]))]
        else:
            lines = [self.t("Deal won by {seat}, with the most tricks ({n}).", seat=who, n=n)]
        if s["mordienne"]:
            lines.append(self.t("Mordienne! Nothing won before a closing run of {n} tricks: the "
                                "points are doubled.", n=n))
        ours, theirs = s["team_points"]
        if self.spectator:
            lines.append(self.t("South and north score {points}.", points=ours) if ours else
                         self.t("West and east score {points}.", points=theirs))
        else:
            lines.append(self.t("Your side scores {points}.", points=ours) if ours else
                         self.t("The opponents score {points}.", points=theirs))
        return lines

    def deal_result(self, result: dict[str, Any], winner: str,
                    teams: Sequence[str] = ("team_0", "team_1"), first: int = 0) -> str:
        """A recorded deal's result (a record's deal ``result``, docs/RECORDS.md): its
        winner, named ``winner``, and the two teams' points, team ``first`` first
        under the name ``teams[0]``. The page's replay says the same sentence
        (``dealResult`` in ``static/coach.js``, in the table's words)."""
        points = (result["points"]["team_0"], result["points"]["team_1"])
        fields = {"seat": winner, "team": teams[0], "points": points[first],
                  "other": teams[1], "other_points": points[1 - first]}
        if not result["winner"]:
            return self.t("Nobody won the deal. {team}: {points}, {other}: {other_points}",
                          **fields)
        if result["mordienne"]:
            return self.t("Deal won by {seat} with a Mordienne. {team}: {points}, {other}: "
                          "{other_points}", **fields)
        return self.t("Deal won by {seat}. {team}: {points}, {other}: {other_points}", **fields)

    def history(self, h: dict[str, Any]) -> str:
        if h["winner"] is None:
            return self.t("Deal {n}: nobody", n=h["deal"] + 1)
        return self.t("Deal {n}: {seat} +{points}", n=h["deal"] + 1, seat=self.seat(h["winner"]),
                      points=max(h["points"]))

    def match_result(self, match: dict[str, Any]) -> str:
        us, them = match["points"]
        if self.spectator and match["winner"] is not None:
            return (self.t("South and north win the match, {us} to {them}!", us=us, them=them)
                    if match["winner"] == 0 else
                    self.t("West and east win the match, {them} to {us}.", us=us, them=them))
        if match["winner"] == 0:
            return self.t("You and your partner win the match, {us} to {them}!", us=us, them=them)
        if match["winner"] == 1:
            return self.t("The opponents win the match, {them} to {us}.", us=us, them=them)
        return self.t("The match is a draw, {us} to {them}.", us=us, them=them)

    def event(self, ev: dict[str, Any]) -> dict[str, Any]:
        """``ev`` with its words: ``text`` (what happened) and, for a card, ``status``."""
        kind = ev["type"]
        if kind == "deal":
            return {**ev, "text": self.leader(ev["leader"])}
        if kind == "play":
            return {**ev, "text": self.t("{seat}: {card}", seat=self.seat(ev["seat"]),
                                         card=self.card(ev["card"])),
                    "status": self.trick_so_far(ev["leader"], ev["winning"])}
        if kind == "trick":
            return {**ev, "text": self.trick_done(ev, ev["next_leader"]),
                    "leader_text": "" if ev["next_leader"] is None else
                    self.leader(ev["next_leader"]),
                    "mordienne_text": self.mordienne(ev["mordienne"])}
        if kind == "deal_over":
            return {**ev, "text": self.summary(ev["summary"])}
        if kind == "player":
            return {**ev, "text": self.player(ev["spec"])}
        if kind == "sign":
            return {**ev, "text": self.sign_made(ev)}
        return ev

    def sign(self, sign: int) -> str:
        """A sign in words: "a wink (Le Borgne)"; 0: "no sign"."""
        words = i18n.sign_words(self.lang)[sign]
        if not words["card"]:
            return words["gesture"]
        return self.t("{gesture} ({card})", gesture=words["gesture"], card=words["card"])

    def sign_made(self, ev: dict[str, Any]) -> str:
        """A sign the reader saw (S5): their own, their partner's, or an opponent's
        they caught."""
        if ev["caught"]:
            return self.t("You caught a sign from {seat}: {sign}.", seat=self.seat(ev["seat"]),
                          sign=self.sign(ev["sign"]))
        if self.yours(ev["seat"]):
            return (self.t("You sign: {sign}.", sign=self.sign(ev["sign"])) if ev["sign"]
                    else self.t("You make no sign."))
        return (self.t("{seat} signs: {sign}.", seat=self.seat(ev["seat"]),
                       sign=self.sign(ev["sign"])) if ev["sign"]
                else self.t("{seat} makes no sign.", seat=self.seat(ev["seat"])))

    def view(self, v: dict[str, Any]) -> dict[str, Any]:
        """The words of a view: the trick line, the Mordienne line, the deal's
        summary, the match's history and result, the players' names (a
        spectator's view in a spectator's words)."""
        if v.get("spectator") and not self.spectator:
            return Narrator(self.lang, spectator=True).view(v)
        current = v["current_trick"]
        if current is not None and "why" in current:  # finished, still on the table
            trick = self.trick_done(current, None if v["deal"]["done"] else v["deal"]["leader"])
        elif current is not None:
            trick = self.trick_so_far(current["leader"], current["winning"])
        elif v["deal"]["done"]:
            trick = ""
        else:
            trick = self.leader(v["deal"]["leader"])
        return {
            "trick": trick,
            # The last trick explained, with who leads now (R10-R11).
            "last_trick": None if v["last_trick"] is None else
            self.trick_done(v["last_trick"], None if v["deal"]["done"] else v["deal"]["leader"]),
            "mordienne": self.mordienne(v["mordienne"]),
            "summary": self.summary(v["summary"]) if v["summary"] else [],
            "history": [self.history(h) for h in v["match"]["history"]],
            "match_result": self.match_result(v["match"]) if v["match"]["over"] else "",
            "players": {s: self.player(spec) for s, spec in v["players"].items()},
        }
