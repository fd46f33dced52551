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
``history``               9 x 48  the cards played in each trick of this deal
                                  (the trick in progress included), by trick
                                  index (version 2)
========================  ======  ===============================================

Fields describing the trick/deal in progress are all zero once the match is
over. ``OBS_VERSION`` changes whenever this layout or its meaning changes;
exported models record it.

**Perfect recall (version 2).** ``history`` says in which trick every card of
this deal was played; with the seat of each card (``trick``, ``played``), the
first leader (R6, from ``dealer``) and each trick's winner (R10-R11, from
``trick_winners``), the whole order of play is rebuilt, each card with its
seat: two different histories of a deal never give a seat the same vector
(``decode_observation(vec)["history"]`` rebuilds it). Earlier deals of the
match are summed up by the match fields (points, deal index): their cards
say nothing about the hands of this deal, which is dealt anew.

**Versions.** A version's fields are a prefix of the next one's: version 1
is the first ``obs_size(1)`` (638) entries, the fields above ``history``.
A model records the version it was trained on, and its loader gives it that
prefix (``observation[..., :obs_size(version)]``), so every shipped model
plays as it did.

**One writer.** :func:`write_view` writes a seat's vector from the game's
state record (:mod:`aluette_env.game.state`): the reference encoder
(:func:`encode_observation`, from a ``Deal``) and the batched
engine's kernel (compiled by numba) both call it. ``IncrementalObservations``
keeps the four seats' vectors of the PettingZoo env equal to it play by play,
rewriting from the state the fields that the step's event says changed;
the readers (:func:`read_view` from a vector, :func:`read_state` from the
engine's state) fill the same arrays. All of them take their positions from
the one layout declaration below, and the tests pin each to the reference
bit for bit.

May import: numpy and :mod:`aluette_env.game`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from .game import (
    CARD_PLAYED, HAND_SIZE, NOBODY, NUM_CARDS, NUM_SEATS, NUM_SIGNS, NUM_TRICKS, NUM_UNUSED,
    SIGN_PHASE, TRICK_DONE, Deal, Variant, first_leader, relative_seat, sees_sign, team_of,
)
from .game.state import IN_TRICK, PLAYED, UNUSED, order_of_play, played_by

OBS_VERSION = 2
#: The signs variant's observation (S5): version 2's, then the signs block.
SIGNS_OBS_VERSION = 3
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
    ("history", (NUM_TRICKS, NUM_CARDS)),
)
#: The first field each version added: version v is every field before
#: VERSION_ENDS_BEFORE[v] (None: all of them).
VERSION_ENDS_BEFORE = {1: "history", 2: None}


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


def obs_size(version: int) -> int:
    """Length of an observation of ``version`` (1 to OBS_VERSION): the prefix of
    today's vector that a model of that version reads; ``SIGNS_OBS_VERSION``
    (3): the signs variant's vector, version 2's followed by the signs block."""
    if version == SIGNS_OBS_VERSION:
        return SIGNS_OBS_SIZE
    if version not in VERSION_ENDS_BEFORE:
        raise ValueError(f"no observation version {version!r}; versions are "
                         f"{sorted(VERSION_ENDS_BEFORE) + [SIGNS_OBS_VERSION]}")
    end = VERSION_ENDS_BEFORE[version]
    return OBS_SIZE if end is None else SLICES[end].start

#: Offsets of each field, for the incremental writers.
OFFSET = {name: s.start for name, s in SLICES.items()}
#: Row length of each field (its last dimension): field[r, k] is at OFFSET + r * ROW + k.
ROW = {name: shape[-1] for name, shape in SHAPES.items()}


def state_size(version: int) -> int:
    """Length of the global state (``raw_env.state()``) of observation ``version``:
    all four hands by absolute seat, the twelve unused cards, then player_0's
    public view (its observation without its hand, which is already in the first
    block). A version's state is a prefix of the next one's, as its observation is."""
    return NUM_SEATS * NUM_CARDS + NUM_CARDS + obs_size(version) - NUM_CARDS


STATE_SIZE = state_size(OBS_VERSION)


#: A spoiled trick in ``trick_winners``: the field's last column (R11).
SPOILED_COLUMN = NUM_SEATS

