"""Deprecated: the learner's network is :mod:`training.sb3.network`.

This module stays one release so that code importing it, and checkpoints saved
before the rename (an SB3 zip names its policy's class by module path:
``training.sb3.policy.CardPolicy``), still work; importing it warns."""

import warnings

from ..players import ILLEGAL_LOGIT  # noqa: F401 - was defined here
from . import network as _network

globals().update({name: value for name, value in vars(_network).items()
                  if not name.startswith("__")})

warnings.warn("training.sb3.policy is deprecated: import training.sb3.network instead",
              DeprecationWarning, stacklevel=2)
