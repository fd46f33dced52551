"""Players and evaluation speed: the heuristics' cost per move (single
observation and in batches), and 10,000 duplicate deal pairs of heuristic vs
random. The expert's cost per move is in bench_search.py.

    python benchmarks/bench_players.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from aluette_env.evaluation import duplicate_eval
from aluette_env.players.heuristic import HeuristicPlayer
from aluette_env.players.random_player import RandomPlayer
from aluette_env.vector import VectorGame


def per_move_us(player, n: int = 20000) -> float:
    game = VectorGame(256, seed=0)
    game.reset()
    obs, masks = game.obs.copy(), game.mask.copy()
    player.act(obs[0], masks[0])  # compile
    times = []
    for i in range(n):
        t = time.perf_counter()
        player.act(obs[i % 256], masks[i % 256])
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def batch_throughput(player, n: int = 4096, repeat: int = 20) -> float:
    game = VectorGame(n, seed=0)
    game.reset()
    player.act_batch(game.obs, game.mask)
    start = time.perf_counter()
    for _ in range(repeat):
        player.act_batch(game.obs, game.mask)
    return n * repeat / (time.perf_counter() - start)


def main() -> None:
    for version in (2, 1):
        h = HeuristicPlayer(version=version)
        print(f"heuristic v{version} act(): median {per_move_us(h):.1f} µs per move; batches "
              f"{batch_throughput(h):,.0f} decisions/s")
    print(f"random act(): median {per_move_us(RandomPlayer(0)):.1f} µs per move")
    from aluette_env.players.onnx_policy import SHIPPED_MODEL
    if SHIPPED_MODEL.exists():
        from aluette_env.players import load_player
        ai = load_player("ai")
        print(f"shipped AI ({SHIPPED_MODEL.name}) act(): median {per_move_us(ai, 5000):.1f} µs "
              f"per move; batch inference {batch_throughput(ai):,.0f} decisions/s")
        res = duplicate_eval("ai", "heuristic", deals=2000, seed=0)
        print(f"duplicate eval ai vs heuristic, 2,000 deal pairs: {res.wall_time_s:.2f} s")
    duplicate_eval("heuristic", "random", deals=50, seed=1)  # warm-up
    res = duplicate_eval("heuristic", "random", deals=10000, seed=0)
    lo, hi = res.points_per_deal_ci95
    print(f"duplicate eval heuristic vs random, 10,000 deal pairs (720,000 decisions): "
          f"{res.wall_time_s:.2f} s; points/deal {res.points_per_deal:+.4f} [{lo:+.4f}, {hi:+.4f}]")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