#: The signs variant's observation (S5): version 2's vector (OBS_SIZE entries),
#: then this block (SIGNS_OBS_VERSION). The default game's vector never has it.
_SIGN_FIELDS: tuple[tuple[str, tuple[int, ...]], ...] = (
    # 1: someone is making a sign (the seat to act, before its card; S1)
    ("signing", (1,)),
    # one-hot sign 1-9 (column sign - 1) that each relative seat made in each
    # trick of this deal, where the observer saw it: its own, its partner's,
    # and the opponents' it caught (S5). Zeros: silence, not yet, or unseen.
    ("signs", (NUM_TRICKS, NUM_SEATS, NUM_SIGNS)),
)
SIGN_SLICES: dict[str, slice] = {}
SIGN_SHAPES: dict[str, tuple[int, ...]] = {}
_start = OBS_SIZE
for _name, _shape in _SIGN_FIELDS:
    SIGN_SLICES[_name] = slice(_start, _start + int(np.prod(_shape)))
    SIGN_SHAPES[_name] = _shape
    _start = SIGN_SLICES[_name].stop
#: Length of the signs variant's observation.
SIGNS_OBS_SIZE = _start
_SIGNING = SIGN_SLICES["signing"].start
_SIGNS = SIGN_SLICES["signs"].start

# Each field's offset and row length, as module constants (numba folds them).
_HAND = OFFSET["hand"]
_TRICK, _TRICK_ROW = OFFSET["trick"], ROW["trick"]
_PLAYED, _PLAYED_ROW = OFFSET["played"], ROW["played"]
_WINNERS, _WINNERS_ROW = OFFSET["trick_winners"], ROW["trick_winners"]
_COUNTS, _COUNTS_ROW = OFFSET["trick_counts"], ROW["trick_counts"]
_REACHED, _REACHED_ROW = OFFSET["reached"], ROW["reached"]
_WON, _RUN = OFFSET["won_a_trick"], OFFSET["in_run"]
_LEADER, _TO_ACT = OFFSET["leader"], OFFSET["to_act"]
_TRICK_INDEX, _DEALER = OFFSET["trick_index"], OFFSET["dealer"]
_DEAL, _DEALS_LEFT = OFFSET["deal"], OFFSET["deals_left"]
_POINTS_OWN, _POINTS_OPP = OFFSET["points_own"], OFFSET["points_opp"]
_HISTORY, _HISTORY_ROW = OFFSET["history"], ROW["history"]


def write_view(g, observer, row) -> None:
    """The one writer: ``observer``'s observation vector of the game state ``g``
    (a :class:`~aluette_env.game.state.GameState` or a record of the batched
    engine) into ``row`` (int8 [OBS_SIZE]). Compiled by numba for the engine
    (:mod:`aluette_env._jit`); :func:`encode_observation` calls it as Python."""
    row[:] = 0
    for c in range(NUM_CARDS):
        code = int(g.card_state[c])
        if code == observer:
            row[_HAND + c] = 1
        elif code >= PLAYED:
            row[_PLAYED + relative_seat(code - PLAYED, observer) * _PLAYED_ROW + c] = 1
        elif code >= IN_TRICK:
            row[_TRICK + relative_seat(code - IN_TRICK, observer) * _TRICK_ROW + c] = 1
        if code >= IN_TRICK:
            row[_HISTORY + int(g.card_trick[c]) * _HISTORY_ROW + c] = 1
    t_now = int(g.trick_index)
    for t in range(t_now):
        w = int(g.trick_winners[t])
        col = SPOILED_COLUMN if w < 0 else relative_seat(w, observer)
        row[_WINNERS + t * _WINNERS_ROW + col] = 1
    for s in range(NUM_SEATS):
        r = relative_seat(s, observer)
        n = int(g.counts[s])
        for k in range(n):
            row[_COUNTS + r * _COUNTS_ROW + k] = 1
        if n > 0:
            row[_REACHED + r * _REACHED_ROW + int(g.reached[s])] = 1
            row[_WON + r] = 1
        if g.in_run[s] != 0:
            row[_RUN + r] = 1
    row[_DEALER + relative_seat(int(g.dealer), observer)] = 1
    if t_now < NUM_TRICKS:
        row[_LEADER + relative_seat(int(g.leader), observer)] = 1
        row[_TO_ACT + relative_seat(int(g.to_act), observer)] = 1
        row[_TRICK_INDEX + t_now] = 1
    if not g.over:
        k = int(g.deal_index)
        row[_DEAL + min(k, MAX_DEALS - 1)] = 1
        row[_DEALS_LEFT + min(int(g.num_deals) - k, MAX_DEALS) - 1] = 1
    team = team_of(observer)
    for k in range(min(int(g.points[team]), MAX_POINTS)):
        row[_POINTS_OWN + k] = 1
    for k in range(min(int(g.points[1 - team]), MAX_POINTS)):
        row[_POINTS_OPP + k] = 1


