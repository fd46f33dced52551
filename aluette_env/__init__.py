"""Aluette, the game of the cow: exact rules, a PettingZoo AEC environment, a
batched engine, AI players and duplicate evaluation.

``aluette_env.env()`` is the wrapped PettingZoo environment (its newest
version, ``aluette_v1``) and ``aluette_env.raw_env`` the bare one; each
version is a module, PettingZoo's way (``from aluette_env import aluette_v1``,
and ``aluette_v0``, the version-1 observation kept so old experiments repeat),
and ``pettingzoo.make("aec", "aluette_v1")`` finds them once one is loaded
(PettingZoo's registry entry point). Attributes load lazily (PEP 562):
``import aluette_env`` and ``import aluette_env.game`` import no third-party
module.

Layout, lowest layer first: a module imports only from its own layer and the
layers above it in this list (``tests/test_layers.py`` reads the import
graph and enforces it; each module's docstring says what it may import):

1. :mod:`aluette_env.game`: the pure rules (standard library only),
   :mod:`aluette_env.models` (the shipped policy files) and
   :mod:`aluette_env._files` (reading a named file safely); then
   :mod:`aluette_env.records` (the match record format, checked by replaying
   it through the rules).
2. :mod:`aluette_env.observation`: the observation layout, encoders and the
   one observation reader (numpy); :mod:`aluette_env.openspiel`, the game
   registered in OpenSpiel (optional: ``pip install 'aluette-rl[openspiel]'``).
3. :mod:`aluette_env._jit`: numba's decorator and the core's rules
   registered for compiled code; :mod:`aluette_env._workers`: process pools
   whose workers end with their parent.
4. :mod:`aluette_env.render`: text rendering of a table.
5. :mod:`aluette_env.aec`: the PettingZoo AEC environment.
6. :mod:`aluette_env.vector`: the batched engine (numba kernels).
7. :mod:`aluette_env.players`: the player protocol, spec registry and players
   (the search players roll out on the batched engine).
8. :mod:`aluette_env.evaluation`: duplicate evaluation and leagues.
9. :mod:`aluette_env.commands` (the ``aluette`` command and its plugin API)
   and :mod:`aluette_env.apps`: its subcommands and the games for people.

The ``training`` package sits above all of them.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.2.0"

# name -> module that defines it; loaded on first access.
_LAZY = {
    "AGENTS": "aluette_env.game",
    "NUM_CARDS": "aluette_env.game",
    "STRENGTH": "aluette_env.game",
    "card_name": "aluette_env.game",
    "OBS_SIZE": "aluette_env.observation",
    "OBS_VERSION": "aluette_env.observation",
    "decode_observation": "aluette_env.observation",
    "env": "aluette_env.aec",
    "raw_env": "aluette_env.aec",
    "VectorGame": "aluette_env.vector",
    "load_player": "aluette_env.players",
    "duplicate_eval": "aluette_env.evaluation",
}

__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'aluette_env' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
