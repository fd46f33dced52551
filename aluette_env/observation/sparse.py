"""The learner's index lists: an observation as the entries set to 1.

A learner's first layer computes on the entries set to 1, not on the zeros:
:func:`write_active` lists them (the batched engine calls it beside
:func:`~aluette_env.observation.write_view`), and :func:`write_hidden` lists
the privileged part a training critic may read. Both are compiled by numba
where the engine calls them (:mod:`aluette_env._jit`); :func:`dense` turns a
list back into a vector.

May import: numpy and :mod:`aluette_env.game`.
"""

from __future__ import annotations

import numpy as np

from ..game import HAND_SIZE, NUM_CARDS, NUM_SEATS, NUM_TRICKS, NUM_UNUSED, relative_seat
from ..game.state import UNUSED
from .layout import MAX_DEALS, OBS_SIZE

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

