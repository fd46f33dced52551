"""The observation's layout, declared once: each field's slice and shape, the
older layouts as prefixes, the signs variant's block, and each field's offset as a
module constant that numba folds into the writers and readers.

The fields and what they mean are in :mod:`aluette_env.observation`'s table.

May import: numpy and :mod:`aluette_env.game`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..game import NUM_CARDS, NUM_SEATS, NUM_SIGNS, NUM_TRICKS
from ..game.variant import MAX_DEALS  # the encoding has room for matches of up to ten deals

#: The layout written today (a number, not a release: a model records the
#: layout it reads, and each layout is a prefix of the next).
OBS_LAYOUT = 2
#: The signs variant's observation (S5): layout 2's, then the signs block.
SIGNS_OBS_LAYOUT = 3
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
#: The first field each layout added: layout v is every field before
#: LAYOUT_ENDS_BEFORE[v] (None: all of them).
LAYOUT_ENDS_BEFORE = {1: "history", 2: None}


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


def obs_size(layout: int) -> int:
    """Length of an observation of ``layout`` (1 to OBS_LAYOUT): the prefix of
    today's vector that a model of that layout reads; ``SIGNS_OBS_LAYOUT``
    (3): the signs variant's vector, layout 2's followed by the signs block."""
    if layout == SIGNS_OBS_LAYOUT:
        return SIGNS_OBS_SIZE
    if layout not in LAYOUT_ENDS_BEFORE:
        raise ValueError(f"no observation layout {layout!r}; layouts are "
                         f"{sorted(LAYOUT_ENDS_BEFORE) + [SIGNS_OBS_LAYOUT]}")
    end = LAYOUT_ENDS_BEFORE[layout]
    return OBS_SIZE if end is None else SLICES[end].start

#: Offsets of each field, for the incremental writers.
OFFSET = {name: s.start for name, s in SLICES.items()}
#: Row length of each field (its last dimension): field[r, k] is at OFFSET + r * ROW + k.
ROW = {name: shape[-1] for name, shape in SHAPES.items()}


def state_size(layout: int) -> int:
    """Length of the global state (``raw_env.state()``) of observation ``layout``:
    all four hands by absolute seat, the twelve unused cards, then player_0's
    public view (its observation without its hand, which is already in the first
    block). A layout's state is a prefix of the next one's, as its observation is."""
    return NUM_SEATS * NUM_CARDS + NUM_CARDS + obs_size(layout) - NUM_CARDS


STATE_SIZE = state_size(OBS_LAYOUT)

#: The key under which a saved artefact (an exported policy's ``metadata_props``,
#: an expert data set's manifest) names the layout it reads; the old key is what
#: artefacts saved before it had this name wrote, and is read still.
LAYOUT_KEY, OLD_LAYOUT_KEY = "obs_layout", "obs_version"


def saved_layout(metadata: Mapping[str, Any]) -> Any:
    """The observation layout a saved artefact's ``metadata`` names, as written
    (under :data:`LAYOUT_KEY`, or :data:`OLD_LAYOUT_KEY` in an older one); None
    if neither."""
    return metadata.get(LAYOUT_KEY, metadata.get(OLD_LAYOUT_KEY))


#: A spoiled trick in ``trick_winners``: the field's last column (R11).
SPOILED_COLUMN = NUM_SEATS

#: The signs variant's observation (S5): layout 2's vector (OBS_SIZE entries),
#: then this block (SIGNS_OBS_LAYOUT). The default game's vector never has it.
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


def layout_of(observations: Any) -> int:
    """The layout that a batch of observations (``[N, width]``) or one
    observation is of, as the layouts above declare them: each has a width of
    its own (:func:`obs_size`), so a player reads the layout an observation
    was written in from this declaration, never from a width of its own.
    ValueError naming the width and the layouts otherwise."""
    shape = np.shape(observations)
    width = shape[-1] if shape else None
    for layout in (*sorted(LAYOUT_ENDS_BEFORE), SIGNS_OBS_LAYOUT):
        if width == obs_size(layout):
            return layout
    sizes = ", ".join(f"{obs_size(v)} (layout {v})"
                      for v in (*sorted(LAYOUT_ENDS_BEFORE), SIGNS_OBS_LAYOUT))
    raise ValueError(f"an observation of {width} entries is of no layout; layouts have {sizes}")