def write_signs(g, observer, row) -> None:
    """S5: the signs block of ``observer``'s vector (SIGNS_OBS_VERSION) from the
    state ``g`` into ``row`` (int8 [SIGNS_OBS_SIZE]; :func:`write_view` writes the
    rest): every sign of the deal the observer saw, by trick and relative seat,
    and whether the seat to act is making its sign. Never a sign it did not see,
    nor who caught its own. ``observer`` -1: every sign, by absolute seat (the
    global state of a central critic)."""
    for k in range(_SIGNING, SIGNS_OBS_SIZE):
        row[k] = 0
    if g.phase == SIGN_PHASE and not g.over:
        row[_SIGNING] = 1
    for t in range(NUM_TRICKS):
        for s in range(NUM_SEATS):
            sign = int(g.signs[t * NUM_SEATS + s])
            if sign > 0 and (observer < 0
                             or sees_sign(observer, s, int(g.caught[t * NUM_SEATS + s]))):
                r = s if observer < 0 else relative_seat(s, observer)
                row[_SIGNS + (t * NUM_SEATS + r) * NUM_SIGNS + sign - 1] = 1


def encode_observation(deal: Deal, observer: int,
                       out: np.ndarray | None = None) -> np.ndarray:
    """Observation vector of ``observer`` for a deal in progress (or the last
    deal once the match is over), built from scratch: the reference. The deal is
    a view of its match's one state record, so the match fields come with it."""
    v = np.zeros(OBS_SIZE, np.int8) if out is None else out
    write_view(deal.state, observer, v)
    return v


def encode_signs_observation(deal: Deal, observer: int,
                              out: np.ndarray | None = None) -> np.ndarray:
    """:func:`encode_observation` for a deal of the signs variant: OBS_VERSION 3,
    [SIGNS_OBS_SIZE], the default game's vector then the signs ``observer`` saw
    (:func:`write_signs`)."""
    v = np.zeros(SIGNS_OBS_SIZE, np.int8) if out is None else out
    write_view(deal.state, observer, v)
    write_signs(deal.state, observer, v)
    return v


def encode_state(deal: Deal, out: np.ndarray | None = None) -> np.ndarray:
    """The full-information global state (for centralised critics)."""
    v = np.zeros(STATE_SIZE, np.int8) if out is None else out
    hands = v[:NUM_SEATS * NUM_CARDS].reshape(NUM_SEATS, NUM_CARDS)
    hands[:] = 0
    for seat in range(NUM_SEATS):
        hands[seat, deal.hand(seat)] = 1
    unused = v[NUM_SEATS * NUM_CARDS:(NUM_SEATS + 1) * NUM_CARDS]
    unused[:] = 0
    unused[deal.unused] = 1
    v[(NUM_SEATS + 1) * NUM_CARDS:] = encode_observation(deal, 0)[NUM_CARDS:]
    return v



class Observer(NamedTuple):
    """A variant's observation (:func:`observer`): its ``version``, its width
    (``size``) and the global state's (``state_size``), its named views
    (``slices`` and ``shapes``: the layout's fields, with signs the signs
    block's) and its writer (:meth:`write`, :meth:`encode`, :meth:`encode_state`)."""

    version: int
    size: int
    state_size: int
    signs: bool
    slices: dict[str, slice]
    shapes: dict[str, tuple[int, ...]]

    def write(self, g, observer: int, row) -> None:
        """``observer``'s vector of the state ``g`` into ``row`` (int8, at least
        ``OBS_SIZE`` long; its first ``size`` entries are the observation)."""
        write_view(g, observer, row)
        if self.signs:
            write_signs(g, observer, row)

    def encode(self, g, observer: int, out: np.ndarray | None = None) -> np.ndarray:
        """``observer``'s observation of the state ``g`` (int8 [size]), from scratch."""
        row = np.zeros(max(self.size, OBS_SIZE), np.int8)
        self.write(g, observer, row)
        if out is None:
            return row[:self.size]
        out[:] = row[:self.size]
        return out

    def encode_state(self, deal: Deal) -> np.ndarray:
        """The global state (``raw_env.state()``, int8 [state_size]): every hand and
        the unused cards, player_0's public view, with signs every sign made."""
        state = encode_state(deal)[:min(self.state_size, STATE_SIZE)]
        if not self.signs:
            return state
        row = np.zeros(SIGNS_OBS_SIZE, np.int8)
        write_signs(deal.state, -1, row)
        return np.concatenate([state, row[OBS_SIZE:]])


