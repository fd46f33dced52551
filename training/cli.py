"""``aluette train CONFIG.yaml [--resume RUN_DIR] [--set key.path=value ...]``."""

from __future__ import annotations

import argparse
from pathlib import Path

from aluette_env.commands import Command, UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    from .config import MAX_TIMESTEPS
    p.add_argument("config", metavar="CONFIG.yaml",
                   help=f"a training config (see configs/); its budget total_timesteps is 1 to "
                        f"{MAX_TIMESTEPS:,} learner samples")
    p.add_argument("--resume", metavar="RUN_DIR",
                   help="continue this run folder where it stopped (default: start a new run)")
    p.add_argument("--set", action="append", default=[], metavar="key.path=value",
                   help="override a config value (repeatable), e.g. --set ppo.n_epochs=4 "
                        "(default: none)")
    p.add_argument("--force", action="store_true",
                   help="resume even though the config differs from the run's (never the "
                        "backend, network or pretrain: the checkpoint holds what they built)")
    p.add_argument("--address", metavar="RAY_ADDRESS",
                   help="backend rllib: the Ray cluster to join (default: rllib.address, "
                        "then RAY_ADDRESS, else an embedded local Ray)")


def run(args: argparse.Namespace) -> int:
    from .config import ConfigError, is_recipe, load_config, read_yaml
    from .runs import CheckpointError
    if args.resume is not None:
        check_run_folder(args.resume)
    try:
        if is_recipe(read_yaml(Path(args.config), args.config)):
            return run_recipe(args)
        cfg = load_config(args.config, args.set)
        resume = Path(args.resume) if args.resume else None
        if resume is not None:
            check_backend(resume, cfg.backend, args.config)
        if cfg.backend == "rllib":
            try:
                from .rllib.train import train as train_rllib
            except ImportError as err:
                raise ConfigError(f"{args.config}: backend rllib needs Ray ({err}); "
                                  f"pip install 'aluette-rl[distributed]'") from None
            train_rllib(cfg, resume=resume, force=args.force, address=args.address)
        else:
            if args.address:
                raise ConfigError(f"--address: only for backend rllib ({args.config} has "
                                  f"backend {cfg.backend})")
            from .sb3.train import train
            train(cfg, resume=resume, force=args.force)
    except (ConfigError, CheckpointError) as err:
        raise UsageError(str(err)) from None
    return 0


def run_recipe(args: argparse.Namespace) -> int:
    """``aluette train RECIPE.yaml``: every stage in turn; the same command resumes."""
    from .config import load_recipe
    from .recipe import run_recipe as run_stages
    for flag, given in (("--resume", args.resume), ("--force", args.force),
                        ("--address", args.address)):
        if given:
            raise UsageError(f"{flag}: not for a recipe ({args.config} lists stages); run the "
                             f"same command again to resume it")
    run_stages(load_recipe(args.config, args.set))
    return 0


def check_run_folder(path: str) -> None:
    """``--resume PATH`` names a folder (checked before anything reads in it): a
    pipe, a device, a file or a name the system refuses is said in one line."""
    import os
    import stat
    shown = path[:200] if path.isprintable() else ascii(path[:200])
    if not path:
        raise UsageError("--resume: an empty path; give the run's folder")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise UsageError(f"--resume {shown}: no such run folder") from None
    except OSError as err:
        raise UsageError(f"--resume {shown}: {err.strerror or err}") from None
    except UnicodeError:
        raise UsageError(f"--resume {shown}: not a valid file name (a lone surrogate)") from None
    if not stat.S_ISDIR(mode):
        raise UsageError(f"--resume {shown}: not a folder; give the run's folder")


def check_backend(run_dir: Path, backend: str, config: str) -> None:
    """A run resumes only with a config of its own backend (ConfigError naming both)."""
    import json

    from .config import ConfigError
    try:
        state = json.loads((run_dir / "state.json").read_text())
    except (OSError, ValueError):
        return  # open_run says what is wrong with the folder
    if isinstance(state, dict) and state.get("checkpoint"):
        theirs = state.get("backend", "sb3")
        if theirs != backend:
            raise ConfigError(f"{run_dir} is a run of backend {theirs}, {config} has backend "
                              f"{backend}; resume it with a config of backend {theirs} (its "
                              f"own: {run_dir / 'config.yaml'})")


#: Entry point ``aluette.commands: train``.
COMMAND = Command("self-play training from a config file", add_arguments, run)
