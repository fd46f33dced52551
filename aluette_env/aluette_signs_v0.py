"""``aluette_signs_v0``, Aluette with its signs (docs/RULES.md S1-S5): before each
card the seat to act makes one of the traditional signs, or none; its partner
always sees it, each opponent catches it with probability ``catch``. Its
observation is OBS_VERSION 3 (1,395 entries), its actions the 48 cards and ten
sign actions. The env and its documentation are in :mod:`aluette_env.aec`
(``env(signs=True, catch=...)``).

May import: :mod:`aluette_env.aec`.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from . import aec
from .game import DEFAULT_CATCH


def raw_env(catch: float = DEFAULT_CATCH, **kwargs: Any) -> aec.raw_env:
    """The bare signs env: :class:`aluette_env.aec.raw_env` with ``signs=True``."""
    if "signs" in kwargs and kwargs.pop("signs") is not True:
        raise ValueError("aluette_signs_v0 is the signs variant: signs=True only")
    return aec.raw_env(signs=True, catch=catch, **kwargs)


def env(catch: float = DEFAULT_CATCH, **kwargs: Any) -> AECEnv:
    """``aluette_signs_v0`` inside PettingZoo's standard classic wrappers."""
    return aec.wrap(raw_env(catch=catch, **kwargs))


__all__ = ["env", "raw_env"]