def observer(variant: Variant) -> Observer:
    """The observation of ``variant`` (its ``obs_version``): version 1 or 2 of the
    default game's layout, or the signs variant's (version 3)."""
    version = variant.obs_version
    signs = version == SIGNS_OBS_VERSION
    size = obs_size(version)
    slices = {k: v for k, v in SLICES.items() if v.stop <= size}
    shapes = {k: SHAPES[k] for k in slices}
    if signs:
        slices.update(SIGN_SLICES)
        shapes.update(SIGN_SHAPES)
    return Observer(version, size, state_size(version), signs, slices, shapes)


# ---------------------------------------------------------------------------- sparse forms

# A learner's first layer computes on the entries set to 1, not on the zeros:
# ``write_active`` lists them (the batched engine calls it beside ``write_view``),
# and ``write_hidden`` lists the privileged part a training critic may read.

#: Most entries one observation can set to 1, field by field: each of the 36
#: dealt cards in at most one of hand / trick / played and, once played, in
#: ``history`` (72); ``trick_winners`` and ``trick_counts`` (the counts' sum is
#: the tricks won) 9 each; ``reached``, ``won_a_trick`` and ``in_run`` 4 each;
#: ``leader``, ``to_act``, ``trick_index``, ``dealer``, ``deal``, ``deals_left``
#: one each; and the two points thermometers together at most the points
#: awarded, 2 per deal (R15), 20 in the longest match. The writer refuses more.
MAX_ACTIVE = (2 * NUM_SEATS * HAND_SIZE + 2 * NUM_TRICKS + 3 * NUM_SEATS + 6
              + 2 * MAX_DEALS)
#: The pad of :func:`write_active`'s list: one past the last entry.
ACTIVE_PAD = OBS_SIZE

#: The privileged part of a seat's position, for training critics only (never a
#: policy's input): the other three hands by relative seat (1 left, 2 partner,
#: 3 right), then the unused cards; entry ``(r - 1) * 48 + card`` or ``144 + card``.
HIDDEN_SIZE = NUM_SEATS * NUM_CARDS
#: Most privileged entries set to 1: three full hands and the unused cards.
MAX_HIDDEN = (NUM_SEATS - 1) * HAND_SIZE + NUM_UNUSED
#: The pad of :func:`write_hidden`'s list.
HIDDEN_PAD = HIDDEN_SIZE
_UNUSED_ROW = (NUM_SEATS - 1) * NUM_CARDS


def write_active(row, out) -> int:
    """The entries of ``row`` (an observation) set to 1, in increasing order, into
    ``out`` (int [MAX_ACTIVE]), padded with ``ACTIVE_PAD``; returns their count.
    A count above MAX_ACTIVE says the list was cut there: the caller refuses it
    (raising nothing here lets numba's parallel loops call it)."""
    # Without a branch on the entry (every k is written, and kept when it is set):
    # compiled, 1.5x faster than `if row[k] != 0` on real rows, whose 1s fall
    # where a branch predictor cannot guess them.
    n = 0
    for k in range(row.shape[0]):
        if n < MAX_ACTIVE:
            out[n] = k
        n += int(row[k] != 0)
    for k in range(n, MAX_ACTIVE):
        out[k] = ACTIVE_PAD
    return n


def write_hidden(g, observer, out) -> int:
    """The privileged entries of ``observer``'s position in the game state ``g``
    (see ``HIDDEN_SIZE``) into ``out`` (int [MAX_HIDDEN]), padded with
    ``HIDDEN_PAD``; returns their count."""
    n = 0
    for c in range(NUM_CARDS):
        code = int(g.card_state[c])
        if code == UNUSED:
            out[n] = _UNUSED_ROW + c
            n += 1
        elif code < NUM_SEATS and code != observer:
            out[n] = (relative_seat(code, observer) - 1) * NUM_CARDS + c
            n += 1
    for k in range(n, MAX_HIDDEN):
        out[k] = HIDDEN_PAD
    return n


def dense(indices: np.ndarray, size: int) -> np.ndarray:
    """Padded index lists ([..., K], pad ``size``) as 0/1 vectors ([..., size], int8):
    the inverse of :func:`write_active` / :func:`write_hidden`, for tests and tools."""
    idx = np.asarray(indices, np.int64)
    out = np.zeros(idx.shape[:-1] + (size + 1,), np.int8)
    np.put_along_axis(out, idx, 1, axis=-1)
    return out[..., :size]


