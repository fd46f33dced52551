"""The env's incremental writer: the four seats' observation vectors kept equal
to :func:`~aluette_env.observation.write_view` play by play, each step
rewriting only the fields that the step's event says changed.

May import: numpy and :mod:`aluette_env.game`.
"""

from __future__ import annotations

import numpy as np

from ..game import CARD_PLAYED, NUM_CARDS, NUM_SEATS, NUM_TRICKS, TRICK_DONE, relative_seat, team_of
from ..game.state import PLAYED
from .layout import (
    _HISTORY_ROW, _POINTS_OPP, _POINTS_OWN, _REACHED_ROW, _WINNERS_ROW, MAX_DEALS, MAX_POINTS,
    OBS_SIZE, OFFSET, ROW, SLICES, SPOILED_COLUMN,
)


# Flat offsets in the (4, OBS_SIZE) buffer, indexed [seat][observer]: where
# the fields of "seat" sit in "observer"'s vector (relative seat order).


def _per_seat(field: str, stride: int = 1) -> list[list[int]]:
    return [[o * OBS_SIZE + OFFSET[field] + relative_seat(s, o) * stride
             for o in range(NUM_SEATS)] for s in range(NUM_SEATS)]


def _per_observer(field: str) -> list[int]:
    return [o * OBS_SIZE + OFFSET[field] for o in range(NUM_SEATS)]


_I_TRICK = _per_seat("trick", ROW["trick"])
_I_PLAYED = _per_seat("played", ROW["played"])
_I_COUNTS = _per_seat("trick_counts", ROW["trick_counts"])
_I_REACHED = _per_seat("reached", ROW["reached"])
_I_WON = _per_seat("won_a_trick")
_I_IN_RUN = _per_seat("in_run")
_I_LEADER = _per_seat("leader")
_I_TO_ACT = _per_seat("to_act")
_I_DEALER = _per_seat("dealer")
_I_WINNERS = _per_seat("trick_winners")
_I_SPOILED = [base + SPOILED_COLUMN for base in _per_observer("trick_winners")]
#: One-hot fields by value: [value][observer] positions (see :func:`_show`).
_I_WINNER_AT = [[[p + _WINNERS_ROW * i for p in _I_WINNERS[w]] for w in range(NUM_SEATS)]
                for i in range(NUM_TRICKS)]  # [trick][winner]
_I_SPOILED_AT = [[p + _WINNERS_ROW * i for p in _I_SPOILED] for i in range(NUM_TRICKS)]
_I_TRICK_AT = [[p + t for p in _per_observer("trick_index")] for t in range(NUM_TRICKS)]
_I_DEAL_AT = [[p + k for p in _per_observer("deal")] for k in range(MAX_DEALS)]
_I_DEALS_LEFT_AT = [[p + k for p in _per_observer("deals_left")] for k in range(MAX_DEALS)]
_I_REACHED_AT = [[[p + k for p in _I_REACHED[s]] for k in range(_REACHED_ROW)]
                 for s in range(NUM_SEATS)]  # [seat][trick index]
_I_HAND = _per_observer("hand")
_I_HISTORY = _per_observer("history")  # + trick_index * ROW + card
_BASE = [o * OBS_SIZE for o in range(NUM_SEATS)]
#: The points fields' bytes for each count: a thermometer.
_THERMOMETER = [b"\x01" * n + bytes(MAX_POINTS - n) for n in range(MAX_POINTS + 1)]


