"""Run folders, for every training backend: atomic writes, state, the learning curve.

``checkpoints/<run>/`` holds ``config.yaml`` (the resolved config),
``state.json`` (step count, best score, the opponent pool, evaluation
history), the backend's model saves (SB3: ``latest.zip`` / ``best.zip`` /
``checkpoint_<steps>.zip`` and ``pool/snapshot_<steps>.pt``; RLlib: ``rllib/``
checkpoints and ``latest.pt`` / ``best.pt``),
``metrics.jsonl``, ``learning_curve.png`` and ``tb/`` (TensorBoard). Every
file is written to a temporary name in the same folder, then renamed.

A run survives a SIGKILL at any moment: ``state.json`` is the commit point.
It names the checkpoint it belongs to and the pool snapshots, all written
before it; a file ``state.json`` no longer names is deleted only after the
new ``state.json`` is in place (:func:`prune`), and ``latest.zip`` and
``best.zip`` (from the ``best_<steps>.zip`` saved at the evaluation) are
copies made after it. On resume, leftovers of an
interrupted write are removed and :func:`prune` runs again.

May import: the standard library, numpy, yaml, matplotlib (for the curve),
:mod:`aluette_env`;
never torch or a training library.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from aluette_env.players import PlayerSpecError

from .config import ConfigError, TrainConfig, to_yaml


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
    return state


def new_state() -> dict:
    """``state.json`` of a run that has not trained yet."""
    return {"timesteps": 0, "wall_time_s": 0.0, "best": None, "snapshots": [], "evals": [],
            "checkpoint": None}


def checkpoint_steps(path: Path) -> int:
    """The sample count in a numbered checkpoint's name (``checkpoint_<steps>.zip``)."""
    try:
        return int(Path(path).stem.split("_", 1)[1])
    except (IndexError, ValueError):
        return -1


def remove_partial_writes(run_dir: Path) -> list[Path]:
    """Delete the temporary files :func:`atomic_path` leaves when a process dies
    mid-write (``.<name>.<random>``); returns them."""
    run_dir = Path(run_dir)
    gone = []
    for folder in (run_dir, run_dir / "pool"):
        for p in folder.glob(".*.*"):
            if p.is_file():
                p.unlink(missing_ok=True)
                gone.append(p)
    return gone


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


def copy_file(src: Path, dst: Path) -> None:
    """Atomic copy (``latest.zip`` from the checkpoint ``state.json`` names)."""
    import shutil
    with atomic_path(dst) as tmp:
        shutil.copyfile(src, tmp)


#: Settings a resumed run may change without --force: where it stops.
RESUMABLE_CHANGES = ("total_timesteps",)


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


def open_run(cfg: TrainConfig, resume: Path | None = None, force: bool = False
             ) -> tuple[Path, dict]:
    """The run folder and its state: a new one for ``cfg``, or ``resume`` checked
    against ``cfg`` (ConfigError when the configs differ, unless ``force``)."""
    import yaml
    if resume is not None:
        run_dir = Path(resume)
        if (run_dir / "config.yaml").exists() and not (run_dir / "state.json").exists() \
                and not list(run_dir.glob("*.zip")):
            # Stopped between writing config.yaml and the first state.json.
            state = new_state()
            write_json(run_dir / "state.json", state)
        else:
            state = read_state(run_dir)
        try:
            saved = yaml.safe_load((run_dir / "config.yaml").read_text())
        except (OSError, yaml.YAMLError):
            raise CheckpointError(f"{run_dir / 'config.yaml'}: missing or corrupt") from None
        if not isinstance(saved, dict):
            raise CheckpointError(f"{run_dir / 'config.yaml'}: empty or corrupt (not a mapping "
                                  f"of settings)")
        diff = config_diff(saved, cfg.model_dump())
        blocking = [d for d in diff if not d.startswith(RESUMABLE_CHANGES)]
        if blocking and not force:
            raise ConfigError(f"{run_dir}: the config differs from the run's "
                              f"({'; '.join(blocking[:5])}); pass --force to resume anyway")
        if diff:
            write_text(run_dir / "config.yaml", to_yaml(cfg))
        return run_dir, state
    run_dir = Path(cfg.output_dir) / cfg.run_name
    if (run_dir / "state.json").exists():
        raise ConfigError(f"{run_dir} already holds a run; resume it with --resume {run_dir} "
                          f"or choose another run_name (--set run_name=...)")
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        write_text(run_dir / "config.yaml", to_yaml(cfg))
        # From here on the folder resumes, even if the first checkpoint never comes.
        write_json(run_dir / "state.json", new_state())
    except OSError as err:
        raise ConfigError(f"{run_dir}: cannot create the run folder ({err.strerror})") from None
    return run_dir, new_state()


