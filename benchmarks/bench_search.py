"""The perfect-information solver and the search players: median time to
solve the last 4 to 7 tricks of random deals, nodes per second, and the cost
per move of `pimc` and of the expert at their default settings (version 6),
of its earlier versions (`expert:version=5`, `4` and `1`), of version 5 with a
value network after the current trick (`expert:version=5,depth=1,worlds=160`)
and with the belief network's worlds (`expert:version=5,sampler=net,belief=0`),
each timed on the same positions, one after the other.

    python benchmarks/bench_search.py [--positions 10] [--moves 180]

Prints markdown tables. Every figure is CPU time of this process (one thread).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from aluette_env.game import Deal, deal_cards
from aluette_env.players.search import ExpertPlayer, pimc
from aluette_env.players.heuristic import HeuristicPlayer
from aluette_env.players.solver import Position, Solver
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
        start = time.process_time()
        solver.value(pos)
        times.append(time.process_time() - start)
        nodes += solver.nodes
    return statistics.median(times), nodes / sum(times)


def pimc_move_times(moves: int = 180, player=None) -> tuple[list[float], list[float]]:
    """CPU times of all moves, and of the moves in the solved endgame."""
    player, heuristic = player or pimc(seed=0), HeuristicPlayer()
    game = VectorGame(1, seed=1)
    game.reset()
    times, searched = [], []
    for k in range(moves):
        endgame = 9 - int(game.state.trick_index[0]) <= player.solve_tricks
        start = time.process_time()  # CPU time: other processes don't count
        a = player.act(game.obs[0], game.mask[0])
        dt = time.process_time() - start
        times.append(dt)
        if endgame:
            searched.append(dt)
        game.step(np.array([a if k % 2 else heuristic.act(game.obs[0], game.mask[0])]))
    return times, searched


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10, help="random positions per row")
    parser.add_argument("--moves", type=int, default=180, help="moves timed per search player")
    args = parser.parse_args(argv)
    solve_times(4, 1)  # compile
    print(f"Exact value of the rest of a deal, median CPU time over {args.positions} random "
          f"positions:\n")
    print("| tricks left | solver | nodes/s |\n|---:|---:|---:|")
    for k in (4, 5, 6, 7):
        med, nps = solve_times(k, args.positions)
        print(f"| {k} | {med * 1000:,.2f} ms | {nps:,.0f} |", flush=True)
    print(f"\nSearch players at their defaults, CPU time per move over {args.moves} moves of "
          f"a game against `heuristic`:\n")
    print("| player | median | mean | worst |\n|---|---:|---:|---:|")
    players = (ExpertPlayer(seed=0), ExpertPlayer(seed=0, version=5),
               ExpertPlayer(seed=0, version=5, depth=1, worlds=160),
               ExpertPlayer(seed=0, version=5, sampler="net", belief=0.0),
               ExpertPlayer(seed=0, version=4), ExpertPlayer(seed=0, version=1), pimc(seed=0))
    for player in players:
        pimc_move_times(8, player)  # compile
    each = same_position_times(args.moves, players)
    for player, times in zip(players, each):
        print(f"| `{player.name}` | {statistics.median(times) * 1000:.1f} ms | "
              f"{statistics.mean(times) * 1000:.1f} ms | {max(times) * 1000:.0f} ms |", flush=True)


def same_position_times(moves: int, players) -> list[list[float]]:
    """CPU time per move of each player on the same positions: a game where the
    first player plays one team and ``heuristic`` the other, every player timed
    on each of the first player's moves, one after the other."""
    heuristic = HeuristicPlayer()
    game = VectorGame(1, seed=1)
    game.reset()
    times: list[list[float]] = [[] for _ in players]
    for k in range(moves):
        if k % 2 == 0:
            game.step(np.array([heuristic.act(game.obs[0], game.mask[0])]))
            continue
        for player, mine in zip(players, times):
            start = time.process_time()
            a = player.act(game.obs[0], game.mask[0])
            mine.append(time.process_time() - start)
            if player is players[0]:
                move = a
        game.step(np.array([move]))
    return times


if __name__ == "__main__":
    main()
