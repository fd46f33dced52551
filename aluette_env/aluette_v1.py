"""``aluette_v1``, the perfect-recall environment (OBS_VERSION 2, 1,070
entries): the one to use. PettingZoo's module per version, as
``pettingzoo.classic.connect_four_v3``; the env and its documentation are in
:mod:`aluette_env.aec`.

May import: :mod:`aluette_env.aec`.
"""

from .aec import env, raw_env

__all__ = ["env", "raw_env"]
