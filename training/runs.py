"""Run folders, for every training backend: state, resume, SIGKILL safety.

``checkpoints/<run>/`` holds ``config.yaml`` (the resolved config),
``state.json`` (step count, best score, the opponent pool, evaluation
history), the backend's model saves (SB3: ``latest.zip`` / ``best.zip`` /
``checkpoint_<steps>.zip`` and ``pool/snapshot_<steps>.pt``; RLlib: ``rllib/``
checkpoints and ``latest.pt`` / ``best.pt``),
``metrics.jsonl``, ``learning_curve.png`` and ``tb/`` (TensorBoard). Every
file is written to a temporary name in the same folder, then renamed
(:mod:`training.atomic`).

A run survives a SIGKILL at any moment: ``state.json`` is the commit point.
It names the checkpoint it belongs to and the pool snapshots, all written
before it; a file ``state.json`` no longer names is deleted only after the
new ``state.json`` is in place (:func:`prune`), and ``latest.zip`` and
``best.zip`` (from the ``best_<steps>.zip`` saved at the evaluation) are
copies made after it. On resume, leftovers of an
interrupted write are removed and :func:`prune` runs again. A ``state.json``
that is damaged or missing is rebuilt from the newest readable checkpoint the
backend lists (:func:`open_run`'s ``find_checkpoints``) and ``metrics.jsonl``,
with a line that says what was wrong. Damaged is any field out of its range
(:func:`read_state`), the league's win-rate table too: a row that is not
finite, negative, with more wins than deals or for no league opponent
(``latest``) makes the whole state rebuilt, its table started afresh; with no
checkpoint to rebuild from, the resume is refused in that line.

Resuming checks first, writes after: the folders must take new files, the
config may differ only where a resume can apply it (:data:`FIXED_ON_RESUME`
never; others with ``force``). A resumed run whose first evaluation opponent
changed starts a new best against it: ``best`` compares like with like.

What the backends share besides: the evaluations (:mod:`training.evaluate`),
the learning curve (:mod:`training.curve`) and the stop on a signal
(:mod:`training.stopping`).

May import: the standard library, yaml and pydantic (through
:mod:`training.config`), :mod:`aluette_env`; never torch, a training library
or a backend.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from collections.abc import Callable

from aluette_env.players import PlayerSpecError

from . import atomic
from .atomic import copy_file, write_json, write_text
from .config import ConfigError, TrainConfig, to_yaml


class CheckpointError(PlayerSpecError):
    """A missing, truncated, corrupt or mismatched checkpoint (one-line message)."""


#: What each key of ``state.json`` holds (checked on resume).
STATE_KEYS = {
    "timesteps": (int,), "wall_time_s": (int, float), "best": (dict, type(None)),
    "snapshots": (list,), "evals": (list,), "checkpoint": (str, type(None)),
}


def read_state(run_dir: Path) -> dict:
    path = Path(run_dir) / "state.json"
    if not Path(run_dir).is_dir():
        raise CheckpointError(f"{run_dir}: no such run folder")
    if not path.exists():
        raise CheckpointError(f"{path}: missing (not a training run folder)")
    try:
        state = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise CheckpointError(f"{path}: truncated or corrupt (not valid JSON)") from None
    if not isinstance(state, dict):
        raise CheckpointError(f"{path}: not a run state (expected a JSON object)")
    state.setdefault("checkpoint", None)  # runs from before it was recorded
    for key, kinds in STATE_KEYS.items():
        if key not in state:
            raise CheckpointError(f"{path}: corrupt, key '{key}' is missing")
        value = state[key]
        if not isinstance(value, kinds) or isinstance(value, bool) or \
                (key == "timesteps" and value < 0):
            raise CheckpointError(f"{path}: corrupt, '{key}' is {value!r}")
    if not all(isinstance(n, str) and n for n in state["snapshots"]):
        raise CheckpointError(f"{path}: corrupt, 'snapshots' must list snapshot names")
    from .league import check_league
    try:  # the PFSP win-rate table (selfplay.pfsp)
        check_league(state.get("league", {}))
    except ValueError as err:
        raise CheckpointError(f"{path}: corrupt, 'league' {err}") from None
    return state


def new_state() -> dict:
    """``state.json`` of a run that has not trained yet."""
    return {"timesteps": 0, "wall_time_s": 0.0, "best": None, "snapshots": [], "evals": [],
            "checkpoint": None}


def read_metrics(run_dir: Path) -> list[dict]:
    """The evaluation records of ``metrics.jsonl`` that can be read (a damaged line is
    skipped), in step order."""
    path = Path(run_dir) / "metrics.jsonl"
    records = []
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return []
    for line in lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get("timesteps"), int) \
                and isinstance(record.get("results"), dict) \
                and isinstance(record.get("wall_time_s"), (int, float)):
            records.append(record)
    return sorted(records, key=lambda r: r["timesteps"])


def rebuild_state(run_dir: Path, cfg: TrainConfig, checkpoint: str, steps: int) -> dict:
    """A ``state.json`` for a run whose own is damaged, from what else the run
    holds: the checkpoint ``checkpoint`` (at ``steps`` samples), the evaluations of
    ``metrics.jsonl`` up to it (the best among them against the first evaluation
    opponent), the newest ``pool/`` snapshots up to it (SB3's; an RLlib pool
    restarts empty). Wall time is the last evaluation's."""
    run_dir = Path(run_dir)
    evals = [e for e in read_metrics(run_dir) if e["timesteps"] <= steps]
    main = cfg.eval.opponents[0]
    scored = [e for e in evals if main in e["results"]]
    best = None
    if scored:
        top = max(scored, key=lambda e: e["results"][main]["points_per_deal"])
        best = {"timesteps": top["timesteps"], "opponent": main,
                "points_per_deal": top["results"][main]["points_per_deal"]}
    pool = sorted((p for p in (run_dir / "pool").glob("snapshot_*.pt")
                   if 0 <= checkpoint_steps(p) <= steps), key=checkpoint_steps)
    state = new_state()
    state.update(timesteps=steps, checkpoint=checkpoint, evals=evals, best=best,
                 snapshots=[p.name for p in pool[-cfg.selfplay.pool_size:]],
                 wall_time_s=evals[-1]["wall_time_s"] if evals else 0.0)
    if cfg.backend != "sb3":  # the key RLlib runs carry (an SB3 state has none)
        state["backend"] = cfg.backend
    return state


