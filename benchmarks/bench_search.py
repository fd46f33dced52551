"""The perfect-information solver and the PIMC player: median time to solve
the last 4, 5 and 6 tricks of random deals, nodes per second, and PIMC's
cost per move at its default settings.

    python benchmarks/bench_search.py [--positions 10]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from aluette_env.players.heuristic import HeuristicPlayer
from aluette_env.game.rules import Deal, deal_cards
from aluette_env.players.search import Position, SearchPlayer, Solver
from aluette_env.vector import VectorGame


def solve_times(tricks_left: int, positions: int) -> tuple[float, float]:
    times, nodes = [], 0
    for seed in range(positions):
        rnd = random.Random(seed)
        deck = list(range(48))
        rnd.shuffle(deck)
        hands, unused = deal_cards(deck, 0)
        deal = Deal(hands, 0, unused)
        while len(deal.tricks) < 9 - tricks_left:
            deal.play(rnd.choice(deal.legal_cards()))
        pos = Position.from_cards(deal.hands, deal.leader, counts=tuple(deal.counts),
                                  reached=tuple(deal.reached), in_run=tuple(deal.in_run),
                                  trick_index=len(deal.tricks))
        solver = Solver()
        start = time.perf_counter()
        solver.value(pos)
        times.append(time.perf_counter() - start)
        nodes += solver.nodes
    return statistics.median(times), nodes / sum(times)


def pimc_move_times(moves: int = 180) -> tuple[list[float], list[float]]:
    """Times of all moves, and of the moves in the solved endgame."""
    player, heuristic = SearchPlayer(seed=0), HeuristicPlayer()
    game = VectorGame(1, seed=1)
    game.reset()
    times, searched = [], []
    for k in range(moves):
        endgame = 9 - int(game.state.trick_index[0]) <= player.solve_tricks
        start = time.perf_counter()
        a = player.act(game.obs[0], game.mask[0])
        dt = time.perf_counter() - start
        times.append(dt)
        if endgame:
            searched.append(dt)
        game.step(np.array([a if k % 2 else heuristic.act(game.obs[0], game.mask[0])]))
    return times, searched


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10)
    args = parser.parse_args(argv)
    for k in (4, 5, 6):
        med, nps = solve_times(k, args.positions)
        print(f"solver, last {k} tricks: median {med * 1000:,.1f} ms, {nps:,.0f} nodes/s "
              f"({args.positions} random positions)")
    times, searched = pimc_move_times()
    print(f"PIMC ({SearchPlayer().name}): all moves median {statistics.median(times) * 1000:.1f} ms, "
          f"mean {statistics.mean(times) * 1000:.1f} ms; endgame (searched) moves median "
          f"{statistics.median(searched) * 1000:.1f} ms, max {max(searched) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
