"""``aluette export CHECKPOINT_OR_RUN --out PATH.onnx``: a trained policy as a
small self-contained ONNX model (see :mod:`aluette_env.players.onnx_policy`),
which verifies itself before it is written."""

from __future__ import annotations

import argparse
import json
import os
import stat
from pathlib import Path

import numpy as np

from aluette_env.commands import (
    Command, UsageError, bounded_int, check_not_input, writable_file,
)
from aluette_env.game import ALUETTE_SIGNS_V0, ALUETTE_V1, Variant

#: Most positions ``--verify`` may check (each runs the policy twice, in torch and ONNX).
MAX_VERIFY = 100_000


class ExportError(ValueError):
    """Export failed (verification mismatch, unwritable path); one-line message."""


def sample_positions(n: int, seed: int = 0,
                     variant: Variant = ALUETTE_V1) -> tuple[np.ndarray, np.ndarray]:
    """``n`` observations and masks of seats to act in real games of ``variant``
    (heuristic and random play mixed, all tricks of the deal represented; with
    signs, random signs too)."""
    from aluette_env.players import for_signs
    from aluette_env.players.heuristic import HeuristicPlayer
    from aluette_env.players.random_player import RandomPlayer
    from aluette_env.vector import VectorGame
    game = VectorGame(64, seed=seed, variant=variant)
    game.reset()
    players = [HeuristicPlayer(), RandomPlayer(seed)]
    if variant.signs:
        players = [players[0], _RandomSigns(seed)]
    obs, masks, rng = [], [], np.random.default_rng(seed)
    while sum(len(o) for o in obs) < n:
        take = rng.random(64) < 0.3
        obs.append(game.obs[take].copy())
        masks.append(game.mask[take].copy())
        p = players[int(rng.integers(2))]
        game.step(p.act_batch(game.obs, game.mask))
    return np.concatenate(obs)[:n], np.concatenate(masks)[:n]


class _RandomSigns:
    """Any legal action of the signs variant at random (signs included), for
    :func:`sample_positions`."""

    name = "random signs"

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        keys = self.rng.random(masks.shape) * (masks > 0)
        return keys.argmax(1)


def learner_form(obs: np.ndarray, width: int) -> np.ndarray:
    """Observations as a learner of input ``width`` read them: dense, or the padded
    lists of their ones (and an empty privileged list: no hidden card is known)."""
    from aluette_env.observation import (
        ACTIVE_PAD, HIDDEN_PAD, MAX_ACTIVE, OBS_SIZE, SIGNS_OBS_SIZE,
    )
    if width in (OBS_SIZE, SIGNS_OBS_SIZE):
        return obs
    out = np.full((len(obs), width), HIDDEN_PAD, np.int16)
    out[:, :MAX_ACTIVE] = ACTIVE_PAD
    for i, row in enumerate(obs):
        ones = np.flatnonzero(row)
        out[i, :len(ones)] = ones
    return out


def run_backend(spec: str) -> str | None:
    """The backend of a run folder (from its ``config.yaml``), None for a file; a
    CheckpointError when the folder has nothing trained to export yet."""
    from .config import ConfigError, read_yaml
    from .runs import CheckpointError
    p = Path(spec)
    if not p.is_dir():
        return None
    try:  # the run's saved config, read as every config is
        saved = read_yaml(p / "config.yaml", str(p / "config.yaml"))
    except ConfigError:
        saved = None
    backend = saved.get("backend", "sb3") if isinstance(saved, dict) else None
    models = [*p.glob("*.zip"), *p.glob("*.pt")]
    if backend and not models:
        raise CheckpointError(f"{p}: a run of backend {backend} with no trained model yet "
                              f"(no checkpoint); train it first: aluette train CONFIG --resume "
                              f"{p}")
    return backend