def checkpoint_steps(path: Path) -> int:
    """The sample count in a numbered checkpoint's name (``checkpoint_<steps>.zip``)."""
    try:
        return int(Path(path).stem.split("_", 1)[1])
    except (IndexError, ValueError):
        return -1


def remove_partial_writes(run_dir: Path) -> list[Path]:
    """Delete the temporary files :func:`atomic_path` leaves in a run folder and its
    pool when a process dies mid-write (``.<name>.<random>``); returns them."""
    return atomic.remove_partial_writes(run_dir, Path(run_dir) / "pool")


def publish_best(run_dir: Path, state: dict, suffix: str = ".zip") -> None:
    """Make ``best.zip`` (``best`` + ``suffix``) the model of the best evaluation
    ``state.json`` records, from the ``best_<steps>.zip`` saved at that evaluation.
    Call only after ``state`` is on disk."""
    best = state.get("best")
    if not best:
        return
    pending = Path(run_dir) / f"best_{best['timesteps']}{suffix}"
    if pending.exists():
        copy_file(pending, Path(run_dir) / f"best{suffix}")
        pending.unlink()


def prune(run_dir: Path, state: dict, keep: int) -> None:
    """Delete what the committed ``state.json`` no longer needs: pool snapshots it
    does not name, best models it does not record, numbered checkpoints beyond
    the ``keep`` newest (never the one it names). Call only after ``state`` is
    on disk (and :func:`publish_best`)."""
    run_dir = Path(run_dir)
    named = set(state["snapshots"])
    for p in (run_dir / "pool").glob("snapshot_*.pt"):
        if p.name not in named:
            p.unlink(missing_ok=True)
    for p in run_dir.glob("best_*.zip"):
        p.unlink(missing_ok=True)
    numbered = sorted(run_dir.glob("checkpoint_*.zip"), key=checkpoint_steps)
    for old in numbered[:-keep]:
        if old.name != state.get("checkpoint"):
            old.unlink(missing_ok=True)


