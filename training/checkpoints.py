"""Run folders, atomic checkpoint writes, and loading checkpoints as players.

``checkpoints/<run>/`` holds ``config.yaml`` (the resolved config),
``state.json`` (step count, best score, the opponent pool, evaluation
history), ``latest.zip`` / ``best.zip`` / ``checkpoint_<steps>.zip`` (SB3
MaskablePPO saves), ``pool/snapshot_<steps>.pt`` (opponent snapshots),
``metrics.jsonl``, ``learning_curve.png`` and ``tb/`` (TensorBoard).
Every file is written to a temporary name in the same folder, then renamed.
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from aluette_env.observation import OBS_SIZE
from aluette_env.players import PlayerSpecError, register_loader


class CheckpointError(PlayerSpecError):
    """A missing, truncated, corrupt or mismatched checkpoint (one-line message)."""


@contextmanager
def atomic_path(path: Path, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it over ``path`` on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix or path.suffix)
    os.close(fd)
    try:
        yield Path(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the usual file mode
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_text(path: Path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def write_json(path: Path, data: Any) -> None:
    write_text(path, json.dumps(data, indent=2) + "\n")


def append_jsonl(path: Path, record: dict) -> None:
    """Append one line; the file is rewritten atomically so a crash never leaves half a line."""
    old = path.read_text() if path.exists() else ""
    write_text(path, old + json.dumps(record) + "\n")


def save_model(model, path: Path) -> None:
    with atomic_path(path, suffix=".zip") as tmp:
        model.save(tmp)


def read_state(run_dir: Path) -> dict:
    path = Path(run_dir) / "state.json"
    if not path.exists():
        raise CheckpointError(f"{path}: missing (not a training run folder, or no checkpoint yet)")
    try:
        return json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise CheckpointError(f"{path}: truncated or corrupt (not valid JSON)") from None


def load_model(path: Path, env=None, device: str = "cpu", cls=None):
    """MaskablePPO (or ``cls``) from a checkpoint zip; CheckpointError naming the file otherwise."""
    import zipfile

    from sb3_contrib import MaskablePPO
    cls = cls or MaskablePPO
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"{path}: no such checkpoint")
    if not zipfile.is_zipfile(path):
        raise CheckpointError(f"{path}: truncated or not a checkpoint (not a zip archive)")
    try:
        model = cls.load(path, env=env, device=device)
    except ValueError as err:
        raise CheckpointError(f"{path}: does not match this environment ({err})") from None
    except Exception as err:  # noqa: BLE001 - any decoding failure of a damaged file
        raise CheckpointError(f"{path}: corrupt checkpoint ({type(err).__name__}: {err})") from None
    shape = getattr(model.observation_space, "shape", None)
    if shape != (OBS_SIZE,):
        raise CheckpointError(f"{path}: observation size {shape} does not match this "
                              f"environment's ({OBS_SIZE},)")
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


def checkpoint_player(spec: str, seed: int | None = None):
    from .policy import PolicyPlayer
    name, _, opts = spec.partition("::")
    path = resolve_checkpoint(name)
    model = load_model(path)
    temperature = float(opts.removeprefix("temperature=")) if opts.startswith("temperature=") else 0.0
    return PolicyPlayer(model.policy, name=str(spec), temperature=temperature, seed=seed)


def _accepts(spec: str) -> bool:
    name = spec.partition("::")[0]
    p = Path(name)
    return name.endswith(".zip") or (p.is_dir() and (p / "state.json").exists())


register_loader(_accepts, checkpoint_player)
