"""The one game flow for people: a five-deal match of :mod:`aluette_env.game`
between people (by default one, seat 0, south) and AI players.

Both games for people run on it: the web server (:mod:`.web.service`) and the
terminal (:mod:`.terminal`) feed the person's choices in (:meth:`GameSession.play`,
:meth:`~GameSession.next_deal`, :meth:`~GameSession.new_match`) and show what
comes out: the public events of each move (cards played, tricks with who took
them and why, who leads next, the deal's end) and :meth:`GameSession.view`,
everything a seat may know and nothing else, with seats counted from it
(:mod:`.views`). :class:`~.narrator.Narrator` words those facts. No rule
is restated: dealing, tricks, the tally, scoring and when a Mordienne can
still happen come from the game core.

The game played is a variant (``variant``, an :class:`aluette_env.game.Variant`;
by default the default game). With signs (``variant=ALUETTE_SIGNS_V0``;
docs/RULES.md S1-S5), each turn of a seat is two moves: a sign
or none (:meth:`GameSession.sign`), then a card. The catches are the variant's
draws when a deal is dealt, with the deal's randomness. A sign event is told
only to the seats that know of it (:meth:`~aluette_env.game.Variant.knows_sign`),
and each view lists only the signs its seat saw (:mod:`.views`): never who
caught the reader's own.

A session is the match flow: it composes who plays each seat
(:class:`~.seating.Seating`: the people, the AIs, who is away, what an AI
chooses) and keeps a game outside the process with :mod:`.snapshots` (the
saved format, written and read back).
"""

from __future__ import annotations

import random
from contextlib import contextmanager
from typing import Any
from collections.abc import Callable, Iterator, Mapping, Sequence

from aluette_env.game import (
    CARD_PLAYED, DEAL_DONE, NUM_CARDS, NUM_SEATS, NUM_TRICKS, SIGN_BASE, Variant, check_sign,
    deal_cards, deal_reason, is_sign_action, relative_seat, sign_name, trick_winner,
    variant_of,
)
from aluette_env.players import Player

from .seating import AI_SEATS, HUMAN, Seating  # noqa: F401 (AI_SEATS: still importable here)
from .snapshots import (
    NEW_MATCH, NEXT_DEAL, as_dealt, check_in_progress, dealt_after, moves_of, read_snapshot,
    snapshot_of,
)
from .views import events_for, game_view, seen_from, tally, tells, trick_view, who


class GameError(ValueError):
    """A request the game cannot take in its state; the message names why.
    Raised before anything changes."""


class StaleMove(GameError):
    """A move made on a view that is no longer the game's (a duplicate or
    out-of-date request); nothing changed."""


def _of_seating(name: str, doc: str) -> property:
    """A :class:`GameSession`'s ``name``, read from its seating."""
    return property(lambda game: getattr(game.seating, name), doc=doc)


