"""Players and evaluation speed: each fixed player's cost per move (one
observation at a time) and its throughput in batches, and the cost of duplicate
evaluations. The search players' cost per move is in bench_search.py.

    python benchmarks/bench_players.py [--moves 20000] [--deals 10000]

Prints markdown tables. Every figure is CPU time of this process (the players
run on one thread), so other load on the machine does not change it.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from aluette_env.evaluation import duplicate_eval
from aluette_env.players import load_player
from aluette_env.vector import VectorGame


def per_move_us(player, n: int) -> float:
    """Mean CPU µs of ``act`` over n single observations of real positions."""
    game = VectorGame(256, seed=0)
    game.reset()
    obs, masks = game.obs.copy(), game.mask.copy()
    player.act(obs[0], masks[0])  # compile
    start = time.process_time()
    for i in range(n):
        player.act(obs[i % 256], masks[i % 256])
    return (time.process_time() - start) / n * 1e6


def batch_throughput(player, n: int = 4096, repeat: int = 20) -> float:
    game = VectorGame(n, seed=0)
    game.reset()
    player.act_batch(game.obs, game.mask)
    start = time.process_time()
    for _ in range(repeat):
        player.act_batch(game.obs, game.mask)
    return n * repeat / (time.process_time() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=20000, help="single moves timed per player")
    parser.add_argument("--deals", type=int, default=10000, help="deal pairs per evaluation")
    args = parser.parse_args(argv)
    print("| player | CPU µs a move (one observation) | decisions per CPU-second "
          "(batches of 4,096) |\n|---|---:|---:|")
    for spec in ("random", "heuristic", "heuristic:version=1", "ai", "ai:version=1"):
        player = load_player(spec, seed=0)
        moves = args.moves if spec.startswith(("random", "heuristic")) else args.moves // 4
        print(f"| `{spec}` | {per_move_us(player, moves):.1f} | {batch_throughput(player):,.0f} |",
              flush=True)
    print("\n| duplicate evaluation (`aluette eval`) | deal pairs | decisions | CPU time |\n"
          "|---|---:|---:|---:|")
    for a, b in (("heuristic", "random"), ("ai", "heuristic")):
        duplicate_eval(a, b, deals=20, seed=1)  # warm-up
        start = time.process_time()
        duplicate_eval(a, b, deals=args.deals, seed=0)
        print(f"| `{a}` vs `{b}` | {args.deals:,} | {72 * args.deals:,} | "
              f"{time.process_time() - start:.2f} s |", flush=True)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