def policy_source(spec: str):
    """(checkpoint path, torch module (observation, action_mask) -> logits with the
    illegal cards at :data:`training.players.ILLEGAL_LOGIT`, greedy actions of the
    trained policy itself, learner samples trained) for an SB3 or an RLlib checkpoint or run folder."""
    import torch

    from .rllib.players import is_rllib_run
    if run_backend(spec) == "rllib" or is_rllib_run(spec) or str(spec).endswith(".pt"):
        from .rllib.players import export_source
        return export_source(spec)
    from .sb3.checkpoints import load_model, resolve_checkpoint
    from .players import mask_logits
    from .sb3.network import policy_logits
    path = resolve_checkpoint(spec)
    model = load_model(path)
    policy = model.policy.eval()

    class MaskedLogits(torch.nn.Module):
        num_actions = int(model.action_space.n)

        def __init__(self):
            super().__init__()
            self.policy = policy

        def forward(self, observation, action_mask):
            return mask_logits(policy_logits(self.policy, observation), action_mask)

    def greedy(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        # A learner that read index lists (network.sparse) is checked on them: its
        # sparse layer against the dense graph the export traced.
        return model.predict(learner_form(obs, model.observation_space.shape[0]),
                             deterministic=True, action_masks=masks.astype(bool))[0]

    return path, MaskedLogits(), greedy, model.num_timesteps


def export_policy(spec: str, out: str | Path, verify: int = 1000) -> dict:
    """Export the checkpoint (zip or run folder) to ``out``; returns the metadata."""
    import onnx
    import torch

    import aluette_env
    from aluette_env.game import NUM_ACTIONS, NUM_CARDS
    from aluette_env.observation import (
        LAYOUT_KEY, OBS_LAYOUT, OBS_SIZE, SIGNS_OBS_LAYOUT, SIGNS_OBS_SIZE,
    )
    from aluette_env.players.onnx_policy import OnnxPlayer

    from .atomic import atomic_path
    from .runs import CheckpointError

    path, net, reference, steps = policy_source(spec)
    backend = "RLlib module" if path.suffix == ".pt" else "SB3 policy"
    run_dir = path.parent
    # A policy of the signs variant reads its observation layout 3 and chooses among 58 actions.
    signs = getattr(net, "num_actions", NUM_CARDS) == NUM_ACTIONS
    width = SIGNS_OBS_SIZE if signs else OBS_SIZE
    actions = NUM_ACTIONS if signs else NUM_CARDS
    meta = {
        LAYOUT_KEY: str(SIGNS_OBS_LAYOUT if signs else OBS_LAYOUT),
        "obs_size": str(width),
        "num_actions": str(actions),
        "project_version": aluette_env.__version__,
        "steps_trained": str(steps),
        "checkpoint": path.name,
        "training_config": (run_dir / "config.yaml").read_text(errors="replace")
        if (run_dir / "config.yaml").exists() else "",
        "evaluation": "",
    }
    if (run_dir / "state.json").exists():
        from .runs import read_state
        try:
            state = read_state(run_dir)
        except CheckpointError:  # a damaged state.json: the model itself is intact
            state = {"best": None, "evals": []}
        best = state["best"] or {}
        evals = [e for e in state["evals"] if e.get("timesteps") == best.get("timesteps")]
        if path.stem != "best" and state["evals"]:
            evals = state["evals"][-1:]
        meta["evaluation"] = json.dumps(evals[-1]) if evals else ""

    out = Path(out)
    # the signs variant at catch 0.5: its positions see caught signs and missed ones
    obs, masks = sample_positions(verify, variant=ALUETTE_SIGNS_V0.with_catch(0.5) if signs
                                  else ALUETTE_V1)
    with atomic_path(out, suffix=".onnx") as tmp:
        example = (torch.zeros(2, width), torch.ones(2, actions))
        torch.onnx.export(net, example, str(tmp), input_names=["observation", "action_mask"],
                          output_names=["logits"], dynamo=False, opset_version=17,
                          dynamic_axes={"observation": {0: "batch"}, "action_mask": {0: "batch"},
                                        "logits": {0: "batch"}})
        m = onnx.load(str(tmp))
        for k, v in meta.items():
            m.metadata_props.append(onnx.StringStringEntryProto(key=k, value=v))
        onnx.save(m, str(tmp))
        # Verify: greedy ONNX actions equal the trained policy's deterministic actions.
        ours = OnnxPlayer(tmp).act_batch(obs, masks)
        theirs = reference(obs, masks)
        bad = np.flatnonzero(ours != theirs)
        if len(bad):
            raise ExportError(f"verification failed: the ONNX model chose differently from the "
                              f"{backend} on {len(bad)} of {len(obs)} positions "
                              f"(first at position {bad[0]}); nothing was written")
    return {**meta, "verified_positions": len(obs), "verified_against": backend}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("checkpoint", metavar="CHECKPOINT_OR_RUN",
                   help="an SB3 checkpoint .zip, an RLlib policy .pt, or a run folder of "
                        "either backend (its best model)")
    p.add_argument("--out", required=True, metavar="PATH.onnx", type=writable_file,
                   help="the ONNX file to write, in a folder that exists (required)")
    p.add_argument("--verify", type=bounded_int(1, MAX_VERIFY), default=1000,
                   help=f"positions from real games to check against the trained policy, "
                        f"1 to {MAX_VERIFY:,}")


def run(args: argparse.Namespace) -> int:
    from .runs import CheckpointError
    if not args.out.endswith(".onnx"):
        raise UsageError(f"--out {args.out[:200]!r}: the file name must end in .onnx")
    try:  # a path the system refuses (too long, a loop of links) is the input's fault
        mode = os.stat(args.checkpoint).st_mode
    except FileNotFoundError:
        mode = None  # said below, with what to give instead
    except OSError as err:
        raise UsageError(f"checkpoint {args.checkpoint[:200]}: {err.strerror or err}") from None
    except UnicodeError:
        raise UsageError(f"checkpoint {ascii(args.checkpoint[:200])}: not a valid file name "
                         f"(a lone surrogate)") from None
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise UsageError(f"checkpoint {args.checkpoint[:200]}: not a regular file or a run "
                         f"folder (a pipe or a device)")
    check_not_input(args.out, "--out", [args.checkpoint])
    try:
        meta = export_policy(args.checkpoint, args.out, verify=args.verify)
    except (CheckpointError, ExportError) as err:
        raise UsageError(str(err)) from None
    except OSError as err:
        raise UsageError(f"cannot write {args.out}: {err.strerror}") from None
    size = Path(args.out).stat().st_size
    print(f"exported {args.checkpoint} ({int(meta['steps_trained']):,} steps) -> {args.out} "
          f"({size / 1024:.0f} KiB); verified on {meta['verified_positions']} positions: "
          f"greedy ONNX actions equal the {meta['verified_against']}'s deterministic actions")
    return 0


#: Entry point ``aluette.commands: export``.
COMMAND = Command("export a trained policy to ONNX", add_arguments, run)
