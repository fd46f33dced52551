"""Evaluation of players: duplicate matches with confidence intervals, and ratings.

- :mod:`.duplicate`: team A against team B on the same deals with the seats
  swapped (``duplicate_eval``), the deals of a seed (``evaluation_deals``).
- :mod:`.ratings`: a round robin of duplicate matches rated with openskill.
- :mod:`.panel`: one player against each member of a fixed panel on the same
  deals (``panel_eval``), with the minimum and the mean (``PANEL``).
- :mod:`.partners`: one player beside each partner of a panel against a fixed
  team (``partner_eval``), with each partner's lift over a reference partner,
  how the team's tricks split, the minimum and the means (``PARTNERS``).

May import: numpy, :mod:`aluette_env.game`, :mod:`aluette_env.vector`,
:mod:`aluette_env.players` (openskill in the ratings).
"""

from .duplicate import (EvalResult, duplicate_eval, evaluation_deals, mean_ci95, play_table,
                        wilson_ci95)
from .panel import PANEL, PanelMinimum, PanelResult, panel_eval, plan_panel
from .partners import (ITSELF, PARTNERS, PartnerPanelResult, PartnerRow, Split, partner_eval,
                       plan_partners, trick_split)

__all__ = ["ITSELF", "PANEL", "PARTNERS", "EvalResult", "PartnerPanelResult", "PartnerRow",
           "Split", "partner_eval", "plan_partners", "trick_split", "PanelMinimum", "PanelResult", "duplicate_eval",
           "evaluation_deals", "mean_ci95", "panel_eval", "plan_panel", "play_table",
           "wilson_ci95"]
