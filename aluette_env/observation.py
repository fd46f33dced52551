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

The PettingZoo env keeps these vectors up to date incrementally; the batched
engine writes them with array operations. ``encode_observation`` computes one
from scratch from the rules objects and is the reference both are tested
against.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .cards import NUM_CARDS
from .rules import NUM_SEATS, NUM_TRICKS, Deal, Match

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
        f["trick_winners"][trick.index, NUM_SEATS if trick.winner is None else rel[trick.winner]] = 1
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
