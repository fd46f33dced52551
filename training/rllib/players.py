"""RLlib run folders as players and as sources for ``aluette export``.

A run folder of the RLlib backend (it has an ``rllib/`` folder of RLlib
checkpoints) or its ``best.pt`` / ``latest.pt`` is a player spec:
``aluette eval --team-a checkpoints/rllib-quick --team-b random``. The folder
plays its ``best.pt`` (else ``latest.pt``), the learner module saved with its
network config. Entry point ``aluette.loaders: rllib``; nothing here imports
ray until a player is loaded.
"""

from __future__ import annotations

from pathlib import Path
import numpy as np

from aluette_env.players import SEED, TEMPERATURE, Loader

from ..runs import CheckpointError


def is_rllib_run(path: str | Path) -> bool:
    p = Path(path)
    return p.is_dir() and (p / "rllib").is_dir()


def resolve_policy(spec: str | Path) -> Path:
    """``best.pt`` / ``latest.pt`` of a run folder, or the file itself."""
    p = Path(spec)
    if p.is_dir():
        for name in ("best.pt", "latest.pt"):
            if (p / name).exists():
                return p / name
        raise CheckpointError(f"{p}: RLlib run folder without best.pt or latest.pt")
    if not p.exists():
        raise CheckpointError(f"{p}: no such policy file")
    return p


def load_module(path: str | Path):
    """(MaskedActorCritic with the saved weights, the saved record) from a ``.pt`` file."""
    import torch
    try:
        from .module import module_spec
    except ImportError:
        raise CheckpointError(f"{path}: an RLlib policy needs Ray: "
                              f"pip install 'aluette-rl[distributed]'") from None
    path = Path(path)
    try:
        record = torch.load(path, map_location="cpu", weights_only=True)
        if not isinstance(record, dict) or record.get("backend") != "rllib":
            raise ValueError("not a policy saved by the RLlib backend")
        module = module_spec(record["model_config"]).build()
        module.set_state(record["state"])
    except Exception as err:  # noqa: BLE001 - any damage to the file
        raise CheckpointError(f"{path}: truncated, corrupt or not an RLlib policy "
                              f"({type(err).__name__}: {err})") from None
    return module.eval(), record


def rllib_player(path: str, temperature: float | None = None, seed: int | None = None):
    """The policy of an RLlib run folder or ``.pt`` file, greedy unless ``temperature``."""
    from .module import ModulePlayer
    module, _ = load_module(resolve_policy(path))
    name = path if temperature is None else f"{path}:temperature={temperature:g}"
    return ModulePlayer(module, name=name, temperature=temperature, seed=seed)


def export_source(spec: str):
    """What ``aluette export`` needs: (policy file, torch module (observation,
    action_mask) -> logits with illegal cards at ILLEGAL_LOGIT, greedy actions of the
    RLModule's own inference pass, learner samples trained)."""
    import torch
    from ray.rllib.core.columns import Columns

    from ..players import mask_logits

    path = resolve_policy(spec)
    module, record = load_module(path)

    class MaskedLogits(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.module = module

        def forward(self, observation, action_mask):
            logits = self.module.pi(self.module.trunk(observation))
            return mask_logits(logits, action_mask)

    def greedy(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            out = module.forward_inference({Columns.OBS: {
                "observation": torch.as_tensor(obs), "action_mask": torch.as_tensor(masks)}})
        return out[Columns.ACTION_DIST_INPUTS].argmax(1).numpy()

    return path, MaskedLogits(), greedy, int(record.get("timesteps", 0))


def _accepts(path: str) -> bool:
    return is_rllib_run(path) or (path.endswith(".pt") and Path(path).is_file())


#: Entry point ``aluette.loaders: rllib``.
LOADER = Loader("rllib", accepts=_accepts, load=rllib_player,
                options={"temperature": TEMPERATURE, "seed": SEED})