class IncrementalObservations:
    """The four seats' observation vectors of one game state, kept equal to
    :func:`write_view` play by play for the PettingZoo env.

    ``obs`` is a ``(4, OBS_SIZE)`` int8 view of one bytearray, indexed by
    absolute seat. After each step the step's event
    (:func:`~aluette_env.game.state.step`) says which fields changed, and
    those are written again from the state record, at the layout's positions:
    the card's own entries after any play; after a trick its four cards, its
    winner, the tally and the fields of the trick in progress; after a deal the
    match fields too, each against what the writer last put there. Nothing is
    worked out here: who leads, who reached what, whether the deal or the
    match is over are read from the state. Equal to :func:`write_view` after
    every call (tested at every step).
    """

    def __init__(self, width: int = OBS_SIZE) -> None:
        self.buf = bytearray(NUM_SEATS * OBS_SIZE)
        self.width = int(width)
        self._views()
        self._forget()

    def _views(self) -> None:
        """``obs``, and per seat its vector's first ``width`` entries (``seats``)
        and its hand's entries (``hands``): views of ``buf``, made once, so that
        a seat's observation costs one copy."""
        self.obs = np.frombuffer(self.buf, np.int8).reshape(NUM_SEATS, OBS_SIZE)
        self.seats = [self.obs[s, :self.width] for s in range(NUM_SEATS)]
        self.hands = [self.obs[s, SLICES["hand"]] for s in range(NUM_SEATS)]

    def _forget(self) -> None:
        """What the fields say, as last written (-1: nothing; the values an
        all-zero view says), so that a diff with the state writes only what
        differs."""
        self.leader = self.to_act = self.trick_index = self.deal = self.deals_left = -1
        self.counts = [0] * NUM_SEATS
        self.reached = [-1] * NUM_SEATS
        self.in_run = [0] * NUM_SEATS

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("obs", "seats", "hands")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._views()

    def start_deal(self, g) -> None:
        """The views of a deal just dealt into the state ``g``, nothing played:
        the hands, the dealer, the trick in progress and the match."""
        buf = self.buf
        self.obs[:] = 0
        self._forget()
        card_state = g.card_state
        for c in range(NUM_CARDS):
            code = card_state[c]
            if code < NUM_SEATS:
                buf[_I_HAND[code] + c] = 1
        _show(buf, _I_DEALER, -1, g.dealer)
        self._turn(g)
        self._match(g)

    def play(self, g, seat: int, card: int, event: int) -> None:
        """``seat`` played ``card``: ``g`` is the state after the step, ``event``
        the step's event."""
        buf = self.buf
        buf[_I_HAND[seat] + card] = 0
        at = g.card_trick[card] * _HISTORY_ROW + card
        hist = _I_HISTORY
        buf[hist[0] + at] = buf[hist[1] + at] = buf[hist[2] + at] = buf[hist[3] + at] = 1
        if event == CARD_PLAYED:  # the card joined the trick; the next seat acts
            pos = _I_TRICK[seat]
            buf[pos[0] + card] = buf[pos[1] + card] = buf[pos[2] + card] = buf[pos[3] + card] = 1
            _show(buf, _I_TO_ACT, self.to_act, g.to_act)
            self.to_act = g.to_act
            return
        self._trick(g)
        self._turn(g)
        if event != TRICK_DONE:
            self._match(g)

    def _trick(self, g) -> None:
        """The trick just finished: its cards (now played), its winner and the tally."""
        buf = self.buf
        for card in g.trick_cards:
            s = g.card_state[card] - PLAYED
            t, p = _I_TRICK[s], _I_PLAYED[s]
            buf[t[0] + card] = buf[t[1] + card] = buf[t[2] + card] = buf[t[3] + card] = 0
            buf[p[0] + card] = buf[p[1] + card] = buf[p[2] + card] = buf[p[3] + card] = 1
        i = g.trick_index - 1
        w = g.trick_winners[i]
        p = _I_SPOILED_AT[i] if w < 0 else _I_WINNER_AT[i][w]
        buf[p[0]] = buf[p[1]] = buf[p[2]] = buf[p[3]] = 1
        counts, reached, in_run = self.counts, self.reached, self.in_run
        for s in range(NUM_SEATS):
            n, old = g.counts[s], counts[s]
            if n != old:  # the thermometer's entries between the two counts
                c, v = _I_COUNTS[s], 1 if n > old else 0
                for k in range(min(n, old), max(n, old)):
                    buf[c[0] + k] = buf[c[1] + k] = buf[c[2] + k] = buf[c[3] + k] = v
                if (n == 0) != (old == 0):
                    _flag(buf, _I_WON[s], 1 if n else 0)
                counts[s] = n
            at = g.reached[s] if n else -1
            if at != reached[s]:
                _show(buf, _I_REACHED_AT[s], reached[s], at)
                reached[s] = at
            run = 1 if g.in_run[s] else 0
            if run != in_run[s]:
                _flag(buf, _I_IN_RUN[s], run)
                in_run[s] = run

    def _turn(self, g) -> None:
        """Leader, seat to act and trick index of the trick in progress (empty
        once the deal is over)."""
        buf = self.buf
        live = g.trick_index < NUM_TRICKS
        leader, to_act, t = (g.leader, g.to_act, g.trick_index) if live else (-1, -1, -1)
        if leader != self.leader:
            _show(buf, _I_LEADER, self.leader, leader)
            self.leader = leader
        if to_act != self.to_act:
            _show(buf, _I_TO_ACT, self.to_act, to_act)
            self.to_act = to_act
        _show(buf, _I_TRICK_AT, self.trick_index, t)
        self.trick_index = t

    def _match(self, g) -> None:
        """Deal index, deals left (empty once the match is over) and the points."""
        buf = self.buf
        k = g.deal_index
        deal, left = (-1, -1) if g.over else \
            (min(k, MAX_DEALS - 1), min(g.num_deals - k, MAX_DEALS) - 1)
        _show(buf, _I_DEAL_AT, self.deal, deal)
        _show(buf, _I_DEALS_LEFT_AT, self.deals_left, left)
        self.deal, self.deals_left = deal, left
        points = g.points
        for o in range(NUM_SEATS):
            base = _BASE[o]
            team = team_of(o)
            own, opp = base + _POINTS_OWN, base + _POINTS_OPP
            buf[own:own + MAX_POINTS] = _THERMOMETER[min(points[team], MAX_POINTS)]
            buf[opp:opp + MAX_POINTS] = _THERMOMETER[min(points[1 - team], MAX_POINTS)]


def _flag(buf: bytearray, p: list[int], value: int) -> None:
    """A flag of the four views (positions ``p``, one per observer) set to ``value``."""
    buf[p[0]] = buf[p[1]] = buf[p[2]] = buf[p[3]] = value


def _show(buf: bytearray, places: list[list[int]], old: int, new: int) -> None:
    """A one-hot field in the four views: ``places[value]`` are its positions
    for ``value``; clears the entry of ``old`` and sets that of ``new`` (-1:
    none)."""
    if old >= 0:
        p = places[old]
        buf[p[0]] = buf[p[1]] = buf[p[2]] = buf[p[3]] = 0
    if new >= 0:
        p = places[new]
        buf[p[0]] = buf[p[1]] = buf[p[2]] = buf[p[3]] = 1
