"""Evaluation of players: duplicate matches with confidence intervals, and leagues.

- :mod:`.duplicate`: team A against team B on the same deals with the seats
  swapped (``duplicate_eval``), the deals of a seed (``evaluation_deals``).
- :mod:`.league`: a round robin of duplicate matches rated with openskill.

May import: numpy, :mod:`aluette_env.game`, :mod:`aluette_env.vector`,
:mod:`aluette_env.players` (openskill in the league).
"""

from .duplicate import (EvalResult, duplicate_eval, evaluation_deals, mean_ci95, play_table,
                        wilson_ci95)

__all__ = ["EvalResult", "duplicate_eval", "evaluation_deals", "mean_ci95", "play_table",
           "wilson_ci95"]
