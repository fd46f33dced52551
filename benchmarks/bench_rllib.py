"""RLlib backend speed against the SB3 backend, in one run on the same machine.

    python benchmarks/bench_rllib.py [--iterations 3] [--config configs/default.yaml]

Prints three tables, all from one config (default: ``configs/default.yaml``,
the SB3 time-to-strength run), as both backends can train it: without what only
the SB3 backend has (``same_strength.SB3_EXTRAS_OFF``: the critic that sees
every hand, the belief head, the league's priorities; docs/RLLIB.md), for RLlib
with ``backend: rllib`` (:func:`bench_configs`):

1. sampling by one env runner on its own (no learning): learner samples per
   second of wall time and per CPU-second of the sampling process (a figure that
   other load on a shared machine changes little);
2. sampling by 1 and 2 remote env runners together (no learning), and what the
   second one adds as a share of one runner's rate;
3. training end to end, learner samples/s with 0, 1 and 2 env runners and one
   learner in the driver, next to SB3 on the same config, each split into
   sampling and learning (``LearnerGroup.update`` for RLlib, ``model.train``
   for SB3); "alone" is the rate divided by its share; and learner samples per
   CPU-second of every process involved (driver and env runners).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import torch

from training.config import TrainConfig, load_config

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))  # bench_train, run directly or by run_all

from same_strength import SB3_EXTRAS_OFF  # noqa: E402 - found through the line above

#: The RLlib runs' env runners (each with one learner in the driver).
RUNNERS = (0, 1, 2)


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


def bench_configs(path: str) -> tuple[TrainConfig, dict[int, TrainConfig]]:
    """The config at ``path`` as each backend trains it, checked as ``aluette
    train`` checks a config: (SB3's, RLlib's by number of env runners, one
    learner in the driver), both without what only SB3 has."""
    sb3 = load_config(path, [*SB3_EXTRAS_OFF, "backend=sb3"])
    rllib = {n: load_config(path, [*SB3_EXTRAS_OFF, "backend=rllib",
                                   f"rllib.num_env_runners={n}", "rllib.num_learners=0"])
             for n in RUNNERS}
    return sb3, rllib


def one_runner(cfg, rounds: int) -> tuple[float, float]:
    """(samples/s, samples per CPU-second) of one env runner in this process, one
    torch thread (as a remote runner with its one CPU)."""
    from training.rllib.runner import local_runner
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    runner = local_runner(cfg)
    try:
        runner.sample()  # warm-up: numba compile, allocations
        n, t0, cpu = 0, time.perf_counter(), time.process_time()
        for _ in range(rounds):
            n += sum(len(e) for e in runner.sample())
        dt, cpu = time.perf_counter() - t0, time.process_time() - cpu
    finally:
        torch.set_num_threads(threads)
    return n / dt, n / cpu


def remote_sampling(cfg, rounds: int) -> tuple[float, float]:
    """(samples/s, samples per CPU-second of a runner) of the config's remote env
    runners sampling together (no learning)."""
    from training.rllib.train import build_algorithm

    def sample(runner):
        t0 = time.process_time()
        n = sum(len(e) for e in runner.sample())
        return n, time.process_time() - t0

    algo = build_algorithm(cfg)
    try:
        group = algo.env_runner_group
        group.foreach_env_runner(sample, local_env_runner=False)  # warm-up
        t0 = time.perf_counter()
        n = cpu = 0.0
        for _ in range(rounds):
            for samples, seconds in group.foreach_env_runner(sample, local_env_runner=False):
                n, cpu = n + samples, cpu + seconds
        return n / (time.perf_counter() - t0), n / cpu
    finally:
        algo.stop()


def rllib_row(cfg, iterations: int) -> tuple[float, float, float, float]:
    """(learner samples/s, sampling share, learning share, samples per CPU-second of
    the driver and the env runners together) over ``iterations``."""
    from training.rllib.train import build_algorithm, learner_samples

    def cpu(algo) -> float:
        return time.process_time() + sum(algo.env_runner_group.foreach_env_runner(
            lambda r: time.process_time(), local_env_runner=False))

    algo = build_algorithm(cfg)
    try:
        algo.train()  # warm-up: numba compile, actor start, first sync
        watch = Stopwatch(algo.learner_group, "update")
        samples = 0
        t0, cpu0 = time.perf_counter(), cpu(algo)
        for _ in range(iterations):
            samples += learner_samples(algo.train())
        total, cpu_s = time.perf_counter() - t0, cpu(algo) - cpu0
    finally:
        algo.stop()
    return samples / total, (total - watch.seconds) / total, watch.seconds / total, \
        samples / cpu_s


def sb3_row(cfg, rollouts: int) -> tuple[float, float, float, float]:
    from bench_train import warm_model
    with tempfile.TemporaryDirectory() as tmp:
        model, per_rollout = warm_model(cfg, Path(tmp), snapshots=1)
        watch = Stopwatch(model, "train")
        t0, cpu0 = time.perf_counter(), time.process_time()
        model.learn(per_rollout * rollouts, reset_num_timesteps=False)
        total, cpu_s = time.perf_counter() - t0, time.process_time() - cpu0
    n = per_rollout * rollouts
    return n / total, (total - watch.seconds) / total, watch.seconds / total, n / cpu_s


def print_row(what: str, rate: float, sampling: float, learning: float, per_cpu: float) -> None:
    """The rate, its split, what each part alone would sustain (rate / share), and
    learner samples per CPU-second."""
    print(f"  {what:34s} {rate:7,.0f} learner samples/s = sampling {sampling:4.0%} + "
          f"learning {learning:4.0%} (alone: sampling {rate / sampling:7,.0f}/s, learning "
          f"{rate / learning:7,.0f}/s); {per_cpu:7,.0f} per CPU-second", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--config", default=str(ROOT / "configs" / "default.yaml"))
    args = parser.parse_args(argv)
    import ray

    from training.rllib.runner import samples_per_round

    cfg, rllib = bench_configs(args.config)
    name = Path(args.config).name
    torch.set_num_threads(cfg.torch_threads)
    print(f"{name}: {cfg.num_games} games, {samples_per_round(rllib[1]):,} learner samples per "
          f"round of whole matches, trunk {cfg.network.trunk}, {cfg.ppo.n_epochs} epochs "
          f"(without {', '.join(SB3_EXTRAS_OFF)} for both backends)")
    rate, per_cpu = one_runner(rllib[1], args.iterations)
    print(f"1. one env runner on its own: {rate:,.0f} learner samples/s "
          f"({per_cpu:,.0f} per CPU-second)", flush=True)
    ray.init(address="local", num_cpus=max(rllib[1].rllib.num_cpus, 3), include_dashboard=False,
             logging_level="ERROR")
    try:
        one, one_cpu = remote_sampling(rllib[1], args.iterations)
        two, two_cpu = remote_sampling(rllib[2], args.iterations)
        print(f"2. remote env runners sampling together: 1 runner {one:,.0f}/s ({one_cpu:,.0f} "
              f"per CPU-second), 2 runners {two:,.0f}/s ({two_cpu:,.0f} per CPU-second of "
              f"each); the second adds {(two - one) / one:.0%} of one runner's rate",
              flush=True)
        print(f"3. training, {args.iterations} iterations after a warm-up (learner samples/s, "
              f"share of time sampling / learning):")
        for runners, config in rllib.items():
            print_row(f"rllib, {runners} env runners, 1 learner",
                      *rllib_row(config, args.iterations))
    finally:
        ray.shutdown()
    print_row(f"sb3 ({name}, {cfg.num_games} games)", *sb3_row(cfg, args.iterations))


if __name__ == "__main__":
    main()
