"""An RLlib run folder's checkpoints, read without Ray: ``rllib/checkpoint_<samples>``
folders, complete once RLlib wrote their ``rllib_checkpoint.json``.

May import: the standard library only (no ray: a damaged run's state is
rebuilt from this list before Ray starts).
"""

from __future__ import annotations

from pathlib import Path

from ..runs import checkpoint_steps


def readable(checkpoint: Path) -> bool:
    """A complete RLlib checkpoint folder (RLlib writes this file last)."""
    return (checkpoint / "rllib_checkpoint.json").is_file()


def rllib_checkpoints(run_dir: Path) -> list[tuple[str, int]]:
    """(name, samples) of the complete RLlib checkpoints (``rllib/checkpoint_<samples>``
    holding ``rllib_checkpoint.json``), newest first: the RLlib backend's
    ``find_checkpoints`` for :func:`training.runs.open_run`."""
    found = [(f"rllib/{p.name}", checkpoint_steps(p))
             for p in (Path(run_dir) / "rllib").glob("checkpoint_*")
             if readable(p)]
    return sorted((f for f in found if f[1] > 0), key=lambda f: f[1], reverse=True)