def _rel_name(r: int) -> str:
    return ("self", "left", "partner", "right")[r]


def decode_observation(vec: Sequence[int] | np.ndarray) -> dict[str, Any]:
    """Readable form of one observation vector: card ids, relative seats
    (0 self, 1 left, 2 partner, 3 right) and numbers. For people and tests.

    ``history`` is the deal's whole order of play, rebuilt from the vector (R6
    the first leader, R10-R11 each next leader): one dict per trick started,
    ``{"trick": k, "leader": r, "plays": [(r, card), ...], "winner": r | None}``
    (winner None: spoiled, or the trick is in progress). A vector whose history
    names a card no seat played is a ValueError. A vector of the signs variant
    (``SIGNS_OBS_SIZE``) adds ``signing`` and ``signs``, the signs the seat saw:
    ``[(trick, relative seat, sign 1-9), ...]`` in the order of play."""
    v = np.asarray(vec)
    if v.shape not in ((OBS_SIZE,), (SIGNS_OBS_SIZE,)):
        raise ValueError(f"an observation has shape ({OBS_SIZE},) for OBS_VERSION "
                         f"{OBS_VERSION} (or ({SIGNS_OBS_SIZE},) with signs), got {v.shape}")
    f = {name: v[s].reshape(SHAPES[name]) for name, s in SLICES.items()}

    def one(field: np.ndarray) -> int | None:
        idx = np.flatnonzero(field)
        return int(idx[0]) if len(idx) else None

    winners: list[int | None] = []
    for row in f["trick_winners"]:
        k = one(row)
        if k is None:
            break
        winners.append(None if k == SPOILED_COLUMN else k)
    deal = one(f["deal"])
    left = one(f["deals_left"])
    dealer = one(f["dealer"])
    # Each played card's location (a state record's codes, relative seats) and
    # trick: the game's order_of_play rebuilds the deal's plays from them.
    codes, card_trick = [UNUSED] * NUM_CARDS, [-1] * NUM_CARDS
    for r in range(NUM_SEATS):
        for c in np.flatnonzero(f["played"][r]):
            codes[int(c)] = PLAYED + r
        for c in np.flatnonzero(f["trick"][r]):
            codes[int(c)] = IN_TRICK + r
    started = 0
    for k in range(NUM_TRICKS):
        cards = [int(c) for c in np.flatnonzero(f["history"][k])]
        if not cards:
            break
        if any(codes[c] == UNUSED for c in cards):  # a vector no deal writes
            raise ValueError(f"not an observation of a deal: trick {k + 1}'s history holds "
                             f"a card that no seat played")
        for c in cards:
            card_trick[c] = k
        started = k + 1
    order = [0] * NUM_CARDS  # each card once, even in a vector no deal writes
    n = order_of_play(codes, card_trick, [NOBODY if w is None else w for w in winners]
                      + [NOBODY] * (NUM_TRICKS - len(winners)),
                      first_leader(dealer) if dealer is not None else 0, started - 1, order)
    history = [{"trick": k, "leader": -1, "plays": [],
                "winner": winners[k] if k < len(winners) else None} for k in range(started)]
    for c in order[:n]:
        trick = history[card_trick[c]]
        if not trick["plays"]:
            trick["leader"] = played_by(codes[c])
        trick["plays"].append((played_by(codes[c]), c))
    extra: dict[str, Any] = {}
    if len(v) == SIGNS_OBS_SIZE:
        seen = v[SIGN_SLICES["signs"]].reshape(SIGN_SHAPES["signs"])
        signs = []
        for k in range(NUM_TRICKS):
            lead = history[k]["leader"] if k < len(history) and history[k]["leader"] >= 0 \
                else 0
            for i in range(NUM_SEATS):  # in the trick's order of play, from its leader
                r = (lead + i) % NUM_SEATS
                sign = one(seen[k, r])
                if sign is not None:
                    signs.append((k, r, sign + 1))
        extra = {"signing": bool(v[_SIGNING]), "signs": signs}
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
        "dealer": dealer,
        "deal": deal,
        "deals_left": None if left is None else left + 1,
        "points_own": int(f["points_own"].sum()),
        "points_opp": int(f["points_opp"].sum()),
        "history": history,
        "seat_names": [_rel_name(r) for r in range(NUM_SEATS)],
        **extra,
    }


# ---------------------------------------------------------------------------- compiled readers