def unwritable(folder: Path) -> str | None:
    """Why this process cannot create files in ``folder`` (None when it can): a real
    write, since permission bits do not tell (root, read-only mounts)."""
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-test-"):
            pass
    except OSError as err:
        return err.strerror or type(err).__name__
    return None


def check_writable(run_dir: Path) -> None:
    """The run folder and the folders a resumed run writes in (``pool/``, ``rllib/``,
    ``tb/`` and its logs) take new files; ConfigError naming the first that does not."""
    run_dir = Path(run_dir)
    folders = [run_dir] + [run_dir / sub for sub in ("pool", "rllib", "tb")]
    folders += sorted(p for p in (run_dir / "tb").glob("*") if p.is_dir())
    for folder in folders:
        if folder.is_dir():
            why = unwritable(folder)
            if why:
                raise ConfigError(f"{folder}: cannot write in the run folder ({why}); make it "
                                  f"writable or copy the run elsewhere and resume the copy")


#: Settings a resumed run may change without --force: where it stops, and whether
#: its update is compiled (the same numbers to float rounding).
RESUMABLE_CHANGES = ("total_timesteps", "torch_compile")
#: Settings no resume may change, even forced: the checkpoint holds what they built
#: (the backend's files, the network's layers, the start it took).
FIXED_ON_RESUME = {
    "backend": "the checkpoints are that backend's",
    "network.": "the checkpoint holds the network it was built with; a new network starts "
                "from fresh weights in a new run",
    "pretrain": "the behaviour-cloning start happened when the run began",
}


def config_diff(old: dict, new: dict, prefix: str = "") -> list[str]:
    """``key.path: old -> new`` for every setting that differs."""
    out = []
    for k in sorted(set(old) | set(new)):
        a, b = old.get(k), new.get(k)
        if isinstance(a, dict) and isinstance(b, dict):
            out += config_diff(a, b, f"{prefix}{k}.")
        elif a != b:
            out.append(f"{prefix}{k}: {a!r} -> {b!r}")
    return out


def with_defaults(saved: dict, model) -> dict:
    """``saved`` (a run's config.yaml) with the settings it lacks at their
    defaults in ``model`` (a config class), section by section (a mapping that
    is a setting's value, like ``selfplay.opponents``, is taken as it is)."""
    from pydantic import BaseModel
    out = dict(saved)
    for name, field in model.model_fields.items():
        kind = field.annotation
        if name not in out:
            if field.is_required():
                continue
            default = field.get_default(call_default_factory=True)
            out[name] = default.model_dump() if isinstance(default, BaseModel) else default
        elif isinstance(kind, type) and issubclass(kind, BaseModel) and isinstance(out[name], dict):
            out[name] = with_defaults(out[name], kind)
    return out


def _never_trained(run_dir: Path) -> bool:
    """A run folder that a start left before anything was trained (a start that
    failed, or was stopped, before its first checkpoint)."""
    try:
        state = read_state(run_dir)
    except CheckpointError:
        return False
    return (state == new_state() and not list(run_dir.glob("*.zip"))
            and not list(run_dir.glob("*.pt")) and not (run_dir / "rllib").exists())


def _resume_state(run_dir: Path, cfg: TrainConfig, find_checkpoints
                  ) -> tuple[dict, str | None]:
    """The state of ``run_dir`` and None; or, for a damaged ``state.json``, one
    rebuilt from the newest checkpoint ``find_checkpoints(run_dir)`` lists (name,
    samples) and the line that says so (nothing is written here)."""
    try:
        return read_state(run_dir), None
    except CheckpointError as err:
        damaged = (run_dir / "config.yaml").exists()  # a run folder, its state unreadable
        found = find_checkpoints(run_dir) if damaged and find_checkpoints else []
        if not found:
            if damaged and find_checkpoints:
                raise CheckpointError(f"{err}, and the run holds no readable checkpoint to "
                                      f"rebuild it from") from None
            raise
        name, steps = found[0]
        state = rebuild_state(run_dir, cfg, name, steps)
        return state, (f"{err}; rebuilt it from {name} ({steps:,} samples), "
                       f"{len(state['evals'])} evaluations of metrics.jsonl and "
                       f"{len(state['snapshots'])} pool snapshots")


