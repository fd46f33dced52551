"""The search players' former home: ``expert`` and ``pimc`` now live in
:mod:`aluette_env.players.search`, one module per job; this module re-exports
their public names so that ``from aluette_env.players.expert import
ExpertPlayer`` and the ``aluette_env.players.expert:...`` entry points of
installations made before the move keep working."""

from .search import (
    LATEST, UNUSED, VERSIONS, WORLD_CHUNK, CardValues, ExpertPlayer, Version, guiding_policy, pimc,
)

__all__ = ["LATEST", "UNUSED", "VERSIONS", "WORLD_CHUNK", "CardValues", "ExpertPlayer", "Version",
           "guiding_policy", "pimc"]
