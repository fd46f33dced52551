"""The observation vector of one seat: layout, reference encoder and decoder.

One flat binary ``int8`` vector per seat, relative to the observing seat:
relative seat 0 is the observer, 1 the opponent on its left (next to play
clockwise), 2 its partner, 3 the opponent on its right. Every field is public
or belongs to the observer: nothing about other hands or the twelve unused
cards is in it.

========================  ======  ===============================================
slice (``SLICES[name]``)  size    meaning
========================  ======  ===============================================
``hand``                  48      cards in the observer's hand (= its action mask
                                  when it is to act, R9)
``trick``                 4 x 48  cards of the trick in progress, by relative seat
``played``                4 x 48  cards played in earlier tricks of this deal, by
                                  relative seat
``trick_winners``         9 x 5   each finished trick: won by relative seat 0-3,
                                  or column 4 = spoiled (R11)
``trick_counts``          4 x 9   tricks won, thermometer: column k = "at least
                                  k+1 tricks" (R13)
``reached``               4 x 9   one-hot trick index at which the seat reached
                                  its current count: decides ties (R14)
``won_a_trick``           4       seat has won a trick this deal (R16)
``in_run``                4       seat's wins are one run ending with the last
                                  trick: it can still make Mordienne (R16)
``leader``                4       relative seat leading the trick in progress
``to_act``                4       relative seat to play now
``trick_index``           9       one-hot index of the trick in progress
``dealer``                4       relative seat of the dealer
``deal``                  10      one-hot 0-based deal index in the match
``deals_left``            10      one-hot deals left including this one, minus 1
``points_own``            20      observer's team match points, thermometer
``points_opp``            20      other team's match points, thermometer
========================  ======  ===============================================

Fields describing the trick/deal in progress are all zero once the match is
over. ``OBS_VERSION`` changes whenever this layout or its meaning changes;
exported models record it.

``encode_observation`` computes one vector from scratch from the game core's
``Deal`` and ``Match``: it is the reference. ``IncrementalObservations`` keeps
the four seats' vectors up to date play by play for the PettingZoo env, and
the batched engine's numba kernel writes them for N games at once; both are
tested bit for bit against the reference.

May import: numpy and :mod:`aluette_env.game`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .game import NUM_CARDS, NUM_SEATS, NUM_TRICKS, Deal, Match, Trick

OBS_VERSION = 1
MAX_DEALS = 10  # the encoding has room for matches of up to ten deals
MAX_POINTS = 2 * MAX_DEALS

_FIELDS: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("hand", (NUM_CARDS,)),
    ("trick", (NUM_SEATS, NUM_CARDS)),
    ("played", (NUM_SEATS, NUM_CARDS)),
    ("trick_winners", (NUM_TRICKS, NUM_SEATS + 1)),
    ("trick_counts", (NUM_SEATS, NUM_TRICKS)),
    ("reached", (NUM_SEATS, NUM_TRICKS)),
    ("won_a_trick", (NUM_SEATS,)),
    ("in_run", (NUM_SEATS,)),
    ("leader", (NUM_SEATS,)),
    ("to_act", (NUM_SEATS,)),
    ("trick_index", (NUM_TRICKS,)),
    ("dealer", (NUM_SEATS,)),
    ("deal", (MAX_DEALS,)),
    ("deals_left", (MAX_DEALS,)),
    ("points_own", (MAX_POINTS,)),
    ("points_opp", (MAX_POINTS,)),
)


def _layout() -> tuple[dict[str, slice], dict[str, tuple[int, ...]], int]:
    slices, shapes, start = {}, {}, 0
    for name, shape in _FIELDS:
        size = int(np.prod(shape))
        slices[name] = slice(start, start + size)
        shapes[name] = shape
        start += size
    return slices, shapes, start


#: name -> slice of the flat vector; SHAPES[name] is the field's shape.
SLICES, SHAPES, OBS_SIZE = _layout()
#: Offsets of each field, for the incremental writers.
OFFSET = {name: s.start for name, s in SLICES.items()}
#: Row length of each field (its last dimension): field[r, k] is at OFFSET + r * ROW + k.
ROW = {name: shape[-1] for name, shape in SHAPES.items()}

#: The global state (``raw_env.state()``): all four hands by absolute seat,
#: the twelve unused cards, then player_0's public view (its observation
#: without its hand, which is already in the first block).
STATE_SIZE = NUM_SEATS * NUM_CARDS + NUM_CARDS + OBS_SIZE - NUM_CARDS


def relative(seat: int, observer: int) -> int:
    return (seat - observer) % NUM_SEATS


def encode_observation(deal: Deal, match: Match, observer: int,
                       out: np.ndarray | None = None) -> np.ndarray:
    """Observation vector of ``observer`` for a deal in progress of ``match``
    (or its last deal once the match is over), built from scratch."""
    v = np.zeros(OBS_SIZE, np.int8) if out is None else out
    if out is not None:
        v[:] = 0
    f = {name: v[s].reshape(SHAPES[name]) for name, s in SLICES.items()}
    rel = [relative(s, observer) for s in range(NUM_SEATS)]
    f["hand"][deal.hands[observer]] = 1
    for pos, card in enumerate(deal.trick_cards):
        f["trick"][rel[(deal.leader + pos) % NUM_SEATS], card] = 1
    for trick in deal.tricks:
        for pos, card in enumerate(trick.cards):
            f["played"][rel[(trick.leader + pos) % NUM_SEATS], card] = 1
        f["trick_winners"][trick.index,
                           NUM_SEATS if trick.winner is None else rel[trick.winner]] = 1
    for seat in range(NUM_SEATS):
        r = rel[seat]
        f["trick_counts"][r, :deal.counts[seat]] = 1
        if deal.counts[seat]:
            f["reached"][r, deal.reached[seat]] = 1
            f["won_a_trick"][r] = 1
        f["in_run"][r] = deal.in_run[seat]
    in_progress = not deal.done
    if in_progress:
        f["leader"][rel[deal.leader]] = 1
        f["to_act"][rel[deal.to_act]] = 1
        f["trick_index"][deal.trick_index] = 1
    f["dealer"][rel[deal.dealer]] = 1
    if not match.over:
        f["deal"][min(match.deal_index, MAX_DEALS - 1)] = 1
        f["deals_left"][min(match.num_deals - match.deal_index, MAX_DEALS) - 1] = 1
    own, opp = match.points[observer & 1], match.points[1 - (observer & 1)]
    f["points_own"][:min(own, MAX_POINTS)] = 1
    f["points_opp"][:min(opp, MAX_POINTS)] = 1
    return v


def encode_state(deal: Deal, match: Match, out: np.ndarray | None = None) -> np.ndarray:
    """The full-information global state (for centralised critics)."""
    v = np.zeros(STATE_SIZE, np.int8) if out is None else out
    hands = v[:NUM_SEATS * NUM_CARDS].reshape(NUM_SEATS, NUM_CARDS)
    hands[:] = 0
    for seat in range(NUM_SEATS):
        hands[seat, deal.hands[seat]] = 1
    unused = v[NUM_SEATS * NUM_CARDS:(NUM_SEATS + 1) * NUM_CARDS]
    unused[:] = 0
    unused[deal.unused] = 1
    v[(NUM_SEATS + 1) * NUM_CARDS:] = encode_observation(deal, match, 0)[NUM_CARDS:]
    return v


def _rel_name(r: int) -> str:
    return ("self", "left", "partner", "right")[r]


def decode_observation(vec: Sequence[int] | np.ndarray) -> dict[str, Any]:
    """Readable form of one observation vector: card ids, relative seats
    (0 self, 1 left, 2 partner, 3 right) and numbers. For people and tests."""
    v = np.asarray(vec)
    if v.shape != (OBS_SIZE,):
        raise ValueError(f"an observation has shape ({OBS_SIZE},) for OBS_VERSION "
                         f"{OBS_VERSION}, got {v.shape}")
    f = {name: v[s].reshape(SHAPES[name]) for name, s in SLICES.items()}

    def one(field: np.ndarray) -> int | None:
        idx = np.flatnonzero(field)
        return int(idx[0]) if len(idx) else None

    winners: list[int | None | str] = []
    for row in f["trick_winners"]:
        k = one(row)
        if k is None:
            break
        winners.append(None if k == NUM_SEATS else k)
    deal = one(f["deal"])
    left = one(f["deals_left"])
    return {
        "hand": [int(c) for c in np.flatnonzero(f["hand"])],
        "trick": {r: int(np.flatnonzero(f["trick"][r])[0])
                  for r in range(NUM_SEATS) if f["trick"][r].any()},
        "played": {r: [int(c) for c in np.flatnonzero(f["played"][r])] for r in range(NUM_SEATS)},
        "trick_winners": winners,
        "trick_counts": [int(f["trick_counts"][r].sum()) for r in range(NUM_SEATS)],
        "reached": [one(f["reached"][r]) for r in range(NUM_SEATS)],
        "won_a_trick": [bool(x) for x in f["won_a_trick"]],
        "in_run": [bool(x) for x in f["in_run"]],
        "leader": one(f["leader"]),
        "to_act": one(f["to_act"]),
        "trick_index": one(f["trick_index"]),
        "dealer": one(f["dealer"]),
        "deal": deal,
        "deals_left": None if left is None else left + 1,
        "points_own": int(f["points_own"].sum()),
        "points_opp": int(f["points_opp"].sum()),
        "seat_names": [_rel_name(r) for r in range(NUM_SEATS)],
    }


# ---------------------------------------------------------------------------- compiled reader

#: Card location codes written by :func:`read_view` (and used by the batched
#: engine's state, :mod:`aluette_env.vector.kernels`): 0-3 in that seat's hand
#: (a reader knows only its own, 0), ``UNSEEN`` not seen by the reader (another
#: hand or the twelve unused cards), ``IN_TRICK + seat`` in the trick in
#: progress, ``PLAYED + seat`` played in an earlier trick of this deal.
UNSEEN = NUM_SEATS
IN_TRICK = NUM_SEATS + 1
PLAYED = IN_TRICK + NUM_SEATS
#: A spoiled trick in ``trick_winners``: the field's last column (R11).
SPOILED_COLUMN = NUM_SEATS

_R_HAND = OFFSET["hand"]
_R_TRICK, _R_TRICK_ROW = OFFSET["trick"], ROW["trick"]
_R_PLAYED, _R_PLAYED_ROW = OFFSET["played"], ROW["played"]
_R_WINNERS, _R_WINNERS_ROW = OFFSET["trick_winners"], ROW["trick_winners"]
_R_COUNTS, _R_COUNTS_ROW = OFFSET["trick_counts"], ROW["trick_counts"]
_R_REACHED, _R_REACHED_ROW = OFFSET["reached"], ROW["reached"]
_R_RUN, _R_LEADER = OFFSET["in_run"], OFFSET["leader"]
_R_TRICK_INDEX, _R_TRICK_INDEX_LEN = OFFSET["trick_index"], ROW["trick_index"]


def read_view(row, cards, trick, winners, counts, reached, in_run):
    """One observation vector read into arrays, in relative seats (the reader
    is seat 0): the one reader of observations for players and search, written
    from this module's layout and compiled by numba where players need it
    (:mod:`aluette_env._jit`). Fills

    - ``cards`` [48]: each card's location code (0 in the reader's hand,
      ``UNSEEN``, ``IN_TRICK + seat``, ``PLAYED + seat``);
    - ``trick`` [4]: each seat's card in the trick in progress, -1 for none yet;
    - ``winners`` [9]: each finished trick's winning seat, ``SPOILED_COLUMN``
      for a spoiled trick, -1 for tricks not finished;
    - ``counts``, ``reached`` (-1: no trick yet) and ``in_run`` [4]: the tally;

    and returns ``(trick_index, leader)`` of the trick in progress (0 and 0
    once the match is over and those fields are empty)."""
    for r in range(NUM_SEATS):
        trick[r] = -1
    for c in range(NUM_CARDS):
        code = 0 if row[_R_HAND + c] == 1 else UNSEEN
        for r in range(NUM_SEATS):
            if row[_R_PLAYED + r * _R_PLAYED_ROW + c] == 1:
                code = PLAYED + r
            if row[_R_TRICK + r * _R_TRICK_ROW + c] == 1:
                code = IN_TRICK + r
                trick[r] = c
        cards[c] = code
    for k in range(NUM_TRICKS):
        winners[k] = -1
        for col in range(_R_WINNERS_ROW):
            if row[_R_WINNERS + k * _R_WINNERS_ROW + col] == 1:
                winners[k] = col
    for r in range(NUM_SEATS):
        n = 0
        reached[r] = -1
        for k in range(_R_COUNTS_ROW):
            n += row[_R_COUNTS + r * _R_COUNTS_ROW + k]
            if row[_R_REACHED + r * _R_REACHED_ROW + k] == 1:
                reached[r] = k
        counts[r] = n
        in_run[r] = row[_R_RUN + r] == 1
    t = 0
    for k in range(_R_TRICK_INDEX_LEN):
        if row[_R_TRICK_INDEX + k] == 1:
            t = k
    leader = 0
    for r in range(NUM_SEATS):
        if row[_R_LEADER + r] == 1:
            leader = r
    return t, leader


def read_match(row) -> tuple[int, int, int, int, int]:
    """The match context of one observation vector: (dealer's relative seat,
    0-based deal index, deals in the match, the reader's team's points, the
    other team's points); 0 for an empty field (the match is over)."""
    def first(name: str) -> int:
        hot = np.flatnonzero(np.asarray(row[SLICES[name]]))
        return int(hot[0]) if len(hot) else 0
    deal = first("deal")
    return (first("dealer"), deal, deal + first("deals_left") + 1,
            int(np.asarray(row[SLICES["points_own"]]).sum()),
            int(np.asarray(row[SLICES["points_opp"]]).sum()))


# ---------------------------------------------------------------------------- incremental

# Flat offsets in the (4, OBS_SIZE) buffer, indexed [seat][observer]: where
# the fields of "seat" sit in "observer"'s vector (relative seat order).
_REL = [[relative(s, o) for o in range(NUM_SEATS)] for s in range(NUM_SEATS)]


def _per_seat(field: str, stride: int = 1) -> list[list[int]]:
    return [[o * OBS_SIZE + OFFSET[field] + _REL[s][o] * stride for o in range(NUM_SEATS)]
            for s in range(NUM_SEATS)]


_TRICK = _per_seat("trick", ROW["trick"])
_PLAYED = _per_seat("played", ROW["played"])
_COUNTS = _per_seat("trick_counts", ROW["trick_counts"])
_REACHED = _per_seat("reached", ROW["reached"])
_WON = _per_seat("won_a_trick")
_IN_RUN = _per_seat("in_run")
_LEADER = _per_seat("leader")
_TO_ACT = _per_seat("to_act")
_DEALER = _per_seat("dealer")
_WINNERS = _per_seat("trick_winners")  # + trick_index * ROW (relative seat column)
_WINNERS_STRIDE = ROW["trick_winners"]
_SPOILED = [o * OBS_SIZE + OFFSET["trick_winners"] + SPOILED_COLUMN for o in range(NUM_SEATS)]
_TRICK_INDEX = [o * OBS_SIZE + OFFSET["trick_index"] for o in range(NUM_SEATS)]
_HAND = [o * OBS_SIZE + OFFSET["hand"] for o in range(NUM_SEATS)]
_BASE = [o * OBS_SIZE for o in range(NUM_SEATS)]
_QUIET_AT_MATCH_END = ("to_act", "leader", "trick_index", "deal", "deals_left")


class IncrementalObservations:
    """The four seats' observation vectors, updated play by play.

    ``obs`` is a ``(4, OBS_SIZE)`` int8 view of one bytearray, indexed by
    absolute seat; each call writes only the bytes a play changes, so an env
    step costs a few dozen byte writes instead of a full encoding. Equal to
    :func:`encode_observation` after every call (tested at every step).
    """

    def __init__(self) -> None:
        self.buf = bytearray(NUM_SEATS * OBS_SIZE)
        self.obs = np.frombuffer(self.buf, np.int8).reshape(NUM_SEATS, OBS_SIZE)

    def __getstate__(self) -> dict:
        return {"buf": self.buf}

    def __setstate__(self, state: dict) -> None:
        self.buf = state["buf"]
        self.obs = np.frombuffer(self.buf, np.int8).reshape(NUM_SEATS, OBS_SIZE)

    def start_deal(self, deal: Deal, match: Match) -> None:
        """Nothing played yet: hands, leader, dealer, deal index and match points."""
        buf = self.buf
        self.obs[:] = 0
        leader, dealer = deal.leader, deal.dealer
        k = match.deal_index
        for o in range(NUM_SEATS):
            base = _BASE[o]
            for card in deal.hands[o]:
                buf[base + card] = 1
            buf[_LEADER[leader][o]] = 1
            buf[_TO_ACT[leader][o]] = 1
            buf[_DEALER[dealer][o]] = 1
            buf[_TRICK_INDEX[o]] = 1
            buf[base + OFFSET["deal"] + min(k, MAX_DEALS - 1)] = 1
            buf[base + OFFSET["deals_left"] + min(match.num_deals - k, MAX_DEALS) - 1] = 1
            self._write_points(o, match.points)

    def play(self, seat: int, card: int, trick: Trick | None, deal: Deal) -> None:
        """``seat`` played ``card``; ``trick`` is the trick it completed (or None).
        ``deal`` is the deal after the play."""
        buf = self.buf
        buf[_HAND[seat] + card] = 0
        pos = _TRICK[seat]
        buf[pos[0] + card] = buf[pos[1] + card] = buf[pos[2] + card] = buf[pos[3] + card] = 1
        if trick is not None:
            self._trick_done(trick, deal)
        old, new = _TO_ACT[seat], _TO_ACT[deal.to_act]
        for o in range(NUM_SEATS):
            buf[old[o]] = 0
            buf[new[o]] = 1

    def _trick_done(self, trick: Trick, deal: Deal) -> None:
        buf = self.buf
        leader, i, w = trick.leader, trick.index, trick.winner
        seat = leader
        for card in trick.cards:
            t, p = _TRICK[seat], _PLAYED[seat]
            for o in range(NUM_SEATS):
                buf[t[o] + card] = 0
                buf[p[o] + card] = 1
            seat = (seat + 1) & 3
        if w is None:
            for o in range(NUM_SEATS):
                buf[_SPOILED[o] + _WINNERS_STRIDE * i] = 1
        else:
            n = deal.counts[w]
            for o in range(NUM_SEATS):
                buf[_WINNERS[w][o] + _WINNERS_STRIDE * i] = 1
                buf[_COUNTS[w][o] + n - 1] = 1
                buf[_REACHED[w][o] + i] = 1
                buf[_WON[w][o]] = 1
            if n > 1:
                prev = _REACHED[w]
                j = _previous_win(deal.trick_winners, w, i)
                for o in range(NUM_SEATS):
                    buf[prev[o] + j] = 0
            if w != leader:
                old, new = _LEADER[leader], _LEADER[w]
                for o in range(NUM_SEATS):
                    buf[old[o]] = 0
                    buf[new[o]] = 1
        in_run = deal.in_run
        for s in range(NUM_SEATS):
            v = in_run[s]
            r = _IN_RUN[s]
            buf[r[0]] = buf[r[1]] = buf[r[2]] = buf[r[3]] = v
        for o in range(NUM_SEATS):
            buf[_TRICK_INDEX[o] + i] = 0
            if i + 1 < NUM_TRICKS:
                buf[_TRICK_INDEX[o] + i + 1] = 1
        if i + 1 == NUM_TRICKS:  # no trick in progress any more
            for o in range(NUM_SEATS):
                buf[_LEADER[deal.leader][o]] = 0

    def end_match(self, match: Match) -> None:
        """Trick/deal-in-progress fields go quiet; the final score shows."""
        buf = self.buf
        for o in range(NUM_SEATS):
            base = _BASE[o]
            for name in _QUIET_AT_MATCH_END:
                start = base + OFFSET[name]
                n = SLICES[name].stop - SLICES[name].start
                buf[start:start + n] = bytes(n)
            self._write_points(o, match.points)

    def _write_points(self, o: int, points: Sequence[int]) -> None:
        buf, base = self.buf, _BASE[o]
        for name, value in (("points_own", points[o & 1]), ("points_opp", points[1 - (o & 1)])):
            start = base + OFFSET[name]
            n = min(value, MAX_POINTS)
            buf[start:start + MAX_POINTS] = b"\x01" * n + bytes(MAX_POINTS - n)


def _previous_win(trick_winners: Sequence[int | None], seat: int, now: int) -> int:
    """Trick index of ``seat``'s previous win before trick ``now``."""
    for j in range(now - 1, -1, -1):
        if trick_winners[j] == seat:
            return j
    raise AssertionError("a seat with two wins has an earlier win")
