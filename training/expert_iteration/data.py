"""Expert iteration's data: the data set's format and the shards that make it.

A data set is one folder: ``dataset.json`` (:data:`MANIFEST`: the format, the
settings that made it, the field descriptions of :data:`FIELDS`) and
``shard-NNNNN.npz`` files, each holding ``positions_per_shard`` labelled
positions as NumPy arrays. :func:`generate` makes (or completes) one: shard
``k`` is self-play positions of the policy labelled by the expert
(:func:`label_shard`, a function of its seed), written atomically, computed by
``data.workers`` processes; a stopped or killed run computes the missing or
damaged shards only. :func:`load_dataset` reads one or more data sets.

May import: numpy and :mod:`aluette_env`; never torch or SB3.
"""

from __future__ import annotations

import json
import multiprocessing
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from aluette_env.game import NUM_CARDS
from aluette_env.observation import LAYOUT_KEY, OBS_LAYOUT, OBS_SIZE, saved_layout

from ..atomic import atomic_path, remove_partial_writes, write_json
from ..config import ConfigError, DataConfig, check_policy, folder_problem

FORMAT = "aluette-expert-data"
FORMAT_VERSION = 1
MANIFEST = "dataset.json"
#: The arrays of a shard: name -> (dtype, shape after the position axis, meaning).
FIELDS: dict[str, tuple[str, tuple[int, ...], str]] = {
    "observations": ("int8", (OBS_SIZE,), ("the acting seat's observation (the manifest's "
                     "obs_layout)")),
    "masks": ("int8", (NUM_CARDS,), "its legal cards (1: legal)"),
    "values": ("float32", (NUM_CARDS,), ("the expert's mean deal points for the acting seat's "
               "team if it plays that card (NaN: illegal card)")),
    "stderr": ("float32", (NUM_CARDS,), ("standard error of each card's value minus the value "
               "of the expert's card, paired world by world (NaN: illegal card)")),
    "best": ("int8", (), ("the card of the best mean value, or the policy's card when no "
             "card gains over it by more than one standard error (every play searched)")),
    "move": ("int8", (), ("the expert's move in play: as best, among the plays the guiding "
             "policy finds plausible (min_prob) only")),
    "worlds": ("int16", (), "worlds searched (0: every legal card is worth the same)"),
    "policy": ("float32", (NUM_CARDS,), "the guiding policy's card probabilities"),
    "played": ("int8", (), "the card the self-play policy played there"),
    "returns": ("float32", (), ("the acting seat's team points from this decision to the end "
                "of the match in self-play (the value head's target)")),
}


def _settings(cfg: DataConfig, policy: str) -> dict[str, Any]:
    """What makes a data set's shards what they are (a resume must match it)."""
    keep = cfg.model_dump(exclude={"shards", "workers"})
    return {"policy": policy, **keep}


def shard_path(out: Path, k: int) -> Path:
    return Path(out) / f"shard-{k:05d}.npz"


def label_shard(policy: str, cfg: DataConfig, k: int) -> dict[str, np.ndarray]:
    """Shard ``k``: self-play positions of ``policy`` and the expert's labels."""
    from aluette_env.players import load_player
    from aluette_env.players.search import ExpertPlayer

    from ..imitation import demonstrations
    seed = cfg.seed * 100003 + k
    player = load_player(policy, seed=seed)
    player.temperature = float(cfg.temperature)  # sampled self-play (ONNX players)
    demos = demonstrations(player, 1, num_games=cfg.games_per_shard, num_deals=cfg.num_deals,
                           seed=seed)
    rng = np.random.default_rng(seed)
    choices = np.flatnonzero(demos.masks.sum(1) > 1)
    pick = np.sort(rng.choice(choices, min(cfg.positions_per_shard, len(choices)),
                              replace=False))
    n = len(pick)
    out = {name: np.zeros((n, *shape), dtype) for name, (dtype, shape, _) in FIELDS.items()}
    out["observations"][:] = demos.observations[pick]
    out["masks"][:] = demos.masks[pick]
    out["played"][:] = demos.actions[pick]
    out["returns"][:] = demos.returns[pick]
    out["values"][:] = np.nan
    out["stderr"][:] = np.nan
    expert = ExpertPlayer(worlds=cfg.worlds, policy=policy, seed=seed)
    out["policy"][:] = expert._probabilities(out["observations"], out["masks"])
    for i in range(n):
        cv = expert.card_values(out["observations"][i], out["masks"][i])
        out["values"][i, cv.cards] = cv.value
        out["stderr"][i, cv.cards] = cv.stderr
        out["best"][i], out["worlds"][i] = cv.best, cv.worlds
        out["move"][i] = expert_move(expert, cv, out["observations"][i], out["masks"][i])
    return out


