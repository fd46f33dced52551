"""numba's decorator, and the game core's speed-critical rules registered with numba.

Compiled code in this package (the batched engine's kernels, the solver, the
heuristic and the expert) calls the game's step (:func:`aluette_env.game.state.step`,
``start_deal``), the rules and seat arithmetic of :mod:`aluette_env.game`
and the observation's writer and readers (:mod:`aluette_env.observation`)
by their own names: importing this module registers those plain functions
with numba (``register_jitable``), so each rule is written once, in the
standard-library core, and compiled where it is called. Without numba (or
with ``NUMBA_DISABLE_JIT=1``) ``njit`` is the identity and the same code runs
as plain Python.

May import: numba, :mod:`aluette_env.game`, :mod:`aluette_env.observation`.
"""

from __future__ import annotations

from . import observation
from .game import rules, seats, signs, state

try:
    from numba import config as _numba_config
    from numba import njit, prange
    from numba.extending import register_jitable
    HAVE_NUMBA = True
    COMPILED = not _numba_config.DISABLE_JIT
except ImportError:  # the same code runs as plain Python: correct, but slow
    HAVE_NUMBA = COMPILED = False

    def njit(*args, **kwargs):
        if args and callable(args[0]):
            return args[0]
        return lambda f: f

    def register_jitable(fn):
        return fn

    prange = range

#: The plain functions that compiled code may call (registered once, here).
SHARED = (
    seats.team_of, seats.next_seat, seats.seat_at, seats.relative_seat, seats.partner_of,
    rules.card_beats, rules.trick_winner_of_levels, rules.next_leader, rules.record_trick,
    rules.end_trick, rules.plays_left, rules.is_ahead, rules.first_to_reach, rules.deal_points,
    rules.team_points, rules.seat_gain, rules.dealer_of, rules.first_dealer_of,
    rules.first_leader, rules.tricks_left, rules.hand_size, rules.cards_in_trick,
    rules.cards_before, rules.trick_so_far, signs.sees_sign,
    state.start_deal, state.is_legal, state.legal_kind, state.write_legal, state.step, state.played_by,
    state.order_of_play,
    observation.write_view, observation.write_signs, observation.write_active,
    observation.write_hidden,
    observation.read_view, observation.read_state,
)
for _fn in SHARED:
    register_jitable(_fn)

__all__ = ["COMPILED", "HAVE_NUMBA", "SHARED", "njit", "prange"]
