"""``aluette_v1``, the perfect-recall environment (observation layout 2, 1,070
entries): the one to use. PettingZoo's module per version, as
``pettingzoo.classic.connect_four_v3``. A frozen version: its game is the
variant :data:`aluette_env.game.ALUETTE_V1`, whatever :mod:`aluette_env.aec`'s
newest is; the env and its documentation are in :mod:`aluette_env.aec`.

May import: :mod:`aluette_env.aec`.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from . import aec
from .game import ALUETTE_V1


class raw_env(aec.raw_env):
    """:class:`aluette_env.aec.raw_env` playing :data:`~aluette_env.game.ALUETTE_V1`."""

    variant = ALUETTE_V1


def env(**kwargs: Any) -> AECEnv:
    """``aluette_v1`` inside PettingZoo's standard classic wrappers."""
    return aec.wrap(raw_env(**kwargs))


__all__ = ["env", "raw_env"]
