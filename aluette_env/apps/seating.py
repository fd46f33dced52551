"""Who plays each seat of a game for people (:class:`Seating`): the people, by
seat, with the names they were invited by; the AI players of the other seats
and the specs that named them; the stand-in AI that plays for a person who is
away, and who is away now. It says who moves for a seat without being asked
(:meth:`Seating.player_of`) and asks that AI for its move
(:meth:`Seating.ai_action`), from the observation and mask its variant's env
would give it. It makes no move and checks no request: :class:`~.session.GameSession`
plays what the AIs choose and refuses what a person may not do.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from aluette_env.game import NUM_SEATS, Deal, Variant, write_legal
from aluette_env.observation import OBS_LAYOUT, observer
from aluette_env.players import Player, for_signs

HUMAN = 0  # the person plays player_0 (south), with player_2 (north) as partner (R1)
AI_SEATS = {"left": 1, "partner": 2, "right": 3}  # west, north, east: clockwise from south


class Seating:
    """The seats of a game of ``variant``. ``people`` maps the seats of people
    to their display names (default: seat 0 alone), ``players`` the other seats
    to their AI players and ``specs`` to the specs that named them; ``standin``
    (named by ``standin_spec``) plays for each person in :attr:`away`. At a
    table with signs, an AI player that does not play signs sits silent
    (:meth:`seated`)."""

    def __init__(self, variant: Variant, players: Mapping[int, Player],
                 specs: Mapping[int, str], people: Mapping[int, str] | None = None,
                 standin: Player | None = None, standin_spec: str = "ai"):
        if variant.obs_layout < OBS_LAYOUT:
            raise ValueError(f"variant {variant.env_id} gives observation layout "
                             f"{variant.obs_layout}; the AI players at a table read "
                             f"layout {OBS_LAYOUT} or more (aluette_v1, aluette_signs_v0)")
        self.variant = variant
        self._observer = observer(variant)
        self.people = dict(people) if people is not None else {HUMAN: ""}
        ai_seats = set(range(NUM_SEATS)) - set(self.people)
        if set(players) != ai_seats or not self.people:
            raise ValueError(f"AI players are needed for seats {sorted(ai_seats)} (the seats "
                             f"without a person), got {sorted(players)}")
        self.players = {s: self.seated(p) for s, p in players.items()}
        self.specs = dict(specs)
        self.standin, self.standin_spec = self.seated(standin), standin_spec
        self.away: set[int] = set()

    def seated(self, player: Player | None) -> Player | None:
        """``player`` at this table: with signs, silent unless it plays them."""
        return for_signs(player) if self.variant.signs and player is not None else player

    def set_player(self, seat: int, spec: str, player: Player) -> None:
        """AI seat ``seat`` is played by ``player`` (:meth:`seated`), named ``spec``."""
        self.players[seat] = self.seated(player)
        self.specs[seat] = spec

    @property
    def host(self) -> int:
        """The table's host: the person at the lowest seat (the page that
        invites its friends sits south, seat 0)."""
        return min(self.people)

    def player_of(self, seat: int) -> Player | None:
        """Who moves for ``seat`` without being asked: its AI, the stand-in of
        an away person, or None (a person, present)."""
        if seat in self.people:
            return self.standin if seat in self.away else None
        return self.players[seat]

    def ai_action(self, deal: Deal) -> int | None:
        """The action (a card, or a sign action) that the AI moving for the
        seat to act of ``deal`` (:meth:`player_of`) chooses, from the variant's
        observation and mask as its env gives them; None when the deal is over
        or a present person is to act."""
        if deal.done or (player := self.player_of(deal.to_act)) is None:
            return None
        obs = self._observer.encode(deal.state, deal.to_act)
        mask = np.zeros(self.variant.num_actions, np.int8)
        write_legal(deal.state, deal.to_act, mask)
        return int(player.act(obs, mask))

    def new_deal(self) -> None:
        """Each AI player (and the stand-in) starts the next deal afresh."""
        for player in [*self.players.values(), self.standin]:
            reset = getattr(player, "reset", None)
            if reset is not None:
                reset(None)
