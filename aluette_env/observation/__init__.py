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
                                  index (layout 2)
========================  ======  ===============================================

Fields describing the trick/deal in progress are all zero once the match is
over. ``OBS_LAYOUT`` changes whenever this layout or its meaning changes;
exported models record it.

**Perfect recall (layout 2).** ``history`` says in which trick every card of
this deal was played; with the seat of each card (``trick``, ``played``), the
first leader (R6, from ``dealer``) and each trick's winner (R10-R11, from
``trick_winners``), the whole order of play is rebuilt, each card with its
seat: two different histories of a deal never give a seat the same vector
(``decode_observation(vec)["history"]`` rebuilds it). Earlier deals of the
match are summed up by the match fields (points, deal index): their cards
say nothing about the hands of this deal, which is dealt anew.

**Layouts.** A layout's fields are a prefix of the next one's: layout 1
is the first ``obs_size(1)`` (638) entries, the fields above ``history``.
A model records the layout it was trained on, and its loader gives it that
prefix (``observation[..., :obs_size(layout)]``), so every shipped model
plays as it did.

**One writer.** :func:`write_view` writes a seat's vector from the game's
state record (:mod:`aluette_env.game.state`): the reference encoder
(:func:`encode_observation`, from a ``Deal``) and the batched
engine's kernel (compiled by numba) both call it. ``IncrementalObservations``
keeps the four seats' vectors of the PettingZoo env equal to it play by play,
rewriting from the state the fields that the step's event says changed;
the readers (:func:`read_view` from a vector, :func:`read_state` from the
engine's state) fill the same arrays. All of them take their positions from
the one layout declaration, and the tests pin each to the reference bit for
bit.

**Modules.** This package holds the writers, the encoders, the decoder and the
readers; :mod:`.layout` declares the layout, :mod:`.incremental` holds the
env's incremental writer and :mod:`.sparse` the learner's index lists
(:func:`write_active`, :func:`write_hidden`). Every public name of the three is
importable from here.

May import: numpy and :mod:`aluette_env.game`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from ..game import (
    NOBODY, NUM_CARDS, NUM_SEATS, NUM_SIGNS, NUM_TRICKS, SIGN_PHASE, Deal, Variant, first_leader,
    relative_seat, sees_sign, team_of,
)
from ..game.state import IN_TRICK, PLAYED, UNUSED, order_of_play, played_by
from .incremental import IncrementalObservations
from .layout import (
    _COUNTS, _COUNTS_ROW, _DEAL, _DEALER, _DEALS_LEFT, _HAND, _HISTORY, _HISTORY_ROW, _LEADER,
    _PLAYED, _PLAYED_ROW, _POINTS_OPP, _POINTS_OWN, _REACHED, _REACHED_ROW, _RUN, _SIGNING,
    _SIGNS, _TO_ACT, _TRICK, _TRICK_INDEX, _TRICK_ROW, _WINNERS, _WINNERS_ROW, _WON, MAX_DEALS,
    LAYOUT_ENDS_BEFORE, LAYOUT_KEY, MAX_POINTS, OBS_LAYOUT, OBS_SIZE, OFFSET, OLD_LAYOUT_KEY, ROW,
    SHAPES, SIGN_SHAPES, SIGN_SLICES, SIGNS_OBS_LAYOUT, SIGNS_OBS_SIZE, SLICES, SPOILED_COLUMN,
    STATE_SIZE, layout_of, obs_size, saved_layout, state_size,
)
from .sparse import (
    ACTIVE_PAD, HIDDEN_PAD, HIDDEN_SIZE, MAX_ACTIVE, MAX_HIDDEN, dense, write_active,
    write_hidden,
)

__all__ = [
    "ACTIVE_PAD", "HIDDEN_PAD", "HIDDEN_SIZE", "IN_TRICK", "LAYOUT_ENDS_BEFORE", "LAYOUT_KEY",
    "MAX_ACTIVE", "MAX_DEALS", "MAX_HIDDEN", "MAX_POINTS", "OBS_LAYOUT", "OBS_SIZE", "OFFSET",
    "OLD_LAYOUT_KEY", "PLAYED", "ROW", "SHAPES", "SIGN_SHAPES", "SIGN_SLICES", "SIGNS_OBS_LAYOUT",
    "SIGNS_OBS_SIZE", "SLICES", "SPOILED_COLUMN", "STATE_SIZE", "UNSEEN", "IncrementalObservations",
    "Observer", "decode_observation", "dense", "encode_observation", "encode_signs_observation",
    "encode_state", "layout_of", "obs_size", "observer", "read_match", "read_state", "read_view",
    "saved_layout", "state_size", "write_active", "write_hidden", "write_signs", "write_view",
]

#: Old name -> the name it became: each still answers for one release, with a
#: DeprecationWarning, then goes (tests/test_public_api.py keeps the list). The
#: observation's number was a "version" until it was named for what it is, a layout;
#: ``relative`` is the game's ``relative_seat``.
_RENAMED = {"OBS_VERSION": "OBS_LAYOUT", "SIGNS_OBS_VERSION": "SIGNS_OBS_LAYOUT",
            "VERSION_ENDS_BEFORE": "LAYOUT_ENDS_BEFORE", "relative": "relative_seat"}


def __getattr__(name: str) -> Any:
    if name not in _RENAMED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"{__name__}.{name} is deprecated; use {__name__}.{_RENAMED[name]}",
                  DeprecationWarning, stacklevel=2)
    return globals()[_RENAMED[name]]


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
    """S5: the signs block of ``observer``'s vector (SIGNS_OBS_LAYOUT) from the
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
    """:func:`encode_observation` for a deal of the signs variant: observation layout 3,
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
    """A variant's observation (:func:`observer`): its ``layout``, its width
    (``size``) and the global state's (``state_size``), its named views
    (``slices`` and ``shapes``: the layout's fields, with signs the signs
    block's) and its writer (:meth:`write`, :meth:`encode`, :meth:`encode_state`)."""

    layout: int
    size: int
    state_size: int
    signs: bool
    slices: dict[str, slice]
    shapes: dict[str, tuple[int, ...]]

    @property
    def version(self) -> int:
        """Deprecated: :attr:`layout` (its name until the layout was named for what it is)."""
        warnings.warn("Observer.version is deprecated; use Observer.layout",
                      DeprecationWarning, stacklevel=2)
        return self.layout

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
    """The observation of ``variant`` (its ``obs_layout``): layout 1 or 2 of the
    default game, or the signs variant's (layout 3)."""
    layout = variant.obs_layout
    signs = layout == SIGNS_OBS_LAYOUT
    if signs != variant.signs:  # a variant made without its checks (Variant.check)
        raise ValueError(f"{variant.env_id}: observation layout {layout} is "
                         f"{'' if signs else 'not '}the signs variant's, but signs="
                         f"{variant.signs}")
    size = obs_size(layout)
    slices = {k: v for k, v in SLICES.items() if v.stop <= size}
    shapes = {k: SHAPES[k] for k in slices}
    if signs:
        slices.update(SIGN_SLICES)
        shapes.update(SIGN_SHAPES)
    return Observer(layout, size, state_size(layout), signs, slices, shapes)


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
        raise ValueError(f"an observation has shape ({OBS_SIZE},) for observation layout "
                         f"{OBS_LAYOUT} (or ({SIGNS_OBS_SIZE},) with signs), got {v.shape}")
    if v.dtype.kind not in "biuf":
        raise ValueError(f"an observation holds 0s and 1s only, got dtype {v.dtype}")
    bad = np.flatnonzero((v != 0) & (v != 1))
    if len(bad):
        raise ValueError(f"an observation holds 0s and 1s only, got {v[bad[0]]} at entry "
                         f"{bad[0]} ({len(bad)} such entries)")
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