def saved_config_diff(run_dir: Path, cfg) -> list[str]:
    """How ``cfg`` differs from the settings ``run_dir/config.yaml`` holds
    (:func:`config_diff`; a setting newer than the run is as its default: the run
    never used it). CheckpointError naming the file when it is unreadable or no
    mapping of settings."""
    from .config import read_yaml
    config_path = Path(run_dir) / "config.yaml"
    try:
        saved = read_yaml(config_path, str(config_path))
    except ConfigError as err:
        raise CheckpointError(f"{err} (the run's config)") from None
    if not isinstance(saved, dict):
        raise CheckpointError(f"{config_path}: empty or corrupt (not a mapping of settings)")
    return config_diff(with_defaults(saved, type(cfg)), cfg.model_dump())


def open_run(cfg: TrainConfig, resume: Path | None = None, force: bool = False,
             find_checkpoints: Callable[[Path], list[tuple[str, int]]] | None = None,
             log: Callable[[str], None] = print,
             force_hint: str | None = None) -> tuple[Path, dict]:
    """The run folder and its state: a new one for ``cfg``, or ``resume`` checked
    against ``cfg`` (ConfigError when the configs differ, unless ``force``; never
    for :data:`FIXED_ON_RESUME`). Nothing is written before every check passed.
    ``find_checkpoints`` lists the backend's readable checkpoints, newest first,
    to rebuild a damaged ``state.json``; ``force_hint`` says how the caller's user
    resumes a run whose config differs (default: pass --force)."""
    if resume is not None:
        run_dir = Path(resume)
        if not run_dir.is_dir():
            raise CheckpointError(f"{run_dir}: no such run folder")
        check_writable(run_dir)
        rebuilt = None
        if (run_dir / "config.yaml").exists() and not (run_dir / "state.json").exists() \
                and not list(run_dir.glob("*.zip")) and not (run_dir / "rllib").exists():
            # Stopped between writing config.yaml and the first state.json.
            state = new_state()
        else:
            state, rebuilt = _resume_state(run_dir, cfg, find_checkpoints)
        diff = saved_config_diff(run_dir, cfg)
        fixed = [d for d in diff if d.startswith(tuple(FIXED_ON_RESUME))]
        if fixed:
            key = next(k for k in FIXED_ON_RESUME if fixed[0].startswith(k))
            raise ConfigError(f"{run_dir}: cannot resume with {fixed[0]} ({FIXED_ON_RESUME[key]});"
                              f" resume with the run's own setting, or start a new run "
                              f"(--set run_name=...)")
        blocking = [d for d in diff if not d.startswith(RESUMABLE_CHANGES)]
        if blocking and not force:
            raise ConfigError(f"{run_dir}: the config differs from the run's "
                              f"({'; '.join(blocking[:5])}); "
                              f"{force_hint or 'pass --force to resume anyway'}")
        backend = state.get("backend", "sb3" if state["checkpoint"] else None)
        if backend is not None and backend != cfg.backend:
            raise ConfigError(f"{run_dir}: a run of backend {backend}, and the config says "
                              f"backend {cfg.backend}; resume it with a config of backend "
                              f"{backend}")
        best = state.get("best")
        if best and best.get("opponent") != cfg.eval.opponents[0]:
            log(f"the best model so far scored against {best.get('opponent')}; the first "
                f"evaluation opponent is now {cfg.eval.opponents[0]}, so the next evaluation "
                f"starts a new best against it")
        if rebuilt:
            log(rebuilt)
        if rebuilt or not (run_dir / "state.json").exists():
            write_json(run_dir / "state.json", state)
        if diff:
            write_text(run_dir / "config.yaml", to_yaml(cfg))
        return run_dir, state
    run_dir = Path(cfg.output_dir) / cfg.run_name
    if (run_dir / "state.json").exists():
        if not _never_trained(run_dir):
            raise ConfigError(f"{run_dir} already holds a run; resume it with --resume "
                              f"{run_dir} or choose another run_name (--set run_name=...)")
        log(f"{run_dir}: a start that never reached its first checkpoint; starting over in it")
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        write_text(run_dir / "config.yaml", to_yaml(cfg))
        # From here on the folder resumes, even if the first checkpoint never comes.
        write_json(run_dir / "state.json", new_state())
    except OSError as err:
        raise ConfigError(f"{run_dir}: cannot create the run folder ({err.strerror})") from None
    return run_dir, new_state()


