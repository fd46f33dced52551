"""``aluette_v0``, the environment before perfect recall (observation layout 1, 638
entries), kept loadable so that experiments made with it repeat exactly: the
same spaces, and values equal to the first ``obs_size(1)`` entries of
:mod:`aluette_env.aluette_v1`'s observation (``state_size(1)`` of its state).
New work uses ``aluette_v1``. A frozen version: its game is the variant
:data:`aluette_env.game.ALUETTE_V0`, played by :mod:`aluette_env.aec`'s env,
as documented there.

May import: :mod:`aluette_env.aec`.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from . import aec
from .game import ALUETTE_V0


class raw_env(aec.raw_env):
    """:class:`aluette_env.aec.raw_env` playing :data:`~aluette_env.game.ALUETTE_V0`."""

    variant = ALUETTE_V0


def env(**kwargs: Any) -> AECEnv:
    """``aluette_v0`` inside PettingZoo's standard classic wrappers."""
    return aec.wrap(raw_env(**kwargs))


__all__ = ["env", "raw_env"]
