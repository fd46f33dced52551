"""The pure game core: every rule of Aluette (docs/RULES.md R1-R16), stated once.

Standard library only: importing this package (or ``aluette_env`` itself)
loads no third-party module, so the rules can be read, tested and reused
anywhere. Everything else builds on it:

- :mod:`.cards`: card ids (R3-R4), names in English and French, the 19
  strength levels of the rank order (R7-R8).
- :mod:`.seats`: seats, agents ``player_0..3`` and teams (R1), the seat
  arithmetic (next seat, the seat at a place in a trick, relative seats) and
  ``NOBODY``, the one "no seat, no team" value.
- :mod:`.rules`: dealing (R5-R6), tricks (R9-R12), the deal tally and its
  scoring (R13-R16), team points and the match winner (R1, R2): small
  functions that numba compiles as they are (see :mod:`aluette_env._jit`).
- :mod:`.state`: the game's one step. A match as a flat state record
  (:data:`~.state.STATE_FIELDS`), :func:`~.state.start_deal` and
  :func:`~.state.step`; the batched engine compiles the same functions.
- :mod:`.deal`: ``Deal`` and ``Match`` for Python callers, views of one
  :class:`~.state.GameState` (``Deal.play`` returns the step's event), the
  records of finished deals and the result dicts every part reports.
- :mod:`.signs`: the signs variant (S1-S5): the lexicon of signs, the sign
  actions, who sees a sign. Its phase is part of the one step.
- :mod:`.variant`: a variant as one object (``Variant``: its env id, actions,
  legal actions, chance draws, who knows which sign, its observation's
  version), the shipped ones (``ALUETTE_V1``, ``ALUETTE_SIGNS_V0``, ...) by id.

May import: the standard library only.
"""

from .cards import (
    CARDS_BY_STRENGTH, NAMED_CARDS, NUM_CARDS, NUM_STRENGTHS, STRENGTH, card_name, check_card,
    describe, short_name,
)
from .deal import (
    Deal, DealRecord, DealScore, Match, Trick, deal_reason, deal_result, match_result, play_match,
    score_deal,
)
from .rules import (
    DEFAULT_NUM_DEALS, HAND_SIZE, NUM_TRICKS, NUM_UNUSED, PLAYS_PER_DEAL, card_beats,
    cards_before, cards_in_trick, check_hands, deal_cards, deal_order, deal_points, dealer_of,
    end_trick, first_dealer_of, first_leader, first_to_reach, hand_size, is_ahead, mordienne_chance,
    next_leader, plays_left, reach_order, record_trick, seat_gain, team_points, trick_so_far,
    trick_winner, trick_winner_of_levels, tricks_left, winning_team,
)
from .seats import (
    AGENTS, NOBODY, NUM_SEATS, NUM_TEAMS, SEAT, TEAMS, next_seat, opponents_of, other_team,
    partner_of, relative_seat, seat_at, seat_of, team_of,
)
from .signs import (
    DEFAULT_CATCH, NO_SIGN, NUM_ACTIONS, NUM_SIGN_ACTIONS, NUM_SIGNS, SIGN_BASE, SIGN_OF_CARD,
    SIGNS, catch_bits, check_catch, check_sign, is_sign_action, sees_sign, sign_name,
)
from .state import (
    CARD_PLAYED, DEAL_DONE, MATCH_DONE, PLAY_PHASE, SIGN_MADE, SIGN_PHASE, TRICK_DONE, GameState,
    is_legal, order_of_play, played_by, start_deal, step, write_legal,
)
from .variant import (
    ALUETTE_SIGNS_V0, ALUETTE_V0, ALUETTE_V1, VARIANTS, Game, Variant, check_flag, check_whole,
    load_variant, register_variant, variant_from_spec, variant_of,
)

__all__ = [
    "ALUETTE_SIGNS_V0", "ALUETTE_V0", "ALUETTE_V1", "VARIANTS", "Game", "Variant", "check_flag",
    "check_whole", "deal_reason", "load_variant", "register_variant", "variant_from_spec",
    "opponents_of", "variant_of", "write_legal", "AGENTS", "CARDS_BY_STRENGTH",
    "CARD_PLAYED", "DEAL_DONE", "DEFAULT_CATCH",
    "DEFAULT_NUM_DEALS", "HAND_SIZE", "MATCH_DONE", "NAMED_CARDS", "NOBODY", "NO_SIGN",
    "NUM_ACTIONS", "NUM_CARDS", "NUM_SEATS", "NUM_SIGNS", "NUM_SIGN_ACTIONS", "NUM_STRENGTHS",
    "NUM_TEAMS", "NUM_TRICKS", "NUM_UNUSED", "PLAYS_PER_DEAL", "PLAY_PHASE", "SEAT", "SIGNS",
    "SIGN_BASE", "SIGN_MADE", "SIGN_OF_CARD", "SIGN_PHASE", "STRENGTH", "TEAMS", "TRICK_DONE",
    "Deal", "catch_bits", "check_catch", "check_sign", "is_sign_action", "sees_sign", "sign_name",
    "DealRecord", "DealScore", "GameState", "Match", "Trick", "card_beats", "card_name",
    "cards_before", "cards_in_trick", "check_card", "check_hands", "deal_cards", "deal_order",
    "deal_points", "deal_result", "dealer_of", "describe", "end_trick", "first_dealer_of",
    "first_leader", "first_to_reach", "hand_size", "is_ahead", "is_legal", "match_result",
    "mordienne_chance", "next_leader", "next_seat", "order_of_play", "other_team", "partner_of",
    "play_match", "played_by", "plays_left", "reach_order", "record_trick", "relative_seat",
    "score_deal", "seat_at", "seat_gain", "seat_of", "short_name", "start_deal", "step", "team_of",
    "team_points", "trick_so_far", "trick_winner", "trick_winner_of_levels", "tricks_left",
    "winning_team",
]