def expert_move(expert, cv, observation: np.ndarray, mask: np.ndarray) -> int:
    """The expert's move in play, from the card values of the same position (the
    same worlds): its choice among every play (``cv.best``) is its move when that
    play is one it would search (policy probability of its class at least
    ``min_prob``) or the policy's own; otherwise it searches again, as in play."""
    if cv.worlds == 0:
        return int(cv.best)
    # card_values leaves the position's play classes and their policy probabilities.
    if expert._class_prob[expert._card_class[cv.best]] >= expert.min_prob:
        return int(cv.best)
    return int(expert.act_batch(observation[None, :], mask[None, :])[0])


def _write_shard(out: Path, k: int, arrays: dict[str, np.ndarray]) -> None:
    with atomic_path(shard_path(out, k)) as tmp, open(tmp, "wb") as f:
        np.savez(f, **arrays)


def _worker(job: tuple[str, dict, str, int]) -> tuple[int, int, float]:
    policy, cfg_data, out, k = job
    start = time.perf_counter()
    arrays = label_shard(policy, DataConfig(**cfg_data), k)
    _write_shard(Path(out), k, arrays)
    return k, len(arrays["best"]), time.perf_counter() - start


def shard_problem(path: Path) -> str | None:
    """Why the shard file at ``path`` cannot be used (truncated, damaged, other
    arrays), or None: every array is read, so the zip's checksums are checked."""
    try:
        with np.load(path) as z:
            shard = {name: z[name] for name in FIELDS}
    except Exception as err:  # noqa: BLE001 - any damaged file
        return f"unreadable ({type(err).__name__})"
    n = len(shard["best"])
    for name, (dtype, shape, _) in FIELDS.items():
        if shard[name].dtype != np.dtype(dtype) or shard[name].shape != (n, *shape):
            return (f"{name} is {shard[name].dtype} {shard[name].shape}; expected {dtype} "
                    f"[n, *{shape}]")
    return None


def check_data_folder(out: Path) -> None:
    """``out`` can hold a data set: a new or empty folder, or one with its manifest
    (a data set to complete); never a file, nor a folder of other things (a
    training run's). ConfigError naming it otherwise, before anything is written."""
    problem = folder_problem(out)
    if problem:
        raise ConfigError(f"--out {str(out)[:200]}: cannot create or write it ({problem})")
    if out.is_dir() and not (out / MANIFEST).exists():
        others = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
        if others:
            raise ConfigError(f"--out {str(out)[:200]}: a folder of other files ("
                              f"{', '.join(others[:3])}{', ...' if len(others) > 3 else ''}) "
                              f"and no {MANIFEST}: not an expert data set; give a new or empty "
                              f"folder")


def open_dataset(out: Path, cfg: DataConfig, policy: str, log=print) -> list[int]:
    """Create or check the folder's manifest; returns the shards still to compute:
    the missing ones, and any present but damaged (each said, and labelled again)."""
    out = Path(out)
    check_data_folder(out)
    settings = _settings(cfg, policy)
    manifest = out / MANIFEST
    remove_partial_writes(out)  # what a write killed in an earlier run left
    if manifest.exists():
        try:
            old = json.loads(manifest.read_text())
        except (OSError, ValueError):
            raise ConfigError(f"{manifest}: unreadable manifest; remove the folder to start "
                              f"again") from None
        if not isinstance(old, dict) or not isinstance(old.get("settings"), dict):
            raise ConfigError(f"{manifest}: not an expert data set's manifest (no settings); "
                              f"remove the folder to start again")
        if old.get("format") != FORMAT or old["settings"] != settings:
            theirs = old["settings"]
            diff = sorted(key for key in {**settings, **theirs}
                          if theirs.get(key) != settings.get(key)) or ["format"]
            raise ConfigError(f"{out}: a data set made with other settings ({', '.join(diff)}"
                              f" differ); use another folder")
    try:
        write_json(manifest, {
            "format": FORMAT, "version": FORMAT_VERSION, LAYOUT_KEY: OBS_LAYOUT,
            "obs_size": OBS_SIZE, "settings": settings, "shards": cfg.shards,
            "fields": {name: {"dtype": d, "shape": ["n", *s], "meaning": m}
                       for name, (d, s, m) in FIELDS.items()}})
    except OSError as err:
        raise ConfigError(f"--out {str(out)[:200]}: cannot write {MANIFEST} "
                          f"({err.strerror or err})") from None
    todo = []
    for k in range(cfg.shards):
        path = shard_path(out, k)
        if not path.exists():
            todo.append(k)
            continue
        problem = shard_problem(path)
        if problem:
            log(f"shard {k}: {path} is damaged ({problem}); it is labelled again")
            todo.append(k)
    return todo


