"""Agent-steps per second of the batched engine (observations and masks
included) for N = 1, 64, 1,024 and 16,384 games on one core, and where the
time of a step goes.

    python benchmarks/bench_vector.py [--seconds 2]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from aluette_env.vector import VectorGame, kernels  # noqa: E402


def first_legal(mask: np.ndarray) -> np.ndarray:
    return mask.argmax(1)


def steps_per_second(n: int, seconds: float) -> float:
    game = VectorGame(n, seed=0)
    game.reset()
    game.step(first_legal(game.mask))  # compile / warm up
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        game.step(first_legal(game.mask))
        steps += n
    return steps / (time.perf_counter() - start)


def profile(n: int = 1024, steps: int = 2000) -> None:
    game = VectorGame(n, seed=0)
    game.reset()
    parts = dict.fromkeys(["choose action (argmax of mask)", "check legality", "play + score",
                           "deal new hands", "write observations + masks"], 0.0)
    keys = list(parts)
    for _ in range(steps):
        t0 = time.perf_counter()
        a = first_legal(game.mask)
        t1 = time.perf_counter()
        kernels.find_illegal(game._st, a, game._everyone)
        t2 = time.perf_counter()
        kernels.play(game._st, game.num_deals, a, game._everyone, kernels.STRENGTH_ARRAY,
                     game._res, game.rewards, game.deal_done, game.match_done)
        t3 = time.perf_counter()
        done = np.flatnonzero(game.deal_done)
        ended = game.match_done[done]
        game._deal(done[~ended])
        game._new_matches(done[ended])
        t4 = time.perf_counter()
        game._observe()
        t5 = time.perf_counter()
        for k, dt in zip(keys, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4)):
            parts[k] += dt
    total = sum(parts.values())
    print(f"where a step's time goes at N={n} ({total / steps * 1e6:.0f} µs per batch step):")
    for k, v in parts.items():
        print(f"  {k:32s} {100 * v / total:5.1f} %  ({v / steps * 1e6:6.1f} µs)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args(argv)
    print(f"numba: {'yes' if kernels.HAVE_NUMBA else 'no (pure-Python fallback)'}")
    for n in (1, 64, 1024, 16384):
        g = VectorGame(n)
        print(f"VectorGame N={n:>6}: {steps_per_second(n, args.seconds):>12,.0f} agent-steps/s "
              f"(observations + masks), {g.bytes_per_game():.0f} bytes per game")
    profile()


if __name__ == "__main__":
    main()
