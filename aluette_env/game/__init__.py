"""The pure game core: every rule of Aluette (docs/RULES.md R1-R16), stated once.

Standard library only: importing this package (or ``aluette_env`` itself)
loads no third-party module, so the rules can be read, tested and reused
anywhere. Everything else builds on it:

- :mod:`.cards`: card ids (R3-R4), names in English and French, the 19
  strength levels of the rank order (R7-R8).
- :mod:`.seats`: seats, agents ``player_0..3`` and teams (R1).
- :mod:`.rules`: dealing (R5-R6), tricks (R9-R12), the deal tally and its
  scoring (R13-R16), the ``Deal`` and the five-deal ``Match`` (R2), and the
  result dicts every part reports. The rules needed at speed are small
  functions that numba compiles as they are (``card_beats``,
  ``record_trick``, ``first_to_reach``, ``deal_points``, ``dealer_of``...;
  see :mod:`aluette_env._jit`), so the engine, the solver and the expert run
  this same code.

May import: the standard library only.
"""

from .cards import (
    CARDS_BY_STRENGTH, NAMED_CARDS, NUM_CARDS, NUM_STRENGTHS, STRENGTH, card_name, check_card,
    describe, short_name,
)
from .rules import (
    DEFAULT_NUM_DEALS, HAND_SIZE, NO_SEAT, NO_TRICKS, NUM_TRICKS, NUM_UNUSED, Deal, DealRecord,
    DealScore, Match, Trick, after_trick, card_beats, check_hands, deal_cards, deal_order,
    deal_points, deal_result, deal_value, dealer_of, first_leader, first_to_reach, is_ahead,
    leading_seat, match_result, mordienne_chance, play_match, reach_order, record_trick, score_deal,
    team0_value, team_points, team_value, trick_winner, trick_winner_of_levels,
)
from .seats import AGENTS, NUM_SEATS, SEAT, TEAMS, next_seat, seat_of, team_of

__all__ = [
    "AGENTS", "CARDS_BY_STRENGTH", "DEFAULT_NUM_DEALS", "HAND_SIZE", "NAMED_CARDS", "NO_SEAT",
    "NO_TRICKS", "NUM_CARDS", "NUM_SEATS", "NUM_STRENGTHS", "NUM_TRICKS", "NUM_UNUSED", "SEAT",
    "STRENGTH", "TEAMS", "Deal", "DealRecord", "DealScore", "Match", "Trick", "after_trick",
    "card_beats", "card_name", "check_card", "check_hands", "deal_cards", "deal_order",
    "deal_points", "deal_result", "deal_value", "dealer_of", "describe", "first_leader",
    "first_to_reach", "is_ahead", "leading_seat", "match_result", "mordienne_chance", "play_match",
    "next_seat", "reach_order", "record_trick", "score_deal", "seat_of", "short_name",
    "team0_value", "team_of", "team_points", "team_value", "trick_winner",
    "trick_winner_of_levels",
]