def generate(out: str | Path, cfg: DataConfig, policy: str, log=print) -> Path:
    """Make (or complete) the data set in ``out``: every missing shard, by
    ``cfg.workers`` processes. Returns the folder."""
    out = Path(out)
    check_policy(policy)
    todo = open_dataset(out, cfg, policy, log)
    done = cfg.shards - len(todo)
    log(f"expert data {out}: {done} of {cfg.shards} shards present, {len(todo)} to label "
        f"({cfg.positions_per_shard} positions each, expert worlds={cfg.worlds}, policy "
        f"{policy}, {cfg.workers} worker{'s' if cfg.workers > 1 else ''})")
    if not todo:
        return out
    start = time.perf_counter()
    jobs = [(policy, cfg.model_dump(), str(out), k) for k in todo]
    labelled = 0
    if cfg.workers == 1:
        results = map(_worker, jobs)
        pool = None
    else:
        pool = multiprocessing.get_context("spawn").Pool(cfg.workers)
        results = pool.imap_unordered(_worker, jobs)
    # A plain kill (SIGTERM) ends the workers too: the finally below runs.
    previous = signal.signal(signal.SIGTERM, _exit_on_term) if pool is not None else None
    try:
        for k, n, seconds in results:
            labelled += n
            done += 1
            rate = labelled / (time.perf_counter() - start)
            log(f"shard {k}: {n} positions in {seconds:.0f} s; {done}/{cfg.shards} shards, "
                f"{rate:.2f} positions/s")
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
            signal.signal(signal.SIGTERM, previous)
    return out


def _exit_on_term(signum, frame) -> None:
    raise SystemExit(128 + signum)


@dataclass
class ExpertData:
    """A whole data set in memory: FIELDS name -> array (positions first)."""

    arrays: dict[str, np.ndarray]
    manifest: dict

    def __len__(self) -> int:
        return len(self.arrays["best"])

    def __getitem__(self, name: str) -> np.ndarray:
        return self.arrays[name]

    def subset(self, index: np.ndarray) -> ExpertData:
        return ExpertData({k: v[index] for k, v in self.arrays.items()}, self.manifest)


def load_dataset(*folders: str | Path) -> ExpertData:
    """Every shard of one or more data set folders; ValueError naming a bad file."""
    arrays: dict[str, list[np.ndarray]] = {name: [] for name in FIELDS}
    manifest: dict = {}
    for folder in folders:
        folder = Path(folder)
        try:
            manifest = json.loads((folder / MANIFEST).read_text())
        except (OSError, ValueError):
            raise ValueError(f"{folder}: no readable {MANIFEST}; not an expert data set") from None
        if manifest.get("format") != FORMAT or saved_layout(manifest) != OBS_LAYOUT:
            raise ValueError(f"{folder}: format {manifest.get('format')!r} observation layout "
                             f"{saved_layout(manifest)!r}; expected {FORMAT!r} layout "
                             f"{OBS_LAYOUT}")
        for path in sorted(folder.glob("shard-*.npz")):
            problem = shard_problem(path)
            if problem:
                raise ValueError(f"{path}: {problem} shard")
            with np.load(path) as z:
                for name in FIELDS:
                    arrays[name].append(z[name])
    if not arrays["best"]:
        raise ValueError(f"{', '.join(map(str, folders))}: no shards")
    return ExpertData({k: np.concatenate(v) for k, v in arrays.items()}, manifest)
