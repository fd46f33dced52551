"""Deprecated: the league is :mod:`training.league` and the rollouts
:mod:`training.rollouts`; this module stays one release for code that imports
it, and warns. (The one-seat games, ``LearnerGames``, are gone: every run
plays all seats.)"""

import warnings

from . import league as _league
from . import rollouts as _rollouts

for _module in (_league, _rollouts):
    globals().update({name: value for name, value in vars(_module).items()
                      if not name.startswith("__")})
del _module

warnings.warn("training.selfplay is deprecated: import training.league (the opponent and "
              "partner pools) or training.rollouts (the games)", DeprecationWarning,
              stacklevel=2)
