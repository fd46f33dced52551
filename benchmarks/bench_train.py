"""End-to-end learner samples per second (collection + PPO updates) with the
default config's settings, for a few rollouts (no evaluation or checkpoints).

    python benchmarks/bench_train.py [--rollouts 6]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from aluette_env.players import load_player
from training.config import load_config
from training.sb3.policy import PolicyPlayer
from training.selfplay import OpponentPool
from training.sb3.vecenv import SelfPlayVecEnv
from training.sb3.train import build_model
from training.selfplay import POLICY_ENTRIES as FIXED

ROOT = Path(__file__).resolve().parents[1]


def warm_model(cfg, run_dir: Path):
    """(model, learner samples per rollout) on the self-play VecEnv, after one
    warm-up rollout (numba compile, allocations); no TensorBoard."""
    fixed = {s: load_player(s) for s in cfg.selfplay.opponents if s not in FIXED}
    pool = OpponentPool(cfg.selfplay.opponents, fixed, np.random.default_rng(0))
    env = SelfPlayVecEnv(cfg.num_games, pool, None, cfg.env.num_deals, seed=0)
    cfg.logging.tensorboard = False
    model = build_model(cfg, env, run_dir)
    pool.latest = PolicyPlayer(model.policy, temperature=1.0)
    per_rollout = cfg.num_games * cfg.ppo.n_steps
    model.learn(per_rollout)
    return model, per_rollout


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rollouts", type=int, default=6)
    parser.add_argument("--config", default=str(ROOT / "configs" / "default.yaml"))
    args = parser.parse_args(argv)
    cfg = load_config(args.config)
    torch.set_num_threads(cfg.torch_threads)
    with tempfile.TemporaryDirectory() as tmp:
        model, per_rollout = warm_model(cfg, Path(tmp))
        start = time.perf_counter()
        model.learn(per_rollout * args.rollouts, reset_num_timesteps=False)
        dt = time.perf_counter() - start
    print(f"training end-to-end ({Path(args.config).name}: {cfg.num_games} games, "
          f"{cfg.torch_threads} torch threads, trunk {cfg.network.trunk}, "
          f"{cfg.ppo.n_epochs} epochs): {per_rollout * args.rollouts / dt:,.0f} learner samples/s")


if __name__ == "__main__":
    main()
