"""Aluette, the game of the cow: exact rules, a PettingZoo AEC environment, a
batched engine, AI players and duplicate evaluation.

``aluette_env.env()`` is the wrapped PettingZoo environment (its newest
version, ``aluette_v1``) and ``aluette_env.raw_env`` the bare one; each
version is a module, PettingZoo's way (``from aluette_env import aluette_v1``,
and ``aluette_v0``, the layout-1 observation kept so old experiments repeat),
and ``pettingzoo.make("aec", "aluette_v1")`` finds them once one is loaded
(PettingZoo's registry entry point). Attributes load lazily (PEP 562):
``import aluette_env`` and ``import aluette_env.game`` import no third-party
module.

Layout, lowest layer first: a module imports only from its own layer and the
layers before it in this list, and only the third-party packages its part
names. The import layers are declared once, in :mod:`aluette_env.import_layers`
(``LAYERS``); ``tests/test_import_layers.py`` checks the import graph against
that table and this list, and ``docs/LAYOUT.md``'s table is generated from it:

1. game: :mod:`aluette_env.game`, the pure rules (standard library only);
   :mod:`aluette_env.models`, the shipped policy files; :mod:`aluette_env._files`,
   reading a named file safely; :mod:`aluette_env.import_layers`, this order.
2. records: :mod:`aluette_env.records`, the match record format, checked by
   replaying it through the rules.
3. observation: :mod:`aluette_env.observation`, the observation layout,
   encoders and the one observation reader (numpy).
4. openspiel: :mod:`aluette_env.openspiel`, the game registered in OpenSpiel
   (optional: ``pip install 'aluette-rl[openspiel]'``).
5. _jit: :mod:`aluette_env._jit`, numba's decorator and the core's rules
   registered for compiled code; :mod:`aluette_env._workers`, process pools
   whose workers end with their parent.
6. render: :mod:`aluette_env.render`, text rendering of a table.
7. aec: :mod:`aluette_env.aec`, the PettingZoo AEC environment, its
   versions :mod:`aluette_env.aluette_v0` and :mod:`aluette_env.aluette_v1`,
   and the signs variant :mod:`aluette_env.aluette_signs_v0`.
8. vector: :mod:`aluette_env.vector`, the batched engine (numba kernels).
9. players: :mod:`aluette_env.players`, the player protocol, spec registry and
   players (the search players roll out on the batched engine).
10. evaluation: :mod:`aluette_env.evaluation`, duplicate evaluation and ratings.
11. apps: :mod:`aluette_env.commands` (the ``aluette`` command and its plugin
    API, run by :mod:`aluette_env.__main__`), :mod:`aluette_env.apps` (its
    subcommands and the games for people) and :mod:`aluette_env.apps.web`
    (the web game, the only part with Starlette and SQLAlchemy).
12. training: :mod:`training`, the trainers, above all of them (torch only
    here), with the backends :mod:`training.sb3` and :mod:`training.rllib`, and
    :mod:`training.expert_iteration`, which distils into SB3's policy.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

__version__ = "0.2.0"

# name -> module that defines it; loaded on first access.
_LAZY = {
    "AGENTS": "aluette_env.game",
    "NUM_CARDS": "aluette_env.game",
    "STRENGTH": "aluette_env.game",
    "card_name": "aluette_env.game",
    "OBS_SIZE": "aluette_env.observation",
    "OBS_LAYOUT": "aluette_env.observation",
    "decode_observation": "aluette_env.observation",
    "env": "aluette_env.aluette_v1",  # the newest version
    "raw_env": "aluette_env.aluette_v1",
    "VectorGame": "aluette_env.vector",
    "load_player": "aluette_env.players",
    "duplicate_eval": "aluette_env.evaluation",
}

__all__ = sorted(_LAZY) + ["__version__"]

#: Old name -> the name it became: each still answers for one release, with a
#: DeprecationWarning, then goes (tests/test_public_api.py keeps the list).
_RENAMED = {"OBS_VERSION": "OBS_LAYOUT"}


def __getattr__(name: str) -> Any:
    if name in _RENAMED:
        warnings.warn(f"aluette_env.{name} is deprecated; use aluette_env.{_RENAMED[name]}",
                      DeprecationWarning, stacklevel=2)
        return __getattr__(_RENAMED[name])
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'aluette_env' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
