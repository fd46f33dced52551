"""SB3 checkpoints: saving and loading MaskablePPO zips, and run folders or zips
as players (entry point ``aluette.loaders: sb3``)."""

from __future__ import annotations

from pathlib import Path

from aluette_env.observation import OBS_SIZE, SIGNS_OBS_SIZE
from aluette_env.players import SEED, TEMPERATURE, Loader

from ..atomic import atomic_path
from ..runs import CheckpointError


def save_model(model, path: Path, run_state: bytes | None = None) -> None:
    """The model's zip, with ``run_state`` (:mod:`training.sb3.resume`) in it if given:
    one file, renamed into place whole."""
    with atomic_path(path, suffix=".zip") as tmp:
        model.save(tmp)
        if run_state is not None:
            from .resume import save_in
            save_in(tmp, run_state)


def load_model(path: Path, env=None, device: str = "cpu", cls=None, **settings):
    """MaskablePPO (or ``cls``) from a checkpoint zip; CheckpointError naming the file otherwise.
    ``settings`` (PPO hyperparameters) replace the saved ones."""
    import zipfile

    from sb3_contrib import MaskablePPO
    cls = cls or MaskablePPO
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"{path}: no such checkpoint")
    if not zipfile.is_zipfile(path):
        raise CheckpointError(f"{path}: truncated or not a checkpoint (not a zip archive)")
    try:
        model = cls.load(path, env=env, device=device, **settings)
    except ValueError as err:
        raise CheckpointError(f"{path}: does not match this environment ({err})") from None
    except Exception as err:  # noqa: BLE001 - any decoding failure of a damaged file
        raise CheckpointError(f"{path}: corrupt checkpoint ({type(err).__name__}: {err})") from None
    from .network import PRIVILEGED_INPUT, SPARSE_INPUT
    shape = getattr(model.observation_space, "shape", None)
    # A learner that read the engine's index lists (network.sparse) still plays
    # from the dense observation: its trunk reads both. A learner of the signs
    # variant reads its observation (SIGNS_OBS_SIZE) and chooses among 58 actions.
    if shape not in ((OBS_SIZE,), (SPARSE_INPUT,), (PRIVILEGED_INPUT,), (SIGNS_OBS_SIZE,)):
        raise CheckpointError(f"{path}: observation size {shape} does not match this "
                              f"environment's ({OBS_SIZE},) or the signs variant's "
                              f"({SIGNS_OBS_SIZE},)")
    return model


def resolve_checkpoint(spec: str) -> Path:
    """A checkpoint zip, or a run folder (its best.zip, else latest.zip)."""
    p = Path(spec)
    if p.is_dir():
        for name in ("best.zip", "latest.zip"):
            if (p / name).exists():
                return p / name
        raise CheckpointError(f"{p}: run folder without best.zip or latest.zip")
    return p


def checkpoint_player(path: str, temperature: float | None = None, seed: int | None = None):
    """The policy of a checkpoint zip or run folder, greedy unless ``temperature``."""
    from .network import PolicyPlayer
    model = load_model(resolve_checkpoint(path))
    name = path if temperature is None else f"{path}:temperature={temperature:g}"
    return PolicyPlayer(model.policy, name=name, temperature=temperature, seed=seed)


def _accepts(path: str) -> bool:
    p = Path(path)
    return path.endswith(".zip") or (p.is_dir() and (p / "state.json").exists()
                                     and not (p / "rllib").is_dir())  # an RLlib run


#: Entry point ``aluette.loaders: sb3``.
LOADER = Loader("sb3", accepts=_accepts, load=checkpoint_player,
                options={"temperature": TEMPERATURE, "seed": SEED})