class GameSession:
    """A match between people and AI players: by default one person (seat 0)
    and three AIs.

    ``players`` maps the AI seats to players and ``specs`` to the specs that
    named them; ``people`` maps the seats of people to their display names
    (default: seat 0 alone). A person who is away (:meth:`set_away`) is played
    by ``standin``, the table's AI, until they come back; all of these are its
    :attr:`seating` (:class:`~.seating.Seating`). Each call that moves
    the game returns the list of public events it produced, in order, so a
    game can show the AI cards one at a time. ``version`` counts the moves
    taken so far: a move made on the view of an older version is refused
    (:class:`StaleMove`). ``deals`` (tests) gives the hands of the first deals
    instead of shuffling. :meth:`snapshot` and :meth:`restore` keep a game
    outside the process (the web server's database): the snapshot is the
    match record of :mod:`aluette_env.records` plus the deal in progress
    (:mod:`.snapshots`). ``variant``: the game played (a :class:`~aluette_env.game.Variant` or its
    env id; by default the default game; ``signs=True`` and ``catch`` are the
    deprecated way to ask for the signs variant); at a table with signs the AI
    players that do not play signs sit silent
    (:func:`~aluette_env.players.for_signs`).
    """

    def __init__(self, players: Mapping[int, Player], specs: Mapping[int, str],
                 seed: int | None = None, first_dealer: int | None = None,
                 deals: Sequence[Sequence[Sequence[int]]] = (),
                 people: Mapping[int, str] | None = None, standin: Player | None = None,
                 standin_spec: str = "ai", start: bool = True, signs: bool | None = None,
                 catch: float | None = None, variant: Variant | None = None):
        self.variant = variant_of(variant, signs, catch)
        self.signs, self.catch = self.variant.signs, self.variant.catch
        self.seating = Seating(self.variant, players, specs, people, standin, standin_spec)
        self.seed = seed
        self.rng = random.Random(seed)
        self.first_dealer = first_dealer
        self.scripted = [[list(h) for h in hands] for hands in deals]
        #: The people's latest moves, [version, seat, card] (a card, or :data:`NEXT_DEAL`,
        #: :data:`NEW_MATCH`): a move sent twice is applied once.
        self.recent: list[list] = []
        self.match_number = 0
        self.version = 0
        #: The seat being followed and its views after each event (:meth:`following`).
        self._follower: tuple[int | None, list[dict[str, Any]]] | None = None
        #: The events of dealing the first deal (the AIs before the person play).
        self.opening_events = self._new_match() if start else []

    # Who sits where, as the seating has it (:class:`~.seating.Seating`).
    people = _of_seating("people", "The seats of people, and the names they were invited by.")
    players = _of_seating("players", "The AI seats' players.")
    specs = _of_seating("specs", "The specs that named the AI seats' players.")
    standin = _of_seating("standin", "The AI that plays for a person who is away.")
    standin_spec = _of_seating("standin_spec", "The spec that named the stand-in.")
    away = _of_seating("away", "The seats of the people who are away.")
    host = _of_seating("host", "The table's host: the person at the lowest seat.")

    def seated(self, player: Player | None) -> Player | None:
        """``player`` at this table: with signs, silent unless it plays them."""
        return self.seating.seated(player)

    def start(self) -> list[dict[str, Any]]:
        """The first match's first deal, of a game made with ``start=False``
        (so that its opening can be followed: :meth:`following`)."""
        return self._new_match()

    @contextmanager
    def following(self, seat: int | None) -> Iterator[list[dict[str, Any]]]:
        """While open, the view of ``seat`` (:meth:`view`) after each event the
        game makes, in order: one view per event, so a page shows each step as
        the game had it. The last card of a trick and the trick itself leave
        the finished trick on the table (``current_trick``, with its winner),
        and its summary waits for the deal's end event."""
        views: list[dict[str, Any]] = []
        self._follower = (seat, views)
        try:
            yield views
        finally:
            self._follower = None

    def _told(self, events: list[dict[str, Any]],
              finished: tuple[dict[str, Any], dict[str, Any] | None] | None = None
              ) -> list[dict[str, Any]]:
        """``events``, and the followed seat's view after each (``finished``: the
        trick the play finished and the last trick before it)."""
        if self._follower is not None:
            seat, views = self._follower
            for ev in events:
                if not self.tells(ev, seat):
                    continue
                shown = finished if ev["type"] in ("play", "trick") else None
                views.append(self.view(seat, shown))
        return events

    @property
    def position(self) -> tuple[int, int, int]:
        """Where the game stands, for :meth:`steps_since`: the match's number, the
        deals dealt in it, and the moves (signs and cards) of the latest one."""
        return self.match_number, len(self.match.deals), len(moves_of(as_dealt(self.deal)))

    def steps_since(self, position: tuple[int, int, int], seat: int | None
                    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
        """The moves made since ``position`` (an earlier :attr:`position`) as
        :meth:`following` gave them to ``seat``: the events (before
        :meth:`events_for`) and the view after each one ``seat`` is told of,
        the last one the game's version. They are replayed through the rules
        from the game itself (a game read from its row has them too), so every
        page of a table sees each card. None when the game is past what it can
        replay: another match, or more than one deal later. Who left or came
        back, and AI choices, are not moves: the last view shows them."""
        number, dealt, done = position
        later = len(self.match.deals) - dealt
        if number != self.match_number or dealt < 1 or not 0 <= later <= 1:
            return None
        deals = [as_dealt(d) for d in self.match.deals[dealt - 1:]]
        moves = [moves_of(d) for d in deals]
        if done > len(moves[0]):
            return None
        steps = len(moves[0]) - done + sum(1 + len(m) for m in moves[1:])
        if not steps:
            return [], []
        start = self.snapshot()
        if done == len(moves[0]):  # that deal was over: the next one is dealt
            start.update(record=self.record(dealt), current=None)
        else:
            record = self.record(dealt - 1)
            if self.signs and not record.get("signs"):  # no finished deal: no signs written
                record.update(version=max(record["version"], 3), signs=True)
            start.update(record=record, current=dealt_after(deals[0], done))
        start["version"] = self.version - steps
        game = GameSession.restore(start, lambda spec: None, self.variant)
        with game.following(seat) as views:
            events = game._replay(moves[0][done:])
            for dealt_next, made in zip(deals[1:], moves[1:]):
                game._start_deal(dealt_next["hands"], None, dealt_next.get("caught"))
                events += game._dealt() + game._replay(made)
        return events, views

    def _replay(self, moves: list[tuple[str, int]]) -> list[dict[str, Any]]:
        """The events of making ``moves`` (:func:`~.snapshots.moves_of`), whoever's turn it is."""
        return [e for kind, x in moves
                for e in (self._sign(x) if kind == "sign" else self._play(x))]

    # ---------------------------------------------------------------- the game

    def _new_match(self) -> list[dict[str, Any]]:
        self.match_number += 1
        # R2/R6: any seat may deal first; the match rotates it from there.
        first = self.first_dealer if self.first_dealer is not None else \
            self._rng(0).randrange(NUM_SEATS)
        self.match = self.variant.new_match(first)
        return self._new_deal()

    def _rng(self, deal: int) -> random.Random:
        """The randomness of deal ``deal`` (0-based) of this match. With a seed,
        drawn from the seed and the deal's place in the game, so that a
        restored game deals what it would have dealt."""
        if self.seed is None:
            return self.rng
        return random.Random(f"{self.seed}:{self.match_number}:{deal}")

    def _new_deal(self) -> list[dict[str, Any]]:
        rng = self._rng(len(self.match.deals))
        if self.scripted:
            hands, unused = self.scripted.pop(0), None
        else:
            deck = list(range(NUM_CARDS))
            rng.shuffle(deck)
            hands, unused = deal_cards(deck, self.match.dealer)  # R5
        # S4: the catches of the deal's signs, chance drawn at the deal
        caught = self.variant.draw_catches(rng.random) if self.signs else None
        self._start_deal(hands, unused, caught)
        self.seating.new_deal()
        return self._dealt() + self._play_ai()

    def _dealt(self) -> list[dict[str, Any]]:
        """The event of the deal just dealt."""
        return self._told([{"type": "deal", "number": self.match.deal_index + 1,
                            "of": self.match.num_deals, "dealer": self.deal.dealer,
                            "leader": self.deal.leader}])

    def _start_deal(self, hands: Sequence[Sequence[int]], unused: Sequence[int] | None,
                    caught: Sequence[int] | None = None) -> None:
        self.deal = self.match.start_deal(hands, unused, caught)
        self.version += 1
        self.summary: dict[str, Any] | None = None
        # The last trick of this deal only: a card of an earlier deal may be in
        # another seat's hand now, and the view names only this deal's cards.
        self.last_trick: dict[str, Any] | None = None

    def _play_ai(self) -> list[dict[str, Any]]:
        """AI seats (and away people's stand-in) play until it is a present
        person's turn or the deal is over."""
        events: list[dict[str, Any]] = []
        while (action := self.seating.ai_action(self.deal)) is not None:
            events.extend(self._sign(action - SIGN_BASE) if is_sign_action(action)
                          else self._play(action))
        return events

    def _sign(self, sign: int) -> list[dict[str, Any]]:
        """S1: the seat to act makes ``sign`` (or none, 0). The event holds the
        sign's catches, for :meth:`tells`; :meth:`events_for` never passes them on."""
        deal = self.deal
        seat, k = deal.to_act, deal.trick_index * NUM_SEATS + deal.to_act
        deal.sign(sign)
        self.version += 1
        return self._told([{"type": "sign", "seat": seat, "sign": sign,
                            "catches": int(deal.state.caught[k])}])

    def _play(self, card: int) -> list[dict[str, Any]]:
        deal = self.deal
        seat = deal.to_act
        before = self.last_trick
        event = deal.play(card)
        self.version += 1
        trick = None if event == CARD_PLAYED else deal.tricks[-1]
        cards = trick.cards if trick else deal.trick_cards
        leader = trick.leader if trick else deal.leader
        deal_over = event >= DEAL_DONE
        events: list[dict[str, Any]] = [{
            "type": "play", "seat": seat, "card": card, "leader": leader,
            # R10-R11 on the cards so far (None: they tie for highest).
            "winning": who(trick_winner(cards, leader)),
            "next": None if deal_over else deal.to_act,
        }]
        if trick is not None:
            self.last_trick = trick_view(trick)
            events.append({"type": "trick", **self.last_trick,
                           # R10-R11: the core's leader after the trick.
                           "next_leader": None if deal_over else deal.leader,
                           **tally(deal)})
            if deal_over:
                self.summary = self._summary(deal.record)
                events.append({"type": "deal_over", "summary": self.summary})
        return self._told(events, None if trick is None else (self.last_trick, before))

    def _summary(self, record) -> dict[str, Any]:
        """Why the deal went as it did, from the core (R13-R16: :func:`deal_reason`)."""
        score = record.score
        reason, tied_with = deal_reason(record)
        return {
            "deal": record.deal,
            "dealer": record.dealer,
            "trick_winners": [who(w) for w in record.trick_winners],
            "trick_counts": list(record.trick_counts),
            "winner": who(score.winner),
            "points": score.points,
            "mordienne": score.mordienne,
            "reason": reason,
            "tied_with": tied_with,
            "team_points": list(record.team_points),
            "match_points": list(self.match.points),
        }

    # ------------------------------------------------------ what the person asks

    def _check_version(self, version: int | None) -> None:
        if version is not None and version > self.version:
            raise StaleMove(f"version {version} is newer than the game's, {self.version}: no "
                            f"view of this game had it; nothing was changed; reload the game")
        if version is not None and version != self.version:
            raise StaleMove(f"this move was made on an older view of the game (version "
                            f"{version}, the game is at {self.version}): nothing was changed; "
                            f"reload the game")

    def _check_turn(self, seat: int) -> None:
        deal = self.deal
        if deal.done:
            raise GameError("the deal is over: ask for the next deal"
                            if not self.match.over else "the match is over: start a new match")
        if deal.to_act != seat or seat not in self.people:
            # counted from the reader, as every view counts the seats
            raise GameError(f"it is not your turn: player_{relative_seat(deal.to_act, seat)} is "
                            f"to play (seats counted from yours, player_0)")

    def check_sign(self, sign: object, version: int | None = None, seat: int = HUMAN) -> int:
        """``sign`` (0-9, 0: none) if the person at ``seat`` may make it now, else
        :class:`GameError`."""
        if not self.signs:
            raise GameError("this match is played without signs")
        try:
            sign = check_sign(sign)
        except ValueError as err:
            raise GameError(str(err)) from None
        self._check_version(version)
        self._check_turn(seat)
        if not self.deal.signing:
            raise GameError(f"you already made your sign: play a card now ({sign_name(sign)} "
                            f"was not made)")
        return sign

    def sign(self, sign: object, version: int | None = None,
             seat: int = HUMAN) -> list[dict[str, Any]]:
        """S1: the person at ``seat`` makes ``sign`` (1-9) or none (0) before their
        card; ``version`` as in :meth:`play`. A person who signs is no longer away."""
        if (version is not None and type(sign) is int
                and [version, seat, SIGN_BASE + sign] in self.recent):
            return []
        sign = self.check_sign(sign, version, seat)
        self.away.discard(seat)
        self._made(version, seat, SIGN_BASE + sign)
        return self._sign(sign)

    def check_play(self, card: object, version: int | None = None, seat: int = HUMAN) -> int:
        """``card`` if the person at ``seat`` may play it now, else :class:`GameError`."""
        if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < NUM_CARDS:
            raise GameError(f"card must be an integer card id 0-47, got {card!r}")
        self._check_version(version)
        deal = self.deal
        self._check_turn(seat)
        if deal.signing:
            raise GameError("make your sign first, or none (S1): then play a card")
        if card not in deal.hands[seat]:
            raise GameError(f"card {card} is not in your hand; legal: {deal.legal_cards()}")
        return card

    @property
    def ai_to_move(self) -> bool:
        """An AI seat (or an away person's stand-in) is to play: a move whose AI
        player failed (its worker process died) stopped there; :meth:`resume`
        plays on."""
        return not self.deal.done and self.seating.player_of(self.deal.to_act) is not None

    def resume(self) -> list[dict[str, Any]]:
        """The AI seats play up to a present person's turn or the deal's end (after
        a move stopped by a failed AI player); nothing when it is a person's turn."""
        return self._play_ai()

    def play(self, card: object, version: int | None = None,
             seat: int = HUMAN) -> list[dict[str, Any]]:
        """The person at ``seat`` plays ``card``; then the AIs play up to a
        person's next turn. With ``version``, only if the game is still at that
        version. A person who plays is no longer away."""
        if version is not None and [version, seat, card] in self.recent:
            return []  # a play sent again (its answer was lost): it was applied once
        card = self.check_play(card, version, seat)
        self.away.discard(seat)
        self._made(version, seat, card)
        return self._play(card) + self._play_ai()

    def _made(self, version: int | None, seat: int, move: int) -> None:
        self.recent = [*self.recent[-(NUM_SEATS * NUM_TRICKS - 1):], [version, seat, move]]

    def set_away(self, seat: int, away: bool) -> list[dict[str, Any]]:
        """The person at ``seat`` left (the stand-in plays for them from now
        on, this turn included) or came back; returns the moves this made."""
        if seat not in self.people:
            raise GameError(f"seat {seat} is not a person's seat; people sit at "
                            f"{sorted(self.people)}")
        if away and self.standin is None:
            raise GameError("this game has no stand-in AI for a person who leaves")
        if away == (seat in self.away):
            return []
        self.version += 1  # the others' pages show who is away, and it is kept
        if not away:
            self.away.discard(seat)
            return self._told([{"type": "back", "seat": seat}])
        self.away.add(seat)
        return self._told([{"type": "away", "seat": seat}]) + self._play_ai()

    def next_deal(self, version: int | None = None, seat: int = HUMAN) -> list[dict[str, Any]]:
        """The match's next deal. With ``version``, only if the game is still at
        that version; the same request sent again (its answer lost) changes
        nothing."""
        if version is not None and [version, seat, NEXT_DEAL] in self.recent:
            return []
        self._check_version(version)
        if not self.deal.done:
            raise GameError(f"the deal is still being played: "
                            f"trick {self.deal.trick_index + 1} of {NUM_TRICKS}")
        if self.match.over:
            raise GameError("the match is over: start a new match")
        self._made(version, seat, NEXT_DEAL)
        return self._new_deal()

    def new_match(self, version: int | None = None, seat: int = HUMAN) -> list[dict[str, Any]]:
        """R2: a new match clears the scores (allowed at any time). With
        ``version``, only if the game is still at that version; the same
        request sent again (its answer lost) changes nothing."""
        if version is not None and [version, seat, NEW_MATCH] in self.recent:
            return []
        self._check_version(version)
        self._made(version, seat, NEW_MATCH)
        return self._new_match()

    def may_start_match(self, seat: int | None) -> bool:
        """Whether the person at ``seat`` may start a new match: alone with AIs,
        always; at a table of people, only its host, so that nobody wipes the
        others' match (a spectator, never)."""
        return seat in self.people and (len(self.people) == 1 or seat == self.host)

    @property
    def started_by(self) -> int | None:
        """The person who started this match with :meth:`new_match`, while the
        people's latest moves still tell (None: the table's first match)."""
        return next((seat for _, seat, move in reversed(self.recent) if move == NEW_MATCH),
                    None)

    def set_player(self, seat: int, spec: str, player: Player) -> list[dict[str, Any]]:
        """Seat ``seat`` (an AI seat) is played by ``player`` from its next card on
        (with signs, silent unless it plays them: :meth:`seated`)."""
        if seat not in self.players:
            raise GameError(f"seat {seat} is not an AI seat; AI seats are "
                            f"{', '.join(map(str, sorted(self.players)))}")
        self.seating.set_player(seat, spec, player)
        # A change of the game like a move: written, seen by every process, and
        # a move chosen before it is stale.
        self.version += 1
        return self._told([{"type": "player", "seat": seat, "spec": spec}])

    def record(self, deals: int | None = None) -> dict[str, Any]:
        """The match record (:mod:`aluette_env.records`) of this match's finished
        deals (``deals``: of its first ones only); each AI seat is named by the
        spec it has now, each person's seat by "human" and the display name
        they were invited by, if any."""
        from aluette_env.records import HUMAN as PERSON, record_of
        players = [PERSON if s in self.people else self.specs[s] for s in range(NUM_SEATS)]
        names = {s: name for s, name in self.people.items() if name}
        return record_of(self.match.deals[:deals], self.match.first_dealer, players,
                         self.match.num_deals, names, self.variant)

    # ------------------------------------------------------- keeping a game

    def snapshot(self) -> dict[str, Any]:
        """The game as JSON-ready data (:func:`~.snapshots.snapshot_of`): the
        match record of its finished deals (:mod:`aluette_env.records`), the
        deal in progress (its hands as dealt and the plays so far), who sits
        where, and the counters. :meth:`restore` replays it through the rules."""
        return snapshot_of(self)

    @classmethod
    def restore(cls, snapshot: Mapping[str, Any], get_player: Callable[[str], Player],
                variant: Variant | None = None) -> GameSession:
        """The game of a :meth:`snapshot`, its every field checked and its
        finished deals the match that :func:`~aluette_env.records.load_match`
        replays from its record (:func:`~.snapshots.read_snapshot`), and the
        deal in progress played on through the rules
        (:func:`~.snapshots.check_in_progress`): a tampered snapshot raises
        ValueError (a :class:`~aluette_env.records.RecordError` for the
        record), whatever was changed in it. ``get_player`` raises ValueError
        for a spec it cannot make. The game is the one the snapshot names
        (:func:`~.snapshots.snapshot_variant`); ``variant``, if given, must be it."""
        saved = read_snapshot(snapshot, variant)
        game = cls({s: get_player(spec) for s, spec in saved.specs.items()}, saved.specs,
                   seed=saved.seed, people=saved.people, standin_spec=saved.standin,
                   standin=get_player(saved.standin) if saved.standin else None, start=False,
                   variant=saved.variant)
        game.match_number, game.match, current = saved.match_number, saved.match, saved.current
        if current is None:  # the last deal is over and shown with its last trick
            game.deal = game.match.deals[-1]
            game.last_trick = trick_view(game.deal.tricks[-1])
            game.summary = game._summary(game.deal.record)
        else:
            game._start_deal(current["hands"], None, current.get("caught"))
            game._replay(moves_of(current))
            check_in_progress(current, game.deal)
        game.seating.away = saved.away
        game.recent, game.version, game.opening_events = saved.recent, saved.version, []
        return game

    # ---------------------------------------------------------------- the view

    @property
    def in_progress(self) -> bool:
        """A match with a card played and not over: leaving it loses something."""
        return not self.match.over and (bool(self.match.history) or bool(self.deal.tricks)
                                         or bool(self.deal.trick_cards))

    def view(self, seat: int | None = HUMAN,
             finished: tuple[dict[str, Any], dict[str, Any] | None] | None = None
             ) -> dict[str, Any]:
        """Everything ``seat`` may know now, and nothing else: its own hand and
        what it may play, how many cards each seat holds, cards played, trick
        results, the tally and the scores; ``None``: a spectator's view, public
        information only. Seats are counted from ``seat`` (:func:`seen_from`):
        the viewer is always seat 0, south. ``finished``: the view of a trick
        just finished and still on the table (:meth:`following`)."""
        return seen_from(game_view(self, seat, finished), seat or 0)

    def events_for(self, events: list[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
        """The public ``events`` of a move as ``seat`` sees them
        (:func:`~.views.events_for`): of the signs, only those it saw
        (:meth:`tells`), with ``caught`` True for an opponent's it caught, and
        never who caught a sign."""
        return events_for(self.variant, events, seat)

    def tells(self, event: dict[str, Any], seat: int | None) -> bool:
        """Whether ``seat`` is told of ``event``: of a sign, only if it knows of it (S5)."""
        return tells(self.variant, event, seat)