def plot_curve(evals: list[dict], path: Path, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    opponents = list(evals[0]["results"]) if evals else []
    for opp in opponents:
        xs = np.array([e["timesteps"] for e in evals])
        ws = np.array([e["wall_time_s"] for e in evals]) / 60
        ys = np.array([e["results"][opp]["points_per_deal"] for e in evals])
        lo = np.array([e["results"][opp]["points_per_deal_ci95"][0] for e in evals])
        hi = np.array([e["results"][opp]["points_per_deal_ci95"][1] for e in evals])
        for ax, x in ((axes[0], xs / 1e6), (axes[1], ws)):
            ax.plot(x, ys, marker="o", label=f"vs {opp}")
            ax.fill_between(x, lo, hi, alpha=0.2)
    axes[0].set_xlabel("learner samples (millions)")
    axes[1].set_xlabel("wall time (minutes)")
    axes[0].set_ylabel("points per deal (duplicate, 95% CI)")
    for ax in axes:
        ax.axhline(0, color="grey", lw=0.8)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=90, format="png")
    plt.close(fig)


def evaluate_run(cfg: TrainConfig, player, state: dict, run_dir: Path, timesteps: int,
                 wall_time_s: float, save_best: Callable[[], None],
                 scalar: Callable[[str, float], None]) -> dict:
    """Duplicate evaluation of ``player`` against ``cfg.eval.opponents``, recorded in
    the run: appended to ``state["evals"]`` and ``metrics.jsonl``; ``save_best()``
    when the score against the first opponent is the best yet; the learning curve;
    ``scalar(tag, value)`` for each TensorBoard figure. Returns the record."""
    from aluette_env.evaluation import duplicate_eval
    t0 = time.perf_counter()
    results = {}
    for spec in cfg.eval.opponents:
        res = duplicate_eval(player, spec, deals=cfg.eval.deals, seed=cfg.eval.seed)
        results[spec] = res.to_json()
        key = spec.replace("/", "_")
        scalar(f"eval/points_per_deal_vs_{key}", res.points_per_deal)
        scalar(f"eval/points_per_deal_vs_{key}_ci_low", res.points_per_deal_ci95[0])
        scalar(f"eval/points_per_deal_vs_{key}_ci_high", res.points_per_deal_ci95[1])
        scalar(f"eval/deal_win_rate_vs_{key}", res.deal_win_rate)
        if spec == cfg.eval.opponents[0]:
            scalar("eval/deal_win_rate", res.deal_win_rate)
    record = {"timesteps": timesteps, "wall_time_s": wall_time_s,
              "eval_seconds": time.perf_counter() - t0, "results": results}
    state["evals"].append(record)
    append_jsonl(run_dir / "metrics.jsonl", record)
    main = results[cfg.eval.opponents[0]]["points_per_deal"]
    if state["best"] is None or main > state["best"]["points_per_deal"]:
        state["best"] = {"timesteps": timesteps, "points_per_deal": main,
                         "opponent": cfg.eval.opponents[0]}
        save_best()
    if cfg.logging.curve:
        plot_curve(state["evals"], run_dir / "learning_curve.png", cfg.run_name)
    return record


@contextmanager
def stop_requests(target: Any) -> Iterator[None]:
    """While inside, SIGINT and SIGTERM set ``target.stop_requested`` instead of
    interrupting: the trainer stops at its next safe point and checkpoints."""
    import signal

    def request_stop(signum, frame):
        target.stop_requested = True

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def end_message(run_dir: Path, state: dict, timesteps: int, checkpoint: Path,
                stopped: bool) -> str:
    """The line a trainer prints when it returns: stopped (and how to resume) or done."""
    if stopped:
        return (f"stopped by signal at {timesteps:,} samples; checkpoint saved to {checkpoint}; "
                f"resume with: aluette train CONFIG --resume {run_dir}")
    best = state["best"]
    return (f"done: {timesteps:,} samples; best vs {best['opponent']}: "
            f"{best['points_per_deal']:+.3f} points/deal at {best['timesteps']:,} -> {run_dir}")
