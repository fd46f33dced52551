"""Agent-steps per second of the AEC environment under random masked play
(the loop of PettingZoo's performance_benchmark), raw and wrapped.

    python benchmarks/bench_env.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import aluette_env


def agent_steps_per_second(make_env, seconds: float) -> float:
    env, rng, steps, seed = make_env(), np.random.default_rng(0), 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed)
        seed += 1
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            legal = None if term or trunc else np.flatnonzero(obs["action_mask"])
            env.step(None if legal is None else int(legal[rng.integers(len(legal))]))
            steps += 1
    return steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args(argv)
    print(f"aluette raw_env: {agent_steps_per_second(aluette_env.raw_env, args.seconds):,.0f} "
          f"agent-steps/s (observations + masks)")
    print(f"aluette env() with the 3 classic wrappers: "
          f"{agent_steps_per_second(aluette_env.env, args.seconds):,.0f} agent-steps/s")


if __name__ == "__main__":
    main()
