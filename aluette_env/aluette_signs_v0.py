"""``aluette_signs_v0``, Aluette with its signs (docs/RULES.md S1-S5): before each
card the seat to act makes one of the traditional signs, or none; its partner
always sees it, each opponent catches it with probability ``catch``. Its
observation is observation layout 3 (1,395 entries), its actions the 48 cards and ten
sign actions. A frozen version: its game is the variant
:data:`aluette_env.game.ALUETTE_SIGNS_V0` (``catch`` its parameter); the env
and its documentation are in :mod:`aluette_env.aec`.

May import: :mod:`aluette_env.aec`.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from . import aec
from .game import ALUETTE_SIGNS_V0


class raw_env(aec.raw_env):
    """:class:`aluette_env.aec.raw_env` playing :data:`~aluette_env.game.ALUETTE_SIGNS_V0`
    with the chance ``catch`` (S4)."""

    variant = ALUETTE_SIGNS_V0

    def __init__(self, catch: float | None = None, signs: bool | None = None, **kwargs: Any):
        """``catch``: the chance that each opponent catches a sign (S4, default
        0.25); the other arguments as :class:`aluette_env.aec.raw_env`'s."""
        numpy_true = hasattr(signs, "dtype") and signs == True  # noqa: E712 - np.True_
        if signs is not None and signs is not True and not numpy_true:
            raise ValueError("aluette_signs_v0 is the signs variant: signs=True only")
        super().__init__(catch=catch, **kwargs)


def env(catch: float | None = None, **kwargs: Any) -> AECEnv:
    """``aluette_signs_v0`` inside PettingZoo's standard classic wrappers."""
    return aec.wrap(raw_env(catch=catch, **kwargs))


__all__ = ["env", "raw_env"]
