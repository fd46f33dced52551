"""One person's game in the browser: a five-deal match of :mod:`aluette_env.game`
with AI players in the other three seats, and the view of it that the person's
seat (player_0, south) may know.

No web import here: the server parses requests and calls :class:`GameSession`;
everything the browser receives is built by :meth:`GameSession.view` and the
events its moves return, which name only public facts (cards played in this
deal, trick winners, the tally, scores) and the person's own hand. Rules are never
restated: dealing, tricks, the tally and scoring all come from the game core;
the AI seats see the reference observation encoder's vector.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Mapping

import numpy as np

from aluette_env.game import (
    NUM_CARDS, NUM_SEATS, STRENGTH, Deal, Match, deal_cards, leading_seat, reach_order,
    trick_winner,
)
from aluette_env.observation import encode_observation
from aluette_env.players import Player

HUMAN = 0  # the person plays player_0 (south), with player_2 (north) as partner (R1)
AI_SEATS = {"left": 1, "partner": 2, "right": 3}  # west, north, east: clockwise from south


class GameError(ValueError):
    """A request the game cannot take in its state; the message names why.
    Raised before anything changes."""


class GameSession:
    """A match between the person (seat 0) and three AI players.

    ``players`` maps the AI seats 1-3 to players and ``specs`` to the specs
    that named them. Each call that moves the game returns the list of public
    events it produced, in order, so the page can show the AI cards one at a
    time at the person's chosen pace.
    """

    def __init__(self, players: Mapping[int, Player], specs: Mapping[int, str],
                 seed: int | None = None):
        if set(players) != {1, 2, 3}:
            raise ValueError(f"AI players are needed for seats 1, 2 and 3, got {sorted(players)}")
        self.players = dict(players)
        self.specs = dict(specs)
        self.rng = random.Random(seed)
        self.match_number = 0
        #: The events of dealing the first deal (the AIs before the person play).
        self.opening_events = self._new_match()

    # ---------------------------------------------------------------- the game

    def _new_match(self) -> list[dict[str, Any]]:
        self.match_number += 1
        # R2/R6: any seat may deal first; the match rotates it from there.
        self.match = Match(first_dealer=self.rng.randrange(NUM_SEATS))
        return self._new_deal()

    def _new_deal(self) -> list[dict[str, Any]]:
        deck = list(range(NUM_CARDS))
        self.rng.shuffle(deck)
        hands, unused = deal_cards(deck, self.match.dealer)  # R5
        self.deal = Deal(hands, self.match.dealer, unused)
        self.summary: dict[str, Any] | None = None
        # The last trick of this deal only: a card of an earlier deal may be in
        # another seat's hand now, and the view names only this deal's cards.
        self.last_trick: dict[str, Any] | None = None
        for player in self.players.values():
            reset = getattr(player, "reset", None)
            if reset is not None:
                reset(None)
        events = [{"type": "deal", "number": self.match.deal_index + 1,
                   "of": self.match.num_deals, "dealer": self.deal.dealer,
                   "leader": self.deal.leader}]
        return events + self._play_ai()

    def _play_ai(self) -> list[dict[str, Any]]:
        """AI seats play until it is the person's turn or the deal is over."""
        events: list[dict[str, Any]] = []
        deal = self.deal
        while not deal.done and deal.to_act != HUMAN:
            seat = deal.to_act
            obs = encode_observation(deal, self.match, seat)
            mask = np.zeros(NUM_CARDS, np.int8)
            mask[deal.hands[seat]] = 1
            card = int(self.players[seat].act(obs, mask))
            events.extend(self._play(card))
        return events

    def _play(self, card: int) -> list[dict[str, Any]]:
        deal = self.deal
        seat = deal.to_act
        trick = deal.play(card)
        events: list[dict[str, Any]] = [{
            "type": "play", "seat": seat, "card": card,
            # R10-R11 on the cards so far (None: they tie for highest).
            "winning": trick_winner(trick.cards if trick else deal.trick_cards,
                                    trick.leader if trick else deal.leader),
            "next": None if deal.done else deal.to_act,
        }]
        if trick is not None:
            self.last_trick = _trick_view(trick)
            events.append({"type": "trick", **self.last_trick, **_tally(deal)})
            if deal.done:
                record = self.match.record(deal)
                self.summary = self._summary(record)
                events.append({"type": "deal_over", "summary": self.summary})
        return events

    def _summary(self, record) -> dict[str, Any]:
        """Why the deal went as it did, from the core's score (R13-R16)."""
        score = record.score
        counts = list(record.trick_counts)
        reason = "all_spoiled"
        tied_with: list[int] = []
        if score.winner is not None:
            tied_with = [s for s in range(NUM_SEATS)
                         if s != score.winner and counts[s] == counts[score.winner]]
            reason = "mordienne" if score.mordienne else (
                "first_to_reach" if tied_with else "most_tricks")
        return {
            "deal": record.deal,
            "dealer": record.dealer,
            "trick_winners": list(record.trick_winners),
            "trick_counts": counts,
            "winner": score.winner,
            "points": score.points,
            "mordienne": score.mordienne,
            "reason": reason,
            "tied_with": tied_with,
            "team_points": list(record.team_points),
            "match_points": list(self.match.points),
        }

    # ------------------------------------------------------ what the person asks

    def play(self, card: object) -> list[dict[str, Any]]:
        """The person plays ``card``; then the AIs play up to the person's next turn."""
        if isinstance(card, bool) or not isinstance(card, int):
            raise GameError(f"card must be an integer card id 0-47, got {card!r}")
        deal = self.deal
        if deal.done:
            raise GameError("the deal is over: ask for the next deal"
                            if not self.match.over else "the match is over: start a new match")
        if deal.to_act != HUMAN:
            raise GameError(f"it is not your turn: player_{deal.to_act} is to play")
        if card not in deal.hands[HUMAN]:
            raise GameError(f"card {card} is not in your hand; legal: {deal.legal_cards()}")
        return self._play(card) + self._play_ai()

    def next_deal(self) -> list[dict[str, Any]]:
        if not self.deal.done:
            raise GameError(f"the deal is still being played: "
                            f"trick {self.deal.trick_index + 1} of 9")
        if self.match.over:
            raise GameError("the match is over: start a new match")
        return self._new_deal()

    def new_match(self) -> list[dict[str, Any]]:
        """R2: a new match clears the scores (allowed at any time)."""
        return self._new_match()

    def set_player(self, seat: int, spec: str, player: Player) -> list[dict[str, Any]]:
        """Seat ``seat`` (1-3) is played by ``player`` from its next card on."""
        if seat not in self.players:
            raise GameError(f"seat {seat} is not an AI seat; AI seats are 1, 2, 3")
        self.players[seat] = player
        self.specs[seat] = spec
        return [{"type": "player", "seat": seat, "spec": spec}]

    # ---------------------------------------------------------------- the view

    def view(self) -> dict[str, Any]:
        """Everything seat 0 may know now, and nothing else: its own hand,
        cards played, trick results, the tally and the scores."""
        deal, match = self.deal, self.match
        current = None
        if deal.trick_cards:
            cards = list(deal.trick_cards)
            current = {
                "leader": deal.leader,
                "plays": [{"seat": (deal.leader + k) % NUM_SEATS, "card": c}
                          for k, c in enumerate(cards)],
                # R10-R11 on the cards so far: the seat ahead, or None when they tie.
                "winning": trick_winner(cards, deal.leader),
            }
        hand = sorted(deal.hands[HUMAN], key=lambda c: (-STRENGTH[c], c))
        your_turn = not deal.done and deal.to_act == HUMAN
        return {
            "match": _match_view(self),
            "deal": {
                "number": match.deal_index + (0 if deal.done else 1),
                "of": match.num_deals,
                "dealer": deal.dealer,
                "trick": min(deal.trick_index + 1, 9),
                "leader": deal.leader,
                "to_act": None if deal.done else deal.to_act,
                "done": deal.done,
            },
            "hand": hand,
            "legal": sorted(deal.legal_cards()) if your_turn else [],
            "your_turn": your_turn,
            "current_trick": current,
            "last_trick": self.last_trick,
            "tricks_played": [_trick_view(t) for t in deal.tricks],
            **_tally(deal),
            "summary": self.summary,
            "players": {str(s): self.specs[s] for s in sorted(self.specs)},
        }