#: Card location codes written by the readers: the game state's codes
#: (:mod:`aluette_env.game.state`) in the reader's relative seats, 0-3 in that
#: seat's hand (a reader knows only its own, 0), ``UNSEEN`` not seen by the
#: reader (another hand or the twelve unused cards), ``IN_TRICK + seat`` in the
#: trick in progress, ``PLAYED + seat`` played in an earlier trick of this deal.
UNSEEN = UNUSED


def read_view(row, cards, trick, winners, counts, reached, in_run, card_trick):
    """One observation vector read into arrays, in relative seats (the reader
    is seat 0): the one reader of observations for players and search, written
    from this module's layout and compiled by numba where players need it
    (:mod:`aluette_env._jit`). Fills

    - ``cards`` [48]: each card's location code (0 in the reader's hand,
      ``UNSEEN``, ``IN_TRICK + seat``, ``PLAYED + seat``);
    - ``trick`` [4]: each seat's card in the trick in progress, -1 for none yet;
    - ``winners`` [9]: each finished trick's winning seat, NOBODY for a
      spoiled trick and for tricks not finished;
    - ``counts``, ``reached`` (-1: no trick yet) and ``in_run`` [4]: the tally;
    - ``card_trick`` [48]: the trick each card was played in, -1 if not played;

    and returns ``(trick_index, leader)`` of the trick in progress (0 and 0
    once the match is over and those fields are empty)."""
    for r in range(NUM_SEATS):
        trick[r] = -1
    for c in range(NUM_CARDS):
        code = 0 if row[_HAND + c] == 1 else UNSEEN
        for r in range(NUM_SEATS):
            if row[_PLAYED + r * _PLAYED_ROW + c] == 1:
                code = PLAYED + r
            if row[_TRICK + r * _TRICK_ROW + c] == 1:
                code = IN_TRICK + r
                trick[r] = c
        cards[c] = code
        card_trick[c] = -1
        if code >= IN_TRICK:
            for k in range(NUM_TRICKS):
                if row[_HISTORY + k * _HISTORY_ROW + c] == 1:
                    card_trick[c] = k
    for k in range(NUM_TRICKS):
        winners[k] = NOBODY
        for col in range(NUM_SEATS):
            if row[_WINNERS + k * _WINNERS_ROW + col] == 1:
                winners[k] = col
    for r in range(NUM_SEATS):
        n = 0
        reached[r] = -1
        for k in range(_COUNTS_ROW):
            n += row[_COUNTS + r * _COUNTS_ROW + k]
            if row[_REACHED + r * _REACHED_ROW + k] == 1:
                reached[r] = k
        counts[r] = n
        in_run[r] = row[_RUN + r] == 1
    t = 0
    for k in range(NUM_TRICKS):
        if row[_TRICK_INDEX + k] == 1:
            t = k
    leader = 0
    for r in range(NUM_SEATS):
        if row[_LEADER + r] == 1:
            leader = r
    return t, leader


def read_state(g, seat, cards, trick, winners, counts, reached, in_run, card_trick):
    """What :func:`read_view` reads from ``seat``'s observation, read from the
    game state ``g`` itself (a record of the batched engine): the same arrays
    in ``seat``'s relative seats, with no vector in between. The search
    players' rollouts use it to give each seat its own view of a sampled world."""
    for r in range(NUM_SEATS):
        trick[r] = -1
    for c in range(NUM_CARDS):
        code = g.card_state[c]
        if code < UNUSED:
            cards[c] = 0 if code == seat else UNSEEN
        elif code == UNUSED:
            cards[c] = UNSEEN
        elif code < PLAYED:
            r = relative_seat(code - IN_TRICK, seat)
            cards[c] = IN_TRICK + r
            trick[r] = c
        else:
            cards[c] = PLAYED + relative_seat(code - PLAYED, seat)
        card_trick[c] = g.card_trick[c] if code >= IN_TRICK else -1
    for k in range(NUM_TRICKS):
        w = g.trick_winners[k] if k < g.trick_index else NOBODY
        winners[k] = NOBODY if w < 0 else relative_seat(w, seat)
    for s in range(NUM_SEATS):
        r = relative_seat(s, seat)
        counts[r] = g.counts[s]
        reached[r] = g.reached[s] if g.counts[s] > 0 else -1
        in_run[r] = g.in_run[s] != 0
    if g.trick_index >= NUM_TRICKS:
        return 0, 0
    return g.trick_index, relative_seat(g.leader, seat)


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
