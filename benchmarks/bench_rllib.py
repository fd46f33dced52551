"""RLlib backend speed: learner samples/s with 0, 1 and 2 env runners next to the
SB3 backend in the same run, each split into sampling and learning; and the
sampling speed of the two multi-agent envs (lockstep batched engine vs AEC).

    python benchmarks/bench_rllib.py [--iterations 3] [--config configs/rllib.yaml]

Learning time is measured around ``LearnerGroup.update`` (RLlib) and
``model.train`` (SB3); sampling is the rest of an iteration (env runners,
episode transfer, weight sync for RLlib; ``collect_rollouts`` for SB3).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import torch

from training.config import load_config

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))  # bench_train, run directly or by run_all


class Stopwatch:
    """Wraps a bound method; accumulates the seconds spent inside it."""

    def __init__(self, obj, name: str):
        self.seconds = 0.0
        inner = getattr(obj, name)

        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - t0

        setattr(obj, name, timed)


def rllib_row(cfg, iterations: int) -> tuple[float, float, float]:
    """(learner samples/s, sampling share, learning share) over ``iterations``."""
    from training.rllib.seating import LEARNER
    from training.rllib.train import build_algorithm
    algo = build_algorithm(cfg, [])
    try:
        algo.train()  # warm-up: numba compile, actor start, first sync
        watch = Stopwatch(algo.learner_group, "update")
        samples = 0
        t0 = time.perf_counter()
        for _ in range(iterations):
            result = algo.train()
            samples += int(result["env_runners"]["num_module_steps_sampled"].get(LEARNER, 0))
        total = time.perf_counter() - t0
    finally:
        algo.stop()
    return samples / total, (total - watch.seconds) / total, watch.seconds / total


def sb3_row(cfg, rollouts: int) -> tuple[float, float, float]:
    from bench_train import warm_model
    with tempfile.TemporaryDirectory() as tmp:
        model, per_rollout = warm_model(cfg, Path(tmp))
        watch = Stopwatch(model, "train")
        t0 = time.perf_counter()
        model.learn(per_rollout * rollouts, reset_num_timesteps=False)
        total = time.perf_counter() - t0
    return per_rollout * rollouts / total, (total - watch.seconds) / total, watch.seconds / total


def env_sampling(cfg, env: str, envs_per_runner: int, steps: int) -> float:
    """Agent steps/s of the driver's env runner alone (no learning)."""
    from training.rllib.train import build_algorithm
    cfg = cfg.model_copy(deep=True)
    cfg.rllib.env, cfg.rllib.num_env_runners = env, 0
    cfg.rllib.num_envs_per_env_runner = envs_per_runner
    algo = build_algorithm(cfg, [])
    try:
        runner = algo.env_runner_group.local_env_runner
        runner.sample(num_timesteps=steps // 4)  # warm-up
        t0 = time.perf_counter()
        episodes = runner.sample(num_timesteps=steps)
        dt = time.perf_counter() - t0
        n = sum(len(e) for ep in episodes for e in ep.agent_episodes.values())
    finally:
        algo.stop()
    return n / dt


def print_row(what: str, rate: float, sampling: float, learning: float) -> None:
    """The rate, its split, and what each part alone would sustain (rate / share)."""
    print(f"  {what:32s} {rate:8,.0f} learner samples/s = sampling {sampling:4.0%} + "
          f"learning {learning:4.0%} (alone: sampling {rate / sampling:8,.0f}/s, "
          f"learning {rate / learning:8,.0f}/s)", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--config", default=str(ROOT / "configs" / "rllib.yaml"))
    parser.add_argument("--sb3-config", default=str(ROOT / "configs" / "default.yaml"))
    args = parser.parse_args(argv)
    import ray

    cfg = load_config(args.config)
    torch.set_num_threads(cfg.torch_threads)
    ray.init(address="local", num_cpus=max(cfg.rllib.num_cpus, 3), include_dashboard=False,
             logging_level="ERROR")
    try:
        print(f"env sampling, one env runner, {Path(args.config).name} network "
              f"{cfg.network.trunk}:")
        for env, k in (("batched", 1), ("aec", 16)):
            what = f"{cfg.num_games} lockstep matches" if env == "batched" else \
                f"{k} AEC envs (one match each)"
            rate = env_sampling(cfg, env, k, 16_384)
            print(f"  rllib.env={env:8s} {what:32s} {rate:9,.0f} agent steps/s", flush=True)
        print(f"training, {args.iterations} iterations of {cfg.rllib.train_batch_size:,} "
              f"agent steps (learner samples/s, share of time sampling / learning):")
        for runners in (0, 1, 2):
            c = cfg.model_copy(deep=True)
            c.rllib.num_env_runners = runners
            print_row(f"rllib, {runners} env runners", *rllib_row(c, args.iterations))
    finally:
        ray.shutdown()
    sb3 = load_config(args.sb3_config)
    print_row(f"sb3 ({Path(args.sb3_config).name}, {sb3.num_games} games)",
              *sb3_row(sb3, args.iterations))


if __name__ == "__main__":
    main()
