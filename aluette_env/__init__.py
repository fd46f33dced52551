"""Aluette, the game of the cow: exact rules, a PettingZoo AEC environment and
tools to train and play against AI players.

``aluette_env.env()`` is the wrapped PettingZoo environment and
``aluette_env.raw_env`` the bare one; importing this package registers
``aluette_v0`` so that ``pettingzoo.make("aec", "aluette_v0")`` finds it.
"""

from .cards import NUM_CARDS, STRENGTH, card_name
from .env import AGENTS, env, raw_env
from .observation import OBS_SIZE, OBS_VERSION, decode_observation

__version__ = "0.1.0"

__all__ = ["AGENTS", "NUM_CARDS", "OBS_SIZE", "OBS_VERSION", "STRENGTH", "card_name",
           "decode_observation", "env", "raw_env", "__version__"]


def _register() -> None:
    try:
        from pettingzoo.env_registry import register
        from pettingzoo.env_registry.registration import aec_registry
    except ImportError:  # PettingZoo without a registry (< 1.26): env() still works
        return
    if "aluette-v0" not in aec_registry:
        register("aec", "aluette_v0", entry_point="aluette_env.env:env")


_register()
