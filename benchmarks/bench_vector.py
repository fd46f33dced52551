"""Agent-steps per second of the batched engine (observations and masks
included) for N = 1, 64, 1,024 and 16,384 games on one core, and where the
time of a step goes; and what a learner's index lists (``sparse=True``) add.

    python benchmarks/bench_vector.py [--seconds 2] [--profile-steps 2000]

Prints markdown tables. Rates are per second of this process's CPU time (numba
and numpy on one thread), so other load on the machine does not lower them.
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
    steps, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        game.step(first_legal(game.mask))
        steps += n
    return steps / (time.process_time() - start)


def profile(n: int = 1024, steps: int = 2000) -> None:
    game = VectorGame(n, seed=0)
    game.reset()
    parts = dict.fromkeys(["choose action (argmax of mask)", "check legality", "play + score",
                           "deal new hands", "write observations + masks"], 0.0)
    keys = list(parts)
    for _ in range(steps):
        t0 = time.process_time()
        a = first_legal(game.mask)
        t1 = time.process_time()
        kernels.find_illegal(game._st, a, game._everyone)
        t2 = time.process_time()
        kernels.play(game._st, a, game._everyone, kernels.STRENGTH_ARRAY, game._res,
                     game.rewards, game.deal_done, game.match_done)
        t3 = time.process_time()
        done = np.flatnonzero(game.deal_done)
        ended = game.match_done[done]
        game._deal(done[~ended])
        game._new_matches(done[ended])
        t4 = time.process_time()
        game._observe()
        t5 = time.process_time()
        for k, dt in zip(keys, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4)):
            parts[k] += dt
    total = sum(parts.values())
    print(f"\nWhere the time of one batch step goes at N = {n:,} "
          f"({total / steps * 1e6:.0f} µs of CPU a step, {steps:,} steps):\n")
    print("| part | share | µs a step |\n|---|---:|---:|")
    for k, v in parts.items():
        print(f"| {k} | {100 * v / total:.1f} % | {v / steps * 1e6:.1f} |")


def sparse_observe(n: int = 1024, steps: int = 2000) -> None:
    """CPU time of writing a step's observations, masks and a learner's index
    lists (``sparse=True``: each seat to act's ones and the privileged cards)."""
    game = VectorGame(n, seed=0, sparse=True)
    game.reset()
    spent = 0.0
    for _ in range(steps):
        game.step(first_legal(game.mask))
        t = time.process_time()
        game._observe()
        spent += time.process_time() - t
    print(f"\nWith `sparse=True` (a learner's index lists as well), N = {n:,}: writing "
          f"observations + masks + lists takes {spent / steps * 1e6:.1f} µs of CPU a step.")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per row")
    parser.add_argument("--profile-steps", type=int, default=2000)
    args = parser.parse_args(argv)
    kind = "numba kernels" if kernels.HAVE_NUMBA else "pure-Python fallback (numba missing)"
    print(f"`VectorGame`, {kind}, one thread; the first legal card each step, observations "
          f"and masks written every step.\n")
    print("| N games | agent-steps per CPU-second | bytes per game |\n|---:|---:|---:|")
    for n in (1, 64, 1024, 16384):
        rate = steps_per_second(n, args.seconds)
        print(f"| {n:,} | {rate:,.0f} | {VectorGame(n).bytes_per_game():.0f} |", flush=True)
    profile(steps=args.profile_steps)
    sparse_observe(steps=args.profile_steps)


if __name__ == "__main__":
    main()
