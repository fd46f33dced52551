"""The coach's costs (aluette_env.apps.coach): the latency of a hint at the
default hint effort, and the cost of reviewing one deal at the default review
effort (the person's nine decisions and the partner's nine, as the web game
and the terminal review them).

The positions are the person's (player_0) decisions in whole matches of the
shipped AI at every seat, from a fixed seed; the first hint and the first
review (compiling and loading) are not counted. Wall times on a busy machine
include waiting for a core: the CPU figure (this process, all threads) shows
the work itself. Target: a mean hint latency of at most 300 ms.

    python benchmarks/bench_coach.py [--matches 2] [--hint-worlds 96] [--review-worlds 48]
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from aluette_env.apps.coach import HINT_WORLDS, REVIEW_WORLDS, Coach, observe
from aluette_env.game import play_match
from aluette_env.players import load_player
from aluette_env.records import load_record, positions, record_of


def matches(n: int, seed: int) -> list[dict]:
    """``n`` whole matches of the shipped AI at every seat, as records."""
    ai = load_player("ai")

    def choose(deal, match) -> int:
        return int(ai.act(*observe(deal, deal.to_act)))

    return [load_record(record_of(play_match(choose, random.Random(seed + k), k % 4), k % 4,
                                  ["human", "ai", "ai", "ai"])) for k in range(n)]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--matches", type=int, default=2, help="matches whose decisions are used")
    p.add_argument("--hint-worlds", type=int, default=HINT_WORLDS)
    p.add_argument("--review-worlds", type=int, default=REVIEW_WORLDS)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    records = matches(args.matches, args.seed)
    coach = Coach(args.hint_worlds, args.review_worlds)

    # Hints: every decision of player_0 with a choice (the ninth card plays itself).
    decisions = [observe(pos.deal, 0) for r in records for pos in positions(r)
                 if pos.seat == 0 and pos.play_index < 32]
    coach.hint_for(*decisions[0])  # compile and load: not counted
    wall, cpu = [], []
    for obs, mask in decisions:
        t0, c0 = time.perf_counter(), time.process_time()
        coach.hint_for(obs, mask)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    wall_ms, cpu_ms = np.array(wall) * 1000, np.array(cpu) * 1000
    print(f"hint ({args.hint_worlds} worlds, {len(decisions)} decisions): wall mean "
          f"{wall_ms.mean():.0f} ms, p99 {np.percentile(wall_ms, 99):.0f} ms; "
          f"CPU mean {cpu_ms.mean():.0f} ms (target: mean <= 300 ms)")

    # Reviews: each deal, the person's and the partner's decisions.
    coach.review_deal(records[0], 0, [0])  # warm-up: not counted
    wall, cpu = [], []
    for r in records:
        for d in range(len(r["deals"])):
            t0, c0 = time.perf_counter(), time.process_time()
            coach.review_deal(r, d, [0, 2])
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
    print(f"review ({args.review_worlds} worlds, 18 decisions a deal, {len(wall)} deals): "
          f"wall {np.mean(wall):.2f} s per deal, CPU {np.mean(cpu):.2f} s per deal "
          f"(in the background: the game never waits for it)")


if __name__ == "__main__":
    main()