def _match_view(game: GameSession) -> dict[str, Any]:
    match = game.match
    return {
        "number": game.match_number,
        "points": list(match.points),
        "over": match.over,
        "winner": match.winner() if match.over else None,  # team 0 (you) / 1 / None draw
        "history": [
            {"deal": r.deal, "winner": r.score.winner, "points": list(r.team_points),
             "mordienne": r.score.mordienne}
            for r in match.history
        ],
    }


def _tally(deal: Deal) -> dict[str, Any]:
    """The deal's tally as the core keeps it (R13-R16), for the page."""
    return {
        "counts": list(deal.counts),
        "reached": [r if r >= 0 else None for r in deal.reached],
        "reach_order": reach_order(deal.counts, deal.reached),  # R13-R14, best first
        "leading": leading_seat(deal.counts, deal.reached),
        # R16: seats whose wins are one run ending with the last trick.
        "mordienne_run": [{"seat": s, "length": deal.counts[s]}
                          for s in range(NUM_SEATS) if deal.in_run[s]],
    }


def _trick_view(trick) -> dict[str, Any]:
    return {
        "index": trick.index,
        "leader": trick.leader,
        "plays": [{"seat": (trick.leader + k) % NUM_SEATS, "card": c}
                  for k, c in enumerate(trick.cards)],
        "winner": trick.winner,
    }


def new_session(specs: Mapping[int, str], get_player: Callable[[str], Player],
                seed: int | None = None) -> GameSession:
    """A session whose AI seats are the players named by ``specs`` (seat -> spec)."""
    return GameSession({s: get_player(spec) for s, spec in specs.items()}, specs, seed)
